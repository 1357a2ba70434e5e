//! The MCP tools: thin wrappers over the library, one per agent action.

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
#[allow(deprecated)]
use rmcp::model::SetLevelRequestParams;
use rmcp::model::{
    CallToolResult, Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::live::Live;
use crate::Error;
use crate::config::McpTools;
use crate::index::graph::EdgeData;
use crate::limits;
use crate::model::MemoryName;
use crate::model::links::normalize_target;
use crate::ops::wire::{self, MemoryJson};
use crate::ops::{self, Session, window};
use crate::search::SearchQuery;
use crate::vault::{UpdateRequest, Vault};

/// The MCP server over one vault.
#[derive(Clone)]
pub struct MemlaneServer {
    vault: Arc<Vault>,
    live: Arc<Live>,
    tool_router: ToolRouter<Self>,
}

impl std::fmt::Debug for MemlaneServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemlaneServer").field("vault", &self.vault.root()).finish()
    }
}

/// `{name}`
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NameParams {
    /// The memory: its name (e.g. `auth-decision` or `notes/auth-decision`), `name.md`, or its id
    #[serde(alias = "filename")]
    pub name: String,
}

/// `create_memory`
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CreateParams {
    /// The new memory's name: lowercase words joined by `-`, optionally in folders (`auth/jwt-plan`)
    #[serde(alias = "filename")]
    pub name: String,
    /// The Markdown body
    pub content: String,
    /// The memory type (e.g. fact, decision, plan, journal, preference); default from the config
    #[serde(default, rename = "type", alias = "memory_type")]
    pub memory_type: Option<String>,
    /// Tags for filtering
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// Create it even when an existing memory is nearly the same (normally refused)
    #[serde(default)]
    pub force: Option<bool>,
}

/// `update_memory` / `append_memory`
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ContentParams {
    /// The memory: its name, `name.md`, or its id
    #[serde(alias = "filename")]
    pub name: String,
    /// The Markdown text (update: the new body; append: text added at the end)
    pub content: String,
}

/// `search_memories`
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchParams {
    /// What to look for, in natural language or keywords
    pub query: String,
    /// Maximum results (default 5)
    #[serde(default)]
    pub limit: Option<usize>,
    /// Only memories of this type
    #[serde(default)]
    pub filter_type: Option<String>,
    /// Unix seconds: only memories created after this time
    #[serde(default)]
    pub after_timestamp: Option<i64>,
    /// Unix seconds: only memories created before this time
    #[serde(default)]
    pub before_timestamp: Option<i64>,
    /// Only memories from the last N days (overrides the timestamps)
    #[serde(default)]
    pub relative_days: Option<i64>,
}

/// `search_linked_memories`
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LinkedParams {
    /// Ranks the linked memories
    pub query: String,
    /// A project file path, e.g. `src/auth.py`
    pub target_document: String,
    /// Maximum results (default 5)
    #[serde(default)]
    pub limit: Option<usize>,
}

/// `get_memory_relationships`
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RelationshipsParams {
    /// The memory: its name, `name.md`, or its id
    #[serde(alias = "filename")]
    pub name: String,
    /// Only this link type (e.g. supersedes, depends_on, contradicts, related_to)
    #[serde(default, rename = "type", alias = "relationship_type")]
    pub edge_type: Option<String>,
}

/// `remember`
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RememberParams {
    /// One self-contained note (a decision, fix, preference or fact)
    pub content: String,
    /// The memory type (e.g. decision, fact, preference, observation)
    #[serde(default, rename = "type", alias = "memory_type")]
    pub memory_type: Option<String>,
}

/// `link_memories`
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LinkParams {
    /// The memory the link starts from
    pub from: String,
    /// The memory it points to
    pub to: String,
    /// The link type (default related_to; e.g. supersedes, depends_on, contradicts)
    #[serde(default, rename = "type")]
    pub edge_type: Option<String>,
}

/// `get_memory_stats`
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct NoParams {}

