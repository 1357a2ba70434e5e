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
    let first = hist["versions"][0]["file_path"]
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
    let clusters = out["clusters"].as_array().unwrap();
    assert_eq!(clusters.len(), 1, "{out:#}");
    let members: Vec<&str> = clusters[0]["memories"]
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
    assert_eq!(out["split"], "big", "{out}");
    let names: Vec<&str> =
        out["outcomes"].as_array().unwrap().iter().map(|o| o["name"].as_str().unwrap()).collect();
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
    let first = hist["versions"][0]["file_path"]
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

#[test]
fn maintain_is_reversible_byte_for_byte_from_history() {
    let env = TestEnv::with_vault("search");
    // An expired memory (archived by maintain) and a dead link with a known successor (healed).
    let freeze = env.read("freeze-notice.md");
    env.write("plan-a.md", "# Plan A\n\nOld stand-up notes.\n");
    env.write("plan-b.md", "# Plan B\n\nOlder stand-up notes.\n");
    env.run([
        "merge",
        "plan-a",
        "plan-b",
        "--into",
        "plan-merged",
        "--content",
        "# Plan\n\nMerged.",
    ])
    .success();
    // A memory written after the merge, linking to the merged-away name.
    let late = "# Late\n\nWritten later, still about [[memory:plan-a]].\n";
    env.write("late.md", late);
    let out = env.run(["maintain", "--json"]).success().json();
    let healed: Vec<&str> =
        out["healed"].as_array().unwrap().iter().map(|o| o["name"].as_str().unwrap()).collect();
    assert_eq!(healed, ["late"], "{out:#}");
    assert!(env.read("late.md").contains("[[memory:plan-merged]]"));
    assert!(env.read("freeze-notice.md").contains("status: archived"));

    env.run(["restore", "late", "--version", "1"]).success();
    assert_eq!(env.read("late.md"), late, "the healed memory comes back byte for byte");
    env.run(["restore", "freeze-notice", "--version", "1"]).success();
    assert_eq!(
        env.read("freeze-notice.md"),
        freeze,
        "the archived memory comes back byte for byte"
    );
}

