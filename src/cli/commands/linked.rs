//! `memlane linked`: the memories that link to a document.

use crate::cli::Ctx;
use crate::cli::session::CliSession;
use memlane::limits;
use memlane::ops;

/// Memories that link to a document (`[[src/auth.py]]`), best match for the query first
#[derive(Debug, clap::Args)]
pub(crate) struct LinkedArgs {
    /// The document as linked, e.g. `src/auth.py` (`./` and duplicate slashes don't matter)
    document: String,
    /// Rank the memories by this query (default: by link confidence)
    query: Option<String>,
    /// How many results
    #[arg(short = 'n', long, default_value_t = 10)]
    limit: usize,
}

pub(crate) fn linked(ctx: &mut Ctx, args: &LinkedArgs) -> anyhow::Result<()> {
    limits::check("--limit", args.limit, 1, limits::MAX_RESULTS)?;
    let s = CliSession::open(ctx)?;
    let linked = ops::links::linked(&s, &args.document, args.query.as_deref(), args.limit)?;
    if ctx.out.json {
        return ctx.out.json(&linked);
    }
    if linked.results.is_empty() {
        ctx.out.note(format!("no memory links to {}", args.document));
        return Ok(());
    }
    let mut text = String::new();
    for (i, m) in linked.results.iter().enumerate() {
        text.push_str(&format!(
            "{}. {}  [{:.2}]  {}\n   {}\n",
            i + 1,
            m.name,
            m.score,
            m.edge_type,
            m.anchor_context
        ));
    }
    ctx.out.text(&text)
}
