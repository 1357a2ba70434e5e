//! `memlane init`.

use std::path::PathBuf;

use anyhow::Context as _;
use memlane::vault::{Location, init_target};

use crate::cli::Ctx;

/// Create a memory vault (`.memories/`) in the current directory
///
/// Creates `.memories/` with `.trash/`, `.history/`, a `.gitignore` that keeps derived indices,
/// per-user state, history and trash out of git (memory files and config.toml are committed),
/// and a commented `config.toml`. Running it again changes nothing and never overwrites files.
#[derive(Debug, clap::Args)]
pub(crate) struct InitArgs {
    /// Create the vault in this folder instead (as `DIR/.memories`)
    dir: Option<PathBuf>,
}

pub(crate) fn run(ctx: &mut Ctx, args: &InitArgs) -> anyhow::Result<()> {
    let loc = match &args.dir {
        Some(d) => {
            let cwd = std::env::current_dir().context("cannot read the current directory")?;
            Location::Discover(cwd.join(d))
        }
        None => ctx.location()?,
    };
    let root = init_target(&loc)?;
    let report = memlane::vault::init(&root, &memlane::config::default_config_toml())?;
    if ctx.out.json {
        return ctx.out.json(&report);
    }
    if report.existed && report.created.is_empty() {
        ctx.out.line(format!("vault already exists at {}", report.vault.display()))
    } else {
        ctx.out.line(format!(
            "{} vault at {}",
            if report.existed { "completed" } else { "created" },
            report.vault.display()
        ))?;
        ctx.out.note("next: `memlane add <name> \"what to remember\"`");
        Ok(())
    }
}
