//! `memlane watch`: keep the indices fresh while files change, until interrupted.

use std::sync::Arc;
use std::time::Duration;

use memlane::ops::maintenance::{BatchReport, VaultWatcher, WatchOptions};
use memlane::ops::wire::WatchEvent;

use crate::cli::Ctx;
use crate::cli::error::CliError;

/// Keep the indices fresh while files change, until interrupted
///
/// Re-indexes after every burst of changes in the vault (editor saves, renames, deletes, new
/// folders, a `git checkout`), each changed memory once per burst. On start it compares every
/// file's content hash with the index. Runs `memlane maintain` every
/// `lifecycle.maintain_minutes`. Stop it with Ctrl-C.
///
/// With `--json`, prints one JSON object per line: `{"event":"reindexed",…}` after every pass
/// that changed the indices (and once on start), `{"event":"maintained",…}` after `maintain`.
/// Otherwise it logs a line per pass to stderr.
#[derive(Debug, clap::Args)]
pub(crate) struct WatchArgs {
    /// Milliseconds of quiet after a change before re-indexing
    #[arg(long, value_name = "MS", default_value_t = memlane::watch::DEFAULT_DEBOUNCE.as_millis() as u64)]
    debounce: u64,
}

pub(crate) fn run(ctx: &mut Ctx, args: &WatchArgs) -> anyhow::Result<()> {
    if args.debounce > memlane::limits::MAX_DEBOUNCE_MS {
        return Err(CliError::DebounceTooLong {
            max: memlane::limits::MAX_DEBOUNCE_MS,
            value: args.debounce,
        }
        .into());
    }
    let vault = Arc::new(ctx.open_vault()?);
    let opts = WatchOptions {
        debounce: Duration::from_millis(args.debounce.max(1)),
        ..WatchOptions::from_config(&vault.config)
    };
    // Reports travel to this thread, which owns the output (a closed stdout ends the command).
    let (tx, rx) = std::sync::mpsc::channel::<BatchReport>();
    let watcher = VaultWatcher::start(vault.clone(), opts, move |r| {
        let _ = tx.send(r);
    })?;
    let watcher = Arc::new(std::sync::Mutex::new(watcher));
    // Fresh commands ask it instead of stat-ing the vault.
    let freshness = memlane::ops::maintenance::serve_freshness(&vault, watcher.clone());
    ctx.out.note(format!("watching {} (Ctrl-C to stop)", vault.root().display()));
    for report in rx {
        if let Some(e) = &report.error {
            ctx.out.warn(format!("cannot update the indices: {}", chain(e)));
        }
        for p in &report.problems {
            ctx.out.warn(p);
        }
        if let Some(m) = &report.maintain {
            for p in &m.problems {
                ctx.out.warn(p);
            }
        }
        print_report(ctx, &report)?;
    }
    drop(freshness);
    drop(watcher);
    Ok(())
}

fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    memlane::error::chain_text(e)
}

fn print_report(ctx: &Ctx, r: &BatchReport) -> anyhow::Result<()> {
    let events = memlane::ops::maintenance::watch_events(r);
    if ctx.out.json {
        for e in &events {
            ctx.out.json_line(e)?;
        }
        return Ok(());
    }
    for e in &events {
        match e {
            WatchEvent::Reindexed {
                trigger,
                indexed,
                removed,
                added,
                updated,
                unchanged,
                elapsed_ms,
            } => {
                let mut line = format!(
                    "{trigger}: {} indexed ({added} added, {updated} updated), {} removed, {unchanged} unchanged in {elapsed_ms} ms",
                    indexed.len(),
                    removed.len(),
                );
                let mut names: Vec<String> = indexed.clone();
                names.extend(removed.iter().map(|n| format!("-{n}")));
                if !names.is_empty() {
                    let more = names.len().saturating_sub(5);
                    names.truncate(5);
                    line.push_str(": ");
                    line.push_str(&names.join(", "));
                    if more > 0 {
                        line.push_str(&format!(" and {more} more"));
                    }
                }
                ctx.out.note(line);
            }
            WatchEvent::Maintained { dead_links, healed, expired, cold, .. } => {
                ctx.out.note(format!(
                    "maintain: {dead_links} dead links ({} healed), {cold} cold, {} expired and archived",
                    healed.len(),
                    expired.len()
                ));
            }
        }
    }
    Ok(())
}
