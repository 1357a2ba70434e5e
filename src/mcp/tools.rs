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
use super::{lenient, schema};
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
#[schemars(transform = schema::no_null_defaults)]
pub struct NameParams {
    /// The memory: its name (e.g. `auth-decision` or `notes/auth-decision`), `name.md`, or its id
    #[serde(alias = "filename")]
    pub name: String,
}

/// `read_memories`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct NamesParams {
    /// The memories to read (names, `name.md` or ids; one string is one name), at most 100
    #[serde(alias = "filenames", deserialize_with = "lenient::list")]
    pub names: Vec<String>,
}

/// `create_memory`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct CreateParams {
    /// The new memory's name: lowercase words joined by `-`, optionally in folders (`auth/jwt-plan`)
    #[serde(alias = "filename")]
    pub name: String,
    /// The Markdown body
    pub content: String,
    /// The memory type (e.g. fact, decision, plan, journal, preference); default from the config
    /// (`default_type`, journal)
    #[serde(default, rename = "type", alias = "memory_type")]
    #[schemars(with = "String")]
    pub memory_type: Option<String>,
    /// Tags for filtering (a list, or one tag as a string); default none
    #[serde(default, deserialize_with = "lenient::opt_list")]
    #[schemars(with = "Vec<String>")]
    pub tags: Option<Vec<String>>,
    /// Create it even when an existing memory is nearly the same (normally refused); default false
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "bool", extend("default" = false))]
    pub force: Option<bool>,
}

/// `update_memory` / `append_memory`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct ContentParams {
    /// The memory: its name, `name.md`, or its id
    #[serde(alias = "filename")]
    pub name: String,
    /// The Markdown text (update: the new body; append: text added at the end)
    pub content: String,
}

/// `search_memories`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct SearchParams {
    /// What to look for, in natural language or keywords
    pub query: String,
    /// Maximum results (1–1000; default 5)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "usize", extend("default" = 5, "minimum" = 1, "maximum" = 1000))]
    pub limit: Option<usize>,
    /// Only memories of these types (any of them; a list, or one type as a string)
    #[serde(default, deserialize_with = "lenient::opt_list")]
    #[schemars(with = "Vec<String>")]
    pub types: Option<Vec<String>>,
    /// Only memories with any of these tags (a list, or one tag as a string)
    #[serde(default, deserialize_with = "lenient::opt_list")]
    #[schemars(with = "Vec<String>")]
    pub tags: Option<Vec<String>>,
    /// Only memories created at or after this time: an ISO-8601 date or timestamp
    /// (`2026-01-10`, `2026-01-10T10:00:00Z`)
    #[serde(default)]
    #[schemars(with = "String")]
    pub after: Option<String>,
    /// Only memories created before this time: an ISO-8601 date or timestamp
    #[serde(default)]
    #[schemars(with = "String")]
    pub before: Option<String>,
    /// Only memories created within this long before now (`30m`, `12h`, `7d`, `2w`); overrides
    /// after and before
    #[serde(default)]
    #[schemars(with = "String")]
    pub since: Option<String>,
    /// What kind of search: general (default), recall (favours exact words), exact, explore
    /// (favours meaning)
    #[serde(default)]
    #[schemars(with = "String", extend("default" = "general", "enum" = ["general", "recall", "exact", "explore"]))]
    pub intent: Option<String>,
    /// Only memories with this status: active or archived (default: active, and archived too
    /// with include_archived)
    #[serde(default)]
    #[schemars(with = "String", extend("enum" = ["active", "archived"]))]
    pub status: Option<String>,
    /// Include archived memories; default false
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "bool", extend("default" = false))]
    pub include_archived: Option<bool>,
    /// Only memories of this type (ragdocs' name; joins `types`)
    #[serde(default)]
    #[schemars(with = "String")]
    pub filter_type: Option<String>,
    /// Unix seconds: only memories created after this time (ragdocs' form of `after`)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "i64")]
    pub after_timestamp: Option<i64>,
    /// Unix seconds: only memories created before this time (ragdocs' form of `before`)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "i64")]
    pub before_timestamp: Option<i64>,
    /// Only memories from the last N days (ragdocs' form of `since`; overrides the timestamps)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "i64", extend("minimum" = 0))]
    pub relative_days: Option<i64>,
}

/// `search_linked_memories`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct LinkedParams {
    /// Ranks the linked memories
    pub query: String,
    /// A project file path, e.g. `src/auth.py`
    pub target_document: String,
    /// Maximum results (1–1000; default 5)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "usize", extend("default" = 5, "minimum" = 1, "maximum" = 1000))]
    pub limit: Option<usize>,
}

