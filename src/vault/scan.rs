//! Reading memories: load one file, scan the vault, resolve what a user typed, list with filters.
//!
//! Reading is lenient: a hand-written file with broken YAML, an unknown type or a bad date is
//! still a memory (with defaults) and carries warnings; it never stops the rest of the vault.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use jiff::Timestamp;

use super::Vault;
use crate::disk::{ConfinedDir, DirEntry, Kind, Stat};
use crate::error::{Error, PathError};
use crate::model::name::{RESERVED_DIRS, suggest};
use crate::model::{Document, MemoryId, MemoryName, Meta};

/// A memory file's name, size and modification time.
#[derive(Debug, Clone)]
pub struct FileStat {
    /// The memory's name.
    pub name: MemoryName,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i128,
}

/// What one changed path is, as [`Vault::path_state`] tells.
#[derive(Debug, Clone)]
pub enum PathState {
    /// A memory file that [`Vault::files`] lists, with its stat.
    Memory(FileStat),
    /// A memory file's name with no file there now.
    Gone(MemoryName),
    /// A path that is never a memory (a dot file, a reserved folder, a name not UTF-8 or that
    /// no command can use).
    NotAMemory,
    /// Cannot be told from the path alone (a folder, a symbolic link on the way): stat the vault.
    Unsure,
}

/// A symbolic link in the vault that memlane does not follow (see [`Vault::link_target`]).
#[derive(Debug, Clone, serde::Serialize)]
pub struct EscapingLink {
    /// The link's path relative to the vault root (`notes.md`, `shared`).
    pub name: String,
    /// Where it resolves, when it resolves at all.
    pub target: Option<PathBuf>,
    /// Whether it leads to a folder.
    pub folder: bool,
}

/// A `.md` file in the vault that no command can name; it is never read. `doctor` reports it
/// and `list` warns about it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Unreachable {
    /// The file, as shown (control characters escaped).
    pub path: String,
    /// Why no command can name it.
    pub why: UnreachableWhy,
}

/// Why no command can name a file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum UnreachableWhy {
    /// Its name is not UTF-8.
    NotUtf8,
    /// Its name starts with `.`.
    Hidden,
    /// Its name is not a memory name (the reason).
    BadName(String),
}

impl std::fmt::Display for Unreachable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = &self.path;
        match &self.why {
            UnreachableWhy::NotUtf8 => write!(
                f,
                "{path}: the file name is not UTF-8, so no command can name it; it is not read"
            ),
            UnreachableWhy::Hidden => write!(
                f,
                "{path}: hidden files (names starting with `.`) are not memories; it is not read"
            ),
            UnreachableWhy::BadName(e) => {
                write!(f, "{path}: no command can name this file ({e}); it is not read")
            }
        }
    }
}

impl Unreachable {
    /// What to do about it (the same in every front end: it is about the file, not a command).
    pub fn hint(&self) -> &'static str {
        match self.why {
            UnreachableWhy::Hidden => "rename it without the leading `.` to make it one",
            UnreachableWhy::NotUtf8 | UnreachableWhy::BadName(_) => "rename it",
        }
    }
}

/// A file's modification time in nanoseconds since the Unix epoch (0 when unknown).
pub fn mtime_ns(meta: &std::fs::Metadata) -> i128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128)
}

/// What [`Vault::walk`] found.
#[derive(Debug, Default)]
struct Walked {
    files: Vec<FileStat>,
    escaping: Vec<EscapingLink>,
    unreachable: Vec<Unreachable>,
}

impl Walked {
    /// A memory file at `rel`, when its stat says it is a regular file (the resolved file's, for
    /// a link) and its name is a memory name.
    fn push_file(&mut self, rel: String, stat: Option<Stat>) {
        let Some(stat) = stat.filter(|s| s.kind == Kind::File) else { return };
        let Ok(name) = MemoryName::parse(&rel) else { return };
        self.files.push(FileStat { name, size: stat.len, mtime_ns: stat.mtime_ns });
    }
}

