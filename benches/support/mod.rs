//! What the benches share: a generated vault of realistic memories and latency statistics.
//!
//! Included with `#[path = "support/mod.rs"] mod support;` (Cargo does not build this folder
//! as a bench of its own).

#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

/// The vocabulary of generated memories.
pub const WORDS: &[&str] = &[
    "auth",
    "token",
    "session",
    "cache",
    "redis",
    "postgres",
    "migration",
    "deploy",
    "release",
    "pipeline",
    "schema",
    "index",
    "query",
    "latency",
    "budget",
    "review",
    "design",
    "module",
    "service",
    "client",
    "server",
    "request",
    "response",
    "error",
    "retry",
    "timeout",
    "queue",
    "worker",
    "batch",
    "stream",
    "event",
    "handler",
    "config",
    "secret",
    "rotation",
    "policy",
    "metric",
    "alert",
    "dashboard",
    "incident",
    "rollback",
    "feature",
    "flag",
    "experiment",
    "customer",
    "invoice",
    "payment",
    "refund",
    "order",
    "cart",
    "search",
    "ranking",
    "vector",
    "embedding",
    "keyword",
    "memory",
    "agent",
    "prompt",
    "context",
    "window",
    "tokenizer",
    "parser",
    "compiler",
    "runtime",
    "thread",
    "lock",
    "mutex",
    "channel",
    "async",
    "future",
    "the",
    "a",
    "we",
    "decided",
    "because",
    "should",
    "will",
    "after",
    "before",
    "with",
    "without",
    "every",
    "never",
    "always",
    "when",
    "then",
    "because",
    "team",
    "agreed",
];

/// A xorshift generator: the same vault on every run.
pub struct Rng(pub u64);
impl Rng {
    /// The next number.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A word of [`WORDS`].
    pub fn word(&mut self) -> &'static str {
        self.pick(WORDS)
    }
    /// One of `words`.
    pub fn pick<'a>(&mut self, words: &[&'a str]) -> &'a str {
        words[self.below(words.len())]
    }
    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Writes `n` memories of ~150 words (50 folders, six types, two tags, a `##` section, and a
/// unique code word `code<i>_<p>` per paragraph) under `root`. Deterministic.
pub fn generate(root: &Path, n: usize) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let types = ["decision", "fact", "journal", "bug_fix", "plan", "observation"];
    for i in 0..n {
        let dir = root.join(format!("area{:02}", i % 50));
        std::fs::create_dir_all(&dir).unwrap();
        let ty = types[i % types.len()];
        let mut body = format!("# Note {i} about {} {}\n\n", rng.word(), rng.word());
        for p in 0..3 {
            if p == 2 {
                body.push_str(&format!("## Details {}\n\n", rng.word()));
            }
            for _ in 0..50 {
                body.push_str(rng.word());
                body.push(' ');
            }
            body.push_str(&format!("code{i}_{p}\n\n"));
        }
        let text = format!(
            "---\ntype: {ty}\ntags: [{}, {}]\ncreated_at: 2025-{:02}-{:02}T10:00:00Z\n---\n\n{body}",
            rng.word(),
            rng.word(),
            1 + i % 12,
            1 + i % 28
        );
        std::fs::write(dir.join(format!("m{i:05}.md")), text).unwrap();
    }
}

/// The median.
pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The 95th percentile.
pub fn p95(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[(v.len() * 95 / 100).min(v.len() - 1)]
}

/// Milliseconds with two decimals.
pub fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// `MEMLANE_PERF_N`: how many memories to generate (default 10,000).
pub fn perf_n() -> usize {
    std::env::var("MEMLANE_PERF_N").ok().and_then(|s| s.parse().ok()).unwrap_or(10_000)
}

/// A temporary folder and an empty vault (`.memories`) inside it; the folder goes when the
/// returned guard is dropped.
pub fn temp_vault() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join(".memories");
    std::fs::create_dir_all(&root).unwrap();
    (tmp, root)
}
