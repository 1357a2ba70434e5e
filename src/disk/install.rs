//! Installing a directory: a complete directory built beside its destination replaces the
//! destination with one rename, so the destination is always either the old directory or the
//! new one, never a mix (what `memlane model import` and `memlane model pull` install).

use std::path::{Path, PathBuf};

use crate::error::{IoResultExt, PathError};

/// A hidden folder beside `dest` to build its new content in, unique to this process:
/// `.<name>.<what>-<pid>` (`what` says by whom: `importing`, `downloading` …).
pub(crate) fn staging_dir(dest: &Path, what: &str) -> PathBuf {
    beside(dest, what)
}

fn beside(dest: &Path, what: &str) -> PathBuf {
    let parent = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    parent.join(format!(".{name}.{what}-{}", std::process::id()))
}

/// Replaces the directory `dest` by the complete directory `staging` (on the same file system,
/// usually from [`staging_dir`]): an existing `dest` is renamed aside first and deleted after
/// the new one is in place; if the new one cannot be put in place, the old one is put back.
/// `staging` is left to the caller when this fails. A replaced directory that cannot be deleted
/// is only a warning (the install is done).
pub(crate) fn install_dir(staging: &Path, dest: &Path) -> Result<(), PathError> {
    let old = beside(dest, "replaced");
    let had_old = dest.exists();
    if had_old {
        std::fs::rename(dest, &old).at("rename", dest)?;
    }
    if let Err(err) = std::fs::rename(staging, dest).at("rename", staging) {
        if had_old {
            let _ = std::fs::rename(&old, dest);
        }
        return Err(err);
    }
    if had_old && let Err(err) = std::fs::remove_dir_all(&old) {
        tracing::warn!(path = %old.display(), error = %err, "cannot remove the replaced directory");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_is_replaced_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path().join("models/default");
        std::fs::create_dir_all(&dest).unwrap();
        std::fs::write(dest.join("old.bin"), "old").unwrap();
        let staging = staging_dir(&dest, "importing");
        assert_eq!(staging.parent(), dest.parent());
        std::fs::create_dir_all(&staging).unwrap();
        std::fs::write(staging.join("new.bin"), "new").unwrap();
        install_dir(&staging, &dest).unwrap();
        assert!(dest.join("new.bin").is_file());
        assert!(!dest.join("old.bin").exists(), "nothing of the old directory is left in it");
        assert!(!staging.exists());
        let left: Vec<_> = std::fs::read_dir(tmp.path().join("models")).unwrap().collect();
        assert_eq!(left.len(), 1, "the replaced directory is deleted");

        // Nothing to install: the old directory stays where it was.
        let err = install_dir(&tmp.path().join("missing"), &dest).unwrap_err();
        assert_eq!(err.action, "rename");
        assert!(dest.join("new.bin").is_file());
    }
}
