//! Retrieval quality on BEIR SciFact: BM25 (the keyword index), the built-in embedder (brute-force
//! cosine) and their weighted RRF fusion, scored with nDCG@10 and Recall@10 over the 300 test
//! queries.
//!
//! Run with `cargo bench --bench scifact`. The data directory is `$MEMLANE_SCIFACT_DIR`, by
//! default `../shared/bench/scifact` next to the crate; when it is missing the bench says so and
//! exits successfully. The data is CC BY-NC (evaluation only) and never ships with memlane.
//!
//! Each abstract becomes one memory: body `# {title}\n\n{text}`, chunked with `chunk_markdown`,
//! one keyword document and one vector per chunk; a document's score is its best chunk's.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use memlane::index::chunk::{ChunkOptions, chunk_markdown};
use memlane::index::embed::{BuiltinEmbedder, Embedder};
use memlane::index::keyword::{FieldBoosts, KeywordDoc, KeywordFilter, KeywordIndex};

/// Chunks retrieved per query and per retriever before aggregating to documents.
const CANDIDATES: usize = 100;
/// RRF constant.
const RRF_K: f32 = 60.0;

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

struct Chunked {
    doc: usize,
    header_path: String,
    text: String,
}

fn main() {
    let dir = std::env::var_os("MEMLANE_SCIFACT_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/bench/scifact"),
        PathBuf::from,
    );
    if !dir.join("corpus.jsonl").is_file() {
        println!(
            "scifact: skipped: no {} (set MEMLANE_SCIFACT_DIR to a BEIR SciFact directory)",
            dir.join("corpus.jsonl").display()
        );
        return;
    }
    // `cargo bench` passes `--bench`; ignore arguments.
    run(&dir);
}

fn read_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

