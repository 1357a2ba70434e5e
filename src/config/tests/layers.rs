//! Layers: precedence, sources, partial tables, new types, environment variables and flags.

use toml::Value;

use super::*;

#[test]
fn new_sections_follow_layer_precedence() {
    let dir = tempfile::tempdir().unwrap();
    let user = write(
        dir.path(),
        "user.toml",
        "[embedding]\nmodel = \"/models/mini\"\nbatch_size = 8\n\
         [search]\nlimit = 7\nrrf_k = 30\n[lifecycle]\nclock = \"calendar\"\n\
         cold_threshold = 0.2\n[mcp]\ntools = \"full\"\n",
    );
    let vault = write(
        dir.path(),
        "vault.toml",
        "[embedding]\nbatch_size = 16\n[search]\nlimit = 9\n\
         [search.intents.exact]\nbm25 = 0.9\n[lifecycle]\ncold_threshold = 0.3\n\
         [mcp]\ntools = \"core\"\n",
    );
    let env = env(&[
        ("MEMLANE_EMBEDDING__BATCH_SIZE", "64"),
        ("MEMLANE_SEARCH__LIMIT", "11"),
        ("MEMLANE_SEARCH__INTENTS__EXACT__BM25", "0.7"),
        ("MEMLANE_LIFECYCLE__COLD_THRESHOLD", "0.4"),
        ("MEMLANE_MCP__TOOLS", "full"),
    ]);
    let flags = [
        (
            "embedding.batch_size".to_owned(),
            Value::Integer(128),
            "-c embedding.batch_size".to_owned(),
        ),
        ("search.limit".to_owned(), Value::Integer(13), "--limit".to_owned()),
        ("search.intents.exact.bm25".to_owned(), Value::Float(0.5), "-c x".to_owned()),
        ("lifecycle.cold_threshold".to_owned(), Value::Float(0.5), "-c y".to_owned()),
        ("mcp.tools".to_owned(), Value::from("core"), "--tools".to_owned()),
    ];
    let mut inputs = ConfigInputs {
        user_file: Some(&user),
        user_file_required: false,
        vault_file: Some(&vault),
        env: &env,
        flags: &flags,
    };
    let user_src = format!("user config {}", user.display());
    let vault_src = format!("vault config {}", vault.display());

    let all = LoadedConfig::load(&inputs).unwrap();
    let c = &all.config;
    let src = |key: &str| all.sources[key].to_string();
    assert_eq!(c.embedding.model, "/models/mini");
    assert_eq!(src("embedding.model"), user_src);
    assert_eq!(c.embedding.batch_size, 128);
    assert_eq!(src("embedding.batch_size"), "flag -c embedding.batch_size");
    assert_eq!(c.search.limit, 13);
    assert_eq!(src("search.limit"), "flag --limit");
    assert_eq!(c.search.rrf_k, 30.0);
    assert_eq!(src("search.rrf_k"), user_src);
    assert_eq!(c.search.intents.exact, Weights { bm25: 0.5, vector: 0.2 });
    assert_eq!(src("search.intents.exact.bm25"), "flag -c x");
    assert_eq!(src("search.intents.exact.vector"), "default");
    assert_eq!(c.lifecycle.clock, ClockKind::Calendar);
    assert_eq!(src("lifecycle.clock"), user_src);
    assert_eq!(c.lifecycle.cold_threshold, 0.5);
    assert_eq!(c.mcp.tools, McpTools::Core);
    assert_eq!(src("mcp.tools"), "flag --tools");
    assert_eq!(src("search.profile"), "default");

    inputs.flags = &[];
    let no_flags = LoadedConfig::load(&inputs).unwrap();
    let c = &no_flags.config;
    assert_eq!(
        (c.embedding.batch_size, c.search.limit, c.lifecycle.cold_threshold, c.mcp.tools),
        (64, 11, 0.4, McpTools::Full)
    );
    assert_eq!(c.search.intents.get(Intent::Exact).bm25, 0.7);
    assert_eq!(
        no_flags.sources["search.intents.exact.bm25"].to_string(),
        "env MEMLANE_SEARCH__INTENTS__EXACT__BM25"
    );
    assert_eq!(no_flags.sources["mcp.tools"].to_string(), "env MEMLANE_MCP__TOOLS");

    inputs.env = &[];
    let files_only = LoadedConfig::load(&inputs).unwrap();
    let c = &files_only.config;
    assert_eq!(
        (c.embedding.batch_size, c.search.limit, c.lifecycle.cold_threshold, c.mcp.tools),
        (16, 9, 0.3, McpTools::Core)
    );
    assert_eq!(c.search.intents.exact.bm25, 0.9);
    assert_eq!(files_only.sources["search.limit"].to_string(), vault_src);
    assert_eq!(files_only.sources["mcp.tools"].to_string(), vault_src);

    inputs.vault_file = None;
    let user_only = LoadedConfig::load(&inputs).unwrap();
    let c = &user_only.config;
    assert_eq!(
        (c.embedding.batch_size, c.search.limit, c.lifecycle.cold_threshold, c.mcp.tools),
        (8, 7, 0.2, McpTools::Full)
    );
    assert_eq!(c.search.intents, IntentWeights::default());
    assert_eq!(user_only.sources["lifecycle.cold_threshold"].to_string(), user_src);
}

