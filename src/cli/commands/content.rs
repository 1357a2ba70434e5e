//! What the writing commands share: where content comes from, and how a write is reported.

use std::path::Path;

use anyhow::Context as _;
use memlane::ops::wire::{WriteStatus, Written};

use crate::cli::Ctx;
use crate::cli::error::CliError;

/// Where content comes from: an argument, a file, or standard input.
pub(crate) fn read_content(
    ctx: &Ctx,
    arg: Option<&str>,
    file: Option<&Path>,
    stdin_allowed: bool,
) -> anyhow::Result<Option<String>> {
    if let Some(f) = file {
        if f == Path::new("-") {
            return ctx.read_stdin();
        }
        let bytes = std::fs::read(f).with_context(|| format!("cannot read {}", f.display()))?;
        let text = String::from_utf8(bytes).map_err(|_| CliError::FileNotUtf8(f.to_owned()))?;
        return Ok(Some(text));
    }
    match arg {
        Some("-") => ctx.read_stdin(),
        Some(s) => Ok(Some(s.to_owned())),
        None if stdin_allowed => Ok(ctx.read_stdin()?.filter(|s| !s.is_empty())),
        None => Ok(None),
    }
}

/// Prints a write outcome as one readable line (or JSON).
pub(crate) fn print_outcome(ctx: &Ctx, o: &Written) -> anyhow::Result<()> {
    if ctx.out.json {
        return ctx.out.json(o);
    }
    let line = match o.status {
        WriteStatus::Created => format!("created {} ({})", o.name, o.id),
        WriteStatus::Updated => format!("updated {}", o.name),
        WriteStatus::Unchanged => format!("unchanged {} (nothing to write)", o.name),
        WriteStatus::Skipped => {
            format!("skipped {}: {}", o.name, o.reason.as_deref().unwrap_or("nothing to store"))
        }
        WriteStatus::Deleted => {
            format!("deleted {} (in trash as {})", o.name, o.trash_entry.as_deref().unwrap_or("?"))
        }
        WriteStatus::Moved => format!("moved {} -> {}", o.from.as_deref().unwrap_or("?"), o.name),
        WriteStatus::Restored => format!("restored {}", o.name),
    };
    ctx.out.line(line)?;
    if o.private_blocks > 0 || !o.secrets.is_empty() || o.tags_dropped > 0 {
        let mut parts = Vec::new();
        if o.private_blocks > 0 {
            parts.push(format!(
                "{} private block{}",
                o.private_blocks,
                if o.private_blocks == 1 { "" } else { "s" }
            ));
        }
        for s in &o.secrets {
            parts.push(format!("{} {}", s.count, s.kind));
        }
        if o.tags_dropped > 0 {
            let n = o.tags_dropped;
            parts.push(format!("{n} tag{} dropped", if n == 1 { "" } else { "s" }));
        }
        ctx.out.line(format!("  redacted: {}", parts.join(", ")))?;
    }
    if let Some(v) = o.history_version {
        ctx.out.line(format!("  previous version kept as history version {v}"))?;
    }
    Ok(())
}