fn run(dir: &Path) {
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
    let mut test: Vec<(&str, &str)> =
        qrels.keys().map(|q| (q.as_str(), queries[q].as_str())).collect();
    test.sort_by_key(|(id, _)| id.parse::<u64>().unwrap_or(u64::MAX));

    // Chunk. `MEMLANE_BENCH_MAX_CHARS` overrides the chunk size (for tuning).
    let mut opts = ChunkOptions::default();
    if let Some(max) = env_usize("MEMLANE_BENCH_MAX_CHARS") {
        opts.overlap_chars = max * opts.overlap_chars / opts.max_chars;
        opts.max_chars = max;
    }
    // `MEMLANE_BENCH_HEADERS=0` leaves the headers field empty (for tuning).
    let headers_on = std::env::var("MEMLANE_BENCH_HEADERS").map_or(true, |v| v != "0");
    let t = Instant::now();
    let mut chunks = Vec::new();
    for (i, doc) in corpus.iter().enumerate() {
        let body = format!("# {}\n\n{}", doc.title, doc.text);
        for c in chunk_markdown(&body, &opts) {
            chunks.push(Chunked { doc: i, header_path: c.header_path, text: c.text });
        }
    }
    let chunk_time = t.elapsed();

    // Keyword index.
    let t = Instant::now();
    let mut boosts = KeywordIndex::create_in_ram().expect("index").boosts();
    // `MEMLANE_BENCH_BOOSTS=title,headers,tags,body` overrides the field boosts (for tuning).
    if let Ok(spec) = std::env::var("MEMLANE_BENCH_BOOSTS") {
        let v: Vec<f32> = spec.split(',').map(|x| x.parse().expect("boost")).collect();
        boosts = FieldBoosts { title: v[0], headers: v[1], tags: v[2], body: v[3] };
    }
    let index = KeywordIndex::create_in_ram().expect("index").with_boosts(boosts);
    let mut writer = index.writer().expect("writer");
    for (n, c) in chunks.iter().enumerate() {
        let doc = &corpus[c.doc];
        writer
            .add(&KeywordDoc {
                chunk_id: &n.to_string(),
                memory_id: &doc.id,
                title: &doc.title,
                headers: if headers_on { &c.header_path } else { "" },
                body: &c.text,
                tags: &[],
                memory_type: "note",
                status: "active",
                created_unix: 0,
            })
            .expect("add");
    }
    writer.commit().expect("commit");
    drop(writer);
    let bm25_build = t.elapsed();

    // Vectors (the chunk text with its heading path, as the vector index embeds it).
    let embedder = match std::env::var("MEMLANE_BENCH_EMB") {
        Ok(spec) => {
            let v: Vec<&str> = spec.split(',').collect();
            BuiltinEmbedder::with_params(memlane::index::embed::Params {
                dim: v[0].parse().unwrap(),
                word: v[1].parse().unwrap(),
                ngram: v[2].parse().unwrap(),
                nmin: v[3].parse().unwrap(),
                nmax: v[4].parse().unwrap(),
                sqrt_norm: v[5] == "1",
                stop: v[6] == "1",
                lenw: v[7].parse().unwrap(),
                suffix: v[8].parse().unwrap(),
                prefix: v.get(11).map_or(1.0, |x| x.parse().unwrap()),
                idf: (v[9] != "0").then(|| {
                    let mut df: HashMap<String, f32> = HashMap::new();
                    for d in &corpus {
                        let text = format!("{} {}", d.title, d.text).to_lowercase();
                        let words: HashSet<&str> = text
                            .split(|c: char| !c.is_alphanumeric())
                            .filter(|w| !w.is_empty())
                            .collect();
                        for w in words {
                            *df.entry(w.to_string()).or_default() += 1.0;
                        }
                    }
                    let n = corpus.len() as f32;
                    let exp: f32 = v[10].parse().unwrap();
                    if v[9] != "1" {
                        // Binary prior: the top-N most frequent words get weight `exp`.
                        let top: usize = v[9].parse().unwrap();
                        let mut by_df: Vec<(String, f32)> = df.into_iter().collect();
                        by_df.sort_by(|a, b| b.1.total_cmp(&a.1));
                        return std::sync::Arc::new(
                            by_df.into_iter().take(top).map(|(w, _)| (w, exp)).collect(),
                        );
                    }
                    std::sync::Arc::new(
                        df.into_iter()
                            .map(|(w, f)| (w, (1.0 + (n - f + 0.5) / (f + 0.5)).ln().powf(exp)))
                            .collect(),
                    )
                }),
            })
        }
        Err(_) => BuiltinEmbedder::new(),
    };
    let t = Instant::now();
    let texts: Vec<String> = chunks
        .iter()
        .map(|c| {
            if c.text.starts_with('#') || c.header_path.is_empty() {
                c.text.clone()
            } else {
                format!("{}\n{}", c.header_path, c.text)
            }
        })
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let vectors = embedder.embed_batch(&refs);
    let embed_build = t.elapsed();

    let doc_ids: Vec<&str> = corpus.iter().map(|d| d.id.as_str()).collect();
    let mut bm25_runs = Vec::new();
    let mut vec_runs = Vec::new();
    let mut bm25_lat = Vec::new();
    let mut vec_lat = Vec::new();
    for (_, text) in &test {
        let t = Instant::now();
        let hits = index.search(text, &KeywordFilter::default(), CANDIDATES).expect("search");
        let ranked = dedupe(hits.iter().map(|h| h.memory_id.clone()));
        bm25_lat.push(t.elapsed());
        bm25_runs.push(ranked);

        let t = Instant::now();
        let q = embedder.embed_batch(&[text])[0].clone();
        let mut scored: Vec<(f32, usize)> =
            vectors.iter().enumerate().map(|(i, v)| (dot(&q, v), i)).collect();
        let k = CANDIDATES.min(scored.len());
        scored.select_nth_unstable_by(k.saturating_sub(1), |a, b| b.0.total_cmp(&a.0));
        scored.truncate(k);
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        let ranked = dedupe(scored.iter().map(|&(_, i)| doc_ids[chunks[i].doc].to_string()));
        vec_lat.push(t.elapsed());
        vec_runs.push(ranked);
    }

    let mut rows = vec![
        ("BM25 (tantivy, code analyzer)", evaluate(&test, &qrels, &bm25_runs)),
        ("builtin embedder (cosine)", evaluate(&test, &qrels, &vec_runs)),
    ];
    for (wb, wv, name) in [
        (0.4, 0.6, "RRF k=60, 0.4 BM25 / 0.6 vec"),
        (0.5, 0.5, "RRF k=60, 0.5 BM25 / 0.5 vec"),
        (0.6, 0.4, "RRF k=60, 0.6 BM25 / 0.4 vec"),
    ] {
        let fused: Vec<Vec<String>> =
            bm25_runs.iter().zip(&vec_runs).map(|(b, v)| fuse_rrf(b, v, wb, wv)).collect();
        rows.push((name, evaluate(&test, &qrels, &fused)));
    }

    println!();
    println!(
        "SciFact (BEIR test): {} docs, {} chunks (max {} chars, overlap {}), {} queries",
        corpus.len(),
        chunks.len(),
        opts.max_chars,
        opts.overlap_chars,
        test.len()
    );
    println!("{:<34} {:>8} {:>10}", "method", "nDCG@10", "Recall@10");
    for (name, (ndcg, recall)) in &rows {
        println!("{name:<34} {ndcg:>8.4} {recall:>10.4}");
    }
    println!();
    println!("chunking                 {:>9.1} ms", ms(chunk_time));
    println!("BM25 index build (RAM)   {:>9.1} ms", ms(bm25_build));
    println!(
        "builtin embed, {} chunks {:>6.1} ms ({:.1} µs/chunk)",
        chunks.len(),
        ms(embed_build),
        embed_build.as_secs_f64() * 1e6 / chunks.len() as f64
    );
    println!(
        "BM25 query (top {CANDIDATES} chunks), median {:.3} ms, p95 {:.3} ms",
        ms(percentile(&mut bm25_lat, 0.5)),
        ms(percentile(&mut bm25_lat, 0.95))
    );
    println!(
        "vector query (embed + brute force), median {:.3} ms, p95 {:.3} ms",
        ms(percentile(&mut vec_lat, 0.5)),
        ms(percentile(&mut vec_lat, 0.95))
    );
}

