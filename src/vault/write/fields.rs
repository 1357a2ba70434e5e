//! Frontmatter edits: links written by hand or by an agent, pinning, archiving and other fields.

use serde_yaml_ng::Value;

use super::{WriteOutcome, WriteStatus};
use crate::model::frontmatter::{str_value, ts_value};
use crate::model::{Document, MemoryName};
use crate::privacy::RedactedTags;
use crate::vault::{Memory, Vault};

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
        self.successor_in(&entry)
    }

    /// [`successor_of`](Self::successor_of) for many missing memories, listing the trash once
    /// (one lookup each instead of one trash listing each).
    pub fn successors_of<'a>(
        &self,
        missing: impl IntoIterator<Item = &'a str>,
    ) -> std::collections::BTreeMap<String, Option<String>> {
        let entries = self.trash_list().unwrap_or_default();
        // The first entry of each key wins, as in `trash_find`.
        let mut by_entry = std::collections::HashMap::new();
        let mut by_name = std::collections::HashMap::new();
        let mut by_id = std::collections::HashMap::new();
        for e in &entries {
            by_entry.entry(e.entry.as_str()).or_insert(e);
            by_name.entry(e.name.as_str()).or_insert(e);
            if let Some(id) = &e.id {
                by_id.entry(id.as_str()).or_insert(e);
            }
        }
        missing
            .into_iter()
            .map(|wanted| {
                let bare = wanted.strip_prefix("memory:").unwrap_or(wanted);
                let bare = bare.strip_suffix(".md").unwrap_or(bare);
                let entry =
                    by_entry.get(bare).or_else(|| by_name.get(bare)).or_else(|| by_id.get(wanted));
                (wanted.to_owned(), entry.and_then(|e| self.successor_in(e)))
            })
            .collect()
    }

    fn successor_in(&self, entry: &super::TrashEntry) -> Option<String> {
        let raw = self.fs.read_to_string(&entry.path).ok()?;
        let map = Document::parse(&raw).mapping().ok()?;
        let s = map.get("superseded_by")?.as_str()?;
        let s = s.strip_prefix("memory:").unwrap_or(s);
        let name = MemoryName::parse(s).ok()?;
        self.is_memory_file(&name).then(|| name.to_string())
    }

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

    // Writes for consolidation (merge, split, expiry): a memory whose frontmatter the caller
    // generates, and frontmatter-only changes (archive, `superseded_by`) with history.
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

pub(super) fn frontmatter_link_items(m: &Memory) -> Vec<Value> {
    match m.doc.mapping().ok().and_then(|map| map.get("links").cloned()) {
        Some(Value::Sequence(items)) => items,
        Some(Value::Null) | None => Vec::new(),
        Some(other) => vec![other],
    }
}

pub(super) fn link_item_matches(item: &Value, target: &str, edge_type: Option<&str>) -> bool {
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
