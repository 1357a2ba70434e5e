//! The vector index: one embedding per chunk, cosine similarity, backed by usearch.
//!
//! # What is stored
//!
//! [`VectorIndex`] holds one `f32` vector per chunk under a `u64` key that the caller chooses (the
//! caller maps chunk ids to keys; [`RESERVED_KEY`] is the only key that cannot be used). Vectors
//! are L2-normalised on the way in, so the stored vectors are unit length (an all-zero vector stays
//! all zeros and has similarity 0 to every query). The metric is cosine; scores returned by
//! [`VectorIndex::search`] are cosine *similarities* in [-1, 1], higher is closer.
//!
//! The HNSW graph holds an 8-bit copy of each vector; candidates are scored again with the exact
//! vectors, kept in a file of their own (see `exact.rs`): the scores returned are exact.
//!
//! # Files
//!
//! An index lives in one directory (`.memories/indices/vector/`):
//!
//! - `vectors.usearch` — the usearch index (HNSW graph plus the 8-bit vectors);
//! - `keys.bin` — every key, little-endian `u64`s, ascending (usearch cannot list its keys; the
//!   exact filtered search walks this list);
//! - `exact.f32` — the exact `f32` vectors, one row per key of `keys.bin`, in its order, under
//!   a header naming the save's generation;
//! - `meta.json` — `{ "format": 1, "embedder_id", "dim", "count", "metric", "scalar",
//!   "vectors": { "bytes", "xxh3" }, "keys": { "bytes", "xxh3" } }`.
//!
//! - `delta.bin` — the journal: vectors stored and keys removed since the three files above were
//!   written, for the `generation` that `meta.json` records (see below).
//!
//! A full [`VectorIndex::save`] writes the first four as `*.tmp`, fsyncs them, then renames them
//! into place, `meta.json` last, then writes an empty journal for the new generation, and fsyncs
//! the directory. `meta.json` records the length and xxh3 hash of
//! `vectors.usearch` and `keys.bin`, and `exact.f32`'s header its generation, so
//! [`VectorIndex::open`] detects any mix of files from different saves (a crash between two
//! renames) and answers [`OpenOutcome::NeedsRebuild`]. Anything unexpected on open —
//! missing files, unparsable `meta.json`, another embedder id or dimension, a file that usearch
//! cannot load, counts that disagree — is `NeedsRebuild` too: a mismatch triggers a rebuild, never a
//! wrong answer. A reader that races a writer's renames re-reads `meta.json` and tries
//! again before giving up. Whether `vectors.usearch` holds every key of `keys.bin` is checked
//! key by key when the index is opened to be written, and on a sample of keys when it is opened
//! read-only (see `check_loaded`); such an index checks every key before its first change.
//!
//! # Journal
//!
//! Rewriting the whole usearch file costs O(n) (≈ 15 MB at 10k memories), and loading it as well.
//! An index opened from disk ([`VectorIndex::open`], [`VectorIndex::open_for_update`]) therefore
//! keeps its changes in memory beside the saved base, and [`VectorIndex::save`] writes only them
//! to `delta.bin` (atomically: `*.tmp`, fsync, rename) until they exceed
//! [`VectorIndex::delta_max`] entries; then it compacts: the base is loaded, the journal applied,
//! and everything saved in full for the next generation. The journal names the generation of the
//! base it applies to: an open applies a journal of its base's generation, ignores an older one
//! (left by a crash after a compaction), and retries when it finds a newer one (a writer compacted
//! while it opened). Applying a journal is idempotent (the last state of each key). Searches
//! combine the base (minus journaled keys) with the journaled vectors, scored exactly.
//!
//! # Search strategy
//!
//! Up to [`EXACT_SEARCH_MAX`] vectors (configurable per index with
//! [`VectorIndex::set_exact_search_max`]) search is exact (usearch's brute-force `exact_search`);
//! above it, search walks the HNSW graph (approximate; recall@10 ≥ 0.99 measured on clustered
//! vectors). The graph is always maintained, so crossing the threshold costs nothing.
//!
//! Filters are applied inside retrieval, before the top-k cut: a filter that
//! allows a single vector out of 100,000 still returns it. The filter is first run over every key;
//! when it allows few keys (≤ max(2,048, n/8)) those are scored one by one (exact, and the fastest
//! way for selective filters); otherwise the exact index over-fetches and keeps the allowed hits,
//! and the HNSW index uses usearch's `filtered_search`. A filtered search that comes back with
//! fewer than `limit` hits while more keys are allowed falls back to scoring the allowed keys.
//!
//! # Concurrency
//!
//! `VectorIndex` is `Send + Sync`. Searches take `&self` and may run concurrently from any number of
//! threads: usearch has a fixed number of per-thread search contexts, and a search waits for a free
//! one rather than failing. Mutations and [`VectorIndex::save`] take `&mut self`. Between processes, one writer at a time is the caller's job (the vault lock).
//!
//! usearch is used in this module only.

use std::any::Any;
use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::index::store::KeyHash;
use usearch::{Index, IndexOptions, MetricKind, ScalarKind};
use xxhash_rust::xxh3::{Xxh3Default, xxh3_64};

use crate::error::{IoResultExt, PathError};

mod exact;
mod persist;
mod search;
#[cfg(test)]
mod tests;

use crate::index::math::{dot, normalised_precise as normalized};
use exact::{ExactFile, quantized};
use persist::*;

