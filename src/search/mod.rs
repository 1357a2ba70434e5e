//! Search: one pipeline from a query to ranked, explained memories.
//!
//! 1. **Retrieve** chunks from the keyword index (BM25) and the vector index, C = max(min, factor ×
//!    limit) each, with the hard filters (type, tags, status, time window) applied inside retrieval.
//!    A memory is represented by its best chunk in each list.
//!
//!    1b. **Feedback** (`balanced` only): when most of the first BM25 retrieval's
//!    `feedback_memories` best memories are short lines of a transcript (`Name: …`), their
//!    informative words query a second BM25 retrieval, whose relative score adds to the lexical
//!    score of the memories with evidence of their own × the vault's feedback weight (in full
//!    where chunks average half of `question_chunk_terms` words or less, nothing from it on).
//! 2. **Fuse scores**, not ranks. Each candidate gets
//!    - a *lexical* score: `0.5 × bm25_norm + 0.5 × coverage` ([`LEXICAL_COVERAGE_SHARE`]), where
//!      `bm25_norm` is its BM25 score over the query's best BM25 score and `coverage` the
//!      IDF-weighted share of the query's terms found in a chunk, title and tags, measured on
//!      each of its retrieved BM25 chunks (`lexical_chunks`) and the best taken;
//!    - a *vector* score: the cosine rescaled by the embedder's [`similarity_range`] (0 at the
//!      noise floor, 1 at the ceiling, not capped above so near-duplicates keep their order). A
//!      candidate only BM25 found is scored with its chunk's stored vector.
//!
//!    The fused score is their weighted mean with the intent's weights, the vector weight scaled by
//!    [`vector_reliability`] (1 for a sentence model, [`BUILTIN_VECTOR_RELIABILITY`] for the
//!    built-in n-gram embedder, a weak signal that only breaks near-ties;
//!    [`STATIC_VECTOR_RELIABILITY`] for a static token table). The fused score alone
//!    orders the results of a query. Weighted RRF (k = `rrf_k`) is still computed for `--explain`
//!    and is what the `ragdocs` profile ranks by.
//!
//!    2a. **Speakers** (`balanced` only): a memory that opens with `Name:` (a transcript's
//!    line) is spoken by Name; when the query names that speaker (a capitalised word that is not
//!    a question word), its fused score is multiplied by `1 + subject_weight`.
//!
//!    2b. **Thread context** ([`context`], `balanced` only): a memory with evidence of its own
//!    gets `context_weight ×` the best fused score of its thread neighbours (memories of one
//!    folder written one after another); a reply — a transcript's line right after a line of
//!    another speaker that asks something — to one of the `limit` best memories is a candidate
//!    though neither list found it (when the best keyword matches are transcript lines), and
//!    gets `reply_weight ×` that question's score instead, when that is more.
//!
//!    2c. **Times in the query** ([`temporal`], `balanced` only): when the query names a time,
//!    the fused score is multiplied by `1 − temporal_weight × (1 − closeness)` of the memory's
//!    creation to that time.
//!
//!    The query's [question words](crate::index::keyword::analyzer::QUESTION_WORDS) weigh
//!    `question_weight` in BM25 and coverage when the query reads as a question, scaled by the
//!    vault's mean chunk length against `question_chunk_terms` (nothing where a chunk is a line of
//!    a conversation, in full where it holds a request with its answer).
//! 3. **Calibrate** to an absolute relevance in [0, 1]: `sigmoid(steepness × (gate −
//!    midpoint)) × fused / best fused`. The *gate* is the best absolute *evidence* among the
//!    query's candidates, evidence being the mean of `coverage` and the capped vector evidence
//!    with the fused score's weights (the built-in embedder's cosine counts little) — both
//!    absolute, unlike `bm25_norm` and ranks, which make the least-bad match look perfect. So
//!    the best result scores by how well anything matches (a query about nothing in the vault
//!    scores near 0 and falls under the threshold), the others in proportion to their fused
//!    score, and the order is exactly the fused order. The `ragdocs` profile uses that system's
//!    sigmoid over the raw, unweighted RRF score instead.
//! 4. **Type profile**: the type's weight (bounded: `1 − (1 − r)^weight`), × 1 / (1 + age / half-life).
//! 5. **Recency**: + max_boost × rate^age within the type's window; outside the `ragdocs` profile
//!    scaled by the calibrated relevance (it never lifts a non-match) and by the headroom below 1
//!    (a strong match never reaches the clamp, where ties would erase the order).
//! 6. **Temperature**: × (0.3 + 0.7 T) — T from the usage state ([`Signals::from_usage`]), else
//!    1. The `mira` profile uses MIRA's importance I instead: × (0.3 + 0.7 I).
//! 7. **Supersession / expiry**: × penalty when superseded; × the expiration fade (a memory fully
//!    faded is no candidate at all, so it does not raise the gate either).
//! 8. **Threshold** on the calibrated relevance of stage 3 (the lifecycle stages 4–7 reorder
//!    what matches but never hide it; the `ragdocs` profile filters its final score), clamp to
//!    [0, 1], sort (score, then name), limit or token budget.
//!
//! Every stage's value is kept in [`Explain`] for `--explain`.
//!
//! ## Why score fusion (measured with `cargo bench --bench scifact`, BEIR SciFact, nDCG@10)
//!
//! - Rank fusion flattens BM25's score gaps: a clear lexical winner and a marginal one differ by
//!   1/61 − 1/62 in RRF. With the built-in embedder (0.51 alone) RRF 0.4/0.6 scores 0.58, below
//!   BM25 alone (0.68); ordering by the previous evidence-based calibration scored 0.63 (0.73
//!   with MiniLM).
//! - `bm25_norm` keeps BM25's term-frequency and length normalisation, which coverage lacks;
//!   coverage rewards matching more of the query's distinct terms. Their even mix scores 0.693
//!   (BM25 alone 0.682, coverage alone ≈ 0.65); from 0.4 to 0.6 coverage share is a plateau.
//! - A sentence model is a strong second signal: MiniLM with the `general` weights 0.4/0.6 scores
//!   0.746 (RRF of the same lists 0.711, MiniLM alone 0.652). The built-in embedder's vectors
//!   help only as a tie-breaker: ≈ 6 % of the fused score adds 0.004; 20 % loses 0.002, 60 %
//!   loses 0.03 — hence [`BUILTIN_VECTOR_RELIABILITY`].
//! - Ordering by the fused score and gating the level by the best evidence keeps the ranking
//!   from depending on the absolute scale while the threshold still removes non-matches.

