//! `memlane merge-file`: git's merge driver for memory files.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use memlane::gitmerge::{CONFLICTS_KEY, Labels, MergeInput, git_merge_text, merge_memory};

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
    let read =
        |p: &PathBuf| std::fs::read(p).with_context(|| format!("cannot read {}", p.display()));
    let (base, ours, theirs) = (read(&args.base)?, read(&args.ours)?, read(&args.theirs)?);
    let (Ok(base), Ok(ours), Ok(theirs)) =
        (String::from_utf8(base), String::from_utf8(ours), String::from_utf8(theirs))
    else {
        // Not text memlane reads: git's own merge, in place, as git would have done.
        let status = std::process::Command::new("git")
            .args(["merge-file", "-L", "ours", "-L", "base", "-L", "theirs"])
            .args([&args.ours, &args.base, &args.theirs])
            .status()
            .context("cannot run `git merge-file`")?;
        return Ok(if status.success() { ExitCode::SUCCESS } else { ExitCode::from(1) });
    };
    let tmp_dir = match args.ours.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    let labels = Labels::default();
    let text_merge = |b: &str, o: &str, t: &str| git_merge_text(b, o, t, &labels, &tmp_dir);
    let merged =
        merge_memory(MergeInput { base: &base, ours: &ours, theirs: &theirs }, &text_merge)
            .map_err(memlane::Error::from)?;
    if merged.text != ours {
        memlane::disk::atomic_write(&args.ours, merged.text.as_bytes())
            .map_err(memlane::Error::from)?;
    }
    let shown = args.path.clone().unwrap_or_else(|| args.ours.display().to_string());
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
        /// `merge-file --json`.
        #[derive(serde::Serialize)]
        struct MergedFile<'a, K: serde::Serialize> {
            path: &'a str,
            clean: bool,
            key_conflicts: &'a K,
            text_conflicts: usize,
        }
        ctx.out.json(&MergedFile {
            path: &shown,
            clean: merged.is_clean(),
            key_conflicts: &merged.key_conflicts,
            text_conflicts: merged.text_conflicts,
        })?;
    }
    Ok(if merged.is_clean() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
