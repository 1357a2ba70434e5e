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
//! # Files
//!
//! An index lives in one directory (`.memories/indices/vector/`):
//!
//! - `vectors.usearch` — the usearch index (HNSW graph plus the `f32` vectors);
//! - `keys.bin` — every key, little-endian `u64`s (usearch cannot list its keys; the exact
//!   filtered search walks this list);
//! - `meta.json` — `{ "format": 1, "embedder_id", "dim", "count", "metric", "scalar",
//!   "vectors": { "bytes", "xxh3" }, "keys": { "bytes", "xxh3" } }`.
//!
//! - `delta.bin` — the journal: vectors stored and keys removed since the three files above were
//!   written, for the `generation` that `meta.json` records (see below).
//!
//! A full [`VectorIndex::save`] writes the first three as `*.tmp`, fsyncs them, then renames them
//! into place, `meta.json` last, then writes an empty journal for the new generation, and fsyncs
//! the directory. `meta.json` records the length and xxh3 hash of the
//! two other files, so [`VectorIndex::open`] detects any mix of files from different saves (a crash
//! between two renames) and answers [`OpenOutcome::NeedsRebuild`]. Anything unexpected on open —
//! missing files, unparsable `meta.json`, another embedder id or dimension, a file that usearch
//! cannot load, counts that disagree — is `NeedsRebuild` too: a mismatch triggers a rebuild, never a
//! wrong answer (SPEC §5.3). A reader that races a writer's renames re-reads `meta.json` and tries
//! again before giving up.
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
//! Filters are applied inside retrieval, before the top-k cut (SPEC §8 stage 1): a filter that
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
use std::collections::HashMap;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use usearch::{Index, IndexOptions, MetricKind, ScalarKind};
use xxhash_rust::xxh3::{Xxh3Default, xxh3_64};

use crate::error::{IoResultExt, PathError};

/// Largest number of vectors searched exactly (brute force); larger indices search the HNSW graph.
///
/// Measured in release on a busy 2-core machine, 384 dimensions: an exact search takes ≈ 0.6 ms
/// at 10,000 vectors (≈ 1.2 ms at 20,000, 7.7 ms at 100,000), an HNSW search 0.1–0.5 ms.
pub const EXACT_SEARCH_MAX: usize = 20_000;

