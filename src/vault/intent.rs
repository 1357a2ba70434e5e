//! All-or-nothing multi-file writes: a signed undo log under `state/intents/`.
//!
//! An operation that changes more than one file (merge, split, mv, rm of several memories, an
//! update with its history copy, a restore) runs inside [`Vault::all_or_nothing`]. Before a file
//! changes, a numbered entry in the operation's intent folder `state/intents/<op>-<pid>-<random>/`
//! records, atomically: the file's path, its previous state (its bytes and mode, or "absent") the
//! first time the operation touches it, and the SHA-256 of the bytes the operation is about to
//! leave there (or "absent" for a delete or a move away). When the operation finishes, the
//! folder is renamed to `….done` (one atomic step: the commit) and removed. When it fails, the
//! noted files are put back at once.
//!
//! A process killed in between leaves the folder behind. The next memlane process that takes
//! the vault's write lock (every writer, and every command opening the vault when no other
//! writer holds it) rolls it back, file by file, under two rules:
//!
//! - **Trust.** A folder is replayed only when memlane wrote it for this user on this machine,
//!   for this vault: each entry carries an HMAC-SHA256, made with the user's key (kept in the
//!   user's data dir, never in a vault; see [`super::signing`]), over its content, its folder
//!   and file names and the vault's canonical path; the folder and its entries are owned by the
//!   current user and are no symbolic links; and every path it names is a relative path inside
//!   the vault to a file memlane writes (a memory file, a `.history/` or a `.trash/` entry).
//!   Anything else (a folder committed to a repository, another user's or another vault's
//!   undo log, a damaged entry) is never replayed and never removed: every command warns about
//!   it once, naming it, and `doctor` reports it, with the command that deletes it.
//! - **Later edits survive.** A file is put back only when its bytes are exactly what the
//!   interrupted operation left there (one of the after-states it noted); when it already holds
//!   its previous bytes there is nothing to do. When it changed since (an editor, a `git pull`,
//!   a branch switch: `state/` is not in git), the user's version stays where it is, the bytes
//!   the roll-back would have written go to `.history/<id>/<version>_<when>_rollback.md`, and a
//!   warning names both files.
//!
//! Rolling back is idempotent, so a kill during the roll-back is rolled back again by the next
//! process. Every step's order is chosen so that a kill anywhere leaves something the next
//! process handles: an entry is written (atomically) before its file changes, so a file is
//! always in its previous state or in a noted after-state unless someone else changed it.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::Vault;
use super::signing;
use crate::disk::{Confined, Kind, Stat};
use crate::error::{Error, IoResultExt, PathError};
use crate::failpoint;
use crate::model::{Document, MemoryId, MemoryName};

/// The folder of intent records, under the vault root (per-user state: git-ignored).
pub const INTENTS_DIR: &str = "state/intents";

/// The label of the `.history/` copies a roll-back keeps (`<version>_<when>_rollback.md`).
pub const ROLLBACK_ACTION: &str = "rollback";

/// What an operation is about to leave at a path (see [`Vault::note`]).
#[derive(Debug, Clone, Copy)]
pub(crate) enum After<'a> {
    /// These bytes.
    Bytes(&'a [u8]),
    /// The bytes this other file holds now (a move to the path).
    MovedFrom(&'a Path),
    /// These bytes, as the new name of this other file (a rename that rewrites the file).
    RenamedFrom(&'a Path, &'a [u8]),
    /// No file (a delete, or a move away).
    Removed,
}

/// A file's state before an operation changed it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Before {
    /// Its bytes as text (memory files are UTF-8), or `None` when it did not exist.
    text: Option<String>,
    /// Its bytes when they are not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bytes: Option<Vec<u8>>,
    /// Its Unix permission bits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mode: Option<u32>,
}

impl Before {
    fn bytes(&self) -> Option<&[u8]> {
        self.text.as_ref().map(|t| t.as_bytes()).or(self.bytes.as_deref())
    }
}

/// One noted change.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Change {
    /// The path, relative to the vault root (`/`-separated).
    path: String,
    /// Its state before the operation: on the first change of a path only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    before: Option<Before>,
    /// The SHA-256 (hex) of the bytes the operation leaves, or `None` when it leaves no file.
    after: Option<String>,
    /// The file this one is the new name of (a move or a rename).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    from: Option<String>,
}

/// One entry file (`NNNNNN.json`): the changes and their signature.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    changes: Vec<Change>,
    /// HMAC-SHA256 (hex) over the changes, the entry's folder and file names and the vault.
    mac: String,
}

#[derive(Debug)]
struct Journal {
    root: PathBuf,
    canonical_root: PathBuf,
    dir: PathBuf,
    next: usize,
    /// Every path noted so far, with the after-states noted for it.
    noted: HashMap<PathBuf, Vec<Option<String>>>,
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

/// An intent folder memlane does not replay, as `doctor` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UntrustedIntent {
    /// The folder (or the symbolic link standing for `state/` or `state/intents/`).
    pub path: PathBuf,
    /// Why it is not trusted, in words.
    pub why: String,
}

