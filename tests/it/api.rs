//! The JSON API, pinned: every command's `--json` output and every MCP tool's structured
//! result is a snapshot (ids, paths and history times filtered), so a shape change is a
//! reviewed diff. And the CLI and the MCP server, doing the same thing, write the same files.

use serde_json::{Value, json};

use crate::common::{TestEnv, redact_ids};
use crate::mcp::Client;

/// The ids memlane generated in `env`'s vault (in memory files, the trash and history), which
/// differ from run to run; the fixtures' own ids are known and kept.
fn generated_ids(env: &TestEnv) -> Vec<String> {
    let fixture: Vec<String> =
        std::fs::read_dir(env!("CARGO_MANIFEST_DIR").to_owned() + "/fixtures/vaults")
            .unwrap()
            .flat_map(|d| walk(&d.unwrap().path()))
            .flat_map(|text| ids_in(&text))
            .collect();
    let mut ids: Vec<String> = walk(&env.vault())
        .iter()
        .flat_map(|text| ids_in(text))
        .filter(|id| !fixture.contains(id))
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|x| x == "md") {
            out.push(std::fs::read_to_string(&p).unwrap_or_default());
        }
    }
    out
}

fn ids_in(text: &str) -> Vec<String> {
    text.lines().filter_map(|l| l.strip_prefix("id: ")).map(|s| s.trim().to_owned()).collect()
}

/// A JSON value as a stable, reviewable text: pretty, with generated ids filtered.
fn shape(v: &Value, ids: &[String]) -> String {
    let mut text = redact_ids(&serde_json::to_string_pretty(v).unwrap());
    for id in ids {
        text = text.replace(id.as_str(), "[ID]");
    }
    text
}

/// Runs `memlane --json ARGS…` and returns the JSON it printed (success or failure).
fn json_of(env: &TestEnv, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = env.run(&all);
    serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("`memlane {}` printed no JSON ({e}):\n{out}", args.join(" ")))
}

#[test]
fn every_command_prints_json_of_a_pinned_shape() {
    let env = TestEnv::with_vault("links");
    let mut shapes: Vec<(&str, Value)> = Vec::new();
    let mut step = |label: &'static str, args: &[&str]| {
        shapes.push((label, json_of(&env, args)));
    };
    step(
        "add",
        &["add", "notes/cache", "The cache keeps rendered pages for an hour.", "--tag", "perf"],
    );
    step("show", &["show", "notes/cache", "--no-touch"]);
    step("update", &["update", "notes/cache", "The cache keeps rendered pages for ten minutes."]);
    step("append", &["append", "notes/cache", "Invalidate it on deploy."]);
    step("list", &["list", "--tag", "perf"]);
    step("search", &["search", "how long are rendered pages cached", "-n", "2", "--no-touch"]);
    step(
        "search_explain",
        &["search", "rendered pages cache", "-n", "1", "--explain", "--no-touch"],
    );
    step("link", &["link", "notes/cache", "auth-v3"]);
    step("relationships", &["relationships", "notes/cache"]);
    step("related", &["related", "auth-v3"]);
    step("linked", &["linked", "src/auth.py", "token"]);
    step("unlink", &["unlink", "notes/cache", "auth-v3"]);
    step("pin", &["pin", "notes/cache"]);
    step("unpin", &["unpin", "notes/cache"]);
    step("cold", &["cold"]);
    step("tree", &["tree", "--no-sections"]);
    step("summarize", &["summarize", "notes/cache", "--content", "Pages cached 10 min."]);
    step("history", &["history", "notes/cache"]);
    step("restore", &["restore", "notes/cache", "--version", "1"]);
    step("mv", &["mv", "notes/cache", "notes/page-cache"]);
    step("suggest_merges", &["suggest-merges", "--threshold", "0.5"]);
    step("merge", &["merge", "auth-v1", "auth-v2", "--into", "auth-history", "--archive"]);
    step(
        "add_sections",
        &["add", "guide", "# Guide\n\n## Setup\n\nRun make.\n\n## Deploy\n\nRun make deploy.\n"],
    );
    step("split", &["split", "guide"]);
    step("rm", &["rm", "notes/page-cache"]);
    step("trash_list", &["trash", "list"]);
    step("trash_restore", &["trash", "restore", "notes/page-cache"]);
    step("doctor", &["doctor"]);
    step("maintain", &["maintain"]);
    step("reindex", &["reindex"]);
    step("config", &["config"]);
    step("context", &["context", "--budget", "150", "--for", "login session bug"]);
    step("error_not_found", &["show", "nope"]);
    step("error_invalid", &["list", "--since", "soon"]);
    step("error_duplicate", &["add", "notes/again", "The cache keeps rendered pages for an hour."]);
    let ids = generated_ids(&env);
    for (label, v) in &mut shapes {
        // How long a reindex took is the machine's, not the shape's.
        if let Some(ms) = v.get_mut("elapsed_ms") {
            *ms = json!("[MS]");
        }
        insta::assert_snapshot!(format!("json_{label}"), shape(v, &ids));
    }
}

