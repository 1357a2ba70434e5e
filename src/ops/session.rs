//! How a front end holds the indices between operations, the two ways memlane does it: a
//! process that runs one command opens and reconciles them on first use ([`Process`]); a
//! server keeps them open between calls, kept fresh by the vault watcher, its own writes and
//! other processes' index writes ([`Server`]). A front end holds one of them and hands it to
//! ops through [`super::Session::indices`]; only ops touches the indices themselves.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::index::store::{IndexError, Indexes, ReconcileReport, catch_index_panic};
use crate::vault::Vault;

/// Which way a [`super::Session`] holds its indices.
#[derive(Clone, Copy)]
pub enum Indices<'a> {
    /// Opened on first use, for the rest of a one-command process.
    Process(&'a Process),
    /// Kept open between calls by a server.
    Server(&'a Server),
}

impl std::fmt::Debug for Indices<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Indices::Process(_) => "Indices::Process",
            Indices::Server(_) => "Indices::Server",
        })
    }
}

/// A one-command process's hold on the indices: opened (and reconciled) on first use, closed
/// after a write, left to the OS at exit.
#[derive(Default)]
pub struct Process {
    indexes: RefCell<Option<Indexes>>,
}

impl std::fmt::Debug for Process {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Process").field("open", &self.indexes.borrow().is_some()).finish()
    }
}

impl Drop for Process {
    /// A command's process ends right after it: the indices (a manifest of every memory, the
    /// model's weights, key maps) are left to the OS, which takes the whole address space back
    /// at exit at once, instead of being freed piece by piece (about 5 ms at 10k memories).
    fn drop(&mut self) {
        if let Some(idx) = self.indexes.get_mut().take() {
            std::mem::forget(idx);
        }
    }
}

impl Process {
    /// Nothing open yet.
    pub fn new() -> Process {
        Process::default()
    }

    /// Opens and reconciles the indices on first use (where the vault cannot be written they
    /// are built in memory, see [`Indexes::open_reconciled`]), and runs `f` on them. Reading
    /// them is guarded: indices that make the reader panic (damaged segments) are rebuilt from
    /// the files, once, and read again. Every reconcile's report goes to `reconciled`.
    ///
    /// With `speculate` (`f` only reads), `f` runs on the indices as soon as they are open,
    /// while the files are still being checked, and its result stands when nothing changed (see
    /// [`Indexes::open_fresh_speculating`]).
    pub(crate) fn with_indexes<R>(
        &self,
        vault: &Vault,
        reconciled: &dyn Fn(&ReconcileReport),
        speculate: bool,
        f: &dyn Fn(&Indexes) -> crate::Result<R>,
    ) -> crate::Result<R> {
        if self.indexes.borrow().is_none() {
            let embedder = crate::index::select::embedder_for(&vault.config)?;
            // A live watcher may vouch for the indices (see `crate::fresh`): no vault stat then.
            let wait = std::time::Duration::from_millis(vault.config.watch.ask_wait_ms);
            let vouch = || {
                if wait.is_zero() {
                    return None;
                }
                match crate::fresh::ask(vault.root(), wait) {
                    Ok(digest) => Some(digest),
                    Err(why) => {
                        tracing::debug!(%why, "checking the files myself");
                        None
                    }
                }
            };
            // `f` runs while the files are checked; its result stands when nothing changed.
            let early_f = |idx: &Indexes| catch_index_panic(|| f(idx));
            let early_f: Option<&dyn Fn(&Indexes) -> _> = speculate.then_some(&early_f);
            let (idx, report, early) =
                Indexes::open_fresh_speculating(vault, embedder, &vouch, early_f)?;
            reconciled(&report);
            *self.indexes.borrow_mut() = Some(idx);
            if let Some(Some(r)) = early {
                return r;
            }
        }
        let first = {
            let guard = self.indexes.borrow();
            let idx = guard.as_ref().expect("opened above");
            catch_index_panic(|| f(idx))
        };
        if let Some(r) = first {
            return r;
        }
        let embedder = self.indexes.borrow().as_ref().expect("opened above").embedder().clone();
        let (fresh, report) = Indexes::rebuild_after_failure(vault, embedder)?;
        reconciled(&report);
        *self.indexes.borrow_mut() = Some(fresh);
        let guard = self.indexes.borrow();
        let idx = guard.as_ref().expect("rebuilt above");
        catch_index_panic(|| f(idx))
            .unwrap_or_else(|| Err(IndexError::Unreadable(idx.dir().to_owned()).into()))
    }