pub mod context;
pub mod fusion;
mod pipeline;
pub mod rank;
mod signals;
pub mod temporal;

use jiff::Timestamp;

use crate::config::{Intent, SearchProfile};
use crate::index::chunk::{ChunkOptions, chunk_markdown, estimate_tokens};
use crate::index::manifest::chunk_id;
use crate::index::store::{IndexError, Indexes};
use crate::model::MemoryName;
use crate::vault::Vault;

pub use signals::Signals;

/// What to search for.
#[derive(Debug, Clone)]
pub struct SearchQuery {
    /// The query text, as typed.
    pub text: String,
    /// How many results (the config's `search.limit` when `None`).
    pub limit: Option<usize>,
    /// Only these types (any of them).
    pub types: Vec<String>,
    /// Only memories with any of these tags.
    pub tags: Vec<String>,
    /// Only these statuses; empty means `active` (and `archived` with `include_archived`).
    pub statuses: Vec<String>,
    /// Also archived memories.
    pub include_archived: bool,
    /// Created at or after.
    pub after: Option<Timestamp>,
    /// Created before.
    pub before: Option<Timestamp>,
    /// The search intent (RRF weights).
    pub intent: Intent,
    /// Fill results up to this many estimated tokens instead of a count (at least one result).
    pub budget: Option<usize>,
    /// A ranking profile other than the configured one.
    pub profile: Option<SearchProfile>,
}