pub use exact::EXACT_FILE;

/// Largest number of vectors searched exactly (brute force); larger indices search the HNSW graph.
///
/// Measured in release on a busy 2-core machine, 384 dimensions: an exact search takes ≈ 0.6 ms
/// at 10,000 vectors (≈ 1.2 ms at 20,000, 7.7 ms at 100,000), an HNSW search 0.1–0.5 ms. A
/// fresh process also reads every vector of the mapped file for an exact search, and only the
/// graph's path for HNSW. So the graph takes over past 0.6 ms: a vault of 10k two-chunk memories
/// searches it.
pub const EXACT_SEARCH_MAX: usize = 10_000;

/// Version of the on-disk layout written by [`VectorIndex::save`].
pub const FORMAT: u32 = 4;

/// File name of the usearch index inside the index directory.
pub const VECTORS_FILE: &str = "vectors.usearch";

/// File name of the key list inside the index directory.
pub const KEYS_FILE: &str = "keys.bin";

/// File name of the metadata inside the index directory.
pub const META_FILE: &str = "meta.json";

/// File name of the journal of changes since the last full save.
pub const DELTA_FILE: &str = "delta.bin";

/// Journal entries beyond which [`VectorIndex::save`] compacts into a full save.
pub const DELTA_MAX: usize = 1_024;

/// Magic bytes and version of [`DELTA_FILE`].
const DELTA_MAGIC: &[u8; 8] = b"MLVDELT1";

/// The one key that cannot be stored (usearch uses it to mark deleted slots).
pub const RESERVED_KEY: u64 = u64::MAX;

/// HNSW graph degree (usearch's default).
const CONNECTIVITY: usize = 16;
/// Candidate list size while inserting (64: 2.5x faster inserts than 128, same recall measured).
const EXPANSION_ADD: usize = 64;
/// Candidate list size while searching (at least the number of results asked for).
const EXPANSION_SEARCH: usize = 128;
/// Fewest new vectors [`VectorIndex::add_new`] spreads over threads.
const PARALLEL_ADD_MIN: usize = 256;
/// Smallest capacity reserved in usearch.
const MIN_CAPACITY: usize = 64;
/// Extra results fetched beyond `limit` so that ties at the cut-off are broken by key.
const TIE_SLACK: usize = 8;
/// Attempts of [`VectorIndex::open`] when the files change underneath it.
const OPEN_ATTEMPTS: usize = 3;
/// Pause before re-reading `meta.json` after a mismatch (a writer renames its files back to back).
const RACE_PAUSE: Duration = Duration::from_millis(20);

/// Errors of the vector index.
#[derive(Debug, thiserror::Error)]
pub enum VectorError {
    /// The dimension given at creation is zero.
    #[error("vector dimension must be at least 1")]
    ZeroDimension,
    /// A vector (stored or query) has another length than the index.
    #[error("vector has {got} dimensions but the index holds {expected}")]
    DimensionMismatch {
        /// Dimension of the index.
        expected: usize,
        /// Length of the vector given.
        got: usize,
    },
    /// A vector contains NaN or an infinity.
    #[error("vector contains a nan or infinite value")]
    NonFinite,
    /// The key is [`RESERVED_KEY`].
    #[error("key {0} is reserved and cannot be stored in the vector index")]
    ReservedKey(u64),
    /// An IO error, with its path.
    #[error(transparent)]
    Io(#[from] PathError),
    /// usearch takes paths as UTF-8 strings.
    #[error("vector index path is not valid utf-8: {}", .0.display())]
    NonUtf8Path(PathBuf),
    /// [`VectorIndex::save`] on an index made by [`VectorIndex::create_in_memory`].
    #[error("vector index was created in memory and has no directory to save to")]
    InMemory,
    /// `meta.json` could not be encoded.
    #[error("cannot encode {}", .path.display())]
    Encode {
        /// The metadata file.
        path: PathBuf,
        /// The serde error.
        #[source]
        source: serde_json::Error,
    },
    /// usearch failed on a file.
    #[error("vector engine cannot {action} {}: {message}", .path.display())]
    EngineFile {
        /// What was being done (`save`, `load` …).
        action: &'static str,
        /// The usearch file.
        path: PathBuf,
        /// usearch's message.
        message: String,
    },
    /// A change to an index opened with [`VectorIndex::open_read_only`].
    #[error("the vector index was opened read-only")]
    ReadOnly,
    /// usearch failed in memory (allocation, capacity …).
    #[error("vector engine cannot {action}: {message}")]
    Engine {
        /// What was being done.
        action: &'static str,
        /// usearch's message.
        message: String,
    },
}

fn engine<E: fmt::Display>(action: &'static str) -> impl FnOnce(E) -> VectorError {
    move |e| VectorError::Engine { action, message: e.to_string() }
}

/// Result of [`VectorIndex::open`].
#[derive(Debug)]
#[allow(clippy::large_enum_variant, reason = "made once per open and moved straight into place")]
pub enum OpenOutcome {
    /// The index on disk is intact and was built by the requested embedder and dimension.
    Ready(VectorIndex),
    /// The index must be rebuilt from the files: it is missing, damaged, from another embedder or
    /// dimension, or from an older format.
    NeedsRebuild {
        /// Why, for logs and `--explain`-style output.
        reason: String,
    },
}

/// Length and xxh3 hash of one file, as recorded in `meta.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct FileStamp {
    bytes: u64,
    xxh3: String,
}

