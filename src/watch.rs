//! `VaultWatcher`: keeps a vault's indices fresh while its files change.
//!
//! Two notify watchers look at the vault root, recursively:
//!
//! - a raw one, whose only job is to bump a generation counter within a few milliseconds of any
//!   event that may change a memory, so that a caller (the MCP server) can tell cheaply whether
//!   the indices may be behind the files ([`VaultWatcher::generation`] against
//!   [`VaultWatcher::reconciled_generation`]);
//! - a debounced one (notify-debouncer-full), whose batches wake the worker thread (only when
//!   the worker indexes changes itself, see [`WatchOptions::index_changes`]).
//!
//! The worker never turns events into index edits. Every batch runs [`Indexes::reconcile`],
//! which stats the whole vault against the manifest and hash-checks the candidates, so editor
//! atomic saves, renames, deletes, new folders and lost events all end in the state of the files.
//! Before it reconciles, the worker waits until the raw watcher has been quiet for the debounce
//! (at most [`WatchOptions::max_delay`]), so a burst such as a `git checkout` of 1,000 files is
//! read and indexed once. On start it reconciles by content hash
//! ([`Indexes::reconcile_verify`]), which catches edits made while nothing was watching; a
//! caller that checks the files itself meanwhile (the MCP server) defers that pass
//! ([`WatchOptions::start_after`]) and runs the worker at a lower priority
//! ([`WatchOptions::low_priority`]). It also runs `maintain` every
//! `[lifecycle] maintain_minutes`.
//!
//! When notify fails or its queue overflows, [`VaultWatcher::healthy`] turns false and the
//! worker falls back to a stat reconcile every [`WatchOptions::poll_every`].
//!
//! This module does not print; it reports each pass to the caller's callback.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use notify::event::{CreateKind, ModifyKind, RemoveKind};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher as _};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache};

use crate::config::Config;
use crate::error::Error;
use crate::index::store::{Indexes, ReconcileReport};
use crate::lifecycle::STATE_DIR;
use crate::lifecycle::UsageStore;
use crate::lifecycle::consolidate::{MaintainReport, maintain};
use crate::model::name::RESERVED_DIRS;
use crate::vault::Vault;

/// Errors of the filesystem watcher.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// notify could not start watching the vault.
    #[error(
        "cannot watch {}",
        .path.display()
    )]
    Start {
        /// The vault root.
        path: PathBuf,
        /// notify's error.
        #[source]
        source: notify::Error,
    },
    /// The worker thread could not be started.
    #[error("cannot start the watcher thread")]
    Thread(#[source] std::io::Error),
    /// The worker thread ended before it was ready.
    #[error("the watcher thread stopped while starting")]
    Stopped,
}

/// `{:#}`-style "outer: inner" text of an error and its sources, for logs.
struct DisplayChain<'a>(&'a (dyn std::error::Error + 'static));

impl std::fmt::Display for DisplayChain<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::error::chain_text(self.0))
    }
}

/// How the watcher batches and schedules its work.
#[derive(Debug, Clone)]
pub struct WatchOptions {
    /// Quiet time after the last change before the indices are reconciled. Shorter makes an
    /// edit searchable sooner; longer folds more of a slow burst into one pass.
    pub debounce: Duration,
    /// The longest a continuous stream of changes may postpone a reconcile.
    pub max_delay: Duration,
    /// How often `maintain` runs; `None` never.
    pub maintain_every: Option<Duration>,
    /// How often the vault is reconciled by polling once the watcher is unhealthy.
    pub poll_every: Duration,
    /// Compare every file's content hash with the index on start.
    pub verify_on_start: bool,
    /// Reconcile the indices after changes (and by polling while unhealthy). Off for a caller
    /// that reconciles its own indices on demand from [`VaultWatcher::changed_since`] (the MCP
    /// server): the worker then only runs the start pass and `maintain`, and no debounced
    /// watcher is started (nothing would wake up for its batches).
    pub index_changes: bool,
    /// How long the worker waits before it opens its indices and runs the start pass. Zero for
    /// `memlane watch`; the MCP server defers it, so the start pass does not compete with the
    /// first calls, which check the files themselves.
    pub start_after: Duration,
    /// Run the worker (its start pass, `maintain` and reconciles) at a lower CPU priority
    /// (Linux), so it yields the cores to the caller's own work.
    pub low_priority: bool,
}

/// The default debounce. A save is seen after it plus one debouncer tick (a quarter of it); the
/// reconcile that follows costs ≈ 100–250 ms at 10k memories (stat, tantivy commit), so a short
/// debounce is what keeps "searchable after save" near the 300 ms target. Bursts wait longer
/// ([`BURST_QUIET`]), so one short debounce does not split a `git checkout` into many passes.
pub const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(50);

/// More relevant events than this since the last pass make a burst: the worker then waits for
/// [`BURST_QUIET`] (or four debounces, if longer) of quiet instead of one debounce.
pub const BURST_EVENTS: u64 = 16;

