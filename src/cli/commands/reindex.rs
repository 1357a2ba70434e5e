//! `memlane reindex`: rebuild the indices from the files.

use crate::cli::Ctx;
use memlane::ops::maintenance::{self, Progress};
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
    let mut progress = progress_printer(ctx);
    let report = maintenance::reindex(&vault, &mut progress)?;
    if let Some(d) = &report.repaired {
        ctx.out.warn(format!(
            "the search indices were damaged ({d}); rebuilt them from the memory files"
        ));
    }
    for p in &report.problems {
        ctx.out.warn(p);
    }
    if ctx.out.json {
        return ctx.out.json(&report);
    }
    ctx.out.line(format!(
        "indexed {} memories ({} chunks) with {} in {:.1} s",
        report.memories,
        report.chunks,
        report.embedder,
        report.elapsed_ms as f64 / 1000.0
    ))
}