/// A folder [`Vault::walk`] has still to read: the folder holding it (held open, so it is opened
/// relative to it), its name there, and its path relative to the vault root.
type Pending = (Arc<ConfinedDir>, OsString, String);

/// How a memory's warning about markers git left in its body starts (`doctor` names the memory
/// as conflicted).
pub const BODY_CONFLICT: &str = "unresolved merge conflict in the body";

/// How a memory's warning about frontmatter keys a merge could not settle starts (recorded under
/// `merge_conflicts:` by `memlane merge-file`).
pub const KEY_CONFLICT: &str = "unresolved merge conflict in the frontmatter";

/// A file [`Vault::scan`] could not read as a memory.
#[derive(Debug)]
pub enum ScanProblem {
    /// A file no command can name.
    Unreachable(Unreachable),
    /// A memory file that does not load (not UTF-8, past the limits, a merge conflict …).
    Unreadable {
        /// The memory.
        name: MemoryName,
        /// Why.
        error: Error,
    },
}

impl std::fmt::Display for ScanProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScanProblem::Unreachable(u) => u.fmt(f),
            ScanProblem::Unreadable { name, error } => write!(f, "{name}: {error}"),
        }
    }
}

/// One memory as read from disk.
#[derive(Debug, Clone)]
pub struct Memory {
    /// The memory's name.
    pub name: MemoryName,
    /// Its file.
    pub path: PathBuf,
    /// Its id (from the file, or derived from the name when the file has none).
    pub id: MemoryId,
    /// Whether the id is written in the file.
    pub id_persisted: bool,
    /// The frontmatter as read.
    pub meta: Meta,
    /// The effective type (the written one if known, else the default type).
    pub memory_type: String,
    /// The effective status.
    pub status: String,
    /// `created_at`, or the file's modification time.
    pub created_at: Timestamp,
    /// `updated_at`, or `created_at`.
    pub updated_at: Timestamp,
    /// The parsed file.
    pub doc: Document,
    /// The file's bytes as read.
    pub raw: String,
    /// Problems found while reading (broken YAML, bad values).
    pub warnings: Vec<String>,
}

impl Memory {
    /// The Markdown content (body without frontmatter).
    pub fn content(&self) -> &str {
        self.doc.content()
    }

    /// The content with `<private>` blocks and secrets redacted, for anything shown to an agent or
    /// indexed (hand-written files are never rewritten, but their secrets never leave either).
    pub fn redacted_content(&self, scrub: bool) -> String {
        crate::privacy::sanitize(self.content(), scrub).text
    }

    /// The file size in bytes.
    pub fn size(&self) -> usize {
        self.raw.len()
    }
}

/// `path` with `.` and `..` parts resolved without touching the disk.
fn lexical_normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

impl Vault {
    /// The file of a memory name.
    pub fn path_of(&self, name: &MemoryName) -> PathBuf {
        self.root().join(name.rel_path())
    }

    /// Loads one memory from its file. Refuses a file reached through a symbolic link that
    /// resolves outside the vault's memories (see [`Vault::link_target`]).
    pub fn load(&self, name: &MemoryName) -> crate::Result<Memory> {
        let path = self.path_of(name);
        let bytes = self.read_memory(name)?;
        let raw = String::from_utf8(bytes).map_err(|_| Error::NotUtf8(path.clone()))?;
        self.memory_from_text(name.clone(), path, raw)
    }

