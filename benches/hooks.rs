//! The session-start hook at scale: `memlane hook session-start` fed the event JSON Claude Code
//! sends, in a git working tree with changed files, on a generated vault.
//!
//! `cargo bench --bench hooks` (release). `MEMLANE_PERF_N` sets the number of memories (default
//! 10,000). The vault is the perf bench's (~150 words, 50 folders) plus 20 pinned memories and
//! 200 memories linked to 20 source files, 5 of which are modified in the working tree; the usage
//! state holds every memory (as after `memlane cold`). Times the real binary in a fresh process,
//! the way the client runs it (the vault found from the event's `cwd`), after one run that brings
//! the indices up to date, at the default budget and at `--budget 2000` (the linked memories
//! shown too), then once more without `graph/backlinks.json` (the whole graph loaded). Prints a
//! table; figures go into BENCHMARKS.md.

#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "support/mod.rs"]
mod support;

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::{generate, median, ms, p95};

const RUNS: usize = 21;

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=Bench", "-c", "user.email=bench@example.com"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn main() {
    let n = support::perf_n();
    let bin = env!("CARGO_BIN_EXE_memlane");
    let (tmp, root) = support::temp_vault();
    let project = tmp.path().to_path_buf();
    let t = Instant::now();
    generate(&root, n);
    for i in 0..20 {
        std::fs::write(
            root.join(format!("pinned-{i:02}.md")),
            format!("---\ntype: decision\npinned: true\n---\n\nRule {i}: always run the checks before a release, case {i}.\n"),
        )
        .unwrap();
    }
    std::fs::create_dir_all(project.join("src")).unwrap();
    for f in 0..20 {
        std::fs::write(project.join(format!("src/mod{f:02}.rs")), "fn main() {}\n").unwrap();
    }
    std::fs::create_dir_all(root.join("code")).unwrap();
    for i in 0..200 {
        std::fs::write(
            root.join(format!("code/note-{i:03}.md")),
            format!("---\ntype: code_context\n---\n\nThe parser in [[src/mod{:02}.rs]] keeps state {i}.\n", i % 20),
        )
        .unwrap();
    }
    println!("generated {} memories in {:.1} s", n + 220, t.elapsed().as_secs_f64());
    git(&project, &["init", "-q", "-b", "feature/parser"]);
    std::fs::write(project.join(".gitignore"), ".memories/\n").unwrap();
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-q", "-m", "start"]);
    for f in 0..5 {
        std::fs::write(project.join(format!("src/mod{f:02}.rs")), "fn main() { run() }\n").unwrap();
    }

    let command = |args: &[&str]| {
        let mut cmd = Command::new(bin);
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("MEMLANE_NOW", "2026-01-10T10:00:00Z")
            .env("HOME", tmp.path())
            .env("XDG_DATA_HOME", tmp.path().join("data"))
            .env("XDG_CONFIG_HOME", tmp.path().join("config"))
            .current_dir(tmp.path().join("data"))
            .args(args);
        cmd
    };
    std::fs::create_dir_all(tmp.path().join("data")).unwrap();
    let run = |args: &[&str], stdin: &str| -> (Duration, String) {
        let mut cmd = command(args);
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let t = Instant::now();
        let mut child = cmd.spawn().unwrap();
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let took = t.elapsed();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        (took, String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let vault = root.display().to_string();
    let t = Instant::now();
    run(&["--vault", &vault, "reindex", "-q"], "");
    println!("reindex (builtin, fresh process): {:.2} s", t.elapsed().as_secs_f64());
    // Every memory in the usage state, as in a vault in use.
    run(&["--vault", &vault, "cold", "-q"], "");

    let event = serde_json::json!({
        "session_id": "bench-session",
        "transcript_path": tmp.path().join("transcript.jsonl"),
        "cwd": project,
        "permission_mode": "default",
        "hook_event_name": "SessionStart",
        "source": "startup",
    })
    .to_string();
    // The first run after the reindex settles the usage state's first sightings. The 20 pinned
    // memories fill the default budget: a larger one shows the linked memories too.
    let (_, wide) = run(&["hook", "session-start", "--budget", "2000"], &event);
    assert!(wide.contains("pinned-") && wide.contains("→ src/mod0"), "{wide}");
    let (_, digest) = run(&["hook", "session-start"], &event);
    assert!(digest.contains("pinned-"), "{digest}");
    let timed = |args: &[&str], what: &str| {
        let times: Vec<Duration> = (0..RUNS).map(|_| run(args, &event).0).collect();
        let min = *times.iter().min().unwrap();
        println!(
            "hook session-start{what}, {} memories, fresh process: median {}, p95 {}, min {} ({RUNS} runs)",
            n + 220,
            ms(median(times.clone())),
            ms(p95(times)),
            ms(min)
        );
    };
    timed(&["hook", "session-start"], "");
    println!("digest: {} lines, {} chars", digest.lines().count(), digest.chars().count());
    timed(&["hook", "session-start", "--budget", "2000"], " --budget 2000");
    println!("digest: {} lines, {} chars", wide.lines().count(), wide.chars().count());
    // Without the index of the links per file (as before it existed): the whole graph is loaded.
    let sidecar = root.join("indices/graph/backlinks.json");
    if sidecar.is_file() {
        std::fs::remove_file(&sidecar).unwrap();
        let (_, again) = run(&["hook", "session-start", "--budget", "2000"], &event);
        assert_eq!(again, wide, "the graph gives the same digest");
        timed(&["hook", "session-start"], " without backlinks.json (graph loaded)");
    }

    let times: Vec<Duration> = (0..RUNS)
        .map(|_| run(&["--vault", &vault, "context", "--for", "parser state"], "").0)
        .collect();
    println!(
        "context --for (a search too), fresh process: median {}, p95 {}",
        ms(median(times.clone())),
        ms(p95(times))
    );
    let stop = serde_json::json!({
        "session_id": "bench-session",
        "cwd": project,
        "hook_event_name": "Stop",
        "stop_hook_active": false,
    })
    .to_string();
    let times: Vec<Duration> = (0..RUNS).map(|_| run(&["hook", "stop"], &stop).0).collect();
    println!("hook stop (already reminded), fresh process: median {}", ms(median(times)));
}
