//! Changing the graph: setting a memory's links, removing and renaming memories, and the garbage collection of nodes nothing keeps.

use super::*;

impl LinkGraph {
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
        self.changed.insert(memory.to_owned());
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
        self.changed.insert(memory.to_owned());
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
        // Incoming edges move too: more than the journal's per-memory records say.
        self.on_disk = false;
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
}

impl LinkGraph {
    /// The node for `key` unless it is a missing memory.
    pub(super) fn live(&self, key: &str) -> Option<NodeIndex> {
        self.index.get(key).copied().filter(|&i| !self.graph[i].missing)
    }

    /// The node for `key`, created when needed (a new memory node starts missing).
    pub(super) fn node(&mut self, key: &str) -> NodeIndex {
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
pub(super) type EdgeKey = (NodeIndex, NodeIndex, String, String, u32, String);

pub(super) fn edge_key(s: NodeIndex, t: NodeIndex, d: &EdgeData) -> EdgeKey {
    (s, t, d.edge_type.clone(), d.context.clone(), d.confidence.to_bits(), d.origin.clone())
}

impl LinkGraph {
    pub(super) fn has_edge(&self, s: NodeIndex, t: NodeIndex, data: &EdgeData) -> bool {
        self.graph.edges_directed(s, Outgoing).any(|e| e.target() == t && e.weight() == data)
    }

    /// Removes `idx` if nothing keeps it: a ghost or entity without edges, a missing memory
    /// nothing links to. Present memories always stay.
    pub(super) fn gc(&mut self, idx: NodeIndex) {
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