/// `summarize_memory`
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SummarizeParams {
    /// The memory: its name, `name.md`, or its id
    #[serde(alias = "filename")]
    pub name: String,
    /// The shorter text that replaces the memory's body (keep every fact worth keeping)
    pub content: String,
    /// The temperature to restart from (0–1; default 0.5)
    #[serde(default)]
    pub temperature: Option<f64>,
}

/// `merge_memories`
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MergeParams {
    /// The memories to merge (two or more names)
    #[serde(alias = "sources")]
    pub source_files: Vec<String>,
    /// The new memory's name (must not exist)
    #[serde(alias = "target")]
    pub target_file: String,
    /// The merged memory's body; when omitted, each source's body under a heading of its name.
    /// Frontmatter in it is ignored: type, tags and `consolidated_from` are generated
    #[serde(default, alias = "content")]
    pub summary_content: Option<String>,
    /// Archive the sources (`status: archived`) instead of moving them to the trash
    #[serde(default)]
    pub archive: Option<bool>,
}

/// `suggest_memory_merges`
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SuggestMergesParams {
    /// Minimum cosine similarity between every two members (0–1; default from the config, 0.85)
    #[serde(default)]
    pub threshold: Option<f64>,
    /// Maximum clusters (default 5)
    #[serde(default)]
    pub limit: Option<usize>,
    /// Only memories of this type
    #[serde(default)]
    pub filter_type: Option<String>,
}

/// `memory_tree`
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct TreeParams {
    /// List each memory's heading sections too (default true)
    #[serde(default)]
    pub sections: Option<bool>,
}

/// `get_related_memories`
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RelatedParams {
    /// The memory: its name, `name.md`, or its id
    #[serde(alias = "filename")]
    pub name: String,
    /// Exactly this many links away (default 1; a shared file or entity in between is a hop)
    #[serde(default)]
    pub depth: Option<usize>,
    /// Maximum results (default 10)
    #[serde(default)]
    pub limit: Option<usize>,
}

/// One piece of `split_memory`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PieceParams {
    /// The piece's name (default `<memory>-<n>`)
    #[serde(default)]
    pub name: Option<String>,
    /// The piece's Markdown body
    pub content: String,
}

/// `split_memory`
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SplitParams {
    /// The memory to split
    #[serde(alias = "filename")]
    pub name: String,
    /// The pieces; when omitted the memory is cut at its top-level headings
    #[serde(default)]
    pub pieces: Option<Vec<PieceParams>>,
    /// Move the original to the trash (its links then point to the first piece); default keeps it
    #[serde(default)]
    pub replace: Option<bool>,
}

/// `restore_memory`
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RestoreParams {
    /// A deleted memory's name or trash entry (see list_trash), or an existing memory's name
    /// together with `version`
    #[serde(alias = "filename")]
    pub name: String,
    /// Restore this history version of an existing memory (see memory_history)
    #[serde(default)]
    pub version: Option<usize>,
    /// Restore a deleted memory under this name instead
    #[serde(default)]
    pub as_name: Option<String>,
}

fn done(r: crate::Result<Value>) -> CallToolResult {
    match r {
        Ok(mut v) => {
            wire::tidy(&mut v);
            CallToolResult::structured(v)
        }
        Err(e) => super::hints::tool_error(&e),
    }
}

fn outcome_json<T: serde::Serialize>(o: &T) -> crate::Result<Value> {
    serde_json::to_value(o).map_err(|e| Error::Invalid(format!("cannot encode the result: {e}")))
}

/// `45.2KB`, as ragdocs' `get_memory_stats` reports sizes.
fn human_size(bytes: u64) -> String {
    let b = bytes as f64;
    if b < 1024.0 {
        format!("{bytes}B")
    } else if b < 1024.0 * 1024.0 {
        format!("{:.1}KB", b / 1024.0)
    } else {
        format!("{:.1}MB", b / (1024.0 * 1024.0))
    }
}

impl MemlaneServer {
    /// A server over `vault`.
    pub fn new(vault: Arc<Vault>) -> MemlaneServer {
        let live = Arc::new(Live::new(vault.clone()));
        MemlaneServer { vault, live, tool_router: Self::tool_router() }
    }

