//! The everyday flow: add from an argument, a file and stdin; list, show, update, append, mv.

use crate::common::TestEnv;

#[test]
fn add_from_argument_file_and_stdin() {
    let env = TestEnv::with_vault("basic");
    let out = env
        .run([
            "add",
            "decisions/db",
            "We picked Postgres over DynamoDB.",
            "--type",
            "decision",
            "--tag",
            "db",
            "--tag",
            "infra",
        ])
        .success();
    assert!(out.stdout.starts_with("created decisions/db ("), "{out}");
    insta::assert_snapshot!(
        "add_written_file",
        env.read("decisions/db.md").replace(&id_of(&env, "decisions/db"), "[ID]")
    );

    std::fs::write(env.root.join("note.md"), "# From a file\n\nLoaded with --file.\n").unwrap();
    env.run(["add", "from-file", "--file", "note.md", "-t", "fact", "--tag", "a,b"]).success();
    let text = env.read("from-file.md");
    assert!(text.contains("type: fact\n") && text.contains("tags: [a, b]\n"), "{text}");
    assert!(text.ends_with("---\n\n# From a file\n\nLoaded with --file.\n"), "{text}");

    env.run_stdin(["add", "from-stdin", "--type", "observation"], "piped in\n").success();
    assert!(env.read("from-stdin.md").ends_with("\n\npiped in\n"));
    env.run_stdin(["add", "dash", "-"], "dash reads stdin").success();
    assert!(env.read("dash.md").ends_with("\n\ndash reads stdin\n"));

    // Without any content: an error, nothing written.
    let out = env.run(["add", "nothing"]).code(2);
    assert!(out.stderr.contains("no content to add"), "{out}");
    assert!(!env.exists("nothing.md"));
}

fn id_of(env: &TestEnv, name: &str) -> String {
    let v = env.run(["show", name, "--json"]).success().json();
    v["id"].as_str().unwrap().to_owned()
}

