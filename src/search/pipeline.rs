//! The stages of a search, in order: [`retrieve`] → [`fuse`] → [`context`] → [`time`] →
//! [`calibrate`] → [`lifecycle`] → [`select`]. Each stage reads and writes the candidates'
//! [`Explain`] values in one [`State`]; `--explain` prints what they recorded.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use jiff::Timestamp;

use super::signals::Signals;
use super::temporal::TimeSpan;
use super::{
    BELOW_THRESHOLD_SHOWN, BelowThreshold, Explain, LEXICAL_COVERAGE_SHARE, QueryReading,
    SearchHit, SearchQuery, SearchResults, context as thread, fill_chunks, fusion, is_builtin,
    rank, similarity_range, temporal, vector_reliability,
};
use crate::config::{SearchConfig, SearchProfile};
use crate::index::keyword::{Expansion, KeywordFilter};
use crate::index::manifest::{Entry, EntryRef, chunk_id, chunk_key, parse_chunk_id};
use crate::index::store::{IndexError, Indexes, KeySet};
use crate::vault::Vault;

/// A memory and its manifest entry, as the vector filter lists them.
type Listed<'a> = (&'a str, EntryRef<'a>);

/// A ranked chunk of a retrieval list: memory name, chunk ordinal, score.
type Found = (String, usize, f32);

/// A memory's chunks its lexical score is measured on: ordinal and BM25 score (none for a chunk
/// BM25 did not retrieve), best first.
type LexicalChunks = Vec<(usize, Option<f32>)>;

/// Which stages a profile runs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Stages {
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

/// A query's settings, resolved once from the query and the config.
pub(super) struct Setup<'a> {
    vault: &'a Vault,
    idx: &'a Indexes,
    q: &'a SearchQuery,
    cfg: &'a SearchConfig,
    profile: SearchProfile,
    st: Stages,
    /// How many results (without a budget).
    limit: usize,
    /// How many chunks each retrieval list holds: max(min, factor × limit).
    per_list: usize,
    now: Timestamp,
    filter: KeywordFilter,
    /// The weight of the query's question words in this vault ([`question_weight`]).
    question_weight: f32,
    /// The weight of pseudo-relevance feedback in this vault ([`feedback_weight`]).
    feedback_weight: f64,
}

impl<'a> Setup<'a> {
    /// The settings of `q` over `vault` and `idx`.
    pub(super) fn new(vault: &'a Vault, idx: &'a Indexes, q: &'a SearchQuery) -> Setup<'a> {
        let cfg = &vault.config.search;
        let profile = q.profile.unwrap_or(cfg.profile);
        let limit = q.limit.unwrap_or(cfg.limit).max(1);
        let fetch = if q.budget.is_some() { limit.max(50) } else { limit };
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
            statuses,
            created_after: q.after.map(|t| t.as_second()),
            created_before: q.before.map(|t| t.as_second()),
        };
        let mean_terms = idx.keyword().mean_chunk_terms();
        Setup {
            vault,
            idx,
            q,
            cfg,
            profile,
            st: stages(profile),
            limit,
            per_list: cfg.min_candidates.max(cfg.candidate_factor * fetch),
            now: vault.clock.now(),
            filter,
            question_weight: question_weight(cfg, mean_terms) as f32,
            feedback_weight: feedback_weight(cfg, mean_terms),
        }
    }

    /// Whether a memory passes the hard filters (type, tags, status, time window).
    /// Read in place: a search lists every memory through this, so only what a filter asks for
    /// is read from the manifest's records (tags only when tags are asked for).
    fn allowed(&self, e: EntryRef) -> bool {
        let f = &self.filter;
        (f.types.is_empty() || f.types.iter().any(|t| t.eq_ignore_ascii_case(e.memory_type())))
            && f.statuses.iter().any(|s| s.eq_ignore_ascii_case(e.status()))
            && f.created_after.is_none_or(|a| e.created() >= a)
            && f.created_before.is_none_or(|b| e.created() < b)
            && (f.tags.is_empty()
                || e.tags().iter().any(|t| f.tags.iter().any(|g| g.eq_ignore_ascii_case(t))))
    }

    /// Whether the hard filters are on status alone (the usual search): what [`ByStatus`]
    /// answers without a pass over the entries.
    fn status_filter_only(&self) -> bool {
        let f = &self.filter;
        f.types.is_empty()
            && f.tags.is_empty()
            && f.created_after.is_none()
            && f.created_before.is_none()
    }

    fn question_weight(&self) -> f32 {
        self.question_weight
    }

    /// How query terms expand to abbreviations and the vault's sub-words
    /// (`search.expand_terms`, `search.expansion_weight`).
    fn expansion(&self) -> Expansion {
        Expansion::new(self.cfg.expand_terms, self.cfg.expansion_weight as f32)
    }
}

/// The weight of a query's question words in a vault whose chunks average `mean_terms` indexed
/// words: `question_weight × clamp((mean_terms − L/2) / (L/2), 0, 1)`, L being
/// `question_chunk_terms`. Where a chunk holds a whole exchange (a request and its answer, a
/// section of a long note), the request's own words — how, I, set up — are evidence of the right
/// chunk; where a chunk is one line of a conversation, a line that shares them is most often
/// another question, not its answer.
pub(super) fn question_weight(cfg: &SearchConfig, mean_terms: f64) -> f64 {
    let half = cfg.question_chunk_terms.max(1.0) / 2.0;
    cfg.question_weight * ((mean_terms - half) / half).clamp(0.0, 1.0)
}

/// The weight of pseudo-relevance feedback in a vault whose chunks average `mean_terms`
/// indexed words: `feedback_weight × clamp((L − mean_terms) / (L/2), 0, 1)`, L being
/// `question_chunk_terms`, the mirror of [`question_weight`]. Where a chunk is a line or two of a
/// conversation, the evidence for a question is spread over several of them, which share the
/// story's names, places and things rather than the question's words: the words of the first
/// ones found lead to the others. Where a chunk holds a whole section, it holds its own
/// evidence, and the words of the best sections lead away from the question.
/// ([`retrieve_feedback`] also asks that the best memories be lines of a transcript.)
pub(super) fn feedback_weight(cfg: &SearchConfig, mean_terms: f64) -> f64 {
    let full = cfg.question_chunk_terms.max(1.0);
    let half = full / 2.0;
    cfg.feedback_weight * ((full - mean_terms) / half).clamp(0.0, 1.0)
}

/// When each stage ended, since the search began (logged at debug level). The keyword side
/// (`bm25`) and the vector side (from `vector_side`: `embed`, then the vector search until
/// `vector_side_done`) may run at once; `vector` is when both have ended.
#[derive(Default)]
pub(super) struct Timings {
    bm25: Duration,
    vector_side: Duration,
    embed: Duration,
    vector_side_done: Duration,
    vector: Duration,
    cands: Duration,
    evidence: Duration,
    rank: Duration,
}

/// What retrieval found: the BM25 and vector lists, best first, and the query's vector.
pub(super) struct Retrieved {
    bm25: Vec<Found>,
    vector: Vec<Found>,
    /// The feedback retrieval ([`retrieve_feedback`]), empty when off.
    feedback: Vec<Found>,
    /// Whether most of the keyword retrieval's best memories are lines of a transcript, when
    /// [`retrieve_feedback`] read them to tell.
    transcript: Option<bool>,
    qvec: Vec<f32>,
    t0: Instant,
    timings: Timings,
}

