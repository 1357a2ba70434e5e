//! The keyword index: BM25 over chunks, backed by tantivy.
//!
//! One tantivy document per chunk. Text fields (`title`, `headers`, `body`, `tags`) go through the
//! code-aware analyzer of [`analyzer`]; raw fields (`chunk_id`, `memory_id`, `type`, `status`,
//! `tag`) and the `created` timestamp serve deletes and filters. `headers` and `body` are also
//! stored, so search reads a hit's chunk from here ([`KeywordIndex::chunk_texts`]).
//!
//! Queries never go through tantivy's query parser: [`KeywordIndex::search`] analyses the user's
//! text with the same analyzer as the documents and builds the query itself, so no input can
//! cause a parse error. Each distinct term is one `SHOULD` clause: a dis-max over the weighted
//! fields ([`FIELD_BOOSTS`]: the best field's boosted BM25 plus a small tie-breaker share of the
//! others'), boosted by the term's count in the query. A quoted span (`"error handling"`) adds a
//! phrase boost; no other syntax is interpreted (`-`, `+`, `:`, `*`, brackets and
//! `AND`/`OR`/`NOT` are plain text). A term's dis-max also holds its [expansions](expand) (an
//! abbreviation's long form, a sub-word of the vault), boosted below the term itself.
//!
//! Why dis-max and why these boosts: a memory's title is usually also its first heading, so it
//! sits in `title`, `headers` and `body` at once. Summing the fields with the ragdocs boosts
//! (3 / 2 / 1.5 / 1) counted a title word six times and cost 0.12 nDCG@10 on SciFact
//! (0.558 against 0.682, `benches/scifact.rs`); the best-field combination with milder boosts
//! keeps the ordering title > headers > tags > body, so a title match still outranks a body
//! match.
//!
//! Filters ([`KeywordFilter`]) are `MUST` clauses (constant score 0) of the same boolean query,
//! so they apply inside retrieval, before the top-k cut, and do not change
//! scores.
//!
//! tantivy is used in this module only.

pub mod analyzer;
mod chunks;
pub(crate) mod directory;
pub mod expand;
mod terms;

pub use chunks::{ChunkText, TermMatches};
pub use expand::{ExpandedTerm, Expansion, ExpansionKind};

pub use terms::text_terms;

use std::ops::Bound;
use std::path::{Path, PathBuf};

use tantivy::collector::TopDocs;
use tantivy::directory::error::LockError;
use tantivy::index::SegmentId;
use tantivy::indexer::NoMergePolicy;
use tantivy::query::{
    BooleanQuery, BoostQuery, ConstScoreQuery, DisjunctionMaxQuery, Occur, PhraseQuery, Query,
    RangeQuery, TermQuery,
};
use tantivy::schema::{
    Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
    Value,
};
use tantivy::{
    FutureResult, Index, IndexReader, IndexWriter, ReloadPolicy, SegmentMeta, TantivyDocument,
    TantivyError, Term,
};

/// Field boosts, highest first: a match in the title outweighs one in a heading, a tag, or the
/// body (the ragdocs ordering, with magnitudes measured on SciFact; see the module docs).
pub const FIELD_BOOSTS: FieldBoosts =
    FieldBoosts { title: 1.5, headers: 1.25, tags: 1.1, body: 1.0, tie_breaker: 0.05 };

/// Extra weight of a quoted phrase found verbatim (in the title or the body).
pub const PHRASE_BOOST: f32 = 2.0;

/// The default weight of a query's [question words](analyzer::QUESTION_WORDS) (left out).
pub const DEFAULT_QUESTION_WEIGHT: f32 = 0.0;

/// At most this many distinct query terms are used; the rest of a very long query is ignored.
pub const MAX_QUERY_TERMS: usize = 256;