impl SearchQuery {
    /// A query with default settings.
    pub fn new(text: impl Into<String>) -> SearchQuery {
        SearchQuery {
            text: text.into(),
            limit: None,
            types: Vec::new(),
            tags: Vec::new(),
            statuses: Vec::new(),
            include_archived: false,
            after: None,
            before: None,
            intent: Intent::General,
            budget: None,
            profile: None,
        }
    }
}

/// Every stage's value for one result (`--explain`).
#[derive(Debug, Clone, Default, serde::Serialize, schemars::JsonSchema)]
pub struct Explain {
    /// Rank of the memory's best chunk in the BM25 list (1-based).
    pub bm25_rank: Option<usize>,
    /// BM25 score of that chunk.
    pub bm25_score: Option<f32>,
    /// Rank in the vector list.
    pub vector_rank: Option<usize>,
    /// Cosine similarity of the memory's best chunk to the query.
    pub vector_similarity: Option<f32>,
    /// Weighted RRF score (orders nothing outside the `ragdocs` profile; kept for comparison).
    pub rrf: f64,
    /// IDF-weighted share of query terms found in the chunk `lexical_chunk` (the memory's
    /// vector chunk when BM25 did not retrieve it), title and tags; a term found only through an
    /// expansion counts at `search.expansion_weight`.
    pub coverage: f64,
    /// `coverage` of the query's terms other than its question words (all of them when it has
    /// nothing else): what `evidence` counts.
    pub content_coverage: f64,
    /// The query-term expansions that stood in for a missing term there (`auth→authent`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub expanded_terms: Vec<String>,
    /// BM25 score of the chunk `lexical_chunk` relative to the query's best BM25 score (0 when
    /// BM25 did not retrieve it).
    pub bm25_norm: f64,
    /// Stage 1b: the memory's score in the feedback retrieval (the informative words of the
    /// first keyword retrieval's best memories, when most of them are lines of a transcript)
    /// relative to that retrieval's best; 0 when it did not retrieve it or there was no
    /// feedback (`search.feedback_weight`; none in a vault of long chunks).
    pub feedback: f64,
    /// Lexical score: an even mix of `bm25_norm` and `coverage` (`LEXICAL_COVERAGE_SHARE`), of
    /// the memory's retrieved chunk where that mix is best; for a memory with evidence of its
    /// own, plus the vault's feedback weight × `feedback`.
    pub lexical: f64,
    /// The ordinal of that chunk (0 is the memory's first), on which `coverage` and `bm25_norm`
    /// were measured: of a long memory, the section that holds the most of the question
    /// (`search.lexical_chunks`).
    pub lexical_chunk: usize,
    /// Vector similarity normalised to [0, 1] for this embedder (`similarity_range`).
    pub vector_evidence: f64,
    /// The same rescaling without the cap at 1 (a near-duplicate still outranks a paraphrase):
    /// the vector side of the fused score.
    pub vector_score: f64,
    /// Absolute evidence: the intent-weighted mean of `content_coverage` and `vector_evidence`.
    pub evidence: f64,
    /// Stage 2: the fused score that orders results — the weighted mean of `lexical` and
    /// `vector_score` (intent weights, the vector's scaled by how far the embedder is trusted:
    /// `vector_reliability`).
    pub fused: f64,
    /// Stage 2: the share of the lexical side's weight used for this query with a sentence
    /// model, `floor + (1 − floor) × min(1, best coverage / 0.5)` (`search.lexical_trust_floor`;
    /// always 1 with the built-in embedder).
    pub lexical_trust: f64,
    /// Stage 2a: the speaker factor on `fused`, `1 + subject_weight` when the memory opens with
    /// `Name:` and the query names that speaker, else 1 (`search.subject_weight`).
    pub subject_factor: f64,
    /// Stage 2b: the best fused score among the memory's thread neighbours
    /// (`search.context_weight`), before their own context.
    pub context: f64,
    /// Stage 2b: the fused score, before its own context, of the line this memory replies to:
    /// the memory right before it in its thread, a line of a transcript by another speaker that
    /// asks something (`search.reply_weight`); 0 when it replies to no candidate.
    pub reply_to: f64,
    /// Stage 2b: what the thread context added to `fused`: `context_weight × context` or
    /// `reply_weight × reply_to`, whichever is more.
    pub context_bonus: f64,
    /// Stage 2c: how close the memory's creation is to a time the query names (`temporal`):
    /// 1 inside it (or when the query names none), down to 0 far from it.
    pub time_closeness: f64,
    /// Stage 2c: the factor on `fused`, `1 − temporal_weight × (1 − time_closeness)`.
    pub time_factor: f64,
    /// Stage 3: the query's gate — the best `evidence` among all candidates.
    pub gate: f64,
    /// Stage 3: calibrated relevance.
    pub calibrated: f64,
    /// Age in days used by stages 4 and 5.
    pub age_days: f64,
    /// Stage 4: the type's weight.
    pub type_weight: f64,
    /// Stage 4: the type's decay factor.
    pub type_decay: f64,
    /// Stage 5: the recency bonus added.
    pub recency_bonus: f64,
    /// Stage 6: the temperature used.
    pub temperature: f64,
    /// Stage 6: its factor.
    pub temperature_factor: f64,
    /// Stage 6, `mira` profile only: the memory's MIRA importance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub importance: Option<f64>,
    /// Stage 6, `mira` profile only: its factor (`rank::importance_factor`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub importance_factor: Option<f64>,
    /// Stage 7: the supersession factor.
    pub supersession_factor: f64,
    /// Stage 7: the expiration fade.
    pub expiry_factor: f64,
    /// Stage 8: the final score (clamped).
    pub score: f64,
}