/// The quiet a burst must keep before its reconcile.
pub const BURST_QUIET: Duration = Duration::from_millis(250);

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            debounce: DEFAULT_DEBOUNCE,
            max_delay: Duration::from_secs(2),
            maintain_every: None,
            poll_every: Duration::from_secs(2),
            verify_on_start: true,
            index_changes: true,
            start_after: Duration::ZERO,
            low_priority: false,
        }
    }
}

impl WatchOptions {
    /// The defaults, with `maintain` every `[lifecycle] maintain_minutes` (0: never).
    pub fn from_config(config: &Config) -> WatchOptions {
        let minutes = config.lifecycle.maintain_minutes;
        WatchOptions {
            maintain_every: (minutes > 0).then(|| Duration::from_secs(minutes.saturating_mul(60))),
            ..WatchOptions::default()
        }
    }
}

/// Why the watcher ran a pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BatchKind {
    /// The first pass, by content hash.
    Start,
    /// Files changed.
    Changes,
    /// A timed reconcile while the watcher is unhealthy.
    Poll,
    /// The scheduled `maintain` run (with the reconciles around it).
    Maintain,
}

impl BatchKind {
    /// The lowercase name used in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            BatchKind::Start => "start",
            BatchKind::Changes => "changes",
            BatchKind::Poll => "poll",
            BatchKind::Maintain => "maintain",
        }
    }
}

/// What one pass of the watcher did.
#[derive(Debug)]
pub struct BatchReport {
    /// Why it ran.
    pub kind: BatchKind,
    /// The generation the pass covers: every event counted up to it is in the indices (when the
    /// pass succeeded).
    pub generation: u64,
    /// Memories (re)indexed, by name, in indexing order.
    pub indexed: Vec<String>,
    /// Memories removed from the indices, by name.
    pub removed: Vec<String>,
    /// Memories indexed for the first time.
    pub added: usize,
    /// Memories re-indexed because their content changed.
    pub updated: usize,
    /// Memories checked and found unchanged.
    pub unchanged: usize,
    /// Why everything was rebuilt, when it was.
    pub rebuilt: Option<String>,
    /// Files that could not be indexed (and other non-fatal problems), with the reason.
    pub problems: Vec<String>,
    /// What `maintain` found and changed ([`BatchKind::Maintain`] only).
    pub maintain: Option<MaintainReport>,
    /// Why the pass failed, when it did (the next pass tries again).
    pub error: Option<Error>,
    /// Wall time of the pass in milliseconds.
    pub elapsed_ms: u64,
}

impl BatchReport {
    fn new(kind: BatchKind, generation: u64) -> BatchReport {
        BatchReport {
            kind,
            generation,
            indexed: Vec::new(),
            removed: Vec::new(),
            added: 0,
            updated: 0,
            unchanged: 0,
            rebuilt: None,
            problems: Vec::new(),
            maintain: None,
            error: None,
            elapsed_ms: 0,
        }
    }

    fn absorb(&mut self, r: ReconcileReport) {
        self.indexed.extend(r.indexed);
        self.removed.extend(r.removed_names);
        self.added += r.added;
        self.updated += r.updated;
        // A second reconcile in one pass (after maintain) sees the same files again.
        self.unchanged = r.unchanged;
        if r.rebuilt.is_some() {
            self.rebuilt = r.rebuilt;
        }
        self.problems.extend(r.problems);
    }

    /// Whether the indices changed in this pass.
    pub fn changed(&self) -> bool {
        !self.indexed.is_empty() || !self.removed.is_empty() || self.rebuilt.is_some()
    }
}

/// How a pass of the worker finds what changed.
enum Check {
    /// Every memory's stat, then the content hash of those whose stat did not change.
    Hashes,
    /// Every memory's stat.
    Stats,
    /// These paths only, by stat and then by content hash.
    Paths(Vec<PathBuf>),
}

/// State shared by the notify callbacks, the worker and the handle.
struct Shared {
    generation: AtomicU64,
    /// The paths of recent relevant events, for [`VaultWatcher::changed_since`].
    log: std::sync::Mutex<ChangeLog>,
    reconciled: AtomicU64,
    healthy: AtomicBool,
    epoch: Instant,
    /// Nanoseconds after `epoch` of the last relevant event.
    last_event_ns: AtomicU64,
    /// The highest [`VaultWatcher::sync`] marker the raw watcher has seen.
    synced: std::sync::Mutex<u64>,
    synced_cv: std::sync::Condvar,
    /// The last marker number handed out.
    sync_sent: AtomicU64,
    /// Set once the first pass succeeded: before it, the indices may miss edits made while
    /// nothing watched.
    started: AtomicBool,
    /// Notified after every successful pass, for [`VaultWatcher::catch_up`].
    passed: std::sync::Mutex<()>,
    passed_cv: std::sync::Condvar,
}

/// The name prefix of this process's [`VaultWatcher::sync`] markers (in `state/`).
fn sync_prefix() -> String {
    format!(".sync-{}-", std::process::id())
}

