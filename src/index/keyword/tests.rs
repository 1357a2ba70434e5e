use super::*;

struct Doc {
    id: String,
    memory: String,
    title: String,
    body: String,
    tags: Vec<String>,
    memory_type: String,
    status: String,
    created: i64,
}

fn doc(id: &str, title: &str, body: &str) -> Doc {
    Doc {
        id: id.to_string(),
        memory: id.to_string(),
        title: title.to_string(),
        body: body.to_string(),
        tags: Vec::new(),
        memory_type: "note".to_string(),
        status: "active".to_string(),
        created: 1_700_000_000,
    }
}

fn add_one(writer: &mut KeywordWriter, d: &Doc) {
    writer
        .add(&KeywordDoc {
            chunk_id: &d.id,
            memory_id: &d.memory,
            title: &d.title,
            headers: "",
            body: &d.body,
            tags: &d.tags,
            memory_type: &d.memory_type,
            status: &d.status,
            created_unix: d.created,
        })
        .unwrap();
}

fn add_all(index: &KeywordIndex, docs: &[Doc]) {
    let mut writer = index.writer().unwrap();
    for d in docs {
        add_one(&mut writer, d);
    }
    writer.commit().unwrap();
}

fn ids(index: &KeywordIndex, query: &str) -> Vec<String> {
    ids_filtered(index, query, &KeywordFilter::default(), 10)
}

fn ids_filtered(
    index: &KeywordIndex,
    query: &str,
    filter: &KeywordFilter,
    n: usize,
) -> Vec<String> {
    index.search(query, filter, n).unwrap().into_iter().map(|h| h.chunk_id).collect()
}

fn code_index() -> KeywordIndex {
    let index = KeywordIndex::create_in_ram().unwrap();
    add_all(
        &index,
        &[
            doc("path", "Login", "The handler lives in src/auth.py and is tested."),
            doc("snake", "Naming", "We name things in snake_case everywhere."),
            doc("camel", "Java", "The field is called camelCase here."),
            doc("version", "Release", "Upgrade the parser to v1.2 before Friday."),
            doc("npm", "CI setup", "Run npm ci in the pipeline, never npm install."),
            doc("stem", "Search", "Every document is indexed on save."),
            doc("other", "Unrelated", "Lunch is at noon on the terrace."),
        ],
    );
    index
}

#[test]
fn code_identifiers_match_whole_and_in_parts() {
    let index = code_index();
    for (query, want) in [
        ("auth.py", "path"),
        ("auth", "path"),
        ("src/auth.py", "path"),
        ("snake", "snake"),
        ("snake_case", "snake"),
        ("camel", "camel"),
        ("camelcase", "camel"),
        ("camelCase", "camel"),
        ("v1.2", "version"),
        ("npm ci", "npm"),
        ("indexing", "stem"),
    ] {
        let got = ids(&index, query);
        assert_eq!(got.first().map(String::as_str), Some(want), "query {query:?} → {got:?}");
    }
}

#[test]
fn title_match_outranks_body_match() {
    let index = KeywordIndex::create_in_ram().unwrap();
    add_all(
        &index,
        &[
            doc("body", "Meeting notes", "We discussed the deployment of the cache."),
            doc("title", "Deployment", "We discussed the plan for the cache."),
        ],
    );
    assert_eq!(ids(&index, "deployment"), ["title", "body"]);
}

#[test]
fn hostile_queries_never_fail() {
    let index = code_index();
    let long = "word ".repeat(2_000);
    let long_token = "x".repeat(10_000);
    for q in [
        "\"",
        "\"unbalanced",
        "-",
        "+foo",
        "a:b",
        "[",
        "(",
        "*",
        "AND OR NOT",
        "\\",
        "",
        "   ",
        "🦀🔥",
        "title:auth",
        "\"npm ci\"",
        "\"\"",
        "a\"b\"c\"",
        long.as_str(),
        long_token.as_str(),
    ] {
        assert!(index.search(q, &KeywordFilter::default(), 5).is_ok(), "{q:?}");
    }
    assert!(ids(&index, "").is_empty());
    assert_eq!(ids(&index, "title:auth").first().map(String::as_str), Some("path"));
}

#[test]
fn quoted_phrase_boosts_exact_order() {
    let index = KeywordIndex::create_in_ram().unwrap();
    let filler: Vec<Doc> = (0..10)
        .map(|i| doc(&format!("filler{i}"), "Filler", "unrelated words about lunch"))
        .collect();
    add_all(&index, &filler);
    add_all(
        &index,
        &[
            doc(
                "scattered",
                "A",
                "handling of the error was poor; errors need handling by the team",
            ),
            doc("exact", "B", "error handling is done in one place"),
            doc("reversed", "C", "handling error states and more handling error code"),
        ],
    );
    assert_eq!(ids(&index, "\"error handling\"").first().map(String::as_str), Some("exact"));
}

