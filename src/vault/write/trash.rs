//! `.trash/`: listing, finding, restoring and emptying deleted memories.

use std::path::Path;

use jiff::Timestamp;
use serde_yaml_ng::Value;

use super::{TrashEntry, WriteOutcome, WriteStatus, exists_or};
use crate::error::Error;
use crate::model::time::parse_compact;
use crate::model::{Document, MemoryId, MemoryName};
use crate::vault::Vault;
use crate::vault::intent::After;

impl Vault {
    /// Everything in the trash, newest first.
    pub fn trash_list(&self) -> crate::Result<Vec<TrashEntry>> {
        let dir = self.trash_dir();
        if self.fs.stat(&dir)?.is_none() {
            return Ok(Vec::new());
        }
        // Every file under `.trash/`, through the confined file system (links are not followed).
        let mut files = Vec::new();
        let mut folders = vec![dir.clone()];
        while let Some(d) = folders.pop() {
            for e in self.fs.read_dir(&d)? {
                let path = d.join(&e.name);
                match e.kind {
                    crate::disk::Kind::Dir => folders.push(path),
                    crate::disk::Kind::File => files.push(path),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        for path in files {
            if path.extension().is_none_or(|x| x != "md") {
                continue;
            }
            let rel = path.strip_prefix(&dir).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            let entry = rel.strip_suffix(".md").unwrap_or(&rel).to_owned();
            let (name, stamp) = entry.rsplit_once('_').unwrap_or((&entry, ""));
            let stamp_main = stamp.split('-').next().unwrap_or(stamp);
            let deleted_at = parse_compact(stamp_main)
                .map(crate::model::time::format_timestamp)
                .unwrap_or_default();
            let raw = self.fs.read_to_string(&path).unwrap_or_default();
            let map = Document::parse(&raw).mapping().unwrap_or_default();
            let id = map.get("id").and_then(Value::as_str).map(str::to_owned);
            let size = self.fs.stat(&path).ok().flatten().map_or(0, |s| s.len);
            let seq: u64 = stamp.split_once('-').and_then(|(_, n)| n.parse().ok()).unwrap_or(0);
            out.push((
                seq,
                TrashEntry {
                    entry: entry.clone(),
                    name: name.to_owned(),
                    deleted_at,
                    id,
                    size,
                    path: path.clone(),
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
        if self.is_taken(&name) {
            return Err(Error::RestoreTaken(name.to_string()));
        }
        let target = self.write_target(&dest)?;
        self.all_or_nothing("untrash", || {
            self.note(&[(&entry.path, After::Removed), (&target, After::MovedFrom(&entry.path))])?;
            self.fs.move_no_clobber(&entry.path, &target).map_err(|e| exists_or(e, &name))
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

    pub(super) fn prune_empty_dirs_in(&self, file: &Path, stop: &Path) {
        let mut dir = file.parent();
        while let Some(d) = dir {
            if d == stop || !d.starts_with(stop) || self.fs.remove_dir(d).is_err() {
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
                self.fs.remove_file(&e.path)?;
                self.prune_empty_dirs_in(&e.path, &self.trash_dir());
                removed.push(e);
            }
        }
        Ok(removed)
    }
}