/// `get_memory_relationships`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct RelationshipsParams {
    /// The memory: its name, `name.md`, or its id
    #[serde(alias = "filename")]
    pub name: String,
    /// Only this link type (e.g. supersedes, depends_on, contradicts, related_to); default all
    #[serde(default, rename = "type", alias = "relationship_type")]
    #[schemars(with = "String")]
    pub edge_type: Option<String>,
}

/// `remember`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct RememberParams {
    /// One self-contained note (a decision, fix, preference or fact)
    pub content: String,
    /// The memory type (e.g. decision, fact, preference, observation); default from the config
    /// (`default_type`, journal)
    #[serde(default, rename = "type", alias = "memory_type")]
    #[schemars(with = "String")]
    pub memory_type: Option<String>,
}

/// `link_memories`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct LinkParams {
    /// The memory the link starts from
    pub from: String,
    /// The memory it points to
    pub to: String,
    /// The link type (default related_to; e.g. supersedes, depends_on, contradicts)
    #[serde(default, rename = "type")]
    #[schemars(with = "String", extend("default" = "related_to"))]
    pub edge_type: Option<String>,
}

/// `get_memory_stats`
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct NoParams {}

/// `summarize_memory`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct SummarizeParams {
    /// The memory: its name, `name.md`, or its id
    #[serde(alias = "filename")]
    pub name: String,
    /// The shorter text that replaces the memory's body (keep every fact worth keeping)
    pub content: String,
    /// The temperature to restart from (0–1; default 0.5)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "f64", extend("default" = 0.5, "minimum" = 0, "maximum" = 1))]
    pub temperature: Option<f64>,
}

/// `merge_memories`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct MergeParams {
    /// The memories to merge (two or more names)
    #[serde(alias = "sources", deserialize_with = "lenient::list")]
    pub source_files: Vec<String>,
    /// The new memory's name (must not exist)
    #[serde(alias = "target")]
    pub target_file: String,
    /// The merged memory's body; when omitted, each source's body under a heading of its name.
    /// Frontmatter in it is ignored: type, tags and `consolidated_from` are generated
    #[serde(default, alias = "content")]
    #[schemars(with = "String")]
    pub summary_content: Option<String>,
    /// Archive the sources (`status: archived`) instead of moving them to the trash; default false
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "bool", extend("default" = false))]
    pub archive: Option<bool>,
}

/// `suggest_memory_merges`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct SuggestMergesParams {
    /// Minimum cosine similarity between every two members (0–1; default from the config,
    /// `[lifecycle] merge_threshold`, 0.85)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "f64", extend("default" = 0.85, "minimum" = 0, "maximum" = 1))]
    pub threshold: Option<f64>,
    /// Maximum clusters (default 5)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "usize", extend("default" = 5, "minimum" = 1))]
    pub limit: Option<usize>,
    /// Only memories of this type; default all
    #[serde(default)]
    #[schemars(with = "String")]
    pub filter_type: Option<String>,
}

/// `memory_tree`
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct TreeParams {
    /// List each memory's heading sections too (default true)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "bool", extend("default" = true))]
    pub sections: Option<bool>,
}

/// `get_related_memories`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct RelatedParams {
    /// The memory: its name, `name.md`, or its id
    #[serde(alias = "filename")]
    pub name: String,
    /// Exactly this many links away (1–32; default 1; a shared file or entity in between is a hop)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "usize", extend("default" = 1, "minimum" = 1, "maximum" = 32))]
    pub depth: Option<usize>,
    /// Maximum results (1–1000; default 10)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "usize", extend("default" = 10, "minimum" = 1, "maximum" = 1000))]
    pub limit: Option<usize>,
}

/// One piece of `split_memory`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct PieceParams {
    /// The piece's name (default `<memory>-<n>`)
    #[serde(default)]
    #[schemars(with = "String")]
    pub name: Option<String>,
    /// The piece's Markdown body
    pub content: String,
}

/// `split_memory`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct SplitParams {
    /// The memory to split
    #[serde(alias = "filename")]
    pub name: String,
    /// The pieces; when omitted the memory is cut at its top-level headings
    #[serde(default)]
    #[schemars(with = "Vec<PieceParams>")]
    pub pieces: Option<Vec<PieceParams>>,
    /// Move the original to the trash (its links then point to the first piece); default false
    /// (the original is kept)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "bool", extend("default" = false))]
    pub replace: Option<bool>,
}

