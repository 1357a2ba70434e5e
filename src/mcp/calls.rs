//! What each tool does: parse its parameters, call [`crate::ops`], and shape the JSON result.

use rmcp::model::CallToolResult;
use serde_json::Value;

use crate::Error;
use crate::limits;
use crate::ops::wire;
use crate::ops::{self, window};
use crate::search::SearchQuery;
use crate::vault::{UpdateRequest, Vault};

use super::params::*;
use super::tools::MemlaneServer;

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
        if !crate::model::frontmatter::STATUSES.contains(&st.as_str()) {
            let allowed = crate::model::frontmatter::STATUSES;
            return Err(Error::UnknownChoice { what: "status", allowed });
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
        outcome_json(&ops::views::show(self, &p.name, true)?.1)
    }

    pub(super) fn read_many(&self, p: &NamesParams) -> crate::Result<Value> {
        outcome_json(&ops::views::read_many(self, &p.names)?)
    }

    pub(super) fn search(&self, p: SearchParams) -> crate::Result<Value> {
        let vault = &*self.vault;
        let q = search_query(vault, p)?;
        let req = ops::search::SearchRequest { query: q, touch: true, expand: None };
        let mut found = wire::search_found(&ops::search::search(self, &req)?, false);
        found.warning =
            self.live.unwritable().map(|why| crate::index::store::unwritable_message(&why));
        outcome_json(&found)
    }

    pub(super) fn linked(&self, p: LinkedParams) -> crate::Result<Value> {
        let limit = limits::check_opt("limit", p.limit, 1, limits::MAX_RESULTS)?.unwrap_or(5);
        outcome_json(&ops::links::linked(self, &p.target_document, Some(&p.query), limit)?)
    }

    pub(super) fn relationships(&self, p: &RelationshipsParams) -> crate::Result<Value> {
        outcome_json(&ops::links::relationships(self, &p.name, p.edge_type.as_deref())?)
    }

    pub(super) fn stats(&self) -> crate::Result<Value> {
        outcome_json(&ops::views::stats(self)?)
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
        let limit = limits::check_opt("limit", p.limit, 1, limits::MAX_CLUSTERS)?.unwrap_or(5);
        outcome_json(&ops::views::suggest_merges(
            self,
            p.threshold,
            p.filter_type.as_deref(),
            limit,
        )?)
    }

    pub(super) fn cold(&self) -> crate::Result<Value> {
        outcome_json(&ops::views::cold(self)?)
    }

    pub(super) fn tree(&self, p: &TreeParams) -> crate::Result<Value> {
        outcome_json(&ops::views::tree(self, p.sections.unwrap_or(true))?)
    }

    pub(super) fn history(&self, p: &NameParams) -> crate::Result<Value> {
        outcome_json(&ops::views::history(self, &p.name)?)
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
        outcome_json(&ops::views::trash_list(self)?)
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
