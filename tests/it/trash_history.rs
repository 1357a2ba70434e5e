//! Trash and history: no sequence of memlane commands loses content.

use crate::common::TestEnv;

#[test]
fn rm_then_restore_gives_back_the_exact_bytes() {
    let mut env = TestEnv::with_vault("basic");
    let original = env.read("auth/jwt-plan.md");
    let out = env.run(["rm", "auth/jwt-plan"]).success();
    assert_eq!(
        out.stdout,
        "deleted auth/jwt-plan (in trash as auth/jwt-plan_20260110T100000.000Z)\n"
    );
    assert!(!env.exists("auth/jwt-plan.md"));
    assert_eq!(env.read(".trash/auth/jwt-plan_20260110T100000.000Z.md"), original);
    // Same name deleted twice in the same millisecond: collision-proof names.
    env.run(["add", "auth/jwt-plan", "second"]).success();
    env.run(["rm", "auth/jwt-plan"]).success();
    assert!(env.exists(".trash/auth/jwt-plan_20260110T100000.000Z-1.md"));
    insta::assert_snapshot!("trash_list", env.run(["trash", "list"]).success());

    // Restoring by name takes the newest entry; a live memory is never overwritten.
    env.run(["add", "auth/jwt-plan", "third"]).success();
    let out = env.run(["trash", "restore", "auth/jwt-plan_20260110T100000.000Z"]).code(2);
    assert!(out.stderr.contains("--as NEW"), "{out}");
    env.run(["trash", "restore", "auth/jwt-plan_20260110T100000.000Z", "--as", "auth/jwt-plan-v1"])
        .success();
    assert_eq!(env.read("auth/jwt-plan-v1.md"), original);

    // By its old name, the newest entry comes back.
    env.run(["trash", "restore", "auth/jwt-plan", "--as", "newest"]).success();
    assert!(env.read("newest.md").ends_with("\n\nsecond\n"));
    env.run(["rm", "newest"]).success();

    let out = env.run(["trash", "restore", "nothing-like-it"]).code(2);
    assert!(out.stderr.contains("nothing in the trash matches"), "{out}");

    // trash empty --older-than keeps recent entries; plain empty removes the rest.
    env.set_now("2026-03-01T00:00:00Z");
    env.run(["rm", "deploy-notes"]).success();
    let out = env.run(["trash", "empty", "--older-than", "30d", "--json"]).success().json();
    assert_eq!(out["removed"].as_array().unwrap().len(), 1);
    let left = env.run(["trash", "list", "--json"]).success().json();
    assert_eq!(left["entries"].as_array().unwrap().len(), 1);
    assert_eq!(left["entries"][0]["name"], "deploy-notes");
    env.run(["trash", "empty"]).success();
    assert!(
        env.run(["trash", "list", "--json"]).success().json()["entries"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn rm_with_one_unknown_name_deletes_nothing() {
    let env = TestEnv::with_vault("basic");
    let before = env.contents();
    let out = env.run(["rm", "deploy-notes", "no-such"]).code(2);
    assert!(out.stderr.contains("no memory named `no-such`"), "{out}");
    assert_eq!(env.contents(), before);
}

#[test]
fn every_overwrite_is_in_history_and_restore_is_itself_undoable() {
    let env = TestEnv::with_vault("basic");
    let v0 = env.read("deploy-notes.md");
    env.run(["update", "deploy-notes", "second body"]).success();
    let v1 = env.read("deploy-notes.md");
    env.run(["append", "deploy-notes", "appended"]).success();
    let v2 = env.read("deploy-notes.md");
    env.run(["update", "deploy-notes", "--tag", "ops"]).success();
    insta::assert_snapshot!("history_list", env.run(["history", "deploy-notes"]).success());

    let out = env.run(["restore", "deploy-notes", "--version", "1"]).success();
    assert!(out.stdout.starts_with("restored deploy-notes"), "{out}");
    assert_eq!(env.read("deploy-notes.md"), v0, "version 1 is the original bytes");
    // The restore recorded what it replaced, so it can be undone.
    let hist = env.run(["history", "deploy-notes", "--json"]).success().json();
    let versions = hist["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 4);
    assert_eq!(versions[3]["action"], "restore");
    env.run(["restore", "deploy-notes", "--version", "2"]).success();
    assert_eq!(env.read("deploy-notes.md"), v1);
    env.run(["restore", "deploy-notes", "--version", "3"]).success();
    assert_eq!(env.read("deploy-notes.md"), v2);

    let out = env.run(["restore", "deploy-notes", "--version", "99"]).code(2);
    assert!(out.stderr.contains("has no version 99"), "{out}");
}

#[test]
fn a_long_sequence_of_commands_loses_no_content() {
    let env = TestEnv::with_vault("basic");
    let mut seen: Vec<String> = Vec::new();
    let mut remember = |env: &TestEnv, rel: &str| seen.push(env.read(rel));
    env.run(["add", "seq", "one"]).success();
    remember(&env, "seq.md");
    env.run(["update", "seq", "two"]).success();
    remember(&env, "seq.md");
    env.run(["append", "seq", "three"]).success();
    remember(&env, "seq.md");
    env.run(["mv", "seq", "moved/seq"]).success();
    remember(&env, "moved/seq.md");
    env.run_stdin(["update", "moved/seq", "--raw"], "---\ntype: fact\n---\n\nfour\n").success();
    remember(&env, "moved/seq.md");
    env.run(["rm", "moved/seq"]).success();
    // Every version ever written is in history or trash, byte for byte.
    let stored: Vec<String> = env
        .contents()
        .into_iter()
        .filter(|(f, _)| f.ends_with(".md") && !f.starts_with("indices/"))
        .map(|(_, b)| String::from_utf8(b).unwrap())
        .collect();
    for (i, v) in seen.iter().enumerate() {
        assert!(stored.contains(v), "version {i} was lost:\n{v}");
    }
}