/// What `doctor` reports about `state/intents/`.
#[derive(Debug, Clone, Default)]
pub struct IntentReport {
    /// Interrupted operations the next write rolls back (by folder name).
    pub pending: Vec<String>,
    /// Folders memlane never replays nor removes: the user inspects and deletes them.
    pub untrusted: Vec<UntrustedIntent>,
}

/// What the examination of an intent folder found.
enum Verdict {
    /// Signed for this user and this vault: its changes, in order.
    Trusted(Vec<Change>),
    /// Not to be replayed nor removed, and why.
    Untrusted(String),
}

// -------------------------------------------------------------------------------------------
// The file-system steps of the replay, kept small so that each can go through the vault's
// confined file-system handle.

/// A file's current state, stat-ed beneath the vault handle (a link is a link, never its
/// target; a path through a link is an error), or `None` when absent.
fn file_meta(fs: &Confined, path: &Path) -> std::io::Result<Option<Stat>> {
    fs.stat(path).map_err(|e| e.source)
}

fn read_file(fs: &Confined, path: &Path) -> Result<Vec<u8>, PathError> {
    fs.read(path)
}

fn write_file(
    fs: &Confined,
    path: &Path,
    bytes: &[u8],
    mode: Option<u32>,
) -> Result<(), PathError> {
    fs.write_mode(path, bytes, mode)
}

fn create_file(
    fs: &Confined,
    path: &Path,
    bytes: &[u8],
    mode: Option<u32>,
) -> Result<(), PathError> {
    fs.create(path, bytes, mode)
}

fn remove_file(fs: &Confined, path: &Path) -> Result<(), PathError> {
    match fs.remove_file(path) {
        Err(e) if e.source.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

fn rename_file(fs: &Confined, from: &Path, to: &Path) -> Result<(), PathError> {
    fs.rename(from, to)?;
    fs.sync_parent(to);
    Ok(())
}

fn remove_folder(fs: &Confined, path: &Path) -> Result<(), PathError> {
    fs.remove_dir_all(path)
}

fn list_folder(fs: &Confined, path: &Path) -> Result<Vec<String>, PathError> {
    let mut names: Vec<String> =
        fs.read_dir(path)?.into_iter().map(|e| e.name.to_string_lossy().into_owned()).collect();
    names.sort();
    Ok(names)
}

// -------------------------------------------------------------------------------------------

fn rel_of(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    Some(rel.to_string_lossy().replace('\\', "/"))
}

/// Whether `meta` belongs to the user this process runs as (always true where unknown).
fn owned_by_me(meta: &Stat) -> bool {
    match (signing::current_uid(), meta.uid) {
        (Some(me), Some(owner)) => me == owner,
        _ => true,
    }
}

/// Whether `rel` is a relative path inside the vault to a file memlane writes inside an
/// operation: a memory file, `.history/<id>/<version>.md` or its `.owner`, or a `.trash/` entry.
fn allowed_path(rel: &str) -> bool {
    if rel.is_empty()
        || rel.starts_with('/')
        || rel.contains(['\\', ':'])
        || rel.chars().any(char::is_control)
    {
        return false;
    }
    let parts: Vec<&str> = rel.split('/').collect();
    if parts.iter().any(|p| p.is_empty() || *p == "." || *p == "..") {
        return false;
    }
    let plain = |p: &&str| !p.starts_with('.');
    match parts[0] {
        ".history" => {
            parts.len() == 3
                && plain(&parts[1])
                && (parts[2] == super::write::HISTORY_OWNER
                    || (plain(&parts[2]) && parts[2].ends_with(".md")))
        }
        ".trash" => parts.len() >= 2 && parts[1..].iter().all(plain) && rel.ends_with(".md"),
        _ => rel.ends_with(".md") && MemoryName::from_file_path(rel.to_owned()).is_ok(),
    }
}

/// The history folder that keeps a roll-back's bytes for `rel`: the memory's id (from the
/// bytes' frontmatter, the `.history/<id>/` folder, or derived from the name).
fn history_id(rel: &str, bytes: &[u8]) -> MemoryId {
    let parts: Vec<&str> = rel.split('/').collect();
    if parts[0] == ".history"
        && let Some(id) = parts.get(1).and_then(|p| MemoryId::parse(p))
    {
        return id;
    }
    let from_text = std::str::from_utf8(bytes).ok().and_then(|text| {
        let map = Document::parse(text).mapping().ok()?;
        map.get("id").and_then(serde_yaml_ng::Value::as_str).and_then(MemoryId::parse)
    });
    if let Some(id) = from_text {
        return id;
    }
    let name = match rel.strip_prefix(".trash/") {
        Some(entry) => {
            let entry = entry.strip_suffix(".md").unwrap_or(entry);
            entry.rsplit_once('_').map_or(entry, |(n, _)| n)
        }
        None => rel,
    };
    let name = MemoryName::parse(name)
        .or_else(|_| MemoryName::parse(ROLLBACK_ACTION))
        .expect("a valid name");
    MemoryId::derived(&name)
}

/// The MAC's input: the vault, the folder (without `.done`), the entry file and the changes.
fn signed_parts<'a>(
    vault: &'a [u8],
    folder: &'a str,
    file: &'a str,
    json: &'a [u8],
) -> [&'a [u8]; 5] {
    [b"memlane undo log 1", vault, folder.as_bytes(), file.as_bytes(), json]
}

/// Warns once per process about each untrusted intent folder.
fn warn_untrusted(u: &UntrustedIntent) {
    static WARNED: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
    let mut warned = WARNED.lock().unwrap_or_else(|e| e.into_inner());
    if warned.get_or_insert_with(HashSet::new).insert(u.path.clone()) {
        tracing::warn!(
            "{} is not an undo log memlane wrote for you in this vault ({}): it was not replayed and is left as it is; inspect it, then delete it (`{}`)",
            shown_path(&u.path),
            u.why,
            remove_command(&u.path)
        );
    }
}

/// The command that deletes an untrusted intent folder (what `doctor` suggests).
pub fn remove_command(path: &Path) -> String {
    let shown = path.to_string_lossy();
    let plain = shown.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+@%=,:".contains(c));
    if plain {
        format!("rm -r {shown}")
    } else if shown.chars().any(char::is_control) {
        // bash's `$'…'`: a control character is never printed raw.
        let escaped: String = shown
            .chars()
            .map(|c| match c {
                '\\' | '\'' => format!("\\{c}"),
                c if c.is_control() => format!("\\x{:02x}", c as u32),
                c => c.to_string(),
            })
            .collect();
        format!("rm -r $'{escaped}'")
    } else {
        format!("rm -r '{}'", shown.replace('\'', r"'\''"))
    }
}

/// A path as a message shows it: control characters (a terminal's escape sequences, in a name
/// a repository chose) escaped.
pub fn shown_path(path: &Path) -> String {
    path.to_string_lossy()
        .chars()
        .map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() })
        .collect()
}

