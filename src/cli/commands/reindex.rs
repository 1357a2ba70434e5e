//! `memlane reindex`: rebuild the indices from the files.

use crate::cli::Ctx;
use memlane::index::store::{Indexes, Progress};
use std::io::IsTerminal as _;

/// Rebuild the search indices from the memory files
#[derive(Debug, clap::Args)]
pub(crate) struct ReindexArgs {}

fn progress_printer(ctx: &Ctx) -> impl FnMut(Progress) + use<> {
    let show = !ctx.out.quiet && !ctx.out.json && std::io::stderr().is_terminal();
    let mut last = 0usize;
    move |p: Progress| {
        if !show || p.total == 0 {
            return;
        }
        let pct = p.done * 100 / p.total;
        if pct != last || p.done == p.total {
            last = pct;
            let width = 30;
            let filled = width * p.done / p.total;
            let bar: String = "#".repeat(filled) + &"-".repeat(width - filled);
            let mut err = std::io::stderr().lock();
            let _ = std::io::Write::write_fmt(
                &mut err,
                format_args!("\r[{bar}] {}/{} chunks", p.done, p.total),
            );
            if p.done == p.total {
                let _ = std::io::Write::write_all(&mut err, b"\n");
            }
        }
    }
}

pub(crate) fn reindex(ctx: &mut Ctx, _args: &ReindexArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    // Start from nothing: a damaged store must not stop the rebuild that repairs it.
    Indexes::reset(&vault)?;
    let mut idx = ctx.open_indexes(&vault)?;
    let mut progress = progress_printer(ctx);
    let report = idx.rebuild(&vault, &mut progress)?;
    if let Some(d) = &report.repaired {
        ctx.out.warn(format!(
            "the search indices were damaged ({d}); rebuilt them from the memory files"
        ));
    }
    for p in &report.problems {
        ctx.out.warn(p);
    }
    if ctx.out.json {
        return ctx.out.json(&serde_json::json!({
            "memories": report.added,
            "chunks": report.chunks,
            "embedded": report.embedded,
            "reused": report.reused,
            "embedder": idx.embedder().id(),
            "elapsed_ms": report.elapsed_ms,
            "problems": report.problems,
        }));
    }
    ctx.out.line(format!(
        "indexed {} memories ({} chunks) with {} in {:.1} s",
        report.added,
        report.chunks,
        idx.embedder().id(),
        report.elapsed_ms as f64 / 1000.0
    ))
}
