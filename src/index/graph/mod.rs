//! The memory graph: typed links between memories, ghost targets and shared entities.
//!
//! This is the only module that uses petgraph (house style B1). Everything else sees string node
//! keys and plain data. The types live here; `edit` changes the graph, `query` reads it and
//! `storage` saves and loads it.
//!
//! # Nodes
//!
//! A node is named by a key:
//!
//! - `memory:<name>` — a memory. A memory node is **present** once it has been the subject of
//!   [`LinkGraph::set_links`] (with or without links) and until [`LinkGraph::remove_memory`].
//!   A memory key that is only ever the *target* of a link is a **missing** placeholder: the link
//!   is dangling.
//! - `ghost:<normalised target>` — a `[[link]]` to something that is not a memory (a code file,
//!   a doc). Normalising the target is the caller's job ([`crate::model`]'s link parser).
//! - `entity:<Name>` — a shared entity (MIRA's structural `shares_entity:<Name>` links).
//!
//! Any other key is treated like a ghost. Ghost and entity nodes exist only while an edge touches
//! them: they are garbage-collected as soon as they lose their last edge, and so is a missing
//! memory placeholder once nothing links to it any more.
//!
//! # Edges
//!
//! Edges are directed (`A supersedes B` is the edge `A → B`), typed by a string
//! (`supersedes`, `depends_on`, …, `shares_entity:<Name>`, `was_context_for`) and carry
//! [`EdgeData`]. Only memories have outgoing edges. Several edges between the same two nodes are
//! kept (different types, origins or contexts); exact duplicates are stored once, and a memory
//! never links to itself (such links are dropped).
//!
//! **Both directions.** MIRA stores every link twice so that it can walk it both ways without a
//! join. petgraph's adjacency lists already keep, for every node, its outgoing *and* its incoming
//! edges, so each edge is stored once and [`LinkGraph::incoming`] and the traversals walk it
//! backwards at the same cost as forwards, with no rebuild and no second copy to keep in sync.
//!
//! # Heal-on-read
//!
//! [`LinkGraph::remove_memory`] removes the memory's outgoing edges but keeps the edges other
//! memories have *to* it (their files still say so), now pointing at a missing placeholder. Every
//! read treats a missing memory as absent: [`outgoing`](LinkGraph::outgoing) leaves edges to it
//! out, [`incoming`](LinkGraph::incoming) of it is empty, [`neighbors`](LinkGraph::neighbors) and
//! [`version_chain`](LinkGraph::version_chain) neither list it nor walk through it, and
//! [`contains`](LinkGraph::contains) is false. Only [`dangling`](LinkGraph::dangling) (for
//! `doctor`) reports them. A dangling link heals by itself when a memory of that name is indexed
//! again, when the linking memory is re-parsed without the link, or when the caller redirects it
//! with [`rename_memory`](LinkGraph::rename_memory) (e.g. to a merge target).
//!
//! # On disk
//!
//! One JSON file, [`FILE`] under `indices/graph/`, written atomically: the [`FORMAT`] number, then
//! every node and every edge, sorted, so that the same graph always saves the same bytes. A file
//! that is missing, corrupt or of another format loads as `None` and the caller rebuilds.
//!
//! Beside it, [`JOURNAL`]: one JSON line per memory changed since `graph.json` was written (its
//! outgoing links, or its removal), appended by [`save_changes`](LinkGraph::save_changes) and
//! replayed by [`load`](LinkGraph::load), so that adding one memory to a 10k-memory vault writes
//! a line instead of the whole 8 MB file. Past [`JOURNAL_MAX_LINES`] the graph is written whole
//! and the journal removed. A journal line that does not parse makes the graph unreadable (the
//! caller rebuilds), like a corrupt `graph.json`. A process that has not loaded the graph can
//! still add new memories and remove memories by appending their lines
//! ([`append_unloaded`](LinkGraph::append_unloaded)), with [`GHOSTS`] telling it when it cannot.
//!
//! And [`BACKLINKS`]: for every ghost, the memories that link to it (each with its highest link
//! confidence), written with `graph.json` and stamped with that file's size, inode and mtime.
//! [`ghost_backlinks`](LinkGraph::ghost_backlinks) reads it and replays the journal on it, so
//! that the session-start digest finds the memories linked to the changed files without loading
//! the whole graph. A sidecar that is missing, unreadable or stamped for another `graph.json`
//! gives `None`, and the caller loads the graph instead: it is never a wrong answer.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use petgraph::Direction::{Incoming, Outgoing};
use petgraph::stable_graph::{EdgeIndex, NodeIndex, StableDiGraph};
use petgraph::visit::{EdgeRef, IntoEdgeReferences};
use serde::{Deserialize, Serialize};

mod edit;
mod query;
mod storage;

#[cfg(test)]
mod tests;

use edit::*;
pub use query::*;
use storage::*;
pub use storage::{Backlinks, read_ghosts};

use crate::error::PathError;