    /// The state kept between calls (indices, logging level, cold check).
    pub fn live(&self) -> &Arc<Live> {
        &self.live
    }

    fn create(&self, p: CreateParams) -> crate::Result<Value> {
        let req = ops::memory::CreateRequest {
            name: p.name,
            content: p.content,
            memory_type: p.memory_type,
            tags: p.tags.unwrap_or_default(),
            force: p.force.unwrap_or(false),
        };
        outcome_json(&ops::memory::create(self, req)?)
    }

    fn read(&self, p: &NameParams) -> crate::Result<Value> {
        let m = ops::memory::read(self, &p.name, true)?;
        outcome_json(&MemoryJson::new(&self.vault, &m, true))
    }

    fn search(&self, p: SearchParams) -> crate::Result<Value> {
        let vault = &*self.vault;
        limits::check_opt("limit", p.limit, 1, limits::MAX_RESULTS)?;
        let mut q = SearchQuery::new(p.query);
        q.limit = Some(p.limit.unwrap_or(5));
        q.types = p.filter_type.into_iter().collect();
        // More days than seconds can count means every memory.
        let since =
            p.relative_days.map(|d| ("relative_days", d.checked_mul(86_400).unwrap_or(i64::MAX)));
        let after =
            p.after_timestamp.map(|s| window::from_unix("after_timestamp", s)).transpose()?;
        let before =
            p.before_timestamp.map(|s| window::from_unix("before_timestamp", s)).transpose()?;
        let w = window::from_parts(vault, after, before, since)?;
        (q.after, q.before) = (w.after, w.before);
        let req = ops::search::SearchRequest { query: q, touch: true, expand: None };
        let found = ops::search::search(self, &req)?;
        let hits: Vec<Value> = found.results.hits.iter().map(|h| wire::hit(h, false)).collect();
        let mut out = json!({ "results": hits });
        if let Some(why) = self.live.unwritable() {
            out["warning"] = json!(crate::index::store::unwritable_message(&why));
        }
        Ok(out)
    }