/// One candidate memory and every stage's value so far.
struct Candidate<'a> {
    name: &'a str,
    entry: &'a Entry,
    /// The chunk shown: the BM25 winner when BM25 ranks the memory at least as high as the
    /// vector side, else the vector's.
    ordinal: usize,
    /// Who replaces the memory (stage 7).
    superseded_by: Option<String>,
    ex: Explain,
}

/// The state the stages after retrieval share.
pub(super) struct State<'a> {
    cands: Vec<Candidate<'a>>,
    /// The query's analysed terms with their coverage weights.
    query_terms: Vec<(String, f32)>,
    /// The time the query names (stage 2c).
    span: Option<TimeSpan>,
    /// Each reply among the candidates, with the question it answers (stage 2b).
    replies: HashMap<&'a str, &'a str>,
    t0: Instant,
    timings: Timings,
}

/// **Retrieve** (stage 1) C = max(min, factor × limit) chunks from the keyword index (BM25, the
/// query's question words weighing `question_weight`) and as many from the vector index, the hard
/// filters applied inside both. A query the model cannot embed is an error, not a keyword-only
/// answer that would look like a full one.
pub(super) fn retrieve(s: &Setup) -> crate::Result<Retrieved> {
    let t0 = Instant::now();
    let mut timings = Timings::default();
    // When no memory has a status the filter leaves out (the usual: all active), neither side
    // filters: the keyword query goes without its status clause (a clause every chunk passes
    // still costs a lookup per matching chunk), the vector search without a filter.
    let allowed = |status: &str| s.filter.statuses.iter().any(|a| a.eq_ignore_ascii_case(status));
    let nothing_out =
        s.status_filter_only() && s.idx.manifest().census().iter().all(|c| allowed(&c.status));
    let unfiltered;
    let kw_filter = if nothing_out {
        unfiltered = KeywordFilter { statuses: Vec::new(), ..s.filter.clone() };
        &unfiltered
    } else {
        &s.filter
    };
    type KeywordSide = (Vec<Found>, (Vec<Found>, Option<bool>), Duration);
    let keyword_side = || -> crate::Result<KeywordSide> {
        let kw_hits = s
            .idx
            .keyword()
            .search_weighted(&s.q.text, s.question_weight(), s.expansion(), kw_filter, s.per_list)
            .map_err(IndexError::from)?;
        let bm25: Vec<Found> = kw_hits
            .iter()
            .filter_map(|h| parse_chunk_id(&h.chunk_id).map(|(n, o)| (n.to_owned(), o, h.score)))
            .collect();
        let feedback = retrieve_feedback(s, &bm25, kw_filter)?;
        Ok((bm25, feedback, t0.elapsed()))
    };
    let vector_side = || -> crate::Result<(Vec<f32>, Vec<Found>, [Duration; 3])> {
        let started = t0.elapsed();
        let qvec = s.idx.embedder().embed_query(&s.q.text)?;
        let embedded = t0.elapsed();
        let vector = retrieve_vectors(s, &qvec, nothing_out)?;
        Ok((qvec, vector, [started, embedded, t0.elapsed()]))
    };
    // A large vault's two sides take milliseconds each: the vector side (the query embedded, the
    // graph searched, the chunks' owners found) runs on another core meanwhile.
    let (keyword, vector) = if s.idx.manifest().total_chunks() >= parallel_sides_min() {
        std::thread::scope(|scope| {
            let vector = scope.spawn(vector_side);
            let keyword = keyword_side();
            (keyword, vector.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
        })
    } else {
        (keyword_side(), vector_side())
    };
    let (bm25, (feedback, transcript), bm25_done) = keyword?;
    let (qvec, vector, [started, embedded, done]) = vector?;
    timings.bm25 = bm25_done;
    (timings.vector_side, timings.embed, timings.vector_side_done) = (started, embedded, done);
    Ok(Retrieved { bm25, vector, feedback, transcript, qvec, t0, timings })
}

/// Fewest chunks in the vault for which [`retrieve`] runs its keyword and vector sides on two
/// threads: below it, a side takes well under a millisecond and a thread would cost more than
/// it saves.
const PARALLEL_SIDES_MIN: usize = 20_000;

#[cfg(test)]
thread_local! {
    /// [`PARALLEL_SIDES_MIN`] as a test on this thread sets it.
    static SIDES_MIN: std::cell::Cell<usize> = const { std::cell::Cell::new(PARALLEL_SIDES_MIN) };
}

fn parallel_sides_min() -> usize {
    #[cfg(test)]
    return SIDES_MIN.with(std::cell::Cell::get);
    #[cfg(not(test))]
    PARALLEL_SIDES_MIN
}

/// At most this many feedback words query the second keyword retrieval.
const FEEDBACK_TERMS: usize = 10;

/// **Pseudo-relevance feedback** (stage 1b, `balanced` only, [`feedback_weight`]): when most of
/// the first keyword retrieval's `feedback_memories` best memories are lines of a transcript
/// (`Name: …`, as the [speaker](speakers) stage reads them), their informative words — words
/// the query lacks, found in at least one other chunk, each weighing `idf × Σ relative BM25`
/// over the memories that have it, the speakers' names left out — query a second keyword
/// retrieval.
/// Also says whether most of those memories are lines of a transcript (`None` when it did not
/// read them).
fn retrieve_feedback(
    s: &Setup,
    bm25: &[Found],
    filter: &KeywordFilter,
) -> crate::Result<(Vec<Found>, Option<bool>)> {
    use crate::index::keyword::analyzer::{is_question_term, weighted_query_terms};
    if !s.st.context || s.feedback_weight <= 0.0 || bm25.is_empty() {
        return Ok((Vec::new(), None));
    }
    let (transcript, firsts, texts) = transcript_lines(s, bm25)?;
    let top = firsts.first().map_or(0.0, |r| f64::from(r.3));
    // Lines of a transcript, each a fragment of a conversation: a note that stands on its own
    // holds its own evidence, and the words of the best notes lead to their look-alikes.
    if !transcript {
        return Ok((Vec::new(), Some(false)));
    }
    let own: HashSet<String> =
        weighted_query_terms(&s.q.text, 1.0).into_iter().map(|(t, _)| t).collect();
    // Each word, with the summed relative BM25 of the memories that have it.
    let mut mass: HashMap<String, f64> = HashMap::new();
    for (r, text) in firsts.iter().zip(texts) {
        let Some(text) = text else { continue };
        let rel = fusion::relative_score(Some(f64::from(r.3)), top);
        // A transcript line's speaker is a label of every line they say, not the story's.
        let mut seen: HashSet<String> = speaker(&text.body)
            .map(|name| crate::index::keyword::text_terms(name).into_iter().collect())
            .unwrap_or_default();
        for t in crate::index::keyword::text_terms(&format!("{}\n{}", text.headers, text.body)) {
            if own.contains(&t)
                || is_question_term(&t)
                || t.chars().all(|c| c.is_ascii_digit())
                || t.chars().count() < 3
                || !seen.insert(t.clone())
            {
                continue;
            }
            *mass.entry(t).or_default() += rel;
        }
    }
    let words: Vec<&str> = mass.keys().map(String::as_str).collect();
    let idfs = s.idx.keyword().term_idfs(&words);
    let mut weighted: Vec<(String, f32)> = mass
        .iter()
        .zip(idfs)
        .filter(|(_, (_, df))| *df >= 2)
        .map(|((t, m), (idf, _))| (t.clone(), (*m * f64::from(idf)) as f32))
        .collect();
    weighted.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    weighted.truncate(FEEDBACK_TERMS);
    let best = weighted.first().map_or(0.0, |w| w.1);
    if best <= 0.0 {
        return Ok((Vec::new(), Some(true)));
    }
    for w in &mut weighted {
        w.1 /= best;
    }
    let hits =
        s.idx.keyword().search_terms(&weighted, filter, s.per_list).map_err(IndexError::from)?;
    let found = hits
        .iter()
        .filter_map(|h| parse_chunk_id(&h.chunk_id).map(|(n, o)| (n.to_owned(), o, h.score)))
        .collect();
    Ok((found, Some(true)))
}

/// The keyword retrieval's `feedback_memories` best memories (name, rank, best chunk, score),
/// the text of each one's best chunk, and whether most of them are lines of a transcript
/// (`Name: …`): the conversations that feedback and replies are for.
fn transcript_lines(
    s: &Setup,
    bm25: &[Found],
) -> crate::Result<(bool, Vec<fusion::Ranked>, Vec<Option<crate::index::keyword::ChunkText>>)> {
    let mut ranked = fusion::memory_ranks(bm25);
    ranked.truncate(s.cfg.feedback_memories);
    let ids: Vec<String> = ranked.iter().map(|r| chunk_id(&r.0, r.2)).collect();
    let texts = s
        .idx
        .keyword()
        .chunk_texts(&ids.iter().map(String::as_str).collect::<Vec<_>>())
        .map_err(IndexError::from)?;
    let lines = texts.iter().flatten().filter(|t| speaker(&t.body).is_some()).count();
    Ok((2 * lines > texts.len(), ranked, texts))
}

/// The vector side of [`retrieve`]. The filters become a set of vector keys, found once in the
/// manifest: the vector index may run its filter over every key, so it must be one lookup. The
/// set holds the allowed memories' chunk keys or the excluded ones', whichever is smaller; a
/// filter that excludes nothing (`nothing_out`, the usual: every memory active) is no filter at
/// all. A long-lived process lists the excluded memories from [`ByStatus`].
fn retrieve_vectors(s: &Setup, qvec: &[f32], nothing_out: bool) -> crate::Result<Vec<Found>> {
    if !qvec.iter().any(|x| *x != 0.0) {
        return Ok(Vec::new());
    }
    let by_status = || {
        let b = s.status_filter_only().then(|| s.idx.manifest().derived(ByStatus::of))??;
        b.filter_keys(&s.filter.statuses)
    };
    let keys = if nothing_out { None } else { by_status().unwrap_or_else(|| filter_keys(s)) };
    let vec_filter = |key: u64| -> bool {
        keys.as_ref().is_none_or(|(keys, listed_allowed)| keys.contains(&key) == *listed_allowed)
    };
    let filter: Option<&dyn Fn(u64) -> bool> =
        if keys.is_none() { None } else { Some(&vec_filter) };
    let raw = s.idx.vector().search(qvec, s.per_list, filter).map_err(IndexError::from)?;
    let owners = s.idx.key_owners(&raw.iter().map(|(key, _)| *key).collect::<Vec<_>>());
    Ok(raw
        .iter()
        .zip(owners)
        .filter_map(|((_, sim), owner)| owner.map(|(n, o)| (n.to_owned(), o, *sim)))
        .collect())
}

/// The vector filter's keys, and whether they are the allowed memories' (else the excluded
/// ones'); `None`: nothing is excluded. One pass over every entry of the manifest.
fn filter_keys(s: &Setup) -> Option<(KeySet, bool)> {
    let (mut let_in, mut keep_out): (Vec<Listed>, Vec<Listed>) = (Vec::new(), Vec::new());
    for (name, e) in s.idx.manifest().iter() {
        if s.allowed(e) { let_in.push((name, e)) } else { keep_out.push((name, e)) }
    }
    if keep_out.is_empty() {
        return None;
    }
    let chunks = |side: &[Listed]| side.iter().map(|(_, e)| e.chunks()).sum::<usize>();
    let listed_are_allowed = chunks(&let_in) <= chunks(&keep_out);
    let listed = if listed_are_allowed { &let_in } else { &keep_out };
    let mut keys = KeySet::default();
    keys.reserve(chunks(listed));
    for (name, e) in listed {
        keys.extend((0..e.chunks()).map(|ord| chunk_key(name, ord)));
    }
    Some((keys, listed_are_allowed))
}

/// The memories of the manifest by status: their chunks, and (name, chunks) of each memory except
/// for the largest status (in a vault the active memories, whose names a status filter never
/// needs to list); and the chunks of all memories.
type StatusGroup = (usize, Option<Vec<(Box<str>, usize)>>);
struct ByStatus(HashMap<Box<str>, StatusGroup>, usize);

impl ByStatus {
    /// The memories whose status is not one of `statuses`, with their chunks; `None` when that
    /// includes the largest status, whose memories are not listed.
    fn excluded(&self, statuses: &[String]) -> Option<Vec<&(Box<str>, usize)>> {
        let allowed = |status: &str| statuses.iter().any(|s| s.eq_ignore_ascii_case(status));
        let mut out = Vec::new();
        for (status, (_, names)) in &self.0 {
            if !allowed(status) {
                out.extend(names.as_deref()?);
            }
        }
        Some(out)
    }

    /// [`filter_keys`] for a filter on `statuses` alone, with no pass over the entries: `None`
    /// when it cannot tell so (more is excluded than allowed, or the largest status is).
    #[allow(clippy::option_option)]
    fn filter_keys(&self, statuses: &[String]) -> Option<Option<(KeySet, bool)>> {
        let out = self.excluded(statuses)?;
        if out.is_empty() {
            return Some(None);
        }
        let out_chunks: usize = out.iter().map(|(_, c)| c).sum();
        if out_chunks > self.1 - out_chunks {
            return None;
        }
        let mut keys = KeySet::default();
        keys.reserve(out_chunks);
        for (name, chunks) in out {
            keys.extend((0..*chunks).map(|ord| chunk_key(name, ord)));
        }
        Some(Some((keys, false)))
    }

    fn of(manifest: &crate::index::manifest::Manifest) -> ByStatus {
        // Counted first, then listed (all but the largest), so the active memories' names are
        // never copied.
        let mut count: HashMap<&str, (usize, usize)> = HashMap::new();
        for (_, e) in manifest.iter() {
            let c = count.entry(e.status()).or_default();
            c.0 += 1;
            c.1 += e.chunks();
        }
        let largest = count.iter().max_by_key(|(_, c)| c.0).map(|(s, _)| *s);
        let mut by: HashMap<Box<str>, StatusGroup> = count
            .iter()
            .map(|(s, c)| ((*s).into(), (c.1, (Some(*s) != largest).then(Vec::new))))
            .collect();
        for (name, e) in manifest.iter() {
            if Some(e.status()) != largest
                && let Some((_, Some(list))) = by.get_mut(e.status())
            {
                list.push((name.into(), e.chunks()));
            }
        }
        ByStatus(by, count.values().map(|c| c.1).sum())
    }
}

/// **Fuse** (stage 2) scores, not ranks. Each memory, represented by its best chunk in each list,
/// gets a lexical score `(1 − share) × bm25_norm + share × coverage` and a vector score (the cosine
/// rescaled by [`similarity_range`], uncapped); the fused score is their weighted mean with the
/// intent's weights, the vector's scaled by [`vector_reliability`]. The absolute `evidence` is the
/// same mean of `coverage` and the capped vector evidence. Weighted RRF is recorded for `--explain`
/// and the `ragdocs` profile (which weighs both lists equally).
pub(super) fn fuse<'a>(s: &'a Setup, r: Retrieved) -> crate::Result<State<'a>> {
    let Retrieved { bm25, vector, feedback, transcript, qvec, t0, mut timings } = r;
    let weights = s.cfg.intents.get(s.q.intent);
    let (wb, wv) = if s.st.unweighted_rrf { (1.0, 1.0) } else { (weights.bm25, weights.vector) };
    timings.vector = t0.elapsed();
    let bm_ranks = fusion::memory_ranks(&bm25);
    let vec_ranks = fusion::memory_ranks(&vector);
    let fb_ranks = fusion::memory_ranks(&feedback);
    // The feedback list adds candidates but no RRF (which weighs the query's own lists only).
    let mut rrf =
        fusion::fuse_rrf(&[(wb, &bm_ranks), (wv, &vec_ranks), (0.0, &fb_ranks)], s.cfg.rrf_k);
    // The replies to the best questions are candidates too, though neither list found them.
    let transcript = match transcript {
        Some(t) => t,
        None => s.st.context && s.cfg.reply_weight > 0.0 && transcript_lines(s, &bm25)?.0,
    };
    let replies = if transcript { replies(s, &rrf)? } else { HashMap::new() };
    for reply in replies.keys() {
        rrf.entry(reply).or_insert(0.0);
    }
    let (mut cands, lexical_chunks) = candidates(s, &rrf, &bm25, &bm_ranks, &vec_ranks, &fb_ranks);
    let query_terms = s.idx.keyword().query_terms(&s.q.text, s.question_weight());
    timings.cands = t0.elapsed();
    // The query's best BM25 score: lexical scores are relative to it.
    let bm25_top = bm_ranks.iter().map(|r| f64::from(r.3)).fold(0.0, f64::max);
    lexical(s, &mut cands, &lexical_chunks, &query_terms, bm25_top)?;
    let fb_top = fb_ranks.first().map_or(0.0, |r| f64::from(r.3));
    let fb_by: HashMap<&str, f64> =
        fb_ranks.iter().map(|r| (r.0.as_str(), f64::from(r.3))).collect();
    let embedder_id = s.idx.embedder().id();
    let (floor, ceiling) = similarity_range(embedder_id);
    let (fb, fv) = (weights.bm25, weights.vector * vector_reliability(embedder_id));
    // How far the words are trusted: a query whose words no memory holds is asked in other
    // words, which only a sentence model can match (the built-in embedder sees words too).
    let best_coverage = cands.iter().map(|c| c.ex.content_coverage).fold(0.0, f64::max);
    let trust = if s.st.unweighted_rrf || is_builtin(embedder_id) {
        1.0
    } else {
        rank::lexical_trust(best_coverage, s.cfg.lexical_trust_floor)
    };
    for c in &mut cands {
        let sim = match c.ex.vector_similarity {
            Some(sim) => sim,
            None => stored_similarity(s, c, &qvec)?,
        };
        let ex = &mut c.ex;
        ex.vector_similarity = Some(sim);
        ex.vector_evidence = rank::vector_evidence(f64::from(sim), floor, ceiling);
        ex.vector_score = rank::vector_score(f64::from(sim), floor, ceiling);
        ex.evidence = fusion::weighted_mean(ex.content_coverage, ex.vector_evidence, fb, fv);
        // Feedback ranks the memories that match the query among themselves; it never makes
        // a result of one with no evidence of its own (as thread context).
        ex.feedback = fusion::relative_score(fb_by.get(c.name).copied(), fb_top);
        if thread::has_own_evidence(ex.evidence) {
            ex.lexical += s.feedback_weight * ex.feedback;
        }
        ex.lexical_trust = trust;
        ex.fused = fusion::weighted_mean(ex.lexical, ex.vector_score, fb * trust, fv);
        // The chunk shown is the one that matched best, when BM25 found the memory first (its
        // vector side stays that of the chunk each list ranked).
        if ex.bm25_rank.is_some() && ex.bm25_rank <= ex.vector_rank.or(Some(usize::MAX)) {
            c.ordinal = ex.lexical_chunk;
        }
    }
    speakers(s, &mut cands)?;
    Ok(State { cands, query_terms, span: None, replies, t0, timings })
}

