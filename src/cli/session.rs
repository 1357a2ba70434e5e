//! The command line's [`Session`]: one vault, indices opened (and reconciled) on first use
//! (an [`ops::session::Process`](memlane::ops::session::Process)), usage written at once,
//! warnings on stderr.

use memlane::ops::Session;
use memlane::ops::session::{Indices, Process};
use memlane::vault::Vault;

use memlane::index::store::ReconcileReport;

use crate::cli::Ctx;

/// One command's hold on the vault.
pub(crate) struct CliSession<'a> {
    ctx: &'a Ctx,
    vault: Vault,
    indices: Process,
}

impl<'a> CliSession<'a> {
    /// Opens the vault the flags name.
    pub fn open(ctx: &'a Ctx) -> anyhow::Result<CliSession<'a>> {
        Ok(CliSession { ctx, vault: ctx.open_vault()?, indices: Process::new() })
    }
}

impl Session for CliSession<'_> {
    fn vault(&self) -> &Vault {
        &self.vault
    }

    fn indices(&self) -> Indices<'_> {
        Indices::Process(&self.indices)
    }

    fn reconciled(&self, report: &ReconcileReport) {
        self.ctx.report_reconcile(&self.vault, report);
    }

    fn warm(&self, used: &[(String, bool)]) -> memlane::Result<()> {
        crate::cli::commands::lifecycle::touch(self.ctx, &self.vault, used);
        Ok(())
    }

    fn warn(&self, message: String) {
        self.ctx.out.warn(message);
    }
}

/// What the command line tells the user about a reconcile.
impl Ctx {
    /// Tells the user about work the reconcile did (on stderr, at info level), and starts the
    /// usage clock of memories seen for the first time.
    pub fn report_reconcile(&self, vault: &memlane::vault::Vault, r: &ReconcileReport) {
        if let Some(why) = &r.not_saved {
            self.out.warn_unwritable(why);
        }
        if !r.added_ids.is_empty() {
            use memlane::ops::usage::{Use, UseKind};
            let uses = Use::observe_all(&r.added_ids, UseKind::Found, vault.clock.now());
            if let Err(e) = memlane::ops::usage::record(vault, &uses) {
                match memlane::index::store::unwritable(&e) {
                    Some(why) => self.out.warn_unwritable(&why),
                    None => self.out.warn(format!("cannot record usage state: {e}")),
                }
            }
        }
        if let Some(d) = &r.repaired {
            self.out.warn(format!(
                "the search indices were damaged ({d}); rebuilt them from the memory files"
            ));
        }
        for p in &r.problems {
            self.out.warn(p);
        }
        if r.changed() {
            tracing::info!(
                added = r.added,
                updated = r.updated,
                removed = r.removed,
                rebuilt = r.rebuilt.as_deref().unwrap_or(""),
                ms = r.elapsed_ms,
                "indices updated"
            );
        }
    }
}
