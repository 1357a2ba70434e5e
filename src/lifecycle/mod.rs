//! Lifecycle: usage state, clocks, temperature, cold notifications and importance,
//! and the operations built on them: consolidation ([`consolidate`]: merge, split, dedup on
//! write, maintain) and the views shared by the CLI and the MCP server ([`views`]: the cold set,
//! the tree, summarize).
//!
//! This module owns the per-user usage state in `.memories/state/` (`usage.bin` and
//! `usage.journal`: [`UsageStore`], [`UsageState`]) and the pure lifecycle arithmetic: the calendar and activity clocks
//! ([`age_days`]), remindb's temperature (reads warm, time cools, pinned memories hold;
//! [`UsageState::warm`], [`UsageState::temperature`]), the cold set and its notifications with
//! hysteresis ([`UsageState::cold_set`], [`cold_announcements`]), and MIRA's importance score
//! ([`importance()`], and [`ImportanceSource`] to compute it for indexed memories).
//!
//! The state and the arithmetic never read or write memory files or the indices: memories are
//! identified by their 11-character id (stable across renames) and callers pass in what the
//! frontmatter and the graph know (the pinned flag, creation time, links). The operations do:
//! [`consolidate`] and [`views`] (summarize) rewrite, merge and split memories through the
//! [`Vault`](crate::vault::Vault) writers and read the indices; they never write the indices
//! (the caller reconciles after a change). "Now" is always a parameter, so a pinned clock
//! (`--now`, `MEMLANE_NOW`) gives reproducible results. Every constant that the configuration
//! exposes comes from [`LifecycleConfig`](crate::config::LifecycleConfig).
//!
//! Typical use by a command:
//!
//! ```no_run
//! # fn demo(vault: &memlane::vault::Vault, id: &str, pinned: bool) -> Result<(), memlane::lifecycle::LifecycleError> {
//! use memlane::lifecycle::UsageStore;
//!
//! let now = vault.clock.now();
//! let cfg = &vault.config.lifecycle;
//! let (temperature, reset) = UsageStore::update(vault.root(), |state| {
//!     state.touch_day(now);
//!     state.warm(id, pinned, now, cfg)
//! })?;
//! if let Some(reset) = reset {
//!     tracing::warn!("{reset}");
//! }
//! # let _ = temperature;
//! # Ok(())
//! # }
//! ```

mod clock;
pub mod consolidate;
pub mod importance;
mod scores;
mod state;
mod temperature;
mod usage_file;
pub mod views;

use std::path::PathBuf;

use crate::error::PathError;

pub use clock::{ActivityDays, age_days, utc_date};
pub use importance::{Importance, ImportanceInputs, importance};
pub use scores::ImportanceSource;
pub use state::{
    BASE_FILE, JOURNAL_FILE, LOCK_FILE, MemoryUsage, STATE_DIR, StateReset, USAGE_FILE, UsageState,
    UsageStore,
};
pub use temperature::{ColdMemory, cold_announcements};

/// Errors of the lifecycle subsystem.
#[derive(Debug, thiserror::Error)]
pub enum LifecycleError {
    /// The state folder, lock or file could not be created, locked or written.
    #[error(transparent)]
    Io(#[from] PathError),
    /// The usage state could not be encoded as JSON.
    #[error("cannot encode the usage state for {}", .path.display())]
    Encode {
        /// The state file.
        path: PathBuf,
        /// The encoder's error.
        #[source]
        source: serde_json::Error,
    },
}