#[test]
fn intent_tables_may_set_one_weight() {
    let loaded = load_vault_text(
        "[search.intents.recall]\nvector = 0.1\n[search.intents.explore]\nbm25 = 0\n\
         [search.intents.general]\n",
    )
    .unwrap();
    let intents = loaded.config.search.intents;
    assert_eq!(intents.recall, Weights { bm25: 0.6, vector: 0.1 });
    assert_eq!(intents.explore, Weights { bm25: 0.0, vector: 0.7 });
    assert_eq!(intents.general, IntentWeights::default().general);
    assert_eq!(intents.exact, IntentWeights::default().exact);
    assert!(matches!(loaded.sources["search.intents.recall.vector"], ConfigSource::VaultFile(_)));
    assert_eq!(loaded.sources["search.intents.recall.bm25"], ConfigSource::Default);
    // Dotted keys and inline tables work too.
    let loaded = load_vault_text("[search]\nintents.exact.vector = 1\n").unwrap();
    assert_eq!(loaded.config.search.intents.exact, Weights { bm25: 0.8, vector: 1.0 });
    let loaded = load_vault_text("search = { intents = { exact = { vector = 1 } } }").unwrap();
    assert_eq!(loaded.config.search.intents.exact, Weights { bm25: 0.8, vector: 1.0 });
}

#[test]
fn each_layer_overrides_the_one_below_and_records_its_source() {
    let dir = tempfile::tempdir().unwrap();
    let user = write(
        dir.path(),
        "user.toml",
        "default_type = \"fact\"\n[types.bug_fix]\nweight = 2.0\nhalf_life_days = 40\n\
         [types.plan]\nweight = 0.5\n[types.fact]\nweight = 0.7\n",
    );
    let vault = write(
        dir.path(),
        "vault.toml",
        "[types.bug_fix]\nweight = 3.0\nrecency_rate = 0.5\n[types.plan]\nweight = 0.6\n",
    );
    let env = env(&[
        ("MEMLANE_TYPES__BUG_FIX__WEIGHT", "4"),
        ("MEMLANE_TYPES__PLAN__WEIGHT", "0.8"),
        ("HOME", "/home/x"),
    ]);
    let flags =
        [("types.bug_fix.weight".to_owned(), Value::Float(5.0), "--bug-fix-weight".to_owned())];
    let mut inputs = ConfigInputs {
        user_file: Some(&user),
        user_file_required: true,
        vault_file: Some(&vault),
        env: &env,
        flags: &flags,
    };

    let all = LoadedConfig::load(&inputs).unwrap();
    let bug_fix = all.config.type_profile("bug_fix").unwrap();
    assert_eq!(bug_fix.weight, 5.0);
    assert_eq!(bug_fix.half_life_days, 40.0);
    assert_eq!(bug_fix.recency_rate, 0.5);
    assert_eq!(bug_fix.recency_max_boost, 0.20);
    assert_eq!(all.config.type_profile("plan").unwrap().weight, 0.8);
    assert_eq!(all.config.type_profile("fact").unwrap().weight, 0.7);
    assert_eq!(all.config.default_type, "fact");
    let src = |key: &str| all.sources[key].to_string();
    assert_eq!(src("types.bug_fix.weight"), "flag --bug-fix-weight");
    assert_eq!(src("types.plan.weight"), "env MEMLANE_TYPES__PLAN__WEIGHT");
    assert_eq!(src("types.bug_fix.recency_rate"), format!("vault config {}", vault.display()));
    assert_eq!(src("types.bug_fix.half_life_days"), format!("user config {}", user.display()));
    assert_eq!(src("types.fact.weight"), format!("user config {}", user.display()));
    assert_eq!(src("default_type"), format!("user config {}", user.display()));
    assert_eq!(src("types.bug_fix.recency_max_boost"), "default");
    assert_eq!(all.files, [user.clone(), vault.clone()]);

    inputs.flags = &[];
    let no_flags = LoadedConfig::load(&inputs).unwrap();
    assert_eq!(no_flags.config.type_profile("bug_fix").unwrap().weight, 4.0);
    assert_eq!(
        no_flags.sources["types.bug_fix.weight"],
        ConfigSource::Env("MEMLANE_TYPES__BUG_FIX__WEIGHT".to_owned())
    );

    inputs.env = &[];
    let files_only = LoadedConfig::load(&inputs).unwrap();
    assert_eq!(files_only.config.type_profile("bug_fix").unwrap().weight, 3.0);
    assert_eq!(files_only.config.type_profile("plan").unwrap().weight, 0.6);
    assert_eq!(files_only.sources["types.bug_fix.weight"], ConfigSource::VaultFile(vault.clone()));

    inputs.vault_file = None;
    let user_only = LoadedConfig::load(&inputs).unwrap();
    assert_eq!(user_only.config.type_profile("bug_fix").unwrap().weight, 2.0);
    assert_eq!(user_only.sources["types.bug_fix.weight"], ConfigSource::UserFile(user.clone()));

    inputs.user_file = None;
    let defaults = LoadedConfig::load(&inputs).unwrap();
    assert_eq!(defaults.config, Config::default());
}

