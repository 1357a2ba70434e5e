//! `Indexes`: the keyword, vector and manifest trio for one vault, kept fresh by `reconcile`.
//!
//! Every command that reads the indices first calls [`Indexes::reconcile`]: a `stat` of every
//! memory file against the manifest. Unchanged vaults cost one directory walk and no lock.
//! Changes (edits outside memlane, `git pull`, deletions) are applied under the vault's index
//! lock (`indices/write.lock`, an OS file lock released when a process dies), in a fixed order —
//! `indices/pending` marker, keyword commit, vector save, graph save, manifest save, marker
//! removed. A crash before the marker leaves the old state; a crash after it leaves the marker
//! with no lock holder, and the next open rebuilds from the files. Readers that find nothing
//! changed never take the lock: tantivy and the vector file are replaced atomically, and a reader
//! sees either the old or the new state of each.
//! A write costs what it changes, not the vault's size: a writer reopens only when the stores'
//! files differ from what it last opened or wrote (`disk_stamp`); the vector index writes its
//! small journal (compacted now and then, see [`super::vector`]); the graph is loaded and saved
//! only when a memory's links changed (the manifest keeps a hash of each memory's links), the
//! vectors only when one changed; and a pass that finds its work already done writes nothing.
//! Deleting `indices/` is always safe: the next command rebuilds it from the files.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::chunk::{ChunkOptions, chunk_markdown, markdown_title};
use super::embed::Embedder;
use super::graph::{EdgeData, LinkGraph, OutLink};
use super::keyword::{KeywordDoc, KeywordError, KeywordIndex};
use super::manifest::{Entry, Manifest, chunk_id, chunk_key};
use super::vector::{OpenOutcome, VectorIndex};
use crate::error::{Error, IoResultExt};
use crate::model::MemoryName;
use crate::vault::{Memory, Vault};

/// How long a writer waits for another process's index lock before giving up.
pub const LOCK_TIMEOUT: Duration = Duration::from_secs(60);

/// Errors of the derived indices.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The keyword index failed.
    #[error(transparent)]
    Keyword(#[from] KeywordError),
    /// The vector index failed.
    #[error(transparent)]
    Vector(#[from] super::vector::VectorError),
    /// The graph failed.
    #[error(transparent)]
    Graph(#[from] super::graph::GraphError),
    /// Another process held the lock too long.
    #[error(
        "another memlane process has held the index lock {} for over {} s\n  hint: wait for it to finish (a reindex of a large vault can take a while) and run the command again",
        .0.display(), LOCK_TIMEOUT.as_secs()
    )]
    LockTimeout(PathBuf),
    /// The embedder failed.
    #[error("the embedder failed: {0}")]
    Embed(String),
    /// Reading the indices failed inside the search library, even after they were rebuilt.
    #[error(
        "the search indices in {} cannot be read, even rebuilt from the memory files\n  hint: delete that folder and run `memlane reindex`; if this persists, please report it",
        .0.display()
    )]
    Unreadable(PathBuf),
}

/// What a reconcile or rebuild did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ReconcileReport {
    /// Memories indexed for the first time.
    pub added: usize,
    /// Memories re-indexed because they changed.
    pub updated: usize,
    /// Memories removed from the indices.
    pub removed: usize,
    /// Memories checked and found unchanged.
    pub unchanged: usize,
    /// Chunks embedded and indexed.
    pub chunks: usize,
    /// Why everything was rebuilt, when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rebuilt: Option<String>,
    /// What was damaged in the indices, when this pass rebuilt them because of it (callers warn).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repaired: Option<String>,
    /// Files that could not be indexed, with the reason.
    pub problems: Vec<String>,
    /// Why the indices on disk could not be brought up to date (a read-only vault, a full
    /// disk), when this pass built them in memory instead, for this process only (callers warn).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_saved: Option<String>,
    /// Ids of the memories indexed for the first time (the lifecycle starts their clocks).
    #[serde(skip)]
    pub added_ids: Vec<String>,
    /// Names of the memories (re)indexed in this pass (added or updated), in indexing order.
    #[serde(skip)]
    pub indexed: Vec<String>,
    /// Names of the memories removed from the indices in this pass.
    #[serde(skip)]
    pub removed_names: Vec<String>,
    /// Wall time in milliseconds.
    pub elapsed_ms: u64,
}

impl ReconcileReport {
    /// Whether anything was written.
    pub fn changed(&self) -> bool {
        self.added + self.updated + self.removed > 0 || self.rebuilt.is_some()
    }
}

/// Progress of long work, for a progress bar.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// Chunks done.
    pub done: usize,
    /// Chunks in all.
    pub total: usize,
}

/// One memory file as found on disk.
#[derive(Debug, Clone)]
struct Stat {
    name: MemoryName,
    size: u64,
    mtime_ns: i128,
}

/// The three derived stores of one vault.
pub struct Indexes {
    dir: PathBuf,
    keyword: KeywordIndex,
    vector: VectorIndex,
    /// Loaded on first use: most searches never need the whole graph (supersession comes from
    /// the small `supersedes.tsv` beside it).
    graph: std::sync::OnceLock<LinkGraph>,
    supersedes: std::sync::OnceLock<HashMap<String, String>>,
    manifest: Manifest,
    embedder: Arc<dyn Embedder>,
    needs_rebuild: Option<String>,
    /// What was found damaged on open (a store that could not be read, or stores that disagree):
    /// the next reconcile rebuilds and reports it.
    damage: Option<String>,
    /// [`disk_stamp`] of the stores as this process last opened or wrote them: while the files
    /// still match it under the lock, nobody else wrote and a write skips the reopen (a one-shot
    /// command as well as a long-lived watcher or server).
    written: Option<Vec<FileStamp>>,
    /// Vector key → (memory, chunk ordinal), built on first use (a search needs it, most other
    /// commands never do: ≈ 20k entries at 10k memories).
    keys: std::sync::OnceLock<KeyMap>,
    /// How often [`Indexes::key_owners`] ran before the key map existed.
    owner_scans: std::sync::atomic::AtomicUsize,
    /// Built in memory from the files because the indices on disk could not be written
    /// ([`Indexes::open_reconciled`]): reconciles update it in memory and never touch the disk.
    ephemeral: bool,
    /// In memory, but read from the indices on disk (which were current when opened): the
    /// first change rebuilds it from the files (the vectors are a read-only map of the file).
    snapshot: bool,
}

/// Vector keys are already xxh3 hashes: hashing them again is wasted work.
type KeyMap = HashMap<u64, (String, usize), std::hash::BuildHasherDefault<KeyHasher>>;

/// The identity hasher of [`KeyMap`] and [`KeySet`].
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

/// A set of vector keys (already hashes: not hashed again).
pub(crate) type KeySet = HashSet<u64, std::hash::BuildHasherDefault<KeyHasher>>;

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

impl std::fmt::Debug for Indexes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Indexes").field("dir", &self.dir).finish_non_exhaustive()
    }
}

/// An exclusive lock on a vault's indices, released on drop (or when the process dies).
struct WriteLock {
    _file: std::fs::File,
}

fn lock(dir: &Path) -> crate::Result<WriteLock> {
    let path = dir.join("write.lock");
    match crate::error::lock_file(&path, LOCK_TIMEOUT, Duration::from_millis(20))? {
        Some(file) => Ok(WriteLock { _file: file }),
        None => Err(IndexError::LockTimeout(path).into()),
    }
}

impl Indexes {
    /// The indices folder of a vault.
    pub fn dir_of(vault: &Vault) -> PathBuf {
        vault.root().join("indices")
    }

