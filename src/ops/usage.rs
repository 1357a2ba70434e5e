//! The one rule for recording usage: what a use of a memory does to the usage state.
//!
//! A front end decides *when* a memory was used (read, found, reported, created, first seen);
//! what that use changes is decided here, for every front end: a use warms the memory, a memory
//! written or seen for the first time starts its usage clock, and a use or a write (not a file
//! an index update came across) makes the day an activity day.

use crate::config::LifecycleConfig;
use crate::lifecycle::{StateReset, UsageState, UsageStore};
use crate::vault::Vault;

/// What happened to a memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UseKind {
    /// It was read, found by a search or reported used; `pinned` whether it is pinned.
    Warm {
        /// Whether it is pinned (pinned memories stay at their temperature).
        pinned: bool,
    },
    /// It was just written new (created, restored): its usage clock starts.
    Written,
    /// An index update found its file for the first time: its usage clock starts, but nobody
    /// used the vault for it.
    Found,
}

/// A use of a memory, and when.
#[derive(Debug, Clone)]
pub struct Use {
    /// The memory's id.
    pub id: String,
    /// What happened to it.
    pub kind: UseKind,
    /// When.
    pub when: jiff::Timestamp,
}

impl Use {
    /// Memories used now: `(id, pinned)` each.
    pub fn warm_all(used: &[(String, bool)], when: jiff::Timestamp) -> Vec<Use> {
        used.iter()
            .map(|(id, pinned)| Use {
                id: id.clone(),
                kind: UseKind::Warm { pinned: *pinned },
                when,
            })
            .collect()
    }

    /// Memories written new now, or (`kind` [`UseKind::Found`]) found by an index update.
    pub fn observe_all<'a>(
        ids: impl IntoIterator<Item = &'a String>,
        kind: UseKind,
        when: jiff::Timestamp,
    ) -> Vec<Use> {
        ids.into_iter().map(|id| Use { id: id.clone(), kind, when }).collect()
    }

    /// What this use does to `state`.
    pub fn apply(&self, state: &mut UsageState, cfg: &LifecycleConfig) {
        if self.kind != UseKind::Found {
            state.touch_day(self.when);
        }
        match self.kind {
            UseKind::Warm { pinned } => {
                state.warm(&self.id, pinned, self.when, cfg);
            }
            UseKind::Written | UseKind::Found => {
                state.observe(&self.id, self.when, cfg);
            }
        }
    }
}

/// Writes `uses` to the vault's usage state (under its lock, merged with what other processes
/// wrote: their new values appended to the journal); the reset met when a file was unreadable.
pub fn record(vault: &Vault, uses: &[Use]) -> crate::Result<Option<StateReset>> {
    Ok(record_stamped(vault, uses)?.0)
}

/// [`record`], and the state files' stamps just before and just after the write, both taken
/// under the state lock (`None` when there was nothing to write): when the first is the stamp
/// of what a session read, the files now hold exactly that plus `uses`.
fn record_stamped(vault: &Vault, uses: &[Use]) -> crate::Result<(Option<StateReset>, Stamps)> {
    if uses.is_empty() {
        return Ok((None, None));
    }
    let cfg = &vault.config.lifecycle;
    let (before, after, reset) = UsageStore::update_then(
        vault.root(),
        |state| {
            let before = stamp(vault);
            for u in uses {
                u.apply(state, cfg);
            }
            before
        },
        || stamp(vault),
    )?;
    Ok((reset, Some((before, after))))
}

/// Folds the usage journal of `vault` into a new base (what `maintain` does); the reset met
/// when a file was unreadable.
pub fn fold(vault: &Vault) -> crate::Result<Option<StateReset>> {
    Ok(UsageStore::fold(vault.root())?)
}

/// The usage state as the files hold it, read without writing (records decoded only when asked
/// for).
pub fn read(vault: &Vault) -> crate::Result<(UsageState, Option<StateReset>)> {
    let (store, reset) = UsageStore::open(vault.root())?;
    Ok((store.into_state(), reset))
}

