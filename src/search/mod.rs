//! Search: one pipeline from a query to ranked, explained memories.
//!
//! 1. **Retrieve** chunks from the keyword index (BM25) and the vector index, C = max(min, factor ×
//!    limit) each, with the hard filters (type, tags, status, time window) applied inside retrieval.
//!    A memory is represented by its best chunk in each list.
//! 2. **Fuse scores**, not ranks. Each candidate gets
//!    - a *lexical* score: `0.5 × bm25_norm + 0.5 × coverage` ([`LEXICAL_COVERAGE_SHARE`]), where
//!      `bm25_norm` is its BM25 score over the query's best BM25 score and `coverage` the
//!      IDF-weighted share of the query's terms found in its best BM25 chunk, title and tags;
//!    - a *vector* score: the cosine rescaled by the embedder's [`similarity_range`] (0 at the
//!      noise floor, 1 at the ceiling, not capped above so near-duplicates keep their order). A
//!      candidate only BM25 found is scored with its chunk's stored vector.
//!
//!    The fused score is their weighted mean with the intent's weights, the vector weight scaled by
//!    [`vector_reliability`] (1 for a sentence model, [`BUILTIN_VECTOR_RELIABILITY`] for the
//!    built-in n-gram embedder, a weak signal that only breaks near-ties). The fused score alone
//!    orders the results of a query. Weighted RRF (k = `rrf_k`) is still computed for `--explain`
//!    and is what the `ragdocs` profile ranks by.
//!
//!    2b. **Thread context** ([`context`], `balanced` only): a memory with evidence of its own
//!    gets `context_weight ×` the best fused score of its thread neighbours (memories of one
//!    folder written one after another).
//!
//!    2c. **Times in the query** ([`temporal`], `balanced` only): when the query names a time,
//!    the fused score is multiplied by `1 − temporal_weight × (1 − closeness)` of the memory's
//!    creation to that time.
//!
//!    The query's [question words](crate::index::keyword::analyzer::QUESTION_WORDS) weigh
//!    `question_weight` in BM25 and coverage when the query reads as a question.
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
//! 6. **Temperature**: × (0.3 + 0.7 T) — T from usage state ([`search_with`]), else 1. The
//!    `mira` profile uses MIRA's importance I instead: × (0.3 + 0.7 I) ([`search_ranked`]).
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
pub mod rank;
pub mod temporal;
mod usage;

use std::collections::{HashMap, HashSet};

use jiff::Timestamp;

use crate::config::{Intent, SearchProfile};
use crate::index::chunk::{ChunkOptions, chunk_markdown, estimate_tokens};
use crate::index::keyword::{Expansion, KeywordFilter};
use crate::index::manifest::{Entry, chunk_id, chunk_key, parse_chunk_id};
use crate::index::store::{IndexError, Indexes, KeySet};
use crate::model::MemoryName;
use crate::vault::Vault;

pub use usage::search_with_usage;

/// A memory and its manifest entry, as the vector filter lists them.
type Listed<'a> = (&'a str, &'a Entry);

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
#[derive(Debug, Clone, Default, serde::Serialize)]
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
    /// IDF-weighted share of query terms found in the memory's best BM25 chunk (else its best
    /// vector chunk), title and tags; a term found only through an expansion counts at
    /// `search.expansion_weight`.
    pub coverage: f64,
    /// The query-term expansions that stood in for a missing term there (`auth→authent`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub expanded_terms: Vec<String>,
    /// BM25 score relative to the query's best BM25 score (0 when BM25 did not retrieve it).
    pub bm25_norm: f64,
    /// Lexical score: a mix of `bm25_norm` and `coverage` ([`LEXICAL_COVERAGE_SHARE`]).
    pub lexical: f64,
    /// Vector similarity normalised to [0, 1] for this embedder ([`similarity_range`]).
    pub vector_evidence: f64,
    /// The same rescaling without the cap at 1 (a near-duplicate still outranks a paraphrase):
    /// the vector side of the fused score.
    pub vector_score: f64,
    /// Absolute evidence: the intent-weighted mean of `coverage` and `vector_evidence`.
    pub evidence: f64,
    /// Stage 2: the fused score that orders results — the weighted mean of `lexical` and
    /// `vector_score` (intent weights, the vector's scaled by [`vector_reliability`]).
    pub fused: f64,
    /// Stage 2b: the best fused score among the memory's thread neighbours
    /// ([`context`], `search.context_weight`), before their own context.
    pub context: f64,
    /// Stage 2b: what the thread context added to `fused` (`context_weight × context`).
    pub context_bonus: f64,
    /// Stage 2c: how close the memory's creation is to a time the query names ([`temporal`]):
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
    /// Stage 6, `mira` profile only: its factor ([`rank::importance_factor`]).
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