#[test]
fn list_filters_and_sorts() {
    let env = TestEnv::with_vault("basic");
    insta::assert_snapshot!("list_default", env.run(["list"]).success());
    let names = |args: &[&str]| -> Vec<String> {
        let mut a = vec!["list", "--json"];
        a.extend_from_slice(args);
        env.run(a)
            .success()
            .json()
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(names(&["--type", "decision"]), ["auth/jwt-plan"]);
    assert_eq!(
        names(&["--tag", "auth", "--sort", "name"]),
        ["auth/jwt-plan", "auth/session-store"]
    );
    assert_eq!(
        names(&["--tag", "deploy,storage", "--sort", "name"]),
        ["auth/session-store", "deploy-notes"]
    );
    assert_eq!(
        names(&["--after", "2026-01-05", "--sort", "name"]),
        ["auth/jwt-plan", "deploy-notes"]
    );
    assert_eq!(names(&["--before", "2026-01-03"]), ["auth/session-store", "standup"]);
    assert_eq!(names(&["--since", "3d"]), ["deploy-notes"]);
    assert_eq!(names(&["--sort", "name", "--reverse", "-n", "2"]), ["standup", "deploy-notes"]);
    // created_at falls back to the file's mtime (2026-01-01 in the fixture copy).
    assert_eq!(names(&["--before", "2026-01-01T00:00:01Z", "--after", "2025-12-31"]), ["standup"]);

    let out = env.run(["list", "--after", "2026-02-01", "--before", "2026-01-01"]).code(2);
    assert!(
        out.stderr.contains("is not before") && out.stderr.contains("swap --after and --before"),
        "{out}"
    );
    let out = env.run(["list", "--since", "soon"]).code(2);
    assert!(out.stderr.contains("not a duration"), "{out}");
    let out = env.run(["list", "--type", "nope"]).code(2);
    assert!(out.stderr.contains("unknown memory type `nope`"), "{out}");
}

#[test]
fn show_by_name_file_name_memory_prefix_and_id() {
    let env = TestEnv::with_vault("basic");
    let by_name = env.run(["show", "auth/jwt-plan"]).success();
    insta::assert_snapshot!("show_human", by_name);
    // The first read warmed the memory (temp 0.65 after 0.50); these leave it there.
    for alias in ["auth/jwt-plan.md", "memory:auth/jwt-plan", "3kTqZ9pLx2A"] {
        let again = env.run(["show", alias, "--no-touch"]).success();
        assert_eq!(again.stdout, by_name.stdout, "{alias}");
    }
    assert_eq!(
        env.run(["read", "auth/jwt-plan", "--raw"]).success().stdout,
        env.read("auth/jwt-plan.md")
    );
    insta::assert_snapshot!("show_json", env.run(["show", "auth/jwt-plan", "--json"]).success());
    let out = env.run(["show", "auth/jwt-plna"]).code(2);
    insta::assert_snapshot!("show_unknown_suggests", out);
}

#[test]
fn update_replaces_the_body_and_keeps_frontmatter_and_unknown_keys() {
    let env = TestEnv::with_vault("basic");
    let before = env.read("auth/jwt-plan.md");
    env.run(["update", "auth/jwt-plan", "# JWT plan\n\nRevised: tokens live 10 minutes.\n"])
        .success();
    let after = env.read("auth/jwt-plan.md");
    insta::assert_snapshot!("update_file", after);
    // Only updated_at and the body changed; the unknown key and its comment are intact.
    assert!(after.contains("reviewer: dana   # an unknown key memlane must keep\n"));
    let fm = |s: &str| {
        s.split("---")
            .nth(1)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with("updated_at"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(fm(&before), fm(&after));

    // Metadata only: type and tags change, the body stays.
    env.run([
        "update",
        "auth/jwt-plan",
        "--type",
        "architecture",
        "--add-tag",
        "security",
        "--remove-tag",
        "refactor",
    ])
    .success();
    let meta = env.run(["show", "auth/jwt-plan", "--json"]).success().json();
    assert_eq!(meta["type"], "architecture");
    assert_eq!(meta["tags"], serde_json::json!(["auth", "security"]));
    assert!(meta["content"].as_str().unwrap().contains("Revised: tokens live 10 minutes."));

    // Same content again: nothing written, no new history version.
    let out = env.run(["update", "auth/jwt-plan", "--type", "architecture"]).success();
    assert!(out.stdout.starts_with("unchanged"), "{out}");
    let versions = env.run(["history", "auth/jwt-plan", "--json"]).success().json();
    assert_eq!(versions["versions"].as_array().unwrap().len(), 2);
}

#[test]
fn update_raw_replaces_the_whole_file_strictly() {
    let env = TestEnv::with_vault("basic");
    let before = env.contents();
    let out = env
        .run_stdin(
            ["update", "deploy-notes", "--raw"],
            "---\ntype: fact\ntags: [broken\n---\nbody\n",
        )
        .code(2);
    assert!(out.stderr.contains("invalid frontmatter in deploy-notes"), "{out}");
    assert_eq!(env.contents(), before, "a failed raw update wrote something");
    let out = env
        .run_stdin(["update", "deploy-notes", "--raw"], "---\nid: AAAAAAAAAAA\n---\nbody\n")
        .code(2);
    assert!(out.stderr.contains("ids are stable"), "{out}");
    let out = env
        .run_stdin(["update", "deploy-notes", "--raw"], "---\ntype: nonsense\n---\nbody\n")
        .code(2);
    assert!(out.stderr.contains("unknown memory type `nonsense`"), "{out}");
    assert_eq!(env.contents(), before);

    env.run_stdin(
        ["update", "deploy-notes", "--raw"],
        "---\ntype: plan\nowner: ops\n---\n\nNew plan.\n",
    )
    .success();
    let text = env.read("deploy-notes.md");
    assert!(text.starts_with("---\nid: Q9vX2kLm4Tz\ntype: plan\n"), "{text}");
    assert!(text.contains("owner: ops\n") && text.ends_with("\n\nNew plan.\n"), "{text}");
}

#[test]
fn append_adds_a_blank_line_then_the_text() {
    let env = TestEnv::with_vault("basic");
    env.run(["append", "deploy-notes", "Rollbacks use `make rollback`."]).success();
    let text = env.read("deploy-notes.md");
    assert!(
        text.ends_with("staging.example.internal.\n\nRollbacks use `make rollback`.\n"),
        "{text}"
    );
    env.run_stdin(["append", "deploy-notes"], "third\n").success();
    assert!(env.read("deploy-notes.md").ends_with("`make rollback`.\n\nthird\n"));
}

#[test]
fn a_hand_written_file_gets_frontmatter_on_its_first_rewrite() {
    let env = TestEnv::with_vault("basic");
    let id =
        env.run(["show", "standup", "--json"]).success().json()["id"].as_str().unwrap().to_owned();
    env.run(["append", "standup", "Friday it is."]).success();
    let text = env.read("standup.md");
    assert!(
        text.starts_with(&format!(
            "---\nid: {id}\nupdated_at: 2026-01-10T10:00:00Z\n---\n\nHand-written note"
        )),
        "{text}"
    );
    // The derived id is now persisted and stable across a rename.
    env.run(["mv", "standup", "meetings/standup"]).success();
    assert_eq!(env.run(["show", &id, "--json"]).success().json()["name"], "meetings/standup");
}

#[test]
fn mv_keeps_the_id_and_refuses_to_overwrite() {
    let env = TestEnv::with_vault("basic");
    let out = env.run(["mv", "deploy-notes", "ops/deploy"]).success();
    assert_eq!(out.stdout, "moved deploy-notes -> ops/deploy\n");
    assert!(!env.exists("deploy-notes.md"));
    assert!(env.read("ops/deploy.md").contains("id: Q9vX2kLm4Tz"));
    let before = env.contents();
    let out = env.run(["mv", "ops/deploy", "auth/jwt-plan"]).code(2);
    assert!(out.stderr.contains("already exists"), "{out}");
    assert_eq!(env.contents(), before);
}

#[test]
fn json_output_shapes() {
    let env = TestEnv::with_vault("basic");
    let add = env.run(["add", "j", "json please", "--json"]).success().json();
    assert_eq!(add["status"], "created");
    assert_eq!(add["name"], "j");
    assert_eq!(add["had_private_content"], false);
    assert!(add["file_path"].as_str().unwrap().ends_with("vault/j.md"));
    let list = env.run(["list", "--json", "--sort", "name"]).success().json();
    let first = &list[0];
    for key in [
        "name",
        "id",
        "type",
        "status",
        "tags",
        "created_at",
        "updated_at",
        "pinned",
        "file_path",
        "size",
        "warnings",
    ] {
        assert!(first.get(key).is_some(), "list item lacks {key}: {first}");
    }
    let rm = env.run(["rm", "j", "--json"]).success().json();
    assert_eq!(rm[0]["status"], "deleted");
    let trash = env.run(["trash", "list", "--json"]).success().json();
    assert_eq!(trash["entries"][0]["name"], "j");
    let init = env.run(["init", "--json"]).success().json();
    assert_eq!(init["existed"], true);
}

#[test]
fn edit_runs_the_editor_on_a_copy_and_saves_checked_changes() {
    let env = TestEnv::with_vault("basic");
    let original = env.read("deploy-notes.md");
    let mut cmd = env.command();
    cmd.env("EDITOR", "sed -i 's/Deploys run/Deployments run/'").args(["edit", "deploy-notes"]);
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = env.read("deploy-notes.md");
    assert!(text.contains("Deployments run `npm ci`"), "{text}");
    assert!(text.contains("updated_at: 2026-01-10T10:00:00Z"), "{text}");
    let hist = env.run(["history", "deploy-notes", "--json"]).success().json();
    assert_eq!(hist["versions"][0]["action"], "edit");

    // An editor that fails changes nothing.
    let before = env.contents();
    let mut cmd = env.command();
    cmd.env("EDITOR", "false").args(["edit", "deploy-notes"]);
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the editor `false` exited"));
    assert_eq!(env.contents(), before);

    // An edit that breaks the YAML is refused, and the edit is kept for the user.
    let mut cmd = env.command();
    cmd.env("VISUAL", "sed -i 's/^tags: .*/tags: [oops/'").args(["edit", "deploy-notes"]);
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("your edit was not saved; it is kept in"), "{err}");
    assert_eq!(env.contents(), before);
    assert_ne!(original, env.read("deploy-notes.md"));
}
