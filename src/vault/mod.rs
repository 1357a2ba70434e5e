//! The vault: `.memories/` on disk, the source of truth.
//!
//! Owns discovery (walk up like git, `--vault`, `MEMLANE_VAULT`, the per-user vault), `init`, and
//! every read and write of memory files. It never touches the derived indices.
//!
//! - `handle`: finding and opening a vault, its paths and folders, the walk of
//!   its files, reading memories and resolving names (nothing there writes);
//! - `write`: every write of a memory (create, update, rename, delete), its
//!   history and trash copies, where a write may go (names), and the write lock;
//! - `intent` and `signing`: the undo log that makes a multi-file write all or nothing, and the
//!   key that signs it; `temp`: temp files left by killed writers.

mod handle;
mod intent;
mod signing;
mod temp;
mod write;

use std::path::PathBuf;

use jiff::Timestamp;

use crate::config::Config;

pub use handle::{
    BODY_CONFLICT, EscapingLink, FileStat, GitignoreAdvice, INTERNAL_FOLDERS, InitReport,
    KEY_CONFLICT, ListFilter, ListSort, Location, Memory, PathState, ScanProblem, Unreachable,
    UnreachableWhy, Warning, WarningKind, folder_problems, init, init_target, locate, mtime_ns,
    user_vault_dir,
};
pub use intent::{
    INTENTS_DIR, IntentReport, ROLLBACK_ACTION, UntrustedIntent, remove_command, shown_path,
};
pub use temp::TEMP_STALE_AFTER;
pub(crate) use temp::process_alive;
pub use write::{
    AddRequest, HistoryEntry, TrashEntry, UpdateRequest, WriteOutcome, WriteStatus, atomic_write,
};

/// The name of the vault folder inside a project.
pub const VAULT_DIR: &str = ".memories";

/// The `.gitignore` written by `init`: what git tracks in `.memories/`, and why.
///
/// The memory files and `config.toml` are the source of truth and are committed; the indices and
/// usage state are derived or per-user; `.history/` and `.trash/` are each person's local safety
/// net (every edit and delete would otherwise show up in `git status`). A team that wants them
/// shared re-includes them with `!.history/` and `!.trash/`.
pub const GITIGNORE: &str = "\
# memlane: what git tracks in .memories/
# Commit the memory files (*.md) and config.toml: they are the source of truth.
# indices/ and state/ are derived from them or per-user (search indices, usage
# counts, locks); memlane rebuilds them, so they stay out of git.
indices/
state/
# .history/ (earlier versions of edited memories) and .trash/ (deleted memories)
# are a local safety net: `memlane history`, `memlane restore`, `memlane trash`.
# To share them with your team, uncomment the two `!` lines below and commit.
.history/
.trash/
# !.history/
# !.trash/
# temp files of writes in progress (a killed writer's are removed by the next one)
.*.tmp
";

/// The clock memlane reads "now" from: the system clock, or a pinned instant (`--now`,
/// `MEMLANE_NOW`) so results and files are reproducible.
#[derive(Debug, Clone, Copy, Default)]
pub struct Clock {
    pinned: Option<Timestamp>,
}

impl Clock {
    /// The system clock.
    pub fn system() -> Clock {
        Clock { pinned: None }
    }

    /// A clock stuck at `now`.
    pub fn pinned(now: Timestamp) -> Clock {
        Clock { pinned: Some(now) }
    }

    /// The current instant.
    pub fn now(&self) -> Timestamp {
        self.pinned.unwrap_or_else(Timestamp::now)
    }
}

/// An open vault.
#[derive(Debug, Clone)]
pub struct Vault {
    root: PathBuf,
    canonical_root: PathBuf,
    /// The confined file system every read and write of the vault goes through.
    fs: crate::disk::Confined,
    /// The effective configuration.
    pub config: Config,
    /// The clock used for timestamps.
    pub clock: Clock,
}
