//! Errors: each names the layer, the key, the bad value and what is allowed.

use toml::Value;

use super::*;

#[test]
fn unknown_intents_are_errors_listing_the_four() {
    let err = load_vault_text("[search.intents.fuzzy]\nbm25 = 0.5\n").unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, ConfigError::UnknownKey { .. }), "{msg}");
    assert!(msg.starts_with("unknown key `search.intents.fuzzy` in vault config "), "{msg}");
    assert!(msg.ends_with("; allowed: general, recall, exact, explore"), "{msg}");

    let err = load_vault_text("[search.intents.exact]\nkeyword = 0.5\n").unwrap_err();
    assert!(
        err.to_string().starts_with("unknown key `search.intents.exact.keyword` in vault "),
        "{err}"
    );
    assert!(err.to_string().ends_with("; allowed: bm25, vector"), "{err}");

    for var in ["MEMLANE_SEARCH__INTENTS__FUZZY__BM25", "MEMLANE_SEARCH__INTENTS__EXACT"] {
        // Ignored by the loader, named by `unknown_env_vars` for the front end's warning.
        let loaded = load_env(&[(var, "0.5")]).unwrap();
        assert_eq!(loaded.config, Config::default());
        assert_eq!(unknown_env_vars(&env(&[(var, "0.5")])), [var]);
        let err = ConfigError::UnknownEnv { var: var.to_owned() };
        assert!(err.to_string().contains("INTENT one of GENERAL, RECALL, EXACT, EXPLORE"));
    }
    let flags = [("search.intents.Exact.bm25".to_owned(), Value::Float(0.5), "-c".to_owned())];
    let err = LoadedConfig::load(&ConfigInputs { flags: &flags, ..Default::default() });
    assert!(err.unwrap_err().to_string().ends_with("allowed: general, recall, exact, explore"));
}

#[test]
fn integer_keys_reject_floats_and_strings() {
    for (text, key) in [
        ("[search]\nlimit = 2.5", "search.limit"),
        ("[search]\nlimit = 5.0", "search.limit"),
        ("[search]\nlimit = \"5\"", "search.limit"),
        ("[embedding]\nbatch_size = 32.0", "embedding.batch_size"),
        ("[search]\nmin_candidates = 1e2", "search.min_candidates"),
        ("[lifecycle]\nrenotify_hours = 0.5", "lifecycle.renotify_hours"),
    ] {
        let err = load_vault_text(text).unwrap_err();
        assert!(matches!(err, ConfigError::Invalid { .. }), "{err}");
        assert!(err.to_string().contains(&format!("`{key}`")), "{err}");
        assert!(err.to_string().contains("allowed: an integer"), "{err}");
    }
    let err = load_env(&[("MEMLANE_SEARCH__CANDIDATE_FACTOR", "2.5")]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid value 2.5 for `search.candidate_factor` in env \
         MEMLANE_SEARCH__CANDIDATE_FACTOR; allowed: an integer from 1 to 100"
    );
    let big = load_vault_text("[search]\nmin_candidates = 100000").unwrap();
    assert_eq!(big.config.search.min_candidates, 100_000);
    let err = load_vault_text("[search]\nmin_candidates = 9223372036854775807").unwrap_err();
    assert!(err.to_string().contains("an integer from 1 to 100000"), "{err}");
}

