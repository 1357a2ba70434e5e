//! The JSON every front end prints: `--json` output and MCP structured results.
//!
//! These structs are the one definition of each shape; the CLI and the MCP server serialise
//! the same ones. A new field is added here, once. Scores are rounded to four decimals and
//! temperatures to three: the digits past that are float noise, not meaning.

use serde::Serialize;
use serde_json::Value;

use crate::model::time::format_timestamp;
use crate::vault::{Memory, Vault};

/// Rounds a score to four decimals (`0.3` rather than `0.30000001192092896`).
pub fn score(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// Rounds a temperature or importance to three decimals.
pub fn level(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// One memory: `show --json`, `list --json`, MCP `read_memory`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct MemoryJson {
    /// `memory:<name>` (ragdocs' id form).
    pub memory_id: String,
    /// The memory's name.
    pub name: String,
    /// Its 11-character id.
    pub id: String,
    /// Its type.
    #[serde(rename = "type")]
    pub memory_type: String,
    /// `active` or `archived`.
    pub status: String,
    /// Its tags.
    pub tags: Vec<String>,
    /// When it was created (ISO-8601, UTC).
    pub created_at: String,
    /// When it was last changed.
    pub updated_at: String,
    /// Whether it is pinned.
    pub pinned: bool,
    /// Whether redaction removed something when it was written.
    pub had_private_content: bool,
    /// Its file.
    pub file_path: String,
    /// The file's size in bytes.
    pub size: usize,
    /// Problems found reading it.
    pub warnings: Vec<String>,
    /// Every frontmatter key, unknown ones too, redacted (`show` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frontmatter: Option<Value>,
    /// The Markdown body, redacted (`show` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Its temperature, 0 to 1: after this read's warm-up for `show`, now for `list --sort
    /// temperature`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Its MIRA importance, 0 to 1 (`show`, `null` when the indices could not be opened; `list
    /// --sort importance`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub importance: Option<f64>,
}

impl MemoryJson {
    /// The shape of `m`; `with_content` adds its redacted frontmatter and content.
    pub fn new(vault: &Vault, m: &Memory, with_content: bool) -> MemoryJson {
        let scrub = vault.config.privacy.scrub_secrets;
        let (frontmatter, content) = if with_content {
            let mut fm: Value = m
                .doc
                .mapping()
                .ok()
                .and_then(|map| serde_json::to_value(map).ok())
                .unwrap_or(Value::Null);
            // Every value, as content is: a hand-written `note: <private>…</private>` or a
            // secret in any key never reaches the output. Tags are the redacted list (a tag
            // redaction touches is left out, not shown as a marker).
            crate::privacy::redact_json(&mut fm, scrub);
            if let Some(map) = fm.as_object_mut()
                && map.contains_key("tags")
            {
                map.insert("tags".into(), serde_json::json!(m.meta.tags));
            }
            (Some(fm), Some(m.redacted_content(scrub)))
        } else {
            (None, None)
        };
        MemoryJson {
            memory_id: format!("memory:{}", m.name),
            name: m.name.to_string(),
            id: m.id.to_string(),
            memory_type: m.memory_type.clone(),
            status: m.status.clone(),
            tags: m.meta.tags.clone(),
            created_at: format_timestamp(m.created_at),
            updated_at: format_timestamp(m.updated_at),
            pinned: m.meta.pinned,
            had_private_content: m.meta.had_private_content,
            file_path: m.path.display().to_string(),
            size: m.size(),
            warnings: m.warnings.iter().map(|w| w.message.clone()).collect(),
            frontmatter,
            content,
            temperature: None,
            importance: None,
        }
    }
}

/// Rounds every fractional number in `v` to four decimals, in place: what a score, a weight or
/// an importance means, without the float noise of `0.30000001192092896` (an `f32` read as
/// `f64`) or `0.6499999999999999`. Whole numbers are left as they are.
pub fn tidy(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            if let Some(x) = n.as_f64()
                && x.is_finite()
                && let Some(r) = serde_json::Number::from_f64(score(x))
            {
                *n = r;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        Value::Object(map) => map.values_mut().for_each(tidy),
        _ => {}
    }
}

/// The session-start digest (`context --json`, the session-start hook's text).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ContextDigest {
    /// The budget it was built for, in estimated tokens.
    pub budget: usize,
    /// Estimated tokens of `text` (at most `budget`).
    pub tokens: usize,
    /// The working tree's branch, when known.
    pub branch: Option<String>,
    /// The files changed in the working tree (`git status`), relative to its top.
    pub changed_files: Vec<String>,
    /// Active memories in the vault.
    pub total: usize,
    /// Memories listed.
    pub shown: usize,
    /// Memories that were picked but left out for the budget.
    pub omitted: usize,
    /// The memories listed, in order.
    pub memories: Vec<ContextItem>,
    /// The digest as the agent reads it.
    pub text: String,
}

