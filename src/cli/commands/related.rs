//! `memlane related`: memories N links away.

use crate::cli::Ctx;
use crate::cli::session::CliSession;
use memlane::limits;
use memlane::ops;

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
    let s = CliSession::open(ctx)?;
    let r = ops::links::related(&s, &args.name, args.depth, args.limit)?;
    if ctx.out.json {
        return ctx.out.json(&r);
    }
    if r.related.is_empty() {
        ctx.out.note(format!("nothing is exactly {} link(s) away from {}", args.depth, r.name));
        return Ok(());
    }
    let mut text = String::new();
    for (i, n) in r.related.iter().enumerate() {
        let via: Vec<String> = n.path.iter().map(|(k, t)| format!("{t} {k}")).collect();
        text.push_str(&format!(
            "{}. {}  [{:.2}]  via {}\n",
            i + 1,
            n.key.trim_start_matches("memory:"),
            n.score,
            via.join(", ")
        ));
    }
    ctx.out.text(&text)
}