#[test]
fn a_failure_with_json_prints_one_error_object_and_keeps_its_exit_code() {
    let env = TestEnv::with_vault("basic");
    let cases: [(&[&str], &str, i32); 5] = [
        (&["show"], "usage", 2),
        (&["show", "nope"], "not_found", 2),
        (&["add", "auth/jwt-plan", "again"], "exists", 2),
        (&["list", "--after", "2026-02-01", "--before", "2026-01-01"], "invalid", 2),
        (&["update", "auth/jwt-plan", "--raw"], "invalid", 2),
    ];
    for (args, kind, code) in cases {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let out = env.run(&all).code(code);
        let v: Value = serde_json::from_str(out.stdout.trim())
            .unwrap_or_else(|e| panic!("{args:?}: stdout is not one JSON object ({e}):\n{out}"));
        assert_eq!(v["error"]["kind"], json!(kind), "{args:?}: {v}");
        assert!(v["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");
        // The person at a terminal still reads the error on stderr.
        assert!(out.stderr.contains("error:"), "{out}");
    }
    // Without --json, stdout stays empty on failure.
    assert_eq!(env.run(["show", "nope"]).code(2).stdout, "");
    // A hint is there where the front end knows one.
    let v = json_of(&env, &["show", "auth/jwt-plna"]);
    assert!(v["error"]["hint"].as_str().unwrap().contains("auth/jwt-plan"), "{v}");
}

#[test]
fn every_mcp_tool_returns_a_pinned_shape() {
    let env = TestEnv::with_vault("links");
    let mut c = Client::start(&env);
    c.initialize();
    let mut shapes: Vec<(&str, Value)> = Vec::new();
    let mut call = |label: &'static str, tool: &str, args: Value| {
        let r = c.call(tool, args);
        shapes.push((label, r["structuredContent"].clone()));
    };
    call(
        "create_memory",
        "create_memory",
        json!({"name": "notes/cache", "content": "The cache keeps rendered pages for an hour.", "tags": ["perf"]}),
    );
    call("read_memory", "read_memory", json!({"name": "notes/cache"}));
    call(
        "update_memory",
        "update_memory",
        json!({"name": "notes/cache", "content": "The cache keeps rendered pages for ten minutes."}),
    );
    call(
        "append_memory",
        "append_memory",
        json!({"name": "notes/cache", "content": "Invalidate it on deploy."}),
    );
    call(
        "search_memories",
        "search_memories",
        json!({"query": "how long are rendered pages cached", "limit": 2}),
    );
    call("link_memories", "link_memories", json!({"from": "notes/cache", "to": "auth-v3"}));
    call("get_memory_relationships", "get_memory_relationships", json!({"name": "notes/cache"}));
    call("get_related_memories", "get_related_memories", json!({"name": "auth-v3"}));
    call(
        "search_linked_memories",
        "search_linked_memories",
        json!({"target_document": "src/auth.py", "query": "token"}),
    );
    call("pin_memory", "pin_memory", json!({"name": "notes/cache"}));
    call("unpin_memory", "unpin_memory", json!({"name": "notes/cache"}));
    call("get_cold_memories", "get_cold_memories", json!({}));
    call("memory_tree", "memory_tree", json!({}));
    call(
        "summarize_memory",
        "summarize_memory",
        json!({"name": "notes/cache", "content": "Pages cached 10 min."}),
    );
    call("memory_history", "memory_history", json!({"name": "notes/cache"}));
    call("remember", "remember", json!({"content": "Deploys run on Fridays only."}));
    call(
        "mark_used",
        "mark_used",
        json!({"names": ["auth-v3", "key-rotation"], "context_for": "notes/cache"}),
    );
    call("suggest_memory_merges", "suggest_memory_merges", json!({"threshold": 0.5}));
    call(
        "merge_memories",
        "merge_memories",
        json!({"source_files": ["auth-v1", "auth-v2"], "target_file": "auth-history", "archive": true}),
    );
    call(
        "split_memory",
        "split_memory",
        json!({"name": "auth-history", "pieces": [{"name": "auth-history-a", "content": "First."}, {"name": "auth-history-b", "content": "Second."}]}),
    );
    call("delete_memory", "delete_memory", json!({"name": "notes/cache"}));
    call("list_trash", "list_trash", json!({}));
    call("restore_memory", "restore_memory", json!({"name": "notes/cache"}));
    call("get_memory_stats", "get_memory_stats", json!({}));
    call("error_not_found", "read_memory", json!({"name": "nope"}));
    call(
        "error_duplicate",
        "create_memory",
        json!({"name": "notes/again", "content": "Pages cached 10 min."}),
    );
    drop(c);
    let ids = generated_ids(&env);
    for (label, v) in &shapes {
        let text = shape(v, &ids).replace(&env.root.display().to_string(), "[ROOT]");
        insta::assert_snapshot!(format!("mcp_{label}"), text);
    }
}