/// One memory of a [`ContextDigest`].
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ContextItem {
    /// `memory:<name>`.
    pub memory_id: String,
    /// Its name.
    pub name: String,
    /// Its 11-character id.
    pub id: String,
    /// Its type.
    #[serde(rename = "type")]
    pub memory_type: String,
    /// Why it is listed: `pinned`, `changed_files`, `task` or `hot`.
    pub section: &'static str,
    /// The changed file it links to (`changed_files` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_document: Option<String>,
    /// Its age since it last changed: `today`, `3d`, `5w`, `8mo`, `2y`.
    pub age: String,
    /// When it last changed.
    pub updated_at: String,
    /// Whether it is pinned.
    pub pinned: bool,
    /// Its temperature now.
    pub temperature: f64,
    /// Its first sentence, redacted.
    pub summary: String,
    /// Estimated tokens of its line.
    pub tokens: usize,
}

/// What `mark_used` recorded.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct MarkedUsed {
    /// The memories counted as used (warmed), in the order given.
    pub used: Vec<UsedMemory>,
    /// The memory they were context for (`memory:<name>`), when one was named.
    pub context_for: Option<String>,
    /// The `was_context_for` links written (one per used memory; `unchanged` when it existed).
    pub linked: Vec<Written>,
}

/// One memory of [`MarkedUsed`].
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct UsedMemory {
    /// `memory:<name>`.
    pub memory_id: String,
    /// Its name.
    pub name: String,
    /// Its 11-character id.
    pub id: String,
}

/// The cold memories (`cold --json`, MCP `get_cold_memories`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ColdList {
    /// The temperature below which a memory counts as cold (`lifecycle.cold_threshold`).
    pub cold_threshold: f64,
    /// The cold memories, coldest first.
    pub memories: Vec<ColdMemory>,
}

/// One memory of a [`ColdList`].
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ColdMemory {
    /// `memory:<name>`.
    pub memory_id: String,
    /// Its name.
    pub name: String,
    /// Its 11-character id.
    pub id: String,
    /// Its file.
    pub file_path: String,
    /// Its temperature now.
    pub temperature: f64,
    /// Estimated tokens of its content: what summarizing it would save.
    pub tokens: usize,
}

impl From<crate::lifecycle::views::ColdItem> for ColdMemory {
    fn from(c: crate::lifecycle::views::ColdItem) -> ColdMemory {
        ColdMemory {
            memory_id: format!("memory:{}", c.name),
            name: c.name,
            id: c.id,
            file_path: c.file.display().to_string(),
            temperature: level(c.temperature),
            tokens: c.tokens,
        }
    }
}

/// The vault as a tree (`tree --json`, MCP `memory_tree`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Tree {
    /// The vault's folder.
    pub vault: String,
    /// Every memory in name order.
    pub memories: Vec<TreeMemory>,
}

/// One memory of a [`Tree`].
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TreeMemory {
    /// `memory:<name>`.
    pub memory_id: String,
    /// Its name (folders joined by `/`).
    pub name: String,
    /// Its 11-character id.
    pub id: String,
    /// Its type.
    #[serde(rename = "type")]
    pub memory_type: String,
    /// Its temperature now.
    pub temperature: f64,
    /// Whether it is pinned (pinned memories never cool).
    pub pinned: bool,
    /// Estimated tokens of its (redacted) content.
    pub tokens: usize,
    /// Its heading sections (none when they were left out).
    pub sections: Vec<TreeSection>,
}

/// One heading section of a [`TreeMemory`].
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TreeSection {
    /// The headings leading to it (`Design > Storage`).
    pub header_path: String,
    /// Estimated tokens of the section.
    pub tokens: usize,
}

impl From<crate::lifecycle::views::TreeRow> for TreeMemory {
    fn from(r: crate::lifecycle::views::TreeRow) -> TreeMemory {
        TreeMemory {
            memory_id: format!("memory:{}", r.name),
            name: r.name,
            id: r.id,
            memory_type: r.memory_type,
            temperature: level(r.temperature),
            pinned: r.pinned,
            tokens: r.tokens,
            sections: r
                .sections
                .into_iter()
                .map(|s| TreeSection { header_path: s.header_path, tokens: s.tokens })
                .collect(),
        }
    }
}

/// A memory's stored versions (`history --json`, MCP `memory_history`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct History {
    /// `memory:<name>`.
    pub memory_id: String,
    /// Its name.
    pub name: String,
    /// Its 11-character id.
    pub id: String,
    /// Its earlier versions, oldest first (1 is the oldest).
    pub versions: Vec<HistoryVersion>,
}

/// One version of a [`History`].
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct HistoryVersion {
    /// Its number, for `restore --version` (1 is the oldest).
    pub version: usize,
    /// When it was replaced.
    pub replaced_at: String,
    /// What replaced it (`update`, `append`, `edit`, `restore` …).
    pub action: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its file.
    pub file_path: String,
}

impl From<crate::vault::HistoryEntry> for HistoryVersion {
    fn from(h: crate::vault::HistoryEntry) -> HistoryVersion {
        HistoryVersion {
            version: h.version,
            replaced_at: h.replaced_at,
            action: h.action,
            size: h.size,
            file_path: h.path.display().to_string(),
        }
    }
}

