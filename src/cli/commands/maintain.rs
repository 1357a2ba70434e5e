//! `memlane maintain`: the self-maintenance jobs, once.

use crate::cli::Ctx;
use crate::cli::session::CliSession;
use memlane::ops;
use memlane::ops::wire::ImportanceEntry;

/// Run the self-maintenance jobs once and report what was found and changed
///
/// Heals links whose target has a recorded successor, recomputes every memory's importance
/// (showing the most and least important), lists cold memories, merge suggestions and split
/// candidates, and archives memories past `expires_at`. Nothing is ever deleted.
#[derive(Debug, clap::Args)]
pub(crate) struct MaintainArgs {}

pub(crate) fn maintain(ctx: &mut Ctx, _args: &MaintainArgs) -> anyhow::Result<()> {
    let s = CliSession::open(ctx)?;
    let report = ops::maintenance::maintain(&s)?;
    if ctx.out.json {
        return ctx.out.json(&report);
    }
    let mut text = String::new();
    text.push_str(&format!(
        "dead links: {} ({} healed)\n",
        report.dead_links.len(),
        report.healed.len()
    ));
    for d in &report.dead_links {
        text.push_str(&format!("  {}\n", serde_json::to_string(d)?));
    }
    let imp = &report.importance;
    text.push_str(&format!(
        "importance: recomputed for {} memories (mean {:.3} over active ones)\n",
        imp.computed, imp.mean
    ));
    let listed = |entries: &[ImportanceEntry]| -> String {
        entries
            .iter()
            .map(|e| format!("{} {:.3}", e.name, e.importance))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !imp.top.is_empty() {
        text.push_str(&format!("  most important: {}\n", listed(&imp.top)));
        text.push_str(&format!("  least important: {}\n", listed(&imp.bottom)));
    }
    text.push_str(&format!("cold memories: {}\n", report.cold.len()));
    if !report.temp_files_removed.is_empty() {
        text.push_str(&format!(
            "temp files left by killed writers, removed: {}\n",
            report.temp_files_removed.len()
        ));
    }
    text.push_str(&format!("merge suggestions: {}\n", report.merge_suggestions.len()));
    for c in &report.merge_suggestions {
        text.push_str(&format!("  [{:.2}] {}\n", c.score, c.reason));
    }
    text.push_str(&format!("split candidates: {}\n", report.split_candidates.len()));
    text.push_str(&format!("expired and archived: {}\n", report.expired.len()));
    for e in &report.expired {
        text.push_str(&format!("  {}\n", e.name));
    }
    ctx.out.text(&text)
}
