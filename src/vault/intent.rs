//! All-or-nothing multi-file writes: an undo log under `state/intents/`.
//!
//! An operation that changes more than one file (merge, split, mv, rm of several memories, an
//! update with its history copy, a restore) runs inside [`Vault::all_or_nothing`]. Before each
//! file is first changed, its previous state (its bytes and mode, or "absent") is written to a
//! numbered entry in the operation's intent folder `state/intents/<op>-<pid>-<random>/`, each
//! entry atomically. When the operation finishes, the folder is renamed to `….done` (one atomic
//! step: the commit) and removed. When it fails, every noted file is put back at once.
//!
//! A process killed in between leaves the folder behind. The next memlane process that takes
//! the vault's write lock (every writer, and every command opening the vault when no other
//! writer holds it) rolls it back: every noted file gets its previous state again, so the vault
//! is as it was before the operation — or, past the commit, as it is after it. Rolling back is
//! idempotent, so a kill during the roll-back is rolled back again by the next process.

use std::cell::RefCell;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Vault;
use crate::error::{Error, IoResultExt, PathError};
use crate::failpoint;

/// The folder of intent records, under the vault root (per-user state: git-ignored).
pub const INTENTS_DIR: &str = "state/intents";

/// A file's state before an operation changed it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Before {
    /// The path, relative to the vault root (`/`-separated).
    path: String,
    /// Its bytes as text (memory files are UTF-8), or `None` when it did not exist.
    text: Option<String>,
    /// Its bytes when they are not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bytes: Option<Vec<u8>>,
    /// Its Unix permission bits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mode: Option<u32>,
}

#[derive(Debug)]
struct Journal {
    root: PathBuf,
    canonical_root: PathBuf,
    dir: PathBuf,
    next: usize,
    noted: HashSet<PathBuf>,
}

thread_local! {
    /// The operation this thread is running, if any (operations nest: an inner one joins it).
    static ACTIVE: RefCell<Option<Journal>> = const { RefCell::new(None) };
}

/// Clears the thread's journal when an operation ends, even by a panic.
struct ActiveGuard;

impl Drop for ActiveGuard {
    fn drop(&mut self) {
        ACTIVE.with(|a| a.borrow_mut().take());
    }
}

fn rel_of(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    Some(rel.to_string_lossy().replace('\\', "/"))
}

impl Vault {
    fn intents_dir(&self) -> PathBuf {
        self.root().join(INTENTS_DIR)
    }

    /// Runs `f` as one all-or-nothing operation named `op` (see the module docs): under the
    /// vault's write lock, every file it changes is noted first, and an error puts every noted
    /// file back. Nested calls join the outer operation.
    pub fn all_or_nothing<T>(
        &self,
        op: &str,
        f: impl FnOnce() -> crate::Result<T>,
    ) -> crate::Result<T> {
        let nested = ACTIVE.with(|a| a.borrow().as_ref().is_some_and(|j| j.root == self.root()));
        if nested {
            return f();
        }
        let _lock = self.write_lock()?;
        let mut rnd = [0u8; 4];
        let _ = getrandom::fill(&mut rnd);
        let suffix: String = rnd.iter().map(|b| format!("{b:02x}")).collect();
        let dir = self.intents_dir().join(format!("{op}-{}-{suffix}", std::process::id()));
        failpoint::step("intent.begin").at("create", &dir)?;
        self.fs.create_dir_all(&dir)?;
        ACTIVE.with(|a| {
            *a.borrow_mut() = Some(Journal {
                root: self.root().to_owned(),
                canonical_root: self.canonical_root.clone(),
                dir: dir.clone(),
                next: 1,
                noted: HashSet::new(),
            });
        });
        let guard = ActiveGuard;
        let result = f();
        drop(guard);
        match result {
            Ok(v) => {
                self.commit(&dir)?;
                Ok(v)
            }
            Err(e) => {
                if let Err(undo) = self.roll_back(&dir) {
                    tracing::error!(error = %undo, op, "could not undo a failed operation; the next memlane command will retry");
                }
                Err(e)
            }
        }
    }

    fn commit(&self, dir: &Path) -> crate::Result<()> {
        failpoint::step("intent.commit").at("commit", dir)?;
        let mut done = dir.as_os_str().to_owned();
        done.push(".done");
        let done = PathBuf::from(done);
        self.fs.rename(dir, &done).map_err(|e| PathError { action: "commit", ..e })?;
        self.fs.sync_parent(dir);
        failpoint::step("intent.cleanup").at("remove", &done)?;
        let _ = self.fs.remove_dir_all(&done);
        Ok(())
    }

