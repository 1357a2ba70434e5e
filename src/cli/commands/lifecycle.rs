//! What the commands share about usage: warming what was used, reading temperatures.

use crate::cli::Ctx;
use memlane::Error;
use memlane::lifecycle::{UsageState, UsageStore};
use memlane::vault::Vault;

pub(crate) fn warn_reset(ctx: &Ctx, reset: Option<memlane::lifecycle::StateReset>) {
    if let Some(r) = reset {
        ctx.out.warn(r.to_string());
    }
}

/// Warms the memories an agent or person just used (reads, search results).
pub(crate) fn touch(ctx: &Ctx, vault: &Vault, used: &[(String, bool)]) {
    let now = vault.clock.now();
    let cfg = &vault.config.lifecycle;
    let touched = UsageStore::update(vault.root(), |state| {
        state.touch_day(now);
        for (id, pinned) in used {
            state.warm(id, *pinned, now, cfg);
        }
    });
    // A read answers even where the usage state cannot be written (read-only vault, full disk).
    match touched {
        Ok((_, reset)) => warn_reset(ctx, reset),
        Err(e) => match memlane::index::store::unwritable(&e) {
            Some(why) => ctx.out.warn_unwritable(&why),
            None => ctx.out.warn(format!("the usage state could not be updated: {e}")),
        },
    }
}

/// Current temperatures, read without writing.
pub(crate) fn temperatures(ctx: &Ctx, vault: &Vault) -> anyhow::Result<UsageState> {
    let (store, reset) = UsageStore::open(vault.root()).map_err(Error::from)?;
    warn_reset(ctx, reset);
    Ok(store.into_state())
}