/// The trash (`trash list --json`, MCP `list_trash`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TrashList {
    /// The deleted memories, newest first.
    pub entries: Vec<TrashItem>,
}

/// One entry of a [`TrashList`].
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TrashItem {
    /// The handle to restore it by (`auth/jwt-plan_20260110T100000.000Z`).
    pub entry: String,
    /// The name it had.
    pub name: String,
    /// When it was deleted.
    pub deleted_at: String,
    /// Its 11-character id, when readable.
    pub id: Option<String>,
    /// Its size in bytes.
    pub size: u64,
    /// Its file in the trash.
    pub file_path: String,
}

impl From<crate::vault::TrashEntry> for TrashItem {
    fn from(t: crate::vault::TrashEntry) -> TrashItem {
        TrashItem {
            entry: t.entry,
            name: t.name,
            deleted_at: t.deleted_at,
            id: t.id,
            size: t.size,
            file_path: t.path.display().to_string(),
        }
    }
}

/// What emptying the trash removed (`trash empty --json`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TrashEmptied {
    /// The entries deleted for good.
    pub removed: Vec<TrashItem>,
}

/// The memories linking to a document (`linked --json`, MCP `search_linked_memories`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Linked {
    /// The document, normalised (`src/auth.py`).
    pub target_document: String,
    /// The memories linking to it, best first.
    pub results: Vec<LinkedMemory>,
}

/// One memory of [`Linked`]: ragdocs' `search_linked_memories` item.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct LinkedMemory {
    /// `memory:<name>`.
    pub memory_id: String,
    /// Its name.
    pub name: String,
    /// Its relevance to the query, or the link's confidence when there is no query.
    pub score: f64,
    /// The link's type (`mentions`, `refactors`, `debugs` …).
    pub edge_type: String,
    /// The words around the link.
    pub anchor_context: String,
    /// Its content, redacted.
    pub content: String,
    /// Its file.
    pub file_path: String,
}

/// Groups of near-duplicate memories (`suggest-merges --json`, MCP `suggest_memory_merges`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct MergeSuggestions {
    /// How similar the members of a cluster all are, at least.
    pub threshold: f64,
    /// The clusters of near-duplicates, most similar first.
    pub clusters: Vec<MergeCluster>,
}

/// One cluster of [`MergeSuggestions`].
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct MergeCluster {
    /// Its position in the list, from 0.
    pub cluster_id: usize,
    /// The mean pairwise similarity of its members.
    pub score: f64,
    /// Why they were grouped.
    pub reason: String,
    /// How many members.
    pub memory_count: usize,
    /// The members.
    pub memories: Vec<MergeMember>,
}

/// One member of a [`MergeCluster`].
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct MergeMember {
    /// `memory:<name>`.
    pub memory_id: String,
    /// Its name.
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub memory_type: String,
    /// Its file.
    pub file_path: String,
    /// Its first words, redacted.
    pub preview: String,
}

/// Counts of the vault (MCP `get_memory_stats`): ragdocs' keys and memlane's.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Stats {
    /// Memories.
    pub count: usize,
    /// Their total size for people (`45.2KB`).
    pub total_size: String,
    /// Their total size in bytes.
    pub total_bytes: u64,
    /// Memories per tag.
    pub tags: std::collections::BTreeMap<String, usize>,
    /// Memories per type.
    pub types: std::collections::BTreeMap<String, usize>,
    /// The vault's folder.
    pub memory_path: String,
    /// Memories per status.
    pub by_status: std::collections::BTreeMap<String, usize>,
    /// Pinned memories.
    pub pinned: usize,
    /// The embedder's id.
    pub embedder: String,
    /// The link graph's size.
    pub graph: GraphCounts,
}

/// The link graph's size ([`Stats`], `doctor`).
#[derive(Debug, Clone, Copy, Serialize, schemars::JsonSchema)]
pub struct GraphCounts {
    /// Present memories.
    pub memories: usize,
    /// Documents linked to (ghost nodes).
    pub ghosts: usize,
    /// Entities.
    pub entities: usize,
    /// Links, dangling ones included.
    pub edges: usize,
    /// Missing memories that something still links to.
    pub missing: usize,
}

impl From<crate::index::graph::GraphStats> for GraphCounts {
    fn from(g: crate::index::graph::GraphStats) -> GraphCounts {
        GraphCounts {
            memories: g.memories,
            ghosts: g.ghosts,
            entities: g.entities,
            edges: g.edges,
            missing: g.missing,
        }
    }
}

/// Several memories read at once (MCP `read_memories`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ReadMany {
    /// One item per name asked for, in order.
    pub memories: Vec<ReadItem>,
    /// Memories read.
    pub found: usize,
    /// Names that could not be read.
    pub missing: usize,
}

/// One item of [`ReadMany`]: the memory, or why it could not be read.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum ReadItem {
    /// The memory.
    Found(Box<MemoryJson>),
    /// A name that could not be read.
    Missing {
        /// The name as given.
        name: String,
        /// Why it could not be read.
        error: String,
    },
}

