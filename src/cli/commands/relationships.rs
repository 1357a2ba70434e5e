//! `memlane relationships`: a memory's typed links, both ways.

use crate::cli::Ctx;
use serde_json::json;

/// A memory's typed links, both ways, and its whole version chain
#[derive(Debug, clap::Args)]
pub(crate) struct RelationshipsArgs {
    /// The memory: its name, `name.md`, `memory:name`, or its id
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    name: String,
    /// Only links of this type (e.g. `supersedes`, `depends_on`)
    #[arg(long = "type", value_name = "TYPE")]
    edge_type: Option<String>,
}

pub(crate) fn relationships(ctx: &mut Ctx, args: &RelationshipsArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    let (idx, _) = ctx.open_reconciled(&vault)?;
    let (key, m) = crate::cli::commands::links::resolve_key(&vault, &args.name)?;
    let filter =
        args.edge_type.as_deref().map(crate::cli::commands::links::parse_type).transpose()?;
    let r = idx.graph().relationships(&key, filter.as_deref());
    let (outgoing, incoming, chain) = (r.outgoing, r.incoming, r.version_chain);
    let show_chain = !chain.is_empty();
    if ctx.out.json {
        return ctx.out.json(&json!({
            "memory_id": key,
            "name": m.name,
            "version_chain": chain,
            "outgoing": outgoing.iter().map(|(k, e)| e.to_json(k)).collect::<Vec<_>>(),
            "incoming": incoming.iter().map(|(k, e)| e.to_json(k)).collect::<Vec<_>>(),
        }));
    }
    let mut text = format!("{}\n", m.name);
    if show_chain && chain.len() > 1 {
        let names: Vec<&str> = chain.iter().map(|k| k.trim_start_matches("memory:")).collect();
        text.push_str(&format!("  versions (newest first): {}\n", names.join(" -> ")));
    }
    for (k, e) in &outgoing {
        text.push_str(&format!("  -> {:<16} {}\n", e.edge_type, k));
    }
    for (k, e) in &incoming {
        text.push_str(&format!("  <- {:<16} {}\n", e.edge_type, k));
    }
    if outgoing.is_empty() && incoming.is_empty() {
        text.push_str("  no links\n");
    }
    ctx.out.text(&text)
}