/// Contents of `meta.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Meta {
    format: u32,
    embedder_id: String,
    dim: usize,
    count: usize,
    metric: String,
    scalar: String,
    vectors: FileStamp,
    keys: FileStamp,
    /// Bumped by every full save; the journal names the generation it applies to.
    #[serde(default)]
    generation: u64,
}

const METRIC_NAME: &str = "cos";
const SCALAR_NAME: &str = "i8";

/// Counting semaphore over usearch's per-thread search contexts.
struct SearchSlots {
    free: Mutex<usize>,
    freed: Condvar,
}

impl SearchSlots {
    fn new(n: usize) -> Self {
        Self { free: Mutex::new(n), freed: Condvar::new() }
    }

    fn acquire(&self) -> SlotGuard<'_> {
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        while *free == 0 {
            free = self.freed.wait(free).unwrap_or_else(PoisonError::into_inner);
        }
        *free -= 1;
        SlotGuard(self)
    }
}

struct SlotGuard<'a>(&'a SearchSlots);

impl Drop for SlotGuard<'_> {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        self.0.freed.notify_one();
    }
}

/// Number of usearch thread contexts (and so of concurrent searches).
fn search_threads() -> usize {
    std::thread::available_parallelism().map_or(4, |n| n.get()).max(4)
}

/// memlane's vector index: one unit vector per chunk key, cosine similarity, usearch HNSW.
///
/// See the [module documentation](self) for the files, the search strategy and thread safety.
pub struct VectorIndex {
    index: Index,
    dir: Option<PathBuf>,
    embedder_id: String,
    dim: usize,
    /// Every stored key, in no particular order (usearch cannot enumerate its keys).
    keys: Vec<u64>,
    /// Position of each key in `keys`; `None` while `keys` is still the base's as read from
    /// `keys.bin`, ascending, where a binary search finds a key (a view that only searches
    /// never builds this map: 200k entries at 100k memories). Built on the first change.
    positions: Option<HashMap<u64, usize, KeyHash>>,
    exact_max: usize,
    threads: usize,
    slots: SearchSlots,
    dirty: AtomicBool,
    /// Changes since the base on disk: key → unit vector, or `None` (removed). Only used when
    /// `journal` is set.
    delta: HashMap<u64, Option<Vec<f32>>>,
    /// Whether `index` is the base saved on disk (changes go to `delta`), rather than a new index
    /// not saved yet (changes go to `index`, and the next save is a full one).
    journal: bool,
    /// Whether `index` is a memory-mapped view (a compaction loads the file first).
    view: bool,
    /// Opened with [`VectorIndex::open_read_only`]: every change is refused.
    read_only: bool,
    /// The generation of the base on disk (see the [module documentation](self)).
    generation: u64,
    delta_max: usize,
    /// The exact vectors of the base on disk (`None` for an index not saved yet).
    base_exact: Option<ExactFile>,
    /// The exact vectors stored in `index` itself since it was created or compacted (not
    /// journaled, not in `base_exact` yet); they are written by the next full save.
    fresh: HashMap<u64, Vec<f32>>,
}

impl fmt::Debug for VectorIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VectorIndex")
            .field("dir", &self.dir)
            .field("embedder_id", &self.embedder_id)
            .field("dim", &self.dim)
            .field("len", &self.keys.len())
            .field("exact_max", &self.exact_max)
            .field("journaled", &self.delta.len())
            .finish_non_exhaustive()
    }
}

fn index_options(dim: usize) -> IndexOptions {
    IndexOptions {
        dimensions: dim,
        metric: MetricKind::Cos,
        quantization: ScalarKind::I8,
        connectivity: CONNECTIVITY,
        expansion_add: EXPANSION_ADD,
        expansion_search: EXPANSION_SEARCH,
        multi: false,
    }
}

impl VectorIndex {
    /// A new, empty index that [`save`](Self::save)s into `dir` (nothing is written before then).
    ///
    /// Use it to rebuild after [`OpenOutcome::NeedsRebuild`]; the files already in `dir` are
    /// replaced atomically by the next `save`.
    pub fn create(dir: &Path, embedder_id: &str, dim: usize) -> Result<Self, VectorError> {
        let mut index = Self::create_in_memory(embedder_id, dim)?;
        index.dir = Some(dir.to_path_buf());
        Ok(index)
    }

    /// A new, empty index with no directory; [`save`](Self::save) fails with
    /// [`VectorError::InMemory`]. For tests and throwaway indices.
    pub fn create_in_memory(embedder_id: &str, dim: usize) -> Result<Self, VectorError> {
        if dim == 0 {
            return Err(VectorError::ZeroDimension);
        }
        let index = Index::new(&index_options(dim)).map_err(engine("create an index"))?;
        let threads = search_threads();
        index
            .reserve_capacity_and_threads(MIN_CAPACITY, threads)
            .map_err(engine("reserve memory"))?;
        Ok(Self {
            index,
            dir: None,
            embedder_id: embedder_id.to_owned(),
            dim,
            keys: Vec::new(),
            positions: None,
            exact_max: EXACT_SEARCH_MAX,
            threads,
            slots: SearchSlots::new(threads),
            dirty: AtomicBool::new(false),
            delta: HashMap::new(),
            journal: false,
            view: false,
            read_only: false,
            generation: 0,
            delta_max: DELTA_MAX,
            base_exact: None,
            fresh: HashMap::new(),
        })
    }