/// A memory's typed links, both ways, and its version chain (`relationships --json`, MCP
/// `get_memory_relationships`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Relationships {
    /// `memory:<name>`.
    pub memory_id: String,
    /// Its name.
    pub name: String,
    /// The keys of its versions, newest first (through `supersedes`).
    pub version_chain: Vec<String>,
    /// Links from it.
    pub outgoing: Vec<MemoryLink>,
    /// Links to it.
    pub incoming: Vec<MemoryLink>,
}

/// One link of [`Relationships`].
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct MemoryLink {
    /// The node at the other end: `memory:<name>`, a document (`ghost:<path>`) or an entity.
    pub memory_id: String,
    /// The link's type (`supersedes`, `depends_on`, `mentions` …).
    pub edge_type: String,
    /// The words around the link.
    pub anchor_context: String,
    /// How sure the extractor was, 0 to 1.
    pub confidence: f64,
    /// Where the link came from: `keyword`, `frontmatter`, `agent`, `entity` or `context`.
    pub origin: String,
}

impl MemoryLink {
    /// The link to node `key` with the edge's data.
    pub fn new(key: &str, e: &crate::index::graph::EdgeData) -> MemoryLink {
        MemoryLink {
            memory_id: key.to_owned(),
            edge_type: e.edge_type.clone(),
            anchor_context: e.context.clone(),
            confidence: score(f64::from(e.confidence)),
            origin: e.origin.clone(),
        }
    }
}

/// The memories exactly `depth` links away from a memory (`related --json`, MCP
/// `get_related_memories`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RelatedMemories {
    /// `memory:<name>` of the memory asked about.
    pub memory_id: String,
    /// Its name.
    pub name: String,
    /// How many links away.
    pub depth: usize,
    /// The nodes that far away, best connected first.
    pub related: Vec<RelatedMemory>,
}

/// One node of [`RelatedMemories`].
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RelatedMemory {
    /// Its node key (`memory:<name>`, or a document or entity passed through).
    pub key: String,
    /// The product of `weight(edge_type) × confidence` along the best path.
    pub score: f64,
    /// That path, one `[node, edge type]` pair per hop; the last is the node itself.
    pub path: Vec<(String, String)>,
}

/// What `doctor` found (`doctor --json`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Doctor {
    /// The vault's folder.
    pub vault: String,
    /// Memories indexed (absent when the vault's folders stopped the check).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memories: Option<usize>,
    /// Chunks indexed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunks: Option<usize>,
    /// The embedder's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedder: Option<String>,
    /// The link graph's size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph: Option<GraphCounts>,
    /// What is wrong, one item per problem.
    pub problems: Vec<Problem>,
}

impl Doctor {
    /// A report on the vault at `root` with these problems and nothing else.
    pub fn new(root: &std::path::Path, problems: Vec<Problem>) -> Doctor {
        Doctor {
            vault: root.display().to_string(),
            memories: None,
            chunks: None,
            embedder: None,
            graph: None,
            problems,
        }
    }
}

/// What kind of problem `doctor` found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// One of memlane's own folders is a link or not a folder.
    UnsafeFolder,
    /// A memory file with git conflict markers, or frontmatter keys a merge could not settle
    /// (recorded under `merge_conflicts:`).
    MergeConflict,
    /// A memory file that does not load.
    Unreadable,
    /// Memories that share an id.
    DuplicateId,
    /// An operation killed midway, which the next write rolls back.
    InterruptedOperation,
    /// A folder in `state/intents/` memlane did not write and never replays (`path`; `hint`
    /// is the command that deletes it once you have looked at it).
    UntrustedIntent,
    /// A temp file left by a killed writer.
    TempFile,
    /// A symbolic link memlane does not follow (`memory` is the link, `target` where it
    /// leads).
    LinkOutsideVault,
    /// `.memories/.gitignore` is missing or lacks a line, so git would track the indices, the
    /// state, the history or the trash (see docs/teams-and-git.md).
    Gitignore,
    /// The vault is in a git work tree where git would merge memory files as plain text:
    /// `.gitattributes` lacks the rule or this clone's config lacks the driver (`memlane setup
    /// git`).
    MergeDriver,
    /// A `.md` file no command can name.
    Unreachable,
    /// A frontmatter problem.
    Frontmatter,
    /// A link to a memory that no longer exists.
    DeadLink,
}

/// One problem of a [`Doctor`] report.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Problem {
    /// Its kind.
    pub kind: ProblemKind,
    /// The memory it is about (`link_outside_vault`: the link's path).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// The id memories share (`duplicate_id`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The memories sharing it (`duplicate_id`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memories: Option<Vec<String>>,
    /// The folder (`unsafe_folder`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// The folder's path (`unsafe_folder`, `untrusted_intent`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// What it links to (`dead_link`, `link_outside_vault`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The missing memory's recorded successor (`dead_link`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub successor: Option<String>,
    /// What is wrong, in words.
    pub message: String,
    /// What to do about it, when there is something to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl Problem {
    /// A problem of `kind` with its `message` and nothing else.
    pub fn new(kind: ProblemKind, message: impl Into<String>) -> Problem {
        Problem {
            kind,
            memory: None,
            id: None,
            memories: None,
            folder: None,
            path: None,
            target: None,
            successor: None,
            message: message.into(),
            hint: None,
        }
    }
}

