//! Atomic writes of files given by path: a hidden temp file in the same folder, fsync, then a
//! rename, through a [`Confined`] handle on the file's folder; directory sync.

use std::path::Path;

use super::Confined;
use crate::error::{IoResultExt, PathError};

/// Writes `bytes` to `path` atomically: a hidden temp file in the same folder, fsync, rename.
/// An existing file keeps its permission bits. The folders above the file are followed as given;
/// the file itself and its temp file never through a symbolic link (see [`Confined`]).
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<(), PathError> {
    let (dir, name) = for_write(path)?;
    dir.write(&name, bytes)
}

/// Appends `bytes` to `path` (created when missing) in one write, synced: a journal's line. A
/// reader may see the last line cut while it is written; a line that ends in its newline is whole.
pub(crate) fn append_synced(path: &Path, bytes: &[u8]) -> Result<(), PathError> {
    let (dir, name) = for_write(path)?;
    dir.append(&name, bytes)
}

/// A handle to write `path` through ([`Confined::anchored`]), its folders created: beneath the
/// vault root for a file in a vault's indices folder, beside the file otherwise.
fn for_write(path: &Path) -> Result<(Confined, std::path::PathBuf), PathError> {
    if Confined::anchor_of(path).is_none() {
        create_parent(path)?;
    }
    let (dir, name) = Confined::anchored(path, "write")?;
    if let Some(parent) = name.parent().filter(|p| !p.as_os_str().is_empty()) {
        dir.create_dir_all(parent)?;
    }
    Ok((dir, name))
}

fn create_parent(path: &Path) -> Result<(), PathError> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => std::fs::create_dir_all(dir).at("create", dir),
        _ => Ok(()),
    }
}

/// The marker in the names of memlane's temp files: `.<file>.<pid>.<random>.tmp`.
pub(crate) const TEMP_SUFFIX: &str = ".tmp";
