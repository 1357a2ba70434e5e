//! What each tool does: parse its parameters, call [`crate::ops`], and shape the JSON result.

use rmcp::model::CallToolResult;
use serde_json::{Value, json};

use crate::Error;
use crate::limits;
use crate::model::MemoryName;
use crate::model::links::normalize_target;
use crate::ops::wire::{self, MemoryJson};
use crate::ops::{self, window};
use crate::search::SearchQuery;
use crate::vault::{UpdateRequest, Vault};

use super::params::*;
use super::tools::{MAX_READ, MemlaneServer};

pub(super) fn done(r: crate::Result<Value>) -> CallToolResult {
    match r {
        Ok(mut v) => {
            wire::tidy(&mut v);
            CallToolResult::structured(v)
        }
        Err(e) => super::hints::tool_error(&e),
    }
}

fn outcome_json<T: serde::Serialize>(o: &T) -> crate::Result<Value> {
    serde_json::to_value(o)
        .map_err(|e| Error::Encode { what: "the result", problem: e.to_string() })
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
            return Err(Error::UnknownChoice { what: "status", allowed: &["active", "archived"] });
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
            (Some(_), Some(_)) => Err(Error::Exclusive { first: key, second: unix }),
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
    pub(super) fn mark_used_impl(&self, p: &MarkUsedParams) -> crate::Result<Value> {
        outcome_json(&ops::memory::mark_used(self, &p.names, p.context_for.as_deref())?)
    }

    pub(super) fn create(&self, p: CreateParams) -> crate::Result<Value> {
        let req = ops::memory::CreateRequest {
            name: p.name,
            content: p.content,
            memory_type: p.memory_type,
            tags: p.tags.unwrap_or_default(),
            force: p.force.unwrap_or(false),
        };
        outcome_json(&ops::memory::create(self, req)?)
    }

    pub(super) fn read(&self, p: &NameParams) -> crate::Result<Value> {
        let m = ops::memory::read(self, &p.name, true)?;
        outcome_json(&MemoryJson::new(&self.vault, &m, true))
    }

    /// Each memory asked for, in order; one that cannot be read is `{name, error}`, not a
    /// failed call.
    pub(super) fn read_many(&self, p: &NamesParams) -> crate::Result<Value> {
        if p.names.len() > MAX_READ {
            return Err(Error::TooManyNames { given: p.names.len(), max: MAX_READ });
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

    pub(super) fn search(&self, p: SearchParams) -> crate::Result<Value> {
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

    pub(super) fn linked(&self, p: LinkedParams) -> crate::Result<Value> {
        let limit = limits::check_opt("limit", p.limit, 1, limits::MAX_RESULTS)?.unwrap_or(5);
        let items = ops::links::linked(self, &p.target_document, Some(&p.query), limit)?;
        Ok(json!({ "target_document": normalize_target(&p.target_document), "results": items }))
    }

    pub(super) fn relationships(&self, p: &RelationshipsParams) -> crate::Result<Value> {
        outcome_json(&ops::links::relationships(self, &p.name, p.edge_type.as_deref())?)
    }

    pub(super) fn stats(&self) -> crate::Result<Value> {
        self.live.with_indexes(|idx| {
            let mut by_type: std::collections::BTreeMap<&str, usize> = Default::default();
            let mut by_status: std::collections::BTreeMap<&str, usize> = Default::default();
            let mut tags: std::collections::BTreeMap<&str, usize> = Default::default();
            let (mut pinned, mut bytes) = (0, 0);
            for e in idx.manifest().entries().values() {
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
                "count": idx.manifest().entries().len(),
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

    pub(super) fn remember_impl(&self, p: RememberParams) -> crate::Result<Value> {
        outcome_json(&ops::memory::remember(self, p.content, p.memory_type)?)
    }

    pub(super) fn set_pinned(&self, p: &NameParams, pinned: bool) -> crate::Result<Value> {
        outcome_json(&ops::memory::set_pinned(self, &p.name, pinned)?)
    }

    pub(super) fn link(&self, p: &LinkParams) -> crate::Result<Value> {
        let to = ops::links::LinkTarget::Memory(p.to.clone());
        let edge = p.edge_type.as_deref().unwrap_or("related_to");
        outcome_json(&ops::links::link(self, &p.from, &to, edge)?)
    }
}

impl MemlaneServer {
    pub(super) fn update_impl(&self, p: ContentParams) -> crate::Result<Value> {
        let req =
            UpdateRequest { content: Some(p.content), action: "update", ..Default::default() };
        outcome_json(&ops::memory::update(self, &p.name, &req)?)
    }

    pub(super) fn append_impl(&self, p: ContentParams) -> crate::Result<Value> {
        outcome_json(&ops::memory::append(self, &p.name, &p.content)?)
    }

    pub(super) fn delete_impl(&self, p: &NameParams) -> crate::Result<Value> {
        let mut out = ops::memory::delete(self, std::slice::from_ref(&p.name))?;
        outcome_json(&out.pop())
    }

    pub(super) fn summarize(&self, p: SummarizeParams) -> crate::Result<Value> {
        outcome_json(&ops::consolidate::summarize(self, &p.name, p.content, p.temperature)?)
    }

    pub(super) fn merge(&self, p: MergeParams) -> crate::Result<Value> {
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

    pub(super) fn suggest_merges(&self, p: SuggestMergesParams) -> crate::Result<Value> {
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

    pub(super) fn cold(&self) -> crate::Result<Value> {
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

    pub(super) fn tree(&self, p: &TreeParams) -> crate::Result<Value> {
        self.live.flush()?;
        let (rows, reset) = crate::lifecycle::views::tree(&self.vault, p.sections.unwrap_or(true))?;
        if let Some(r) = reset {
            tracing::warn!("{r}");
        }
        Ok(
            json!({ "vault": self.vault.root().display().to_string(), "memories": outcome_json(&rows)? }),
        )
    }

    pub(super) fn history(&self, p: &NameParams) -> crate::Result<Value> {
        let m = self.vault.resolve(&p.name)?;
        let versions = self.vault.history(&m)?;
        Ok(
            json!({ "name": m.name.to_string(), "id": m.id.to_string(), "versions": outcome_json(&versions)? }),
        )
    }

    pub(super) fn related(&self, p: &RelatedParams) -> crate::Result<Value> {
        let depth = limits::check_opt("depth", p.depth, 1, limits::MAX_DEPTH)?.unwrap_or(1);
        let limit = limits::check_opt("limit", p.limit, 1, limits::MAX_RESULTS)?.unwrap_or(10);
        outcome_json(&ops::links::related(self, &p.name, depth, limit)?)
    }

    pub(super) fn split(&self, p: SplitParams) -> crate::Result<Value> {
        let pieces =
            p.pieces.map(|ps| ps.into_iter().map(|piece| (piece.name, piece.content)).collect());
        let replace = p.replace.unwrap_or(false);
        outcome_json(&ops::consolidate::split(self, &p.name, pieces, replace)?)
    }

    pub(super) fn trash_list(&self) -> crate::Result<Value> {
        Ok(json!({ "entries": outcome_json(&self.vault.trash_list()?)? }))
    }

    pub(super) fn restore(&self, p: &RestoreParams) -> crate::Result<Value> {
        if let Some(version) = p.version {
            if p.as_name.is_some() {
                return Err(Error::RenameWithVersion);
            }
            return outcome_json(&ops::trash::restore_version(self, &p.name, version)?);
        }
        outcome_json(&ops::trash::restore_deleted(self, &p.name, p.as_name.as_deref())?)
    }
}
