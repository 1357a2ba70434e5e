//! `memlane linked`, `relationships`, `related`, `link`, `unlink`, `doctor`.

use memlane::index::graph::EdgeData;
use memlane::limits;
use memlane::model::links::{link_weight, normalize_target};
use memlane::search::SearchQuery;
use memlane::vault::Vault;
use serde_json::json;

use crate::cli::Ctx;
use crate::cli::commands::content::print_outcome;
use crate::cli::session::CliSession;
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

/// Write a typed link into a memory's frontmatter
#[derive(Debug, clap::Args)]
pub(crate) struct LinkArgs {
    /// The memory the link goes from
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    from: String,
    /// The memory it points to (or a document with `--doc`)
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    to: String,
    /// The link type
    #[arg(long = "type", value_name = "TYPE", default_value = "related_to")]
    edge_type: String,
    /// `TO` is a document (a file path), not a memory
    #[arg(long)]
    doc: bool,
}

/// Remove typed links from a memory's frontmatter
#[derive(Debug, clap::Args)]
pub(crate) struct UnlinkArgs {
    /// The memory the link goes from
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    from: String,
    /// The memory or document it points to
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    to: String,
    /// Only links of this type
    #[arg(long = "type", value_name = "TYPE")]
    edge_type: Option<String>,
}

/// Check the config and the vault: hand-written files with problems, links to missing memories
#[derive(Debug, clap::Args)]
pub(crate) struct DoctorArgs {}

fn parse_type(t: &str) -> anyhow::Result<String> {
    Ok(ops::links::edge_type(t)?)
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

fn resolve_key(vault: &Vault, name: &str) -> anyhow::Result<(String, memlane::vault::Memory)> {
    let m = vault.resolve(name)?;
    Ok((format!("memory:{}", m.name), m))
}

pub(crate) fn relationships(ctx: &mut Ctx, args: &RelationshipsArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    let (idx, _) = ctx.open_reconciled(&vault)?;
    let (key, m) = resolve_key(&vault, &args.name)?;
    let filter = args.edge_type.as_deref().map(parse_type).transpose()?;
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

pub(crate) fn related(ctx: &mut Ctx, args: &RelatedArgs) -> anyhow::Result<()> {
    limits::check("--depth", args.depth, 1, limits::MAX_DEPTH)?;
    limits::check("--limit", args.limit, 1, limits::MAX_RESULTS)?;
    let vault = ctx.open_vault()?;
    let (idx, _) = ctx.open_reconciled(&vault)?;
    let (key, m) = resolve_key(&vault, &args.name)?;
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

pub(crate) fn link(ctx: &mut Ctx, args: &LinkArgs) -> anyhow::Result<()> {
    let s = CliSession::open(ctx)?;
    let to = if args.doc {
        ops::links::LinkTarget::Document(args.to.clone())
    } else {
        ops::links::LinkTarget::Memory(args.to.clone())
    };
    print_outcome(ctx, &ops::links::link(&s, &args.from, &to, &args.edge_type)?)
}

pub(crate) fn unlink(ctx: &mut Ctx, args: &UnlinkArgs) -> anyhow::Result<()> {
    let s = CliSession::open(ctx)?;
    print_outcome(ctx, &ops::links::unlink(&s, &args.from, &args.to, args.edge_type.as_deref())?)
}

pub(crate) fn doctor(ctx: &mut Ctx, _args: &DoctorArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    let (idx, report) = ctx.open_reconciled(&vault)?;
    let mut problems: Vec<serde_json::Value> = Vec::new();
    let duplicates: Vec<(String, Vec<String>, String)> = idx
        .manifest()
        .duplicate_ids()
        .into_iter()
        .map(|(id, names)| {
            let message = memlane::index::store::duplicate_id_message(&id, &names);
            (id, names, message)
        })
        .collect();
    for p in &report.problems {
        if !duplicates.iter().any(|(_, _, m)| m == p) {
            let kind = if p.contains("unresolved merge conflict") {
                "merge_conflict"
            } else {
                "unreadable"
            };
            problems.push(json!({ "kind": kind, "message": p }));
        }
    }
    for (id, names, message) in duplicates {
        problems.push(
            json!({ "kind": "duplicate_id", "id": id, "memories": names, "message": message }),
        );
    }
    for name in vault.pending_intents() {
        problems.push(json!({ "kind": "interrupted_operation", "message": format!("an interrupted operation ({name}) waits to be rolled back by the next write") }));
    }
    for path in vault.stale_temp_files() {
        problems.push(json!({ "kind": "temp_file", "message": format!("{} is a temp file left by a killed writer; `memlane maintain` removes it", path.display()) }));
    }
    for link in vault.escaping_links()? {
        let what = if link.folder { "folder" } else { "file" };
        let message = match &link.target {
            Some(t) => format!(
                "symbolic link to the {what} {}, outside the vault's memories; memlane does not read it",
                t.display()
            ),
            None => "symbolic link that resolves nowhere; memlane does not read it".to_owned(),
        };
        problems.push(json!({ "kind": "link_outside_vault", "memory": link.name, "target": link.target, "message": message }));
    }
    if let Some(message) = vault.gitignore_advice() {
        problems.push(json!({ "kind": "gitignore", "message": message }));
    }
    for p in vault.unreachable_files()? {
        problems.push(json!({ "kind": "unreachable", "message": p }));
    }
    for (name, e) in &idx.manifest().entries {
        for w in &e.warnings {
            problems.push(json!({ "kind": "frontmatter", "memory": name, "message": w }));
        }
    }
    for (src, missing) in idx.graph().dangling() {
        let target = missing.trim_start_matches("memory:");
        let successor = vault.successor_of(target);
        let message = match &successor {
            Some(s) => {
                format!("links to `{target}`, which no longer exists; its successor is `{s}`")
            }
            None => format!("links to `{target}`, which no longer exists"),
        };
        problems.push(json!({ "kind": "dead_link", "memory": src.trim_start_matches("memory:"), "target": target, "successor": successor, "message": message }));
    }
    let stats = idx.graph().stats();
    let summary = json!({
        "vault": vault.root(),
        "memories": idx.manifest().entries.len(),
        "chunks": idx.manifest().total_chunks(),
        "embedder": idx.embedder().id(),
        "graph": stats,
        "problems": problems,
    });
    if ctx.out.json {
        return ctx.out.json(&summary);
    }
    let mut text = format!(
        "vault     {}\nmemories  {} ({} chunks)\nembedder  {}\ngraph     {} memories, {} documents, {} entities, {} links\n",
        vault.root().display(),
        idx.manifest().entries.len(),
        idx.manifest().total_chunks(),
        idx.embedder().id(),
        stats.memories,
        stats.ghosts,
        stats.entities,
        stats.edges
    );
    if problems.is_empty() {
        text.push_str("no problems found\n");
    } else {
        text.push_str(&format!("{} problem(s):\n", problems.len()));
        for p in &problems {
            let who = p
                .get("memory")
                .and_then(|v| v.as_str())
                .map(|m| format!("{m}: "))
                .unwrap_or_default();
            text.push_str(&format!("  {who}{}\n", p["message"].as_str().unwrap_or_default()));
        }
    }
    ctx.out.text(&text)
}
