//! Atomic writes: a hidden temp file in the same folder, fsync, then a rename (replace) or a
//! hard link (create, never replacing); moves that never replace; directory sync.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::error::{IoResultExt, PathError};
use crate::failpoint;

/// Writes `bytes` to `path` atomically: a hidden temp file in the same folder, fsync, rename.
/// An existing file keeps its permission bits.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<(), PathError> {
    atomic_write_mode(path, bytes, file_mode(path))
}

/// [`atomic_write`] giving the file the permission bits `mode` (when `Some`, on Unix).
pub(crate) fn atomic_write_mode(
    path: &Path,
    bytes: &[u8],
    mode: Option<u32>,
) -> Result<(), PathError> {
    let tmp = write_temp(path, bytes, mode)?;
    failpoint::step("write.rename")
        .and_then(|()| std::fs::rename(&tmp, path))
        .at("write", path)
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })?;
    sync_dir(path);
    Ok(())
}

/// Appends `bytes` to `path` (created when missing) in one write, synced: a journal's line. A
/// reader may see the last line cut while it is written; a line that ends in its newline is whole.
pub(crate) fn append_synced(path: &Path, bytes: &[u8]) -> Result<(), PathError> {
    use std::io::Write as _;
    let appended = (|| {
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
        f.write_all(bytes)?;
        f.sync_data()
    })();
    appended.at("write", path)
}

/// Writes `bytes` to `path` atomically with permission bits `mode`, failing with
/// `AlreadyExists` when `path` exists.
pub(crate) fn atomic_create(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<(), PathError> {
    let tmp = write_temp(path, bytes, mode)?;
    let linked = failpoint::step("create.link").and_then(|()| std::fs::hard_link(&tmp, path));
    failpoint::step("create.unlink_temp").at("create", path)?;
    let _ = std::fs::remove_file(&tmp);
    linked.at("create", path)?;
    sync_dir(path);
    Ok(())
}

/// The permission bits of an existing file (Unix), to keep them across a rewrite.
pub(crate) fn file_mode(path: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::metadata(path).ok().map(|m| m.permissions().mode() & 0o7777)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// The marker in the names of memlane's temp files: `.<file>.<pid>.<random>.tmp`.
pub(crate) const TEMP_SUFFIX: &str = ".tmp";

fn write_temp(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<PathBuf, PathError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).at("create", dir)?;
    let mut rnd = [0u8; 6];
    let _ = getrandom::fill(&mut rnd);
    let suffix: String = rnd.iter().map(|b| format!("{b:02x}")).collect();
    let file = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{file}.{}.{suffix}{TEMP_SUFFIX}", std::process::id()));
    // Errors name the file being written, never the temp file.
    let mut f = failpoint::step("temp.create")
        .and_then(|()| std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp))
        .at("write", path)?;
    let res = failpoint::step("temp.write")
        .and_then(|()| {
            #[cfg(unix)]
            if let Some(mode) = mode {
                use std::os::unix::fs::PermissionsExt as _;
                f.set_permissions(std::fs::Permissions::from_mode(mode))?;
            }
            #[cfg(not(unix))]
            let _ = mode;
            f.write_all(bytes)
        })
        .and_then(|()| f.sync_all());
    if let Err(e) = res {
        let _ = std::fs::remove_file(&tmp);
        return Err(PathError { action: "write", path: path.to_owned(), source: e });
    }
    Ok(tmp)
}

/// Syncs the folder holding `path`, so that a rename or a new name in it survives a crash
/// (best effort: some file systems cannot open a folder).
pub(crate) fn sync_dir(path: &Path) {
    if let Some(dir) = path.parent()
        && let Ok(d) = std::fs::File::open(dir)
    {
        let _ = d.sync_all();
    }
}

/// Moves `from` to `to` without ever replacing an existing `to`.
pub(crate) fn move_no_clobber(from: &Path, to: &Path) -> Result<(), PathError> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).at("create", dir)?;
    }
    match failpoint::step("move.link").and_then(|()| std::fs::hard_link(from, to)) {
        Ok(()) => failpoint::step("move.unlink")
            .and_then(|()| std::fs::remove_file(from))
            .at("remove", from),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            Err(PathError { action: "create", path: to.to_owned(), source: e })
        }
        Err(_) => {
            // File systems without hard links: check, then rename.
            if to.exists() {
                return Err(PathError {
                    action: "create",
                    path: to.to_owned(),
                    source: std::io::ErrorKind::AlreadyExists.into(),
                });
            }
            std::fs::rename(from, to).at("rename", from)
        }
    }
}
