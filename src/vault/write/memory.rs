//! Creating, updating, appending to, deleting and renaming a memory.

use std::path::Path;

use serde_yaml_ng::Value;

use super::{
    AddRequest, UpdateRequest, WriteOutcome, WriteStatus, check_edits, exists_or, merge_findings,
    normalize_tags, skipped,
};
use crate::error::{Error, IoResultExt, PathError};
use crate::failpoint;
use crate::model::frontmatter::{STATUSES, list_value, read_tags, str_value, ts_value};
use crate::model::time::format_compact;
use crate::model::{Document, MemoryId, MemoryName, Meta};
use crate::privacy::{RedactedTags, SecretFinding, redact_tags, sanitize};
use crate::vault::intent::After;
use crate::vault::{Memory, Vault};

impl Vault {
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
    pub(super) fn create_file(
        &self,
        name: &MemoryName,
        content: &str,
        tags: &RedactedTags,
        frontmatter: impl FnOnce(&mut Document, &MemoryId, jiff::Timestamp),
    ) -> crate::Result<WriteOutcome> {
        self.check_new_name(name, None)?;
        let path = self.path_of(name);
        // A path through a link is not taken here: `write_target` says where it leads.
        if self.fs.stat(&path).ok().flatten().is_some() {
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
        self.note(&[(&target, After::Bytes(text.as_bytes()))])?;
        self.fs.create(&target, text.as_bytes(), None).map_err(|e| exists_or(e, name))?;
        out.path = Some(path);
        Ok(out)
    }

    /// Strict check of a file memlane is about to write: it must read back without warnings.
    pub(super) fn check_written(&self, name: &MemoryName, text: &str) -> crate::Result<Meta> {
        let doc = Document::parse(text);
        let map = doc
            .mapping()
            .map_err(|problem| Error::Frontmatter { what: name.to_string(), problem })?;
        let (meta, warnings) = Meta::from_mapping(&map);
        if let Some(w) = warnings.first() {
            return Err(Error::WouldNotReadBack { name: name.to_string(), problem: w.to_string() });
        }
        if map.get("status").and_then(Value::as_str).is_some_and(|st| !STATUSES.contains(&st)) {
            return Err(Error::UnknownStatus { name: Some(name.to_string()) });
        }
        // A type from the file is not quoted (a value of a memory never is); the message says
        // which types are allowed.
        if let Some(t) = &meta.memory_type
            && self.config.type_profile(t).is_none()
        {
            return Err(Error::WouldNotReadBack {
                name: name.to_string(),
                problem: format!(
                    "its `type` is not a configured type (known types: {})",
                    self.config.type_names().join(", ")
                ),
            });
        }
        Ok(meta)
    }

    /// Writes `doc` over memory `m` (history first), unless nothing changed.
    pub(super) fn rewrite(
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
            let current = self.fs.read(&target)?;
            if current != m.raw.as_bytes() {
                return Err(Error::ChangedOnDisk { name: m.name.to_string(), doing: "updating" });
            }
            let version = self.record_history(m, action)?;
            self.note(&[(&target, After::Bytes(text.as_bytes()))])?;
            self.fs.write(&target, text.as_bytes())?;
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
                    return Err(Error::IdChanged {
                        name: m.name.to_string(),
                        from: m.id.to_string(),
                        to: id.to_owned(),
                    });
                }
                // The type given in this call (a type from a file is checked without quoting it).
                if let Some(t) = map.get("type").and_then(Value::as_str) {
                    self.check_type(t)?;
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
                let mut yaml_clean = sanitize(&new_doc.yaml(), scrub);
                if yaml_clean.had_private_content {
                    let map: serde_yaml_ng::Mapping = serde_yaml_ng::from_str(&yaml_clean.text)
                        .map_err(|e| Error::RedactedYaml { problem: e.to_string() })?;
                    new_doc.replace_mapping(&map);
                }
                // A key that names a credential (`auth: …`, `credentials: { … }`) keeps no value,
                // whatever its shape: what `show --json` would hide is not written either.
                if scrub && let Ok(map) = new_doc.mapping() {
                    let mut value = Value::Mapping(map);
                    let keyed = crate::privacy::redact_secret_keys_yaml(&mut value);
                    if keyed > 0
                        && let Value::Mapping(map) = value
                    {
                        new_doc.replace_mapping(&map);
                        yaml_clean.had_private_content = true;
                        yaml_clean.secrets = merge_findings(
                            yaml_clean.secrets,
                            vec![SecretFinding { kind: "password-assignment", count: keyed }],
                        );
                    }
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
                return Err(Error::UnknownStatus { name: None });
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

    pub(super) fn finish_rewrite(
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
    /// processes appending to one memory at once both land.
    pub fn append(&self, m: &Memory, text: &str) -> crate::Result<WriteOutcome> {
        let _lock = self.write_lock()?;
        let current;
        let m = match self.write_target(&m.path).and_then(|t| Ok(self.fs.read(&t)?)) {
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
            if self.fs.stat(&dest)?.is_some() {
                n += 1;
                continue;
            }
            if let Some(dir) = dest.parent() {
                self.fs.create_dir_all(dir)?;
            }
            self.note(&[(&source, After::Removed), (&dest, After::MovedFrom(&source))])?;
            failpoint::step("delete.rename").at("delete", &source)?;
            self.fs.rename(&source, &dest).map_err(|e| PathError { action: "delete", ..e })?;
            break entry;
        };
        self.prune_empty_dirs(&m.path);
        let mut out = WriteOutcome::new(WriteStatus::Deleted, &m.name, &m.id);
        out.path = Some(self.trash_dir().join(format!("{entry}.md")));
        out.trash_entry = Some(entry);
        Ok(out)
    }

    /// Removes now-empty folders above a memory file that left (never the vault root).
    pub(super) fn prune_empty_dirs(&self, file: &Path) {
        let mut dir = file.parent();
        while let Some(d) = dir {
            if d == self.root() || !d.starts_with(self.root()) {
                break;
            }
            if self.fs.remove_dir(d).is_err() {
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
        if self.fs.stat(&dest).ok().flatten().is_some() {
            return Err(Error::Exists(to.to_string()));
        }
        let dest_target = self.write_target(&dest)?;
        let source = self.write_target(&m.path)?;
        self.all_or_nothing("mv", || {
            if m.id_persisted {
                self.note(&[(&source, After::Removed), (&dest_target, After::MovedFrom(&source))])?;
                self.fs.move_no_clobber(&source, &dest_target).map_err(|e| exists_or(e, to))?;
            } else {
                let mut doc = m.doc.clone();
                doc.set("id", &str_value(m.id.as_str()));
                check_edits(&m.name, &doc)?;
                let text = doc.render();
                self.note(&[
                    (&source, After::Removed),
                    (&dest_target, After::RenamedFrom(&source, text.as_bytes())),
                ])?;
                self.record_history(m, "mv")?;
                let mode = self.fs.stat(&source)?.and_then(|s| s.mode);
                self.fs
                    .create(&dest_target, text.as_bytes(), mode)
                    .map_err(|e| exists_or(e, to))?;
                failpoint::step("mv.remove").at("remove", &source)?;
                self.fs.remove_file(&source)?;
            }
            Ok(())
        })?;
        self.prune_empty_dirs(&m.path);
        let mut out = WriteOutcome::new(WriteStatus::Moved, to, &m.id);
        out.path = Some(dest);
        out.from = Some(m.name.to_string());
        Ok(out)
    }
}
