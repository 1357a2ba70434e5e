//! `memlane add`.

use std::path::PathBuf;

use memlane::Error;
use memlane::ops;

use crate::cli::Ctx;
use crate::cli::commands::content::{print_outcome, read_content};
use crate::cli::session::CliSession;

/// Create a memory
///
/// The content comes from the CONTENT argument, from `--file`, or from standard input (also
/// when CONTENT is `-`). `<private>…</private>` blocks and credentials are redacted before
/// anything is written; content that is empty after redaction is skipped.
#[derive(Debug, clap::Args)]
pub(crate) struct AddArgs {
    /// The new memory's name, e.g. `auth/jwt-plan` (folders are created as needed)
    name: String,
    /// The content (Markdown); `-` reads standard input
    content: Option<String>,
    /// Read the content from this file (`-` for standard input)
    #[arg(short, long, conflicts_with = "content", value_name = "PATH")]
    file: Option<PathBuf>,
    /// The memory type (default: `default_type` from the config, `journal` built in)
    #[arg(short = 't', long = "type", value_name = "TYPE", add = clap_complete::ArgValueCompleter::new(crate::cli::complete::types))]
    memory_type: Option<String>,
    /// A tag (repeatable; `a,b` adds both)
    #[arg(long = "tag", value_name = "TAG", value_delimiter = ',', add = clap_complete::ArgValueCompleter::new(crate::cli::complete::tags))]
    tags: Vec<String>,
    /// Add it even when an existing memory is nearly the same (`lifecycle.dedup_threshold`)
    #[arg(long)]
    force: bool,
}

pub(crate) fn run(ctx: &mut Ctx, args: &AddArgs) -> anyhow::Result<()> {
    let s = CliSession::open(ctx)?;
    let content = read_content(ctx, args.content.as_deref(), args.file.as_deref(), true)?
        .ok_or(Error::NoContent { what: "add" })?;
    let req = ops::memory::CreateRequest {
        name: args.name.clone(),
        content,
        memory_type: args.memory_type.clone(),
        tags: args.tags.clone(),
        force: args.force,
    };
    let outcome = ops::memory::create(&s, req)?;
    print_outcome(ctx, &outcome)
}
