//! The graph on disk: one JSON file, sorted so the same graph always saves the same bytes.

use super::*;

/// The saved file.
#[derive(Serialize, Deserialize)]
pub(super) struct GraphFile {
    pub(super) format: u32,
    pub(super) nodes: Vec<NodeRecord>,
    pub(super) edges: Vec<EdgeRecord>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct NodeRecord {
    pub(super) key: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(super) missing: bool,
}

#[derive(Serialize, Deserialize)]
pub(super) struct EdgeRecord {
    pub(super) source: String,
    pub(super) target: String,
    pub(super) edge_type: String,
    pub(super) context: String,
    pub(super) confidence: f32,
    pub(super) origin: String,
}

/// The saved [`BACKLINKS`] sidecar.
#[derive(Serialize, Deserialize)]
struct BacklinksFile {
    format: u32,
    /// [`graph_stamp`] of the `graph.json` it was written with.
    graph: String,
    /// Ghost key → (memory key, its highest confidence among its links to the ghost), sorted by
    /// memory key.
    targets: BTreeMap<String, Vec<(String, f32)>>,
}

/// The memories linking to each ghost asked about, with each one's highest link confidence: see
/// [`LinkGraph::ghost_backlinks`].
pub type Backlinks = HashMap<String, BTreeMap<String, f32>>;

/// `size:inode:mtime_ns` of the graph file in `dir`, or `None` when there is none.
fn graph_stamp(dir: &Path) -> Option<String> {
    let st = crate::index::confined_io::stat(&dir.join(FILE))
        .filter(|s| s.kind == crate::disk::Kind::File)?;
    Some(format!("{}:{}:{}", st.len, st.ino, st.mtime_ns))
}

/// One journal line: a memory's outgoing links as they are now, or its removal.
#[derive(Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
enum JournalRecord {
    Set { memory: String, links: Vec<LinkRecord> },
    Remove { memory: String },
}

#[derive(Serialize, Deserialize)]
struct LinkRecord {
    target: String,
    edge_type: String,
    context: String,
    confidence: f32,
    origin: String,
}

/// The stable order of edges out of (or into) one node: by the other end's key, then the data.
pub(super) fn cmp_edge(a: (&str, &EdgeData), b: (&str, &EdgeData)) -> Ordering {
    a.0.cmp(b.0)
        .then_with(|| a.1.edge_type.cmp(&b.1.edge_type))
        .then_with(|| a.1.origin.cmp(&b.1.origin))
        .then_with(|| a.1.context.cmp(&b.1.context))
        .then_with(|| a.1.confidence.total_cmp(&b.1.confidence))
}

pub(super) fn sanitize(mut data: EdgeData) -> EdgeData {
    if !data.confidence.is_finite() {
        data.confidence = 0.0;
    }
    data
}

impl LinkGraph {
    /// Reads the graph saved in `dir`.
    ///
    /// `Ok(None)` when there is no file, or it is not valid UTF-8 JSON of this [`FORMAT`], or it
    /// is inconsistent (an edge to an unknown node, a duplicate node): the caller rebuilds from the
    /// files. Any other IO error (permissions, …) is an error naming the path, since a rebuild
    /// would not fix it.
    pub fn load(dir: &Path) -> Result<Option<Self>, GraphError> {
        let path = dir.join(FILE);
        let bytes = match crate::index::confined_io::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(PathError { action: "read", path, source }.into()),
        };
        let Ok(file) = serde_json::from_slice::<GraphFile>(&bytes) else {
            return Ok(None);
        };
        let Some(mut g) = Self::from_file(file) else { return Ok(None) };
        let path = dir.join(JOURNAL);
        let journal = match crate::index::confined_io::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(source) => return Err(PathError { action: "read", path, source }.into()),
        };
        for line in journal.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let Ok(record) = serde_json::from_slice::<JournalRecord>(line) else {
                return Ok(None);
            };
            g.replay(record);
            g.journal_lines += 1;
        }
        g.changed.clear();
        g.on_disk = true;
        Ok(Some(g))
    }

    fn replay(&mut self, record: JournalRecord) {
        match record {
            JournalRecord::Remove { memory } => self.remove_memory(&memory),
            JournalRecord::Set { memory, links } => {
                let links: Vec<OutLink> = links
                    .into_iter()
                    .map(|l| OutLink {
                        target: l.target,
                        data: EdgeData {
                            edge_type: l.edge_type,
                            context: l.context,
                            confidence: l.confidence,
                            origin: l.origin,
                        },
                    })
                    .collect();
                // The record is every outgoing edge, whatever its origin.
                let origins: BTreeSet<String> = self
                    .index
                    .get(&memory)
                    .map(|&idx| {
                        self.graph
                            .edges_directed(idx, Outgoing)
                            .map(|e| e.weight().origin.clone())
                            .collect()
                    })
                    .unwrap_or_default();
                let origins: Vec<&str> = origins.iter().map(String::as_str).collect();
                self.set_links(&memory, &links, &origins);
            }
        }
    }

    /// Appends journal lines for new memories (`added`: key and parsed links) and removed ones
    /// (`removed`: keys) without loading the graph, as [`save_changes`](Self::save_changes) of
    /// the loaded graph would after `set_links` (all origins: a new memory has no other edges)
    /// and `remove_memory`. Returns `false`, writing nothing, when the journal is too long for
    /// them (the caller then loads the graph and saves it). Adds the new memories' ghost targets
    /// to [`GHOSTS`].
    pub fn append_unloaded(
        dir: &Path,
        added: &[(String, &[OutLink])],
        removed: &[String],
    ) -> Result<bool, GraphError> {
        let path = dir.join(JOURNAL);
        let lines = match crate::index::confined_io::read(&path) {
            Ok(b) => b.iter().filter(|&&c| c == b'\n').count(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
            Err(source) => return Err(PathError { action: "read", path, source }.into()),
        };
        if lines + added.len() + removed.len() > JOURNAL_MAX_LINES {
            return Ok(false);
        }
        let mut bytes = Vec::new();
        let mut ghosts = read_ghosts(dir).unwrap_or_default();
        let ghosts_before = ghosts.len();
        for (memory, links) in added {
            let mut links: Vec<&OutLink> = links.iter().filter(|l| &l.target != memory).collect();
            links.sort_by(|a, b| {
                cmp_edge((a.target.as_str(), &a.data), (b.target.as_str(), &b.data))
            });
            links.dedup_by(|a, b| {
                cmp_edge((a.target.as_str(), &a.data), (b.target.as_str(), &b.data))
                    == Ordering::Equal
            });
            ghosts.extend(
                links
                    .iter()
                    .filter(|l| NodeKind::of(&l.target) == NodeKind::Ghost)
                    .map(|l| l.target.clone()),
            );
            let links = links
                .into_iter()
                .map(|l| {
                    let d = sanitize(l.data.clone());
                    LinkRecord {
                        target: l.target.clone(),
                        edge_type: d.edge_type,
                        context: d.context,
                        confidence: d.confidence,
                        origin: d.origin,
                    }
                })
                .collect();
            let record = JournalRecord::Set { memory: memory.clone(), links };
            serde_json::to_writer(&mut bytes, &record).map_err(GraphError::Encode)?;
            bytes.push(b'\n');
        }
        for memory in removed {
            let record = JournalRecord::Remove { memory: memory.clone() };
            serde_json::to_writer(&mut bytes, &record).map_err(GraphError::Encode)?;
            bytes.push(b'\n');
        }
        if bytes.is_empty() {
            return Ok(true);
        }
        if ghosts.len() != ghosts_before {
            write_ghosts(dir, &ghosts)?;
        }
        append(&path, &bytes)?;
        Ok(true)
    }

    /// Writes what changed since the graph was read from `dir` or last written there: a journal
    /// line per changed memory, or the whole graph (see the module's "On disk") when the folder
    /// does not hold this graph's base, the journal is long, or a rename happened.
    pub fn save_changes(&mut self, dir: &Path) -> Result<(), GraphError> {
        if !self.on_disk || self.journal_lines + self.changed.len() > JOURNAL_MAX_LINES {
            return self.save(dir);
        }
        if self.changed.is_empty() {
            return Ok(());
        }
        let mut bytes = Vec::new();
        for memory in std::mem::take(&mut self.changed) {
            let present = self.index.get(&memory).filter(|&&idx| !self.graph[idx].missing);
            let record = match present {
                None => JournalRecord::Remove { memory },
                Some(&idx) => {
                    let mut links: Vec<(&str, &EdgeData)> = self
                        .graph
                        .edges_directed(idx, Outgoing)
                        .map(|e| (self.graph[e.target()].key.as_str(), e.weight()))
                        .collect();
                    links.sort_by(|a, b| cmp_edge(*a, *b));
                    let links = links
                        .into_iter()
                        .map(|(t, d)| LinkRecord {
                            target: t.to_owned(),
                            edge_type: d.edge_type.clone(),
                            context: d.context.clone(),
                            confidence: d.confidence,
                            origin: d.origin.clone(),
                        })
                        .collect();
                    JournalRecord::Set { memory, links }
                }
            };
            serde_json::to_writer(&mut bytes, &record).map_err(GraphError::Encode)?;
            bytes.push(b'\n');
            self.journal_lines += 1;
        }
        append(&dir.join(JOURNAL), &bytes)?;
        self.save_ghosts(dir)
    }

    /// The memories that link to each of `ghosts` (ghost keys), with each memory's highest
    /// confidence among its links to it, as [`load`](Self::load) followed by
    /// [`memories_linking_to`](Self::memories_linking_to) would find them, without loading the
    /// graph: from [`BACKLINKS`] with the journal replayed on it. Every key asked about is in
    /// the answer (with no memories when nothing links to it).
    ///
    /// `None` when the sidecar is missing, does not parse, is of another format or was not
    /// written with the graph file as it is now, or when the journal cannot be read or has a line
    /// that does not parse: the caller then loads the graph.
    pub fn ghost_backlinks(dir: &Path, ghosts: &[&str]) -> Option<Backlinks> {
        let bytes = crate::index::confined_io::read(&dir.join(BACKLINKS)).ok()?;
        let file: BacklinksFile = serde_json::from_slice(&bytes).ok()?;
        if file.format != FORMAT || graph_stamp(dir).as_deref() != Some(file.graph.as_str()) {
            return None;
        }
        let mut out: Backlinks =
            ghosts.iter().map(|g| ((*g).to_owned(), BTreeMap::new())).collect();
        for (ghost, links) in file.targets {
            if let Some(found) = out.get_mut(&ghost) {
                found.extend(links);
            }
        }
        let journal = match crate::index::confined_io::read(&dir.join(JOURNAL)) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(_) => return None,
        };
        for line in journal.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            // As `replay`: a record is the memory's every outgoing link, or its removal.
            let (memory, links) = match serde_json::from_slice::<JournalRecord>(line).ok()? {
                JournalRecord::Remove { memory } => (memory, Vec::new()),
                JournalRecord::Set { memory, links } => (memory, links),
            };
            if NodeKind::of(&memory) != NodeKind::Memory {
                continue;
            }
            for found in out.values_mut() {
                found.remove(&memory);
            }
            for link in links {
                if link.target == memory {
                    continue;
                }
                if let Some(found) = out.get_mut(&link.target) {
                    let c = if link.confidence.is_finite() { link.confidence } else { 0.0 };
                    let best = found.entry(memory.clone()).or_insert(c);
                    if c > *best {
                        *best = c;
                    }
                }
            }
        }
        Some(out)
    }

    /// Writes [`BACKLINKS`] for the graph as it is, stamped with the graph file just written.
    fn save_backlinks(&self, dir: &Path) -> Result<(), GraphError> {
        let mut targets: BTreeMap<String, Vec<(String, f32)>> = BTreeMap::new();
        for idx in self.graph.node_indices() {
            let key = &self.graph[idx].key;
            if NodeKind::of(key) != NodeKind::Ghost {
                continue;
            }
            let mut best: BTreeMap<&str, f32> = BTreeMap::new();
            for e in self.graph.edges_directed(idx, Incoming) {
                let source = &self.graph[e.source()];
                if source.missing || NodeKind::of(&source.key) != NodeKind::Memory {
                    continue;
                }
                let c = e.weight().confidence;
                let b = best.entry(source.key.as_str()).or_insert(c);
                if c > *b {
                    *b = c;
                }
            }
            if !best.is_empty() {
                targets.insert(
                    key.clone(),
                    best.into_iter().map(|(k, c)| (k.to_owned(), c)).collect(),
                );
            }
        }
        let Some(graph) = graph_stamp(dir) else { return Ok(()) };
        let file = BacklinksFile { format: FORMAT, graph, targets };
        let mut bytes = serde_json::to_vec(&file).map_err(GraphError::Encode)?;
        bytes.push(b'\n');
        crate::vault::atomic_write(&dir.join(BACKLINKS), &bytes)?;
        Ok(())
    }

    /// Writes [`GHOSTS`] from the graph, when it differs.
    fn save_ghosts(&self, dir: &Path) -> Result<(), GraphError> {
        let ghosts: BTreeSet<String> = self
            .graph
            .node_weights()
            .filter(|n| NodeKind::of(&n.key) == NodeKind::Ghost)
            .map(|n| n.key.clone())
            .collect();
        if read_ghosts(dir).as_ref() != Some(&ghosts) {
            write_ghosts(dir, &ghosts)?;
        }
        Ok(())
    }

    /// The format number a graph file at `path` declares, if it declares one.
    pub fn file_format(path: &Path) -> Option<u32> {
        #[derive(Deserialize)]
        struct Head {
            format: u32,
        }
        // The format is the first field: a short prefix tells, without parsing the graph.
        let mut head = Vec::with_capacity(64);
        std::io::Read::read_to_end(
            &mut std::io::Read::take(crate::index::confined_io::open(path).ok()?, 64),
            &mut head,
        )
        .ok()?;
        let text = std::str::from_utf8(&head).ok()?;
        let end = text.find(',')?;
        serde_json::from_str::<Head>(&format!("{}}}", &text[..end])).ok().map(|h| h.format)
    }

    pub(super) fn from_file(file: GraphFile) -> Option<Self> {
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
    pub fn save(&mut self, dir: &Path) -> Result<(), GraphError> {
        let bytes = self.to_bytes()?;
        crate::vault::atomic_write(&dir.join(FILE), &bytes)?;
        self.save_ghosts(dir)?;
        self.save_backlinks(dir)?;
        let journal = dir.join(JOURNAL);
        match crate::index::confined_io::remove_file(&journal) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(PathError { action: "remove", path: journal, source }.into()),
        }
        self.changed.clear();
        self.on_disk = true;
        self.journal_lines = 0;
        Ok(())
    }

    pub(super) fn to_bytes(&self) -> Result<Vec<u8>, GraphError> {
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
}

/// Appends `bytes` to the file at `path` (created if missing) and syncs it.
fn append(path: &Path, bytes: &[u8]) -> Result<(), GraphError> {
    Ok(crate::disk::append_synced(path, bytes)?)
}

/// The ghost keys [`GHOSTS`] lists; `None` when there is no such file.
pub fn read_ghosts(dir: &Path) -> Option<BTreeSet<String>> {
    let text = crate::index::confined_io::read_to_string(&dir.join(GHOSTS)).ok()?;
    Some(text.lines().filter(|l| !l.is_empty()).map(str::to_owned).collect())
}

fn write_ghosts(dir: &Path, ghosts: &BTreeSet<String>) -> Result<(), GraphError> {
    let mut text = String::new();
    // A key with a line break is never `ghost:<a memory name>`: it need not be listed.
    for g in ghosts.iter().filter(|g| !g.contains('\n')) {
        text.push_str(g);
        text.push('\n');
    }
    crate::vault::atomic_write(&dir.join(GHOSTS), text.as_bytes())?;
    Ok(())
}
