//! `memlane pin`, `unpin`, `cold`, `tree`, `summarize`: the lifecycle on the command line.

use std::path::PathBuf;

use memlane::Error;
use memlane::lifecycle::{UsageState, UsageStore, views};
use memlane::vault::Vault;

use crate::cli::Ctx;
use crate::cli::commands::content::print_outcome;
use crate::cli::output::Style;

/// Pin a memory: it never cools, never counts as cold, and ranks at full temperature
#[derive(Debug, clap::Args)]
pub(crate) struct PinArgs {
    /// The memory: its name, `name.md`, `memory:name`, or its id
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    name: String,
}

/// List the cold memories (temperature below `lifecycle.cold_threshold`), coldest first
#[derive(Debug, clap::Args)]
pub(crate) struct ColdArgs {}

/// Print the vault as a tree: folders, memories and their sections, with temperature and tokens
#[derive(Debug, clap::Args)]
pub(crate) struct TreeArgs {
    /// Leave out the heading sections
    #[arg(long)]
    no_sections: bool,
}

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

fn warn_reset(ctx: &Ctx, reset: Option<memlane::lifecycle::StateReset>) {
    if let Some(r) = reset {
        ctx.out.warn(r.to_string());
    }
}

/// Warms the memories an agent or person just used (reads, search results).
pub(crate) fn touch(ctx: &Ctx, vault: &Vault, used: &[(String, bool)]) {
    let now = vault.clock.now();
    let cfg = &vault.config.lifecycle;
    let touched = UsageStore::update(vault.root(), |state| {
        state.touch_day(now);
        for (id, pinned) in used {
            state.warm(id, *pinned, now, cfg);
        }
    });
    // A read answers even where the usage state cannot be written (read-only vault, full disk).
    match touched {
        Ok((_, reset)) => warn_reset(ctx, reset),
        Err(e) => match memlane::index::store::unwritable(&e) {
            Some(why) => ctx.out.warn_unwritable(&why),
            None => ctx.out.warn(format!("the usage state could not be updated: {e}")),
        },
    }
}

/// Current temperatures, read without writing.
pub(crate) fn temperatures(ctx: &Ctx, vault: &Vault) -> anyhow::Result<UsageState> {
    let (store, reset) = UsageStore::open(vault.root()).map_err(Error::from)?;
    warn_reset(ctx, reset);
    Ok(store.into_state())
}

fn set_pinned(ctx: &mut Ctx, args: &PinArgs, pinned: bool) -> anyhow::Result<()> {
    let s = crate::cli::session::CliSession::open(ctx)?;
    print_outcome(ctx, &memlane::ops::memory::set_pinned(&s, &args.name, pinned)?)
}

pub(crate) fn pin(ctx: &mut Ctx, args: &PinArgs) -> anyhow::Result<()> {
    set_pinned(ctx, args, true)
}

pub(crate) fn unpin(ctx: &mut Ctx, args: &PinArgs) -> anyhow::Result<()> {
    set_pinned(ctx, args, false)
}

pub(crate) fn cold(ctx: &mut Ctx, _args: &ColdArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    let (items, reset) = views::cold_memories(&vault)?;
    warn_reset(ctx, reset);
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

pub(crate) fn tree(ctx: &mut Ctx, args: &TreeArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    let (rows, reset) = views::tree(&vault, !args.no_sections)?;
    warn_reset(ctx, reset);
    if ctx.out.json {
        return ctx.out.json(&rows);
    }
    let mut text = format!("{}\n", vault.root().display());
    let mut open_dirs: Vec<String> = Vec::new();
    for r in &rows {
        let parts: Vec<&str> = r.name.split('/').collect();
        let dirs = &parts[..parts.len() - 1];
        let common = open_dirs.iter().zip(dirs).take_while(|(a, b)| a == *b).count();
        open_dirs.truncate(common);
        for d in &dirs[common..] {
            text.push_str(&format!("{}{d}/\n", "  ".repeat(open_dirs.len() + 1)));
            open_dirs.push((*d).to_owned());
        }
        let indent = "  ".repeat(open_dirs.len() + 1);
        let pin = if r.pinned { " pinned" } else { "" };
        let out = &ctx.out;
        text.push_str(&format!(
            "{indent}{}  [T {}{pin}, {} tokens, {}]\n",
            out.paint(Style::Name, parts[parts.len() - 1]),
            out.paint(Style::Score, format!("{:.2}", r.temperature)),
            r.tokens,
            out.paint(Style::Type, &r.memory_type)
        ));
        for s in &r.sections {
            let heading = out.paint(Style::Heading, &s.header_path);
            text.push_str(&format!("{indent}  § {heading}  ({} tokens)\n", s.tokens));
        }
    }
    ctx.out.text(&text)
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