/// The on-disk format; a file with another number is ignored (and rebuilt). 2: with the
/// journal and ghost list (an older memlane, which ignores the journal, rebuilds instead of
/// reading a graph this one wrote, and the other way round).
pub const FORMAT: u32 = 2;

/// The file name under the graph directory.
pub const FILE: &str = "graph.json";

/// The file name of the journal of changes since [`FILE`] was written.
pub const JOURNAL: &str = "journal.jsonl";

/// Journal lines at most: a save past them writes the whole graph instead.
pub const JOURNAL_MAX_LINES: usize = 2048;

/// The file name of the list of ghost keys (one per line, sorted) beside [`FILE`]: what a
/// process that has not loaded the graph checks before it adds a memory through
/// [`LinkGraph::append_unloaded`] (a new memory named like a ghost takes over its links, which
/// needs the graph). It may list ghosts that are gone (they then cost a load), never miss one.
pub const GHOSTS: &str = "ghosts.txt";

/// The file name of the per-ghost index of the links into it, beside [`FILE`] (see the module's
/// "On disk").
pub const BACKLINKS: &str = "backlinks.json";

/// Key prefix of memory nodes.
pub const MEMORY_PREFIX: &str = "memory:";
/// Key prefix of ghost nodes.
pub const GHOST_PREFIX: &str = "ghost:";
/// Key prefix of entity nodes.
pub const ENTITY_PREFIX: &str = "entity:";

/// The edge type whose chains [`LinkGraph::version_chain`] follows.
pub const SUPERSEDES: &str = "supersedes";

/// What failed while saving or loading the graph.
#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    /// Reading or writing the file failed.
    #[error(transparent)]
    Io(#[from] PathError),
    /// The graph could not be encoded.
    #[error("cannot encode the link graph")]
    Encode(#[source] serde_json::Error),
}

/// What kind of node a key names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// `memory:<name>`.
    Memory,
    /// `ghost:<target>` (and any key without a known prefix).
    Ghost,
    /// `entity:<Name>`.
    Entity,
}

impl NodeKind {
    /// The kind of node `key` names.
    pub fn of(key: &str) -> NodeKind {
        if key.starts_with(MEMORY_PREFIX) {
            NodeKind::Memory
        } else if key.starts_with(ENTITY_PREFIX) {
            NodeKind::Entity
        } else {
            NodeKind::Ghost
        }
    }
}

/// The data on one edge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EdgeData {
    /// `supersedes`, `depends_on`, …, `shares_entity:<Name>`, `was_context_for`.
    pub edge_type: String,
    /// About 100 characters of text around the link.
    pub context: String,
    /// How sure the extractor was, 0 to 1 (a non-finite value is stored as 0).
    pub confidence: f32,
    /// Where the edge came from: `keyword`, `frontmatter`, `agent`, `entity` or `context`.
    pub origin: String,
}

/// One link out of a memory, as given to [`LinkGraph::set_links`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutLink {
    /// The target node key (`memory:…`, `ghost:…` or `entity:…`).
    pub target: String,
    /// The edge's data.
    pub data: EdgeData,
}

/// A memory found by [`LinkGraph::neighbors`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Related {
    /// Its node key.
    pub key: String,
    /// The product of `weight(edge_type) × confidence` along the best shortest path.
    pub score: f32,
    /// That path, one entry per hop: the node arrived at and the type of the edge taken (in
    /// either direction). The last entry is the memory itself, so `path.len()` is the depth.
    pub path: Vec<(String, String)>,
}

/// Counts for `stats` and `doctor`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct GraphStats {
    /// Present memories.
    pub memories: usize,
    /// Ghost nodes.
    pub ghosts: usize,
    /// Entity nodes.
    pub entities: usize,
    /// Edges, dangling ones included.
    pub edges: usize,
    /// Missing memories that something still links to.
    pub missing: usize,
}

/// How [`LinkGraph::neighbors`] reached a node: the path's score and the hop it came by.
#[derive(Debug, Clone, Copy)]
struct Hop<'a> {
    score: f32,
    prev: NodeIndex,
    edge_type: &'a str,
}

#[derive(Debug, Clone)]
struct Node {
    key: String,
    /// For memory nodes: linked to but not (or no longer) indexed.
    missing: bool,
}

/// The memory graph. See the [module documentation](self) for the model.
#[derive(Debug, Clone, Default)]
pub struct LinkGraph {
    graph: StableDiGraph<Node, EdgeData>,
    index: HashMap<String, NodeIndex>,
    /// What [`save_changes`](Self::save_changes) must write: the memories whose outgoing links
    /// or presence changed since the graph was read from or written to disk.
    changed: BTreeSet<String>,
    /// Whether the graph is what the folder holds, up to `changed`: read from it or written to
    /// it, and changed since only in ways the journal can say (not a rename).
    on_disk: bool,
    /// Lines in the folder's journal.
    journal_lines: usize,
}

impl LinkGraph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }
}
