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
    if uses.is_empty() {
        return Ok(None);
    }
    let cfg = &vault.config.lifecycle;
    let ((), reset) = UsageStore::update(vault.root(), |state| {
        for u in uses {
            u.apply(state, cfg);
        }
    })?;
    Ok(reset)
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
        if let Some(v) = view.as_mut().and_then(|v| v.as_mut()) {
            for u in &uses {
                u.apply(&mut v.state, cfg);
            }
        }
        self.pending.lock().unwrap_or_else(|e| e.into_inner()).extend(uses);
    }

    /// Writes the queued uses to the state file (under its lock, merged with what other
    /// processes wrote). Operations that read or change the state file directly call this
    /// first.
    pub fn flush(&self, vault: &Vault) -> crate::Result<()> {
        let uses = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()));
        if uses.is_empty() {
            return Ok(());
        }
        match record(vault, &uses) {
            Ok(reset) => {
                if let Some(r) = reset {
                    tracing::warn!("{r}");
                }
                // Re-read next time: the file now holds these uses and anyone else's.
                if let Some(v) = self.view.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
                    v.stamp = None;
                }
                Ok(())
            }
            Err(e) => {
                // Keep them for the next try.
                self.pending.lock().unwrap_or_else(|e| e.into_inner()).splice(0..0, uses);
                Err(e)
            }
        }
    }
}
