//! The memory graph: typed links between memories, ghost targets and shared entities.
//!
//! This is the only file that uses petgraph (house style B1). Everything else sees string node
//! keys and plain data.
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

use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

use petgraph::Direction::{Incoming, Outgoing};
use petgraph::stable_graph::{EdgeIndex, NodeIndex, StableDiGraph};
use petgraph::visit::{EdgeRef, IntoEdgeReferences};
use serde::{Deserialize, Serialize};

use crate::error::PathError;

/// The on-disk format; a file with another number is ignored (and rebuilt).
pub const FORMAT: u32 = 1;

/// The file name under the graph directory.
pub const FILE: &str = "graph.json";

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
}

/// The saved file.
#[derive(Serialize, Deserialize)]
struct GraphFile {
    format: u32,
    nodes: Vec<NodeRecord>,
    edges: Vec<EdgeRecord>,
}

#[derive(Serialize, Deserialize)]
struct NodeRecord {
    key: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    missing: bool,
}

#[derive(Serialize, Deserialize)]
struct EdgeRecord {
    source: String,
    target: String,
    edge_type: String,
    context: String,
    confidence: f32,
    origin: String,
}

/// The stable order of edges out of (or into) one node: by the other end's key, then the data.
fn cmp_edge(a: (&str, &EdgeData), b: (&str, &EdgeData)) -> Ordering {
    a.0.cmp(b.0)
        .then_with(|| a.1.edge_type.cmp(&b.1.edge_type))
        .then_with(|| a.1.origin.cmp(&b.1.origin))
        .then_with(|| a.1.context.cmp(&b.1.context))
        .then_with(|| a.1.confidence.total_cmp(&b.1.confidence))
}

fn sanitize(mut data: EdgeData) -> EdgeData {
    if !data.confidence.is_finite() {
        data.confidence = 0.0;
    }
    data
}

