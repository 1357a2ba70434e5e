//! `memlane cold`: the memories that cooled down.

use crate::cli::Ctx;
use memlane::lifecycle::views;

/// List the cold memories (temperature below `lifecycle.cold_threshold`), coldest first
#[derive(Debug, clap::Args)]
pub(crate) struct ColdArgs {}

pub(crate) fn cold(ctx: &mut Ctx, _args: &ColdArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    let (items, reset) = views::cold_memories(&vault)?;
    crate::cli::commands::lifecycle::warn_reset(ctx, reset);
    if ctx.out.json {
        return ctx.out.json(&items);
    }
    if items.is_empty() {
        ctx.out.note("no cold memories");
        return Ok(());
    }
    let mut text = String::new();
    for i in &items {
        text.push_str(&format!("{:.3}  {}  ({} tokens)\n", i.temperature, i.name, i.tokens));
    }
    ctx.out.text(&text)
}
