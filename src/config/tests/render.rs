//! Output: `memlane config` (TOML and JSON) and the default `config.toml`.

use std::path::PathBuf;

use toml::{Table, Value};

use super::*;

#[test]
fn render_toml_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let user = write(
        dir.path(),
        "user config.toml",
        "storage_strategy = \"user\"\n[types.meeting]\nweight = 0.25\n\
         [embedding]\nmodel = 'C:\\models\\\"mini\"'\n[search]\nrrf_k = 30\n\
         [search.intents.recall]\nvector = 0\n[lifecycle]\nrenotify_hours = 12\n",
    );
    let env = env(&[
        ("MEMLANE_PRIVACY__SCRUB_SECRETS", "false"),
        ("MEMLANE_SEARCH__PROFILE", "remindb"),
        ("MEMLANE_LIFECYCLE__CLOCK", "calendar"),
    ]);
    let flags = [
        ("default_type".to_owned(), Value::from("meeting"), "--type".to_owned()),
        ("mcp.tools".to_owned(), Value::from("full"), "-c mcp.tools".to_owned()),
        ("search.limit".to_owned(), Value::Integer(20), "--limit".to_owned()),
    ];
    let inputs =
        ConfigInputs { user_file: Some(&user), env: &env, flags: &flags, ..Default::default() };
    let loaded = LoadedConfig::load(&inputs).unwrap();
    let rendered = loaded.render_toml();
    let u = user.display();

    assert!(
        rendered.starts_with(&format!(
            "storage_strategy = \"user\"  # user config {u}\n\
             default_type = \"meeting\"  # flag --type\n\
             \n[embedding]\nmodel = 'C:\\models\\\"mini\"'  # user config {u}\n\
             batch_size = 32  # default\n\
             \n[search]\nprofile = \"remindb\"  # env MEMLANE_SEARCH__PROFILE\n\
             limit = 20  # flag --limit\nscore_threshold = 0.1  # default\n\
             rrf_k = 30.0  # user config {u}\nmin_candidates = 50  # default\n"
        )),
        "{rendered}"
    );
    assert!(rendered.contains(
        "  # default\n\
         \n[search.intents.general]\nbm25 = 0.4  # default\nvector = 0.6  # default\n\
         \n[search.intents.recall]\n"
    ));
    assert!(rendered.contains(&format!("vector = 0.0  # user config {u}\n")));
    assert!(rendered.contains(
        "\n[lifecycle]\nclock = \"calendar\"  # env MEMLANE_LIFECYCLE__CLOCK\n\
         temperature_start = 0.5  # default\n"
    ));
    assert!(rendered.contains(&format!("renotify_hours = 12  # user config {u}\n")));
    assert!(rendered.contains(
        "  # default\n\
         \n[mcp]\ntools = \"full\"  # flag -c mcp.tools\n\
         \n[hooks]\nsession_start_budget = 400  # default\nstop_reminder = true  # default\n\
         \n[privacy]\nscrub_secrets = false  # env MEMLANE_PRIVACY__SCRUB_SECRETS\n\
         \n[types.architecture]\nhalf_life_days = 365.0  # default\n"
    ));
    let headers: Vec<&str> = rendered.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(
        headers[..11],
        [
            "[embedding]",
            "[search]",
            "[search.intents.general]",
            "[search.intents.recall]",
            "[search.intents.exact]",
            "[search.intents.explore]",
            "[lifecycle]",
            "[watch]",
            "[mcp]",
            "[hooks]",
            "[privacy]",
        ]
    );
    assert_eq!(rendered.lines().filter(|l| l.contains("  # ")).count(), loaded.sources.len());
    assert!(rendered.contains(&format!(
        "[types.meeting]\nhalf_life_days = 30.0  # default\nweight = 0.25  # user config {}\n",
        user.display()
    )));
    assert!(
        rendered
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('['))
            .all(|l| l.contains("  # "))
    );

    let table: Table = rendered.parse().unwrap();
    assert_eq!(table.keys().collect::<Vec<_>>(), TOP_KEYS);
    let reloaded = load_vault_text(&rendered).unwrap();
    assert_eq!(reloaded.config, loaded.config);

    let defaults = LoadedConfig::load(&ConfigInputs::default()).unwrap();
    assert_eq!(load_vault_text(&defaults.render_toml()).unwrap().config, Config::default());
}

#[test]
fn render_toml_escapes_control_characters_in_sources() {
    let mut loaded = LoadedConfig::load(&ConfigInputs::default()).unwrap();
    loaded
        .sources
        .insert("default_type".to_owned(), ConfigSource::VaultFile(PathBuf::from("/tmp/a\nb = 1")));
    let reloaded = load_vault_text(&loaded.render_toml()).unwrap();
    assert_eq!(reloaded.config, Config::default());
}