/// **Replies** (stage 2b, `search.reply_weight`, with thread context): the reply to each of the
/// `limit` best memories of the two lists (by RRF), with the question it answers. A reply is a
/// line of a transcript (`Name: …`) right after, in its thread, a line of another speaker that
/// [asks](thread::asks) something: "How often do you all work out together?" matches "How often
/// does John work out with his family?"; its reply, "Three times a week; it keeps us on track",
/// shares no word with the question but its speaker's name, which hundreds of John's lines
/// share, so neither list may have found it. Only the chunks of those pairs are read.
fn replies<'a>(s: &'a Setup, rrf: &HashMap<&str, f64>) -> crate::Result<HashMap<&'a str, &'a str>> {
    let mut out = HashMap::new();
    if !s.st.context || s.cfg.reply_weight <= 0.0 {
        return Ok(out);
    }
    let mut best: Vec<(&str, f64)> = rrf.iter().map(|(n, r)| (*n, *r)).collect();
    best.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    best.truncate(s.limit);
    let names: Vec<&str> = best.iter().map(|(n, _)| *n).collect();
    let gap = (s.cfg.context_gap_minutes * 60.0).round() as i64;
    let manifest = s.idx.manifest();
    let near = thread::neighbours(manifest, &names, 1, gap);
    let mut pairs: Vec<(&'a str, &'a str)> = Vec::new();
    for question in names {
        let Some(next) = near.get(question).and_then(thread::Near::next) else { continue };
        let (Some((question, _)), Some((next, entry))) =
            (manifest.get_key_value(question), manifest.get_key_value(next))
        else {
            continue;
        };
        if entry.chunks > 0 && manifest.get_ref(next).is_some_and(|e| s.allowed(e)) {
            pairs.push((question, next));
        }
    }
    if pairs.is_empty() {
        return Ok(out);
    }
    // Transcript lines are one chunk each.
    let ids: Vec<String> =
        pairs.iter().flat_map(|(q, r)| [chunk_id(q, 0), chunk_id(r, 0)]).collect();
    let texts = s
        .idx
        .keyword()
        .chunk_texts(&ids.iter().map(String::as_str).collect::<Vec<_>>())
        .map_err(IndexError::from)?;
    for ((question, reply), texts) in pairs.into_iter().zip(texts.chunks(2)) {
        if let [Some(q), Some(r)] = texts
            && is_reply(&q.body, &r.body)
        {
            out.insert(reply, question);
        }
    }
    Ok(out)
}