    /// Notes the current state of `paths` in the running operation's intent record before they
    /// change (a no-op outside [`Vault::all_or_nothing`] and for paths already noted).
    pub(crate) fn note(&self, paths: &[&Path]) -> crate::Result<()> {
        ACTIVE.with(|a| {
            let mut a = a.borrow_mut();
            let Some(j) = a.as_mut().filter(|j| j.root == self.root()) else { return Ok(()) };
            let mut entries = Vec::new();
            for p in paths {
                if j.noted.contains(*p) {
                    continue;
                }
                let Some(rel) = rel_of(&j.root, p).or_else(|| rel_of(&j.canonical_root, p)) else {
                    continue;
                };
                let before = match self.fs.stat(p)? {
                    None => Before { path: rel, text: None, bytes: None, mode: None },
                    Some(meta) => {
                        let bytes = self.fs.read(p)?;
                        let mode = meta.mode;
                        match String::from_utf8(bytes) {
                            Ok(text) => Before { path: rel, text: Some(text), bytes: None, mode },
                            Err(e) => {
                                Before { path: rel, text: None, bytes: Some(e.into_bytes()), mode }
                            }
                        }
                    }
                };
                entries.push(before);
            }
            if entries.is_empty() {
                return Ok(());
            }
            let json = serde_json::to_vec(&entries).map_err(|e| Error::Encode {
                what: "the operation journal",
                problem: e.to_string(),
            })?;
            let file = j.dir.join(format!("{:06}.json", j.next));
            self.fs.write(&file, &json)?;
            j.next += 1;
            for p in paths {
                j.noted.insert(p.to_path_buf());
            }
            Ok(())
        })
    }

    /// Rolls back every interrupted operation found under `state/intents/`. Call with the write
    /// lock held. Returns the operations rolled back (by folder name).
    pub(crate) fn recover_intents(&self) -> crate::Result<Vec<String>> {
        let dir = self.intents_dir();
        let Ok(rd) = self.fs.read_dir(&dir) else { return Ok(Vec::new()) };
        let mut found: Vec<(PathBuf, bool)> =
            rd.into_iter().map(|e| (dir.join(&e.name), e.kind == crate::disk::Kind::Dir)).collect();
        found.sort();
        let mut rolled = Vec::new();
        for (path, is_dir) in found {
            let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
            if !is_dir {
                // A temp file of an intent folder's creation, or anything else: not ours.
                continue;
            }
            if name.ends_with(".done") {
                self.fs.remove_dir_all(&path)?;
                continue;
            }
            self.roll_back(&path)?;
            let op = name.split('-').next().unwrap_or("write").to_owned();
            tracing::warn!(
                op = %op,
                "an interrupted `{op}` was found and rolled back: the vault is as it was before it"
            );
            rolled.push(name);
        }
        Ok(rolled)
    }

    /// Puts every file noted in the intent folder `dir` back as it was, then removes `dir`.
    fn roll_back(&self, dir: &Path) -> crate::Result<()> {
        let mut files: Vec<PathBuf> = self
            .fs
            .read_dir(dir)?
            .into_iter()
            .map(|e| dir.join(e.name))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for file in files.iter().rev() {
            let raw = self.fs.read(file)?;
            // Entries are written atomically; one that does not parse was not written by memlane.
            let Ok(entries) = serde_json::from_slice::<Vec<Before>>(&raw) else { continue };
            for before in entries.iter().rev() {
                self.put_back(before)?;
            }
        }
        self.fs.remove_dir_all(dir)?;
        Ok(())
    }

    fn put_back(&self, before: &Before) -> crate::Result<()> {
        if before.path.split('/').any(|c| c == ".." || c.is_empty()) {
            return Ok(());
        }
        let path = self.root().join(&before.path);
        let bytes = before.text.as_ref().map(|t| t.as_bytes()).or(before.bytes.as_deref());
        match bytes {
            None => {
                match self.fs.remove_file(&path) {
                    Ok(()) => {}
                    Err(e) if e.source.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(e.into()),
                }
                self.prune_created_dirs(&path);
            }
            Some(bytes) => {
                let same = self.fs.read(&path).is_ok_and(|now| now == bytes);
                if !same {
                    self.fs.write_mode(&path, bytes, before.mode)?;
                }
            }
        }
        Ok(())
    }

    /// Removes now-empty folders above a file that a rolled-back operation had created (never
    /// the vault root, `.trash/` or `.history/` themselves).
    fn prune_created_dirs(&self, file: &Path) {
        let keep = [self.root().to_owned(), self.trash_dir(), self.history_dir()];
        let mut dir = file.parent();
        while let Some(d) = dir {
            if keep.iter().any(|k| k == d) || !d.starts_with(self.root()) {
                break;
            }
            if self.fs.remove_dir(d).is_err() {
                break;
            }
            dir = d.parent();
        }
    }

    /// Whether an interrupted operation is waiting to be rolled back (for `doctor`).
    pub fn pending_intents(&self) -> Vec<String> {
        let Ok(rd) = self.fs.read_dir(&self.intents_dir()) else { return Vec::new() };
        let mut out: Vec<String> = rd
            .into_iter()
            .filter(|e| e.kind == crate::disk::Kind::Dir)
            .map(|e| e.name.to_string_lossy().into_owned())
            .filter(|n| !n.ends_with(".done"))
            .collect();
        out.sort();
        out
    }
}
