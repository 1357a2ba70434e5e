//! `memlane mcp`: the MCP server, driven through the real protocol (newline-delimited JSON-RPC
//! over the child's stdin/stdout).

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::TestEnv;

/// Every tool the server offers (docs/reference/mcp.md).
pub(crate) const ALL_TOOLS: &[&str] = &[
    "create_memory",
    "read_memory",
    "read_memories",
    "update_memory",
    "append_memory",
    "delete_memory",
    "search_memories",
    "search_linked_memories",
    "get_memory_stats",
    "merge_memories",
    "suggest_memory_merges",
    "get_memory_relationships",
    "remember",
    "pin_memory",
    "unpin_memory",
    "summarize_memory",
    "get_cold_memories",
    "memory_tree",
    "memory_history",
    "link_memories",
    "get_related_memories",
    "split_memory",
    "list_trash",
    "restore_memory",
    "mark_used",
];

/// The default (`[mcp] tools = "core"`) list.
const CORE_TOOLS: &[&str] = &[
    "search_memories",
    "search_linked_memories",
    "read_memory",
    "remember",
    "create_memory",
    "update_memory",
    "append_memory",
    "delete_memory",
    "link_memories",
    "summarize_memory",
    "mark_used",
];

/// A JSON-RPC client of a spawned `memlane mcp` (also used by `concurrency.rs`).
pub(crate) struct Client {
    pub(crate) child: Child,
    stdin: Option<ChildStdin>,
    /// Every line the server wrote to stdout, in order.
    pub(crate) lines: Receiver<String>,
    next_id: u64,
}

impl Client {
    pub(crate) fn start(env: &TestEnv) -> Client {
        Client::start_with(env, &[])
    }

    /// Starts `memlane mcp` with extra environment variables.
    pub(crate) fn start_with(env: &TestEnv, vars: &[(&str, &str)]) -> Client {
        let mut cmd = env.command();
        cmd.envs(vars.iter().copied()).arg("mcp");
        Client::spawn(cmd)
    }

    /// Starts `cmd` (a `memlane mcp` command line, possibly wrapped) as the server.
    pub(crate) fn spawn(mut cmd: std::process::Command) -> Client {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn memlane mcp");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Client { child, stdin, lines: rx, next_id: 1 }
    }

    pub(crate) fn send(&mut self, msg: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
    }

    /// Writes `line` (anything, even not JSON) and a newline to the server's stdin.
    pub(crate) fn send_raw(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line on stdout (which must be JSON-RPC 2.0), within 60 s.
    pub(crate) fn next_message(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no message from the server within 60 s"));
        let v: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
        let first = if v.is_array() { &v[0] } else { &v };
        assert_eq!(first["jsonrpc"], "2.0", "{line}");
        v
    }

    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        self.request_seeing(method, params).0
    }

