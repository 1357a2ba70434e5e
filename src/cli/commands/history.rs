//! `memlane history`: the stored versions of a memory.

use crate::cli::Ctx;
use crate::cli::output::human_size;

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
    let vault = ctx.open_vault()?;
    let m = vault.resolve(&args.name)?;
    let versions = vault.history(&m)?;
    if ctx.out.json {
        return ctx
            .out
            .json(&serde_json::json!({ "name": m.name, "id": m.id, "versions": versions }));
    }
    if versions.is_empty() {
        ctx.out.note(format!("{} has no earlier versions", m.name));
        return Ok(());
    }
    let rows: Vec<Vec<String>> = versions
        .iter()
        .map(|v| {
            vec![v.version.to_string(), v.replaced_at.clone(), v.action.clone(), human_size(v.size)]
        })
        .collect();
    ctx.out.text(&ctx.out.table(&["VERSION", "REPLACED", "BY", "SIZE"], &rows, &[]))
}
