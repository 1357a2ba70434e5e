//! `memlane init`.

use std::path::PathBuf;

use anyhow::Context as _;
use memlane::gitmerge::DriverAction;
use memlane::vault::{Location, init_target};

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
    let root = init_target(&loc)?;
    let report = memlane::vault::init(&root, &memlane::config::default_config_toml())?;
    // Inside a git work tree: git merges memory files with `memlane merge-file`. A failure here
    // leaves the vault as made and says so; git then merges memories as plain text.
    let program = memlane::gitmerge::default_driver_program();
    let git =
        match memlane::gitmerge::merge_driver_setup(&root, DriverAction::Install, true, &program) {
            Ok(setup) => Some(setup),
            Err(e) => {
                ctx.out.warn(format!(
                    "the vault is ready, but the git merge driver is not set up: {e}"
                ));
                None
            }
        };
    if ctx.out.json {
        let mut v = serde_json::to_value(&report)?;
        v["merge_driver"] = serde_json::to_value(&git)?;
        return ctx.out.json(&v);
    }
    let git_changes = git.as_ref().map_or(0, |g| g.changes.len());
    if let Some(g) = git.as_ref().filter(|g| !g.changes.is_empty()) {
        for change in &g.changes {
            ctx.out.note(format!("git: {change}"));
        }
        ctx.out.note("git: memory files now merge key by key; commit `.gitattributes`");
    }
    if report.existed && report.created.is_empty() && git_changes == 0 {
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
