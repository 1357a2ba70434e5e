//! Hardening: hostile requests, pathological files and damaged indices never take
//! memlane down; each gets a clear answer, through the real binary and the real MCP protocol.

use serde_json::{Value, json};

use crate::common::TestEnv;
use crate::mcp::Client;

const HUGE: u64 = 1_000_000_000_000_000_000;

/// The next message that answers a request (skipping notifications).
fn next_answer(c: &mut Client) -> Value {
    loop {
        let v = c.next_message();
        if v.is_array() || v.get("id").is_some() {
            return v;
        }
    }
}

#[track_caller]
fn assert_error(v: &Value, id: Value, code: i64) {
    assert_eq!(v["id"], id, "{v}");
    assert_eq!(v["error"]["code"], json!(code), "{v}");
    assert!(v["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");
}

#[test]
fn mcp_answers_every_malformed_line_with_an_error_the_client_can_match() {
    let env = TestEnv::with_vault("basic");
    let mut c = Client::start(&env);
    c.initialize();

    c.send_raw(br#"{"jsonrpc":"1.0","id":101,"method":"tools/list"}"#);
    assert_error(&next_answer(&mut c), json!(101), -32600);

    c.send_raw(br#"{"jsonrpc":"2.0","id":{"nested":1},"method":"tools/list"}"#);
    assert_error(&next_answer(&mut c), Value::Null, -32600);

    c.send_raw(br#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"tools/list"}"#);
    assert_error(&next_answer(&mut c), json!(18_446_744_073_709_551_615u64), -32600);

    c.send_raw(
        br#"{"jsonrpc":"2.0","id":104,"method":"tools/call","params":["search_memories",{"query":"deploy"}]}"#,
    );
    assert_error(&next_answer(&mut c), json!(104), -32602);

    c.send_raw(
        br#"[{"jsonrpc":"2.0","id":105,"method":"tools/list"},{"jsonrpc":"2.0","id":"b-106","method":"ping"}]"#,
    );
    let batch = next_answer(&mut c);
    let items = batch.as_array().unwrap_or_else(|| panic!("a batch gets an array: {batch}"));
    assert_eq!(items.len(), 2, "{batch}");
    assert_error(&items[0], json!(105), -32600);
    assert_error(&items[1], json!("b-106"), -32600);

    c.send_raw(b"this is not json {");
    assert_error(&next_answer(&mut c), Value::Null, -32700);

    // One byte over the transport's 16 MiB: refused, and the id is read from the line's start.
    let head = br#"{"jsonrpc":"2.0","id":107,"method":"tools/call","params":{"name":"remember","arguments":{"content":""#;
    let mut long = head.to_vec();
    long.resize(memlane::mcp::MAX_LINE_BYTES + 1, b'a');
    long.extend_from_slice(br#""}}}"#);
    c.send_raw(&long);
    let answer = next_answer(&mut c);
    assert_error(&answer, json!(107), -32600);
    assert!(answer["error"]["message"].as_str().unwrap().contains("16 MiB"), "{answer}");

    // The server is still there and answers as before.
    let found = c.ok("search_memories", json!({"query": "staging host deploys"}));
    assert_eq!(found["results"][0]["name"], "deploy-notes", "{found}");
    assert!(!env.files().iter().any(|f| f.contains("aaaa")), "the long line wrote nothing");
}

#[test]
fn mcp_refuses_sizes_past_the_limits_and_keeps_serving() {
    let env = TestEnv::with_vault("basic");
    let mut c = Client::start(&env);
    c.initialize();
    for limit in [1_000_000_000u64, HUGE] {
        let e = c.err("search_memories", json!({"query": "deploy", "limit": limit}));
        assert!(e.contains("limit must be between 1 and 1000"), "{e}");
    }
    let e = c.err(
        "search_linked_memories",
        json!({"query": "deploy", "target_document": "src/x.rs", "limit": HUGE}),
    );
    assert!(e.contains("limit must be between 1 and 1000"), "{e}");
    let e = c.err("get_related_memories", json!({"name": "deploy-notes", "depth": HUGE}));
    assert!(e.contains("depth must be between 1 and 32"), "{e}");
    let e = c.err("get_related_memories", json!({"name": "deploy-notes", "limit": HUGE}));
    assert!(e.contains("limit must be between 1 and 1000"), "{e}");
    let e = c.err("suggest_memory_merges", json!({"limit": HUGE}));
    assert!(e.contains("limit must be between 1 and 1000"), "{e}");
    // More days than the calendar holds is simply "all of them".
    let all =
        c.ok("search_memories", json!({"query": "staging host deploys", "relative_days": HUGE}));
    assert_eq!(all["results"][0]["name"], "deploy-notes", "{all}");
    let found = c.ok("search_memories", json!({"query": "staging host deploys", "limit": 1000}));
    assert_eq!(found["results"][0]["name"], "deploy-notes", "{found}");
}

#[test]
fn cli_refuses_sizes_past_the_limits() {
    let env = TestEnv::with_vault("basic");
    let huge = HUGE.to_string();
    for (args, says) in [
        (vec!["search", "deploy", "--limit", "1000000000"], "--limit must be between 1 and 1000"),
        (vec!["search", "deploy", "--limit", &huge], "--limit must be between 1 and 1000"),
        (vec!["search", "deploy", "--budget", &huge], "--budget must be between 1 and"),
        (vec!["search", "deploy", "--expand", &huge], "--expand must be between 0 and 100"),
        (vec!["related", "deploy-notes", "--depth", &huge], "--depth must be between 1 and 32"),
        (vec!["related", "deploy-notes", "-n", &huge], "--limit must be between 1 and 1000"),
        (vec!["linked", "src/x.rs", "-n", &huge], "--limit must be between 1 and 1000"),
        (vec!["suggest-merges", "-n", &huge], "--limit must be between 1 and 1000"),
        (vec!["watch", "--debounce", &huge], "--debounce must be at most"),
    ] {
        let out = env.run(&args).code(2);
        assert!(out.stderr.contains(says), "{args:?}: {out}");
    }
    let out = env.run(["search", "staging host deploys", "--since", "1000000000000w"]).success();
    assert!(out.stdout.contains("deploy-notes"), "{out}");
    let out = env.run(["search", "staging host deploys", "--limit", "1000"]).success();
    assert!(out.stdout.contains("deploy-notes"), "{out}");
}

// ----- bounded parsing -----

/// A vault with `deploy-notes` beside files no parser should spend long on.
fn pathological_vault() -> TestEnv {
    let env = TestEnv::with_vault("basic");
    env.write("brackets.md", &format!("---\ntitle: {}\n---\nbody\n", "[".repeat(160_000)));
    let deep: String = (0..200).map(|_| "{a: ").collect();
    env.write("nested.md", &format!("---\nx: {deep}\n---\nbody\n"));
    let big: String = (0..30_000).map(|i| format!("k{i}: v\n")).collect();
    env.write("big-frontmatter.md", &format!("---\n{big}---\nbody\n"));
    env
}

#[test]
fn pathological_frontmatter_is_skipped_with_a_warning_naming_the_file() {
    let env = pathological_vault();
    let list = env.run(["list"]).success();
    assert!(list.stdout.contains("deploy-notes"), "{list}");
    for (name, says) in [
        ("brackets", "nests `[`/`{` more than 64 deep"),
        ("nested", "nests `[`/`{` more than 64 deep"),
        ("big-frontmatter", "over the 262144 byte limit"),
    ] {
        assert!(!list.stdout.contains(name), "{name} is not listed: {list}");
        assert!(
            list.stderr.contains(&format!("{name}.md is skipped: the frontmatter")),
            "{name}: {list}"
        );
        assert!(list.stderr.contains(says), "{name}: {list}");
        let show = env.run(["show", name]).code(2);
        assert!(show.stderr.contains(&format!("{name}.md is skipped")), "{show}");
        assert!(show.stderr.contains(says), "{show}");
    }
    let doctor = env.run(["doctor"]).success();
    for name in ["brackets", "nested", "big-frontmatter"] {
        assert!(doctor.stdout.contains(&format!("{name}.md is skipped")), "{doctor}");
    }
    let found = env.run(["search", "staging host deploys"]).success();
    assert!(found.stdout.contains("deploy-notes"), "{found}");
    let show = env.run(["show", "deploy-notes"]).success();
    assert!(show.stdout.contains("staging.example.internal"), "{show}");
}

#[test]
fn thousands_of_tags_are_read_and_indexed() {
    let env = TestEnv::with_vault("basic");
    let tags: Vec<String> = (0..20_000).map(|i| format!("t{i}")).collect();
    env.write(
        "tagged.md",
        &format!("---\ntags: [{}]\n---\nThe tagged memory about zebras.\n", tags.join(",")),
    );
    let show = env.run(["show", "tagged", "--json"]).success().json();
    assert_eq!(show["tags"].as_array().map(Vec::len), Some(20_000));
    let found = env.run(["search", "zebras"]).success();
    assert!(found.stdout.contains("tagged"), "{found}");
}

#[test]
fn files_no_command_can_name_are_reported() {
    let env = TestEnv::with_vault("basic");
    env.write("...md", "dots\n");
    env.write("bad\u{1}name.md", "control\n");
    let list = env.run(["list"]).success();
    assert!(list.stdout.contains("deploy-notes"), "{list}");
    assert!(list.stderr.contains("...md: hidden files"), "{list}");
    assert!(list.stderr.contains(r"bad\u{1}name.md: no command can name this file"), "{list}");
    let doctor = env.run(["doctor", "--json"]).success().json();
    let kinds: Vec<&str> = doctor["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == "unreachable")
        .map(|p| p["message"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.len(), 2, "{doctor}");
}

/// A file named like a memory reference (`memory:deploy-notes.md`, as a cloned repository may
/// hold) is not the memory `deploy-notes`: it is reported as a file no command can name, never
/// read, and the real memory stays what every command shows.
#[cfg(unix)]
#[test]
fn a_file_named_memory_colon_is_not_the_memory_it_names() {
    let env = TestEnv::with_vault("basic");
    env.write("memory:deploy-notes.md", "# Impostor\n\nThe quokka impostor text.\n");
    env.write("memory:ghost.md", "# Ghost\n\nAnother quokka.\n");
    let list = env.run(["list"]).success();
    assert!(list.stdout.contains("deploy-notes"), "{list}");
    assert!(!list.stdout.contains("ghost"), "{list}");
    assert!(!list.stderr.contains("cannot read"), "{list}");
    assert!(list.stderr.contains("memory:ghost.md: no command can name this file"), "{list}");
    let show = env.run(["show", "deploy-notes"]).success();
    assert!(!show.stdout.contains("quokka"), "{show}");
    // Named by its path, it is still no memory (and not `deploy-notes`).
    let path = env.vault().join("memory:deploy-notes.md");
    let by_path = env.run(["show", path.to_str().unwrap()]);
    assert_ne!(by_path.code, 0, "{by_path}");
    assert!(by_path.stderr.contains("`:`"), "{by_path}");
    assert!(!by_path.stdout.contains("quokka") && !by_path.stdout.contains("deploy"), "{by_path}");
    let found = env.run(["search", "quokka impostor", "--json"]).success().json();
    assert_eq!(found["results"].as_array().map(Vec::len), Some(0), "{found}");
    let doctor = env.run(["doctor", "--json"]).success().json();
    let unreachable = doctor["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == "unreachable")
        .count();
    assert_eq!(unreachable, 2, "{doctor}");
}

// ----- indices that always rebuild -----

/// Every way of damaging the on-disk indices the tests apply, by name.
fn damage(env: &TestEnv, how: &str) {
    let dir = env.vault().join("indices");
    let files = |sub: &str, ext: &str| -> Vec<std::path::PathBuf> {
        std::fs::read_dir(dir.join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .collect()
    };
    match how {
        "delete a segment file" => {
            for p in files("keyword", "idx") {
                std::fs::remove_file(p).unwrap();
            }
        }
        "truncate the .term files" => {
            for p in files("keyword", "term") {
                let f = std::fs::OpenOptions::new().write(true).open(p).unwrap();
                f.set_len(10).unwrap();
            }
        }
        "garbage in meta.json" => {
            std::fs::write(dir.join("keyword/meta.json"), "{garbage").unwrap();
        }
        "corrupt the usearch file" => {
            std::fs::write(dir.join("vector/vectors.usearch"), [0xAB; 300]).unwrap();
        }
        "corrupt the manifest" => {
            std::fs::write(dir.join("manifest.bin"), "\0\0garbage\n").unwrap();
        }
        "scribble inside the segments" => {
            for ext in ["fast", "fieldnorm", "idx", "term", "store"] {
                for p in files("keyword", ext) {
                    let mut bytes = std::fs::read(&p).unwrap();
                    for b in bytes.iter_mut().skip(8).take(16) {
                        *b = b'X';
                    }
                    std::fs::write(p, bytes).unwrap();
                }
            }
        }
        "corrupt graph.json" => {
            std::fs::write(dir.join("graph/graph.json"), "{\"format\": 2, \"nodes\": [tr").unwrap();
        }
        "a graph written by an older memlane" => {
            let path = dir.join("graph/graph.json");
            std::fs::write(&path, "{\"format\":1,\"nodes\":[],\"edges\":[]}").unwrap();
            // As that version left it: its file recorded as checked.
            let meta = std::fs::metadata(&path).unwrap();
            let mtime = meta.modified().unwrap().duration_since(std::time::UNIX_EPOCH).unwrap();
            let ino = std::os::unix::fs::MetadataExt::ino(&meta);
            let verified = std::fs::read_to_string(dir.join("verified.tsv")).unwrap_or_default();
            let mut lines: Vec<String> =
                verified.lines().filter(|l| !l.starts_with("graph/")).map(str::to_owned).collect();
            lines.push(format!("graph/graph.json\t{}\t{ino}\t{}", meta.len(), mtime.as_nanos()));
            let _ = std::fs::remove_file(dir.join("graph/journal.jsonl"));
            std::fs::write(dir.join("verified.tsv"), lines.join("\n") + "\n").unwrap();
        }
        "a damaged line in the manifest's journal" => {
            let manifest = std::fs::read(dir.join("manifest.bin")).unwrap();
            let header_line = manifest.split(|b| *b == b'\n').next().unwrap();
            let header: serde_json::Value = serde_json::from_slice(header_line).unwrap();
            let base = header["base"].as_str().expect("the manifest names its base");
            std::fs::write(dir.join("manifest.journal"), format!("#{base}\n+deploy-notes\t1\n"))
                .unwrap();
        }
        "a torn line in the graph's journal" => {
            std::fs::write(dir.join("graph/journal.jsonl"), "{\"op\":\"set\",\"memory\":\"memo")
                .unwrap();
        }
        other => {
            // "scribble inside the .<ext> files": bytes overwritten in place (same size).
            let ext = other
                .strip_prefix("scribble inside the .")
                .and_then(|r| r.strip_suffix(" files"))
                .unwrap_or_else(|| panic!("unknown damage {other}"));
            let found = files("keyword", ext);
            assert!(!found.is_empty(), "no .{ext} file to damage");
            for p in found {
                let mut bytes = std::fs::read(&p).unwrap();
                for b in bytes.iter_mut().skip(8).take(16) {
                    *b = b'X';
                }
                std::fs::write(p, bytes).unwrap();
            }
        }
    }
}

#[test]
fn reading_commands_rebuild_damaged_indices_on_their_own() {
    for how in [
        "delete a segment file",
        "truncate the .term files",
        "garbage in meta.json",
        "corrupt the usearch file",
        "corrupt the manifest",
        "scribble inside the .fast files",
        "scribble inside the .fieldnorm files",
        "scribble inside the .idx files",
        "scribble inside the .term files",
        "scribble inside the .store files",
        "corrupt graph.json",
        "a torn line in the graph's journal",
        "a damaged line in the manifest's journal",
        "a graph written by an older memlane",
    ] {
        let env = TestEnv::with_vault("basic");
        env.run(["reindex"]).success();
        // A first read records which files were checked; damage after it must still be found.
        env.run(["search", "staging host deploys"]).success();
        damage(&env, how);
        let found = env.run(["search", "staging host deploys"]).success();
        assert!(found.stdout.starts_with("1. deploy-notes"), "{how}: {found}");
        if how != "garbage in meta.json" {
            assert!(found.stderr.contains("were damaged"), "{how}: a warning says so: {found}");
        }
        if how.contains("older memlane") {
            assert!(found.stderr.contains("another version of memlane"), "{how}: {found}");
        }
        if how.contains("segment") || how.contains("scribble") || how.contains(".term") {
            assert!(
                found.stderr.contains("keyword index in [ROOT]/vault/indices/keyword"),
                "{how}: the warning names the keyword index folder: {found}"
            );
        }
        // Words, not the search library's Debug output.
        for debug in ["FileDoesNotExist", "DataCorruption", "IoError", "{", "Error("] {
            assert!(!found.stderr.contains(debug), "{how}: no `{debug}` in: {found}");
        }
        let again = env.run(["search", "staging host deploys"]).success();
        assert!(!again.stderr.contains("damaged"), "{how}: rebuilt once: {again}");

        damage(&env, how);
        let doctor = env.run(["doctor"]).success();
        assert!(doctor.stdout.contains("memories  4"), "{how}: {doctor}");
        let found = env.run(["search", "staging host deploys"]).success();
        assert!(found.stdout.starts_with("1. deploy-notes"), "{how}: {found}");

        damage(&env, how);
        let mut c = Client::start(&env);
        c.initialize();
        let hits = c.ok("search_memories", json!({"query": "staging host deploys"}));
        assert_eq!(hits["results"][0]["name"], "deploy-notes", "{how}: {hits}");
        drop(c);

        damage(&env, how);
        env.run(["reindex"]).success();
        let found = env.run(["search", "staging host deploys"]).success();
        assert!(found.stdout.starts_with("1. deploy-notes"), "{how}: {found}");
    }
}

#[test]
fn reindex_rebuilds_whatever_state_the_indices_are_in() {
    let env = TestEnv::with_vault("basic");
    env.run(["reindex"]).success();
    for how in [
        "scribble inside the segments",
        "delete a segment file",
        "truncate the .term files",
        "corrupt the usearch file",
        "corrupt the manifest",
    ] {
        damage(&env, how);
        let out = env.run(["reindex"]).success();
        assert!(out.stdout.contains("indexed 4 memories"), "{how}: {out}");
        let found = env.run(["search", "staging host deploys"]).success();
        assert!(found.stdout.starts_with("1. deploy-notes"), "{how}: {found}");
    }
}

#[test]
fn a_damaged_link_graph_is_rebuilt_before_links_are_read() {
    let env = TestEnv::with_vault("basic");
    env.run(["reindex"]).success();
    let related = |env: &TestEnv| env.run(["related", "auth/session-store", "--json"]).success();
    let before = related(&env).json();
    assert_eq!(before["related"][0]["key"], "memory:auth/jwt-plan", "{before}");

    damage(&env, "corrupt graph.json");
    let after = related(&env);
    assert!(after.stderr.contains("link graph"), "a warning names the graph: {after}");
    assert_eq!(after.json()["related"], before["related"], "{after}");

    std::fs::remove_dir_all(env.vault().join("indices/graph")).unwrap();
    std::fs::write(env.vault().join("indices/graph"), "not a folder").unwrap();
    let after = related(&env);
    assert_eq!(after.json()["related"], before["related"], "{after}");
    let doctor = env.run(["doctor"]).success();
    assert!(doctor.stdout.contains("memories  4"), "{doctor}");
}

/// Overwrites bytes inside every keyword file with `ext` and puts its modification time back:
/// damage the stamp of checked files cannot see (bit rot), left to the last line of defence.
fn rot(env: &TestEnv, ext: &str) {
    let dir = env.vault().join("indices/keyword");
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_none_or(|e| e != ext) {
            continue;
        }
        let mtime = std::fs::metadata(&p).unwrap().modified().unwrap();
        let mut bytes = std::fs::read(&p).unwrap();
        for b in bytes.iter_mut().skip(8).take(16) {
            *b = b'X';
        }
        let mut f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
        std::io::Write::write_all(&mut f, &bytes).unwrap();
        f.set_modified(mtime).unwrap();
    }
}

#[test]
fn damage_past_the_checks_is_caught_and_rebuilt_instead_of_crashing() {
    for ext in ["fast", "fieldnorm", "idx", "term"] {
        let env = TestEnv::with_vault("basic");
        env.run(["reindex"]).success();
        env.run(["search", "staging host deploys"]).success();
        rot(&env, ext);
        let found = env.run(["search", "staging host deploys"]).success();
        assert!(found.stdout.starts_with("1. deploy-notes"), "{ext}: {found}");
        assert!(found.stderr.contains("were damaged"), "{ext}: {found}");
        assert!(!found.stderr.contains("panicked"), "{ext}: {found}");

        rot(&env, ext);
        let doctor = env.run(["doctor"]).success();
        assert!(doctor.stdout.contains("memories  4"), "{ext}: {doctor}");

        env.run(["search", "staging host deploys"]).success();
        rot(&env, ext);
        let mut c = Client::start(&env);
        c.initialize();
        let hits = c.ok("search_memories", json!({"query": "staging host deploys"}));
        assert_eq!(hits["results"][0]["name"], "deploy-notes", "{ext}: {hits}");
        let again = c.ok("search_memories", json!({"query": "staging host deploys"}));
        assert_eq!(again["results"][0]["name"], "deploy-notes", "{ext}: {again}");
    }
}
