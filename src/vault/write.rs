//! Writing memories without ever losing a byte.
//!
//! Every write is atomic (temp file in the same folder, fsync, rename). Every overwrite first
//! copies the old bytes to `.history/<id>/`; every delete moves the file to `.trash/`. Nothing is
//! written when a request fails validation, and no write follows a symbolic link out of the vault.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde_yaml_ng::Value;

use super::{Memory, Vault};
use crate::error::{Error, IoResultExt, PathError};
use crate::failpoint;
use crate::model::frontmatter::{STATUSES, list_value, read_tags, str_value, ts_value};
use crate::model::name::{RESERVED_DIRS, fold_name, nfc};
use crate::model::time::{format_compact, parse_compact};
use crate::model::{Document, MemoryId, MemoryName, Meta};
use crate::privacy::{RedactedTags, SecretFinding, redact_tags, sanitize};

/// What a write did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteStatus {
    /// A new memory was written.
    Created,
    /// An existing memory was changed.
    Updated,
    /// Nothing changed (the new file would be identical).
    Unchanged,
    /// Nothing was stored: the content was empty after redaction.
    Skipped,
    /// The memory went to the trash.
    Deleted,
    /// The memory was renamed.
    Moved,
    /// A version or a trash entry was brought back.
    Restored,
}

/// The result of a write, as shown to the user (`--json` prints it as is).
#[derive(Debug, Clone, serde::Serialize)]
pub struct WriteOutcome {
    /// What happened.
    pub status: WriteStatus,
    /// The memory's name (after the write).
    pub name: String,
    /// The memory's id.
    pub id: String,
    /// The memory's file (absent when skipped).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// Whether redaction removed anything from this write.
    pub had_private_content: bool,
    /// How many `<private>` blocks were redacted.
    pub private_blocks: usize,
    /// Secrets the scrubber replaced, by kind.
    pub secrets: Vec<SecretFinding>,
    /// Tags left out because redaction removed something from them.
    #[serde(skip_serializing_if = "is_zero")]
    pub tags_dropped: usize,
    /// The history version holding the previous content, when one was recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_version: Option<usize>,
    /// The trash entry, for deletes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trash_entry: Option<String>,
    /// The previous name, for moves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Why nothing was stored, for skips.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl WriteOutcome {
    /// An outcome with nothing recorded yet but its status, name and id.
    pub fn new(status: WriteStatus, name: &MemoryName, id: &MemoryId) -> WriteOutcome {
        WriteOutcome {
            status,
            name: name.to_string(),
            id: id.to_string(),
            path: None,
            had_private_content: false,
            private_blocks: 0,
            secrets: Vec::new(),
            tags_dropped: 0,
            history_version: None,
            trash_entry: None,
            from: None,
            reason: None,
        }
    }
}

/// A new memory.
#[derive(Debug, Clone, Default)]
pub struct AddRequest {
    /// Its content (Markdown).
    pub content: String,
    /// Its type; the configured default when absent.
    pub memory_type: Option<String>,
    /// Its tags.
    pub tags: Vec<String>,
}

/// A change to an existing memory.
#[derive(Debug, Clone, Default)]
pub struct UpdateRequest {
    /// New content: the body, or with `raw` the whole file.
    pub content: Option<String>,
    /// Whether `content` is the whole file (frontmatter included).
    pub raw: bool,
    /// New type.
    pub memory_type: Option<String>,
    /// Replace the tags.
    pub tags: Option<Vec<String>>,
    /// Add these tags.
    pub add_tags: Vec<String>,
    /// Remove these tags.
    pub remove_tags: Vec<String>,
    /// New status.
    pub status: Option<String>,
    /// The history label for the old version (`update`, `edit`, `append` …).
    pub action: &'static str,
}

/// One stored version of a memory.
#[derive(Debug, Clone, serde::Serialize)]
pub struct HistoryEntry {
    /// 1 is the oldest.
    pub version: usize,
    /// When it was replaced.
    pub replaced_at: String,
    /// What replaced it (`update`, `append`, `edit`, `restore` …).
    pub action: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its file.
    pub path: PathBuf,
}

/// One file in the trash.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TrashEntry {
    /// The handle to restore it by (`auth/jwt-plan_20260110T100000.000Z`).
    pub entry: String,
    /// The name it had.
    pub name: String,
    /// When it was deleted.
    pub deleted_at: String,
    /// Its id, when readable.
    pub id: Option<String>,
    /// Its size in bytes.
    pub size: u64,
    /// Its file.
    pub path: PathBuf,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Tags as given (a `,` inside one splits it), trimmed and de-duplicated, with every tag that
/// redaction touches dropped (see [`redact_tags`]): a tag reaches the file name, the file, the
/// manifest, the index and every output, so it gets the same redaction as content, and first.
fn normalize_tags(tags: &[String], scrub: bool) -> crate::Result<RedactedTags> {
    let joined = Value::Sequence(tags.iter().map(|t| Value::String(t.clone())).collect());
    let out = redact_tags(&read_tags(&joined).unwrap_or_default(), scrub);
    for t in &out.tags {
        if t.chars().any(char::is_control) {
            return Err(Error::Invalid(format!("tag {t:?} contains a control character")));
        }
    }
    Ok(out)
}

impl WriteOutcome {
    /// Adds what redacting the tags removed to this outcome's report.
    fn count_tags(&mut self, r: &RedactedTags) {
        if r.dropped == 0 {
            return;
        }
        self.tags_dropped += r.dropped;
        self.private_blocks += r.private_blocks;
        self.had_private_content = true;
        self.secrets = merge_findings(std::mem::take(&mut self.secrets), r.secrets.clone());
    }
}

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

