//! `memlane mcp`: the MCP server, driven through the real protocol (newline-delimited JSON-RPC
//! over the child's stdin/stdout).

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::TestEnv;

const TOOLS: &[&str] = &[
    "create_memory",
    "read_memory",
    "update_memory",
    "append_memory",
    "delete_memory",
    "search_memories",
    "search_linked_memories",
    "get_memory_relationships",
    "get_memory_stats",
    "remember",
    "pin_memory",
    "unpin_memory",
    "link_memories",
];

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
}

impl Client {
    fn start(env: &TestEnv) -> Client {
        let mut child = env
            .command()
            .arg("mcp")
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

    fn send(&mut self, msg: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
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
                return v["result"].clone();
            }
        }
    }

    fn call(&mut self, tool: &str, args: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": args}))
    }

    /// Calls a tool that must succeed and returns its structured result.
    fn ok(&mut self, tool: &str, args: Value) -> Value {
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

    let init = c.request(
        "initialize",
        json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "memlane-test", "version": "0"}
        }),
    );
    assert_eq!(init["serverInfo"]["name"], "memlane");
    assert!(init["instructions"].as_str().unwrap().contains("search_memories"));
    c.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let list = c.request("tools/list", json!({}));
    let tools = list["tools"].as_array().unwrap();
    for name in TOOLS {
        let t = tools
            .iter()
            .find(|t| t["name"] == *name)
            .unwrap_or_else(|| panic!("tool {name} not listed"));
        assert_eq!(t["inputSchema"]["type"], "object", "{name}: {t}");
        assert!(!t["description"].as_str().unwrap_or_default().is_empty(), "{name}");
    }

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
    assert_eq!(stats["memories"], 7, "{stats}");

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
