//! Several files replaced together: each is written beside its target under a fixed temporary
//! name and synced, then all are renamed into place in the order they were added, and the
//! folder is synced.
//!
//! The renames are not atomic as a group: a reader that must never mix old and new files checks
//! them against the file renamed last (a small manifest naming the others' sizes and hashes,
//! like the vector index's `meta.json`). The temporary names are fixed (`<name>.tmp`), so only
//! one writer may write a group in a folder at a time (callers hold a lock).

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::error::{IoResultExt, PathError};

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

    /// The temporary path of the file `name`, for a writer that writes it itself (then calls
    /// [`staged`](Self::staged) once the file is complete and synced).
    pub(crate) fn temp_path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.tmp"))
    }

    /// Records that the temporary file of `name` is written and synced.
    pub(crate) fn staged(&mut self, name: &str) {
        self.staged.push((self.temp_path(name), self.dir.join(name)));
    }

    /// Writes `bytes` as the new `name` (to its temporary file, synced).
    pub(crate) fn write(&mut self, name: &str, bytes: &[u8]) -> Result<(), PathError> {
        let path = self.temp_path(name);
        write_synced(&path, bytes)?;
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
        for (i, (tmp, target)) in staged.iter().enumerate() {
            if let Err(e) = std::fs::rename(tmp, target).at("rename", tmp) {
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
        for (tmp, _) in &self.staged {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Creates (or truncates) `path`, writes `bytes` and syncs it.
fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), PathError> {
    let mut file = File::create(path).at("create", path)?;
    file.write_all(bytes).at("write", path)?;
    file.sync_all().at("sync", path)?;
    Ok(())
}

/// Syncs the folder `dir` itself, so the renames in it survive a crash. An error is returned
/// (unlike [`super::sync_dir`], which is best effort); on other systems than Unix, a folder
/// cannot be opened to sync and this does nothing.
pub(crate) fn sync_folder(dir: &Path) -> Result<(), PathError> {
    #[cfg(unix)]
    File::open(dir).and_then(|d| d.sync_all()).at("sync", dir)?;
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
