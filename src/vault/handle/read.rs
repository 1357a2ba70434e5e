//! Reading memories: one file (beneath the vault's handle, through a symbolic link only when it
//! resolves to a place a memory could be), or every memory of the vault.
//!
//! Reading is lenient: a hand-written file with broken YAML, an unknown type or a bad date is
//! still a memory (with defaults) and carries warnings; it never stops the rest of the vault.

use std::path::{Path, PathBuf};

use jiff::Timestamp;

use super::scan::Unreachable;
use crate::disk::Kind;
use crate::error::Error;
use crate::model::name::RESERVED_DIRS;
use crate::model::{Document, MemoryId, MemoryName, Meta};
use crate::vault::Vault;

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

/// What a [`Warning`] is about: `doctor` reports each kind as its own problem.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// Frontmatter keys a merge could not settle, recorded under `merge_conflicts:`.
    KeyConflict,
    /// git's conflict markers in the body.
    BodyConflict,
    /// Any other problem reading the file's metadata (the value is read with a default).
    Frontmatter,
}

impl WarningKind {
    /// Its name in the manifest file.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            WarningKind::KeyConflict => "key_conflict",
            WarningKind::BodyConflict => "body_conflict",
            WarningKind::Frontmatter => "frontmatter",
        }
    }

    pub(crate) fn parse(s: &str) -> Option<WarningKind> {
        Some(match s {
            "key_conflict" => WarningKind::KeyConflict,
            "body_conflict" => WarningKind::BodyConflict,
            "frontmatter" => WarningKind::Frontmatter,
            _ => return None,
        })
    }
}

/// A problem found reading a memory file: its kind and the message shown to the user.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct Warning {
    /// What it is about.
    pub kind: WarningKind,
    /// What the user reads.
    pub message: String,
}

impl Warning {
    /// A problem with the file's metadata ([`WarningKind::Frontmatter`]).
    pub fn frontmatter(message: String) -> Warning {
        Warning { kind: WarningKind::Frontmatter, message }
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
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
    pub warnings: Vec<Warning>,
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

impl Vault {
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

    /// Whether anything is at memory `name`'s path (a file, a folder, a link, or a path through a
    /// link), stat-ed beneath the vault's handle: a new memory is never written there.
    pub fn is_taken(&self, name: &MemoryName) -> bool {
        !matches!(self.fs.stat(&self.path_of(name)), Ok(None))
    }

    /// Whether a file is at memory `name`'s path: stat-ed beneath the vault's handle; through a
    /// symbolic link, whether the link leads to a file (its target is only stat-ed here: reading
    /// it is [`Vault::read_memory`]'s call, which refuses a link out of the vault's memories).
    pub fn is_memory_file(&self, name: &MemoryName) -> bool {
        let path = self.path_of(name);
        match self.fs.stat(&path) {
            Ok(Some(s)) if s.kind != Kind::Symlink => s.kind == Kind::File,
            Ok(None) => false,
            // A link, or a path through one: where it leads inside the vault is stat-ed beneath
            // the handle; a link that leads outside counts (reading it is refused, naming it),
            // and a broken one does not.
            _ => match self.link_target(&path) {
                (Some(real), true) => self.fs.kind(&real) == Some(Kind::File),
                (Some(_), false) => true,
                (None, _) => false,
            },
        }
    }

    /// Whether a part of memory `name`'s path is a symbolic link (each part stat-ed beneath the
    /// vault handle, not following links; a missing part ends the look).
    fn has_link(&self, name: &MemoryName) -> bool {
        let mut p = self.root().to_path_buf();
        for part in name.rel_path().split('/') {
            p.push(part);
            match self.fs.stat(&p) {
                Ok(Some(s)) if s.kind == Kind::Symlink => return true,
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => return false,
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
            warnings.push(Warning {
                kind: WarningKind::BodyConflict,
                message: format!(
                    "{BODY_CONFLICT} (line {line}): both versions are there, between `<<<<<<<` and `>>>>>>>` markers"
                ),
            });
        }
        let map = match doc.mapping() {
            Ok(m) => m,
            Err(e) if e.is_over_limit() => return Err(Error::OverLimit { path, problem: e }),
            Err(e) => {
                warnings.push(Warning::frontmatter(format!("{e}; read with defaults")));
                Default::default()
            }
        };
        let (mut meta, w) = Meta::from_mapping(&map);
        warnings.extend(w.into_iter().map(Warning::frontmatter));
        if let Some(recorded) = map.get(crate::gitmerge::CONFLICTS_KEY).filter(|v| !v.is_null()) {
            let keys: Vec<String> = recorded
                .as_sequence()
                .into_iter()
                .flatten()
                .filter_map(|c| c.get("key").and_then(|k| k.as_str()))
                .map(|k| format!("`{k}`"))
                .collect();
            let keys = if keys.is_empty() { "some keys".to_owned() } else { keys.join(", ") };
            warnings.push(Warning {
                kind: WarningKind::KeyConflict,
                message: format!(
                    "{KEY_CONFLICT}: the merged branches set {keys} differently; `{}:` holds both values",
                    crate::gitmerge::CONFLICTS_KEY
                ),
            });
        }
        // Hand-written metadata gets the content's redaction before it reaches the manifest, the
        // index or any output (the file itself is never rewritten by reading): a tag redaction
        // touches is left out, and other values and warnings (which quote values) are redacted.
        let scrub = self.config.privacy.scrub_secrets;
        let tags = crate::privacy::redact_tags(&meta.tags, scrub);
        if tags.dropped > 0 {
            meta.tags = tags.tags;
            warnings.push(Warning::frontmatter(format!(
                "{} tag(s) held private text or a credential and are not shown or indexed",
                tags.dropped
            )));
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
            let clean = crate::privacy::sanitize(&w.message, scrub);
            if clean.had_private_content {
                w.message = clean.text;
            }
        }
        let (id, id_persisted) = match meta.id.as_deref().and_then(MemoryId::parse) {
            Some(id) => (id, true),
            None => (MemoryId::derived(&name), false),
        };
        let memory_type = match &meta.memory_type {
            Some(t) if self.config.type_profile(t).is_some() => t.clone(),
            Some(t) => {
                warnings.push(Warning::frontmatter(format!(
                    "unknown `type: {t}`; read as `{}` (add [types.{t}] to config.toml to keep it)",
                    self.config.default_type
                )));
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
}