    /// Opens the index saved in `dir`, if it is intact and was built by `embedder_id` with
    /// dimension `dim`; otherwise says why it needs a rebuild.
    ///
    /// A missing directory, missing or corrupt files, files from different saves, another embedder
    /// id or dimension all give [`OpenOutcome::NeedsRebuild`]. `Err` is reserved for IO errors other
    /// than "not found" (permissions, disk errors) and for a non-UTF-8 path.
    pub fn open(dir: &Path, embedder_id: &str, dim: usize) -> Result<OpenOutcome, VectorError> {
        Self::open_mode(dir, embedder_id, dim, Mode::Load)
    }

    /// Like [`VectorIndex::open`], but memory-maps the saved base instead of loading it (cheap at
    /// any size): changes are kept beside it and [`save`](Self::save) writes only them (the
    /// journal) until a compaction loads the base. What a writer that changes a few vectors needs.
    pub fn open_for_update(
        dir: &Path,
        embedder_id: &str,
        dim: usize,
    ) -> Result<OpenOutcome, VectorError> {
        Self::open_mode(dir, embedder_id, dim, Mode::Update)
    }

    /// Like [`VectorIndex::open`], but memory-maps the vectors read-only instead of loading
    /// them: opening costs little whatever the size, and searching works as usual. The result
    /// cannot be changed ([`upsert`](Self::upsert) and [`remove`](Self::remove) fail); open it
    /// with [`open`](Self::open) to write.
    pub fn open_read_only(
        dir: &Path,
        embedder_id: &str,
        dim: usize,
    ) -> Result<OpenOutcome, VectorError> {
        Self::open_mode(dir, embedder_id, dim, Mode::ReadOnly)
    }

    fn open_mode(
        dir: &Path,
        embedder_id: &str,
        dim: usize,
        mode: Mode,
    ) -> Result<OpenOutcome, VectorError> {
        let meta_path = dir.join(META_FILE);
        let mut last_reason = String::new();
        for _ in 0..OPEN_ATTEMPTS {
            let Some(meta_bytes) = read_if_exists(&meta_path)? else {
                return Ok(rebuild(format!("no vector index in {}", dir.display())));
            };
            match Self::open_with_meta(dir, &meta_bytes, embedder_id, dim, mode)? {
                Attempt::Ready(index) => return Ok(OpenOutcome::Ready(*index)),
                Attempt::Rebuild(reason) => return Ok(rebuild(reason)),
                Attempt::Mismatch(reason) => {
                    // Files from different saves: either a crash between renames (permanent) or a
                    // writer renaming right now (meta.json changes within milliseconds).
                    std::thread::sleep(RACE_PAUSE);
                    let now = read_if_exists(&meta_path)?;
                    if now.as_deref() != Some(meta_bytes.as_slice()) {
                        tracing::debug!(%reason, "vector index changed while opening, retrying");
                        last_reason = reason;
                        continue;
                    }
                    return Ok(rebuild(reason));
                }
            }
        }
        Ok(rebuild(format!("vector index kept changing while opening: {last_reason}")))
    }

    /// One attempt at opening the files of `dir` whose `meta.json` read `meta_bytes`, in steps:
    /// the meta's fields against the request ([`check_meta`]), the keys ([`read_keys`]), the
    /// vectors file checked and loaded or mapped ([`load_vectors`], [`check_loaded`]), the
    /// search engine tuned ([`tune`]), and the journal of later changes last
    /// ([`VectorIndex::apply_journal`]). Files from different saves are a
    /// [`Mismatch`](Attempt::Mismatch) (the caller looks again), unusable ones a
    /// [`Rebuild`](Attempt::Rebuild).
    fn open_with_meta(
        dir: &Path,
        meta_bytes: &[u8],
        embedder_id: &str,
        dim: usize,
        mode: Mode,
    ) -> Result<Attempt, VectorError> {
        let view = mode != Mode::Load;
        let meta = match check_meta(meta_bytes, embedder_id, dim) {
            Ok(meta) => meta,
            Err(attempt) => return Ok(attempt),
        };
        let keys = match read_keys(dir, &meta)? {
            Ok(keys) => keys,
            Err(attempt) => return Ok(attempt),
        };
        let index = match load_vectors(dir, &meta, dim, view)? {
            Ok(index) => index,
            Err(attempt) => return Ok(attempt),
        };
        if let Some(attempt) = check_loaded(&index, &keys, dim, mode == Mode::ReadOnly) {
            return Ok(attempt);
        }
        let base_exact = match ExactFile::open(dir, meta.generation, dim, keys.clone())? {
            Ok(file) => file,
            Err(attempt) => return Ok(attempt),
        };
        let threads = tune(&index, view)?;
        let mut out = Self {
            index,
            dir: Some(dir.to_path_buf()),
            embedder_id: meta.embedder_id,
            dim,
            keys,
            positions: None,
            exact_max: EXACT_SEARCH_MAX,
            threads,
            slots: SearchSlots::new(threads),
            dirty: AtomicBool::new(false),
            delta: HashMap::new(),
            journal: true,
            view,
            read_only: mode == Mode::ReadOnly,
            generation: meta.generation,
            delta_max: DELTA_MAX,
            base_exact: Some(base_exact),
            fresh: HashMap::new(),
        };
        if let Some(attempt) = out.apply_journal(dir, meta.generation)? {
            return Ok(attempt);
        }
        Ok(Attempt::Ready(Box::new(out)))
    }

