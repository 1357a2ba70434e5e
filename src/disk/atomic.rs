//! Atomic writes of files given by path: a hidden temp file in the same folder, fsync, then a
//! rename, through a [`Confined`] handle on the file's folder; directory sync.

use std::path::Path;

use super::Confined;
use crate::error::{IoResultExt, PathError};

/// Writes `bytes` to `path` atomically: a hidden temp file in the same folder, fsync, rename.
/// An existing file keeps its permission bits. The folders above the file are followed as given;
/// the file itself and its temp file never through a symbolic link (see [`Confined`]).
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<(), PathError> {
    create_parent(path)?;
    let (dir, name) = Confined::beside(path, "write")?;
    dir.write(&name, bytes)
}

/// Appends `bytes` to `path` (created when missing) in one write, synced: a journal's line. A
/// reader may see the last line cut while it is written; a line that ends in its newline is whole.
pub(crate) fn append_synced(path: &Path, bytes: &[u8]) -> Result<(), PathError> {
    create_parent(path)?;
    let (dir, name) = Confined::beside(path, "write")?;
    dir.append(&name, bytes)
}

fn create_parent(path: &Path) -> Result<(), PathError> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => std::fs::create_dir_all(dir).at("create", dir),
        _ => Ok(()),
    }
}

/// The marker in the names of memlane's temp files: `.<file>.<pid>.<random>.tmp`.
pub(crate) const TEMP_SUFFIX: &str = ".tmp";
