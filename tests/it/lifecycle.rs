//! Temperature, pin, cold, tree and summarize through the real binary with a pinned clock.

use crate::common::TestEnv;

fn temperature(env: &TestEnv, name: &str) -> f64 {
    let tree = env.run(["tree", "--json"]).success().json();
    tree["memories"].as_array().unwrap().iter().find(|r| r["name"] == name).unwrap()["temperature"]
        .as_f64()
        .unwrap()
}

#[test]
fn reads_warm_and_a_quiet_week_cools_everything_but_pinned_memories() {
    let mut env = TestEnv::with_vault("links");
    env.run(["doctor"]).success(); // first use: every memory starts at 0.50
    assert_eq!(temperature(&env, "auth-v1"), 0.5);
    env.run(["show", "auth-v1"]).success();
    env.run(["show", "auth-v1"]).success();
    assert_eq!(temperature(&env, "auth-v1"), 0.8, "+0.15 per read");
    env.run(["show", "auth-v2", "--no-touch"]).success();
    assert_eq!(temperature(&env, "auth-v2"), 0.5, "--no-touch does not warm");
    env.run(["pin", "key-rotation"]).success();
    assert!(env.read("key-rotation.md").contains("pinned: true\n"));

    env.set_now("2026-01-17T10:00:00Z");
    let cold = env.run(["cold", "--json"]).success().json();
    let names: Vec<&str> =
        cold["memories"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 5, "{cold:#}");
    assert!(!names.contains(&"key-rotation"), "pinned memories never go cold: {names:?}");
    assert_eq!(temperature(&env, "key-rotation"), 0.5);
    assert!(temperature(&env, "auth-v1") < 0.1);

    // A search hit warms too; unpinning lets it cool again.
    env.run(["search", "signing key rotation"]).success();
    assert!((temperature(&env, "key-rotation") - 0.65).abs() < 1e-9);
    env.run(["unpin", "key-rotation"]).success();
    assert!(!env.read("key-rotation.md").contains("pinned"));
    env.set_now("2026-01-20T10:00:00Z");
    assert!(temperature(&env, "key-rotation") < 0.1);
}

#[test]
fn summarize_shrinks_in_place_and_is_reversible() {
    let env = TestEnv::with_vault("links");
    let original = env.read("auth-v2.md");
    env.run(["show", "auth-v2"]).success();
    let out = env
        .run([
            "summarize",
            "auth-v2",
            "--content",
            "Sessions moved to Redis; replaces [[memory:auth-v1]].",
            "--temperature",
            "0.4",
        ])
        .success();
    assert!(out.stdout.starts_with("updated auth-v2"), "{out}");
    let text = env.read("auth-v2.md");
    assert!(
        text.contains("id: LinkAuthV02\n")
            && text.ends_with("\n\nSessions moved to Redis; replaces [[memory:auth-v1]].\n"),
        "{text}"
    );
    assert_eq!(temperature(&env, "auth-v2"), 0.4);
    // Same name, id and links.
    let rel =
        env.run(["relationships", "auth-v2", "--json", "--type", "supersedes"]).success().json();
    assert_eq!(rel["outgoing"][0]["memory_id"], "memory:auth-v1");
    let hist = env.run(["history", "auth-v2", "--json"]).success().json();
    assert_eq!(hist["versions"][0]["action"], "summarize");
    env.run(["restore", "auth-v2", "--version", "1"]).success();
    assert_eq!(env.read("auth-v2.md"), original, "restore gives back the exact original bytes");
    env.run(["summarize", "auth-v2"]).code(2);
    env.run(["summarize", "auth-v2", "--content", "x", "--temperature", "2"]).code(2);
}

#[test]
fn tree_shows_folders_memories_sections_temperature_and_tokens() {
    let env = TestEnv::with_vault("search");
    insta::assert_snapshot!("tree", env.run(["tree"]).success());
}

