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
use super::embed_cache::{CacheStats, EmbedCache};
use super::graph::{EdgeData, LinkGraph, OutLink};
use super::keyword::{KeywordDoc, KeywordError, KeywordIndex};
use super::manifest::{self, Entry, Manifest, chunk_id, chunk_key};
use super::vector::{OpenOutcome, VectorIndex};
use crate::error::{Error, IoResultExt};
use crate::model::MemoryName;
use crate::vault::{Memory, Vault};

mod files;
mod reconcile;

pub use files::*;
pub use reconcile::duplicate_id_message;

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
        "another memlane process has held the index lock {} for over {} s",
        .0.display(), LOCK_TIMEOUT.as_secs()
    )]
    LockTimeout(PathBuf),
    /// The embedder failed.
    #[error("the embedder failed: {0}")]
    Embed(String),
    /// Reading the indices failed inside the search library, even after they were rebuilt.
    #[error(
        "the search indices in {} cannot be read, even rebuilt from the memory files",
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
    /// Chunks indexed.
    pub chunks: usize,
    /// Chunks whose text was sent to the embedder (the others came from the embedding cache).
    pub embedded: usize,
    /// Chunks whose vector came from the embedding cache.
    pub reused: usize,
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
    /// Its status-change time (0 off Unix): a write, a rename or a change of its times moves
    /// it, so an edit that restored the file's size and mtime still shows.
    ctime_ns: i128,
}

impl From<crate::vault::FileStat> for Stat {
    fn from(f: crate::vault::FileStat) -> Stat {
        Stat { name: f.name, size: f.size, mtime_ns: f.mtime_ns, ctime_ns: f.ctime_ns }
    }
}

impl Stat {
    /// Whether `e` was recorded from a file with this stat (size, mtime and ctime), so the file
    /// need not be read. An entry of a manifest before format 9 has no ctime: never the same.
    fn matches(&self, e: manifest::EntryRef<'_>) -> bool {
        e.size() == self.size
            && e.mtime_ns() == self.mtime_ns
            && e.ctime_ns() == Some(self.ctime_ns)
    }
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
    /// Chunk vectors already computed for this embedder (`indices/embeddings/`); kept across
    /// reopens.
    cache: Arc<EmbedCache>,
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
    /// Whether a small write lets the merge of small keyword segments its commit started run on
    /// after it returns (see [`Indexes::merge_in_background`]).
    merge_in_background: bool,
    /// The index lock and keyword writer kept meanwhile (shared with the thread that lets them
    /// go).
    lingering: Lingering,
    /// In memory, but read from the indices on disk (which were current when opened): the
    /// first change rebuilds it from the files (the vectors are a read-only map of the file).
    snapshot: bool,
}

/// Vector key → (memory, chunk ordinal). Keys are hashed with foldhash, seeded per process: a
/// few times faster than the standard SipHash, and, unlike using the key as its own hash, no
/// crafted set of keys (an index file is repository input) can pile them into one bucket.
type KeyMap = HashMap<u64, (String, usize), KeyHash>;

/// The hasher of vector-key maps and sets ([`KeyMap`], [`KeySet`]).
pub(crate) type KeyHash = foldhash::fast::RandomState;

/// A set of vector keys.
pub(crate) type KeySet = HashSet<u64, KeyHash>;

impl std::fmt::Debug for Indexes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Indexes").field("dir", &self.dir).finish_non_exhaustive()
    }
}

/// Removes every symbolic link under the indices folder `dir` (the link, never what it points to).
fn remove_links_under(vault: &Vault, dir: &Path, depth: usize) -> crate::Result<()> {
    use crate::disk::Kind;
    for e in vault.fs().read_dir(dir)? {
        let path = dir.join(&e.name);
        match e.kind {
            Kind::Symlink => {
                vault.fs().remove_file(&path)?;
                tracing::warn!(
                    "{} was a symbolic link; memlane never follows links in its indices and removed it",
                    path.display()
                );
            }
            Kind::Dir if depth < 4 => remove_links_under(vault, &path, depth + 1)?,
            _ => {}
        }
    }
    Ok(())
}

/// An exclusive lock on a vault's indices, released on drop (or when the process dies).
struct WriteLock {
    _file: std::fs::File,
}