/// Every file in the vault that is a memory or its history, with the one random id (that of
/// the memory the test created) filtered.
fn memory_files(env: &TestEnv) -> Vec<(String, String)> {
    let created = env.read("notes/cache.md");
    let id = created.lines().find_map(|l| l.strip_prefix("id: ")).expect("an id").to_owned();
    let mut files: Vec<(String, String)> = env
        .contents()
        .into_iter()
        .filter(|(p, _)| !p.starts_with("indices/") && !p.starts_with("state/"))
        .map(|(p, bytes)| {
            (p.replace(&id, "[ID]"), String::from_utf8_lossy(&bytes).replace(&id, "[ID]"))
        })
        .collect();
    files.sort();
    files
}

#[test]
fn the_cli_and_the_mcp_server_write_the_same_files() {
    let cli = TestEnv::with_vault("basic");
    let mcp = TestEnv::with_vault("basic");
    let run = |args: &[&str]| {
        cli.run(args).success();
    };
    run(&[
        "add",
        "notes/cache",
        "The cache keeps pages. <private>key is hunter2</private>",
        "--tag",
        "perf",
    ]);
    run(&["update", "notes/cache", "The cache keeps rendered pages for ten minutes."]);
    run(&["append", "notes/cache", "Invalidate it on deploy."]);
    run(&["link", "notes/cache", "auth/jwt-plan"]);
    run(&["pin", "notes/cache"]);
    run(&["summarize", "deploy-notes", "--content", "Deploys: npm ci, make release."]);
    run(&["rm", "standup"]);

    let mut c = Client::start(&mcp);
    c.initialize();
    c.ok("create_memory", json!({"name": "notes/cache", "content": "The cache keeps pages. <private>key is hunter2</private>", "tags": ["perf"]}));
    c.ok("update_memory", json!({"name": "notes/cache", "content": "The cache keeps rendered pages for ten minutes."}));
    c.ok("append_memory", json!({"name": "notes/cache", "content": "Invalidate it on deploy."}));
    c.ok("link_memories", json!({"from": "notes/cache", "to": "auth/jwt-plan"}));
    c.ok("pin_memory", json!({"name": "notes/cache"}));
    c.ok(
        "summarize_memory",
        json!({"name": "deploy-notes", "content": "Deploys: npm ci, make release."}),
    );
    c.ok("delete_memory", json!({"name": "standup"}));
    drop(c);

    let (a, b) = (memory_files(&cli), memory_files(&mcp));
    let names = |v: &[(String, String)]| v.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b), "the same files exist");
    for ((path, x), (_, y)) in a.iter().zip(&b) {
        assert_eq!(x, y, "{path} differs between the CLI and the MCP server");
    }
    assert!(a.iter().any(|(p, t)| p == "notes/cache.md" && t.contains("pinned: true")));
    assert!(!a.iter().any(|(_, t)| t.contains("hunter2")), "redacted on both paths");
}

