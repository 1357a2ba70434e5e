//! `memlane mcp` resources, prompts and `mark_used` over raw JSON-RPC: every memory a
//! `memory://` resource listed a page at a time, read redacted, `list_changed` when memories come
//! and go; prompts for the common moves; the `was_context_for` link of a reported use.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::TestEnv;
use crate::mcp::Client;

/// Sends a request and returns the whole response (`result` or `error`), skipping
/// notifications.
fn respond(c: &mut Client, id: u64, method: &str, params: Value) -> Value {
    c.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
    loop {
        let v = c.next_message();
        if v["id"] == json!(id) {
            return v;
        }
    }
}

fn started(env: &TestEnv, vars: &[(&str, &str)]) -> Client {
    let mut c = Client::start_with(env, vars);
    let init = c.initialize();
    let caps = &init["capabilities"];
    assert_eq!(caps["resources"]["listChanged"], json!(true), "{init}");
    assert!(caps["prompts"].is_object(), "{init}");
    assert!(caps["tools"].is_object(), "{init}");
    c
}

#[test]
fn memories_are_resources_listed_a_page_at_a_time() {
    let env = TestEnv::with_vault("links");
    for i in 0..60 {
        env.write(&format!("notes/note-{i:02}.md"), &format!("# Note {i}\n\nNote number {i}.\n"));
    }
    let mut c = started(&env, &[]);
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(cur) => json!({"cursor": cur}),
            None => json!({}),
        };
        let page = c.request("resources/list", params);
        pages += 1;
        let items = page["resources"].as_array().unwrap();
        assert!(items.len() <= 50, "{} on one page", items.len());
        for r in items {
            let name = r["name"].as_str().unwrap().to_owned();
            let encoded = name.replace(' ', "%20");
            assert_eq!(r["uri"], format!("memory://{encoded}"), "{r}");
            assert_eq!(r["mimeType"], "text/markdown", "{r}");
            assert!(r["description"].as_str().unwrap().contains("memory"), "{r}");
            names.push(name);
        }
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(pages, 2, "66 memories on pages of 50");
    let unique: BTreeSet<&String> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "no memory on two pages: {names:?}");
    assert_eq!(names.len(), 66);
    assert!(unique.contains(&"auth-v2".to_owned()) && unique.contains(&"notes/note-59".to_owned()));
    // The first heading is the title.
    let page = c.request("resources/list", json!({}));
    let auth = page["resources"].as_array().unwrap().iter().find(|r| r["name"] == "auth-v2");
    assert_eq!(auth.unwrap()["title"], "Auth v2");

    let templates = c.request("resources/templates/list", json!({}));
    assert_eq!(templates["resourceTemplates"][0]["uriTemplate"], "memory://{name}", "{templates}");
}

#[test]
fn a_resource_reads_redacted_as_read_memory_does() {
    let env = TestEnv::with_vault("links");
    env.write(
        "ops/deploy creds.md",
        "---\ntype: fact\nnote: <private>hunter2</private>\n---\n\nDeploy key AKIAIOSFODNN7EXAMPLE, password <private>p4ssw0rd</private>.\n",
    );
    let mut c = started(&env, &[]);
    let read = c.request("resources/read", json!({"uri": "memory://ops/deploy%20creds"}));
    let contents = &read["contents"][0];
    assert_eq!(contents["uri"], "memory://ops/deploy%20creds", "{read}");
    assert_eq!(contents["mimeType"], "text/markdown", "{read}");
    let text = contents["text"].as_str().unwrap();
    for secret in ["AKIAIOSFODNN7EXAMPLE", "p4ssw0rd", "hunter2"] {
        assert!(!read.to_string().contains(secret), "{secret} leaked: {read}");
    }
    let tool = c.ok("read_memory", json!({"name": "ops/deploy creds"}));
    assert_eq!(text, tool["content"].as_str().unwrap(), "the same redacted content");

    let missing = respond(&mut c, 900, "resources/read", json!({"uri": "memory://no-such-memory"}));
    assert_eq!(missing["error"]["code"], -32002, "resource not found: {missing}");
    assert!(missing["error"]["message"].as_str().unwrap().contains("no-such-memory"), "{missing}");
    let other = respond(&mut c, 901, "resources/read", json!({"uri": "file:///etc/passwd"}));
    assert_eq!(other["error"]["code"], -32602, "{other}");
    let escape = respond(&mut c, 902, "resources/read", json!({"uri": "memory://../config"}));
    assert!(escape.get("error").is_some(), "{escape}");
}