#[test]
fn filters_apply_inside_retrieval() {
    let index = KeywordIndex::create_in_ram().unwrap();
    let mut docs = Vec::new();
    for i in 0..100 {
        let mut d = doc(
            &format!("bad{i}"),
            "Database migration",
            "database migration database migration schema",
        );
        d.memory_type = "note".into();
        d.tags = vec!["infra".into()];
        d.status = "archived".into();
        d.created = 1_000 + i;
        docs.push(d);
    }
    let mut good = doc("good", "Misc", "one database mention");
    good.memory_type = "Decision".into();
    good.tags = vec!["db".into(), "Backend".into()];
    good.status = "active".into();
    good.created = 5_000;
    docs.push(good);
    add_all(&index, &docs);

    let top = |filter: KeywordFilter| ids_filtered(&index, "database migration", &filter, 1);
    assert_ne!(top(KeywordFilter::default()), ["good"]);
    assert_eq!(
        top(KeywordFilter { types: vec!["decision".into()], ..Default::default() }),
        ["good"]
    );
    assert_eq!(
        top(KeywordFilter { tags: vec!["nope".into(), "backend".into()], ..Default::default() }),
        ["good"]
    );
    assert_eq!(
        top(KeywordFilter { statuses: vec!["active".into()], ..Default::default() }),
        ["good"]
    );
    assert_eq!(top(KeywordFilter { created_after: Some(2_000), ..Default::default() }), ["good"]);
    assert_eq!(
        top(KeywordFilter {
            created_before: Some(1_050),
            created_after: Some(1_049),
            ..Default::default()
        }),
        ["bad49"]
    );
    assert!(
        top(KeywordFilter {
            created_after: Some(10),
            created_before: Some(10),
            ..Default::default()
        })
        .is_empty()
    );
    assert!(
        top(KeywordFilter {
            types: vec!["decision".into()],
            statuses: vec!["archived".into()],
            ..Default::default()
        })
        .is_empty()
    );
    // Filters do not change scores: the allowed doc's score is the same with and without them.
    let unfiltered = index.search("database", &KeywordFilter::default(), 200).unwrap();
    let filtered = index
        .search(
            "database",
            &KeywordFilter { types: vec!["decision".into()], ..Default::default() },
            1,
        )
        .unwrap();
    let base = unfiltered.iter().find(|h| h.chunk_id == "good").unwrap();
    assert!((base.score - filtered[0].score).abs() < 1e-5);
}

#[test]
fn tags_are_searchable_text() {
    let index = KeywordIndex::create_in_ram().unwrap();
    let mut tagged = doc("tagged", "Notes", "nothing special");
    tagged.tags = vec!["kubernetes".into()];
    add_all(&index, &[tagged, doc("plain", "Other", "nothing special")]);
    assert_eq!(ids(&index, "kubernetes"), ["tagged"]);
}

#[test]
fn delete_memory_removes_all_its_chunks() {
    let index = KeywordIndex::create_in_ram().unwrap();
    let mut docs = Vec::new();
    for (chunk, memory) in [("m1#0", "m1"), ("m1#1", "m1"), ("m2#0", "m2")] {
        let mut d = doc(chunk, "Shared title", "shared words");
        d.memory = memory.into();
        docs.push(d);
    }
    add_all(&index, &docs);
    assert_eq!(index.num_chunks(), 3);
    let mut writer = index.writer().unwrap();
    writer.delete_memory("m1");
    writer.commit().unwrap();
    assert_eq!(ids(&index, "shared"), ["m2#0"]);
    assert_eq!(index.num_chunks(), 1);
    let hit = &index.search("shared", &KeywordFilter::default(), 1).unwrap()[0];
    assert_eq!(hit.memory_id, "m2");
}

#[test]
fn second_writer_is_locked_out() {
    let index = KeywordIndex::create_in_ram().unwrap();
    let _writer = index.writer().unwrap();
    assert!(matches!(index.writer(), Err(KeywordError::Locked(_))));
}

#[test]
fn reopen_from_disk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keyword");
    {
        let index = KeywordIndex::open_or_create(&path).unwrap();
        add_all(&index, &[doc("disk", "Persisted", "see src/auth.py")]);
    }
    let index = KeywordIndex::open_or_create(&path).unwrap();
    assert_eq!(index.num_chunks(), 1);
    // The custom analyzer is registered again on open: parts still match.
    assert_eq!(ids(&index, "auth.py"), ["disk"]);
    add_all(&index, &[doc("more", "Second", "another auth note")]);
    assert_eq!(index.num_chunks(), 2);
}

/// Segment ids and sizes, as [`KeywordIndex::segments`] gives them.
type Segments = Vec<(String, u32)>;

