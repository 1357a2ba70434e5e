//! Reads of memlane's own files in the indices folder (`indices/` in the vault), beneath a
//! handle on the folder holding it (the vault root, trusted as given): no symbolic link is
//! followed at `indices` or anywhere under it, whatever is swapped in between a check and a read
//! (see [`crate::disk::Confined`]). tantivy's files go through the same handle
//! ([`super::keyword`]'s directory); usearch is handed the file memlane opened here (see
//! [`super::vector`]).
//!
//! A path under no folder named `indices` (a store opened on its own, as in tests) is read
//! beneath its own folder, which is then trusted as given.

use std::path::{Path, PathBuf};

use crate::disk::{Confined, DirEntry, Stat};

/// A handle on the folder holding the indices folder `path` is in (or `path`'s own folder), and
/// `path` relative to it.
fn beneath(path: &Path) -> std::io::Result<(Confined, PathBuf)> {
    Confined::anchored(path, "read").map_err(|e| e.source)
}

/// The handle [`beneath`] gives for `path`, for a reader or writer that keeps it (tantivy's
/// directory).
pub(crate) fn handle(path: &Path) -> std::io::Result<(Confined, PathBuf)> {
    beneath(path)
}

/// The bytes of the file at `path` (an error when it or a folder on the way is a link).
pub(crate) fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    let (fs, rel) = beneath(path)?;
    fs.read(&rel).map_err(|e| e.source)
}

/// The text of the file at `path` (an error when it is not UTF-8).
pub(crate) fn read_to_string(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read(path)?)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "it is not UTF-8 text"))
}

/// The file at `path` opened for reading (refused when it or a folder on the way is a link).
pub(crate) fn open(path: &Path) -> std::io::Result<std::fs::File> {
    let (fs, rel) = beneath(path)?;
    fs.open_read(&rel).map_err(|e| e.source)
}

/// What is at `path` (the path itself, never a link's target); `None` when nothing is, or when
/// it can be reached only through a link.
pub(crate) fn stat(path: &Path) -> Option<Stat> {
    let (fs, rel) = beneath(path).ok()?;
    fs.stat(&rel).ok().flatten()
}

/// Whether a regular file is at `path` (not a link to one).
pub(crate) fn is_file(path: &Path) -> bool {
    stat(path).is_some_and(|s| s.kind == crate::disk::Kind::File)
}

/// Whether anything is at `path` (a link counts; nothing through one does).
pub(crate) fn exists(path: &Path) -> bool {
    stat(path).is_some()
}

/// The folder at `path`, held open: its entries are listed and stat-ed relative to it.
pub(crate) fn open_dir(path: &Path) -> std::io::Result<crate::disk::ConfinedDir> {
    let (fs, rel) = beneath(path)?;
    fs.open_dir(&rel).map_err(|e| e.source)
}

/// Creates the folder at `path` and the missing ones above it, up to the indices folder (a link
/// where a folder should be is refused).
pub(crate) fn create_dir_all(path: &Path) -> std::io::Result<()> {
    let (fs, rel) = beneath(path)?;
    if rel.as_os_str().is_empty() {
        return Ok(());
    }
    // Another process may remove a damaged store's folder while this one creates it (readers
    // open the indices without the lock): create it again, as `std::fs::create_dir_all` does.
    let mut tries = 0;
    loop {
        match fs.create_dir_all(&rel) {
            Err(e) if e.source.kind() == std::io::ErrorKind::NotFound && tries < 20 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            r => return r.map_err(|e| e.source),
        }
    }
}

/// Removes the file at `path` (a link is removed, never followed).
pub(crate) fn remove_file(path: &Path) -> std::io::Result<()> {
    let (fs, rel) = beneath(path)?;
    fs.remove_file(&rel).map_err(|e| e.source)
}

/// Removes whatever is at `path`: a folder with everything in it, never entering a link; a file
/// or a link itself.
pub(crate) fn remove_all(path: &Path) -> std::io::Result<()> {
    let (fs, rel) = beneath(path)?;
    match fs.stat(&rel).map_err(|e| e.source)? {
        Some(s) if s.kind == crate::disk::Kind::Dir => fs.remove_dir_all(&rel),
        Some(_) => fs.remove_file(&rel),
        None => Ok(()),
    }
    .map_err(|e| e.source)
}

/// Appends `bytes` to the file at `path` (created when missing), not synced.
pub(crate) fn append_unsynced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let (fs, rel) = beneath(path)?;
    fs.append_unsynced(&rel, bytes).map_err(|e| e.source)
}

/// The entries of the folder at `path` (a link is listed as one, never entered).
pub(crate) fn read_dir(path: &Path) -> std::io::Result<Vec<DirEntry>> {
    let (fs, rel) = beneath(path)?;
    fs.read_dir(&rel).map_err(|e| e.source)
}

/// Fills `buf` from `file` at `offset` (positional: the file's cursor is not used).
#[cfg(unix)]
pub(crate) fn read_exact_at(
    file: &std::fs::File,
    buf: &mut [u8],
    offset: u64,
) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt as _;
    file.read_exact_at(buf, offset)
}