#[test]
fn a_corrupt_usage_state_is_reported_and_rebuilt_without_touching_memories() {
    let env = TestEnv::with_vault("links");
    env.run(["show", "auth-v1"]).success();
    let before: Vec<_> = env
        .contents()
        .into_iter()
        .filter(|(f, _)| !f.starts_with("state/") && !f.starts_with("indices/"))
        .collect();
    // Both state files damaged: the base and the journal of what changed since.
    env.write("state/usage.bin", "{ this is not a usage state");
    env.write("state/usage.journal", "nor is this");
    let out = env.run(["show", "auth-v1"]).success();
    assert!(out.stderr.contains("usage.bin"), "{out}");
    let after: Vec<_> = env
        .contents()
        .into_iter()
        .filter(|(f, _)| !f.starts_with("state/") && !f.starts_with("indices/"))
        .collect();
    assert_eq!(before, after);
    assert_eq!(temperature(&env, "auth-v1"), 0.65, "state rebuilt from scratch, then warmed once");
}

#[test]
fn reading_a_memory_raises_it_above_an_equally_relevant_unread_one() {
    let env = TestEnv::with_vault("basic");
    let body = "---\ntype: fact\ncreated_at: 2026-01-09T10:00:00Z\n---\n\n# Cache notes\n\nThe page cache lives in Redis for five minutes.\n";
    env.write("zz-read.md", body);
    env.write("aa-unread.md", body);
    let order = |env: &TestEnv| -> Vec<String> {
        let out = env
            .run(["search", "page cache redis", "--json", "--no-touch", "--explain"])
            .success()
            .json()["results"]
            .clone();
        out.as_array().unwrap().iter().map(|h| h["name"].as_str().unwrap().to_owned()).collect()
    };
    // Equal relevance: ties go by name.
    assert_eq!(order(&env)[..2], ["aa-unread".to_owned(), "zz-read".to_owned()]);
    for _ in 0..3 {
        env.run(["show", "zz-read"]).success();
    }
    assert_eq!(order(&env)[..2], ["zz-read".to_owned(), "aa-unread".to_owned()]);
    let out = env
        .run(["search", "page cache redis", "--json", "--no-touch", "--explain", "-n", "1"])
        .success()
        .json()["results"]
        .clone();
    assert!((out[0]["explain"]["temperature"].as_f64().unwrap() - 0.95).abs() < 1e-9, "{out:#}");
}

#[test]
fn list_sorts_by_temperature_and_importance() {
    let env = TestEnv::with_vault("links");
    env.run(["show", "auth-v1"]).success();
    env.run(["show", "auth-v1"]).success();
    let by_temp = env.run(["list", "--sort", "temperature", "--json"]).success().json();
    assert_eq!(by_temp[0]["name"], "auth-v1");
    assert_eq!(by_temp[0]["temperature"], 0.8);
    let by_importance = env.run(["list", "--sort", "importance", "--json"]).success().json();
    assert_eq!(by_importance[0]["name"], "auth-v1", "read twice and linked to: {by_importance:#}");
    let scores: Vec<f64> = by_importance
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["importance"].as_f64().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    assert!(scores.iter().all(|s| (0.0..=1.0).contains(s)));
}

/// Scores and names of a `--no-touch --explain` search, best first.
fn ranked(env: &TestEnv, query: &str, profile: &str) -> Vec<serde_json::Value> {
    let out = env
        .run(["search", query, "--json", "--no-touch", "--explain", "--profile", profile])
        .success()
        .json()["results"]
        .clone();
    out.as_array().unwrap().clone()
}

