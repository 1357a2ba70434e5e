//! `memlane list`.

use memlane::model::time::format_timestamp;
use memlane::ops::wire::{self, MemoryJson};
use memlane::vault::{ListFilter, ListSort, ScanProblem};

use crate::cli::Ctx;
use crate::cli::hints;
use crate::cli::output::Style;

/// How to sort.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum SortKey {
    /// Newest first
    Created,
    /// Most recently updated first
    Updated,
    /// By name
    Name,
    /// Warmest first (remindb's temperature)
    Temperature,
    /// Most important first (MIRA's importance score)
    Importance,
}

/// List memories, newest first
///
/// Shows active memories unless `--status` says otherwise. Filters combine: types and tags match
/// any of the given values.
#[derive(Debug, clap::Args)]
pub(crate) struct ListArgs {
    /// Only this type (repeatable)
    #[arg(short = 't', long = "type", value_name = "TYPE", value_delimiter = ',', add = clap_complete::ArgValueCompleter::new(crate::cli::complete::types))]
    types: Vec<String>,
    /// Only memories with this tag (repeatable: any of them)
    #[arg(long = "tag", value_name = "TAG", value_delimiter = ',', add = clap_complete::ArgValueCompleter::new(crate::cli::complete::tags))]
    tags: Vec<String>,
    /// Only this status
    #[arg(long, value_parser = crate::cli::args::status_or_all(), default_value = "active")]
    status: String,
    #[command(flatten)]
    window: crate::cli::args::TimeWindowArgs,
    /// Sort order
    #[arg(long, value_enum, default_value_t = SortKey::Created)]
    sort: SortKey,
    /// Reverse the order
    #[arg(long)]
    reverse: bool,
    /// Show at most this many
    #[arg(short = 'n', long)]
    limit: Option<usize>,
}

pub(crate) fn run(ctx: &mut Ctx, args: &ListArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    for t in &args.types {
        vault.check_type(t)?;
    }
    let window = args.window.window(&vault)?;
    let filter = ListFilter {
        types: args.types.clone(),
        tags: args.tags.clone(),
        statuses: vec![args.status.clone()],
        after: window.after,
        before: window.before,
        sort: match args.sort {
            SortKey::Created => ListSort::Created,
            SortKey::Updated => ListSort::Updated,
            SortKey::Name | SortKey::Temperature | SortKey::Importance => ListSort::Name,
        },
        reverse: false,
        limit: None,
    };
    let (mut memories, problems) = vault.list(&filter)?;
    // Lifecycle sort keys, computed per memory.
    let keyed: Option<(&str, std::collections::HashMap<String, f64>)> = match args.sort {
        SortKey::Temperature => {
            let state = crate::cli::commands::lifecycle::temperatures(ctx, &vault)?;
            let (now, cfg) = (vault.clock.now(), &vault.config.lifecycle);
            let map = memories
                .iter()
                .map(|m| {
                    (m.id.to_string(), state.temperature(m.id.as_str(), m.meta.pinned, now, cfg))
                })
                .collect();
            Some(("temperature", map))
        }
        SortKey::Importance => Some(("importance", importance_of(ctx, &vault, &memories)?)),
        _ => None,
    };
    if let Some((_, map)) = &keyed {
        memories.sort_by(|a, b| {
            let (ka, kb) = (map[a.id.as_str()], map[b.id.as_str()]);
            kb.total_cmp(&ka).then_with(|| a.name.cmp(&b.name))
        });
    }
    if args.reverse {
        memories.reverse();
    }
    if let Some(limit) = args.limit {
        memories.truncate(limit);
    }
    for p in &problems {
        let hint = match p {
            ScanProblem::Unreachable(u) => Some(u.hint().to_owned()),
            ScanProblem::Unreadable { error, .. } => hints::hint(error),
        };
        match hint {
            Some(h) => ctx.out.warn(format!("{p}\n  hint: {h}")),
            None => ctx.out.warn(p.to_string()),
        }
    }
    for m in &memories {
        for w in &m.warnings {
            ctx.out.warn(format!("{}: {w}", m.name));
        }
    }
    if ctx.out.json {
        let items: Vec<_> = memories
            .iter()
            .map(|m| {
                let mut v = MemoryJson::new(&vault, m, false);
                if let Some((key, map)) = &keyed {
                    let value = Some(wire::level(map[m.id.as_str()]));
                    if *key == "temperature" { v.temperature = value } else { v.importance = value }
                }
                v
            })
            .collect();
        return ctx.out.json(&items);
    }
    if memories.is_empty() {
        ctx.out.note("no memories match");
        return Ok(());
    }
    let rows: Vec<Vec<String>> = memories
        .iter()
        .map(|m| {
            let mut row = vec![m.name.to_string(), m.memory_type.clone(), m.status.clone()];
            if let Some((_, map)) = &keyed {
                row.push(format!("{:.3}", map[m.id.as_str()]));
            }
            row.push(format_timestamp(m.created_at));
            row.push(m.meta.tags.join(","));
            row
        })
        .collect();
    let mut header = vec!["NAME", "TYPE", "STATUS"];
    if let Some((key, _)) = &keyed {
        header.push(if *key == "temperature" { "TEMP" } else { "IMPORTANCE" });
    }
    header.extend(["CREATED", "TAGS"]);
    let mut styles = vec![Some(Style::Name), Some(Style::Type), None];
    if keyed.is_some() {
        styles.push(Some(Style::Score));
    }
    styles.extend([None, Some(Style::Tag)]);
    ctx.out.text(&ctx.out.table(&header, &rows, &styles))
}

/// MIRA's importance per memory id: usage from the lifecycle state, hub and entity links from
/// the graph, event and expiry dates from the frontmatter ([`memlane::lifecycle::ImportanceSource`]).
fn importance_of(
    ctx: &Ctx,
    vault: &memlane::vault::Vault,
    memories: &[memlane::vault::Memory],
) -> anyhow::Result<std::collections::HashMap<String, f64>> {
    let (idx, _) = ctx.open_reconciled(vault)?;
    let state = crate::cli::commands::lifecycle::temperatures(ctx, vault)?;
    let source = memlane::lifecycle::ImportanceSource::new(
        &idx,
        &state,
        vault.clock.now(),
        vault.config.lifecycle.clock,
    );
    Ok(memories
        .iter()
        .map(|m| {
            let score = source.importance(&m.name.to_string()).map_or(0.0, |i| i.score);
            (m.id.to_string(), score)
        })
        .collect())
}