/// A memory's file exactly as it is on disk (`show --raw --json`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RawMemory {
    /// `memory:<name>`.
    pub memory_id: String,
    /// Its name.
    pub name: String,
    /// Its 11-character id.
    pub id: String,
    /// Its file.
    pub file_path: String,
    /// Problems found reading it.
    #[serde(skip)]
    pub warnings: Vec<String>,
    /// The file's bytes, as text (not redacted: the file as it is).
    pub raw: String,
}

/// What a write did (every writing command's `--json`, every writing MCP tool).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Written {
    /// What happened.
    pub status: WriteStatus,
    /// The memory's name (after the write).
    pub name: String,
    /// Its 11-character id.
    pub id: String,
    /// Its file (absent when nothing was stored).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
    /// Whether redaction removed anything from this write.
    pub had_private_content: bool,
    /// How many `<private>` blocks were redacted.
    pub private_blocks: usize,
    /// Secrets the scrubber replaced, by kind.
    pub secrets: Vec<SecretCount>,
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

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What a write did to a memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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

/// One kind of secret a write scrubbed, and how many.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SecretCount {
    /// The kind (`github-token`, `aws-access-key` …).
    pub kind: String,
    /// How many values of this kind were replaced.
    pub count: usize,
}

impl From<crate::vault::WriteOutcome> for Written {
    fn from(o: crate::vault::WriteOutcome) -> Written {
        use crate::vault::WriteStatus as S;
        Written {
            status: match o.status {
                S::Created => WriteStatus::Created,
                S::Updated => WriteStatus::Updated,
                S::Unchanged => WriteStatus::Unchanged,
                S::Skipped => WriteStatus::Skipped,
                S::Deleted => WriteStatus::Deleted,
                S::Moved => WriteStatus::Moved,
                S::Restored => WriteStatus::Restored,
            },
            name: o.name,
            id: o.id,
            file_path: o.path.map(|p| p.display().to_string()),
            had_private_content: o.had_private_content,
            private_blocks: o.private_blocks,
            secrets: o
                .secrets
                .into_iter()
                .map(|s| SecretCount { kind: s.kind.to_owned(), count: s.count })
                .collect(),
            tags_dropped: o.tags_dropped,
            history_version: o.history_version,
            trash_entry: o.trash_entry,
            from: o.from,
            reason: o.reason,
        }
    }
}

/// Writes, each as [`Written`].
pub fn written(outcomes: Vec<crate::vault::WriteOutcome>) -> Vec<Written> {
    outcomes.into_iter().map(Into::into).collect()
}

/// What `remember` did: the write, and whether it created a memory or updated a near-duplicate.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Remembered {
    /// The write.
    #[serde(flatten)]
    pub outcome: Written,
    /// `created` or `updated`.
    pub action: RememberAction,
    /// The similarity to the memory it updated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
}

/// Whether `remember` created a memory or updated a near-duplicate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RememberAction {
    /// A new memory.
    Created,
    /// A near-duplicate was updated.
    Updated,
}

/// What a rename did (`mv --json`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Moved {
    /// The move.
    pub moved: Written,
    /// The rewrites of links that pointed at the old name.
    pub relinked: Vec<Written>,
}

/// What a merge did (`merge --json`, MCP `merge_memories`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Merged {
    /// The merged memory (created).
    pub target: Written,
    /// Its type: the most important of the sources' types.
    #[serde(rename = "type")]
    pub memory_type: String,
    /// Its tags: the union of the sources' tags.
    pub tags: Vec<String>,
    /// One outcome per source, in the order given: `deleted`, or `updated` when archived.
    pub sources: Vec<Written>,
    /// The other memories whose links to a source now point to the target.
    pub relinked: Vec<Written>,
}

impl From<crate::lifecycle::consolidate::MergeOutcome> for Merged {
    fn from(m: crate::lifecycle::consolidate::MergeOutcome) -> Merged {
        Merged {
            target: m.target.into(),
            memory_type: m.memory_type,
            tags: m.tags,
            sources: written(m.sources),
            relinked: written(m.relinked),
        }
    }
}

/// What a split did (`split --json`, MCP `split_memory`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Split {
    /// The memory that was split.
    pub split: String,
    /// One outcome per piece written, then the original's (linked or trashed).
    pub outcomes: Vec<Written>,
}

/// What deleting memories did (`rm --json`).
pub type Deleted = Vec<Written>;

/// What a search found (`search --json`, MCP `search_memories`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SearchFound {
    /// The results, best first, then the memories linked to the top ones (`expand`).
    pub results: Vec<SearchItem>,
    /// The closest memories that did not pass the score threshold.
    pub below_threshold: Vec<SearchItem>,
    /// Why the search answered from indices it could not save (a read-only vault).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// One memory a search found: a result, a memory a link to a top result brought in
