//! `memlane update`.

use std::path::PathBuf;

use memlane::ops;
use memlane::vault::UpdateRequest;

use crate::cli::Ctx;
use crate::cli::commands::content::{print_outcome, read_content};
use crate::cli::session::CliSession;

/// Replace a memory's content or change its metadata
///
/// By default CONTENT replaces the body and the frontmatter is kept; with `--raw` it replaces the
/// whole file (frontmatter included). The old version goes to history first.
#[derive(Debug, clap::Args)]
pub(crate) struct UpdateArgs {
    /// The memory: its name, `name.md`, `memory:name`, or its id
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    name: String,
    /// The new content; `-` reads standard input
    content: Option<String>,
    /// Read the new content from this file (`-` for standard input)
    #[arg(short, long, conflicts_with = "content", value_name = "PATH")]
    file: Option<PathBuf>,
    /// The content is the whole file, frontmatter included
    #[arg(long)]
    raw: bool,
    /// Change the type
    #[arg(short = 't', long = "type", value_name = "TYPE", add = clap_complete::ArgValueCompleter::new(crate::cli::complete::types))]
    memory_type: Option<String>,
    /// Replace the tags with these (repeatable; `a,b` sets both)
    #[arg(long = "tag", value_name = "TAG", value_delimiter = ',', add = clap_complete::ArgValueCompleter::new(crate::cli::complete::tags))]
    tags: Vec<String>,
    /// Add a tag (repeatable)
    #[arg(long = "add-tag", value_name = "TAG", value_delimiter = ',', add = clap_complete::ArgValueCompleter::new(crate::cli::complete::tags))]
    add_tags: Vec<String>,
    /// Remove a tag (repeatable)
    #[arg(long = "remove-tag", value_name = "TAG", value_delimiter = ',', add = clap_complete::ArgValueCompleter::new(crate::cli::complete::tags))]
    remove_tags: Vec<String>,
    /// Change the status
    #[arg(long, value_parser = crate::cli::args::status())]
    status: Option<String>,
}

pub(crate) fn run(ctx: &mut Ctx, args: &UpdateArgs) -> anyhow::Result<()> {
    let s = CliSession::open(ctx)?;
    let meta_change = args.memory_type.is_some()
        || !args.tags.is_empty()
        || !args.add_tags.is_empty()
        || !args.remove_tags.is_empty()
        || args.status.is_some();
    let content = read_content(ctx, args.content.as_deref(), args.file.as_deref(), !meta_change)?;
    let req = UpdateRequest {
        content,
        raw: args.raw,
        memory_type: args.memory_type.clone(),
        tags: (!args.tags.is_empty()).then(|| args.tags.clone()),
        add_tags: args.add_tags.clone(),
        remove_tags: args.remove_tags.clone(),
        status: args.status.clone(),
        action: if args.raw { "raw" } else { "update" },
    };
    print_outcome(ctx, &ops::memory::update(&s, &args.name, &req)?)
}
