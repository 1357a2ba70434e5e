//! `memlane mv`.

use memlane::ops;

use crate::cli::Ctx;
use crate::cli::commands::content::print_outcome;
use crate::cli::session::CliSession;

/// Rename a memory (its id stays the same)
#[derive(Debug, clap::Args)]
pub(crate) struct MvArgs {
    /// The memory to rename
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    from: String,
    /// The new name
    to: String,
}

pub(crate) fn run(ctx: &mut Ctx, args: &MvArgs) -> anyhow::Result<()> {
    let s = CliSession::open(ctx)?;
    let done = ops::memory::rename(&s, &args.from, &args.to)?;
    if ctx.out.json {
        return ctx.out.json(&done);
    }
    print_outcome(ctx, &done.moved)?;
    for r in &done.relinked {
        ctx.out.line(format!("  rewrote links in {}", r.name))?;
    }
    Ok(())
}
