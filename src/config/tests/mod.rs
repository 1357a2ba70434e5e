//! Unit tests of the layered configuration: the defaults and the declared keys here; loading
//! the layers, the errors and the rendered output in the submodules.

mod errors;
mod layers;
mod render;

use std::path::{Path, PathBuf};

use toml::Value;

use super::schema::{self, Key, Table as _};
use super::settings::{BUILTIN_TYPES, INTENTS_KEY, SECTIONS};
use super::*;

/// The top-level keys and tables, in the order they are written.
pub(super) const TOP_KEYS: &[&str] = &[
    "storage_strategy",
    "default_type",
    "embedding",
    "search",
    "lifecycle",
    "watch",
    "mcp",
    "hooks",
    "privacy",
    "types",
];

pub(super) fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
}

pub(super) fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

pub(super) fn load_vault_text(text: &str) -> Result<LoadedConfig, ConfigError> {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "config.toml", text);
    LoadedConfig::load(&ConfigInputs { vault_file: Some(&path), ..Default::default() })
}

pub(super) fn load_env(pairs: &[(&str, &str)]) -> Result<LoadedConfig, ConfigError> {
    let env = env(pairs);
    LoadedConfig::load(&ConfigInputs { env: &env, ..Default::default() })
}

#[test]
fn defaults_match_spec_table() {
    #[rustfmt::skip]
    let spec: [(&str, f64, f64, f64, f64, f64); 12] = [
        ("decision", 365.0, 1.5, 14.0, 0.10, 0.95),
        ("architecture", 365.0, 1.4, 14.0, 0.10, 0.95),
        ("preference", 365.0, 1.2, 14.0, 0.10, 0.95),
        ("bug_fix", 30.0, 1.3, 14.0, 0.20, 0.95),
        ("fact", 90.0, 1.0, 7.0, 0.10, 0.98),
        ("code_context", 14.0, 1.0, 7.0, 0.20, 0.90),
        ("session_summary", 14.0, 1.0, 14.0, 0.20, 0.95),
        ("document_chunk", 14.0, 0.6, 0.0, 0.0, 1.0),
        ("journal", 30.0, 1.0, 14.0, 0.20, 0.95),
        ("plan", 90.0, 1.0, 21.0, 0.15, 0.93),
        ("observation", 30.0, 1.0, 14.0, 0.20, 0.92),
        ("reflection", 180.0, 1.0, 30.0, 0.15, 0.98),
    ];
    let config = Config::default();
    assert_eq!(config.types.len(), spec.len());
    for (name, half_life, weight, window, boost, rate) in spec {
        let profile = config.type_profile(name).unwrap();
        assert_eq!(*profile, TypeProfile::new(half_life, weight, window, boost, rate), "{name}");
    }
    assert_eq!(config.storage_strategy, StorageStrategy::Project);
    assert_eq!(config.default_type, "journal");
    assert!(config.privacy.scrub_secrets);
    assert_eq!(config.type_names()[..3], ["architecture", "bug_fix", "code_context"]);
    assert_eq!(config.type_profile("nope"), None);

    let loaded = LoadedConfig::load(&ConfigInputs::default()).unwrap();
    assert_eq!(loaded.config, config);
    assert!(loaded.files.is_empty());
    // One source per leaf: the top-level keys, every section's, each intent's weights, and
    // each type's profile.
    let sections: usize = SECTIONS.iter().map(|s| (s.get)(&config).keys().len()).sum();
    let leaves = Config::KEYS.len()
        + sections
        + Intent::ALL.len() * Weights::KEYS.len()
        + spec.len() * TypeProfile::KEYS.len();
    assert_eq!(loaded.sources.len(), leaves);
    assert!(loaded.sources.values().all(|s| *s == ConfigSource::Default));
}