impl Shared {
    /// Notes a sync marker the raw watcher saw, waking [`VaultWatcher::sync`].
    fn saw_sync(&self, n: u64) {
        let mut seen = self.synced.lock().unwrap_or_else(|e| e.into_inner());
        if n > *seen {
            *seen = n;
            self.synced_cv.notify_all();
        }
    }

    fn bump(&self) -> u64 {
        self.last_event_ns.store(self.epoch.elapsed().as_nanos() as u64, Ordering::SeqCst);
        self.generation.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Counts an event on `paths`: each is logged under the new generation.
    fn bump_with(&self, paths: impl Iterator<Item = PathBuf>) {
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        // Under the log's lock, so the log's generations only grow.
        let generation = self.bump();
        for path in paths {
            log.push(generation, path);
        }
    }

    /// See [`VaultWatcher::changed_since`].
    fn changed_since(&self, generation: u64) -> Option<Vec<PathBuf>> {
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        if generation < log.floor {
            return None;
        }
        let mut paths: Vec<PathBuf> =
            log.entries.iter().filter(|(g, _)| *g > generation).map(|(_, p)| p.clone()).collect();
        paths.sort();
        paths.dedup();
        Some(paths)
    }

    /// Counts an event whose paths are unknown (an overflow): the log cannot tell what changed
    /// up to the new generation.
    fn bump_lost(&self) {
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        let generation = self.bump();
        log.entries.clear();
        log.floor = generation;
    }

    fn since_last_event(&self) -> Duration {
        let last = Duration::from_nanos(self.last_event_ns.load(Ordering::SeqCst));
        self.epoch.elapsed().saturating_sub(last)
    }

    /// Records a notify failure; only failures that can lose events make the watcher unhealthy.
    fn failed(&self, e: &notify::Error) {
        let benign = match &e.kind {
            // A folder removed before its watch was added.
            notify::ErrorKind::PathNotFound | notify::ErrorKind::WatchNotFound => true,
            notify::ErrorKind::Io(io) => io.kind() == std::io::ErrorKind::NotFound,
            _ => false,
        };
        if benign {
            tracing::debug!(error = %e, "watcher: ignored");
        } else {
            tracing::warn!(error = %e, "the filesystem watcher failed; polling the vault instead");
            self.healthy.store(false, Ordering::SeqCst);
        }
    }
}

/// The paths of the latest relevant events, each with the generation it made. Bounded: the
/// oldest are dropped, and `floor` says from which generation on the log is complete.
#[derive(Default)]
struct ChangeLog {
    entries: std::collections::VecDeque<(u64, PathBuf)>,
    /// Every event of a generation above `floor` is in `entries`.
    floor: u64,
}

/// Paths kept in the [`ChangeLog`] at most; a caller further behind stats the whole vault.
const CHANGE_LOG_PATHS: usize = 4096;

impl ChangeLog {
    fn push(&mut self, generation: u64, path: PathBuf) {
        if self.entries.len() == CHANGE_LOG_PATHS
            && let Some((dropped, _)) = self.entries.pop_front()
        {
            self.floor = self.floor.max(dropped);
        }
        self.entries.push_back((generation, path));
    }
}

enum Msg {
    /// The debouncer has a batch with at least one relevant event.
    Batch,
    /// notify's queue overflowed: events were lost.
    Rescan,
    /// A command waits for the indices ([`VaultWatcher::catch_up`]): reconcile now, without
    /// waiting for quiet.
    Now,
    Stop,
}

/// A [`VaultWatcher::sync`] in progress: its marker was written, its event may not be seen yet.
#[derive(Debug)]
pub struct SyncTicket {
    n: u64,
}

/// Watches a vault and keeps its indices fresh; stops its threads when dropped.
pub struct VaultWatcher {
    shared: Arc<Shared>,
    /// Where [`VaultWatcher::sync`] writes its markers.
    sync_dir: PathBuf,
    /// A handle on the vault root, opened once: the markers are written and removed beneath it.
    root_fs: Option<crate::disk::Confined>,
    /// This watcher's marker file, when there is one: each sync renames it to its next number.
    marker: std::sync::Mutex<Option<PathBuf>>,
    tx: Sender<Msg>,
    raw: Option<RecommendedWatcher>,
    debouncer: Option<Debouncer<RecommendedWatcher, RecommendedCache>>,
    worker: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for VaultWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VaultWatcher")
            .field("generation", &self.generation())
            .field("reconciled_generation", &self.reconciled_generation())
            .field("healthy", &self.healthy())
            .finish_non_exhaustive()
    }
}