    /// Deletes the derived stores of `vault` (keyword, vector, graph, manifest) under the index
    /// lock, whatever state they are in, so the next open starts from nothing: what `reindex`
    /// does first, since a store damaged inside a file (not just missing or truncated) can make
    /// the search library fail or panic when it reads it.
    pub fn reset(vault: &Vault) -> crate::Result<()> {
        let dir = Self::dir_of(vault);
        if !dir.is_dir() {
            return Ok(());
        }
        let _lock = lock(&dir)?;
        for sub in ["keyword", "vector", "graph"] {
            remove_damaged(&dir.join(sub))?;
        }
        for file in ["manifest.tsv", PENDING_FILE, VERIFIED_FILE] {
            let path = dir.join(file);
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(
                        crate::error::PathError { action: "remove", path, source: e }.into()
                    );
                }
            }
        }
        Ok(())
    }

    /// Opens the indices of `vault` and brings them up to date with the files, for a command
    /// that only reads: when the indices on disk cannot be written (a read-only vault or file
    /// system, a full disk, no permission), they are built in memory from the files instead, for
    /// this process only, and the report's [`not_saved`](ReconcileReport::not_saved) says why.
    /// Nothing is written into the vault then. Indices that need no update are only read.
    pub fn open_reconciled(
        vault: &Vault,
        embedder: Arc<dyn Embedder>,
    ) -> crate::Result<(Indexes, ReconcileReport)> {
        let on_disk = Self::open(vault, embedder.clone())
            .and_then(|mut idx| idx.reconcile(vault).map(|report| (idx, report)));
        match on_disk {
            Ok(done) => Ok(done),
            Err(e) => match unwritable(&e as &(dyn std::error::Error + 'static)) {
                Some(why) => {
                    tracing::debug!(error = %e, "indices not writable; reading without writing");
                    if let Some(idx) = Self::current_read_only(vault, embedder.clone())? {
                        let report = ReconcileReport {
                            unchanged: idx.manifest.entries.len(),
                            not_saved: Some(why),
                            ..Default::default()
                        };
                        return Ok((idx, report));
                    }
                    let mut idx = Self::in_memory(vault, embedder)?;
                    let mut report = idx.reconcile(vault)?;
                    // Nothing was indexed for good: their usage clocks start when it is.
                    report.added_ids.clear();
                    report.not_saved = Some(why);
                    Ok((idx, report))
                }
                None => Err(e),
            },
        }
    }

    /// Empty indices held in memory (a reconcile fills them from the files and never writes).
    fn in_memory(vault: &Vault, embedder: Arc<dyn Embedder>) -> crate::Result<Indexes> {
        let keyword = KeywordIndex::create_in_ram().map_err(IndexError::from)?;
        let vector = VectorIndex::create_in_memory(embedder.id(), embedder.dim())
            .map_err(IndexError::from)?;
        Ok(Indexes {
            dir: Self::dir_of(vault),
            keyword,
            vector,
            graph: std::sync::OnceLock::from(LinkGraph::new()),
            supersedes: std::sync::OnceLock::from(HashMap::new()),
            manifest: Manifest::default(),
            embedder,
            needs_rebuild: Some("the indices on disk cannot be written".to_owned()),
            damage: None,
            written: None,
            keys: std::sync::OnceLock::new(),
            owner_scans: std::sync::atomic::AtomicUsize::new(0),
            ephemeral: true,
            snapshot: false,
        })
    }

    /// The indices on disk, read without writing anything, when they are intact and need no
    /// update (the stat pass finds no change); `None` otherwise.
    fn current_read_only(
        vault: &Vault,
        embedder: Arc<dyn Embedder>,
    ) -> crate::Result<Option<Indexes>> {
        let dir = Self::dir_of(vault);
        if dir.join(PENDING_FILE).exists()
            || !dir.join("graph").join(super::graph::FILE).is_file()
            || !dir.join("graph").join(SUPERSEDES_FILE).is_file()
        {
            return Ok(None);
        }
        let Some(manifest) = Manifest::load(&dir.join("manifest.tsv")) else { return Ok(None) };
        if manifest.embedder_id != embedder.id() || manifest.dim != embedder.dim() {
            return Ok(None);
        }
        let keyword = match KeywordIndex::open_copy_in_ram(&dir.join("keyword")) {
            Ok(k) => k,
            Err(e) => {
                tracing::debug!(error = %error_chain(&e), "cannot read the keyword index");
                return Ok(None);
            }
        };
        let vector =
            match VectorIndex::open_read_only(&dir.join("vector"), embedder.id(), embedder.dim()) {
                Ok(OpenOutcome::Ready(v)) => v,
                Ok(OpenOutcome::NeedsRebuild { reason }) => {
                    tracing::debug!(reason, "cannot use the vector index");
                    return Ok(None);
                }
                Err(e) => {
                    tracing::debug!(error = %error_chain(&e), "cannot read the vector index");
                    return Ok(None);
                }
            };
        let total = manifest.total_chunks();
        if vector.len() != total || keyword.num_chunks() as usize != total {
            return Ok(None);
        }
        let idx = Indexes {
            dir,
            keyword,
            vector,
            graph: std::sync::OnceLock::new(),
            supersedes: std::sync::OnceLock::new(),
            manifest,
            embedder,
            needs_rebuild: None,
            damage: None,
            written: None,
            keys: std::sync::OnceLock::new(),
            owner_scans: std::sync::atomic::AtomicUsize::new(0),
            ephemeral: true,
            snapshot: true,
        };
        let (changed, removed, _) = idx.diff(&Self::stat_vault(vault)?);
        Ok((changed.is_empty() && removed.is_empty()).then_some(idx))
    }

    /// Whether these indices live in memory only (see [`Indexes::open_reconciled`]).
    pub fn is_in_memory(&self) -> bool {
        self.ephemeral
    }

    /// The last line of defence when reading the indices failed inside the search library (a
    /// panic on damage the checks on open did not see): deletes the stores, reopens and rebuilds
    /// them from the files. The report's `repaired` says why (callers warn).
    pub fn rebuild_after_failure(
        vault: &Vault,
        embedder: Arc<dyn Embedder>,
    ) -> crate::Result<(Indexes, ReconcileReport)> {
        Self::reset(vault)?;
        let mut idx = Self::open(vault, embedder)?;
        idx.damage = Some(format!(
            "the search indices in {} could not be read",
            Self::dir_of(vault).display()
        ));
        let report = idx.reconcile(vault)?;
        Ok((idx, report))
    }

    /// Opens (or creates) the indices of `vault` for `embedder`. Nothing is re-indexed here; call
    /// [`Indexes::reconcile`].
    pub fn open(vault: &Vault, embedder: Arc<dyn Embedder>) -> crate::Result<Indexes> {
        Self::open_mode(vault, embedder, true)
    }

    /// Opens for reading (`read_only`: the vector file is memory-mapped, cheap at any size) or
    /// for writing (loaded into memory; only under the write lock).
    fn open_mode(
        vault: &Vault,
        embedder: Arc<dyn Embedder>,
        read_only: bool,
    ) -> crate::Result<Indexes> {
        let t0 = Instant::now();
        let dir = Self::dir_of(vault);
        std::fs::create_dir_all(&dir).at("create", &dir)?;
        // Taken before anything is read: a write by anyone after it changes it.
        let stamp = disk_stamp(&dir);
        let mut needs_rebuild = None;
        let mut damage: Option<String> = None;
        let manifest_path = dir.join("manifest.tsv");
        let manifest = match Manifest::load(&manifest_path) {
            Some(m) if m.embedder_id == embedder.id() && m.dim == embedder.dim() => m,
            Some(m) => {
                needs_rebuild = Some(format!(
                    "the vector index was built with {} ({} dimensions); now using {} ({})",
                    m.embedder_id,
                    m.dim,
                    embedder.id(),
                    embedder.dim()
                ));
                Manifest::default()
            }
            None if manifest_path.exists() => {
                damage = Some("the manifest is unreadable".to_owned());
                needs_rebuild = damage.clone();
                Manifest::default()
            }
            None => {
                needs_rebuild = Some("no index yet".to_owned());
                Manifest::default()
            }
        };
        // An index that existed and matched the embedder: anything unreadable below is damage.
        let existed = needs_rebuild.is_none();
        if dir.join(PENDING_FILE).exists() && (!read_only || lock_is_free(&dir)) {
            // A writer died between its first and last index file (see: #6). A live writer
            // still holds the lock: readers then use what is there, as during any write.
            needs_rebuild = Some("an earlier index update was interrupted".to_owned());
        }
        let t_manifest = t0.elapsed();
        // Loaded on first use in both modes: a write that changes no link never needs it.
        let graph = std::sync::OnceLock::new();
        // Bytes damaged inside a store file (not just a file missing or cut short) make the
        // search library fail or panic as it opens or searches it: check the content of every
        // keyword segment file and of the graph not checked since it last changed (a write
        // adds a few), before anything opens them.
        if existed && needs_rebuild.is_none() && check_stores(&dir, &graph).is_err() {
            // A writer may be replacing the files right now: look again under its lock.
            let _lock = if read_only { Some(lock(&dir)?) } else { None };
            if let Err(found) = check_stores(&dir, &graph) {
                if found.keyword {
                    remove_damaged(&dir.join("keyword"))?;
                }
                damage = Some(found.words.clone());
                needs_rebuild = Some(found.words);
            }
        }
        let opened = catch_index_panic(|| KeywordIndex::open_or_create(&dir.join("keyword")));
        let keyword = match opened {
            // The search library panicked on damage the checks above did not see (a file whose
            // bytes changed but not its size or time): derived data, rebuilt from the files.
            None => {
                let _lock = if read_only { Some(lock(&dir)?) } else { None };
                let kdir = dir.join("keyword");
                remove_damaged(&kdir)?;
                let why = format!("the keyword index in {} is corrupt", kdir.display());
                damage.get_or_insert_with(|| why.clone());
                needs_rebuild = Some(why);
                KeywordIndex::open_or_create(&kdir).map_err(IndexError::from)?
            }
            Some(opened) => match opened {
                Ok(k) => k,
                // A store that cannot be written (a read-only vault, a full disk) is not
                // damaged: the caller reads from the files instead (see `open_reconciled`).
                Err(e) if unwritable_source(&e).is_some() => {
                    return Err(IndexError::from(e).into());
                }
                Err(
                    e @ (KeywordError::SchemaMismatch { .. }
                    | KeywordError::Open { .. }
                    | KeywordError::Tantivy { .. }),
                ) => {
                    // Built by another memlane version or damaged (a segment file missing or
                    // truncated): start over under the lock (a writer's reopen already holds it,
                    // and OS locks do not nest). It is derived data: the files rebuild it.
                    let _lock = if read_only { Some(lock(&dir)?) } else { None };
                    let kdir = dir.join("keyword");
                    // A `reindex` may have been replacing it: under the lock, look again.
                    let again = (read_only && !matches!(e, KeywordError::SchemaMismatch { .. }))
                        .then(|| catch_index_panic(|| KeywordIndex::open_or_create(&kdir)))
                        .flatten()
                        .and_then(Result::ok);
                    if let Some(k) = again {
                        k
                    } else {
                        remove_damaged(&kdir)?;
                        tracing::debug!(error = %error_chain(&e), "cannot open the keyword index");
                        let why = keyword_damage_words(&kdir, &e);
                        if !matches!(e, KeywordError::SchemaMismatch { .. }) {
                            damage.get_or_insert_with(|| why.clone());
                        }
                        needs_rebuild = Some(why);
                        KeywordIndex::open_or_create(&kdir).map_err(IndexError::from)?
                    }
                }
                Err(e) => return Err(IndexError::from(e).into()),
            },
        };
        let t_keyword = t0.elapsed();
        let vdir = dir.join("vector");
        let opened = if read_only {
            VectorIndex::open_read_only(&vdir, embedder.id(), embedder.dim())
        } else {
            VectorIndex::open_for_update(&vdir, embedder.id(), embedder.dim())
        };
        let vector = match opened {
            Ok(OpenOutcome::Ready(v)) => v,
            Ok(OpenOutcome::NeedsRebuild { reason }) => {
                if existed {
                    damage.get_or_insert_with(|| reason.clone());
                }
                needs_rebuild.get_or_insert(reason);
                VectorIndex::create(&vdir, embedder.id(), embedder.dim())
                    .map_err(IndexError::from)?
            }
            Err(e) if unwritable_source(&e).is_some() => return Err(IndexError::from(e).into()),
            Err(e) => {
                // Unreadable: derived data, rebuilt from the files.
                let why = format!("the vector index was unreadable ({e})");
                damage.get_or_insert_with(|| why.clone());
                needs_rebuild.get_or_insert(why);
                let _lock = if read_only { Some(lock(&dir)?) } else { None };
                remove_damaged(&vdir)?;
                VectorIndex::create(&vdir, embedder.id(), embedder.dim())
                    .map_err(IndexError::from)?
            }
        };
        let gdir = dir.join("graph");
        if gdir.symlink_metadata().is_ok_and(|m| !m.is_dir()) {
            // Something else where the graph's folder belongs: nothing could be saved there.
            let why = format!("{} is not a folder", gdir.display());
            if existed {
                damage.get_or_insert_with(|| why.clone());
            }
            needs_rebuild.get_or_insert(why);
            let _lock = if read_only { Some(lock(&dir)?) } else { None };
            remove_damaged(&gdir)?;
        }
        if !dir.join("graph").join(super::graph::FILE).is_file()
            || !dir.join("graph").join(SUPERSEDES_FILE).is_file()
        {
            needs_rebuild.get_or_insert_with(|| "no link graph yet".to_owned());
        }
        let mut idx = Indexes {
            dir,
            keyword,
            vector,
            graph,
            supersedes: std::sync::OnceLock::new(),
            manifest,
            embedder,
            needs_rebuild,
            damage,
            written: Some(stamp),
            keys: std::sync::OnceLock::new(),
            owner_scans: std::sync::atomic::AtomicUsize::new(0),
            ephemeral: false,
            snapshot: false,
        };
        if idx.needs_rebuild.is_none() {
            let total = idx.manifest.total_chunks();
            if idx.vector.len() != total || idx.keyword.num_chunks() as usize != total {
                let why = format!(
                    "the indices disagree with the manifest ({} keyword and {} vector chunks, {} expected)",
                    idx.keyword.num_chunks(),
                    idx.vector.len(),
                    total
                );
                idx.damage = Some(why.clone());
                idx.needs_rebuild = Some(why);
            }
        }
        tracing::debug!(
            manifest_ms = t_manifest.as_secs_f64() * 1e3,
            keyword_ms = (t_keyword - t_manifest).as_secs_f64() * 1e3,
            total_ms = t0.elapsed().as_secs_f64() * 1e3,
            "opened indices"
        );
        Ok(idx)
    }

    fn rebuild_keys(&mut self) {
        self.keys = std::sync::OnceLock::new();
    }

    fn keys(&self) -> &KeyMap {
        self.keys.get_or_init(|| {
            let start = Instant::now();
            let mut keys = KeyMap::default();
            keys.reserve(self.manifest.total_chunks());
            for (name, e) in &self.manifest.entries {
                for ord in 0..e.chunks {
                    keys.insert(chunk_key(name, ord), (name.clone(), ord));
                }
            }
            tracing::debug!(ms = start.elapsed().as_secs_f64() * 1e3, "built the vector key map");
            keys
        })
    }

    /// The keyword index.
    pub fn keyword(&self) -> &KeywordIndex {
        &self.keyword
    }

    /// The vector index.
    pub fn vector(&self) -> &VectorIndex {
        &self.vector
    }

    /// The manifest (metadata of every indexed memory).
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The memory graph (links, ghosts, entities), loaded on first use. A graph file that cannot
    /// be read gives an empty graph (logged); the next reconcile that writes rebuilds it.
    pub fn graph(&self) -> &LinkGraph {
        self.graph.get_or_init(|| match LinkGraph::load(&self.dir.join("graph")) {
            Ok(Some(g)) => g,
            Ok(None) => LinkGraph::new(),
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the link graph; treating it as empty");
                LinkGraph::new()
            }
        })
    }

    fn graph_mut(&mut self) -> &mut LinkGraph {
        self.graph();
        self.graph.get_mut().expect("initialised just above")
    }

    /// The memory that supersedes `name` through a `supersedes` link, if any (from the small
    /// `graph/supersedes.tsv`, without loading the graph).
    pub fn superseded_by_link(&self, name: &str) -> Option<&str> {
        self.supersedes
            .get_or_init(|| {
                let text = std::fs::read_to_string(self.dir.join("graph").join(SUPERSEDES_FILE))
                    .unwrap_or_default();
                text.lines()
                    .filter_map(|l| l.split_once('\t'))
                    .map(|(old, new)| (old.to_owned(), new.to_owned()))
                    .collect()
            })
            .get(name)
            .map(String::as_str)
    }

    /// The embedder the vectors were built with.
    pub fn embedder(&self) -> &Arc<dyn Embedder> {
        &self.embedder
    }

    /// The memory name and chunk ordinal of a vector key.
    pub fn key_owner(&self, key: u64) -> Option<&(String, usize)> {
        self.keys().get(&key)
    }

    /// [`key_owner`](Self::key_owner) of a few keys (a search's vector hits), as
    /// `(memory, chunk ordinal)`. The first call on a fresh `Indexes` finds them by hashing every
    /// chunk's key without building the key map (≈ 10× cheaper, what a one-shot CLI search
    /// needs); later calls build the map once and look up (a long-running server).
    pub fn key_owners(&self, keys: &[u64]) -> Vec<Option<(&str, usize)>> {
        if self.keys.get().is_some()
            || self.owner_scans.fetch_add(1, std::sync::atomic::Ordering::Relaxed) > 0
        {
            let map = self.keys();
            return keys
                .iter()
                .map(|k| map.get(k).map(|(name, ord)| (name.as_str(), *ord)))
                .collect();
        }
        let wanted: HashMap<u64, usize> = keys.iter().enumerate().map(|(i, k)| (*k, i)).collect();
        let mut out = vec![None; keys.len()];
        let mut left = wanted.len();
        'scan: for (name, e) in &self.manifest.entries {
            for ord in 0..e.chunks {
                if let Some(&i) = wanted.get(&chunk_key(name, ord)) {
                    out[i] = Some((name.as_str(), ord));
                    left -= 1;
                    if left == 0 {
                        break 'scan;
                    }
                }
            }
        }
        // A key given twice: the first slot was filled; copy it to the others.
        for (i, k) in keys.iter().enumerate() {
            if out[i].is_none() && wanted[k] != i {
                out[i] = out[wanted[k]];
            }
        }
        out
    }

    /// The indices folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn stat_vault(vault: &Vault) -> crate::Result<Vec<Stat>> {
        Ok(vault
            .files()?
            .into_iter()
            .map(|f| Stat { name: f.name, size: f.size, mtime_ns: f.mtime_ns })
            .collect())
    }

    /// Brings the indices up to date with the files: cheap when nothing changed.
    pub fn reconcile(&mut self, vault: &Vault) -> crate::Result<ReconcileReport> {
        self.reconcile_with(vault, false, false, &mut |_| {})
    }

    /// Like [`Indexes::reconcile`], but also reads every file whose stat is unchanged and
    /// compares its content hash with the manifest (an edit that kept size and mtime is found).
    /// Costs a read of the whole vault; the watcher runs it once on start.
    pub fn reconcile_verify(&mut self, vault: &Vault) -> crate::Result<ReconcileReport> {
        self.reconcile_with(vault, false, true, &mut |_| {})
    }

    /// Rebuilds everything from the files.
    pub fn rebuild(
        &mut self,
        vault: &Vault,
        progress: &mut dyn FnMut(Progress),
    ) -> crate::Result<ReconcileReport> {
        self.reconcile_with(vault, true, false, progress)
    }

    /// The files whose stat matches the manifest but whose content hash does not.
    fn hash_mismatches(&self, vault: &Vault, stats: &[Stat]) -> Vec<Stat> {
        stats
            .iter()
            .filter(|s| {
                let Some(e) = self.manifest.entries.get(s.name.as_str()) else { return false };
                if e.size != s.size || e.mtime_ns != s.mtime_ns {
                    return false; // already a candidate
                }
                std::fs::read(vault.path_of(&s.name))
                    .is_ok_and(|b| format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&b)) != e.hash)
            })
            .cloned()
            .collect()
    }

    /// Files new or changed by their stat, names no longer on disk, and the unchanged count.
    /// `stats` is sorted by name ([`Vault::files`]), like the manifest: one merge pass.
    fn diff(&self, stats: &[Stat]) -> (Vec<Stat>, Vec<String>, usize) {
        debug_assert!(stats.windows(2).all(|w| w[0].name < w[1].name));
        let mut maybe_changed = Vec::new();
        let mut removed = Vec::new();
        let mut unchanged = 0;
        let mut entries = self.manifest.entries.iter().peekable();
        for s in stats {
            while let Some((name, _)) = entries.next_if(|(n, _)| n.as_str() < s.name.as_str()) {
                removed.push(name.clone());
            }
            match entries.next_if(|(n, _)| n.as_str() == s.name.as_str()) {
                Some((_, e)) if e.size == s.size && e.mtime_ns == s.mtime_ns => unchanged += 1,
                _ => maybe_changed.push(s.clone()),
            }
        }
        removed.extend(entries.map(|(name, _)| name.clone()));
        (maybe_changed, removed, unchanged)
    }

    fn reconcile_with(
        &mut self,
        vault: &Vault,
        force: bool,
        verify: bool,
        progress: &mut dyn FnMut(Progress),
    ) -> crate::Result<ReconcileReport> {
        let start = Instant::now();
        let stats = Self::stat_vault(vault)?;
        let t_stat = start.elapsed();
        let (mut maybe_changed, removed, mut unchanged) = self.diff(&stats);
        if verify && !force {
            let stale = self.hash_mismatches(vault, &stats);
            unchanged -= stale.len();
            maybe_changed.extend(stale);
        }
        tracing::debug!(
            files = stats.len(),
            stat_ms = t_stat.as_secs_f64() * 1e3,
            diff_ms = (start.elapsed() - t_stat).as_secs_f64() * 1e3,
            "reconcile checked the vault"
        );
        if !force && self.needs_rebuild.is_none() && maybe_changed.is_empty() && removed.is_empty()
        {
            return Ok(ReconcileReport { unchanged, ..Default::default() });
        }
        if self.snapshot {
            // Read from disk and now out of date: rebuilt in memory from the files.
            self.snapshot = false;
            self.needs_rebuild
                .get_or_insert_with(|| "the indices on disk cannot be written".into());
        }
        let _lock = if self.ephemeral { None } else { Some(lock(&self.dir)?) };
        let t_lock = start.elapsed();
        // Another process may have done the work while we waited: start from the newest state,
        // unless the stores are still exactly what this process last wrote (a long-lived
        // watcher or server then skips reloading the vectors and the graph).
        let known = self.written.take();
        if self.ephemeral {
            // Nothing on disk to reload: the stores live in this process only.
        } else if known.is_none()
            || known != Some(disk_stamp(&self.dir))
            || self.dir.join(PENDING_FILE).exists()
        {
            let fresh = Indexes::open_mode(vault, self.embedder.clone(), false)?;
            let earlier = self.damage.take();
            *self = fresh;
            self.damage = earlier.or(self.damage.take());
        } else {
            // What this process opened read-only is still what is on disk: write on top of it.
            self.vector.allow_updates();
        }
        let t_open = start.elapsed();
        let rebuild = if force { Some("requested".to_owned()) } else { self.needs_rebuild.take() };
        let mut report = ReconcileReport::default();
        let (mut maybe_changed, removed, mut unchanged) =
            if rebuild.is_some() { (stats.clone(), Vec::new(), 0) } else { self.diff(&stats) };
        if verify && rebuild.is_none() {
            let stale = self.hash_mismatches(vault, &stats);
            unchanged -= stale.len();
            maybe_changed.extend(stale);
        }
        if rebuild.is_none() && maybe_changed.is_empty() && removed.is_empty() {
            // Another process did the work while we waited for the lock: nothing to write.
            self.written = (!self.ephemeral).then(|| disk_stamp(&self.dir));
            return Ok(ReconcileReport {
                unchanged,
                elapsed_ms: start.elapsed().as_millis() as u64,
                ..Default::default()
            });
        }
        let mut rebuild = rebuild;
        let mut removed = removed;
        report.unchanged = unchanged;

        // Read, hash and chunk every candidate before any store is touched.
        struct Pending {
            name: String,
            memory: Memory,
            entry: Entry,
            chunks: Vec<super::chunk::Chunk>,
            links: Vec<OutLink>,
            existed: bool,
            /// Whether its links differ from those in the graph (by the manifest's hash).
            relink: bool,
        }
        let on_disk: HashSet<String> = stats.iter().map(|s| s.name.to_string()).collect();
        let is_memory = |n: &str| on_disk.contains(n);
        let pending: Vec<Pending> = loop {
            if rebuild.is_some() {
                self.manifest = Manifest::default();
            }
            self.manifest.format = super::manifest::FORMAT;
            self.manifest.embedder_id = self.embedder.id().to_owned();
            self.manifest.dim = self.embedder.dim();
            let mut pending: Vec<Pending> = Vec::new();
            for s in &maybe_changed {
                let path = vault.path_of(&s.name);
                let bytes = match std::fs::read(&path) {
                    Ok(b) => b,
                    Err(e) => {
                        report.problems.push(format!("{}: cannot read: {e}", s.name));
                        continue;
                    }
                };
                let hash = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes));
                let old = self.manifest.entries.get(s.name.as_str());
                if let Some(old) = old.filter(|o| o.hash == hash) {
                    // Touched, not changed: remember the new stat only.
                    let mut e = old.clone();
                    e.size = s.size;
                    e.mtime_ns = s.mtime_ns;
                    self.manifest.entries.insert(s.name.to_string(), e);
                    report.unchanged += 1;
                    continue;
                }
                let Ok(raw) = String::from_utf8(bytes) else {
                    report.problems.push(format!("{}: not UTF-8 text; not indexed", s.name));
                    continue;
                };
                let memory = match vault.memory_from_text(s.name.clone(), path, raw) {
                    Ok(m) => m,
                    Err(e) => {
                        report.problems.push(format!("{}: {e}", s.name));
                        continue;
                    }
                };
                let content = memory.redacted_content(vault.config.privacy.scrub_secrets);
                let chunks = chunk_markdown(&content, &ChunkOptions::default());
                let title = markdown_title(&content)
                    .unwrap_or_else(|| memory.name.file_stem().replace(['-', '_'], " "));
                let links = memory_links(&memory, &content, &is_memory);
                let links_hash = links_hash(&links);
                let entry = Entry {
                    size: s.size,
                    mtime_ns: s.mtime_ns,
                    hash,
                    id: memory.id.to_string(),
                    chunks: chunks.len(),
                    title,
                    memory_type: memory.memory_type.clone(),
                    status: memory.status.clone(),
                    tags: memory.meta.tags.clone(),
                    created: memory.created_at.as_second(),
                    updated: memory.updated_at.as_second(),
                    pinned: memory.meta.pinned,
                    superseded_by: memory.meta.superseded_by.clone(),
                    expires_at: memory.meta.expires_at.map(|t| t.as_second()),
                    happens_at: memory.meta.happens_at.map(|t| t.as_second()),
                    warnings: memory.warnings.clone(),
                    links: links_hash,
                };
                pending.push(Pending {
                    name: s.name.to_string(),
                    memory,
                    entry,
                    chunks,
                    links,
                    existed: old.is_some(),
                    relink: old.is_none_or(|o| o.links != links_hash),
                });
            }
            // The graph is needed only when a link changes (or a memory comes or goes).
            let needs_graph = rebuild.is_none()
                && (!removed.is_empty() || pending.iter().any(|p| p.relink))
                && self.graph.get().is_none();
            if needs_graph {
                match LinkGraph::load(&self.dir.join("graph")).map_err(IndexError::from)? {
                    Some(g) => {
                        let _ = self.graph.set(g);
                    }
                    None => {
                        // Unreadable: rebuild everything from the files instead.
                        rebuild = Some("the link graph was unreadable".to_owned());
                        maybe_changed = stats.clone();
                        removed.clear();
                        report = ReconcileReport::default();
                        continue;
                    }
                }
            }
            break pending;
        };
        let graph_changed =
            rebuild.is_some() || !removed.is_empty() || pending.iter().any(|p| p.relink);
        if rebuild.is_none() && removed.is_empty() && pending.is_empty() {
            // Only touched files: their new stats are the whole change.
            if !self.ephemeral {
                self.manifest.save(&self.dir.join("manifest.tsv"))?;
                self.written = Some(disk_stamp(&self.dir));
            }
            report.elapsed_ms = start.elapsed().as_millis() as u64;
            return Ok(report);
        }

        let small = rebuild.is_none() && pending.len() + removed.len() <= SMALL_CHANGE;
        let mut kw = if small { self.keyword.small_writer() } else { self.keyword.writer() }
            .map_err(IndexError::from)?;
        if rebuild.is_some() {
            self.graph = std::sync::OnceLock::from(LinkGraph::new());
            kw.delete_all().map_err(IndexError::from)?;
            self.vector = if self.ephemeral {
                VectorIndex::create_in_memory(self.embedder.id(), self.embedder.dim())
            } else {
                VectorIndex::create(
                    &self.dir.join("vector"),
                    self.embedder.id(),
                    self.embedder.dim(),
                )
            }
            .map_err(IndexError::from)?;
        }
        for name in &removed {
            if let Some(old) = self.manifest.entries.remove(name) {
                kw.delete_memory(name);
                for ord in 0..old.chunks {
                    self.vector.remove(chunk_key(name, ord)).map_err(IndexError::from)?;
                }
                self.graph_mut().remove_memory(&format!("memory:{name}"));
                report.removed += 1;
                report.removed_names.push(name.clone());
            }
        }

        let total: usize = pending.iter().map(|p| p.chunks.len()).sum();
        let batch = 32;
        let mut done = 0;
        progress(Progress { done, total });
        for p in &pending {
            if let Some(old) = self.manifest.entries.get(&p.name) {
                kw.delete_memory(&p.name);
                for ord in 0..old.chunks {
                    self.vector.remove(chunk_key(&p.name, ord)).map_err(IndexError::from)?;
                }
            }
            let texts: Vec<String> = p
                .chunks
                .iter()
                .map(|c| embed_text(&p.entry.title, &c.header_path, &c.text))
                .collect();
            for (i, part) in texts.chunks(batch).enumerate() {
                let refs: Vec<&str> = part.iter().map(String::as_str).collect();
                let vectors = self.embedder.embed_batch(&refs);
                if vectors.len() != refs.len() {
                    return Err(IndexError::Embed(format!(
                        "{} vectors for {} texts",
                        vectors.len(),
                        refs.len()
                    ))
                    .into());
                }
                for (j, v) in vectors.iter().enumerate() {
                    let ord = i * batch + j;
                    self.vector.upsert(chunk_key(&p.name, ord), v).map_err(IndexError::from)?;
                }
                done += refs.len();
                progress(Progress { done, total });
            }
            for c in &p.chunks {
                let id = chunk_id(&p.name, c.ordinal);
                kw.add(&KeywordDoc {
                    chunk_id: &id,
                    memory_id: &p.name,
                    title: &p.entry.title,
                    headers: &c.header_path,
                    body: &c.text,
                    tags: &p.memory.meta.tags,
                    memory_type: &p.entry.memory_type,
                    status: &p.entry.status,
                    created_unix: p.entry.created,
                })
                .map_err(IndexError::from)?;
            }
            if p.relink || rebuild.is_some() {
                self.graph_mut().set_links(&format!("memory:{}", p.name), &p.links, LINK_ORIGINS);
            }
            report.chunks += p.chunks.len();
            report.indexed.push(p.name.clone());
            if p.existed {
                report.updated += 1;
            } else {
                report.added += 1;
                report.added_ids.push(p.entry.id.clone());
            }
            self.manifest.entries.insert(p.name.clone(), p.entry.clone());
        }
        if rebuild.is_some() {
            report.added = pending.len();
            report.updated = 0;
        }
        // A new memory turns earlier links to a ghost of its name into links to itself.
        let added_names: Vec<&String> =
            pending.iter().filter(|p| !p.existed).map(|p| &p.name).collect();
        let mut relink: Vec<String> = Vec::new();
        for name in added_names {
            for ghost in [format!("ghost:{name}"), format!("ghost:{name}.md")] {
                for (src, _) in self.graph().memories_linking_to(&ghost) {
                    relink.push(src);
                }
            }
        }
        relink.sort();
        relink.dedup();
        for key in relink {
            let Some(name) = key.strip_prefix("memory:") else { continue };
            let Ok(mname) = MemoryName::parse(name) else { continue };
            let Ok(memory) = vault.load(&mname) else { continue };
            let content = memory.redacted_content(vault.config.privacy.scrub_secrets);
            let links = memory_links(&memory, &content, &is_memory);
            self.graph_mut().set_links(&key, &links, LINK_ORIGINS);
            if let Some(e) = self.manifest.entries.get_mut(name) {
                e.links = links_hash(&links);
            }
        }
        let t_index = start.elapsed();
        // Until the manifest is saved, the stores may disagree with it and with each other: a
        // crash in between leaves this marker, and the next open rebuilds (see: #6).
        let pending = self.dir.join(PENDING_FILE);
        let disk = !self.ephemeral;
        if disk {
            crate::vault::atomic_write(&pending, b"an index update is being written\n")?;
        }
        kw.commit().map_err(IndexError::from)?;
        // No merge of this writer may outlive the lock (see `KeywordWriter::finish`).
        kw.finish().map_err(IndexError::from)?;
        let t_keyword = start.elapsed();
        if disk && (self.vector.has_unsaved_changes() || rebuild.is_some()) {
            self.vector.save().map_err(IndexError::from)?;
        }
        let t_vector = start.elapsed();
        if graph_changed {
            if disk {
                self.graph().save(&self.dir.join("graph")).map_err(IndexError::from)?;
            }
            self.save_supersedes()?;
            // Written from a graph in memory: its content needs no check by the next reader.
            record_verified(&self.dir, GRAPH_REL);
        }
        let t_graph = start.elapsed();
        if disk {
            self.manifest.save(&self.dir.join("manifest.tsv"))?;
            std::fs::remove_file(&pending).at("remove", &pending)?;
        }
        self.rebuild_keys();
        self.written = disk.then(|| disk_stamp(&self.dir));
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        tracing::debug!(
            lock_ms = ms(t_lock),
            reopen_ms = ms(t_open - t_lock),
            index_ms = ms(t_index - t_open),
            keyword_commit_ms = ms(t_keyword - t_index),
            vector_save_ms = ms(t_vector - t_keyword),
            graph_save_ms = ms(t_graph - t_vector),
            manifest_save_ms = ms(start.elapsed() - t_graph),
            "reconcile wrote the indices"
        );
        if rebuild.is_some() {
            report.repaired = self.damage.take();
        }
        report.rebuilt = rebuild;
        // A file indexed now that shares its id with another memory (a hand copy) is reported:
        // id-based operations (history, restore) refuse such memories.
        if !report.indexed.is_empty() {
            for (id, names) in self.manifest.duplicate_ids() {
                if names.iter().any(|n| report.indexed.contains(n)) {
                    report.problems.push(duplicate_id_message(&id, &names));
                }
            }
        }
        report.elapsed_ms = start.elapsed().as_millis() as u64;
        Ok(report)
    }
}

