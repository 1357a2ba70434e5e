//! Consolidation (SPEC §7.7, §7.8): merge, merge suggestions, split, dedup on write, maintain.
//!
//! This module owns the decisions of consolidation: which memories are near-duplicates, what a
//! merged or split memory looks like, and what `maintain` finds and changes. Every change goes
//! through the [`Vault`] writers, so it is atomic, redacted (SPEC §4) and reversible: a merged or
//! split-away memory goes to `.trash/` (or is archived), every rewritten memory first has its old
//! version stored in `.history/`, and nothing is ever deleted. It never writes the derived
//! indices: it reads them ([`Indexes`]) and the caller reconciles after a change.
//!
//! # Memory-level vectors
//!
//! Near-duplicate detection compares whole memories, not chunks. A memory's vector is the mean of
//! its chunk vectors as stored in the vector index (keys from [`chunk_key`]), re-normalised to
//! unit length. Reading the stored vectors keeps [`suggest_merges`] cheap with any embedder
//! (re-embedding 10k memories with a sentence-transformer would take minutes); a memory whose
//! vectors are missing from the index is re-embedded the way the indexer does it. The mean
//! weights every chunk equally.
//!
//! Stored chunk vectors embed the memory's title in front of each chunk, and a memory without a
//! heading takes its title from its *name*, so two identical bodies under different names are
//! not quite identical vectors. Hence [`find_duplicate`] re-scores its best candidates by
//! re-embedding both texts the same way (title = first heading, never the name), and
//! [`suggest_merges`] scores a pair with identical (redacted) bodies exactly 1.
//!
//! # Clusters without chaining
//!
//! [`suggest_merges`] finds candidate pairs (cosine ≥ threshold) by a blocked, multi-threaded
//! brute force over the unit vectors (exact and deterministic; each memory keeps at most
//! [`MAX_NEIGHBOURS`] partners), then clusters them with complete linkage: pairs are taken from
//! the most similar down, and two clusters join only when *every* cross pair is at or above the
//! threshold. A chain A~B~C with A≁C therefore never becomes one cluster. A cluster's score is
//! the mean pairwise cosine.
//!
//! # Use
//!
//! ```no_run
//! # fn demo(vault: &memlane::vault::Vault, idx: &mut memlane::index::store::Indexes) -> memlane::Result<()> {
//! use memlane::lifecycle::consolidate::{maintain, suggest_merges};
//!
//! idx.reconcile(vault)?; // consolidation reads the index's view of the vault
//! let threshold = vault.config.lifecycle.merge_threshold;
//! let clusters = suggest_merges(vault, idx, threshold, None, 5);
//! let report = maintain(vault, idx, vault.clock.now())?;
//! if report.changed() {
//!     idx.reconcile(vault)?; // and never writes it
//! }
//! # let _ = clusters;
//! # Ok(())
//! # }
//! ```

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

use jiff::Timestamp;
use serde::Serialize;
use serde_yaml_ng::Value;

use crate::error::Error;
use crate::index::chunk::{ChunkOptions, chunk_markdown, estimate_tokens, markdown_title};
use crate::index::chunk::{Heading, scan_headings as headings};
use crate::index::graph::GraphStats;
use crate::index::manifest::{Entry, chunk_key};
use crate::index::math::{cosine, dot};
use crate::index::store::{Indexes, embed_text};
use crate::lifecycle::{ImportanceSource, UsageState, UsageStore, age_days};
use crate::model::MemoryName;
use crate::model::frontmatter::{list_value, str_value};
use crate::model::links::rewrite_memory_links;
use crate::privacy::sanitize;
use crate::vault::{Memory, Vault, WriteOutcome, WriteStatus};

/// Length of a member preview in [`suggest_merges`], in chars.
pub const PREVIEW_CHARS: usize = 120;

/// At most this many partners per memory when collecting candidate pairs (bounds the work on a
/// vault of templated, all-alike memories; ordinary vaults never reach it).
pub const MAX_NEIGHBOURS: usize = 16;

/// `maintain` lists a memory as a split candidate when it is longer than this many estimated
/// tokens ([`estimate_tokens`]) …
pub const SPLIT_MIN_TOKENS: usize = 2_000;

/// … at least this many days old on the configured clock …
pub const SPLIT_MIN_AGE_DAYS: f64 = 7.0;

/// … and was read or returned by search at least this many times (MIRA: a long memory that is
/// actually used is worth splitting; one nobody reads is not).
pub const SPLIT_MIN_ACCESSES: u64 = 5;

/// [`find_duplicate`] re-scores the candidates whose index similarity is within this margin below
/// the threshold (the name-derived title can pull a short memory's stored vector down) …
const DEDUP_MARGIN: f64 = 0.25;

/// … at most this many of them, best first.
const DEDUP_RESCORE: usize = 5;

/// Neighbours fetched per query vector by [`find_duplicate`].
const DEDUP_NEIGHBOURS: usize = 10;

/// Chunks embedded per embedder call (as the indexer does).
const EMBED_BATCH: usize = 32;

const SECONDS_PER_DAY: f64 = 86_400.0;

// ---------------------------------------------------------------------------------------------
// merge

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

