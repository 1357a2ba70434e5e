//! What the front ends show without changing a memory: the cold set, the tree, a memory's
//! history, the trash, the vault's counts, several memories at once.

use crate::Error;

use super::Session;
use super::wire::{
    self, ColdList, History, MemoryJson, MergeSuggestions, ReadItem, ReadMany, Stats, TrashEmptied,
    TrashList, Tree,
};

/// The most memories [`read_many`] reads in one call.
pub const MAX_READ: usize = 100;

/// Tells the user about a usage state that had to be reset.
fn warn_reset<S: Session + ?Sized>(s: &S, reset: Option<crate::lifecycle::StateReset>) {
    if let Some(r) = reset {
        s.warn(r.to_string());
    }
}

/// The cold memories, coldest first (memories the usage state had not seen start cooling now).
pub fn cold<S: Session>(s: &S) -> crate::Result<ColdList> {
    s.flush_usage()?;
    let vault = s.vault();
    let (items, reset) = crate::lifecycle::views::cold_memories(vault)?;
    warn_reset(s, reset);
    Ok(ColdList {
        cold_threshold: vault.config.lifecycle.cold_threshold,
        memories: items.into_iter().map(Into::into).collect(),
    })
}

/// Every memory in name order with its temperature and tokens, and its heading sections when
/// `sections`.
pub fn tree<S: Session>(s: &S, sections: bool) -> crate::Result<Tree> {
    s.flush_usage()?;
    let vault = s.vault();
    let (rows, reset) = crate::lifecycle::views::tree(vault, sections)?;
    warn_reset(s, reset);
    Ok(Tree {
        vault: vault.root().display().to_string(),
        memories: rows.into_iter().map(Into::into).collect(),
    })
}

/// The stored versions of the memory `name`, oldest first.
pub fn history<S: Session>(s: &S, name: &str) -> crate::Result<History> {
    let vault = s.vault();
    let m = vault.resolve(name)?;
    let versions = vault.history(&m)?;
    Ok(History {
        memory_id: format!("memory:{}", m.name),
        name: m.name.to_string(),
        id: m.id.to_string(),
        versions: versions.into_iter().map(Into::into).collect(),
    })
}

/// The deleted memories in the trash, newest first.
pub fn trash_list<S: Session>(s: &S) -> crate::Result<TrashList> {
    Ok(TrashList { entries: s.vault().trash_list()?.into_iter().map(Into::into).collect() })
}

/// Deletes trash entries for good: all, or those deleted more than `older_than_secs` ago.
pub fn trash_empty<S: Session>(s: &S, older_than_secs: Option<i64>) -> crate::Result<TrashEmptied> {
    let removed = super::write(s, || s.vault().trash_empty(older_than_secs))?;
    Ok(TrashEmptied { removed: removed.into_iter().map(Into::into).collect() })
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

/// Counts of the vault: memories by type, status and tag, their size, the embedder, the graph.
pub fn stats<S: Session>(s: &S) -> crate::Result<Stats> {
    let root = s.vault().root().display().to_string();
    s.with_indexes(&|idx| {
        let mut out = Stats {
            count: idx.manifest().len(),
            total_size: String::new(),
            total_bytes: 0,
            tags: Default::default(),
            types: Default::default(),
            memory_path: root.clone(),
            by_status: Default::default(),
            pinned: 0,
            embedder: idx.embedder().id().to_string(),
            graph: idx.graph().stats().into(),
        };
        for e in idx.manifest().entries().values() {
            *out.types.entry(e.memory_type.clone()).or_default() += 1;
            *out.by_status.entry(e.status.clone()).or_default() += 1;
            for t in &e.tags {
                *out.tags.entry(t.clone()).or_default() += 1;
            }
            out.pinned += usize::from(e.pinned);
            out.total_bytes += e.size;
        }
        out.total_size = human_size(out.total_bytes);
        Ok(out)
    })
}

/// Several memories (names, `name.md` or ids) in the order given, read as a use; a name that
/// cannot be read is reported in its place.
pub fn read_many<S: Session>(s: &S, names: &[String]) -> crate::Result<ReadMany> {
    if names.len() > MAX_READ {
        return Err(Error::TooManyNames { given: names.len(), max: MAX_READ });
    }
    let vault = s.vault();
    let mut used = Vec::new();
    let memories: Vec<ReadItem> = names
        .iter()
        .map(|n| match vault.resolve(n) {
            Ok(m) => {
                used.push((m.id.to_string(), m.meta.pinned));
                ReadItem::Found(Box::new(MemoryJson::new(vault, &m, true)))
            }
            Err(e) => ReadItem::Missing { name: n.clone(), error: e.to_string() },
        })
        .collect();
    super::memory::record_use(s, &used)?;
    let found = used.len();
    Ok(ReadMany { missing: memories.len() - found, found, memories })
}

/// Clusters of near-duplicate memories at `threshold` (default `lifecycle.merge_threshold`),
/// of one type when given, at most `limit`.
pub fn suggest_merges<S: Session>(
    s: &S,
    threshold: Option<f64>,
    memory_type: Option<&str>,
    limit: usize,
) -> crate::Result<MergeSuggestions> {
    let vault = s.vault();
    let threshold = threshold.unwrap_or(vault.config.lifecycle.merge_threshold);
    let found = super::consolidate::suggest_merges(s, Some(threshold), memory_type, limit)?;
    let clusters = super::maintenance::clusters(vault, found);
    Ok(MergeSuggestions { threshold, clusters })
}

/// How [`list`] orders memories.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListOrder {
    /// Newest first.
    Created,
    /// Most recently updated first.
    Updated,
    /// By name.
    Name,
    /// Warmest first (remindb's temperature).
    Temperature,
    /// Most important first (MIRA's importance).
    Importance,
}