/// The problem reported for memories that share an id.
pub fn duplicate_id_message(id: &str, names: &[String]) -> String {
    let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    format!(
        "{} have the same id {id} (a copied file?); history and restore refuse them until the copy gets its own id (remove its `id:` line)",
        list.join(" and ")
    )
}

/// Memories changed in one pass up to which the keyword index is written by one thread with a
/// small memory budget.
const SMALL_CHANGE: usize = 64;

/// xxh3 of a memory's outgoing links (never 0, the "unknown" of an old manifest entry).
fn links_hash(links: &[OutLink]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3Default::new();
    for l in links {
        for part in [&l.target, &l.data.edge_type, &l.data.context, &l.data.origin] {
            h.update(part.as_bytes());
            h.update(&[0]);
        }
        h.update(&l.data.confidence.to_bits().to_le_bytes());
    }
    h.digest().max(1)
}

/// Present in `indices/` while a writer commits the stores (keyword, vector, graph, manifest);
/// left behind only by a writer that died, which makes the next open rebuild.
pub const PENDING_FILE: &str = "pending";

/// Whether no process holds the index lock now (probed without waiting).
fn lock_is_free(dir: &Path) -> bool {
    let Ok(file) = std::fs::OpenOptions::new().write(true).open(dir.join("write.lock")) else {
        return true;
    };
    file.try_lock().is_ok()
}