impl VaultWatcher {
    /// Starts watching `vault.root()` recursively; reconciles the indices after every debounced
    /// batch of changes and calls `on_batch` (on the worker thread) after every pass, the first
    /// one ([`BatchKind::Start`], by content hash) included.
    ///
    /// Returns once the watchers are registered and the indices are open (with
    /// [`WatchOptions::start_after`], before they are opened); the first pass runs on the worker
    /// thread. Changes made from then on are never missed: [`VaultWatcher::generation`] counts
    /// them from this return on.
    pub fn start(
        vault: Arc<Vault>,
        opts: WatchOptions,
        on_batch: impl FnMut(BatchReport) + Send + 'static,
    ) -> crate::Result<VaultWatcher> {
        let root = vault.root().canonicalize().unwrap_or_else(|_| vault.root().to_owned());
        let shared = Arc::new(Shared {
            generation: AtomicU64::new(0),
            log: std::sync::Mutex::new(ChangeLog::default()),
            reconciled: AtomicU64::new(0),
            healthy: AtomicBool::new(true),
            epoch: Instant::now(),
            last_event_ns: AtomicU64::new(0),
            synced: std::sync::Mutex::new(0),
            synced_cv: std::sync::Condvar::new(),
            sync_sent: AtomicU64::new(0),
            started: AtomicBool::new(false),
            passed: std::sync::Mutex::new(()),
            passed_cv: std::sync::Condvar::new(),
        });
        let (tx, rx) = std::sync::mpsc::channel::<Msg>();
        let start_err = |source| WatchError::Start { path: root.clone(), source };

        // The raw watcher: generation bumps, overflow detection.
        let raw = {
            let (shared, tx, dir) = (shared.clone(), tx.clone(), root.clone());
            let (sync_dir, prefix) = (root.join(STATE_DIR), sync_prefix());
            let mut w = notify::recommended_watcher(move |res: notify::Result<Event>| match res {
                Ok(ev)
                    if !ev.need_rescan()
                        && ev.paths.iter().any(|p| p.parent() == Some(&sync_dir)) =>
                {
                    // A sync marker: everything queued before it has been handled.
                    for p in &ev.paths {
                        let n = p
                            .file_name()
                            .and_then(|f| f.to_str())
                            .and_then(|f| f.strip_prefix(prefix.as_str()));
                        if let Some(n) = n.and_then(|n| n.parse().ok()) {
                            shared.saw_sync(n);
                        }
                    }
                }
                Ok(ev) if ev.need_rescan() => {
                    tracing::warn!("the filesystem watcher's queue overflowed; rescanning");
                    shared.healthy.store(false, Ordering::SeqCst);
                    shared.bump_lost();
                    let _ = tx.send(Msg::Rescan);
                }
                Ok(ev) => {
                    if ev.paths.iter().any(|p| is_relevant(&dir, p, &ev.kind)) {
                        // Tests make an event a lost one here (`watch.event=eio`): an overflow.
                        if crate::failpoint::step("watch.event").is_err() {
                            tracing::warn!("the filesystem watcher lost events; rescanning");
                            shared.healthy.store(false, Ordering::SeqCst);
                            shared.bump_lost();
                            let _ = tx.send(Msg::Rescan);
                            return;
                        }
                        shared.bump_with(ev.paths.into_iter());
                    }
                }
                Err(e) => shared.failed(&e),
            })
            .map_err(start_err)?;
            w.watch(&root, RecursiveMode::Recursive).map_err(start_err)?;
            w
        };

        // The debounced watcher: wakes the worker (which only listens when it indexes changes;
        // its start walks the whole vault, so a caller that reconciles by itself goes without).
        let debouncer = if !opts.index_changes {
            None
        } else {
            let (shared, tx, dir) = (shared.clone(), tx.clone(), root.clone());
            let mut d = notify_debouncer_full::new_debouncer(
                opts.debounce,
                None,
                move |res: DebounceEventResult| match res {
                    Ok(events) => {
                        let relevant = events.iter().any(|ev| {
                            ev.need_rescan()
                                || ev.paths.iter().any(|p| is_relevant(&dir, p, &ev.kind))
                        });
                        if relevant {
                            let _ = tx.send(Msg::Batch);
                        }
                    }
                    Err(errors) => {
                        for e in &errors {
                            shared.failed(e);
                        }
                        let _ = tx.send(Msg::Batch);
                    }
                },
            )
            .map_err(start_err)?;
            d.watch(&root, RecursiveMode::Recursive).map_err(start_err)?;
            Some(d)
        };

        // The worker opens the indices itself (they stay on its thread) and says when it has;
        // with `start_after`, it says so at once and opens them when the wait is over.
        let (ready_tx, ready_rx) = std::sync::mpsc::sync_channel::<crate::Result<()>>(1);
        let embedder = crate::index::select::embedder_for(&vault.config)?;
        let worker = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("memlane-watch".to_owned())
                .spawn(move || {
                    let mut on_batch = on_batch;
                    if opts.low_priority {
                        lower_priority();
                    }
                    let deferred = !opts.start_after.is_zero();
                    if deferred {
                        let _ = ready_tx.send(Ok(()));
                        if let Step::Stop = wait_before_start(&rx, opts.start_after) {
                            return;
                        }
                    }
                    let idx = match Indexes::open(&vault, embedder) {
                        Ok(mut idx) => {
                            if !deferred {
                                let _ = ready_tx.send(Ok(()));
                            }
                            // A batch is done once committed; its merge runs on.
                            idx.merge_in_background();
                            idx
                        }
                        Err(e) if deferred => {
                            // No start pass and no `maintain`; the caller's own checks go on.
                            tracing::warn!(error = %DisplayChain(&e), "the watcher cannot open the indices");
                            let mut report = BatchReport::new(BatchKind::Start, 0);
                            report.error = Some(e);
                            on_batch(report);
                            return;
                        }
                        Err(e) => {
                            let _ = ready_tx.send(Err(e));
                            return;
                        }
                    };
                    Worker { vault, idx, shared, opts, rx, on_batch }.run();
                })
                .map_err(WatchError::Thread)?
        };
        let watcher = VaultWatcher {
            shared,
            sync_dir: root.join(STATE_DIR),
            root_fs: crate::disk::Confined::open_canonical(&root, root.clone()).ok(),
            marker: std::sync::Mutex::new(None),
            tx,
            raw: Some(raw),
            debouncer,
            worker: Some(worker),
        };
        watcher.remove_dead_markers();
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(watcher),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(WatchError::Stopped.into()),
        }
    }

    /// Removes the markers of watchers whose process is gone (a killed server leaves its one
    /// marker behind); on systems where a process cannot be checked, they stay.
    fn remove_dead_markers(&self) {
        let Some(fs) = &self.root_fs else { return };
        let Ok(entries) = fs.read_dir(&self.sync_dir) else { return };
        for e in entries {
            let pid = e.name.to_str().and_then(|n| n.strip_prefix(".sync-")).and_then(|rest| {
                let (pid, n) = rest.split_once('-')?;
                n.parse::<u64>().ok()?;
                pid.parse::<u32>().ok()
            });
            if let Some(pid) = pid
                && e.kind == crate::disk::Kind::File
                && crate::vault::process_alive(pid) == Some(false)
            {
                let _ = fs.remove_file(&self.sync_dir.join(&e.name));
            }
        }
    }

    /// Bumped (immediately, from a raw non-debounced watcher) on every event that may change a
    /// memory, so a caller can tell "something may have changed since the last reconcile" within
    /// a few milliseconds of a save.
    pub fn generation(&self) -> u64 {
        self.shared.generation.load(Ordering::SeqCst)
    }

    /// The paths of the relevant events counted after `generation` (a value of
    /// [`VaultWatcher::generation`]), each once, or `None` when they are not all known any more
    /// (too many since, or the event queue overflowed): then stat the whole vault. Paths may
    /// include events counted after a later generation too.
    pub fn changed_since(&self, generation: u64) -> Option<Vec<PathBuf>> {
        self.shared.changed_since(generation)
    }

    /// The generation the last successful pass covered. The indices reflect the files when it
    /// equals [`VaultWatcher::generation`] and the watcher is [`healthy`](Self::healthy).
    pub fn reconciled_generation(&self) -> u64 {
        self.shared.reconciled.load(Ordering::SeqCst)
    }

    /// Tells the watcher that its caller brought the indices up to date with every change up
    /// to `generation` (a value of [`VaultWatcher::generation`] read before that reconcile), so
    /// the worker skips a pass that would find nothing to do. The MCP server, which keeps its own
    /// indices open, uses it.
    pub fn covered(&self, generation: u64) {
        self.shared.reconciled.fetch_max(generation, Ordering::SeqCst);
    }

    /// Waits until the raw watcher has handled every event the kernel queued before this call,
    /// so that [`VaultWatcher::generation`] covers every change made before it. It creates a
    /// marker file in `state/` and waits (at most `timeout`) for its event, which comes after all
    /// earlier ones. False on a timeout or an error: callers should then stat the vault.
    pub fn sync(&self, timeout: Duration) -> bool {
        self.sync_begin().is_some_and(|t| self.sync_wait(t, timeout))
    }

    /// The first half of [`VaultWatcher::sync`]: renames the marker to its next number (the
    /// first sync creates it) and returns at once, so the caller can work while the watcher
    /// catches up. A rename opens no file, and its event comes after every earlier one. `None`
    /// if the marker cannot be written.
    pub fn sync_begin(&self) -> Option<SyncTicket> {
        let fs = self.root_fs.as_ref()?;
        // One marker per watcher, renamed in turn: numbers and renames in the same order.
        let mut marker = self.marker.lock().unwrap_or_else(|e| e.into_inner());
        let n = self.shared.sync_sent.fetch_add(1, Ordering::SeqCst) + 1;
        let path = self.sync_dir.join(format!("{}{n}", sync_prefix()));
        // Never through a link (a planted link of either name makes the sync fail, never
        // followed). Beneath the vault root, which holds `state/`. An empty file, never synced:
        // only its events matter. `state/` is created only when it is missing.
        let renamed = marker.take().is_some_and(|old| fs.rename(&old, &path).is_ok());
        let made = renamed
            || match fs.append_unsynced(&path, b"") {
                Err(e) if e.source.kind() == std::io::ErrorKind::NotFound => fs
                    .create_dir_all(&self.sync_dir)
                    .and_then(|()| fs.append_unsynced(&path, b""))
                    .is_ok(),
                r => r.is_ok(),
            };
        if !made {
            return None;
        }
        *marker = Some(path);
        Some(SyncTicket { n })
    }

    /// The second half of [`VaultWatcher::sync`]: waits (at most `timeout`) until the watcher has
    /// seen the ticket's marker, so every change made before [`VaultWatcher::sync_begin`] is
    /// counted in [`VaultWatcher::generation`]. The marker stays until the watcher stops.
    pub fn sync_wait(&self, ticket: SyncTicket, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut seen = self.shared.synced.lock().unwrap_or_else(|e| e.into_inner());
        while *seen < ticket.n {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            seen =
                self.shared.synced_cv.wait_timeout(seen, left).unwrap_or_else(|e| e.into_inner()).0;
        }
        *seen >= ticket.n
    }

    /// False once the watcher failed or overflowed: events may have been missed, and callers
    /// should reconcile (a full stat) before they read. The worker then polls.
    pub fn healthy(&self) -> bool {
        self.shared.healthy.load(Ordering::SeqCst)
    }

    /// For a watcher that keeps the indices up to date itself (`index_changes`): waits (at most
    /// `timeout` in all) until the indices on disk reflect every change made before this call —
    /// the raw watcher has seen them ([`VaultWatcher::sync`]) and a pass covering them succeeded,
    /// run at once when one is due (the first pass, by content hash, must have succeeded too).
    /// False on a timeout and when the watcher is unhealthy (events may have been lost).
    pub fn catch_up(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let shared = &self.shared;
        if !shared.healthy.load(Ordering::SeqCst) || !self.sync(timeout) {
            return false;
        }
        let generation = shared.generation.load(Ordering::SeqCst);
        let done = || {
            shared.started.load(Ordering::SeqCst)
                && shared.reconciled.load(Ordering::SeqCst) >= generation
        };
        if !done() {
            // During the first pass, the worker reads its messages once it is over.
            let _ = self.tx.send(Msg::Now);
            let guard = shared.passed.lock().unwrap_or_else(|e| e.into_inner());
            let left = deadline.saturating_duration_since(Instant::now());
            let _ = shared
                .passed_cv
                .wait_timeout_while(guard, left, |()| {
                    !done() && shared.healthy.load(Ordering::SeqCst)
                })
                .unwrap_or_else(|e| e.into_inner());
        }
        done() && shared.healthy.load(Ordering::SeqCst)
    }
}

