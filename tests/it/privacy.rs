//! No `<private>` content or credential reaches disk through memlane (the exact redaction rules
//! are unit-tested in `src/privacy.rs`, one test per PRIVACY_CASES.md row and per secret kind).

use crate::common::TestEnv;

const LEAKS: &[&str] =
    &["sk-live-secret", "hunter2", "AKIAIOSFODNN7EXAMPLE", "ghp_", "BEGIN RSA", "p4ssw0rd"];

fn assert_no_leak(env: &TestEnv) {
    for (file, bytes) in env.contents() {
        let text = String::from_utf8_lossy(&bytes);
        for leak in LEAKS {
            assert!(!text.contains(leak), "{leak} reached {file}:\n{text}");
        }
    }
}

#[test]
fn private_blocks_and_secrets_never_reach_disk() {
    let env = TestEnv::with_vault("basic");
    let content = "Deploy notes <private>the root password is hunter2</private> for staging.\n\
        AWS key AKIAIOSFODNN7EXAMPLE and token ghp_abcdefghijklmnopqrstuvwxyz0123456789.\n\
        DATABASE_URL=postgres://app:p4ssw0rd@db.internal:5432/app\n\
        -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\n";
    let out = env.run(["add", "creds", content, "--json"]).success().json();
    assert_eq!(out["status"], "created");
    assert_eq!(out["had_private_content"], true);
    assert_eq!(out["private_blocks"], 1);
    let kinds: Vec<&str> =
        out["secrets"].as_array().unwrap().iter().map(|s| s["kind"].as_str().unwrap()).collect();
    assert!(kinds.len() >= 4, "{kinds:?}");
    let text = env.read("creds.md");
    assert!(text.contains("had_private_content: true\n"), "{text}");
    assert!(text.contains("Deploy notes [redacted] for staging."), "{text}");
    assert!(text.contains("«redacted:"), "{text}");
    assert_no_leak(&env);

    // Through update, append and update --raw too.
    env.run(["update", "creds", "now <private>sk-live-secret</private>"]).success();
    env.run(["append", "creds", "and password=hunter2"]).success();
    env.run_stdin(
        ["update", "creds", "--raw"],
        "---\ntype: fact\nnote: <private>hunter2</private>\n---\n\nAKIAIOSFODNN7EXAMPLE\n",
    )
    .success();
    // History holds earlier versions — those were redacted too.
    assert_no_leak(&env);
}

#[test]
fn content_empty_after_redaction_is_skipped_and_nothing_is_written() {
    let env = TestEnv::with_vault("basic");
    let before = env.contents();
    let out = env.run(["add", "only-private", "<private>everything</private>"]).success();
    assert_eq!(
        out.stdout,
        "skipped only-private: the content is empty after redaction\n  redacted: 1 private block\n"
    );
    let json =
        env.run(["add", "only-private", "  <private>x</private>\n", "--json"]).success().json();
    assert_eq!(json["status"], "skipped");
    assert_eq!(env.contents(), before);

    let out = env.run(["update", "deploy-notes", "<private>all of it</private>"]).success();
    assert!(out.stdout.starts_with("skipped deploy-notes"), "{out}");
    assert_eq!(env.contents(), before);
}

#[test]
fn hand_written_private_blocks_are_not_shown() {
    let env = TestEnv::with_vault("basic");
    env.write(
        "hand.md",
        "---\ntype: fact\n---\n\nvisible <private>hidden-by-hand</private> text\n",
    );
    let out = env.run(["show", "hand"]).success();
    assert!(out.stdout.contains("visible [redacted] text"), "{out}");
    assert!(!out.stdout.contains("hidden-by-hand"));
    let json = env.run(["show", "hand", "--json"]).success().json();
    assert!(!json["content"].as_str().unwrap().contains("hidden-by-hand"));
    // --raw is the file as the user wrote it, on the user's own disk.
    assert!(env.run(["show", "hand", "--raw"]).success().stdout.contains("hidden-by-hand"));
    // The file itself is never rewritten by reading.
    assert!(env.read("hand.md").contains("hidden-by-hand"));
}
