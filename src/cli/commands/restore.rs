//! `memlane restore`: bring back an earlier version.

use crate::cli::Ctx;
use crate::cli::commands::content::print_outcome;
use crate::cli::session::CliSession;
use memlane::ops;

/// Bring back an earlier version of a memory
///
/// The current content goes to history first, so a restore can be undone the same way.
#[derive(Debug, clap::Args)]
pub(crate) struct RestoreArgs {
    /// The memory: its name, `name.md`, `memory:name`, or its id
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    name: String,
    /// The version number from `memlane history`
    #[arg(long, value_name = "N")]
    version: usize,
}

pub(crate) fn restore(ctx: &mut Ctx, args: &RestoreArgs) -> anyhow::Result<()> {
    let s = CliSession::open(ctx)?;
    print_outcome(ctx, &ops::trash::restore_version(&s, &args.name, args.version)?)
}