/// One result: a memory, its best chunk, its score.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SearchHit {
    /// `memory:<name>` (ragdocs' field).
    pub memory_id: String,
    /// The memory's name.
    pub name: String,
    /// The memory's 11-char id.
    pub id: String,
    /// Final relevance in [0, 1].
    pub score: f64,
    /// The best chunk's text (redacted).
    pub content: String,
    /// A short excerpt around the first query term.
    pub snippet: String,
    /// The memory's type.
    #[serde(rename = "type")]
    pub memory_type: String,
    /// The memory's status.
    pub status: String,
    /// The memory's tags.
    pub tags: Vec<String>,
    /// The memory's file.
    pub file_path: String,
    /// The best chunk's heading path.
    pub header_path: String,
    /// The memory that replaces this one, when superseded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// Estimated tokens of `content`.
    pub tokens: usize,
    /// Every stage's value.
    pub explain: Explain,
}

/// How the query was read (`--explain`).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct QueryReading {
    /// The analysed terms that score, with their weight in coverage (IDF × question weight).
    pub terms: Vec<(String, f32)>,
    /// Terms from question words that weigh less, or nothing (`search.question_weight`).
    pub question_words: Vec<String>,
    /// The weight question words had in this vault: `search.question_weight`, scaled by the
    /// vault's mean chunk length against `search.question_chunk_terms`.
    pub question_weight: f64,
    /// The vault terms the query's terms expand to (`auth→authent`, `search.expand_terms`).
    pub expanded_terms: Vec<String>,
    /// The time the query names, as `[start, end)` timestamps (`search.temporal_weight`).
    pub time: Option<(String, String)>,
}

