//! Reading the graph: edges both ways, neighbours, version chains, dangling links and counts.

use super::*;

impl LinkGraph {
    /// Every edge of type `edge_type` as (source key, target key), in no particular order,
    /// edges to missing memories included.
    pub fn edges_of_type<'a>(
        &'a self,
        edge_type: &'a str,
    ) -> impl Iterator<Item = (&'a str, &'a str)> {
        self.graph
            .edge_references()
            .filter(move |e| e.weight().edge_type == edge_type)
            .map(|e| (self.graph[e.source()].key.as_str(), self.graph[e.target()].key.as_str()))
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

    pub(super) fn edges_of(&self, key: &str, dir: petgraph::Direction) -> Vec<(String, EdgeData)> {
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
    pub(super) fn better(&self, a: Hop<'_>, b: Hop<'_>) -> bool {
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
    pub(super) fn supersedes_edges(
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