impl Drop for VaultWatcher {
    fn drop(&mut self) {
        let marker = self.marker.get_mut().unwrap_or_else(|e| e.into_inner()).take();
        if let (Some(fs), Some(marker)) = (&self.root_fs, marker) {
            let _ = fs.remove_file(&marker);
        }
        if let Some(d) = self.debouncer.take() {
            d.stop();
        }
        drop(self.raw.take());
        let _ = self.tx.send(Msg::Stop);
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

/// Waits `wait` before the worker's first pass ([`WatchOptions::start_after`]): the batches
/// that arrive meanwhile are covered by that pass; a command that waits for the indices
/// ([`Msg::Now`]) ends the wait.
fn wait_before_start(rx: &Receiver<Msg>, wait: Duration) -> Step {
    let deadline = Instant::now() + wait;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Step::Go;
        }
        match rx.recv_timeout(left) {
            Ok(Msg::Stop) | Err(RecvTimeoutError::Disconnected) => return Step::Stop,
            Ok(Msg::Now) | Err(RecvTimeoutError::Timeout) => return Step::Go,
            Ok(Msg::Batch | Msg::Rescan) => {}
        }
    }
}

/// Lowers the calling thread's CPU priority to a nice value of 10 (on Linux a thread's own; the
/// threads it starts inherit it). Elsewhere the nice value is the whole process's: left alone.
pub(crate) fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        const NICE: i32 = 10;
        if rustix::process::getpriority_process(None).is_ok_and(|n| n < NICE)
            && let Err(e) = rustix::process::setpriority_process(None, NICE)
        {
            tracing::debug!(error = %e, "cannot lower the watcher's priority");
        }
    }
}

