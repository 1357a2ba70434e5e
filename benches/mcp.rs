//! The MCP server under load: 1,000 mixed tool calls over the real stdio
//! protocol against a generated vault, with the built-in embedder.
//!
//! `cargo bench --bench mcp` (release). `MEMLANE_PERF_N` sets the number of memories (default
//! 10,000), `MEMLANE_MCP_CALLS` the number of calls (default 1,000). Prints throughput and
//! p50/p95 latency per tool, measured by the client from writing the request to reading the
//! response; figures go into BENCHMARKS.md.

#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "support/mod.rs"]
mod support;

use std::collections::BTreeMap;
use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{Rng, generate, median, ms, p95};

fn main() {
    let n = support::perf_n();
    let calls: usize =
        std::env::var("MEMLANE_MCP_CALLS").ok().and_then(|s| s.parse().ok()).unwrap_or(1_000);
    let bin = env!("CARGO_BIN_EXE_memlane");
    let (tmp, root) = support::temp_vault();
    generate(&root, n);
    let env = |cmd: &mut Command| {
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("MEMLANE_VAULT", &root)
            .env("HOME", tmp.path())
            .env("XDG_DATA_HOME", tmp.path().join("data"))
            .env("XDG_CONFIG_HOME", tmp.path().join("config"))
            .env("MEMLANE_MCP__TOOLS", "full");
    };
    let mut reindex = Command::new(bin);
    env(&mut reindex);
    let t = Instant::now();
    let out = reindex.args(["reindex", "-q"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    println!("{n} memories indexed in {:.1} s", t.elapsed().as_secs_f64());

    let mut cmd = Command::new(bin);
    env(&mut cmd);
    let mut child = cmd
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut rpc = Rpc {
        stdin: child.stdin.take().unwrap(),
        stdout: BufReader::new(child.stdout.take().unwrap()),
        next_id: 0,
    };
    let (_, startup) = rpc.call(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "bench", "version": "0"}}),
    );
    rpc.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    println!("initialize: {}", ms(startup));
    // The first call opens the indices and the watcher's first pass (hash of every file) runs
    // in the background: measure it, then let the watcher settle before the load.
    let (_, first) = rpc.call(
        "tools/call",
        json!({"name": "search_memories", "arguments": {"query": "auth token rotation"}}),
    );
    println!("first search (opens the indices): {}", ms(first));
    std::thread::sleep(Duration::from_secs(3));

    let queries = [
        "auth token rotation",
        "postgres migration rollback",
        "redis cache latency",
        "deploy pipeline incident",
        "vector embedding ranking",
        "customer invoice refund",
    ];
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let mut by_tool: BTreeMap<&str, Vec<Duration>> = BTreeMap::new();
    let mut errors = 0;
    let start = Instant::now();
    for i in 0..calls {
        let pick = rng.next() % 100;
        let existing = {
            let k = (rng.next() % n as u64) as usize;
            format!("area{:02}/m{k:05}", k % 50)
        };
        let (tool, args) = match pick {
            0..60 => ("search_memories", json!({"query": queries[i % queries.len()], "limit": 5})),
            60..75 => ("read_memory", json!({"name": existing})),
            75..83 => (
                "remember",
                json!({"content": format!("Load test note {i}: the {} {} {} is tracked in ticket LT-{i}.", rng.word(), rng.word(), rng.word()), "type": "observation"}),
            ),
            83..88 => (
                "append_memory",
                json!({"name": existing, "content": format!("Seen again in run {i}.")}),
            ),
            88..93 => ("get_memory_relationships", json!({"name": existing})),
            93..97 => ("get_memory_stats", json!({})),
            _ => ("get_related_memories", json!({"name": existing, "depth": 2, "limit": 5})),
        };
        let (resp, took) = rpc.call("tools/call", json!({"name": tool, "arguments": args}));
        if resp["result"]["isError"] == json!(true) || resp.get("error").is_some() {
            errors += 1;
            if errors <= 3 {
                eprintln!("{tool} failed: {resp}");
            }
        }
        by_tool.entry(tool).or_default().push(took);
    }
    let total = start.elapsed();
    println!(
        "{calls} calls in {:.2} s: {:.0} calls/s, {errors} errors",
        total.as_secs_f64(),
        calls as f64 / total.as_secs_f64()
    );
    let all: Vec<Duration> = by_tool.values().flatten().copied().collect();
    println!("all calls: p50 {} p95 {}", ms(median(all.clone())), ms(p95(all)));
    for (tool, v) in &by_tool {
        println!(
            "  {tool:<26} n={:<4} p50 {} p95 {}",
            v.len(),
            ms(median(v.clone())),
            ms(p95(v.clone()))
        );
    }
    drop(rpc);
    let _ = child.wait();
}

/// A blocking JSON-RPC client over the server's stdio.
struct Rpc {
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
    next_id: u64,
}

impl Rpc {
    fn send(&mut self, msg: &Value) {
        writeln!(self.stdin, "{msg}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and waits for its response; returns it and the round-trip time.
    fn call(&mut self, method: &str, params: Value) -> (Value, Duration) {
        self.next_id += 1;
        let id = self.next_id;
        let t = Instant::now();
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut line = String::new();
        loop {
            line.clear();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0, "the server closed stdout");
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == json!(id) {
                return (v, t.elapsed());
            }
        }
    }
}
