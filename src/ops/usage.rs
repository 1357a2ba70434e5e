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

/// Writes `uses` to the vault's usage state file (under its lock, merged with what other
/// processes wrote); the reset met when the file was unreadable.
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

/// The usage state as the file holds it, read without writing.
pub fn read(vault: &Vault) -> crate::Result<(UsageState, Option<StateReset>)> {
    let (store, reset) = UsageStore::open(vault.root())?;
    Ok((store.into_state(), reset))
}

/// The usage state file of `vault` (whose (mtime, size) tells a long-lived session that another
/// process wrote it).
pub fn state_file(vault: &Vault) -> std::path::PathBuf {
    UsageStore::file_path(vault.root())
}