/// A [small write](KeywordIndex::small_writer) merges only segments of at most this many chunks.
///
/// With tantivy's default policy every segment under 10,000 chunks shares one level, so the
/// segments a `reindex` built were merged with the first few small segments after it: one small
/// write waited while the whole index was rewritten (0.2–0.7 s at 10k memories). A small write
/// merges only segments up to this size, once [`SMALL_WRITE_MERGE_SEGMENTS`] of them have piled
/// up, into one of at most about this size plus the new ones. Larger segments are merged by full
/// writers (a `reindex`, a batch of more than a few memories).
pub const SMALL_WRITE_MERGE_MAX_CHUNKS: u32 = 1_000;

/// How many segments of at most [`SMALL_WRITE_MERGE_MAX_CHUNKS`] a small write lets pile up
/// before it merges them into one.
///
/// Fewer merges would mean more segments, and every commit's reload and every search opens each
/// one: measured at 10k memories, a commit took 0.5 ms longer per segment (24 small segments
/// raised the median MCP `create_memory` by a quarter), a search about 0.015 ms.
pub const SMALL_WRITE_MERGE_SEGMENTS: usize = 8;

/// Per-field boosts of the keyword query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldBoosts {
    /// The memory's title (its first heading).
    pub title: f32,
    /// The chunk's heading path.
    pub headers: f32,
    /// The memory's tags.
    pub tags: f32,
    /// The chunk's text.
    pub body: f32,
    /// How a term's per-field scores combine: the best field's score plus `tie_breaker` times
    /// the others' (0 = best field only, 1 = sum over fields).
    pub tie_breaker: f32,
}

/// Errors of the keyword index.
#[derive(Debug, thiserror::Error)]
pub enum KeywordError {
    /// The index directory could not be created.
    #[error("cannot create keyword index directory {}", .path.display())]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// The IO error.
        #[source]
        source: std::io::Error,
    },
    /// The index on disk could not be opened or created.
    #[error("cannot open keyword index at {}", .path.display())]
    Open {
        /// The index directory.
        path: PathBuf,
        /// The tantivy error.
        #[source]
        source: TantivyError,
    },
    /// The index on disk was built with another schema (an older memlane); rebuild it.
    #[error("keyword index at {} has an incompatible schema (rebuild it)", .path.display())]
    SchemaMismatch {
        /// The index directory.
        path: PathBuf,
    },
    /// Another process holds the index writer lock.
    #[error("keyword index is locked by another writer")]
    Locked(#[source] TantivyError),
    /// Any other tantivy failure, with what was being done.
    #[error("keyword index: cannot {action}")]
    Tantivy {
        /// What failed, e.g. "commit".
        action: &'static str,
        /// The tantivy error.
        #[source]
        source: TantivyError,
    },
}

fn tantivy_err(action: &'static str) -> impl FnOnce(TantivyError) -> KeywordError {
    move |source| KeywordError::Tantivy { action, source }
}

/// One chunk to index.
#[derive(Debug, Clone, Copy)]
pub struct KeywordDoc<'a> {
    /// Unique id of the chunk (e.g. `<memory_id>#<ordinal>`).
    pub chunk_id: &'a str,
    /// Id of the memory the chunk belongs to (all its chunks share it).
    pub memory_id: &'a str,
    /// The memory's title.
    pub title: &'a str,
    /// The chunk's heading path (`Goals > Risks`).
    pub headers: &'a str,
    /// The chunk's text.
    pub body: &'a str,
    /// The memory's tags (searchable as text and filterable exactly, case-insensitively).
    pub tags: &'a [String],
    /// The memory's type (filterable, case-insensitively).
    pub memory_type: &'a str,
    /// The memory's status (filterable, case-insensitively).
    pub status: &'a str,
    /// Creation time, Unix seconds (filterable by range).
    pub created_unix: i64,
}