/// Which stages a profile runs.
#[derive(Debug, Clone, Copy)]
struct Stages {
    context: bool,
    rrf_calibration: bool,
    unweighted_rrf: bool,
    type_profile: bool,
    recency: bool,
    temperature: bool,
    importance: bool,
}

fn stages(profile: SearchProfile) -> Stages {
    let all = Stages {
        context: true,
        rrf_calibration: false,
        unweighted_rrf: false,
        type_profile: true,
        recency: true,
        temperature: true,
        importance: false,
    };
    match profile {
        SearchProfile::Balanced => all,
        // ragdocs: equal-weight RRF, sigmoid over the raw RRF score, recency boost.
        SearchProfile::Ragdocs => Stages {
            context: false,
            rrf_calibration: true,
            unweighted_rrf: true,
            type_profile: false,
            temperature: false,
            ..all
        },
        // Mnestra: per-type decay and weight, no recency bonus, no temperature.
        SearchProfile::Mnestra => {
            Stages { context: false, recency: false, temperature: false, ..all }
        }
        // remindb: relevance × temperature only.
        SearchProfile::Remindb => {
            Stages { context: false, type_profile: false, recency: false, ..all }
        }
        // MIRA: intent-weighted hybrid × importance (access, links, dates).
        SearchProfile::Mira => Stages {
            context: false,
            type_profile: false,
            recency: false,
            temperature: false,
            importance: true,
            ..all
        },
    }
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

/// How far the vector side of the fused score is trusted for the embedder `embedder_id`: a
/// factor on the intent's vector weight ([`BUILTIN_VECTOR_RELIABILITY`], or 1 for a sentence
/// model). The absolute evidence (the gate) uses the intent's weights unscaled.
pub fn vector_reliability(embedder_id: &str) -> f64 {
    if is_builtin(embedder_id) { BUILTIN_VECTOR_RELIABILITY } else { 1.0 }
}

fn is_builtin(embedder_id: &str) -> bool {
    embedder_id.starts_with("builtin")
}

/// Runs a search over fresh indices (call [`Indexes::reconcile`] first).
pub fn search(vault: &Vault, idx: &Indexes, q: &SearchQuery) -> crate::Result<SearchResults> {
    search_with(vault, idx, q, &|_, _| 1.0)
}

/// [`search`] with each memory's temperature (stage 6) from `temperature(id, pinned)`, in [0, 1]
/// (the lifecycle's usage state; [`search`] uses 1.0, i.e. no temperature effect).
pub fn search_with(
    vault: &Vault,
    idx: &Indexes,
    q: &SearchQuery,
    temperature: &dyn Fn(&str, bool) -> f64,
) -> crate::Result<SearchResults> {
    let now = vault.clock.now().as_second();
    let calendar_age = |created: i64| (now - created) as f64 / 86_400.0;
    search_ranked(vault, idx, q, temperature, &|_| None, &calendar_age)
}

/// [`search_with`] with each memory's MIRA importance from `importance(name)`, in [0, 1], which
/// only the `mira` profile uses (stage 6; `None` is neutral). Asked only for candidates, and
/// only under `mira`; and each memory's age in days for stages 4–5 from `age_days(created)`
/// (`created` in Unix seconds), on the configured clock ([`search_with`] uses calendar
/// days). [`search_with_usage`] wires all three from the usage state.
pub fn search_ranked(
    vault: &Vault,
    idx: &Indexes,
    q: &SearchQuery,
    temperature: &dyn Fn(&str, bool) -> f64,
    importance: &dyn Fn(&str) -> Option<f64>,
    age_days: &dyn Fn(i64) -> f64,
) -> crate::Result<SearchResults> {
    let cfg = &vault.config.search;
    let profile = q.profile.unwrap_or(cfg.profile);
    let st = stages(profile);
    let limit = q.limit.unwrap_or(cfg.limit).max(1);
    let fetch = if q.budget.is_some() { limit.max(50) } else { limit };
    let candidates = cfg.min_candidates.max(cfg.candidate_factor * fetch);
    let now = vault.clock.now();

    let mut statuses: Vec<String> = q.statuses.clone();
    if statuses.is_empty() {
        statuses.push("active".into());
        if q.include_archived {
            statuses.push("archived".into());
        }
    }
    let filter = KeywordFilter {
        types: q.types.clone(),
        tags: q.tags.clone(),
        statuses: statuses.clone(),
        created_after: q.after.map(|t| t.as_second()),
        created_before: q.before.map(|t| t.as_second()),
    };
    let manifest = idx.manifest();
    let allowed = |e: &Entry| -> bool {
        (filter.types.is_empty()
            || filter.types.iter().any(|t| t.eq_ignore_ascii_case(&e.memory_type)))
            && (filter.tags.is_empty()
                || e.tags.iter().any(|t| filter.tags.iter().any(|f| f.eq_ignore_ascii_case(t))))
            && filter.statuses.iter().any(|s| s.eq_ignore_ascii_case(&e.status))
            && filter.created_after.is_none_or(|a| e.created >= a)
            && filter.created_before.is_none_or(|b| e.created < b)
    };

    // 1. Retrieve.
    let t0 = std::time::Instant::now();
    let question_weight = cfg.question_weight as f32;
    let expansion = Expansion::new(cfg.expand_terms, cfg.expansion_weight as f32);
    let kw_hits = idx
        .keyword()
        .search_weighted(&q.text, question_weight, expansion, &filter, candidates)
        .map_err(IndexError::from)?;
    let bm25: Vec<(String, usize, f32)> = kw_hits
        .iter()
        .filter_map(|h| parse_chunk_id(&h.chunk_id).map(|(n, o)| (n.to_owned(), o, h.score)))
        .collect();
    let t_bm25 = t0.elapsed();
    // A query the model cannot embed is an error, not a keyword-only answer that would look
    // like a full one.
    let qvec = idx.embedder().embed_query(&q.text)?;
    // The filters as a set of vector keys, found once in the manifest: the vector index may run
    // its filter over every key, so it must be one lookup. The set holds the allowed memories'
    // chunk keys or the excluded ones', whichever is smaller; a filter that excludes nothing
    // (the usual: every memory active) is no filter at all.
    let (mut let_in, mut keep_out): (Vec<Listed>, Vec<Listed>) = (Vec::new(), Vec::new());
    for (name, e) in manifest.entries() {
        if allowed(e) { let_in.push((name, e)) } else { keep_out.push((name, e)) }
    }
    let chunks = |side: &[Listed]| side.iter().map(|(_, e)| e.chunks).sum::<usize>();
    let listed_are_allowed = chunks(&let_in) <= chunks(&keep_out);
    let listed = if listed_are_allowed { &let_in } else { &keep_out };
    let mut keys = KeySet::default();
    keys.reserve(chunks(listed));
    for (name, e) in listed {
        keys.extend((0..e.chunks).map(|ord| chunk_key(name, ord)));
    }
    let vec_filter = |key: u64| -> bool { keys.contains(&key) == listed_are_allowed };
    let t_embed = t0.elapsed();
    let vec_raw = if qvec.iter().any(|x| *x != 0.0) {
        let filter: Option<&dyn Fn(u64) -> bool> =
            if keep_out.is_empty() { None } else { Some(&vec_filter) };
        idx.vector().search(&qvec, candidates, filter).map_err(IndexError::from)?
    } else {
        Vec::new()
    };
    let owners = idx.key_owners(&vec_raw.iter().map(|(key, _)| *key).collect::<Vec<_>>());
    let vector: Vec<(String, usize, f32)> = vec_raw
        .iter()
        .zip(owners)
        .filter_map(|((_, sim), owner)| owner.map(|(n, o)| (n.to_owned(), o, *sim)))
        .collect();

    // 2. Fuse. Weighted RRF is kept for `--explain` and the `ragdocs` profile; the other
    // profiles fuse scores (below), which keeps BM25's score gaps that rank fusion flattens.
    let weights = cfg.intents.get(q.intent);
    let (wb, wv) = if st.unweighted_rrf { (1.0, 1.0) } else { (weights.bm25, weights.vector) };
    let t_vector = t0.elapsed();
    let bm_ranks = fusion::memory_ranks(&bm25);
    let vec_ranks = fusion::memory_ranks(&vector);
    let fused = fusion::fuse_rrf(&[(wb, &bm_ranks), (wv, &vec_ranks)], cfg.rrf_k);
    let bm_by: HashMap<&str, &fusion::Ranked> =
        bm_ranks.iter().map(|r| (r.0.as_str(), r)).collect();
    let vec_by: HashMap<&str, &fusion::Ranked> =
        vec_ranks.iter().map(|r| (r.0.as_str(), r)).collect();
    // The query's best BM25 score: lexical scores are relative to it.
    let bm25_top = bm_ranks.iter().map(|r| f64::from(r.3)).fold(0.0, f64::max);
    // Score fusion weights: the intent's, with the vector side scaled by how much this embedder's
    // cosine can be trusted to order results.
    let embedder_id = idx.embedder().id().to_owned();
    let (fb, fv) = (weights.bm25, weights.vector * vector_reliability(&embedder_id));

    let query_terms = idx.keyword().query_terms(&q.text, question_weight);
    let idf_total: f64 = query_terms.iter().map(|(_, w)| f64::from(*w)).sum();
    let (floor, ceiling) = similarity_range(&embedder_id);
    // Evidence and fused score of every candidate (calibration needs the whole set), from the
    // manifest and the indices alone: no candidate's file is read. Only the chunks of the
    // results are fetched, after sorting ([`fill_chunks`]).
    struct Candidate<'a> {
        name: &'a str,
        entry: &'a Entry,
        ordinal: usize,
        ex: Explain,
    }
    let mut cands: Vec<Candidate> = Vec::with_capacity(fused.len());
    let mut lexical_chunks: Vec<String> = Vec::with_capacity(fused.len());
    for (name, rrf) in &fused {
        let Some(entry) = manifest.entries().get(*name) else { continue };
        // Fully faded past `expires_at`: out of the results (stage 7), and of the calibration.
        let past = entry.expires_at.map(|e| (now.as_second() - e) as f64 / 86_400.0);
        let Some(fade) = rank::expiry_factor(past, cfg.expiry_fade_days) else { continue };
        if entry.chunks == 0 {
            continue;
        }
        let bm = bm_by.get(name).copied();
        let vr = vec_by.get(name).copied();
        // The best chunk: the BM25 winner when the query's words matter most, else the vector's.
        let ordinal = match (bm, vr) {
            (Some(b), Some(v)) => {
                if b.1 <= v.1 {
                    b.2
                } else {
                    v.2
                }
            }
            (Some(b), None) => b.2,
            (None, Some(v)) => v.2,
            (None, None) => 0,
        };
        let ordinal = if ordinal < entry.chunks { ordinal } else { 0 };
        // Lexical evidence is measured on the chunk BM25 scored, so it never depends on the
        // vector side (with a BM25 weight of 1 and a vector weight of 0, the order is lexical).
        let lexical_ordinal = bm.map(|b| b.2).filter(|o| *o < entry.chunks).unwrap_or(ordinal);
        lexical_chunks.push(chunk_id(name, lexical_ordinal));
        let ex = Explain {
            bm25_rank: bm.map(|b| b.1),
            bm25_score: bm.map(|b| b.3),
            vector_rank: vr.map(|v| v.1),
            vector_similarity: vr.map(|v| v.3),
            rrf: *rrf,
            expiry_factor: fade,
            ..Default::default()
        };
        cands.push(Candidate { name, entry, ordinal, ex });
    }
    // Which query terms each candidate's lexical chunk, title and tags contain: read from the
    // keyword index's postings, the same analysed terms as `text_terms` of those texts.
    let terms: Vec<&str> = query_terms.iter().map(|(t, _)| t.as_str()).collect();
    let ids: Vec<&str> = lexical_chunks.iter().map(String::as_str).collect();
    let t_cands = t0.elapsed();
    let present = idx.keyword().term_matches(&ids, &terms, expansion).map_err(IndexError::from)?;
    for (c, present) in cands.iter_mut().zip(present) {
        let (name, entry, ex) = (c.name, c.entry, &mut c.ex);
        // A chunk missing from the keyword index (never after a reconcile): title and tags only.
        let present = present.map(|m| {
            ex.expanded_terms = m.expanded.iter().map(ToString::to_string).collect();
            m.weights
        });
        let present = present.unwrap_or_else(|| {
            let mut own: HashSet<String> =
                crate::index::keyword::text_terms(&entry.title).into_iter().collect();
            for t in &entry.tags {
                own.extend(crate::index::keyword::text_terms(t));
            }
            terms.iter().map(|t| if own.contains(*t) { 1.0 } else { 0.0 }).collect()
        });
        // Lexical evidence: coverage of the query's terms, and BM25 relative to the best match.
        ex.coverage = if idf_total > 0.0 {
            query_terms
                .iter()
                .zip(&present)
                .map(|((_, w), p)| f64::from(*w) * f64::from(*p))
                .fold(0.0, |a, b| a + b)
                / idf_total
        } else {
            0.0
        };
        ex.bm25_norm = fusion::relative_score(ex.bm25_score.map(f64::from), bm25_top);
        ex.lexical = rank::lexical_score(ex.bm25_norm, ex.coverage, LEXICAL_COVERAGE_SHARE);
        // Vector evidence: the chunk's cosine to the query, rescaled for this embedder.
        let sim = match ex.vector_similarity {
            Some(s) => s,
            // Not among the vector hits: the stored vector of the chosen chunk (re-embedding
            // only when the index lacks it), so a BM25-only candidate costs no model call.
            None if qvec.iter().any(|x| *x != 0.0) => {
                let stored = idx.vector().vector(chunk_key(name, c.ordinal)).ok().flatten();
                let v = match stored {
                    Some(v) => Some(v),
                    None => {
                        let id = chunk_id(name, c.ordinal);
                        match idx
                            .keyword()
                            .chunk_texts(&[id.as_str()])
                            .ok()
                            .and_then(|mut t| t.pop())
                        {
                            Some(Some(text)) => idx
                                .embedder()
                                .embed_batch(&[crate::index::store::embed_text(
                                    &entry.title,
                                    &text.headers,
                                    &text.body,
                                )
                                .as_str()])?
                                .pop(),
                            _ => None,
                        }
                    }
                };
                v.map(|v| crate::index::math::cosine(&qvec, &v)).unwrap_or(0.0)
            }
            None => 0.0,
        };
        ex.vector_similarity = Some(sim);
        ex.vector_evidence = rank::vector_evidence(f64::from(sim), floor, ceiling);
        ex.vector_score = rank::vector_score(f64::from(sim), floor, ceiling);
        // Absolute evidence, weighted by the intent and, like the fused score, by how far this
        // embedder's similarity can be trusted: what calibration trusts for the level.
        ex.evidence = fusion::weighted_mean(ex.coverage, ex.vector_evidence, fb, fv);
        // The fused score: what orders the results.
        ex.fused = fusion::weighted_mean(ex.lexical, ex.vector_score, fb, fv);
    }
    // 2b. Thread context: a share of the best neighbour's fused score (its own, before context).
    if st.context && cfg.context_weight > 0.0 && cfg.context_span > 0 {
        let names: Vec<&str> = cands.iter().map(|c| c.name).collect();
        let gap = (cfg.context_gap_minutes * 60.0).round() as i64;
        let near = context::neighbours(manifest, &names, cfg.context_span, gap);
        let own: HashMap<&str, f64> = cands.iter().map(|c| (c.name, c.ex.fused)).collect();
        for c in &mut cands {
            let best = near.get(c.name).map_or(0.0, |ns| {
                ns.iter().filter_map(|n| own.get(n)).copied().fold(0.0, f64::max)
            });
            c.ex.context = best;
            // Context ranks a memory that matches the query among others; it never makes a
            // result of a memory with no evidence of its own (the note written beside the
            // answer, on another subject).
            if !context::has_own_evidence(c.ex.evidence) {
                continue;
            }
            c.ex.context_bonus = cfg.context_weight * best;
            c.ex.fused += c.ex.context_bonus;
        }
    }
    // 2c. A time the query names: memories created then are preferred.
    let span = (st.context && cfg.temporal_weight > 0.0)
        .then(|| temporal::find_span(&q.text, now))
        .flatten();
    for c in &mut cands {
        c.ex.time_closeness = span.map_or(1.0, |s| s.closeness(c.entry.created));
        c.ex.time_factor = 1.0 - cfg.temporal_weight * (1.0 - c.ex.time_closeness);
        if span.is_some() {
            c.ex.fused *= c.ex.time_factor;
        }
    }
    // The query's gate: the best absolute evidence any candidate has; and the best fused score.
    let t_evidence = t0.elapsed();
    let gate = cands.iter().map(|c| c.ex.evidence).fold(0.0, f64::max);
    let fused_top = cands.iter().map(|c| c.ex.fused).fold(0.0, f64::max);

    let mut hits = Vec::new();
    for Candidate { name, entry, ordinal, mut ex } in cands {
        // 3. Calibrate.
        ex.gate = gate;
        ex.calibrated = if st.rrf_calibration {
            rank::calibrate_rrf(ex.rrf, 0.035, 150.0)
        } else {
            rank::calibrate_fused(
                gate,
                fusion::relative_score(Some(ex.fused), fused_top),
                cfg.calibration_midpoint,
                cfg.calibration_steepness,
            )
        };
        let mut score = ex.calibrated;

        // 4–5. Type profile and recency.
        ex.age_days = age_days(entry.created).max(0.0);
        let profile_of = vault.config.type_profile(&entry.memory_type);
        ex.type_weight = 1.0;
        ex.type_decay = 1.0;
        if let Some(p) = profile_of {
            if st.type_profile {
                ex.type_weight = p.weight;
                ex.type_decay = rank::type_decay(ex.age_days, p.half_life_days);
                score = rank::type_weighted(score, ex.type_weight) * ex.type_decay;
            }
            if st.recency {
                ex.recency_bonus = rank::recency_bonus(
                    ex.age_days,
                    p.recency_window_days,
                    p.recency_max_boost,
                    p.recency_rate,
                );
                // ragdocs adds the bonus as is. Elsewhere it is scaled by the calibrated
                // relevance, so recency reorders good matches but never lifts a memory the query
                // misses, and by the headroom left below 1, so strong matches never reach the
                // clamp, where ties would erase their order.
                if !st.rrf_calibration {
                    ex.recency_bonus *= ex.calibrated * (1.0 - score).max(0.0);
                }
                score += ex.recency_bonus;
            }
        }
        // 6. Temperature: neutral until usage state exists (lifecycle).
        ex.temperature = temperature(&entry.id, entry.pinned).clamp(0.0, 1.0);
        ex.temperature_factor =
            if st.temperature { rank::temperature_factor(ex.temperature) } else { 1.0 };
        score *= ex.temperature_factor;
        // 6 (`mira`). Importance instead of temperature.
        if st.importance
            && let Some(i) = importance(name)
        {
            let factor = rank::importance_factor(i);
            (ex.importance, ex.importance_factor) = (Some(i), Some(factor));
            score *= factor;
        }
        // 7. Supersession and expiry (the fade was computed with the candidate). A memory is
        // superseded by its frontmatter `superseded_by` or by another memory's `supersedes` link.
        let superseded_by =
            entry.superseded_by.clone().or_else(|| idx.superseded_by_link(name).map(str::to_owned));
        ex.supersession_factor =
            if superseded_by.is_some() { cfg.supersession_penalty } else { 1.0 };
        score *= ex.supersession_factor;
        score *= ex.expiry_factor;
        // 8. Clamp; threshold below.
        ex.score = score.clamp(0.0, 1.0);

        // The chunk's text, snippet and tokens are filled in for the results only (below).
        hits.push((
            SearchHit {
                memory_id: format!("memory:{name}"),
                name: name.to_owned(),
                id: entry.id.clone(),
                score: ex.score,
                tokens: 0,
                content: String::new(),
                snippet: String::new(),
                memory_type: entry.memory_type.clone(),
                status: entry.status.clone(),
                tags: entry.tags.clone(),
                file_path: vault.root().join(format!("{name}.md")).display().to_string(),
                header_path: String::new(),
                superseded_by,
                explain: ex,
            },
            ordinal,
        ));
    }
    let t_rank = t0.elapsed();
    let candidates_count = hits.len();
    // The threshold compares relevance (stage 3): the lifecycle stages reorder what matches but
    // never hide it ("cold never means gone", remindb). The `ragdocs` profile filters the final
    // score after its boost, as that system does.
    let relevance = |h: &SearchHit| if st.rrf_calibration { h.score } else { h.explain.calibrated };
    let mut below: Vec<(SearchHit, usize)> = Vec::new();
    if !hits.iter().any(|(h, _)| relevance(h) >= cfg.score_threshold) {
        below = hits.iter().filter(|(h, _)| relevance(h) > 0.0).cloned().collect();
        below.sort_by(|(a, _), (b, _)| {
            relevance(b).total_cmp(&relevance(a)).then_with(|| a.name.cmp(&b.name))
        });
        below.truncate(BELOW_THRESHOLD_SHOWN);
    }
    hits.retain(|(h, _)| relevance(h) >= cfg.score_threshold);
    hits.sort_by(|(a, _), (b, _)| b.score.total_cmp(&a.score).then_with(|| a.name.cmp(&b.name)));
    let hits = match q.budget {
        Some(budget) => {
            // Fill in order, a few at a time, until the budget is spent.
            let mut used = 0;
            let mut kept: Vec<SearchHit> = Vec::new();
            let mut rest = hits.into_iter();
            'fill: loop {
                let part: Vec<(SearchHit, usize)> = rest.by_ref().take(8).collect();
                if part.is_empty() {
                    break;
                }
                for h in fill_chunks(vault, idx, part, &query_terms)? {
                    if !kept.is_empty() && used + h.tokens > budget {
                        break 'fill;
                    }
                    used += h.tokens;
                    kept.push(h);
                }
            }
            kept
        }
        None => {
            hits.truncate(limit);
            fill_chunks(vault, idx, hits, &query_terms)?
        }
    };
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    tracing::debug!(
        bm25_ms = ms(t_bm25),
        embed_ms = ms(t_embed - t_bm25),
        vector_ms = ms(t_vector - t_embed),
        candidates_ms = ms(t_cands - t_vector),
        evidence_ms = ms(t_evidence - t_cands),
        rank_ms = ms(t_rank - t_evidence),
        fill_ms = ms(t0.elapsed() - t_rank),
        candidates = candidates_count,
        "searched"
    );
    let fmt = |t: i64| {
        jiff::Timestamp::from_second(t)
            .map(crate::model::time::format_timestamp)
            .unwrap_or_default()
    };
    use crate::index::keyword::analyzer::{is_question_term, weighted_query_terms};
    let as_typed = weighted_query_terms(&q.text, 1.0);
    let query = QueryReading {
        question_words: if as_typed.iter().all(|(t, _)| is_question_term(t)) {
            Vec::new()
        } else {
            as_typed.into_iter().filter(|(t, _)| is_question_term(t)).map(|(t, _)| t).collect()
        },
        expanded_terms: idx
            .keyword()
            .expand_terms(&terms, expansion)
            .map_err(IndexError::from)?
            .iter()
            .flatten()
            .map(ToString::to_string)
            .collect(),
        terms: query_terms,
        time: span.map(|s| (fmt(s.start), fmt(s.end))),
    };
    let below_threshold = fill_chunks(vault, idx, below, &query.terms)?
        .into_iter()
        .map(|h| BelowThreshold {
            score: relevance(&h),
            memory_id: h.memory_id,
            name: h.name,
            id: h.id,
            memory_type: h.memory_type,
            snippet: h.snippet,
            explain: h.explain,
        })
        .collect();
    Ok(SearchResults {
        query,
        hits,
        profile,
        intent: q.intent,
        embedder: idx.embedder().id().to_owned(),
        candidates: candidates_count,
        threshold: cfg.score_threshold,
        below_threshold,
    })
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
