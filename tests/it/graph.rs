//! The memory graph through the real binary: linked documents, typed relationships and version
//! chains, related memories, link/unlink, renames and deletes that never leave dangling links.

use crate::common::TestEnv;

#[test]
fn linked_lists_exactly_the_memories_that_mention_a_document() {
    let env = TestEnv::with_vault("links");
    let out = env.run(["linked", "src/auth.py", "session expiry bug", "--json"]).success().json();
    let names: Vec<&str> =
        out["results"].as_array().unwrap().iter().map(|h| h["name"].as_str().unwrap()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    // onboarding has [[src/auth.py]] only inside a code block: not a link.
    assert_eq!(sorted, ["auth-v1", "auth-v2", "bug-login"], "{out:#}");
    assert_eq!(names[0], "bug-login", "best match for the query first: {out:#}");
    assert_eq!(out["target_document"], "src/auth.py");
    let first = &out["results"][0];
    assert_eq!(first["edge_type"], "debugs");
    assert!(first["anchor_context"].as_str().unwrap().contains("[[src/auth.py]]"));
    for key in ["memory_id", "score", "content", "anchor_context", "edge_type", "file_path"] {
        assert!(first.get(key).is_some(), "{key} missing: {first}");
    }
    let v2 = out["results"].as_array().unwrap().iter().find(|h| h["name"] == "auth-v2").unwrap();
    assert_eq!(v2["edge_type"], "refactors");
    // `./` and duplicate slashes meet the same document.
    let same = env.run(["linked", "./src//auth.py", "--json"]).success().json();
    assert_eq!(same["results"].as_array().unwrap().len(), 3);
    let keys = env.run(["linked", "src/keys/rotate.py", "--json"]).success().json();
    assert_eq!(keys["results"][0]["name"], "key-rotation");
    assert_eq!(
        env.run(["linked", "src/nothing.py", "--json"]).success().json()["results"],
        serde_json::json!([])
    );
    insta::assert_snapshot!(
        "linked_human",
        env.run(["linked", "src/auth.py", "session expiry bug"]).success()
    );
}

#[test]
fn relationships_show_the_whole_version_chain_both_ways() {
    let env = TestEnv::with_vault("links");
    let out = env.run(["relationships", "auth-v3", "--type", "supersedes"]).success();
    insta::assert_snapshot!("relationships_v3", out);
    let from_v1 = env.run(["relationships", "auth-v1", "--json"]).success().json();
    assert_eq!(
        from_v1["version_chain"],
        serde_json::json!(["memory:auth-v3", "memory:auth-v2", "memory:auth-v1"])
    );
    let replaced_by: Vec<&str> = from_v1["incoming"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["edge_type"] == "supersedes")
        .map(|e| e["memory_id"].as_str().unwrap())
        .collect();
    assert_eq!(replaced_by, ["memory:auth-v2"]);
    let v3 =
        env.run(["relationships", "auth-v3", "--json", "--type", "depends_on"]).success().json();
    assert_eq!(v3["outgoing"][0]["memory_id"], "memory:key-rotation");
    assert_eq!(v3["outgoing"].as_array().unwrap().len(), 1);
    // Frontmatter links count too.
    let onboarding =
        env.run(["relationships", "onboarding", "--json", "--type", "depends_on"]).success().json();
    assert_eq!(onboarding["outgoing"][0]["origin"], "frontmatter");
    let out = env.run(["relationships", "auth-v3", "--type", "likes"]).code(2);
    assert!(out.stderr.contains("supersedes"), "the error lists the types: {out}");
}

#[test]
fn related_walks_exactly_n_hops() {
    let env = TestEnv::with_vault("links");
    let one = env.run(["related", "auth-v3", "--depth", "1", "--json"]).success().json();
    let names = |v: &serde_json::Value| -> Vec<String> {
        v["related"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["key"].as_str().unwrap().to_owned())
            .collect()
    };
    let d1 = names(&one);
    assert_eq!(d1[..2], ["memory:auth-v2".to_owned(), "memory:key-rotation".to_owned()], "{one:#}");
    let two = names(&env.run(["related", "auth-v3", "--depth", "2", "--json"]).success().json());
    assert!(
        two.contains(&"memory:auth-v1".to_owned()) && two.contains(&"memory:onboarding".to_owned()),
        "{two:?}"
    );
    assert!(two.iter().all(|n| !d1.contains(n)), "depth 2 lists nothing reachable in 1: {two:?}");
    env.run(["related", "auth-v3", "--depth", "0"]).code(2);
}

#[test]
fn link_and_unlink_write_the_frontmatter_with_history() {
    let env = TestEnv::with_vault("links");
    env.run(["link", "bug-login", "auth-v3", "--type", "depends_on"]).success();
    let text = env.read("bug-login.md");
    assert!(
        text.contains("links:\n  - { type: depends_on, target: \"memory:auth-v3\" }\n"),
        "{text}"
    );
    let rel =
        env.run(["relationships", "bug-login", "--json", "--type", "depends_on"]).success().json();
    assert_eq!(rel["outgoing"][0]["memory_id"], "memory:auth-v3");
    env.run(["link", "bug-login", "docs/runbook.md", "--doc"]).success();
    let linked = env.run(["linked", "docs/runbook.md", "--json"]).success().json();
    assert_eq!(linked["results"][0]["name"], "bug-login");
    env.run(["unlink", "bug-login", "auth-v3"]).success();
    assert!(!env.read("bug-login.md").contains("auth-v3"));
    let out = env.run(["unlink", "bug-login", "auth-v3"]).code(2);
    assert!(out.stderr.contains("no frontmatter link"), "{out}");
    let hist = env.run(["history", "bug-login", "--json"]).success().json();
    assert_eq!(hist["versions"].as_array().unwrap().len(), 3);
    let out = env.run(["link", "bug-login", "nobody"]).code(2);
    assert!(out.stderr.contains("no memory named `nobody`"), "{out}");
}

#[test]
fn renames_rewrite_links_and_deletes_never_show_dangling_links() {
    let env = TestEnv::with_vault("links");
    let out = env.run(["mv", "key-rotation", "security/keys"]).success();
    assert!(
        out.stdout.contains("rewrote links in auth-v3")
            && out.stdout.contains("rewrote links in onboarding"),
        "{out}"
    );
    assert!(env.read("auth-v3.md").contains("[[memory:security/keys]]"));
    assert!(env.read("onboarding.md").contains("memory:security/keys"));
    let v3 = env.run(["relationships", "auth-v3", "--json"]).success().json();
    assert!(
        v3.to_string().contains("memory:security/keys")
            && !v3.to_string().contains("memory:key-rotation"),
        "{v3:#}"
    );

    env.run(["rm", "auth-v2"]).success();
    for args in [
        vec!["relationships", "auth-v3", "--json"],
        vec!["relationships", "auth-v1", "--json"],
        vec!["related", "auth-v3", "--depth", "2", "--json"],
        vec!["linked", "src/auth.py", "--json"],
    ] {
        let out = env.run(args.clone()).success();
        assert!(
            !out.stdout.contains("memory:auth-v2") && !out.stdout.contains("\"auth-v2\""),
            "{args:?} shows the deleted memory: {out}"
        );
    }
    let doctor = env.run(["doctor", "--json"]).success().json();
    let dead: Vec<&str> = doctor["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == "dead_link")
        .map(|p| p["target"].as_str().unwrap())
        .collect();
    assert_eq!(dead, ["auth-v2"], "{doctor:#}");
}

#[test]
fn a_link_to_a_trashed_memory_names_its_recorded_successor() {
    let env = TestEnv::with_vault("links");
    let text =
        env.read("auth-v1.md").replace("tags: [auth]\n", "tags: [auth]\nsuperseded_by: auth-v2\n");
    env.write("auth-v1.md", &text);
    env.run(["rm", "auth-v1"]).success();
    let doctor = env.run(["doctor", "--json"]).success().json();
    let dead =
        doctor["problems"].as_array().unwrap().iter().find(|p| p["kind"] == "dead_link").unwrap();
    assert_eq!(dead["target"], "auth-v1");
    assert_eq!(dead["successor"], "auth-v2");
}

#[test]
fn the_graph_after_outside_edits_equals_a_rebuild() {
    let env = TestEnv::with_vault("links");
    let snapshot = |env: &TestEnv| -> Vec<String> {
        ["auth-v1", "auth-v2", "auth-v3", "key-rotation", "bug-login", "onboarding", "new-note"]
            .iter()
            .filter(|n| env.exists(&format!("{n}.md")))
            .map(|n| env.run(["relationships", n, "--json"]).success().stdout)
            .collect()
    };
    env.run(["doctor"]).success();
    // Edits made outside memlane: a new memory that an old link pointed at as a document,
    // a changed link type, a deleted file.
    env.write(
        "bug-login.md",
        &env.read("bug-login.md").replace(
            "We debugged [[src/auth.py]]",
            "This contradicts [[memory:auth-v3]] and [[new-note]]",
        ),
    );
    env.write("new-note.md", "# New note\n\nSee [[memory:auth-v3]].\n");
    std::fs::remove_file(env.vault().join("auth-v1.md")).unwrap();
    let reconciled = snapshot(&env);
    assert!(reconciled.iter().any(|r| r.contains("\"contradicts\"")), "{reconciled:?}");
    let bug = env.run(["relationships", "bug-login", "--json"]).success().json();
    assert!(
        bug.to_string().contains("memory:new-note"),
        "[[new-note]] resolves to the new memory: {bug:#}"
    );
    env.run(["reindex"]).success();
    assert_eq!(snapshot(&env), reconciled);
}

#[test]
fn search_expand_adds_linked_neighbours_marked_with_their_link() {
    let env = TestEnv::with_vault("links");
    let out = env
        .run(["search", "JWT access tokens", "-n", "1", "--expand", "1", "--json"])
        .success()
        .json()["results"]
        .clone();
    let hits = out.as_array().unwrap();
    assert_eq!(hits[0]["name"], "auth-v3");
    assert!(hits[0].get("expanded_from").is_none());
    let added: Vec<(&str, &str)> = hits[1..]
        .iter()
        .map(|h| (h["name"].as_str().unwrap(), h["edge_type"].as_str().unwrap()))
        .collect();
    assert!(
        added.contains(&("auth-v2", "supersedes"))
            && added.contains(&("key-rotation", "depends_on")),
        "{out:#}"
    );
    assert!(hits[1..].iter().all(|h| h["expanded_from"] == "auth-v3"));
    let plain =
        env.run(["search", "JWT access tokens", "-n", "1", "--json"]).success().json()["results"]
            .clone();
    assert_eq!(plain.as_array().unwrap().len(), 1);
}

#[test]
fn a_supersedes_link_lowers_the_old_memory_in_search_and_names_its_successor() {
    let env = TestEnv::with_vault("links");
    // auth-v3's body says it supersedes auth-v2; auth-v2's frontmatter says nothing.
    assert!(!env.read("auth-v2.md").contains("superseded_by"));
    let out = env
        .run(["search", "sessions redis JWT", "--json", "--explain", "--no-touch"])
        .success()
        .json()["results"]
        .clone();
    let v2 =
        out.as_array().unwrap().iter().find(|h| h["name"] == "auth-v2").expect("auth-v2 found");
    assert_eq!(v2["superseded_by"], "auth-v3", "{v2:#}");
    assert_eq!(v2["explain"]["supersession_factor"], 0.5);
}

#[test]
fn an_agent_reported_context_is_recorded_as_was_context_for() {
    let env = TestEnv::with_vault("links");
    env.run(["link", "bug-login", "key-rotation", "--type", "was_context_for"]).success();
    let rel = env
        .run(["relationships", "key-rotation", "--json", "--type", "was_context_for"])
        .success()
        .json();
    assert_eq!(rel["incoming"][0]["memory_id"], "memory:bug-login", "{rel:#}");
    // It lives in the file, so it survives a rebuild of the derived graph.
    std::fs::remove_dir_all(env.vault().join("indices")).unwrap();
    let again = env
        .run(["relationships", "key-rotation", "--json", "--type", "was_context_for"])
        .success()
        .json();
    assert_eq!(again["incoming"], rel["incoming"]);
}
