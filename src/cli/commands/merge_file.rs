//! `memlane merge-file`: git's merge driver for memory files.

use std::path::PathBuf;
use std::process::ExitCode;

use memlane::gitmerge::CONFLICTS_KEY;

use crate::cli::Ctx;

/// Merge three versions of a memory file (git's merge driver)
///
/// git runs it as `memlane merge-file %O %A %B %P` for files marked `merge=memlane` in
/// `.gitattributes` (`memlane init` sets this up). The frontmatter merges key by key (tags and
/// links as sets, `updated_at` the later, a key both sides changed differently kept as ours and
/// recorded under `merge_conflicts:`), the body as `git merge-file` merges text. The result is
/// written to OURS; the exit code is 0 for a clean merge and 1 for a conflict.
#[derive(Debug, clap::Args)]
pub(crate) struct MergeFileArgs {
    /// The common ancestor's version (git's %O; empty when both sides added the file)
    base: PathBuf,
    /// Our version, overwritten with the result (git's %A)
    ours: PathBuf,
    /// Their version (git's %B)
    theirs: PathBuf,
    /// The file's path in the repository, for messages (git's %P)
    path: Option<String>,
}

pub(crate) fn run(ctx: &mut Ctx, args: &MergeFileArgs) -> anyhow::Result<ExitCode> {
    let merged = memlane::ops::merge_file::merge_file(
        &args.base,
        &args.ours,
        &args.theirs,
        args.path.as_deref(),
    )?;
    if merged.by_git {
        // git merged bytes memlane does not read, as git would have: git reports its markers.
        return Ok(if merged.clean { ExitCode::SUCCESS } else { ExitCode::from(1) });
    }
    let shown = &merged.file_path;
    for c in &merged.key_conflicts {
        ctx.out.warn(format!(
            "{shown}: both sides changed `{}` differently; ours is kept and both are recorded under `{CONFLICTS_KEY}:` in the frontmatter",
            c.key
        ));
    }
    if merged.text_conflicts > 0 {
        let place = if merged.as_text { "" } else { " in the body" };
        ctx.out.warn(format!(
            "{shown}: {} conflicting change(s){place}, between `<<<<<<<` and `>>>>>>>` markers",
            merged.text_conflicts
        ));
    }
    if ctx.out.json {
        ctx.out.json(&merged)?;
    }
    Ok(if merged.clean { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
