//! `memlane append`.

use std::path::PathBuf;

use memlane::Error;
use memlane::ops;

use crate::cli::Ctx;
use crate::cli::commands::content::{print_outcome, read_content};
use crate::cli::session::CliSession;

/// Add text to the end of a memory, after a blank line
#[derive(Debug, clap::Args)]
pub(crate) struct AppendArgs {
    /// The memory: its name, `name.md`, `memory:name`, or its id
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    name: String,
    /// The text to append; `-` reads standard input
    content: Option<String>,
    /// Read the text from this file (`-` for standard input)
    #[arg(short, long, conflicts_with = "content", value_name = "PATH")]
    file: Option<PathBuf>,
}

pub(crate) fn run(ctx: &mut Ctx, args: &AppendArgs) -> anyhow::Result<()> {
    let s = CliSession::open(ctx)?;
    let text = read_content(ctx, args.content.as_deref(), args.file.as_deref(), true)?
        .ok_or(Error::NoContent { what: "append" })?;
    print_outcome(ctx, &ops::memory::append(&s, &args.name, &text)?)
}
