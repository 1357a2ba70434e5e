//! The indices follow the files: edits outside memlane, deletions, bulk changes, a deleted
//! `indices/`, concurrent processes.

use crate::common::TestEnv;

/// A distinct made-up word per number (`zorbak`, `zorbal` …), one token to the analyzer.
fn word(i: usize) -> String {
    let letters = b"bdfgklmnprstvz";
    format!(
        "zor{}{}a",
        letters[i / letters.len() % letters.len()] as char,
        letters[i % letters.len()] as char
    )
}

fn top(env: &TestEnv, q: &str) -> Option<String> {
    let out = env.run(["search", q, "--json", "-n", "1"]).success().json();
    out.as_array().unwrap().first().map(|h| h["name"].as_str().unwrap().to_owned())
}

#[test]
fn edits_made_outside_memlane_are_searchable_at_once() {
    let env = TestEnv::with_vault("search");
    assert_eq!(top(&env, "kubernetes helm chart"), None);
    env.write(
        "ops/k8s.md",
        "---\ntype: fact\n---\n\n# Kubernetes\n\nWe deploy with a Helm chart named `app-chart`.\n",
    );
    assert_eq!(top(&env, "kubernetes helm chart").as_deref(), Some("ops/k8s"));
    // Edit in place: the old words go, the new ones come.
    env.write("ops/k8s.md", "---\ntype: fact\n---\n\n# Nomad\n\nWe moved to Nomad job files.\n");
    assert_eq!(top(&env, "kubernetes helm chart"), None);
    assert_eq!(top(&env, "nomad job files").as_deref(), Some("ops/k8s"));
    // Delete by hand.
    std::fs::remove_file(env.vault().join("ops/k8s.md")).unwrap();
    assert_eq!(top(&env, "nomad job files"), None);
    // Through memlane too.
    env.run(["add", "notes/grpc", "We use gRPC with protobuf for internal services."]).success();
    assert_eq!(top(&env, "grpc protobuf").as_deref(), Some("notes/grpc"));
    env.run(["rm", "notes/grpc"]).success();
    assert_eq!(top(&env, "grpc protobuf"), None);
}

#[test]
fn a_bulk_change_like_git_pull_is_reconciled() {
    let env = TestEnv::with_vault("search");
    env.run(["search", "anything"]).success();
    for i in 0..60 {
        env.write(
            &format!("pulled/n{i:02}.md"),
            &format!("# Pulled {i}\n\nnote {} from a colleague\n", word(i)),
        );
    }
    std::fs::remove_file(env.vault().join("db/migrations.md")).unwrap();
    assert_eq!(top(&env, &word(37)).as_deref(), Some("pulled/n37"));
    assert_eq!(top(&env, "apply_pending_migrations"), None);
}

#[test]
fn deleting_indices_is_always_safe_and_reindex_rebuilds() {
    let env = TestEnv::with_vault("search");
    let before = env.run(["search", "JWT rotation", "--json", "--no-touch"]).success().stdout;
    std::fs::remove_dir_all(env.vault().join("indices")).unwrap();
    assert_eq!(
        env.run(["search", "JWT rotation", "--json", "--no-touch"]).success().stdout,
        before
    );
    let out = env.run(["reindex", "--json"]).success().json();
    assert_eq!(out["memories"], 11);
    assert_eq!(out["embedder"], "builtin-ngram-v1");
    assert_eq!(
        env.run(["search", "JWT rotation", "--json", "--no-touch"]).success().stdout,
        before
    );
    // A damaged manifest is rebuilt, not trusted.
    std::fs::write(env.vault().join("indices/manifest.tsv"), b"{not json").unwrap();
    assert_eq!(
        env.run(["search", "JWT rotation", "--json", "--no-touch"]).success().stdout,
        before
    );
    // A damaged vector file too.
    std::fs::write(env.vault().join("indices/vector/vectors.usearch"), b"garbage").unwrap();
    assert_eq!(
        env.run(["search", "JWT rotation", "--json", "--no-touch"]).success().stdout,
        before
    );
}

#[test]
fn concurrent_processes_never_corrupt_the_indices() {
    let env = TestEnv::with_vault("search");
    for i in 0..40 {
        env.write(
            &format!("bulk/m{i:02}.md"),
            &format!("# Bulk {i}\n\n{} shaving notes\n", word(i)),
        );
    }
    let mut children = Vec::new();
    for i in 0..6 {
        let mut cmd = env.command();
        if i % 2 == 0 {
            cmd.args(["reindex", "-q"]);
        } else {
            cmd.args(["search", &word(17), "--json"]);
        }
        cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
        children.push(cmd.spawn().unwrap());
    }
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(top(&env, &word(17)).as_deref(), Some("bulk/m17"));
    let out = env.run(["reindex", "--json"]).success().json();
    assert_eq!(out["memories"], 51);
}

#[test]
fn an_explicit_model_that_is_missing_is_a_clear_error() {
    let env = TestEnv::with_vault("search");
    let out = env.run(["search", "x", "-c", "embedding.model=/nowhere/model"]).code(2);
    assert!(out.stderr.contains("/nowhere/model"), "{out}");
    assert!(out.stderr.contains("builtin"), "the hint names the way out: {out}");
}
