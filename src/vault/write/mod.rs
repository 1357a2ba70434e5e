//! Writing memories without ever losing a byte.
//!
//! Every write is atomic (temp file in the same folder, fsync, rename). Every overwrite first
//! copies the old bytes to `.history/<id>/`; every delete moves the file to `.trash/`. Nothing is
//! written when a request fails validation, and no write follows a symbolic link out of the vault.
//!
//! Where things live: the request and outcome types here; `memory` (create, update, append,
//! delete, rename), `history` (`.history/` and restoring a version), `trash` (`.trash/`),
//! `fields` (frontmatter links, pin, archive and other fields), `names` (where a write may go)
//! and `lock` (the vault's write lock). The atomic file primitives are in [`crate::disk`].

use std::path::PathBuf;

use serde_yaml_ng::Value;

use crate::error::{Error, PathError};
use crate::model::frontmatter::read_tags;
use crate::model::{Document, MemoryId, MemoryName};
use crate::privacy::{RedactedTags, SecretFinding, redact_tags};

mod fields;
mod history;
mod lock;
mod memory;
mod names;
mod trash;

pub(crate) use crate::disk::TEMP_SUFFIX;
pub(in crate::vault) use history::HISTORY_OWNER;

pub use crate::disk::atomic_write;

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
            return Err(Error::TagControlChar(t.clone()));
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

/// Refuses a rewrite that would change frontmatter keys it was not asked to change.
fn check_edits(name: &MemoryName, doc: &Document) -> crate::Result<()> {
    doc.verify_edits().map_err(|problem| Error::CannotRewrite { name: name.to_string(), problem })
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