/// Whether `reply` answers `question`: both are lines of a transcript, of two speakers, and the
/// question [asks](thread::asks) something.
fn is_reply(question: &str, reply: &str) -> bool {
    match (speaker(question), speaker(reply)) {
        (Some(asker), Some(replier)) => asker != replier && thread::asks(question),
        _ => false,
    }
}

/// **Speakers** (stage 2a, `search.subject_weight`, `balanced` only): a memory whose text opens with `Name:` —
/// a line of a transcript — is spoken by Name. When the query names people (its capitalised
/// words other than question words), a memory spoken by one of them has its fused score
/// multiplied by `1 + subject_weight`: "what does Melanie do to relax" is about what Melanie
/// says, not about every turn that greets her by name.
fn speakers(s: &Setup, cands: &mut [Candidate]) -> crate::Result<()> {
    let weight = s.cfg.subject_weight;
    for c in cands.iter_mut() {
        c.ex.subject_factor = 1.0;
    }
    if !s.st.context || weight <= 0.0 || cands.is_empty() {
        return Ok(());
    }
    let names = query_names(&s.q.text);
    if names.is_empty() {
        return Ok(());
    }
    let ids: Vec<String> = cands.iter().map(|c| chunk_id(c.name, c.ordinal)).collect();
    let texts = s
        .idx
        .keyword()
        .chunk_texts(&ids.iter().map(String::as_str).collect::<Vec<_>>())
        .map_err(IndexError::from)?;
    for (c, text) in cands.iter_mut().zip(texts) {
        let Some(speaker) = text.as_ref().and_then(|t| speaker(&t.body)) else { continue };
        if crate::index::keyword::text_terms(speaker).iter().any(|t| names.contains(t)) {
            c.ex.subject_factor = 1.0 + weight;
            c.ex.fused *= c.ex.subject_factor;
        }
    }
    Ok(())
}

