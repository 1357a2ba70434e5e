//! `memlane unlink`: remove typed links from a memory's frontmatter.

use crate::cli::Ctx;
use crate::cli::commands::content::print_outcome;
use crate::cli::session::CliSession;
use memlane::ops;

/// Remove typed links from a memory's frontmatter
#[derive(Debug, clap::Args)]
pub(crate) struct UnlinkArgs {
    /// The memory the link goes from
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    from: String,
    /// The memory or document it points to
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    to: String,
    /// Only links of this type
    #[arg(long = "type", value_name = "TYPE")]
    edge_type: Option<String>,
}

pub(crate) fn unlink(ctx: &mut Ctx, args: &UnlinkArgs) -> anyhow::Result<()> {
    let s = CliSession::open(ctx)?;
    print_outcome(ctx, &ops::links::unlink(&s, &args.from, &args.to, args.edge_type.as_deref())?)
}
