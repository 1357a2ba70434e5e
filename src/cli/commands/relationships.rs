//! `memlane relationships`: a memory's typed links, both ways.

use crate::cli::Ctx;
use crate::cli::session::CliSession;
use memlane::ops;

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
    let s = CliSession::open(ctx)?;
    let r = ops::links::relationships(&s, &args.name, args.edge_type.as_deref())?;
    if ctx.out.json {
        return ctx.out.json(&r);
    }
    let mut text = format!("{}\n", r.name);
    if r.version_chain.len() > 1 {
        let names: Vec<&str> =
            r.version_chain.iter().map(|k| k.trim_start_matches("memory:")).collect();
        text.push_str(&format!("  versions (newest first): {}\n", names.join(" -> ")));
    }
    for e in &r.outgoing {
        text.push_str(&format!("  -> {:<16} {}\n", e.edge_type, e.memory_id));
    }
    for e in &r.incoming {
        text.push_str(&format!("  <- {:<16} {}\n", e.edge_type, e.memory_id));
    }
    if r.outgoing.is_empty() && r.incoming.is_empty() {
        text.push_str("  no links\n");
    }
    ctx.out.text(&text)
}
