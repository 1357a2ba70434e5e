//! Search, with the same checks, warming and link expansion for every front end.

use crate::Error;
use crate::config::{Intent, SearchProfile};
use crate::index::store::Indexes;
use crate::search::{SearchQuery, SearchResults, Signals};

use super::Session;

/// A search.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    /// The query and its filters.
    pub query: SearchQuery,
    /// Count the results as used (warm them).
    pub touch: bool,
    /// Also return memories linked to the top N results.
    ///
    /// Sizes (`limit`, `budget`, `expand`) are checked against [`crate::limits`] by the front
    /// end, which names them as its users typed them (`--limit`, `limit`).
    pub expand: Option<usize>,
}

/// What a search found.
#[derive(Debug, Clone)]
pub struct Found {
    /// The ranked results.
    pub results: SearchResults,
    /// Memories linked to the top results (`expand`), best first.
    pub expanded: Vec<Expanded>,
}

/// A memory linked to one of the top hits (`expand`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Expanded {
    /// `memory:<name>`.
    pub memory_id: String,
    /// Its name.
    pub name: String,
    /// Its id.
    pub id: String,
    /// The hit's score × the link's weight and confidence.
    pub score: f64,
    /// Its content, redacted.
    pub content: String,
    /// Its type.
    #[serde(rename = "type")]
    pub memory_type: String,
    /// Its status.
    pub status: String,
    /// Its tags.
    pub tags: Vec<String>,
    /// Its file.
    pub file_path: String,
    /// The hit that brought it.
    pub expanded_from: String,
    /// The link between them (in either direction).
    pub edge_type: String,
}

/// Parses a search intent ([`Intent::NAMES`]). The error does not repeat
/// what was given: a front end may have been handed memory content by mistake.
pub fn intent(s: &str) -> crate::Result<Intent> {
    s.parse().map_err(|_| Error::UnknownChoice { what: "intent", allowed: Intent::NAMES })
}

/// Parses a ranking profile ([`SearchProfile::NAMES`]).
pub fn profile(s: &str) -> crate::Result<SearchProfile> {
    s.parse().map_err(|_| Error::UnknownChoice { what: "profile", allowed: SearchProfile::NAMES })
}

/// Searches: checks the filters, ranks with the usage state, warms what it returns
/// (unless `touch` is off), and expands the top results along their links.
pub fn search<S: Session>(s: &S, req: &SearchRequest) -> crate::Result<Found> {
    let vault = s.vault();
    let q = &req.query;
    for t in &q.types {
        vault.check_type(t)?;
    }
    s.will_embed(Some(&q.text));
    let run = |idx: &Indexes, state: &crate::lifecycle::UsageState| {
        let results =
            crate::search::search(vault, idx, q, &Signals::from_usage(vault, idx, state))?;
        let used: Vec<(String, bool)> = results
            .hits
            .iter()
            .map(|h| (h.id.clone(), idx.manifest().get(&h.name).is_some_and(|e| e.pinned)))
            .collect();
        let expanded = match req.expand {
            Some(n) if n > 0 => expand(vault, idx, &results, n),
            _ => Vec::new(),
        };
        Ok((results, used, expanded))
    };
    let (results, used, expanded) = match s.indices() {
        // A one-command process reads the usage state once its indices are open, while its
        // other threads still check the memory files, instead of before that check starts.
        // Read once, though the search may run again (files changed meanwhile); a process
        // buffers no usage of its own.
        super::session::Indices::Process(_) => {
            let usage = std::cell::OnceCell::new();
            s.read_indexes(&|idx| {
                if usage.get().is_none() {
                    let (state, reset) = super::usage::read(vault)?;
                    if let Some(r) = reset {
                        s.warn(r.to_string());
                    }
                    let _ = usage.set(state);
                }
                run(idx, usage.get().expect("read just above"))
            })?
        }
        // A server takes its usage view before its indices, as every operation does: one
        // order of the two locks.
        super::session::Indices::Server(_) => {
            s.with_usage(&|state| s.read_indexes(&|idx| run(idx, state)))?
        }
    };
    if req.touch {
        super::memory::record_use(s, &used)?;
    }
    Ok(Found { results, expanded })
}

fn expand(
    vault: &crate::vault::Vault,
    idx: &Indexes,
    r: &SearchResults,
    n: usize,
) -> Vec<Expanded> {
    let shown: std::collections::HashSet<&str> = r.hits.iter().map(|h| h.name.as_str()).collect();
    let mut best: std::collections::BTreeMap<String, Expanded> = Default::default();
    for hit in r.hits.iter().take(n) {
        for rel in idx.graph().neighbors(
            &format!("memory:{}", hit.name),
            1,
            &crate::model::links::link_weight,
        ) {
            let Some(name) = rel.key.strip_prefix("memory:") else { continue };
            if shown.contains(name) {
                continue;
            }
            let Some(entry) = idx.manifest().get(name) else { continue };
            if entry.status != "active" {
                continue;
            }
            let score = hit.score * f64::from(rel.score);
            if best.get(name).is_some_and(|e| e.score >= score) {
                continue;
            }
            let Ok(mname) = crate::model::MemoryName::parse(name) else { continue };
            let Ok(m) = vault.load(&mname) else { continue };
            best.insert(
                name.to_owned(),
                Expanded {
                    memory_id: format!("memory:{name}"),
                    name: name.to_owned(),
                    id: entry.id.clone(),
                    score: super::wire::score(score),
                    content: m.redacted_content(vault.config.privacy.scrub_secrets),
                    memory_type: entry.memory_type.clone(),
                    status: entry.status.clone(),
                    tags: entry.tags.clone(),
                    file_path: m.path.display().to_string(),
                    expanded_from: hit.name.clone(),
                    edge_type: rel.path.first().map(|(_, t)| t.clone()).unwrap_or_default(),
                },
            );
        }
    }
    let mut out: Vec<Expanded> = best.into_values().collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.name.cmp(&b.name)));
    out
}