#[test]
fn the_mira_profile_ranks_an_important_memory_above_an_equally_relevant_one() {
    let env = TestEnv::with_vault("basic");
    let body = "---\ntype: fact\ncreated_at: 2026-01-09T10:00:00Z\n---\n\n# Cache notes\n\nThe page cache lives in Redis for five minutes.\n";
    env.write("zz-hub.md", body);
    env.write("aa-plain.md", body);
    let top2 = |hits: &[serde_json::Value]| -> Vec<String> {
        hits.iter().take(2).map(|h| h["name"].as_str().unwrap().to_owned()).collect()
    };
    let query = "page cache redis";
    let balanced_before = ranked(&env, query, "balanced");
    let mira_before = ranked(&env, query, "mira");
    // Equal relevance and equal importance: ties go by name under both profiles.
    assert_eq!(top2(&balanced_before), ["aa-plain", "zz-hub"]);
    assert_eq!(top2(&mira_before), ["aa-plain", "zz-hub"]);
    assert_eq!(mira_before[0]["explain"]["importance"], mira_before[1]["explain"]["importance"]);

    // Four memories link to zz-hub (MIRA's hub score); none of them is about caches.
    for i in 1..=4 {
        env.write(
            &format!("refs/r{i}.md"),
            &format!("# Ref {i}\n\nLunch rota number {i}; background in [[memory:zz-hub]].\n"),
        );
    }
    let mira = ranked(&env, query, "mira");
    assert_eq!(top2(&mira), ["zz-hub", "aa-plain"], "{mira:#?}");
    let (hub, plain) = (&mira[0]["explain"], &mira[1]["explain"]);
    assert!(hub["importance"].as_f64().unwrap() > plain["importance"].as_f64().unwrap());
    assert!(
        hub["importance_factor"].as_f64().unwrap() > plain["importance_factor"].as_f64().unwrap()
    );
    assert!(mira[0]["score"].as_f64().unwrap() > mira[1]["score"].as_f64().unwrap());
    // The same relevance underneath: only the importance stage differs.
    assert_eq!(hub["calibrated"], plain["calibrated"]);

    // `balanced` does not use importance: still a tie, no importance in its explanation.
    let balanced = ranked(&env, query, "balanced");
    assert_eq!(top2(&balanced), ["aa-plain", "zz-hub"], "{balanced:#?}");
    assert_eq!(balanced[0]["score"], balanced[1]["score"]);
    assert!(balanced[0]["explain"].get("importance").is_none(), "{balanced:#?}");

    // Reading a memory (access count, MIRA's value score) raises it under mira too.
    for _ in 0..3 {
        env.run(["show", "aa-plain"]).success();
    }
    let mira = ranked(&env, query, "mira");
    assert!(
        mira.iter().find(|h| h["name"] == "aa-plain").unwrap()["explain"]["importance"]
            .as_f64()
            .unwrap()
            > mira_before[0]["explain"]["importance"].as_f64().unwrap(),
        "{mira:#?}"
    );

    // --explain shows the importance for mira only.
    let text = env.run(["search", query, "--explain", "--no-touch", "--profile", "mira"]).success();
    assert!(text.stdout.contains("importance 0."), "{text}");
    let text = env.run(["search", query, "--explain", "--no-touch"]).success();
    assert!(!text.stdout.contains("importance"), "{text}");
}

