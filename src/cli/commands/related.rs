//! `memlane related`: memories N links away.

use crate::cli::Ctx;
use memlane::limits;
use memlane::model::links::link_weight;
use serde_json::json;

/// Memories exactly N links away, ranked by link type and confidence
#[derive(Debug, clap::Args)]
pub(crate) struct RelatedArgs {
    /// The memory: its name, `name.md`, `memory:name`, or its id
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    name: String,
    /// How many hops away (a document or shared entity in between counts as a hop)
    #[arg(long, default_value_t = 1)]
    depth: usize,
    /// How many results
    #[arg(short = 'n', long, default_value_t = 10)]
    limit: usize,
}

pub(crate) fn related(ctx: &mut Ctx, args: &RelatedArgs) -> anyhow::Result<()> {
    limits::check("--depth", args.depth, 1, limits::MAX_DEPTH)?;
    limits::check("--limit", args.limit, 1, limits::MAX_RESULTS)?;
    let vault = ctx.open_vault()?;
    let (idx, _) = ctx.open_reconciled(&vault)?;
    let (key, m) = crate::cli::commands::links::resolve_key(&vault, &args.name)?;
    let mut rel = idx.graph().neighbors(&key, args.depth, &link_weight);
    rel.truncate(args.limit);
    if ctx.out.json {
        return ctx.out.json(
            &json!({ "memory_id": key, "name": m.name, "depth": args.depth, "related": rel }),
        );
    }
    if rel.is_empty() {
        ctx.out.note(format!("nothing is exactly {} link(s) away from {}", args.depth, m.name));
        return Ok(());
    }
    let mut text = String::new();
    for (i, r) in rel.iter().enumerate() {
        let via: Vec<String> = r.path.iter().map(|(n, t)| format!("{t} {n}")).collect();
        text.push_str(&format!(
            "{}. {}  [{:.2}]  via {}\n",
            i + 1,
            r.key.trim_start_matches("memory:"),
            r.score,
            via.join(", ")
        ));
    }
    ctx.out.text(&text)
}
