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
        pairs(&[("memory:b", "causes"), ("memory:c", "mentions"), ("memory:d", "was_context_for")])
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
    assert_eq!(g.stats(), GraphStats { memories: 2, ghosts: 2, entities: 2, edges: 5, missing: 0 });
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
    assert_eq!(g.stats(), GraphStats { memories: 2, ghosts: 1, edges: 2, missing: 0, entities: 0 });

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
        &[weighted("ghost:src/auth.py", "mentions", 1.0), weighted("memory:a", "supersedes", 0.8)],
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
    assert_eq!(n[1].path, pairs(&[("ghost:src/auth.py", "mentions"), ("memory:y", "mentions")]));
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
        &[link("memory:v1", "supersedes", "frontmatter"), link("memory:o", "extends", "keyword")],
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
    assert_eq!(g.version_chain("memory:v1"), ["memory:v3", "memory:v2", "memory:w", "memory:v1"]);
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
    let mut back = LinkGraph::load(dir.path()).unwrap().expect("loads");
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
        br#"{"format":2,"nodes":[{"key":"memory:a"}],"edges":[{"source":"memory:a","target":"memory:zz","edge_type":"x","context":"","confidence":1.0,"origin":"keyword"}]}"#,
        br#"{"format":2,"nodes":[{"key":"memory:a"},{"key":"memory:a"}],"edges":[]}"#,
    ];
    for bytes in bad {
        std::fs::write(&path, bytes).unwrap();
        assert!(
            LinkGraph::load(dir.path()).unwrap().is_none(),
            "{}",
            String::from_utf8_lossy(bytes)
        );
    }
    std::fs::write(&path, br#"{"format":2,"nodes":[{"key":"memory:a"}],"edges":[]}"#).unwrap();
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

/// A few random edits: set a memory's links (to memories, ghosts, entities, some by the agent),
/// remove one, rename one.
#[derive(Debug, Clone)]
enum Edit {
    Set(u8, Vec<(u8, u8)>),
    Remove(u8),
    Rename(u8, u8),
}

fn apply(g: &mut LinkGraph, edit: &Edit) {
    let key = |i: u8| format!("memory:m{}", i % 6);
    match edit {
        Edit::Set(m, links) => {
            let links: Vec<OutLink> = links
                .iter()
                .map(|&(t, kind)| match kind % 4 {
                    0 => link(&key(t), "relates_to", "keyword"),
                    1 => link(&format!("ghost:g{}", t % 3), "relates_to", "keyword"),
                    2 => link(&format!("entity:E{}", t % 3), "shares_entity:E", "entity"),
                    _ => link(&key(t), "was_context_for", "agent"),
                })
                .collect();
            // The agent's edges are added to, the parsed ones replaced, as reconcile does.
            g.set_links(&key(*m), &links, PARSE);
        }
        Edit::Remove(m) => g.remove_memory(&key(*m)),
        Edit::Rename(a, b) => g.rename_memory(&key(*a), &key(*b)),
    }
}

fn edit_strategy() -> impl proptest::strategy::Strategy<Value = Edit> {
    use proptest::prelude::*;
    prop_oneof![
        6 => (any::<u8>(), proptest::collection::vec((any::<u8>(), any::<u8>()), 0..4))
            .prop_map(|(m, l)| Edit::Set(m, l)),
        2 => any::<u8>().prop_map(Edit::Remove),
        1 => (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Edit::Rename(a, b)),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
    /// Whatever the edits, saving only what changed (journal lines) and loading gives the graph
    /// that is in memory, byte for byte as a whole save writes it.
    #[test]
    fn saving_the_changes_and_loading_gives_the_same_graph(
        edits in proptest::collection::vec(edit_strategy(), 1..30),
        save_every in 1usize..5,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut g = LinkGraph::new();
        for (i, edit) in edits.iter().enumerate() {
            apply(&mut g, edit);
            if i % save_every == 0 {
                g.save_changes(dir.path()).unwrap();
                let back = LinkGraph::load(dir.path()).unwrap().expect("loads");
                proptest::prop_assert_eq!(back.to_bytes().unwrap(), g.to_bytes().unwrap());
            }
        }
        g.save_changes(dir.path()).unwrap();
        let back = LinkGraph::load(dir.path()).unwrap().expect("loads");
        proptest::prop_assert_eq!(back.to_bytes().unwrap(), g.to_bytes().unwrap());
    }
}

#[test]
fn a_change_appends_a_journal_line_and_a_long_journal_is_folded_into_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = LinkGraph::new();
    g.set_links("memory:a", &[link("memory:b", "relates_to", "keyword")], PARSE);
    g.set_links("memory:b", &[], PARSE);
    g.save_changes(dir.path()).unwrap();
    let base = std::fs::read(dir.path().join(FILE)).unwrap();
    assert!(!dir.path().join(JOURNAL).exists(), "a first save writes the whole graph");

    let mut g = LinkGraph::load(dir.path()).unwrap().expect("loads");
    g.set_links("memory:c", &[link("ghost:d", "relates_to", "keyword")], PARSE);
    g.remove_memory("memory:b");
    g.save_changes(dir.path()).unwrap();
    assert_eq!(std::fs::read(dir.path().join(FILE)).unwrap(), base, "the base is not rewritten");
    let journal = std::fs::read_to_string(dir.path().join(JOURNAL)).unwrap();
    assert_eq!(journal.lines().count(), 2, "{journal}");
    let back = LinkGraph::load(dir.path()).unwrap().expect("loads");
    assert_eq!(back.to_bytes().unwrap(), g.to_bytes().unwrap());
    assert_eq!(back.dangling().len(), 1, "a's link to the removed b dangles");

    // Past the limit, the whole graph is written and the journal goes.
    let mut g = back;
    for i in 0..JOURNAL_MAX_LINES {
        g.set_links(&format!("memory:n{i}"), &[], PARSE);
    }
    g.save_changes(dir.path()).unwrap();
    assert!(!dir.path().join(JOURNAL).exists());
    let back = LinkGraph::load(dir.path()).unwrap().expect("loads");
    assert_eq!(back.to_bytes().unwrap(), g.to_bytes().unwrap());

    // A journal line that does not parse makes the graph unreadable: the caller rebuilds.
    std::fs::write(dir.path().join(JOURNAL), "{\"op\":\"set\",\"memory\":\n").unwrap();
    assert!(LinkGraph::load(dir.path()).unwrap().is_none());
}

#[test]
fn the_format_of_a_graph_file_is_read_from_its_first_bytes() {
    let dir = tempfile::tempdir().unwrap();
    LinkGraph::new().save(dir.path()).unwrap();
    assert_eq!(LinkGraph::file_format(&dir.path().join(FILE)), Some(FORMAT));
    let old = dir.path().join("old.json");
    std::fs::write(&old, br#"{"format":1,"nodes":[],"edges":[]}"#).unwrap();
    assert_eq!(LinkGraph::file_format(&old), Some(1));
    std::fs::write(&old, b"{not json").unwrap();
    assert_eq!(LinkGraph::file_format(&old), None);
}

const GHOSTS_ASKED: &[&str] = &["ghost:g0", "ghost:g1", "ghost:g2", "ghost:none"];

/// What [`LinkGraph::ghost_backlinks`] should say, from a loaded graph.
fn backlinks_of(g: &LinkGraph, ghosts: &[&str]) -> Backlinks {
    ghosts
        .iter()
        .map(|ghost| {
            let mut best: BTreeMap<String, f32> = BTreeMap::new();
            for (k, d) in g.memories_linking_to(ghost) {
                let b = best.entry(k).or_insert(d.confidence);
                *b = b.max(d.confidence);
            }
            ((*ghost).to_owned(), best)
        })
        .collect()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
    /// Whatever the edits, the per-ghost sidecar with the journal replayed on it names the
    /// memories the loaded graph does (renames write the whole graph, and the sidecar with it).
    #[test]
    fn the_backlinks_sidecar_agrees_with_the_graph(
        edits in proptest::collection::vec(edit_strategy(), 1..30),
        save_every in 1usize..5,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut g = LinkGraph::new();
        for (i, edit) in edits.iter().enumerate() {
            apply(&mut g, edit);
            if i % save_every == 0 {
                g.save_changes(dir.path()).unwrap();
                let got = LinkGraph::ghost_backlinks(dir.path(), GHOSTS_ASKED).expect("fresh");
                proptest::prop_assert_eq!(got, backlinks_of(&g, GHOSTS_ASKED));
            }
        }
    }
}

#[test]
fn the_backlinks_sidecar_follows_the_journal_and_is_ignored_when_stale_or_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut g = LinkGraph::new();
    g.set_links(
        "memory:a",
        &[weighted("ghost:src/a.rs", "relates_to", 0.4), weighted("ghost:src/a.rs", "x", 0.9)],
        PARSE,
    );
    g.set_links("memory:b", &[weighted("ghost:src/a.rs", "relates_to", 0.5)], PARSE);
    g.save(d).unwrap();
    let asked = ["ghost:src/a.rs", "ghost:src/b.rs"];
    let got = LinkGraph::ghost_backlinks(d, &asked).expect("written with the graph");
    assert_eq!(got, backlinks_of(&g, &asked));
    assert_eq!(got["ghost:src/a.rs"]["memory:a"], 0.9, "a memory's best link counts");
    assert!(got["ghost:src/b.rs"].is_empty());

    // Journal lines, from a loaded graph and from a process that has not loaded it.
    let mut g = LinkGraph::load(d).unwrap().unwrap();
    g.remove_memory("memory:b");
    g.set_links("memory:c", &[weighted("ghost:src/b.rs", "relates_to", 0.7)], PARSE);
    g.save_changes(d).unwrap();
    let new_links = [weighted("ghost:src/a.rs", "relates_to", 0.6)];
    assert!(
        LinkGraph::append_unloaded(d, &[("memory:n".to_owned(), &new_links[..])], &[]).unwrap()
    );
    let back = LinkGraph::load(d).unwrap().unwrap();
    let got = LinkGraph::ghost_backlinks(d, &asked).expect("the journal is replayed");
    assert_eq!(got, backlinks_of(&back, &asked));
    let names: Vec<&str> = got["ghost:src/a.rs"].keys().map(String::as_str).collect();
    assert_eq!(names, ["memory:a", "memory:n"], "b is gone, n is new");

    // Missing, corrupt, or written for another graph file: no answer, the caller loads the graph.
    let sidecar = std::fs::read(d.join(BACKLINKS)).unwrap();
    std::fs::remove_file(d.join(BACKLINKS)).unwrap();
    assert!(LinkGraph::ghost_backlinks(d, &asked).is_none());
    std::fs::write(d.join(BACKLINKS), b"{\"format\":2,\"gra").unwrap();
    assert!(LinkGraph::ghost_backlinks(d, &asked).is_none());
    std::fs::write(d.join(BACKLINKS), &sidecar).unwrap();
    assert!(LinkGraph::ghost_backlinks(d, &asked).is_some());
    let graph = std::fs::read(d.join(FILE)).unwrap();
    crate::vault::atomic_write(&d.join(FILE), &graph).unwrap();
    assert!(LinkGraph::ghost_backlinks(d, &asked).is_none(), "the graph file was rewritten");
    // A journal line that does not parse: the graph is unreadable too.
    let mut g = LinkGraph::load(d).unwrap().unwrap();
    g.save(d).unwrap();
    assert!(LinkGraph::ghost_backlinks(d, &asked).is_some());
    std::fs::write(d.join(JOURNAL), "{\"op\":\"set\",\"memory\":\n").unwrap();
    assert!(LinkGraph::ghost_backlinks(d, &asked).is_none());
}
