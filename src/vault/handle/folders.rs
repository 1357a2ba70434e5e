//! memlane's own folders in the vault (`.trash`, `.history`, `state`, `indices`): each must be a
//! real folder (or not exist yet). A symbolic link or a file in their place is refused with an
//! error that names it, before anything is read or written, because a cloned repository can
//! commit one to make memlane write elsewhere. `indices` is derived data: a plain file there is
//! moved into `.trash/` and the indices are built afresh.

use std::path::{Path, PathBuf};

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

pub(super) fn unsafe_folder(root: &Path, folder: &str, purpose: &'static str, link: bool) -> Error {
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

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::vault::{Clock, Vault};

    /// A vault with `h -> ../hooks` (a folder outside) and a planted record of an interrupted
    /// operation that names `h/post-checkout` (to write) and `h/victim` (to delete).
    fn planted() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("vault");
        let hooks = tmp.path().join("hooks");
        std::fs::create_dir_all(root.join("state/intents/mv-1-x")).unwrap();
        std::fs::create_dir_all(&hooks).unwrap();
        std::fs::write(hooks.join("victim"), "precious\n").unwrap();
        std::os::unix::fs::symlink("../hooks", root.join("h")).unwrap();
        std::fs::write(
            root.join("state/intents/mv-1-x/000001.json"),
            r##"[{"path":"h/post-checkout","text":"#!/bin/sh\necho pwned\n","mode":493},{"path":"h/victim","text":null}]"##,
        )
        .unwrap();
        (tmp, root, hooks)
    }

    fn untouched(hooks: &Path) {
        let names: Vec<_> = std::fs::read_dir(hooks)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, vec!["victim".to_owned()]);
        assert_eq!(std::fs::read_to_string(hooks.join("victim")).unwrap(), "precious\n");
    }

    #[test]
    fn a_replayed_record_cannot_write_or_delete_through_a_linked_folder() {
        let (_tmp, root, hooks) = planted();
        // Opening replays what it finds (best effort) ...
        let vault = Vault::open(&root, Config::default(), Clock::system()).unwrap();
        untouched(&hooks);
        // ... and so does taking the write lock, and a replay asked for directly: the record is
        // not signed for this user and vault, so it is reported and never replayed (and were it
        // replayed, the handle would refuse its paths: the next test).
        let _ = vault.write_lock().map(drop);
        untouched(&hooks);
        let rolled = vault.recover_intents().unwrap();
        assert!(rolled.is_empty(), "{rolled:?}");
        assert!(root.join("state/intents/mv-1-x/000001.json").exists(), "left for the user");
        untouched(&hooks);
    }

    #[test]
    fn the_handle_refuses_every_path_a_record_could_name_outside() {
        let (_tmp, root, hooks) = planted();
        let fs = Confined::open(&root).unwrap();
        for p in ["h/post-checkout", "../hooks/post-checkout", "h/victim"] {
            assert!(fs.write_mode(Path::new(p), b"x", Some(0o755)).is_err(), "{p}");
            assert!(fs.create(Path::new(p), b"x", None).is_err(), "{p}");
            assert!(fs.remove_file(Path::new(p)).is_err(), "{p}");
            assert!(fs.read(Path::new(p)).is_err(), "{p}");
        }
        assert!(fs.write(&hooks.join("post-checkout"), b"x").is_err(), "an absolute path outside");
        untouched(&hooks);
    }

    #[test]
    fn linked_or_misplaced_internal_folders_are_found() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("vault");
        std::fs::create_dir_all(root.join(".history")).unwrap();
        std::os::unix::fs::symlink("..", root.join(".trash")).unwrap();
        std::fs::write(root.join("state"), "x").unwrap();
        std::fs::write(root.join("indices"), "x").unwrap();
        let found: Vec<String> = folder_problems(&root).iter().map(ToString::to_string).collect();
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].starts_with("`vault/.trash` is a symbolic link"), "{found:?}");
        assert!(found[1].starts_with("`vault/state` is not a folder"), "{found:?}");
        let err = Vault::open(&root, Config::default(), Clock::system()).unwrap_err();
        assert!(matches!(err, Error::UnsafeFolder { link: true, .. }), "{err}");
        assert!(root.join("indices").is_file(), "nothing moved while the vault is refused");
    }
}