/// Merges `sources` into a new memory `target` (SPEC §7.7).
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
        return Err(Error::Invalid(format!(
            "a merge needs at least two sources ({} given); nothing was changed\n  hint: name two or more memories to merge into `{target}`",
            sources.len()
        )));
    }
    let mut seen = HashSet::new();
    for m in sources {
        if !seen.insert(m.name.as_str()) {
            return Err(Error::Invalid(format!(
                "`{}` is listed twice among the sources; nothing was changed\n  hint: name each memory once",
                m.name
            )));
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
        return Err(Error::Invalid(format!(
            "the merged content of `{target}` is empty after redaction; nothing was changed\n  hint: give the merged text with `--content`"
        )));
    }

    let mut fields: Vec<(&str, Value)> = vec![
        ("type", str_value(&memory_type)),
        ("tags", list_value(&tags)),
        ("consolidated_from", list_value(&names)),
    ];
    if sources.iter().any(|m| m.meta.pinned) {
        fields.push(("pinned", Value::Bool(true)));
    }
    let links = merged_links(sources, target);
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
        return Err(Error::Invalid(format!(
            "`{target}` was not written ({}); nothing else was changed",
            created.reason.as_deref().unwrap_or("skipped")
        )));
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
fn check_current(vault: &Vault, m: &Memory, doing: &str) -> crate::Result<()> {
    match std::fs::read(vault.path_of(&m.name)) {
        Ok(bytes) if bytes == m.raw.as_bytes() => Ok(()),
        Ok(_) => Err(Error::Invalid(format!(
            "{} changed on disk while memlane was {doing} it; nothing was changed\n  hint: run the command again",
            m.name
        ))),
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
fn link_item_target(item: &Value) -> Option<String> {
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
fn merged_links(sources: &[&Memory], target: &MemoryName) -> Vec<Value> {
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
            if !internal && !out.contains(&item) {
                out.push(item);
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// split

/// A body cut at its top-level headings.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Sections<'a> {
    /// Text before the first section when it holds more than headings.
    intro: Option<&'a str>,
    /// `(heading text, section text including its heading line)`.
    sections: Vec<(String, &'a str)>,
}

/// Cuts `body` at the first heading level that occurs more than once (a lone `# Title` above
/// `##` sections is not the split level). A section runs to the next heading of that level.
fn sections_of(body: &str) -> Sections<'_> {
    let hs = headings(body);
    let Some(level) = (1..=6).find(|l| hs.iter().filter(|h| h.level == *l).count() > 1) else {
        return Sections { intro: None, sections: Vec::new() };
    };
    let tops: Vec<&Heading> = hs.iter().filter(|h| h.level == level).collect();
    let pre = &body[..tops[0].start];
    let pre_has_text = pre.lines().any(|l| {
        let t = l.trim();
        !t.is_empty() && !headings(l).iter().any(|h| h.start == 0)
    });
    let intro = pre_has_text.then(|| pre.trim());
    let sections = tops
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let end = tops.get(i + 1).map_or(body.len(), |n| n.start);
            (h.text.clone(), body[h.start..end].trim())
        })
        .collect();
    Sections { intro, sections }
}

/// A name-safe slug: lowercase letters and digits, other runs become one `-` (at most 60 chars).
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        if out.chars().count() >= 60 {
            break;
        }
    }
    out.trim_end_matches('-').to_owned()
}

/// Splits memory `m` into one new memory per top-level section (SPEC §7.7 `split`).
///
/// The sections are cut at the first heading level that occurs more than once (usually `##`);
/// headings inside code fences do not count. Each section (heading line included, byte for
/// byte) becomes `<name>/<slug of its heading>`, or `<name>-<n>` (n = the piece's 1-based
/// position) when the slug is empty or that name is taken; text before the first section that
/// is more than headings (an introduction) becomes a first piece `<name>/intro`.
///
/// Each piece copies the original's type and tags and records `split_from: <name>` (a plain
/// provenance key, like `consolidated_from`). While the original stays (MIRA's default), each
/// piece also links to it with `links: [{ type: extends, target: memory:<name> }]`, so the graph
/// connects them.
///
/// With `replace`, the original then goes to the trash with `superseded_by: <first piece>`
/// written first (history kept), and every link to it is redirected to the first piece
/// (simple and predictable; the pieces carry no link to the trashed original).
///
/// Refuses with a clear error, writing nothing, when there are fewer than two sections, a
/// piece's name is taken or invalid, or a piece is empty after redaction. If a write fails
/// midway, the pieces already written are removed again.
///
/// Returns the created pieces in order, then (with `replace`) the original's trash outcome and
/// the relinked memories.
pub fn split(vault: &Vault, m: &Memory, replace: bool) -> crate::Result<Vec<WriteOutcome>> {
    check_current(vault, m, "splitting")?;
    let body = m.content();
    let parts = sections_of(body);
    if parts.sections.len() < 2 {
        return Err(Error::Invalid(format!(
            "`{}` has {} top-level section{}; a split needs at least two; nothing was written\n  hint: mark the pieces with headings of one level (`## …`), or give the pieces yourself (MCP)",
            m.name,
            parts.sections.len(),
            if parts.sections.len() == 1 { "" } else { "s" }
        )));
    }
    let mut pieces: Vec<(String, &str)> = Vec::new();
    if let Some(intro) = parts.intro {
        pieces.push(("intro".to_owned(), intro));
    }
    for (heading, text) in &parts.sections {
        pieces.push((slug(heading), text));
    }

    // Plan every name before writing anything.
    let taken = |n: &MemoryName| {
        let p = vault.path_of(n);
        p.exists() || std::fs::symlink_metadata(&p).is_ok()
    };
    let mut planned: Vec<(MemoryName, &str)> = Vec::with_capacity(pieces.len());
    for (i, (piece_slug, text)) in pieces.iter().enumerate() {
        let preferred = (!piece_slug.is_empty())
            .then(|| MemoryName::parse(&format!("{}/{piece_slug}", m.name)).ok())
            .flatten()
            .filter(|n| !taken(n) && !planned.iter().any(|(p, _)| p == n));
        let name = match preferred {
            Some(n) => n,
            None => {
                let n = MemoryName::parse(&format!("{}-{}", m.name, i + 1))?;
                if taken(&n) || planned.iter().any(|(p, _)| *p == n) {
                    return Err(Error::Exists(n.to_string()));
                }
                n
            }
        };
        planned.push((name, text));
    }
    write_split(vault, m, &planned, replace)
}

/// One piece of [`split_into`]: the text, and the name it should get (generated when `None`).
#[derive(Debug, Clone)]
pub struct SplitPiece {
    /// The piece's name; `<original>-<n>` when `None`.
    pub name: Option<MemoryName>,
    /// The piece's Markdown body.
    pub content: String,
}

/// Splits memory `m` into the pieces an agent supplies (MCP `split_memory` with `pieces`), with
/// the same provenance, links, `replace` and all-or-nothing rules as [`split`]. A piece without a
/// name becomes `<name>-<n>` (its 1-based position). Refuses with fewer than two pieces or a
/// taken, duplicate or invalid name.
pub fn split_into(
    vault: &Vault,
    m: &Memory,
    pieces: &[SplitPiece],
    replace: bool,
) -> crate::Result<Vec<WriteOutcome>> {
    check_current(vault, m, "splitting")?;
    if pieces.len() < 2 {
        return Err(Error::Invalid(format!(
            "a split of `{}` needs at least two pieces, got {}; nothing was written",
            m.name,
            pieces.len()
        )));
    }
    let mut planned: Vec<(MemoryName, &str)> = Vec::with_capacity(pieces.len());
    for (i, p) in pieces.iter().enumerate() {
        let name = match &p.name {
            Some(n) => n.clone(),
            None => MemoryName::parse(&format!("{}-{}", m.name, i + 1))?,
        };
        let p_path = vault.path_of(&name);
        if name == m.name
            || p_path.exists()
            || std::fs::symlink_metadata(&p_path).is_ok()
            || planned.iter().any(|(q, _)| *q == name)
        {
            return Err(Error::Exists(name.to_string()));
        }
        planned.push((name, p.content.as_str()));
    }
    write_split(vault, m, &planned, replace)
}

/// Writes planned split pieces (all or nothing), then retires the original with `replace`.
fn write_split(
    vault: &Vault,
    m: &Memory,
    planned: &[(MemoryName, &str)],
    replace: bool,
) -> crate::Result<Vec<WriteOutcome>> {
    for (name, text) in planned {
        if sanitize(text, vault.config.privacy.scrub_secrets).is_empty() {
            return Err(Error::Invalid(format!(
                "the piece `{name}` of `{}` is empty after redaction; nothing was written",
                m.name
            )));
        }
    }
    vault.check_type(&m.memory_type)?;

    let mut fields: Vec<(&str, Value)> = vec![
        ("type", str_value(&m.memory_type)),
        ("tags", list_value(&m.meta.tags)),
        ("split_from", str_value(m.name.as_str())),
    ];
    if !replace {
        let mut link = serde_yaml_ng::Mapping::new();
        link.insert(str_value("type"), str_value("extends"));
        link.insert(str_value("target"), str_value(&format!("memory:{}", m.name)));
        fields.push(("links", Value::Sequence(vec![Value::Mapping(link)])));
    }
    vault.all_or_nothing("split", || split_writes(vault, m, planned, replace, &fields))
}

fn split_writes(
    vault: &Vault,
    m: &Memory,
    planned: &[(MemoryName, &str)],
    replace: bool,
    fields: &[(&str, Value)],
) -> crate::Result<Vec<WriteOutcome>> {
    let mut outcomes: Vec<WriteOutcome> = Vec::with_capacity(planned.len() + 1);
    for (name, text) in planned {
        let written = vault.create_with_frontmatter(name, text, fields).and_then(|out| {
            if out.status == WriteStatus::Created {
                Ok(out)
            } else {
                Err(Error::Invalid(format!(
                    "the piece `{name}` was not written ({}); nothing was written",
                    out.reason.as_deref().unwrap_or("skipped")
                )))
            }
        });
        match written {
            Ok(out) => outcomes.push(out),
            Err(e) => {
                remove_created(vault, &outcomes);
                return Err(e);
            }
        }
    }

    if replace {
        let first = &planned[0].0;
        vault.set_fields(m, &[("superseded_by", Some(str_value(first.as_str())))], "split")?;
        outcomes.push(vault.delete(m)?);
        outcomes.extend(
            vault
                .rewrite_links(&m.name, first)?
                .into_iter()
                .filter(|o| o.status == WriteStatus::Updated),
        );
    }
    Ok(outcomes)
}

/// Removes files this module just created (rollback of a failed split), and the folders that
/// only they filled.
fn remove_created(vault: &Vault, created: &[WriteOutcome]) {
    for out in created {
        let Some(path) = &out.path else { continue };
        let _ = std::fs::remove_file(path);
        let mut dir = path.parent();
        while let Some(d) = dir {
            if d == vault.root() || !d.starts_with(vault.root()) || std::fs::remove_dir(d).is_err()
            {
                break;
            }
            dir = d.parent();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// memory-level vectors

/// Row-major unit vectors, one row per memory.
struct Matrix {
    dim: usize,
    data: Vec<f32>,
}

impl Matrix {
    fn len(&self) -> usize {
        self.data.len().checked_div(self.dim).unwrap_or(0)
    }

    fn row(&self, i: usize) -> &[f32] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }

    fn sim(&self, i: usize, j: usize) -> f32 {
        dot(self.row(i), self.row(j)).clamp(-1.0, 1.0)
    }
}

/// Scales `v` to unit length; `None` for a zero (or non-finite) vector.
fn normalized(mut v: Vec<f32>) -> Option<Vec<f32>> {
    crate::index::math::normalise(&mut v).then_some(v)
}

/// The mean of `vectors` (each of length `dim`), normalised.
fn mean_vector(vectors: &[Vec<f32>], dim: usize) -> Option<Vec<f32>> {
    let mut sum = vec![0.0f32; dim];
    for v in vectors.iter().filter(|v| v.len() == dim) {
        sum.iter_mut().zip(v).for_each(|(s, x)| *s += x);
    }
    normalized(sum)
}

/// Embeds `content` the way the indexer does (each chunk with `title` in front): the chunk
/// vectors, in order. Empty when the embedder returned something malformed.
fn embed_chunks(idx: &Indexes, title: &str, content: &str) -> Vec<Vec<f32>> {
    let texts: Vec<String> = chunk_markdown(content, &ChunkOptions::default())
        .iter()
        .map(|c| embed_text(title, &c.header_path, &c.text))
        .collect();
    let mut out = Vec::with_capacity(texts.len());
    for part in texts.chunks(EMBED_BATCH) {
        let refs: Vec<&str> = part.iter().map(String::as_str).collect();
        // Through the vault's embedding cache: the index update after a write reuses these.
        let vectors = idx.embed_documents(&refs);
        let embedder = idx.embedder();
        if vectors.len() != refs.len() || vectors.iter().any(|v| v.len() != embedder.dim()) {
            tracing::warn!(embedder = embedder.id(), "the embedder returned malformed vectors");
            return Vec::new();
        }
        out.extend(vectors);
    }
    out
}

/// The vector of a text on its own: chunks embedded with the text's first heading as title
/// (never a name), averaged. Two identical texts get identical vectors.
fn content_vector(idx: &Indexes, text: &str) -> (Vec<Vec<f32>>, Option<Vec<f32>>) {
    let title = markdown_title(text).unwrap_or_default();
    let chunks = embed_chunks(idx, &title, text);
    let mean = mean_vector(&chunks, idx.embedder().dim());
    (chunks, mean)
}

/// A memory's vector from the index: the mean of its stored chunk vectors, normalised. When
/// none is stored (a stale index), the memory is re-embedded as the indexer would.
fn memory_vector(vault: &Vault, idx: &Indexes, name: &str, entry: &Entry) -> Option<Vec<f32>> {
    let vi = idx.vector();
    let dim = vi.dim();
    let mut sum = vec![0.0f32; dim];
    let mut found = 0;
    for ord in 0..entry.chunks {
        if let Ok(Some(v)) = vi.vector(chunk_key(name, ord)) {
            sum.iter_mut().zip(&v).for_each(|(s, x)| *s += x);
            found += 1;
        }
    }
    if found > 0 {
        return normalized(sum);
    }
    let memory = vault.load(&MemoryName::parse(name).ok()?).ok()?;
    let content = memory.redacted_content(vault.config.privacy.scrub_secrets);
    let chunks = embed_chunks(idx, &entry.title, &content);
    mean_vector(&chunks, dim)
}

/// Whether an indexed memory takes part in dedup and merge suggestions at `now`: active, not
/// superseded, not faded out past `expires_at`.
fn is_live(entry: &Entry, now: Timestamp, fade_days: f64) -> bool {
    entry.status == "active"
        && entry.superseded_by.is_none()
        && !entry.expires_at.is_some_and(|e| is_expired(e, now, fade_days))
}

/// Past `expires_at` and its fade (SPEC §7.6): excluded from search, archived by `maintain`.
fn is_expired(expires_at: i64, now: Timestamp, fade_days: f64) -> bool {
    let past = (now.as_second() - expires_at) as f64 / SECONDS_PER_DAY;
    past > 0.0 && past >= fade_days
}

// ---------------------------------------------------------------------------------------------
// dedup on write

/// The existing memory most similar to `content`, when its similarity is at least `threshold`
/// (SPEC §7.7 dedup on write): `(name, similarity)`.
///
/// `content` is redacted first (SPEC §4: nothing is deduplicated unredacted). Candidates are the
/// owners of the nearest stored chunks to the new text's vector and to each of its chunk vectors
/// (the index's vector search), ranked by memory-level similarity; the best few within a margin
/// below `threshold` are re-scored by embedding both bodies the same way (see the module docs),
/// so an identical copy scores 1 whatever the names. Archived, superseded and expired memories
/// are not candidates.
///
/// Dedup must never block a write: an index that cannot be searched (logged as a warning) means
/// no duplicate is reported. Reconcile the index first so recent memories count.
pub fn find_duplicate(
    vault: &Vault,
    idx: &Indexes,
    content: &str,
    threshold: f64,
) -> Option<(String, f32)> {
    let scrub = vault.config.privacy.scrub_secrets;
    let clean = sanitize(content, scrub);
    if clean.is_empty() {
        return None;
    }
    let (chunks, query) = content_vector(idx, &clean.text);
    let query = query?;
    let now = vault.clock.now();
    let fade = vault.config.search.expiry_fade_days;
    let mut candidates: Vec<&str> = Vec::new();
    for v in std::iter::once(&query).chain(chunks.iter().take(8)) {
        let hits = match idx.vector().search(v, DEDUP_NEIGHBOURS, None) {
            Ok(h) => h,
            Err(e) => {
                tracing::warn!(error = %e, "cannot search the vector index for duplicates");
                return None;
            }
        };
        for (key, _) in hits {
            if let Some((name, _)) = idx.key_owner(key)
                && !candidates.contains(&name.as_str())
            {
                candidates.push(name);
            }
        }
    }
    let mut ranked: Vec<(&str, f32)> = candidates
        .into_iter()
        .filter_map(|name| {
            let entry = idx.manifest().entries.get(name)?;
            if !is_live(entry, now, fade) {
                return None;
            }
            let v = memory_vector(vault, idx, name, entry)?;
            Some((name, cosine(&query, &v)))
        })
        .filter(|(_, s)| f64::from(*s) >= threshold - DEDUP_MARGIN)
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    ranked.truncate(DEDUP_RESCORE);
    let new_text = clean.text.trim();
    let mut best: Option<(String, f32)> = None;
    for (name, _) in ranked {
        let Ok(mname) = MemoryName::parse(name) else { continue };
        let Ok(memory) = vault.load(&mname) else { continue };
        let body = memory.redacted_content(scrub);
        let sim = if body.trim() == new_text {
            1.0
        } else {
            match content_vector(idx, &body).1 {
                Some(v) => cosine(&query, &v),
                None => continue,
            }
        };
        if best.as_ref().is_none_or(|(bn, bs)| sim > *bs || (sim == *bs && name < bn.as_str())) {
            best = Some((name.to_owned(), sim));
        }
    }
    best.filter(|(_, s)| f64::from(*s) >= threshold)
}

// ---------------------------------------------------------------------------------------------
// suggest merges

/// One member of a [`MergeCluster`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemberPreview {
    /// The memory's name.
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub memory_type: String,
    /// The start of its (redacted) body, whitespace collapsed, at most [`PREVIEW_CHARS`] chars.
    pub preview: String,
}

/// A group of near-duplicate memories that could be merged.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MergeCluster {
    /// The members, by name.
    pub members: Vec<MemberPreview>,
    /// The mean pairwise cosine similarity of the members' vectors (identical bodies count 1).
    pub score: f32,
    /// Why they were grouped, for people: size, similarity, shared tags, types.
    pub reason: String,
}

/// Clusters of near-duplicate memories, most similar first (SPEC §7.7 `suggest-merges`).
///
/// Uses memory-level vectors and complete linkage (see the module docs): every pair in a cluster
/// has cosine ≥ `threshold`. Only active, non-superseded, non-expired memories take part; with
/// `type_filter`, only memories of that type. Clusters are ordered by score, then size, then
/// the first member's name; at most `limit` are returned. Works from the index's view of the
/// vault (reconcile first); members deleted since are dropped.
pub fn suggest_merges(
    vault: &Vault,
    idx: &Indexes,
    threshold: f64,
    type_filter: Option<&str>,
    limit: usize,
) -> Vec<MergeCluster> {
    if limit == 0 {
        return Vec::new();
    }
    let started = std::time::Instant::now();
    let now = vault.clock.now();
    let fade = vault.config.search.expiry_fade_days;
    let dim = idx.vector().dim();
    let mut names: Vec<&str> = Vec::new();
    let mut data: Vec<f32> = Vec::new();
    for (name, entry) in &idx.manifest().entries {
        if !is_live(entry, now, fade) || type_filter.is_some_and(|t| t != entry.memory_type) {
            continue;
        }
        if let Some(v) = memory_vector(vault, idx, name, entry).filter(|v| v.len() == dim) {
            names.push(name);
            data.extend(v);
        }
    }
    let matrix = Matrix { dim, data };
    let threshold = threshold as f32;
    let t_vectors = started.elapsed();
    let pairs = candidate_pairs(&matrix, threshold);
    let t_pairs = started.elapsed();
    let groups = complete_linkage(&matrix, &pairs, threshold);
    tracing::debug!(
        memories = matrix.len(),
        pairs = pairs.len(),
        clusters = groups.len(),
        vectors_ms = t_vectors.as_secs_f64() * 1e3,
        pairs_ms = (t_pairs - t_vectors).as_secs_f64() * 1e3,
        "suggest-merges compared every memory"
    );

    let scrub = vault.config.privacy.scrub_secrets;
    let mut clusters: Vec<MergeCluster> = Vec::new();
    for group in groups {
        // Load the members (dropping any deleted since the index was built).
        let mut members: Vec<(usize, Memory, String)> = Vec::new();
        for &i in &group {
            let Ok(mname) = MemoryName::parse(names[i]) else { continue };
            let Ok(memory) = vault.load(&mname) else { continue };
            let body = memory.redacted_content(scrub);
            members.push((i, memory, body));
        }
        if members.len() < 2 {
            continue;
        }
        let (mut total, mut pairs, mut identical) = (0.0f32, 0usize, 0usize);
        for a in 0..members.len() {
            for b in a + 1..members.len() {
                let same = members[a].2.trim() == members[b].2.trim();
                identical += usize::from(same);
                total += if same { 1.0 } else { matrix.sim(members[a].0, members[b].0) };
                pairs += 1;
            }
        }
        let score = total / pairs as f32;
        let reason = cluster_reason(&members, score, identical == pairs);
        clusters.push(MergeCluster {
            members: members
                .iter()
                .map(|(_, m, body)| MemberPreview {
                    name: m.name.to_string(),
                    memory_type: m.memory_type.clone(),
                    preview: preview(body),
                })
                .collect(),
            score,
            reason,
        });
    }
    clusters.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(b.members.len().cmp(&a.members.len()))
            .then_with(|| a.members[0].name.cmp(&b.members[0].name))
    });
    clusters.truncate(limit);
    clusters
}