/// The stamp of the usage state files of `vault` (their (mtime, size, inode)): when it changes,
/// another process wrote the state. Read beneath the vault handle, never through a link.
fn stamp(vault: &Vault) -> Stamp {
    UsageStore::file_paths(vault.root())
        .map(|p| vault.fs().stat(&p).ok().flatten().map(|s| s.version()))
}

/// What [`stamp`] returns.
type Stamp = [Option<(i128, u64, u64)>; 3];

/// The stamps before and after a write (see [`record_stamped`]).
type Stamps = Option<(Stamp, Stamp)>;

/// The usage state as last read, with the uses not yet written.
struct View {
    state: UsageState,
    /// The state files' stamp when read; `None` forces a reload.
    stamp: Option<Stamp>,
}

/// Usage a long-lived session buffers: uses count at once in its view of the state and reach
/// the state file at the next [`Buffered::flush`] (a search stays cheap). The rule each use
/// follows is [`Use::apply`], as for a session that writes at once.
#[derive(Default)]
pub struct Buffered {
    view: std::sync::Mutex<Option<View>>,
    pending: std::sync::Mutex<Vec<Use>>,
    /// Set when a queued use could not be applied to the view (a call was reading it): the
    /// view then lacks what the next flush writes, and is read again after it.
    missed: std::sync::atomic::AtomicBool,
    /// How many times the view was read from the files.
    reads: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for Buffered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Buffered").finish_non_exhaustive()
    }
}

impl Buffered {
    /// Runs `f` with the usage state: the file as last read (re-read when another process
    /// changed it) plus the uses not yet written.
    pub fn with_state<R>(
        &self,
        vault: &Vault,
        f: impl FnOnce(&UsageState) -> R,
    ) -> crate::Result<R> {
        let stamp = Some(stamp(vault));
        let mut view = self.view.lock().unwrap_or_else(|e| e.into_inner());
        if view.as_ref().is_none_or(|v| v.stamp.is_none() || v.stamp != stamp) {
            let (mut state, reset) = read(vault)?;
            if let Some(r) = reset {
                tracing::warn!("{r}");
            }
            let cfg = &vault.config.lifecycle;
            for u in self.pending.lock().unwrap_or_else(|e| e.into_inner()).iter() {
                u.apply(&mut state, cfg);
            }
            *view = Some(View { state, stamp });
            self.reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        Ok(f(&view.as_ref().expect("loaded just above").state))
    }

    /// Memories just used (`(id, pinned)`): warmed at once in the view, and in the state file
    /// at the next flush.
    pub fn warm(&self, vault: &Vault, used: &[(String, bool)]) -> crate::Result<()> {
        self.with_state(vault, |_| ())?;
        self.queue(vault, Use::warm_all(used, vault.clock.now()), true);
        Ok(())
    }

    /// Memories just written new or found: their usage clocks start, in the file at the next
    /// flush, and in the view at once when no call is reading it (a search reconciles while it
    /// holds the view: the memory then counts as observed now until the view is read again,
    /// which is what a missing entry means anyway).
    pub fn observe<'a>(
        &self,
        vault: &Vault,
        ids: impl IntoIterator<Item = &'a String>,
        kind: UseKind,
    ) {
        let uses = Use::observe_all(ids, kind, vault.clock.now());
        if !uses.is_empty() {
            self.queue(vault, uses, false);
        }
    }

    /// Applies `uses` to the view (waiting for it, or only when no call holds it) and queues
    /// them for the next flush.
    fn queue(&self, vault: &Vault, uses: Vec<Use>, wait_for_view: bool) {
        let cfg = &vault.config.lifecycle;
        let mut view = if wait_for_view {
            Some(self.view.lock().unwrap_or_else(|e| e.into_inner()))
        } else {
            self.view.try_lock().ok()
        };
        match view.as_mut().and_then(|v| v.as_mut()) {
            Some(v) => {
                for u in &uses {
                    u.apply(&mut v.state, cfg);
                }
            }
            None => self.missed.store(true, std::sync::atomic::Ordering::SeqCst),
        }
        self.pending.lock().unwrap_or_else(|e| e.into_inner()).extend(uses);
    }

