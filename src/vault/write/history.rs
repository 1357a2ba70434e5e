//! `.history/<id>/`: the copy of the old bytes every overwrite keeps, and restoring a version.

use std::path::PathBuf;

use super::{HistoryEntry, WriteOutcome, WriteStatus};
use crate::error::Error;
use crate::model::time::{format_compact, parse_compact};
use crate::model::{MemoryId, MemoryName};
use crate::vault::intent::After;
use crate::vault::{Memory, Vault};

/// The file in `.history/<id>/` naming the memory whose versions the folder holds.
pub(in crate::vault) const HISTORY_OWNER: &str = ".owner";

impl Vault {
    pub(super) fn history_dir_of(&self, id: &MemoryId) -> PathBuf {
        self.history_dir().join(id.as_str())
    }

    /// Checks that `.history/<id>/` belongs to `m` and claims it: its `.owner` file names the
    /// memory whose versions it holds. When another memory with the same id (a copy of the
    /// file) owns it, the write is refused, so two memories never mix their histories. A
    /// history whose owner no longer exists (renamed outside memlane) is taken over.
    pub(super) fn claim_history(&self, m: &Memory) -> crate::Result<()> {
        let file = self.history_dir_of(&m.id).join(HISTORY_OWNER);
        let owner = self.fs.read_to_string(&file).ok();
        let owner = owner.as_deref().map(str::trim).unwrap_or_default();
        if owner == m.name.as_str() {
            return Ok(());
        }
        if let Ok(other) = MemoryName::parse(owner)
            && self.has_id(&other, &m.id)
        {
            return Err(self.duplicate_id(m, &other));
        }
        let text = format!("{}\n", m.name);
        self.note(&[(&file, After::Bytes(text.as_bytes()))])?;
        self.fs.write(&file, text.as_bytes())?;
        Ok(())
    }

    /// Copies a memory's current bytes into its history; returns the new version number.
    pub(super) fn record_history(&self, m: &Memory, action: &str) -> crate::Result<usize> {
        self.claim_history(m)?;
        let dir = self.history_dir_of(&m.id);
        // `<version>_<when>_<action>.md`: the zero-padded version number orders the files even
        // when the clock is pinned or two writes share a millisecond.
        let stamp = format_compact(self.clock.now());
        let mut version = self.history_files(&m.id)?.len() + 1;
        let mode = self
            .write_target(&m.path)
            .ok()
            .and_then(|t| self.fs.stat(&t).ok().flatten())
            .and_then(|s| s.mode);
        loop {
            let file = dir.join(format!("{version:06}_{stamp}_{action}.md"));
            self.note(&[(&file, After::Bytes(m.raw.as_bytes()))])?;
            match self.fs.create(&file, m.raw.as_bytes(), mode) {
                Ok(()) => return Ok(version),
                Err(e) if e.source.kind() == std::io::ErrorKind::AlreadyExists => version += 1,
                Err(e) => return Err(e.into()),
            }
        }
    }

    pub(super) fn history_files(&self, id: &MemoryId) -> crate::Result<Vec<PathBuf>> {
        let dir = self.history_dir_of(id);
        if self.fs.stat(&dir)?.is_none() {
            return Ok(Vec::new());
        }
        let mut files: Vec<PathBuf> = self
            .fs
            .read_dir(&dir)?
            .into_iter()
            .filter(|e| e.kind == crate::disk::Kind::File)
            .map(|e| dir.join(e.name))
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
                let size = self.fs.stat(&path).ok().flatten().map_or(0, |s| s.len);
                HistoryEntry { version: i + 1, replaced_at, action: action.to_owned(), size, path }
            })
            .collect())
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
        let bytes = self.fs.read(&v.path)?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let mut out = WriteOutcome::new(WriteStatus::Restored, &m.name, &m.id);
        if text == m.raw {
            out.status = WriteStatus::Unchanged;
            return Ok(out);
        }
        let target = self.write_target(&m.path)?;
        let recorded = self.all_or_nothing("restore", || {
            let recorded = self.record_history(m, "restore")?;
            self.note(&[(&target, After::Bytes(text.as_bytes()))])?;
            self.fs.write(&target, text.as_bytes())?;
            Ok(recorded)
        })?;
        out.history_version = Some(recorded);
        out.path = Some(m.path.clone());
        Ok(out)
    }
}
