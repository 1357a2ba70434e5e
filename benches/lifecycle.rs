//! Lifecycle jobs at scale: `maintain` and `suggest-merges` on a generated vault, with
//! the built-in embedder.
//!
//! `cargo bench --bench lifecycle` (release). `MEMLANE_PERF_N` sets the number of memories
//! (default 10,000). The vault is like the perf bench's (~150 words, 3 paragraphs, 50 folders)
//! plus what the jobs look for: near-duplicates planted every 200 memories (one word changed),
//! two `[[memory:…]]` links per memory, a dead link every 500, an expired memory every 1,000,
//! and reads of 20 memories. Times the real binary (fresh process, the way a
//! user runs it) and the library calls in process. Prints a table; figures go into
//! BENCHMARKS.md.

#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "support/mod.rs"]
mod support;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use memlane::config::{ClockKind, Config};
use memlane::index::embed::BuiltinEmbedder;
use memlane::index::store::Indexes;
use memlane::lifecycle::consolidate::{maintain, suggest_merges};
use memlane::lifecycle::{ImportanceSource, UsageStore};
use memlane::vault::{Clock, Vault};
use support::Rng;

const NOW: &str = "2026-01-10T10:00:00Z";

/// Words added to [`support::WORDS`] for this vault: more vocabulary, so unrelated memories stay
/// clearly apart and only the planted pairs are near-duplicates.
const EXTRA_WORDS: &[&str] = &[
    "model",
    "weights",
    "benchmark",
    "fixture",
    "snapshot",
    "test",
    "lint",
    "format",
    "build",
    "cargo",
    "crate",
    "trait",
    "struct",
    "enum",
    "lifetime",
    "borrow",
    "tokio",
    "file",
    "path",
    "folder",
    "vault",
    "note",
    "link",
    "graph",
    "node",
    "edge",
    "for",
    "and",
    "of",
    "to",
    "in",
    "on",
];

fn name_of(i: usize) -> String {
    format!("area{:02}/m{i:05}", i % 50)
}

