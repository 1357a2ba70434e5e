//! `memlane rm` (alias `delete`).

use memlane::ops;

use crate::cli::Ctx;
use crate::cli::commands::content::print_outcome;
use crate::cli::session::CliSession;

/// Move memories to the trash (`memlane trash restore` brings them back)
#[derive(Debug, clap::Args)]
pub(crate) struct RmArgs {
    /// The memories: names, `name.md`, `memory:name`, or ids
    #[arg(required = true, add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    names: Vec<String>,
}

pub(crate) fn run(ctx: &mut Ctx, args: &RmArgs) -> anyhow::Result<()> {
    let s = CliSession::open(ctx)?;
    let outcomes = ops::memory::delete(&s, &args.names)?;
    if ctx.out.json {
        return ctx.out.json(&outcomes);
    }
    for o in &outcomes {
        print_outcome(ctx, o)?;
    }
    Ok(())
}