/// One file of [`disk_stamp`]: path, size, inode (0 off Unix) and mtime.
type FileStamp = (String, u64, u64, i128);

/// The size, inode and mtime of every file of the stores: the top level of `indices/`
/// (manifest, markers), tantivy's `meta.json`, and the vector and graph folders. Any write by
/// another process changes it: every store file is replaced by a rename (a new inode), so even
/// a write within the same mtime tick and of the same size shows.
fn disk_stamp(dir: &Path) -> Vec<FileStamp> {
    let mut out = Vec::new();
    let mut push = |rel: String, meta: std::fs::Metadata| out.push(file_stamp(rel, &meta));
    for sub in ["", "vector", "graph"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else { continue };
        for entry in entries.flatten() {
            // Rewritten by readers (see `check_stores`): no write of the stores.
            if sub.is_empty() && entry.file_name() == VERIFIED_FILE {
                continue;
            }
            if let Ok(meta) = entry.metadata()
                && meta.is_file()
            {
                push(format!("{sub}/{}", entry.file_name().to_string_lossy()), meta);
            }
        }
    }
    if let Ok(meta) = std::fs::metadata(dir.join("keyword").join("meta.json")) {
        push("keyword/meta.json".to_owned(), meta);
    }
    out.sort();
    out
}

/// Beside the graph: `old<TAB>new` for every `supersedes` link, read by search.
pub const SUPERSEDES_FILE: &str = "supersedes.tsv";