/// Hard filters applied inside retrieval. Empty lists and `None` bounds do not filter.
///
/// Values are compared case-insensitively. Within a list the values are alternatives (OR);
/// the lists combine with AND.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeywordFilter {
    /// Allowed memory types.
    pub types: Vec<String>,
    /// Required tags: a chunk matches when its memory has any of them.
    pub tags: Vec<String>,
    /// Allowed statuses.
    pub statuses: Vec<String>,
    /// Inclusive lower bound on `created_unix`.
    pub created_after: Option<i64>,
    /// Exclusive upper bound on `created_unix`.
    pub created_before: Option<i64>,
}

impl KeywordFilter {
    /// True when the filter lets every chunk through.
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }
}

/// One scored chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct KeywordHit {
    /// The chunk's id.
    pub chunk_id: String,
    /// The memory the chunk belongs to.
    pub memory_id: String,
    /// BM25 score (weighted sum over fields); only comparable within one query.
    pub score: f32,
}

#[derive(Debug, Clone, Copy)]
struct Fields {
    chunk_id: Field,
    memory_id: Field,
    title: Field,
    headers: Field,
    body: Field,
    tags: Field,
    tag: Field,
    memory_type: Field,
    status: Field,
    created: Field,
}

fn build_schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let text = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(analyzer::INDEX_TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let fields = Fields {
        chunk_id: builder.add_text_field("chunk_id", STRING | STORED),
        memory_id: builder.add_text_field("memory_id", STRING | STORED),
        title: builder.add_text_field("title", text.clone()),
        // Stored: search returns a hit's chunk from the index, without re-reading its file.
        headers: builder.add_text_field("headers", text.clone().set_stored()),
        body: builder.add_text_field("body", text.clone().set_stored()),
        tags: builder.add_text_field("tags", text),
        tag: builder.add_text_field("tag", STRING),
        memory_type: builder.add_text_field("type", STRING | STORED),
        status: builder.add_text_field("status", STRING | STORED),
        created: builder.add_i64_field("created", INDEXED | STORED),
    };
    (builder.build(), fields)
}

/// The keyword index (one tantivy index under `.memories/indices/keyword/`, or in RAM).
pub struct KeywordIndex {
    index: Index,
    reader: IndexReader,
    fields: Fields,
    boosts: FieldBoosts,
}

impl std::fmt::Debug for KeywordIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeywordIndex").finish_non_exhaustive()
    }
}

impl KeywordIndex {
    /// Creates an empty index in memory (tests, benchmarks).
    pub fn create_in_ram() -> Result<Self, KeywordError> {
        let (schema, fields) = build_schema();
        Self::from_index(Index::create_in_ram(schema), fields)
    }

    /// Opens the index in `dir`, creating the directory and an empty index when absent.
    ///
    /// An index built with another schema is reported as [`KeywordError::SchemaMismatch`]; the
    /// caller deletes the directory and rebuilds from the files.
    pub fn open_or_create(dir: &Path) -> Result<Self, KeywordError> {
        let (schema, fields) = build_schema();
        crate::index::confined_io::create_dir_all(dir)
            .map_err(|source| KeywordError::CreateDir { path: dir.to_path_buf(), source })?;
        let open_err = |source| KeywordError::Open { path: dir.to_path_buf(), source };
        let directory = directory::ConfinedDirectory::open(dir).map_err(|e| open_err(e.into()))?;
        let index = if Index::exists(&directory).map_err(|e| open_err(e.into()))? {
            let index = Index::open(directory).map_err(open_err)?;
            if index.schema() != schema {
                return Err(KeywordError::SchemaMismatch { path: dir.to_path_buf() });
            }
            index
        } else {
            Index::create(directory, schema, Default::default()).map_err(open_err)?
        };
        Self::from_index(index, fields)
    }