/// The analysed terms of the capitalised words of a query that are not question words: the
/// people, places and things it names.
fn query_names(query: &str) -> HashSet<String> {
    use crate::index::keyword::analyzer::is_question_term;
    query
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .flat_map(|w| crate::index::keyword::text_terms(w.trim_end_matches("'s")))
        .filter(|t| !is_question_term(t))
        .collect()
}

/// The speaker of a text that opens with `Name:` (one to three capitalised words before a
/// colon on its first line), as in a transcript.
fn speaker(body: &str) -> Option<&str> {
    let line = body.trim_start().lines().next()?;
    let (name, _) = line.split_once(':')?;
    let words: Vec<&str> = name.split_whitespace().collect();
    let capitalised = |w: &&str| w.chars().next().is_some_and(char::is_uppercase);
    (!words.is_empty() && words.len() <= 3 && name.len() <= 40 && words.iter().all(capitalised))
        .then_some(name.trim())
}

/// The candidates of [`fuse`], in no particular order, from the manifest alone (no file is read):
/// every memory of either list that is indexed with chunks and not fully faded past `expires_at` (a
/// faded memory is no candidate, so it does not raise the gate either). With each, the chunks its
/// lexical evidence is measured on: the ones BM25 retrieved, best first (at most
/// `search.lexical_chunks`), so that lexical evidence never depends on the vector side; a memory BM25
/// did not retrieve is measured on its vector chunk.
fn candidates<'a>(
    s: &'a Setup,
    rrf: &HashMap<&str, f64>,
    bm25: &[Found],
    bm_ranks: &[fusion::Ranked],
    vec_ranks: &[fusion::Ranked],
    fb_ranks: &[fusion::Ranked],
) -> (Vec<Candidate<'a>>, Vec<LexicalChunks>) {
    let fb_by: HashMap<&str, usize> = fb_ranks.iter().map(|r| (r.0.as_str(), r.2)).collect();
    let bm_by: HashMap<&str, &fusion::Ranked> =
        bm_ranks.iter().map(|r| (r.0.as_str(), r)).collect();
    let vec_by: HashMap<&str, &fusion::Ranked> =
        vec_ranks.iter().map(|r| (r.0.as_str(), r)).collect();
    let mut bm_chunks: HashMap<&str, LexicalChunks> = HashMap::new();
    for (name, ordinal, score) in bm25 {
        let list = bm_chunks.entry(name.as_str()).or_default();
        if list.len() < s.cfg.lexical_chunks.max(1) && !list.iter().any(|(o, _)| o == ordinal) {
            list.push((*ordinal, Some(*score)));
        }
    }
    let manifest = s.idx.manifest();
    let mut cands = Vec::with_capacity(rrf.len());
    let mut lexical_chunks = Vec::with_capacity(rrf.len());
    for (name, rrf) in rrf {
        let Some((name, entry)) = manifest.get_key_value(name) else { continue };
        let past = entry.expires_at.map(|e| (s.now.as_second() - e) as f64 / 86_400.0);
        let Some(fade) = rank::expiry_factor(past, s.cfg.expiry_fade_days) else { continue };
        if entry.chunks == 0 {
            continue;
        }
        let bm = bm_by.get(name).copied();
        let vr = vec_by.get(name).copied();
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
            (None, None) => fb_by.get(name).copied().unwrap_or(0),
        };
        let ordinal = if ordinal < entry.chunks { ordinal } else { 0 };
        let mut own: LexicalChunks = bm_chunks
            .remove(name)
            .unwrap_or_default()
            .into_iter()
            .filter(|(o, _)| *o < entry.chunks)
            .collect();
        if own.is_empty() {
            own.push((ordinal, None));
        }
        lexical_chunks.push(own);
        let ex = Explain {
            bm25_rank: bm.map(|b| b.1),
            bm25_score: bm.map(|b| b.3),
            vector_rank: vr.map(|v| v.1),
            vector_similarity: vr.map(|v| v.3),
            rrf: *rrf,
            expiry_factor: fade,
            ..Default::default()
        };
        cands.push(Candidate { name, entry, ordinal, superseded_by: None, ex });
    }
    (cands, lexical_chunks)
}