/// `restore_memory`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct RestoreParams {
    /// A deleted memory's name or trash entry (see list_trash), or an existing memory's name
    /// together with `version`
    #[serde(alias = "filename")]
    pub name: String,
    /// Restore this history version of an existing memory (see memory_history); omit it to
    /// restore a deleted memory from the trash
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "usize", extend("minimum" = 1))]
    pub version: Option<usize>,
    /// Restore a deleted memory under this name instead of its old one
    #[serde(default)]
    #[schemars(with = "String")]
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

/// The library query for `search_memories`: the CLI's filters (types, tags, after/before/since,
/// intent) and ragdocs' (filter_type, Unix-second timestamps, relative_days). The time window
/// follows the CLI's rules ([`window`]): `since` (or `relative_days`) overrides both ends, and
/// an empty window is an error.
fn search_query(vault: &Vault, p: SearchParams) -> crate::Result<SearchQuery> {
    use crate::model::time::parse_duration_secs;
    limits::check_opt("limit", p.limit, 1, limits::MAX_RESULTS)?;
    let mut q = SearchQuery::new(p.query);
    q.limit = Some(p.limit.unwrap_or(5));
    q.types = p.types.unwrap_or_default();
    q.types.extend(p.filter_type);
    q.types.sort();
    q.types.dedup();
    q.tags = p.tags.unwrap_or_default();
    if let Some(st) = p.status {
        if st != "active" && st != "archived" {
            return Err(Error::Invalid("unknown status; use active or archived".to_owned()));
        }
        q.statuses = vec![st];
    }
    q.include_archived = p.include_archived.unwrap_or(false);
    if let Some(i) = &p.intent {
        q.intent = ops::search::intent(i)?;
    }
    let since = match (&p.since, p.relative_days) {
        (Some(s), _) => Some((
            "since",
            parse_duration_secs(s)
                .ok_or_else(|| Error::BadDuration { field: "since", value: String::new() })?,
        )),
        // More days than seconds can count means every memory.
        (None, Some(d)) => Some(("relative_days", d.checked_mul(86_400).unwrap_or(i64::MAX))),
        (None, None) => None,
    };
    let time =
        |key: &'static str, iso: Option<String>, secs: Option<i64>, unix: &'static str| match (
            iso, secs,
        ) {
            (Some(_), Some(_)) => {
                Err(Error::Invalid(format!("give {key} or {key}_timestamp, not both")))
            }
            (Some(s), None) => window::parse_time(key, &s).map(Some),
            (None, Some(n)) => window::from_unix(unix, n).map(Some),
            (None, None) => Ok(None),
        };
    let after = time("after", p.after, p.after_timestamp, "after_timestamp")?;
    let before = time("before", p.before, p.before_timestamp, "before_timestamp")?;
    let w = window::from_parts(vault, after, before, since)?;
    (q.after, q.before) = (w.after, w.before);
    Ok(q)
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

    /// Each memory asked for, in order; one that cannot be read is `{name, error}`, not a
    /// failed call.
    fn read_many(&self, p: &NamesParams) -> crate::Result<Value> {
        if p.names.len() > MAX_READ {
            return Err(Error::Invalid(format!(
                "{} names asked for; read at most {MAX_READ} per call",
                p.names.len()
            )));
        }
        let mut used = Vec::new();
        let items: Vec<Value> = p
            .names
            .iter()
            .map(|n| match self.vault.resolve(n) {
                Ok(m) => {
                    used.push((m.id.to_string(), m.meta.pinned));
                    serde_json::to_value(MemoryJson::new(&self.vault, &m, true)).unwrap_or_default()
                }
                Err(e) => json!({ "name": n, "error": e.to_string() }),
            })
            .collect();
        if !used.is_empty() {
            self.live.warm(&used)?;
        }
        let found = used.len();
        Ok(json!({ "memories": items, "found": found, "missing": items.len() - found }))
    }

    fn search(&self, p: SearchParams) -> crate::Result<Value> {
        let vault = &*self.vault;
        let q = search_query(vault, p)?;
        let req = ops::search::SearchRequest { query: q, touch: true, expand: None };
        let found = ops::search::search(self, &req)?;
        let hits: Vec<Value> = found.results.hits.iter().map(|h| wire::hit(h, false)).collect();
        let below: Vec<Value> =
            found.results.below_threshold.iter().map(|b| wire::below(b, false)).collect();
        let mut out = json!({ "results": hits, "below_threshold": below });
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

/// The most memories `read_memories` reads in one call.
const MAX_READ: usize = 100;

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
        title = "Create a memory",
        description = "Create a new memory (a Markdown note) under a name you choose. Prefer `remember` when you do not need a specific name. Fails if the name exists.",
        output_schema = schema::write(),
        annotations(
            title = "Create a memory",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn create_memory(&self, Parameters(p): Parameters<CreateParams>) -> CallToolResult {
        done(self.create(p))
    }

    #[tool(
        title = "Read a memory",
        description = "Read a whole memory: its content, type, tags and dates.",
        output_schema = schema::read(),
        annotations(
            title = "Read a memory",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn read_memory(&self, Parameters(p): Parameters<NameParams>) -> CallToolResult {
        done(self.read(&p))
    }

    #[tool(
        title = "Read several memories",
        description = "Read several memories in one call (names, `name.md` or ids), in the order given. A name that cannot be read is reported in its place as `{name, error}`; the others are still returned.",
        output_schema = schema::read_many(),
        annotations(
            title = "Read several memories",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn read_memories(&self, Parameters(p): Parameters<NamesParams>) -> CallToolResult {
        done(self.read_many(&p))
    }

    #[tool(
        title = "Replace a memory's body",
        description = "Replace a memory's body with new content (the old version is kept in history).",
        output_schema = schema::write(),
        annotations(
            title = "Replace a memory's body",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn update_memory(&self, Parameters(p): Parameters<ContentParams>) -> CallToolResult {
        done(self.update_impl(p))
    }

    #[tool(
        title = "Append to a memory",
        description = "Add text to the end of a memory.",
        output_schema = schema::write(),
        annotations(
            title = "Append to a memory",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn append_memory(&self, Parameters(p): Parameters<ContentParams>) -> CallToolResult {
        done(self.append_impl(p))
    }

    #[tool(
        title = "Delete a memory",
        description = "Delete a memory (moved to the vault's trash; restore_memory brings it back).",
        output_schema = schema::write(),
        annotations(
            title = "Delete a memory",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn delete_memory(&self, Parameters(p): Parameters<NameParams>) -> CallToolResult {
        done(self.delete_impl(&p))
    }

    #[tool(
        title = "Search memories",
        description = "Search the project's memories (hybrid keyword + semantic, ranked by relevance, recency and use). Use before answering questions about the project, past decisions, conventions, bugs or preferences. Optional filters: types, tags, status, a time window (after, before, or since such as 7d) and an intent.",
        output_schema = schema::search(),
        annotations(
            title = "Search memories",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn search_memories(&self, Parameters(p): Parameters<SearchParams>) -> CallToolResult {
        done(self.search(p))
    }

    #[tool(
        title = "Memories linked to a file",
        description = "Find the memories that link to a project file (e.g. `src/auth.py`), ranked by a query. Use before changing a file.",
        output_schema = schema::linked(),
        annotations(
            title = "Memories linked to a file",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn search_linked_memories(
        &self,
        Parameters(p): Parameters<LinkedParams>,
    ) -> CallToolResult {
        done(self.linked(p))
    }

    #[tool(
        title = "A memory's links",
        description = "A memory's links: outgoing, incoming and its version chain (supersedes), optionally of one type.",
        output_schema = schema::relationships(),
        annotations(
            title = "A memory's links",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn get_memory_relationships(
        &self,
        Parameters(p): Parameters<RelationshipsParams>,
    ) -> CallToolResult {
        done(self.relationships(&p))
    }

    #[tool(
        title = "Vault statistics",
        description = "Counts of memories by type and status, the embedder, and graph size.",
        output_schema = schema::stats(),
        annotations(
            title = "Vault statistics",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn get_memory_stats(&self, Parameters(_p): Parameters<NoParams>) -> CallToolResult {
        done(self.stats())
    }

    #[tool(
        title = "Remember a fact",
        description = "Remember one thing (a decision, bug fix, preference or learned fact). The name is generated; if a near-identical memory exists it is updated instead (reported as `updated`, else `created`).",
        output_schema = schema::remember(),
        annotations(
            title = "Remember a fact",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn remember(&self, Parameters(p): Parameters<RememberParams>) -> CallToolResult {
        done(self.remember_impl(p))
    }

    #[tool(
        title = "Pin a memory",
        description = "Pin a memory so it never cools or counts as cold.",
        output_schema = schema::write(),
        annotations(
            title = "Pin a memory",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn pin_memory(&self, Parameters(p): Parameters<NameParams>) -> CallToolResult {
        done(self.set_pinned(&p, true))
    }

    #[tool(
        title = "Unpin a memory",
        description = "Unpin a memory so it cools normally again.",
        output_schema = schema::write(),
        annotations(
            title = "Unpin a memory",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn unpin_memory(&self, Parameters(p): Parameters<NameParams>) -> CallToolResult {
        done(self.set_pinned(&p, false))
    }

    #[tool(
        title = "Link two memories",
        description = "Link one memory to another (written to the first memory's frontmatter). Types: related_to (default), supersedes, depends_on, contradicts, …",
        output_schema = schema::write(),
        annotations(
            title = "Link two memories",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn link_memories(&self, Parameters(p): Parameters<LinkParams>) -> CallToolResult {
        done(self.link(&p))
    }

    #[tool(
        title = "Summarize a memory in place",
        description = "Shrink a memory in place with a shorter rewrite (same name, id and links; the old version stays in history; its temperature restarts). Use on cold memories.",
        output_schema = schema::write(),
        annotations(
            title = "Summarize a memory in place",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn summarize_memory(&self, Parameters(p): Parameters<SummarizeParams>) -> CallToolResult {
        done(self.summarize(p))
    }

    #[tool(
        title = "Merge memories",
        description = "Merge two or more memories into a new one: tags are united, `consolidated_from` recorded, links to the sources redirected; the sources go to the trash (or are archived).",
        output_schema = schema::merge(),
        annotations(
            title = "Merge memories",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn merge_memories(&self, Parameters(p): Parameters<MergeParams>) -> CallToolResult {
        done(self.merge(p))
    }

    #[tool(
        title = "Suggest merges",
        description = "Groups of near-duplicate memories worth merging, each with a similarity score, a reason and a preview of every member.",
        output_schema = schema::suggest_merges(),
        annotations(
            title = "Suggest merges",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn suggest_memory_merges(
        &self,
        Parameters(p): Parameters<SuggestMergesParams>,
    ) -> CallToolResult {
        done(self.suggest_merges(p))
    }

    #[tool(
        title = "Cold memories",
        description = "Memories that have cooled below the cold threshold (unused for a long time), coldest first, with their size in tokens: candidates for summarize_memory.",
        output_schema = schema::cold(),
        annotations(
            title = "Cold memories",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn get_cold_memories(&self, Parameters(_p): Parameters<NoParams>) -> CallToolResult {
        done(self.cold())
    }

    #[tool(
        title = "Vault tree",
        description = "The whole vault as a tree: every memory with its type, temperature, pinned flag, token estimate and heading sections.",
        output_schema = schema::tree(),
        annotations(
            title = "Vault tree",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn memory_tree(&self, Parameters(p): Parameters<TreeParams>) -> CallToolResult {
        done(self.tree(&p))
    }

    #[tool(
        title = "A memory's history",
        description = "The earlier versions of a memory (kept on every update, summarize, merge or restore), numbered for restore_memory.",
        output_schema = schema::history(),
        annotations(
            title = "A memory's history",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn memory_history(&self, Parameters(p): Parameters<NameParams>) -> CallToolResult {
        done(self.history(&p))
    }

    #[tool(
        title = "Related memories",
        description = "Memories exactly `depth` links away from a memory (through links, shared files and entities), best connected first.",
        output_schema = schema::related(),
        annotations(
            title = "Related memories",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn get_related_memories(
        &self,
        Parameters(p): Parameters<RelatedParams>,
    ) -> CallToolResult {
        done(self.related(&p))
    }

    #[tool(
        title = "Split a memory",
        description = "Split a memory into several: the pieces you give, or one per top-level heading. The original stays (linked from each piece) unless replace is true.",
        output_schema = schema::split(),
        annotations(
            title = "Split a memory",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn split_memory(&self, Parameters(p): Parameters<SplitParams>) -> CallToolResult {
        done(self.split(p))
    }

    #[tool(
        title = "List the trash",
        description = "Deleted memories in the trash, newest first, with the entry to restore them by.",
        output_schema = schema::trash(),
        annotations(
            title = "List the trash",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn list_trash(&self, Parameters(_p): Parameters<NoParams>) -> CallToolResult {
        done(self.trash_list())
    }

    #[tool(
        title = "Restore a memory",
        description = "Bring back a deleted memory from the trash (by name or entry), or an earlier version of an existing memory (with version).",
        output_schema = schema::write(),
        annotations(
            title = "Restore a memory",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
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