struct Worker<F> {
    vault: Arc<Vault>,
    idx: Indexes,
    shared: Arc<Shared>,
    opts: WatchOptions,
    rx: Receiver<Msg>,
    on_batch: F,
}

/// What the worker does next.
enum Step {
    Go,
    Stop,
}

impl<F: FnMut(BatchReport)> Worker<F> {
    fn run(mut self) {
        let start = self.pass(BatchKind::Start);
        (self.on_batch)(start);
        let mut next_maintain = self.opts.maintain_every.map(|d| Instant::now() + d);
        loop {
            let now = Instant::now();
            let mut wait =
                next_maintain.map_or(Duration::MAX, |t| t.saturating_duration_since(now));
            if !self.shared.healthy.load(Ordering::SeqCst) && self.opts.index_changes {
                wait = wait.min(self.opts.poll_every);
            }
            let kind = match self.rx.recv_timeout(wait) {
                Ok(Msg::Stop) | Err(RecvTimeoutError::Disconnected) => return,
                // The caller reconciles on demand.
                Ok(Msg::Batch | Msg::Rescan | Msg::Now) if !self.opts.index_changes => continue,
                Ok(Msg::Now) => {
                    if self.shared.reconciled.load(Ordering::SeqCst)
                        >= self.shared.generation.load(Ordering::SeqCst)
                    {
                        continue;
                    }
                    BatchKind::Changes
                }
                Ok(Msg::Batch | Msg::Rescan) => {
                    if let Step::Stop = self.settle() {
                        return;
                    }
                    if self.shared.healthy.load(Ordering::SeqCst)
                        && self.shared.reconciled.load(Ordering::SeqCst)
                            >= self.shared.generation.load(Ordering::SeqCst)
                    {
                        // Someone else (see `VaultWatcher::covered`) already indexed it all.
                        continue;
                    }
                    BatchKind::Changes
                }
                Err(RecvTimeoutError::Timeout) => {
                    if next_maintain.is_some_and(|t| Instant::now() >= t) {
                        next_maintain = self.opts.maintain_every.map(|d| Instant::now() + d);
                        BatchKind::Maintain
                    } else if !self.opts.index_changes {
                        continue;
                    } else {
                        BatchKind::Poll
                    }
                }
            };
            let report = self.pass(kind);
            (self.on_batch)(report);
        }
    }

