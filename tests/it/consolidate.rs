//! merge, suggest-merges, split, dedup on write and maintain through the real binary; every one
//! is reversible from history or trash.

use crate::common::TestEnv;

#[test]
fn merge_redirects_links_and_is_reversible_from_the_trash() {
    let env = TestEnv::with_vault("links");
    let v1 = env.read("auth-v1.md");
    let v2 = env.read("auth-v2.md");
    let before = env.contents();
    // Refusals change nothing.
    env.run(["merge", "auth-v1", "auth-v2", "--into", "auth-v3"]).code(2);
    env.run(["merge", "auth-v1", "nope", "--into", "auth-all"]).code(2);
    assert_eq!(env.contents(), before);

    let out = env
        .run(["merge", "auth-v1", "auth-v2", "--into", "auth-sessions", "--json"])
        .success()
        .json();
    assert_eq!(out["target"]["status"], "created");
    let merged = env.read("auth-sessions.md");
    assert!(merged.contains("consolidated_from: [auth-v1, auth-v2]"), "{merged}");
    assert!(merged.contains("type: decision"), "{merged}");
    assert!(!env.exists("auth-v1.md") && !env.exists("auth-v2.md"));
    // auth-v3 linked to auth-v2: now to the target.
    assert!(env.read("auth-v3.md").contains("[[memory:auth-sessions]]"));
    let doctor = env.run(["doctor", "--json"]).success().json();
    assert!(
        doctor["problems"].as_array().unwrap().iter().all(|p| p["kind"] != "dead_link"),
        "{doctor:#}"
    );
    // Reversible: the sources come back from the trash; their pre-merge bytes are in history.
    env.run(["trash", "restore", "auth-v1", "--as", "auth-v1-restored"]).success();
    let restored = env.read("auth-v1-restored.md");
    let hist = env.run(["history", "auth-v1-restored", "--json"]).success().json();
    let first = hist["versions"][0]["path"]
        .as_str()
        .unwrap()
        .replace("[ROOT]", &env.root.display().to_string());
    assert_eq!(std::fs::read_to_string(first).unwrap(), v1, "history holds the exact original");
    assert!(restored.contains("superseded_by: auth-sessions"), "{restored}");
    let _ = v2;
}

#[test]
fn suggest_merges_finds_planted_duplicates_without_chaining() {
    let env = TestEnv::with_vault("search");
    env.write("dup/a.md", "# Postgres choice\n\nWe picked PostgreSQL over DynamoDB because we need transactions across orders and payments.\n");
    env.write("dup/b.md", "# Postgres choice\n\nWe picked PostgreSQL over DynamoDB because we need transactions across orders and payments!\n");
    let out = env.run(["suggest-merges", "--json", "--threshold", "0.9"]).success().json();
    let clusters = out.as_array().unwrap();
    assert_eq!(clusters.len(), 1, "{out:#}");
    let members: Vec<&str> = clusters[0]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert!(members.contains(&"dup/a") && members.contains(&"dup/b"), "{members:?}");
    assert!(clusters[0]["reason"].as_str().unwrap().len() > 5);
    env.run(["suggest-merges", "--threshold", "1.5"]).code(2);
}

#[test]
fn add_refuses_a_near_duplicate_unless_forced() {
    let env = TestEnv::with_vault("search");
    let existing = env.read("db/migrations.md");
    let text = existing.split("---\n").nth(2).unwrap().trim().to_owned();
    let text = text.as_str();
    let out = env.run(["add", "again", text]).code(2);
    assert!(out.stderr.contains("db/migrations") && out.stderr.contains("--force"), "{out}");
    assert!(!env.exists("again.md"));
    env.run(["add", "again", text, "--force"]).success();
    env.run(["add", "different", "The office plants need water on Mondays."]).success();
}

#[test]
fn split_makes_one_memory_per_section_and_keeps_the_original() {
    let env = TestEnv::with_vault("basic");
    env.write("big.md", "---\ntype: plan\ntags: [q3]\n---\n\n# Plan\n\n## Goals\n\nShip search.\n\n## Risks\n\nThe model is slow.\n");
    let out = env.run(["split", "big", "--json"]).success().json();
    let names: Vec<&str> =
        out.as_array().unwrap().iter().map(|o| o["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"big/goals") && names.contains(&"big/risks"), "{names:?}");
    assert!(env.exists("big.md"), "the original stays");
    let goals = env.read("big/goals.md");
    assert!(goals.contains("type: plan") && goals.contains("Ship search."), "{goals}");
    env.run(["split", "deploy-notes"]).code(2);
}

#[test]
fn maintain_archives_expired_memories_and_a_second_run_changes_nothing() {
    let env = TestEnv::with_vault("search");
    let out = env.run(["maintain", "--json"]).success().json();
    let expired: Vec<&str> =
        out["expired"].as_array().unwrap().iter().map(|o| o["name"].as_str().unwrap()).collect();
    assert_eq!(expired, ["freeze-notice"], "{out:#}");
    assert!(env.read("freeze-notice.md").contains("status: archived"));
    let again = env.run(["maintain", "--json"]).success().json();
    assert!(again["expired"].as_array().unwrap().is_empty());
    // Reversible: the pre-archive bytes are in history.
    let hist = env.run(["history", "freeze-notice", "--json"]).success().json();
    assert_eq!(hist["versions"].as_array().unwrap().len(), 1);
}

#[test]
fn split_with_replace_is_reversible_from_the_trash() {
    let env = TestEnv::with_vault("basic");
    let original = "---\ntype: plan\ntags: [q3]\n---\n\n# Plan\n\n## Goals\n\nShip search.\n\n## Risks\n\nThe model is slow.\n";
    env.write("big.md", original);
    env.run(["split", "big", "--replace"]).success();
    assert!(!env.exists("big.md"));
    assert!(env.exists("big/goals.md") && env.exists("big/risks.md"));
    env.run(["trash", "restore", "big", "--as", "big-again"]).success();
    let restored = env.read("big-again.md");
    // The trashed file carries `superseded_by`; its pre-split bytes are in history.
    let hist = env.run(["history", "big-again", "--json"]).success().json();
    let first = hist["versions"][0]["path"]
        .as_str()
        .unwrap()
        .replace("[ROOT]", &env.root.display().to_string());
    assert_eq!(
        std::fs::read_to_string(first).unwrap(),
        original,
        "history holds the exact original"
    );
    assert!(restored.contains("superseded_by"), "{restored}");
}