/// Waits up to 30 s for a `notifications/resources/list_changed`.
fn wait_list_changed(c: &mut Client) -> bool {
    let deadline = Instant::now() + Duration::from_secs(30);
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        let Ok(line) = c.lines.recv_timeout(left) else { return false };
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["method"] == "notifications/resources/list_changed" {
            return true;
        }
    }
    false
}

#[test]
fn list_changed_is_sent_when_memories_come_and_go() {
    let env = TestEnv::with_vault("links");
    let mut c = started(&env, &[]);
    // Another process adds one.
    env.run(["add", "from-cli", "Written by the command line while the server runs."]).success();
    assert!(wait_list_changed(&mut c), "no list_changed after another process added a memory");
    let page = c.request("resources/list", json!({}));
    assert!(page.to_string().contains("memory://from-cli"), "{page}");
    // The server's own delete.
    c.ok("delete_memory", json!({"name": "from-cli"}));
    assert!(wait_list_changed(&mut c), "no list_changed after delete_memory");
    let page = c.request("resources/list", json!({}));
    assert!(!page.to_string().contains("memory://from-cli"), "{page}");
}

/// The names of every memory `resources/list` gives, all pages.
fn listed(c: &mut Client) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = cursor.as_ref().map_or_else(|| json!({}), |cur| json!({"cursor": cur}));
        let page = c.request("resources/list", params);
        for r in page["resources"].as_array().unwrap() {
            names.insert(r["name"].as_str().unwrap().to_owned());
        }
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return names,
        }
    }
}

#[test]
fn list_changed_follows_files_renamed_by_hand_one_at_a_time_and_by_folder() {
    let env = TestEnv::with_vault("links");
    env.write("team/standup.md", "# Standup\n\nDaily at nine.\n");
    env.write("team/retro.md", "# Retro\n\nEvery other Friday.\n");
    let mut c = started(&env, &[]);
    assert!(listed(&mut c).contains("team/standup"));
    // One file renamed in place: the old name goes, the new one comes.
    let v = env.vault();
    std::fs::rename(v.join("onboarding.md"), v.join("welcome.md")).unwrap();
    assert!(wait_list_changed(&mut c), "no list_changed after a file was renamed by hand");
    let names = listed(&mut c);
    assert!(names.contains("welcome") && !names.contains("onboarding"), "{names:?}");
    // A whole folder renamed: every memory under it moves.
    std::fs::rename(v.join("team"), v.join("crew")).unwrap();
    assert!(wait_list_changed(&mut c), "no list_changed after a folder was renamed");
    let names = listed(&mut c);
    assert!(names.contains("crew/standup") && names.contains("crew/retro"), "{names:?}");
    assert!(!names.iter().any(|n| n.starts_with("team/")), "{names:?}");
    // A memory created by the server in a folder of its own is announced too.
    c.ok("create_memory", json!({"name": "crew/planning", "content": "# Planning\n\nMondays."}));
    assert!(wait_list_changed(&mut c), "no list_changed after create_memory");
    assert!(listed(&mut c).contains("crew/planning"));
}