    fn linked(&self, p: LinkedParams) -> crate::Result<Value> {
        let vault = &*self.vault;
        let limit = limits::check_opt("limit", p.limit, 1, limits::MAX_RESULTS)?.unwrap_or(5);
        let ghost = format!("ghost:{}", normalize_target(&p.target_document));
        let mut sq = SearchQuery::new(p.query);
        sq.limit = Some(10_000);
        let mut v = vault.clone();
        v.config.search.score_threshold = 0.0;
        let (links, scores) = self.live.with_indexes(|idx| {
            let mut links = idx.graph().memories_linking_to(&ghost);
            links.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.confidence.total_cmp(&a.1.confidence)));
            links.dedup_by(|a, b| a.0 == b.0);
            let scores: std::collections::HashMap<String, f64> =
                crate::search::search(&v, idx, &sq)?
                    .hits
                    .into_iter()
                    .map(|h| (h.name, h.score))
                    .collect();
            Ok((links, scores))
        })?;
        let mut scored: Vec<(f64, String, EdgeData)> = links
            .into_iter()
            .map(|(key, e)| {
                let name = key.trim_start_matches("memory:").to_owned();
                (scores.get(&name).copied().unwrap_or(0.0), name, e)
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.truncate(limit);
        let items: Vec<Value> = scored
            .iter()
            .map(|(score, name, e)| {
                let m = MemoryName::parse(name).ok().and_then(|n| vault.load(&n).ok());
                json!({
                    "memory_id": format!("memory:{name}"),
                    "name": name,
                    "score": score,
                    "edge_type": e.edge_type,
                    "context": e.context,
                    "content": m.as_ref().map(|m| m.redacted_content(vault.config.privacy.scrub_secrets)).unwrap_or_default(),
                    "file_path": m.as_ref().map(|m| m.path.display().to_string()).unwrap_or_default(),
                })
            })
            .collect();
        Ok(json!({ "target_document": normalize_target(&p.target_document), "results": items }))
    }

    fn relationships(&self, p: &RelationshipsParams) -> crate::Result<Value> {
        let m = self.vault.resolve(&p.name)?;
        let key = format!("memory:{}", m.name);
        let filter = p.edge_type.as_deref().map(ops::links::edge_type).transpose()?;
        let r =
            self.live.with_indexes(|idx| Ok(idx.graph().relationships(&key, filter.as_deref())))?;
        let outgoing: Vec<Value> = r.outgoing.iter().map(|(k, e)| e.to_json(k)).collect();
        let incoming: Vec<Value> = r.incoming.iter().map(|(k, e)| e.to_json(k)).collect();
        Ok(json!({
            "memory_id": key,
            "name": m.name.to_string(),
            "version_chain": r.version_chain,
            "outgoing": outgoing,
            "incoming": incoming,
        }))
    }

    fn stats(&self) -> crate::Result<Value> {
        self.live.with_indexes(|idx| {
            let mut by_type: std::collections::BTreeMap<&str, usize> = Default::default();
            let mut by_status: std::collections::BTreeMap<&str, usize> = Default::default();
            let mut tags: std::collections::BTreeMap<&str, usize> = Default::default();
            let (mut pinned, mut bytes) = (0, 0);
            for e in idx.manifest().entries.values() {
                *by_type.entry(&e.memory_type).or_default() += 1;
                *by_status.entry(&e.status).or_default() += 1;
                for t in &e.tags {
                    *tags.entry(t).or_default() += 1;
                }
                pinned += usize::from(e.pinned);
                bytes += e.size;
            }
            let root = self.vault.root().display().to_string();
            Ok(json!({
                "count": idx.manifest().entries.len(),
                "total_size": human_size(bytes),
                "total_bytes": bytes,
                "tags": tags,
                "types": by_type,
                "memory_path": root,
                "by_status": by_status,
                "pinned": pinned,
                "embedder": idx.embedder().id(),
                "graph": idx.graph().stats(),
            }))
        })
    }

    fn remember_impl(&self, p: RememberParams) -> crate::Result<Value> {
        outcome_json(&ops::memory::remember(self, p.content, p.memory_type)?)
    }

    fn set_pinned(&self, p: &NameParams, pinned: bool) -> crate::Result<Value> {
        outcome_json(&ops::memory::set_pinned(self, &p.name, pinned)?)
    }

    fn link(&self, p: &LinkParams) -> crate::Result<Value> {
        let to = ops::links::LinkTarget::Memory(p.to.clone());
        let edge = p.edge_type.as_deref().unwrap_or("related_to");
        outcome_json(&ops::links::link(self, &p.from, &to, edge)?)
    }
}

impl MemlaneServer {
    fn update_impl(&self, p: ContentParams) -> crate::Result<Value> {
        let req =
            UpdateRequest { content: Some(p.content), action: "update", ..Default::default() };
        outcome_json(&ops::memory::update(self, &p.name, &req)?)
    }

    fn append_impl(&self, p: ContentParams) -> crate::Result<Value> {
        outcome_json(&ops::memory::append(self, &p.name, &p.content)?)
    }

    fn delete_impl(&self, p: &NameParams) -> crate::Result<Value> {
        let mut out = ops::memory::delete(self, std::slice::from_ref(&p.name))?;
        outcome_json(&out.pop())
    }

    fn summarize(&self, p: SummarizeParams) -> crate::Result<Value> {
        outcome_json(&ops::consolidate::summarize(self, &p.name, p.content, p.temperature)?)
    }

    fn merge(&self, p: MergeParams) -> crate::Result<Value> {
        let archive = p.archive.unwrap_or(false);
        let out = ops::consolidate::merge(
            self,
            &p.source_files,
            &p.target_file,
            p.summary_content,
            archive,
        )?;
        outcome_json(&out)
    }