#[test]
fn validation_errors_name_origin_key_value_and_allowed() {
    let cases: &[(&str, &str, &str, &str)] = &[
        // (file text, key, value, part of allowed)
        (
            "storage_strategy = \"global\"",
            "storage_strategy",
            "\"global\"",
            "\"project\" or \"user\"",
        ),
        ("storage_strategy = 1", "storage_strategy", "1", "\"project\" or \"user\""),
        ("default_type = \"nope\"", "default_type", "\"nope\"", "bug_fix, code_context"),
        ("default_type = 3", "default_type", "3", "a type name"),
        ("[types.bug_fix]\nhalf_life_days = 0", "types.bug_fix.half_life_days", "0", "> 0"),
        ("[types.bug_fix]\nhalf_life_days = inf", "types.bug_fix.half_life_days", "inf", "finite"),
        ("[types.bug_fix]\nweight = -1", "types.bug_fix.weight", "-1", ">= 0"),
        ("[types.bug_fix]\nweight = nan", "types.bug_fix.weight", "nan", ">= 0"),
        (
            "[types.bug_fix]\nweight = \"high\"",
            "types.bug_fix.weight",
            "\"high\"",
            "a finite number",
        ),
        (
            "[types.plan]\nrecency_window_days = -0.5",
            "types.plan.recency_window_days",
            "-0.5",
            ">= 0",
        ),
        (
            "[types.plan]\nrecency_max_boost = 1.5",
            "types.plan.recency_max_boost",
            "1.5",
            "from 0 to 1",
        ),
        (
            "[types.plan]\nrecency_max_boost = -0.1",
            "types.plan.recency_max_boost",
            "-0.1",
            "from 0 to 1",
        ),
        (
            "[types.plan]\nrecency_rate = 0",
            "types.plan.recency_rate",
            "0",
            "greater than 0 and at most 1",
        ),
        ("[types.plan]\nrecency_rate = 1.01", "types.plan.recency_rate", "1.01", "at most 1"),
        ("[types.new_one]\nrecency_rate = true", "types.new_one.recency_rate", "true", "number"),
        ("[privacy]\nscrub_secrets = \"no\"", "privacy.scrub_secrets", "\"no\"", "true or false"),
        ("privacy = 1", "privacy", "1", "scrub_secrets"),
        ("types = [1, 2]", "types", "[1, 2]", "[types.<name>]"),
        ("[types]\nplan = 5", "types.plan", "5", "half_life_days, weight"),
        // [embedding]
        (
            "[embedding]\nmodel = \"\"",
            "embedding.model",
            "\"\"",
            "\"auto\", \"builtin\", the path of a sentence-transformer model directory, or \"static:\"",
        ),
        ("[embedding]\nmodel = \"  \"", "embedding.model", "\"  \"", "\"auto\""),
        ("[embedding]\nmodel = 3", "embedding.model", "3", "as a string"),
        ("[embedding]\nbatch_size = 0", "embedding.batch_size", "0", "an integer from 1 to 1024"),
        ("[embedding]\nbatch_size = 1025", "embedding.batch_size", "1025", "from 1 to 1024"),
        ("embedding = \"auto\"", "embedding", "\"auto\"", "a table with keys model, batch_size"),
        // [search]
        (
            "[search]\nprofile = \"fast\"",
            "search.profile",
            "\"fast\"",
            "\"balanced\", \"ragdocs\", \"mnestra\", \"remindb\" or \"mira\"",
        ),
        ("[search]\nprofile = \"Balanced\"", "search.profile", "\"Balanced\"", "\"balanced\""),
        ("[search]\nlimit = 0", "search.limit", "0", "an integer from 1 to 1000"),
        ("[search]\nlimit = 1001", "search.limit", "1001", "an integer from 1 to 1000"),
        ("[search]\nlimit = 2.5", "search.limit", "2.5", "an integer from 1 to 1000"),
        ("[search]\nscore_threshold = 1.5", "search.score_threshold", "1.5", "from 0 to 1"),
        ("[search]\nscore_threshold = -0.1", "search.score_threshold", "-0.1", "from 0 to 1"),
        ("[search]\nrrf_k = 0", "search.rrf_k", "0", "a finite number > 0"),
        ("[search]\nrrf_k = inf", "search.rrf_k", "inf", "a finite number > 0"),
        (
            "[search]\nmin_candidates = 0",
            "search.min_candidates",
            "0",
            "an integer from 1 to 100000",
        ),
        (
            "[search]\ncandidate_factor = 0",
            "search.candidate_factor",
            "0",
            "an integer from 1 to 100",
        ),
        (
            "[search]\ncalibration_midpoint = 0",
            "search.calibration_midpoint",
            "0",
            "greater than 0 and less than 1",
        ),
        (
            "[search]\ncalibration_midpoint = 1.0",
            "search.calibration_midpoint",
            "1.0",
            "greater than 0 and less than 1",
        ),
        (
            "[search]\ncalibration_steepness = -1",
            "search.calibration_steepness",
            "-1",
            "a finite number > 0",
        ),
        (
            "[search]\nsupersession_penalty = 0",
            "search.supersession_penalty",
            "0",
            "greater than 0 and at most 1",
        ),
        (
            "[search]\nsupersession_penalty = 1.5",
            "search.supersession_penalty",
            "1.5",
            "greater than 0 and at most 1",
        ),
        (
            "[search]\nexpiry_fade_days = -1",
            "search.expiry_fade_days",
            "-1",
            "a finite number >= 0",
        ),
        ("search = []", "search", "[]", "a table with keys profile, limit"),
        ("[search]\nintents = 1", "search.intents", "1", "general, recall, exact, explore"),
        (
            "[search.intents]\nexact = 0.5",
            "search.intents.exact",
            "0.5",
            "a table with keys bm25, vector",
        ),
        ("[search.intents.exact]\nbm25 = 1.1", "search.intents.exact.bm25", "1.1", "from 0 to 1"),
        (
            "[search.intents.explore]\nvector = -0.5",
            "search.intents.explore.vector",
            "-0.5",
            "from 0 to 1",
        ),
        (
            "[search.intents.recall]\nvector = \"high\"",
            "search.intents.recall.vector",
            "\"high\"",
            "a number from 0 to 1",
        ),
        // [lifecycle]
        (
            "[lifecycle]\nclock = \"wall\"",
            "lifecycle.clock",
            "\"wall\"",
            "\"activity\" or \"calendar\"",
        ),
        ("[lifecycle]\ntemperature_start = 2", "lifecycle.temperature_start", "2", "from 0 to 1"),
        ("[lifecycle]\ntemperature_warm = -1", "lifecycle.temperature_warm", "-1", "from 0 to 1"),
        ("[lifecycle]\ncooling_rate = -0.01", "lifecycle.cooling_rate", "-0.01", ">= 0"),
        ("[lifecycle]\ncold_threshold = 1.2", "lifecycle.cold_threshold", "1.2", "from 0 to 1"),
        ("[lifecycle]\nnotify_threshold = nan", "lifecycle.notify_threshold", "nan", "0 to 1"),
        (
            "[lifecycle]\ncold_check_minutes = 0",
            "lifecycle.cold_check_minutes",
            "0",
            "an integer >= 1",
        ),
        ("[lifecycle]\nrenotify_hours = -1", "lifecycle.renotify_hours", "-1", "an integer >= 0"),
        ("[lifecycle]\ndedup_threshold = 1.01", "lifecycle.dedup_threshold", "1.01", "0 to 1"),
        (
            "[lifecycle]\nremember_update_threshold = -0.5",
            "lifecycle.remember_update_threshold",
            "-0.5",
            "from 0 to 1",
        ),
        ("[lifecycle]\nmerge_threshold = true", "lifecycle.merge_threshold", "true", "0 to 1"),
        // [mcp]
        ("[mcp]\ntools = \"all\"", "mcp.tools", "\"all\"", "\"core\" or \"full\""),
        ("[mcp]\ntools = 1", "mcp.tools", "1", "\"core\" or \"full\""),
        ("mcp = true", "mcp", "true", "a table with keys tools"),
    ];
    for (text, key, value, allowed) in cases {
        let err = load_vault_text(text).unwrap_err();
        let msg = err.to_string();
        match &err {
            ConfigError::Invalid { origin, key: k, value: v, allowed: a } => {
                assert!(matches!(origin, ConfigSource::VaultFile(_)), "{msg}");
                assert_eq!(k, key, "{msg}");
                assert_eq!(v, value, "{msg}");
                assert!(a.contains(allowed), "{msg}");
            }
            other => panic!("{text}: unexpected {other:?}"),
        }
        assert!(msg.starts_with("invalid value "), "{msg}");
        assert!(msg.contains("vault config ") && msg.contains("config.toml"), "{msg}");
        assert!(msg.contains(&format!("`{key}`")) && msg.contains(allowed), "{msg}");
    }
}