fn env_usize(name: &str) -> Option<usize> {
    std::env::var(name).ok()?.parse().ok()
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Keeps the first (best) occurrence of each document.
fn dedupe(ids: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen = HashSet::new();
    ids.filter(|id| seen.insert(id.clone())).collect()
}

/// Weighted reciprocal-rank fusion of two ranked document lists.
fn fuse_rrf(a: &[String], b: &[String], wa: f32, wb: f32) -> Vec<String> {
    let mut scores: HashMap<&str, f32> = HashMap::new();
    for (list, w) in [(a, wa), (b, wb)] {
        for (rank, id) in list.iter().enumerate() {
            *scores.entry(id.as_str()).or_default() += w / (RRF_K + rank as f32 + 1.0);
        }
    }
    let mut fused: Vec<(&str, f32)> = scores.into_iter().collect();
    fused.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(y.0)));
    fused.into_iter().map(|(id, _)| id.to_string()).collect()
}

/// Mean nDCG@10 and Recall@10 (binary relevance).
fn evaluate(
    test: &[(&str, &str)],
    qrels: &HashMap<String, HashSet<String>>,
    runs: &[Vec<String>],
) -> (f64, f64) {
    let (mut ndcg, mut recall) = (0.0, 0.0);
    for ((qid, _), run) in test.iter().zip(runs) {
        let relevant = &qrels[*qid];
        let mut dcg = 0.0;
        let mut found = 0usize;
        for (i, id) in run.iter().take(10).enumerate() {
            if relevant.contains(id) {
                dcg += 1.0 / ((i + 2) as f64).log2();
                found += 1;
            }
        }
        let ideal: f64 = (0..relevant.len().min(10)).map(|i| 1.0 / ((i + 2) as f64).log2()).sum();
        ndcg += dcg / ideal;
        recall += found as f64 / relevant.len() as f64;
    }
    let n = test.len() as f64;
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
