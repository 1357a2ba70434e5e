//! The vault's write lock: one writer at a time across processes, re-entrant within a thread, and the recovery of interrupted operations when it is taken.

use std::path::PathBuf;

use crate::vault::Vault;

/// The file memory writers lock, under the vault root (with the per-user state: git-ignored).
pub const WRITE_LOCK_FILE: &str = "state/vault.lock";

/// How long a write waits for another process's vault lock before giving up (the lock is held
/// only while one file is checked and replaced, so this is a hung process, not a slow one).
pub(super) const WRITE_LOCK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

thread_local! {
    /// Vault locks this thread holds (by lock path), so that nested writes do not wait on
    /// themselves: OS file locks do not nest within a process.
    static HELD: std::cell::RefCell<Vec<PathBuf>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// An exclusive OS lock on a vault's memory files, released on drop or when the process dies.
///
/// Writes that check a file and then replace or move it (update, append, delete, rename,
/// restore) hold it, so that two processes never interleave between the check and the write: a
/// concurrent change is seen and never silently overwritten.
pub(in crate::vault) struct WriteLock {
    pub(super) path: PathBuf,
    pub(super) _file: Option<std::fs::File>,
}

impl Drop for WriteLock {
    fn drop(&mut self) {
        HELD.with(|h| {
            let mut h = h.borrow_mut();
            if let Some(i) = h.iter().rposition(|p| *p == self.path) {
                h.remove(i);
            }
        });
    }
}

impl Vault {
    /// Takes the vault's write lock (see [`WriteLock`]); re-entrant within a thread.
    pub(in crate::vault) fn write_lock(&self) -> crate::Result<WriteLock> {
        let path = self.root.join(WRITE_LOCK_FILE);
        if HELD.with(|h| h.borrow().contains(&path)) {
            HELD.with(|h| h.borrow_mut().push(path.clone()));
            return Ok(WriteLock { path, _file: None });
        }
        if let Some(dir) = path.parent() {
            self.fs.create_dir_all(dir)?;
        }
        let opened = self.fs.open_lock_file(&path)?;
        let Some(file) = crate::disk::lock_opened(
            opened,
            &path,
            WRITE_LOCK_TIMEOUT,
            std::time::Duration::from_millis(2),
        )?
        else {
            return Err(crate::Error::VaultLocked { path, secs: WRITE_LOCK_TIMEOUT.as_secs() });
        };
        HELD.with(|h| h.borrow_mut().push(path.clone()));
        let lock = WriteLock { path, _file: Some(file) };
        // The lock is fresh: any intent record left is from a process killed mid-operation.
        self.recover_intents()?;
        self.clean_stale_temps_in(&self.root.join("state"));
        Ok(lock)
    }

    /// Rolls back an interrupted operation when the vault is opened, if no other process is
    /// writing (best effort: a read-only vault is read as it is, with a warning).
    pub(in crate::vault) fn recover_on_open(&self) {
        let intents = self.root.join(super::super::intent::INTENTS_DIR);
        if self.fs.read_dir(&intents).map_or(true, |rd| rd.is_empty()) {
            return;
        }
        let path = self.root.join(WRITE_LOCK_FILE);
        if HELD.with(|h| h.borrow().contains(&path)) {
            return;
        }
        let file = match self.fs.open_lock_file(&path).and_then(|f| {
            crate::disk::lock_opened(
                f,
                &path,
                std::time::Duration::ZERO,
                std::time::Duration::from_millis(1),
            )
        }) {
            Ok(Some(f)) => f,
            Ok(None) => {
                // Another process is writing (and replays what it may); still say what is
                // never replayed.
                self.warn_untrusted_intents();
                return;
            }
            Err(e) => {
                tracing::warn!("an interrupted operation could not be rolled back yet: {e}");
                return;
            }
        };
        HELD.with(|h| h.borrow_mut().push(path.clone()));
        let _lock = WriteLock { path, _file: Some(file) };
        if let Err(e) = self.recover_intents() {
            tracing::warn!("an interrupted operation could not be rolled back yet: {e}");
        }
    }
}