    /// The last step of [`open_with_meta`](Self::open_with_meta): the journal's changes on top
    /// of the base of generation `generation`. A journal of an older generation is stale (a
    /// compaction folded it into the base); a newer one means a compaction replaced the base
    /// while we opened it. `Some` when the attempt fails.
    fn apply_journal(
        &mut self,
        dir: &Path,
        generation: u64,
    ) -> Result<Option<Attempt>, VectorError> {
        match read_delta(&dir.join(DELTA_FILE), self.dim)? {
            DeltaRead::Missing => {}
            DeltaRead::Corrupt(reason) => return Ok(Some(Attempt::Rebuild(reason))),
            DeltaRead::Ok { generation: g, .. } if g < generation => {}
            DeltaRead::Ok { generation: g, .. } if g > generation => {
                return Ok(Some(Attempt::Mismatch(format!(
                    "{DELTA_FILE} is for generation {g}, {META_FILE} for {generation}"
                ))));
            }
            DeltaRead::Ok { entries, .. } => {
                for (key, vector) in entries {
                    if key == RESERVED_KEY {
                        return Ok(Some(Attempt::Rebuild(format!(
                            "{DELTA_FILE} holds a reserved key"
                        ))));
                    }
                    match &vector {
                        Some(_) if !self.contains(key) => {
                            self.push_key(key);
                        }
                        Some(_) => {}
                        None => self.forget(key),
                    }
                    self.delta.insert(key, vector);
                }
            }
        }
        Ok(None)
    }

    /// The directory [`save`](Self::save) writes to, if any.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Id of the embedder whose vectors this index holds.
    pub fn embedder_id(&self) -> &str {
        &self.embedder_id
    }

    /// Length of every vector.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Number of vectors (chunks) stored.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the index holds no vector.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Whether a vector is stored under `key`.
    pub fn contains(&self, key: u64) -> bool {
        match &self.positions {
            Some(positions) => positions.contains_key(&key),
            None => self.keys.binary_search(&key).is_ok(),
        }
    }

    /// Records `key` as stored (it was not).
    fn push_key(&mut self, key: u64) {
        let at = self.keys.len();
        self.positions_mut().insert(key, at);
        self.keys.push(key);
    }

    /// The position map, built from `keys` (still the base's, ascending) on first use.
    fn positions_mut(&mut self) -> &mut HashMap<u64, usize, KeyHash> {
        let keys = &self.keys;
        self.positions.get_or_insert_with(|| {
            let mut positions = HashMap::with_capacity_and_hasher(keys.len(), KeyHash::default());
            positions.extend(keys.iter().enumerate().map(|(i, &key)| (key, i)));
            positions
        })
    }

