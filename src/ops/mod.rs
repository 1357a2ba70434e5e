//! The operations every front end offers: one function per user-visible operation.
//!
//! The CLI (`src/cli/`) and the MCP server (`src/mcp/`) parse their input, call a function here,
//! and render what it returns. Each function does the whole operation in one order: validation,
//! redaction (inside the vault's writes), the duplicate check, the write, and usage tracking. A
//! rule that changes here changes for every front end, and an HTTP transport or an editor-plugin
//! API added later gets it too.
//!
//! What differs between front ends is how they hold the indices and the usage state: a CLI
//! process opens and reconciles the indices once and writes the usage state at once; the MCP
//! server keeps the indices open between calls and buffers warm-ups. That difference is the
//! [`Session`] trait; everything else is shared.
//!
//! The JSON the front ends print (`--json`, MCP structured results) is defined once, in
//! [`wire`].

pub mod config;
pub mod consolidate;
pub mod context;
pub mod doctor;
pub mod hooks;
pub mod init;
pub mod links;
pub mod maintenance;
pub mod memory;
pub mod merge_file;
pub mod model;
pub mod search;
pub mod session;
pub mod setup;
pub mod trash;
pub mod usage;
pub mod views;
pub mod window;
pub mod wire;

#[cfg(test)]
mod architecture_check;

use crate::index::store::{Indexes, ReconcileReport};
use crate::vault::Vault;

/// How a front end holds the vault, its indices and its usage state.
pub trait Session {
    /// The vault the operations act on.
    fn vault(&self) -> &Vault;

    /// How the session holds the indices: opened once for a one-command process, or kept
    /// open between calls by a server (see [`session`]).
    fn indices(&self) -> session::Indices<'_>;

    /// Called with the report of every reconcile a [`session::Process`] does when it opens (or
    /// rebuilds) the indices: what the front end tells the user about it.
    fn reconciled(&self, report: &ReconcileReport) {
        let _ = report;
    }

    /// Runs `f` with indices that are up to date with the files.
    ///
    /// `f` may run more than once (the MCP server retries after rebuilding an index that
    /// failed), so it must not have side effects outside its result.
    fn with_indexes<R>(&self, f: &dyn Fn(&Indexes) -> crate::Result<R>) -> crate::Result<R> {
        indexes_for(self, false, f)
    }

    /// [`with_indexes`](Self::with_indexes) for `f` that only reads (a search): a one-command
    /// process runs it while it still checks the files, and keeps its answer when nothing
    /// changed (see [`Indexes::open_fresh_speculating`]).
    fn read_indexes<R>(&self, f: &dyn Fn(&Indexes) -> crate::Result<R>) -> crate::Result<R> {
        indexes_for(self, true, f)
    }

    /// The usage state (temperatures), as the session sees it: the file, plus warm-ups the
    /// session has buffered.
    fn with_usage<R>(
        &self,
        f: &dyn Fn(&crate::lifecycle::UsageState) -> crate::Result<R>,
    ) -> crate::Result<R> {
        if let Some(b) = self.usage_buffer() {
            return b.with_state(self.vault(), f)?;
        }
        let (state, reset) = usage::read(self.vault())?;
        if let Some(r) = reset {
            self.warn(r.to_string());
        }
        f(&state)
    }

    /// Called before an operation that will embed text (a search, a duplicate check), before
    /// it asks for the indices: a session that opens the model per process starts loading it
    /// now, so the load overlaps the opening of the indices. `query`: the search query the
    /// operation will embed, which that load may embed ahead too.
    fn will_embed(&self, query: Option<&str>) {
        if let session::Indices::Process(p) = self.indices() {
            p.will_embed(self.vault(), query);
        }
    }

    /// The usage the session buffers between calls, if it does (a long-lived session): the
    /// usage methods below then go through it.
    fn usage_buffer(&self) -> Option<&usage::Buffered> {
        None
    }

    /// Records that memories were just used (read, found): `(id, pinned)` each.
    fn warm(&self, used: &[(String, bool)]) -> crate::Result<()>;

    /// Starts the usage clock of memory `id`, just created (see [`UsageState::observe`]): in the
    /// state file at once, or (a session that buffers usage) within its flush interval.
    ///
    /// [`UsageState::observe`]: crate::lifecycle::UsageState::observe
    fn observe(&self, id: &str) -> crate::Result<()> {
        let vault = self.vault();
        if let Some(b) = self.usage_buffer() {
            b.observe(vault, [&id.to_owned()], usage::UseKind::Written);
            return Ok(());
        }
        // A state file that had to be reset is logged where it is read.
        let uses =
            usage::Use::observe_all([&id.to_owned()], usage::UseKind::Written, vault.clock.now());
        usage::record(vault, &uses)?;
        Ok(())
    }

    /// Writes usage buffered so far, before an operation that settles a memory's temperature.
    fn flush_usage(&self) -> crate::Result<()> {
        match self.usage_buffer() {
            Some(b) => b.flush(self.vault()),
            None => Ok(()),
        }
    }

    /// Called after every write, whether it succeeded or not (a failed multi-step write may
    /// have changed something): the indices held are marked stale.
    fn wrote(&self) {
        match self.indices() {
            session::Indices::Process(p) => p.wrote(),
            session::Indices::Server(s) => s.wrote(),
        }
    }

    /// A warning for the user: the operation went on, but something could not be done.
    fn warn(&self, message: String);
}

/// Runs a write and tells the session about it, however it ended.
pub(crate) fn write<S: Session + ?Sized, T>(
    s: &S,
    f: impl FnOnce() -> crate::Result<T>,
) -> crate::Result<T> {
    let r = f();
    s.wrote();
    r
}

/// [`Session::with_indexes`], speculating as [`Session::read_indexes`] does when `speculate`.
fn indexes_for<S: Session + ?Sized, R>(
    s: &S,
    speculate: bool,
    f: &dyn Fn(&Indexes) -> crate::Result<R>,
) -> crate::Result<R> {
    let vault = s.vault();
    match s.indices() {
        session::Indices::Process(p) => p.with_indexes(vault, &|r| s.reconciled(r), speculate, f),
        session::Indices::Server(server) => {
            let found = |ids: &[String]| match s.usage_buffer() {
                Some(b) => b.observe(vault, ids, usage::UseKind::Found),
                None => {
                    let uses =
                        usage::Use::observe_all(ids, usage::UseKind::Found, vault.clock.now());
                    if let Err(e) = usage::record(vault, &uses) {
                        s.warn(format!("cannot record usage state: {e}"));
                    }
                }
            };
            server.with_indexes(vault, &found, f)
        }
    }
}