    /// A copy in memory of the index in `dir`: its files are read, nothing is written there
    /// (tantivy's own reader takes a lock file in the folder, which a read-only vault refuses).
    pub fn open_copy_in_ram(dir: &Path) -> Result<Self, KeywordError> {
        use tantivy::Directory as _;
        let (schema, fields) = build_schema();
        let open_err = |source| KeywordError::Open { path: dir.to_path_buf(), source };
        let io_err = |e: std::io::Error| open_err(TantivyError::from(e));
        let ram = tantivy::directory::RamDirectory::create();
        for entry in crate::index::confined_io::read_dir(dir).map_err(io_err)? {
            let name = entry.name;
            // Lock files: in a RAM directory an existing one reads as a lock held. Links are
            // never read.
            if entry.kind != crate::disk::Kind::File || name.to_string_lossy().ends_with(".lock") {
                continue;
            }
            let bytes = crate::index::confined_io::read(&dir.join(&name)).map_err(io_err)?;
            ram.atomic_write(Path::new(&name), &bytes).map_err(io_err)?;
        }
        let index = Index::open(ram).map_err(open_err)?;
        if index.schema() != schema {
            return Err(KeywordError::SchemaMismatch { path: dir.to_path_buf() });
        }
        Self::from_index(index, fields)
    }

    fn from_index(index: Index, fields: Fields) -> Result<Self, KeywordError> {
        analyzer::register(&index);
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(tantivy_err("open a reader"))?;
        Ok(Self { index, reader, fields, boosts: FIELD_BOOSTS })
    }

    /// Replaces the field boosts used by [`search`](Self::search) (default [`FIELD_BOOSTS`]);
    /// boosts apply at query time, so changing them needs no reindex.
    pub fn with_boosts(mut self, boosts: FieldBoosts) -> Self {
        self.boosts = boosts;
        self
    }

    /// The field boosts in use.
    pub fn boosts(&self) -> FieldBoosts {
        self.boosts
    }

    /// Opens the single writer. Fails with [`KeywordError::Locked`] while another writer (in
    /// this or another process) is open.
    pub fn writer(&self) -> Result<KeywordWriter, KeywordError> {
        let threads = std::thread::available_parallelism().map_or(1, usize::from).clamp(1, 4);
        self.writer_with_threads(threads)
    }

    /// [`writer`](Self::writer) with `threads` indexing threads. Each thread builds its own
    /// segments, so how many chunks each holds depends on how the threads were scheduled.
    pub(crate) fn writer_with_threads(
        &self,
        threads: usize,
    ) -> Result<KeywordWriter, KeywordError> {
        let writer = self.index.writer_with_num_threads(threads, threads * 32_000_000).map_err(
            |e| match e {
                TantivyError::LockFailure(LockError::LockBusy, _) => KeywordError::Locked(e),
                e => KeywordError::Tantivy { action: "open a writer", source: e },
            },
        )?;
        Ok(KeywordWriter {
            writer: Some(writer),
            reader: self.reader.clone(),
            fields: self.fields,
            small: false,
            merge: None,
        })
    }

    /// A writer for a small change (a few memories): one indexing thread with tantivy's smallest
    /// memory budget (15 MB), so opening it and committing cost less than
    /// [`writer`](Self::writer)'s. Its commits merge only small segments (see
    /// [`SMALL_WRITE_MERGE_MAX_CHUNKS`]), so a small write never waits for a large merge, and
    /// it starts that merge itself (see [`KeywordWriter::merging`]) rather than by a policy, so
    /// a long-lived process can answer while the merge runs on.
    pub fn small_writer(&self) -> Result<KeywordWriter, KeywordError> {
        let writer = self.index.writer_with_num_threads(1, 15_000_000).map_err(|e| match e {
            TantivyError::LockFailure(LockError::LockBusy, _) => KeywordError::Locked(e),
            e => KeywordError::Tantivy { action: "open a writer", source: e },
        })?;
        writer.set_merge_policy(Box::new(NoMergePolicy));
        Ok(KeywordWriter {
            writer: Some(writer),
            reader: self.reader.clone(),
            fields: self.fields,
            small: true,
            merge: None,
        })
    }