    /// Every stored key, in no particular order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        self.keys.iter().copied()
    }

    /// Lets an index opened with [`open_read_only`](Self::open_read_only) take changes (kept in
    /// its journal, as with [`open_for_update`](Self::open_for_update)). The caller must hold
    /// the vault's write lock and know the files on disk are still those it opened. A
    /// read-only open checked a sample of the keys only: every key is checked first, and false
    /// (nothing allowed) when one is missing from the vectors file: open it for update instead,
    /// which rebuilds it.
    pub fn allow_updates(&mut self) -> bool {
        if self.read_only && self.keys.iter().any(|&k| !self.index.contains(k)) {
            return false;
        }
        self.read_only = false;
        true
    }

    /// Changes kept in the journal (not yet compacted into the base file).
    pub fn journaled(&self) -> usize {
        self.delta.len()
    }

    /// Journal entries beyond which [`save`](Self::save) compacts (default [`DELTA_MAX`]).
    pub fn delta_max(&self) -> usize {
        self.delta_max
    }

    /// Changes [`delta_max`](Self::delta_max) (0: every save is a full one).
    pub fn set_delta_max(&mut self, n: usize) {
        self.delta_max = n;
    }

    /// Whether the index changed since it was created, opened or last saved.
    pub fn has_unsaved_changes(&self) -> bool {
        self.dirty.load(AtomicOrdering::Relaxed)
    }

    /// Largest size searched exactly; above it, search uses the HNSW graph.
    /// Defaults to [`EXACT_SEARCH_MAX`]; not saved.
    pub fn exact_search_max(&self) -> usize {
        self.exact_max
    }

    /// Changes the largest size searched exactly (0: always HNSW; `usize::MAX`: always exact).
    pub fn set_exact_search_max(&mut self, n: usize) {
        self.exact_max = n;
    }

    /// Whether [`search`](Self::search) currently runs exactly (brute force) rather than on HNSW.
    pub fn searches_exactly(&self) -> bool {
        self.keys.len() <= self.exact_max
    }

    /// Approximate memory used by usearch (graph plus vectors), in bytes.
    pub fn memory_usage(&self) -> usize {
        self.index.memory_usage() + (self.delta.len() + self.fresh.len()) * (self.dim * 4 + 32)
    }

    /// Reserves room for `additional` more vectors (optional: [`upsert`](Self::upsert) grows the
    /// index geometrically on its own). Useful before a bulk rebuild.
    pub fn reserve(&mut self, additional: usize) -> Result<(), VectorError> {
        if self.journal {
            return Ok(());
        }
        let wanted = self.index.size().saturating_add(additional);
        if wanted > self.index.capacity() {
            self.index
                .reserve_capacity_and_threads(wanted.max(MIN_CAPACITY), self.threads)
                .map_err(engine("reserve memory"))?;
        }
        Ok(())
    }

    /// Stores `vector` under `key`, replacing any vector already stored under it.
    ///
    /// The vector is normalised to unit length before it is stored (an all-zero vector is kept as
    /// zeros: similarity 0 to every query). Errors: a length other than [`dim`](Self::dim), NaN or
    /// infinite components, or the key [`RESERVED_KEY`]. On error the index is unchanged, except
    /// when usearch itself fails after removing the old vector: then `key` is absent.
    pub fn upsert(&mut self, key: u64, vector: &[f32]) -> Result<(), VectorError> {
        if key == RESERVED_KEY {
            return Err(VectorError::ReservedKey(key));
        }
        if self.read_only {
            return Err(VectorError::ReadOnly);
        }
        self.check_vector(vector)?;
        let unit = normalized(vector).unwrap_or_else(|| vec![0.0; self.dim]);
        let replacing = self.contains(key);
        if self.journal {
            self.delta.insert(key, Some(unit));
            if !replacing {
                self.push_key(key);
            }
            self.dirty.store(true, AtomicOrdering::Relaxed);
            return Ok(());
        }
        if replacing {
            // usearch refuses duplicate keys; the freed slot is reused by the add below.
            self.index.remove(key).map_err(engine("remove a vector"))?;
        } else if self.index.size() + 1 > self.index.capacity() {
            let grown = self.index.capacity().saturating_mul(2).max(MIN_CAPACITY);
            self.index
                .reserve_capacity_and_threads(grown, self.threads)
                .map_err(engine("reserve memory"))?;
        }
        self.dirty.store(true, AtomicOrdering::Relaxed);
        if let Err(e) = self.index.add(key, &quantized(&unit)) {
            if replacing {
                self.fresh.remove(&key);
                self.forget(key);
            }
            return Err(engine("add a vector")(e));
        }
        self.fresh.insert(key, unit);
        if !replacing {
            self.push_key(key);
        }
        Ok(())
    }

    /// Stores many vectors under keys the index does not hold yet (a rebuild, a first index of
    /// many memories), as [`upsert`](Self::upsert) each would, but inserted into the HNSW graph
    /// on every core at once. The graph's shape then depends on the threads' timing, so a
    /// search of more than [`EXACT_SEARCH_MAX`] vectors may rank near-ties differently after two
    /// rebuilds; an exact search never does. Threads inserting at once can also leave a few
    /// vectors that no link of the graph reaches (0 to 10 in 3,000 measured, none inserted one
    /// by one), which only an exact search returns; their memories are still found by their
    /// words. A key already stored (or given twice) is upserted in turn instead. On error some
    /// of `items` may be stored.
    pub fn add_new(&mut self, items: &[(u64, &[f32])]) -> Result<(), VectorError> {
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(self.threads);
        let mut seen: HashSet<u64> = HashSet::with_capacity(items.len());
        let all_new = items.iter().all(|(k, _)| !self.contains(*k) && seen.insert(*k));
        if self.journal
            || self.read_only
            || workers < 2
            || items.len() < PARALLEL_ADD_MIN
            || !all_new
        {
            return items.iter().try_for_each(|(k, v)| self.upsert(*k, v));
        }
        let mut units = Vec::with_capacity(items.len());
        for (key, vector) in items {
            if *key == RESERVED_KEY {
                return Err(VectorError::ReservedKey(*key));
            }
            self.check_vector(vector)?;
            units.push((*key, normalized(vector).unwrap_or_else(|| vec![0.0; self.dim])));
        }
        let wanted = self.index.size() + units.len();
        if wanted > self.index.capacity() {
            let grown = self.index.capacity().saturating_mul(2).max(wanted).max(MIN_CAPACITY);
            self.index
                .reserve_capacity_and_threads(grown, self.threads)
                .map_err(engine("reserve memory"))?;
        }
        self.dirty.store(true, AtomicOrdering::Relaxed);
        let index = &self.index;
        let per = units.len().div_ceil(workers);
        // Each thread's keys stored, and its error: what was stored is recorded either way.
        let added: Vec<(Vec<u64>, Option<VectorError>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = units
                .chunks(per)
                .map(|part| {
                    scope.spawn(move || {
                        let mut done = Vec::with_capacity(part.len());
                        for (key, unit) in part {
                            if let Err(e) = index.add(*key, &quantized(unit)) {
                                return (done, Some(engine("add a vector")(e)));
                            }
                            done.push(*key);
                        }
                        (done, None)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| panic::resume_unwind(e)))
                .collect()
        });
        let mut first_error = None;
        for (keys, error) in added {
            for key in keys {
                self.push_key(key);
            }
            first_error = first_error.or(error);
        }
        self.fresh.reserve(units.len());
        for (key, unit) in units {
            if first_error.is_none() || self.contains(key) {
                self.fresh.insert(key, unit);
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    /// Removes the vector stored under `key`; returns whether there was one.
    pub fn remove(&mut self, key: u64) -> Result<bool, VectorError> {
        if self.read_only {
            return Err(VectorError::ReadOnly);
        }
        if !self.contains(key) {
            return Ok(false);
        }
        if self.journal {
            if self.index.contains(key) {
                self.delta.insert(key, None);
            } else {
                self.delta.remove(&key);
            }
            self.forget(key);
            self.dirty.store(true, AtomicOrdering::Relaxed);
            return Ok(true);
        }
        self.index.remove(key).map_err(engine("remove a vector"))?;
        self.fresh.remove(&key);
        self.forget(key);
        self.dirty.store(true, AtomicOrdering::Relaxed);
        Ok(true)
    }

    /// The stored (unit-length) vector of `key`, if any.
    pub fn vector(&self, key: u64) -> Result<Option<Vec<f32>>, VectorError> {
        if !self.contains(key) {
            return Ok(None);
        }
        let mut buf = vec![0.0; self.dim];
        Ok(self.read_vector(key, &mut buf)?.then_some(buf))
    }

    /// Where the exact vector of `key` is: the journal first, then the vectors added since the
    /// last full save, then the base's file.
    fn held(&self, key: u64) -> Held<'_> {
        match self.delta.get(&key) {
            Some(Some(v)) => Held::Vector(v),
            Some(None) => Held::Removed,
            None => self.fresh.get(&key).map_or(Held::Base, |v| Held::Vector(v)),
        }
    }

    /// Copies the exact stored vector of `key` into `buf`; whether there is one.
    fn read_vector(&self, key: u64, buf: &mut [f32]) -> Result<bool, VectorError> {
        match (self.held(key), &self.base_exact) {
            (Held::Vector(v), _) => {
                buf.copy_from_slice(v);
                Ok(true)
            }
            (Held::Base, Some(base)) => base.read(key, buf),
            (Held::Base | Held::Removed, _) => Ok(false),
        }
    }

    fn forget(&mut self, key: u64) {
        if let Some(pos) = self.positions_mut().remove(&key) {
            self.keys.swap_remove(pos);
            if let Some(&moved) = self.keys.get(pos) {
                self.positions_mut().insert(moved, pos);
            }
        }
    }

    fn check_vector(&self, vector: &[f32]) -> Result<(), VectorError> {
        if vector.len() != self.dim {
            return Err(VectorError::DimensionMismatch { expected: self.dim, got: vector.len() });
        }
        if !vector.iter().all(|x| x.is_finite()) {
            return Err(VectorError::NonFinite);
        }
        Ok(())
    }
}

/// Where [`VectorIndex::held`] finds a key's exact vector.
enum Held<'a> {
    /// In memory (the journal, or added since the last full save).
    Vector(&'a [f32]),
    /// Removed in the journal.
    Removed,
    /// In the base's file, if anywhere.
    Base,
}

/// How [`VectorIndex::open_mode`] opens the base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Loaded into memory.
    Load,
    /// Memory-mapped; changes go to the journal.
    Update,
    /// Memory-mapped; changes are refused.
    ReadOnly,
}

/// The keys of a base in order, and the position of each.
type Keys = Vec<u64>;

/// The first step of [`VectorIndex::open_with_meta`]: `meta.json` parsed, and its format,
/// embedder, dimension, metric and scalar those of the request; else why a rebuild is needed.
fn check_meta(meta_bytes: &[u8], embedder_id: &str, dim: usize) -> Result<Meta, Attempt> {
    let meta: Meta = serde_json::from_slice(meta_bytes)
        .map_err(|e| Attempt::Rebuild(format!("{META_FILE} is corrupt: {e}")))?;
    if meta.format != FORMAT {
        return Err(Attempt::Rebuild(format!(
            "vector index format {} is not the supported format {FORMAT}",
            meta.format
        )));
    }
    if meta.embedder_id != embedder_id {
        return Err(Attempt::Rebuild(format!(
            "vector index was built by embedder `{}`, not `{embedder_id}`",
            meta.embedder_id
        )));
    }
    if meta.dim != dim {
        return Err(Attempt::Rebuild(format!(
            "vector index has dimension {}, the embedder has {dim}",
            meta.dim
        )));
    }
    if dim == 0 || meta.metric != METRIC_NAME || meta.scalar != SCALAR_NAME {
        return Err(Attempt::Rebuild(format!(
            "vector index uses metric `{}` and scalar `{}`, expected `{METRIC_NAME}` and `{SCALAR_NAME}`",
            meta.metric, meta.scalar
        )));
    }
    Ok(meta)
}

/// The keys of the base (`keys.bin`: small, read whole), in order; they must be the ones `meta` stamped, as many as it counts, none reserved or repeated.
fn read_keys(dir: &Path, meta: &Meta) -> Result<Result<Keys, Attempt>, VectorError> {
    let keys_path = dir.join(KEYS_FILE);
    let Some(key_bytes) = read_if_exists(&keys_path)? else {
        return Ok(Err(Attempt::Mismatch(format!("{KEYS_FILE} is missing"))));
    };
    if stamp_of(&key_bytes) != meta.keys {
        return Ok(Err(Attempt::Mismatch(format!("{KEYS_FILE} does not match {META_FILE}"))));
    }
    if !key_bytes.len().is_multiple_of(8) || key_bytes.len() / 8 != meta.count {
        return Ok(Err(Attempt::Rebuild(format!(
            "{KEYS_FILE} holds {} bytes for {} keys",
            key_bytes.len(),
            meta.count
        ))));
    }
    let keys: Vec<u64> = key_bytes
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()))
        .collect();
    if keys.last() == Some(&RESERVED_KEY) || keys.windows(2).any(|w| w[0] >= w[1]) {
        return Ok(Err(Attempt::Rebuild(format!(
            "{KEYS_FILE} holds a reserved or repeated key, or is not in order"
        ))));
    }
    Ok(Ok(keys))
}