    /// Before an operation that will embed `query`: while the indices are not open yet, starts
    /// loading the model, so the load overlaps their opening.
    pub(crate) fn will_embed(&self, vault: &Vault, query: Option<&str>) {
        if self.indexes.borrow().is_none() {
            crate::index::select::prepare(&vault.config, query);
        }
    }

    /// The indices this process holds no longer match the files; the next use reopens them.
    pub(crate) fn wrote(&self) {
        self.indexes.borrow_mut().take();
    }
}

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

struct Cached {
    idx: Indexes,
    /// The change counter when the indices were last reconciled.
    generation: Option<u64>,
    /// The manifest's and its journal's (mtime, size, inode) after our last reconcile: another
    /// process's index write changes them.
    manifest: ManifestStamp,
}

/// A server's index cache: the indices stay open between calls, and are reconciled when the
/// watcher, the server's own writes or another process's index write say they must be.
#[derive(Default)]
pub struct Server {
    cache: Mutex<Option<Cached>>,
    /// Set by the server's own writes: the next call reconciles even when the watcher has not
    /// reported the write yet.
    dirty: AtomicBool,
    changes: Mutex<Option<ChangeCounter>>,
    /// Why the vault cannot be written, while the indices in use were built in memory for that
    /// reason (a read-only vault, a full disk): searches say so in their result.
    unwritable: Mutex<Option<String>>,
    /// Whether the log has said the vault cannot be written (said once).
    unwritable_logged: AtomicBool,
    /// Where the checks of the files stand, for [`Server::wait_first_check`].
    checks: Mutex<Checks>,
    checks_cv: std::sync::Condvar,
}

/// How many checks of the files are under way and how many ended.
#[derive(Default)]
struct Checks {
    running: usize,
    ended: usize,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").finish_non_exhaustive()
    }
}

/// The versions of the manifest and its journal in the indices folder `dir` (see
/// [`crate::disk::Stat::version`]), stat-ed beneath the vault handle.
type ManifestStamp = [Option<(i128, u64, u64)>; 2];

fn manifest_stamp(vault: &Vault, dir: &std::path::Path) -> ManifestStamp {
    use crate::index::manifest::{FILE, JOURNAL};
    // The indices folder opened once beneath the vault's handle, both files stat-ed in it.
    let Ok(folder) = vault.fs().open_dir(dir) else { return [None, None] };
    let version = |name: &str| folder.stat(name.as_ref()).ok().map(|s| s.version());
    [version(FILE), version(JOURNAL)]
}