    /// Number of chunks in the last committed state seen by this reader.
    pub fn num_chunks(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// The segments of the last committed state seen by this reader: each one's id and number
    /// of chunks (deleted ones included), largest first.
    pub fn segments(&self) -> Vec<(String, u32)> {
        let searcher = self.reader.searcher();
        let mut segments: Vec<(String, u32)> = searcher
            .segment_readers()
            .iter()
            .map(|s| (s.segment_id().uuid_string(), s.max_doc()))
            .collect();
        segments.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        segments
    }

    /// Makes the latest commit (from any process) visible to this reader (it reloads only when
    /// asked: after this process's own commits, and here).
    pub fn reload(&self) -> Result<(), KeywordError> {
        self.reader.reload().map_err(tantivy_err("reload the reader"))
    }

    /// Returns the best `limit` chunks for `query` among the chunks `filter` allows, best first.
    ///
    /// The query is analysed like the documents; a query without any indexable term (empty,
    /// punctuation, stopwords only) returns no hits. Never fails on query syntax.
    pub fn search(
        &self,
        query: &str,
        filter: &KeywordFilter,
        limit: usize,
    ) -> Result<Vec<KeywordHit>, KeywordError> {
        self.search_weighted(query, DEFAULT_QUESTION_WEIGHT, Expansion::OFF, filter, limit)
    }

    /// [`search`](Self::search) with the weight of the query's
    /// [question words](analyzer::QUESTION_WORDS) (`search.question_weight`) and the
    /// [expansion](expand) of its terms (`search.expand_terms`, `search.expansion_weight`).
    pub fn search_weighted(
        &self,
        query: &str,
        question_weight: f32,
        expansion: Expansion,
        filter: &KeywordFilter,
        limit: usize,
    ) -> Result<Vec<KeywordHit>, KeywordError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let Some(text_query) = self.text_query(query, question_weight, expansion)? else {
            return Ok(Vec::new());
        };
        self.top_hits(text_query, filter, limit)
    }

    /// The best `limit` chunks for already analysed `terms`, each weighing its own weight (a
    /// `SHOULD` dis-max over the weighted fields, as a query's own terms), among the chunks
    /// `filter` allows, best first. Search's pseudo-relevance feedback runs this second keyword
    /// retrieval with the words of the first one's best memories. No term: no hits.
    pub fn search_terms(
        &self,
        terms: &[(String, f32)],
        filter: &KeywordFilter,
        limit: usize,
    ) -> Result<Vec<KeywordHit>, KeywordError> {
        let clauses: Vec<(Occur, Box<dyn Query>)> = terms
            .iter()
            .take(MAX_QUERY_TERMS)
            .filter(|(_, w)| *w > 0.0)
            .map(|(term, weight)| self.term_clause(*weight, [(term.as_str(), 1.0)]))
            .collect();
        if limit == 0 || clauses.is_empty() {
            return Ok(Vec::new());
        }
        self.top_hits(Box::new(BooleanQuery::new(clauses)), filter, limit)
    }