/// "3 memories, mean similarity 0.93, shared tags: auth; same type decision".
fn cluster_reason(members: &[(usize, Memory, String)], score: f32, identical: bool) -> String {
    let mut reason = format!("{} memories, mean similarity {score:.2}", members.len());
    if identical {
        reason.push_str(", identical content");
    }
    let shared: Vec<&str> = members[0]
        .1
        .meta
        .tags
        .iter()
        .filter(|t| members.iter().all(|(_, m, _)| m.meta.tags.contains(t)))
        .map(String::as_str)
        .collect();
    if !shared.is_empty() {
        reason.push_str(&format!(", shared tags: {}", shared.join(", ")));
    }
    let mut types: Vec<&str> = Vec::new();
    for (_, m, _) in members {
        if !types.contains(&m.memory_type.as_str()) {
            types.push(&m.memory_type);
        }
    }
    if let [only] = types.as_slice() {
        reason.push_str(&format!("; same type {only}"));
    } else {
        reason.push_str(&format!("; types {}", types.join(", ")));
    }
    reason
}

/// The start of `body`, whitespace collapsed, at most [`PREVIEW_CHARS`] chars (`…` when cut).
fn preview(body: &str) -> String {
    let collapsed = body.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= PREVIEW_CHARS {
        return collapsed;
    }
    let mut cut: String = collapsed.chars().take(PREVIEW_CHARS - 1).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

/// Rows per work item of [`candidate_pairs`] (a block of rows stays in cache while the columns
/// stream past).
const ROW_BLOCK: usize = 64;
/// Columns per tile.
const COL_BLOCK: usize = 1_024;

/// Every pair `(i, j)`, `i < j`, with similarity ≥ `threshold`, each row keeping its
/// [`MAX_NEIGHBOURS`] best partners `j > i`; sorted by similarity (descending), then `(i, j)`.
///
/// A blocked brute force over all pairs, spread over the cores: exact, deterministic, and about
/// `n²/2 × dim` multiply-adds (seconds for 10k memories).
fn candidate_pairs(m: &Matrix, threshold: f32) -> Vec<(usize, usize, f32)> {
    let n = m.len();
    let blocks = n.div_ceil(ROW_BLOCK);
    let next = AtomicUsize::new(0);
    let work = || {
        let mut out: Vec<(usize, usize, f32)> = Vec::new();
        loop {
            let b = next.fetch_add(1, AtomicOrdering::Relaxed);
            if b >= blocks {
                break;
            }
            let (start, end) = (b * ROW_BLOCK, ((b + 1) * ROW_BLOCK).min(n));
            let mut hits: Vec<Vec<(usize, f32)>> = vec![Vec::new(); end - start];
            let mut col = start + 1;
            while col < n {
                let col_end = (col + COL_BLOCK).min(n);
                for i in start..end {
                    let a = m.row(i);
                    for j in col.max(i + 1)..col_end {
                        let s = dot(a, m.row(j));
                        if s >= threshold {
                            hits[i - start].push((j, s.min(1.0)));
                        }
                    }
                }
                col = col_end;
            }
            for (k, mut row) in hits.into_iter().enumerate() {
                if row.len() > MAX_NEIGHBOURS {
                    row.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
                    row.truncate(MAX_NEIGHBOURS);
                }
                out.extend(row.into_iter().map(|(j, s)| (start + k, j, s)));
            }
        }
        out
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from).clamp(1, 8);
    let mut pairs: Vec<(usize, usize, f32)> = if threads == 1 || blocks < 2 {
        work()
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads.min(blocks)).map(|_| s.spawn(work)).collect();
            handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
        })
    };
    pairs.sort_by(|x, y| y.2.total_cmp(&x.2).then(x.0.cmp(&y.0)).then(x.1.cmp(&y.1)));
    pairs
}

