//! The MCP tools: thin wrappers over the library, one per agent action.

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::Error;
use crate::index::graph::EdgeData;
use crate::index::store::Indexes;
use crate::lifecycle::UsageStore;
use crate::model::MemoryName;
use crate::model::links::{EdgeType, normalize_target};
use crate::search::SearchQuery;
use crate::vault::{AddRequest, Memory, UpdateRequest, Vault};

/// The MCP server over one vault.
#[derive(Clone)]
pub struct MemlaneServer {
    vault: Arc<Vault>,
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

fn done(r: crate::Result<Value>) -> CallToolResult {
    match r {
        Ok(v) => CallToolResult::structured(v),
        Err(e) => CallToolResult::error(vec![ContentBlock::text(e.to_string())]),
    }
}

fn outcome_json<T: serde::Serialize>(o: &T) -> crate::Result<Value> {
    serde_json::to_value(o).map_err(|e| Error::Invalid(format!("cannot encode the result: {e}")))
}

fn edge_type(t: &str) -> crate::Result<String> {
    EdgeType::canonical(t).map_err(|e| Error::Invalid(e.to_string()))
}

/// A name from the first words of `content`: slugified, at most six words, unique in the vault.
fn generated_name(vault: &Vault, content: &str) -> crate::Result<MemoryName> {
    let words: Vec<String> = content
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_lowercase())
        .filter(|w| !w.is_empty())
        .take(6)
        .collect();
    let base = if words.is_empty() { "memory".to_owned() } else { words.join("-") };
    for n in 1..10_000 {
        let candidate = if n == 1 { base.clone() } else { format!("{base}-{n}") };
        let name = MemoryName::parse(&candidate).map_err(Error::from)?;
        if !vault.path_of(&name).exists() {
            return Ok(name);
        }
    }
    Err(Error::Invalid(format!("no free name starting with `{base}`")))
}

impl MemlaneServer {
    /// A server over `vault`.
    pub fn new(vault: Arc<Vault>) -> MemlaneServer {
        MemlaneServer { vault, tool_router: Self::tool_router() }
    }

    /// Opens the indices and brings them up to date with the files.
    fn indexes(&self) -> crate::Result<Indexes> {
        let vault = &*self.vault;
        let embedder = crate::index::select::embedder_for(&vault.config)?;
        let mut idx = Indexes::open(vault, embedder)?;
        let report = idx.reconcile(vault)?;
        for p in &report.problems {
            tracing::warn!("{p}");
        }
        if !report.added_ids.is_empty() {
            let (now, cfg) = (vault.clock.now(), &vault.config.lifecycle);
            UsageStore::update(vault.root(), |state| {
                for id in &report.added_ids {
                    state.observe(id, now, cfg);
                }
            })?;
        }
        Ok(idx)
    }

    /// Warms memories the agent just used.
    fn touch(&self, used: &[(String, bool)]) -> crate::Result<()> {
        let vault = &*self.vault;
        let (now, cfg) = (vault.clock.now(), &vault.config.lifecycle);
        let (_, reset) = UsageStore::update(vault.root(), |state| {
            state.touch_day(now);
            for (id, pinned) in used {
                state.warm(id, *pinned, now, cfg);
            }
        })?;
        if let Some(r) = reset {
            tracing::warn!("{r}");
        }
        Ok(())
    }

    fn observe_new(&self, id: &str) -> crate::Result<()> {
        let vault = &*self.vault;
        let (now, cfg) = (vault.clock.now(), &vault.config.lifecycle);
        UsageStore::update(vault.root(), |state| {
            state.touch_day(now);
            state.observe(id, now, cfg);
        })?;
        Ok(())
    }

    fn memory_json(&self, m: &Memory) -> Value {
        json!({
            "memory_id": format!("memory:{}", m.name),
            "name": m.name.to_string(),
            "id": m.id.to_string(),
            "type": m.memory_type,
            "status": m.status,
            "tags": m.meta.tags,
            "pinned": m.meta.pinned,
            "created_at": m.created_at.to_string(),
            "updated_at": m.updated_at.to_string(),
            "file_path": m.path.display().to_string(),
            "content": m.redacted_content(self.vault.config.privacy.scrub_secrets),
        })
    }

