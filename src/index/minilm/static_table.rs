//! Static token tables distilled from a sentence-transformer, and the [`StaticEmbedder`] that
//! embeds with one (model2vec-style: no forward pass, microseconds per chunk).
//!
//! The embedder is opt-in (`[embedding] model = "static:FILE"`): against the built-in embedder
//! it raises LoCoMo R@10 and keeps SciFact level, but finds few paraphrases (figures in
//! `BENCHMARKS.md`).
//!
//! [`distill`] runs the model once per vocabulary token (`[CLS] token [SEP]`, pooled as the model
//! pools), reduces the vectors to `dims` dimensions by PCA, weights each token by its vocabulary
//! rank (BERT vocabularies are roughly in frequency order, so rank stands in for frequency) and
//! quantises each row to `i8` with its own scale. The same model files and options always give
//! the same bytes.
//!
//! A table file is: the magic `MLSTATIC`, a little-endian `u32` format version, a `u32` length
//! and a JSON header ([`TableHeader`]: source model id, dimensions, vocabulary size, weighting),
//! a `u32` length and the WordPiece tokenizer (settings as a JSON line, then a token per line in
//! id order), `vocab × (f32 scale, dims × i8)` rows, and the xxh3-64 of everything before it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::wordpiece::WordPiece;
use super::{ModelError, SentenceEmbedder};
use crate::index::embed::{EmbedError, Embedder};

const MAGIC: &[u8; 8] = b"MLSTATIC";
/// Bumped whenever the file layout changes.
pub const FORMAT: u32 = 1;
/// Bumped whenever [`StaticEmbedder`] would give other vectors for the same table.
const ID_VERSION: &str = "static-v1";

/// How token rows are weighted by vocabulary rank `r` (0-based id).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Weighting {
    /// Smooth inverse frequency, `a / (a + p(r))` with `p(r) ∝ 1 / (r + 2)` (Zipf) and
    /// `a = 1e-4`, as model2vec does.
    Sif,
    /// `ln(1 + r)`, model2vec's earlier Zipf weighting.
    Zipf,
    /// Every token weighs 1.
    None,
}

impl Weighting {
    /// The name used on the command line and in the table header.
    pub fn name(self) -> &'static str {
        match self {
            Weighting::Sif => "sif",
            Weighting::Zipf => "zipf",
            Weighting::None => "none",
        }
    }

    fn weights(self, n: usize) -> Vec<f64> {
        match self {
            Weighting::None => vec![1.0; n],
            Weighting::Zipf => (0..n).map(|r| (1.0 + r as f64).ln()).collect(),
            Weighting::Sif => {
                const A: f64 = 1e-4;
                let total: f64 = (0..n).map(|r| 1.0 / (r as f64 + 2.0)).sum();
                (0..n).map(|r| A / (A + 1.0 / (r as f64 + 2.0) / total)).collect()
            }
        }
    }
}

/// What [`distill`] is asked for.
#[derive(Debug, Clone, Copy)]
pub struct DistillOptions {
    /// Dimensions kept by PCA (at most the model's).
    pub dims: usize,
    /// How rows are weighted.
    pub weighting: Weighting,
}

/// The JSON header of a table file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableHeader {
    /// The source model's embedder id (`st-bert-v1:<dim>:<hash of its files>`).
    pub source_model: String,
    /// Dimensions of every row.
    pub dims: usize,
    /// Rows (the tokenizer's vocabulary size).
    pub vocab: usize,
    /// How rows were weighted.
    pub weighting: Weighting,
    /// How rows are stored: `i8-row-scale`.
    pub quantisation: String,
}

/// Distils a static table from `model`: the bytes of the table file (see the module docs).
pub fn distill(model: &SentenceEmbedder, options: DistillOptions) -> Result<Vec<u8>, ModelError> {
    let (wp, vectors) = model.token_vectors()?;
    let tokenizer = wp.to_cache_text().ok_or_else(|| ModelError::Unsupported {
        path: model.dir().join(super::TOKENIZER_FILE),
        what: "a vocabulary token holds a line break".into(),
    })?;
    let dims = options.dims.clamp(1, model.dim());
    let mut rows = pca(&vectors, dims);
    let special = wp.special_ids();
    for ((id, row), w) in rows.iter_mut().enumerate().zip(options.weighting.weights(vectors.len()))
    {
        if special.contains(&(id as u32)) {
            row.fill(0.0);
        }
        row.iter_mut().for_each(|x| *x *= w);
    }
    let header = TableHeader {
        source_model: model.id().to_owned(),
        dims,
        vocab: rows.len(),
        weighting: options.weighting,
        quantisation: "i8-row-scale".into(),
    };
    let header = serde_json::to_vec(&header).expect("header serialises");
    let mut out = Vec::with_capacity(rows.len() * (dims + 4) + tokenizer.len() + 64);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    out.extend_from_slice(&header);
    out.extend_from_slice(&(tokenizer.len() as u32).to_le_bytes());
    out.extend_from_slice(tokenizer.as_bytes());
    for row in &rows {
        let max = row.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let scale = if max > 0.0 { max / 127.0 } else { 0.0 };
        out.extend_from_slice(&(scale as f32).to_le_bytes());
        for x in row {
            let q = if scale > 0.0 { (x / scale).round().clamp(-127.0, 127.0) as i8 } else { 0 };
            out.push(q as u8);
        }
    }
    let sum = xxhash_rust::xxh3::xxh3_64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    Ok(out)
}

