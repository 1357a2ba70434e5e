//! How soon an edited file is searchable while `VaultWatcher` runs (the target: ≤ 300 ms at
//! 10k memories), with the built-in embedder.
//!
//! `cargo bench --bench watch` (release). `MEMLANE_PERF_N` sets the number of memories (default
//! 10,000), `MEMLANE_WATCH_ROUNDS` the number of saves (default 20), `MEMLANE_WATCH_DEBOUNCE_MS`
//! the debounce (default: the watcher's). Each round saves one memory the way an editor does
//! (temp file, fsync, rename over) with a new unique word, then measures until
//! - `indexed`: the watcher's pass that indexed it has committed (its callback ran), and
//! - `searchable`: a fresh reader (`Indexes::open` + `search`, no reconcile) finds the word,
//!   polled every 2 ms (each poll opens the indices, so this includes one open).
//!
//! Prints median and p95; figures go into BENCHMARKS.md.

#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "support/mod.rs"]
mod support;

use std::sync::Arc;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use memlane::config::Config;
use memlane::index::embed::BuiltinEmbedder;
use memlane::index::store::Indexes;
use memlane::search::{SearchQuery, Signals, search};
use memlane::vault::{Clock, Vault, atomic_write};
use memlane::watch::{BatchKind, VaultWatcher, WatchOptions};
use support::generate;

fn pct(mut v: Vec<Duration>, p: usize) -> f64 {
    v.sort();
    v[(v.len() * p / 100).min(v.len() - 1)].as_secs_f64() * 1000.0
}

fn env_num(key: &str, default: u64) -> u64 {
    std::env::var(key).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

fn main() {
    if let Ok(filter) = std::env::var("MEMLANE_LOG") {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_writer(std::io::stderr)
            .without_time()
            .init();
    }
    let n = support::perf_n();
    let rounds = env_num("MEMLANE_WATCH_ROUNDS", 20) as usize;
    let debounce = Duration::from_millis(env_num(
        "MEMLANE_WATCH_DEBOUNCE_MS",
        memlane::watch::DEFAULT_DEBOUNCE.as_millis() as u64,
    ));
    let (_tmp, root) = support::temp_vault();
    generate(&root, n);
    let mut config = Config::default();
    config.embedding.model = "builtin".into();
    // The generated memories are months old and some have short-lived types: the probe only
    // asks whether the edit is indexed, not how it ranks.
    config.search.score_threshold = 0.0;
    let vault = Arc::new(
        Vault::open(&root, config, Clock::pinned("2026-01-10T10:00:00Z".parse().unwrap())).unwrap(),
    );
    let t = Instant::now();
    let mut idx = Indexes::open(&vault, Arc::new(BuiltinEmbedder::new())).unwrap();
    idx.rebuild(&vault, &mut |_| {}).unwrap();
    drop(idx);
    println!("{n} memories indexed in {:.1} s", t.elapsed().as_secs_f64());

    let (tx, rx) = channel();
    let opts = WatchOptions { debounce, ..WatchOptions::default() };
    let t = Instant::now();
    let watcher = VaultWatcher::start(vault.clone(), opts, move |r| {
        let _ = tx.send((Instant::now(), r));
    })
    .unwrap();
    let (_, start) = rx.recv().unwrap();
    assert_eq!(start.kind, BatchKind::Start);
    println!(
        "watcher started, start pass by content hash over {n} files: {:.0} ms (pass {} ms)",
        t.elapsed().as_secs_f64() * 1000.0,
        start.elapsed_ms
    );

    let (mut bumped, mut indexed, mut searchable, mut passes) = (vec![], vec![], vec![], vec![]);
    for round in 0..rounds {
        let i = (round * 7919) % n;
        let name = format!("area{:02}/m{i:05}", i % 50);
        let path = root.join(format!("{name}.md"));
        let unique = format!("xylo{round}quark");
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str(&format!("\nEdited: {unique}\n"));
        let g0 = watcher.generation();
        atomic_write(&path, text.as_bytes()).unwrap();
        let saved = Instant::now();

        while watcher.generation() == g0 {
            std::thread::sleep(Duration::from_micros(200));
        }
        bumped.push(saved.elapsed());

        let mut found = None;
        while found.is_none() {
            let reader = Indexes::open(&vault, Arc::new(BuiltinEmbedder::new())).unwrap();
            let hits =
                search(&vault, &reader, &SearchQuery::new(unique.as_str()), &Signals::neutral())
                    .unwrap();
            if hits.hits.first().is_some_and(|h| h.name == name) {
                found = Some(saved.elapsed());
            } else {
                std::thread::sleep(Duration::from_millis(2));
            }
            assert!(saved.elapsed() < Duration::from_secs(30), "{name} never became searchable");
        }
        searchable.push(found.unwrap());
        loop {
            let (at, r) = rx.recv_timeout(Duration::from_secs(30)).expect("no pass");
            if r.indexed.contains(&name) {
                indexed.push(at - saved);
                passes.push(Duration::from_millis(r.elapsed_ms));
                break;
            }
        }
        // Let the debouncer forget the path before the next round.
        std::thread::sleep(debounce * 3);
    }
    drop(watcher);
    let row = |label: &str, v: &Vec<Duration>| {
        println!(
            "{label:<44} median {:>7.1} ms   p95 {:>7.1} ms",
            pct(v.clone(), 50),
            pct(v.clone(), 95)
        );
    };
    println!("{rounds} saves, debounce {} ms:", debounce.as_millis());
    row("generation bumped after save", &bumped);
    row("reconcile pass (the saved file indexed)", &passes);
    row("indexed (pass committed) after save", &indexed);
    row("searchable by a fresh reader after save", &searchable);
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        println!("load average: {}", load.trim());
    }
}