#[test]
fn new_section_defaults_match_the_spec() {
    let c = Config::default();
    assert_eq!(c.embedding, EmbeddingConfig { model: "auto".to_owned(), batch_size: 32 });
    let w = |bm25, vector| Weights { bm25, vector };
    assert_eq!(
        c.search,
        SearchConfig {
            profile: SearchProfile::Balanced,
            limit: 5,
            score_threshold: 0.1,
            rrf_k: 60.0,
            min_candidates: 50,
            candidate_factor: 4,
            calibration_midpoint: 0.35,
            calibration_steepness: 10.0,
            supersession_penalty: 0.5,
            question_weight: 0.3,
            question_chunk_terms: 60.0,
            expand_terms: true,
            expansion_weight: 0.5,
            context_weight: 0.3,
            context_span: 2,
            reply_weight: 0.6,
            context_gap_minutes: 120.0,
            temporal_weight: 0.5,
            expiry_fade_days: 5.0,
            subject_weight: 0.5,
            lexical_trust_floor: 1.0,
            lexical_chunks: 1,
            feedback_weight: 0.3,
            feedback_memories: 5,
            intents: IntentWeights {
                general: w(0.4, 0.6),
                recall: w(0.6, 0.4),
                exact: w(0.8, 0.2),
                explore: w(0.3, 0.7),
            },
        }
    );
    assert_eq!(c.search.intents.get(Intent::Exact), w(0.8, 0.2));
    assert_eq!(c.search.intents.get(Intent::General), w(0.4, 0.6));
    assert_eq!(
        c.lifecycle,
        LifecycleConfig {
            clock: ClockKind::Activity,
            temperature_start: 0.5,
            temperature_warm: 0.15,
            cooling_rate: 0.05,
            cold_threshold: 0.10,
            notify_threshold: 0.10,
            cold_check_minutes: 5,
            maintain_minutes: 60,
            renotify_hours: 0,
            dedup_threshold: 0.95,
            remember_update_threshold: 0.88,
            merge_threshold: 0.85,
        }
    );
    assert_eq!(c.mcp, McpConfig { tools: McpTools::Core });
}

#[test]
fn schema_and_structs_agree() {
    // Every declared key can be read and written, and writing its value back is a no-op.
    let mut config = Config::default();
    for s in SECTIONS {
        for key in (s.get)(&config).keys() {
            let value = (s.get)(&config).get(key.name).unwrap();
            assert!(key.rule.allows(&value), "{}.{} = {value}", s.name, key.name);
            (s.get_mut)(&mut config).set(key.name, &value);
        }
        assert_eq!((s.get)(&config).get("nope"), None);
    }
    let mut weights = config.search.intents.general;
    for key in Weights::KEYS {
        let value = weights.get(key.name).unwrap();
        assert!(key.rule.allows(&value));
        weights.set(key.name, &Value::Float(0.0));
    }
    assert_eq!(weights, Weights { bm25: 0.0, vector: 0.0 });
    assert_eq!(config, Config::default());
    let names: Vec<&str> =
        Config::KEYS.iter().map(|k| k.name).chain(Config::TABLES.iter().copied()).collect();
    assert_eq!(names, TOP_KEYS);
    assert_eq!(SECTIONS.iter().map(|s| s.name).collect::<Vec<_>>(), TOP_KEYS[2..9]);
}