/// The lexical side of [`fuse`], measured on each of the candidate's retrieved chunks:
/// `coverage`, the IDF-weighted share of the query's terms found in the chunk, title and tags
/// (read from the keyword index's postings), `bm25_norm` = the chunk's BM25 / the query's best
/// BM25, and their mix. The memory takes its best chunk by that mix: in a long memory the
/// section with the most BM25 weight (the one that repeats the subject most) is not always the
/// one that holds the whole question.
fn lexical(
    s: &Setup,
    cands: &mut [Candidate],
    lexical_chunks: &[LexicalChunks],
    query_terms: &[(String, f32)],
    bm25_top: f64,
) -> crate::Result<()> {
    let idf_total: f64 = query_terms.iter().map(|(_, w)| f64::from(*w)).sum();
    let terms: Vec<&str> = query_terms.iter().map(|(t, _)| t.as_str()).collect();
    // The evidence of a question counts its other words only: a long chunk always holds some
    // "how" or "I", which says the vault speaks English, not that it knows the answer. A query of
    // question words alone, or one that is no question, keeps them.
    let content: Vec<f64> = {
        use crate::index::keyword::analyzer::{is_question_term, looks_like_question};
        let question = looks_like_question(&s.q.text) && !terms.iter().all(|t| is_question_term(t));
        let asked = |t: &str| question && is_question_term(t);
        query_terms.iter().map(|(t, w)| if asked(t) { 0.0 } else { f64::from(*w) }).collect()
    };
    let content_total: f64 = content.iter().sum();
    let ids: Vec<String> = cands
        .iter()
        .zip(lexical_chunks)
        .flat_map(|(c, chunks)| chunks.iter().map(|(o, _)| chunk_id(c.name, *o)))
        .collect();
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    let mut present = s
        .idx
        .keyword()
        .term_matches(&ids, &terms, s.expansion())
        .map_err(IndexError::from)?
        .into_iter();
    for (c, chunks) in cands.iter_mut().zip(lexical_chunks) {
        // A chunk missing from the keyword index (never after a reconcile): title and tags only.
        let own = || {
            let mut own: HashSet<String> =
                crate::index::keyword::text_terms(&c.entry.title).into_iter().collect();
            for t in &c.entry.tags {
                own.extend(crate::index::keyword::text_terms(t));
            }
            terms.iter().map(|t| if own.contains(*t) { 1.0 } else { 0.0 }).collect::<Vec<f32>>()
        };
        // (lexical, coverage, bm25_norm, expansions, ordinal, content coverage) of each chunk.
        let mut scored: Vec<(f64, f64, f64, Vec<String>, usize, f64)> =
            Vec::with_capacity(chunks.len());
        for (ordinal, score) in chunks {
            let (weights, expanded) = match present.next().flatten() {
                // A term found only through an expansion counts at `search.expansion_weight`.
                Some(m) => (m.weights, m.expanded.iter().map(ToString::to_string).collect()),
                None => (own(), Vec::new()),
            };
            let coverage = if idf_total > 0.0 {
                query_terms
                    .iter()
                    .zip(&weights)
                    .map(|((_, w), p)| f64::from(*w) * f64::from(*p))
                    .fold(0.0, |a, b| a + b)
                    / idf_total
            } else {
                0.0
            };
            let content_coverage = if content_total > 0.0 {
                content.iter().zip(&weights).map(|(w, p)| w * f64::from(*p)).sum::<f64>()
                    / content_total
            } else {
                0.0
            };
            let bm25_norm = fusion::relative_score(score.map(f64::from), bm25_top);
            let lexical = rank::lexical_score(bm25_norm, coverage, LEXICAL_COVERAGE_SHARE);
            scored.push((lexical, coverage, bm25_norm, expanded, *ordinal, content_coverage));
        }
        // The best mix; between equals, the chunk BM25 ranked first.
        let Some((best, coverage, bm25_norm, expanded, ordinal, content_coverage)) =
            scored.into_iter().reduce(|a, b| if b.0 > a.0 { b } else { a })
        else {
            continue;
        };
        let ex = &mut c.ex;
        ex.coverage = coverage;
        ex.content_coverage = content_coverage;
        ex.bm25_norm = bm25_norm;
        ex.expanded_terms = expanded;
        ex.lexical_chunk = ordinal;
        ex.lexical = best;
    }
    Ok(())
}

/// The cosine of a candidate the vector side did not retrieve: its chunk's stored vector
/// (re-embedding the chunk only when the index lacks it), so a BM25-only candidate costs no
/// model call. 0 for a query without a vector.
fn stored_similarity(s: &Setup, c: &Candidate, qvec: &[f32]) -> crate::Result<f32> {
    if !qvec.iter().any(|x| *x != 0.0) {
        return Ok(0.0);
    }
    let idx = s.idx;
    let v = match idx.vector().vector(chunk_key(c.name, c.ordinal)).ok().flatten() {
        Some(v) => Some(v),
        None => {
            let id = chunk_id(c.name, c.ordinal);
            match idx.keyword().chunk_texts(&[id.as_str()]).ok().and_then(|mut t| t.pop()) {
                Some(Some(text)) => {
                    let input =
                        crate::index::store::embed_text(&c.entry.title, &text.headers, &text.body);
                    idx.embedder().embed_batch(&[input.as_str()])?.pop()
                }
                _ => None,
            }
        }
    };
    Ok(v.map(|v| crate::index::math::cosine(qvec, &v)).unwrap_or(0.0))
}

/// **Thread context** (stage 2b, `balanced` only): a memory with evidence of its own gets
/// `context_weight ×` the best fused score of its thread neighbours (memories of one folder
/// written one after another), their own score before context. Context ranks a memory that
/// matches the query among others; it never makes a result of a memory with no evidence of its
/// own (the note written beside the answer, on another subject). A [reply](replies) gets
/// `reply_weight ×` its question's score instead, when that is more.
pub(super) fn context(s: &Setup, state: &mut State) {
    let cfg = s.cfg;
    if !s.st.context {
        return;
    }
    let near = if cfg.context_weight > 0.0 && cfg.context_span > 0 {
        let names: Vec<&str> = state.cands.iter().map(|c| c.name).collect();
        let gap = (cfg.context_gap_minutes * 60.0).round() as i64;
        thread::neighbours(s.idx.manifest(), &names, cfg.context_span, gap)
    } else {
        HashMap::new()
    };
    if near.is_empty() && state.replies.is_empty() {
        return;
    }
    let own: HashMap<&str, f64> = state.cands.iter().map(|c| (c.name, c.ex.fused)).collect();
    for c in &mut state.cands {
        let best = near.get(c.name).map_or(0.0, |ns| {
            ns.names.iter().filter_map(|n| own.get(n.as_str())).copied().fold(0.0, f64::max)
        });
        c.ex.context = best;
        c.ex.reply_to = state.replies.get(c.name).and_then(|q| own.get(q)).copied().unwrap_or(0.0);
        // A reply's evidence is its question's: what the question matched, it answers.
        if !thread::has_own_evidence(c.ex.evidence) && c.ex.reply_to <= 0.0 {
            continue;
        }
        c.ex.context_bonus = (cfg.context_weight * best).max(cfg.reply_weight * c.ex.reply_to);
        c.ex.fused += c.ex.context_bonus;
    }
}

/// **Times in the query** (stage 2c, `balanced` only): when the query names a time, the fused
/// score is multiplied by `1 − temporal_weight × (1 − closeness)` of the memory's creation to it.
pub(super) fn time(s: &Setup, state: &mut State) {
    let weight = s.cfg.temporal_weight;
    state.span =
        (s.st.context && weight > 0.0).then(|| temporal::find_span(&s.q.text, s.now)).flatten();
    for c in &mut state.cands {
        c.ex.time_closeness = state.span.map_or(1.0, |t| t.closeness(c.entry.created));
        c.ex.time_factor = 1.0 - weight * (1.0 - c.ex.time_closeness);
        if state.span.is_some() {
            c.ex.fused *= c.ex.time_factor;
        }
    }
    state.timings.evidence = state.t0.elapsed();
}

/// **Calibrate** (stage 3) to an absolute relevance in [0, 1]: `sigmoid(steepness × (gate −
/// midpoint)) × fused / best fused`, the gate being the best `evidence` among the query's
/// candidates; the `ragdocs` profile takes a sigmoid over the raw RRF score instead.
pub(super) fn calibrate(s: &Setup, state: &mut State) {
    let gate = state.cands.iter().map(|c| c.ex.evidence).fold(0.0, f64::max);
    let fused_top = state.cands.iter().map(|c| c.ex.fused).fold(0.0, f64::max);
    for c in &mut state.cands {
        let ex = &mut c.ex;
        ex.gate = gate;
        ex.calibrated = if s.st.rrf_calibration {
            rank::calibrate_rrf(ex.rrf, 0.035, 150.0)
        } else {
            rank::calibrate_fused(
                gate,
                fusion::relative_score(Some(ex.fused), fused_top),
                s.cfg.calibration_midpoint,
                s.cfg.calibration_steepness,
            )
        };
    }
}