#[test]
fn importance_reaches_search_only_through_the_mira_profile() {
    use std::sync::Arc;

    use memlane::config::{Config, SearchProfile};
    use memlane::index::embed::BuiltinEmbedder;
    use memlane::index::store::Indexes;
    use memlane::search::{SearchQuery, Signals, search};
    use memlane::vault::{Clock, Vault};

    let env = TestEnv::with_vault("search");
    let vault = Vault::open(
        &env.vault(),
        Config::default(),
        Clock::pinned(crate::common::NOW.parse().unwrap()),
    )
    .unwrap();
    let mut idx = Indexes::open(&vault, Arc::new(BuiltinEmbedder::new())).unwrap();
    idx.reconcile(&vault).unwrap();
    // A made-up importance that would reorder everything, and a temperature that does too.
    let importance = |name: &str| Some(if name.len().is_multiple_of(2) { 0.99 } else { 0.01 });
    let temperature = |id: &str, _: bool| if id.ends_with('A') { 0.9 } else { 0.4 };
    let now = vault.clock.now().as_second();
    let calendar = |created: i64| (now - created) as f64 / 86_400.0;
    let warm = || Signals::neutral().with_temperature(temperature);
    let ranked = || warm().with_importance(importance).with_age_days(calendar);
    for profile in [
        SearchProfile::Balanced,
        SearchProfile::Ragdocs,
        SearchProfile::Mnestra,
        SearchProfile::Remindb,
    ] {
        for text in ["cache", "deploy", "JWT refresh token rotation"] {
            let q =
                SearchQuery { profile: Some(profile), limit: Some(20), ..SearchQuery::new(text) };
            let plain = search(&vault, &idx, &q, &warm()).unwrap();
            let with = search(&vault, &idx, &q, &ranked()).unwrap();
            let key = |r: &memlane::search::SearchResults| -> Vec<(String, f64)> {
                r.hits.iter().map(|h| (h.name.clone(), h.score)).collect()
            };
            assert_eq!(key(&plain), key(&with), "{profile:?} {text}");
            assert!(with.hits.iter().all(|h| h.explain.importance.is_none()));
        }
    }
    let q = SearchQuery {
        profile: Some(SearchProfile::Mira),
        limit: Some(20),
        ..SearchQuery::new("cache")
    };
    let mira = search(&vault, &idx, &q, &ranked()).unwrap();
    assert!(!mira.hits.is_empty());
    for h in &mira.hits {
        let expected = importance(&h.name).unwrap();
        assert_eq!(h.explain.importance, Some(expected), "{}", h.name);
        assert_eq!(h.explain.importance_factor, Some(0.3 + 0.7 * expected));
    }
}

#[test]
fn usage_state_survives_reindex_deleted_indices_and_concurrent_readers() {
    let env = TestEnv::with_vault("links");
    env.run(["doctor"]).success(); // first use: every memory starts at 0.50
    // Three processes read at once: the state file is locked, no warming is lost.
    let children: Vec<_> = (0..3)
        .map(|_| {
            let mut cmd = env.command();
            cmd.args(["show", "auth-v1"])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            cmd.spawn().unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    assert!((temperature(&env, "auth-v1") - 0.95).abs() < 1e-9, "0.50 + 3 × 0.15");
    let importance = |env: &TestEnv| {
        let list = env.run(["list", "--sort", "importance", "--json"]).success().json();
        assert_eq!(list[0]["name"], "auth-v1", "{list:#}");
        list[0]["importance"].as_f64().unwrap()
    };
    let before = importance(&env);
    env.run(["reindex"]).success();
    assert!((temperature(&env, "auth-v1") - 0.95).abs() < 1e-9, "reindex keeps usage");
    std::fs::remove_dir_all(env.vault().join("indices")).unwrap();
    assert!((temperature(&env, "auth-v1") - 0.95).abs() < 1e-9, "so does deleting indices/");
    assert_eq!(importance(&env), before, "importance, rebuilt from the same usage and links");
}

#[test]
fn search_ages_memories_on_the_configured_clock() {
    let mut env = TestEnv::with_vault("basic");
    env.write(
        "old-cache.md",
        "---\ntype: journal\ncreated_at: 2025-12-01T10:00:00Z\n---\n\n# Cache notes\n\nThe page cache lives in Redis.\n",
    );
    env.run(["show", "old-cache"]).success(); // the vault is used on 2026-01-10
    env.set_now("2026-01-20T10:00:00Z"); // then not for ten days
    let age = |extra: &[&str]| -> f64 {
        let mut args = vec!["search", "page cache redis", "--json", "--explain", "--no-touch"];
        args.extend_from_slice(extra);
        let out = env.run(args).success().json()["results"].clone();
        let hit = out.as_array().unwrap().iter().find(|h| h["name"] == "old-cache").unwrap();
        hit["explain"]["age_days"].as_f64().unwrap()
    };
    // Activity clock (default): one day of use since it was written; the quiet days don't count.
    assert_eq!(age(&[]), 1.0);
    // Calendar clock: 50 days.
    assert!((age(&["-c", "lifecycle.clock=calendar"]) - 50.0).abs() < 1e-9);
}