/// The results of a search.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SearchResults {
    /// How the query was read.
    pub query: QueryReading,
    /// Results, best first.
    pub hits: Vec<SearchHit>,
    /// The profile used.
    pub profile: SearchProfile,
    /// The intent used.
    pub intent: Intent,
    /// The embedder used for the vector side.
    pub embedder: String,
    /// Candidates considered before the threshold.
    pub candidates: usize,
    /// The relevance a memory needs to be a result (`search.score_threshold`).
    pub threshold: f64,
    /// When nothing passed the threshold: the closest candidates below it (at most
    /// [`BELOW_THRESHOLD_SHOWN`], best first, each with a relevance above 0), so an empty answer
    /// can say what almost matched. Empty when there are results.
    pub below_threshold: Vec<BelowThreshold>,
}

/// How many candidates below the threshold an empty answer names.
pub const BELOW_THRESHOLD_SHOWN: usize = 3;

/// A candidate that did not pass the threshold (see [`SearchResults::below_threshold`]).
#[derive(Debug, Clone, serde::Serialize)]
pub struct BelowThreshold {
    /// `memory:<name>`.
    pub memory_id: String,
    /// The memory's name.
    pub name: String,
    /// The memory's 11-char id.
    pub id: String,
    /// Its relevance, the value compared with the threshold (the calibrated relevance of
    /// stage 3; the final score with the `ragdocs` profile).
    pub score: f64,
    /// The memory's type.
    #[serde(rename = "type")]
    pub memory_type: String,
    /// A short excerpt of its best chunk.
    pub snippet: String,
    /// Every stage's value.
    pub explain: Explain,
}

/// The cosine range of an embedder: below `floor` is noise, `ceiling` is a near-paraphrase.
pub fn similarity_range(embedder_id: &str) -> (f64, f64) {
    if is_builtin(embedder_id) { (0.22, 0.55) } else { (0.15, 0.70) }
}

/// Share of query-term coverage in the lexical score; the rest is BM25 relative to the query's
/// best BM25 score. Measured on SciFact (`benches/scifact.rs`): BM25 alone 0.682 nDCG@10, the
/// half-and-half mix 0.693 (coverage rewards matching more of the query's distinct terms, which
/// BM25's saturating per-term sum under-weights); coverage alone 0.650.
pub const LEXICAL_COVERAGE_SHARE: f64 = 0.5;

/// How far the built-in embedder's cosine is trusted to order results, relative to a sentence
/// model's (1.0): its character n-grams mostly re-find the query's words, which BM25 already
/// scores, so it is a tie-breaker. On SciFact its effective share of the fused score at the
/// `general` intent (0.6 × 0.04 against 0.4, ≈ 6 %) adds ≈ 0.005 nDCG@10 over lexical alone;
/// shares of 20 % and 60 % lose 0.002 and 0.03.
pub const BUILTIN_VECTOR_RELIABILITY: f64 = 0.04;

/// How far a static token table's cosine ([`crate::index::minilm::static_table`]) is trusted,
/// relative to a sentence model's: a bag of token vectors knows synonyms but not how words
/// combine. Measured on SciFact (nDCG@10 with a 256-dimension table from MiniLM): 1.0 0.6652,
/// 0.5 0.6857, 0.25 0.6994, 0.1 0.6989 (built-in embedder 0.6968).
pub const STATIC_VECTOR_RELIABILITY: f64 = 0.25;

/// How far the vector side of the fused score is trusted for the embedder `embedder_id`: a
/// factor on the intent's vector weight ([`BUILTIN_VECTOR_RELIABILITY`],
/// [`STATIC_VECTOR_RELIABILITY`], or 1 for a sentence model). The absolute evidence (the gate) uses the intent's weights unscaled.
pub fn vector_reliability(embedder_id: &str) -> f64 {
    if is_builtin(embedder_id) {
        BUILTIN_VECTOR_RELIABILITY
    } else if is_static(embedder_id) {
        STATIC_VECTOR_RELIABILITY
    } else {
        1.0
    }
}