/// The index lock as a write of this process holds it, with the small keyword writer a
/// long-lived process keeps while the merge its last commit started runs on (see
/// [`Indexes::merge_in_background`]). Dropped, it closes the writer (waiting for its merge)
/// before it lets the lock go.
pub(super) struct HeldLock {
    pub(super) writer: Option<crate::index::keyword::KeywordWriter>,
    _lock: WriteLock,
}

impl HeldLock {
    /// Closes the kept writer, waiting for its merge.
    pub(super) fn finish_writer(&mut self) -> Result<(), IndexError> {
        match self.writer.take() {
            Some(kw) => kw.finish().map_err(IndexError::from),
            None => Ok(()),
        }
    }

    /// Whether the kept writer's merge still runs.
    fn merging(&mut self) -> bool {
        self.writer.as_mut().is_some_and(crate::index::keyword::KeywordWriter::merging)
    }
}

impl Drop for HeldLock {
    fn drop(&mut self) {
        if let Err(e) = self.finish_writer() {
            tracing::warn!("{}", error_chain(&e));
        }
    }
}

/// Where a long-lived process keeps the index lock between writes while a merge runs on.
#[derive(Default)]
struct Slot {
    /// The lock and the writer, while no write of this process uses them.
    held: Option<HeldLock>,
    /// Whether a thread waits for the merge's end to let them go: once one does, it alone lets
    /// them go (a write that used them meanwhile puts them back).
    waiting: bool,
}

type Lingering = Arc<std::sync::Mutex<Slot>>;

fn lingering(slot: &Lingering) -> std::sync::MutexGuard<'_, Slot> {
    slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Starts the thread that lets the lock kept in `slot` go once its merge has ended.
fn release_when_merged(slot: &Lingering) {
    let watch = Arc::clone(slot);
    let spawned = std::thread::Builder::new().name("memlane-merge".into()).spawn(move || {
        loop {
            std::thread::sleep(Duration::from_millis(2));
            // Tests hold a merge's end here, the lock and the writer kept.
            let _ = crate::failpoint::step("index.merged");
            let mut kept = lingering(&watch);
            let go = match kept.held.as_mut() {
                // The indices were closed (and their merge waited for).
                None => Arc::strong_count(&watch) == 1,
                Some(held) => !held.merging(),
            };
            if !go {
                // The merge runs on, or a write uses the lock (it puts it back).
                continue;
            }
            let held = kept.held.take();
            kept.waiting = false;
            drop(kept);
            drop(held);
            return;
        }
    });
    if spawned.is_err() {
        // No thread to wait in the background: wait here.
        let mut kept = lingering(slot);
        kept.waiting = false;
        let held = kept.held.take();
        drop(kept);
        drop(held);
    }
}

fn lock(dir: &Path) -> crate::Result<WriteLock> {
    let path = dir.join("write.lock");
    match crate::error::lock_file(&path, LOCK_TIMEOUT, Duration::from_millis(20))? {
        Some(file) => Ok(WriteLock { _file: file }),
        None => Err(IndexError::LockTimeout(path).into()),
    }
}

impl Drop for Indexes {
    /// A merge still running after this process's last write is waited for.
    fn drop(&mut self) {
        let held = lingering(&self.lingering).held.take();
        drop(held);
    }
}

impl Indexes {
    /// The indices folder of a vault.
    pub fn dir_of(vault: &Vault) -> PathBuf {
        vault.root().join("indices")
    }

    /// The indices folder of `vault`, checked right before its paths are handed to the search
    /// libraries (which open their files by path): `indices/` is a real folder (a link there is
    /// refused, see [`Vault::check_internal_folder`]), and no link is left anywhere under it (one
    /// found is removed, never followed: the indices are derived data and are rebuilt).
    pub fn checked_dir(vault: &Vault) -> crate::Result<PathBuf> {
        vault.check_internal_folder("indices")?;
        let dir = Self::dir_of(vault);
        if vault.fs().stat(&dir)?.is_some() {
            remove_links_under(vault, &dir, 0)?;
        }
        Ok(dir)
    }

