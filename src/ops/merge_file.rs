//! `merge-file`: git's merge driver for memory files.

use std::path::{Path, PathBuf};

use crate::error::IoResultExt as _;
use crate::gitmerge::{GitError, Labels, MergeInput, git_merge_text, merge_memory};

use super::wire::MergedFile;

/// Merges three versions of a memory file and writes the result to `ours` (git's `%O %A %B`):
/// the frontmatter key by key (a key both sides changed differently kept as ours and recorded
/// under `merge_conflicts:`), the body as `git merge-file` merges text. A version that is not
/// UTF-8 is merged by `git merge-file` in place, as git would have. `file_path` is the file's
/// path in the repository (git's `%P`), for messages.
pub fn merge_file(
    base: &Path,
    ours: &Path,
    theirs: &Path,
    file_path: Option<&str>,
) -> crate::Result<MergedFile> {
    let shown = file_path.map_or_else(|| ours.display().to_string(), str::to_owned);
    let read = |p: &Path| std::fs::read(p).at("read", p);
    let (b, o, t) = (read(base)?, read(ours)?, read(theirs)?);
    let (Ok(b), Ok(o), Ok(t)) = (String::from_utf8(b), String::from_utf8(o), String::from_utf8(t))
    else {
        // Not text memlane reads: git's own merge, in place, as git would have done.
        let status = std::process::Command::new("git")
            .args(["merge-file", "-L", "ours", "-L", "base", "-L", "theirs"])
            .args([ours, base, theirs])
            .status()
            .map_err(|e| GitError::NotRunnable(e.to_string()))?;
        return Ok(MergedFile {
            file_path: shown,
            clean: status.success(),
            key_conflicts: Vec::new(),
            text_conflicts: 0,
            as_text: true,
            by_git: true,
        });
    };
    let tmp_dir = match ours.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    let labels = Labels::default();
    let text_merge = |b: &str, o: &str, t: &str| git_merge_text(b, o, t, &labels, &tmp_dir);
    let merged = merge_memory(MergeInput { base: &b, ours: &o, theirs: &t }, &text_merge)?;
    if merged.text != o {
        crate::disk::atomic_write(ours, merged.text.as_bytes())?;
    }
    Ok(MergedFile {
        file_path: shown,
        clean: merged.is_clean(),
        key_conflicts: merged.key_conflicts,
        text_conflicts: merged.text_conflicts,
        as_text: merged.as_text,
        by_git: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(status: &str, body: &str) -> String {
        format!(
            "---\nid: 3kTqZ9pLx2A\ncreated_at: 2026-01-01T00:00:00Z\nstatus: {status}\n---\n\n# Plan\n\n{body}\n"
        )
    }

    #[test]
    fn a_key_both_sides_changed_is_kept_as_ours_and_recorded_and_the_merge_is_not_clean() {
        let dir = tempfile::tempdir().unwrap();
        let p = |n: &str| dir.path().join(n);
        std::fs::write(p("base.md"), file("active", "one")).unwrap();
        std::fs::write(p("ours.md"), file("archived", "one")).unwrap();
        std::fs::write(p("theirs.md"), file("active", "one\n\ntwo")).unwrap();
        let clean =
            merge_file(&p("base.md"), &p("ours.md"), &p("theirs.md"), Some("plan.md")).unwrap();
        assert!(clean.clean, "{clean:?}");
        assert_eq!(clean.file_path, "plan.md");
        let merged = std::fs::read_to_string(p("ours.md")).unwrap();
        assert!(merged.contains("status: archived") && merged.contains("two"), "{merged}");

        // Both sides set `status`, differently.
        std::fs::write(p("ours.md"), file("archived", "one")).unwrap();
        std::fs::write(p("theirs.md"), file("superseded", "one")).unwrap();
        let conflicted = merge_file(&p("base.md"), &p("ours.md"), &p("theirs.md"), None).unwrap();
        assert!(!conflicted.clean);
        assert_eq!(conflicted.key_conflicts.len(), 1, "{conflicted:?}");
        assert_eq!(conflicted.key_conflicts[0].key, "status");
        assert_eq!(conflicted.file_path, p("ours.md").display().to_string());
        let merged = std::fs::read_to_string(p("ours.md")).unwrap();
        assert!(merged.contains("status: archived"), "{merged}");
        assert!(merged.contains(crate::gitmerge::CONFLICTS_KEY), "{merged}");
    }

    #[test]
    fn a_missing_version_is_an_error_naming_it_and_ours_is_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let ours = dir.path().join("ours.md");
        std::fs::write(&ours, file("active", "one")).unwrap();
        let err = merge_file(&dir.path().join("gone.md"), &ours, &ours, None).unwrap_err();
        assert!(err.to_string().contains("gone.md"), "{err}");
        assert_eq!(std::fs::read_to_string(&ours).unwrap(), file("active", "one"));
    }
}