/// **Lifecycle** (stages 4–7): the calibrated relevance × the type profile, + the recency bonus,
/// × the temperature factor (or, under `mira`, the importance factor), × the supersession
/// penalty and the expiration fade, clamped to [0, 1] as `score`.
pub(super) fn lifecycle(s: &Setup, signals: &Signals, state: &mut State) {
    let now = s.now.as_second();
    for c in &mut state.cands {
        let ex = &mut c.ex;
        ex.age_days = signals.age_days(c.entry.created, now).max(0.0);
        let mut score = type_and_recency(s, &c.entry.memory_type, ex);
        ex.temperature = signals.temperature(&c.entry.id, c.entry.pinned).clamp(0.0, 1.0);
        ex.temperature_factor =
            if s.st.temperature { rank::temperature_factor(ex.temperature) } else { 1.0 };
        score *= ex.temperature_factor;
        if s.st.importance
            && let Some(i) = signals.importance(c.name)
        {
            let factor = rank::importance_factor(i);
            (ex.importance, ex.importance_factor) = (Some(i), Some(factor));
            score *= factor;
        }
        // Superseded by the frontmatter's `superseded_by` or another memory's `supersedes` link.
        c.superseded_by = c
            .entry
            .superseded_by
            .clone()
            .or_else(|| s.idx.superseded_by_link(c.name).map(str::to_owned));
        ex.supersession_factor =
            if c.superseded_by.is_some() { s.cfg.supersession_penalty } else { 1.0 };
        score *= ex.supersession_factor;
        score *= ex.expiry_factor;
        ex.score = score.clamp(0.0, 1.0);
    }
    state.timings.rank = state.t0.elapsed();
}

/// Stages 4–5 of [`lifecycle`] for a memory of type `memory_type`: the type's weight (bounded,
/// `1 − (1 − r)^weight`) × its decay `1 / (1 + age / half-life)`, then + `max_boost ×
/// rate^age` within the type's recency window. Outside `ragdocs` the bonus is scaled by the
/// calibrated relevance (recency reorders good matches but never lifts a memory the query
/// misses) and by the headroom below 1 (strong matches never reach the clamp, where ties would
/// erase their order). Returns the score so far.
fn type_and_recency(s: &Setup, memory_type: &str, ex: &mut Explain) -> f64 {
    let mut score = ex.calibrated;
    ex.type_weight = 1.0;
    ex.type_decay = 1.0;
    let Some(p) = s.vault.config.type_profile(memory_type) else { return score };
    if s.st.type_profile {
        ex.type_weight = p.weight;
        ex.type_decay = rank::type_decay(ex.age_days, p.half_life_days);
        score = rank::type_weighted(score, ex.type_weight) * ex.type_decay;
    }
    if s.st.recency {
        ex.recency_bonus = rank::recency_bonus(
            ex.age_days,
            p.recency_window_days,
            p.recency_max_boost,
            p.recency_rate,
        );
        if !s.st.rrf_calibration {
            ex.recency_bonus *= ex.calibrated * (1.0 - score).max(0.0);
        }
        score += ex.recency_bonus;
    }
    score
}

/// **Select** (stage 8): the threshold on the calibrated relevance of stage 3 (the lifecycle stages
/// reorder what matches but never hide it; `ragdocs` filters its final score), sorted by score then
/// name, cut to the limit or filled up to the token budget. When nothing passes, the closest
/// candidates below the threshold are kept to say what almost matched.
pub(super) fn select(s: &Setup, state: State) -> crate::Result<SearchResults> {
    let State { cands, query_terms, span, t0, timings, .. } = state;
    let (vault, threshold) = (s.vault, s.cfg.score_threshold);
    let mut hits: Vec<(SearchHit, usize)> = cands.into_iter().map(|c| hit(vault, c)).collect();
    let candidates = hits.len();
    let rrf_calibration = s.st.rrf_calibration;
    let relevance = |h: &SearchHit| if rrf_calibration { h.score } else { h.explain.calibrated };
    let mut below: Vec<(SearchHit, usize)> = Vec::new();
    if !hits.iter().any(|(h, _)| relevance(h) >= threshold) {
        below = hits.iter().filter(|(h, _)| relevance(h) > 0.0).cloned().collect();
        below.sort_by(|(a, _), (b, _)| {
            relevance(b).total_cmp(&relevance(a)).then_with(|| a.name.cmp(&b.name))
        });
        below.truncate(BELOW_THRESHOLD_SHOWN);
    }
    hits.retain(|(h, _)| relevance(h) >= threshold);
    hits.sort_by(|(a, _), (b, _)| b.score.total_cmp(&a.score).then_with(|| a.name.cmp(&b.name)));
    let t_rank = timings.rank;
    let hits = match s.q.budget {
        Some(budget) => fill_budget(s, hits, budget, &query_terms)?,
        None => {
            hits.truncate(s.limit);
            fill_chunks(vault, s.idx, hits, &query_terms)?
        }
    };
    log_timings(&timings, t0.elapsed() - t_rank, candidates);
    let expanded = {
        let terms: Vec<&str> = query_terms.iter().map(|(t, _)| t.as_str()).collect();
        s.idx.keyword().expand_terms(&terms, s.expansion()).map_err(IndexError::from)?
    };
    let expanded = expanded.iter().flatten().map(ToString::to_string).collect();
    let mut query = reading(&s.q.text, query_terms, expanded, span);
    query.question_weight = f64::from(s.question_weight);
    let below_threshold = fill_chunks(vault, s.idx, below, &query.terms)?
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
        profile: s.profile,
        intent: s.q.intent,
        embedder: s.idx.embedder().id().to_owned(),
        candidates,
        threshold,
        below_threshold,
    })
}

/// A candidate as a result, with the ordinal of its chunk; the chunk's text, snippet and tokens
/// are filled in for the results only ([`fill_chunks`]).
fn hit(vault: &Vault, c: Candidate) -> (SearchHit, usize) {
    let Candidate { name, entry, ordinal, superseded_by, ex } = c;
    let h = SearchHit {
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
    };
    (h, ordinal)
}

/// The results in order, filled a few at a time until `budget` estimated tokens are spent (at
/// least one result).
fn fill_budget(
    s: &Setup,
    hits: Vec<(SearchHit, usize)>,
    budget: usize,
    query_terms: &[(String, f32)],
) -> crate::Result<Vec<SearchHit>> {
    let mut used = 0;
    let mut kept: Vec<SearchHit> = Vec::new();
    let mut rest = hits.into_iter();
    loop {
        let part: Vec<(SearchHit, usize)> = rest.by_ref().take(8).collect();
        if part.is_empty() {
            return Ok(kept);
        }
        for h in fill_chunks(s.vault, s.idx, part, query_terms)? {
            if !kept.is_empty() && used + h.tokens > budget {
                return Ok(kept);
            }
            used += h.tokens;
            kept.push(h);
        }
    }
}