/// (`expand`), or a candidate below the threshold. Which keys it has says which it is.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SearchItem {
    /// `memory:<name>`.
    pub memory_id: String,
    /// Its name.
    pub name: String,
    /// Its relevance, 0 to 1. A result: the final score. Below the threshold: the relevance
    /// compared with `search.score_threshold`. A memory a link brought in: the result's score
    /// × the link's weight and confidence.
    pub score: f64,
    /// Its 11-character id.
    pub id: String,
    /// The best chunk's text, redacted (a memory a link brought in: its whole content).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// A short excerpt around the first query term (results and candidates).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
    /// Its type.
    #[serde(rename = "type")]
    pub memory_type: String,
    /// `active` or `archived` (results and linked memories).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Its tags (results and linked memories).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// Its file (results and linked memories).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
    /// The best chunk's heading path (`Goals > Risks`; empty before the first heading).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header_path: Option<String>,
    /// The memory that replaces this one, when it is superseded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// Estimated tokens of `content` (results).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<usize>,
    /// The result whose link brought it in (`expand`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expanded_from: Option<String>,
    /// The type of that link, in either direction (`expand`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edge_type: Option<String>,
    /// Every ranking stage's value (`--explain`; see docs/internals/ranking.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<crate::search::Explain>,
}

impl SearchItem {
    /// The keys every item has; the others absent.
    fn new(memory_id: &str, name: &str, relevance: f64, id: &str, memory_type: &str) -> Self {
        SearchItem {
            memory_id: memory_id.to_owned(),
            name: name.to_owned(),
            score: score(relevance),
            id: id.to_owned(),
            memory_type: memory_type.to_owned(),
            content: None,
            snippet: None,
            status: None,
            tags: None,
            file_path: None,
            header_path: None,
            superseded_by: None,
            tokens: None,
            expanded_from: None,
            edge_type: None,
            explain: None,
        }
    }

    /// A result; its stages only when `explain` asks for them.
    fn hit(h: &crate::search::SearchHit, explain: bool) -> SearchItem {
        SearchItem {
            content: Some(h.content.clone()),
            snippet: Some(h.snippet.clone()),
            status: Some(h.status.clone()),
            tags: Some(h.tags.clone()),
            file_path: Some(h.file_path.clone()),
            header_path: Some(h.header_path.clone()),
            superseded_by: h.superseded_by.clone(),
            tokens: Some(h.tokens),
            explain: explain.then(|| h.explain.clone()),
            ..SearchItem::new(&h.memory_id, &h.name, h.score, &h.id, &h.memory_type)
        }
    }

    /// A candidate below the threshold; its stages only when `explain` asks for them.
    fn below(b: &crate::search::BelowThreshold, explain: bool) -> SearchItem {
        SearchItem {
            snippet: Some(b.snippet.clone()),
            explain: explain.then(|| b.explain.clone()),
            ..SearchItem::new(&b.memory_id, &b.name, b.score, &b.id, &b.memory_type)
        }
    }

    /// A memory a link to a top result brought in.
    fn expanded(e: &super::search::Expanded) -> SearchItem {
        SearchItem {
            content: Some(e.content.clone()),
            status: Some(e.status.clone()),
            tags: Some(e.tags.clone()),
            file_path: Some(e.file_path.clone()),
            expanded_from: Some(e.expanded_from.clone()),
            edge_type: Some(e.edge_type.clone()),
            ..SearchItem::new(&e.memory_id, &e.name, e.score, &e.id, &e.memory_type)
        }
    }
}

/// The JSON of a search: every hit (every ranking stage only when `explain`), the memories
/// links brought in, and the candidates below the threshold.
pub fn search_found(found: &super::search::Found, explain: bool) -> SearchFound {
    let mut results: Vec<SearchItem> =
        found.results.hits.iter().map(|h| SearchItem::hit(h, explain)).collect();
    results.extend(found.expanded.iter().map(SearchItem::expanded));
    let below_threshold =
        found.results.below_threshold.iter().map(|b| SearchItem::below(b, explain)).collect();
    SearchFound { results, below_threshold, warning: None }
}

/// What `maintain` found and changed (`maintain --json`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct MaintainedReport {
    /// Links to memories that no longer exist.
    pub dead_links: Vec<DeadLink>,
    /// Links rewritten to a missing memory's successor.
    pub healed: Vec<Written>,
    /// The link graph's size.
    pub graph: GraphCounts,
    /// Importance, recomputed.
    pub importance: ImportanceSummary,
    /// The cold memories.
    pub cold: Vec<ColdEntry>,
    /// Groups of near-duplicates worth merging.
    pub merge_suggestions: Vec<MergeCluster>,
    /// Memories long and old enough to split.
    pub split_candidates: Vec<SplitCandidate>,
    /// Memories past `expires_at`, archived.
    pub expired: Vec<Written>,
    /// Problems met.
    pub problems: Vec<String>,
    /// Temp files left by killed writers, removed.
    pub temp_files_removed: Vec<String>,
}