    fn suggest_merges(&self, p: SuggestMergesParams) -> crate::Result<Value> {
        let vault = &*self.vault;
        let limit = limits::check_opt("limit", p.limit, 1, limits::MAX_CLUSTERS)?.unwrap_or(5);
        let threshold = p.threshold.unwrap_or(vault.config.lifecycle.merge_threshold);
        let clusters = ops::consolidate::suggest_merges(
            self,
            Some(threshold),
            p.filter_type.as_deref(),
            limit,
        )?;
        let items: Vec<Value> = clusters
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let memories: Vec<Value> = c
                    .members
                    .iter()
                    .map(|m| {
                        let file = MemoryName::parse(&m.name)
                            .map(|n| vault.path_of(&n).display().to_string())
                            .unwrap_or_default();
                        json!({
                            "id": format!("memory:{}", m.name),
                            "name": m.name,
                            "type": m.memory_type,
                            "file_path": file,
                            "preview": m.preview,
                        })
                    })
                    .collect();
                json!({
                    "cluster_id": i,
                    "score": c.score,
                    "reason": c.reason,
                    "memory_count": c.members.len(),
                    "memories": memories,
                })
            })
            .collect();
        Ok(json!({ "threshold": threshold, "clusters": items }))
    }

    fn cold(&self) -> crate::Result<Value> {
        self.live.flush()?;
        let (items, reset) = crate::lifecycle::views::cold_memories(&self.vault)?;
        if let Some(r) = reset {
            tracing::warn!("{r}");
        }
        Ok(json!({
            "cold_threshold": self.vault.config.lifecycle.cold_threshold,
            "memories": outcome_json(&items)?,
        }))
    }

    fn tree(&self, p: &TreeParams) -> crate::Result<Value> {
        self.live.flush()?;
        let (rows, reset) = crate::lifecycle::views::tree(&self.vault, p.sections.unwrap_or(true))?;
        if let Some(r) = reset {
            tracing::warn!("{r}");
        }
        Ok(
            json!({ "vault": self.vault.root().display().to_string(), "memories": outcome_json(&rows)? }),
        )
    }

    fn history(&self, p: &NameParams) -> crate::Result<Value> {
        let m = self.vault.resolve(&p.name)?;
        let versions = self.vault.history(&m)?;
        Ok(
            json!({ "name": m.name.to_string(), "id": m.id.to_string(), "versions": outcome_json(&versions)? }),
        )
    }

    fn related(&self, p: &RelatedParams) -> crate::Result<Value> {
        let depth = limits::check_opt("depth", p.depth, 1, limits::MAX_DEPTH)?.unwrap_or(1);
        let limit = limits::check_opt("limit", p.limit, 1, limits::MAX_RESULTS)?.unwrap_or(10);
        let m = self.vault.resolve(&p.name)?;
        let key = format!("memory:{}", m.name);
        let mut rel = self.live.with_indexes(|idx| {
            Ok(idx.graph().neighbors(&key, depth, &crate::model::links::link_weight))
        })?;
        rel.truncate(limit);
        Ok(
            json!({ "memory_id": key, "name": m.name.to_string(), "depth": depth, "related": outcome_json(&rel)? }),
        )
    }

    fn split(&self, p: SplitParams) -> crate::Result<Value> {
        let pieces =
            p.pieces.map(|ps| ps.into_iter().map(|piece| (piece.name, piece.content)).collect());
        let replace = p.replace.unwrap_or(false);
        outcome_json(&ops::consolidate::split(self, &p.name, pieces, replace)?)
    }

    fn trash_list(&self) -> crate::Result<Value> {
        Ok(json!({ "entries": outcome_json(&self.vault.trash_list()?)? }))
    }

    fn restore(&self, p: &RestoreParams) -> crate::Result<Value> {
        if let Some(version) = p.version {
            if p.as_name.is_some() {
                return Err(Error::Invalid(
                    "as_name restores a deleted memory; it cannot be combined with version".into(),
                ));
            }
            return outcome_json(&ops::trash::restore_version(self, &p.name, version)?);
        }
        outcome_json(&ops::trash::restore_deleted(self, &p.name, p.as_name.as_deref())?)
    }
}

/// The tools listed with `[mcp] tools = "core"` (the others stay callable by name).
pub const CORE_TOOLS: &[&str] = &[
    "search_memories",
    "search_linked_memories",
    "read_memory",
    "remember",
    "create_memory",
    "update_memory",
    "append_memory",
    "delete_memory",
    "link_memories",
    "summarize_memory",
];

