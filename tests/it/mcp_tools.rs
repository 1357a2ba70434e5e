//! `memlane mcp` with every tool (`[mcp] tools = "full"`), cold notifications and the watcher,
//! all through the spawned binary speaking JSON-RPC on stdio.

use serde_json::{Value, json};

use crate::common::TestEnv;
use crate::mcp::{ALL_TOOLS, Client};

const FULL: &[(&str, &str)] = &[("MEMLANE_MCP__TOOLS", "full")];

fn full_client(env: &TestEnv) -> Client {
    let mut c = Client::start_with(env, FULL);
    c.initialize();
    c
}

fn result_names(v: &Value) -> Vec<String> {
    v["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|h| h["name"].as_str())
        .map(str::to_owned)
        .collect()
}

#[test]
fn full_tool_set_lists_every_tool_with_a_schema_and_description() {
    let env = TestEnv::with_vault("links");
    let mut c = full_client(&env);
    let list = c.request("tools/list", json!({}));
    let tools = list["tools"].as_array().unwrap();
    assert_eq!(tools.len(), ALL_TOOLS.len(), "{list}");
    for name in ALL_TOOLS {
        let t = tools
            .iter()
            .find(|t| t["name"] == *name)
            .unwrap_or_else(|| panic!("tool {name} not listed"));
        assert_eq!(t["inputSchema"]["type"], "object", "{name}: {t}");
        let description = t["description"].as_str().unwrap_or_default();
        assert!(description.len() > 30, "{name} needs a description an agent can act on: {t}");
        // Every parameter is described too, with one plain type a strict client can send
        // (never `["integer", "null"]`), and an optional number or boolean with its default.
        let required = t["inputSchema"]["required"].as_array().cloned().unwrap_or_default();
        for (param, schema) in t["inputSchema"]["properties"].as_object().into_iter().flatten() {
            assert!(
                schema.get("description").is_some(),
                "{name}.{param} has no description: {schema}"
            );
            assert!(schema["type"].is_string(), "{name}.{param} has no single type: {schema}");
            assert_ne!(schema.get("default"), Some(&Value::Null), "{name}.{param}: {schema}");
            let scalar =
                ["integer", "number", "boolean"].contains(&schema["type"].as_str().unwrap());
            let filter = ["after_timestamp", "before_timestamp", "relative_days", "version"];
            if scalar && !required.contains(&json!(param)) && !filter.contains(&param.as_str()) {
                assert!(schema.get("default").is_some(), "{name}.{param} has no default: {schema}");
            }
        }
        // What it returns and what it does to the vault.
        assert_eq!(t["outputSchema"]["type"], "object", "{name} has no outputSchema: {t}");
        let a = &t["annotations"];
        assert!(a["title"].is_string(), "{name} has no title: {t}");
        for hint in ["readOnlyHint", "destructiveHint", "idempotentHint"] {
            assert!(a[hint].is_boolean(), "{name} has no {hint}: {t}");
        }
    }
    let hint = |name: &str, h: &str| {
        tools.iter().find(|t| t["name"] == name).unwrap()["annotations"][h].as_bool()
    };
    assert_eq!(hint("search_memories", "readOnlyHint"), Some(true));
    assert_eq!(hint("delete_memory", "destructiveHint"), Some(true));
    assert_eq!(hint("create_memory", "destructiveHint"), Some(false));
}

#[test]
fn numbers_and_booleans_as_strings_and_one_tag_as_a_string_are_accepted() {
    let env = TestEnv::with_vault("links");
    let mut c = full_client(&env);
    let r = c.ok("search_memories", json!({"query": "auth sessions", "limit": "1"}));
    assert_eq!(result_names(&r).len(), 1, "{r}");
    let out = c.ok(
        "create_memory",
        json!({"name": "kites", "content": "Kites fly in wind.", "tags": "hobby", "force": "true"}),
    );
    assert_eq!(out["status"], "created", "{out}");
    assert!(env.read("kites.md").contains("tags: [hobby]"), "{}", env.read("kites.md"));
    let tree = c.ok("memory_tree", json!({"sections": "false"}));
    assert_eq!(tree["memories"][0]["sections"], json!([]), "{tree}");
    let text = c.err("search_memories", json!({"query": "auth", "limit": "many"}));
    assert!(text.contains("a string that is not a whole number of 0 or more"), "{text}");
    assert!(text.contains("send e.g. 5"), "{text}");
    assert!(!text.contains("many"), "an argument error never echoes what was sent: {text}");
}

#[test]
fn search_memories_takes_the_cli_filters() {
    let env = TestEnv::with_vault("links");
    let mut c = full_client(&env);
    let r = c.ok("search_memories", json!({"query": "auth", "types": "bug_fix"}));
    assert_eq!(result_names(&r), ["bug-login"], "{r}");
    let r = c.ok(
        "search_memories",
        json!({"query": "signing key rotation", "tags": ["security"], "limit": 10}),
    );
    assert_eq!(result_names(&r), ["key-rotation"], "{r}");
    // auth-v1 is from 2025-06-01, auth-v2 from 2025-09-01 (the clock says 2026-01-10).
    let r = c.ok(
        "search_memories",
        json!({"query": "auth", "after": "2025-05-01", "before": "2025-08-01", "limit": 10}),
    );
    assert_eq!(result_names(&r), ["auth-v1"], "{r}");
    let r = c.ok("search_memories", json!({"query": "auth", "since": "1d", "limit": 10}));
    assert_eq!(result_names(&r), Vec::<String>::new(), "{r}");
    let r = c.ok("search_memories", json!({"query": "auth", "intent": "recall", "limit": 10}));
    assert!(!result_names(&r).is_empty(), "{r}");
    assert!(
        c.err("search_memories", json!({"query": "a", "intent": "vague"}))
            .contains("use general, recall, exact or explore")
    );
    assert!(
        c.err("search_memories", json!({"query": "a", "since": "soon"})).contains("not a duration")
    );
    assert!(
        c.err("search_memories", json!({"query": "a", "after": "yesterday"}))
            .contains("not a date or time")
    );
    assert!(
        c.err("search_memories", json!({"query": "a", "types": "nonsense"})).contains("nonsense")
    );
}

#[test]
fn search_memories_finds_archived_memories_only_when_asked() {
    let env = TestEnv::with_vault("links");
    env.run(["update", "auth-v1", "--status", "archived"]).success();
    let mut c = full_client(&env);
    let q = "sessions stored in memcached";
    // The first search finds what to leave out with a pass over every memory, the later ones
    // from what the server keeps: the same.
    for _ in 0..3 {
        let r = c.ok("search_memories", json!({"query": q, "limit": 10}));
        assert!(!result_names(&r).contains(&"auth-v1".to_owned()), "{r}");
    }
    let r = c.ok("search_memories", json!({"query": q, "include_archived": "true", "limit": 10}));
    assert!(result_names(&r).contains(&"auth-v1".to_owned()), "{r}");
    let r = c.ok("search_memories", json!({"query": q, "status": "archived", "limit": 10}));
    assert_eq!(result_names(&r), ["auth-v1"], "{r}");
    assert!(
        c.err("search_memories", json!({"query": "a", "status": "gone"}))
            .contains("use active or archived")
    );
}

#[test]
fn search_filter_errors_say_what_to_send_without_echoing_it() {
    let env = TestEnv::with_vault("links");
    let mut c = full_client(&env);
    let secret = "zirconcodename";
    for (key, hint) in [
        ("intent", "use general, recall, exact or explore"),
        ("status", "use active or archived"),
        ("since", "use e.g. 30m, 12h, 7d, 2w"),
        ("after", "use e.g. 2026-01-10"),
        ("before", "use e.g. 2026-01-10"),
        ("limit", "send e.g. 5"),
        ("include_archived", "send e.g. true"),
    ] {
        let text = c.err("search_memories", json!({"query": "auth", key: secret}));
        assert!(text.contains(hint), "{key}: {text}");
        assert!(!text.contains(secret), "{key} echoes what was sent: {text}");
    }
}

#[test]
fn read_memories_reads_several_and_reports_each_missing_one() {
    let env = TestEnv::with_vault("links");
    let mut c = full_client(&env);
    let r = c.ok("read_memories", json!({"names": ["auth-v1", "nope", "auth-v3.md"]}));
    let items = r["memories"].as_array().unwrap();
    assert_eq!(items.len(), 3, "{r}");
    assert_eq!(items[0]["name"], "auth-v1");
    assert!(items[0]["content"].as_str().unwrap().contains("memcached"), "{r}");
    assert_eq!(items[1]["name"], "nope");
    assert!(items[1]["error"].as_str().unwrap().contains("no memory named `nope`"), "{r}");
    assert_eq!(items[2]["name"], "auth-v3");
    assert_eq!((r["found"].as_u64(), r["missing"].as_u64()), (Some(2), Some(1)), "{r}");
    let one = c.ok("read_memories", json!({"names": "auth-v2"}));
    assert_eq!(one["memories"][0]["name"], "auth-v2", "{one}");
}

#[test]
fn hidden_tools_stay_callable_with_the_core_list() {
    let env = TestEnv::with_vault("links");
    let mut c = Client::start(&env);
    c.initialize();
    let tree = c.ok("memory_tree", json!({}));
    assert_eq!(tree["memories"].as_array().map(Vec::len), Some(6), "{tree}");
}

/// An agent's typical script: create, search, link, pin, summarize, merge and restore.
#[test]
fn a_client_script_creates_searches_links_pins_summarizes_merges_and_restores() {
    let env = TestEnv::with_vault("links");
    let mut c = full_client(&env);

    for (name, content) in [
        (
            "cache-policy",
            "The API cache keeps entries for ten minutes; invalidation happens on every deploy.",
        ),
        ("cache-ttl", "API cache entries live ten minutes and are invalidated by each deploy."),
        (
            "release-train",
            "## Cadence\n\nWe release every second Tuesday.\n\n## Freeze\n\nNo merges to main on release day after noon.",
        ),
    ] {
        let out = c.ok("create_memory", json!({"name": name, "content": content, "tags": ["ops"]}));
        assert_eq!(out["status"], "created", "{out}");
    }
    let updated = c.ok("update_memory", json!({"name": "cache-ttl", "content": "API cache entries live ten minutes and are invalidated by each deploy of the API."}));
    assert_eq!(updated["history_version"], 1, "{updated}");
    c.ok(
        "append_memory",
        json!({"name": "release-train.md", "content": "Hotfixes skip the train."}),
    );
    assert!(env.read("release-train.md").trim_end().ends_with("Hotfixes skip the train."));
    let found = c.ok("search_memories", json!({"query": "release every second Tuesday"}));
    assert_eq!(result_names(&found).first().map(String::as_str), Some("release-train"), "{found}");

    c.ok(
        "link_memories",
        json!({"from": "cache-policy", "to": "release-train", "type": "depends_on"}),
    );
    let related = c.ok("get_related_memories", json!({"name": "release-train"}));
    assert!(
        related["related"].as_array().unwrap().iter().any(|r| r["key"] == "memory:cache-policy"),
        "{related}"
    );

    let pinned = c.ok("pin_memory", json!({"name": "release-train"}));
    assert_eq!(pinned["status"], "updated", "{pinned}");
    assert!(env.read("release-train.md").contains("pinned: true"));

    // Summarize keeps name and id, puts the old text in history, and restore brings it back.
    let before = env.read("cache-policy.md");
    let summary = c.ok(
        "summarize_memory",
        json!({"name": "cache-policy", "content": "API cache: 10 min TTL, flushed on deploy."}),
    );
    assert_eq!(summary["status"], "updated", "{summary}");
    assert!(env.read("cache-policy.md").contains("10 min TTL"));
    let history = c.ok("memory_history", json!({"name": "cache-policy"}));
    let versions = history["versions"].as_array().unwrap();
    assert_eq!(versions.last().unwrap()["action"], "summarize", "{history}");
    let n = versions.len();
    c.ok("restore_memory", json!({"name": "cache-policy", "version": n}));
    let restored = env.read("cache-policy.md");
    assert!(restored.contains("keeps entries for ten minutes"), "{restored}");
    assert_eq!(
        restored.lines().filter(|l| l.starts_with("id:")).collect::<Vec<_>>(),
        before.lines().filter(|l| l.starts_with("id:")).collect::<Vec<_>>()
    );

    // The two cache notes are near-duplicates: suggested, then merged.
    let suggestions = c.ok("suggest_memory_merges", json!({"threshold": 0.5}));
    let clusters = suggestions["clusters"].as_array().unwrap();
    assert!(
        clusters.iter().any(|cl| {
            let names: Vec<&str> = cl["memories"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["name"].as_str().unwrap())
                .collect();
            names.contains(&"cache-policy") && names.contains(&"cache-ttl")
        }),
        "{suggestions}"
    );
    let merged = c.ok(
        "merge_memories",
        json!({
            "source_files": ["cache-policy.md", "cache-ttl.md"],
            "target_file": "api-cache.md",
            "summary_content": "---\ntype: fact\n---\n\nThe API cache keeps entries ten minutes and is flushed on every deploy."
        }),
    );
    assert_eq!(merged["target"]["status"], "created", "{merged}");
    let target = env.read("api-cache.md");
    assert!(target.contains("consolidated_from"), "{target}");
    assert_eq!(target.matches("---").count(), 2, "one frontmatter block only: {target}");
    assert!(!env.exists("cache-policy.md") && !env.exists("cache-ttl.md"));
    // The link from cache-policy is now the merged memory's.
    let rel = c.ok("get_memory_relationships", json!({"name": "api-cache"}));
    assert!(
        rel["outgoing"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["memory_id"] == "memory:release-train"),
        "{rel}"
    );
    let found = c.ok("search_memories", json!({"query": "API cache ten minutes deploy"}));
    assert_eq!(result_names(&found).first().map(String::as_str), Some("api-cache"), "{found}");

    // A merged source comes back from the trash.
    let trash = c.ok("list_trash", json!({}));
    assert!(
        trash["entries"].as_array().unwrap().iter().any(|e| e["name"] == "cache-ttl"),
        "{trash}"
    );
    let back = c.ok("restore_memory", json!({"name": "cache-ttl"}));
    assert_eq!(back["name"], "cache-ttl", "{back}");
    assert!(env.read("cache-ttl.md").contains("invalidated by each deploy"));
    let found = c.ok("search_memories", json!({"query": "invalidated by each deploy"}));
    assert!(result_names(&found).contains(&"cache-ttl".to_owned()), "{found}");

    // Split by the agent's pieces keeps the original and links each piece to it.
    let split = c.ok(
        "split_memory",
        json!({"name": "release-train", "pieces": [
            {"name": "release-cadence", "content": "We release every second Tuesday."},
            {"content": "No merges to main on release day after noon."}
        ]}),
    );
    assert_eq!(split["outcomes"].as_array().unwrap().len(), 2, "{split}");
    assert!(env.exists("release-train.md") && env.exists("release-cadence.md"));
    assert!(env.read("release-train-2.md").contains("No merges to main"));

    let tree = c.ok("memory_tree", json!({"sections": false}));
    let rows = tree["memories"].as_array().unwrap();
    let row = rows.iter().find(|r| r["name"] == "release-train").unwrap();
    assert_eq!(row["pinned"], true, "{row}");
    assert!(row["tokens"].as_u64().unwrap() > 0 && row["temperature"].is_number(), "{row}");
}

#[test]
fn tool_errors_are_readable_and_change_nothing() {
    let env = TestEnv::with_vault("links");
    let mut c = full_client(&env);
    // Memories, history and trash; not the derived indices or the usage state.
    let memories = || -> Vec<(String, Vec<u8>)> {
        env.contents()
            .into_iter()
            .filter(|(f, _)| !f.starts_with("indices/") && !f.starts_with("state/"))
            .collect()
    };
    let before = memories();
    let text = c.err(
        "merge_memories",
        json!({"source_files": ["auth-v1", "auth-v2"], "target_file": "bug-login"}),
    );
    assert!(text.contains("bug-login"), "{text}");
    let text =
        c.err("merge_memories", json!({"source_files": ["auth-v1", "nope"], "target_file": "x"}));
    assert!(text.contains("nope"), "{text}");
    let text =
        c.err("split_memory", json!({"name": "bug-login", "pieces": [{"content": "only one"}]}));
    assert!(text.contains("at least two"), "{text}");
    let text = c.err("split_memory", json!({"name": "bug-login", "pieces": [{"name": "auth-v1", "content": "a"}, {"content": "b"}]}));
    assert!(text.contains("auth-v1"), "{text}");
    let text = c.err("restore_memory", json!({"name": "never-deleted"}));
    assert!(text.contains("never-deleted"), "{text}");
    let text = c.err("suggest_memory_merges", json!({"threshold": 1.5}));
    assert!(text.contains("1.5"), "{text}");
    let text = c.err("get_related_memories", json!({"name": "auth-v1", "depth": 0}));
    assert!(text.contains("depth"), "{text}");
    let text = c.err("summarize_memory", json!({"name": "auth-v1", "content": "  "}));
    assert!(text.contains("no content to summarize"), "{text}");
    // Dedup on write: a near-copy is refused with the existing memory's name.
    let original = env.read("bug-login.md");
    let body = original.rsplit("---").next().unwrap().trim().to_owned();
    let text = c.err("create_memory", json!({"name": "bug-login-copy", "content": body}));
    assert!(text.contains("bug-login"), "{text}");
    assert_eq!(memories(), before, "a refused call changed the vault");
}

fn set_level(c: &mut Client, level: &str) -> Vec<Value> {
    let (_, notes) = c.request_seeing("logging/setLevel", json!({"level": level}));
    notes
}

fn cold_notices(notes: &[Value]) -> Vec<&Value> {
    notes
        .iter()
        .filter(|n| {
            n["method"] == "notifications/message" && n["params"]["logger"] == "memlane.temperature"
        })
        .collect()
}

/// Cold notifications (docs/agents/README.md) through the real protocol, with the clock pinned
/// a week later on each restart.
#[test]
fn cold_notifications_are_sent_once_per_crossing_to_clients_that_asked() {
    let mut env = TestEnv::with_vault("links");
    {
        let mut c = full_client(&env);
        c.ok("pin_memory", json!({"name": "onboarding"}));
        // The server observes every memory: they start cooling now.
        c.ok("get_cold_memories", json!({}));
    }

    // A week later: a client that never set a log level hears nothing, and nothing is used up.
    env.set_now("2026-01-17T10:00:00Z");
    {
        let mut c = full_client(&env);
        let (_, notes) =
            c.request_seeing("tools/call", json!({"name": "get_memory_stats", "arguments": {}}));
        assert!(cold_notices(&notes).is_empty(), "{notes:?}");
        let cold = c.ok("get_cold_memories", json!({}));
        assert_eq!(
            cold["memories"].as_array().unwrap().len(),
            5,
            "everything but the pinned memory: {cold}"
        );
    }
    // A client asking only for errors hears nothing either.
    {
        let mut c = full_client(&env);
        assert!(cold_notices(&set_level(&mut c, "error")).is_empty());
    }
    // A client asking for warnings gets one notification naming every cold memory.
    {
        let mut c = full_client(&env);
        let notes = set_level(&mut c, "warning");
        let cold = cold_notices(&notes);
        assert_eq!(cold.len(), 1, "{notes:?}");
        let p = &cold[0]["params"];
        assert_eq!(p["level"], "warning");
        assert_eq!(p["data"]["suggested_action"], "summarize_memory");
        assert!(p["data"]["message"].as_str().unwrap().contains("summarize_memory"));
        let names: Vec<&str> = p["data"]["memories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap())
            .collect();
        assert_eq!(names.len(), 5, "{p}");
        assert!(!names.contains(&"onboarding"), "pinned memories are never announced: {p}");
        for m in p["data"]["memories"].as_array().unwrap() {
            for key in ["memory_id", "id", "name", "file_path", "temperature"] {
                assert!(m.get(key).is_some(), "{key} missing: {m}");
            }
            assert!(m["temperature"].as_f64().unwrap() < 0.1, "{m}");
        }
        // Warm one of them above the line.
        c.ok("read_memory", json!({"name": "auth-v1"}));
    }
    // Announced memories are not announced again; the warmed one is re-armed and, once it has
    // cooled again, announced alone.
    env.set_now("2026-01-24T10:00:00Z");
    {
        let mut c = full_client(&env);
        let notes = set_level(&mut c, "info");
        let cold = cold_notices(&notes);
        assert_eq!(cold.len(), 1, "{notes:?}");
        let names: Vec<&str> = cold[0]["params"]["data"]["memories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["auth-v1"]);
    }
    {
        let mut c = full_client(&env);
        assert!(cold_notices(&set_level(&mut c, "warning")).is_empty());
    }
}

/// An edit saved in an editor (write a temp file, rename it over) while the server runs is
/// found by the next search, and so is a plain in-place write and a new file.
#[test]
fn edits_made_outside_the_server_are_found_by_the_next_search() {
    let env = TestEnv::with_vault("links");
    let mut c = full_client(&env);
    let found = c.ok("search_memories", json!({"query": "zeppelin hangar"}));
    assert!(result_names(&found).is_empty(), "{found}");

    let path = env.vault().join("onboarding.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let tmp = env.vault().join(".onboarding.md.swp");
    std::fs::write(&tmp, format!("{text}\nNew hires tour the zeppelin hangar on day one.\n"))
        .unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    let found = c.ok("search_memories", json!({"query": "zeppelin hangar"}));
    assert_eq!(result_names(&found), ["onboarding"], "{found}");

    std::fs::write(
        env.vault().join("bug-login.md"),
        "---\ntype: fact\n---\n\nThe login bug came from the walrus cache.\n",
    )
    .unwrap();
    let found = c.ok("search_memories", json!({"query": "walrus cache"}));
    assert_eq!(result_names(&found), ["bug-login"], "{found}");

    std::fs::create_dir_all(env.vault().join("fresh")).unwrap();
    std::fs::write(env.vault().join("fresh/idea.md"), "Try a narwhal queue for the importer.\n")
        .unwrap();
    let found = c.ok("search_memories", json!({"query": "narwhal queue"}));
    assert_eq!(result_names(&found), ["fresh/idea"], "{found}");

    // A folder renamed with a memory in it: the folder's event alone says nothing of its files.
    std::fs::write(env.vault().join("fresh/plan.md"), "Move the okapi jobs to the new queue.\n")
        .unwrap();
    let found = c.ok("search_memories", json!({"query": "okapi"}));
    assert_eq!(result_names(&found), ["fresh/plan"], "{found}");
    std::fs::rename(env.vault().join("fresh"), env.vault().join("later")).unwrap();
    let found = c.ok("search_memories", json!({"query": "okapi"}));
    assert_eq!(result_names(&found), ["later/plan"], "{found}");

    // The server's own write, then an outside edit of it, are both found.
    c.ok("create_memory", json!({"name": "ideas/tapir", "content": "Tapir builds run nightly.\n"}));
    let found = c.ok("search_memories", json!({"query": "tapir"}));
    assert_eq!(result_names(&found), ["ideas/tapir"], "{found}");
    let path = env.vault().join("ideas/tapir.md");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("Tapir builds run nightly.", "Quokka builds run hourly."))
        .unwrap();
    let found = c.ok("search_memories", json!({"query": "quokka"}));
    assert_eq!(result_names(&found), ["ideas/tapir"], "{found}");

    std::fs::remove_file(env.vault().join("later/plan.md")).unwrap();
    let found = c.ok("search_memories", json!({"query": "okapi"}));
    assert!(result_names(&found).is_empty(), "{found}");
}
