//! What the commands share about usage: warming what was used, reading temperatures.

use crate::cli::Ctx;
use memlane::ops::usage::{self, Use};
use memlane::vault::Vault;

pub(crate) fn warn_reset(ctx: &Ctx, reset: Option<memlane::lifecycle::StateReset>) {
    if let Some(r) = reset {
        ctx.out.warn(r.to_string());
    }
}

/// Warms the memories an agent or person just used (reads, search results).
pub(crate) fn touch(ctx: &Ctx, vault: &Vault, used: &[(String, bool)]) {
    let touched = usage::record(vault, &Use::warm_all(used, vault.clock.now()));
    // A read answers even where the usage state cannot be written (read-only vault, full disk).
    match touched {
        Ok(reset) => warn_reset(ctx, reset),
        Err(e) => match memlane::index::store::unwritable(&e) {
            Some(why) => ctx.out.warn_unwritable(&why),
            None => ctx.out.warn(format!("the usage state could not be updated: {e}")),
        },
    }
}