#[test]
fn maintain_recomputes_and_reports_importance_for_every_memory() {
    let env = TestEnv::with_vault("links");
    for _ in 0..3 {
        env.run(["show", "auth-v1"]).success();
    }
    let out = env.run(["maintain", "--json"]).success().json();
    let imp = &out["importance"];
    assert_eq!(imp["computed"], 6, "{imp:#}");
    let scores = |list: &serde_json::Value| -> Vec<f64> {
        list.as_array().unwrap().iter().map(|e| e["importance"].as_f64().unwrap()).collect()
    };
    let (top, bottom) = (scores(&imp["top"]), scores(&imp["bottom"]));
    assert_eq!(top.len(), 5);
    assert!(top.windows(2).all(|w| w[0] >= w[1]) && bottom.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(imp["top"][0]["name"], "auth-v1", "read three times and linked to: {imp:#}");
    let mean = imp["mean"].as_f64().unwrap();
    assert!(bottom[0] <= mean && mean <= top[0]);
    // The same numbers as `list --sort importance`.
    let list = env.run(["list", "--sort", "importance", "--json"]).success().json();
    assert_eq!(list[0]["name"], "auth-v1");
    assert!((list[0]["importance"].as_f64().unwrap() - top[0]).abs() < 1e-3);

    // Recomputed on every run, never cached: reads since the last run count.
    let before = |out: &serde_json::Value, name: &str| -> Option<f64> {
        let all = [&out["importance"]["top"], &out["importance"]["bottom"]];
        all.iter()
            .flat_map(|l| l.as_array().unwrap().iter())
            .find(|e| e["name"] == name)
            .and_then(|e| e["importance"].as_f64())
    };
    let was = before(&out, "onboarding").expect("listed");
    for _ in 0..5 {
        env.run(["show", "onboarding"]).success();
    }
    let again = env.run(["maintain", "--json"]).success().json();
    assert!(before(&again, "onboarding").unwrap() > was, "{again:#}");

    let text = env.run(["maintain"]).success();
    assert!(text.stdout.contains("importance: recomputed for 6 memories"), "{text}");
    assert!(text.stdout.contains("most important: onboarding 0."), "{text}");
}

#[test]
fn add_refuses_at_095_while_remember_updates_from_088() {
    let env = TestEnv::with_vault("basic");
    let base = "The staging database is reset every Monday at 06:00 UTC by the ops cron job, so test data older than a week is gone.";
    // Built-in embedder: 1.0 similar to `base` (punctuation only), and ≈ 0.90 (another hour,
    // other words at the end) — between remember's 0.88 and add's 0.95.
    let copy = base.replace("gone.", "gone!");
    let near = "The staging database is reset every Monday at 07:00 UTC by the ops cron job; test data older than a week disappears.";
    env.run(["add", "staging", base]).success();
    let out = env.run(["add", "staging-copy", &copy]).code(2);
    assert!(out.stderr.contains("staging") && out.stderr.contains("--force"), "{out}");
    assert!(!env.exists("staging-copy.md"));

    // remember updates the near-duplicate in place and says so; its old text is in history.
    let mut c = crate::mcp::Client::start(&env);
    c.initialize();
    let r = c.ok("remember", serde_json::json!({ "content": near }));
    assert_eq!(r["action"], "updated", "{r}");
    assert_eq!(r["name"], "staging", "{r}");
    let sim = r["similarity"].as_f64().unwrap();
    assert!((0.88..0.95).contains(&sim), "the test needs a pair in the band: {sim}");
    drop(c);
    assert!(env.read("staging.md").contains("07:00 UTC"));
    let hist = env.run(["history", "staging", "--json"]).success().json();
    assert_eq!(hist["versions"].as_array().unwrap().len(), 1, "{hist:#}");

    // The same similarity is no duplicate for add: it writes a new memory.
    env.run(["add", "staging-again", base]).success();
    assert!(env.exists("staging-again.md"));
}

/// The memory files (no indices or usage state), for "nothing was written" checks.
fn memory_files(env: &TestEnv) -> Vec<(String, Vec<u8>)> {
    let mut files = env.contents();
    files.retain(|(f, _)| !f.starts_with("indices/") && !f.starts_with("state/"));
    files
}

#[test]
fn splitting_twice_refuses_naming_the_pieces_and_makes_no_copies() {
    let env = TestEnv::with_vault("basic");
    env.write("big.md", "---\ntype: plan\n---\n\n# Plan\n\n## Goals\n\nShip search.\n\n## Risks\n\nThe model is slow.\n");
    env.run(["split", "big"]).success();
    assert!(env.exists("big/goals.md") && env.exists("big/risks.md"));
    let before = memory_files(&env);

    let out = env.run(["split", "big"]).code(2);
    assert!(
        out.stderr.contains("`big` was split before: `big/goals`, `big/risks` already exist"),
        "{out}"
    );
    assert!(out.stderr.contains("nothing was written") && out.stderr.contains("hint:"), "{out}");
    assert!(out.stdout.is_empty(), "{out}");
    assert_eq!(memory_files(&env), before, "no `big-1`..`big-3` copies, nothing changed");

    // One piece left: still refused, naming the one that exists.
    env.run(["rm", "big/risks"]).success();
    let out = env.run(["split", "big", "--replace"]).code(2);
    assert!(out.stderr.contains("`big/goals` already exists;"), "{out}");
    assert!(env.exists("big.md") && !env.exists("big/risks.md"));

    // Over MCP the same refusal, for cut-at-headings and for named pieces.
    let mut c = crate::mcp::Client::start_with(&env, &[("MEMLANE_MCP__TOOLS", "full")]);
    c.initialize();
    let text = c.err("split_memory", serde_json::json!({"name": "big"}));
    assert!(text.contains("`big/goals` already exists"), "{text}");
    let pieces = serde_json::json!([{"name": "big/goals", "content": "a"}, {"content": "b"}]);
    let text = c.err("split_memory", serde_json::json!({"name": "big", "pieces": pieces}));
    assert!(text.contains("`big/goals` already exists"), "{text}");
    drop(c);
    assert!(!env.exists("big-1.md") && !env.exists("big-2.md") && !env.exists("big/risks.md"));
}