/// Version of the on-disk layout written by [`VectorIndex::save`].
pub const FORMAT: u32 = 3;

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
const SCALAR_NAME: &str = "f32";

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
    /// Position of each key in `keys`.
    positions: HashMap<u64, usize>,
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
        quantization: ScalarKind::F32,
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
            positions: HashMap::new(),
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

    fn open_with_meta(
        dir: &Path,
        meta_bytes: &[u8],
        embedder_id: &str,
        dim: usize,
        mode: Mode,
    ) -> Result<Attempt, VectorError> {
        let view = mode != Mode::Load;
        let meta: Meta = match serde_json::from_slice(meta_bytes) {
            Ok(meta) => meta,
            Err(e) => return Ok(Attempt::Rebuild(format!("{META_FILE} is corrupt: {e}"))),
        };
        if meta.format != FORMAT {
            return Ok(Attempt::Rebuild(format!(
                "vector index format {} is not the supported format {FORMAT}",
                meta.format
            )));
        }
        if meta.embedder_id != embedder_id {
            return Ok(Attempt::Rebuild(format!(
                "vector index was built by embedder `{}`, not `{embedder_id}`",
                meta.embedder_id
            )));
        }
        if meta.dim != dim {
            return Ok(Attempt::Rebuild(format!(
                "vector index has dimension {}, the embedder has {dim}",
                meta.dim
            )));
        }
        if dim == 0 || meta.metric != METRIC_NAME || meta.scalar != SCALAR_NAME {
            return Ok(Attempt::Rebuild(format!(
                "vector index uses metric `{}` and scalar `{}`, expected `{METRIC_NAME}` and `{SCALAR_NAME}`",
                meta.metric, meta.scalar
            )));
        }

        // keys.bin: small, read whole.
        let keys_path = dir.join(KEYS_FILE);
        let Some(key_bytes) = read_if_exists(&keys_path)? else {
            return Ok(Attempt::Mismatch(format!("{KEYS_FILE} is missing")));
        };
        if stamp_of(&key_bytes) != meta.keys {
            return Ok(Attempt::Mismatch(format!("{KEYS_FILE} does not match {META_FILE}")));
        }
        if !key_bytes.len().is_multiple_of(8) || key_bytes.len() / 8 != meta.count {
            return Ok(Attempt::Rebuild(format!(
                "{KEYS_FILE} holds {} bytes for {} keys",
                key_bytes.len(),
                meta.count
            )));
        }
        let keys: Vec<u64> = key_bytes
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()))
            .collect();
        let mut positions = HashMap::with_capacity(keys.len());
        for (i, &key) in keys.iter().enumerate() {
            if key == RESERVED_KEY || positions.insert(key, i).is_some() {
                return Ok(Attempt::Rebuild(format!(
                    "{KEYS_FILE} holds a reserved or repeated key"
                )));
            }
        }

        // vectors.usearch: hash it through one handle, load it by path, then check that the path
        // still names the same file (a writer may rename a new one in between).
        let vectors_path = dir.join(VECTORS_FILE);
        let vectors_str = path_str(&vectors_path)?;
        let mut file = match File::open(&vectors_path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(Attempt::Mismatch(format!("{VECTORS_FILE} is missing")));
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
            return Ok(Attempt::Mismatch(format!(
                "{VECTORS_FILE} has another size than {META_FILE} records"
            )));
        }
        if stamp_of_reader(&mut file).at("read", &vectors_path)? != meta.vectors {
            return Ok(Attempt::Mismatch(format!("{VECTORS_FILE} does not match {META_FILE}")));
        }
        let header = match Index::metadata(vectors_str) {
            Ok(header) => header,
            Err(e) => return Ok(Attempt::Rebuild(format!("{VECTORS_FILE} is unreadable: {e}"))),
        };
        if header.dimensions != dim as u64
            || header.metric != MetricKind::Cos
            || header.quantization != ScalarKind::F32
            || header.multi
            || header.count_present != meta.count as u64
        {
            return Ok(Attempt::Rebuild(format!(
                "{VECTORS_FILE} header (dimension {}, {} vectors) disagrees with {META_FILE} (dimension {dim}, {} vectors)",
                header.dimensions, header.count_present, meta.count
            )));
        }
        let index = Index::new(&index_options(dim)).map_err(engine("create an index"))?;
        let opened = if view { index.view(vectors_str) } else { index.load(vectors_str) };
        if let Err(e) = opened {
            return Ok(Attempt::Rebuild(format!("{VECTORS_FILE} cannot be loaded: {e}")));
        }
        let now = fs::metadata(&vectors_path).ok().map(|m| FileIdentity::of(&m));
        if now != Some(identity) {
            return Ok(Attempt::Mismatch(format!("{VECTORS_FILE} was replaced while loading")));
        }
        drop(file);
        if index.dimensions() != dim || index.size() != keys.len() {
            return Ok(Attempt::Rebuild(format!(
                "{VECTORS_FILE} holds {} vectors of dimension {}, expected {} of dimension {dim}",
                index.size(),
                index.dimensions(),
                keys.len()
            )));
        }
        if let Some(key) = keys.iter().find(|&&k| !index.contains(k)) {
            return Ok(Attempt::Rebuild(format!("{VECTORS_FILE} lacks key {key}")));
        }
        index.change_expansion_search(EXPANSION_SEARCH);
        index.change_expansion_add(EXPANSION_ADD);
        let threads = search_threads();
        if view {
            // A view cannot grow; only the search contexts are reserved.
            index
                .reserve_capacity_and_threads(index.capacity(), threads)
                .map_err(engine("reserve search threads"))?;
        } else {
            index
                .reserve_capacity_and_threads(index.capacity().max(MIN_CAPACITY), threads)
                .map_err(engine("reserve memory"))?;
        }
        let mut out = Self {
            index,
            dir: Some(dir.to_path_buf()),
            embedder_id: meta.embedder_id,
            dim,
            keys,
            positions,
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
        };
        // The journal last: a newer one means a compaction replaced the base while we opened it.
        match read_delta(&dir.join(DELTA_FILE), dim)? {
            DeltaRead::Missing => {}
            DeltaRead::Corrupt(reason) => return Ok(Attempt::Rebuild(reason)),
            DeltaRead::Ok { generation, .. } if generation < meta.generation => {}
            DeltaRead::Ok { generation, .. } if generation > meta.generation => {
                return Ok(Attempt::Mismatch(format!(
                    "{DELTA_FILE} is for generation {generation}, {META_FILE} for {}",
                    meta.generation
                )));
            }
            DeltaRead::Ok { entries, .. } => {
                for (key, vector) in entries {
                    if key == RESERVED_KEY {
                        return Ok(Attempt::Rebuild(format!("{DELTA_FILE} holds a reserved key")));
                    }
                    match &vector {
                        Some(_) if !out.positions.contains_key(&key) => {
                            out.positions.insert(key, out.keys.len());
                            out.keys.push(key);
                        }
                        Some(_) => {}
                        None => out.forget(key),
                    }
                    out.delta.insert(key, vector);
                }
            }
        }
        Ok(Attempt::Ready(Box::new(out)))
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
        self.positions.contains_key(&key)
    }

    /// Every stored key, in no particular order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        self.keys.iter().copied()
    }

    /// Lets an index opened with [`open_read_only`](Self::open_read_only) take changes (kept in
    /// its journal, as with [`open_for_update`](Self::open_for_update)). The caller must hold
    /// the vault's write lock and know the files on disk are still those it opened.
    pub fn allow_updates(&mut self) {
        self.read_only = false;
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
        self.index.memory_usage() + self.delta.len() * (self.dim * 4 + 32)
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
        let replacing = self.positions.contains_key(&key);
        if self.journal {
            self.delta.insert(key, Some(unit));
            if !replacing {
                self.positions.insert(key, self.keys.len());
                self.keys.push(key);
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
        if let Err(e) = self.index.add(key, &unit) {
            if replacing {
                self.forget(key);
            }
            return Err(engine("add a vector")(e));
        }
        if !replacing {
            self.positions.insert(key, self.keys.len());
            self.keys.push(key);
        }
        Ok(())
    }

    /// Removes the vector stored under `key`; returns whether there was one.
    pub fn remove(&mut self, key: u64) -> Result<bool, VectorError> {
        if self.read_only {
            return Err(VectorError::ReadOnly);
        }
        if !self.positions.contains_key(&key) {
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

    /// Copies the stored vector of `key` into `buf` (the journal first); whether there is one.
    fn read_vector(&self, key: u64, buf: &mut [f32]) -> Result<bool, VectorError> {
        match self.delta.get(&key) {
            Some(Some(v)) => {
                buf.copy_from_slice(v);
                Ok(true)
            }
            Some(None) => Ok(false),
            None => Ok(self.index.get(key, buf).map_err(engine("read a vector"))? > 0),
        }
    }

    fn forget(&mut self, key: u64) {
        if let Some(pos) = self.positions.remove(&key) {
            self.keys.swap_remove(pos);
            if let Some(&moved) = self.keys.get(pos) {
                self.positions.insert(moved, pos);
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

    /// The `limit` stored vectors most similar to `query`, as `(key, cosine similarity)`, most
    /// similar first, ties by ascending key.
    ///
    /// `filter`, when given, decides which keys may be returned; it is applied inside retrieval,
    /// so up to `limit` allowed keys are returned however few the filter allows. Search is exact
    /// up to [`exact_search_max`](Self::exact_search_max) vectors and HNSW (approximate) above;
    /// see the [module documentation](self) for how filters are run.
    ///
    /// A query of the wrong length or with NaN/infinite components is an error; an all-zero query,
    /// `limit == 0` or an empty index give no results. The filter may be called more than once per
    /// key; a panic in it propagates to the caller.
    pub fn search(
        &self,
        query: &[f32],
        limit: usize,
        filter: Option<&dyn Fn(u64) -> bool>,
    ) -> Result<Vec<(u64, f32)>, VectorError> {
        self.check_vector(query)?;
        if limit == 0 || self.keys.is_empty() {
            return Ok(Vec::new());
        }
        let Some(q) = normalized(query) else {
            return Ok(Vec::new());
        };
        let wanted = limit.saturating_add(TIE_SLACK).min(self.keys.len());
        let mut hits = if self.delta.is_empty() {
            match filter {
                None => self.engine_search(&q, wanted, self.searches_exactly(), None)?,
                Some(filter) => self.filtered_search(&q, limit, wanted, filter)?,
            }
        } else {
            self.search_with_delta(&q, limit, wanted, filter)?
        };
        hits.sort_unstable_by(by_rank);
        hits.truncate(limit);
        Ok(hits)
    }

    /// [`search`](Self::search) over the base without its journaled keys, plus the journaled
    /// vectors scored exactly.
    fn search_with_delta(
        &self,
        q: &[f32],
        limit: usize,
        wanted: usize,
        filter: Option<&dyn Fn(u64) -> bool>,
    ) -> Result<Vec<(u64, f32)>, VectorError> {
        let journaled = |key: u64| self.delta.contains_key(&key);
        let mut hits = match filter {
            None if self.searches_exactly() => {
                // At most `delta.len()` of the base's nearest are journaled: fetch that many more.
                let fetch = wanted.saturating_add(self.delta.len()).min(self.index.size());
                let mut hits = self.engine_search(q, fetch, true, None)?;
                hits.retain(|&(key, _)| !journaled(key));
                hits
            }
            None => {
                let base = |key: u64| !journaled(key);
                self.engine_search(q, wanted, false, Some(&base))?
            }
            Some(filter) => {
                let base = |key: u64| !journaled(key) && filter(key);
                self.filtered_search(q, limit, wanted, &base)?
            }
        };
        for (&key, vector) in &self.delta {
            if let Some(v) = vector
                && filter.is_none_or(|f| f(key))
            {
                hits.push((key, dot(q, v).clamp(-1.0, 1.0)));
            }
        }
        Ok(hits)
    }

    /// One usearch search: exact (no filter) or HNSW (optionally filtered).
    fn engine_search(
        &self,
        q: &[f32],
        wanted: usize,
        exact: bool,
        filter: Option<&dyn Fn(u64) -> bool>,
    ) -> Result<Vec<(u64, f32)>, VectorError> {
        let matches = match filter {
            None => {
                let _slot = self.slots.acquire();
                if exact {
                    self.index.exact_search(q, wanted)
                } else {
                    self.index.search(q, wanted)
                }
            }
            Some(filter) => {
                // The predicate is called from C++: a panic must not unwind through it. Catch it,
                // reject everything after it, and resume it once usearch has returned.
                let panicked: RefCell<Option<Box<dyn Any + Send>>> = RefCell::new(None);
                let predicate = |key: u64| -> bool {
                    if panicked.borrow().is_some() {
                        return false;
                    }
                    match panic::catch_unwind(AssertUnwindSafe(|| filter(key))) {
                        Ok(allowed) => allowed,
                        Err(payload) => {
                            *panicked.borrow_mut() = Some(payload);
                            false
                        }
                    }
                };
                let result = {
                    let _slot = self.slots.acquire();
                    self.index.filtered_search(q, wanted, predicate)
                };
                if let Some(payload) = panicked.into_inner() {
                    panic::resume_unwind(payload);
                }
                result
            }
        }
        .map_err(engine("search"))?;
        Ok(matches
            .keys
            .iter()
            .zip(&matches.distances)
            .filter(|&(&key, _)| key != RESERVED_KEY)
            .map(|(&key, &distance)| (key, (1.0 - distance).clamp(-1.0, 1.0)))
            .collect())
    }

    /// Filtered search (SPEC §8 stage 1: the filter applies before the top-k cut).
    ///
    /// The filter is first run over every key. Few allowed keys (at most
    /// [`brute_force_max`] of them) are scored one by one. Otherwise an exact index over-fetches
    /// its nearest neighbours (about twice `wanted` allowed keys expected among them) and keeps the
    /// allowed ones; an HNSW index runs usearch's `filtered_search`. Either way, when fewer than
    /// `limit` hits come back although more keys are allowed, the allowed keys are scored one by
    /// one, so the result is never short.
    fn filtered_search(
        &self,
        q: &[f32],
        limit: usize,
        wanted: usize,
        filter: &dyn Fn(u64) -> bool,
    ) -> Result<Vec<(u64, f32)>, VectorError> {
        let n = self.keys.len();
        let allowed: Vec<u64> = self.keys.iter().copied().filter(|&key| filter(key)).collect();
        if allowed.is_empty() {
            return Ok(Vec::new());
        }
        if allowed.len() <= brute_force_max(n) {
            return self.score_keys(q, wanted, &allowed);
        }
        let hits = if self.searches_exactly() {
            // Any allowed key outside the exact top `fetch` is farther than every allowed key
            // inside it, so the allowed keys inside are the exact filtered top.
            let fetch = wanted.saturating_mul(2).saturating_mul(n.div_ceil(allowed.len())).min(n);
            let mut hits = self.engine_search(q, fetch, true, None)?;
            hits.retain(|&(key, _)| filter(key));
            hits
        } else {
            self.engine_search(q, wanted, false, Some(filter))?
        };
        if hits.len() >= limit.min(allowed.len()) {
            Ok(hits)
        } else {
            self.score_keys(q, wanted, &allowed)
        }
    }

    /// Exact search over `keys`: each stored vector scored by dot product with the unit query.
    fn score_keys(
        &self,
        q: &[f32],
        wanted: usize,
        keys: &[u64],
    ) -> Result<Vec<(u64, f32)>, VectorError> {
        let mut buf = vec![0.0f32; self.dim];
        let mut hits = Vec::with_capacity(keys.len());
        for &key in keys {
            if self.read_vector(key, &mut buf)? {
                hits.push((key, dot(q, &buf).clamp(-1.0, 1.0)));
            }
        }
        if wanted > 0 && hits.len() > wanted {
            hits.select_nth_unstable_by(wanted - 1, by_rank);
            hits.truncate(wanted);
        }
        Ok(hits)
    }

    /// Writes the index into its directory atomically (see the [module documentation](self)).
    ///
    /// Creates the directory if needed. An index opened from disk writes only its journal while
    /// it holds at most [`delta_max`](Self::delta_max) changes; otherwise (a new index, or a
    /// compaction) the whole index is rewritten as a new generation.
    /// [`has_unsaved_changes`](Self::has_unsaved_changes) says whether there is anything to write.
    pub fn save(&mut self) -> Result<(), VectorError> {
        let dir = self.dir.clone().ok_or(VectorError::InMemory)?;
        if self.read_only {
            return Err(VectorError::ReadOnly);
        }
        fs::create_dir_all(&dir).at("create", &dir)?;
        if self.journal && self.delta.len() <= self.delta_max {
            write_delta(&dir, self.generation, self.dim, &self.delta)?;
        } else {
            if self.journal {
                self.compact(&dir)?;
            }
            let generation = self.generation.max(disk_generation(&dir)) + 1;
            self.write_files(&dir, generation)?;
            // An empty journal of the new generation: a reader that opened the old base and
            // then finds it retries instead of missing the old journal's changes.
            write_delta(&dir, generation, self.dim, &HashMap::new())?;
            self.generation = generation;
            self.journal = true;
        }
        sync_dir(&dir)?;
        self.dirty.store(false, AtomicOrdering::Relaxed);
        Ok(())
    }

    /// Folds the journal into the base (loading the base first when it is a view); the next
    /// save is then a full one.
    fn compact(&mut self, dir: &Path) -> Result<(), VectorError> {
        if self.view {
            let path = dir.join(VECTORS_FILE);
            let index = Index::new(&index_options(self.dim)).map_err(engine("create an index"))?;
            index.load(path_str(&path)?).map_err(|e| VectorError::EngineFile {
                action: "load",
                path: path.clone(),
                message: e.to_string(),
            })?;
            index.change_expansion_search(EXPANSION_SEARCH);
            index.change_expansion_add(EXPANSION_ADD);
            index
                .reserve_capacity_and_threads(index.capacity().max(MIN_CAPACITY), self.threads)
                .map_err(engine("reserve memory"))?;
            self.index = index;
            self.view = false;
        }
        let delta = std::mem::take(&mut self.delta);
        self.journal = false;
        let mut keys: Vec<u64> = delta.keys().copied().collect();
        keys.sort_unstable();
        for key in keys {
            if self.index.contains(key) {
                self.index.remove(key).map_err(engine("remove a vector"))?;
            }
            if let Some(v) = &delta[&key] {
                if self.index.size() + 1 > self.index.capacity() {
                    let grown = self.index.capacity().saturating_mul(2).max(MIN_CAPACITY);
                    self.index
                        .reserve_capacity_and_threads(grown, self.threads)
                        .map_err(engine("reserve memory"))?;
                }
                self.index.add(key, v).map_err(engine("add a vector"))?;
            }
        }
        Ok(())
    }

    fn write_files(&self, dir: &Path, generation: u64) -> Result<(), VectorError> {
        let vectors_tmp = dir.join(format!("{VECTORS_FILE}.tmp"));
        let keys_tmp = dir.join(format!("{KEYS_FILE}.tmp"));
        let meta_tmp = dir.join(format!("{META_FILE}.tmp"));

        self.index.save(path_str(&vectors_tmp)?).map_err(|e| VectorError::EngineFile {
            action: "save",
            path: vectors_tmp.clone(),
            message: e.to_string(),
        })?;
        let vectors = {
            // Write access so that fsync also works where it needs it (Windows).
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .open(&vectors_tmp)
                .at("open", &vectors_tmp)?;
            file.sync_all().at("sync", &vectors_tmp)?;
            stamp_of_reader(&mut file).at("read", &vectors_tmp)?
        };

        let key_bytes: Vec<u8> = self.keys.iter().flat_map(|k| k.to_le_bytes()).collect();
        write_synced(&keys_tmp, &key_bytes)?;

        let meta = Meta {
            format: FORMAT,
            embedder_id: self.embedder_id.clone(),
            dim: self.dim,
            count: self.keys.len(),
            metric: METRIC_NAME.to_owned(),
            scalar: SCALAR_NAME.to_owned(),
            vectors,
            keys: stamp_of(&key_bytes),
            generation,
        };
        let mut meta_bytes = serde_json::to_vec_pretty(&meta)
            .map_err(|source| VectorError::Encode { path: meta_tmp.clone(), source })?;
        meta_bytes.push(b'\n');
        write_synced(&meta_tmp, &meta_bytes)?;

        // meta.json last: until it is renamed, open() sees the old meta and detects new files by
        // their hashes.
        for (tmp, name) in
            [(&vectors_tmp, VECTORS_FILE), (&keys_tmp, KEYS_FILE), (&meta_tmp, META_FILE)]
        {
            let target = dir.join(name);
            fs::rename(tmp, &target).at("rename", tmp)?;
        }
        sync_dir(dir)
    }
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

/// The generation recorded in `dir`'s `meta.json` (0 when there is none).
fn disk_generation(dir: &Path) -> u64 {
    fs::read(dir.join(META_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice::<Meta>(&b).ok())
        .map_or(0, |m| m.generation)
}

/// Writes the journal atomically: magic, generation, dim, count, then `key, 0` (removed) or
/// `key, 1, dim × f32` per entry (sorted by key), then the xxh3 of all that, little-endian.
fn write_delta(
    dir: &Path,
    generation: u64,
    dim: usize,
    delta: &HashMap<u64, Option<Vec<f32>>>,
) -> Result<(), VectorError> {
    let mut keys: Vec<u64> = delta.keys().copied().collect();
    keys.sort_unstable();
    let mut bytes = Vec::with_capacity(40 + delta.len() * (9 + dim * 4));
    bytes.extend_from_slice(DELTA_MAGIC);
    bytes.extend_from_slice(&generation.to_le_bytes());
    bytes.extend_from_slice(&(dim as u64).to_le_bytes());
    bytes.extend_from_slice(&(delta.len() as u64).to_le_bytes());
    for key in keys {
        bytes.extend_from_slice(&key.to_le_bytes());
        match &delta[&key] {
            Some(v) => {
                bytes.push(1);
                for x in v {
                    bytes.extend_from_slice(&x.to_le_bytes());
                }
            }
            None => bytes.push(0),
        }
    }
    let sum = xxh3_64(&bytes);
    bytes.extend_from_slice(&sum.to_le_bytes());
    let tmp = dir.join(format!("{DELTA_FILE}.tmp"));
    write_synced(&tmp, &bytes)?;
    fs::rename(&tmp, dir.join(DELTA_FILE)).at("rename", &tmp)?;
    Ok(())
}

/// What [`read_delta`] found.
enum DeltaRead {
    Missing,
    Corrupt(String),
    Ok { generation: u64, entries: Vec<(u64, Option<Vec<f32>>)> },
}

fn read_delta(path: &Path, dim: usize) -> Result<DeltaRead, VectorError> {
    let Some(bytes) = read_if_exists(path)? else {
        return Ok(DeltaRead::Missing);
    };
    let corrupt = |what: &str| Ok(DeltaRead::Corrupt(format!("{DELTA_FILE} is corrupt: {what}")));
    if bytes.len() < 40 || &bytes[..8] != DELTA_MAGIC {
        return corrupt("bad header");
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    if xxh3_64(body).to_le_bytes() != sum {
        return corrupt("bad checksum");
    }
    let u64_at = |at: usize| u64::from_le_bytes(body[at..at + 8].try_into().unwrap_or_default());
    let generation = u64_at(8);
    if u64_at(16) != dim as u64 {
        return corrupt("another dimension");
    }
    let count = u64_at(24) as usize;
    let mut entries = Vec::with_capacity(count.min(body.len() / 9));
    let mut at = 32;
    for _ in 0..count {
        if at + 9 > body.len() {
            return corrupt("truncated");
        }
        let key = u64_at(at);
        let tag = body[at + 8];
        at += 9;
        let vector = match tag {
            0 => None,
            1 if at + dim * 4 <= body.len() => {
                let v: Vec<f32> = body[at..at + dim * 4]
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes(b.try_into().unwrap_or_default()))
                    .collect();
                at += dim * 4;
                if !v.iter().all(|x| x.is_finite()) {
                    return corrupt("a non-finite value");
                }
                Some(v)
            }
            _ => return corrupt("bad entry"),
        };
        entries.push((key, vector));
    }
    if at != body.len() {
        return corrupt("trailing bytes");
    }
    Ok(DeltaRead::Ok { generation, entries })
}

enum Attempt {
    Ready(Box<VectorIndex>),
    /// Permanent: the files are there and consistent, but unusable for this request.
    Rebuild(String),
    /// The files disagree with meta.json: a crash mid-save, or a writer renaming right now.
    Mismatch(String),
}

fn rebuild(reason: String) -> OpenOutcome {
    tracing::debug!(%reason, "vector index needs a rebuild");
    OpenOutcome::NeedsRebuild { reason }
}

/// Identity of a file: (device, inode) on Unix; size and mtime elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileIdentity {
    a: u64,
    b: u64,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl FileIdentity {
    fn of(meta: &fs::Metadata) -> Self {
        #[cfg(unix)]
        let (a, b) = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino())
        };
        #[cfg(not(unix))]
        let (a, b) = (0, 0);
        Self { a, b, len: meta.len(), modified: meta.modified().ok() }
    }
}

/// Largest number of allowed keys that a filtered search scores one by one rather than through
/// usearch: 2,048, or an eighth of the index (scoring costs ≈ 0.5 µs per 384-dimension vector).
fn brute_force_max(n: usize) -> usize {
    (n / 8).max(2_048)
}

/// Ranking order: higher similarity first, then lower key.
fn by_rank(a: &(u64, f32), b: &(u64, f32)) -> Ordering {
    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
}

/// `v / |v|`, or `None` when `v` is all zeros.
fn normalized(v: &[f32]) -> Option<Vec<f32>> {
    let norm2: f64 = v.iter().map(|&x| f64::from(x) * f64::from(x)).sum();
    if norm2 == 0.0 || !norm2.is_finite() {
        return None;
    }
    let inv = 1.0 / norm2.sqrt();
    Some(v.iter().map(|&x| (f64::from(x) * inv) as f32).collect())
}

/// Dot product with eight independent accumulators (vectorisable without fast-math).
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (xa, xb) in ca.zip(cb) {
        for ((s, x), y) in acc.iter_mut().zip(xa).zip(xb) {
            *s += x * y;
        }
    }
    acc.iter().sum::<f32>() + tail
}

fn path_str(path: &Path) -> Result<&str, VectorError> {
    path.to_str().ok_or_else(|| VectorError::NonUtf8Path(path.to_path_buf()))
}

fn read_if_exists(path: &Path) -> Result<Option<Vec<u8>>, VectorError> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => {
            Err(VectorError::Io(PathError { action: "read", path: path.to_path_buf(), source: e }))
        }
    }
}

fn hex(hash: u64) -> String {
    format!("{hash:016x}")
}

fn stamp_of(bytes: &[u8]) -> FileStamp {
    FileStamp { bytes: bytes.len() as u64, xxh3: hex(xxh3_64(bytes)) }
}

/// Length and a sampled hash of a file: its first and last [`STAMP_SAMPLE`] bytes (the whole
/// file when it is smaller than two samples).
///
/// The stamp only has to tell one save from another (the renames of `save` are not atomic as a
/// pair); hashing every byte would cost a full read of a large index on every open.
fn stamp_of_reader<R: Read + io::Seek>(reader: &mut R) -> io::Result<FileStamp> {
    let bytes = reader.seek(io::SeekFrom::End(0))?;
    let mut hasher = Xxh3Default::new();
    hasher.update(&bytes.to_le_bytes());
    let mut buf = vec![0u8; STAMP_SAMPLE as usize];
    let mut sample = |from: u64, len: u64, hasher: &mut Xxh3Default| -> io::Result<()> {
        reader.seek(io::SeekFrom::Start(from))?;
        let part = &mut buf[..len as usize];
        reader.read_exact(part)?;
        hasher.update(part);
        Ok(())
    };
    if bytes <= 2 * STAMP_SAMPLE {
        let mut rest = bytes;
        let mut from = 0;
        while rest > 0 {
            let len = rest.min(STAMP_SAMPLE);
            sample(from, len, &mut hasher)?;
            from += len;
            rest -= len;
        }
    } else {
        sample(0, STAMP_SAMPLE, &mut hasher)?;
        sample(bytes - STAMP_SAMPLE, STAMP_SAMPLE, &mut hasher)?;
    }
    Ok(FileStamp { bytes, xxh3: hex(hasher.digest()) })
}

/// Bytes hashed at each end of the vectors file by [`stamp_of_reader`].
const STAMP_SAMPLE: u64 = 1 << 20;

fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), VectorError> {
    let mut file = File::create(path).at("create", path)?;
    file.write_all(bytes).at("write", path)?;
    file.sync_all().at("sync", path)?;
    Ok(())
}

fn sync_dir(dir: &Path) -> Result<(), VectorError> {
    #[cfg(unix)]
    File::open(dir).and_then(|d| d.sync_all()).at("sync", dir)?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

#[cfg(test)]
mod read_only_tests {
    use super::*;

    #[test]
    fn a_read_only_view_answers_like_the_loaded_index_and_refuses_writes() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("v");
        let mut idx = VectorIndex::create(&dir, "e", 8).unwrap();
        for k in 0..200u64 {
            let v: Vec<f32> = (0..8).map(|i| ((k * 7 + i * 13) % 17) as f32 - 8.0).collect();
            idx.upsert(k, &v).unwrap();
        }
        idx.save().unwrap();
        let q = [1.0, -2.0, 3.0, 0.5, 0.0, 1.0, -1.0, 2.0];
        let want = idx.search(&q, 10, None).unwrap();
        let OpenOutcome::Ready(mut view) = VectorIndex::open_read_only(&dir, "e", 8).unwrap()
        else {
            panic!("the saved index should open")
        };
        assert_eq!(view.len(), 200);
        assert_eq!(view.search(&q, 10, None).unwrap(), want);
        let only_odd = |k: u64| k % 2 == 1;
        assert!(view.search(&q, 5, Some(&only_odd)).unwrap().iter().all(|(k, _)| k % 2 == 1));
        assert!(view.upsert(999, &q).is_err(), "a view cannot be written");
        assert!(view.remove(3).is_err(), "a view cannot be written");
        assert_eq!(view.search(&q, 10, None).unwrap(), want, "a refused write changes nothing");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// splitmix64: a tiny deterministic generator for test data.
    struct Rng(u64);

    impl Rng {
        fn next_u64(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }

        /// Uniform in [-1, 1).
        fn uniform(&mut self) -> f32 {
            ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        }

        fn vector(&mut self, dim: usize) -> Vec<f32> {
            (0..dim).map(|_| self.uniform()).collect()
        }
    }

    /// `n` vectors around `centres` cluster centres, with noise: closer to real embeddings than
    /// uniform noise (STACK: HNSW recall on uniform random vectors is misleading).
    fn clustered(rng: &mut Rng, n: usize, centres: &[Vec<f32>], noise: f32) -> Vec<Vec<f32>> {
        (0..n)
            .map(|i| {
                let c = &centres[(rng.next_u64() as usize + i) % centres.len()];
                c.iter().map(|x| x + noise * rng.uniform()).collect()
            })
            .collect()
    }

    fn exact_reference(
        vectors: &[Vec<f32>],
        query: &[f32],
        limit: usize,
        allow: impl Fn(u64) -> bool,
    ) -> Vec<u64> {
        let q = normalized(query).unwrap();
        let mut all: Vec<(u64, f32)> = vectors
            .iter()
            .enumerate()
            .filter(|(i, _)| allow(*i as u64))
            .map(|(i, v)| (i as u64, dot(&q, &normalized(v).unwrap())))
            .collect();
        all.sort_by(by_rank);
        all.into_iter().take(limit).map(|(k, _)| k).collect()
    }

    fn keys(hits: &[(u64, f32)]) -> Vec<u64> {
        hits.iter().map(|&(k, _)| k).collect()
    }

    fn build(vectors: &[Vec<f32>], dim: usize) -> VectorIndex {
        let mut index = VectorIndex::create_in_memory("test", dim).unwrap();
        index.reserve(vectors.len()).unwrap();
        for (i, v) in vectors.iter().enumerate() {
            index.upsert(i as u64, v).unwrap();
        }
        index
    }

    fn expect_rebuild(outcome: OpenOutcome) -> String {
        match outcome {
            OpenOutcome::NeedsRebuild { reason } => reason,
            OpenOutcome::Ready(index) => panic!("expected NeedsRebuild, got {index:?}"),
        }
    }

    fn expect_ready(outcome: OpenOutcome) -> VectorIndex {
        match outcome {
            OpenOutcome::Ready(index) => index,
            OpenOutcome::NeedsRebuild { reason } => {
                panic!("expected Ready, got NeedsRebuild: {reason}")
            }
        }
    }

    #[test]
    fn is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<VectorIndex>();
        check::<VectorError>();
    }

    #[test]
    fn search_returns_nearest_by_cosine() {
        let mut index = VectorIndex::create_in_memory("test", 3).unwrap();
        index.upsert(1, &[1.0, 0.0, 0.0]).unwrap();
        index.upsert(2, &[0.0, 1.0, 0.0]).unwrap();
        index.upsert(3, &[10.0, 10.0, 0.0]).unwrap(); // length does not matter for cosine
        index.upsert(4, &[-1.0, 0.0, 0.0]).unwrap();
        assert_eq!(index.len(), 4);
        let hits = index.search(&[0.9, 0.1, 0.0], 4, None).unwrap();
        assert_eq!(keys(&hits), vec![1, 3, 2, 4]);
        let expected = [
            0.9 / 0.82f32.sqrt(),
            1.0 / (0.82f32.sqrt() * 2f32.sqrt()),
            0.1 / 0.82f32.sqrt(),
            -0.9 / 0.82f32.sqrt(),
        ];
        for ((_, sim), want) in hits.iter().zip(expected) {
            assert!((sim - want).abs() < 1e-5, "{sim} vs {want}");
        }
        assert_eq!(keys(&index.search(&[0.9, 0.1, 0.0], 2, None).unwrap()), vec![1, 3]);
        // The same on the HNSW path.
        index.set_exact_search_max(0);
        assert!(!index.searches_exactly());
        assert_eq!(keys(&index.search(&[0.9, 0.1, 0.0], 2, None).unwrap()), vec![1, 3]);
    }

    #[test]
    fn ties_are_broken_by_key() {
        let mut index = VectorIndex::create_in_memory("test", 2).unwrap();
        for key in [9, 3, 5, 7] {
            index.upsert(key, &[1.0, 1.0]).unwrap();
        }
        index.upsert(1, &[0.0, 1.0]).unwrap();
        let hits = index.search(&[1.0, 1.0], 3, None).unwrap();
        assert_eq!(keys(&hits), vec![3, 5, 7]);
        let all = |_: u64| true;
        assert_eq!(keys(&index.search(&[1.0, 1.0], 3, Some(&all)).unwrap()), vec![3, 5, 7]);
    }

    #[test]
    fn upsert_replaces_the_old_vector() {
        let mut index = VectorIndex::create_in_memory("test", 2).unwrap();
        index.upsert(1, &[1.0, 0.0]).unwrap();
        index.upsert(2, &[0.0, 1.0]).unwrap();
        index.upsert(1, &[0.0, 1.0]).unwrap();
        assert_eq!(index.len(), 2);
        let hits = index.search(&[1.0, 0.0], 2, None).unwrap();
        assert!(hits.iter().all(|&(_, sim)| sim.abs() < 1e-6), "{hits:?}");
        assert_eq!(index.vector(1).unwrap().unwrap(), vec![0.0, 1.0]);
        let hits = index.search(&[0.0, 1.0], 2, None).unwrap();
        assert_eq!(keys(&hits), vec![1, 2]);
        assert!(hits.iter().all(|&(_, sim)| (sim - 1.0).abs() < 1e-6));
    }

    #[test]
    fn remove_works() {
        let mut index = VectorIndex::create_in_memory("test", 2).unwrap();
        index.upsert(1, &[1.0, 0.0]).unwrap();
        index.upsert(2, &[0.9, 0.1]).unwrap();
        index.upsert(3, &[0.0, 1.0]).unwrap();
        assert!(index.remove(1).unwrap());
        assert!(!index.remove(1).unwrap());
        assert!(!index.contains(1));
        assert!(index.contains(2) && index.contains(3));
        assert_eq!(index.len(), 2);
        assert_eq!(keys(&index.search(&[1.0, 0.0], 5, None).unwrap()), vec![2, 3]);
        index.set_exact_search_max(0);
        assert_eq!(keys(&index.search(&[1.0, 0.0], 5, None).unwrap()), vec![2, 3]);
        let mut sorted: Vec<u64> = index.keys().collect();
        sorted.sort_unstable();
        assert_eq!(sorted, vec![2, 3]);
        // Re-adding a removed key reuses its slot.
        index.upsert(1, &[1.0, 0.0]).unwrap();
        assert_eq!(keys(&index.search(&[1.0, 0.0], 1, None).unwrap()), vec![1]);
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        assert!(matches!(
            VectorIndex::create_in_memory("test", 0),
            Err(VectorError::ZeroDimension)
        ));
        let mut index = VectorIndex::create_in_memory("test", 4).unwrap();
        assert!(matches!(
            index.upsert(1, &[1.0, 2.0]),
            Err(VectorError::DimensionMismatch { expected: 4, got: 2 })
        ));
        assert!(matches!(index.upsert(1, &[f32::NAN, 0.0, 0.0, 0.0]), Err(VectorError::NonFinite)));
        assert!(matches!(index.upsert(RESERVED_KEY, &[1.0; 4]), Err(VectorError::ReservedKey(_))));
        assert!(index.is_empty());
        index.upsert(1, &[1.0; 4]).unwrap();
        assert!(matches!(
            index.search(&[1.0; 5], 3, None),
            Err(VectorError::DimensionMismatch { expected: 4, got: 5 })
        ));
        assert!(matches!(index.search(&[], 3, None), Err(VectorError::DimensionMismatch { .. })));
        assert!(matches!(index.search(&[f32::INFINITY; 4], 3, None), Err(VectorError::NonFinite)));
        index.set_exact_search_max(0);
        assert!(matches!(
            index.search(&[1.0; 3], 3, None),
            Err(VectorError::DimensionMismatch { .. })
        ));
        let msg = index.search(&[1.0; 3], 3, None).unwrap_err().to_string();
        assert_eq!(msg, "vector has 3 dimensions but the index holds 4");
        assert!(matches!(index.save(), Err(VectorError::InMemory)));
    }

    #[test]
    fn empty_index_zero_query_and_zero_limit_give_nothing() {
        let mut index = VectorIndex::create_in_memory("test", 3).unwrap();
        assert!(index.search(&[1.0, 0.0, 0.0], 10, None).unwrap().is_empty());
        index.set_exact_search_max(0);
        assert!(index.search(&[1.0, 0.0, 0.0], 10, None).unwrap().is_empty());
        index.upsert(1, &[1.0, 0.0, 0.0]).unwrap();
        assert!(index.search(&[1.0, 0.0, 0.0], 0, None).unwrap().is_empty());
        assert!(index.search(&[0.0, 0.0, 0.0], 10, None).unwrap().is_empty());
        // A stored zero vector is similar to nothing.
        index.upsert(2, &[0.0, 0.0, 0.0]).unwrap();
        let hits = index.search(&[0.0, 1.0, 0.0], 10, None).unwrap();
        assert_eq!(hits.len(), 2);
        assert!(hits.iter().all(|&(_, sim)| sim.abs() < 1e-6), "{hits:?}");
    }

    #[test]
    fn filter_applies_inside_retrieval() {
        let dim = 64;
        let mut rng = Rng(7);
        let vectors: Vec<Vec<f32>> = (0..10_000).map(|_| rng.vector(dim)).collect();
        let mut index = build(&vectors, dim);
        let allowed = [17u64, 4_242, 9_001];
        let allow = |k: u64| allowed.contains(&k);
        for exact_max in [EXACT_SEARCH_MAX, 0] {
            index.set_exact_search_max(exact_max);
            for _ in 0..5 {
                let query = rng.vector(dim);
                let hits = index.search(&query, 2, Some(&allow)).unwrap();
                assert_eq!(
                    keys(&hits),
                    exact_reference(&vectors, &query, 2, allow),
                    "exact_max {exact_max}"
                );
                // The unfiltered top 2 are (almost surely) other keys.
                let unfiltered = index.search(&query, 2, None).unwrap();
                assert!(keys(&unfiltered).iter().all(|k| !allowed.contains(k)));
            }
            // A filter that allows nothing, and one that allows everything.
            let query = rng.vector(dim);
            assert!(index.search(&query, 5, Some(&|_| false)).unwrap().is_empty());
            let all = index.search(&query, 5, Some(&|_| true)).unwrap();
            assert_eq!(keys(&all), exact_reference(&vectors, &query, 5, |_| true));
            // Half the keys: too many to score one by one, so usearch runs the search.
            let odd = |k: u64| k % 2 == 1;
            let hits = index.search(&query, 20, Some(&odd)).unwrap();
            assert_eq!(hits.len(), 20);
            assert!(keys(&hits).iter().all(|&k| odd(k)));
            if index.searches_exactly() {
                assert_eq!(keys(&hits), exact_reference(&vectors, &query, 20, odd));
            }
            // 30 % of the keys, all far from the query: the over-fetch finds none of them and
            // the search falls back to scoring the allowed keys.
            let q = normalized(&query).unwrap();
            let mut by_sim: Vec<(u64, f32)> = vectors
                .iter()
                .enumerate()
                .map(|(i, v)| (i as u64, dot(&q, &normalized(v).unwrap())))
                .collect();
            by_sim.sort_by(by_rank);
            let far: std::collections::HashSet<u64> =
                by_sim[7_000..].iter().map(|&(k, _)| k).collect();
            let is_far = |k: u64| far.contains(&k);
            let hits = keys(&index.search(&query, 10, Some(&is_far)).unwrap());
            let reference = exact_reference(&vectors, &query, 10, is_far);
            if index.searches_exactly() {
                assert_eq!(hits, reference);
            } else {
                assert!(hits.len() == 10 && hits.iter().all(|&k| is_far(k)));
                assert!(hits.iter().filter(|k| reference.contains(k)).count() >= 8, "{hits:?}");
            }
        }
    }

    #[test]
    #[should_panic(expected = "filter exploded")]
    fn a_panicking_filter_panics_in_the_caller() {
        let mut index = VectorIndex::create_in_memory("test", 2).unwrap();
        for key in 0..10 {
            index.upsert(key, &[1.0, key as f32]).unwrap();
        }
        let _ = index.search(&[1.0, 1.0], 3, Some(&|_| panic!("filter exploded")));
    }

    #[test]
    #[should_panic(expected = "filter exploded inside usearch")]
    fn a_filter_panicking_inside_usearch_panics_in_the_caller() {
        let mut rng = Rng(9);
        let n = 5_000;
        let vectors: Vec<Vec<f32>> = (0..n).map(|_| rng.vector(8)).collect();
        let mut index = build(&vectors, 8);
        index.set_exact_search_max(0);
        // The first pass over the keys runs in Rust; the next calls come from usearch's C++.
        let calls = std::cell::Cell::new(0);
        let filter = |k: u64| {
            calls.set(calls.get() + 1);
            assert!(calls.get() <= n, "filter exploded inside usearch");
            k.is_multiple_of(2)
        };
        let _ = index.search(&vectors[0], 3, Some(&filter));
    }

    #[test]
    fn save_and_open_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let vdir = dir.path().join("indices").join("vector");
        let dim = 32;
        let mut rng = Rng(11);
        let centres: Vec<Vec<f32>> = (0..40).map(|_| rng.vector(dim)).collect();
        let vectors = clustered(&mut rng, 2_000, &centres, 0.3);
        let mut index = VectorIndex::create(&vdir, "builtin-v1", dim).unwrap();
        for (i, v) in vectors.iter().enumerate() {
            index.upsert(i as u64 * 3 + 1, v).unwrap();
        }
        for key in (1..600).step_by(9) {
            index.remove(key).unwrap();
        }
        assert!(index.has_unsaved_changes());
        index.save().unwrap();
        assert!(!index.has_unsaved_changes());
        for name in [VECTORS_FILE, KEYS_FILE, META_FILE] {
            assert!(vdir.join(name).is_file(), "{name}");
            assert!(!vdir.join(format!("{name}.tmp")).exists(), "{name}.tmp");
        }
        let meta: serde_json::Value =
            serde_json::from_slice(&fs::read(vdir.join(META_FILE)).unwrap()).unwrap();
        assert_eq!(meta["format"], FORMAT);
        assert_eq!(meta["embedder_id"], "builtin-v1");
        assert_eq!(meta["dim"], dim);
        assert_eq!(meta["count"], index.len());

        let opened = expect_ready(VectorIndex::open(&vdir, "builtin-v1", dim).unwrap());
        assert_eq!(opened.len(), index.len());
        assert_eq!(opened.dir(), Some(vdir.as_path()));
        assert!(!opened.has_unsaved_changes());
        let mut a: Vec<u64> = index.keys().collect();
        let mut b: Vec<u64> = opened.keys().collect();
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
        let odd = |k: u64| k % 2 == 1;
        for exact_max in [EXACT_SEARCH_MAX, 0] {
            let (mut index, mut opened) =
                (&mut index, expect_ready(VectorIndex::open(&vdir, "builtin-v1", dim).unwrap()));
            index.set_exact_search_max(exact_max);
            opened.set_exact_search_max(exact_max);
            for _ in 0..10 {
                let q = rng.vector(dim);
                assert_eq!(
                    index.search(&q, 10, None).unwrap(),
                    opened.search(&q, 10, None).unwrap()
                );
                assert_eq!(
                    index.search(&q, 10, Some(&odd)).unwrap(),
                    opened.search(&q, 10, Some(&odd)).unwrap()
                );
            }
            let _ = (&mut index, &mut opened);
        }

        // The opened index keeps working and saves again.
        let mut opened = opened;
        opened.upsert(5, &vectors[0]).unwrap();
        opened.remove(4).unwrap();
        opened.save().unwrap();
        let again = expect_ready(VectorIndex::open(&vdir, "builtin-v1", dim).unwrap());
        assert!(again.contains(5) && !again.contains(4));
        assert_eq!(again.len(), opened.len());
    }

    #[test]
    fn an_empty_index_saves_and_opens() {
        let dir = tempfile::tempdir().unwrap();
        VectorIndex::create(dir.path(), "e", 4).unwrap().save().unwrap();
        let mut opened = expect_ready(VectorIndex::open(dir.path(), "e", 4).unwrap());
        assert!(opened.is_empty());
        assert!(opened.search(&[1.0; 4], 5, None).unwrap().is_empty());
        opened.upsert(1, &[1.0; 4]).unwrap();
        assert_eq!(keys(&opened.search(&[1.0; 4], 5, None).unwrap()), vec![1]);
    }

    #[test]
    fn another_embedder_or_dimension_needs_a_rebuild() {
        let dir = tempfile::tempdir().unwrap();
        let mut index = VectorIndex::create(dir.path(), "builtin-v1", 8).unwrap();
        index.upsert(1, &[1.0; 8]).unwrap();
        index.save().unwrap();
        let reason = expect_rebuild(VectorIndex::open(dir.path(), "minilm-l6-v2", 8).unwrap());
        assert!(reason.contains("builtin-v1"), "{reason}");
        let reason = expect_rebuild(VectorIndex::open(dir.path(), "builtin-v1", 16).unwrap());
        assert!(reason.contains("dimension"), "{reason}");
        expect_ready(VectorIndex::open(dir.path(), "builtin-v1", 8).unwrap());
    }

    #[test]
    fn missing_directory_or_files_need_a_rebuild() {
        let dir = tempfile::tempdir().unwrap();
        expect_rebuild(VectorIndex::open(&dir.path().join("nope"), "e", 4).unwrap());
        let mut index = VectorIndex::create(dir.path(), "e", 4).unwrap();
        index.upsert(1, &[1.0; 4]).unwrap();
        index.save().unwrap();
        for name in [VECTORS_FILE, KEYS_FILE, META_FILE] {
            let path = dir.path().join(name);
            let saved = fs::read(&path).unwrap();
            fs::remove_file(&path).unwrap();
            expect_rebuild(VectorIndex::open(dir.path(), "e", 4).unwrap());
            fs::write(&path, saved).unwrap();
            expect_ready(VectorIndex::open(dir.path(), "e", 4).unwrap());
        }
    }

    #[test]
    fn corrupt_or_truncated_files_need_a_rebuild() {
        let dir = tempfile::tempdir().unwrap();
        let dim = 16;
        let mut rng = Rng(3);
        let mut index = VectorIndex::create(dir.path(), "e", dim).unwrap();
        for key in 0..300 {
            index.upsert(key, &rng.vector(dim)).unwrap();
        }
        index.save().unwrap();
        let vectors = dir.path().join(VECTORS_FILE);
        let meta = dir.path().join(META_FILE);
        let keys = dir.path().join(KEYS_FILE);
        let good_vectors = fs::read(&vectors).unwrap();
        let good_meta = fs::read(&meta).unwrap();
        let good_keys = fs::read(&keys).unwrap();
        let restore = || {
            fs::write(&vectors, &good_vectors).unwrap();
            fs::write(&meta, &good_meta).unwrap();
            fs::write(&keys, &good_keys).unwrap();
        };
        let mut damaged: Vec<(&Path, Vec<u8>)> = vec![
            (&vectors, b"garbage, not a usearch file".to_vec()),
            (&vectors, good_vectors[..good_vectors.len() / 2].to_vec()),
            (&vectors, Vec::new()),
            (&meta, b"{ not json".to_vec()),
            (&meta, b"{}".to_vec()),
            (&meta, Vec::new()),
            (&keys, good_keys[..good_keys.len() - 3].to_vec()),
            (&keys, vec![0xAB; good_keys.len()]),
        ];
        // Same length, one byte flipped in the middle of the vectors.
        let mut flipped = good_vectors.clone();
        let mid = flipped.len() / 2;
        flipped[mid] ^= 0x40;
        damaged.push((&vectors, flipped));
        // A meta.json that claims another count.
        let mut meta_json: serde_json::Value = serde_json::from_slice(&good_meta).unwrap();
        meta_json["count"] = serde_json::json!(299);
        damaged.push((&meta, serde_json::to_vec(&meta_json).unwrap()));
        for (path, bytes) in damaged {
            fs::write(path, &bytes).unwrap();
            let reason = expect_rebuild(VectorIndex::open(dir.path(), "e", dim).unwrap());
            assert!(!reason.is_empty());
            restore();
            expect_ready(VectorIndex::open(dir.path(), "e", dim).unwrap());
        }
    }

    fn mtime(path: &Path) -> std::time::SystemTime {
        fs::metadata(path).unwrap().modified().unwrap()
    }

    #[test]
    fn the_journal_survives_reopen_and_compaction() {
        let dim = 8;
        let mut rng = Rng(7);
        let mut vectors: Vec<Vec<f32>> = (0..120).map(|_| rng.vector(dim)).collect();
        let dir = tempfile::tempdir().unwrap();
        let mut index = VectorIndex::create(dir.path(), "e", dim).unwrap();
        for (i, v) in vectors.iter().enumerate() {
            index.upsert(i as u64, v).unwrap();
        }
        index.save().unwrap();
        let base = dir.path().join(VECTORS_FILE);
        let base_mtime = mtime(&base);

        // A few changes through a memory-mapped writer: only the journal is written.
        let mut w = expect_ready(VectorIndex::open_for_update(dir.path(), "e", dim).unwrap());
        for (i, v) in vectors.iter_mut().enumerate().skip(100).take(3) {
            *v = rng.vector(dim);
            w.upsert(i as u64, v).unwrap();
        }
        for i in 120..125 {
            let v = rng.vector(dim);
            w.upsert(i, &v).unwrap();
            vectors.push(v);
        }
        assert!(w.remove(5).unwrap() && w.remove(122).unwrap());
        assert!(!w.remove(5).unwrap(), "removing twice finds nothing");
        let gone = |k: u64| k != 5 && k != 122;
        w.save().unwrap();
        assert_eq!(mtime(&base), base_mtime, "the base file is not rewritten");
        assert!(w.journaled() > 0);
        let q = rng.vector(dim);
        let want = exact_reference(&vectors, &q, 10, gone);
        assert_eq!(keys(&w.search(&q, 10, None).unwrap()), want);

        // Every way of opening sees the journal.
        for opened in [
            VectorIndex::open(dir.path(), "e", dim).unwrap(),
            VectorIndex::open_read_only(dir.path(), "e", dim).unwrap(),
            VectorIndex::open_for_update(dir.path(), "e", dim).unwrap(),
        ] {
            let mut r = expect_ready(opened);
            assert_eq!(r.len(), 123);
            assert!(!r.contains(5) && !r.contains(122) && r.contains(124));
            assert_eq!(keys(&r.search(&q, 10, None).unwrap()), want);
            let odd = |k: u64| k % 2 == 1;
            let want_odd = exact_reference(&vectors, &q, 7, |k| gone(k) && odd(k));
            assert_eq!(keys(&r.search(&q, 7, Some(&odd)).unwrap()), want_odd);
            let v = r.vector(101).unwrap().unwrap();
            assert!((dot(&v, &normalized(&vectors[101]).unwrap()) - 1.0).abs() < 1e-5);
            assert_eq!(r.vector(5).unwrap(), None);
            // The HNSW path (ef ≥ n here, so exact too) leaves the journaled keys out as well.
            r.set_exact_search_max(0);
            assert_eq!(keys(&r.search(&q, 10, None).unwrap()), want);
        }

        // Past delta_max the next save compacts into a new generation with an empty journal.
        let mut w = expect_ready(VectorIndex::open_for_update(dir.path(), "e", dim).unwrap());
        w.set_delta_max(8);
        for i in 0..10u64 {
            let v = rng.vector(dim);
            w.upsert(i, &v).unwrap();
            vectors[i as usize] = v;
        }
        let old_journal = fs::read(dir.path().join(DELTA_FILE)).unwrap();
        w.save().unwrap();
        assert_eq!(w.journaled(), 0);
        assert_ne!(mtime(&base), base_mtime, "a compaction rewrites the base");
        let gone = |k: u64| k != 122;
        let want = exact_reference(&vectors, &q, 10, gone);
        let r = expect_ready(VectorIndex::open(dir.path(), "e", dim).unwrap());
        assert_eq!((r.len(), r.journaled()), (124, 0));
        assert_eq!(keys(&r.search(&q, 10, None).unwrap()), want);
        // The writer keeps going on its compacted base.
        w.remove(0).unwrap();
        w.save().unwrap();
        assert_eq!(expect_ready(VectorIndex::open(dir.path(), "e", dim).unwrap()).len(), 123);

        // A journal of an older generation (a crash right after a compaction) is ignored.
        fs::write(dir.path().join(DELTA_FILE), &old_journal).unwrap();
        let r = expect_ready(VectorIndex::open_read_only(dir.path(), "e", dim).unwrap());
        assert_eq!((r.len(), r.journaled()), (124, 0));
        // A damaged journal means a rebuild, never a wrong answer.
        let mut bad = old_journal.clone();
        let n = bad.len();
        bad[n / 2] ^= 0xff;
        fs::write(dir.path().join(DELTA_FILE), &bad).unwrap();
        expect_rebuild(VectorIndex::open(dir.path(), "e", dim).unwrap());
    }

    #[test]
    fn a_journal_newer_than_the_base_is_a_mismatch() {
        let dir = tempfile::tempdir().unwrap();
        let mut index = VectorIndex::create(dir.path(), "e", 4).unwrap();
        index.upsert(1, &[1.0, 0.0, 0.0, 0.0]).unwrap();
        index.save().unwrap();
        write_delta(dir.path(), index.generation + 1, 4, &HashMap::new()).unwrap();
        let reason = expect_rebuild(VectorIndex::open(dir.path(), "e", 4).unwrap());
        assert!(reason.contains(DELTA_FILE), "{reason}");
    }

    #[test]
    fn a_crash_between_renames_is_detected() {
        let dir = tempfile::tempdir().unwrap();
        let mut index = VectorIndex::create(dir.path(), "e", 4).unwrap();
        index.upsert(1, &[1.0, 0.0, 0.0, 0.0]).unwrap();
        index.upsert(2, &[0.0, 1.0, 0.0, 0.0]).unwrap();
        index.save().unwrap();
        let old_meta = fs::read(dir.path().join(META_FILE)).unwrap();
        // Same count, same keys, other vectors: only the hashes tell the saves apart (a full
        // save, not a journal).
        index.set_delta_max(0);
        index.upsert(1, &[0.0, 0.0, 1.0, 0.0]).unwrap();
        index.save().unwrap();
        fs::write(dir.path().join(META_FILE), &old_meta).unwrap();
        let reason = expect_rebuild(VectorIndex::open(dir.path(), "e", 4).unwrap());
        assert!(reason.contains(VECTORS_FILE), "{reason}");
    }

    #[test]
    fn concurrent_searches_share_the_index() {
        let dim = 16;
        let mut rng = Rng(5);
        // 5,000 vectors: half of them is too many to score one by one, so the filtered searches
        // below run usearch's filtered_search concurrently too.
        let vectors: Vec<Vec<f32>> = (0..5_000).map(|_| rng.vector(dim)).collect();
        let mut index = build(&vectors, dim);
        index.set_exact_search_max(0);
        let index = &index;
        let vectors = &vectors;
        // More threads than usearch has search contexts: they wait, none fails.
        std::thread::scope(|s| {
            for t in 0..(search_threads() * 3) {
                s.spawn(move || {
                    for i in 0..50 {
                        let v = &vectors[(t * 50 + i) % vectors.len()];
                        let hits = index.search(v, 3, None).unwrap();
                        assert_eq!(hits.len(), 3);
                        let even = |k: u64| k.is_multiple_of(2);
                        assert_eq!(index.search(v, 3, Some(&even)).unwrap().len(), 3);
                    }
                });
            }
        });
    }

    #[test]
    fn hnsw_recall_on_clustered_vectors() {
        let dim = 64;
        let n = 30_000;
        let mut rng = Rng(42);
        let centres: Vec<Vec<f32>> = (0..300).map(|_| rng.vector(dim)).collect();
        let vectors = clustered(&mut rng, n, &centres, 0.35);
        let mut index = build(&vectors, dim);
        assert!(!index.searches_exactly());
        // Queries near the data (as real queries are) and half-way between a centre and noise.
        let mut queries = clustered(&mut rng, 50, &centres, 0.35);
        queries.extend(clustered(&mut rng, 50, &centres, 1.0));
        let (mut found, mut total) = (0usize, 0usize);
        let mut approx = Vec::new();
        for q in &queries {
            approx.push(keys(&index.search(q, 10, None).unwrap()));
        }
        index.set_exact_search_max(usize::MAX);
        for (q, approx) in queries.iter().zip(&approx) {
            let exact = keys(&index.search(q, 10, None).unwrap());
            total += exact.len();
            found += exact.iter().filter(|k| approx.contains(k)).count();
        }
        let recall = found as f64 / total as f64;
        assert!(recall >= 0.95, "recall@10 = {recall}");
        // usearch's exact search agrees with the brute-force reference.
        for q in queries.iter().take(3) {
            let exact = keys(&index.search(q, 10, None).unwrap());
            assert_eq!(exact, exact_reference(&vectors, q, 10, |_| true));
        }
    }

    /// Timings at 10k and 100k vectors of dimension 384. Run with
    /// `cargo test --release --lib vector -- --ignored --nocapture`.
    #[test]
    #[ignore = "performance measurement; run in release"]
    #[allow(clippy::print_stderr)]
    fn perf_384() {
        use std::time::Instant;
        fn median_and_p95(mut xs: Vec<f64>) -> (f64, f64) {
            xs.sort_by(f64::total_cmp);
            (xs[xs.len() / 2], xs[xs.len() * 95 / 100])
        }
        let dim = 384;
        for n in [10_000usize, 100_000] {
            let mut rng = Rng(n as u64);
            let centres: Vec<Vec<f32>> = (0..(n / 100)).map(|_| rng.vector(dim)).collect();
            let vectors = clustered(&mut rng, n, &centres, 0.5);
            let queries = clustered(&mut rng, 200, &centres, 0.8);

            let dir = tempfile::tempdir().unwrap();
            let mut index = VectorIndex::create(dir.path(), "perf", dim).unwrap();
            let t = Instant::now();
            for (i, v) in vectors.iter().enumerate() {
                index.upsert(i as u64, v).unwrap();
            }
            let add = t.elapsed().as_secs_f64();
            eprintln!(
                "n={n}: upsert {:.2} s = {:.0} vectors/s; usearch memory {:.1} MB",
                add,
                n as f64 / add,
                index.memory_usage() as f64 / 1e6
            );

            let half = |k: u64| k.is_multiple_of(2);
            let one_percent = |k: u64| k % 100 == 7;
            let three = |k: u64| k == 5 || k == 5_000 || k == 9_999;
            type Filter<'a> = Option<&'a dyn Fn(u64) -> bool>;
            let filters: [(&str, Filter<'_>); 4] = [
                ("no filter", None),
                ("50% filter", Some(&half)),
                ("1% filter", Some(&one_percent)),
                ("3-key filter", Some(&three)),
            ];
            for exact_max in [EXACT_SEARCH_MAX, usize::MAX, 0] {
                index.set_exact_search_max(exact_max);
                let mode = if index.searches_exactly() { "exact" } else { "hnsw" };
                for (name, filter) in &filters {
                    let mut times = Vec::new();
                    for q in &queries {
                        let t = Instant::now();
                        let hits = index.search(q, 50, *filter).unwrap();
                        times.push(t.elapsed().as_secs_f64() * 1e3);
                        assert!(!hits.is_empty());
                    }
                    let (med, p95) = median_and_p95(times);
                    eprintln!(
                        "n={n} {mode:5} {name:12} limit 50: median {med:.3} ms, p95 {p95:.3} ms"
                    );
                }
            }

            let t = Instant::now();
            index.save().unwrap();
            let save = t.elapsed().as_secs_f64();
            let bytes = fs::metadata(dir.path().join(VECTORS_FILE)).unwrap().len();
            let t = Instant::now();
            let opened = expect_ready(VectorIndex::open(dir.path(), "perf", dim).unwrap());
            let open = t.elapsed().as_secs_f64();
            eprintln!(
                "n={n}: save {:.0} ms, open {:.0} ms, {VECTORS_FILE} {:.1} MB",
                save * 1e3,
                open * 1e3,
                bytes as f64 / 1e6
            );
            assert_eq!(opened.len(), n);
            eprintln!(
                "n={n}: usearch memory after open {:.1} MB ({:?})",
                opened.memory_usage() as f64 / 1e6,
                opened.index.memory_stats()
            );
        }
    }
}