pub(super) fn is_builtin(embedder_id: &str) -> bool {
    embedder_id.starts_with("builtin")
}

fn is_static(embedder_id: &str) -> bool {
    embedder_id.starts_with("static-")
}

/// Runs a search over fresh indices (call [`Indexes::reconcile`] first), ranking with the
/// lifecycle's `signals` ([`Signals::neutral`] for none, [`Signals::from_usage`] for the usage
/// state's): retrieve → fuse → thread context → time → calibrate → lifecycle → select, the
/// stages of this module's documentation, each recording its values in the candidates'
/// [`Explain`], which `--explain` prints as they are.
pub fn search(
    vault: &Vault,
    idx: &Indexes,
    q: &SearchQuery,
    signals: &Signals,
) -> crate::Result<SearchResults> {
    let setup = pipeline::Setup::new(vault, idx, q);
    let retrieved = pipeline::retrieve(&setup)?;
    let mut state = pipeline::fuse(&setup, retrieved)?;
    pipeline::context(&setup, &mut state);
    pipeline::time(&setup, &mut state);
    pipeline::calibrate(&setup, &mut state);
    pipeline::lifecycle(&setup, signals, &mut state);
    pipeline::select(&setup, state)
}

/// Fills in each result's chunk (text, heading path, snippet, tokens) from the keyword index's
/// stored chunks, falling back to the memory's file when the index lacks the chunk (another
/// process re-indexed it meanwhile); a result whose file is gone too is dropped.
fn fill_chunks(
    vault: &Vault,
    idx: &Indexes,
    hits: Vec<(SearchHit, usize)>,
    query_terms: &[(String, f32)],
) -> crate::Result<Vec<SearchHit>> {
    let ids: Vec<String> = hits.iter().map(|(h, ord)| chunk_id(&h.name, *ord)).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let texts = idx.keyword().chunk_texts(&refs).map_err(IndexError::from)?;
    let mut out = Vec::with_capacity(hits.len());
    for ((mut h, ord), text) in hits.into_iter().zip(texts) {
        let Some((header_path, body)) =
            text.map(|t| (t.headers, t.body)).or_else(|| chunk_from_file(vault, &h.name, ord))
        else {
            continue;
        };
        h.snippet = snippet(&body, query_terms);
        h.tokens = estimate_tokens(&body);
        h.content = body;
        h.header_path = header_path;
        out.push(h);
    }
    Ok(out)
}

/// Chunk `ordinal` of a memory read from its file (heading path and text), as indexing made it.
fn chunk_from_file(vault: &Vault, name: &str, ordinal: usize) -> Option<(String, String)> {
    let memory = vault.load(&MemoryName::parse(name).ok()?).ok()?;
    let content = memory.redacted_content(vault.config.privacy.scrub_secrets);
    let mut chunks = chunk_markdown(&content, &ChunkOptions::default());
    let ordinal = if ordinal < chunks.len() { ordinal } else { 0 };
    (ordinal < chunks.len()).then(|| {
        let c = chunks.swap_remove(ordinal);
        (c.header_path, c.text)
    })
}

/// About 200 characters of `text` around the first query term it contains.
fn snippet(text: &str, terms: &[(String, f32)]) -> String {
    const WIDTH: usize = 200;
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= WIDTH {
        return flat;
    }
    let lower = flat.to_lowercase();
    let pos = terms.iter().filter_map(|(t, _)| lower.find(t.as_str())).min().unwrap_or(0);
    // `lower` may differ in byte length from `flat` for some scripts; work in chars.
    let start_char = lower[..pos.min(lower.len())].chars().count().saturating_sub(WIDTH / 4);
    let chars: Vec<char> = flat.chars().collect();
    let end = (start_char + WIDTH).min(chars.len());
    let mut s: String = chars[start_char..end].iter().collect();
    if start_char > 0 {
        s.insert(0, '…');
    }
    if end < chars.len() {
        s.push('…');
    }
    s
}