/// A link to a memory that no longer exists.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DeadLink {
    /// The memory that links.
    pub source: String,
    /// The missing memory.
    pub target: String,
    /// Its recorded successor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub successor: Option<String>,
}

/// Importance over the vault.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ImportanceSummary {
    /// Memories it was computed for.
    pub computed: usize,
    /// The mean over active memories.
    pub mean: f64,
    /// The most important.
    pub top: Vec<ImportanceEntry>,
    /// The least important.
    pub bottom: Vec<ImportanceEntry>,
}

/// One memory's importance.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ImportanceEntry {
    /// Its name.
    pub name: String,
    /// Its importance, 0 to 1.
    pub importance: f64,
}

/// A cold memory of a maintenance report.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ColdEntry {
    /// `memory:<name>`.
    pub memory_id: String,
    /// Its name.
    pub name: String,
    /// Its 11-character id.
    pub id: String,
    /// Its temperature now.
    pub temperature: f64,
}

/// A memory worth splitting.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SplitCandidate {
    /// Its name.
    pub name: String,
    /// Estimated tokens.
    pub tokens: usize,
    /// Days since it was created.
    pub age_days: f64,
    /// How often it was used.
    pub access_count: u64,
    /// Its top-level sections.
    pub sections: usize,
}

/// What `reindex` did (`reindex --json`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Reindexed {
    /// Memories indexed.
    pub memories: usize,
    /// Chunks indexed.
    pub chunks: usize,
    /// Chunks embedded now.
    pub embedded: usize,
    /// Chunks whose vectors were reused.
    pub reused: usize,
    /// The embedder's id.
    pub embedder: String,
    /// How long it took, in milliseconds.
    pub elapsed_ms: u64,
    /// Problems met.
    pub problems: Vec<String>,
    /// What was damaged, when the old indices were.
    #[serde(skip)]
    pub repaired: Option<String>,
}

/// One line of `watch --json`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum WatchEvent {
    /// A pass that changed the indices, or the first one.
    Reindexed {
        /// What started it (`start`, `change`, `rescan` …).
        trigger: String,
        /// Memories indexed.
        indexed: Vec<String>,
        /// Memories removed.
        removed: Vec<String>,
        /// How many were new.
        added: usize,
        /// How many changed.
        updated: usize,
        /// How many did not change.
        unchanged: usize,
        /// How long it took, in milliseconds.
        elapsed_ms: u64,
    },
    /// `maintain` ran.
    Maintained {
        /// Links to missing memories.
        dead_links: usize,
        /// Memories whose links were healed.
        healed: Vec<String>,
        /// Memories archived past `expires_at`.
        expired: Vec<String>,
        /// Cold memories.
        cold: usize,
        /// Merge suggestions.
        merge_suggestions: usize,
        /// Split candidates.
        split_candidates: usize,
    },
}

/// The data of a cold notification (MCP `notifications/message`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ColdNotice {
    /// What to consider.
    pub message: String,
    /// The tool to use.
    pub suggested_action: String,
    /// The memories that just went cold.
    pub memories: Vec<ColdMemory>,
}

/// `hook stop`: what a Claude Code `Stop` hook prints to make the agent go on.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct StopDecision {
    /// `block`: the agent is asked to go on.
    pub decision: &'static str,
    /// What the agent is asked to do: record what it learnt with `remember`.
    pub reason: String,
}

/// `init --json`: the vault made (or found), and git's merge driver.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Init {
    /// The vault root (its `.memories` folder).
    pub vault: std::path::PathBuf,
    /// Whether the vault already existed (init is idempotent and never overwrites).
    pub existed: bool,
    /// Paths created, relative to the vault root.
    pub created: Vec<String>,
    /// The merge driver's set-up in the git work tree that holds the vault (`work_tree` is
    /// `null` outside one); `null` when it could not be set up.
    pub merge_driver: Option<crate::gitmerge::DriverSetup>,
    /// Why the merge driver could not be set up (the vault is made all the same): a warning.
    #[serde(skip)]
    #[schemars(skip)]
    pub merge_driver_error: Option<crate::Error>,
}

/// `config --json`: the effective configuration and where each value came from.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct EffectiveConfig {
    /// Every setting, with its effective value, keyed as in `config.toml` (see
    /// [config.md](config.md)).
    #[schemars(with = "serde_json::Map<String, Value>")]
    pub config: Value,
    /// Where each value came from, by dotted key (`search.limit`): `default`, a file, a
    /// `MEMLANE_*` variable or a `-c` flag.
    pub sources: std::collections::BTreeMap<String, String>,
    /// The config files read, lowest precedence first.
    pub files: Vec<String>,
    /// The vault whose `config.toml` was applied; `null` outside a vault.
    pub vault: Option<String>,
    /// The configuration as commented TOML (the text output).
    #[serde(skip)]
    pub toml: String,
}