#[test]
fn enums_parse_display_and_list_their_values() {
    assert_eq!(
        SearchProfile::ALL,
        [
            SearchProfile::Balanced,
            SearchProfile::Ragdocs,
            SearchProfile::Mnestra,
            SearchProfile::Remindb,
            SearchProfile::Mira
        ]
    );
    for p in SearchProfile::ALL {
        assert_eq!(p.to_string().parse::<SearchProfile>(), Ok(*p));
        assert_eq!(serde_json::to_value(p).unwrap(), p.as_str());
    }
    let err = "fast".parse::<SearchProfile>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown search profile \"fast\"; allowed: balanced, ragdocs, mnestra, remindb, mira"
    );
    assert_eq!(Intent::ALL.len(), 4);
    for i in Intent::ALL {
        assert_eq!(i.as_str().parse::<Intent>(), Ok(*i));
        let json = serde_json::to_string(i).unwrap();
        assert_eq!(serde_json::from_str::<Intent>(&json).unwrap(), *i);
    }
    assert_eq!(Intent::Explore.to_string(), "explore");
    assert_eq!(
        "Exact".parse::<Intent>().unwrap_err().to_string(),
        "unknown intent \"Exact\"; allowed: general, recall, exact, explore"
    );
    assert_eq!("calendar".parse::<ClockKind>(), Ok(ClockKind::Calendar));
    assert_eq!(ClockKind::ALL, [ClockKind::Activity, ClockKind::Calendar]);
    assert_eq!(McpTools::Full.to_string(), "full");
    assert_eq!(McpTools::ALL, [McpTools::Core, McpTools::Full]);
    assert!("all".parse::<McpTools>().unwrap_err().to_string().contains("core, full"));
    assert_eq!(SearchProfile::default(), SearchProfile::Balanced);
    assert_eq!(Intent::default(), Intent::General);
}

#[test]
fn an_enum_value_is_described_by_its_rustdoc_in_one_line() {
    assert_eq!(
        Intent::Recall.description(),
        "Remembering something seen before: leans on keywords."
    );
    assert_eq!(SearchProfile::Mira.description(), "MIRA's ranking.");
    assert_eq!(
        McpTools::Core.description(),
        "A short list (the default): agents pay for every tool description."
    );
    fn every<T: ConfigEnum>() {
        assert_eq!(T::all().len(), T::names().len(), "{}", T::WHAT);
        for (v, name) in T::all().iter().zip(T::names()) {
            assert_eq!(v.name(), *name);
            let d = v.describe();
            assert!(!d.is_empty() && d.trim() == d && !d.contains('\n'), "{}: {d:?}", T::WHAT);
        }
    }
    every::<StorageStrategy>();
    every::<SearchProfile>();
    every::<Intent>();
    every::<ClockKind>();
    every::<McpTools>();
}

#[test]
fn a_choice_keys_comment_names_every_value_its_enum_declares() {
    // The comment `memlane init` writes above a key is written by hand; the values are declared
    // once, in the enum, and the comment must not fall behind it.
    let config = Config::default();
    let mut checked = 0;
    for s in SECTIONS {
        for key in (s.get)(&config).keys() {
            if let schema::Rule::Choice(names) = key.rule {
                let doc: String = key.doc_lines().collect::<Vec<_>>().join(" ");
                for name in names {
                    assert!(doc.contains(&format!("\"{name}\"")), "{}.{}: {doc}", s.name, key.name);
                }
                checked += 1;
            }
        }
    }
    for key in Config::KEYS {
        if let schema::Rule::Choice(names) = key.rule {
            let doc: String = key.doc_lines().collect::<Vec<_>>().join(" ");
            for name in names {
                assert!(doc.contains(&format!("\"{name}\"")), "{}: {doc}", key.name);
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 4, "storage_strategy, search.profile, lifecycle.clock, mcp.tools");
}

#[test]
fn the_agent_guide_gives_the_built_in_types_as_declared() {
    // The built-in types are declared once, in `BUILTIN_TYPES`; the configuration reference
    // (generated) gives their numbers and the agent guide their names, which may not fall behind.
    let guide = include_str!("../../../docs/agents/good-practice.md");
    let mut rows = guide.lines().skip_while(|l| !l.starts_with("| type | for | half-life |"));
    assert!(rows.next().is_some(), "the agent guide has a table of types");
    for row in rows.skip(1).take_while(|l| l.starts_with('|')) {
        let name = row.split('`').nth(1).expect("a `type` cell");
        let (_, profile) = BUILTIN_TYPES
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("the agent guide names `{name}`, which is no built-in type"));
        assert!(row.ends_with(&format!("| {} days |", profile.half_life_days)), "{row}");
    }
}
