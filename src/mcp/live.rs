//! What the server keeps between calls: the open indices (kept fresh by the watcher's change
//! counter, the server's own writes and other processes' index writes), the client's logging
//! level, and the cold check.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

#[allow(deprecated)]
// MCP logging is deprecated by a draft of the protocol; clients still use it.
use rmcp::model::LoggingLevel;
use serde_json::Value;

use crate::index::store::Indexes;
use crate::ops::usage::{self, UseKind};
use crate::vault::Vault;

/// What tells the server whether the vault changed since it last reconciled: the vault watcher.
pub trait ChangeSource: Send + Sync {
    /// Starts a check that will cover every change to a memory file made before this call.
    fn begin(&self) -> Option<crate::watch::SyncTicket>;
    /// Finishes it: a counter that has moved for every such change, or `None` when that cannot
    /// be known (no ticket, a timeout, the watcher failed): then the vault is stat-ed.
    fn finish(&self, ticket: Option<crate::watch::SyncTicket>) -> Option<u64>;
    /// The caller's indices now reflect every change counted up to `generation`.
    fn covered(&self, generation: u64);
    /// The paths changed after `generation`, when all are known (see
    /// [`crate::watch::VaultWatcher::changed_since`]).
    fn changed_since(&self, generation: u64) -> Option<Vec<std::path::PathBuf>>;
}

/// How long a call waits for the watcher to catch up before it stats the vault instead.
pub const SYNC_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(200);

impl ChangeSource for Mutex<crate::watch::VaultWatcher> {
    fn begin(&self) -> Option<crate::watch::SyncTicket> {
        let w = self.lock().unwrap_or_else(|e| e.into_inner());
        if w.healthy() { w.sync_begin() } else { None }
    }

    fn finish(&self, ticket: Option<crate::watch::SyncTicket>) -> Option<u64> {
        let w = self.lock().unwrap_or_else(|e| e.into_inner());
        let synced = ticket.is_some_and(|t| w.sync_wait(t, SYNC_TIMEOUT));
        (synced && w.healthy()).then(|| w.generation())
    }

    fn covered(&self, generation: u64) {
        self.lock().unwrap_or_else(|e| e.into_inner()).covered(generation);
    }

    fn changed_since(&self, generation: u64) -> Option<Vec<std::path::PathBuf>> {
        self.lock().unwrap_or_else(|e| e.into_inner()).changed_since(generation)
    }
}

/// A shared [`ChangeSource`].
pub type ChangeCounter = Arc<dyn ChangeSource>;

/// The logger name of cold notifications.
pub const COLD_LOGGER: &str = "memlane.temperature";

/// The message of a cold notification.
pub const COLD_MESSAGE: &str = "Cold memories detected; consider summarizing via summarize_memory";

/// No level set by the client: send no log notifications.
const LEVEL_OFF: u8 = u8::MAX;

struct Cached {
    idx: Indexes,
    /// The change counter when the indices were last reconciled.
    generation: Option<u64>,
    /// The manifest's and its journal's (mtime, size, inode) after our last reconcile: another
    /// process's index write changes them.
    manifest: ManifestStamp,
}

/// The server's state shared by every tool call.
pub struct Live {
    vault: Arc<Vault>,
    cache: Mutex<Option<Cached>>,
    /// Set by the server's own writes: the next call reconciles even when the watcher has not
    /// reported the write yet.
    dirty: AtomicBool,
    changes: Mutex<Option<ChangeCounter>>,
    level: AtomicU8,
    usage: usage::Buffered,
    /// Why the vault cannot be written, while the indices in use were built in memory for that
    /// reason (a read-only vault, a full disk): searches say so in their result.
    unwritable: Mutex<Option<String>>,
    /// Whether the log has said the vault cannot be written (said once).
    unwritable_logged: AtomicBool,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live").field("vault", &self.vault.root()).finish_non_exhaustive()
    }
}

/// The stamps of the manifest and its journal in the indices folder `dir` (see [`file_stamp`]).
type ManifestStamp = [Option<(SystemTime, u64, u64)>; 2];

fn manifest_stamp(dir: &std::path::Path) -> ManifestStamp {
    use crate::index::manifest::{FILE, JOURNAL};
    [file_stamp(&dir.join(FILE)), file_stamp(&dir.join(JOURNAL))]
}

