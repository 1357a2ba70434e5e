//! OS file locks: exclusive, released by the kernel when the file is closed or the process dies.

use std::path::Path;

use crate::error::{IoResultExt, PathError};

/// Opens (creating it) the lock file at `path` and takes an exclusive OS lock on it, retrying
/// every `poll` for up to `timeout`. The kernel releases the lock when the file is closed or the
/// process dies. `Ok(None)` means another process held it all that time.
pub(crate) fn lock_file(
    path: &Path,
    timeout: std::time::Duration,
    poll: std::time::Duration,
) -> Result<Option<std::fs::File>, PathError> {
    // Never through a link: a planted link would make this create a file where it points.
    let (dir, name) = super::Confined::anchored(path, "open")?;
    let file = dir.open_lock_file(&name)?;
    lock_opened(file, path, timeout, poll)
}

/// [`lock_file`] for a lock file already opened (by the vault's confined file system).
pub(crate) fn lock_opened(
    file: std::fs::File,
    path: &Path,
    timeout: std::time::Duration,
    poll: std::time::Duration,
) -> Result<Option<std::fs::File>, PathError> {
    let start = std::time::Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(Some(file)),
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < timeout => {
                std::thread::sleep(poll);
            }
            Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
            Err(std::fs::TryLockError::Error(e)) => return Err(e).at("lock", path),
        }
    }
}
