//! Several memlane processes on one vault at once, and processes killed with SIGKILL (the
//! concurrency guarantees of docs/internals/file-format.md). Everything goes through the real
//! binary: CLI calls, `memlane mcp` servers spoken to over stdio, and `Child::kill` (SIGKILL on
//! Unix) at many points of a reindex and of a stream of writes.
//!
//! What must hold: every write that reported success is on disk with exactly its content; the
//! usage state stays valid JSON and loses no update; readers never fail while writers run; after
//! a crash the next command repairs the indices and finds every memory; and the indices that
//! concurrent reconciles leave behind equal a rebuild from the files.
//!
//! No assertion depends on timing: the delays only spread the kill points.

use std::collections::{BTreeMap, BTreeSet};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::TestEnv;
use crate::mcp::Client;

/// Letters-only token unique to `n` (the keyword analyser keeps it whole), e.g. `qzbcvx`.
fn token(n: usize) -> String {
    let mut s = String::from("qz");
    let mut n = n;
    loop {
        s.push((b'b' + (n % 24) as u8) as char);
        n /= 24;
        if n == 0 {
            break;
        }
    }
    s.push_str("vx");
    s
}

/// A dozen words picked by `seed`, so that generated memories are not near-duplicates.
fn soup(seed: usize) -> String {
    const WORDS: &[&str] = &[
        "cache", "deploy", "schema", "ticket", "rollback", "tenant", "invoice", "latency",
        "sidecar", "cron", "replica", "quota", "webhook", "canary", "ledger", "budget", "tracing",
        "sharding", "backoff", "token", "session", "mirror", "archive", "payload", "throttle",
        "vendor", "sandbox", "kernel", "buffer", "pipeline", "gateway", "cluster", "snapshot",
        "cursor", "index", "router", "metric", "alert", "runbook", "incident", "billing", "search",
    ];
    let mut x = (seed as u64).wrapping_mul(6_364_136_223_846_793_005);
    (0..12)
        .map(|_| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            WORDS[(x >> 33) as usize % WORDS.len()]
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs memlane with `args` and returns (exit code, stdout, stderr).
fn run(env: &TestEnv, args: &[&str]) -> (i32, String, String) {
    let out = env.command().args(args).stdin(Stdio::null()).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[track_caller]
fn run_ok(env: &TestEnv, args: &[&str]) -> String {
    let (code, stdout, stderr) = run(env, args);
    assert_eq!(code, 0, "memlane {args:?} failed:\n{stdout}\n{stderr}");
    stdout
}

/// Every memory file of the vault (relative names without `.md`), as the test sees the disk.
fn md_files(env: &TestEnv) -> BTreeSet<String> {
    env.files()
        .into_iter()
        .filter(|f| {
            f.ends_with(".md")
                && !f.split('/').any(|part| part.starts_with('.'))
                && !["indices/", "state/"].iter().any(|d| f.starts_with(d))
        })
        .map(|f| f.trim_end_matches(".md").to_owned())
        .collect()
}

/// The memory names `memlane list --json` reports.
fn listed(env: &TestEnv) -> BTreeSet<String> {
    let out = run_ok(env, &["list", "--json", "--status", "all"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    v.as_array()
        .unwrap_or_else(|| panic!("list --json is not an array: {out}"))
        .iter()
        .map(|m| m["name"].as_str().unwrap().to_owned())
        .collect()
}

/// The body of a memory file (after the frontmatter), checking the frontmatter is whole.
#[track_caller]
fn body_of(env: &TestEnv, name: &str) -> String {
    let raw = env.read(&format!("{name}.md"));
    assert!(raw.starts_with("---\n"), "{name}.md has no frontmatter:\n{raw}");
    let end = raw[4..].find("\n---\n").unwrap_or_else(|| panic!("{name}.md is cut:\n{raw}"));
    raw[4 + end + 5..].trim().to_owned()
}

/// The derived files a rebuild must reproduce byte for byte.
fn derived(env: &TestEnv) -> BTreeMap<&'static str, String> {
    let dir = env.vault().join("indices");
    let mut out: BTreeMap<&'static str, String> = BTreeMap::new();
    out.insert(
        "supersedes",
        std::fs::read_to_string(dir.join("graph/supersedes.tsv")).unwrap_or_default(),
    );
    // The manifest as it loads (its file plus its journal).
    let manifest = memlane::index::manifest::Manifest::load(&dir)
        .map(|m| format!("{} {} {:#?}", m.embedder_id, m.dim, m.entries()));
    out.insert("manifest", manifest.unwrap_or_default());
    // The graph as it loads (its file plus its journal), written whole.
    let graph = memlane::index::graph::LinkGraph::load(&dir.join("graph")).unwrap();
    let whole = graph.map(|mut g| {
        let tmp = tempfile::tempdir().unwrap();
        g.save(tmp.path()).unwrap();
        std::fs::read_to_string(tmp.path().join(memlane::index::graph::FILE)).unwrap()
    });
    out.insert("graph", whole.unwrap_or_default());
    out
}

/// The indices are consistent: the next command needs no rebuild (nothing disagrees), every
/// file is listed, and what the reconciles left equals a rebuild from the files.
#[track_caller]
fn assert_consistent(env: &TestEnv) {
    let (code, out, err) = run(env, &["-v", "doctor", "--json"]);
    assert_eq!(code, 0, "doctor failed:\n{out}\n{err}");
    assert!(!err.contains("rebuilt=") || err.contains("rebuilt=\"\""), "{err}");
    assert!(!err.contains("disagree"), "{err}");
    let doctor: Value = serde_json::from_str(&out).unwrap();
    let files = md_files(env);
    assert_eq!(doctor["memories"], files.len(), "{doctor}");
    assert_eq!(listed(env), files);
    let before = derived(env);
    run_ok(env, &["reindex"]);
    let after = derived(env);
    for (k, v) in &before {
        assert_eq!(v, &after[k], "{k} differs from a rebuild");
    }
}

/// The usage state reads without a reset; returns the ids it tracks.
#[track_caller]
fn usage_ids(env: &TestEnv) -> BTreeSet<String> {
    let (store, reset) = memlane::lifecycle::UsageStore::open(&env.vault()).unwrap();
    assert!(reset.is_none(), "usage state: {reset:?}");
    store.state().iter().map(|(id, _)| id.to_owned()).collect()
}

/// Temp files that killed writers may leave (hidden, `*.tmp`): never memories.
fn temp_files(env: &TestEnv) -> Vec<String> {
    env.files().into_iter().filter(|f| f.ends_with(".tmp")).collect()
}

/// Whether another process holds the index lock right now (the OS releases it when its holder
/// dies, even by SIGKILL).
fn index_lock_free(env: &TestEnv) -> bool {
    let path = env.vault().join("indices/write.lock");
    let Ok(f) = std::fs::OpenOptions::new().write(true).open(path) else { return true };
    f.try_lock().is_ok()
}

/// Sets its flag when dropped, panics included.
struct StopOnDrop<'a>(&'a std::sync::atomic::AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

#[test]
fn concurrent_cli_writers_and_readers_lose_nothing() {
    const WRITERS: usize = 4;
    const ROUNDS: usize = 4;
    let env = TestEnv::with_vault("basic");
    run_ok(&env, &["add", "shared-log", "--force", "# Shared log\n\nStarted."]);
    let done = std::sync::atomic::AtomicBool::new(false);

    let (writes, reads) = std::thread::scope(|s| {
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let env = &env;
                s.spawn(move || {
                    let mut acked = Vec::new();
                    for r in 0..ROUNDS {
                        let n = w * ROUNDS + r;
                        let name = format!("w{w}/note-{r}");
                        let first = format!("# Note {}\n\n{}", token(n), soup(n));
                        // Half the adds check for near-duplicates (which reconciles the indices).
                        let mut add = vec!["add", &name, &first, "--json"];
                        if r % 2 == 0 {
                            add.push("--force");
                        }
                        let out = run_ok(env, &add);
                        let id = serde_json::from_str::<Value>(&out).unwrap()["id"]
                            .as_str()
                            .unwrap()
                            .to_owned();
                        let line = format!("entry {} from writer {w}", token(1000 + n));
                        run_ok(env, &["append", "shared-log", &line]);
                        let revised = format!("# Note {}\n\nrevised {}", token(n), soup(n + 500));
                        run_ok(env, &["update", &name, &revised]);
                        acked.push((name, id, line, revised));
                    }
                    acked
                })
            })
            .collect();
        let readers: Vec<_> = (0..2)
            .map(|i| {
                let (env, done) = (&env, &done);
                s.spawn(move || {
                    let mut n = 0;
                    while !done.load(std::sync::atomic::Ordering::Relaxed) || n < 2 {
                        let args: &[&str] = if i == 0 {
                            &["search", "note revised deploy", "--json"]
                        } else {
                            &["list", "--json"]
                        };
                        let (code, out, err) = run(env, args);
                        assert_eq!(code, 0, "{args:?} failed during writes:\n{out}\n{err}");
                        serde_json::from_str::<Value>(&out).unwrap();
                        n += 1;
                    }
                    n
                })
            })
            .collect();
        // Stops the readers even when a writer panics (else the scope would wait for ever).
        let stop = StopOnDrop(&done);
        let writes: Vec<_> = writers.into_iter().flat_map(|h| h.join().unwrap()).collect();
        drop(stop);
        let reads: usize = readers.into_iter().map(|h| h.join().unwrap()).sum();
        (writes, reads)
    });
    assert_eq!(writes.len(), WRITERS * ROUNDS);
    assert!(reads >= 4);

    let log = body_of(&env, "shared-log");
    let ids = usage_ids(&env);
    for (name, id, line, revised) in &writes {
        assert_eq!(body_of(&env, name).as_str(), revised.as_str(), "{name}");
        assert_eq!(log.matches(line.as_str()).count(), 1, "append `{line}` lost:\n{log}");
        assert!(ids.contains(id), "usage state lost {name} ({id})");
    }
    // Every append kept the previous version, each one whole.
    let history: Value =
        serde_json::from_str(&run_ok(&env, &["history", "shared-log", "--json"])).unwrap();
    let versions = history["versions"].as_array().unwrap_or_else(|| panic!("{history}"));
    assert_eq!(versions.len(), WRITERS * ROUNDS, "{history}");
    for v in versions {
        let raw = std::fs::read_to_string(v["file_path"].as_str().unwrap()).unwrap();
        assert!(raw.starts_with("---\n") && raw.contains("Started."), "{raw}");
    }
    assert!(temp_files(&env).is_empty(), "{:?}", temp_files(&env));
    assert_consistent(&env);
}

/// Two `memlane mcp` servers and CLI calls writing and searching one vault at the same time.
#[test]
fn two_mcp_servers_and_the_cli_share_a_vault() {
    const CALLS: usize = 6;
    let env = TestEnv::with_vault("basic");
    run_ok(&env, &["add", "shared-log", "--force", "# Shared log\n\nStarted."]);
    // A watcher re-indexes behind everyone's back the whole time.
    let mut watcher = spawn(&env, &["watch", "--debounce", "20"]);
    let ids = std::sync::Mutex::new(Vec::new());

    let acked = std::thread::scope(|s| {
        let servers: Vec<_> = (0..2)
            .map(|server| {
                let (env, ids) = (&env, &ids);
                s.spawn(move || {
                    let mut c = Client::start(env);
                    c.initialize();
                    let mut acked = Vec::new();
                    for i in 0..CALLS {
                        let n = 100 * (server + 1) + i;
                        let name = format!("mcp{server}/m{i}");
                        let content = format!("# Memory {}\n\n{}", token(n), soup(n));
                        let created =
                            c.ok("create_memory", json!({"name": name, "content": content}));
                        assert_eq!(created["status"], "created", "{created}");
                        ids.lock().unwrap().push(created["id"].as_str().unwrap().to_owned());
                        let line = format!("server {server} call {i} {}", token(n + 5000));
                        c.ok("append_memory", json!({"name": "shared-log", "content": line}));
                        let found = c.ok("search_memories", json!({"query": token(n)}));
                        let hits = found["results"].as_array().unwrap();
                        assert!(
                            hits.iter().any(|h| h["name"] == name.as_str()),
                            "server {server} cannot find its own {name}: {found}"
                        );
                        acked.push((name, content, line));
                    }
                    acked
                })
            })
            .collect();
        let cli = {
            let (env, ids) = (&env, &ids);
            s.spawn(move || {
                let mut acked = Vec::new();
                for i in 0..CALLS {
                    let n = 900 + i;
                    let name = format!("cli/m{i}");
                    let content = format!("# Memory {}\n\n{}", token(n), soup(n));
                    let out = run_ok(env, &["add", &name, &content, "--force", "--json"]);
                    let id = serde_json::from_str::<Value>(&out).unwrap()["id"].clone();
                    ids.lock().unwrap().push(id.as_str().unwrap().to_owned());
                    let line = format!("cli call {i} {}", token(n + 5000));
                    run_ok(env, &["append", "shared-log", &line]);
                    let (code, out, err) = run(env, &["search", &token(n), "--json"]);
                    assert_eq!(code, 0, "{out}\n{err}");
                    acked.push((name, content, line));
                    // An editor saving a file straight into the vault.
                    let edited = format!("# Edited {}\n\n{}", token(n + 7000), soup(n + 7000));
                    env.write(&format!("editor/e{i}.md"), &edited);
                    acked.push((format!("editor/e{i}"), edited, String::new()));
                }
                acked
            })
        };
        let mut all: Vec<_> = servers.into_iter().flat_map(|h| h.join().unwrap()).collect();
        all.extend(cli.join().unwrap());
        all
    });

    let log = body_of(&env, "shared-log");
    for (name, content, line) in &acked {
        if line.is_empty() {
            assert_eq!(env.read(&format!("{name}.md")), *content, "{name}");
            continue;
        }
        assert_eq!(body_of(&env, name), content.as_str(), "{name}");
        assert_eq!(log.matches(line.as_str()).count(), 1, "append `{line}` lost:\n{log}");
    }
    assert!(watcher.try_wait().unwrap().is_none(), "the watcher stopped");
    let _ = watcher.kill();
    watcher.wait().unwrap();
    assert!(index_lock_free(&env));
    // A fresh server finds what the others wrote, the editor's files too.
    let mut c = Client::start(&env);
    c.initialize();
    for (name, ..) in acked.iter().step_by(5) {
        let found = c.ok("read_memory", json!({"name": name}));
        assert_eq!(found["name"], name.as_str(), "{found}");
    }
    let found = c.ok("search_memories", json!({"query": token(101)}));
    assert_eq!(found["results"][0]["name"], "mcp0/m1", "{found}");
    let found = c.ok("search_memories", json!({"query": token(7903)}));
    assert_eq!(found["results"][0]["name"], "editor/e3", "{found}");
    drop(c);
    // No usage update lost either: every new memory is tracked.
    let tracked = usage_ids(&env);
    for id in ids.into_inner().unwrap() {
        assert!(tracked.contains(&id), "usage state lost {id}");
    }
    assert_consistent(&env);
}

/// Writes `n` memories straight into the vault (as a `git pull` would).
fn generate(env: &TestEnv, n: usize) {
    for i in 0..n {
        env.write(
            &format!("gen/{:02}/m{i:05}.md", i % 40),
            &format!(
                "---\ntype: fact\ntags: [generated]\n---\n# Generated {}\n\n{}\n\n## Details\n\n{}\n",
                token(i),
                soup(i),
                soup(i + 77_777)
            ),
        );
    }
}

/// Spawns memlane in the background with output discarded.
fn spawn(env: &TestEnv, args: &[&str]) -> Child {
    env.command()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Checks that `memlane search` finds generated memory `i` first.
#[track_caller]
fn finds_generated(env: &TestEnv, i: usize) {
    let out = run_ok(env, &["search", &token(i), "--json", "-n", "1", "--no-touch"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let v = &v["results"];
    assert_eq!(v[0]["name"], format!("gen/{:02}/m{i:05}", i % 40), "{out}");
}

#[test]
fn sigkill_during_reindex_is_repaired_by_the_next_command() {
    const N: usize = 1_200;
    let env = TestEnv::with_vault("basic");
    generate(&env, N);
    let total = md_files(&env).len();
    // A first full index, timed so that the kills below land across the whole run.
    let t0 = Instant::now();
    run_ok(&env, &["reindex"]);
    let full = t0.elapsed();
    eprintln!("full reindex of {total} memories: {full:?}");

    for (k, fraction) in [0.1, 0.35, 0.6, 0.8, 0.95, 1.1].into_iter().enumerate() {
        if k == 2 {
            // A kill during the very first build, after `indices/` was deleted (always safe).
            std::fs::remove_dir_all(env.vault().join("indices")).unwrap();
        }
        let mut child = spawn(&env, &["reindex"]);
        std::thread::sleep(full.mul_f64(fraction));
        let _ = child.kill();
        child.wait().unwrap();
        assert!(index_lock_free(&env), "a dead process still holds the index lock");
        // The next command works and finds everything (a new memory too).
        let extra = format!("extra-{k}");
        run_ok(&env, &["add", &extra, &format!("# Extra {}\n\n{}", token(50_000 + k), soup(k))]);
        finds_generated(&env, (k * 397) % N);
        let (code, out, err) = run(&env, &["search", &token(50_000 + k), "--json", "-n", "1"]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains(&extra), "{out}\n{err}");
        assert_eq!(listed(&env).len(), total + k + 1);
    }
    assert!(temp_files(&env).iter().all(|f| f.starts_with("indices/")), "{:?}", temp_files(&env));
    assert_consistent(&env);
}

#[test]
fn sigkill_during_cli_writes_loses_no_acknowledged_write() {
    let env = TestEnv::with_vault("basic");
    generate(&env, 200);
    run_ok(&env, &["add", "shared-log", "--force", "# Shared log\n\nStarted."]);
    run_ok(&env, &["reindex"]);
    // How long one write takes here (debug build, loaded machine): the kills spread over it.
    let t0 = Instant::now();
    run_ok(&env, &["append", "shared-log", "calibration"]);
    run_ok(&env, &["add", "calibration", &format!("# Calibration\n\n{}", soup(6999))]);
    let one = t0.elapsed();
    let mut acked_adds = Vec::new();
    let mut acked_lines = Vec::new();
    let mut unknown_lines = Vec::new();
    for i in 0..24 {
        let name = format!("k/m{i}");
        let content = format!("# Killed {}\n\n{}", token(7000 + i), soup(7000 + i));
        let line = format!("line {}", token(8000 + i));
        // Adds (half of them checking for duplicates, which reconciles the indices) and appends,
        // each killed after a different delay.
        let mut add = spawn(&env, &["add", &name, &content]);
        let mut append = spawn(&env, &["append", "shared-log", &line]);
        // Every fourth pair runs to the end; the others die somewhere in their first 1.5 runs.
        if i % 4 != 3 {
            std::thread::sleep(one.mul_f64(((i * 7) % 24) as f64 / 16.0));
            let _ = add.kill();
            let _ = append.kill();
        }
        let (added, appended) = (add.wait().unwrap(), append.wait().unwrap());
        // A write either finished or was killed: it never fails on its own.
        assert!(added.success() || added.code().is_none(), "add {name}: {added}");
        assert!(appended.success() || appended.code().is_none(), "append {i}: {appended}");
        if added.success() {
            acked_adds.push((name.clone(), content.clone()));
        }
        if appended.success() {
            acked_lines.push(line);
        } else {
            unknown_lines.push(line);
        }
        // Whatever the kill point: no half-written memory.
        if env.exists(&format!("{name}.md")) {
            assert_eq!(body_of(&env, &name), content, "{name}");
        }
        let _ = body_of(&env, "shared-log");
    }
    assert!(!acked_adds.is_empty() && !acked_lines.is_empty(), "no write finished before its kill");
    assert!(acked_adds.len() < 24 || acked_lines.len() < 24, "no write was killed");
    for (name, content) in &acked_adds {
        assert_eq!(body_of(&env, name), content.as_str(), "{name}");
    }
    let log = body_of(&env, "shared-log");
    for line in &acked_lines {
        assert_eq!(log.matches(line.as_str()).count(), 1, "append `{line}` lost:\n{log}");
    }
    // Every history version is whole, and there is one per append that reached the disk.
    let landed = acked_lines.iter().chain(&unknown_lines).filter(|l| log.contains(l.as_str()));
    let history: Value =
        serde_json::from_str(&run_ok(&env, &["history", "shared-log", "--json"])).unwrap();
    let versions = history["versions"].as_array().unwrap();
    assert!(versions.len() >= landed.count(), "{history}");
    for v in versions {
        let raw = std::fs::read_to_string(v["file_path"].as_str().unwrap()).unwrap();
        assert!(raw.starts_with("---\n") && raw.contains("Started."), "{raw}");
    }
    assert!(index_lock_free(&env));
    // Temp files of killed writes are never memories.
    assert_eq!(listed(&env), md_files(&env));
    usage_ids(&env);
    assert_consistent(&env);
}

#[test]
fn sigkill_during_mcp_writes_loses_no_acknowledged_write() {
    let env = TestEnv::with_vault("basic");
    run_ok(&env, &["add", "shared-log", "--force", "# Shared log\n\nStarted."]);
    let mut acked: Vec<(String, String)> = Vec::new();
    let mut acked_lines = Vec::new();
    let mut deleted = Vec::new();
    // How long a stream of 30 creates and appends takes in one server: the kills spread over it.
    let stream = {
        let mut c = Client::start(&env);
        c.initialize();
        c.ok("search_memories", json!({"query": "warm up"}));
        let t0 = Instant::now();
        for i in 0..30 {
            let content = format!("# Calibration {}\n\n{}", token(20_000 + i), soup(20_000 + i));
            c.ok("create_memory", json!({"name": format!("cal/m{i}"), "content": content}));
        }
        t0.elapsed()
    };
    for round in 0..4 {
        let mut c = Client::start(&env);
        c.initialize();
        // Pipeline a stream of creates, appends and deletes, then kill the server mid-stream.
        let mut sent = BTreeMap::new();
        for i in 0..30 {
            let n = 10_000 + round * 100 + i;
            let id = 1000 + i as u64;
            let (tool, args, what) = match i % 3 {
                0 | 1 => {
                    let name = format!("s{round}/m{i}");
                    let content = format!("# Streamed {}\n\n{}", token(n), soup(n));
                    let args = json!({"name": name, "content": content});
                    ("create_memory", args, (name, content))
                }
                _ => {
                    let line = format!("stream {}", token(n));
                    let args = json!({"name": "shared-log", "content": line});
                    ("append_memory", args, (String::new(), line))
                }
            };
            c.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": tool, "arguments": args}}));
            sent.insert(id, what);
            if i % 9 == 8 {
                // Delete one created earlier in this round.
                let name = format!("s{round}/m{}", i - 8);
                c.send(&json!({"jsonrpc": "2.0", "id": 5000 + i as u64, "method": "tools/call",
                    "params": {"name": "delete_memory", "arguments": {"name": name}}}));
            }
        }
        // Kill points counted from the first answer (the server may warm up before it): at
        // least one write is acknowledged per round, and the rest die at different points.
        let first = c.lines.recv_timeout(Duration::from_secs(30)).expect("no answer in 30 s");
        std::thread::sleep(stream.mul_f64([0.0, 0.25, 0.5, 0.75][round]));
        let _ = c.child.kill();
        c.child.wait().unwrap();
        let rest = std::iter::from_fn(|| c.lines.recv_timeout(Duration::from_secs(2)).ok());
        for line in std::iter::once(first).chain(rest) {
            let v: Value = serde_json::from_str(&line).unwrap();
            let Some(id) = v["id"].as_u64() else { continue };
            if v["result"]["isError"] == json!(true) {
                continue;
            }
            if id >= 5000 {
                deleted.push(format!("s{round}/m{}", id - 5000 - 8));
            } else if let Some((name, text)) = sent.remove(&id) {
                if name.is_empty() {
                    acked_lines.push(text);
                } else {
                    acked.push((name, text));
                }
            }
        }
        // The dead server's lock is free and the next command repairs what it left.
        assert!(index_lock_free(&env));
        run_ok(&env, &["search", "streamed", "--json", "--no-touch"]);
    }
    assert!(!acked.is_empty(), "no create finished before a kill");
    for (name, content) in &acked {
        if deleted.contains(name) {
            assert!(!env.exists(&format!("{name}.md")), "{name} was deleted");
            continue;
        }
        if env.exists(&format!("{name}.md")) {
            assert_eq!(body_of(&env, name), content.as_str(), "{name}");
        } else {
            // Only an unacknowledged delete may have moved it to the trash.
            let trash = run_ok(&env, &["trash", "list", "--json"]);
            assert!(trash.contains(&format!("\"{name}\"")), "{name} was lost:\n{trash}");
        }
    }
    let log = body_of(&env, "shared-log");
    for line in &acked_lines {
        assert_eq!(log.matches(line.as_str()).count(), 1, "append `{line}` lost:\n{log}");
    }
    assert_eq!(listed(&env), md_files(&env));
    usage_ids(&env);
    // Every acknowledged memory is searchable after the repair.
    // (Not those an unacknowledged delete moved to the trash.)
    let live = acked.iter().filter(|(n, _)| env.exists(&format!("{n}.md")));
    for (name, content) in live.take(3) {
        let tok = content.split_whitespace().nth(2).unwrap();
        let out = run_ok(&env, &["search", tok, "--json", "-n", "1", "--no-touch"]);
        assert!(out.contains(name.as_str()), "{name}: {out}");
    }
    assert_consistent(&env);
}

/// The server brings its indices up to date right after a write's answer, on a thread of its
/// own: the next call waits for that update and finds the memory, and a kill in the middle of
/// it loses nothing.
#[test]
fn an_mcp_write_is_found_by_the_next_call_and_survives_sigkill_right_after_its_answer() {
    let env = TestEnv::with_vault("basic");
    let mut c = Client::start(&env);
    c.initialize();
    c.ok("search_memories", json!({"query": "warm up"}));
    for i in 0..5 {
        let tok = token(30_000 + i);
        let content = format!("# Fresh {tok}\n\n{}", soup(30_000 + i));
        c.ok("create_memory", json!({"name": format!("fresh/m{i}"), "content": content}));
        let found = c.ok("search_memories", json!({"query": tok, "limit": 1}));
        assert!(found.to_string().contains(&format!("fresh/m{i}")), "m{i} not found: {found}");
        let appended = token(31_000 + i);
        c.ok("append_memory", json!({"name": format!("fresh/m{i}"), "content": appended}));
        let found = c.ok("search_memories", json!({"query": appended, "limit": 1}));
        assert!(found.to_string().contains(&format!("fresh/m{i}")), "append {i}: {found}");
    }
    // Killed as soon as the answer is read: the update the write started may be under way.
    let tok = token(30_100);
    let content = format!("# Last {tok}\n\n{}", soup(30_100));
    c.ok("create_memory", json!({"name": "fresh/last", "content": content}));
    let _ = c.child.kill();
    c.child.wait().unwrap();
    assert!(index_lock_free(&env));
    assert_eq!(body_of(&env, "fresh/last"), content);
    let out = run_ok(&env, &["search", &tok, "--json", "-n", "1", "--no-touch"]);
    assert!(out.contains("fresh/last"), "{out}");
    assert_consistent(&env);
}

/// A server whose client goes away finishes the index update of its last write before it
/// exits: the next command finds the indices current and has nothing to index.
#[test]
fn an_mcp_server_that_is_closed_finishes_the_index_update_of_its_last_write() {
    let env = TestEnv::with_vault("basic");
    let mut c = Client::start(&env);
    c.initialize();
    let tok = token(32_000);
    let content = format!("# Closing {tok}\n\n{}", soup(32_000));
    c.ok("create_memory", json!({"name": "closing/last", "content": content}));
    // Closes stdin and waits for the server to exit.
    drop(c);
    let dir = env.vault().join("indices");
    assert!(!dir.join("pending").exists(), "an index write was cut short");
    let manifest = memlane::index::manifest::Manifest::load(&dir).unwrap();
    assert!(manifest.get("closing/last").is_some(), "the last write was not indexed");
    let out = run_ok(&env, &["search", &tok, "--json", "-n", "1", "--no-touch"]);
    assert!(out.contains("closing/last"), "{out}");
    assert_consistent(&env);
}

/// Creates memories through `c` one at a time (numbered from `first`, each waited for by a
/// search) until one leaves a merge of small keyword segments running, held at its end: the
/// server then keeps the index lock. Returns the (number, token) of each memory created.
fn create_until_a_merge_runs(env: &TestEnv, c: &mut Client, first: usize) -> Vec<(usize, String)> {
    let mut made = Vec::new();
    for n in first..first + 20 {
        let tok = token(n);
        let content = format!("# Merge {tok}\n\n{}", soup(n));
        c.ok("create_memory", json!({"name": format!("merge/m{n}"), "content": content}));
        // The index update runs after the answer: the next call waits for it.
        let found = c.ok("search_memories", json!({"query": tok, "limit": 1}));
        assert!(found.to_string().contains(&format!("merge/m{n}")), "{n}: {found}");
        made.push((n, tok));
        if !index_lock_free(env) {
            return made;
        }
    }
    panic!("20 small writes and no merge kept the index lock");
}

/// A server's small write answers while the merge of small keyword segments it started runs
/// on, and the server keeps the index lock until the merge has ended (here: held at its end).
/// Meanwhile another process's write waits while the server's own writes go on and are found;
/// once the merge has ended the other write lands, and a kill of the server in the middle of a
/// merge loses nothing.
#[test]
fn a_merge_left_running_by_a_server_write_holds_back_only_other_processes_writes() {
    let env = TestEnv::with_vault("basic");
    run_ok(&env, &["reindex"]);
    let gate = env.root.join("merge-go");
    let held = format!("index.merged@{}", gate.display());
    let mut c = Client::start_with(&env, &[("MEMLANE_FAILPOINT", &held)]);
    c.initialize();
    let mut made = create_until_a_merge_runs(&env, &mut c, 40_000);
    // Another process has a memory to index (`add` leaves that to the next command), and
    // does it itself (it does not find the server to ask, see `fresh_watch.rs`): its index
    // write waits.
    run_ok(&env, &["add", "merge/cli", "--force", "# From a terminal\n\nqzcliwrite."]);
    let mut other = env
        .command()
        .env("XDG_RUNTIME_DIR", env.root.join("no-server-here"))
        .args(["search", "qzcliwrite", "--json", "-n", "1", "--no-touch"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert!(other.try_wait().unwrap().is_none(), "the index write did not wait for the merge");
    // The server's own write goes on meanwhile.
    let tok = token(40_050);
    let content = format!("# Merge {tok}\n\n{}", soup(40_050));
    c.ok("create_memory", json!({"name": "merge/m40050", "content": content}));
    let found = c.ok("search_memories", json!({"query": tok, "limit": 1}));
    assert!(found.to_string().contains("merge/m40050"), "{found}");
    made.push((40_050, tok));
    std::fs::write(&gate, "").unwrap();
    let out = other.wait_with_output().unwrap();
    assert!(out.status.success());
    let out = String::from_utf8_lossy(&out.stdout);
    assert!(out.contains("merge/cli"), "{out}");
    drop(c);
    // A server killed while its merge runs: nothing is lost.
    let gate = env.root.join("merge-go-again");
    let held = format!("index.merged@{}", gate.display());
    let mut c = Client::start_with(&env, &[("MEMLANE_FAILPOINT", &held)]);
    c.initialize();
    made.extend(create_until_a_merge_runs(&env, &mut c, 40_100));
    let _ = c.child.kill();
    c.child.wait().unwrap();
    assert!(index_lock_free(&env));
    for (n, tok) in made.iter().step_by(3).chain(made.last()) {
        let (code, out, err) = run(&env, &["search", tok, "--json", "-n", "1", "--no-touch"]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains(&format!("merge/m{n}")), "{n}: {out}");
        assert!(!err.contains("damaged"), "{err}");
    }
    assert_consistent(&env);
}

#[test]
fn a_write_waits_for_another_process_holding_the_vault_lock() {
    // See: #6. The OS lock on `state/vault.lock` serialises check-and-write (a holder killed with
    // SIGKILL releases it: the kill tests above go on writing after killing writers).
    let env = TestEnv::with_vault("basic");
    run_ok(&env, &["add", "shared-log", "--force", "# Shared log\n\nStarted."]);
    let lock_path = env.vault().join("state/vault.lock");
    // A live holder: the append waits until it lets go, then lands.
    let holder = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .unwrap();
    holder.lock().unwrap();
    let mut append = spawn(&env, &["append", "shared-log", "after the lock"]);
    std::thread::sleep(Duration::from_millis(300));
    assert!(append.try_wait().unwrap().is_none(), "the append did not wait for the lock");
    assert!(!body_of(&env, "shared-log").contains("after the lock"));
    holder.unlock().unwrap();
    assert!(append.wait().unwrap().success());
    assert!(body_of(&env, "shared-log").contains("after the lock"));
}

#[test]
fn an_interrupted_index_commit_is_rebuilt_and_a_live_one_is_left_alone() {
    // See: #6. A writer dies between its first and last index file (keyword, vector, graph,
    // manifest): it leaves `indices/pending` and no lock holder, and the next command rebuilds.
    let env = TestEnv::with_vault("basic");
    run_ok(&env, &["search", "deploy"]);
    let dir = env.vault().join("indices");
    let pending = dir.join("pending");
    assert!(!pending.exists(), "a finished write left its marker");

    // A live writer holds the lock while the marker is there: a reader neither waits nor
    // rebuilds.
    let lock = std::fs::OpenOptions::new().write(true).open(dir.join("write.lock")).unwrap();
    lock.lock().unwrap();
    std::fs::write(&pending, "").unwrap();
    let (code, out, err) = run(&env, &["-v", "search", "deploy", "--json", "--no-touch"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("deploy-notes"), "{out}");
    assert!(!err.contains("interrupted"), "{err}");
    lock.unlock().unwrap();

    // The writer died: the next command rebuilds and removes the marker.
    let (code, _, err) = run(&env, &["-v", "search", "deploy", "--json", "--no-touch"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("interrupted"), "no rebuild:\n{err}");
    assert!(!pending.exists());

    // What a crash before the manifest save leaves: stores that hold a memory the manifest
    // does not know.
    let manifest_files = ["manifest.bin", "manifest.journal"];
    let old_manifest = manifest_files.map(|f| std::fs::read(dir.join(f)).ok());
    run_ok(&env, &["add", "late", "--force", "# Late\n\nqzlatevx arrives after the manifest"]);
    run_ok(&env, &["search", "qzlatevx", "--no-touch"]);
    for (f, old) in manifest_files.iter().zip(old_manifest) {
        match old {
            Some(bytes) => std::fs::write(dir.join(f), bytes).unwrap(),
            None => std::fs::remove_file(dir.join(f)).unwrap_or_default(),
        }
    }
    std::fs::write(&pending, "").unwrap();
    let out = run_ok(&env, &["search", "qzlatevx", "--json", "--no-touch"]);
    let hits: Value = serde_json::from_str(&out).unwrap();
    let hits = &hits["results"];
    assert_eq!(hits.as_array().map(Vec::len), Some(1), "{out}");
    assert_eq!(hits[0]["name"], "late", "{out}");
    assert!(!pending.exists());
    assert_consistent(&env);
}