/// A file's identity and version: (mtime, size, inode). Every file this reads is replaced by
/// rename when written, or only appended to (a journal), so a new inode or size shows a write
/// even within one mtime tick.
fn file_stamp(path: &std::path::Path) -> Option<(SystemTime, u64, u64)> {
    let md = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&md);
    #[cfg(not(unix))]
    let ino = 0;
    Some((md.modified().ok()?, md.len(), ino))
}

#[allow(deprecated)]
fn level_rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

impl Live {
    /// Fresh state over `vault`: no indices open yet, no watcher, no logging.
    pub fn new(vault: Arc<Vault>) -> Live {
        Live {
            vault,
            cache: Mutex::new(None),
            dirty: AtomicBool::new(false),
            changes: Mutex::new(None),
            level: AtomicU8::new(LEVEL_OFF),
            usage: usage::Buffered::default(),
            unwritable: Mutex::new(None),
            unwritable_logged: AtomicBool::new(false),
        }
    }

    /// Uses `counter` to skip the vault stat when nothing changed since the last call.
    pub fn set_change_counter(&self, counter: ChangeCounter) {
        *self.changes.lock().unwrap_or_else(|e| e.into_inner()) = Some(counter);
    }

    fn source(&self) -> Option<ChangeCounter> {
        self.changes.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Records that this server wrote to the vault.
    pub fn wrote(&self) {
        self.dirty.store(true, Ordering::SeqCst);
    }

    /// Runs `f` with indices that reflect every file on disk as of this call.
    ///
    /// The indices stay open between calls. With a watcher, `f` runs on them right away while
    /// the watcher confirms (a marker file's event, see [`crate::watch::VaultWatcher::sync`])
    /// that no memory file changed since the last reconcile; if one did, the indices are
    /// reconciled and `f` runs again. Without a healthy watcher, after this server's own writes,
    /// and when another process rewrote the manifest, they are reconciled (a stat of the vault;
    /// reopened in the last case) before `f` runs. `f` must not have side effects.
    pub fn with_indexes<R>(&self, f: impl Fn(&Indexes) -> crate::Result<R>) -> crate::Result<R> {
        let vault = &*self.vault;
        let index_dir = Indexes::dir_of(vault);
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let t0 = std::time::Instant::now();
        // The ticket is taken before anything is read: every change before it is counted.
        let source = self.source();
        let ticket = source.as_ref().and_then(|s| s.begin());
        let dirty = self.dirty.swap(false, Ordering::SeqCst);
        let stamp = manifest_stamp(&index_dir);
        let usable = !dirty
            && ticket.is_some()
            && cache.as_ref().is_some_and(|c| c.manifest == stamp && c.generation.is_some());
        // Speculate: most calls find nothing changed, and the search hides the watcher's latency.
        // A panic of the search library (a store damaged past the checks on open) is caught:
        // the indices are rebuilt below.
        let early = if usable {
            crate::index::store::catch_index_panic(|| f(&cache.as_ref().expect("checked").idx))
        } else {
            None
        };
        let generation = source.as_ref().and_then(|s| s.finish(ticket));
        let sync_ms = t0.elapsed().as_secs_f64() * 1e3;
        if let Some(r) = early
            && generation.is_some()
            && cache.as_ref().is_some_and(|c| c.generation == generation)
        {
            tracing::debug!(sync_ms, reconciled = false, "indices ready");
            return r;
        }
        let reopen = cache.as_ref().is_none_or(|c| c.manifest != stamp);
        let fresh = || {
            let embedder = crate::index::select::embedder_for(&vault.config)?;
            Indexes::open_reconciled(vault, embedder)
        };
        // With the watcher's word on what changed since the last reconcile (this server's own
        // writes included: `finish` waited for their events), only those paths are looked at.
        let changed = match (&source, cache.as_ref().and_then(|c| c.generation), generation) {
            (Some(s), Some(since), Some(_)) => s.changed_since(since),
            _ => None,
        };
        let (idx, report) = match cache.take() {
            Some(mut c) if !reopen => match match &changed {
                Some(paths) => c.idx.reconcile_paths(vault, paths),
                None => c.idx.reconcile(vault),
            } {
                Ok(report) => (c.idx, report),
                // The disk filled up or became read-only since: read from the files.
                Err(e) if crate::index::store::unwritable(&e).is_some() => fresh()?,
                Err(e) => return Err(e),
            },
            _ => fresh()?,
        };
        if let Some(why) = &report.not_saved {
            self.note_unwritable(why);
            *self.unwritable.lock().unwrap_or_else(|e| e.into_inner()) = Some(why.clone());
        } else if !idx.is_in_memory() {
            *self.unwritable.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
        if let Some(d) = &report.repaired {
            tracing::warn!(
                "the search indices were damaged ({d}); rebuilt them from the memory files"
            );
        }
        for p in &report.problems {
            tracing::warn!("{p}");
        }
        // Memories indexed for the first time start their usage clocks (written with the
        // warm-ups, within a second; those this server created have theirs started already).
        self.observe(&report.added_ids, UseKind::Found);
        if let (Some(s), Some(g)) = (&source, generation) {
            s.covered(g);
        }
        *cache = Some(Cached { idx, generation, manifest: manifest_stamp(&index_dir) });
        tracing::debug!(
            sync_ms,
            checked_ms = t0.elapsed().as_secs_f64() * 1e3,
            paths = changed.as_ref().map(Vec::len),
            reconciled = true,
            "indices ready"
        );
        let cached = cache.as_mut().expect("filled just above");
        if let Some(r) = crate::index::store::catch_index_panic(|| f(&cached.idx)) {
            return r;
        }
        let embedder = cached.idx.embedder().clone();
        let (fresh, report) = Indexes::rebuild_after_failure(vault, embedder)?;
        if let Some(d) = &report.repaired {
            tracing::warn!(
                "the search indices were damaged ({d}); rebuilt them from the memory files"
            );
        }
        cached.idx = fresh;
        cached.manifest = manifest_stamp(&index_dir);
        crate::index::store::catch_index_panic(|| f(&cached.idx)).unwrap_or_else(|| {
            Err(crate::index::store::IndexError::Unreadable(cached.idx.dir().to_owned()).into())
        })
    }

    /// Why the vault cannot be written, while the indices in use live in memory for that reason
    /// (what a search result warns about).
    pub fn unwritable(&self) -> Option<String> {
        self.unwritable.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Logs once that the vault cannot be written (`why`, in words).
    pub fn note_unwritable(&self, why: &str) {
        if !self.unwritable_logged.swap(true, Ordering::SeqCst) {
            tracing::warn!("{}", crate::index::store::unwritable_message(why));
        }
    }

    /// The usage this server buffers (see [`usage::Buffered`]).
    pub fn usage(&self) -> &usage::Buffered {
        &self.usage
    }

    /// Memories just created or found new start their usage clocks.
    pub fn observe<'a>(&self, ids: impl IntoIterator<Item = &'a String>, kind: UseKind) {
        self.usage.observe(&self.vault, ids, kind);
    }

    /// Writes the buffered usage to the state file.
    pub fn flush(&self) -> crate::Result<()> {
        self.usage.flush(&self.vault)
    }

    /// Records the level the client asked for (`logging/setLevel`).
    #[allow(deprecated)]
    pub fn set_level(&self, level: LoggingLevel) {
        self.level.store(level_rank(level), Ordering::SeqCst);
    }

    /// Whether the client asked for messages of `level` or more severe ones.
    #[allow(deprecated)]
    pub fn wants(&self, level: LoggingLevel) -> bool {
        let set = self.level.load(Ordering::SeqCst);
        set != LEVEL_OFF && level_rank(level) >= set
    }

    /// The cold check: the payload of a `notifications/message` for the memories that crossed
    /// below `notify_threshold` since they were last announced, or `None` when there are none or
    /// the client did not ask for warnings (then nothing is marked announced).
    #[allow(deprecated)]
    pub fn cold_check(&self) -> crate::Result<Option<Value>> {
        if !self.wants(LoggingLevel::Warning) {
            return Ok(None);
        }
        self.flush()?;
        let (memories, reset) = crate::ops::maintenance::announce_cold(&self.vault)?;
        if let Some(r) = reset {
            tracing::warn!("{r}");
        }
        if memories.is_empty() {
            return Ok(None);
        }
        let notice = crate::ops::wire::ColdNotice {
            message: COLD_MESSAGE.to_owned(),
            suggested_action: "summarize_memory".to_owned(),
            memories,
        };
        Ok(Some(serde_json::to_value(notice).map_err(|e| crate::Error::Encode {
            what: "the cold notification",
            problem: e.to_string(),
        })?))
    }
}