impl Indexes {
    fn save_supersedes(&mut self) -> crate::Result<()> {
        if self.ephemeral {
            let mut map = HashMap::new();
            let g = self.graph();
            for name in self.manifest.entries.keys() {
                for (target, e) in g.outgoing(&format!("memory:{name}")) {
                    if e.edge_type == super::graph::SUPERSEDES
                        && let Some(old) = target.strip_prefix("memory:")
                    {
                        map.insert(old.to_owned(), name.clone());
                    }
                }
            }
            self.supersedes = std::sync::OnceLock::from(map);
            return Ok(());
        }
        let mut lines: Vec<String> = Vec::new();
        let g = self.graph();
        for name in self.manifest.entries.keys() {
            for (target, e) in g.outgoing(&format!("memory:{name}")) {
                if e.edge_type == super::graph::SUPERSEDES
                    && let Some(old) = target.strip_prefix("memory:")
                {
                    lines.push(format!("{old}\t{name}"));
                }
            }
        }
        lines.sort();
        let path = self.dir.join("graph").join(SUPERSEDES_FILE);
        crate::vault::atomic_write(&path, lines.join("\n").as_bytes())?;
        self.supersedes = std::sync::OnceLock::new();
        Ok(())
    }
}

/// The edge origins a re-parse of a file replaces (agent-made links survive it).
pub const LINK_ORIGINS: &[&str] = &["keyword", "frontmatter", "entity"];