/// The vectors centred and projected on their `dims` principal components (largest variance
/// first; each component's sign chosen so its largest coordinate is positive), in `f64`.
fn pca(vectors: &[Vec<f32>], dims: usize) -> Vec<Vec<f64>> {
    let d = vectors.first().map_or(0, Vec::len);
    let n = vectors.len().max(1) as f64;
    let mut mean = vec![0.0f64; d];
    for v in vectors {
        for (m, x) in mean.iter_mut().zip(v) {
            *m += f64::from(*x) / n;
        }
    }
    let mut cov = vec![0.0f64; d * d];
    let mut c = vec![0.0f64; d];
    for v in vectors {
        for ((ci, x), m) in c.iter_mut().zip(v).zip(&mean) {
            *ci = f64::from(*x) - m;
        }
        for i in 0..d {
            let ci = c[i];
            let row = &mut cov[i * d..i * d + i + 1];
            for (r, cj) in row.iter_mut().zip(&c[..=i]) {
                *r += ci * cj;
            }
        }
    }
    for i in 0..d {
        for j in 0..i {
            cov[j * d + i] = cov[i * d + j];
        }
    }
    let (values, vecs) = jacobi_eigen(cov, d);
    let mut order: Vec<usize> = (0..d).collect();
    order.sort_by(|&a, &b| values[b].total_cmp(&values[a]).then(a.cmp(&b)));
    let components: Vec<Vec<f64>> = order
        .iter()
        .take(dims)
        .map(|&k| {
            let mut comp: Vec<f64> = (0..d).map(|i| vecs[i * d + k]).collect();
            let big =
                comp.iter().copied().fold(0.0f64, |m, x| if x.abs() > m.abs() { x } else { m });
            if big < 0.0 {
                comp.iter_mut().for_each(|x| *x = -*x);
            }
            comp
        })
        .collect();
    vectors
        .iter()
        .map(|v| {
            for ((ci, x), m) in c.iter_mut().zip(v).zip(&mean) {
                *ci = f64::from(*x) - m;
            }
            components.iter().map(|comp| comp.iter().zip(&c).map(|(a, b)| a * b).sum()).collect()
        })
        .collect()
}

#[cfg(test)]
pub(super) fn pca_for_tests(vectors: &[Vec<f32>], dims: usize) -> Vec<Vec<f64>> {
    pca(vectors, dims)
}