    /// Sends a request; returns its result and the notifications that arrived before it.
    pub(crate) fn request_seeing(&mut self, method: &str, params: Value) -> (Value, Vec<Value>) {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut notifications = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(20))
                .unwrap_or_else(|_| panic!("no response to {method} within 20 s"));
            // Every line on stdout must be JSON-RPC.
            let v: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
            assert_eq!(v["jsonrpc"], "2.0", "{line}");
            if v["id"] == json!(id) {
                assert!(v.get("error").is_none(), "{method} failed: {line}");
                return (v["result"].clone(), notifications);
            }
            if v.get("id").is_none() {
                notifications.push(v);
            }
        }
    }

    /// Calls a tool that must fail and returns its error text.
    pub(crate) fn err(&mut self, tool: &str, args: Value) -> String {
        let r = self.call(tool, args);
        assert_eq!(r["isError"], json!(true), "{tool} should have failed: {r}");
        r["content"][0]["text"].as_str().unwrap_or_default().to_owned()
    }

    pub(crate) fn call(&mut self, tool: &str, args: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": args}))
    }

    /// The MCP handshake: `initialize`, then `notifications/initialized`.
    pub(crate) fn initialize(&mut self) -> Value {
        let init = self.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "memlane-test", "version": "0"}
            }),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        init
    }

    /// Calls a tool that must succeed and returns its structured result.
    pub(crate) fn ok(&mut self, tool: &str, args: Value) -> Value {
        let r = self.call(tool, args);
        assert_ne!(r["isError"], json!(true), "{tool} failed: {r}");
        r["structuredContent"].clone()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

fn names(results: &Value) -> Vec<String> {
    results["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results array: {results}"))
        .iter()
        .map(|h| h["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn mcp_tools_over_stdio() {
    let env = TestEnv::with_vault("links");
    let mut c = Client::start(&env);

    let init = c.initialize();
    assert_eq!(init["serverInfo"]["name"], "memlane");
    assert!(init["instructions"].as_str().unwrap().contains("search_memories"));
    assert!(init["capabilities"]["logging"].is_object(), "{init}");

    // The default list is the short core set; the other tools stay callable by name.
    let list = c.request("tools/list", json!({}));
    let mut listed: Vec<&str> =
        list["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    listed.sort_unstable();
    let mut core = CORE_TOOLS.to_vec();
    core.sort_unstable();
    assert_eq!(listed, core);

    let created = c.ok(
        "create_memory",
        json!({
            "name": "deploy-freeze",
            "content": "We never deploy the payment gateway on Fridays; the freeze starts at noon.",
            "tags": ["deploy"]
        }),
    );
    assert_eq!(created["name"], "deploy-freeze", "{created}");
    assert!(env.exists("deploy-freeze.md"));

    let found = c.ok("search_memories", json!({"query": "payment gateway deploy Friday"}));
    assert_eq!(names(&found).first().map(String::as_str), Some("deploy-freeze"), "{found}");
    let hit = &found["results"][0];
    for key in
        ["memory_id", "score", "content", "type", "status", "tags", "file_path", "header_path"]
    {
        assert!(hit.get(key).is_some(), "search hit lacks {key}: {hit}");
    }

    let read = c.ok("read_memory", json!({"name": "deploy-freeze"}));
    assert!(read["content"].as_str().unwrap().contains("payment gateway"), "{read}");

    c.ok(
        "link_memories",
        json!({"from": "deploy-freeze", "to": "bug-login", "type": "depends_on"}),
    );
    let rel = c.ok("get_memory_relationships", json!({"name": "deploy-freeze"}));
    let out = rel["outgoing"].as_array().unwrap();
    assert!(
        out.iter().any(|e| e["memory_id"] == "memory:bug-login" && e["edge_type"] == "depends_on"),
        "{rel}"
    );

    let linked = c.ok(
        "search_linked_memories",
        json!({"query": "login bug", "target_document": "src/auth.py"}),
    );
    assert!(names(&linked).contains(&"bug-login".to_owned()), "{linked}");

    let stats = c.ok("get_memory_stats", json!({}));
    assert_eq!(stats["count"], 7, "{stats}");
    assert_eq!(stats["memory_path"], env.vault().display().to_string(), "{stats}");
    assert!(stats["types"].is_object() && stats["tags"].is_object(), "{stats}");

    let first = c.ok(
        "remember",
        json!({"content": "The staging database is reset every Monday at 06:00 UTC by the ops cron job."}),
    );
    assert_eq!(first["action"], "created", "{first}");
    let second = c.ok(
        "remember",
        json!({"content": "The staging database is reset every Monday at 06:00 UTC by the ops cron job!"}),
    );
    assert_eq!(second["action"], "updated", "{second}");
    assert_eq!(second["name"], first["name"], "{second}");

    c.ok("pin_memory", json!({"name": "deploy-freeze"}));
    c.ok("unpin_memory", json!({"name": "deploy-freeze"}));

    c.ok("delete_memory", json!({"name": "deploy-freeze"}));
    assert!(!env.exists("deploy-freeze.md"));

    let missing = c.call("read_memory", json!({"name": "no-such-memory"}));
    assert_eq!(missing["isError"], json!(true), "{missing}");
    let text = missing["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("no-such-memory"), "{text}");
}
