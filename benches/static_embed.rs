//! Time per chunk of the built-in embedder and of a static token table.
//!
//! `MEMLANE_STATIC_TABLE=FILE cargo bench --bench static_embed`, with a table made by
//! `memlane model distill --out FILE`. Embeds 2,000 generated 200-word chunks with each embedder,
//! three rounds, and prints the best round's mean microseconds per chunk and the table's load time.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::time::Instant;

use memlane::index::embed::{BuiltinEmbedder, Embedder};
use memlane::index::minilm::static_table::StaticEmbedder;

const WORDS: &[&str] = &[
    "the",
    "cache",
    "layer",
    "returned",
    "stale",
    "data",
    "after",
    "deploy",
    "we",
    "rotated",
    "tokens",
    "and",
    "raised",
    "connection",
    "pool",
    "size",
    "postgres",
    "replica",
    "lag",
    "alert",
    "fired",
    "on",
    "call",
    "engineer",
    "noticed",
    "latency",
    "spike",
    "in",
    "checkout",
    "service",
    "because",
    "kubernetes",
    "node",
    "ran",
    "out",
    "of",
    "memory",
    "authentication",
];

fn main() {
    let Some(path) = std::env::var_os("MEMLANE_STATIC_TABLE") else {
        eprintln!("skipped: set MEMLANE_STATIC_TABLE to a table made by `memlane model distill`");
        return;
    };
    let mut state = 7u64;
    let chunks: Vec<String> = (0..2000)
        .map(|_| {
            (0..200)
                .map(|_| {
                    state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    WORDS[(state >> 33) as usize % WORDS.len()]
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let texts: Vec<&str> = chunks.iter().map(String::as_str).collect();
    let start = Instant::now();
    let table = StaticEmbedder::open(std::path::Path::new(&path)).expect("a valid table");
    println!("static table load: {:.1} ms", start.elapsed().as_secs_f64() * 1e3);
    let builtin = BuiltinEmbedder::new();
    let embedders: [(&str, &dyn Embedder); 2] = [("built-in", &builtin), ("static", &table)];
    for (name, e) in embedders {
        let best = (0..3)
            .map(|_| {
                let t = Instant::now();
                let v = e.embed_batch(&texts).unwrap();
                assert_eq!(v.len(), texts.len());
                t.elapsed().as_secs_f64() * 1e6 / texts.len() as f64
            })
            .fold(f64::INFINITY, f64::min);
        println!("{name}: {best:.1} µs per 200-word chunk ({} dims)", e.dim());
    }
}
