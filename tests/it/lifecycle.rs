//! Temperature, pin, cold, tree and summarize through the real binary with a pinned clock.

use crate::common::TestEnv;

fn temperature(env: &TestEnv, name: &str) -> f64 {
    let tree = env.run(["tree", "--json"]).success().json();
    tree.as_array().unwrap().iter().find(|r| r["name"] == name).unwrap()["temperature"]
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
        cold.as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
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
    env.write("state/usage.json", "{ this is not json");
    let out = env.run(["show", "auth-v1"]).success();
    assert!(out.stderr.contains("usage.json"), "{out}");
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
            .json();
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
        .json();
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