/// What [`list`] lists.
#[derive(Debug, Clone)]
pub struct ListRequest {
    /// Only these types (any of them); empty keeps all.
    pub types: Vec<String>,
    /// Only memories with any of these tags; empty keeps all.
    pub tags: Vec<String>,
    /// `active`, `archived` or `all`.
    pub status: String,
    /// Created at or after.
    pub after: Option<jiff::Timestamp>,
    /// Created before.
    pub before: Option<jiff::Timestamp>,
    /// The order.
    pub order: ListOrder,
    /// Reverse it.
    pub reverse: bool,
    /// At most this many.
    pub limit: Option<usize>,
}

/// What [`list`] found.
#[derive(Debug)]
pub struct Listed {
    /// The memories, in order; with their temperature or importance when that is the order.
    pub memories: Vec<MemoryJson>,
    /// Files that could not be listed.
    pub problems: Vec<crate::vault::ScanProblem>,
}

/// The memories matching `req`, in its order. Ordered by temperature or importance, each
/// carries its value.
pub fn list<S: Session>(s: &S, req: &ListRequest) -> crate::Result<Listed> {
    use crate::vault::{ListFilter, ListSort};
    let vault = s.vault();
    for t in &req.types {
        vault.check_type(t)?;
    }
    let filter = ListFilter {
        types: req.types.clone(),
        tags: req.tags.clone(),
        statuses: vec![req.status.clone()],
        after: req.after,
        before: req.before,
        sort: match req.order {
            ListOrder::Created => ListSort::Created,
            ListOrder::Updated => ListSort::Updated,
            _ => ListSort::Name,
        },
        reverse: false,
        limit: None,
    };
    let (mut memories, problems) = vault.list(&filter)?;
    let keyed: Option<std::collections::HashMap<String, f64>> = match req.order {
        ListOrder::Temperature => Some(s.with_usage(&|state| {
            let (now, cfg) = (vault.clock.now(), &vault.config.lifecycle);
            Ok(memories
                .iter()
                .map(|m| {
                    (m.id.to_string(), state.temperature(m.id.as_str(), m.meta.pinned, now, cfg))
                })
                .collect())
        })?),
        ListOrder::Importance => Some(s.with_usage(&|state| {
            s.with_indexes(&|idx| {
                let source = crate::lifecycle::ImportanceSource::new(
                    idx,
                    state,
                    vault.clock.now(),
                    vault.config.lifecycle.clock,
                );
                Ok(memories
                    .iter()
                    .map(|m| {
                        let score = source.importance(m.name.as_str()).map_or(0.0, |i| i.score);
                        (m.id.to_string(), score)
                    })
                    .collect())
            })
        })?),
        _ => None,
    };
    if let Some(map) = &keyed {
        memories.sort_by(|a, b| {
            let (ka, kb) = (map[a.id.as_str()], map[b.id.as_str()]);
            kb.total_cmp(&ka).then_with(|| a.name.cmp(&b.name))
        });
    }
    if req.reverse {
        memories.reverse();
    }
    if let Some(limit) = req.limit {
        memories.truncate(limit);
    }
    let memories = memories
        .iter()
        .map(|m| {
            let mut v = MemoryJson::new(vault, m, false);
            if let Some(map) = &keyed {
                let value = Some(wire::level(map[m.id.as_str()]));
                if req.order == ListOrder::Temperature {
                    v.temperature = value;
                } else {
                    v.importance = value;
                }
            }
            v
        })
        .collect();
    Ok(Listed { memories, problems })
}

