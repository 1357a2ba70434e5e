//! memlane's own folders in the vault (`.trash`, `.history`, `state`, `indices`): each must be a
//! real folder (or not exist yet). A symbolic link or a file in their place is refused with an
//! error that names it, before anything is read or written, because a cloned repository can
//! commit one to make memlane write elsewhere. `indices` is derived data: a plain file there is
//! moved into `.trash/` and the indices are built afresh.

use std::path::{Path, PathBuf};

use super::Vault;
use crate::disk::{Confined, Kind};
use crate::error::Error;

/// memlane's folders in the vault, with what it keeps there (for messages), in the order they
/// are checked: `.trash` before `indices`, which may be moved into it.
pub const INTERNAL_FOLDERS: &[(&str, &str)] = &[
    (".trash", "deleted memories"),
    (".history", "earlier versions of memories"),
    ("state", "its locks, usage counts and undo records"),
    ("indices", "its search indices"),
];

/// The folder as the user sees it: `.memories/.history`.
fn shown(root: &Path, folder: &str) -> String {
    let base = root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if base.is_empty() { folder.to_owned() } else { format!("{base}/{folder}") }
}

fn unsafe_folder(root: &Path, folder: &str, purpose: &'static str, link: bool) -> Error {
    Error::UnsafeFolder { folder: shown(root, folder), path: root.join(folder), link, purpose }
}

/// The internal folders that are links or not folders (for `doctor`: nothing is changed). A
/// plain file named `indices` is not one: opening the vault moves it aside.
pub fn folder_problems(root: &Path) -> Vec<Error> {
    let Ok(fs) = Confined::open(root) else { return Vec::new() };
    INTERNAL_FOLDERS
        .iter()
        .filter_map(|(folder, purpose)| match fs.kind(Path::new(folder)) {
            None | Some(Kind::Dir) => None,
            Some(Kind::File) if *folder == "indices" => None,
            Some(k) => Some(unsafe_folder(root, folder, purpose, k == Kind::Symlink)),
        })
        .collect()
}

/// Refuses a vault whose internal folders are links or not folders; moves a plain file named
/// `indices` into `.trash/` (the indices are rebuilt).
pub(super) fn check_folders(fs: &Confined, root: &Path, stamp: &str) -> crate::Result<()> {
    for (folder, purpose) in INTERNAL_FOLDERS {
        match fs.kind(Path::new(folder)) {
            None | Some(Kind::Dir) => {}
            Some(Kind::File) if *folder == "indices" => {
                let aside = PathBuf::from(".trash").join(format!("indices_{stamp}.replaced"));
                match fs.move_no_clobber(Path::new(folder), &aside) {
                    Ok(()) => tracing::warn!(
                        "`{}` was a file, not a folder: it was moved to {} and the search indices are built afresh",
                        shown(root, folder),
                        root.join(&aside).display()
                    ),
                    Err(e) => tracing::warn!(
                        "`{}` is a file, not a folder, and cannot be moved aside: {e}",
                        shown(root, folder)
                    ),
                }
            }
            Some(k) => return Err(unsafe_folder(root, folder, purpose, k == Kind::Symlink)),
        }
    }
    Ok(())
}

impl Vault {
    /// The vault's confined file system: every read and write of the vault's files goes
    /// through it (see [`Confined`]).
    pub fn fs(&self) -> &Confined {
        &self.fs
    }

    /// Checks the internal folders again (see [`folder_problems`]): right before a path under
    /// one of them is handed to a library that opens it by path.
    pub fn check_internal_folder(&self, folder: &str) -> crate::Result<()> {
        let Some((_, purpose)) = INTERNAL_FOLDERS.iter().find(|(f, _)| *f == folder) else {
            return Ok(());
        };
        match self.fs.kind(Path::new(folder)) {
            None | Some(Kind::Dir) => Ok(()),
            Some(k) => Err(unsafe_folder(self.root(), folder, purpose, k == Kind::Symlink)),
        }
    }
}