/// Writes `n` memories; returns how many near-duplicate pairs were planted.
fn generate(root: &Path, n: usize) -> usize {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let words: Vec<&str> = support::WORDS.iter().chain(EXTRA_WORDS).copied().collect();
    let types = ["decision", "fact", "journal", "bug_fix", "plan", "observation"];
    let mut planted = 0;
    let mut last_body = String::new();
    for i in 0..n {
        let dir = root.join(format!("area{:02}", i % 50));
        std::fs::create_dir_all(&dir).unwrap();
        let ty = types[i % types.len()];
        let body = if i % 200 == 1 && !last_body.is_empty() {
            // A near-duplicate of the previous memory: one word of the first paragraph changed.
            planted += 1;
            last_body.replacen(" the ", " a ", 1)
        } else {
            let mut body =
                format!("# Note {i} about {} {}\n\n", rng.pick(&words), rng.pick(&words));
            for p in 0..3 {
                if p == 2 {
                    body.push_str(&format!("## Details {}\n\n", rng.pick(&words)));
                }
                for _ in 0..50 {
                    body.push_str(rng.pick(&words));
                    body.push(' ');
                }
                body.push_str(&format!("code{i}_{p}\n\n"));
            }
            body
        };
        let mut links = format!(
            "See [[memory:{}]] and [[memory:{}]].\n",
            name_of(rng.below(n)),
            name_of(rng.below(n))
        );
        if i % 500 == 7 {
            links.push_str(&format!("Also [[memory:gone/m{i:05}]].\n"));
        }
        let expires = if i % 1000 == 3 { "expires_at: 2025-12-01T00:00:00Z\n" } else { "" };
        let text = format!(
            "---\ntype: {ty}\ntags: [{}, {}]\ncreated_at: 2025-{:02}-{:02}T10:00:00Z\n{expires}---\n\n{body}{links}",
            rng.pick(&words),
            rng.pick(&words),
            1 + i % 12,
            1 + i % 28
        );
        std::fs::write(dir.join(format!("m{i:05}.md")), text).unwrap();
        last_body = body;
    }
    planted
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

fn main() {
    let n = support::perf_n();
    let bin = env!("CARGO_BIN_EXE_memlane");
    let (tmp, root) = support::temp_vault();
    let t = Instant::now();
    let planted = generate(&root, n);
    println!(
        "generated {n} memories ({planted} planted near-duplicate pairs) in {}",
        secs(t.elapsed())
    );
    println!("load average at start: {}", load_average());

    let run = |args: &[&str]| {
        let out = Command::new(bin)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .args(args)
            .env("MEMLANE_VAULT", &root)
            .env("MEMLANE_NOW", NOW)
            .env("HOME", tmp.path())
            .env("XDG_DATA_HOME", tmp.path().join("data"))
            .env("XDG_CONFIG_HOME", tmp.path().join("config"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        out
    };
    let timed = |args: &[&str]| {
        let t = Instant::now();
        let out = run(args);
        (t.elapsed(), serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap())
    };

    let t = Instant::now();
    run(&["reindex", "-q"]);
    println!("reindex (setup): {}", secs(t.elapsed()));
    // Reads of 20 memories, so importance has usage to work with.
    let t = Instant::now();
    for i in (0..n).step_by(n.div_ceil(20).max(1)) {
        run(&["show", &name_of(i), "-q"]);
    }
    println!("reads recorded (setup): {}", secs(t.elapsed()));

    let (first, report) = timed(&["maintain", "--json"]);
    let count = |key: &str| report[key].as_array().map_or(0, Vec::len);
    println!(
        "memlane maintain, first run (fresh process): {} — {} dead links, {} expired and archived, \
         {} cold, {} merge suggestions, {} split candidates, importance of {} memories",
        secs(first),
        count("dead_links"),
        count("expired"),
        count("cold"),
        count("merge_suggestions"),
        count("split_candidates"),
        report["importance"]["computed"],
    );
    let mut again = Vec::new();
    for _ in 0..3 {
        let (d, r) = timed(&["maintain", "--json"]);
        assert!(r["expired"].as_array().unwrap().is_empty(), "a second run changes nothing");
        again.push(d);
    }
    again.sort();
    println!("memlane maintain, next runs (fresh process): median {}", secs(again[1]));

    let mut sm = Vec::new();
    let mut clusters = 0;
    for _ in 0..3 {
        let (d, r) = timed(&["suggest-merges", "--json", "-n", "1000"]);
        clusters = r.as_array().unwrap().len();
        sm.push(d);
    }
    sm.sort();
    println!(
        "memlane suggest-merges -n 1000 (fresh process): median {} — {clusters} clusters \
         ({planted} planted)",
        secs(sm[1])
    );

    // In process, indices open: the library calls alone.
    let vault = Vault::open(&root, Config::default(), Clock::pinned(NOW.parse().unwrap())).unwrap();
    let mut idx = Indexes::open(&vault, Arc::new(BuiltinEmbedder::new())).unwrap();
    idx.reconcile(&vault).unwrap();
    let t = Instant::now();
    let threshold = vault.config.lifecycle.merge_threshold;
    let c = suggest_merges(&vault, &idx, threshold, None, 1000).expect("suggest");
    println!("suggest_merges (in process): {} — {} clusters", secs(t.elapsed()), c.len());
    let (state, _) = UsageStore::open(vault.root()).unwrap();
    let t = Instant::now();
    let all =
        ImportanceSource::new(&idx, state.state(), vault.clock.now(), ClockKind::Activity).all();
    println!(
        "importance of every memory (in process): {} — {} memories",
        secs(t.elapsed()),
        all.len()
    );
    let t = Instant::now();
    let r = maintain(&vault, &idx, vault.clock.now()).unwrap();
    println!(
        "maintain (in process): {} — importance of {} memories",
        secs(t.elapsed()),
        r.importance.computed
    );
    println!("load average at end: {}", load_average());
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}
