//! `memlane list`.

use memlane::ops::views::{ListOrder, ListRequest};
use memlane::ops::{self, Session as _};
use memlane::vault::ScanProblem;

use crate::cli::Ctx;
use crate::cli::hints;
use crate::cli::output::Style;
use crate::cli::session::CliSession;

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
    let s = CliSession::open(ctx)?;
    let window = args.window.window(s.vault())?;
    let order = match args.sort {
        SortKey::Created => ListOrder::Created,
        SortKey::Updated => ListOrder::Updated,
        SortKey::Name => ListOrder::Name,
        SortKey::Temperature => ListOrder::Temperature,
        SortKey::Importance => ListOrder::Importance,
    };
    let req = ListRequest {
        types: args.types.clone(),
        tags: args.tags.clone(),
        status: args.status.clone(),
        after: window.after,
        before: window.before,
        order,
        reverse: args.reverse,
        limit: args.limit,
    };
    let listed = ops::views::list(&s, &req)?;
    for p in &listed.problems {
        let hint = match p {
            ScanProblem::Unreachable(u) => Some(u.hint().to_owned()),
            ScanProblem::Unreadable { error, .. } => hints::hint(error),
        };
        match hint {
            Some(h) => ctx.out.warn(format!("{p}\n  hint: {h}")),
            None => ctx.out.warn(p.to_string()),
        }
    }
    for m in &listed.memories {
        for w in &m.warnings {
            ctx.out.warn(format!("{}: {w}", m.name));
        }
    }
    if ctx.out.json {
        return ctx.out.json(&listed.memories);
    }
    if listed.memories.is_empty() {
        ctx.out.note("no memories match");
        return Ok(());
    }
    let key = match order {
        ListOrder::Temperature => Some("TEMP"),
        ListOrder::Importance => Some("IMPORTANCE"),
        _ => None,
    };
    let rows: Vec<Vec<String>> = listed
        .memories
        .iter()
        .map(|m| {
            let mut row = vec![m.name.clone(), m.memory_type.clone(), m.status.clone()];
            if key.is_some() {
                let value = m.temperature.or(m.importance).unwrap_or_default();
                row.push(format!("{value:.3}"));
            }
            row.push(m.created_at.clone());
            row.push(m.tags.join(","));
            row
        })
        .collect();
    let mut header = vec!["NAME", "TYPE", "STATUS"];
    header.extend(key);
    header.extend(["CREATED", "TAGS"]);
    let mut styles = vec![Some(Style::Name), Some(Style::Type), None];
    if key.is_some() {
        styles.push(Some(Style::Score));
    }
    styles.extend([None, Some(Style::Tag)]);
    ctx.out.text(&ctx.out.table(&header, &rows, &styles))
}