/// A memory as `show` prints it: the memory, and its JSON with its temperature (after this
/// read's warm-up) and MIRA importance. Importance needs the indices (links, entities); when
/// they cannot be opened it is left out with a warning rather than failing the read.
pub fn show<S: Session>(
    s: &S,
    name: &str,
    touch: bool,
) -> crate::Result<(crate::vault::Memory, MemoryJson)> {
    let m = super::memory::read(s, name, touch)?;
    let vault = s.vault();
    let (now, cfg) = (vault.clock.now(), &vault.config.lifecycle);
    let mut json = MemoryJson::new(vault, &m, true);
    let lifecycle = s.with_usage(&|state| {
        let temperature = state.temperature(m.id.as_str(), m.meta.pinned, now, cfg);
        let importance = s.with_indexes(&|idx| {
            let source = crate::lifecycle::ImportanceSource::new(idx, state, now, cfg.clock);
            Ok(source.importance(m.name.as_str()).map(|i| i.score))
        });
        Ok((temperature, importance))
    });
    let (temperature, importance) = match lifecycle {
        Ok((t, Ok(i))) => (t, i),
        Ok((t, Err(e))) => {
            s.warn(format!("importance not shown: {e}"));
            (t, None)
        }
        Err(e) => {
            s.warn(format!("cannot read the usage state: {e}"));
            (cfg.temperature_start, None)
        }
    };
    json.temperature = Some(wire::level(temperature));
    json.importance = importance.map(wire::level);
    Ok((m, json))
}

/// One memory as a listing of the whole vault shows it, from the indices (no file is read).
#[derive(Debug, Clone)]
pub struct PageEntry {
    /// The memory's name.
    pub name: String,
    /// Its first heading, redacted as its content is.
    pub title: String,
    /// Its type.
    pub memory_type: String,
    /// Its status.
    pub status: String,
    /// Whether it is pinned.
    pub pinned: bool,
    /// When it was last updated (RFC 3339, UTC).
    pub updated: String,
    /// Its file's size in bytes.
    pub size: u64,
}

/// Up to `limit` memories in name order after the name `after` (from the first when `None`),
/// and whether more follow.
pub fn page<S: Session>(
    s: &S,
    after: Option<&str>,
    limit: usize,
) -> crate::Result<(Vec<PageEntry>, bool)> {
    let scrub = s.vault().config.privacy.scrub_secrets;
    s.with_indexes(&|idx| {
        let mut page = Vec::new();
        // Only the page's entries are decoded.
        for (name, e) in idx.manifest().iter_after(after) {
            if page.len() == limit {
                return Ok((page, true));
            }
            let e = e.entry();
            page.push(PageEntry {
                name: name.to_owned(),
                title: crate::privacy::sanitize(&e.title, scrub).text,
                memory_type: e.memory_type.clone(),
                status: e.status.clone(),
                pinned: e.pinned,
                updated: jiff::Timestamp::from_second(e.updated)
                    .map(crate::model::time::format_timestamp)
                    .unwrap_or_default(),
                size: e.size,
            });
        }
        Ok((page, false))
    })
}