/// The base's vectors (`vectors.usearch`), loaded, or memory-mapped when `view`: the file is
/// opened beneath the vault handle, hashed against `meta`, its header checked, then usearch
/// loads that same open file (see [`persist::engine_path`]; where it must load by path, the
/// path must still name the same file after, since a writer may rename a new one in between).
fn load_vectors(
    dir: &Path,
    meta: &Meta,
    dim: usize,
    view: bool,
) -> Result<Result<Index, Attempt>, VectorError> {
    let vectors_path = dir.join(VECTORS_FILE);
    let mut file = match crate::index::confined_io::open(&vectors_path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(Err(Attempt::Mismatch(format!("{VECTORS_FILE} is missing"))));
        }
        Err(e) => {
            return Err(VectorError::Io(PathError {
                action: "open",
                path: vectors_path,
                source: e,
            }));
        }
    };
    let identity = FileIdentity::of(&file.metadata().at("read", &vectors_path)?);
    if file.metadata().at("read", &vectors_path)?.len() != meta.vectors.bytes {
        return Ok(Err(Attempt::Mismatch(format!(
            "{VECTORS_FILE} has another size than {META_FILE} records"
        ))));
    }
    if stamp_of_reader(&mut file).at("read", &vectors_path)? != meta.vectors {
        return Ok(Err(Attempt::Mismatch(format!("{VECTORS_FILE} does not match {META_FILE}"))));
    }
    let engine_file = engine_path(&file, &vectors_path)?;
    let header = match Index::metadata(&engine_file.path) {
        Ok(header) => header,
        Err(e) => {
            return Ok(Err(Attempt::Rebuild(format!("{VECTORS_FILE} is unreadable: {e}"))));
        }
    };
    if header.dimensions != dim as u64
        || header.metric != MetricKind::Cos
        || header.quantization != ScalarKind::I8
        || header.multi
        || header.count_present != meta.count as u64
    {
        return Ok(Err(Attempt::Rebuild(format!(
            "{VECTORS_FILE} header (dimension {}, {} vectors) disagrees with {META_FILE} (dimension {dim}, {} vectors)",
            header.dimensions, header.count_present, meta.count
        ))));
    }
    let index = Index::new(&index_options(dim)).map_err(engine("create an index"))?;
    let opened = if view { index.view(&engine_file.path) } else { index.load(&engine_file.path) };
    if let Err(e) = opened {
        return Ok(Err(Attempt::Rebuild(format!("{VECTORS_FILE} cannot be loaded: {e}"))));
    }
    // Loaded by path: the path must still name the file hashed above.
    let now = (!engine_file.by_handle)
        .then(|| fs::metadata(&vectors_path).ok().map(|m| FileIdentity::of(&m)));
    if now.is_some_and(|now| now != Some(identity)) {
        return Ok(Err(Attempt::Mismatch(format!("{VECTORS_FILE} was replaced while loading"))));
    }
    drop(file);
    Ok(Ok(index))
}

