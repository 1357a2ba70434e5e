//! `memlane split`.

use crate::cli::Ctx;
use crate::cli::commands::content::print_outcome;
use crate::cli::session::CliSession;
use memlane::ops::{self};

/// Split a memory into one memory per section
#[derive(Debug, clap::Args)]
pub(crate) struct SplitArgs {
    /// The memory: its name, `name.md`, `memory:name`, or its id
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    name: String,
    /// Move the original to the trash (links to it then point to the first piece)
    #[arg(long)]
    replace: bool,
}

pub(crate) fn split(ctx: &mut Ctx, args: &SplitArgs) -> anyhow::Result<()> {
    let s = CliSession::open(ctx)?;
    let done = ops::consolidate::split(&s, &args.name, None, args.replace)?;
    if ctx.out.json {
        return ctx.out.json(&done);
    }
    for o in &done.outcomes {
        print_outcome(ctx, o)?;
    }
    Ok(())
}