    fn create(&self, p: CreateParams) -> crate::Result<Value> {
        let vault = &*self.vault;
        let name = MemoryName::parse(p.name.trim_end_matches(".md")).map_err(Error::from)?;
        if let Some(t) = &p.memory_type {
            vault.check_type(t)?;
        }
        let req = AddRequest {
            content: p.content,
            memory_type: p.memory_type,
            tags: p.tags.unwrap_or_default(),
        };
        let out = vault.add(&name, &req)?;
        self.observe_new(&out.id)?;
        outcome_json(&out)
    }

    fn read(&self, p: &NameParams) -> crate::Result<Value> {
        let m = self.vault.resolve(&p.name)?;
        self.touch(&[(m.id.to_string(), m.meta.pinned)])?;
        Ok(self.memory_json(&m))
    }

    fn search(&self, p: SearchParams) -> crate::Result<Value> {
        let vault = &*self.vault;
        if p.limit == Some(0) {
            return Err(Error::Invalid("limit must be at least 1".into()));
        }
        let mut q = SearchQuery::new(p.query);
        q.limit = Some(p.limit.unwrap_or(5));
        if let Some(t) = p.filter_type {
            vault.check_type(&t)?;
            q.types = vec![t];
        }
        let ts = |s: i64| {
            jiff::Timestamp::from_second(s)
                .map_err(|e| Error::Invalid(format!("bad timestamp {s}: {e}")))
        };
        if let Some(days) = p.relative_days {
            if days < 0 {
                return Err(Error::Invalid("relative_days must be 0 or more".into()));
            }
            q.after = Some(ts(vault.clock.now().as_second() - days * 86_400)?);
        } else {
            q.after = p.after_timestamp.map(ts).transpose()?;
            q.before = p.before_timestamp.map(ts).transpose()?;
            if let (Some(a), Some(b)) = (q.after, q.before)
                && a >= b
            {
                return Err(Error::Invalid(
                    "after_timestamp must be less than before_timestamp".into(),
                ));
            }
        }
        let idx = self.indexes()?;
        let (state, _) = UsageStore::open(vault.root())?;
        let state = state.into_state();
        let (now, lc) = (vault.clock.now(), vault.config.lifecycle.clone());
        let results = crate::search::search_with(vault, &idx, &q, &|id, pinned| {
            state.temperature(id, pinned, now, &lc)
        })?;
        if !results.hits.is_empty() {
            let used: Vec<(String, bool)> = results
                .hits
                .iter()
                .map(|h| {
                    (h.id.clone(), idx.manifest().entries.get(&h.name).is_some_and(|e| e.pinned))
                })
                .collect();
            self.touch(&used)?;
        }
        let hits: Vec<Value> = results
            .hits
            .iter()
            .map(|h| {
                json!({
                    "memory_id": h.memory_id,
                    "name": h.name,
                    "score": h.score,
                    "content": h.content,
                    "type": h.memory_type,
                    "status": h.status,
                    "tags": h.tags,
                    "file_path": h.file_path,
                    "header_path": h.header_path,
                })
            })
            .collect();
        Ok(json!({ "results": hits }))
    }

