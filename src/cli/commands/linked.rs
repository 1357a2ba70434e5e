//! `memlane linked`: the memories that link to a document.

use crate::cli::Ctx;
use memlane::index::graph::EdgeData;
use memlane::limits;
use memlane::model::links::normalize_target;
use memlane::search::SearchQuery;
use serde_json::json;

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
    let vault = ctx.open_vault()?;
    let (idx, _) = ctx.open_reconciled(&vault)?;
    let ghost = format!("ghost:{}", normalize_target(&args.document));
    let mut links = idx.graph().memories_linking_to(&ghost);
    // One result per memory: its most confident link.
    links.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.confidence.total_cmp(&a.1.confidence)));
    links.dedup_by(|a, b| a.0 == b.0);
    let mut scored: Vec<(f64, String, EdgeData)> = Vec::new();
    let scores: std::collections::HashMap<String, f64> = match &args.query {
        Some(q) => {
            let mut sq = SearchQuery::new(q.clone());
            sq.limit = Some(10_000);
            let mut v = vault.clone();
            v.config.search.score_threshold = 0.0;
            memlane::search::search(&v, &idx, &sq)?
                .hits
                .into_iter()
                .map(|h| (h.name, h.score))
                .collect()
        }
        None => Default::default(),
    };
    for (key, e) in links {
        let name = key.trim_start_matches("memory:").to_owned();
        let score = if args.query.is_some() {
            scores.get(&name).copied().unwrap_or(0.0)
        } else {
            f64::from(e.confidence)
        };
        scored.push((score, name, e));
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.truncate(args.limit);
    let items: Vec<serde_json::Value> = scored
        .iter()
        .map(|(score, name, e)| {
            let path = vault.root().join(format!("{name}.md"));
            let content = memlane::model::MemoryName::parse(name)
                .ok()
                .and_then(|n| vault.load(&n).ok())
                .map(|m| m.redacted_content(vault.config.privacy.scrub_secrets))
                .unwrap_or_default();
            json!({
                "memory_id": format!("memory:{name}"),
                "name": name,
                "score": (score * 10_000.0).round() / 10_000.0,
                "content": content,
                "anchor_context": e.context,
                "edge_type": e.edge_type,
                "file_path": path,
            })
        })
        .collect();
    if ctx.out.json {
        return ctx.out.json(&items);
    }
    if items.is_empty() {
        ctx.out.note(format!("no memory links to {}", args.document));
        return Ok(());
    }
    let mut text = String::new();
    for (i, (score, name, e)) in scored.iter().enumerate() {
        text.push_str(&format!(
            "{}. {name}  [{score:.2}]  {}\n   {}\n",
            i + 1,
            e.edge_type,
            e.context
        ));
    }
    ctx.out.text(&text)
}