impl Server {
    /// No indices open yet, no watcher.
    pub fn new() -> Server {
        Server::default()
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

    /// Waits until the first check of the files has ended, or `timeout` has passed with no
    /// check under way (a check under way then is waited for too), so that work which would
    /// compete with it (registering the watcher walks the whole vault) starts after it.
    pub fn wait_first_check(&self, timeout: std::time::Duration) {
        let deadline = std::time::Instant::now() + timeout;
        let mut checks = self.checks.lock().unwrap_or_else(|e| e.into_inner());
        while checks.ended == 0 {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() && checks.running == 0 {
                return;
            }
            let wait = if left.is_zero() { std::time::Duration::from_secs(1) } else { left };
            checks = self.checks_cv.wait_timeout(checks, wait).unwrap_or_else(|e| e.into_inner()).0;
        }
    }

    /// Counts a check of the files while `f` runs it (ended also when `f` panics).
    fn checking<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Ends<'a>(&'a Server);
        impl Drop for Ends<'_> {
            fn drop(&mut self) {
                let mut checks = self.0.checks.lock().unwrap_or_else(|e| e.into_inner());
                checks.running -= 1;
                checks.ended += 1;
                self.0.checks_cv.notify_all();
            }
        }
        self.checks.lock().unwrap_or_else(|e| e.into_inner()).running += 1;
        let _ends = Ends(self);
        f()
    }

    /// Whether this server wrote to the vault since its indices were last brought up to date.
    pub fn is_dirty(&self) -> bool {
        self.dirty.load(Ordering::SeqCst)
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

    /// For a command asking the watcher (see [`crate::fresh`]): brings the indices on disk up to
    /// date with every change made before this call, the way a call does, and returns their
    /// files' digest ([`Indexes::disk_digest`]); `None` when they cannot be vouched for (they
    /// live in memory only, or the update failed).
    pub(crate) fn catch_up(&self, vault: &Vault, found: &dyn Fn(&[String])) -> Option<u64> {
        match self.with_indexes(vault, found, &|idx| Ok(idx.is_in_memory())) {
            Ok(false) => Indexes::disk_digest(vault),
            Ok(true) => None,
            Err(e) => {
                tracing::debug!(error = %e, "cannot bring the indices up to date for a command");
                None
            }
        }
    }

    /// Brings the indices up to date with every change made before this call, the way a call
    /// does before it reads, reading nothing (the MCP server's update after a write). Memories
    /// indexed for the first time are given to `found`.
    pub fn update(&self, vault: &Vault, found: &dyn Fn(&[String])) -> crate::Result<()> {
        self.with_indexes(vault, found, &|_| Ok(()))
    }

    /// Runs `f` with indices that reflect every file on disk as of this call.
    ///
    /// The indices stay open between calls. With a watcher, `f` runs on them right away while
    /// the watcher confirms (a marker file's event, see [`crate::watch::VaultWatcher::sync`])
    /// that no memory file changed since the last reconcile; if one did, the indices are
    /// reconciled and `f` runs again. Without a healthy watcher, after this server's own writes,
    /// and when another process rewrote the manifest, they are reconciled (a stat of the vault;
    /// reopened in the last case) before `f` runs. `f` must not have side effects. Memories
    /// indexed for the first time are given to `found`, to start their usage clocks.
    pub(crate) fn with_indexes<R>(
        &self,
        vault: &Vault,
        found: &dyn Fn(&[String]),
        f: &dyn Fn(&Indexes) -> crate::Result<R>,
    ) -> crate::Result<R> {
        let index_dir = Indexes::dir_of(vault);
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let t0 = std::time::Instant::now();
        // The ticket is taken before anything is read: every change before it is counted.
        let source = self.source();
        let ticket = source.as_ref().and_then(|s| s.begin());
        let dirty = self.dirty.swap(false, Ordering::SeqCst);
        let stamp = manifest_stamp(vault, &index_dir);
        let usable = !dirty
            && ticket.is_some()
            && cache.as_ref().is_some_and(|c| c.manifest == stamp && c.generation.is_some());
        // Speculate: most calls find nothing changed, and the search hides the watcher's latency.
        // A panic of the search library (a store damaged past the checks on open) is caught:
        // the indices are rebuilt below.
        let early = if usable {
            catch_index_panic(|| f(&cache.as_ref().expect("checked").idx))
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
        let (idx, report) = self.checking(|| {
            crate::Result::Ok(match cache.take() {
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
            })
        })?;
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
        found(&report.added_ids);
        if let (Some(s), Some(g)) = (&source, generation) {
            s.covered(g);
        }
        let mut idx = idx;
        // The server answers while a write's merge runs on.
        idx.merge_in_background();
        *cache = Some(Cached { idx, generation, manifest: manifest_stamp(vault, &index_dir) });
        tracing::debug!(
            sync_ms,
            checked_ms = t0.elapsed().as_secs_f64() * 1e3,
            paths = changed.as_ref().map(Vec::len),
            reconciled = true,
            "indices ready"
        );
        let cached = cache.as_mut().expect("filled just above");
        if let Some(r) = catch_index_panic(|| f(&cached.idx)) {
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
        cached.idx.merge_in_background();
        cached.manifest = manifest_stamp(vault, &index_dir);
        catch_index_panic(|| f(&cached.idx))
            .unwrap_or_else(|| Err(IndexError::Unreadable(cached.idx.dir().to_owned()).into()))
    }
}