#[test]
fn unknown_keys_name_origin_key_and_allowed() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "colour = 1",
            "colour",
            "storage_strategy, default_type, embedding, search, lifecycle, watch, mcp, hooks, privacy, types",
        ),
        ("[privacy]\nscrub = true", "privacy.scrub", "scrub_secrets"),
        (
            "[types.bug_fix]\nhalflife = 3",
            "types.bug_fix.halflife",
            "half_life_days, weight, recency_window_days, recency_max_boost, recency_rate",
        ),
        ("[embedding]\nmodle = \"x\"", "embedding.modle", "model, batch_size"),
        ("[mcp]\ntool = \"core\"", "mcp.tool", "tools"),
        ("[search.intents.general]\nbm = 1", "search.intents.general.bm", "bm25, vector"),
    ];
    for (text, key, allowed) in cases {
        let err = load_vault_text(text).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, ConfigError::UnknownKey { .. }), "{msg}");
        assert!(msg.starts_with(&format!("unknown key `{key}` in vault config ")), "{msg}");
        assert!(msg.ends_with(&format!("config.toml; allowed: {allowed}")), "{msg}");
    }
    // Every section lists its declared keys, then its sub-tables.
    for section in SECTIONS {
        let defaults = Config::default();
        let table = (section.get)(&defaults);
        let names: Vec<&str> =
            table.keys().iter().map(|k| k.name).chain(table.tables().iter().copied()).collect();
        let err = load_vault_text(&format!("[{}]\nnope_key = 1", section.name)).unwrap_err();
        let allowed = format!("; allowed: {}", names.join(", "));
        assert!(err.to_string().ends_with(&allowed), "{err}");
    }
}