/// Complete-linkage clustering of the candidate `pairs` (most similar first): two clusters join
/// only when every cross pair has similarity ≥ `threshold`. Clusters of two or more, each
/// sorted.
fn complete_linkage(m: &Matrix, pairs: &[(usize, usize, f32)], threshold: f32) -> Vec<Vec<usize>> {
    let mut cluster_of: HashMap<usize, usize> = HashMap::new();
    let mut clusters: Vec<Vec<usize>> = Vec::new();
    for &(i, j, _) in pairs {
        let (ci, cj) = (cluster_of.get(&i).copied(), cluster_of.get(&j).copied());
        if ci.is_some() && ci == cj {
            continue;
        }
        let left = ci.map_or_else(|| vec![i], |c| clusters[c].clone());
        let right = cj.map_or_else(|| vec![j], |c| clusters[c].clone());
        let all_close = left.iter().all(|&a| right.iter().all(|&b| m.sim(a, b) >= threshold));
        if !all_close {
            continue;
        }
        let keep = match (ci, cj) {
            (Some(a), Some(b)) => {
                let (keep, gone) = (a.min(b), a.max(b));
                let moved = std::mem::take(&mut clusters[gone]);
                clusters[keep].extend(moved);
                keep
            }
            (Some(a), None) => {
                clusters[a].push(j);
                a
            }
            (None, Some(b)) => {
                clusters[b].push(i);
                b
            }
            (None, None) => {
                clusters.push(vec![i, j]);
                clusters.len() - 1
            }
        };
        for &member in &clusters[keep] {
            cluster_of.insert(member, keep);
        }
    }
    let mut out: Vec<Vec<usize>> = clusters.into_iter().filter(|c| c.len() > 1).collect();
    out.iter_mut().for_each(|c| c.sort_unstable());
    out
}

// ---------------------------------------------------------------------------------------------
// maintain

/// A link from a memory to one that no longer exists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeadLink {
    /// The memory holding the link.
    pub source: String,
    /// The missing memory it names.
    pub target: String,
    /// The memory that replaced the missing one (from its trash entry's `superseded_by`), when
    /// known: `maintain` rewrote the link to it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub successor: Option<String>,
}

/// A cold memory (SPEC §7.3).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColdEntry {
    /// Its name.
    pub name: String,
    /// Its id.
    pub id: String,
    /// Its temperature now.
    pub temperature: f64,
}

/// A long, used memory worth splitting (MIRA).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SplitCandidate {
    /// Its name.
    pub name: String,
    /// Estimated tokens of its body (more than [`SPLIT_MIN_TOKENS`]).
    pub tokens: usize,
    /// Its age in days on the configured clock (at least [`SPLIT_MIN_AGE_DAYS`]).
    pub age_days: f64,
    /// Reads and search hits (at least [`SPLIT_MIN_ACCESSES`]).
    pub access_count: u64,
    /// Its top-level sections: `split` by headings works from 2.
    pub sections: usize,
}

/// One memory's importance in an [`ImportanceSummary`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportanceEntry {
    /// Its name.
    pub name: String,
    /// Its importance (SPEC §7.6), in [0, 1).
    pub importance: f64,
}

/// What `maintain` found recomputing importance (SPEC §7.6, §7.8).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ImportanceSummary {
    /// Memories whose importance was computed: every indexed memory, any status.
    pub computed: usize,
    /// Mean importance of the active memories not faded out past `expires_at`.
    pub mean: f64,
    /// The most important of those, highest first (at most [`IMPORTANCE_SHOWN`]).
    pub top: Vec<ImportanceEntry>,
    /// The least important of those, lowest first (at most [`IMPORTANCE_SHOWN`]).
    pub bottom: Vec<ImportanceEntry>,
}

/// How many memories [`ImportanceSummary::top`] and [`ImportanceSummary::bottom`] list.
pub const IMPORTANCE_SHOWN: usize = 5;

/// What one `maintain` run found and changed (SPEC §7.8).
#[derive(Debug, Clone, Default, Serialize)]
pub struct MaintainReport {
    /// Links to missing memories, sorted.
    pub dead_links: Vec<DeadLink>,
    /// Memories whose dead links were rewritten to the missing memory's successor (history kept).
    pub healed: Vec<WriteOutcome>,
    /// Graph node and edge counts. The graph collects orphan ghost and entity nodes itself as
    /// links change, so there is nothing left to collect here; `missing` counts the missing
    /// memories that something still links to.
    pub graph: GraphStats,
    /// Importance, recomputed for every memory: how many, and the top and bottom few.
    pub importance: ImportanceSummary,
    /// Cold memories, coldest first.
    pub cold: Vec<ColdEntry>,
    /// Near-duplicate clusters at the configured `merge_threshold` (at most 5).
    pub merge_suggestions: Vec<MergeCluster>,
    /// Long, used memories worth splitting, by name.
    pub split_candidates: Vec<SplitCandidate>,
    /// Memories past `expires_at` and its fade, now archived (history kept; never deleted).
    pub expired: Vec<WriteOutcome>,
    /// Problems met on the way (an unreadable usage state, a memory that could not be read).
    pub problems: Vec<String>,
    /// Temp files left by killed writers, removed (paths relative to the vault root).
    pub temp_files_removed: Vec<String>,
}

impl MaintainReport {
    /// Whether the run changed any file.
    pub fn changed(&self) -> bool {
        !self.healed.is_empty() || !self.expired.is_empty()
    }
}

