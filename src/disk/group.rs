//! Several files replaced together: each is written beside its target under a fixed temporary
//! name and synced, then all are renamed into place in the order they were added, and the
//! folder is synced.
//!
//! The renames are not atomic as a group: a reader that must never mix old and new files checks
//! them against the file renamed last (a small manifest naming the others' sizes and hashes,
//! like the vector index's `meta.json`). The temporary names are fixed (`<name>.tmp`), so only
//! one writer may write a group in a folder at a time (callers hold a lock).

use std::path::{Path, PathBuf};

use super::Confined;
use crate::error::PathError;

/// Files staged in one folder, renamed into place by [`FileGroup::commit`]. Staged files not
/// committed are removed when the group is dropped.
#[derive(Debug)]
pub(crate) struct FileGroup {
    dir: PathBuf,
    /// (temporary file, target), in commit order.
    staged: Vec<(PathBuf, PathBuf)>,
}

impl FileGroup {
    /// An empty group of files in `dir` (which must exist).
    pub(crate) fn new(dir: &Path) -> Self {
        Self { dir: dir.to_owned(), staged: Vec::new() }
    }

    /// The temporary path of the file `name`, for a writer that writes it itself by path (then
    /// calls [`staged`](Self::staged) once the file is complete and synced). Whatever is at that
    /// path is removed first (a link there is removed, not followed), so the writer creates a
    /// new file.
    pub(crate) fn temp_path(&self, name: &str) -> PathBuf {
        let path = self.dir.join(format!("{name}.tmp"));
        if let Ok((dir, file)) = Confined::anchored(&path, "write") {
            let _ = dir.remove_file(&file);
        }
        path
    }

    /// Records that the temporary file of `name` is written and synced.
    pub(crate) fn staged(&mut self, name: &str) {
        self.staged.push((self.dir.join(format!("{name}.tmp")), self.dir.join(name)));
    }

    /// Writes `bytes` as the new `name` (to its temporary file, synced).
    pub(crate) fn write(&mut self, name: &str, bytes: &[u8]) -> Result<(), PathError> {
        let path = self.dir.join(format!("{name}.tmp"));
        let (dir, file) = Confined::anchored(&path, "write")?;
        dir.write_in_place(&file, bytes)?;
        self.staged(name);
        Ok(())
    }

    /// Renames every staged file into place, in the order staged, then syncs the folder.
    pub(crate) fn commit(self) -> Result<(), PathError> {
        let dir = self.dir.clone();
        self.commit_unsynced()?;
        sync_folder(&dir)
    }

    /// [`commit`](Self::commit) without syncing the folder, for a caller that syncs it after
    /// more changes in it.
    pub(crate) fn commit_unsynced(mut self) -> Result<(), PathError> {
        let staged = std::mem::take(&mut self.staged);
        let dir = Confined::anchored(&self.dir.join("x"), "rename")?.0;
        for (i, (tmp, target)) in staged.iter().enumerate() {
            if let Err(e) = dir.rename(tmp, target) {
                // What is not renamed yet is removed on drop.
                self.staged = staged[i..].to_vec();
                return Err(e);
            }
        }
        Ok(())
    }
}

impl Drop for FileGroup {
    fn drop(&mut self) {
        if self.staged.is_empty() {
            return;
        }
        if let Ok((dir, _)) = Confined::anchored(&self.dir.join("x"), "remove") {
            for (tmp, _) in &self.staged {
                let _ = dir.remove_file(tmp);
            }
        }
    }
}

/// Syncs the folder `dir` itself, so the renames in it survive a crash. An error is returned
/// (unlike [`super::sync_dir`], which is best effort); on other systems than Unix, a folder
/// cannot be opened to sync and this does nothing.
pub(crate) fn sync_folder(dir: &Path) -> Result<(), PathError> {
    #[cfg(unix)]
    {
        // Beneath the vault root for a folder under its indices folder: never through a link.
        let (fs, rel) = Confined::anchored(&dir.join("x"), "sync")?;
        fs.sync_dir(rel.parent().unwrap_or(Path::new("")))?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_appear_together_on_commit_and_temps_never_stay() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        std::fs::write(dir.join("a"), "old a").unwrap();
        let mut group = FileGroup::new(dir);
        group.write("a", b"new a").unwrap();
        std::fs::write(group.temp_path("b"), "new b").unwrap();
        group.staged("b");
        assert_eq!(std::fs::read_to_string(dir.join("a")).unwrap(), "old a", "not before commit");
        assert!(!dir.join("b").exists());
        group.commit().unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("a")).unwrap(), "new a");
        assert_eq!(std::fs::read_to_string(dir.join("b")).unwrap(), "new b");
        assert!(!dir.join("a.tmp").exists() && !dir.join("b.tmp").exists());

        // Dropped without a commit: the targets keep their bytes, the temps are gone.
        let mut group = FileGroup::new(dir);
        group.write("a", b"newer a").unwrap();
        drop(group);
        assert_eq!(std::fs::read_to_string(dir.join("a")).unwrap(), "new a");
        assert!(!dir.join("a.tmp").exists());
    }
}
