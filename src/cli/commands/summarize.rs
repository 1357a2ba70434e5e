//! `memlane summarize`: shrink a memory in place.

use crate::cli::Ctx;
use crate::cli::commands::content::print_outcome;
use memlane::Error;
use std::path::PathBuf;

/// Shrink a memory in place: same name, id and links; the old version goes to history
#[derive(Debug, clap::Args)]
pub(crate) struct SummarizeArgs {
    /// The memory: its name, `name.md`, `memory:name`, or its id
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    name: String,
    /// The shorter content; `-` reads standard input
    #[arg(long, value_name = "TEXT")]
    content: Option<String>,
    /// Read the shorter content from this file
    #[arg(short, long, conflicts_with = "content", value_name = "PATH")]
    file: Option<PathBuf>,
    /// The temperature afterwards (default: `lifecycle.temperature_start`)
    #[arg(long, value_name = "T")]
    temperature: Option<f64>,
}

pub(crate) fn summarize(ctx: &mut Ctx, args: &SummarizeArgs) -> anyhow::Result<()> {
    let s = crate::cli::session::CliSession::open(ctx)?;
    let content = crate::cli::commands::content::read_content(
        ctx,
        args.content.as_deref(),
        args.file.as_deref(),
        true,
    )?
    .ok_or(Error::NoContent { what: "summarize" })?;
    let out = memlane::ops::consolidate::summarize(&s, &args.name, content, args.temperature)?;
    print_outcome(ctx, &out)
}