/// How much a shared entity counts as a link (low: entities are dense and cheap).
pub const ENTITY_CONFIDENCE: f32 = 0.3;

/// Every outgoing link of a memory: body wikilinks, frontmatter `links:`, shared entities.
pub fn memory_links(
    memory: &Memory,
    content: &str,
    is_memory: &dyn Fn(&str) -> bool,
) -> Vec<OutLink> {
    use crate::model::links::{
        LinkTarget, extract_entities, extract_links, frontmatter_links, resolve_target,
    };
    let mut out = Vec::new();
    let mut push =
        |target: &LinkTarget, edge_type: String, context: &str, confidence: f32, origin: &str| {
            out.push(OutLink {
                target: target.key(),
                data: EdgeData {
                    edge_type,
                    context: context.to_owned(),
                    confidence,
                    origin: origin.to_owned(),
                },
            });
        };
    for l in extract_links(content, is_memory) {
        push(
            &l.target,
            l.edge_type.as_str().into_owned(),
            &l.context,
            l.confidence,
            l.origin.as_str(),
        );
    }
    if let Ok(map) = memory.doc.mapping()
        && let Some(v) = map.get("links")
    {
        let (links, _warnings) = frontmatter_links(v);
        for l in links {
            // A frontmatter target that names no memory is a document (ghost).
            let target = match &l.target {
                LinkTarget::Memory(n) if !is_memory(n) => {
                    resolve_target(&l.raw, is_memory).unwrap_or_else(|| l.target.clone())
                }
                t => t.clone(),
            };
            push(
                &target,
                l.edge_type.as_str().into_owned(),
                &l.context,
                l.confidence,
                l.origin.as_str(),
            );
        }
    }
    for entity in extract_entities(content, &memory.meta.tags) {
        out.push(OutLink {
            target: format!("entity:{entity}"),
            data: EdgeData {
                edge_type: format!("shares_entity:{entity}"),
                context: String::new(),
                confidence: ENTITY_CONFIDENCE,
                origin: "entity".to_owned(),
            },
        });
    }
    out
}