    /// Writes the queued uses to the state file (under its lock, merged with what other
    /// processes wrote). Operations that read or change the state file directly call this
    /// first.
    pub fn flush(&self, vault: &Vault) -> crate::Result<()> {
        use std::sync::atomic::Ordering::SeqCst;
        // Read before the uses are taken: a use queued after this is in the next flush.
        let missed = self.missed.swap(false, SeqCst);
        let reads = self.reads.load(SeqCst);
        let uses = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()));
        if uses.is_empty() {
            if missed {
                self.missed.store(true, SeqCst);
            }
            return Ok(());
        }
        match record_stamped(vault, &uses) {
            Ok((reset, stamps)) => {
                if let Some(r) = reset {
                    tracing::warn!("{r}");
                }
                // The view holds these uses already. When the files held just what the view
                // was read from (and it was not read again meanwhile, without them), they now
                // hold the view: it is kept, with the new stamp. Otherwise another process
                // wrote too, and the view is read again next time.
                if let Some(v) = self.view.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
                    v.stamp = match stamps {
                        Some((before, after))
                            if !missed
                                && self.reads.load(SeqCst) == reads
                                && v.stamp == Some(before) =>
                        {
                            Some(after)
                        }
                        _ => None,
                    };
                }
                Ok(())
            }
            Err(e) => {
                // Keep them for the next try.
                self.pending.lock().unwrap_or_else(|e| e.into_inner()).splice(0..0, uses);
                if missed {
                    self.missed.store(true, SeqCst);
                }
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::vault::Clock;
    use std::sync::atomic::Ordering::SeqCst;

    fn vault() -> (tempfile::TempDir, Vault) {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join(".memories");
        crate::vault::init(&root, "").unwrap();
        let now = "2026-03-01T10:00:00Z".parse().unwrap();
        let vault = Vault::open(&root, Config::default(), Clock::pinned(now)).unwrap();
        (tmp, vault)
    }

    fn uses_of(b: &Buffered, vault: &Vault, id: &str) -> Option<u64> {
        b.with_state(vault, |s| s.get(id).map(|u| u.access_count)).unwrap()
    }

    fn on_disk(vault: &Vault, id: &str) -> Option<u64> {
        read(vault).unwrap().0.get(id).map(|u| u.access_count)
    }

    #[test]
    fn a_session_sees_its_own_uses_and_what_other_processes_wrote() {
        let (_tmp, vault) = vault();
        let b = Buffered::default();
        let warm = |id: &str| b.warm(&vault, &[(id.to_owned(), false)]).unwrap();
        let other = |id: &str| {
            record(&vault, &Use::warm_all(&[(id.to_owned(), false)], vault.clock.now())).unwrap()
        };

        // Its own uses, flushed: in the file, and the view it holds is kept (not read again).
        warm("a");
        warm("a");
        b.flush(&vault).unwrap();
        assert_eq!(on_disk(&vault, "a"), Some(2));
        let reads = b.reads.load(SeqCst);
        assert_eq!(uses_of(&b, &vault, "a"), Some(2));
        assert_eq!(b.reads.load(SeqCst), reads, "the view was read again after its own flush");

        // Another process wrote: the next look reads the files again.
        other("b");
        assert_eq!(uses_of(&b, &vault, "b"), Some(1));
        assert_eq!(b.reads.load(SeqCst), reads + 1);

        // Another process wrote between this session's read and its flush: both count, in the
        // file and in the view.
        warm("a");
        other("c");
        b.flush(&vault).unwrap();
        assert_eq!((on_disk(&vault, "a"), on_disk(&vault, "c")), (Some(3), Some(1)));
        assert_eq!((uses_of(&b, &vault, "a"), uses_of(&b, &vault, "c")), (Some(3), Some(1)));

        // A memory seen while a call held the view misses the view: after the flush the view
        // is read again and has it.
        let held = b.view.lock().unwrap();
        b.observe(&vault, [&"d".to_owned()], UseKind::Found);
        drop(held);
        b.flush(&vault).unwrap();
        assert!(read(&vault).unwrap().0.get("d").is_some());
        assert!(b.with_state(&vault, |s| s.get("d").is_some()).unwrap());
    }
}