#[test]
fn bad_type_names_are_rejected() {
    for name in ["\"Bug\"", "\"9lives\"", "\"bug-fix\"", "\"\"", "\"é\"", "_x"] {
        let err = load_vault_text(&format!("[types.{name}]\nweight = 1")).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, ConfigError::InvalidTypeName { .. }), "{msg}");
        assert!(msg.contains("vault config "), "{msg}");
        assert!(msg.contains("allowed: a lowercase ASCII letter"), "{msg}");
    }
    let err = load_vault_text("[types.Bug]\nweight = 1").unwrap_err();
    assert_eq!(
        err.to_string().split(" in ").next().unwrap(),
        "invalid type name `Bug` at `types.Bug`"
    );
    assert!(load_vault_text("[types.a_1]\n[types.z]").is_ok());
}

#[test]
fn env_unknown_variables_are_ignored_and_named() {
    for var in [
        "MEMLANE_COLOR",
        "MEMLANE_",
        "MEMLANE_TYPES_BUG_FIX_WEIGHT",
        "MEMLANE_TYPES__BUG_FIX",
        "MEMLANE_TYPES__BUG_FIX__HALFLIFE",
        "MEMLANE_TYPES____WEIGHT",
        "MEMLANE_PRIVACY__SCRUB",
        "MEMLANE_PRIVACY",
        "MEMLANE_STORAGE_STRATEGY__X",
        "MEMLANE_SEARCH",
        "MEMLANE_SEARCH__LIMT",
        "MEMLANE_SEARCH__INTENTS",
        "MEMLANE_SEARCH__INTENTS__EXACT",
        "MEMLANE_SEARCH__INTENTS__EXACT__BM25__X",
        "MEMLANE_SEARCH__LIMIT__X",
        "MEMLANE_EMBEDDING",
        "MEMLANE_EMBEDDING_MODEL",
        "MEMLANE_LIFECYCLE__SCRUB_SECRETS",
        "MEMLANE_MCP__TOOL",
        "MEMLANE_PRIVACY__TOOLS",
    ] {
        let loaded = load_env(&[(var, "1"), ("MEMLANE_DEFAULT_TYPE", "fact")]).unwrap();
        assert_eq!(loaded.config.default_type, "fact", "{var}: the known variable still counts");
        assert_eq!(unknown_env_vars(&env(&[(var, "1"), ("MEMLANE_VAULT", "/v")])), [var]);
        let err = ConfigError::UnknownEnv { var: var.to_owned() };
        let msg = err.to_string();
        assert!(msg.starts_with(&format!("environment variable {var} matches no config key; ")));
        assert!(msg.contains("MEMLANE_TYPES__<TYPE>__<FIELD>"), "{msg}");
        assert!(msg.contains("MEMLANE_PRIVACY__SCRUB_SECRETS"), "{msg}");
        assert!(msg.contains("MEMLANE_SEARCH__<KEY>"), "{msg}");
        assert!(msg.contains("MEMLANE_SEARCH__INTENTS__<INTENT>__<BM25|VECTOR>"), "{msg}");
        assert!(msg.contains("MEMLANE_MODEL are read elsewhere"), "{msg}");
    }
}

