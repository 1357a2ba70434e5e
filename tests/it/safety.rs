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

// -- reads never leave the vault ---------------------------------------------

/// A file and a folder outside the vault, linked into it, each holding a unique marker.
#[cfg(unix)]
fn plant_escaping_links(env: &TestEnv) -> &'static str {
    const MARKER: &str = "obsidianquokka";
    let outside = env.root.join("outside");
    std::fs::create_dir_all(outside.join("dir")).unwrap();
    std::fs::write(outside.join("passwd"), format!("root:x:0:0:{MARKER}:/root:/bin/sh\n")).unwrap();
    std::fs::write(
        outside.join("dir/leak.md"),
        format!("---\ntype: fact\n---\n\nthe {MARKER} folder note\n"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.join("passwd"), env.vault().join("notes.md")).unwrap();
    std::os::unix::fs::symlink(outside.join("dir"), env.vault().join("shared")).unwrap();
    // A link that stays inside the vault is still read (documented in
    // docs/internals/file-format.md).
    std::os::unix::fs::symlink(
        env.vault().join("deploy-notes.md"),
        env.vault().join("deploy-alias.md"),
    )
    .unwrap();
    MARKER
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_the_vault_are_never_listed_searched_or_shown() {
    let env = TestEnv::with_vault("basic");
    let marker = plant_escaping_links(&env);

    let list = env.run(["list", "--json"]).success();
    let names: Vec<String> = list
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(!names.iter().any(|n| n == "notes" || n.starts_with("shared")), "{names:?}");
    assert!(names.iter().any(|n| n == "deploy-alias"), "an inside link is kept: {names:?}");
    // Each escaping link is warned about (once), by name.
    assert!(list.stderr.contains("`notes.md` is a symbolic link"), "{list}");

    let found = env.run(["search", marker, "--json"]).success();
    assert!(!found.stdout.contains(marker), "{found}");
    for name in ["notes", "shared/leak", "notes.md"] {
        let out = env.run(["show", name]).code(2);
        assert!(out.stderr.contains("symbolic link that resolves outside"), "{name}: {out}");
        assert!(!format!("{out}").contains(marker), "{out}");
    }
    // Nothing of it reached the indices either.
    for entry in walkdir::WalkDir::new(env.vault().join("indices")) {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let bytes = std::fs::read(entry.path()).unwrap();
            assert!(
                !String::from_utf8_lossy(&bytes).contains(marker),
                "{}",
                entry.path().display()
            );
        }
    }

    let doctor = env.run(["doctor"]).success();
    assert!(doctor.stdout.contains("notes.md: symbolic link to the file"), "{doctor}");
    assert!(doctor.stdout.contains("shared: symbolic link to the folder"), "{doctor}");
    let json = env.run(["doctor", "--json"]).success().json();
    let kinds: Vec<(&str, &str)> = json["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == "link_outside_vault")
        .map(|p| (p["memory"].as_str().unwrap(), p["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(kinds, [("notes.md", "link_outside_vault"), ("shared", "link_outside_vault")]);
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_the_vault_are_never_served_over_mcp() {
    use serde_json::json;
    let env = TestEnv::with_vault("basic");
    let marker = plant_escaping_links(&env);
    let mut c = crate::mcp::Client::start(&env);
    c.initialize();
    let hits = c.ok("search_memories", json!({"query": format!("{marker} root bin sh")}));
    assert!(!hits.to_string().contains(marker), "{hits}");
    let err = c.err("read_memory", json!({"name": "notes"}));
    assert!(err.contains("symbolic link") && !err.contains(marker), "{err}");
    let err = c.err("read_memory", json!({"name": "shared/leak"}));
    assert!(!err.contains(marker), "{err}");
    let read = c.ok("read_memory", json!({"name": "deploy-alias"}));
    assert!(read["content"].as_str().unwrap().contains("make release"), "{read}");
}

#[test]
fn case_and_unicode_colliding_names_are_refused() {
    let env = TestEnv::with_vault("basic");
    let before = crate::privacy::memory_files(&env);
    let out = env.run(["add", "Deploy-Notes", "other text"]).code(2);
    assert!(out.stderr.contains("existing memory `deploy-notes`"), "{out}");
    assert!(out.stderr.contains("only in letter case"), "{out}");
    let out = env.run(["add", "AUTH/jwt-plan", "other text"]).code(2);
    assert!(out.stderr.contains("existing folder `auth/`"), "{out}");
    let out = env.run(["add", "State/x", "other text"]).code(2);
    assert!(out.stderr.contains("reserved folder `state/`"), "{out}");
    let out = env.run(["mv", "standup", "Deploy-notes"]).code(2);
    assert!(out.stderr.contains("existing memory `deploy-notes`"), "{out}");
    assert_eq!(crate::privacy::memory_files(&env), before);

    // NFC and NFD spellings of one name.
    let nfc = "caf\u{e9}";
    let nfd = "cafe\u{301}";
    env.run(["add", nfc, "espresso notes"]).success();
    let out = env.run(["add", nfd, "other text"]).code(2);
    assert!(out.stderr.contains("accents encoded differently"), "{out}");
    assert!(!env.exists(&format!("{nfd}.md")));

    // Renaming a memory to another spelling of its own name is fine.
    env.run(["mv", "standup", "Standup"]).success();
    assert!(env.exists("Standup.md"));
}

#[test]
fn mcp_create_and_remember_respect_colliding_names() {
    use serde_json::json;
    let env = TestEnv::with_vault("basic");
    env.write(
        "Pager-Rota-Alice-Covers-The-Weekend.md",
        "---\ntype: fact\n---\n\nInvoices are approved by finance before the fifth.\n",
    );
    let mut c = crate::mcp::Client::start(&env);
    c.initialize();
    let content = "pager rota: Alice covers the weekend shifts in March";
    let err = c.err(
        "create_memory",
        json!({"name": "pager-rota-alice-covers-the-weekend", "content": content}),
    );
    assert!(err.contains("existing memory `Pager-Rota-Alice-Covers-The-Weekend`"), "{err}");
    // remember picks a free name instead of one that collides.
    let r = c.ok("remember", json!({"content": content}));
    assert_eq!(r["action"], "created", "{r}");
    assert_eq!(r["name"], "pager-rota-alice-covers-the-weekend-2", "{r}");
}
