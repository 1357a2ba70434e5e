//! Temp files left behind by killed writers.
//!
//! Every atomic write goes through a hidden temp file `.<file>.<pid>.<random>.tmp` next to its
//! target. A writer killed before its rename leaves that file behind. It is removed when it is
//! stale: its writer's process is gone (checked on Linux through `/proc`) or it is older than
//! [`TEMP_STALE_AFTER`] — never while a live writer may still rename it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::Vault;
use super::write::TEMP_SUFFIX;

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

fn process_alive(pid: u32) -> Option<bool> {
    if pid == std::process::id() {
        return Some(true);
    }
    if cfg!(target_os = "linux") && Path::new("/proc/self").exists() {
        return Some(Path::new(&format!("/proc/{pid}")).exists());
    }
    None
}

/// Whether `path` (named `name`) is a memlane temp file whose writer is gone.
fn is_stale_temp(path: &Path, name: &str) -> bool {
    let Some(pid) = temp_pid(name) else { return false };
    if process_alive(pid) == Some(false) {
        return true;
    }
    std::fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age >= TEMP_STALE_AFTER)
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
            if is_stale_temp(&path, name) && self.fs.remove_file(&path).is_ok() {
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

    fn walk_temps(&self, remove: bool) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let walk = walkdir::WalkDir::new(self.root()).follow_links(false);
        for e in walk.into_iter().filter_map(Result::ok) {
            if !e.file_type().is_file() {
                continue;
            }
            let Some(name) = e.file_name().to_str() else { continue };
            if !name.ends_with(TEMP_SUFFIX) || !is_stale_temp(e.path(), name) {
                continue;
            }
            if !remove || self.fs.remove_file(e.path()).is_ok() {
                out.push(e.path().to_owned());
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
