//! `memlane show` (alias `read`).

use memlane::model::time::format_timestamp;
use memlane::ops::wire::{self, MemoryJson};
use memlane::ops::{self, Session as _};
use memlane::vault::Memory;
use serde_json::json;

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

/// A memory's temperature (after this read's warm-up) and MIRA importance, both
/// rounded to three decimals. Importance needs the indices (links, entities); when they cannot
/// be opened it is left out with a warning rather than failing the read.
fn lifecycle_of(s: &CliSession<'_>, m: &Memory) -> (f64, Option<f64>) {
    let (ctx, vault) = (s.ctx(), s.vault());
    let round = wire::level;
    let (store, reset) = match memlane::lifecycle::UsageStore::open(vault.root()) {
        Ok(s) => s,
        Err(e) => {
            ctx.out.warn(format!("cannot read the usage state: {e}"));
            return (round(vault.config.lifecycle.temperature_start), None);
        }
    };
    if let Some(r) = reset {
        ctx.out.warn(r.to_string());
    }
    let state = store.into_state();
    let now = vault.clock.now();
    let cfg = &vault.config.lifecycle;
    let temperature = round(state.temperature(m.id.as_str(), m.meta.pinned, now, cfg));
    let importance = s.with_indexes(&|idx| {
        let source = memlane::lifecycle::ImportanceSource::new(idx, &state, now, cfg.clock);
        Ok(source.importance(m.name.as_str()).map(|i| round(i.score)))
    });
    match importance {
        Ok(i) => (temperature, i),
        Err(e) => {
            ctx.out.warn(format!("importance not shown: {e:#}"));
            (temperature, None)
        }
    }
}

pub(crate) fn run(ctx: &mut Ctx, args: &ShowArgs) -> anyhow::Result<()> {
    let s = CliSession::open(ctx)?;
    let vault = s.vault();
    let m = ops::memory::read(&s, &args.name, !args.no_touch)?;
    for w in &m.warnings {
        ctx.out.warn(format!("{}: {w}", m.name));
    }
    if args.raw {
        if ctx.out.json {
            return ctx
                .out
                .json(&json!({ "name": m.name, "id": m.id, "file_path": m.path, "raw": m.raw }));
        }
        return ctx.out.text(&m.raw);
    }
    let (temperature, importance) = lifecycle_of(&s, &m);
    if ctx.out.json {
        let mut v = MemoryJson::new(vault, &m, true);
        v.temperature = Some(temperature);
        v.importance = importance;
        return ctx.out.json(&v);
    }
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
