//! `memlane context`: the digest an agent reads at the start of a session.

use crate::cli::Ctx;
use crate::cli::session::CliSession;
use memlane::limits;
use memlane::ops::context::{self, ContextRequest};

/// Print what matters for the work at hand, within a token budget: pinned memories, memories
/// linked to the files changed in the git working tree, matches of a task, the hottest memories
#[derive(Debug, clap::Args)]
pub(crate) struct ContextArgs {
    /// The most estimated tokens to print (4 characters a token)
    #[arg(long, value_name = "N", default_value_t = context::DEFAULT_BUDGET)]
    budget: usize,
    /// A task in words: its best matches are listed after the memories of the changed files
    #[arg(long = "for", value_name = "TEXT")]
    task: Option<String>,
}

pub(crate) fn context(ctx: &mut Ctx, args: &ContextArgs) -> anyhow::Result<()> {
    limits::check("--budget", args.budget, 1, limits::MAX_BUDGET_TOKENS)?;
    let s = CliSession::open(ctx)?;
    let req = ContextRequest { budget: args.budget, task: args.task.clone(), workdir: None };
    let digest = context::context(&s, &req)?;
    if ctx.out.json {
        return ctx.out.json(&digest);
    }
    ctx.out.text(&digest.text)
}