/// What the replay does with one path.
enum Action {
    /// It holds its previous state already.
    Nothing,
    /// It holds what the operation left: put the previous state back.
    PutBack,
    /// Someone changed it since: keep it (and the previous bytes in `.history/`).
    Keep,
    /// The old name of a move whose new name someone changed since: the move is completed
    /// (the old name goes), its bytes kept in `.history/` unless `held` (another file the
    /// operation wrote, kept as it is, holds them).
    Forward { held: Option<usize> },
    /// The new name of a move of a live memory, which someone changed since: the operation is
    /// rolled back with the user's version going back to the old name `to` (by a rename, or,
    /// when both names are `one_file` already, by removing the new name); the old name's bytes
    /// are kept in `.history/`.
    Return { to: usize, one_file: bool },
}

/// One path to replay: its previous state and every after-state noted for it.
struct Plan {
    path: String,
    from: Option<String>,
    before: Before,
    afters: Vec<Option<String>>,
}

impl Vault {
    fn intents_dir(&self) -> PathBuf {
        self.root().join(INTENTS_DIR)
    }

    fn vault_identity(&self) -> Vec<u8> {
        self.canonical_root.to_string_lossy().into_owned().into_bytes()
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
        if let Some(problem) = &signing::key().problem {
            static ONCE: std::sync::Once = std::sync::Once::new();
            ONCE.call_once(|| {
                tracing::warn!(
                    "memlane cannot keep the key that signs its undo log ({problem}): a multi-file change interrupted by a crash will have to be repaired by hand"
                );
            });
        }
        let mut rnd = [0u8; 4];
        let _ = getrandom::fill(&mut rnd);
        let suffix = signing::hex(&rnd);
        let dir = self.intents_dir().join(format!("{op}-{}-{suffix}", std::process::id()));
        failpoint::step("intent.begin").at("create", &dir)?;
        self.fs.create_dir_all(&dir)?;
        ACTIVE.with(|a| {
            *a.borrow_mut() = Some(Journal {
                root: self.root().to_owned(),
                canonical_root: self.canonical_root.clone(),
                dir: dir.clone(),
                next: 1,
                noted: HashMap::new(),
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
        let _ = remove_folder(&self.fs, &done);
        Ok(())
    }

    /// Notes, in the running operation's undo log, that each path is about to get the state
    /// its [`After`] names (a no-op outside [`Vault::all_or_nothing`]). The first note of a path
    /// keeps its current state too, for the roll-back. Call it right before the change: the
    /// entry is on disk (atomically, signed) before the file changes.
    pub(crate) fn note(&self, changes: &[(&Path, After<'_>)]) -> crate::Result<()> {
        ACTIVE.with(|a| {
            let mut a = a.borrow_mut();
            let Some(j) = a.as_mut().filter(|j| j.root == self.root()) else { return Ok(()) };
            let mut entries = Vec::new();
            for (p, after) in changes {
                let Some(rel) = rel_of(&j.root, p).or_else(|| rel_of(&j.canonical_root, p)) else {
                    continue;
                };
                let rel_from =
                    |from: &Path| rel_of(&j.root, from).or_else(|| rel_of(&j.canonical_root, from));
                let (after, from) = match after {
                    After::Bytes(b) => (Some(signing::sha256_hex(b)), None),
                    After::Removed => (None, None),
                    After::MovedFrom(from) => match file_meta(&self.fs, from).at("read", from)? {
                        Some(_) => {
                            (Some(signing::sha256_hex(&read_file(&self.fs, from)?)), rel_from(from))
                        }
                        None => (None, None),
                    },
                    After::RenamedFrom(from, b) => (Some(signing::sha256_hex(b)), rel_from(from)),
                };
                let before = match j.noted.get(*p) {
                    Some(afters) if afters.contains(&after) => continue,
                    Some(_) => None,
                    None => Some(snapshot(&self.fs, p)?),
                };
                entries.push((p.to_path_buf(), Change { path: rel, before, after, from }));
            }
            if entries.is_empty() {
                return Ok(());
            }
            let changes: Vec<Change> = entries.iter().map(|(_, c)| c.clone()).collect();
            let json = serde_json::to_vec(&changes).map_err(|e| Error::Encode {
                what: "the operation journal",
                problem: e.to_string(),
            })?;
            let file_name = format!("{:06}.json", j.next);
            let folder = j.dir.file_name().unwrap_or_default().to_string_lossy().into_owned();
            let vault = j.canonical_root.to_string_lossy().into_owned().into_bytes();
            let mac = signing::key().sign(&signed_parts(&vault, &folder, &file_name, &json));
            let entry = Entry { changes, mac: signing::hex(&mac) };
            let text = serde_json::to_vec(&entry).map_err(|e| Error::Encode {
                what: "the operation journal",
                problem: e.to_string(),
            })?;
            let file = j.dir.join(&file_name);
            self.fs.write(&file, &text)?;
            j.next += 1;
            for (p, c) in entries {
                j.noted.entry(p).or_default().push(c.after);
            }
            Ok(())
        })
    }

    /// Rolls back every interrupted operation found under `state/intents/` that memlane wrote
    /// for this user and this vault; warns about (and leaves alone) any other. Call with the
    /// write lock held. Returns the operations rolled back (by folder name).
    pub(crate) fn recover_intents(&self) -> crate::Result<Vec<String>> {
        let mut rolled = Vec::new();
        for (name, path, verdict) in self.examine_intents() {
            let changes = match verdict {
                Verdict::Trusted(changes) => changes,
                Verdict::Untrusted(why) => {
                    warn_untrusted(&UntrustedIntent { path, why });
                    continue;
                }
            };
            if name.ends_with(".done") {
                // Past its commit: the operation is complete.
                remove_folder(&self.fs, &path)?;
                continue;
            }
            let op = name.split('-').next().unwrap_or("write").to_owned();
            let kept = self.replay(&op, changes)?;
            remove_folder(&self.fs, &path)?;
            if kept == 0 {
                tracing::warn!(
                    op = %op,
                    "an interrupted `{op}` was found and rolled back: the vault is as it was before it"
                );
            } else {
                tracing::warn!(
                    op = %op,
                    "an interrupted `{op}` was found and rolled back, except {kept} file(s) changed since (see above)"
                );
            }
            rolled.push(name);
        }
        Ok(rolled)
    }

    /// Warns about every untrusted intent folder without taking the write lock (when another
    /// process holds it).
    pub(crate) fn warn_untrusted_intents(&self) {
        for u in self.intent_report().untrusted {
            warn_untrusted(&u);
        }
    }

    /// Puts every file noted in this process's own intent folder `dir` back, then removes it.
    fn roll_back(&self, dir: &Path) -> crate::Result<()> {
        let name = dir.file_name().unwrap_or_default().to_string_lossy().into_owned();
        match self.examine(dir, &name) {
            Verdict::Trusted(changes) => {
                let op = name.split('-').next().unwrap_or("write").to_owned();
                self.replay(&op, changes)?;
                remove_folder(&self.fs, dir)?;
                Ok(())
            }
            Verdict::Untrusted(why) => {
                warn_untrusted(&UntrustedIntent { path: dir.to_owned(), why });
                Ok(())
            }
        }
    }

    /// Every folder under `state/intents/` with what memlane makes of it, sorted by name.
    /// `state/` or `state/intents/` being a symbolic link is one untrusted finding.
    fn examine_intents(&self) -> Vec<(String, PathBuf, Verdict)> {
        for link in [self.root().join("state"), self.intents_dir()] {
            if file_meta(&self.fs, &link).ok().flatten().is_some_and(|m| m.kind == Kind::Symlink) {
                let name = link.file_name().unwrap_or_default().to_string_lossy().into_owned();
                let why = "it is a symbolic link; memlane reads no undo log through it".to_owned();
                return vec![(name, link, Verdict::Untrusted(why))];
            }
        }
        let dir = self.intents_dir();
        let Ok(names) = list_folder(&self.fs, &dir) else { return Vec::new() };
        let mut out = Vec::new();
        for name in names {
            let path = dir.join(&name);
            let Ok(Some(meta)) = file_meta(&self.fs, &path) else { continue };
            if meta.kind == Kind::File {
                // A temp file of an entry's creation, or anything else: never replayed.
                continue;
            }
            if (meta.kind == Kind::Dir) && self.remove_if_empty(&path, &meta) {
                // Killed before its first entry: nothing to undo.
                continue;
            }
            let verdict = self.examine(&path, &name);
            out.push((name, path, verdict));
        }
        out
    }

    /// Removes a folder of this user's with nothing in it (an operation killed before its first
    /// entry); `true` when it is gone.
    fn remove_if_empty(&self, path: &Path, meta: &Stat) -> bool {
        owned_by_me(meta)
            && list_folder(&self.fs, path).is_ok_and(|n| n.is_empty())
            && self.fs.remove_dir(path).is_ok()
    }

    /// Checks one intent folder: a real folder of this user's, holding only entries signed with
    /// this user's key for this vault, naming only files memlane writes.
    fn examine(&self, dir: &Path, name: &str) -> Verdict {
        let untrusted = |why: String| Verdict::Untrusted(why);
        let meta = match file_meta(&self.fs, dir) {
            Ok(Some(m)) => m,
            Ok(None) => return untrusted("it vanished while it was read".into()),
            Err(e) => return untrusted(format!("it cannot be read: {e}")),
        };
        if meta.kind == Kind::Symlink {
            return untrusted("it is a symbolic link".into());
        }
        if meta.kind != Kind::Dir {
            return untrusted("it is not a folder".into());
        }
        if !owned_by_me(&meta) {
            return untrusted("it belongs to another user".into());
        }
        let files = match list_folder(&self.fs, dir) {
            Ok(f) => f,
            Err(e) => return untrusted(format!("it cannot be read: {e}")),
        };
        let key = signing::key();
        let vault = self.vault_identity();
        let folder = name.strip_suffix(".done").unwrap_or(name);
        let mut changes: Vec<Change> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        for file in files {
            if file.starts_with('.') && file.ends_with(super::write::TEMP_SUFFIX) {
                // An entry whose write was interrupted: it never took effect.
                continue;
            }
            let numbered = file.len() == 11
                && file.ends_with(".json")
                && file[..6].bytes().all(|b| b.is_ascii_digit());
            if !numbered {
                return untrusted(format!(
                    "it holds `{}`, which memlane does not write there",
                    file.escape_debug()
                ));
            }
            let path = dir.join(&file);
            match file_meta(&self.fs, &path) {
                Ok(Some(m)) if (m.kind == Kind::File) && owned_by_me(&m) => {}
                Ok(Some(m)) if (m.kind == Kind::File) => {
                    return untrusted(format!("`{file}` belongs to another user"));
                }
                _ => return untrusted(format!("`{file}` is not a plain file")),
            }
            let Ok(raw) = read_file(&self.fs, &path) else {
                return untrusted(format!("`{file}` cannot be read"));
            };
            let Ok(entry) = serde_json::from_slice::<Entry>(&raw) else {
                return untrusted(format!("`{file}` is not an undo log entry memlane writes"));
            };
            let Ok(json) = serde_json::to_vec(&entry.changes) else {
                return untrusted(format!("`{file}` cannot be read"));
            };
            if !key.verify(&signed_parts(&vault, folder, &file, &json), &entry.mac) {
                return untrusted(format!("`{file}` is not signed with your key for this vault"));
            }
            for c in entry.changes {
                if !allowed_path(&c.path) {
                    return untrusted(format!(
                        "`{file}` names `{}`, which is not a file memlane writes",
                        c.path.escape_debug()
                    ));
                }
                if seen.insert(c.path.clone()) != c.before.is_some() {
                    return untrusted(format!("`{file}` is damaged"));
                }
                changes.push(c);
            }
        }
        Verdict::Trusted(changes)
    }

    /// Puts each noted file back (the last noted first), unless it changed since the operation
    /// left it; returns how many files were kept as someone changed them.
    fn replay(&self, op: &str, changes: Vec<Change>) -> crate::Result<usize> {
        let mut plans: Vec<Plan> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for c in changes {
            match index.get(&c.path) {
                Some(&i) => {
                    plans[i].afters.push(c.after);
                    if plans[i].from.is_none() {
                        plans[i].from = c.from;
                    }
                }
                None => {
                    index.insert(c.path.clone(), plans.len());
                    let before = c.before.unwrap_or(Before { text: None, bytes: None, mode: None });
                    plans.push(Plan { path: c.path, from: c.from, before, afters: vec![c.after] });
                }
            }
        }
        // Look at every file first: a decision may depend on another file (a hard link).
        let mut now = Vec::with_capacity(plans.len());
        for p in &plans {
            now.push(self.current(&p.path)?);
        }
        let mut actions: Vec<Action> = plans.iter().zip(&now).map(|(p, n)| decide(p, n)).collect();
        removed_before_the_move(&plans, &now, &mut actions);
        complete_moves(&plans, &now, &mut actions);
        // What the operation left goes first, so that a kept file's copy in `.history/` takes
        // the next version number once the operation's own history copies are gone.
        for (p, action) in plans.iter().zip(&actions).rev() {
            if matches!(action, Action::PutBack) {
                self.put_back(p)?;
            }
        }
        let mut kept = 0;
        for ((p, action), n) in plans.iter().zip(&actions).zip(&now) {
            match action {
                Action::Keep => {
                    kept += 1;
                    self.keep(op, p, n)?;
                }
                Action::Forward { held } => {
                    kept += 1;
                    self.forward(op, p, &plans, held.map(|i| &plans[i]))?;
                }
                Action::Return { to, one_file } => {
                    kept += 1;
                    self.give_back(op, p, &plans[*to], *one_file)?;
                }
                Action::Nothing | Action::PutBack => {}
            }
        }
        Ok(kept)
    }

    /// A noted file as it is now.
    fn current(&self, rel: &str) -> crate::Result<Now> {
        let path = self.root().join(rel);
        if !self.real_folders_above(rel) {
            return Ok(Now::Other);
        }
        let Some(meta) = file_meta(&self.fs, &path).at("read", &path)? else {
            return Ok(Now::Absent);
        };
        if meta.kind != Kind::File {
            return Ok(Now::Other);
        }
        let bytes = read_file(&self.fs, &path)?;
        Ok(Now::File { hash: signing::sha256_hex(&bytes), bytes, id: file_id(&meta) })
    }

    /// Whether every folder between the vault root and `rel` is a real folder (or missing), no
    /// symbolic link: the replay never writes through one.
    fn real_folders_above(&self, rel: &str) -> bool {
        let mut dir = self.root().to_owned();
        let parts: Vec<&str> = rel.split('/').collect();
        for part in &parts[..parts.len().saturating_sub(1)] {
            dir.push(part);
            match file_meta(&self.fs, &dir) {
                Ok(None) => return true,
                Ok(Some(m)) if (m.kind == Kind::Dir) => {}
                _ => return false,
            }
        }
        true
    }

    fn put_back(&self, p: &Plan) -> crate::Result<()> {
        let path = self.root().join(&p.path);
        match p.before.bytes() {
            None => {
                remove_file(&self.fs, &path)?;
                self.prune_created_dirs(&path);
            }
            Some(bytes) => write_file(&self.fs, &path, bytes, p.before.mode)?,
        }
        Ok(())
    }

    /// Leaves a file someone changed since the operation as it is; the bytes the roll-back
    /// would have written go to `.history/`, and a warning names both files.
    fn keep(&self, op: &str, p: &Plan, now: &Now) -> crate::Result<()> {
        let path = self.root().join(&p.path);
        let changed = match now {
            Now::Absent => "was removed",
            _ => "changed",
        };
        let Some(bytes) = p.before.bytes() else {
            tracing::warn!(
                "{} {changed} after an interrupted `{op}` had created it: your version stays as it is",
                path.display()
            );
            return Ok(());
        };
        let copy = self.save_rolled_back(&p.path, bytes, p.before.mode)?;
        let stays = if matches!(now, Now::Absent) { "stays removed" } else { "stays as it is" };
        tracing::warn!(
            "{} {changed} after an interrupted `{op}` had written it: your version {stays}, and the text the roll-back would have put back is in {}",
            path.display(),
            copy.display()
        );
        Ok(())
    }

    /// Completes the move of `p` (its old name) to a new name someone changed since: `p` goes,
    /// its bytes kept in `held` (a file the operation wrote with them) or in `.history/`.
    fn forward(&self, op: &str, p: &Plan, all: &[Plan], held: Option<&Plan>) -> crate::Result<()> {
        let path = self.root().join(&p.path);
        let Some(bytes) = p.before.bytes() else { return Ok(()) };
        let copy = match held {
            Some(h) => self.root().join(&h.path),
            None => self.save_rolled_back(&p.path, bytes, p.before.mode)?,
        };
        remove_file(&self.fs, &path)?;
        self.prune_created_dirs(&path);
        let new = all.iter().find(|q| q.from.as_deref() == Some(p.path.as_str()));
        let new = new.map(|q| self.root().join(&q.path).display().to_string()).unwrap_or_default();
        tracing::warn!(
            "{new} changed after an interrupted `{op}` had moved {} there: your version stays, the move is completed, and the text the old name had is in {}",
            path.display(),
            copy.display()
        );
        Ok(())
    }

    /// Rolls back the move of `old` to `new`, which someone changed since: the user's version
    /// goes to the old name (replacing its bytes, which go to `.history/`).
    fn give_back(&self, op: &str, new: &Plan, old: &Plan, one_file: bool) -> crate::Result<()> {
        let new_path = self.root().join(&new.path);
        let old_path = self.root().join(&old.path);
        let Some(bytes) = old.before.bytes() else { return Ok(()) };
        let copy = self.save_rolled_back(&old.path, bytes, old.before.mode)?;
        if one_file {
            remove_file(&self.fs, &new_path)?;
        } else {
            rename_file(&self.fs, &new_path, &old_path)?;
        }
        self.prune_created_dirs(&new_path);
        tracing::warn!(
            "{} changed after an interrupted `{op}` had moved {} there: the `{op}` is rolled back and your version is back under the old name, {}; the text the old name had is in {}",
            new_path.display(),
            old_path.display(),
            old_path.display(),
            copy.display()
        );
        Ok(())
    }

    /// Writes `bytes`, which the roll-back of `rel` would have put back, as a new version in
    /// `.history/<id>/` (`<version>_<when>_rollback.md`); an identical copy an earlier,
    /// interrupted roll-back made is reused.
    fn save_rolled_back(
        &self,
        rel: &str,
        bytes: &[u8],
        mode: Option<u32>,
    ) -> crate::Result<PathBuf> {
        let dir = self.history_dir().join(history_id(rel, bytes).as_str());
        let suffix = format!("_{ROLLBACK_ACTION}.md");
        let existing = list_folder(&self.fs, &dir).unwrap_or_default();
        for name in existing.iter().filter(|n| n.ends_with(&suffix)) {
            let file = dir.join(name);
            if read_file(&self.fs, &file).is_ok_and(|b| b == bytes) {
                return Ok(file);
            }
        }
        let stamp = crate::model::time::format_compact(self.clock.now());
        let mut version = existing.iter().filter(|n| n.ends_with(".md")).count() + 1;
        loop {
            let file = dir.join(format!("{version:06}_{stamp}{suffix}"));
            match create_file(&self.fs, &file, bytes, mode) {
                Ok(()) => return Ok(file),
                Err(e) if e.source.kind() == std::io::ErrorKind::AlreadyExists => version += 1,
                Err(e) => return Err(e.into()),
            }
        }
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

    /// What `doctor` reports: interrupted operations waiting for the next write, and intent
    /// folders memlane never replays (with why).
    pub fn intent_report(&self) -> IntentReport {
        let mut report = IntentReport::default();
        for link in [self.root().join("state"), self.intents_dir()] {
            if file_meta(&self.fs, &link).ok().flatten().is_some_and(|m| m.kind == Kind::Symlink) {
                let why = "it is a symbolic link; memlane reads no undo log through it".to_owned();
                report.untrusted.push(UntrustedIntent { path: link, why });
                return report;
            }
        }
        let dir = self.intents_dir();
        let Ok(names) = list_folder(&self.fs, &dir) else { return report };
        for name in names {
            let path = dir.join(&name);
            let Ok(Some(meta)) = file_meta(&self.fs, &path) else { continue };
            if meta.kind == Kind::File {
                continue;
            }
            match self.examine(&path, &name) {
                Verdict::Trusted(changes) => {
                    if !name.ends_with(".done") && !changes.is_empty() {
                        report.pending.push(name);
                    }
                }
                Verdict::Untrusted(why) => report.untrusted.push(UntrustedIntent { path, why }),
            }
        }
        report
    }
}

/// A noted file as the replay finds it.
enum Now {
    Absent,
    File {
        bytes: Vec<u8>,
        hash: String,
        id: Option<(u64, u64)>,
    },
    /// A symbolic link, a folder, or a path through a symbolic link: never touched.
    Other,
}

/// The file's identity (device, inode), to recognise two names of one file.
fn file_id(meta: &Stat) -> Option<(u64, u64)> {
    cfg!(unix).then_some((meta.dev, meta.ino))
}

/// What the replay does with plan `p`, whose file is `now`.
fn decide(p: &Plan, now: &Now) -> Action {
    match (now, p.before.bytes()) {
        (Now::Other, _) => Action::Keep,
        (Now::Absent, None) => Action::Nothing,
        (Now::Absent, Some(_)) => {
            if p.afters.contains(&None) {
                Action::PutBack
            } else {
                Action::Keep
            }
        }
        (Now::File { bytes, hash, .. }, before) => {
            if before == Some(bytes.as_slice()) {
                return Action::Nothing;
            }
            if p.afters.iter().any(|a| a.as_deref() == Some(hash.as_str())) {
                return Action::PutBack;
            }
            Action::Keep
        }
    }
}

/// A file the operation was about to move away (its after-state "absent") is gone, but so is
/// the file it was being moved to: a move is one rename (or a hard link then an unlink), so it
/// never leaves neither name. Someone removed the file since (a branch switch): it stays
/// removed, its previous bytes kept in `.history/`.
fn removed_before_the_move(plans: &[Plan], now: &[Now], actions: &mut [Action]) {
    for i in 0..plans.len() {
        if !matches!(actions[i], Action::PutBack) || !matches!(now[i], Now::Absent) {
            continue;
        }
        let never_arrived = plans.iter().zip(now).any(|(r, rn)| {
            r.from.as_deref() == Some(plans[i].path.as_str())
                && r.before.bytes().is_none()
                && matches!(rn, Now::Absent)
        });
        if never_arrived {
            actions[i] = Action::Keep;
        }
    }
}

/// A move (or rename) whose new name someone changed since the operation left it. Keeping the
/// new name as it is and the old one as it was would leave two files with one id; and when the
/// kill came between the move's hard link and its unlink, the edit went into the one file both
/// names share. So the user's version goes to one name only:
///
/// - for a memory moved from a live name (`mv`), the old name: the operation is rolled back
///   whole (its relinking too, so no link is left pointing at a name that is gone), and the
///   user's version is the memory's text at its old name;
/// - for a memory restored from `.trash/`, the new name: the restore is completed (it has no
///   other step), so the edit does not vanish into the trash.
///
/// This holds whether the old name is still as it was, shares the one file with the new name,
/// or is gone already (the move's last step done). Either way the old name's bytes are kept (in `.history/`, or in the copy of them the
/// operation wrote, such as a rename's history copy, which then stays).
fn complete_moves(plans: &[Plan], now: &[Now], actions: &mut [Action]) {
    for i in 0..plans.len() {
        let p = &plans[i];
        let Some(from) = p.from.as_deref() else { continue };
        if !matches!(actions[i], Action::Keep) || p.before.bytes().is_some() {
            continue;
        }
        let Now::File { id: new_id, .. } = &now[i] else { continue };
        let Some(q) = plans.iter().position(|q| q.path == from) else { continue };
        let old = &plans[q];
        let Some(old_bytes) = old.before.bytes() else { continue };
        let as_it_was = matches!(actions[q], Action::Nothing);
        let one_file = matches!(actions[q], Action::Keep)
            && new_id.is_some()
            && matches!(&now[q], Now::File { id, .. } if id == new_id);
        let moved_away = matches!(actions[q], Action::PutBack) && matches!(now[q], Now::Absent);
        if !(as_it_was || one_file || moved_away) || !old.afters.contains(&None) {
            continue;
        }
        let hash = signing::sha256_hex(old_bytes);
        let held = (0..plans.len()).find(|&r| {
            r != i
                && r != q
                && matches!(actions[r], Action::PutBack)
                && plans[r].before.bytes().is_none()
                && matches!(&now[r], Now::File { hash: h, .. } if *h == hash)
        });
        if !old.path.starts_with(".trash/") {
            actions[i] = Action::Return { to: q, one_file };
            actions[q] = Action::Nothing;
            continue;
        }
        if let Some(r) = held {
            actions[r] = Action::Nothing;
        }
        actions[q] = Action::Forward { held };
        // The new name stays as it is; the warning about the move names it.
        actions[i] = Action::Nothing;
    }
}

fn snapshot(fs: &Confined, p: &Path) -> crate::Result<Before> {
    Ok(match fs.stat(p)? {
        None => Before { text: None, bytes: None, mode: None },
        Some(stat) => {
            let bytes = read_file(fs, p)?;
            let mode = stat.mode;
            match String::from_utf8(bytes) {
                Ok(text) => Before { text: Some(text), bytes: None, mode },
                Err(e) => Before { text: None, bytes: Some(e.into_bytes()), mode },
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_relative_paths_to_files_memlane_writes_are_allowed() {
        for ok in [
            "auth-v1.md",
            "auth/v2.md",
            ".history/3kTqZ9pLx2A/000001_20260110T100000.000Z_update.md",
            ".history/3kTqZ9pLx2A/.owner",
            ".trash/auth/v2_20260110T100000.000Z.md",
        ] {
            assert!(allowed_path(ok), "{ok}");
        }
        for bad in [
            "",
            "h/post-checkout",
            "notes/victim",
            "/etc/passwd.md",
            "../outside.md",
            "a/../../b.md",
            "a//b.md",
            "./a.md",
            "state/intents/x.md",
            "indices/x.md",
            ".git/hooks/post-checkout.md",
            ".history/x/../../y.md",
            ".history/x/y/z.md",
            ".trash/.hidden.md",
            "C:/x.md",
            "a\\..\\b.md",
            "a\u{0}.md",
        ] {
            assert!(!allowed_path(bad), "{bad:?}");
        }
    }

    #[test]
    fn the_remove_command_quotes_odd_paths() {
        assert_eq!(
            remove_command(Path::new("/v/state/intents/mv-1-x")),
            "rm -r /v/state/intents/mv-1-x"
        );
        assert_eq!(remove_command(Path::new("/v w/it's")), r"rm -r '/v w/it'\''s'");
        assert_eq!(remove_command(Path::new("/v/a\u{1b}[2J'b")), r"rm -r $'/v/a\x1b[2J\'b'");
        assert_eq!(shown_path(Path::new("/v/a\u{1b}[2J")), r"/v/a\u{1b}[2J");
    }
}