#[test]
fn to_json_shape() {
    let dir = tempfile::tempdir().unwrap();
    let vault = write(dir.path(), "config.toml", "[types.plan]\nweight = 2\n");
    let inputs = ConfigInputs { vault_file: Some(&vault), ..Default::default() };
    let json = LoadedConfig::load(&inputs).unwrap().to_json();
    assert_eq!(json["config"]["storage_strategy"], "project");
    assert_eq!(json["config"]["default_type"], "journal");
    assert_eq!(json["config"]["privacy"]["scrub_secrets"], true);
    assert_eq!(json["config"]["types"]["plan"]["weight"], 2.0);
    assert_eq!(json["config"]["types"]["document_chunk"]["recency_rate"], 1.0);
    assert_eq!(json["config"]["embedding"], serde_json::json!({"model": "auto", "batch_size": 32}));
    assert_eq!(json["config"]["search"]["profile"], "balanced");
    assert_eq!(json["config"]["search"]["limit"], 5);
    assert_eq!(json["config"]["search"]["rrf_k"], 60.0);
    assert_eq!(
        json["config"]["search"]["intents"]["exact"],
        serde_json::json!({"bm25": 0.8, "vector": 0.2})
    );
    assert_eq!(json["config"]["lifecycle"]["clock"], "activity");
    assert_eq!(json["config"]["lifecycle"]["cold_check_minutes"], 5);
    assert_eq!(json["config"]["mcp"]["tools"], "core");
    assert_eq!(json["sources"]["search.intents.exact.bm25"], "default");
    let sections: Vec<&String> = json["config"].as_object().unwrap().keys().collect();
    assert_eq!(sections, TOP_KEYS);
    assert_eq!(json["sources"]["types.plan.weight"], format!("vault config {}", vault.display()));
    assert_eq!(json["sources"]["storage_strategy"], "default");
    assert_eq!(json["files"], serde_json::json!([vault.to_string_lossy()]));
    let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["config", "sources", "files"]);
}

#[test]
fn default_config_toml_loads_as_defaults() {
    let loaded = load_vault_text(&default_config_toml()).unwrap();
    assert_eq!(loaded.config, Config::default());
    assert!(loaded.sources.values().all(|s| *s == ConfigSource::Default));
    // Nothing but comments and section headers.
    let table: Table = default_config_toml().parse().unwrap();
    assert_eq!(table["privacy"].as_table().unwrap().len(), 0);
    assert_eq!(table["types"]["bug_fix"].as_table().unwrap().len(), 0);
    assert_eq!(table["embedding"].as_table().unwrap().len(), 0);
    assert_eq!(table["lifecycle"].as_table().unwrap().len(), 0);
    assert_eq!(table["mcp"].as_table().unwrap().len(), 0);
    let search = table["search"].as_table().unwrap();
    assert_eq!(search.keys().collect::<Vec<_>>(), [INTENTS_KEY]);
    let intents = search[INTENTS_KEY].as_table().unwrap();
    assert_eq!(intents.keys().collect::<Vec<_>>(), Intent::NAMES);
    assert!(intents.values().all(|t| t.as_table().unwrap().is_empty()));
}

#[test]
fn default_config_toml_examples_are_valid_and_complete() {
    let setting = |line: &str| -> Option<String> {
        let rest = line.strip_prefix("# ")?;
        let (key, _) = rest.split_once(" = ")?;
        key.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            .then(|| key.to_owned())
    };
    let template = default_config_toml();
    let lines: Vec<&str> = template.lines().collect();
    let mut keys = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(key) = setting(line) else { continue };
        keys.push(key.clone());
        let mut edited = lines.clone();
        edited[i] = &line[2..];
        let loaded = load_vault_text(&edited.join("\n"))
            .unwrap_or_else(|e| panic!("uncommenting {line:?}: {e}"));
        // Each example is the built-in default and is recorded as set by the file.
        assert_eq!(loaded.config, Config::default(), "{line}");
        assert!(loaded.sources.values().any(|s| matches!(s, ConfigSource::VaultFile(_))));
    }
    let names = |keys: &[Key]| keys.iter().map(|k| k.name).collect::<Vec<_>>();
    let mut expected: Vec<&str> = names(Config::KEYS);
    for s in SECTIONS {
        expected.extend(names((s.get)(&Config::default()).keys()));
        if s.name == "search" {
            for _ in Intent::ALL {
                expected.extend(names(Weights::KEYS));
            }
        }
    }
    expected.extend(names(TypeProfile::KEYS));
    assert_eq!(keys, expected);
    // Every example has its own one-line comment just above it.
    for (i, line) in lines.iter().enumerate() {
        if setting(line).is_some() {
            let above = lines[i - 1];
            assert!(above.starts_with("# ") && setting(above).is_none(), "{line}");
        }
    }

    let all: Vec<&str> =
        lines.iter().map(|l| if setting(l).is_some() { &l[2..] } else { l }).collect();
    let loaded = load_vault_text(&all.join("\n")).unwrap();
    assert_eq!(loaded.config, Config::default());
    assert_eq!(
        loaded.sources.values().filter(|s| **s != ConfigSource::Default).count(),
        keys.len()
    );
}

#[test]
fn default_user_config_path_ends_in_config_toml() {
    if let Some(path) = default_user_config_path() {
        assert!(path.ends_with("config.toml"));
        assert!(path.to_string_lossy().contains("memlane"));
    }
}

#[test]
fn default_config_toml_is_the_reviewed_text() {
    insta::assert_snapshot!("default_config_toml", default_config_toml());
}