    fn linked(&self, p: LinkedParams) -> crate::Result<Value> {
        let vault = &*self.vault;
        let idx = self.indexes()?;
        let ghost = format!("ghost:{}", normalize_target(&p.target_document));
        let mut links = idx.graph().memories_linking_to(&ghost);
        links.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.confidence.total_cmp(&a.1.confidence)));
        links.dedup_by(|a, b| a.0 == b.0);
        let mut sq = SearchQuery::new(p.query);
        sq.limit = Some(10_000);
        let mut v = vault.clone();
        v.config.search.score_threshold = 0.0;
        let scores: std::collections::HashMap<String, f64> = crate::search::search(&v, &idx, &sq)?
            .hits
            .into_iter()
            .map(|h| (h.name, h.score))
            .collect();
        let mut scored: Vec<(f64, String, EdgeData)> = links
            .into_iter()
            .map(|(key, e)| {
                let name = key.trim_start_matches("memory:").to_owned();
                (scores.get(&name).copied().unwrap_or(0.0), name, e)
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.truncate(p.limit.unwrap_or(5));
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
        let idx = self.indexes()?;
        let m = self.vault.resolve(&p.name)?;
        let key = format!("memory:{}", m.name);
        let filter = p.edge_type.as_deref().map(edge_type).transpose()?;
        let r = idx.graph().relationships(&key, filter.as_deref());
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
        let idx = self.indexes()?;
        let mut by_type: std::collections::BTreeMap<String, usize> = Default::default();
        let mut by_status: std::collections::BTreeMap<String, usize> = Default::default();
        let mut pinned = 0;
        for e in idx.manifest().entries.values() {
            *by_type.entry(e.memory_type.clone()).or_default() += 1;
            *by_status.entry(e.status.clone()).or_default() += 1;
            pinned += usize::from(e.pinned);
        }
        Ok(json!({
            "vault": self.vault.root().display().to_string(),
            "memories": idx.manifest().entries.len(),
            "by_type": by_type,
            "by_status": by_status,
            "pinned": pinned,
            "embedder": idx.embedder().id(),
            "graph": idx.graph().stats(),
        }))
    }

    fn remember_impl(&self, p: RememberParams) -> crate::Result<Value> {
        let vault = &*self.vault;
        if p.content.trim().is_empty() {
            return Err(Error::Invalid("content is empty".into()));
        }
        if let Some(t) = &p.memory_type {
            vault.check_type(t)?;
        }
        let idx = self.indexes()?;
        let threshold = vault.config.lifecycle.remember_update_threshold;
        if let Some((dup, sim)) =
            crate::lifecycle::consolidate::find_duplicate(vault, &idx, &p.content, threshold)
        {
            let m = vault.resolve(&dup)?;
            let req = UpdateRequest {
                content: Some(p.content),
                memory_type: p.memory_type,
                action: "update",
                ..Default::default()
            };
            let out = vault.update(&m, &req)?;
            self.touch(&[(m.id.to_string(), m.meta.pinned)])?;
            let mut v = outcome_json(&out)?;
            v["action"] = json!("updated");
            v["similarity"] = json!(sim);
            return Ok(v);
        }
        let name = generated_name(vault, &p.content)?;
        let req = AddRequest { content: p.content, memory_type: p.memory_type, tags: Vec::new() };
        let out = vault.add(&name, &req)?;
        self.observe_new(&out.id)?;
        let mut v = outcome_json(&out)?;
        v["action"] = json!("created");
        Ok(v)
    }

    fn set_pinned(&self, p: &NameParams, pinned: bool) -> crate::Result<Value> {
        let vault = &*self.vault;
        let m = vault.resolve(&p.name)?;
        let (now, cfg) = (vault.clock.now(), vault.config.lifecycle.clone());
        let was = m.meta.pinned;
        UsageStore::update(vault.root(), |state| state.settle(m.id.as_str(), was, now, &cfg))?;
        outcome_json(&vault.set_pinned(&m, pinned)?)
    }

    fn link(&self, p: &LinkParams) -> crate::Result<Value> {
        let vault = &*self.vault;
        let from = vault.resolve(&p.from)?;
        let to = vault.resolve(&p.to)?;
        if to.name == from.name {
            return Err(Error::Invalid(format!("`{}` cannot link to itself", from.name)));
        }
        let ty = edge_type(p.edge_type.as_deref().unwrap_or("related_to"))?;
        outcome_json(&vault.add_frontmatter_link(&from, &ty, &format!("memory:{}", to.name))?)
    }
}

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
        done((|| {
            let m = self.vault.resolve(&p.name)?;
            let req =
                UpdateRequest { content: Some(p.content), action: "update", ..Default::default() };
            outcome_json(&self.vault.update(&m, &req)?)
        })())
    }

    #[tool(description = "Add text to the end of a memory.")]
    async fn append_memory(&self, Parameters(p): Parameters<ContentParams>) -> CallToolResult {
        done((|| {
            let m = self.vault.resolve(&p.name)?;
            outcome_json(&self.vault.append(&m, &p.content)?)
        })())
    }

    #[tool(description = "Delete a memory (moved to the vault's trash; it can be restored).")]
    async fn delete_memory(&self, Parameters(p): Parameters<NameParams>) -> CallToolResult {
        done((|| {
            let m = self.vault.resolve(&p.name)?;
            outcome_json(&self.vault.delete(&m)?)
        })())
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
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for MemlaneServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("memlane", env!("CARGO_PKG_VERSION")))
            .with_instructions(super::INSTRUCTIONS)
    }
}