/// `model pull --json`: the model installed (or found up to date).
pub use crate::index::hub::PullReport;

/// `setup --json` (no client named): every client and the files it writes.
pub use crate::setup::ClientInfo;

/// `model import --json`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ModelImported {
    /// Where the model is installed (the default local model from now on).
    pub installed: std::path::PathBuf,
}

/// `model distill --json`: the static token table written.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ModelDistilled {
    /// The table file written.
    pub out: std::path::PathBuf,
    /// The model directory it was distilled from.
    pub from: std::path::PathBuf,
    /// The source model's embedder id (recorded in the table).
    pub source_model: String,
    /// Dimensions per token row.
    pub dims: usize,
    /// Token rows (the model's vocabulary).
    pub vocab: usize,
    /// How rows are weighted by vocabulary rank (`sif`, `zipf` or `none`).
    pub weighting: String,
    /// The file's size in bytes.
    pub bytes: u64,
    /// xxh3-64 of the file, in hex (the same model and options always give the same file).
    pub xxh3: String,
}

/// `model list --json`: the installed models and which one the vault uses.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ModelList {
    /// The installed models, by name.
    pub models: Vec<ModelRow>,
    /// Pulls that broke off, which the same `model pull` resumes.
    pub interrupted: Vec<crate::index::hub::InterruptedPull>,
    /// The vault here and the model it uses; `null` outside a vault.
    pub vault: Option<ModelUse>,
}

/// One installed model of a [`ModelList`].
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ModelRow {
    /// `organisation/name` for a pulled model; `default` for the imported one.
    pub name: String,
    /// Its directory.
    pub dir: std::path::PathBuf,
    /// The commit a pulled model was downloaded at; `null` for an imported one.
    pub commit: Option<String>,
    /// The total size of its files.
    pub bytes: u64,
    /// Whether `[embedding] model = "auto"` uses it.
    pub auto: bool,
    /// Whether the vault here uses it.
    pub used_by_vault: bool,
}

/// The model a vault uses, in a [`ModelList`].
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ModelUse {
    /// The vault root.
    pub root: std::path::PathBuf,
    /// Its `[embedding] model` setting.
    pub setting: String,
    /// The model directory that setting picks, or `builtin` for the built-in embedder.
    pub uses: std::path::PathBuf,
    /// Whether that is the built-in embedder.
    #[serde(skip)]
    pub builtin: bool,
}

/// `setup CLIENT --json`: the files that connect an agent client to this vault's MCP server.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SetUp {
    /// The client.
    pub client: crate::setup::Client,
    /// The project folder the files are in.
    pub project: std::path::PathBuf,
    /// The command the entries run.
    pub command: String,
    /// Whether memlane's entries were taken out.
    pub remove: bool,
    /// Whether nothing was written (`--dry-run`).
    pub dry_run: bool,
    /// Whether any file changed (or, on a dry run, would change).
    pub changed: bool,
    /// Every file the client's set-up concerns, changed or not.
    pub files: Vec<crate::setup::FileChange>,
    /// What was deliberately not written, and why.
    pub warnings: Vec<String>,
    /// The vault, when it is not the project's `.memories/` (the client's server then finds it
    /// only through `MEMLANE_VAULT`).
    #[serde(skip)]
    pub vault_elsewhere: Option<std::path::PathBuf>,
    /// Whether the command runs here (on `PATH`, or a path that exists).
    #[serde(skip)]
    pub command_found: bool,
}

/// `setup git --json`: memlane's merge driver registered in (or removed from) this clone.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct GitSetUp {
    /// Always `git`.
    pub client: &'static str,
    /// The git work tree the vault is in; `null` outside one (nothing to change).
    pub work_tree: Option<std::path::PathBuf>,
    /// Whether the driver was taken out.
    pub remove: bool,
    /// Whether nothing was written (`--dry-run`).
    pub dry_run: bool,
    /// Whether anything changed (or, on a dry run, would change).
    pub changed: bool,
    /// The changes made (or to be made).
    pub changes: Vec<crate::gitmerge::DriverChange>,
    /// The vault.
    #[serde(skip)]
    pub vault: std::path::PathBuf,
}

/// `merge-file --json`: a memory file merged as git's merge driver.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct MergedFile {
    /// The file's path in the repository (git's `%P`), else the path of our version.
    pub file_path: String,
    /// Whether the merge is clean (the exit code is 0).
    pub clean: bool,
    /// The frontmatter keys both sides changed differently (kept as ours, recorded under
    /// `merge_conflicts:`).
    pub key_conflicts: Vec<crate::gitmerge::KeyConflict>,
    /// Conflicting hunks of text left between git's markers.
    pub text_conflicts: usize,
    /// Whether the file was merged as plain text (its frontmatter did not read), so the
    /// conflicts are in the whole file rather than the body.
    #[serde(skip)]
    pub as_text: bool,
    /// Whether the file is not UTF-8 and git merged it as it merges any file (nothing else is
    /// known of the conflicts).
    #[serde(skip)]
    pub by_git: bool,
}