    /// Waits until the vault has been quiet for the debounce (for a burst, [`BURST_QUIET`]; at
    /// most `max_delay` in all), swallowing the batches that arrive meanwhile: one reconcile
    /// covers them all, so each file of a burst is read once.
    fn settle(&mut self) -> Step {
        let began = Instant::now();
        loop {
            while let Ok(msg) = self.rx.try_recv() {
                match msg {
                    Msg::Stop => return Step::Stop,
                    // A command waits: no more quiet.
                    Msg::Now => return Step::Go,
                    Msg::Batch | Msg::Rescan => {}
                }
            }
            let pending = self
                .shared
                .generation
                .load(Ordering::SeqCst)
                .saturating_sub(self.shared.reconciled.load(Ordering::SeqCst));
            let quiet = if pending > BURST_EVENTS {
                BURST_QUIET.max(self.opts.debounce * 4)
            } else {
                self.opts.debounce
            };
            let since = self.shared.since_last_event();
            if since >= quiet || began.elapsed() >= self.opts.max_delay {
                return Step::Go;
            }
            match self.rx.recv_timeout(quiet - since) {
                Ok(Msg::Stop) | Err(RecvTimeoutError::Disconnected) => return Step::Stop,
                Ok(Msg::Now) => return Step::Go,
                Ok(_) | Err(RecvTimeoutError::Timeout) => {}
            }
        }
    }

    fn reconcile(&mut self, how: Check) -> crate::Result<ReconcileReport> {
        let report = match how {
            Check::Hashes => self.idx.reconcile_verify(&self.vault),
            Check::Stats => self.idx.reconcile(&self.vault),
            Check::Paths(paths) => self.idx.reconcile_paths(&self.vault, &paths),
        }?;
        if !report.added_ids.is_empty() {
            // Start the usage clock of memories seen for the first time (as every reader does).
            let (now, cfg) = (self.vault.clock.now(), &self.vault.config.lifecycle);
            UsageStore::update(self.vault.root(), |state| {
                for id in &report.added_ids {
                    state.observe(id, now, cfg);
                }
            })?;
        }
        Ok(report)
    }

    fn pass(&mut self, kind: BatchKind) -> BatchReport {
        let began = Instant::now();
        // Read before reconciling: every event counted so far is covered by this pass.
        let generation = self.shared.generation.load(Ordering::SeqCst);
        let mut report = BatchReport::new(kind, generation);
        let how = match kind {
            BatchKind::Start if self.opts.verify_on_start => Check::Hashes,
            // The paths the events named since the last pass, when they are all known: an edit
            // that left a file's stat as it was (off Unix, where no ctime is recorded, one that
            // gave it back its size and mtime: `cp -p`, `rsync -t`) is found by its content hash.
            BatchKind::Changes => self
                .shared
                .changed_since(self.shared.reconciled.load(Ordering::SeqCst))
                .map_or(Check::Stats, Check::Paths),
            _ => Check::Stats,
        };
        if kind != BatchKind::Start {
            // Tests stop the process here, before a pass writes anything.
            let _ = crate::failpoint::step("watch.pass");
        }
        let result = self.reconcile(how).and_then(|r| {
            report.absorb(r);
            if kind == BatchKind::Maintain {
                let m = maintain(&self.vault, &self.idx, self.vault.clock.now())?;
                if m.changed() {
                    report.absorb(self.reconcile(Check::Stats)?);
                }
                report.maintain = Some(m);
            }
            Ok(())
        });
        match result {
            Ok(()) => {
                let _guard = self.shared.passed.lock().unwrap_or_else(|e| e.into_inner());
                self.shared.reconciled.fetch_max(generation, Ordering::SeqCst);
                self.shared.started.store(true, Ordering::SeqCst);
                self.shared.passed_cv.notify_all();
            }
            Err(e) => {
                tracing::warn!(error = %DisplayChain(&e), "the watcher could not update the indices");
                report.error = Some(e);
            }
        }
        report.elapsed_ms = began.elapsed().as_millis() as u64;
        tracing::debug!(
            kind = kind.as_str(),
            indexed = report.indexed.len(),
            removed = report.removed.len(),
            ms = report.elapsed_ms,
            "watcher pass"
        );
        report
    }
}

