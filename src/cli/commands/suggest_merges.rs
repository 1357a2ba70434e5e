//! `memlane suggest-merges`.

use crate::cli::Ctx;
use crate::cli::session::CliSession;
use memlane::ops;

/// Find clusters of near-duplicate memories worth merging
#[derive(Debug, clap::Args)]
pub(crate) struct SuggestMergesArgs {
    /// How similar the members of a cluster must all be (default: `lifecycle.merge_threshold`)
    #[arg(long)]
    threshold: Option<f64>,
    /// Only memories of this type
    #[arg(short = 't', long = "type", value_name = "TYPE", add = clap_complete::ArgValueCompleter::new(crate::cli::complete::types))]
    memory_type: Option<String>,
    /// How many clusters
    #[arg(short = 'n', long, default_value_t = 5)]
    limit: usize,
}

pub(crate) fn suggest_merges(ctx: &mut Ctx, args: &SuggestMergesArgs) -> anyhow::Result<()> {
    memlane::limits::check("--limit", args.limit, 1, memlane::limits::MAX_CLUSTERS)?;
    let s = CliSession::open(ctx)?;
    let found =
        ops::views::suggest_merges(&s, args.threshold, args.memory_type.as_deref(), args.limit)?;
    if ctx.out.json {
        return ctx.out.json(&found);
    }
    if found.clusters.is_empty() {
        let threshold = found.threshold;
        ctx.out.note(format!("no near-duplicates at similarity {threshold:.2} or above"));
        return Ok(());
    }
    let mut text = String::new();
    for (i, c) in found.clusters.iter().enumerate() {
        text.push_str(&format!("{}. [{:.2}] {}\n", i + 1, c.score, c.reason));
        for m in &c.memories {
            text.push_str(&format!("   - {} ({}): {}\n", m.name, m.memory_type, m.preview));
        }
    }
    ctx.out.text(&text)
}
