//! `memlane link`: write a typed link into a memory's frontmatter.

use crate::cli::Ctx;
use crate::cli::commands::content::print_outcome;
use crate::cli::session::CliSession;
use memlane::ops;

/// Write a typed link into a memory's frontmatter
#[derive(Debug, clap::Args)]
pub(crate) struct LinkArgs {
    /// The memory the link goes from
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    from: String,
    /// The memory it points to (or a document with `--doc`)
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    to: String,
    /// The link type
    #[arg(long = "type", value_name = "TYPE", default_value = "related_to")]
    edge_type: String,
    /// `TO` is a document (a file path), not a memory
    #[arg(long)]
    doc: bool,
}

pub(crate) fn link(ctx: &mut Ctx, args: &LinkArgs) -> anyhow::Result<()> {
    let s = CliSession::open(ctx)?;
    let to = if args.doc {
        ops::links::LinkTarget::Document(args.to.clone())
    } else {
        ops::links::LinkTarget::Memory(args.to.clone())
    };
    print_outcome(ctx, &ops::links::link(&s, &args.from, &to, &args.edge_type)?)
}