/// Eigenvalues and eigenvectors (columns of the returned row-major matrix) of the symmetric
/// `d × d` matrix `a`, by cyclic Jacobi rotations.
fn jacobi_eigen(mut a: Vec<f64>, d: usize) -> (Vec<f64>, Vec<f64>) {
    let mut v = vec![0.0f64; d * d];
    for i in 0..d {
        v[i * d + i] = 1.0;
    }
    let total: f64 = a.iter().map(|x| x * x).sum();
    for _sweep in 0..50 {
        let off: f64 = (0..d)
            .flat_map(|i| (0..d).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i * d + j].powi(2))
            .sum();
        if off <= total * 1e-24 {
            break;
        }
        for p in 0..d {
            for q in p + 1..d {
                let apq = a[p * d + q];
                if apq.abs() <= f64::MIN_POSITIVE {
                    continue;
                }
                let theta = (a[q * d + q] - a[p * d + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..d {
                    let (akp, akq) = (a[k * d + p], a[k * d + q]);
                    a[k * d + p] = c * akp - s * akq;
                    a[k * d + q] = s * akp + c * akq;
                }
                for k in 0..d {
                    let (apk, aqk) = (a[p * d + k], a[q * d + k]);
                    a[p * d + k] = c * apk - s * aqk;
                    a[q * d + k] = s * apk + c * aqk;
                }
                for k in 0..d {
                    let (vkp, vkq) = (v[k * d + p], v[k * d + q]);
                    v[k * d + p] = c * vkp - s * vkq;
                    v[k * d + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    ((0..d).map(|i| a[i * d + i]).collect(), v)
}

/// An embedder that averages the distilled rows of a text's word pieces (the special tokens and
/// `[UNK]` left out) and L2-normalises the result; a text without any word piece embeds to the
/// zero vector.
pub struct StaticEmbedder {
    path: PathBuf,
    id: String,
    header: TableHeader,
    tokenizer: WordPiece,
    special: Vec<u32>,
    /// Per row: its scale, then `dims` quantised values.
    scales: Vec<f32>,
    rows: Vec<i8>,
}

impl std::fmt::Debug for StaticEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaticEmbedder")
            .field("path", &self.path)
            .field("id", &self.id)
            .field("header", &self.header)
            .finish_non_exhaustive()
    }
}

impl StaticEmbedder {
    /// Reads the table file at `path`. A missing, unreadable, truncated or damaged file is a
    /// [`ModelError::Table`] naming it.
    pub fn open(path: &Path) -> Result<Self, ModelError> {
        let bytes = std::fs::read(path).map_err(|e| ModelError::Table {
            path: path.to_owned(),
            what: if path.is_file() {
                format!("it cannot be read ({e})")
            } else {
                "no such file".into()
            },
        })?;
        Self::from_bytes(path, &bytes)
    }

    /// Parses a table file's bytes; `path` names it in errors and is [`path`](Self::path).
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Self, ModelError> {
        let bad = |what: &str| ModelError::Table { path: path.to_owned(), what: what.to_owned() };
        if bytes.len() < 8 || &bytes[..8] != MAGIC {
            return Err(bad("not a memlane static table (wrong magic bytes)"));
        }
        let (body, sum) = bytes.split_at(bytes.len().saturating_sub(8).max(8));
        let sum: [u8; 8] = sum.try_into().map_err(|_| bad("the file is truncated"))?;
        if xxhash_rust::xxh3::xxh3_64(body) != u64::from_le_bytes(sum) {
            return Err(bad("the checksum does not match (the file is damaged or truncated)"));
        }
        let mut at = 8;
        let mut take = |n: usize| -> Result<&[u8], ModelError> {
            let part = body.get(at..at + n).ok_or_else(|| bad("the file is truncated"))?;
            at += n;
            Ok(part)
        };
        let format = u32::from_le_bytes(take(4)?.try_into().expect("4 bytes"));
        if format != FORMAT {
            return Err(bad(&format!("format version {format}, this memlane reads {FORMAT}")));
        }
        let len = u32::from_le_bytes(take(4)?.try_into().expect("4 bytes")) as usize;
        let header: TableHeader = serde_json::from_slice(take(len)?)
            .map_err(|e| bad(&format!("the header is not valid: {e}")))?;
        let len = u32::from_le_bytes(take(4)?.try_into().expect("4 bytes")) as usize;
        let text =
            std::str::from_utf8(take(len)?).map_err(|_| bad("the tokenizer is not UTF-8"))?;
        let tokenizer =
            WordPiece::from_cache_text(text).ok_or_else(|| bad("the tokenizer is not valid"))?;
        if tokenizer.vocab_size() != header.vocab || header.dims == 0 {
            return Err(bad("the header does not match the tokenizer"));
        }
        // Checked before anything is allocated: the header is read from a file.
        let stride = header.dims.checked_add(4);
        let size = stride.and_then(|s| s.checked_mul(header.vocab));
        let (Some(stride), Some(size)) = (stride, size) else {
            return Err(bad("the header's dimensions are out of range"));
        };
        let data = take(size)?;
        if at != body.len() {
            return Err(bad("unexpected bytes after the rows"));
        }
        let mut scales = Vec::with_capacity(header.vocab);
        let mut rows = Vec::with_capacity(header.vocab * header.dims);
        for row in data.chunks_exact(stride) {
            let scale = f32::from_le_bytes(row[..4].try_into().expect("4 bytes"));
            if !scale.is_finite() {
                return Err(bad("a row's scale is not a finite number"));
            }
            scales.push(scale);
            rows.extend(row[4..].iter().map(|&b| b as i8));
        }
        let id = format!("{ID_VERSION}:{}:{:016x}", header.dims, xxhash_rust::xxh3::xxh3_64(bytes));
        let mut special = tokenizer.special_ids();
        special.sort_unstable();
        Ok(Self { path: path.to_owned(), id, header, tokenizer, special, scales, rows })
    }

    /// The table file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The table's header.
    pub fn header(&self) -> &TableHeader {
        &self.header
    }

    /// Embeds one text: the normalised sum of its word pieces' rows.
    pub fn embed(&self, text: &str) -> Vec<f32> {
        let dims = self.header.dims;
        let mut acc = vec![0.0f32; dims];
        for id in self.tokenizer.encode(text, usize::MAX) {
            if self.special.binary_search(&id).is_ok() {
                continue;
            }
            let i = id as usize;
            let (Some(&scale), Some(row)) =
                (self.scales.get(i), self.rows.get(i * dims..(i + 1) * dims))
            else {
                continue;
            };
            for (a, &q) in acc.iter_mut().zip(row) {
                *a += scale * f32::from(q);
            }
        }
        crate::index::math::normalise(&mut acc);
        acc
    }
}

impl Embedder for StaticEmbedder {
    fn id(&self) -> &str {
        &self.id
    }

    fn dim(&self) -> usize {
        self.header.dims
    }

    /// Never fails: a loaded table is arithmetic on the text.
    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|t| self.embed(t)).collect())
    }
}
