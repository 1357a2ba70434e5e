//! `memlane show` (alias `read`).

use memlane::model::time::format_timestamp;
use memlane::ops::{self, Session as _};

use crate::cli::Ctx;
use crate::cli::output::Style;
use crate::cli::session::CliSession;

/// Print a memory
#[derive(Debug, clap::Args)]
pub(crate) struct ShowArgs {
    /// The memory: its name, `name.md`, `memory:name`, or its id
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    name: String,
    /// Print the file exactly as it is on disk
    #[arg(long)]
    raw: bool,
    /// Do not count this read as a use (no warming)
    #[arg(long)]
    no_touch: bool,
}

pub(crate) fn run(ctx: &mut Ctx, args: &ShowArgs) -> anyhow::Result<()> {
    let s = CliSession::open(ctx)?;
    let vault = s.vault();
    if args.raw {
        let raw = ops::memory::read_raw(&s, &args.name, !args.no_touch)?;
        for w in &raw.warnings {
            ctx.out.warn(format!("{}: {w}", raw.name));
        }
        if ctx.out.json {
            return ctx.out.json(&raw);
        }
        return ctx.out.text(&raw.raw);
    }
    let (m, json) = ops::views::show(&s, &args.name, !args.no_touch)?;
    for w in &m.warnings {
        ctx.out.warn(format!("{}: {w}", m.name));
    }
    if ctx.out.json {
        return ctx.out.json(&json);
    }
    let (temperature, importance) = (json.temperature.unwrap_or_default(), json.importance);
    let paint = |st, t: String| ctx.out.paint(st, t);
    let mut head = vec![
        ("id", m.id.to_string()),
        ("type", paint(Style::Type, m.memory_type.clone())),
        ("status", m.status.clone()),
    ];
    if !m.meta.tags.is_empty() {
        head.push(("tags", paint(Style::Tag, m.meta.tags.join(", "))));
    }
    head.push(("created", format_timestamp(m.created_at)));
    head.push(("updated", format_timestamp(m.updated_at)));
    if m.meta.pinned {
        head.push(("pinned", "yes".into()));
    }
    if let Some(s) = &m.meta.superseded_by {
        head.push(("superseded by", s.clone()));
    }
    head.push(("temperature", paint(Style::Score, format!("{temperature:.2}"))));
    if let Some(i) = importance {
        head.push(("importance", paint(Style::Score, format!("{i:.2}"))));
    }
    let mut text = format!("{}\n", paint(Style::Name, m.name.to_string()));
    for (k, v) in head {
        text.push_str(&format!("  {k:<11} {v}\n"));
    }
    text.push('\n');
    let content = m.redacted_content(vault.config.privacy.scrub_secrets);
    text.push_str(&content);
    if !content.is_empty() && !content.ends_with('\n') {
        text.push('\n');
    }
    ctx.out.text(&text)
}