/// Whether an event on `path` may change a memory of the vault at `root`: not an access, not
/// under `indices/`, `state/`, `.trash/` or `.history/`, not a dot file (memlane's own temp
/// files are dot files), and a `.md` file, a folder, or a vanished path that could have been one.
pub fn is_relevant(root: &Path, path: &Path, kind: &EventKind) -> bool {
    if matches!(kind, EventKind::Access(_)) {
        return false;
    }
    let Ok(rel) = path.strip_prefix(root) else { return false };
    let mut parts = Vec::new();
    for c in rel.components() {
        let Component::Normal(p) = c else { return false };
        let Some(p) = p.to_str() else { return false };
        parts.push(p);
    }
    let Some(&name) = parts.last() else {
        // The root itself: only its disappearance matters.
        return matches!(kind, EventKind::Remove(_));
    };
    if RESERVED_DIRS.contains(&parts[0]) || parts.iter().any(|p| p.starts_with('.')) {
        return false;
    }
    if name.ends_with(".md") {
        return true;
    }
    if matches!(kind, EventKind::Create(CreateKind::Folder) | EventKind::Remove(RemoveKind::Folder))
    {
        return true;
    }
    // Stat-ed beneath the vault root, never through a link.
    let stat = crate::disk::Confined::open_canonical(root, root.to_owned())
        .map_err(|e| e.source)
        .and_then(|fs| {
            fs.stat(path).map_err(|e| e.source)?.ok_or(std::io::ErrorKind::NotFound.into())
        });
    match stat {
        Ok(st) => st.kind == crate::disk::Kind::Dir,
        // Gone: a folder removed or renamed away, unless it looks like an editor's temp file.
        Err(_) => {
            matches!(kind, EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(_)))
                && !looks_temporary(name)
        }
    }
}

/// Editor and tool temp-file names: `name~`, `#name#`, `*.swp`, `*.tmp`, vim's `4913`.
fn looks_temporary(name: &str) -> bool {
    name.ends_with('~')
        || name.starts_with('#')
        || name.chars().all(|c| c.is_ascii_digit())
        || [".swp", ".swx", ".tmp", ".part", ".crdownload", ".bak"]
            .iter()
            .any(|ext| name.ends_with(ext))
        || name.contains(".tmp")
}

#[cfg(test)]
mod tests {
    use notify::event::{AccessKind, CreateKind, DataChange, ModifyKind, RenameMode};

    use super::*;

    #[test]
    fn relevance_of_paths() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir_all(root.join("notes")).unwrap();
        std::fs::write(root.join("readme.txt"), "x").unwrap();
        let create = EventKind::Create(CreateKind::File);
        let modify = EventKind::Modify(ModifyKind::Data(DataChange::Content));
        let rename = EventKind::Modify(ModifyKind::Name(RenameMode::From));
        let remove = EventKind::Remove(RemoveKind::Any);
        let yes = |p: &str, k: &EventKind| assert!(is_relevant(root, &root.join(p), k), "{p}");
        let no = |p: &str, k: &EventKind| assert!(!is_relevant(root, &root.join(p), k), "{p}");
        yes("a.md", &create);
        yes("notes/b.md", &modify);
        yes("notes", &EventKind::Create(CreateKind::Folder));
        yes("notes", &EventKind::Modify(ModifyKind::Name(RenameMode::To)));
        yes("gone-folder", &rename);
        yes("gone-folder", &remove);
        no("a.md", &EventKind::Access(AccessKind::Any));
        no("indices/manifest.tsv", &create);
        no("indices/keyword/x.md", &create);
        no("state/usage.json", &modify);
        no("state/usage.bin", &modify);
        no("state/usage.journal", &modify);
        no(".trash/a.md", &create);
        no(".history/a/1.md", &create);
        no(".a.md.123.abc.tmp", &create);
        no("notes/.hidden.md", &modify);
        no("readme.txt", &modify);
        no("a.md.tmp.4242", &rename);
        no("a.md~", &remove);
        no("4913", &remove);
        assert!(!is_relevant(root, Path::new("/elsewhere/a.md"), &create));
    }

    #[test]
    fn options_follow_config() {
        let mut c = Config::default();
        assert_eq!(WatchOptions::from_config(&c).maintain_every, Some(Duration::from_secs(3600)));
        c.lifecycle.maintain_minutes = 0;
        assert_eq!(WatchOptions::from_config(&c).maintain_every, None);
    }
}