#[cfg(windows)]
pub(crate) fn read_exact_at(
    file: &std::fs::File,
    mut buf: &mut [u8],
    mut offset: u64,
) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt as _;
    while !buf.is_empty() {
        match file.seek_read(buf, offset)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn links_at_or_under_the_indices_folder_are_never_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let vault = tmp.path().join("vault");
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(vault.join("indices/graph")).unwrap();
        std::fs::create_dir_all(outside.join("graph")).unwrap();
        std::fs::write(vault.join("indices/manifest.tsv"), "mine").unwrap();
        std::fs::write(outside.join("manifest.tsv"), "theirs").unwrap();
        std::fs::write(outside.join("graph/backlinks.json"), "theirs").unwrap();
        let i = vault.join("indices");
        assert_eq!(read(&i.join("manifest.tsv")).unwrap(), b"mine");
        assert!(is_file(&i.join("manifest.tsv")));
        assert_eq!(read_dir(&i).unwrap().len(), 2);
        // A link as the file, as a folder under `indices/`, and as `indices/` itself.
        std::os::unix::fs::symlink(
            outside.join("graph/backlinks.json"),
            i.join("graph/backlinks.json"),
        )
        .unwrap();
        assert!(read(&i.join("graph/backlinks.json")).is_err());
        assert_eq!(stat(&i.join("graph/backlinks.json")).unwrap().kind, crate::disk::Kind::Symlink);
        std::fs::remove_dir_all(i.join("graph")).unwrap();
        std::os::unix::fs::symlink(outside.join("graph"), i.join("graph")).unwrap();
        assert!(read(&i.join("graph/backlinks.json")).is_err());
        assert!(read_dir(&i.join("graph")).is_err());
        std::fs::rename(&i, vault.join("moved")).unwrap();
        std::os::unix::fs::symlink(&outside, &i).unwrap();
        for p in [i.join("manifest.tsv"), i.join("graph/backlinks.json")] {
            assert!(read(&p).is_err(), "{}", p.display());
            assert!(open(&p).is_err(), "{}", p.display());
            assert!(!is_file(&p) && !exists(&p), "{}", p.display());
        }
        assert!(read_dir(&i).is_err());
    }

    /// What memlane writes in its indices folder (the manifest and graph files, the journals,
    /// the vector index's files, the embedding cache, the lock file, a damaged store's removal)
    /// never lands outside the vault through a link planted at a folder under `indices/`, or at
    /// `indices/` itself, even when the link appears after every check.
    #[test]
    fn writes_under_the_indices_folder_never_follow_a_link() {
        let tmp = tempfile::tempdir().unwrap();
        let vault = tmp.path().join("vault");
        let outside = tmp.path().join("outside");
        let i = vault.join("indices");
        std::fs::create_dir_all(i.join("graph")).unwrap();
        std::fs::create_dir_all(outside.join("keep")).unwrap();
        std::fs::write(outside.join("keep/precious"), "precious").unwrap();
        // Through memlane's real folders, the same calls write and remove.
        crate::disk::atomic_write(&i.join("graph/ghosts.tsv"), b"mine").unwrap();
        crate::disk::append_synced(&i.join("manifest.journal"), b"+line\n").unwrap();
        append_unsynced(&i.join("embeddings/shard-00"), b"x").unwrap_err(); // no folder yet
        create_dir_all(&i.join("embeddings")).unwrap();
        append_unsynced(&i.join("embeddings/shard-00"), b"x").unwrap();
        remove_file(&i.join("manifest.journal")).unwrap();
        assert_eq!(std::fs::read(i.join("graph/ghosts.tsv")).unwrap(), b"mine");

        // A link as a folder under `indices/`.
        std::fs::remove_dir_all(i.join("graph")).unwrap();
        std::os::unix::fs::symlink(outside.join("keep"), i.join("graph")).unwrap();
        assert!(crate::disk::atomic_write(&i.join("graph/ghosts.tsv"), b"x").is_err());
        assert!(crate::disk::append_synced(&i.join("graph/journal"), b"x").is_err());
        assert!(append_unsynced(&i.join("graph/shard-00"), b"x").is_err());
        assert!(create_dir_all(&i.join("graph/vector")).is_err());
        assert!(remove_file(&i.join("graph/precious")).is_err());
        let lock = crate::disk::lock_file(
            &i.join("graph/write.lock"),
            std::time::Duration::ZERO,
            std::time::Duration::ZERO,
        );
        assert!(lock.is_err());
        let mut group = crate::disk::FileGroup::new(&i.join("graph"));
        assert!(group.write("keys.bin", b"x").is_err());
        // A damaged store's removal removes the link, never what it points to.
        remove_all(&i.join("graph")).unwrap();
        assert!(std::fs::symlink_metadata(i.join("graph")).is_err());

        // `indices/` itself a link.
        std::fs::rename(&i, vault.join("moved")).unwrap();
        std::os::unix::fs::symlink(outside.join("keep"), &i).unwrap();
        assert!(crate::disk::atomic_write(&i.join("manifest.tsv"), b"x").is_err());
        assert!(create_dir_all(&i.join("keyword")).is_err());
        assert!(remove_file(&i.join("precious")).is_err());

        let mut left: Vec<String> = std::fs::read_dir(outside.join("keep"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["precious"], "nothing written or removed outside the vault");
        assert_eq!(std::fs::read(outside.join("keep/precious")).unwrap(), b"precious");
    }
}