/// Writes `bytes` to `path` atomically with permission bits `mode`, failing with
/// `AlreadyExists` when `path` exists.
fn atomic_create(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<(), PathError> {
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

pub(super) fn sync_dir(path: &Path) {
    if let Some(dir) = path.parent()
        && let Ok(d) = std::fs::File::open(dir)
    {
        let _ = d.sync_all();
    }
}

/// The file in `.history/<id>/` naming the memory whose versions the folder holds.
const HISTORY_OWNER: &str = ".owner";

/// The file memory writers lock, under the vault root (with the per-user state: git-ignored).
pub const WRITE_LOCK_FILE: &str = "state/vault.lock";

/// How long a write waits for another process's vault lock before giving up (the lock is held
/// only while one file is checked and replaced, so this is a hung process, not a slow one).
const WRITE_LOCK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

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
pub(super) struct WriteLock {
    path: PathBuf,
    _file: Option<std::fs::File>,
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

/// Moves `from` to `to` without ever replacing an existing `to`.
fn move_no_clobber(from: &Path, to: &Path) -> Result<(), PathError> {
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

impl Vault {
    /// The real file a write to `path` lands in, refusing anything that resolves outside the vault.
    fn write_target(&self, path: &Path) -> crate::Result<PathBuf> {
        let meta = std::fs::symlink_metadata(path);
        if meta.as_ref().is_ok_and(|m| m.file_type().is_symlink()) {
            let real = path.canonicalize().map_err(|_| Error::OutsideVault(path.to_owned()))?;
            if !real.starts_with(&self.canonical_root) {
                return Err(Error::OutsideVault(path.to_owned()));
            }
            return Ok(real);
        }
        // Check the deepest existing folder above the file.
        let mut dir = path.parent();
        while let Some(d) = dir {
            if d.exists() {
                let real = d.canonicalize().at("resolve", d)?;
                if !real.starts_with(&self.canonical_root) {
                    return Err(Error::OutsideVault(path.to_owned()));
                }
                break;
            }
            dir = d.parent();
        }
        Ok(path.to_owned())
    }

    /// Refuses `name` for a new memory (create, rename to, restore as) when it would leak or be
    /// lost:
    ///
    /// - redaction would change it: the name becomes a file name, which no redaction reaches;
    /// - it differs from an existing memory or folder only in letter case or Unicode form
    ///   (`Note`/`note`, NFC/NFD `Café`): macOS and Windows file systems treat such names as
    ///   one, so one of the pair is lost on checkout (see [`crate::model::name::fold_name`]).
    ///
    /// `except` is the memory being renamed, which may collide with its own new spelling.
    pub fn check_new_name(
        &self,
        name: &MemoryName,
        except: Option<&MemoryName>,
    ) -> crate::Result<()> {
        let clean = sanitize(name.as_str(), self.config.privacy.scrub_secrets);
        if clean.had_private_content {
            return Err(Error::Invalid(format!(
                "the name `{}` holds private text or a credential; a name becomes a file name, so nothing was written\n  hint: choose a name without it",
                clean.text
            )));
        }
        let Some(existing) = self.colliding_name(name, except)? else { return Ok(()) };
        if let Some(dir) = existing.strip_suffix('/').filter(|d| RESERVED_DIRS.contains(d)) {
            return Err(Error::Invalid(format!(
                "`{name}` would land in memlane's reserved folder `{dir}/` on macOS and Windows, which treat `{}` and `{dir}` as one name; nothing was written\n  hint: choose another folder name",
                name.as_str().split('/').next().unwrap_or_default()
            )));
        }
        let what = if existing.ends_with('/') { "folder" } else { "memory" };
        if nfc(&existing) == nfc(name.as_str()) {
            // Same letters, composed differently (NFC `é` against NFD `e` + accent).
            return Err(Error::Invalid(format!(
                "`{name}` is the existing {what} `{existing}` with its accents encoded differently (Unicode NFC/NFD); macOS and Windows treat them as one name, so one would be lost on checkout; nothing was written\n  hint: use `memlane show` / `update` on the existing {what}, or choose another name"
            )));
        }
        Err(Error::Invalid(format!(
            "`{name}` differs from the existing {what} `{existing}` only in letter case or Unicode form; macOS and Windows treat them as one name, so one would be lost on checkout; nothing was written\n  hint: use `{existing}`, or choose another name"
        )))
    }

    /// The existing memory (`name`) or folder (`name/`) that `name` collides with, if any: the
    /// same after [`fold_name`], spelled differently. Reads one folder per part of the name.
    fn colliding_name(
        &self,
        name: &MemoryName,
        except: Option<&MemoryName>,
    ) -> crate::Result<Option<String>> {
        let except = except.map(MemoryName::rel_path);
        let parts: Vec<&str> = name.as_str().split('/').collect();
        if parts.len() > 1 {
            let first = fold_name(parts[0]);
            if let Some(dir) = RESERVED_DIRS.iter().find(|d| fold_name(d) == first) {
                return Ok(Some(format!("{dir}/")));
            }
        }
        let mut dir = self.root.clone();
        let mut prefix = String::new();
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            let wanted = if last { format!("{part}.md") } else { (*part).to_owned() };
            let folded = fold_name(&wanted);
            let entries = match std::fs::read_dir(&dir) {
                Ok(rd) => rd,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(PathError { action: "read", path: dir, source: e }.into()),
            };
            let mut exact = false;
            for entry in entries.flatten() {
                let file_name = entry.file_name();
                let Some(f) = file_name.to_str() else { continue };
                let rel = format!("{prefix}{f}");
                if f == wanted {
                    exact = true;
                } else if fold_name(f) == folded && !(last && except.as_ref() == Some(&rel)) {
                    return Ok(Some(match rel.strip_suffix(".md") {
                        Some(n) if last => n.to_owned(),
                        _ => format!("{rel}/"),
                    }));
                }
            }
            if !exact {
                return Ok(None);
            }
            dir.push(part);
            prefix.push_str(part);
            prefix.push('/');
        }
        Ok(None)
    }

    /// Takes the vault's write lock (see [`WriteLock`]); re-entrant within a thread.
    pub(super) fn write_lock(&self) -> crate::Result<WriteLock> {
        let path = self.root.join(WRITE_LOCK_FILE);
        if HELD.with(|h| h.borrow().contains(&path)) {
            HELD.with(|h| h.borrow_mut().push(path.clone()));
            return Ok(WriteLock { path, _file: None });
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).at("create", dir)?;
        }
        let Some(file) = crate::error::lock_file(
            &path,
            WRITE_LOCK_TIMEOUT,
            std::time::Duration::from_millis(2),
        )?
        else {
            let source = std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!(
                    "another memlane process has held it for over {} s; nothing was written (run the command again once it is done)",
                    WRITE_LOCK_TIMEOUT.as_secs()
                ),
            );
            return Err(PathError { action: "lock", path, source }.into());
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
    pub(super) fn recover_on_open(&self) {
        let intents = self.root.join(super::intent::INTENTS_DIR);
        if std::fs::read_dir(&intents).map_or(true, |mut rd| rd.next().is_none()) {
            return;
        }
        let path = self.root.join(WRITE_LOCK_FILE);
        if HELD.with(|h| h.borrow().contains(&path)) {
            return;
        }
        let file = match crate::error::lock_file(
            &path,
            std::time::Duration::ZERO,
            std::time::Duration::from_millis(1),
        ) {
            Ok(Some(f)) => f,
            Ok(None) => return,
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

    fn history_dir_of(&self, id: &MemoryId) -> PathBuf {
        self.history_dir().join(id.as_str())
    }

    /// Checks that `.history/<id>/` belongs to `m` and claims it: its `.owner` file names the
    /// memory whose versions it holds. When another memory with the same id (a copy of the
    /// file) owns it, the write is refused, so two memories never mix their histories. A
    /// history whose owner no longer exists (renamed outside memlane) is taken over.
    fn claim_history(&self, m: &Memory) -> crate::Result<()> {
        let file = self.history_dir_of(&m.id).join(HISTORY_OWNER);
        let owner = std::fs::read_to_string(&file).ok();
        let owner = owner.as_deref().map(str::trim).unwrap_or_default();
        if owner == m.name.as_str() {
            return Ok(());
        }
        if let Ok(other) = MemoryName::parse(owner)
            && self.has_id(&other, &m.id)
        {
            return Err(self.duplicate_id(m, &other));
        }
        self.note(&[&file])?;
        atomic_write(&file, format!("{}\n", m.name).as_bytes())?;
        Ok(())
    }

    /// Whether memory `name` exists and carries `id` in its frontmatter.
    fn has_id(&self, name: &MemoryName, id: &MemoryId) -> bool {
        self.load(name).is_ok_and(|o| o.id_persisted && o.id == *id)
    }

    fn duplicate_id(&self, m: &Memory, other: &MemoryName) -> Error {
        Error::Invalid(format!(
            "`{}` and `{other}` have the same id {} ({} and {}; one is a copy of the other); nothing was changed, so that their histories never mix\n  hint: remove the `id:` line from the copy in an editor: it then gets its own id",
            m.name,
            m.id,
            m.path.display(),
            self.path_of(other).display()
        ))
    }

    /// Refuses an id-based operation (history, restore) on a memory whose id another file in the
    /// vault also carries. Reads every file that mentions the id.
    fn check_unique_id(&self, m: &Memory) -> crate::Result<()> {
        if !m.id_persisted {
            return Ok(());
        }
        for name in self.names()? {
            if name == m.name {
                continue;
            }
            let path = self.path_of(&name);
            let Ok(raw) = std::fs::read_to_string(&path) else { continue };
            if raw.contains(m.id.as_str()) && self.has_id(&name, &m.id) {
                return Err(self.duplicate_id(m, &name));
            }
        }
        Ok(())
    }

    /// Copies a memory's current bytes into its history; returns the new version number.
    fn record_history(&self, m: &Memory, action: &str) -> crate::Result<usize> {
        self.claim_history(m)?;
        let dir = self.history_dir_of(&m.id);
        // `<version>_<when>_<action>.md`: the zero-padded version number orders the files even
        // when the clock is pinned or two writes share a millisecond.
        let stamp = format_compact(self.clock.now());
        let mut version = self.history_files(&m.id)?.len() + 1;
        let mode = file_mode(&m.path);
        loop {
            let file = dir.join(format!("{version:06}_{stamp}_{action}.md"));
            self.note(&[&file])?;
            match atomic_create(&file, m.raw.as_bytes(), mode) {
                Ok(()) => return Ok(version),
                Err(e) if e.source.kind() == std::io::ErrorKind::AlreadyExists => version += 1,
                Err(e) => return Err(e.into()),
            }
        }
    }

    fn history_files(&self, id: &MemoryId) -> crate::Result<Vec<PathBuf>> {
        let dir = self.history_dir_of(id);
        if !dir.is_dir() {
            return Ok(Vec::new());
        }
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .at("read", &dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        files.sort();
        Ok(files)
    }

    /// The stored versions of a memory, oldest first. Refused when another file has the same id.
    pub fn history(&self, m: &Memory) -> crate::Result<Vec<HistoryEntry>> {
        self.check_unique_id(m)?;
        let files = self.history_files(&m.id)?;
        Ok(files
            .into_iter()
            .enumerate()
            .map(|(i, path)| {
                let stem = path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
                let mut parts = stem.splitn(3, '_').skip(1);
                let stamp = parts.next().unwrap_or_default();
                let action = parts.next().unwrap_or("update");
                let replaced_at = parse_compact(stamp)
                    .map(crate::model::time::format_timestamp)
                    .unwrap_or_else(|| stamp.to_owned());
                let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
                HistoryEntry { version: i + 1, replaced_at, action: action.to_owned(), size, path }
            })
            .collect())
    }

    /// Creates a memory. Refuses an existing name; stores nothing when the content is empty
    /// after redaction.
    pub fn add(&self, name: &MemoryName, req: &AddRequest) -> crate::Result<WriteOutcome> {
        let ty = req.memory_type.clone().unwrap_or_else(|| self.config.default_type.clone());
        self.check_type(&ty)?;
        let tags = normalize_tags(&req.tags, self.config.privacy.scrub_secrets)?;
        self.create_file(name, &req.content, &tags, |doc, id, now| {
            doc.set("id", &str_value(id.as_str()));
            doc.set("type", &str_value(&ty));
            doc.set("status", &str_value("active"));
            doc.set("tags", &list_value(&tags.tags));
            doc.set("created_at", &ts_value(now));
            doc.set("updated_at", &ts_value(now));
        })
    }

    /// Creates memory file `name` with `content` redacted, the frontmatter `frontmatter` writes
    /// (given the new id and now), and `had_private_content` when redaction removed anything.
    /// Refuses an existing name; stores nothing (and answers `skipped`) when the content is empty
    /// after redaction; the file must read back cleanly.
    fn create_file(
        &self,
        name: &MemoryName,
        content: &str,
        tags: &RedactedTags,
        frontmatter: impl FnOnce(&mut Document, &MemoryId, jiff::Timestamp),
    ) -> crate::Result<WriteOutcome> {
        self.check_new_name(name, None)?;
        let path = self.path_of(name);
        if path.exists() || std::fs::symlink_metadata(&path).is_ok() {
            return Err(Error::Exists(name.to_string()));
        }
        let target = self.write_target(&path)?;
        let clean = sanitize(content, self.config.privacy.scrub_secrets);
        let id = MemoryId::random();
        let mut out = WriteOutcome::new(WriteStatus::Created, name, &id);
        out.had_private_content = clean.had_private_content;
        out.private_blocks = clean.private_blocks;
        out.secrets = clean.secrets.clone();
        out.count_tags(tags);
        if clean.is_empty() {
            return Ok(skipped(out, clean.had_private_content));
        }
        let mut doc = Document::new(&clean.text);
        frontmatter(&mut doc, &id, self.clock.now());
        if out.had_private_content {
            doc.set("had_private_content", &Value::Bool(true));
        }
        let text = doc.render();
        self.check_written(name, &text)?;
        self.note(&[&target])?;
        atomic_create(&target, text.as_bytes(), None).map_err(|e| exists_or(e, name))?;
        out.path = Some(path);
        Ok(out)
    }

    /// Strict check of a file memlane is about to write: it must read back without warnings.
    fn check_written(&self, name: &MemoryName, text: &str) -> crate::Result<Meta> {
        let doc = Document::parse(text);
        let map = doc
            .mapping()
            .map_err(|problem| Error::Frontmatter { what: name.to_string(), problem })?;
        let (meta, warnings) = Meta::from_mapping(&map);
        if let Some(w) = warnings.first() {
            return Err(Error::Invalid(format!("{name}: {w}\n  hint: nothing was written")));
        }
        if let Some(st) = map.get("status").and_then(Value::as_str)
            && !STATUSES.contains(&st)
        {
            return Err(Error::Invalid(format!(
                "{name}: unknown status `{st}` (allowed: active, archived)"
            )));
        }
        if let Some(t) = &meta.memory_type {
            self.check_type(t)?;
        }
        Ok(meta)
    }

    /// Writes `doc` over memory `m` (history first), unless nothing changed.
    fn rewrite(
        &self,
        m: &Memory,
        doc: &Document,
        action: &str,
    ) -> crate::Result<(WriteStatus, Option<usize>)> {
        let text = doc.render();
        if text == m.raw {
            return Ok((WriteStatus::Unchanged, None));
        }
        check_edits(&m.name, doc)?;
        self.check_written(&m.name, &text)?;
        let target = self.write_target(&m.path)?;
        self.all_or_nothing(action, || {
            // Refuse to clobber a change someone else made since we read the file.
            let current = std::fs::read(&target).at("read", &target)?;
            if current != m.raw.as_bytes() {
                return Err(Error::Invalid(format!(
                    "{} changed on disk while memlane was updating it; nothing was written\n  hint: run the command again",
                    m.name
                )));
            }
            let version = self.record_history(m, action)?;
            self.note(&[&target])?;
            atomic_write(&target, text.as_bytes())?;
            Ok((WriteStatus::Updated, Some(version)))
        })
    }

    /// Changes a memory's content and/or metadata. The body is replaced and the frontmatter kept
    /// unless `raw` is set; the previous version goes to history first.
    pub fn update(&self, m: &Memory, req: &UpdateRequest) -> crate::Result<WriteOutcome> {
        let mut out = WriteOutcome::new(WriteStatus::Updated, &m.name, &m.id);
        let mut doc = m.doc.clone();
        let scrub = self.config.privacy.scrub_secrets;
        if let Some(content) = &req.content {
            if req.raw {
                let mut new_doc = Document::parse(content);
                let map = new_doc
                    .mapping()
                    .map_err(|problem| Error::Frontmatter { what: m.name.to_string(), problem })?;
                if let Some(id) = map.get("id").and_then(Value::as_str)
                    && id != m.id.as_str()
                {
                    return Err(Error::Invalid(format!(
                        "the new file changes `id` from {} to {id}; ids are stable\n  hint: keep `id: {}` or remove the line",
                        m.id, m.id
                    )));
                }
                let clean = sanitize(new_doc.content(), scrub);
                if clean.text != new_doc.content() {
                    new_doc.set_content(&clean.text);
                }
                // Tags first, so that a private tag is dropped rather than kept as `[redacted]`.
                let tags = map.get("tags").and_then(read_tags).map(|t| redact_tags(&t, scrub));
                if let Some(tags) = tags.filter(|t| t.dropped > 0) {
                    new_doc.set("tags", &list_value(&tags.tags));
                    out.count_tags(&tags);
                }
                let yaml_clean = sanitize(&new_doc.yaml(), scrub);
                if yaml_clean.had_private_content {
                    let map: serde_yaml_ng::Mapping = serde_yaml_ng::from_str(&yaml_clean.text)
                        .map_err(|e| Error::Invalid(format!("the frontmatter held a secret and is not valid YAML once redacted: {e}")))?;
                    new_doc.replace_mapping(&map);
                }
                out.private_blocks += clean.private_blocks + yaml_clean.private_blocks;
                out.had_private_content |=
                    clean.had_private_content || yaml_clean.had_private_content;
                out.secrets = merge_findings(
                    std::mem::take(&mut out.secrets),
                    merge_findings(clean.secrets.clone(), yaml_clean.secrets),
                );
                if clean.is_empty() {
                    return Ok(skipped(out, clean.had_private_content));
                }
                doc = new_doc;
            } else {
                let clean = sanitize(content, scrub);
                out.private_blocks = clean.private_blocks;
                out.had_private_content = clean.had_private_content;
                out.secrets = clean.secrets.clone();
                if clean.is_empty() {
                    return Ok(skipped(out, clean.had_private_content));
                }
                doc.set_content(&clean.text);
            }
        }
        if let Some(t) = &req.memory_type {
            self.check_type(t)?;
            doc.set("type", &str_value(t));
        }
        if let Some(s) = &req.status {
            if !STATUSES.contains(&s.as_str()) {
                return Err(Error::Invalid(format!(
                    "unknown status `{s}`\n  hint: allowed: active, archived"
                )));
            }
            doc.set("status", &str_value(s));
        }
        if req.tags.is_some() || !req.add_tags.is_empty() || !req.remove_tags.is_empty() {
            // `m.meta.tags` is already redacted (see `Vault::memory_from_text`).
            let mut tags = match &req.tags {
                Some(t) => {
                    let r = normalize_tags(t, scrub)?;
                    out.count_tags(&r);
                    r.tags
                }
                None => m.meta.tags.clone(),
            };
            let added = normalize_tags(&req.add_tags, scrub)?;
            out.count_tags(&added);
            for t in added.tags {
                if !tags.contains(&t) {
                    tags.push(t);
                }
            }
            tags.retain(|t| !req.remove_tags.contains(t));
            doc.set("tags", &list_value(&tags));
        }
        self.finish_rewrite(m, doc, out, req.action)
    }

    fn finish_rewrite(
        &self,
        m: &Memory,
        mut doc: Document,
        mut out: WriteOutcome,
        action: &str,
    ) -> crate::Result<WriteOutcome> {
        if doc.render() == m.raw {
            out.status = WriteStatus::Unchanged;
            return Ok(out);
        }
        if out.had_private_content {
            doc.set("had_private_content", &Value::Bool(true));
        }
        doc.set("id", &str_value(m.id.as_str()));
        doc.set("updated_at", &ts_value(self.clock.now()));
        let (status, version) = self.rewrite(m, &doc, action)?;
        out.status = status;
        out.history_version = version;
        out.path = Some(m.path.clone());
        Ok(out)
    }

    /// Appends text to a memory's body, separated by a blank line.
    ///
    /// The text goes after the file's current body, re-read under the vault's write lock: two
    /// processes appending to one memory at once both land (see: #6).
    pub fn append(&self, m: &Memory, text: &str) -> crate::Result<WriteOutcome> {
        let _lock = self.write_lock()?;
        let current;
        let m = match std::fs::read(&m.path) {
            Ok(bytes) if bytes != m.raw.as_bytes() => {
                current = self.load(&m.name)?;
                &current
            }
            _ => m,
        };
        let mut out = WriteOutcome::new(WriteStatus::Updated, &m.name, &m.id);
        let clean = sanitize(text, self.config.privacy.scrub_secrets);
        out.private_blocks = clean.private_blocks;
        out.had_private_content = clean.had_private_content;
        out.secrets = clean.secrets.clone();
        if clean.is_empty() {
            return Ok(skipped(out, clean.had_private_content));
        }
        let old = m.content().trim_end_matches(['\n', '\r']);
        let new = if old.trim().is_empty() {
            clean.text.clone()
        } else {
            format!("{old}\n\n{}", clean.text.trim_start_matches(['\n', '\r']))
        };
        let mut doc = m.doc.clone();
        doc.set_content(&new);
        self.finish_rewrite(m, doc, out, "append")
    }

    /// Moves a memory to the trash.
    pub fn delete(&self, m: &Memory) -> crate::Result<WriteOutcome> {
        let source = self.write_target(&m.path)?;
        let _lock = self.write_lock()?;
        let stamp = format_compact(self.clock.now());
        let mut n = 0;
        let entry = loop {
            let entry = if n == 0 {
                format!("{}_{stamp}", m.name)
            } else {
                format!("{}_{stamp}-{n}", m.name)
            };
            let dest = self.trash_dir().join(format!("{entry}.md"));
            // Only memlane writes into the trash, under the vault lock held here: a free name
            // stays free, so one atomic rename moves the file (a hard link and an unlink, as
            // `move_no_clobber` does, would leave it in both places if killed in between).
            if std::fs::symlink_metadata(&dest).is_ok() {
                n += 1;
                continue;
            }
            if let Some(dir) = dest.parent() {
                std::fs::create_dir_all(dir).at("create", dir)?;
            }
            self.note(&[&source, &dest])?;
            failpoint::step("delete.rename")
                .and_then(|()| std::fs::rename(&source, &dest))
                .at("delete", &source)?;
            break entry;
        };
        self.prune_empty_dirs(&m.path);
        let mut out = WriteOutcome::new(WriteStatus::Deleted, &m.name, &m.id);
        out.path = Some(self.trash_dir().join(format!("{entry}.md")));
        out.trash_entry = Some(entry);
        Ok(out)
    }

    /// Removes now-empty folders above a memory file that left (never the vault root).
    fn prune_empty_dirs(&self, file: &Path) {
        let mut dir = file.parent();
        while let Some(d) = dir {
            if d == self.root() || !d.starts_with(self.root()) {
                break;
            }
            if std::fs::remove_dir(d).is_err() {
                break;
            }
            dir = d.parent();
        }
    }

    /// Renames a memory, keeping its id (a derived id is written into the file first so it
    /// survives the rename).
    pub fn rename(&self, m: &Memory, to: &MemoryName) -> crate::Result<WriteOutcome> {
        self.check_new_name(to, Some(&m.name))?;
        let dest = self.path_of(to);
        if dest.exists() || std::fs::symlink_metadata(&dest).is_ok() {
            return Err(Error::Exists(to.to_string()));
        }
        let dest_target = self.write_target(&dest)?;
        let source = self.write_target(&m.path)?;
        self.all_or_nothing("mv", || {
            self.note(&[&source, &dest_target])?;
            if m.id_persisted {
                move_no_clobber(&source, &dest_target).map_err(|e| exists_or(e, to))?;
            } else {
                let mut doc = m.doc.clone();
                doc.set("id", &str_value(m.id.as_str()));
                check_edits(&m.name, &doc)?;
                let text = doc.render();
                self.record_history(m, "mv")?;
                atomic_create(&dest_target, text.as_bytes(), file_mode(&source))
                    .map_err(|e| exists_or(e, to))?;
                failpoint::step("mv.remove")
                    .and_then(|()| std::fs::remove_file(&source))
                    .at("remove", &source)?;
            }
            Ok(())
        })?;
        self.prune_empty_dirs(&m.path);
        let mut out = WriteOutcome::new(WriteStatus::Moved, to, &m.id);
        out.path = Some(dest);
        out.from = Some(m.name.to_string());
        Ok(out)
    }

    /// Brings back version `version` (1 = oldest) of a memory; the current content goes to
    /// history first, so a restore can itself be undone.
    pub fn restore_version(&self, m: &Memory, version: usize) -> crate::Result<WriteOutcome> {
        let versions = self.history(m)?;
        let Some(v) = version.checked_sub(1).and_then(|i| versions.get(i)) else {
            return Err(Error::NoSuchVersion {
                name: m.name.to_string(),
                version,
                available: versions.len(),
            });
        };
        let bytes = std::fs::read(&v.path).at("read", &v.path)?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let mut out = WriteOutcome::new(WriteStatus::Restored, &m.name, &m.id);
        if text == m.raw {
            out.status = WriteStatus::Unchanged;
            return Ok(out);
        }
        let target = self.write_target(&m.path)?;
        let recorded = self.all_or_nothing("restore", || {
            let recorded = self.record_history(m, "restore")?;
            self.note(&[&target])?;
            atomic_write(&target, text.as_bytes())?;
            Ok(recorded)
        })?;
        out.history_version = Some(recorded);
        out.path = Some(m.path.clone());
        Ok(out)
    }

    /// Everything in the trash, newest first.
    pub fn trash_list(&self) -> crate::Result<Vec<TrashEntry>> {
        let dir = self.trash_dir();
        if !dir.is_dir() {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for e in walkdir::WalkDir::new(&dir).min_depth(1).into_iter().filter_map(Result::ok) {
            if !e.file_type().is_file() || e.path().extension().is_none_or(|x| x != "md") {
                continue;
            }
            let rel = e
                .path()
                .strip_prefix(&dir)
                .unwrap_or(e.path())
                .to_string_lossy()
                .replace('\\', "/");
            let entry = rel.strip_suffix(".md").unwrap_or(&rel).to_owned();
            let (name, stamp) = entry.rsplit_once('_').unwrap_or((&entry, ""));
            let stamp_main = stamp.split('-').next().unwrap_or(stamp);
            let deleted_at = parse_compact(stamp_main)
                .map(crate::model::time::format_timestamp)
                .unwrap_or_default();
            let raw = std::fs::read_to_string(e.path()).unwrap_or_default();
            let map = Document::parse(&raw).mapping().unwrap_or_default();
            let id = map.get("id").and_then(Value::as_str).map(str::to_owned);
            let size = e.metadata().map(|m| m.len()).unwrap_or(0);
            let seq: u64 = stamp.split_once('-').and_then(|(_, n)| n.parse().ok()).unwrap_or(0);
            out.push((
                seq,
                TrashEntry {
                    entry: entry.clone(),
                    name: name.to_owned(),
                    deleted_at,
                    id,
                    size,
                    path: e.path().to_owned(),
                },
            ));
        }
        // Newest first; entries deleted in the same millisecond by their collision counter.
        out.sort_by(|(sa, a), (sb, b)| {
            b.deleted_at.cmp(&a.deleted_at).then(sb.cmp(sa)).then(a.entry.cmp(&b.entry))
        });
        Ok(out.into_iter().map(|(_, e)| e).collect())
    }

    /// Finds a trash entry by its handle, or the newest entry of a memory name or id.
    pub fn trash_find(&self, wanted: &str) -> crate::Result<TrashEntry> {
        let wanted_name = wanted.strip_prefix("memory:").unwrap_or(wanted);
        let wanted_name = wanted_name.strip_suffix(".md").unwrap_or(wanted_name);
        let entries = self.trash_list()?;
        entries
            .iter()
            .find(|e| e.entry == wanted_name)
            .or_else(|| entries.iter().find(|e| e.name == wanted_name))
            .or_else(|| entries.iter().find(|e| e.id.as_deref() == Some(wanted)))
            .cloned()
            .ok_or_else(|| Error::NotInTrash(wanted.to_owned()))
    }

    /// Brings a trash entry back as `as_name` (default: its old name); never overwrites a live memory.
    pub fn trash_restore(
        &self,
        entry: &TrashEntry,
        as_name: Option<&MemoryName>,
    ) -> crate::Result<WriteOutcome> {
        let name = match as_name {
            Some(n) => n.clone(),
            None => MemoryName::parse(&entry.name)?,
        };
        self.check_new_name(&name, None)?;
        let dest = self.path_of(&name);
        if dest.exists() {
            return Err(Error::Invalid(format!(
                "a memory named `{name}` already exists; nothing was restored\n  hint: restore under another name with `--as NEW`"
            )));
        }
        let target = self.write_target(&dest)?;
        self.all_or_nothing("untrash", || {
            self.note(&[&entry.path, &target])?;
            move_no_clobber(&entry.path, &target).map_err(|e| exists_or(e, &name))
        })?;
        self.prune_empty_dirs_in(&entry.path, &self.trash_dir());
        let id = entry
            .id
            .as_deref()
            .and_then(MemoryId::parse)
            .unwrap_or_else(|| MemoryId::derived(&name));
        let mut out = WriteOutcome::new(WriteStatus::Restored, &name, &id);
        out.path = Some(dest);
        out.trash_entry = Some(entry.entry.clone());
        Ok(out)
    }

    fn prune_empty_dirs_in(&self, file: &Path, stop: &Path) {
        let mut dir = file.parent();
        while let Some(d) = dir {
            if d == stop || !d.starts_with(stop) || std::fs::remove_dir(d).is_err() {
                break;
            }
            dir = d.parent();
        }
    }

    /// Deletes trash entries for good: all, or those deleted more than `older_than_secs` ago.
    pub fn trash_empty(&self, older_than_secs: Option<i64>) -> crate::Result<Vec<TrashEntry>> {
        let now: Timestamp = self.clock.now();
        let mut removed = Vec::new();
        for e in self.trash_list()? {
            let old_enough = match older_than_secs {
                None => true,
                Some(secs) => crate::model::time::parse_timestamp(&e.deleted_at)
                    .is_some_and(|t| now.as_second() - t.as_second() >= secs),
            };
            if old_enough {
                std::fs::remove_file(&e.path).at("remove", &e.path)?;
                self.prune_empty_dirs_in(&e.path, &self.trash_dir());
                removed.push(e);
            }
        }
        Ok(removed)
    }
}

/// Refuses a rewrite that would change frontmatter keys it was not asked to change.
fn check_edits(name: &MemoryName, doc: &Document) -> crate::Result<()> {
    doc.verify_edits().map_err(|problem| {
        Error::Invalid(format!(
            "cannot change `{name}`: {problem}; nothing was written\n  hint: make the change by hand with `memlane edit {name}`"
        ))
    })
}

fn exists_or(e: PathError, name: &MemoryName) -> Error {
    if e.source.kind() == std::io::ErrorKind::AlreadyExists {
        Error::Exists(name.to_string())
    } else {
        e.into()
    }
}

fn skipped(mut out: WriteOutcome, private: bool) -> WriteOutcome {
    out.status = WriteStatus::Skipped;
    out.reason = Some(if private {
        "the content is empty after redaction".into()
    } else {
        "the content is empty".into()
    });
    out
}

fn merge_findings(a: Vec<SecretFinding>, b: Vec<SecretFinding>) -> Vec<SecretFinding> {
    let mut all = a;
    for f in b {
        match all.iter_mut().find(|x| x.kind == f.kind) {
            Some(x) => x.count += f.count,
            None => all.push(f),
        }
    }
    all.sort_by(|x, y| x.kind.cmp(y.kind));
    all
}

/// Links a person or agent writes into a memory's frontmatter (`link` / `unlink`), and the link
/// rewriting that keeps `[[memory:old]]` working after a rename.
impl Vault {
    /// Adds `{ type, target }` to the memory's frontmatter `links:` (unless already there).
    pub fn add_frontmatter_link(
        &self,
        m: &Memory,
        edge_type: &str,
        target: &str,
    ) -> crate::Result<WriteOutcome> {
        let mut items = frontmatter_link_items(m);
        let exists = items.iter().any(|i| link_item_matches(i, target, Some(edge_type)));
        if !exists {
            let mut map = serde_yaml_ng::Mapping::new();
            map.insert(str_value("type"), str_value(edge_type));
            map.insert(str_value("target"), str_value(target));
            items.push(Value::Mapping(map));
        }
        let mut doc = m.doc.clone();
        doc.set("links", &Value::Sequence(items));
        self.finish_rewrite(m, doc, WriteOutcome::new(WriteStatus::Updated, &m.name, &m.id), "link")
    }

    /// Removes frontmatter links to `target` (of `edge_type` when given); returns how many went.
    pub fn remove_frontmatter_links(
        &self,
        m: &Memory,
        target: &str,
        edge_type: Option<&str>,
    ) -> crate::Result<(WriteOutcome, usize)> {
        let items = frontmatter_link_items(m);
        let before = items.len();
        let kept: Vec<Value> =
            items.into_iter().filter(|i| !link_item_matches(i, target, edge_type)).collect();
        let removed = before - kept.len();
        let mut doc = m.doc.clone();
        if kept.is_empty() {
            doc.remove("links");
        } else {
            doc.set("links", &Value::Sequence(kept));
        }
        let out = if removed == 0 {
            let mut o = WriteOutcome::new(WriteStatus::Unchanged, &m.name, &m.id);
            o.path = Some(m.path.clone());
            o
        } else {
            self.finish_rewrite(
                m,
                doc,
                WriteOutcome::new(WriteStatus::Updated, &m.name, &m.id),
                "unlink",
            )?
        };
        Ok((out, removed))
    }

    /// After `from` was renamed to `to`: rewrites `[[memory:from]]` / `[[from]]` in every other
    /// memory's body and `memory:from` targets in frontmatter `links:`, each with history.
    pub fn rewrite_links(
        &self,
        from: &MemoryName,
        to: &MemoryName,
    ) -> crate::Result<Vec<WriteOutcome>> {
        let mut outcomes = Vec::new();
        for name in self.names()? {
            if &name == to {
                continue;
            }
            let Ok(m) = self.load(&name) else { continue };
            if !m.raw.contains(from.as_str()) {
                continue;
            }
            let mut doc = m.doc.clone();
            let mut changed = false;
            if let Some(body) =
                crate::model::links::rewrite_memory_links(m.content(), from.as_str(), to.as_str())
            {
                doc.set_content(&body);
                changed = true;
            }
            let items = frontmatter_link_items(&m);
            if items.iter().any(|i| link_item_matches(i, from.as_str(), None)) {
                let renamed: Vec<Value> = items
                    .into_iter()
                    .map(|mut i| {
                        if link_item_matches(&i, from.as_str(), None)
                            && let Value::Mapping(map) = &mut i
                        {
                            map.insert(str_value("target"), str_value(&format!("memory:{to}")));
                        }
                        i
                    })
                    .collect();
                doc.set("links", &Value::Sequence(renamed));
                changed = true;
            }
            if changed {
                let out = WriteOutcome::new(WriteStatus::Updated, &m.name, &m.id);
                outcomes.push(self.finish_rewrite(&m, doc, out, "relink")?);
            }
        }
        Ok(outcomes)
    }

    /// The memory that replaces a missing one, when one is recorded: the newest trash entry of
    /// that name names it in `superseded_by`.
    pub fn successor_of(&self, missing: &str) -> Option<String> {
        let entry = self.trash_find(missing).ok()?;
        let raw = std::fs::read_to_string(&entry.path).ok()?;
        let map = Document::parse(&raw).mapping().ok()?;
        let s = map.get("superseded_by")?.as_str()?;
        let s = s.strip_prefix("memory:").unwrap_or(s);
        let name = MemoryName::parse(s).ok()?;
        self.path_of(&name).is_file().then(|| name.to_string())
    }
}

fn frontmatter_link_items(m: &Memory) -> Vec<Value> {
    match m.doc.mapping().ok().and_then(|map| map.get("links").cloned()) {
        Some(Value::Sequence(items)) => items,
        Some(Value::Null) | None => Vec::new(),
        Some(other) => vec![other],
    }
}

fn link_item_matches(item: &Value, target: &str, edge_type: Option<&str>) -> bool {
    let bare = |s: &str| s.strip_prefix("memory:").unwrap_or(s).trim_end_matches(".md").to_owned();
    let want = bare(target);
    match item {
        Value::String(s) => bare(s) == want && edge_type.is_none_or(|t| t == "related_to"),
        Value::Mapping(map) => {
            let t = map.get("target").and_then(Value::as_str).map(bare);
            let ty = map.get("type").and_then(Value::as_str).unwrap_or("related_to");
            t.as_deref() == Some(want.as_str()) && edge_type.is_none_or(|e| e == ty)
        }
        _ => false,
    }
}

impl Vault {
    /// Sets or clears `pinned: true` in the frontmatter (history kept).
    pub fn set_pinned(&self, m: &Memory, pinned: bool) -> crate::Result<WriteOutcome> {
        let mut doc = m.doc.clone();
        if pinned {
            doc.set("pinned", &Value::Bool(true));
        } else {
            doc.remove("pinned");
        }
        let out = WriteOutcome::new(WriteStatus::Updated, &m.name, &m.id);
        self.finish_rewrite(m, doc, out, if pinned { "pin" } else { "unpin" })
    }
}

/// Writes for consolidation (merge, split, expiry): a memory whose frontmatter the caller
/// generates, and frontmatter-only changes (archive, `superseded_by`) with history.
impl Vault {
    /// Creates memory `name` with `content` (redacted like every write) and a generated
    /// frontmatter: a new `id`, the default `type`, `status: active`, `created_at` and
    /// `updated_at` now, then every `(key, value)` of `fields` in order (overriding those
    /// defaults; `id` cannot be overridden). Refuses an existing name; stores nothing (and answers
    /// `skipped`) when the content is empty after redaction; the file must read back cleanly.
    pub fn create_with_frontmatter(
        &self,
        name: &MemoryName,
        content: &str,
        fields: &[(&str, Value)],
    ) -> crate::Result<WriteOutcome> {
        self.create_file(name, content, &RedactedTags::default(), |doc, id, now| {
            doc.set("id", &str_value(id.as_str()));
            doc.set("type", &str_value(&self.config.default_type));
            doc.set("status", &str_value("active"));
            doc.set("created_at", &ts_value(now));
            doc.set("updated_at", &ts_value(now));
            for (key, value) in fields {
                if *key != "id" {
                    doc.set(key, value);
                }
            }
        })
    }

    /// Sets (`Some`) or removes (`None`) top-level frontmatter keys of `m`, keeping everything
    /// else byte for byte; the previous version goes to history under `action`. `Unchanged` when
    /// the file would not change.
    pub fn set_fields(
        &self,
        m: &Memory,
        fields: &[(&str, Option<Value>)],
        action: &str,
    ) -> crate::Result<WriteOutcome> {
        let mut doc = m.doc.clone();
        for (key, value) in fields {
            match value {
                Some(v) => doc.set(key, v),
                None => {
                    doc.remove(key);
                }
            }
        }
        let mut out = WriteOutcome::new(WriteStatus::Updated, &m.name, &m.id);
        out.path = Some(m.path.clone());
        self.finish_rewrite(m, doc, out, action)
    }

    /// Archives `m` (`status: archived`, and `superseded_by` when given), with history under
    /// `action`. Archiving never deletes: the memory stays searchable as archived.
    pub fn archive(
        &self,
        m: &Memory,
        superseded_by: Option<&MemoryName>,
        action: &str,
    ) -> crate::Result<WriteOutcome> {
        let mut fields = vec![("status", Some(str_value("archived")))];
        if let Some(s) = superseded_by {
            fields.push(("superseded_by", Some(str_value(s.as_str()))));
        }
        self.set_fields(m, &fields, action)
    }
}