fn prompt_text(v: &Value) -> String {
    v["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"]["text"].as_str().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn prompts_offer_the_common_moves_with_what_the_server_knows() {
    let env = TestEnv::with_vault("links");
    let mut c = started(&env, &[("MEMLANE_LIFECYCLE__COLD_THRESHOLD", "0.99")]);
    let list = c.request("prompts/list", json!({}));
    let names: Vec<&str> =
        list["prompts"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["recall", "record_session", "review_cold", "session_context"]);
    let recall = &list["prompts"][0];
    assert_eq!(recall["arguments"][0]["name"], "topic", "{recall}");
    assert_eq!(recall["arguments"][0]["required"], true, "{recall}");

    let got = c.request(
        "prompts/get",
        json!({"name": "recall", "arguments": {"topic": "JWT signing key rotation"}}),
    );
    let text = prompt_text(&got);
    assert!(text.contains("JWT signing key rotation"), "{text}");
    assert!(text.contains("- key-rotation (architecture)"), "the matches are listed: {text}");
    assert!(text.contains("read_memory"), "{text}");
    assert_eq!(got["messages"][0]["role"], "user", "{got}");

    let got = c.request(
        "prompts/get",
        json!({"name": "record_session", "arguments": {"focus": "the login fix"}}),
    );
    let text = prompt_text(&got);
    assert!(text.contains("the login fix") && text.contains("session_summary"), "{text}");
    assert!(text.contains("remember") && text.contains("mark_used"), "{text}");

    let got = c.request("prompts/get", json!({"name": "review_cold", "arguments": {"limit": "2"}}));
    let text = prompt_text(&got);
    assert_eq!(text.lines().filter(|l| l.starts_with("- ")).count(), 2, "{text}");
    assert!(text.contains("summarize_memory"), "{text}");

    let got =
        c.request("prompts/get", json!({"name": "session_context", "arguments": {"budget": "60"}}));
    let text = prompt_text(&got);
    assert!(text.starts_with("Project memory"), "{text}");
    assert!(text.chars().count().div_ceil(4) <= 60, "{text}");

    let bad = respond(&mut c, 900, "prompts/get", json!({"name": "recall", "arguments": {}}));
    assert!(bad["error"]["message"].as_str().unwrap().contains("topic"), "{bad}");
    let bad = respond(&mut c, 901, "prompts/get", json!({"name": "nope"}));
    assert!(bad["error"]["message"].as_str().unwrap().contains("recall"), "{bad}");
}

fn temperature(c: &mut Client, name: &str) -> f64 {
    let tree = c.ok("memory_tree", json!({"sections": false}));
    let row = tree["memories"].as_array().unwrap().iter().find(|m| m["name"] == name).cloned();
    row.unwrap_or_else(|| panic!("{name} not in {tree}"))["temperature"].as_f64().unwrap()
}

#[test]
fn mark_used_warms_and_links_was_context_for() {
    let env = TestEnv::with_vault("links");
    let mut c = started(&env, &[("MEMLANE_MCP__TOOLS", "full")]);
    let before = temperature(&mut c, "auth-v1");

    // An unknown name records nothing.
    let memories = || -> Vec<(String, Vec<u8>)> {
        env.contents().into_iter().filter(|(f, _)| f.ends_with(".md")).collect()
    };
    let files = memories();
    let err =
        c.err("mark_used", json!({"names": ["auth-v1", "nope"], "context_for": "onboarding"}));
    assert!(err.contains("nope"), "{err}");
    assert_eq!(memories(), files, "nothing written");

    let r = c.ok(
        "mark_used",
        json!({"names": ["auth-v1", "key-rotation", "auth-v1"], "context_for": "onboarding"}),
    );
    let used: Vec<&str> =
        r["used"].as_array().unwrap().iter().map(|u| u["name"].as_str().unwrap()).collect();
    assert_eq!(used, ["auth-v1", "key-rotation"], "{r}");
    assert_eq!(r["context_for"], "memory:onboarding", "{r}");
    assert_eq!(r["linked"].as_array().unwrap().len(), 2, "{r}");
    let file = env.read("auth-v1.md");
    assert!(file.contains("was_context_for") && file.contains("memory:onboarding"), "{file}");
    let rel = c.ok("get_memory_relationships", json!({"name": "onboarding"}));
    let incoming = rel["incoming"].as_array().unwrap();
    for from in ["memory:auth-v1", "memory:key-rotation"] {
        assert!(
            incoming.iter().any(|e| e["memory_id"] == from && e["edge_type"] == "was_context_for"),
            "{from}: {rel}"
        );
    }
    assert!(temperature(&mut c, "auth-v1") > before, "a reported use warms the memory");

    // Without context_for it only counts the use; the same link twice is written once.
    let r = c.ok("mark_used", json!({"names": "bug-login"}));
    assert_eq!(r["linked"], json!([]), "{r}");
    c.ok("mark_used", json!({"names": ["auth-v1"], "context_for": "onboarding"}));
    assert_eq!(env.read("auth-v1.md").matches("was_context_for").count(), 1);
}

#[test]
fn a_session_summary_is_its_own_type_with_mnestras_profile() {
    let env = TestEnv::with_vault("links");
    let mut c = started(&env, &[]);
    let r = c.ok(
        "remember",
        json!({"content": "Session: fixed the inverted expiry check in login; next, rotate keys.", "type": "session_summary"}),
    );
    let read = c.ok("read_memory", json!({"name": r["name"]}));
    assert_eq!(read["type"], "session_summary", "{read}");
    let found =
        c.ok("search_memories", json!({"query": "inverted expiry", "types": "session_summary"}));
    assert_eq!(found["results"][0]["name"], r["name"], "{found}");
    let config = env.run(["config", "--json"]).success().json();
    let profile = &config["config"]["types"]["session_summary"];
    assert_eq!(profile["half_life_days"], 14.0, "{profile}");
    assert_eq!(profile["weight"], 1.0, "{profile}");
}