impl LinkGraph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the graph saved in `dir`.
    ///
    /// `Ok(None)` when there is no file, or it is not valid UTF-8 JSON of this [`FORMAT`], or it
    /// is inconsistent (an edge to an unknown node, a duplicate node): the caller rebuilds from the
    /// files. Any other IO error (permissions, …) is an error naming the path, since a rebuild
    /// would not fix it.
    pub fn load(dir: &Path) -> Result<Option<Self>, GraphError> {
        let path = dir.join(FILE);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(PathError { action: "read", path, source }.into()),
        };
        let Ok(file) = serde_json::from_slice::<GraphFile>(&bytes) else {
            return Ok(None);
        };
        Ok(Self::from_file(file))
    }

    fn from_file(file: GraphFile) -> Option<Self> {
        if file.format != FORMAT {
            return None;
        }
        let mut g = LinkGraph::new();
        for n in file.nodes {
            if g.index.contains_key(&n.key) {
                return None;
            }
            let missing = n.missing && NodeKind::of(&n.key) == NodeKind::Memory;
            let idx = g.graph.add_node(Node { key: n.key.clone(), missing });
            g.index.insert(n.key, idx);
        }
        // Duplicates found with a set: a memory may have thousands of links (one per tag).
        let mut seen = HashSet::new();
        for e in file.edges {
            let (&s, &t) = (g.index.get(&e.source)?, g.index.get(&e.target)?);
            if s == t || NodeKind::of(&e.source) != NodeKind::Memory || g.graph[s].missing {
                return None;
            }
            let data = sanitize(EdgeData {
                edge_type: e.edge_type,
                context: e.context,
                confidence: e.confidence,
                origin: e.origin,
            });
            if seen.insert(edge_key(s, t, &data)) {
                g.graph.add_edge(s, t, data);
            }
        }
        let all: Vec<NodeIndex> = g.graph.node_indices().collect();
        for idx in all {
            g.gc(idx);
        }
        Some(g)
    }

    /// Writes the graph to `dir` (created if needed) atomically, deterministically.
    pub fn save(&self, dir: &Path) -> Result<(), GraphError> {
        let bytes = self.to_bytes()?;
        crate::vault::atomic_write(&dir.join(FILE), &bytes)?;
        Ok(())
    }

    fn to_bytes(&self) -> Result<Vec<u8>, GraphError> {
        let mut nodes: Vec<&Node> = self.graph.node_weights().collect();
        nodes.sort_by(|a, b| a.key.cmp(&b.key));
        let mut edges: Vec<(&str, &str, &EdgeData)> = (&self.graph)
            .edge_references()
            .map(|e| {
                (
                    self.graph[e.source()].key.as_str(),
                    self.graph[e.target()].key.as_str(),
                    e.weight(),
                )
            })
            .collect();
        edges.sort_by(|a, b| a.0.cmp(b.0).then_with(|| cmp_edge((a.1, a.2), (b.1, b.2))));
        let file = GraphFile {
            format: FORMAT,
            nodes: nodes
                .into_iter()
                .map(|n| NodeRecord { key: n.key.clone(), missing: n.missing })
                .collect(),
            edges: edges
                .into_iter()
                .map(|(s, t, d)| EdgeRecord {
                    source: s.to_owned(),
                    target: t.to_owned(),
                    edge_type: d.edge_type.clone(),
                    context: d.context.clone(),
                    confidence: d.confidence,
                    origin: d.origin.clone(),
                })
                .collect(),
        };
        let mut bytes = serde_json::to_vec(&file).map_err(GraphError::Encode)?;
        bytes.push(b'\n');
        Ok(bytes)
    }

    /// Replaces `memory`'s outgoing edges whose origin is in `origins` by `links`.
    ///
    /// `memory` is a `memory:` key (anything else is ignored); it becomes present (healing the
    /// links that pointed at it while it was missing). Its edges of other origins stay, so a
    /// re-parse of the file (`["keyword", "frontmatter", "entity"]`) keeps the agent's
    /// `was_context_for` edges; with no origins the call only adds. `links` are added as given
    /// whatever their origin, creating target nodes as needed (a `memory:` target not indexed
    /// yet is a missing placeholder); self-links and exact duplicates are dropped. Ghost, entity
    /// and missing-memory nodes left without edges are removed.
    pub fn set_links(&mut self, memory: &str, links: &[OutLink], origins: &[&str]) {
        if NodeKind::of(memory) != NodeKind::Memory {
            return;
        }
        let src = self.node(memory);
        self.graph[src].missing = false;
        let doomed: Vec<(EdgeIndex, NodeIndex)> = self
            .graph
            .edges_directed(src, Outgoing)
            .filter(|e| origins.contains(&e.weight().origin.as_str()))
            .map(|e| (e.id(), e.target()))
            .collect();
        let mut touched: Vec<NodeIndex> = Vec::with_capacity(doomed.len());
        for (id, target) in doomed {
            self.graph.remove_edge(id);
            touched.push(target);
        }
        // The edges already there, as a set: a memory may have thousands of links (one per
        // tag), and a scan of its edges per link would be quadratic.
        let mut seen: HashSet<EdgeKey> = self
            .graph
            .edges_directed(src, Outgoing)
            .map(|e| edge_key(src, e.target(), e.weight()))
            .collect();
        for link in links {
            if link.target == memory {
                continue;
            }
            let target = self.node(&link.target);
            let data = sanitize(link.data.clone());
            if seen.insert(edge_key(src, target, &data)) {
                self.graph.add_edge(src, target, data);
            }
        }
        for idx in touched {
            self.gc(idx);
        }
    }

    /// Removes a memory: its node and all its outgoing edges.
    ///
    /// Edges from other memories to it are kept (their files still link to it) and now point
    /// at a missing placeholder: reads skip them and [`dangling`](Self::dangling) lists them
    /// (see the module's heal-on-read). With nothing linking to it, the node goes entirely.
    /// Ghost and entity nodes left without edges are removed.
    pub fn remove_memory(&mut self, memory: &str) {
        let Some(&idx) = self.index.get(memory) else { return };
        if NodeKind::of(memory) != NodeKind::Memory {
            return;
        }
        let out: Vec<(EdgeIndex, NodeIndex)> =
            self.graph.edges_directed(idx, Outgoing).map(|e| (e.id(), e.target())).collect();
        for (id, _) in &out {
            self.graph.remove_edge(*id);
        }
        self.graph[idx].missing = true;
        self.gc(idx);
        for (_, target) in out {
            self.gc(target);
        }
    }

    /// Renames a memory, keeping its edges both ways (outgoing edges leave `to`, incoming ones
    /// now point at `to`).
    ///
    /// When `to` already has a node (a missing placeholder others linked to in advance, or a
    /// memory it is being merged into) the two are merged: the union of the edges, exact
    /// duplicates and would-be self-links dropped; `to` is present if either was. `from` may be
    /// a missing placeholder: renaming it onto a successor redirects the dangling links there.
    /// No-op when `from` is unknown, equals `to`, or either is not a `memory:` key.
    pub fn rename_memory(&mut self, from: &str, to: &str) {
        if from == to
            || NodeKind::of(from) != NodeKind::Memory
            || NodeKind::of(to) != NodeKind::Memory
        {
            return;
        }
        let Some(old) = self.index.remove(from) else { return };
        let Some(&new) = self.index.get(to) else {
            self.graph[old].key = to.to_owned();
            self.index.insert(to.to_owned(), old);
            return;
        };
        let present = !self.graph[old].missing || !self.graph[new].missing;
        let moved: Vec<(NodeIndex, NodeIndex, EdgeData)> = self
            .graph
            .edges_directed(old, Outgoing)
            .chain(self.graph.edges_directed(old, Incoming))
            .map(|e| {
                let s = if e.source() == old { new } else { e.source() };
                let t = if e.target() == old { new } else { e.target() };
                (s, t, e.weight().clone())
            })
            .collect();
        let touched: Vec<NodeIndex> = moved.iter().map(|(_, t, _)| *t).collect();
        self.graph.remove_node(old);
        for (s, t, data) in moved {
            if s != t && !self.has_edge(s, t, &data) {
                self.graph.add_edge(s, t, data);
            }
        }
        self.graph[new].missing = !present;
        self.gc(new);
        for idx in touched {
            self.gc(idx);
        }
    }

    /// Whether `key` is a present memory, a ghost or an entity (false for missing memories).
    pub fn contains(&self, key: &str) -> bool {
        self.live(key).is_some()
    }

    /// The edges out of `key`, sorted by target key then data; edges to missing memories are
    /// left out (heal-on-read).
    pub fn outgoing(&self, key: &str) -> Vec<(String, EdgeData)> {
        self.edges_of(key, Outgoing)
    }

    /// The edges into `key` (from memories), sorted by source key then data; empty for a
    /// missing memory.
    pub fn incoming(&self, key: &str) -> Vec<(String, EdgeData)> {
        self.edges_of(key, Incoming)
    }

    /// The memories linking to `ghost_key` (a `ghost:` key, though any key works), sorted by
    /// memory key then data, with each edge's type and context: for `linked <doc>`.
    pub fn memories_linking_to(&self, ghost_key: &str) -> Vec<(String, EdgeData)> {
        let mut out = self.incoming(ghost_key);
        out.retain(|(k, _)| NodeKind::of(k) == NodeKind::Memory);
        out
    }

    fn edges_of(&self, key: &str, dir: petgraph::Direction) -> Vec<(String, EdgeData)> {
        let Some(idx) = self.live(key) else { return Vec::new() };
        let mut out: Vec<(String, EdgeData)> = self
            .graph
            .edges_directed(idx, dir)
            .map(|e| (if dir == Outgoing { e.target() } else { e.source() }, e.weight()))
            .filter(|(other, _)| !self.graph[*other].missing)
            .map(|(other, d)| (self.graph[other].key.clone(), d.clone()))
            .collect();
        out.sort_by(|a, b| cmp_edge((&a.0, &a.1), (&b.0, &b.1)));
        out
    }

    /// The memories exactly `depth` hops from `memory` (shortest path length == `depth`), walking
    /// edges in both directions.
    ///
    /// Walks through ghost and entity nodes too, and each such node is a hop: two memories that
    /// link to the same file are 2 apart. Missing memories are neither listed nor walked through.
    /// A memory's score is the best product of `weights(edge_type) × confidence` over its
    /// shortest paths (between two nodes the best of their edges counts); ties between paths go
    /// to the smaller `(node, edge type)` so the result is deterministic. Sorted by score,
    /// highest first, then key. The start is never its own neighbour; depth 0 or an unknown
    /// start gives nothing.
    pub fn neighbors(
        &self,
        memory: &str,
        depth: usize,
        weights: &dyn Fn(&str) -> f32,
    ) -> Vec<Related> {
        let Some(start) = self.live(memory) else { return Vec::new() };
        if depth == 0 {
            return Vec::new();
        }
        // Every node reached so far with its best hop; the start's points at itself.
        let mut best: HashMap<NodeIndex, Hop<'_>> = HashMap::new();
        best.insert(start, Hop { score: 1.0, prev: start, edge_type: "" });
        let mut frontier = vec![start];
        for _ in 0..depth {
            let mut layer: HashMap<NodeIndex, Hop<'_>> = HashMap::new();
            for &u in &frontier {
                let base = best[&u].score;
                let edges =
                    self.graph.edges_directed(u, Outgoing).map(|e| (e.target(), e.weight())).chain(
                        self.graph.edges_directed(u, Incoming).map(|e| (e.source(), e.weight())),
                    );
                for (v, data) in edges {
                    if best.contains_key(&v) || self.graph[v].missing {
                        continue;
                    }
                    let score = base * weights(&data.edge_type) * data.confidence;
                    let hop = Hop { score, prev: u, edge_type: &data.edge_type };
                    match layer.get(&v) {
                        Some(cur) if !self.better(hop, *cur) => {}
                        _ => {
                            layer.insert(v, hop);
                        }
                    }
                }
            }
            if layer.is_empty() {
                return Vec::new();
            }
            frontier = layer.keys().copied().collect();
            best.extend(layer);
        }
        let mut out: Vec<Related> = frontier
            .into_iter()
            .filter(|&v| NodeKind::of(&self.graph[v].key) == NodeKind::Memory)
            .map(|v| {
                let mut path = Vec::with_capacity(depth);
                let mut cur = v;
                while cur != start {
                    let hop = best[&cur];
                    path.push((self.graph[cur].key.clone(), hop.edge_type.to_owned()));
                    cur = hop.prev;
                }
                path.reverse();
                Related { key: self.graph[v].key.clone(), score: best[&v].score, path }
            })
            .collect();
        out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.key.cmp(&b.key)));
        out
    }

    /// Whether hop `a` beats hop `b` to the same node: higher score, then smaller previous key,
    /// then smaller edge type.
    fn better(&self, a: Hop<'_>, b: Hop<'_>) -> bool {
        match a.score.total_cmp(&b.score) {
            Ordering::Greater => true,
            Ordering::Less => false,
            Ordering::Equal => {
                (self.graph[a.prev].key.as_str(), a.edge_type)
                    < (self.graph[b.prev].key.as_str(), b.edge_type)
            }
        }
    }

    /// The version chain through `memory` along `supersedes` edges (`A supersedes B` is `A → B`),
    /// newest first.
    ///
    /// The chain is `memory` with every memory that supersedes it, directly or not (newer), and
    /// every memory it supersedes, directly or not (older); siblings on another branch are not
    /// part of it. Ordered newest → oldest (a topological order, ties by key); members of a
    /// cycle, which has no order, follow in key order. Missing memories are skipped. `[memory]`
    /// when it has no `supersedes` edges; empty when it is not a present memory.
    pub fn version_chain(&self, memory: &str) -> Vec<String> {
        let Some(start) = self.live(memory) else { return Vec::new() };
        if NodeKind::of(memory) != NodeKind::Memory {
            return Vec::new();
        }
        let mut members: HashSet<NodeIndex> = HashSet::from([start]);
        for dir in [Outgoing, Incoming] {
            let mut stack = vec![start];
            let mut seen = HashSet::from([start]);
            while let Some(u) = stack.pop() {
                for v in self.supersedes_edges(u, dir) {
                    if seen.insert(v) {
                        members.insert(v);
                        stack.push(v);
                    }
                }
            }
        }
        // Kahn's algorithm restricted to the members, newest (nothing supersedes it) first.
        let mut indegree: HashMap<NodeIndex, usize> = members
            .iter()
            .map(|&m| {
                let n = self.supersedes_edges(m, Incoming).filter(|p| members.contains(p)).count();
                (m, n)
            })
            .collect();
        let key = |n: NodeIndex| self.graph[n].key.clone();
        let mut ready: BTreeSet<(String, NodeIndex)> =
            indegree.iter().filter(|(_, d)| **d == 0).map(|(&n, _)| (key(n), n)).collect();
        let mut out = Vec::with_capacity(members.len());
        let mut done: HashSet<NodeIndex> = HashSet::new();
        while let Some((k, n)) = ready.pop_first() {
            out.push(k);
            done.insert(n);
            for v in self.supersedes_edges(n, Outgoing).filter(|v| members.contains(v)) {
                let d = indegree.get_mut(&v).expect("member");
                *d = d.saturating_sub(1);
                if *d == 0 && !done.contains(&v) {
                    ready.insert((key(v), v));
                }
            }
        }
        let mut rest: Vec<String> =
            members.into_iter().filter(|n| !done.contains(n)).map(key).collect();
        rest.sort();
        out.extend(rest);
        out
    }

    /// The distinct present memories joined to `u` by a `supersedes` edge in direction `dir`.
    fn supersedes_edges(
        &self,
        u: NodeIndex,
        dir: petgraph::Direction,
    ) -> impl Iterator<Item = NodeIndex> + '_ {
        let mut seen = HashSet::new();
        self.graph
            .edges_directed(u, dir)
            .filter(|e| e.weight().edge_type == SUPERSEDES)
            .map(move |e| if dir == Outgoing { e.target() } else { e.source() })
            .filter(|&v| {
                NodeKind::of(&self.graph[v].key) == NodeKind::Memory && !self.graph[v].missing
            })
            .filter(move |&v| seen.insert(v))
    }

    /// Every link from a present memory to a missing one, as `(source, missing target)` keys,
    /// sorted, each pair once: for `doctor`.
    pub fn dangling(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = self
            .graph
            .node_indices()
            .filter(|&n| self.graph[n].missing)
            .flat_map(|n| {
                self.graph
                    .edges_directed(n, Incoming)
                    .map(move |e| (self.graph[e.source()].key.clone(), self.graph[n].key.clone()))
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// Node and edge counts.
    pub fn stats(&self) -> GraphStats {
        let mut s = GraphStats { edges: self.graph.edge_count(), ..GraphStats::default() };
        for n in self.graph.node_weights() {
            match NodeKind::of(&n.key) {
                NodeKind::Memory if n.missing => s.missing += 1,
                NodeKind::Memory => s.memories += 1,
                NodeKind::Ghost => s.ghosts += 1,
                NodeKind::Entity => s.entities += 1,
            }
        }
        s
    }

    /// The node for `key` unless it is a missing memory.
    fn live(&self, key: &str) -> Option<NodeIndex> {
        self.index.get(key).copied().filter(|&i| !self.graph[i].missing)
    }

    /// The node for `key`, created when needed (a new memory node starts missing).
    fn node(&mut self, key: &str) -> NodeIndex {
        if let Some(&idx) = self.index.get(key) {
            return idx;
        }
        let missing = NodeKind::of(key) == NodeKind::Memory;
        let idx = self.graph.add_node(Node { key: key.to_owned(), missing });
        self.index.insert(key.to_owned(), idx);
        idx
    }
}

/// What makes two edges the same, for the duplicate checks.
type EdgeKey = (NodeIndex, NodeIndex, String, String, u32, String);

fn edge_key(s: NodeIndex, t: NodeIndex, d: &EdgeData) -> EdgeKey {
    (s, t, d.edge_type.clone(), d.context.clone(), d.confidence.to_bits(), d.origin.clone())
}

impl LinkGraph {
    fn has_edge(&self, s: NodeIndex, t: NodeIndex, data: &EdgeData) -> bool {
        self.graph.edges_directed(s, Outgoing).any(|e| e.target() == t && e.weight() == data)
    }

    /// Removes `idx` if nothing keeps it: a ghost or entity without edges, a missing memory
    /// nothing links to. Present memories always stay.
    fn gc(&mut self, idx: NodeIndex) {
        let Some(node) = self.graph.node_weight(idx) else { return };
        let keep = match NodeKind::of(&node.key) {
            NodeKind::Memory if !node.missing => true,
            NodeKind::Memory => self.graph.edges_directed(idx, Incoming).next().is_some(),
            NodeKind::Ghost | NodeKind::Entity => {
                self.graph.neighbors_undirected(idx).next().is_some()
            }
        };
        if !keep {
            let key = node.key.clone();
            self.graph.remove_node(idx);
            self.index.remove(&key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(ty: &str, origin: &str, confidence: f32) -> EdgeData {
        EdgeData {
            edge_type: ty.to_owned(),
            context: format!("… {ty} …"),
            confidence,
            origin: origin.to_owned(),
        }
    }

    fn link(target: &str, ty: &str, origin: &str) -> OutLink {
        OutLink { target: target.to_owned(), data: data(ty, origin, 1.0) }
    }

    fn weighted(target: &str, ty: &str, confidence: f32) -> OutLink {
        OutLink { target: target.to_owned(), data: data(ty, "keyword", confidence) }
    }

    const PARSE: &[&str] = &["keyword", "frontmatter", "entity"];

    fn targets(g: &LinkGraph, key: &str) -> Vec<(String, String)> {
        g.outgoing(key).into_iter().map(|(k, d)| (k, d.edge_type)).collect()
    }

    fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
    }

    fn keys(related: &[Related]) -> Vec<&str> {
        related.iter().map(|r| r.key.as_str()).collect()
    }

    fn one(_: &str) -> f32 {
        1.0
    }

    #[test]
    fn node_kinds() {
        assert_eq!(NodeKind::of("memory:a/b"), NodeKind::Memory);
        assert_eq!(NodeKind::of("ghost:src/auth.py"), NodeKind::Ghost);
        assert_eq!(NodeKind::of("entity:Postgres"), NodeKind::Entity);
        assert_eq!(NodeKind::of("tag:x"), NodeKind::Ghost);
    }

    #[test]
    fn set_links_replaces_only_the_given_origins() {
        let mut g = LinkGraph::new();
        g.set_links(
            "memory:a",
            &[
                link("memory:b", "depends_on", "keyword"),
                link("memory:c", "extends", "frontmatter"),
                link("memory:d", "was_context_for", "agent"),
            ],
            PARSE,
        );
        g.set_links("memory:b", &[], PARSE);
        g.set_links("memory:c", &[], PARSE);
        g.set_links("memory:d", &[], PARSE);
        // Re-parse: the keyword and frontmatter edges are replaced, the agent's stays.
        g.set_links("memory:a", &[link("memory:c", "mentions", "keyword")], PARSE);
        assert_eq!(
            targets(&g, "memory:a"),
            pairs(&[("memory:c", "mentions"), ("memory:d", "was_context_for")])
        );
        // No origins: only adds (an agent's link), and exact duplicates are stored once.
        g.set_links("memory:a", &[link("memory:b", "causes", "agent")], &[]);
        g.set_links("memory:a", &[link("memory:b", "causes", "agent")], &[]);
        assert_eq!(
            targets(&g, "memory:a"),
            pairs(&[
                ("memory:b", "causes"),
                ("memory:c", "mentions"),
                ("memory:d", "was_context_for")
            ])
        );
        assert_eq!(g.incoming("memory:b").len(), 1);
        // Self-links are dropped; non-memory subjects are ignored.
        g.set_links("memory:a", &[link("memory:a", "extends", "keyword")], &[]);
        assert_eq!(g.outgoing("memory:a").len(), 3);
        g.set_links("ghost:x", &[link("memory:a", "mentions", "keyword")], PARSE);
        assert!(!g.contains("ghost:x"));
        assert_eq!(g.stats().edges, 3);
    }

    #[test]
    fn several_edges_to_one_target_are_kept() {
        let mut g = LinkGraph::new();
        g.set_links(
            "memory:a",
            &[
                link("memory:b", "depends_on", "keyword"),
                link("memory:b", "extends", "frontmatter"),
                link("memory:b", "was_context_for", "agent"),
                OutLink {
                    target: "memory:b".into(),
                    data: EdgeData {
                        context: "another place".into(),
                        ..data("depends_on", "keyword", 0.5)
                    },
                },
            ],
            PARSE,
        );
        g.set_links("memory:b", &[], PARSE);
        let out = g.outgoing("memory:a");
        assert_eq!(out.len(), 4);
        assert!(out.iter().all(|(k, _)| k == "memory:b"));
        let types: Vec<&str> = out.iter().map(|(_, d)| d.edge_type.as_str()).collect();
        assert_eq!(types, ["depends_on", "depends_on", "extends", "was_context_for"]);
        assert_eq!(g.incoming("memory:b").len(), 4);
        assert_eq!(g.stats(), GraphStats { memories: 2, edges: 4, ..GraphStats::default() });
    }

    #[test]
    fn orphan_ghosts_and_entities_are_collected() {
        let mut g = LinkGraph::new();
        g.set_links(
            "memory:a",
            &[
                link("ghost:src/auth.py", "refactors", "keyword"),
                link("ghost:docs/plan.md", "plans", "keyword"),
                link("entity:Postgres", "shares_entity:Postgres", "entity"),
            ],
            PARSE,
        );
        g.set_links(
            "memory:b",
            &[
                link("ghost:src/auth.py", "debugs", "keyword"),
                link("entity:Redis", "shares_entity:Redis", "entity"),
            ],
            PARSE,
        );
        assert_eq!(
            g.stats(),
            GraphStats { memories: 2, ghosts: 2, entities: 2, edges: 5, missing: 0 }
        );
        // Re-set: the plan doc and Postgres lose their only edge.
        g.set_links("memory:a", &[link("ghost:src/auth.py", "refactors", "keyword")], PARSE);
        assert!(!g.contains("ghost:docs/plan.md"));
        assert!(!g.contains("entity:Postgres"));
        assert!(g.contains("ghost:src/auth.py"));
        // Remove: Redis goes; auth.py stays while `a` still links to it.
        g.remove_memory("memory:b");
        assert!(!g.contains("entity:Redis"));
        assert!(g.contains("ghost:src/auth.py"));
        assert!(!g.contains("memory:b"));
        g.remove_memory("memory:a");
        assert_eq!(g.stats(), GraphStats::default());
        assert!(g.index.is_empty());
    }

    #[test]
    fn remove_keeps_incoming_edges_as_dangling() {
        let mut g = LinkGraph::new();
        g.set_links("memory:a", &[link("memory:b", "depends_on", "keyword")], PARSE);
        g.set_links("memory:c", &[link("memory:b", "extends", "keyword")], PARSE);
        g.set_links(
            "memory:b",
            &[link("memory:a", "causes", "keyword"), link("ghost:x.md", "mentions", "keyword")],
            PARSE,
        );
        assert!(g.dangling().is_empty());
        g.remove_memory("memory:b");
        assert!(!g.contains("memory:b"));
        assert!(!g.contains("ghost:x.md"), "b's outgoing edges went with it");
        assert!(g.incoming("memory:a").is_empty());
        // Reads skip the dead links; doctor sees them.
        assert!(g.outgoing("memory:a").is_empty());
        assert!(g.incoming("memory:b").is_empty());
        assert!(g.neighbors("memory:a", 1, &one).is_empty());
        assert_eq!(g.dangling(), pairs(&[("memory:a", "memory:b"), ("memory:c", "memory:b")]));
        assert_eq!(
            g.stats(),
            GraphStats { memories: 2, edges: 2, missing: 1, ..GraphStats::default() }
        );
        // The linker is re-parsed without the link: one left.
        g.set_links("memory:a", &[], PARSE);
        assert_eq!(g.dangling(), pairs(&[("memory:c", "memory:b")]));
        // The memory comes back: healed.
        g.set_links("memory:b", &[], PARSE);
        assert!(g.dangling().is_empty());
        assert_eq!(targets(&g, "memory:c"), pairs(&[("memory:b", "extends")]));
        // Once nothing links to a missing memory it is gone entirely.
        g.remove_memory("memory:b");
        g.set_links("memory:c", &[], PARSE);
        assert_eq!(g.stats(), GraphStats { memories: 2, ..GraphStats::default() });
        // A link to a memory never indexed is dangling too.
        g.set_links("memory:a", &[link("memory:zz", "mentions", "keyword")], PARSE);
        assert_eq!(g.dangling(), pairs(&[("memory:a", "memory:zz")]));
    }

    #[test]
    fn rename_keeps_edges_both_ways() {
        let mut g = LinkGraph::new();
        g.set_links("memory:a", &[link("memory:b", "depends_on", "keyword")], PARSE);
        g.set_links(
            "memory:b",
            &[link("memory:c", "extends", "keyword"), link("ghost:f.rs", "mentions", "keyword")],
            PARSE,
        );
        g.set_links("memory:c", &[], PARSE);
        g.rename_memory("memory:b", "memory:b2");
        assert!(!g.contains("memory:b") && g.contains("memory:b2"));
        assert_eq!(targets(&g, "memory:a"), pairs(&[("memory:b2", "depends_on")]));
        assert_eq!(
            targets(&g, "memory:b2"),
            pairs(&[("ghost:f.rs", "mentions"), ("memory:c", "extends")])
        );
        assert_eq!(g.incoming("memory:c")[0].0, "memory:b2");
        assert_eq!(g.memories_linking_to("ghost:f.rs")[0].0, "memory:b2");
        assert!(g.dangling().is_empty());

        // Onto an existing node: merged, self-links dropped.
        g.rename_memory("memory:b2", "memory:c");
        assert_eq!(targets(&g, "memory:a"), pairs(&[("memory:c", "depends_on")]),);
        assert_eq!(targets(&g, "memory:c"), pairs(&[("ghost:f.rs", "mentions")]));
        assert_eq!(
            g.stats(),
            GraphStats { memories: 2, ghosts: 1, edges: 2, missing: 0, entities: 0 }
        );

        // A dangling target redirected onto its successor.
        g.remove_memory("memory:c");
        assert_eq!(g.dangling(), pairs(&[("memory:a", "memory:c")]));
        g.set_links("memory:d", &[], PARSE);
        g.rename_memory("memory:c", "memory:d");
        assert!(g.dangling().is_empty());
        assert_eq!(targets(&g, "memory:a"), pairs(&[("memory:d", "depends_on")]));
        // Unknown or identical names do nothing.
        g.rename_memory("memory:nope", "memory:x");
        g.rename_memory("memory:d", "memory:d");
        assert!(g.contains("memory:d") && !g.contains("memory:x"));
    }

    /// a → b → c → d, e → b, and x -[mentions]-> ghost ← [mentions]- y with x → a.
    fn sample() -> LinkGraph {
        let mut g = LinkGraph::new();
        g.set_links("memory:a", &[weighted("memory:b", "depends_on", 0.9)], PARSE);
        g.set_links("memory:b", &[weighted("memory:c", "extends", 0.5)], PARSE);
        g.set_links("memory:c", &[weighted("memory:d", "causes", 1.0)], PARSE);
        g.set_links("memory:d", &[], PARSE);
        g.set_links("memory:e", &[weighted("memory:b", "contradicts", 1.0)], PARSE);
        g.set_links(
            "memory:x",
            &[
                weighted("ghost:src/auth.py", "mentions", 1.0),
                weighted("memory:a", "supersedes", 0.8),
            ],
            PARSE,
        );
        g.set_links("memory:y", &[weighted("ghost:src/auth.py", "mentions", 0.4)], PARSE);
        g
    }

    fn mira(ty: &str) -> f32 {
        match ty {
            "supersedes" => 1.0,
            "contradicts" => 0.9,
            "causes" => 0.8,
            "depends_on" => 0.7,
            "extends" => 0.6,
            _ => 0.3,
        }
    }

    #[test]
    fn neighbors_at_depth_one_walk_both_directions() {
        let g = sample();
        let n = g.neighbors("memory:b", 1, &mira);
        // a → b (in), e → b (in), b → c (out); scored weight × confidence.
        assert_eq!(keys(&n), ["memory:e", "memory:a", "memory:c"]);
        assert!((n[0].score - 0.9).abs() < 1e-6);
        assert!((n[1].score - 0.63).abs() < 1e-6);
        assert!((n[2].score - 0.3).abs() < 1e-6);
        assert_eq!(n[1].path, pairs(&[("memory:a", "depends_on")]));
        // Equal weights: the confidence orders.
        let n = g.neighbors("memory:b", 1, &one);
        assert_eq!(keys(&n), ["memory:e", "memory:a", "memory:c"]);
        assert!(g.neighbors("memory:b", 0, &one).is_empty());
        assert!(g.neighbors("memory:nope", 1, &one).is_empty());
    }

    #[test]
    fn neighbors_at_exactly_depth_two() {
        let g = sample();
        let n = g.neighbors("memory:b", 2, &mira);
        // d via c, x via a; not a/c/e (depth 1) nor b itself.
        assert_eq!(keys(&n), ["memory:x", "memory:d"]);
        assert!((n[0].score - 0.63 * 0.8).abs() < 1e-6);
        assert_eq!(n[0].path, pairs(&[("memory:a", "depends_on"), ("memory:x", "supersedes")]));
        assert_eq!(n[1].path, pairs(&[("memory:c", "extends"), ("memory:d", "causes")]));
        // A ghost hop counts: y is 2 from x, and 3 from a.
        let n = g.neighbors("memory:x", 2, &one);
        assert_eq!(keys(&n), ["memory:b", "memory:y"]);
        assert_eq!(
            n[1].path,
            pairs(&[("ghost:src/auth.py", "mentions"), ("memory:y", "mentions")])
        );
        assert!((n[1].score - 0.4).abs() < 1e-6);
        assert_eq!(keys(&g.neighbors("memory:a", 3, &one)), ["memory:d", "memory:y"]);
        // Nothing that far.
        assert!(g.neighbors("memory:d", 9, &one).is_empty());
        // Ghosts themselves are not listed.
        assert_eq!(keys(&g.neighbors("memory:y", 1, &one)), Vec::<&str>::new());
    }

    #[test]
    fn neighbors_take_the_best_shortest_path() {
        let mut g = LinkGraph::new();
        g.set_links(
            "memory:s",
            &[weighted("memory:p", "mentions", 0.2), weighted("memory:q", "mentions", 0.9)],
            PARSE,
        );
        g.set_links("memory:p", &[weighted("memory:t", "mentions", 1.0)], PARSE);
        g.set_links("memory:q", &[weighted("memory:t", "mentions", 0.5)], PARSE);
        g.set_links("memory:t", &[weighted("memory:q", "extends", 1.0)], PARSE);
        let n = g.neighbors("memory:s", 2, &one);
        assert_eq!(keys(&n), ["memory:t"]);
        // Via q with its best edge (t → q, extends, 1.0): 0.9 × 1.0.
        assert!((n[0].score - 0.9).abs() < 1e-6);
        assert_eq!(n[0].path, pairs(&[("memory:q", "mentions"), ("memory:t", "extends")]));
    }

    #[test]
    fn version_chain_from_any_member() {
        let mut g = LinkGraph::new();
        g.set_links("memory:v3", &[link("memory:v2", "supersedes", "keyword")], PARSE);
        g.set_links(
            "memory:v2",
            &[
                link("memory:v1", "supersedes", "frontmatter"),
                link("memory:o", "extends", "keyword"),
            ],
            PARSE,
        );
        g.set_links("memory:v1", &[], PARSE);
        g.set_links("memory:o", &[], PARSE);
        let chain = ["memory:v3", "memory:v2", "memory:v1"];
        for m in chain {
            assert_eq!(g.version_chain(m), chain, "from {m}");
        }
        assert_eq!(g.version_chain("memory:o"), ["memory:o"]);
        assert!(g.version_chain("memory:nope").is_empty());
        // A sibling branch is not on v3's chain.
        g.set_links("memory:w", &[link("memory:v1", "supersedes", "keyword")], PARSE);
        assert_eq!(g.version_chain("memory:v3"), chain);
        // From v1 both branches are newer: a topological order, ties by key.
        assert_eq!(
            g.version_chain("memory:v1"),
            ["memory:v3", "memory:v2", "memory:w", "memory:v1"]
        );
        // Cycle-safe.
        g.set_links("memory:v1", &[link("memory:v3", "supersedes", "keyword")], PARSE);
        let mut c = g.version_chain("memory:v2");
        c.sort();
        assert_eq!(c, ["memory:v1", "memory:v2", "memory:v3", "memory:w"]);
        // Missing members are skipped.
        g.set_links("memory:v1", &[], PARSE);
        g.remove_memory("memory:v2");
        assert_eq!(g.version_chain("memory:v3"), ["memory:v3"]);
    }

    #[test]
    fn memories_linking_to_a_ghost() {
        let g = sample();
        let got = g.memories_linking_to("ghost:src/auth.py");
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0, "memory:x");
        assert_eq!(got[1].0, "memory:y");
        assert_eq!(got[1].1, data("mentions", "keyword", 0.4));
        assert!(g.memories_linking_to("ghost:nothing").is_empty());
    }

    #[test]
    fn save_load_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let mut g = sample();
        g.set_links(
            "memory:x",
            &[OutLink {
                target: "entity:Auth Service".into(),
                data: EdgeData {
                    edge_type: "shares_entity:Auth Service".into(),
                    context: "quotes \" and \n newlines, ünïcode".into(),
                    confidence: 0.123_456_79,
                    origin: "entity".into(),
                },
            }],
            &[],
        );
        g.set_links("memory:x", &[link("memory:e", "was_context_for", "agent")], &[]);
        g.remove_memory("memory:d");
        assert_eq!(g.dangling().len(), 1);
        g.save(dir.path()).unwrap();
        let back = LinkGraph::load(dir.path()).unwrap().expect("loads");
        let mut all: Vec<&String> = g.index.keys().collect();
        all.sort();
        for key in &all {
            assert_eq!(back.outgoing(key), g.outgoing(key), "{key}");
            assert_eq!(back.incoming(key), g.incoming(key), "{key}");
        }
        assert_eq!(back.stats(), g.stats());
        assert_eq!(back.dangling(), g.dangling());
        assert_eq!(back.neighbors("memory:b", 2, &mira), g.neighbors("memory:b", 2, &mira));
        let first = std::fs::read(dir.path().join(FILE)).unwrap();
        let other = tempfile::tempdir().unwrap();
        back.save(other.path()).unwrap();
        assert_eq!(std::fs::read(other.path().join(FILE)).unwrap(), first);
        // The same graph built in another order saves the same bytes.
        let mut h = LinkGraph::new();
        for key in all.iter().rev() {
            if NodeKind::of(key) == NodeKind::Memory && g.contains(key) {
                let links: Vec<OutLink> = g
                    .graph
                    .edges_directed(g.index[*key], Outgoing)
                    .map(|e| OutLink {
                        target: g.graph[e.target()].key.clone(),
                        data: e.weight().clone(),
                    })
                    .collect();
                h.set_links(key, &links, &[]);
            }
        }
        h.set_links("memory:d", &[], &[]);
        h.remove_memory("memory:d");
        assert_eq!(h.to_bytes().unwrap(), first);
    }

    #[test]
    fn missing_corrupt_or_foreign_files_load_as_none() {
        let dir = tempfile::tempdir().unwrap();
        assert!(LinkGraph::load(dir.path()).unwrap().is_none());
        assert!(LinkGraph::load(&dir.path().join("no/such/dir")).unwrap().is_none());
        let path = dir.path().join(FILE);
        let bad: &[&[u8]] = &[
            b"",
            b"{not json",
            b"\xff\xfe",
            br#"{"format":999,"nodes":[],"edges":[]}"#,
            br#"{"format":1,"nodes":[{"key":"memory:a"}],"edges":[{"source":"memory:a","target":"memory:zz","edge_type":"x","context":"","confidence":1.0,"origin":"keyword"}]}"#,
            br#"{"format":1,"nodes":[{"key":"memory:a"},{"key":"memory:a"}],"edges":[]}"#,
        ];
        for bytes in bad {
            std::fs::write(&path, bytes).unwrap();
            assert!(
                LinkGraph::load(dir.path()).unwrap().is_none(),
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
        std::fs::write(&path, br#"{"format":1,"nodes":[{"key":"memory:a"}],"edges":[]}"#).unwrap();
        let g = LinkGraph::load(dir.path()).unwrap().unwrap();
        assert!(g.contains("memory:a"));
        // An empty graph round-trips too.
        LinkGraph::new().save(dir.path()).unwrap();
        assert_eq!(LinkGraph::load(dir.path()).unwrap().unwrap().stats(), GraphStats::default());
    }

    #[test]
    fn non_finite_confidence_is_stored_as_zero() {
        let mut g = LinkGraph::new();
        g.set_links("memory:a", &[weighted("memory:b", "mentions", f32::NAN)], PARSE);
        assert_eq!(g.outgoing("memory:a"), Vec::new(), "b is missing");
        g.set_links("memory:b", &[], PARSE);
        assert_eq!(g.outgoing("memory:a")[0].1.confidence, 0.0);
        let dir = tempfile::tempdir().unwrap();
        g.save(dir.path()).unwrap();
        assert!(LinkGraph::load(dir.path()).unwrap().is_some());
    }
}

/// A memory's links of one type (or all), both ways, with its version chain.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Relationships {
    /// Links from the memory: `(target key, edge)`.
    pub outgoing: Vec<(String, EdgeData)>,
    /// Links to the memory: `(source key, edge)`.
    pub incoming: Vec<(String, EdgeData)>,
    /// The `supersedes` chain through it, newest first (empty when filtered to another type).
    pub version_chain: Vec<String>,
}

impl LinkGraph {
    /// The links of memory `key`, keeping only `edge_type` when given (`shares_entity` matches
    /// every `shares_entity:<Name>`), and its version chain (for no filter or `supersedes`).
    pub fn relationships(&self, key: &str, edge_type: Option<&str>) -> Relationships {
        let keep = |e: &EdgeData| {
            edge_type.is_none_or(|t| e.edge_type == t || e.edge_type.starts_with(&format!("{t}:")))
        };
        let show_chain = edge_type.is_none_or(|t| t == SUPERSEDES);
        Relationships {
            outgoing: self.outgoing(key).into_iter().filter(|(_, e)| keep(e)).collect(),
            incoming: self.incoming(key).into_iter().filter(|(_, e)| keep(e)).collect(),
            version_chain: if show_chain { self.version_chain(key) } else { Vec::new() },
        }
    }
}

impl EdgeData {
    /// The edge as memlane prints it (`relationships --json`, MCP): `{memory_id, edge_type,
    /// context, confidence, origin}`, `memory_id` being the node key at the other end.
    pub fn to_json(&self, key: &str) -> serde_json::Value {
        serde_json::json!({
            "memory_id": key,
            "edge_type": self.edge_type,
            "context": self.context,
            "confidence": self.confidence,
            "origin": self.origin,
        })
    }
}