/// An index on disk as a `reindex` leaves it (segments of more chunks than a small write merges),
/// then `writes` small writes of one chunk each, as the server makes them.
fn reindexed_then_small_writes(dir: &Path, writes: usize) -> (KeywordIndex, Segments, Segments) {
    let index = KeywordIndex::open_or_create(&dir.join("keyword")).unwrap();
    // One indexing thread: with several, a busy machine can leave one of them a segment small
    // enough for small writes to merge.
    let mut writer = index.writer_with_threads(1).unwrap();
    for i in 0..4 * (SMALL_WRITE_MERGE_MAX_CHUNKS + 1) {
        add_one(&mut writer, &doc(&format!("old{i}"), "Reindexed note", &format!("body code{i}")));
    }
    writer.commit().unwrap();
    writer.finish().unwrap();
    let after_reindex = index.segments();
    for i in 0..writes {
        let mut writer = index.small_writer().unwrap();
        add_one(&mut writer, &doc(&format!("new{i}"), "Fresh note", &format!("probe{i} canary")));
        writer.commit().unwrap();
        writer.finish().unwrap();
    }
    index.reload().unwrap();
    let after_writes = index.segments();
    (index, after_reindex, after_writes)
}

#[test]
fn small_writes_never_rewrite_large_segments() {
    let dir = tempfile::tempdir().unwrap();
    let writes = 70;
    let (index, reindexed, now) = reindexed_then_small_writes(dir.path(), writes);
    let large: Vec<_> =
        reindexed.iter().filter(|(_, n)| *n > SMALL_WRITE_MERGE_MAX_CHUNKS).cloned().collect();
    assert!(!large.is_empty(), "the rebuild made no large segment: {reindexed:?}");
    // Every large segment is still there, as it was: no small write waited to rewrite it.
    for segment in &large {
        assert!(now.contains(segment), "{segment:?} was merged by a small write: {now:?}");
    }
    // The small writes' own segments were merged among themselves: far fewer than one each.
    let small: Vec<_> = now.iter().filter(|s| !reindexed.contains(s)).collect();
    assert!(
        small.len() < 2 * SMALL_WRITE_MERGE_SEGMENTS,
        "{} segments for {writes} small writes: {small:?}",
        small.len()
    );
    assert!(small.iter().any(|(_, n)| *n >= SMALL_WRITE_MERGE_SEGMENTS as u32), "{small:?}");
    // Nothing was lost on the way.
    let total = u64::from(4 * (SMALL_WRITE_MERGE_MAX_CHUNKS + 1)) + writes as u64;
    assert_eq!(index.num_chunks(), total);
    assert_eq!(ids(&index, "probe0"), ["new0"]);
    assert_eq!(ids(&index, &format!("probe{}", writes - 1)), [format!("new{}", writes - 1)]);
    assert_eq!(ids(&index, "code7"), ["old7"]);
}

#[test]
fn a_full_writer_merges_what_small_writes_left() {
    let dir = tempfile::tempdir().unwrap();
    // Small segments left: one short of a merge of them.
    let writes = 4 * (SMALL_WRITE_MERGE_SEGMENTS - 1);
    let (index, _, before) = reindexed_then_small_writes(dir.path(), writes);
    let mut writer = index.writer().unwrap();
    add_one(&mut writer, &doc("batch", "Batch note", "a larger change"));
    writer.commit().unwrap();
    writer.finish().unwrap();
    index.reload().unwrap();
    let after = index.segments();
    assert!(after.len() < before.len(), "before {before:?}, after {after:?}");
    let total = u64::from(4 * (SMALL_WRITE_MERGE_MAX_CHUNKS + 1)) + writes as u64 + 1;
    assert_eq!(index.num_chunks(), total);
}

fn expanded_ids(index: &KeywordIndex, query: &str) -> Vec<(String, f32)> {
    index
        .search_weighted(query, 0.0, Expansion::default(), &KeywordFilter::default(), 50)
        .unwrap()
        .into_iter()
        .map(|h| (h.chunk_id, h.score))
        .collect()
}

fn vocabulary_index() -> KeywordIndex {
    let index = KeywordIndex::create_in_ram().unwrap();
    add_all(
        &index,
        &[
            doc("auth", "Auth refactor", "Split the login handler out of the session store."),
            doc("k8s", "Cluster", "The staging k8s cluster runs three nodes."),
            doc("pgsql", "Database", "We run postgresql 16 with logical replication."),
            doc("lunch", "Lunch", "Lunch is at noon on the terrace."),
        ],
    );
    index
}