    /// The best `limit` chunks for `text_query` among those `filter` allows, best first.
    fn top_hits(
        &self,
        text_query: Box<dyn Query>,
        filter: &KeywordFilter,
        limit: usize,
    ) -> Result<Vec<KeywordHit>, KeywordError> {
        let Some(filter_clauses) = self.filter_clauses(filter) else {
            return Ok(Vec::new());
        };
        let query: Box<dyn Query> = if filter_clauses.is_empty() {
            text_query
        } else {
            let mut clauses = vec![(Occur::Must, text_query)];
            clauses.extend(filter_clauses);
            Box::new(BooleanQuery::new(clauses))
        };
        let searcher = self.reader.searcher();
        let top = searcher
            .search(&query, &TopDocs::with_limit(limit).order_by_score())
            .map_err(tantivy_err("search"))?;
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let doc: TantivyDocument =
                searcher.doc(address).map_err(tantivy_err("read a stored chunk"))?;
            let get = |field| {
                doc.get_first(field).and_then(|v| v.as_str()).unwrap_or_default().to_string()
            };
            hits.push(KeywordHit {
                chunk_id: get(self.fields.chunk_id),
                memory_id: get(self.fields.memory_id),
                score,
            });
        }
        Ok(hits)
    }

    /// Builds the scoring query: every distinct analysed term as a `SHOULD` term query on each
    /// weighted field (boost = field boost × occurrences in the query), its expansions in the
    /// same dis-max (× the expansion weight), plus phrase boosts for quoted spans. `None` when
    /// the query has no term.
    fn text_query(
        &self,
        query: &str,
        question_weight: f32,
        expansion: Expansion,
    ) -> Result<Option<Box<dyn Query>>, KeywordError> {
        let f = &self.fields;
        // Each distinct term, weighted by its count in the query and by the question-word weight.
        let mut counts: Vec<(String, f32)> = analyzer::weighted_query_terms(query, question_weight);
        counts.truncate(MAX_QUERY_TERMS);
        let occurrences = analyzer::analyze(&mut analyzer::index_analyzer(), query);
        for (term, weight) in &mut counts {
            *weight *= occurrences.iter().filter(|(_, t)| t == term).count().max(1) as f32;
        }
        if counts.is_empty() {
            return Ok(None);
        }
        let terms: Vec<&str> = counts.iter().map(|(t, _)| t.as_str()).collect();
        let expansions = self.expand_terms(&terms, expansion)?;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for ((term, count), expanded) in counts.iter().zip(&expansions) {
            let alternatives = std::iter::once((term.as_str(), 1.0))
                .chain(expanded.iter().map(|e| (e.to.as_str(), expansion.weight)));
            clauses.push(self.term_clause(*count, alternatives));
        }
        for phrase in quoted_spans(query) {
            let terms = analyzer::analyze(&mut analyzer::phrase_analyzer(), phrase);
            if terms.len() < 2 || terms.len() > MAX_QUERY_TERMS {
                continue;
            }
            let first = terms[0].0;
            for field in [f.title, f.body] {
                let with_offsets = terms
                    .iter()
                    .map(|(pos, t)| (pos - first, Term::from_field_text(field, t)))
                    .collect();
                let pq = PhraseQuery::new_with_offset(with_offsets);
                clauses
                    .push((Occur::Should, Box::new(BoostQuery::new(Box::new(pq), PHRASE_BOOST))));
            }
        }
        Ok(Some(Box::new(BooleanQuery::new(clauses))))
    }

    /// One scoring clause: a `SHOULD` dis-max of a term query on each weighted field for each
    /// of `alternatives` (a term and its expansions), boosted by field boost × `scale` × the
    /// alternative's weight.
    fn term_clause<'t>(
        &self,
        scale: f32,
        alternatives: impl IntoIterator<Item = (&'t str, f32)>,
    ) -> (Occur, Box<dyn Query>) {
        let f = &self.fields;
        let b = &self.boosts;
        let weighted =
            [(f.title, b.title), (f.headers, b.headers), (f.tags, b.tags), (f.body, b.body)];
        let mut per_field: Vec<Box<dyn Query>> = Vec::new();
        for (text, weight) in alternatives {
            for &(field, boost) in weighted.iter().filter(|(_, boost)| *boost > 0.0) {
                let tq = TermQuery::new(
                    Term::from_field_text(field, text),
                    IndexRecordOption::WithFreqs,
                );
                per_field.push(Box::new(BoostQuery::new(Box::new(tq), boost * scale * weight)));
            }
        }
        (Occur::Should, Box::new(DisjunctionMaxQuery::with_tie_breaker(per_field, b.tie_breaker)))
    }

    /// The filter clauses (`MUST`, scoring nothing). `None` when the filter admits nothing
    /// (an empty time window).
    fn filter_clauses(&self, filter: &KeywordFilter) -> Option<Vec<(Occur, Box<dyn Query>)>> {
        let f = &self.fields;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let mut any_of = |field: Field, values: &[String]| {
            if values.is_empty() {
                return;
            }
            let alternatives: Vec<(Occur, Box<dyn Query>)> = values
                .iter()
                .map(|v| {
                    let tq = TermQuery::new(
                        Term::from_field_text(field, &v.to_lowercase()),
                        IndexRecordOption::Basic,
                    );
                    (Occur::Should, Box::new(tq) as Box<dyn Query>)
                })
                .collect();
            clauses.push((
                Occur::Must,
                Box::new(ConstScoreQuery::new(Box::new(BooleanQuery::new(alternatives)), 0.0)),
            ));
        };
        any_of(f.memory_type, &filter.types);
        any_of(f.tag, &filter.tags);
        any_of(f.status, &filter.statuses);
        if filter.created_after.is_some() || filter.created_before.is_some() {
            if let (Some(after), Some(before)) = (filter.created_after, filter.created_before)
                && after >= before
            {
                return None;
            }
            let lower = filter
                .created_after
                .map_or(Bound::Unbounded, |t| Bound::Included(Term::from_field_i64(f.created, t)));
            let upper = filter
                .created_before
                .map_or(Bound::Unbounded, |t| Bound::Excluded(Term::from_field_i64(f.created, t)));
            let range: Box<dyn Query> = Box::new(RangeQuery::new(lower, upper));
            clauses.push((Occur::Must, Box::new(ConstScoreQuery::new(range, 0.0))));
        }
        Some(clauses)
    }
}

