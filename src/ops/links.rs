//! Operations on links: add and remove a frontmatter link.

use crate::Error;
use crate::model::links::{EdgeType, normalize_target};

use super::wire::{
    Linked, LinkedMemory, MemoryLink, RelatedMemories, RelatedMemory, Relationships, Written,
};

use super::{Session, write};

/// What a link points at.
#[derive(Debug, Clone)]
pub enum LinkTarget {
    /// Another memory, by any name a user types.
    Memory(String),
    /// A document of the project (a path, normalised).
    Document(String),
}

/// The canonical name of an edge type (`related_to`, `supersedes` …).
pub fn edge_type(t: &str) -> crate::Result<String> {
    EdgeType::canonical(t).map_err(Error::UnknownEdgeType)
}

/// Adds a typed link from `from` to `to` in `from`'s frontmatter (once: an existing link of
/// that type to that target is kept as it is). A memory cannot link to itself.
pub fn link<S: Session>(s: &S, from: &str, to: &LinkTarget, edge: &str) -> crate::Result<Written> {
    let vault = s.vault();
    let from = vault.resolve(from)?;
    let ty = edge_type(edge)?;
    let target = match to {
        LinkTarget::Document(d) => {
            // The target is written to the file and reaches the graph: it gets the content's
            // redaction, and one that would change is refused (quoted redacted).
            let clean = crate::privacy::sanitize(d, vault.config.privacy.scrub_secrets);
            if clean.had_private_content {
                return Err(Error::PrivateLinkTarget { redacted: clean.text });
            }
            normalize_target(d)
        }
        LinkTarget::Memory(n) => {
            let to = vault.resolve(n)?;
            if to.name == from.name {
                return Err(Error::SelfLink(from.name.to_string()));
            }
            format!("memory:{}", to.name)
        }
    };
    Ok(write(s, || vault.add_frontmatter_link(&from, &ty, &target))?.into())
}

/// Removes `from`'s frontmatter links to `to` (of `edge` only, when given). Removing nothing
/// is an error: the link may be in the body, where only an edit removes it.
pub fn unlink<S: Session>(
    s: &S,
    from: &str,
    to: &str,
    edge: Option<&str>,
) -> crate::Result<Written> {
    let vault = s.vault();
    let from = vault.resolve(from)?;
    let ty = edge.map(edge_type).transpose()?;
    let (out, removed) = write(s, || vault.remove_frontmatter_links(&from, to, ty.as_deref()))?;
    if removed == 0 {
        return Err(Error::NoSuchLink {
            from: from.name.to_string(),
            to: to.to_owned(),
            edge_type: ty,
        });
    }
    Ok(out.into())
}

/// The memories that link to `document` (`[[src/auth.py]]`), one per memory (its most
/// confident link), best first: ranked by `query` when one is given (every memory linking to
/// it is kept, however weak the match), else by the link's confidence.
pub fn linked<S: Session>(
    s: &S,
    document: &str,
    query: Option<&str>,
    limit: usize,
) -> crate::Result<Linked> {
    let vault = s.vault();
    let ghost = format!("ghost:{}", normalize_target(document));
    let mut unfiltered = vault.clone();
    unfiltered.config.search.score_threshold = 0.0;
    let (links, scores) = s.with_indexes(&|idx| {
        let mut links = idx.graph().memories_linking_to(&ghost);
        links.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.confidence.total_cmp(&a.1.confidence)));
        links.dedup_by(|a, b| a.0 == b.0);
        let scores: std::collections::HashMap<String, f64> = match query {
            Some(q) => {
                let mut sq = crate::search::SearchQuery::new(q);
                sq.limit = Some(10_000);
                crate::search::search(&unfiltered, idx, &sq, &crate::search::Signals::neutral())?
                    .hits
                    .into_iter()
                    .map(|h| (h.name, h.score))
                    .collect()
            }
            None => Default::default(),
        };
        Ok((links, scores))
    })?;
    let mut scored: Vec<(f64, String, crate::index::graph::EdgeData)> = links
        .into_iter()
        .map(|(key, e)| {
            let name = key.trim_start_matches("memory:").to_owned();
            let score = match query {
                Some(_) => scores.get(&name).copied().unwrap_or(0.0),
                None => f64::from(e.confidence),
            };
            (score, name, e)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.truncate(limit);
    let scrub = vault.config.privacy.scrub_secrets;
    let results = scored
        .into_iter()
        .map(|(score, name, e)| {
            let m = crate::model::MemoryName::parse(&name).ok().and_then(|n| vault.load(&n).ok());
            LinkedMemory {
                memory_id: format!("memory:{name}"),
                score: super::wire::score(score),
                edge_type: e.edge_type,
                anchor_context: e.context,
                content: m.as_ref().map(|m| m.redacted_content(scrub)).unwrap_or_default(),
                file_path: m.as_ref().map(|m| m.path.display().to_string()).unwrap_or_else(|| {
                    vault.root().join(format!("{name}.md")).display().to_string()
                }),
                name,
            }
        })
        .collect();
    Ok(Linked { target_document: normalize_target(document), results })
}

/// The links of the memory `name`, of type `edge` only when given.
pub fn relationships<S: Session>(
    s: &S,
    name: &str,
    edge: Option<&str>,
) -> crate::Result<Relationships> {
    let m = s.vault().resolve(name)?;
    let key = format!("memory:{}", m.name);
    let filter = edge.map(edge_type).transpose()?;
    let r = s.with_indexes(&|idx| Ok(idx.graph().relationships(&key, filter.as_deref())))?;
    Ok(Relationships {
        name: m.name.to_string(),
        version_chain: r.version_chain,
        outgoing: r.outgoing.iter().map(|(k, e)| MemoryLink::new(k, e)).collect(),
        incoming: r.incoming.iter().map(|(k, e)| MemoryLink::new(k, e)).collect(),
        memory_id: key,
    })
}

/// The memories exactly `depth` links away from `name`, best connected first, at most `limit`
/// (both checked against [`crate::limits`] by the front end).
pub fn related<S: Session>(
    s: &S,
    name: &str,
    depth: usize,
    limit: usize,
) -> crate::Result<RelatedMemories> {
    let m = s.vault().resolve(name)?;
    let key = format!("memory:{}", m.name);
    let mut related = s.with_indexes(&|idx| {
        Ok(idx.graph().neighbors(&key, depth, &crate::model::links::link_weight))
    })?;
    related.truncate(limit);
    let related = related
        .into_iter()
        .map(|r| RelatedMemory {
            key: r.key,
            score: super::wire::score(f64::from(r.score)),
            path: r.path,
        })
        .collect();
    Ok(RelatedMemories { name: m.name.to_string(), memory_id: key, depth, related })
}