#[tool_router(router = tool_router)]
impl MemlaneServer {
    #[tool(
        description = "Create a new memory (a Markdown note) under a name you choose. Prefer `remember` when you do not need a specific name. Fails if the name exists."
    )]
    async fn create_memory(&self, Parameters(p): Parameters<CreateParams>) -> CallToolResult {
        done(self.create(p))
    }

    #[tool(description = "Read a whole memory: its content, type, tags and dates.")]
    async fn read_memory(&self, Parameters(p): Parameters<NameParams>) -> CallToolResult {
        done(self.read(&p))
    }

    #[tool(
        description = "Replace a memory's body with new content (the old version is kept in history)."
    )]
    async fn update_memory(&self, Parameters(p): Parameters<ContentParams>) -> CallToolResult {
        done(self.update_impl(p))
    }

    #[tool(description = "Add text to the end of a memory.")]
    async fn append_memory(&self, Parameters(p): Parameters<ContentParams>) -> CallToolResult {
        done(self.append_impl(p))
    }

    #[tool(
        description = "Delete a memory (moved to the vault's trash; restore_memory brings it back)."
    )]
    async fn delete_memory(&self, Parameters(p): Parameters<NameParams>) -> CallToolResult {
        done(self.delete_impl(&p))
    }

    #[tool(
        description = "Search the project's memories (hybrid keyword + semantic, ranked by relevance, recency and use). Use before answering questions about the project, past decisions, conventions, bugs or preferences."
    )]
    async fn search_memories(&self, Parameters(p): Parameters<SearchParams>) -> CallToolResult {
        done(self.search(p))
    }

    #[tool(
        description = "Find the memories that link to a project file (e.g. `src/auth.py`), ranked by a query. Use before changing a file."
    )]
    async fn search_linked_memories(
        &self,
        Parameters(p): Parameters<LinkedParams>,
    ) -> CallToolResult {
        done(self.linked(p))
    }

    #[tool(
        description = "A memory's links: outgoing, incoming and its version chain (supersedes), optionally of one type."
    )]
    async fn get_memory_relationships(
        &self,
        Parameters(p): Parameters<RelationshipsParams>,
    ) -> CallToolResult {
        done(self.relationships(&p))
    }

    #[tool(description = "Counts of memories by type and status, the embedder, and graph size.")]
    async fn get_memory_stats(&self, Parameters(_p): Parameters<NoParams>) -> CallToolResult {
        done(self.stats())
    }

    #[tool(
        description = "Remember one thing (a decision, bug fix, preference or learned fact). The name is generated; if a near-identical memory exists it is updated instead (reported as `updated`, else `created`)."
    )]
    async fn remember(&self, Parameters(p): Parameters<RememberParams>) -> CallToolResult {
        done(self.remember_impl(p))
    }

    #[tool(description = "Pin a memory so it never cools or counts as cold.")]
    async fn pin_memory(&self, Parameters(p): Parameters<NameParams>) -> CallToolResult {
        done(self.set_pinned(&p, true))
    }

    #[tool(description = "Unpin a memory so it cools normally again.")]
    async fn unpin_memory(&self, Parameters(p): Parameters<NameParams>) -> CallToolResult {
        done(self.set_pinned(&p, false))
    }

    #[tool(
        description = "Link one memory to another (written to the first memory's frontmatter). Types: related_to (default), supersedes, depends_on, contradicts, …"
    )]
    async fn link_memories(&self, Parameters(p): Parameters<LinkParams>) -> CallToolResult {
        done(self.link(&p))
    }

    #[tool(
        description = "Shrink a memory in place with a shorter rewrite (same name, id and links; the old version stays in history; its temperature restarts). Use on cold memories."
    )]
    async fn summarize_memory(&self, Parameters(p): Parameters<SummarizeParams>) -> CallToolResult {
        done(self.summarize(p))
    }

    #[tool(
        description = "Merge two or more memories into a new one: tags are united, `consolidated_from` recorded, links to the sources redirected; the sources go to the trash (or are archived)."
    )]
    async fn merge_memories(&self, Parameters(p): Parameters<MergeParams>) -> CallToolResult {
        done(self.merge(p))
    }

    #[tool(
        description = "Groups of near-duplicate memories worth merging, each with a similarity score, a reason and a preview of every member."
    )]
    async fn suggest_memory_merges(
        &self,
        Parameters(p): Parameters<SuggestMergesParams>,
    ) -> CallToolResult {
        done(self.suggest_merges(p))
    }

    #[tool(
        description = "Memories that have cooled below the cold threshold (unused for a long time), coldest first, with their size in tokens: candidates for summarize_memory."
    )]
    async fn get_cold_memories(&self, Parameters(_p): Parameters<NoParams>) -> CallToolResult {
        done(self.cold())
    }

    #[tool(
        description = "The whole vault as a tree: every memory with its type, temperature, pinned flag, token estimate and heading sections."
    )]
    async fn memory_tree(&self, Parameters(p): Parameters<TreeParams>) -> CallToolResult {
        done(self.tree(&p))
    }

    #[tool(
        description = "The earlier versions of a memory (kept on every update, summarize, merge or restore), numbered for restore_memory."
    )]
    async fn memory_history(&self, Parameters(p): Parameters<NameParams>) -> CallToolResult {
        done(self.history(&p))
    }

    #[tool(
        description = "Memories exactly `depth` links away from a memory (through links, shared files and entities), best connected first."
    )]
    async fn get_related_memories(
        &self,
        Parameters(p): Parameters<RelatedParams>,
    ) -> CallToolResult {
        done(self.related(&p))
    }

    #[tool(
        description = "Split a memory into several: the pieces you give, or one per top-level heading. The original stays (linked from each piece) unless replace is true."
    )]
    async fn split_memory(&self, Parameters(p): Parameters<SplitParams>) -> CallToolResult {
        done(self.split(p))
    }

    #[tool(
        description = "Deleted memories in the trash, newest first, with the entry to restore them by."
    )]
    async fn list_trash(&self, Parameters(_p): Parameters<NoParams>) -> CallToolResult {
        done(self.trash_list())
    }

    #[tool(
        description = "Bring back a deleted memory from the trash (by name or entry), or an earlier version of an existing memory (with version)."
    )]
    async fn restore_memory(&self, Parameters(p): Parameters<RestoreParams>) -> CallToolResult {
        done(self.restore(&p))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for MemlaneServer {
    #[allow(deprecated)]
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_logging().build())
            .with_server_info(Implementation::new("memlane", env!("CARGO_PKG_VERSION")))
            .with_instructions(super::INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, rmcp::ErrorData> {
        let full = self.vault.config.mcp.tools == McpTools::Full;
        let tools = self
            .tool_router
            .list_all()
            .into_iter()
            .filter(|t| full || CORE_TOOLS.contains(&t.name.as_ref()))
            .collect();
        Ok(ListToolsResult { tools, ..Default::default() })
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), rmcp::ErrorData> {
        self.live.set_level(request.level);
        // A client that just asked for warnings hears about memories already cold.
        super::send_cold_notification(&self.live, &context.peer).await;
        Ok(())
    }
}

impl Session for MemlaneServer {
    fn vault(&self) -> &Vault {
        &self.vault
    }

    fn with_indexes<R>(
        &self,
        f: &dyn Fn(&crate::index::store::Indexes) -> crate::Result<R>,
    ) -> crate::Result<R> {
        self.live.with_indexes(f)
    }

    fn with_usage<R>(
        &self,
        f: &dyn Fn(&crate::lifecycle::UsageState) -> crate::Result<R>,
    ) -> crate::Result<R> {
        self.live.with_usage(f)?
    }

    fn warm(&self, used: &[(String, bool)]) -> crate::Result<()> {
        self.live.warm(used)
    }

    fn flush_usage(&self) -> crate::Result<()> {
        self.live.flush()
    }

    fn wrote(&self) {
        self.live.wrote();
    }

    fn warn(&self, message: String) {
        tracing::warn!("{message}");
    }
}
