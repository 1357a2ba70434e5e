//! The command line's [`Session`]: one vault, indices opened (and reconciled) on first use,
//! usage written at once, warnings on stderr.

use std::cell::RefCell;

use memlane::index::store::{IndexError, Indexes, catch_index_panic};
use memlane::ops::Session;
use memlane::vault::Vault;

use memlane::index::store::ReconcileReport;

use crate::cli::Ctx;

/// One command's hold on the vault.
pub(crate) struct CliSession<'a> {
    ctx: &'a Ctx,
    vault: Vault,
    indexes: RefCell<Option<Indexes>>,
}

impl<'a> CliSession<'a> {
    /// Opens the vault the flags name.
    pub fn open(ctx: &'a Ctx) -> anyhow::Result<CliSession<'a>> {
        Ok(CliSession { ctx, vault: ctx.open_vault()?, indexes: RefCell::new(None) })
    }
}

impl Drop for CliSession<'_> {
    /// A command's process ends right after it: the indices (a manifest of every memory, the
    /// model's weights, key maps) are left to the OS, which takes the whole address space back
    /// at exit at once, instead of being freed piece by piece (about 5 ms at 10k memories).
    fn drop(&mut self) {
        if let Some(idx) = self.indexes.get_mut().take() {
            std::mem::forget(idx);
        }
    }
}

impl Session for CliSession<'_> {
    fn vault(&self) -> &Vault {
        &self.vault
    }

    /// Opens and reconciles the indices on first use. Reading them is guarded: indices that
    /// make the reader panic (damaged segments) are rebuilt from the files, once, and read again.
    fn with_indexes<R>(&self, f: &dyn Fn(&Indexes) -> memlane::Result<R>) -> memlane::Result<R> {
        if self.indexes.borrow().is_none() {
            *self.indexes.borrow_mut() = Some(self.ctx.reconciled(&self.vault)?.0);
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
        let (fresh, report) = Indexes::rebuild_after_failure(&self.vault, embedder)?;
        self.ctx.report_reconcile(&self.vault, &report);
        *self.indexes.borrow_mut() = Some(fresh);
        let guard = self.indexes.borrow();
        let idx = guard.as_ref().expect("rebuilt above");
        catch_index_panic(|| f(idx))
            .unwrap_or_else(|| Err(IndexError::Unreadable(idx.dir().to_owned()).into()))
    }

    fn will_embed(&self, query: Option<&str>) {
        if self.indexes.borrow().is_none() {
            memlane::index::select::prepare(&self.vault.config, query);
        }
    }

    fn warm(&self, used: &[(String, bool)]) -> memlane::Result<()> {
        crate::cli::commands::lifecycle::touch(self.ctx, &self.vault, used);
        Ok(())
    }

    fn wrote(&self) {
        // The indices this command holds no longer match the files; the next use reopens them.
        self.indexes.borrow_mut().take();
    }

    fn warn(&self, message: String) {
        self.ctx.out.warn(message);
    }
}

/// Opening the indices the old way, for the commands that do not go through a [`CliSession`].
impl Ctx {
    /// Opens the vault's indices and brings them up to date, for a [`CliSession`]: where the
    /// vault cannot be written they are built in memory (see [`Indexes::open_reconciled`]). The
    /// report is given to [`Ctx::report_reconcile`].
    fn reconciled(
        &self,
        vault: &memlane::vault::Vault,
    ) -> memlane::Result<(Indexes, ReconcileReport)> {
        let embedder = memlane::index::select::embedder_for(&vault.config)?;
        let (idx, report) = Indexes::open_reconciled(vault, embedder)?;
        self.report_reconcile(vault, &report);
        Ok((idx, report))
    }

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