/// The text a chunk is embedded as: the memory's title (when the chunk does not already start
/// with it), then the chunk; without redaction markers, which are not words of the memory.
pub fn embed_text(title: &str, _header_path: &str, text: &str) -> String {
    let (title, text) = (crate::privacy::strip_markers(title), crate::privacy::strip_markers(text));
    if text.trim_start().trim_start_matches('#').trim_start().starts_with(&title) {
        text
    } else {
        format!("{title}\n{text}")
    }
}

impl From<IndexError> for Error {
    fn from(e: IndexError) -> Error {
        Error::Index(Box::new(e))
    }
}

/// Removes a damaged store's folder (derived data) so it can be created afresh (or a file where
/// the folder should be).
fn remove_damaged(dir: &Path) -> crate::Result<()> {
    let remove = || {
        let not_a_folder = std::fs::symlink_metadata(dir).is_ok_and(|m| !m.is_dir());
        if not_a_folder { std::fs::remove_file(dir) } else { std::fs::remove_dir_all(dir) }
    };
    let mut removed = remove();
    // Another reader may be creating files in it at this moment (it opens without the lock):
    // try again shortly.
    for _ in 0..50 {
        match &removed {
            Err(e) if e.kind() == std::io::ErrorKind::DirectoryNotEmpty => {
                std::thread::sleep(std::time::Duration::from_millis(20));
                removed = remove();
            }
            _ => break,
        }
    }
    match removed {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(crate::error::PathError {
            action: "remove the damaged index",
            path: dir.to_owned(),
            source: e,
        }
        .into()),
    }
}

/// What a reader is told when the vault cannot be written (`why`, in words, from
/// [`unwritable`]): said once by a command or a server.
pub fn unwritable_message(why: &str) -> String {
    format!(
        "the vault cannot be written ({why}): the search index and the usage state are not updated; answering from the memory files"
    )
}

/// Why `e` means the vault cannot be written (in words: "the file system is read-only", "the
/// disk is full", "permission denied"), or `None` for any other failure.
pub fn unwritable(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    unwritable_source(e)
}

/// [`unwritable`] of any error: looks through its sources for an IO error of the kinds a
/// read-only or full file system gives (tantivy and the vector engine keep only its words).
fn unwritable_source(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    use std::io::ErrorKind as K;
    let io_kind = |io: &std::io::Error| {
        matches!(
            io.kind(),
            K::ReadOnlyFilesystem | K::StorageFull | K::QuotaExceeded | K::PermissionDenied
        )
        .then(|| crate::error::describe_io(io))
    };
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        // `#[error(transparent)]` wrappers hide a `PathError` from `source()`: look inside.
        let path_error = err.downcast_ref::<crate::error::PathError>().or_else(|| {
            match err.downcast_ref::<Error>()? {
                Error::Io(p) => Some(p),
                Error::Lifecycle(crate::lifecycle::LifecycleError::Io(p)) => Some(p),
                Error::Index(i) => match &**i {
                    IndexError::Vector(super::vector::VectorError::Io(p))
                    | IndexError::Graph(super::graph::GraphError::Io(p)) => Some(p),
                    _ => None,
                },
                _ => None,
            }
        });
        let path_error = path_error.or_else(|| match err.downcast_ref()? {
            crate::lifecycle::LifecycleError::Io(p) => Some(p),
            _ => None,
        });
        if let Some(p) = path_error {
            return io_kind(&p.source);
        }
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            if let Some(why) = io_kind(io) {
                return Some(why);
            }
        } else if let Some(io) = err.downcast_ref::<Arc<std::io::Error>>() {
            if let Some(why) = io_kind(io) {
                return Some(why);
            }
        } else {
            let text = err.to_string();
            for (os, words) in [
                ("Read-only file system", "the file system is read-only"),
                ("No space left on device", "the disk is full"),
                ("Disk quota exceeded", "the disk quota is used up"),
                ("Permission denied", "permission denied"),
            ] {
                if text.contains(os) {
                    return Some(words.to_owned());
                }
            }
        }
        cur = err.source();
    }
    None
}

/// An error and its sources, in words (`a: b: c`).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cur = e.source();
    while let Some(s) = cur {
        out.push_str(": ");
        out.push_str(&s.to_string());
        cur = s.source();
    }
    out
}

#[cfg(test)]
mod unwritable_tests {
    use super::*;

    fn path_error(errno: i32) -> crate::error::PathError {
        crate::error::PathError {
            action: "create",
            path: PathBuf::from("/v/.memories/indices"),
            source: std::io::Error::from_raw_os_error(errno),
        }
    }

