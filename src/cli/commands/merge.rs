//! `memlane merge`.

use crate::cli::Ctx;
use crate::cli::commands::content::print_outcome;
use crate::cli::session::CliSession;
use memlane::ops::{self};

/// Merge memories into a new one; the sources go to the trash (or are archived)
///
/// The target gets the union of the tags, the most important type and `consolidated_from`;
/// every link to a source is redirected to it. Refuses, changing nothing, when the target exists
/// or a source is missing.
#[derive(Debug, clap::Args)]
pub(crate) struct MergeArgs {
    /// The memories to merge (two or more)
    #[arg(required = true, num_args = 2.., add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    sources: Vec<String>,
    /// The new memory's name
    #[arg(long, value_name = "NAME")]
    into: String,
    /// Its content (default: the sources' contents, each under its name as a heading)
    #[arg(long, value_name = "TEXT")]
    content: Option<String>,
    /// Archive the sources (status: archived, superseded_by the target) instead of trashing them
    #[arg(long)]
    archive: bool,
}

pub(crate) fn merge(ctx: &mut Ctx, args: &MergeArgs) -> anyhow::Result<()> {
    let s = CliSession::open(ctx)?;
    let out =
        ops::consolidate::merge(&s, &args.sources, &args.into, args.content.clone(), args.archive)?;
    if ctx.out.json {
        return ctx.out.json(&out);
    }
    print_outcome(ctx, &out.target)?;
    for s in &out.sources {
        print_outcome(ctx, s)?;
    }
    for r in &out.relinked {
        ctx.out.line(format!("  redirected links in {}", r.name))?;
    }
    Ok(())
}