#[test]
fn commands_that_print_scripts_or_streams_still_give_json() {
    let env = TestEnv::with_vault("basic");
    let v = json_of(&env, &["completions", "fish"]);
    assert_eq!(v["shell"], "fish", "{v}");
    assert!(v["script"].as_str().unwrap().contains("complete -c memlane"), "{v}");
    let v = json_of(&env, &["model", "list"]);
    assert!(v["models"].is_array(), "{v}");
    let out_dir = env.root.join("generated");
    let v = json_of(&env, &["generate", "--out-dir", out_dir.to_str().unwrap()]);
    assert!(v.as_array().is_some_and(|a| !a.is_empty()), "{v}");
    let fresh = TestEnv::empty();
    let v = json_of(&fresh, &["init"]);
    assert!(v["created"].is_array(), "{v}");
    // `watch --json` prints one object per line (a stream jq reads): checked in tests/it/watch.rs.
}

/// Every key path of a JSON value (`results[].memory_id`): an object's keys, and the union of
/// every array item's.
fn key_paths(v: &Value, prefix: &str, out: &mut std::collections::BTreeSet<String>) {
    match v {
        Value::Object(map) => {
            for (k, x) in map {
                let path = format!("{prefix}.{k}");
                out.insert(path.clone());
                key_paths(x, &path, out);
            }
        }
        Value::Array(items) => {
            for x in items {
                key_paths(x, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

fn keys(v: &Value) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    key_paths(v, "", &mut out);
    out
}

#[test]
fn the_cli_and_the_mcp_server_print_the_same_shape_for_every_shared_operation() {
    let cli = TestEnv::with_vault("links");
    let mcp = TestEnv::with_vault("links");
    let mut c = Client::start(&mcp);
    c.initialize();
    // (label, CLI arguments, MCP tool and arguments): the same operation on the same vault.
    let cases: Vec<(&str, Vec<&str>, &str, Value)> = vec![
        (
            "create",
            vec![
                "add",
                "notes/cache",
                "The cache keeps rendered pages for an hour.",
                "--tag",
                "perf",
            ],
            "create_memory",
            json!({"name": "notes/cache", "content": "The cache keeps rendered pages for an hour.", "tags": ["perf"]}),
        ),
        ("read", vec!["show", "notes/cache"], "read_memory", json!({"name": "notes/cache"})),
        (
            "update",
            vec!["update", "notes/cache", "The cache keeps rendered pages for ten minutes."],
            "update_memory",
            json!({"name": "notes/cache", "content": "The cache keeps rendered pages for ten minutes."}),
        ),
        (
            "append",
            vec!["append", "notes/cache", "Invalidate it on deploy."],
            "append_memory",
            json!({"name": "notes/cache", "content": "Invalidate it on deploy."}),
        ),
        (
            "search",
            vec!["search", "how long are rendered pages cached", "-n", "2"],
            "search_memories",
            json!({"query": "how long are rendered pages cached", "limit": 2}),
        ),
        (
            "link",
            vec!["link", "notes/cache", "auth-v3"],
            "link_memories",
            json!({"from": "notes/cache", "to": "auth-v3"}),
        ),
        (
            "relationships",
            vec!["relationships", "notes/cache"],
            "get_memory_relationships",
            json!({"name": "notes/cache"}),
        ),
        ("related", vec!["related", "auth-v3"], "get_related_memories", json!({"name": "auth-v3"})),
        (
            "linked",
            vec!["linked", "src/auth.py", "token", "-n", "5"],
            "search_linked_memories",
            json!({"target_document": "src/auth.py", "query": "token", "limit": 5}),
        ),
        ("pin", vec!["pin", "notes/cache"], "pin_memory", json!({"name": "notes/cache"})),
        ("unpin", vec!["unpin", "notes/cache"], "unpin_memory", json!({"name": "notes/cache"})),
        ("cold", vec!["cold"], "get_cold_memories", json!({})),
        ("tree", vec!["tree"], "memory_tree", json!({})),
        (
            "summarize",
            vec!["summarize", "notes/cache", "--content", "Pages cached 10 min."],
            "summarize_memory",
            json!({"name": "notes/cache", "content": "Pages cached 10 min."}),
        ),
        (
            "history",
            vec!["history", "notes/cache"],
            "memory_history",
            json!({"name": "notes/cache"}),
        ),
        (
            "restore_version",
            vec!["restore", "notes/cache", "--version", "1"],
            "restore_memory",
            json!({"name": "notes/cache", "version": 1}),
        ),
        (
            "suggest_merges",
            vec!["suggest-merges", "--threshold", "0.5"],
            "suggest_memory_merges",
            json!({"threshold": 0.5}),
        ),
        (
            "merge",
            vec!["merge", "auth-v1", "auth-v2", "--into", "auth-history", "--archive"],
            "merge_memories",
            json!({"source_files": ["auth-v1", "auth-v2"], "target_file": "auth-history", "archive": true}),
        ),
        (
            "create_sections",
            vec![
                "add",
                "guide",
                "# Guide\n\n## Setup\n\nRun make.\n\n## Deploy\n\nRun make deploy.\n",
            ],
            "create_memory",
            json!({"name": "guide", "content": "# Guide\n\n## Setup\n\nRun make.\n\n## Deploy\n\nRun make deploy.\n"}),
        ),
        ("split", vec!["split", "guide"], "split_memory", json!({"name": "guide"})),
        ("trash_list", vec!["trash", "list"], "list_trash", json!({})),
    ];
    let mut compared = 0;
    for (label, args, tool, params) in cases {
        let from_cli = json_of(&cli, &args);
        let from_mcp = c.call(tool, params)["structuredContent"].clone();
        assert!(from_cli.get("error").is_none(), "{label}: the CLI failed: {from_cli:#}");
        assert!(from_mcp.is_object(), "{label}: the MCP call failed: {from_mcp:#}");
        assert_eq!(
            keys(&from_cli),
            keys(&from_mcp),
            "{label}: `memlane {}` and `{tool}` differ:\nCLI {from_cli:#}\nMCP {from_mcp:#}",
            args.join(" ")
        );
        compared += 1;
    }
    // `rm` takes several names and prints one outcome each; `delete_memory` deletes one.
    let rm = json_of(&cli, &["rm", "notes/cache"]);
    let deleted =
        c.call("delete_memory", json!({"name": "notes/cache"}))["structuredContent"].clone();
    assert_eq!(keys(&rm[0]), keys(&deleted), "rm: {rm:#}\ndelete_memory: {deleted:#}");
    drop(c);
    assert_eq!(compared, 21);
}