/// Spans of `query` between pairs of double quotes; an unbalanced last quote is ignored.
fn quoted_spans(query: &str) -> Vec<&str> {
    let mut spans = Vec::new();
    let mut rest = query;
    while let Some(open) = rest.find('"') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('"') else { break };
        spans.push(&after[..close]);
        rest = &after[close + 1..];
    }
    spans
}

/// The index writer: add and delete chunks, then [`commit`](Self::commit). Uncommitted changes
/// are discarded when it is dropped.
pub struct KeywordWriter {
    /// Taken by [`finish`](Self::finish) only.
    writer: Option<IndexWriter<TantivyDocument>>,
    reader: IndexReader,
    fields: Fields,
    /// A [small writer](KeywordIndex::small_writer), which starts its merges itself (a full
    /// writer leaves them to tantivy's merge policy).
    small: bool,
    /// The merge of small segments its commits started, while it may still run.
    merge: Option<FutureResult<Option<SegmentMeta>>>,
}

impl std::fmt::Debug for KeywordWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeywordWriter").finish_non_exhaustive()
    }
}

impl Drop for KeywordWriter {
    /// A writer dropped without [`finish`](KeywordWriter::finish) (a write that failed half
    /// way) still waits for the merge of small segments it started, for the reason `finish`
    /// gives; its changes not committed are dropped.
    fn drop(&mut self) {
        if let Some(merge) = self.merge.take() {
            let _ = wait_for(merge);
        }
    }
}