    /// Deletes the derived stores of `vault` (keyword, vector, graph, manifest) under the index
    /// lock, whatever state they are in, so the next open starts from nothing: what `reindex`
    /// does first, since a store damaged inside a file (not just missing or truncated) can make
    /// the search library fail or panic when it reads it.
    pub fn reset(vault: &Vault) -> crate::Result<()> {
        let dir = Self::checked_dir(vault)?;
        if vault.fs().kind(&dir) != Some(crate::disk::Kind::Dir) {
            return Ok(());
        }
        let _lock = lock(&dir)?;
        for sub in ["keyword", "vector", "graph"] {
            remove_damaged(&dir.join(sub))?;
        }
        for file in
            [manifest::FILE, manifest::LEGACY_FILE, manifest::JOURNAL, PENDING_FILE, VERIFIED_FILE]
        {
            let path = dir.join(file);
            match crate::index::confined_io::remove_file(&path) {
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
        Self::open_fresh(vault, embedder, &|| None)
    }

    /// [`Indexes::open_reconciled`], asking `vouch` first: a live watcher's digest of the
    /// indices' files once they reflect every change made before the call (see
    /// [`crate::fresh`]). When the indices opened are the ones it vouched for (their files'
    /// [`disk_digest`](Self::disk_digest) taken before they were read is the same, and nothing
    /// on open asks for a rebuild), the vault is not stat-ed. Indices opened while the watcher
    /// was still updating them are opened once more. Otherwise, and when `vouch` says `None`,
    /// it is the full check.
    pub fn open_fresh(
        vault: &Vault,
        embedder: Arc<dyn Embedder>,
        vouch: &(dyn Fn() -> Option<u64> + Sync),
    ) -> crate::Result<(Indexes, ReconcileReport)> {
        let (idx, report, _) = Self::open_fresh_speculating::<()>(vault, embedder, vouch, None)?;
        Ok((idx, report))
    }

    /// [`Indexes::open_fresh`], running `speculate` on the indices as soon as they are open
    /// when the vault's files are still being stat-ed then (at 10k memories the stat takes
    /// longer than the open): its result is returned when the check finds nothing to change,
    /// so the command's own work overlaps the check; otherwise it is dropped, and the caller
    /// runs its work again on the updated indices. `speculate` must have no side effects
    /// outside its result.
    pub fn open_fresh_speculating<R>(
        vault: &Vault,
        embedder: Arc<dyn Embedder>,
        vouch: &(dyn Fn() -> Option<u64> + Sync),
        speculate: Option<&dyn Fn(&Indexes) -> R>,
    ) -> crate::Result<(Indexes, ReconcileReport, Option<R>)> {
        // The vault's files are stat-ed while the indices open (the manifest parse and the stat
        // are the two halves of a no-change reconcile). A file changed by another process in
        // between is at worst found changed, read and found the same (its new stat recorded).
        let mut early = None;
        // The stores the early answer was read from: another process may write newer ones
        // before the check takes the lock (the check then reloads them and finds nothing to do).
        let mut read_from = None;
        let on_disk = std::thread::scope(|s| {
            let asked = s.spawn(|| {
                let start = Instant::now();
                let vouched = vouch();
                if vouched.is_some() {
                    let ms = start.elapsed().as_secs_f64() * 1e3;
                    tracing::debug!(ms, "the watcher vouched for the indices");
                    return (vouched, None);
                }
                let stats = Self::stat_vault(vault);
                let ms = start.elapsed().as_secs_f64() * 1e3;
                tracing::debug!(ms, "stat the vault while the indices open");
                (None, Some(stats))
            });
            let opened = Self::open(vault, embedder.clone());
            if let (Ok(idx), Some(f)) = (&opened, speculate)
                && !asked.is_finished()
                && idx.needs_rebuild.is_none()
                && !idx.snapshot
            {
                read_from = Some(idx.written.clone());
                early = Some(f(idx));
                tracing::debug!("answered while the files are checked");
            }
            let (vouched, stats) = asked.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
            let mut idx = opened?;
            if let Some(digest) = vouched {
                if !idx.vouched_by(digest) {
                    // Opened while the watcher was still bringing them up to date: once more.
                    tracing::debug!("the indices changed while the watcher caught up; reopening");
                    early = None;
                    idx = Self::open(vault, embedder.clone())?;
                }
                if idx.vouched_by(digest) {
                    let report =
                        ReconcileReport { unchanged: idx.manifest.len(), ..Default::default() };
                    return Ok((idx, report));
                }
                tracing::debug!(
                    "the indices changed since the watcher vouched; checking the files"
                );
            }
            let stats = match stats {
                Some(stats) => stats?,
                None => Self::stat_vault(vault)?,
            };
            let report = idx.reconcile_stats(vault, stats)?;
            let same = read_from.as_ref() == Some(&idx.written);
            if (report.changed() || !same) && early.take().is_some() {
                tracing::debug!("files changed: the answer found meanwhile is dropped");
            }
            Ok((idx, report))
        });
        match on_disk {
            Ok((idx, report)) => Ok((idx, report, early)),
            Err(e) => match unwritable(&e as &(dyn std::error::Error + 'static)) {
                Some(why) => {
                    tracing::debug!(error = %e, "indices not writable; reading without writing");
                    if let Some(idx) = Self::current_read_only(vault, embedder.clone())? {
                        let report = ReconcileReport {
                            unchanged: idx.manifest.len(),
                            not_saved: Some(why),
                            ..Default::default()
                        };
                        return Ok((idx, report, None));
                    }
                    let mut idx = Self::in_memory(vault, embedder)?;
                    let mut report = idx.reconcile(vault)?;
                    // Nothing was indexed for good: their usage clocks start when it is.
                    report.added_ids.clear();
                    report.not_saved = Some(why);
                    Ok((idx, report, None))
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
            cache: Arc::new(EmbedCache::new(embedder.clone(), Some(&Self::dir_of(vault)), false)),
            embedder,
            needs_rebuild: Some("the indices on disk cannot be written".to_owned()),
            damage: None,
            written: None,
            keys: std::sync::OnceLock::new(),
            owner_scans: std::sync::atomic::AtomicUsize::new(0),
            ephemeral: true,
            snapshot: false,
            merge_in_background: false,
            lingering: Lingering::default(),
        })
    }

    /// The indices on disk, read without writing anything, when they are intact and need no
    /// update (the stat pass finds no change); `None` otherwise.
    fn current_read_only(
        vault: &Vault,
        embedder: Arc<dyn Embedder>,
    ) -> crate::Result<Option<Indexes>> {
        let dir = Self::checked_dir(vault)?;
        if crate::index::confined_io::exists(&dir.join(PENDING_FILE))
            || !crate::index::confined_io::is_file(&dir.join("graph").join(super::graph::FILE))
            || !crate::index::confined_io::is_file(&dir.join("graph").join(SUPERSEDES_FILE))
        {
            return Ok(None);
        }
        let Some(manifest) = Manifest::load(&dir) else { return Ok(None) };
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
            cache: Arc::new(EmbedCache::new(embedder.clone(), Some(&dir), false)),
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
            merge_in_background: false,
            lingering: Lingering::default(),
        };
        let (changed, removed, _) = idx.diff(&Self::stat_vault(vault)?);
        // Indices of a manifest before format 9 record no ctime, and none can be recorded here:
        // a file whose size and mtime are as recorded is compared by its content instead.
        let current = removed.is_empty() && changed.iter().all(|s| idx.same_but_ctime(vault, s));
        Ok(current.then_some(idx))
    }

    /// The digest of the indices' files on disk as they are now (see [`crate::fresh`]), `None`
    /// while a write is under way or was interrupted.
    pub fn disk_digest(vault: &Vault) -> Option<u64> {
        stamp_digest(&disk_stamp(&Self::dir_of(vault)))
    }

    /// Whether these indices, as opened, are the ones of `digest` (a watcher's
    /// [`disk_digest`](Self::disk_digest)) and need no rebuild.
    fn vouched_by(&self, digest: u64) -> bool {
        self.needs_rebuild.is_none()
            && !self.ephemeral
            && self.written.as_deref().and_then(stamp_digest) == Some(digest)
    }

    /// For a long-lived process (the MCP server, the watcher): a small write returns once its
    /// changes are committed, while the merge of small keyword segments its commit may have
    /// started runs on. The process keeps the index lock and the keyword writer until the merge
    /// has ended (its next write goes on with them; another process's write waits, as for any
    /// write), so no merge outlives the lock. A one-shot command waits for its merge, since it
    /// exits right after.
    ///
    /// Merging 8 small segments took 16–25 ms at 10k memories, on one write in eight: the
    /// slowest writes were those.
    pub fn merge_in_background(&mut self) {
        self.merge_in_background = true;
    }

    /// The index lock for a write: the one this process kept while an earlier write's merge
    /// runs on (with that writer), else taken now.
    fn take_lock(&self) -> crate::Result<HeldLock> {
        if let Some(held) = lingering(&self.lingering).held.take() {
            return Ok(held);
        }
        Ok(HeldLock { writer: None, _lock: lock(&self.dir)? })
    }

    /// Lets the index lock go after a write, or keeps it (with the writer) while the write's
    /// merge runs on: a thread then lets it go once the merge has ended.
    fn release_lock(&self, mut held: HeldLock) {
        let mut kept = lingering(&self.lingering);
        if !kept.waiting && !held.merging() {
            drop(kept);
            drop(held);
            return;
        }
        kept.held = Some(held);
        if !kept.waiting {
            kept.waiting = true;
            drop(kept);
            release_when_merged(&self.lingering);
        }
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
    /// for writing (loaded into memory; only under the write lock). In steps: the manifest
    /// ([`open_manifest`]), the stores' content checks ([`check_store_content`]), the keyword
    /// index ([`open_keyword`]), the vector index ([`settle_vector`]: a reader views it on
    /// another thread from the start), the graph's folder
    /// ([`check_graph_dir`]), then the chunk counts of the stores against the manifest. What a
    /// step finds wrong is collected in [`Findings`]: the indices then need a rebuild, and
    /// damage (not a missing or outdated index) is reported.
    fn open_mode(
        vault: &Vault,
        embedder: Arc<dyn Embedder>,
        read_only: bool,
    ) -> crate::Result<Indexes> {
        let t0 = Instant::now();
        let dir = Self::checked_dir(vault)?;
        vault.fs().create_dir_all(&dir)?;
        // Taken before anything is read: a write by anyone after it changes it.
        let stamp = disk_stamp(&dir);
        if !read_only {
            return Self::open_steps(embedder, t0, dir, stamp, VectorOpen::Update);
        }
        // A reader views the vector file on another core while the manifest and the keyword
        // index are read (at 100k memories the view builds a 200k-key table, ≈ 10 ms); what it
        // finds is weighed at its turn below, as if it had been opened there.
        let vdir = dir.join("vector");
        let (id, dim) = (embedder.id().to_owned(), embedder.dim());
        std::thread::scope(|scope| {
            let viewing = scope.spawn(move || VectorIndex::open_read_only(&vdir, &id, dim));
            Self::open_steps(embedder, t0, dir, stamp, VectorOpen::Viewing(viewing))
        })
    }

    fn open_steps(
        embedder: Arc<dyn Embedder>,
        t0: Instant,
        dir: PathBuf,
        stamp: Vec<FileStamp>,
        vector: VectorOpen<'_>,
    ) -> crate::Result<Indexes> {
        let read_only = !matches!(vector, VectorOpen::Update);
        let mut found = Findings::default();
        let manifest = open_manifest(&dir, embedder.as_ref(), &mut found);
        // An index that existed and matched the embedder: anything unreadable below is damage.
        let existed = found.needs_rebuild.is_none();
        if crate::index::confined_io::exists(&dir.join(PENDING_FILE))
            && (!read_only || lock_is_free(&dir))
        {
            // A writer died between its first and last index file. A live writer still holds
            // the lock: readers then use what is there, as during any write.
            found.needs_rebuild = Some("an earlier index update was interrupted".to_owned());
        }
        let t_manifest = t0.elapsed();
        // Loaded on first use in both modes: a write that changes no link never needs it.
        let graph = std::sync::OnceLock::new();
        if existed && found.needs_rebuild.is_none() {
            check_store_content(&dir, &graph, read_only, &mut found)?;
        }
        let keyword = open_keyword(&dir, read_only, &mut found)?;
        let t_keyword = t0.elapsed();
        let vdir = dir.join("vector");
        let opened = match vector {
            VectorOpen::Viewing(h) => h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
            VectorOpen::Update => {
                VectorIndex::open_for_update(&vdir, embedder.id(), embedder.dim())
            }
        };
        let vector =
            settle_vector(opened, &dir, embedder.as_ref(), read_only, existed, &mut found)?;
        check_graph_dir(&dir, read_only, existed, &mut found)?;
        let mut idx = Indexes {
            cache: Arc::new(EmbedCache::new(embedder.clone(), Some(&dir), true)),
            dir,
            keyword,
            vector,
            graph,
            supersedes: std::sync::OnceLock::new(),
            manifest,
            embedder,
            needs_rebuild: found.needs_rebuild,
            damage: found.damage,
            written: Some(stamp),
            keys: std::sync::OnceLock::new(),
            owner_scans: std::sync::atomic::AtomicUsize::new(0),
            ephemeral: false,
            snapshot: false,
            merge_in_background: false,
            lingering: Lingering::default(),
        };
        idx.check_counts();
        tracing::debug!(
            manifest_ms = t_manifest.as_secs_f64() * 1e3,
            keyword_ms = (t_keyword - t_manifest).as_secs_f64() * 1e3,
            total_ms = t0.elapsed().as_secs_f64() * 1e3,
            "opened indices"
        );
        Ok(idx)
    }

    /// The last step of [`open_mode`](Self::open_mode): indices that need no rebuild so far
    /// must hold as many chunks in each store as the manifest lists, else they are damaged.
    fn check_counts(&mut self) {
        if self.needs_rebuild.is_some() {
            return;
        }
        let total = self.manifest.total_chunks();
        if self.vector.len() != total || self.keyword.num_chunks() as usize != total {
            let why = format!(
                "the indices disagree with the manifest ({} keyword and {} vector chunks, {} expected)",
                self.keyword.num_chunks(),
                self.vector.len(),
                total
            );
            self.damage = Some(why.clone());
            self.needs_rebuild = Some(why);
        }
    }

    /// Brings the key map, when built, up to date with `changes` (name, chunks before, chunks
    /// now) after a reconcile; after a `rebuild` it is built again on first use.
    fn update_keys(&mut self, rebuild: bool, changes: &[(String, usize, usize)]) {
        if rebuild {
            self.keys = std::sync::OnceLock::new();
            return;
        }
        let Some(keys) = self.keys.get_mut() else { return };
        for (name, before, now) in changes {
            for ord in 0..*before {
                keys.remove(&chunk_key(name, ord));
            }
            for ord in 0..*now {
                keys.insert(chunk_key(name, ord), (name.clone(), ord));
            }
        }
    }

    fn keys(&self) -> &KeyMap {
        self.keys.get_or_init(|| {
            let start = Instant::now();
            let mut keys = KeyMap::default();
            keys.reserve(self.manifest.total_chunks());
            for (name, e) in self.manifest.iter() {
                for ord in 0..e.chunks() {
                    keys.insert(chunk_key(name, ord), (name.to_owned(), ord));
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

    /// The memory graph if this process has loaded it already (nothing is read).
    pub fn graph_if_loaded(&self) -> Option<&LinkGraph> {
        self.graph.get()
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
                let text = crate::index::confined_io::read_to_string(
                    &self.dir.join("graph").join(SUPERSEDES_FILE),
                )
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

    /// Embeds chunk texts (as [`embed_text`] makes them) the way the indexer does, through the
    /// vault's persistent embedding cache: a text embedded before for this embedder — by a
    /// duplicate check, an earlier index, another version of the memory — is not embedded again,
    /// and what is embedded now is kept for the index update that follows. Not for queries.
    pub fn embed_documents(
        &self,
        texts: &[&str],
    ) -> Result<Vec<Vec<f32>>, crate::index::embed::EmbedError> {
        self.cache.embed(texts)
    }

    /// What the embedding cache did in this process: texts reused, texts embedded.
    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
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
        let wanted: HashMap<u64, usize, KeyHash> =
            keys.iter().enumerate().map(|(i, k)| (*k, i)).collect();
        let mut out = vec![None; keys.len()];
        let mut left = wanted.len();
        'scan: for (name, e) in self.manifest.iter() {
            for ord in 0..e.chunks() {
                if let Some(&i) = wanted.get(&chunk_key(name, ord)) {
                    out[i] = Some((name, ord));
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
        Ok(vault.files()?.into_iter().map(Stat::from).collect())
    }
}

/// What opening the indices found wrong so far ([`Indexes::open_mode`]).
#[derive(Default)]
struct Findings {
    /// Why the indices need a rebuild (the first reason found, unless a later one overrides).
    needs_rebuild: Option<String>,
    /// Damage found (reported after the rebuild), as opposed to an index missing or outdated.
    damage: Option<String>,
}

/// The manifest of the indices in `dir`, if it matches `embedder`; else an empty one and the
/// reason to rebuild (an unreadable manifest is damage).
fn open_manifest(dir: &Path, embedder: &dyn Embedder, found: &mut Findings) -> Manifest {
    match Manifest::load(dir) {
        Some(m) if m.embedder_id == embedder.id() && m.dim == embedder.dim() => m,
        Some(m) => {
            found.needs_rebuild = Some(format!(
                "the vector index was built with {} ({} dimensions); now using {} ({})",
                m.embedder_id,
                m.dim,
                embedder.id(),
                embedder.dim()
            ));
            Manifest::default()
        }
        None if crate::index::confined_io::exists(&dir.join(manifest::FILE))
            || crate::index::confined_io::exists(&dir.join(manifest::LEGACY_FILE)) =>
        {
            found.damage = Some("the manifest is unreadable".to_owned());
            found.needs_rebuild = found.damage.clone();
            Manifest::default()
        }
        None => {
            found.needs_rebuild = Some("no index yet".to_owned());
            Manifest::default()
        }
    }
}

/// Bytes damaged inside a store file (not just a file missing or cut short) make the search
/// library fail or panic as it opens or searches it: the content of every keyword segment file
/// and of the graph not checked since it last changed (a write adds a few) is checked before
/// anything opens them. Damage found is looked at again under the write lock (a writer may be
/// replacing the files right now); a damaged keyword index is removed.
fn check_store_content(
    dir: &Path,
    graph: &std::sync::OnceLock<LinkGraph>,
    read_only: bool,
    found: &mut Findings,
) -> crate::Result<()> {
    if check_stores(dir, graph).is_ok() {
        return Ok(());
    }
    let _lock = if read_only { Some(lock(dir)?) } else { None };
    if let Err(bad) = check_stores(dir, graph) {
        if bad.keyword {
            remove_damaged(&dir.join("keyword"))?;
        }
        found.damage = Some(bad.words.clone());
        found.needs_rebuild = Some(bad.words);
    }
    Ok(())
}

/// The keyword index in `dir`, created when missing. Damaged (the search library panics or
/// fails on it) or built by another memlane version, it is removed and created empty under the
/// write lock (a writer's reopen already holds it, and OS locks do not nest): it is derived
/// data, the files rebuild it. A store that cannot be written (a read-only vault, a full disk)
/// is not damaged: that error is returned, and the caller reads from the files instead (see
/// `open_reconciled`).
fn open_keyword(dir: &Path, read_only: bool, found: &mut Findings) -> crate::Result<KeywordIndex> {
    let kdir = dir.join("keyword");
    let e = match catch_index_panic(|| KeywordIndex::open_or_create(&kdir)) {
        Some(Ok(k)) => return Ok(k),
        // A panic on damage the content checks did not see (a file whose bytes changed but
        // not its size or time).
        None => {
            let _lock = if read_only { Some(lock(dir)?) } else { None };
            remove_damaged(&kdir)?;
            let why = format!("the keyword index in {} is corrupt", kdir.display());
            found.damage.get_or_insert_with(|| why.clone());
            found.needs_rebuild = Some(why);
            return Ok(KeywordIndex::open_or_create(&kdir).map_err(IndexError::from)?);
        }
        Some(Err(e)) => e,
    };
    match e {
        e if unwritable_source(&e).is_some() => Err(IndexError::from(e).into()),
        KeywordError::SchemaMismatch { .. }
        | KeywordError::Open { .. }
        | KeywordError::Tantivy { .. } => {
            let _lock = if read_only { Some(lock(dir)?) } else { None };
            // A `reindex` may have been replacing it: under the lock, look again.
            let again = (read_only && !matches!(e, KeywordError::SchemaMismatch { .. }))
                .then(|| catch_index_panic(|| KeywordIndex::open_or_create(&kdir)))
                .flatten()
                .and_then(Result::ok);
            if let Some(k) = again {
                return Ok(k);
            }
            remove_damaged(&kdir)?;
            tracing::debug!(error = %error_chain(&e), "cannot open the keyword index");
            let why = keyword_damage_words(&kdir, &e);
            if !matches!(e, KeywordError::SchemaMismatch { .. }) {
                found.damage.get_or_insert_with(|| why.clone());
            }
            found.needs_rebuild = Some(why);
            Ok(KeywordIndex::open_or_create(&kdir).map_err(IndexError::from)?)
        }
        e => Err(IndexError::from(e).into()),
    }
}

/// What opening the vector index found: the index, or why it must be rebuilt, or an error.
type Viewed = Result<OpenOutcome, crate::index::vector::VectorError>;

/// How [`Indexes::open_mode`] opens the vector index: loaded for update in its turn, or
/// viewed (mapped) by a thread started before the other stores were read.
enum VectorOpen<'s> {
    Update,
    Viewing(std::thread::ScopedJoinHandle<'s, Viewed>),
}

/// The vector index of `dir` as `opened` found it (memory-mapped when `read_only`, else loaded
/// for update). One that needs a rebuild (another embedder, an older format) or is unreadable
/// is created empty (the latter removed first, under the write lock); unless the index is new
/// (`existed` false), that is damage. A store that cannot be written is an error.
fn settle_vector(
    opened: Viewed,
    dir: &Path,
    embedder: &dyn Embedder,
    read_only: bool,
    existed: bool,
    found: &mut Findings,
) -> crate::Result<VectorIndex> {
    let vdir = dir.join("vector");
    Ok(match opened {
        Ok(OpenOutcome::Ready(v)) => v,
        Ok(OpenOutcome::NeedsRebuild { reason }) => {
            if existed {
                found.damage.get_or_insert_with(|| reason.clone());
            }
            found.needs_rebuild.get_or_insert(reason);
            VectorIndex::create(&vdir, embedder.id(), embedder.dim()).map_err(IndexError::from)?
        }
        Err(e) if unwritable_source(&e).is_some() => return Err(IndexError::from(e).into()),
        Err(e) => {
            // Unreadable: derived data, rebuilt from the files.
            let why = format!("the vector index was unreadable ({e})");
            found.damage.get_or_insert_with(|| why.clone());
            found.needs_rebuild.get_or_insert(why);
            let _lock = if read_only { Some(lock(dir)?) } else { None };
            remove_damaged(&vdir)?;
            VectorIndex::create(&vdir, embedder.id(), embedder.dim()).map_err(IndexError::from)?
        }
    })
}

/// The graph's folder: something else where it belongs (nothing could be saved there) is
/// removed under the write lock; a graph or supersession file missing means a rebuild.
fn check_graph_dir(
    dir: &Path,
    read_only: bool,
    existed: bool,
    found: &mut Findings,
) -> crate::Result<()> {
    let gdir = dir.join("graph");
    if crate::index::confined_io::stat(&gdir).is_some_and(|s| s.kind != crate::disk::Kind::Dir) {
        let why = format!("{} is not a folder", gdir.display());
        if existed {
            found.damage.get_or_insert_with(|| why.clone());
        }
        found.needs_rebuild.get_or_insert(why);
        let _lock = if read_only { Some(lock(dir)?) } else { None };
        remove_damaged(&gdir)?;
    }
    if !crate::index::confined_io::is_file(&gdir.join(super::graph::FILE))
        || !crate::index::confined_io::is_file(&gdir.join(SUPERSEDES_FILE))
    {
        found.needs_rebuild.get_or_insert_with(|| "no link graph yet".to_owned());
    }
    Ok(())
}