#[test]
fn env_value_errors_name_the_variable() {
    let err = load_env(&[("MEMLANE_TYPES__BUG_FIX__WEIGHT", "heavy")]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid value \"heavy\" for `types.bug_fix.weight` in env \
         MEMLANE_TYPES__BUG_FIX__WEIGHT; allowed: a finite number >= 0"
    );
    let err = load_env(&[("MEMLANE_STORAGE_STRATEGY", "")]).unwrap_err();
    assert!(err.to_string().contains("in env MEMLANE_STORAGE_STRATEGY; allowed: \"project\""));
    let err = load_env(&[("MEMLANE_TYPES__BUG-FIX__WEIGHT", "1")]).unwrap_err();
    assert!(matches!(err, ConfigError::InvalidTypeName { .. }), "{err}");
    assert!(err.to_string().contains("env MEMLANE_TYPES__BUG-FIX__WEIGHT"), "{err}");
}

#[test]
fn flag_errors_name_the_flag() {
    let flags = [("types.bug_fix.weight".to_owned(), Value::Float(-2.0), "--weight".to_owned())];
    let err = LoadedConfig::load(&ConfigInputs { flags: &flags, ..Default::default() });
    assert_eq!(
        err.unwrap_err().to_string(),
        "invalid value -2.0 for `types.bug_fix.weight` in flag --weight; allowed: a finite number >= 0"
    );
    let flags = [("nope".to_owned(), Value::Boolean(true), "--nope".to_owned())];
    let err = LoadedConfig::load(&ConfigInputs { flags: &flags, ..Default::default() });
    assert!(
        err.unwrap_err().to_string().starts_with("unknown key `nope` in flag --nope; allowed: ")
    );
}

#[test]
fn files_missing_unreadable_or_broken() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.toml");

    let optional = ConfigInputs {
        user_file: Some(&missing),
        vault_file: Some(&missing),
        ..Default::default()
    };
    let loaded = LoadedConfig::load(&optional).unwrap();
    assert!(loaded.files.is_empty());
    assert_eq!(loaded.config, Config::default());

    let required = ConfigInputs { user_file_required: true, ..optional };
    let err = LoadedConfig::load(&required).unwrap_err();
    assert!(matches!(err, ConfigError::MissingFile { .. }));
    assert_eq!(
        err.to_string(),
        format!(
            "config file {} does not exist (named by MEMLANE_CONFIG); create it or point \
             MEMLANE_CONFIG at an existing file",
            missing.display()
        )
    );

    let as_dir = ConfigInputs { vault_file: Some(dir.path()), ..Default::default() };
    let err = LoadedConfig::load(&as_dir).unwrap_err();
    assert!(matches!(err, ConfigError::Read { .. }), "{err:?}");
    assert!(
        err.to_string().starts_with(&format!("cannot read config file {}", dir.path().display()))
    );

    let broken = write(dir.path(), "broken.toml", "[types.bug_fix]\nweight = = 2\n");
    let inputs = ConfigInputs { user_file: Some(&broken), ..Default::default() };
    let err = LoadedConfig::load(&inputs).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, ConfigError::Parse { .. }));
    assert!(msg.starts_with(&format!("cannot parse user config {}", broken.display())), "{msg}");
    assert!(msg.contains("line 2, column"), "{msg}");

    let dup = write(dir.path(), "dup.toml", "weight = 1\nweight = 2\n");
    let inputs = ConfigInputs { vault_file: Some(&dup), ..Default::default() };
    assert!(matches!(LoadedConfig::load(&inputs), Err(ConfigError::Parse { .. })));
}
