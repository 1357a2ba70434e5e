//! Speed and memory of memlane on a generated vault, with the built-in embedder.
//!
//! `cargo bench --bench perf` (release). `MEMLANE_PERF_N` sets the number of memories
//! (default 10,000). Prints a table; figures go into BENCHMARKS.md.

#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "support/mod.rs"]
mod support;

use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use memlane::config::Config;
use memlane::index::embed::BuiltinEmbedder;
use memlane::index::store::Indexes;
use memlane::search::{SearchQuery, Signals, search};
use memlane::vault::{Clock, Vault};
use support::{generate, median, ms, p95};

fn main() {
    let n = support::perf_n();
    let bin = env!("CARGO_BIN_EXE_memlane");
    let (tmp, root) = support::temp_vault();
    let t = Instant::now();
    generate(&root, n);
    println!("generated {n} memories in {:.1} s", t.elapsed().as_secs_f64());

    let run = |args: &[&str]| {
        let (program, args) = match args.split_first() {
            Some((&"__time__", rest)) => ("/usr/bin/time", [&["-f", "%M", bin][..], rest].concat()),
            _ => (bin, args.to_vec()),
        };
        let out = Command::new(program)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .args(&args)
            .env("MEMLANE_VAULT", &root)
            .env("MEMLANE_NOW", "2026-01-10T10:00:00Z")
            .env("HOME", tmp.path())
            .env("XDG_DATA_HOME", tmp.path().join("data"))
            .env("XDG_CONFIG_HOME", tmp.path().join("config"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        out
    };

    // Under /usr/bin/time when there is one, for the peak RSS of the full reindex.
    let timed = std::path::Path::new("/usr/bin/time").is_file();
    let t = Instant::now();
    let out = if timed { run(&["__time__", "reindex", "-q"]) } else { run(&["reindex", "-q"]) };
    let reindex = t.elapsed();
    println!("reindex (builtin, fresh process): {:.2} s", reindex.as_secs_f64());
    if timed {
        let err = String::from_utf8_lossy(&out.stderr);
        if let Some(kb) = err.lines().last().and_then(|l| l.trim().parse::<u64>().ok()) {
            println!("peak RSS, full reindex: {:.1} MB", kb as f64 / 1024.0);
        }
    }

    let queries = [
        "auth token rotation",
        "postgres migration rollback",
        "redis cache latency",
        "code1234_1",
        "deploy pipeline incident",
        "vector embedding ranking",
    ];
    let mut fresh = Vec::new();
    for _ in 0..5 {
        for q in queries {
            let t = Instant::now();
            run(&["search", q, "--json", "--no-touch"]);
            fresh.push(t.elapsed());
        }
    }
    println!("search, fresh process: median {} p95 {}", ms(median(fresh.clone())), ms(p95(fresh)));

    let rss = Command::new("/usr/bin/time")
        .env_clear()
        .args(["-f", "%M", bin, "search", "auth token rotation", "--json"])
        .env("MEMLANE_VAULT", &root)
        .env("HOME", tmp.path())
        .env("XDG_DATA_HOME", tmp.path().join("data"))
        .output();
    if let Ok(out) = rss {
        let err = String::from_utf8_lossy(&out.stderr);
        if let Some(kb) = err.lines().last().and_then(|l| l.trim().parse::<u64>().ok()) {
            println!("peak RSS, search in a fresh process: {:.1} MB", kb as f64 / 1024.0);
        }
    } else {
        println!("peak RSS: skipped (/usr/bin/time not available)");
    }

    // In-process: the no-change reconcile and search as the MCP server would run them.
    let vault = Vault::open(
        &root,
        Config::default(),
        Clock::pinned("2026-01-10T10:00:00Z".parse().unwrap()),
    )
    .unwrap();
    let mut idx = Indexes::open(&vault, Arc::new(BuiltinEmbedder::new())).unwrap();
    let mut rec = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        let r = idx.reconcile(&vault).unwrap();
        rec.push(t.elapsed());
        assert!(!r.changed());
    }
    println!(
        "no-change reconcile (in process): median {} p95 {}",
        ms(median(rec.clone())),
        ms(p95(rec))
    );
    let mut inproc = Vec::new();
    for _ in 0..10 {
        for q in queries {
            let t = Instant::now();
            let _ = search(&vault, &idx, &SearchQuery::new(q), &Signals::neutral()).unwrap();
            inproc.push(t.elapsed());
        }
    }
    println!(
        "search (in process, open indices): median {} p95 {}",
        ms(median(inproc.clone())),
        ms(p95(inproc))
    );
    search_with_open_indices(&vault, &idx, &queries);

    // One edited file: reconcile picks it up.
    let f = root.join("area07/m00007.md");
    let mut text = std::fs::read_to_string(&f).unwrap();
    text.push_str("\nfreshly edited zanzibar\n");
    std::fs::write(&f, text).unwrap();
    let t = Instant::now();
    let r = idx.reconcile(&vault).unwrap();
    println!("one edited file reconciled in {} ({} updated)", ms(t.elapsed()), r.updated);
}

/// The in-server figure ("search inside the MCP server"): searches on indices that stay
/// open between calls, as the MCP server holds them, after a first search has paid the lazy
/// set-up; plain, and with a type filter (the filtered vector search path).
fn search_with_open_indices(vault: &Vault, idx: &Indexes, queries: &[&str]) {
    let mut plain = Vec::new();
    let mut filtered = Vec::new();
    for _ in 0..20 {
        for q in queries {
            let t = Instant::now();
            let _ = search(vault, idx, &SearchQuery::new(*q), &Signals::neutral()).unwrap();
            plain.push(t.elapsed());
            let mut fq = SearchQuery::new(*q);
            fq.types = vec!["decision".to_owned()];
            let t = Instant::now();
            let _ = search(vault, idx, &fq, &Signals::neutral()).unwrap();
            filtered.push(t.elapsed());
        }
    }
    println!(
        "search with indices already open (in-server): median {} p95 {}; with --type: median {} p95 {}",
        ms(median(plain.clone())),
        ms(p95(plain)),
        ms(median(filtered.clone())),
        ms(p95(filtered))
    );
    // Unfiltered searches only, as a server answering plain queries sees them.
    let mut only = Vec::new();
    for _ in 0..20 {
        for q in queries {
            let t = Instant::now();
            let _ = search(vault, idx, &SearchQuery::new(*q), &Signals::neutral()).unwrap();
            only.push(t.elapsed());
        }
    }
    println!(
        "search with indices already open, unfiltered queries only: median {} p95 {}",
        ms(median(only.clone())),
        ms(p95(only))
    );
}
