//! `merge`: several memories into one, with links redirected and the sources kept in the trash.

use super::*;

/// What [`merge`] did. Every step is recorded: the sources are in the trash (or archived) with
/// their pre-merge versions in history, and each relinked memory's pre-merge version is its
/// `history_version`.
#[derive(Debug, Clone, Serialize)]
pub struct MergeOutcome {
    /// The merged memory (created).
    pub target: WriteOutcome,
    /// Its type: the most important of the sources' types.
    pub memory_type: String,
    /// Its tags: the union of the sources' tags.
    pub tags: Vec<String>,
    /// One outcome per source, in the order given: `deleted` (with its trash entry) or, with
    /// `archive`, `updated` (archived, with `superseded_by` set).
    pub sources: Vec<WriteOutcome>,
    /// The other memories whose links to a source now point to the target, one per memory, by
    /// name.
    pub relinked: Vec<WriteOutcome>,
}

/// Merges `sources` into a new memory `target`.
///
/// Refuses, changing nothing, when fewer than two sources are given, a source is listed twice,
/// a source no longer exists or changed on disk since it was read, `target` exists, or the
/// merged content is empty after redaction.
///
/// The target's frontmatter is generated: the union of the sources' tags (in order of first
/// appearance), the most important type (the highest configured `weight`; ties go to the first
/// source), `consolidated_from: [sources]`, `created_at` now, `pinned: true` when any source was
/// pinned, and the union of the sources' frontmatter `links` (minus links between the sources).
/// Its content is `content`, else each source's body under a `## <source name>` heading, in the
/// order given; links between the sources become links to the target; it is redacted like every
/// write.
///
/// Then each source is moved to the trash with `superseded_by: <target>` written first (so
/// heal-on-read finds the successor; the pre-merge version is in history) or, with `archive`,
/// set to `status: archived` and `superseded_by: <target>` (history kept). Last, every link in
/// another memory that pointed to a source is rewritten to the target
/// ([`Vault::rewrite_links`], with history).
///
/// All of it is one operation ([`Vault::all_or_nothing`]): if a step fails (a disk error) every
/// file is put back as it was, and a process killed midway is rolled back by the next command.
pub fn merge(
    vault: &Vault,
    sources: &[&Memory],
    target: &MemoryName,
    content: Option<&str>,
    archive: bool,
) -> crate::Result<MergeOutcome> {
    if sources.len() < 2 {
        return Err(Error::TooFewSources { given: sources.len(), target: target.to_string() });
    }
    let mut seen = HashSet::new();
    for m in sources {
        if !seen.insert(m.name.as_str()) {
            return Err(Error::ListedTwice(m.name.to_string()));
        }
    }
    for m in sources {
        check_current(vault, m, "merging")?;
    }
    let target_path = vault.path_of(target);
    if target_path.exists() || std::fs::symlink_metadata(&target_path).is_ok() {
        return Err(Error::Exists(target.to_string()));
    }

    let memory_type = most_important_type(vault, sources);
    let mut tags: Vec<String> = Vec::new();
    for m in sources {
        for t in &m.meta.tags {
            if !tags.contains(t) {
                tags.push(t.clone());
            }
        }
    }
    let names: Vec<String> = sources.iter().map(|m| m.name.to_string()).collect();
    let mut body = match content {
        Some(c) => c.to_owned(),
        None => joined_content(sources),
    };
    for m in sources {
        if let Some(b) = rewrite_memory_links(&body, m.name.as_str(), target.as_str()) {
            body = b;
        }
    }
    if sanitize(&body, vault.config.privacy.scrub_secrets).is_empty() {
        return Err(Error::EmptyAfterRedaction {
            what: format!("the merged content of `{target}`"),
        });
    }

    let mut fields: Vec<(&str, Value)> = vec![
        ("type", str_value(&memory_type)),
        ("tags", list_value(&tags)),
        ("consolidated_from", list_value(&names)),
    ];
    if sources.iter().any(|m| m.meta.pinned) {
        fields.push(("pinned", Value::Bool(true)));
    }
    let links = merged_links(sources, target, vault.config.privacy.scrub_secrets);
    if !links.is_empty() {
        fields.push(("links", Value::Sequence(links)));
    }
    // One all-or-nothing operation: an error or a kill at any step leaves the vault as before.
    vault.all_or_nothing("merge", || {
        merge_writes(vault, sources, target, &body, &fields, archive, memory_type, tags)
    })
}