/// How many keys of `keys.bin` a read-only view checks against the vectors file (spread
/// evenly); a loaded index, which is written, checks them all.
const VIEW_KEY_CHECKS: usize = 256;

/// The loaded vectors must be of dimension `dim` and hold every key of `keys`, and no more;
/// else why a rebuild is needed. A view (`sampled`) checks the count and [`VIEW_KEY_CHECKS`]
/// keys spread over `keys`: both files were checked against the metadata written with them,
/// and a view only reads (at 100k memories the full check cost a fresh search ≈ 4 ms). A
/// key missing from a view's file makes its vector unfindable until the next write, which
/// checks every key and rebuilds.
fn check_loaded(index: &Index, keys: &[u64], dim: usize, sampled: bool) -> Option<Attempt> {
    if index.dimensions() != dim || index.size() != keys.len() {
        return Some(Attempt::Rebuild(format!(
            "{VECTORS_FILE} holds {} vectors of dimension {}, expected {} of dimension {dim}",
            index.size(),
            index.dimensions(),
            keys.len()
        )));
    }
    let step = if sampled { (keys.len() / VIEW_KEY_CHECKS).max(1) } else { 1 };
    let key = keys.iter().step_by(step).find(|&&k| !index.contains(k))?;
    Some(Attempt::Rebuild(format!("{VECTORS_FILE} lacks key {key}")))
}

/// The search engine's expansion factors set and its search contexts reserved (a view cannot
/// grow: only the contexts; a loaded index also room for [`MIN_CAPACITY`] vectors). Returns
/// the number of search threads.
fn tune(index: &Index, view: bool) -> Result<usize, VectorError> {
    index.change_expansion_search(EXPANSION_SEARCH);
    index.change_expansion_add(EXPANSION_ADD);
    let threads = search_threads();
    if view {
        index
            .reserve_capacity_and_threads(index.capacity(), threads)
            .map_err(engine("reserve search threads"))?;
    } else {
        index
            .reserve_capacity_and_threads(index.capacity().max(MIN_CAPACITY), threads)
            .map_err(engine("reserve memory"))?;
    }
    Ok(threads)
}