/// Runs the self-maintenance jobs once (SPEC §7.8) and reports what it found and changed.
///
/// - Dead links: every link to a missing memory ([`LinkGraph::dangling`]); when the missing
///   memory has a known successor ([`Vault::successor_of`]: merged or split away), the links to
///   it are rewritten to the successor in every memory (history kept). Other dead links are only
///   reported (never removed from anyone's text).
/// - Graph counts ([`GraphStats`]).
/// - Importance (MIRA, SPEC §7.6) recomputed for every indexed memory from the usage state, the
///   link graph and the frontmatter dates ([`ImportanceSource`]), summarised in
///   [`MaintainReport::importance`]. Importance is never cached, so every reader (search's `mira`
///   profile, `list --sort importance`) already sees these values; MIRA's maintenance archives
///   memories whose importance reaches 0, which only happens past `expires_at` and its fade —
///   the expiry job below.
/// - Cold memories (active ones, from the usage state; pinned never count).
/// - Merge suggestions: [`suggest_merges`] at `lifecycle.merge_threshold`, at most 5.
/// - Split candidates (MIRA): active memories of more than [`SPLIT_MIN_TOKENS`] estimated tokens,
///   at least [`SPLIT_MIN_AGE_DAYS`] old on the configured clock, read or found at least
///   [`SPLIT_MIN_ACCESSES`] times.
/// - Expiry: active memories whose `expires_at` plus the fade (`search.expiry_fade_days`) has
///   passed are archived (`status: archived`, history kept) — never deleted.
///
/// Decisions use `now`; written timestamps come from the vault's clock. It reads the index's
/// view of the vault (reconcile first) and does not update the index (reconcile after, when
/// [`MaintainReport::changed`]). A second run changes nothing.
///
/// [`LinkGraph::dangling`]: crate::index::graph::LinkGraph::dangling
pub fn maintain(vault: &Vault, idx: &Indexes, now: Timestamp) -> crate::Result<MaintainReport> {
    let mut report = MaintainReport { graph: idx.graph().stats(), ..MaintainReport::default() };
    report.temp_files_removed = vault
        .clean_stale_temps()
        .iter()
        .map(|p| p.strip_prefix(vault.root()).unwrap_or(p).to_string_lossy().replace('\\', "/"))
        .collect();
    let manifest = idx.manifest();
    let cfg = &vault.config.lifecycle;

    // Dead links, healed when the missing memory has a successor.
    let bare = |key: &str| key.strip_prefix("memory:").unwrap_or(key).to_owned();
    let mut successors: BTreeMap<String, Option<String>> = BTreeMap::new();
    for (source, target) in idx.graph().dangling() {
        let target = bare(&target);
        let successor =
            successors.entry(target.clone()).or_insert_with(|| vault.successor_of(&target)).clone();
        report.dead_links.push(DeadLink { source: bare(&source), target, successor });
    }
    for (missing, successor) in &successors {
        let Some(successor) = successor else { continue };
        let (Ok(from), Ok(to)) = (MemoryName::parse(missing), MemoryName::parse(successor)) else {
            continue;
        };
        for out in vault.rewrite_links(&from, &to)? {
            if out.status == WriteStatus::Updated {
                report.healed.push(out);
            }
        }
    }

    // Cold memories and split candidates need the usage state.
    let (store, reset) = UsageStore::open(vault.root())?;
    if let Some(reset) = reset {
        report.problems.push(reset.to_string());
    }
    let state = store.state();
    let active: Vec<(&String, &Entry)> =
        manifest.entries.iter().filter(|(_, e)| e.status == "active").collect();
    report.importance = summarize_importance(idx, state, now, cfg.clock);
    let by_id: HashMap<&str, &str> =
        active.iter().map(|(n, e)| (e.id.as_str(), n.as_str())).collect();
    report.cold = state
        .cold_set(
            active.iter().map(|(_, e)| (e.id.as_str(), e.pinned)),
            cfg.cold_threshold,
            now,
            cfg,
        )
        .into_iter()
        .filter_map(|c| {
            let name = by_id.get(c.id.as_str())?;
            Some(ColdEntry { name: (*name).to_owned(), id: c.id, temperature: c.temperature })
        })
        .collect();

    report.merge_suggestions = suggest_merges(vault, idx, cfg.merge_threshold, None, 5);

    let scrub = vault.config.privacy.scrub_secrets;
    for (name, entry) in &active {
        // tokens = ⌈chars / 4⌉ and chars ≤ bytes: smaller files cannot qualify.
        if entry.size <= (SPLIT_MIN_TOKENS * 4) as u64 {
            continue;
        }
        let Some(usage) = state.get(&entry.id) else { continue };
        if usage.access_count < SPLIT_MIN_ACCESSES {
            continue;
        }
        let created = Timestamp::from_second(entry.created).unwrap_or(now);
        let age = age_days(cfg.clock, created, now, state.activity_days());
        if age < SPLIT_MIN_AGE_DAYS {
            continue;
        }
        let Ok(mname) = MemoryName::parse(name) else { continue };
        let memory = match vault.load(&mname) {
            Ok(m) => m,
            Err(e) => {
                report.problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        let body = memory.redacted_content(scrub);
        let tokens = estimate_tokens(&body);
        if tokens > SPLIT_MIN_TOKENS {
            report.split_candidates.push(SplitCandidate {
                name: (*name).clone(),
                tokens,
                age_days: age,
                access_count: usage.access_count,
                sections: sections_of(&body).sections.len(),
            });
        }
    }

    // Expiry: archive, never delete. The file is checked again (the index may be stale).
    let fade = vault.config.search.expiry_fade_days;
    for (name, entry) in &active {
        if !entry.expires_at.is_some_and(|e| is_expired(e, now, fade)) {
            continue;
        }
        let Ok(mname) = MemoryName::parse(name) else { continue };
        let Ok(memory) = vault.load(&mname) else { continue };
        let still_expired =
            memory.meta.expires_at.is_some_and(|e| is_expired(e.as_second(), now, fade));
        if memory.status != "active" || !still_expired {
            continue;
        }
        let out = vault.archive(&memory, None, "expire")?;
        if out.status == WriteStatus::Updated {
            report.expired.push(out);
        }
    }
    Ok(report)
}

/// Importance of every indexed memory, summarised over the active ones still in search.
fn summarize_importance(
    idx: &Indexes,
    state: &UsageState,
    now: Timestamp,
    clock: crate::config::ClockKind,
) -> ImportanceSummary {
    let all = ImportanceSource::new(idx, state, now, clock).all();
    let manifest = idx.manifest();
    let mut ranked: Vec<ImportanceEntry> = all
        .iter()
        .filter(|(name, imp)| {
            !imp.is_expired() && manifest.entries.get(name).is_some_and(|e| e.status == "active")
        })
        .map(|(name, imp)| ImportanceEntry { name: name.clone(), importance: imp.score })
        .collect();
    ranked.sort_by(|a, b| b.importance.total_cmp(&a.importance).then_with(|| a.name.cmp(&b.name)));
    let mean = if ranked.is_empty() {
        0.0
    } else {
        ranked.iter().map(|e| e.importance).sum::<f64>() / ranked.len() as f64
    };
    let top = ranked.iter().take(IMPORTANCE_SHOWN).cloned().collect();
    let bottom = ranked.iter().rev().take(IMPORTANCE_SHOWN).cloned().collect();
    ImportanceSummary { computed: all.len(), mean, top, bottom }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;
    use std::sync::Arc;

    use super::*;
    use crate::config::Config;
    use crate::index::embed::BuiltinEmbedder;
    use crate::vault::{AddRequest, Clock};

    const NOW: &str = "2026-03-01T10:00:00Z";

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    fn vault_at(now: &str) -> (tempfile::TempDir, Vault) {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join(".memories");
        crate::vault::init(&root, "").unwrap();
        let vault = Vault::open(&root, Config::default(), Clock::pinned(ts(now))).unwrap();
        (tmp, vault)
    }

    fn add(vault: &Vault, name: &str, ty: &str, tags: &[&str], content: &str) -> Memory {
        let n = MemoryName::parse(name).unwrap();
        let req = AddRequest {
            content: content.to_owned(),
            memory_type: Some(ty.to_owned()),
            tags: tags.iter().map(|t| (*t).to_owned()).collect(),
        };
        vault.add(&n, &req).unwrap();
        vault.load(&n).unwrap()
    }

    fn load(vault: &Vault, name: &str) -> Memory {
        vault.load(&MemoryName::parse(name).unwrap()).unwrap()
    }

    fn exists(vault: &Vault, name: &str) -> bool {
        vault.path_of(&MemoryName::parse(name).unwrap()).is_file()
    }

    fn index(vault: &Vault) -> Indexes {
        let mut idx = Indexes::open(vault, Arc::new(BuiltinEmbedder::new())).unwrap();
        idx.reconcile(vault).unwrap();
        idx
    }

    /// Every file of the vault except the derived and per-user folders.
    fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
        walkdir::WalkDir::new(root)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .filter_map(|e| {
                let rel = e.path().strip_prefix(root).ok()?.to_string_lossy().replace('\\', "/");
                if rel.starts_with("indices/") || rel.starts_with("state/") {
                    return None;
                }
                Some((rel, std::fs::read(e.path()).ok()?))
            })
            .collect()
    }

    fn field(m: &Memory, key: &str) -> Option<Value> {
        m.doc.mapping().unwrap().get(key).cloned()
    }

    fn strings(v: Option<Value>) -> Vec<String> {
        match v {
            Some(Value::Sequence(items)) => {
                items.iter().filter_map(|i| i.as_str().map(str::to_owned)).collect()
            }
            _ => Vec::new(),
        }
    }

    // -- merge --------------------------------------------------------------------------------

    #[test]
    fn merge_writes_target_trashes_sources_and_relinks() {
        let (_tmp, vault) = vault_at(NOW);
        let a = add(&vault, "auth-a", "journal", &["auth", "jwt"], "Use short-lived JWTs.\n");
        let b = add(
            &vault,
            "auth-b",
            "decision",
            &["refactor", "auth"],
            "Rotate keys monthly. See [[memory:auth-a]].\n",
        );
        add(&vault, "notes", "fact", &[], "Background: [[memory:auth-a]] and [[auth-b]].\n");
        let target = MemoryName::parse("auth").unwrap();

        let out = merge(&vault, &[&a, &b], &target, None, false).unwrap();

        assert_eq!(out.target.status, WriteStatus::Created);
        assert_eq!(out.memory_type, "decision", "decision (1.5) outweighs journal (1.0)");
        assert_eq!(out.tags, ["auth", "jwt", "refactor"]);
        let merged = load(&vault, "auth");
        assert_eq!(merged.memory_type, "decision");
        assert_eq!(merged.meta.tags, ["auth", "jwt", "refactor"]);
        assert_eq!(strings(field(&merged, "consolidated_from")), ["auth-a", "auth-b"]);
        assert_eq!(merged.created_at, ts(NOW));
        assert_eq!(
            merged.content(),
            "## auth-a\n\nUse short-lived JWTs.\n\n## auth-b\n\nRotate keys monthly. See [[memory:auth]].\n"
        );

        // Sources are in the trash, naming their successor; their old versions are in history.
        assert!(!exists(&vault, "auth-a") && !exists(&vault, "auth-b"));
        assert!(out.sources.iter().all(|s| s.status == WriteStatus::Deleted));
        assert_eq!(vault.trash_list().unwrap().len(), 2);
        assert_eq!(vault.successor_of("auth-a").as_deref(), Some("auth"));
        assert_eq!(vault.successor_of("auth-b").as_deref(), Some("auth"));
        let history = vault.history(&a).unwrap();
        assert_eq!(history.len(), 1);
        assert_eq!(std::fs::read_to_string(&history[0].path).unwrap(), a.raw);

        // Links elsewhere now point to the target, with history.
        let notes = load(&vault, "notes");
        assert_eq!(notes.content(), "Background: [[memory:auth]] and [[auth]].\n");
        assert_eq!(out.relinked.len(), 1);
        assert_eq!(out.relinked[0].name, "notes");
        // One rewrite per source that it linked to; the first history version is the original.
        let history = vault.history(&notes).unwrap();
        assert_eq!(history.len(), 2);
        assert_eq!(out.relinked[0].history_version, Some(1));
        assert!(std::fs::read_to_string(&history[0].path).unwrap().contains("[[memory:auth-a]]"));
    }

    #[test]
    fn merge_archive_keeps_sources_archived() {
        let (_tmp, vault) = vault_at(NOW);
        let a = add(&vault, "a", "plan", &["x"], "Plan A text.\n");
        let b = add(&vault, "b", "plan", &["y"], "Plan B text.\n");
        let c = add(&vault, "c", "journal", &[], "Refers to [[memory:b]].\n");
        let target = MemoryName::parse("ab").unwrap();
        let out =
            merge(&vault, &[&a, &b], &target, Some("# A and B\n\nBoth plans."), true).unwrap();
        assert_eq!(out.memory_type, "plan", "a tie goes to the first source");
        assert_eq!(load(&vault, "ab").content(), "# A and B\n\nBoth plans.\n");
        for name in ["a", "b"] {
            let m = load(&vault, name);
            assert_eq!(m.status, "archived");
            assert_eq!(m.meta.superseded_by.as_deref(), Some("ab"));
            assert_eq!(vault.history(&m).unwrap().len(), 1);
        }
        assert!(out.sources.iter().all(|s| s.status == WriteStatus::Updated));
        assert!(vault.trash_list().unwrap().is_empty());
        assert_eq!(load(&vault, "c").content(), "Refers to [[memory:ab]].\n");
        assert_eq!(vault.history(&c).unwrap().len(), 1);
    }

    #[test]
    fn merge_refusals_change_nothing() {
        let (_tmp, vault) = vault_at(NOW);
        let a = add(&vault, "a", "fact", &[], "Alpha.\n");
        let b = add(&vault, "b", "fact", &[], "Beta.\n");
        add(&vault, "taken", "fact", &[], "Taken.\n");
        let before = snapshot(vault.root());
        let t = |s: &str| MemoryName::parse(s).unwrap();

        assert!(matches!(
            merge(&vault, &[&a, &b], &t("taken"), None, false),
            Err(Error::Exists(_))
        ));
        assert!(matches!(merge(&vault, &[&a], &t("new"), None, false), Err(Error::Invalid(_))));
        assert!(matches!(merge(&vault, &[&a, &a], &t("new"), None, false), Err(Error::Invalid(_))));
        let mut ghost = b.clone();
        ghost.name = t("gone");
        ghost.path = vault.path_of(&ghost.name);
        assert!(matches!(
            merge(&vault, &[&a, &ghost], &t("new"), None, false),
            Err(Error::NotFound { .. })
        ));
        let emptied = merge(&vault, &[&a, &b], &t("new"), Some("<private>x</private>"), false);
        assert!(matches!(emptied, Err(Error::Invalid(_))));
        // A source edited since it was read.
        std::fs::write(vault.path_of(&b.name), format!("{}more\n", b.raw)).unwrap();
        let changed = snapshot(vault.root());
        assert!(matches!(merge(&vault, &[&a, &b], &t("new"), None, false), Err(Error::Invalid(_))));
        assert_eq!(snapshot(vault.root()), changed);
        std::fs::write(vault.path_of(&b.name), &b.raw).unwrap();
        assert_eq!(snapshot(vault.root()), before);
    }

    #[test]
    fn merge_redacts_and_keeps_outgoing_links() {
        let (_tmp, vault) = vault_at(NOW);
        add(&vault, "lib", "fact", &[], "A library.\n");
        let a = add(&vault, "a", "fact", &[], "Alpha.\n");
        let b = add(&vault, "b", "fact", &[], "Beta.\n");
        let a = vault
            .add_frontmatter_link(&a, "depends_on", "memory:lib")
            .map(|_| load(&vault, "a"))
            .unwrap();
        let a = vault
            .add_frontmatter_link(&a, "related_to", "memory:b")
            .map(|_| load(&vault, "a"))
            .unwrap();
        let b = vault.set_pinned(&b, true).map(|_| load(&vault, "b")).unwrap();
        // A hand edit with a private block: redacted in the merged memory.
        std::fs::write(&b.path, b.raw.replace("Beta.", "Beta <private>secret plan</private>."))
            .unwrap();
        let b = load(&vault, "b");
        let out = merge(&vault, &[&a, &b], &MemoryName::parse("ab").unwrap(), None, false).unwrap();
        assert!(out.target.had_private_content);
        let merged = load(&vault, "ab");
        assert!(merged.content().contains("Beta [redacted]."));
        assert!(!merged.raw.contains("secret plan"));
        assert!(merged.meta.pinned);
        let links = field(&merged, "links").unwrap();
        let Value::Sequence(items) = links else { panic!("links: {links:?}") };
        assert_eq!(items.len(), 1, "the link between the sources is dropped: {items:?}");
        assert_eq!(link_item_target(&items[0]).as_deref(), Some("lib"));
    }

    // -- split --------------------------------------------------------------------------------

    const SECTIONED: &str = "# Auth overview\n\nWhy this exists.\n\n## Goals\n\nShort-lived tokens.\n\n```sh\n## not a heading\n```\n\n## Risks & Mitigations\n\nKey leaks.\n### Detail\n\nRotate.\n";

    #[test]
    fn sections_pick_the_first_repeated_level() {
        let s = sections_of(SECTIONED);
        assert_eq!(s.intro, Some("# Auth overview\n\nWhy this exists."));
        let heads: Vec<&str> = s.sections.iter().map(|(h, _)| h.as_str()).collect();
        assert_eq!(heads, ["Goals", "Risks & Mitigations"]);
        assert!(s.sections[0].1.contains("## not a heading"));
        assert!(s.sections[1].1.ends_with("Rotate."));
        let only_title = sections_of("# T\n\n## A\n\nx\n\n## B\n\ny\n");
        assert_eq!(only_title.intro, None);
        assert_eq!(sections_of("# One\n\ntext\n").sections.len(), 0);
        assert_eq!(slug("Risks & Mitigations"), "risks-mitigations");
        assert_eq!(slug("  Été 2026!  "), "été-2026");
        assert_eq!(slug("!!!"), "");
    }

    #[test]
    fn split_by_sections_keeps_original() {
        let (_tmp, vault) = vault_at(NOW);
        let m = add(&vault, "auth", "decision", &["auth"], SECTIONED);
        let out = split(&vault, &m, false).unwrap();
        let names: Vec<&str> = out.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, ["auth/intro", "auth/goals", "auth/risks-mitigations"]);
        assert!(out.iter().all(|o| o.status == WriteStatus::Created));
        let goals = load(&vault, "auth/goals");
        assert_eq!(goals.memory_type, "decision");
        assert_eq!(goals.meta.tags, ["auth"]);
        assert!(goals.content().starts_with("## Goals\n\nShort-lived tokens."));
        assert_eq!(field(&goals, "split_from"), Some(str_value("auth")));
        let Some(Value::Sequence(links)) = field(&goals, "links") else { panic!() };
        assert_eq!(link_item_target(&links[0]).as_deref(), Some("auth"));
        assert_eq!(load(&vault, "auth").raw, m.raw, "the original stays untouched");
    }

    #[test]
    fn split_replace_trashes_and_redirects_to_the_first_piece() {
        let (_tmp, vault) = vault_at(NOW);
        let m =
            add(&vault, "plan", "plan", &[], "## Phase one\n\nBuild.\n\n## Phase one\n\nShip.\n");
        add(&vault, "other", "fact", &[], "See [[memory:plan]].\n");
        // `plan/phase-one` is taken by the first piece, so the second falls back to `plan-2`.
        let out = split(&vault, &m, true).unwrap();
        let names: Vec<(&str, WriteStatus)> =
            out.iter().map(|o| (o.name.as_str(), o.status)).collect();
        assert_eq!(
            names,
            [
                ("plan/phase-one", WriteStatus::Created),
                ("plan-2", WriteStatus::Created),
                ("plan", WriteStatus::Deleted),
                ("other", WriteStatus::Updated),
            ]
        );
        assert!(!exists(&vault, "plan"));
        assert_eq!(vault.successor_of("plan").as_deref(), Some("plan/phase-one"));
        assert_eq!(load(&vault, "other").content(), "See [[memory:plan/phase-one]].\n");
        assert_eq!(field(&load(&vault, "plan-2"), "links"), None);
    }

    #[test]
    fn split_refusals_write_nothing() {
        let (_tmp, vault) = vault_at(NOW);
        let one = add(&vault, "one", "fact", &[], "# Only\n\nOne section.\n");
        let two = add(&vault, "two", "fact", &[], "## A\n\nx\n\n## !!!\n\ny\n");
        add(&vault, "two/a", "fact", &[], "Taken.\n");
        add(&vault, "two-1", "fact", &[], "Taken too.\n");
        let before = snapshot(vault.root());
        let err = split(&vault, &one, false).unwrap_err();
        assert!(err.to_string().contains("at least two"), "{err}");
        // `two/a` is taken, so piece 1 falls back to `two-1`, which is taken too.
        assert!(matches!(split(&vault, &two, false), Err(Error::Exists(n)) if n == "two-1"));
        assert_eq!(snapshot(vault.root()), before);
    }

    #[cfg(unix)]
    #[test]
    fn split_rolls_back_pieces_when_a_later_write_fails() {
        let (tmp, vault) = vault_at(NOW);
        let m = add(&vault, "two", "fact", &[], "## !!!\n\nx\n\n## B\n\ny\n");
        // `two/` leads out of the vault: the second piece is refused after the first was written.
        let outside = tmp.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, vault.root().join("two")).unwrap();
        let before = snapshot(vault.root());
        let err = split(&vault, &m, false).unwrap_err();
        assert!(matches!(err, Error::OutsideVault(_)), "{err}");
        assert!(!exists(&vault, "two-1"), "the first piece was removed again");
        assert_eq!(snapshot(vault.root()), before);
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    }

    // -- dedup ----------------------------------------------------------------------------------

    #[test]
    fn find_duplicate_identical_copy_and_unrelated_text() {
        let (_tmp, vault) = vault_at(NOW);
        let text = "We pool database connections with pgbouncer in transaction mode; the pool size is 20 per service and idle connections close after five minutes.";
        add(&vault, "db-pooling", "decision", &[], text);
        add(
            &vault,
            "coffee",
            "fact",
            &[],
            "The office coffee machine needs descaling every month.",
        );
        let idx = index(&vault);
        let (name, sim) = find_duplicate(&vault, &idx, text, 0.95).expect("a duplicate");
        assert_eq!(name, "db-pooling");
        assert!(sim >= 0.95, "{sim}");
        let edited = text.replace("20", "25").replace("five", "ten");
        let (name, sim) = find_duplicate(&vault, &idx, &edited, 0.85).expect("a near duplicate");
        assert_eq!(name, "db-pooling");
        assert!((0.85..1.0).contains(&sim), "{sim}");
        let unrelated = "Quarterly budget review for the marketing team, travel costs included.";
        assert_eq!(find_duplicate(&vault, &idx, unrelated, 0.95), None);
        assert_eq!(find_duplicate(&vault, &idx, "", 0.95), None);
    }

    // -- suggest merges -------------------------------------------------------------------------

    const UNRELATED: &[&str] = &[
        "The office coffee machine needs descaling every month; buy the citric acid tablets.",
        "Office plants get watered on Mondays and Thursdays by whoever arrives first.",
        "Documentation uses the Inter font at 16px with a 1.6 line height for body text.",
        "Structured logging: every log line is JSON with timestamp, level, target and span fields.",
        "Rate limiting on the public API allows 100 requests per minute per token, bursting to 200.",
        "Thumbnails are cached at the CDN edge for a week; originals stay in cold storage.",
        "New hires get a laptop, a buddy, and a reading list covering architecture and on-call.",
        "GraphQL schema naming: types are PascalCase, fields camelCase, enums SCREAMING_SNAKE.",
        "Translations live in Fluent files; German and Japanese are reviewed by native speakers.",
        "Dark mode palette: background slate-900, text slate-100, accent amber-400.",
        "Accessibility audit found missing alt text and low contrast on the settings page.",
        "S3 lifecycle rule moves objects to Glacier after ninety days and expires them after seven years.",
        "Kubernetes pods for the worker get a 512Mi memory request and a 1Gi limit.",
        "Retro: standups ran long, so we moved blockers discussion to a separate thread.",
        "Customers asked for fuzzy matching in search and a way to save filters.",
        "Mobile push notifications are batched hourly to avoid waking people at night.",
        "Nightly cron job dumps Postgres at 02:00 UTC and uploads the archive to offsite storage.",
        "Our error budget is 0.1% monthly; two incidents in March consumed most of it.",
        "Public API versions are date-based in the URL path; old versions live for eighteen months.",
        "Feature flags older than two releases get removed in the cleanup sprint.",
        "Rust compile times dropped after splitting the monolith crate and enabling sccache.",
        "Personal data is deleted thirty days after account closure per the retention policy.",
        "Transactional email templates are MJML compiled at build time with inline CSS.",
        "Password reset links expire after fifteen minutes and can be used once.",
        "The pricing page experiment tests annual billing shown first against monthly first.",
    ];

    const POOLING: &str = "Database connection pooling: we run pgbouncer in transaction mode in front of Postgres. Each service gets a pool of 20 server connections; idle clients are closed after five minutes. Prepared statements are disabled because transaction pooling breaks them.";
    const RELEASE: &str = "Release checklist: bump the version in Cargo.toml, update the changelog, tag the commit, wait for the CI artefacts, publish the crate, and announce the release in the team channel.";
    const FLAKY: &str = "# Flaky payment test\n\nThe refund integration test in the payment module fails about once in fifty runs. The cause is a race between the webhook handler and the ledger writer; the test asserts before the ledger commit lands. Fix: poll the ledger with a timeout instead of sleeping.";

    fn planted_vault() -> (tempfile::TempDir, Vault, Vec<Vec<&'static str>>) {
        let (tmp, vault) = vault_at(NOW);
        for (i, text) in UNRELATED.iter().enumerate() {
            add(&vault, &format!("note-{i:02}"), "fact", &[], text);
        }
        add(&vault, "db/pooling", "decision", &["db"], POOLING);
        add(
            &vault,
            "db/pooling-notes",
            "journal",
            &["db", "postgres"],
            &POOLING.replace("20 server connections", "25 server connections"),
        );
        add(
            &vault,
            "db/pgbouncer",
            "decision",
            &["db"],
            &format!(
                "{} We revisit the pool size after the load test.",
                POOLING.replace("five minutes", "ten minutes")
            ),
        );
        add(&vault, "release", "plan", &["release"], RELEASE);
        add(&vault, "release-copy", "plan", &["release"], RELEASE);
        add(&vault, "ci/flaky-payment", "bug_fix", &["ci"], FLAKY);
        add(
            &vault,
            "ci/flaky-refund",
            "bug_fix",
            &["ci"],
            &FLAKY.replace("once in fifty runs", "once in forty runs").replace("Fix:", "Fix it:"),
        );
        let planted = vec![
            vec!["db/pgbouncer", "db/pooling", "db/pooling-notes"],
            vec!["release", "release-copy"],
            vec!["ci/flaky-payment", "ci/flaky-refund"],
        ];
        (tmp, vault, planted)
    }

    fn member_names(c: &MergeCluster) -> Vec<&str> {
        c.members.iter().map(|m| m.name.as_str()).collect()
    }

    #[test]
    fn suggest_merges_finds_every_planted_cluster_and_nothing_else() {
        let (_tmp, vault, planted) = planted_vault();
        let idx = index(&vault);
        let clusters = suggest_merges(&vault, &idx, 0.85, None, 50);
        let mut found: Vec<Vec<&str>> = clusters.iter().map(member_names).collect();
        found.sort();
        let mut want = planted.clone();
        want.sort();
        assert_eq!(found, want, "{clusters:#?}");

        // The exact copy scores 1 and comes first; every score is at or above the threshold.
        assert_eq!(member_names(&clusters[0]), ["release", "release-copy"]);
        assert_eq!(clusters[0].score, 1.0);
        assert!(clusters[0].reason.contains("identical content"), "{}", clusters[0].reason);
        assert!(clusters.iter().all(|c| c.score >= 0.85));
        let db = clusters.iter().find(|c| c.members.len() == 3).unwrap();
        assert!(
            db.reason.starts_with("3 memories, mean similarity 0.9")
                && db.reason.contains("shared tags: db")
                && db.reason.contains("types decision, journal"),
            "{}",
            db.reason
        );
        assert!(db.members.iter().all(|m| m.preview.chars().count() <= PREVIEW_CHARS));
        assert!(db.members[0].preview.ends_with('…'));

        // Type filter and limit.
        let bugs = suggest_merges(&vault, &idx, 0.85, Some("bug_fix"), 5);
        assert_eq!(bugs.len(), 1);
        assert_eq!(member_names(&bugs[0]), ["ci/flaky-payment", "ci/flaky-refund"]);
        let decisions = suggest_merges(&vault, &idx, 0.85, Some("decision"), 5);
        assert_eq!(member_names(&decisions[0]), ["db/pgbouncer", "db/pooling"]);
        assert_eq!(suggest_merges(&vault, &idx, 0.85, None, 1).len(), 1);
        assert!(suggest_merges(&vault, &idx, 0.85, None, 0).is_empty());
    }

    #[test]
    fn suggest_merges_skips_archived_memories() {
        let (_tmp, vault, _) = planted_vault();
        let copy = load(&vault, "release-copy");
        vault.archive(&copy, None, "archive").unwrap();
        let idx = index(&vault);
        let clusters = suggest_merges(&vault, &idx, 0.85, None, 50);
        assert!(clusters.iter().all(|c| !member_names(c).contains(&"release")), "{clusters:#?}");
    }

    #[test]
    fn complete_linkage_does_not_chain() {
        // a·b = b·c = 0.707, a·c = 0.
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let m = Matrix { dim: 2, data: vec![1.0, 0.0, h, h, 0.0, 1.0] };
        let pairs = candidate_pairs(&m, 0.7);
        assert_eq!(pairs.len(), 2);
        let clusters = complete_linkage(&m, &pairs, 0.7);
        assert_eq!(clusters.len(), 1);
        assert_eq!(clusters[0].len(), 2, "{clusters:?}");
        // Two tight pairs that are all mutually close do join.
        let m = Matrix { dim: 2, data: vec![1.0, 0.0, 0.99, 0.141, 0.98, 0.199, 0.97, 0.243] };
        let clusters = complete_linkage(&m, &candidate_pairs(&m, 0.9), 0.9);
        assert_eq!(clusters, [vec![0, 1, 2, 3]]);
    }

    #[test]
    fn candidate_pairs_match_a_naive_scan() {
        // Blocks and tiles must not lose or double pairs: 300 rows cross several row blocks.
        let mut seed = 7u64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % 1000) as f32 / 1000.0
        };
        let dim = 4;
        let mut data = Vec::new();
        for _ in 0..300 {
            data.extend(normalized((0..dim).map(|_| rnd()).collect()).unwrap());
        }
        let m = Matrix { dim, data };
        let threshold = 0.995;
        let mut naive = 0;
        for i in 0..m.len() {
            for j in i + 1..m.len() {
                naive += usize::from(dot(m.row(i), m.row(j)) >= threshold);
            }
        }
        let pairs = candidate_pairs(&m, threshold);
        let per_row_cap_hit =
            (0..m.len()).any(|i| pairs.iter().filter(|p| p.0 == i).count() == MAX_NEIGHBOURS);
        assert!(per_row_cap_hit || pairs.len() == naive, "{} vs {naive}", pairs.len());
        assert!(pairs.iter().all(|p| p.0 < p.1 && p.2 >= threshold));
        assert!(pairs.windows(2).all(|w| w[0].2 >= w[1].2));
    }

    #[test]
    fn suggest_merges_does_not_chain_memories() {
        let (_tmp, vault) = vault_at(NOW);
        let x = "Kubernetes pods for the ingestion worker request 512Mi memory with a 1Gi limit and restart on OOM kills.";
        let y = "Quarterly budget review covers marketing travel, conference sponsorships and the new design agency retainer.";
        add(&vault, "a", "fact", &[], x);
        add(&vault, "b", "fact", &[], &format!("{x} {y}"));
        add(&vault, "c", "fact", &[], y);
        let idx = index(&vault);
        let vec_of = |n: &str| memory_vector(&vault, &idx, n, &idx.manifest().entries[n]).unwrap();
        let (a, b, c) = (vec_of("a"), vec_of("b"), vec_of("c"));
        let (ab, bc, ac) = (cosine(&a, &b), cosine(&b, &c), cosine(&a, &c));
        let threshold = ab.min(bc) - 0.01;
        assert!(ac < threshold, "a~b {ab}, b~c {bc}, a~c {ac}");
        let clusters = suggest_merges(&vault, &idx, f64::from(threshold), None, 10);
        assert_eq!(clusters.len(), 1, "{clusters:#?}");
        assert_eq!(clusters[0].members.len(), 2, "{clusters:#?}");
    }

    // -- maintain -------------------------------------------------------------------------------

    #[test]
    fn maintain_heals_expires_and_a_second_run_changes_nothing() {
        let (_tmp, vault) = vault_at(NOW);
        add(&vault, "new-plan", "plan", &[], "The new plan.\n");
        add(&vault, "lost", "fact", &[], "Links to [[memory:nowhere]].\n");
        let old = add(&vault, "old-plan", "plan", &[], "The old plan.\n");
        add(&vault, "notes", "journal", &[], "Follow [[memory:old-plan]].\n");
        let idx = index(&vault);
        // Trashed with a successor (as an older merge would have).
        vault.set_fields(&old, &[("superseded_by", Some(str_value("new-plan")))], "merge").unwrap();
        vault.delete(&old).unwrap();
        let expiring = add(&vault, "promo", "fact", &[], "Spring promo code.\n");
        let soon = add(&vault, "soon", "fact", &[], "Expires soon.\n");
        vault
            .set_fields(&expiring, &[("expires_at", Some(str_value("2026-02-20T00:00:00Z")))], "t")
            .unwrap();
        vault
            .set_fields(&soon, &[("expires_at", Some(str_value("2026-02-27T00:00:00Z")))], "t")
            .unwrap();
        drop(idx);
        let idx = index(&vault);

        let report = maintain(&vault, &idx, ts(NOW)).unwrap();
        assert_eq!(
            report.dead_links,
            [
                DeadLink { source: "lost".into(), target: "nowhere".into(), successor: None },
                DeadLink {
                    source: "notes".into(),
                    target: "old-plan".into(),
                    successor: Some("new-plan".into())
                },
            ]
        );
        assert_eq!(report.healed.len(), 1);
        assert_eq!(load(&vault, "notes").content(), "Follow [[memory:new-plan]].\n");
        assert_eq!(report.graph.missing, 2);
        let expired: Vec<&str> = report.expired.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(expired, ["promo"], "`soon` is still inside its 5-day fade");
        let promo = load(&vault, "promo");
        assert_eq!(promo.status, "archived");
        assert_eq!(vault.history(&promo).unwrap().last().unwrap().action, "expire");
        assert!(report.changed());

        // Again, on the stale index and on a fresh one: nothing changes.
        let files = snapshot(vault.root());
        let again = maintain(&vault, &idx, ts(NOW)).unwrap();
        assert!(!again.changed(), "{again:#?}");
        let fresh = index(&vault);
        let again = maintain(&vault, &fresh, ts(NOW)).unwrap();
        assert!(!again.changed(), "{again:#?}");
        assert_eq!(again.dead_links.len(), 1);
        assert_eq!(snapshot(vault.root()), files);
    }

    #[test]
    fn maintain_lists_cold_memories_split_candidates_and_suggestions() {
        let (_tmp, vault) = vault_at("2026-02-01T09:00:00Z");
        let mut long = String::new();
        for section in ["Background", "Design", "Rollout"] {
            long.push_str(&format!("## {section}\n\n"));
            for i in 0..60 {
                long.push_str(&format!("{section} detail number {i} explains one more point. "));
            }
            long.push_str("\n\n");
        }
        let big = add(&vault, "big", "architecture", &[], &long);
        add(&vault, "small", "fact", &[], "Short and unused.\n");
        add(&vault, "release", "plan", &[], RELEASE);
        add(&vault, "release-copy", "plan", &[], RELEASE);
        let cfg = vault.config.lifecycle.clone();
        UsageStore::update(vault.root(), |s| {
            for day in 2..=12 {
                let t = ts(&format!("2026-02-{day:02}T09:00:00Z"));
                s.warm(big.id.as_str(), false, t, &cfg);
            }
        })
        .unwrap();
        let idx = index(&vault);
        let report = maintain(&vault, &idx, ts(NOW)).unwrap();

        assert_eq!(report.split_candidates.len(), 1, "{report:#?}");
        let c = &report.split_candidates[0];
        assert_eq!((c.name.as_str(), c.access_count, c.sections), ("big", 11, 3));
        assert!(c.tokens > SPLIT_MIN_TOKENS && c.age_days >= SPLIT_MIN_AGE_DAYS, "{c:?}");
        let cold: Vec<&str> = report.cold.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(cold, ["big"], "unseen memories start warm");
        assert_eq!(report.merge_suggestions.len(), 1);
        assert_eq!(member_names(&report.merge_suggestions[0]), ["release", "release-copy"]);
        assert!(!report.changed());
    }

    // -- scale ----------------------------------------------------------------------------------

    /// `cargo test --release --lib suggest_merges_10k -- --ignored --nocapture`
    #[test]
    #[ignore = "timing: builds and indexes a 10k-memory vault"]
    fn suggest_merges_10k_timing() {
        use std::time::Instant;
        let (_tmp, vault) = vault_at(NOW);
        let syllables = [
            "ka", "lo", "mi", "ne", "tu", "ra", "si", "po", "de", "gu", "fe", "zi", "ba", "vo",
            "ch", "an", "or", "el", "is", "um",
        ];
        let vocab: Vec<String> = (0..4000)
            .map(|i: usize| {
                let mut w = String::new();
                let mut x = i * 7919 + 13;
                for _ in 0..3 + i % 3 {
                    w.push_str(syllables[x % syllables.len()]);
                    x /= syllables.len();
                    x += i;
                }
                w
            })
            .collect();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let n = 10_000;
        let mut texts: Vec<String> = Vec::with_capacity(n);
        for i in 0..n {
            if i % 100 == 99 {
                // A near-copy of the previous memory: 100 planted pairs.
                texts.push(format!("{} extra", texts[i - 1]));
            } else {
                let words: Vec<&str> = (0..80)
                    .map(|_| vocab[(rnd() % vocab.len() as u64) as usize].as_str())
                    .collect();
                texts.push(words.join(" "));
            }
        }
        let t = Instant::now();
        for (i, text) in texts.iter().enumerate() {
            let file = vault.root().join(format!("m{i:05}.md"));
            std::fs::write(file, format!("---\ntype: fact\n---\n{text}\n")).unwrap();
        }
        let t_write = t.elapsed();
        let t = Instant::now();
        let idx = index(&vault);
        let t_index = t.elapsed();
        let t = Instant::now();
        let clusters = suggest_merges(&vault, &idx, 0.85, None, 1_000);
        let t_suggest = t.elapsed();
        let entries = &idx.manifest().entries;
        let t = Instant::now();
        let mut data = Vec::new();
        for (name, entry) in entries {
            data.extend(memory_vector(&vault, &idx, name, entry).unwrap());
        }
        let t_vectors = t.elapsed();
        let matrix = Matrix { dim: BuiltinEmbedder::DIM, data };
        let t = Instant::now();
        let pairs = candidate_pairs(&matrix, 0.85);
        let t_pairs = t.elapsed();
        let t = Instant::now();
        let dup = find_duplicate(&vault, &idx, &texts[5_000], 0.95);
        let t_dup = t.elapsed();
        let report = format!(
            "10k memories: write {t_write:?}, index {t_index:?}, suggest_merges {t_suggest:?} ({} clusters; of which reading memory vectors {t_vectors:?}, all-pairs scan {t_pairs:?} for {} pairs), find_duplicate {t_dup:?}",
            clusters.len(),
            pairs.len()
        );
        tracing::info!("{report}");
        std::fs::write(std::env::temp_dir().join("memlane-consolidate-timing.txt"), &report)
            .unwrap();
        assert_eq!(clusters.len(), 100, "{report}");
        assert!(clusters.iter().all(|c| c.members.len() == 2));
        assert_eq!(dup.map(|d| d.0), Some("m05000".to_owned()));
    }
}