#[test]
fn expansion_finds_subwords_and_abbreviations() {
    let index = vocabulary_index();
    for (query, want) in
        [("authentication", "auth"), ("kubernetes", "k8s"), ("postgres", "pgsql"), ("pg", "pgsql")]
    {
        let got = expanded_ids(&index, query);
        assert_eq!(got.first().map(|(id, _)| id.as_str()), Some(want), "{query:?} → {got:?}");
        assert_eq!(got.len(), 1, "{query:?} → {got:?}");
        // Without expansion the term matches only itself.
        assert!(ids(&index, query).is_empty(), "{query:?} matched without expansion");
    }
    // Nothing related: nothing found.
    assert!(expanded_ids(&index, "gardening").is_empty());
}

#[test]
fn expansion_scores_below_the_term_itself() {
    let index = KeywordIndex::create_in_ram().unwrap();
    add_all(
        &index,
        &[
            doc("short", "Notes", "The auth service rotates tokens."),
            doc("long", "Notes", "The authentication service rotates tokens."),
        ],
    );
    let got = expanded_ids(&index, "authentication");
    assert_eq!(got.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ["long", "short"]);
    assert!(got[1].1 < 0.75 * got[0].1, "expansion not weighted down: {got:?}");
    let got = expanded_ids(&index, "auth");
    assert_eq!(got.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ["short", "long"]);
}

#[test]
fn expansion_is_bounded() {
    // A vault with hundreds of words that share a prefix with short query terms.
    let mut docs = Vec::new();
    // (Letters the stemmer never strips, so no word stems to the bare prefix.)
    let letters: Vec<char> = "bcfghjkmnpqrtvwxz".chars().collect();
    let words: Vec<String> =
        (0..280).map(|i| format!("datab{}{}", letters[i / 17], letters[i % 17])).collect();
    for (i, chunk) in words.chunks(10).enumerate() {
        docs.push(doc(
            &format!("d{i}"),
            "Words",
            &format!("{} go in gopher golang", chunk.join(" ")),
        ));
    }
    let index = KeywordIndex::create_in_ram().unwrap();
    add_all(&index, &docs);
    let expansions = |terms: &[&str]| index.expand_terms(terms, Expansion::default()).unwrap();
    // Short terms never expand, whatever the vault holds.
    for short in ["a", "in", "go", "gop", "dat"] {
        assert!(expansions(&[short])[0].is_empty(), "{short} expanded");
    }
    // A term absent from the vault: at most MAX_EXPANSIONS, each a real vault term.
    let got = &expansions(&["datab"])[0];
    assert_eq!(got.len(), expand::MAX_EXPANSIONS, "{got:?}");
    assert!(got.iter().all(|e| e.to.starts_with("datab") && e.kind == ExpansionKind::Subword));
    // A term the vault contains takes no sub-words (only abbreviations).
    assert!(expansions(&["gopher"])[0].is_empty());
    // Off means off.
    assert!(index.expand_terms(&["datab"], Expansion::OFF).unwrap()[0].is_empty());
    assert!(index.expand_terms(&["datab"], Expansion::new(true, 0.0)).unwrap()[0].is_empty());
}

#[test]
fn term_matches_count_expansions_at_their_weight() {
    let index = vocabulary_index();
    let expansion = Expansion::new(true, 0.4);
    let got =
        index.term_matches(&["auth", "lunch", "gone"], &["authent", "lunch"], expansion).unwrap();
    let auth = got[0].as_ref().unwrap();
    assert_eq!(auth.weights, [0.4, 0.0]);
    assert_eq!(auth.expanded.iter().map(ToString::to_string).collect::<Vec<_>>(), ["authent→auth"]);
    let lunch = got[1].as_ref().unwrap();
    assert_eq!(lunch.weights, [0.0, 1.0]);
    assert!(lunch.expanded.is_empty());
    assert!(got[2].is_none());
}

/// A writer asked whether its merge still runs (as the server asks before it lets the index lock
/// go) and then finished or dropped while that merge runs waits for the merge: it never panics,
/// and nothing written is lost.
#[test]
fn a_writer_asked_about_its_merge_finishes_or_drops_while_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let index = KeywordIndex::open_or_create(&dir.path().join("keyword")).unwrap();
    let mut written = 0u64;
    let mut asked = 0;
    for round in 0..12 {
        let mut writer = index.small_writer().unwrap();
        // One writer for many writes, as a long-lived process keeps it: its commits start merges.
        for i in 0..SMALL_WRITE_MERGE_SEGMENTS {
            let id = format!("r{round}w{i}");
            add_one(&mut writer, &doc(&id, "Note", &format!("probe{round}x{i} canary")));
            writer.commit().unwrap();
            written += 1;
            if writer.merging() {
                asked += 1;
                break;
            }
        }
        // Right after the question, the merge most often still runs.
        if round % 2 == 0 {
            writer.finish().unwrap();
        } else {
            drop(writer);
        }
    }
    assert!(asked > 0, "no merge was running when asked");
    index.reload().unwrap();
    assert_eq!(index.num_chunks(), written);
    assert_eq!(ids(&index, "probe0x0"), ["r0w0"]);
}