#[allow(clippy::too_many_arguments)]
fn merge_writes(
    vault: &Vault,
    sources: &[&Memory],
    target: &MemoryName,
    body: &str,
    fields: &[(&str, Value)],
    archive: bool,
    memory_type: String,
    tags: Vec<String>,
) -> crate::Result<MergeOutcome> {
    let created = vault.create_with_frontmatter(target, body, fields)?;
    if created.status != WriteStatus::Created {
        return Err(Error::NotWritten {
            name: target.to_string(),
            reason: created.reason.as_deref().unwrap_or("skipped").to_owned(),
            piece: false,
        });
    }

    let mut source_outcomes = Vec::with_capacity(sources.len());
    for m in sources {
        let out = if archive {
            vault.archive(m, Some(target), "merge")?
        } else {
            vault.set_fields(m, &[("superseded_by", Some(str_value(target.as_str())))], "merge")?;
            vault.delete(m)?
        };
        source_outcomes.push(out);
    }

    let mut relinked: Vec<WriteOutcome> = Vec::new();
    for m in sources {
        for out in vault.rewrite_links(&m.name, target)? {
            // One entry per memory: the first rewrite holds the pre-merge version.
            if out.status == WriteStatus::Updated && !relinked.iter().any(|r| r.name == out.name) {
                relinked.push(out);
            }
        }
    }
    relinked.sort_by(|a, b| a.name.cmp(&b.name));

    Ok(MergeOutcome { target: created, memory_type, tags, sources: source_outcomes, relinked })
}

/// Refuses a memory that is gone or changed on disk since it was read (its bytes are about to be
/// copied, moved or replaced).
pub(super) fn check_current(vault: &Vault, m: &Memory, doing: &'static str) -> crate::Result<()> {
    match vault.read_memory(&m.name) {
        Ok(bytes) if bytes == m.raw.as_bytes() => Ok(()),
        Ok(_) => Err(Error::ChangedOnDisk { name: m.name.to_string(), doing }),
        Err(_) => Err(Error::NotFound { name: m.name.to_string(), suggestions: Vec::new() }),
    }
}

/// The type with the highest configured weight; ties go to the earliest source.
fn most_important_type(vault: &Vault, sources: &[&Memory]) -> String {
    let weight = |t: &str| vault.config.type_profile(t).map_or(f64::NEG_INFINITY, |p| p.weight);
    let mut best = &sources[0].memory_type;
    for m in &sources[1..] {
        if weight(&m.memory_type) > weight(best) {
            best = &m.memory_type;
        }
    }
    best.clone()
}

/// Each source's body under a `## <name>` heading, separated by blank lines.
fn joined_content(sources: &[&Memory]) -> String {
    let mut out = String::new();
    for m in sources {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str("## ");
        out.push_str(m.name.as_str());
        out.push_str("\n\n");
        out.push_str(m.content().trim_matches(['\n', '\r']));
    }
    out.push('\n');
    out
}

/// The bare memory name a frontmatter link item targets.
pub(super) fn link_item_target(item: &Value) -> Option<String> {
    let raw = match item {
        Value::String(s) => s.clone(),
        Value::Mapping(map) => match map.get("target").and_then(Value::as_str) {
            Some(t) => t.to_owned(),
            // The one-key form `{ depends_on: name }`.
            None if map.len() == 1 => map.values().next()?.as_str()?.to_owned(),
            None => return None,
        },
        _ => return None,
    };
    let raw = raw.trim();
    let bare = raw.strip_prefix("memory:").unwrap_or(raw);
    Some(bare.strip_suffix(".md").unwrap_or(bare).to_owned())
}

/// The union of the sources' frontmatter `links:` items, minus links to a source or the target.
///
/// Hand-written frontmatter is not redacted on disk, but the merged memory is memlane's own
/// write: an item whose target holds private text or a secret is dropped (a redacted target names
/// nothing), the other strings of an item (its `context`) are redacted, and an item that would
/// still hold something redaction removes is dropped too.
fn merged_links(sources: &[&Memory], target: &MemoryName, scrub: bool) -> Vec<Value> {
    let inside: HashSet<&str> =
        sources.iter().map(|m| m.name.as_str()).chain([target.as_str()]).collect();
    let mut out: Vec<Value> = Vec::new();
    for m in sources {
        let items = match m.doc.mapping().ok().and_then(|map| map.get("links").cloned()) {
            Some(Value::Sequence(items)) => items,
            Some(Value::Null) | None => Vec::new(),
            Some(other) => vec![other],
        };
        for item in items {
            let internal = link_item_target(&item).is_some_and(|t| inside.contains(t.as_str()));
            let Some(item) = redacted_link_item(item, scrub) else { continue };
            if !internal && !out.contains(&item) {
                out.push(item);
            }
        }
    }
    out
}

/// A frontmatter link item fit to copy into a memory memlane writes: `None` when its target holds
/// private text or a secret (or the item still does after its strings are redacted).
fn redacted_link_item(item: Value, scrub: bool) -> Option<Value> {
    let held = |s: &str| sanitize(s, scrub).had_private_content;
    if link_item_target(&item).is_some_and(|t| held(&t)) {
        return None;
    }
    let item = match item {
        Value::Mapping(map) => Value::Mapping(
            map.into_iter()
                .map(|(k, v)| match v {
                    Value::String(s) => (k, Value::String(sanitize(&s, scrub).text)),
                    other => (k, other),
                })
                .collect(),
        ),
        other => other,
    };
    let shown = serde_yaml_ng::to_string(&item).ok()?;
    (!held(&shown)).then_some(item)
}