/// How the query was read: its scoring terms, its question words (none when the query is
/// nothing else), the vault terms its terms expand to, and the time it names.
fn reading(
    text: &str,
    terms: Vec<(String, f32)>,
    expanded_terms: Vec<String>,
    span: Option<TimeSpan>,
) -> QueryReading {
    use crate::index::keyword::analyzer::{is_question_term, weighted_query_terms};
    let fmt = |t: i64| {
        jiff::Timestamp::from_second(t)
            .map(crate::model::time::format_timestamp)
            .unwrap_or_default()
    };
    let as_typed = weighted_query_terms(text, 1.0);
    QueryReading {
        question_words: if as_typed.iter().all(|(t, _)| is_question_term(t)) {
            Vec::new()
        } else {
            as_typed.into_iter().filter(|(t, _)| is_question_term(t)).map(|(t, _)| t).collect()
        },
        question_weight: 0.0,
        expanded_terms,
        terms,
        time: span.map(|s| (fmt(s.start), fmt(s.end))),
    }
}

fn log_timings(t: &Timings, fill: Duration, candidates: usize) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    // Each side's own time: in a large vault they run at once (`vector_side_ms` near 0).
    tracing::debug!(
        bm25_ms = ms(t.bm25),
        vector_side_ms = ms(t.vector_side),
        embed_ms = ms(t.embed.saturating_sub(t.vector_side)),
        vector_ms = ms(t.vector_side_done.saturating_sub(t.embed)),
        candidates_ms = ms(t.cands - t.vector),
        evidence_ms = ms(t.evidence - t.cands),
        rank_ms = ms(t.rank - t.evidence),
        fill_ms = ms(fill),
        candidates,
        "searched"
    );
}

#[cfg(test)]
mod tests {
    use super::{ByStatus, SIDES_MIN, query_names, question_weight, speaker};
    use crate::config::SearchConfig;
    use crate::index::manifest::{Entry, Manifest, chunk_key};

    #[test]
    fn memories_by_status_tell_the_vector_filter_what_to_leave_out() {
        let mut m = Manifest::default();
        for (name, status, chunks) in
            [("a", "active", 2), ("b", "active", 3), ("c", "active", 1), ("old", "archived", 2)]
        {
            let e = Entry { status: status.into(), chunks, ..Entry::default() };
            m.insert(name.to_owned(), e);
        }
        let b = ByStatus::of(&m);
        let strings = |s: &[&str]| s.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        // The usual search leaves out the archived memory: its two chunks are the filter.
        let (keys, allowed) = b.filter_keys(&strings(&["active"])).unwrap().unwrap();
        assert!(!allowed);
        let mut want = crate::index::store::KeySet::default();
        want.extend([chunk_key("old", 0), chunk_key("old", 1)]);
        assert_eq!(keys, want);
        // Statuses are matched as the filter matches them, in any case; nothing left out is
        // no filter at all.
        assert_eq!(b.excluded(&strings(&["ACTIVE", "archived"])).map(|v| v.len()), Some(0));
        assert_eq!(b.filter_keys(&strings(&["active", "archived"])), Some(None));
        // Leaving out the active memories is left to a pass over the entries.
        assert!(b.excluded(&strings(&["archived"])).is_none());
        assert!(b.filter_keys(&strings(&["archived"])).is_none());
    }

    #[test]
    fn question_words_weigh_in_proportion_to_how_long_the_chunks_are() {
        let cfg = SearchConfig::default();
        let full = cfg.question_weight;
        assert!(full > 0.0);
        // A vault of one-line turns (≈ 22 indexed words), and up to half of 60: nothing.
        assert_eq!(question_weight(&cfg, 22.0), 0.0);
        assert_eq!(question_weight(&cfg, 30.0), 0.0);
        assert!((question_weight(&cfg, 45.0) - full / 2.0).abs() < 1e-12);
        // Sections of a long note or a whole exchange: in full.
        assert_eq!(question_weight(&cfg, 60.0), full);
        assert_eq!(question_weight(&cfg, 400.0), full);
        let off = SearchConfig { question_weight: 0.0, ..cfg };
        assert_eq!(question_weight(&off, 400.0), 0.0);
    }

    #[test]
    fn a_transcript_line_names_its_speaker() {
        assert_eq!(speaker("Melanie: I signed up for a pottery class."), Some("Melanie"));
        assert_eq!(speaker("\nDr Jane Doe: the results are in"), Some("Dr Jane Doe"));
        // Prose, a lower-case label, a long label or a colon on a later line: no speaker.
        assert_eq!(speaker("The plan: ship on Friday."), None);
        assert_eq!(speaker("todo: call the bank"), None);
        assert_eq!(speaker("We Met The Whole Team Today: great"), None);
        assert_eq!(speaker("Shipped it.\nBob: nice"), None);
    }

    #[test]
    fn a_question_names_the_capitalised_words_that_are_not_question_words() {
        let names = query_names("What does Melanie's family do on weekends?");
        assert_eq!(names.len(), 1, "{names:?}");
        assert!(names.iter().all(|n| n.starts_with("melani")), "{names:?}");
        assert!(query_names("what did we decide about the database").is_empty());
    }

    /// The keyword and vector sides run on two threads in a large vault: a small one forced
    /// to do the same ranks every query exactly as with the sides one after the other, down to
    /// each score and the values `--explain` shows.
    #[test]
    fn the_two_sides_on_two_threads_rank_as_one_after_the_other() {
        use crate::config::Config;
        use crate::index::store::Indexes;
        use crate::model::MemoryName;
        use crate::search::{SearchQuery, Signals, search};
        use crate::vault::{AddRequest, Clock, Vault};
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join(".memories");
        crate::vault::init(&root, "").unwrap();
        let mut config = Config::default();
        config.embedding.model = "builtin".into();
        let clock = Clock::pinned("2026-01-10T10:00:00Z".parse().unwrap());
        let vault = Vault::open(&root, config, clock).unwrap();
        let topics =
            ["postgres migration rolled back", "redis cache latency", "auth token rotation"];
        for i in 0..30 {
            let text = format!(
                "Note {i}: {} after the {} review; Anna said the fix ships on Friday.",
                topics[i % 3],
                topics[(i / 3) % 3]
            );
            let req = AddRequest { content: text, memory_type: None, tags: vec![] };
            vault.add(&MemoryName::parse(&format!("chat/turn-{i}")).unwrap(), &req).unwrap();
        }
        let embedder = crate::index::select::embedder_for(&vault.config).unwrap();
        let mut idx = Indexes::open(&vault, embedder).unwrap();
        idx.reconcile(&vault).unwrap();
        let run = |min: usize, text: &str| {
            SIDES_MIN.with(|c| c.set(min));
            let r = search(&vault, &idx, &SearchQuery::new(text), &Signals::neutral()).unwrap();
            SIDES_MIN.with(|c| c.set(super::PARALLEL_SIDES_MIN));
            serde_json::to_string(&r.hits).unwrap()
        };
        for q in
            ["why was the postgres migration rolled back", "redis latency", "what did Anna say"]
        {
            let together = run(0, q);
            assert!(together.contains("chat/turn-"), "{q}: {together}");
            assert_eq!(together, run(usize::MAX, q), "{q}");
        }
    }
}