    /// The bytes of memory `name`'s file, read beneath the vault's handle (see
    /// [`crate::disk::Confined`]): no symbolic link is followed by the read itself. A file
    /// reached through a link is read only when the link resolves to a place a memory could be
    /// (see [`Vault::link_target`]), and then the resolved file is read, beneath the handle
    /// again: a link swapped in meanwhile makes the read fail, never leave the vault.
    pub fn read_memory(&self, name: &MemoryName) -> crate::Result<Vec<u8>> {
        let path = self.path_of(name);
        match self.fs.read(&path) {
            Ok(bytes) => Ok(bytes),
            Err(e) if e.source.kind() != std::io::ErrorKind::NotFound && self.has_link(name) => {
                match self.link_target(&path) {
                    (Some(real), true) => Ok(self.fs.read(&real)?),
                    _ => Err(Error::LinkOutsideVault(name.rel_path())),
                }
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Whether a file is at memory `name`'s path: stat-ed beneath the vault's handle; through a
    /// symbolic link, whether the link leads to a file (its target is only stat-ed here: reading
    /// it is [`Vault::read_memory`]'s call, which refuses a link out of the vault's memories).
    pub fn is_memory_file(&self, name: &MemoryName) -> bool {
        let path = self.path_of(name);
        match self.fs.stat(&path) {
            Ok(Some(s)) if s.kind != Kind::Symlink => s.kind == Kind::File,
            Ok(None) => false,
            _ => path.is_file(),
        }
    }

    /// Whether a part of memory `name`'s path is a symbolic link (one `lstat` per part, not
    /// following links; a missing part ends the look).
    fn has_link(&self, name: &MemoryName) -> bool {
        let mut p = self.root().to_path_buf();
        for part in name.rel_path().split('/') {
            p.push(part);
            match std::fs::symlink_metadata(&p) {
                Ok(m) if m.file_type().is_symlink() => return true,
                Ok(_) => {}
                Err(_) => return false,
            }
        }
        false
    }

    /// The modification time of the memory file at `path` (the resolved file's, for a link that
    /// may be read), stat-ed beneath the vault's handle.
    fn mtime(&self, path: &Path) -> Option<Timestamp> {
        let stat = match self.fs.stat(path) {
            Ok(Some(s)) if s.kind != Kind::Symlink => s,
            Ok(None) => return None,
            _ => match self.link_target(path) {
                (Some(real), true) => self.fs.stat(&real).ok()??,
                _ => return None,
            },
        };
        Timestamp::from_nanosecond(stat.mtime_ns).ok()
    }

    /// Builds a memory from bytes already read (the indexer reads each file once).
    ///
    /// A file whose frontmatter is past [`crate::model::frontmatter::MAX_FRONTMATTER_BYTES`] or
    /// [`crate::model::frontmatter::MAX_FRONTMATTER_DEPTH`] is an [`Error::OverLimit`], and a
    /// file with unresolved git conflict markers in or before its frontmatter an
    /// [`Error::MergeConflict`] (callers skip it and go on); markers in the body of a file whose
    /// frontmatter reads, and keys recorded under `merge_conflicts:`, are warnings
    /// ([`BODY_CONFLICT`], [`KEY_CONFLICT`]), like other frontmatter problems.
    pub fn memory_from_text(
        &self,
        name: MemoryName,
        path: PathBuf,
        raw: String,
    ) -> crate::Result<Memory> {
        let doc = Document::parse(&raw);
        let mut warnings = Vec::new();
        // Both sides of a git conflict in the frontmatter are neither memory: read leniently, the
        // file would become a new memory with a derived id (see `model::conflict`). Markers after
        // a frontmatter that reads (what `memlane merge-file` leaves) are in the memory's text:
        // it is read, named as conflicted.
        if let Some(line) = crate::model::conflict::conflict_line(&raw) {
            let head_lines = raw[..raw.len() - doc.body().len()].matches('\n').count();
            if !doc.has_frontmatter() || line <= head_lines || doc.mapping().is_err() {
                return Err(Error::MergeConflict { path, line });
            }
            warnings.push(format!(
                "{BODY_CONFLICT} (line {line}): both versions are there, between `<<<<<<<` and `>>>>>>>` markers"
            ));
        }
        let map = match doc.mapping() {
            Ok(m) => m,
            Err(e) if e.is_over_limit() => return Err(Error::OverLimit { path, problem: e }),
            Err(e) => {
                warnings.push(format!("{e}; read with defaults"));
                Default::default()
            }
        };
        let (mut meta, w) = Meta::from_mapping(&map);
        warnings.extend(w);
        if let Some(recorded) = map.get(crate::gitmerge::CONFLICTS_KEY).filter(|v| !v.is_null()) {
            let keys: Vec<String> = recorded
                .as_sequence()
                .into_iter()
                .flatten()
                .filter_map(|c| c.get("key").and_then(|k| k.as_str()))
                .map(|k| format!("`{k}`"))
                .collect();
            let keys = if keys.is_empty() { "some keys".to_owned() } else { keys.join(", ") };
            warnings.push(format!(
                "{KEY_CONFLICT}: the merged branches set {keys} differently; `{}:` holds both values",
                crate::gitmerge::CONFLICTS_KEY
            ));
        }
        // Hand-written metadata gets the content's redaction before it reaches the manifest, the
        // index or any output (the file itself is never rewritten by reading): a tag redaction
        // touches is left out, and other values and warnings (which quote values) are redacted.
        let scrub = self.config.privacy.scrub_secrets;
        let tags = crate::privacy::redact_tags(&meta.tags, scrub);
        if tags.dropped > 0 {
            meta.tags = tags.tags;
            warnings.push(format!(
                "{} tag(s) held private text or a credential and are not shown or indexed",
                tags.dropped
            ));
        }
        for value in
            [&mut meta.id, &mut meta.memory_type, &mut meta.status, &mut meta.superseded_by]
                .into_iter()
                .flatten()
        {
            let clean = crate::privacy::sanitize(value, scrub);
            if clean.had_private_content {
                *value = clean.text;
            }
        }
        for w in &mut warnings {
            let clean = crate::privacy::sanitize(w, scrub);
            if clean.had_private_content {
                *w = clean.text;
            }
        }
        let (id, id_persisted) = match meta.id.as_deref().and_then(MemoryId::parse) {
            Some(id) => (id, true),
            None => (MemoryId::derived(&name), false),
        };
        let memory_type = match &meta.memory_type {
            Some(t) if self.config.type_profile(t).is_some() => t.clone(),
            Some(t) => {
                warnings.push(format!(
                    "unknown `type: {t}`; read as `{}` (add [types.{t}] to config.toml to keep it)",
                    self.config.default_type
                ));
                self.config.default_type.clone()
            }
            None => self.config.default_type.clone(),
        };
        let status = meta.status.clone().unwrap_or_else(|| "active".to_owned());
        let created_at =
            meta.created_at.or_else(|| self.mtime(&path)).unwrap_or_else(|| self.clock.now());
        let updated_at = meta.updated_at.unwrap_or(created_at);
        Ok(Memory {
            name,
            path,
            id,
            id_persisted,
            meta,
            memory_type,
            status,
            created_at,
            updated_at,
            doc,
            raw,
            warnings,
        })
    }

    /// Where a symbolic link at `path` leads, and whether memlane may read through it: only when
    /// it resolves to a place a memory could be, inside the vault (not into `.trash/`,
    /// `.history/`, `indices/`, `state/` or any dot folder). A link that leaves the vault would
    /// let a cloned repository feed any file of the user's (`notes.md -> ~/.ssh/id_ed25519`)
    /// into an agent's context; a broken link resolves nowhere and is not read either.
    pub fn link_target(&self, path: &Path) -> (Option<PathBuf>, bool) {
        let Ok(real) = path.canonicalize() else { return (None, false) };
        let allowed = real.strip_prefix(&self.canonical_root).is_ok_and(|rel| {
            let mut parts = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned());
            let first = parts.next();
            first.as_deref().is_some_and(|f| !RESERVED_DIRS.contains(&f) && !f.starts_with('.'))
                && parts.all(|p| !p.starts_with('.'))
        });
        (Some(real), allowed)
    }

    /// Symbolic links in the vault that memlane does not follow because they resolve outside
    /// its memories (or nowhere): files named `*.md` and folders, for `memlane doctor`.
    pub fn escaping_links(&self) -> crate::Result<Vec<EscapingLink>> {
        Ok(self.walk(false)?.escaping)
    }

    /// Every memory file in the vault with its size and mtime, sorted by name (reserved folders,
    /// dot files and non-`.md` files skipped; symlinked files followed only when they resolve
    /// inside the vault's memories, symlinked folders never).
    ///
    /// One `readdir` per folder and one `stat` per memory, relative to its folder: this is the
    /// whole cost of a no-change reconcile, so it stays this lean.
    pub fn files(&self) -> crate::Result<Vec<FileStat>> {
        let walked = self.walk(false)?;
        // Once per link and process: a server or watcher scans again and again.
        static WARNED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
        if !walked.escaping.is_empty()
            && let Ok(mut warned) = WARNED.lock()
        {
            for link in walked.escaping {
                if !warned.contains(&link.name) {
                    tracing::warn!(
                        "`{}` is a symbolic link that resolves outside the vault's memories; not read",
                        link.name
                    );
                    warned.push(link.name);
                }
            }
        }
        Ok(walked.files)
    }

    /// `.md` files in the vault that no command can reach, each with why: names memlane
    /// cannot use (control characters, `\\`, `:` …, not UTF-8) and hidden files (`.x.md`,
    /// `...md`). `list` warns about them and `doctor` reports them; they are never read.
    pub fn unreachable_files(&self) -> crate::Result<Vec<Unreachable>> {
        let mut out = self.walk(true)?.unreachable;
        out.sort();
        Ok(out)
    }

    /// Walks the vault: every memory file with its stat (sorted by name), the links not
    /// followed, and (`unreachable`) the `.md` files no name can reach. The root is read here;
    /// the folders under it are shared out between up to four threads, each reading its
    /// folders depth first. Everything goes through open folder handles beneath the vault's
    /// (see [`ConfinedDir`]): each folder is opened relative to the folder holding it (never
    /// through a link) and each memory stat-ed relative to its folder, with no path lookup from
    /// the root per file.
    fn walk(&self, unreachable: bool) -> crate::Result<Walked> {
        let read_error =
            |source| PathError { action: "read", path: self.root().to_owned(), source };
        let root = self.fs.open_dir(Path::new(""))?;
        let entries = root.entries().map_err(read_error)?;
        let root = Arc::new(root);
        let mut top = Walked::default();
        let mut folders = Vec::new();
        self.visit(&root, entries, "", unreachable, &mut top, &mut folders);
        drop(root);
        let threads = std::thread::available_parallelism().map_or(1, usize::from).clamp(1, 4);
        let parts: Vec<Walked> = if threads == 1 || folders.len() < 2 {
            vec![self.walk_folders(folders, unreachable)]
        } else {
            // Round robin: folders are listed in directory order, with no size known.
            let mut shares: Vec<Vec<Pending>> = (0..threads).map(|_| Vec::new()).collect();
            for (i, f) in folders.into_iter().enumerate() {
                shares[i % threads].push(f);
            }
            std::thread::scope(|s| {
                let handles: Vec<_> = shares
                    .into_iter()
                    .filter(|share| !share.is_empty())
                    .map(|share| s.spawn(move || self.walk_folders(share, unreachable)))
                    .collect();
                // A walk that panicked must not read as folders without memories (a reconcile
                // would drop them from the indices): the panic goes on.
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .collect()
            })
        };
        for part in parts {
            top.files.extend(part.files);
            top.escaping.extend(part.escaping);
            top.unreachable.extend(part.unreachable);
        }
        top.files.sort_by(|a, b| a.name.cmp(&b.name));
        top.escaping.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(top)
    }

    /// [`walk`](Self::walk) of `folders` and all under them.
    fn walk_folders(&self, mut folders: Vec<Pending>, unreachable: bool) -> Walked {
        let mut out = Walked::default();
        while let Some((parent, name, prefix)) = folders.pop() {
            // Opened relative to the folder holding it, refusing a link swapped in since that
            // folder was read.
            let opened = parent.open_dir(&name).and_then(|d| {
                let entries = d.entries()?;
                Ok((d, entries))
            });
            match opened {
                Ok((dir, entries)) => {
                    drop(parent);
                    let dir = Arc::new(dir);
                    self.visit(&dir, entries, &prefix, unreachable, &mut out, &mut folders);
                }
                Err(e) => {
                    let dir = parent.path().join(&name);
                    tracing::warn!(dir = %dir.display(), error = %e, "cannot read a folder in the vault; skipped");
                }
            }
        }
        out
    }

    /// One folder of [`walk`](Self::walk): its memory files (stat-ed relative to it), links and
    /// unreachable files into `out`, its sub-folders onto `folders`.
    fn visit(
        &self,
        dir: &Arc<ConfinedDir>,
        entries: Vec<DirEntry>,
        prefix: &str,
        unreachable: bool,
        out: &mut Walked,
        folders: &mut Vec<Pending>,
    ) {
        for entry in entries {
            let path = || dir.path().join(&entry.name);
            let Some(fname) = entry.name.to_str() else {
                if unreachable && entry.name.as_encoded_bytes().ends_with(b".md") {
                    out.unreachable.push(Unreachable {
                        path: path().display().to_string(),
                        why: UnreachableWhy::NotUtf8,
                    });
                }
                continue;
            };
            if prefix.is_empty() && RESERVED_DIRS.contains(&fname) {
                continue;
            }
            if fname.starts_with('.') {
                if unreachable && fname.ends_with(".md") && entry.kind != Kind::Dir {
                    out.unreachable.push(Unreachable {
                        path: path().display().to_string().escape_debug().to_string(),
                        why: UnreachableWhy::Hidden,
                    });
                }
                continue;
            }
            let rel =
                if prefix.is_empty() { fname.to_owned() } else { format!("{prefix}/{fname}") };
            match entry.kind {
                Kind::Dir => folders.push((dir.clone(), entry.name, rel)),
                Kind::Symlink => {
                    let (target, allowed) = self.link_target(&path());
                    let is_dir = target.as_deref().is_some_and(Path::is_dir);
                    if !allowed && (is_dir || fname.ends_with(".md")) {
                        out.escaping.push(EscapingLink { name: rel, target, folder: is_dir });
                    } else if allowed
                        && !is_dir
                        && fname.ends_with(".md")
                        && let Some(real) = target
                    {
                        // The resolved file, stat-ed beneath the vault's handle.
                        out.push_file(rel, self.fs.stat(&real).ok().flatten());
                    }
                }
                _ if fname.ends_with(".md") => match MemoryName::parse(&rel) {
                    Err(e) if unreachable => out.unreachable.push(Unreachable {
                        path: path().display().to_string().escape_debug().to_string(),
                        why: UnreachableWhy::BadName(e.to_string()),
                    }),
                    // `fstatat` on the folder read (no link followed): no lookup of the path.
                    _ => out.push_file(rel, dir.stat(&entry.name).ok()),
                },
                _ => {}
            }
        }
    }

    /// What the file at `path` (absolute, or relative to the vault root) is by the rules of
    /// [`Vault::files`], from its own `lstat` and its folders' only: what a caller that knows
    /// which paths changed (the MCP server, from the watcher's events) needs instead of a stat
    /// of the whole vault. Anything these few checks cannot decide the way the walk would (a
    /// folder, a symbolic link on the way, a path outside the vault) is [`PathState::Unsure`]:
    /// the caller then stats the whole vault.
    pub fn path_state(&self, path: &Path) -> PathState {
        let rel = if path.is_absolute() {
            match path
                .strip_prefix(&self.canonical_root)
                .or_else(|_| path.strip_prefix(self.root()))
            {
                Ok(rel) => rel,
                Err(_) => return PathState::Unsure,
            }
        } else {
            path
        };
        let mut parts = Vec::new();
        for c in rel.components() {
            let std::path::Component::Normal(p) = c else { return PathState::Unsure };
            // The walk skips names that are not UTF-8.
            let Some(p) = p.to_str() else { return PathState::NotAMemory };
            parts.push(p);
        }
        let Some(&file) = parts.last() else { return PathState::Unsure };
        if RESERVED_DIRS.contains(&parts[0]) || parts.iter().any(|p| p.starts_with('.')) {
            return PathState::NotAMemory;
        }
        if !file.ends_with(".md") {
            // A folder (created, removed or renamed) changes every memory under it.
            return PathState::Unsure;
        }
        let rel = parts.join("/");
        let Ok(name) = MemoryName::parse(&rel) else { return PathState::NotAMemory };
        // Stat-ed beneath the vault's handle: a link on the way is an error (unsure), a missing
        // part is gone.
        match self.fs.stat(Path::new(&rel)) {
            Ok(None) => PathState::Gone(name),
            Ok(Some(s)) if s.kind == Kind::File => {
                PathState::Memory(FileStat { name, size: s.len, mtime_ns: s.mtime_ns })
            }
            _ => PathState::Unsure,
        }
    }

    /// Every memory name in the vault, sorted.
    pub fn names(&self) -> crate::Result<Vec<MemoryName>> {
        Ok(self.files()?.into_iter().map(|f| f.name).collect())
    }

    /// Loads every memory. Files that cannot be read at all are returned as problems.
    pub fn scan(&self) -> crate::Result<(Vec<Memory>, Vec<ScanProblem>)> {
        let mut out = Vec::new();
        let mut problems: Vec<ScanProblem> =
            self.unreachable_files()?.into_iter().map(ScanProblem::Unreachable).collect();
        for name in self.names()? {
            match self.load(&name) {
                Ok(m) => out.push(m),
                Err(error) => problems.push(ScanProblem::Unreadable { name, error }),
            }
        }
        Ok((out, problems))
    }

    /// Resolves what a user typed to a memory: a name (`auth/jwt-plan`, `auth/jwt-plan.md`,
    /// `memory:auth/jwt-plan`), an id, or a path to the file (`.memories/auth/jwt-plan.md`,
    /// `./.memories/x.md`, an absolute path; relative paths from the current directory).
    ///
    /// A path that leads outside the vault is an error that says so.
    pub fn resolve(&self, input: &str) -> crate::Result<Memory> {
        let as_name = MemoryName::parse(input);
        if let Ok(name) = &as_name
            && self.is_memory_file(name)
        {
            return self.load(name);
        }
        let names = self.names()?;
        if let Some(id) = MemoryId::parse(input) {
            for name in &names {
                if let Ok(m) = self.load(name)
                    && m.id == id
                {
                    return Ok(m);
                }
            }
        }
        match self.name_of_path(input) {
            Some(Ok(name)) => {
                if self.is_memory_file(&name) {
                    return self.load(&name);
                }
                return Err(Error::NotFound {
                    name: input.to_owned(),
                    suggestions: suggest(name.as_str(), names.iter().map(MemoryName::as_str)),
                });
            }
            Some(Err(e)) if as_name.is_err() => return Err(e),
            _ => {}
        }
        if let Err(e) = as_name
            && MemoryId::parse(input).is_none()
        {
            return Err(e.into());
        }
        Err(Error::NotFound {
            name: input.to_owned(),
            suggestions: suggest(input, names.iter().map(MemoryName::as_str)),
        })
    }

    /// Resolves several inputs (as [`Vault::resolve`]), each memory once however many times it
    /// is named (`rm a a.md memory:a` removes `a` once), in the order first named.
    pub fn resolve_all<S: AsRef<str>>(&self, inputs: &[S]) -> crate::Result<Vec<Memory>> {
        let mut out: Vec<Memory> = Vec::with_capacity(inputs.len());
        for input in inputs {
            let m = self.resolve(input.as_ref())?;
            if !out.iter().any(|o| o.name == m.name) {
                out.push(m);
            }
        }
        Ok(out)
    }

    /// The name for a memory that may not exist yet (`add`, `mv`'s target): a name as typed
    /// (`auth/jwt-plan`, `auth/jwt-plan.md`, `memory:…`), or else a path to the file inside the
    /// vault (`.memories/auth/jwt-plan.md`, an absolute path). Anything else is refused with
    /// the name's error (`../x` contains `..`), as a new name must be one.
    pub fn name_for(&self, input: &str) -> crate::Result<MemoryName> {
        match MemoryName::parse(input) {
            Ok(name) => Ok(name),
            Err(e) => match self.name_of_path(input) {
                Some(Ok(name)) => Ok(name),
                _ => Err(e.into()),
            },
        }
    }

    /// The memory name of a file path (absolute, or relative to the current directory):
    /// `None` when `input` does not lead to a `.md` path (so it is no path a user would
    /// type for a memory); an error when it leads outside the vault or to a file no name can
    /// reach (inside `.trash/`, a hidden file …).
    fn name_of_path(&self, input: &str) -> Option<crate::Result<MemoryName>> {
        let input = input.strip_prefix("memory:").unwrap_or(input);
        let looks_like_path = input.ends_with(".md")
            || input.starts_with(['.', '/', '~'])
            || std::path::Path::new(input).is_absolute();
        if !looks_like_path || input.is_empty() {
            return None;
        }
        let typed = std::path::Path::new(input);
        let abs = if typed.is_absolute() {
            typed.to_path_buf()
        } else {
            std::env::current_dir().ok()?.join(typed)
        };
        let abs = lexical_normal(&abs);
        let abs = if abs.extension().is_some_and(|e| e == "md") {
            abs
        } else {
            let mut with_md = abs.into_os_string();
            with_md.push(".md");
            PathBuf::from(with_md)
        };
        // The vault as given, as resolved, and the file's folder resolved (a symlinked checkout).
        let root = lexical_normal(&std::path::absolute(self.root()).unwrap_or_default());
        let resolved_dir = abs
            .parent()
            .and_then(|d| d.canonicalize().ok())
            .zip(abs.file_name())
            .map(|(d, f)| d.join(f));
        let rel = [Some(&abs), resolved_dir.as_ref()].into_iter().flatten().find_map(|p| {
            p.strip_prefix(&root).ok().or_else(|| p.strip_prefix(&self.canonical_root).ok())
        });
        let Some(rel) = rel else {
            return Some(Err(Error::PathOutsideVault {
                input: input.to_owned(),
                vault: self.root().to_owned(),
            }));
        };
        let rel: Vec<String> =
            rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        Some(MemoryName::parse(&rel.join("/")).map_err(Error::from))
    }
    /// Lists memories matching `filter`, sorted.
    pub fn list(&self, filter: &ListFilter) -> crate::Result<(Vec<Memory>, Vec<ScanProblem>)> {
        let (mut all, problems) = self.scan()?;
        all.retain(|m| filter.matches(m));
        match filter.sort {
            ListSort::Created => {
                all.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(a.name.cmp(&b.name)));
            }
            ListSort::Updated => {
                all.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(a.name.cmp(&b.name)));
            }
            ListSort::Name => all.sort_by(|a, b| a.name.cmp(&b.name)),
        }
        if filter.reverse {
            all.reverse();
        }
        if let Some(limit) = filter.limit {
            all.truncate(limit);
        }
        Ok((all, problems))
    }
}

