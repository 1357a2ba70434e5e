//! `memlane doctor`: check the config and the vault.

use crate::cli::Ctx;
use crate::cli::session::CliSession;
use memlane::ops;
use memlane::ops::wire::Doctor;

/// Check the config and the vault: hand-written files with problems, links to missing memories
#[derive(Debug, clap::Args)]
pub(crate) struct DoctorArgs {}

pub(crate) fn doctor(ctx: &mut Ctx, _args: &DoctorArgs) -> anyhow::Result<()> {
    let root = memlane::vault::locate(&ctx.location()?)?;
    if let Some(report) = ops::doctor::unsafe_folders(&root) {
        if ctx.out.json {
            return ctx.out.json(&report);
        }
        let mut text = format!("vault     {}\n", report.vault);
        text.push_str(&problems(&report));
        text.push_str("nothing else is checked until this is fixed\n");
        return ctx.out.text(&text);
    }
    let s = CliSession::open(ctx)?;
    let report = ops::doctor::check(&s)?;
    if ctx.out.json {
        return ctx.out.json(&report);
    }
    let mut text = format!(
        "vault     {}\nmemories  {} ({} chunks)\nembedder  {}\n",
        report.vault,
        report.memories.unwrap_or_default(),
        report.chunks.unwrap_or_default(),
        report.embedder.as_deref().unwrap_or_default(),
    );
    if let Some(g) = &report.graph {
        text.push_str(&format!(
            "graph     {} memories, {} documents, {} entities, {} links\n",
            g.memories, g.ghosts, g.entities, g.edges
        ));
    }
    if report.problems.is_empty() {
        text.push_str("no problems found\n");
    } else {
        text.push_str(&problems(&report));
    }
    ctx.out.text(&text)
}

/// The problems as lines: `memory: message`, then the hint.
fn problems(report: &Doctor) -> String {
    let mut text = format!("{} problem(s):\n", report.problems.len());
    for p in &report.problems {
        let who = p.memory.as_deref().map(|m| format!("{m}: ")).unwrap_or_default();
        text.push_str(&format!("  {who}{}\n", p.message));
        if let Some(hint) = &p.hint {
            text.push_str(&format!("    hint: {hint}\n"));
        }
    }
    text
}
