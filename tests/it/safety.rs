//! Bad input is a clear error with exit code 2 and nothing written; writes never leave the vault.

use crate::common::TestEnv;

#[test]
fn bad_names_are_refused_and_nothing_is_written() {
    let env = TestEnv::with_vault("basic");
    let before = env.contents();
    let outside_before = std::fs::read_dir(&env.root).unwrap().count();
    for (name, needle) in [
        ("../x", "`..`"),
        ("/etc/x", "absolute path"),
        (".trash/x", "starting with `.`"),
        (".history/x", "starting with `.`"),
        ("indices/x", "reserved folder"),
        ("state/x", "reserved folder"),
        ("bad\u{1}name", "control character"),
        ("tab\tname", "control character"),
        ("a//b", "empty folder"),
        ("what?", "`?`"),
    ] {
        let out = env.run(["add", name, "content"]).code(2);
        assert!(out.stderr.starts_with("memlane: error: invalid memory name:"), "{name:?}: {out}");
        assert!(out.stderr.contains(needle), "{name:?}: {out}");
    }
    assert_eq!(env.contents(), before);
    assert_eq!(std::fs::read_dir(&env.root).unwrap().count(), outside_before);
    assert!(!std::path::Path::new("/etc/x.md").exists());
}

#[test]
fn an_existing_target_or_a_bad_type_is_refused() {
    let env = TestEnv::with_vault("basic");
    let before = env.contents();
    let out = env.run(["add", "deploy-notes", "again"]).code(2);
    insta::assert_snapshot!("add_existing", out);
    let out = env.run(["add", "fresh", "x", "--type", "bogus"]).code(2);
    assert!(out.stderr.contains("unknown memory type `bogus`"), "{out}");
    assert!(out.stderr.contains("decision"), "the error lists known types: {out}");
    assert_eq!(env.contents(), before);
}

#[cfg(unix)]
#[test]
fn writes_through_a_symlink_that_leaves_the_vault_are_refused() {
    let env = TestEnv::with_vault("basic");
    let outside = env.root.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("target.md"), "---\ntype: fact\n---\n\nprecious\n").unwrap();
    std::os::unix::fs::symlink(&outside, env.vault().join("linked")).unwrap();
    std::os::unix::fs::symlink(outside.join("target.md"), env.vault().join("alias.md")).unwrap();

    let out = env.run(["add", "linked/new", "content"]).code(2);
    assert!(out.stderr.contains("outside the vault"), "{out}");
    assert!(!outside.join("new.md").exists());

    let out = env.run(["update", "alias", "overwrite"]).code(2);
    assert!(out.stderr.contains("outside the vault"), "{out}");
    let out = env.run(["rm", "alias"]).code(2);
    assert!(out.stderr.contains("outside the vault"), "{out}");
    assert_eq!(
        std::fs::read_to_string(outside.join("target.md")).unwrap(),
        "---\ntype: fact\n---\n\nprecious\n"
    );

    // A symlink that stays inside the vault is fine: the write lands in the real file.
    std::os::unix::fs::symlink(
        env.vault().join("deploy-notes.md"),
        env.vault().join("deploy-alias.md"),
    )
    .unwrap();
    env.run(["append", "deploy-alias", "via alias"]).success();
    assert!(env.read("deploy-notes.md").ends_with("via alias\n"));
    assert!(
        std::fs::symlink_metadata(env.vault().join("deploy-alias.md"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn broken_hand_written_files_list_with_warnings_and_do_not_stop_the_rest() {
    let env = TestEnv::with_vault("edge");
    let out = env.run(["list", "--sort", "name"]).success();
    insta::assert_snapshot!("edge_list", out);
    let json = env.run(["list", "--json", "--sort", "name"]).success().json();
    let broken = &json[0];
    assert_eq!(broken["name"], "broken-yaml");
    assert!(broken["warnings"][0].as_str().unwrap().contains("broken YAML"));
    assert_eq!(json.as_array().unwrap().len(), 3);
    let shown = env.run(["show", "broken-yaml"]).success();
    assert!(shown.stdout.contains("The body is still readable"), "{shown}");
    assert!(shown.stderr.contains("warning: broken-yaml: broken YAML"), "{shown}");
    // Reading never rewrites a hand-written file.
    assert!(env.read("broken-yaml.md").contains("tags: [unclosed"));
    // --quiet silences warnings.
    assert_eq!(env.run(["list", "-q"]).success().stderr, "");
}

#[test]
fn not_utf8_content_is_an_error_not_garbage() {
    let env = TestEnv::with_vault("basic");
    std::fs::write(env.root.join("bin.dat"), [0xff, 0xfe, 0x00, 0x41]).unwrap();
    let out = env.run(["add", "bin", "--file", "bin.dat"]).code(2);
    assert!(out.stderr.contains("not UTF-8"), "{out}");
    assert!(!env.exists("bin.md"));
}