/// How `list` orders memories.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ListSort {
    /// Newest `created_at` first.
    #[default]
    Created,
    /// Most recently updated first.
    Updated,
    /// By name.
    Name,
}

/// Filters for `list`.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    /// Keep these types (any of them); empty keeps all.
    pub types: Vec<String>,
    /// Keep memories with any of these tags; empty keeps all.
    pub tags: Vec<String>,
    /// Keep these statuses; empty keeps `active` only.
    pub statuses: Vec<String>,
    /// Created at or after.
    pub after: Option<Timestamp>,
    /// Created before.
    pub before: Option<Timestamp>,
    /// Sort order.
    pub sort: ListSort,
    /// Reverse the order.
    pub reverse: bool,
    /// At most this many.
    pub limit: Option<usize>,
}

impl ListFilter {
    /// Whether a memory passes the filter.
    pub fn matches(&self, m: &Memory) -> bool {
        let status_ok = if self.statuses.is_empty() {
            m.status == "active"
        } else {
            self.statuses.iter().any(|s| s == "all" || *s == m.status)
        };
        status_ok
            && (self.types.is_empty() || self.types.contains(&m.memory_type))
            && (self.tags.is_empty() || m.meta.tags.iter().any(|t| self.tags.contains(t)))
            && self.after.is_none_or(|a| m.created_at >= a)
            && self.before.is_none_or(|b| m.created_at < b)
    }
}
