//! `memlane pin` and `memlane unpin`.

use crate::cli::Ctx;
use crate::cli::commands::content::print_outcome;

/// Pin a memory: it never cools, never counts as cold, and ranks at full temperature
#[derive(Debug, clap::Args)]
pub(crate) struct PinArgs {
    /// The memory: its name, `name.md`, `memory:name`, or its id
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    name: String,
}

fn set_pinned(ctx: &mut Ctx, args: &PinArgs, pinned: bool) -> anyhow::Result<()> {
    let s = crate::cli::session::CliSession::open(ctx)?;
    print_outcome(ctx, &memlane::ops::memory::set_pinned(&s, &args.name, pinned)?)
}

pub(crate) fn pin(ctx: &mut Ctx, args: &PinArgs) -> anyhow::Result<()> {
    set_pinned(ctx, args, true)
}

pub(crate) fn unpin(ctx: &mut Ctx, args: &PinArgs) -> anyhow::Result<()> {
    set_pinned(ctx, args, false)
}