#[test]
fn later_flags_win_and_top_level_flags_work() {
    let flags = [
        ("default_type".to_owned(), Value::from("plan"), "--type".to_owned()),
        ("storage_strategy".to_owned(), Value::from("user"), "--user".to_owned()),
        ("default_type".to_owned(), Value::from("fact"), "--default-type".to_owned()),
    ];
    let loaded = LoadedConfig::load(&ConfigInputs { flags: &flags, ..Default::default() });
    let loaded = loaded.unwrap();
    assert_eq!(loaded.config.default_type, "fact");
    assert_eq!(loaded.config.storage_strategy, StorageStrategy::User);
    assert_eq!(loaded.sources["default_type"].to_string(), "flag --default-type");
}

#[test]
fn partial_type_override_keeps_other_fields() {
    let loaded = load_vault_text("[types.bug_fix]\nhalf_life_days = 60\n").unwrap();
    let expected = TypeProfile { half_life_days: 60.0, ..BUILTIN_TYPES[3].1 };
    assert_eq!(BUILTIN_TYPES[3].0, "bug_fix");
    assert_eq!(loaded.config.type_profile("bug_fix"), Some(&expected));
    assert_eq!(loaded.config.types.len(), 12);
}

#[test]
fn new_type_inherits_journal_numbers() {
    let loaded =
        load_vault_text("default_type = \"meeting\"\n[types.meeting]\nweight = 0.9\n[types.x1]\n")
            .unwrap();
    let journal = *loaded.config.type_profile("journal").unwrap();
    assert_eq!(
        loaded.config.type_profile("meeting"),
        Some(&TypeProfile { weight: 0.9, ..journal })
    );
    assert_eq!(loaded.config.type_profile("x1"), Some(&journal));
    assert_eq!(loaded.config.default_type, "meeting");
    assert_eq!(loaded.sources["types.meeting.half_life_days"], ConfigSource::Default);
    assert!(loaded.config.type_names().contains(&"meeting"));
}

#[test]
fn new_type_inherits_the_builtin_journal_not_an_override() {
    // New types start from journal's built-in numbers, whatever a layer did to journal, so
    // a type's profile never depends on the order in which types are processed.
    let dir = tempfile::tempdir().unwrap();
    let user = write(dir.path(), "user.toml", "[types.journal]\nhalf_life_days = 10\n");
    let vault = write(dir.path(), "vault.toml", "[types.meeting]\nweight = 2\n");
    let inputs =
        ConfigInputs { user_file: Some(&user), vault_file: Some(&vault), ..Default::default() };
    let loaded = LoadedConfig::load(&inputs).unwrap();
    assert_eq!(loaded.config.type_profile("journal").unwrap().half_life_days, 10.0);
    assert_eq!(loaded.config.type_profile("meeting").unwrap().half_life_days, 30.0);
}

#[test]
fn integers_are_accepted_where_floats_go() {
    let loaded = load_vault_text(
        "[types.fact]\nhalf_life_days = 7\nweight = 2\nrecency_window_days = 0\n\
         recency_max_boost = 1\nrecency_rate = 1\n",
    )
    .unwrap();
    assert_eq!(
        loaded.config.type_profile("fact"),
        Some(&TypeProfile::new(7.0, 2.0, 0.0, 1.0, 1.0))
    );
}

