//! `memlane cold`: the memories that cooled down.

use crate::cli::Ctx;
use crate::cli::session::CliSession;
use memlane::ops;

/// List the cold memories (temperature below `lifecycle.cold_threshold`), coldest first
#[derive(Debug, clap::Args)]
pub(crate) struct ColdArgs {}

pub(crate) fn cold(ctx: &mut Ctx, _args: &ColdArgs) -> anyhow::Result<()> {
    let s = CliSession::open(ctx)?;
    let cold = ops::views::cold(&s)?;
    if ctx.out.json {
        return ctx.out.json(&cold);
    }
    if cold.memories.is_empty() {
        ctx.out.note("no cold memories");
        return Ok(());
    }
    let mut text = String::new();
    for i in &cold.memories {
        text.push_str(&format!("{:.3}  {}  ({} tokens)\n", i.temperature, i.name, i.tokens));
    }
    ctx.out.text(&text)
}
