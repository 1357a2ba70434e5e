//! `memlane init`.

use std::path::PathBuf;

use anyhow::Context as _;
use memlane::vault::Location;

use crate::cli::Ctx;

/// Create a memory vault (`.memories/`) in the current directory
///
/// Creates `.memories/` with `.trash/`, `.history/`, a `.gitignore` that keeps derived indices,
/// per-user state, history and trash out of git (memory files and config.toml are committed),
/// and a commented `config.toml`. Inside a git work tree it also sets up `memlane merge-file` as
/// git's merge driver for memory files (a `.gitattributes` rule to commit, and
/// `merge.memlane.driver` in the repository's local git config). Running it again changes nothing
/// and never overwrites files.
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
    let init = memlane::ops::init::init(&loc)?;
    if let Some(e) = &init.merge_driver_error {
        ctx.out.warn(format!("the vault is ready, but the git merge driver is not set up: {e}"));
    }
    if ctx.out.json {
        return ctx.out.json(&init);
    }
    let git_changes = init.merge_driver.as_ref().map_or(0, |g| g.changes.len());
    if let Some(g) = init.merge_driver.as_ref().filter(|g| !g.changes.is_empty()) {
        for change in &g.changes {
            ctx.out.note(format!("git: {change}"));
        }
        ctx.out.note("git: memory files now merge key by key; commit `.gitattributes`");
    }
    if init.existed && init.created.is_empty() && git_changes == 0 {
        ctx.out.line(format!("vault already exists at {}", init.vault.display()))
    } else {
        ctx.out.line(format!(
            "{} vault at {}",
            if init.existed { "completed" } else { "created" },
            init.vault.display()
        ))?;
        ctx.out.note("next: `memlane add <name> \"what to remember\"`");
        Ok(())
    }
}