#[test]
fn default_type_may_name_a_type_from_another_layer() {
    let dir = tempfile::tempdir().unwrap();
    let user = write(dir.path(), "user.toml", "[types.meeting]\n");
    let env = env(&[("MEMLANE_DEFAULT_TYPE", "meeting")]);
    let inputs = ConfigInputs { user_file: Some(&user), env: &env, ..Default::default() };
    assert_eq!(LoadedConfig::load(&inputs).unwrap().config.default_type, "meeting");

    let err = load_env(&[("MEMLANE_DEFAULT_TYPE", "meeting")]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid value \"meeting\" for `default_type` in env MEMLANE_DEFAULT_TYPE; allowed: \
         a known type (architecture, bug_fix, code_context, decision, document_chunk, fact, \
         journal, observation, plan, preference, reflection, session_summary) or a new type \
         defined with a [types.<name>] table"
    );
}

#[test]
fn env_nesting_case_and_values() {
    let loaded = load_env(&[
        ("MEMLANE_STORAGE_STRATEGY", "user"),
        ("memlane_privacy__scrub_secrets", "false"),
        ("MEMLANE_TYPES__BUG_FIX__HALF_LIFE_DAYS", "60"),
        ("Memlane_Types__Meeting__Weight", " 0.5 "),
        ("MEMLANE_DEFAULT_TYPE", "\"meeting\""),
        ("MEMLANE_EMBEDDING__MODEL", "/opt/models/all-MiniLM-L6-v2"),
        ("memlane_search__profile", "mira"),
        ("MEMLANE_SEARCH__SCORE_THRESHOLD", "0"),
        ("MEMLANE_LIFECYCLE__CLOCK", "calendar"),
        ("MEMLANE_LIFECYCLE__RENOTIFY_HOURS", "24"),
        ("MEMLANE_SEARCH__INTENTS__EXPLORE__VECTOR", "1"),
        ("PATH", "/bin"),
        ("MEMLANEX", "1"),
    ])
    .unwrap();
    let c = &loaded.config;
    assert_eq!(c.storage_strategy, StorageStrategy::User);
    assert!(!c.privacy.scrub_secrets);
    assert_eq!(c.type_profile("bug_fix").unwrap().half_life_days, 60.0);
    assert_eq!(c.type_profile("bug_fix").unwrap().weight, 1.3);
    assert_eq!(c.type_profile("meeting").unwrap().weight, 0.5);
    assert_eq!(c.default_type, "meeting");
    assert_eq!(c.embedding.model, "/opt/models/all-MiniLM-L6-v2");
    assert_eq!(c.search.profile, SearchProfile::Mira);
    assert_eq!(c.search.score_threshold, 0.0);
    assert_eq!(c.lifecycle.clock, ClockKind::Calendar);
    assert_eq!(c.lifecycle.renotify_hours, 24);
    assert_eq!(c.search.intents.explore, Weights { bm25: 0.3, vector: 1.0 });
    assert_eq!(loaded.sources["search.profile"].to_string(), "env memlane_search__profile");
    assert_eq!(
        loaded.sources["types.meeting.weight"],
        ConfigSource::Env("Memlane_Types__Meeting__Weight".to_owned())
    );
    assert_eq!(
        loaded.sources["privacy.scrub_secrets"].to_string(),
        "env memlane_privacy__scrub_secrets"
    );
}

#[test]
fn env_string_keys_take_the_raw_text() {
    // `true` parses as a TOML boolean, but default_type takes a string.
    let dir = tempfile::tempdir().unwrap();
    let user = write(dir.path(), "user.toml", "[types.true]\n");
    let env = env(&[("MEMLANE_DEFAULT_TYPE", "true")]);
    let inputs = ConfigInputs { user_file: Some(&user), env: &env, ..Default::default() };
    assert_eq!(LoadedConfig::load(&inputs).unwrap().config.default_type, "true");

    // So does embedding.model; a quoted TOML string is unquoted.
    let loaded = load_env(&[("MEMLANE_EMBEDDING__MODEL", "123")]).unwrap();
    assert_eq!(loaded.config.embedding.model, "123");
    let loaded = load_env(&[("MEMLANE_EMBEDDING__MODEL", "\"builtin\"")]).unwrap();
    assert_eq!(loaded.config.embedding.model, "builtin");
    let err = load_env(&[("MEMLANE_MCP__TOOLS", "1")]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid value \"1\" for `mcp.tools` in env MEMLANE_MCP__TOOLS; allowed: \"core\" or \
         \"full\""
    );
}

#[test]
fn env_reserved_names_are_ignored() {
    let loaded = load_env(&[
        ("MEMLANE_VAULT", "/v"),
        ("MEMLANE_CONFIG", "/c.toml"),
        ("MEMLANE_LOG", "debug"),
        ("MEMLANE_NOW", "2026-01-01T00:00:00Z"),
        ("memlane_model", "/m"),
    ])
    .unwrap();
    assert_eq!(loaded.config, Config::default());
}
