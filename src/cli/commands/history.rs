//! `memlane history`: the stored versions of a memory.

use crate::cli::Ctx;
use crate::cli::output::human_size;
use crate::cli::session::CliSession;
use memlane::ops;

/// List the stored versions of a memory
///
/// Every overwrite (update, append, edit, restore …) keeps the previous file here first.
#[derive(Debug, clap::Args)]
pub(crate) struct HistoryArgs {
    /// The memory: its name, `name.md`, `memory:name`, or its id
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    name: String,
}

pub(crate) fn history(ctx: &mut Ctx, args: &HistoryArgs) -> anyhow::Result<()> {
    let s = CliSession::open(ctx)?;
    let history = ops::views::history(&s, &args.name)?;
    if ctx.out.json {
        return ctx.out.json(&history);
    }
    if history.versions.is_empty() {
        ctx.out.note(format!("{} has no earlier versions", history.name));
        return Ok(());
    }
    let rows: Vec<Vec<String>> = history
        .versions
        .iter()
        .map(|v| {
            vec![v.version.to_string(), v.replaced_at.clone(), v.action.clone(), human_size(v.size)]
        })
        .collect();
    ctx.out.text(&ctx.out.table(&["VERSION", "REPLACED", "BY", "SIZE"], &rows, &[]))
}