/// Waits for `merge` by polling it, as [`KeywordWriter::merging`] does: once its result has been
/// polled, tantivy's blocking `wait` panics if the merge still runs (its channel refuses a
/// blocking receive after an asynchronous one), which killed a process that asked whether a
/// write's merge still ran and then closed the writer before the merge ended.
fn wait_for(mut merge: FutureResult<Option<SegmentMeta>>) -> tantivy::Result<Option<SegmentMeta>> {
    use std::future::Future;
    /// Wakes the waiting thread when the merge ends.
    struct Unpark(std::thread::Thread);
    impl std::task::Wake for Unpark {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = std::task::Waker::from(std::sync::Arc::new(Unpark(std::thread::current())));
    let mut cx = std::task::Context::from_waker(&waker);
    loop {
        match std::pin::Pin::new(&mut merge).poll(&mut cx) {
            std::task::Poll::Ready(res) => return res,
            // A wake-up that comes early (or for another reason) polls again.
            std::task::Poll::Pending => std::thread::park(),
        }
    }
}

impl KeywordWriter {
    fn w(&mut self) -> &mut IndexWriter<TantivyDocument> {
        self.writer.as_mut().expect("only `finish` takes the writer, and it consumes `self`")
    }

    /// Adds one chunk.
    pub fn add(&mut self, doc: &KeywordDoc<'_>) -> Result<(), KeywordError> {
        let f = &self.fields;
        let mut d = TantivyDocument::default();
        d.add_text(f.chunk_id, doc.chunk_id);
        d.add_text(f.memory_id, doc.memory_id);
        d.add_text(f.title, doc.title);
        d.add_text(f.headers, doc.headers);
        d.add_text(f.body, doc.body);
        for tag in doc.tags {
            d.add_text(f.tags, tag);
            d.add_text(f.tag, tag.to_lowercase());
        }
        d.add_text(f.memory_type, doc.memory_type.to_lowercase());
        d.add_text(f.status, doc.status.to_lowercase());
        d.add_i64(f.created, doc.created_unix);
        self.w().add_document(d).map_err(tantivy_err("add a chunk"))?;
        Ok(())
    }

    /// Deletes every chunk of `memory_id` (effective at the next commit; a chunk added by this
    /// writer before the call is deleted too).
    pub fn delete_memory(&mut self, memory_id: &str) {
        let term = Term::from_field_text(self.fields.memory_id, memory_id);
        self.w().delete_term(term);
    }

    /// Deletes every chunk (a full rebuild follows).
    pub fn delete_all(&mut self) -> Result<(), KeywordError> {
        self.w().delete_all_documents().map_err(tantivy_err("delete all chunks"))?;
        Ok(())
    }

    /// Commits the pending changes atomically and makes them visible to this process's reader.
    ///
    /// A small writer then starts merging its small segments once
    /// [`SMALL_WRITE_MERGE_SEGMENTS`] of them have piled up (unless its earlier merge still
    /// runs). The merge runs on in the background: [`finish`](Self::finish) waits for it.
    pub fn commit(&mut self) -> Result<(), KeywordError> {
        self.w().commit().map_err(tantivy_err("commit"))?;
        self.reader.reload().map_err(tantivy_err("reload the reader"))?;
        if self.small && !self.merging() {
            let small: Vec<SegmentId> = (self.reader.searcher().segment_readers().iter())
                .filter(|s| s.num_docs() <= SMALL_WRITE_MERGE_MAX_CHUNKS)
                .map(|s| s.segment_id())
                .collect();
            if small.len() >= SMALL_WRITE_MERGE_SEGMENTS {
                self.merge = Some(self.w().merge(&small));
            }
        }
        Ok(())
    }

    /// Whether a merge this writer's commits started is still running.
    pub fn merging(&mut self) -> bool {
        use std::future::Future;
        let Some(merge) = &mut self.merge else { return false };
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match std::pin::Pin::new(merge).poll(&mut cx) {
            std::task::Poll::Pending => true,
            std::task::Poll::Ready(res) => {
                // A merge that failed leaves the segments as they were: nothing is lost.
                if let Err(e) = res {
                    tracing::debug!(error = %e, "a merge of small keyword segments failed");
                }
                self.merge = None;
                false
            }
        }
    }

    /// Waits for the segment merges the commits started, then closes the writer.
    ///
    /// Call it before letting another writer in (before releasing the index lock): a dropped
    /// tantivy writer leaves its merges running, and a merge that ends after another writer's
    /// commit saves its own, older list of segments and deletes the newer segments' files (the
    /// next reader then fails with a missing `.term` file). Changes added and not committed are
    /// dropped.
    pub fn finish(mut self) -> Result<(), KeywordError> {
        if let Some(merge) = self.merge.take()
            && let Err(e) = wait_for(merge)
        {
            tracing::debug!(error = %e, "a merge of small keyword segments failed");
        }
        let writer = self.writer.take().expect("taken here only");
        writer.wait_merging_threads().map_err(tantivy_err("finish merging segments"))
    }
}

#[cfg(test)]
mod tests;
