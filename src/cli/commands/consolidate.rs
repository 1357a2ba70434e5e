//! `memlane merge`, `suggest-merges`, `split`, `maintain`.

use memlane::Error;
use memlane::lifecycle::consolidate;
use memlane::limits;

use crate::cli::Ctx;
use crate::cli::commands::memory::print_outcome;

/// Merge memories into a new one; the sources go to the trash (or are archived)
///
/// The target gets the union of the tags, the most important type and `consolidated_from`;
/// every link to a source is redirected to it. Refuses, changing nothing, when the target exists
/// or a source is missing.
#[derive(Debug, clap::Args)]
pub(crate) struct MergeArgs {
    /// The memories to merge (two or more)
    #[arg(required = true, num_args = 2..)]
    sources: Vec<String>,
    /// The new memory's name
    #[arg(long, value_name = "NAME")]
    into: String,
    /// Its content (default: the sources' contents, each under its name as a heading)
    #[arg(long, value_name = "TEXT")]
    content: Option<String>,
    /// Archive the sources (status: archived, superseded_by the target) instead of trashing them
    #[arg(long)]
    archive: bool,
}

/// Find clusters of near-duplicate memories worth merging
#[derive(Debug, clap::Args)]
pub(crate) struct SuggestMergesArgs {
    /// How similar the members of a cluster must all be (default: `lifecycle.merge_threshold`)
    #[arg(long)]
    threshold: Option<f64>,
    /// Only memories of this type
    #[arg(short = 't', long = "type", value_name = "TYPE")]
    memory_type: Option<String>,
    /// How many clusters
    #[arg(short = 'n', long, default_value_t = 5)]
    limit: usize,
}

/// Split a memory into one memory per section
#[derive(Debug, clap::Args)]
pub(crate) struct SplitArgs {
    /// The memory: its name, `name.md`, `memory:name`, or its id
    name: String,
    /// Move the original to the trash (links to it then point to the first piece)
    #[arg(long)]
    replace: bool,
}

/// Run the self-maintenance jobs once and report what was found and changed
///
/// Heals links whose target has a recorded successor, recomputes every memory's importance
/// (showing the most and least important), lists cold memories, merge suggestions and split
/// candidates, and archives memories past `expires_at`. Nothing is ever deleted.
#[derive(Debug, clap::Args)]
pub(crate) struct MaintainArgs {}

pub(crate) fn merge(ctx: &mut Ctx, args: &MergeArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    let sources = args.sources.iter().map(|n| vault.resolve(n)).collect::<Result<Vec<_>, _>>()?;
    let refs: Vec<&memlane::vault::Memory> = sources.iter().collect();
    let target = vault.name_for(&args.into)?;
    let out = consolidate::merge(&vault, &refs, &target, args.content.as_deref(), args.archive)?;
    if ctx.out.json {
        return ctx.out.json(&out);
    }
    print_outcome(ctx, &out.target)?;
    for s in &out.sources {
        print_outcome(ctx, s)?;
    }
    for r in &out.relinked {
        ctx.out.line(format!("  redirected links in {}", r.name))?;
    }
    Ok(())
}

pub(crate) fn suggest_merges(ctx: &mut Ctx, args: &SuggestMergesArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    let threshold = args.threshold.unwrap_or(vault.config.lifecycle.merge_threshold);
    if !(0.0..=1.0).contains(&threshold) {
        return Err(
            Error::Invalid(format!("--threshold {threshold} is not between 0 and 1")).into()
        );
    }
    if let Some(t) = &args.memory_type {
        vault.check_type(t)?;
    }
    let mut idx = ctx.open_indexes(&vault)?;
    ctx.report_reconcile(&vault, &idx.reconcile(&vault)?);
    limits::check("--limit", args.limit, 1, limits::MAX_CLUSTERS)?;
    let clusters = consolidate::suggest_merges(
        &vault,
        &idx,
        threshold,
        args.memory_type.as_deref(),
        args.limit,
    );
    if ctx.out.json {
        return ctx.out.json(&clusters);
    }
    if clusters.is_empty() {
        ctx.out.note(format!("no near-duplicates at similarity {threshold:.2} or above"));
        return Ok(());
    }
    let mut text = String::new();
    for (i, c) in clusters.iter().enumerate() {
        text.push_str(&format!("{}. [{:.2}] {}\n", i + 1, c.score, c.reason));
        for m in &c.members {
            text.push_str(&format!("   - {} ({}): {}\n", m.name, m.memory_type, m.preview));
        }
    }
    ctx.out.text(&text)
}

pub(crate) fn split(ctx: &mut Ctx, args: &SplitArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    let m = vault.resolve(&args.name)?;
    let outs = consolidate::split(&vault, &m, args.replace)?;
    if ctx.out.json {
        return ctx.out.json(&outs);
    }
    for o in &outs {
        print_outcome(ctx, o)?;
    }
    Ok(())
}

pub(crate) fn maintain(ctx: &mut Ctx, _args: &MaintainArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    let mut idx = ctx.open_indexes(&vault)?;
    ctx.report_reconcile(&vault, &idx.reconcile(&vault)?);
    let report = consolidate::maintain(&vault, &idx, vault.clock.now())?;
    if report.changed() {
        ctx.report_reconcile(&vault, &idx.reconcile(&vault)?);
    }
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
    let listed = |entries: &[consolidate::ImportanceEntry]| -> String {
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
    for p in &report.problems {
        ctx.out.warn(p);
    }
    ctx.out.text(&text)
}