    #[test]
    fn write_failures_are_recognised_in_words_and_others_are_not() {
        let e: Error = path_error(30).into();
        assert_eq!(unwritable(&e).as_deref(), Some("the file system is read-only"));
        let e: Error = path_error(28).into();
        assert_eq!(unwritable(&e).as_deref(), Some("the disk is full"));
        let e: Error = path_error(13).into();
        assert_eq!(unwritable(&e).as_deref(), Some("permission denied"));
        let e = crate::lifecycle::LifecycleError::Io(path_error(30));
        assert_eq!(unwritable(&e).as_deref(), Some("the file system is read-only"));
        let e: Error =
            IndexError::Graph(super::super::graph::GraphError::Io(path_error(28))).into();
        assert_eq!(unwritable(&e).as_deref(), Some("the disk is full"));
        // Not a write failure: a missing file, an invalid request.
        let e: Error = path_error(2).into();
        assert_eq!(unwritable(&e), None);
        assert_eq!(unwritable(&Error::Invalid("bad".into())), None);
        // Tantivy keeps only the OS's words.
        let e = KeywordError::Tantivy {
            action: "open a reader",
            source: tantivy::TantivyError::from(std::io::Error::from_raw_os_error(30)),
        };
        assert_eq!(unwritable(&e).as_deref(), Some("the file system is read-only"));
    }
}
/// Beside the stores: the stamp (size, inode, mtime) of every keyword segment file and of the
/// graph file whose content was checked since it last changed, one `path<TAB>size<TAB>inode<TAB>
/// mtime` line each. Only a file not listed (new, or changed since) is checked again.
pub const VERIFIED_FILE: &str = "verified.tsv";

/// The graph file, relative to `indices/`.
const GRAPH_REL: &str = "graph/graph.json";

/// What [`check_stores`] found damaged, in words.
#[derive(Debug)]
struct Damage {
    /// Whether it is the keyword index (removed and rebuilt) rather than the graph.
    keyword: bool,
    words: String,
}

/// The stamp of one file under `indices/`, `rel` to it.
fn stamp_of(dir: &Path, rel: &str) -> Option<FileStamp> {
    let meta = std::fs::metadata(dir.join(rel)).ok().filter(std::fs::Metadata::is_file)?;
    Some(file_stamp(rel.to_owned(), &meta))
}

/// `rel`'s size, inode and mtime (nanoseconds) from its metadata.
fn file_stamp(rel: String, meta: &std::fs::Metadata) -> FileStamp {
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128);
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(meta);
    #[cfg(not(unix))]
    let ino = 0;
    (rel, meta.len(), ino, mtime)
}

fn load_verified(dir: &Path) -> HashSet<FileStamp> {
    let text = std::fs::read_to_string(dir.join(VERIFIED_FILE)).unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let mut parts = l.split('\t');
            let rel = parts.next()?.to_owned();
            let size = parts.next()?.parse().ok()?;
            let ino = parts.next()?.parse().ok()?;
            let mtime = parts.next()?.parse().ok()?;
            Some((rel, size, ino, mtime))
        })
        .collect()
}

/// Saves the checked stamps; best effort (a read-only vault checks again next time).
fn save_verified(dir: &Path, stamps: &HashSet<FileStamp>) {
    let mut lines: Vec<String> = stamps
        .iter()
        .map(|(rel, size, ino, mtime)| format!("{rel}\t{size}\t{ino}\t{mtime}\n"))
        .collect();
    lines.sort();
    if let Err(e) = crate::vault::atomic_write(&dir.join(VERIFIED_FILE), lines.concat().as_bytes())
    {
        tracing::debug!(error = %e, "cannot remember which index files were checked");
    }
}

/// Marks the file `rel` (as it is now) checked.
fn record_verified(dir: &Path, rel: &str) {
    let mut stamps = load_verified(dir);
    stamps.retain(|s| s.0 != rel);
    stamps.extend(stamp_of(dir, rel));
    save_verified(dir, &stamps);
}

/// Checks the content of every keyword segment file (tantivy's checksum) and of the graph file
/// (it parses) that [`VERIFIED_FILE`] does not list as it is now, and remembers those found
/// sound. Files unchanged since they were checked cost a `stat` each. A graph that parses is
/// kept in `graph`: the caller needs no second read.
fn check_stores(dir: &Path, graph: &std::sync::OnceLock<LinkGraph>) -> Result<(), Damage> {
    let verified = load_verified(dir);
    let mut now: HashSet<FileStamp> = HashSet::new();
    let kdir = dir.join("keyword");
    let corrupt = |detail: &str| Damage {
        keyword: true,
        words: format!("the keyword index in {} is corrupt{detail}", kdir.display()),
    };
    let mut unchecked: Vec<FileStamp> = Vec::new();
    if let Ok(entries) = std::fs::read_dir(&kdir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            // Segment files are `<uuid>.<component>`; `meta.json` was read by the open.
            if name.starts_with('.') || !name.contains('.') || name == "meta.json" {
                continue;
            }
            let Some(stamp) = stamp_of(dir, &format!("keyword/{name}")) else { continue };
            if verified.contains(&stamp) {
                now.insert(stamp);
            } else {
                unchecked.push(stamp);
            }
        }
    }
    if !unchecked.is_empty() {
        let index = tantivy::Index::open_in_dir(&kdir).map_err(|_| corrupt(""))?;
        let active = index.load_metas().map_err(|_| corrupt(""))?.list_segment_files();
        for stamp in unchecked {
            let name = std::path::PathBuf::from(&stamp.0["keyword/".len()..]);
            if !active.contains(&name) {
                continue; // not (yet or any longer) part of the index: never read
            }
            match index.directory().validate_checksum(&name) {
                Ok(true) => {
                    now.insert(stamp);
                }
                Ok(false) => {
                    return Err(corrupt(&format!(
                        ": {} does not match its checksum",
                        name.display()
                    )));
                }
                // Removed since it was listed: a writer replaced the segment.
                Err(tantivy::directory::error::OpenReadError::FileDoesNotExist(_)) => {}
                Err(_) => {
                    return Err(corrupt(&format!(": {} cannot be read", name.display())));
                }
            }
        }
    }
    if let Some(stamp) = stamp_of(dir, GRAPH_REL) {
        if verified.contains(&stamp) {
            now.insert(stamp);
        } else {
            match LinkGraph::load(&dir.join("graph")) {
                Ok(Some(g)) => {
                    let _ = graph.set(g);
                    now.insert(stamp);
                }
                Ok(None) => {
                    return Err(Damage {
                        keyword: false,
                        words: format!(
                            "the link graph {} is corrupt",
                            dir.join(GRAPH_REL).display()
                        ),
                    });
                }
                // Not readable (permissions): a rebuild would not fix it; `graph()` says so.
                Err(_) => {}
            }
        }
    }
    if now != verified {
        save_verified(dir, &now);
    }
    Ok(())
}

/// Why the keyword index could not be opened, in words naming its folder.
fn keyword_damage_words(kdir: &Path, e: &KeywordError) -> String {
    use tantivy::directory::error::OpenReadError;
    if matches!(e, KeywordError::SchemaMismatch { .. }) {
        return format!(
            "the keyword index in {} was built by another version of memlane",
            kdir.display()
        );
    }
    let missing =
        std::iter::successors(Some(e as &dyn std::error::Error), |e| e.source()).any(|s| {
            matches!(
                s.downcast_ref::<tantivy::TantivyError>(),
                Some(tantivy::TantivyError::OpenReadError(OpenReadError::FileDoesNotExist(_)))
            ) || matches!(
                s.downcast_ref::<OpenReadError>(),
                Some(OpenReadError::FileDoesNotExist(_))
            ) || s
                .downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound)
        });
    if missing {
        format!("a file of the keyword index in {} is missing", kdir.display())
    } else {
        format!("the keyword index in {} is corrupt", kdir.display())
    }
}

thread_local! {
    /// Set while [`catch_index_panic`] runs on this thread: its panics are expected.
    static GUARDED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f`, a read of the indices, and catches a panic of the search library on a damaged store
/// (`None`): the caller rebuilds with [`Indexes::rebuild_after_failure`] and tries again once.
/// Such a panic is logged at debug level instead of printed; any other panic prints as usual
/// (on stderr: never on stdout, the MCP transport).
pub fn catch_index_panic<T>(f: impl FnOnce() -> T) -> Option<T> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if GUARDED.get() {
                tracing::debug!(%info, "reading the indices panicked");
            } else {
                previous(info);
            }
        }));
    });
    let was = GUARDED.replace(true);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    GUARDED.set(was);
    result.ok()
}
