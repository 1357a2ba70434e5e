//! Temp files left behind by killed writers.
//!
//! Every atomic write goes through a hidden temp file `.<file>.<pid>.<random>.tmp` next to its
//! target. A writer killed before its rename leaves that file behind. It is removed when it is
//! stale: its writer's process is gone (checked on Linux through `/proc`) or it is older than
//! [`TEMP_STALE_AFTER`] — never while a live writer may still rename it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::Vault;
use super::write::TEMP_SUFFIX;
use crate::disk::{ConfinedDir, Kind};

/// A temp file this old is stale even when its writer's process cannot be checked.
pub const TEMP_STALE_AFTER: Duration = Duration::from_secs(60);

/// The writer's process id in a memlane temp file name, when `name` is one.
fn temp_pid(name: &str) -> Option<u32> {
    let inner = name.strip_prefix('.')?.strip_suffix(TEMP_SUFFIX)?;
    let mut parts = inner.rsplitn(3, '.');
    let random = parts.next()?;
    let pid = parts.next()?;
    let _file = parts.next()?;
    if random.len() != 12 || !random.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    pid.parse().ok()
}

/// Whether the process `pid` is running: `None` where that cannot be checked (only Linux's
/// `/proc` is read).
pub(crate) fn process_alive(pid: u32) -> Option<bool> {
    if pid == std::process::id() {
        return Some(true);
    }
    if cfg!(target_os = "linux") && Path::new("/proc/self").exists() {
        return Some(Path::new(&format!("/proc/{pid}")).exists());
    }
    None
}

/// Whether the file named `name` is a memlane temp file whose writer is gone; `mtime_ns` gives
/// its modification time (nanoseconds since the Unix epoch), asked for only when needed.
fn is_stale_temp(name: &str, mtime_ns: impl FnOnce() -> Option<i128>) -> bool {
    let Some(pid) = temp_pid(name) else { return false };
    if process_alive(pid) == Some(false) {
        return true;
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128);
    mtime_ns().is_some_and(|t| now - t >= TEMP_STALE_AFTER.as_nanos() as i128)
}

impl Vault {
    /// Removes the stale temp files directly in `dir`; returns them.
    pub(crate) fn clean_stale_temps_in(&self, dir: &Path) -> Vec<PathBuf> {
        let Ok(rd) = self.fs.read_dir(dir) else { return Vec::new() };
        let mut removed = Vec::new();
        for e in rd {
            let Some(name) = e.name.to_str() else { continue };
            if !name.ends_with(TEMP_SUFFIX) || e.kind != crate::disk::Kind::File {
                continue;
            }
            let path = dir.join(name);
            let mtime = || self.fs.stat(&path).ok().flatten().map(|s| s.mtime_ns);
            if is_stale_temp(name, mtime) && self.fs.remove_file(&path).is_ok() {
                removed.push(path);
            }
        }
        removed
    }

    /// The stale temp files anywhere in the vault (memory folders, `.history/`, `.trash/`,
    /// `state/`, `indices/`), without removing them (for `doctor`).
    pub fn stale_temp_files(&self) -> Vec<PathBuf> {
        self.walk_temps(false)
    }

    /// Removes every stale temp file in the vault (for `maintain`); returns them.
    pub fn clean_stale_temps(&self) -> Vec<PathBuf> {
        self.walk_temps(true)
    }

    /// The stale temp files of the whole vault (removed when `remove`), walked through open
    /// folder handles beneath the vault's (no link followed).
    fn walk_temps(&self, remove: bool) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let root = match self.fs.open_dir(Path::new("")) {
            Ok(root) => root,
            Err(e) => {
                tracing::debug!(error = %e, "cannot read the vault for temp files");
                return out;
            }
        };
        // Folders still to read, each with the folder holding it (held open while needed).
        let mut folders: Vec<(Arc<ConfinedDir>, Option<OsString>)> = vec![(Arc::new(root), None)];
        while let Some((parent, name)) = folders.pop() {
            let dir = match name {
                None => parent,
                Some(name) => match parent.open_dir(&name) {
                    Ok(d) => Arc::new(d),
                    Err(_) => continue,
                },
            };
            let Ok(entries) = dir.entries() else { continue };
            for e in entries {
                match e.kind {
                    Kind::Dir => folders.push((dir.clone(), Some(e.name))),
                    Kind::File => {
                        let Some(name) = e.name.to_str() else { continue };
                        let mtime = || dir.stat(&e.name).ok().map(|s| s.mtime_ns);
                        if !name.ends_with(TEMP_SUFFIX) || !is_stale_temp(name, mtime) {
                            continue;
                        }
                        let path = dir.path().join(name);
                        if !remove || self.fs.remove_file(&path).is_ok() {
                            out.push(path);
                        }
                    }
                    _ => {}
                }
            }
        }
        out.sort();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names_carry_the_writer_pid() {
        assert_eq!(temp_pid(".note.md.4242.a1b2c3d4e5f6.tmp"), Some(4242));
        assert_eq!(temp_pid(".usage.json.7.000000000000.tmp"), Some(7));
        assert_eq!(temp_pid("note.md"), None);
        assert_eq!(temp_pid(".my.tmp"), None);
        assert_eq!(temp_pid(".x.md.12.nothex.tmp"), None);
    }
}
