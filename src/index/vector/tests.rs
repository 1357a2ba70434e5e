//! Tests of the vector index.

use super::search::by_rank;
use super::*;

/// splitmix64: a tiny deterministic generator for test data.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [-1, 1).
    fn uniform(&mut self) -> f32 {
        ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }

    fn vector(&mut self, dim: usize) -> Vec<f32> {
        (0..dim).map(|_| self.uniform()).collect()
    }
}

/// `n` vectors around `centres` cluster centres, with noise: closer to real embeddings than
/// uniform noise (STACK: HNSW recall on uniform random vectors is misleading).
fn clustered(rng: &mut Rng, n: usize, centres: &[Vec<f32>], noise: f32) -> Vec<Vec<f32>> {
    (0..n)
        .map(|i| {
            let c = &centres[(rng.next_u64() as usize + i) % centres.len()];
            c.iter().map(|x| x + noise * rng.uniform()).collect()
        })
        .collect()
}

fn exact_reference(
    vectors: &[Vec<f32>],
    query: &[f32],
    limit: usize,
    allow: impl Fn(u64) -> bool,
) -> Vec<u64> {
    let q = normalized(query).unwrap();
    let mut all: Vec<(u64, f32)> = vectors
        .iter()
        .enumerate()
        .filter(|(i, _)| allow(*i as u64))
        .map(|(i, v)| (i as u64, dot(&q, &normalized(v).unwrap())))
        .collect();
    all.sort_by(by_rank);
    all.into_iter().take(limit).map(|(k, _)| k).collect()
}

fn keys(hits: &[(u64, f32)]) -> Vec<u64> {
    hits.iter().map(|&(k, _)| k).collect()
}

fn build(vectors: &[Vec<f32>], dim: usize) -> VectorIndex {
    let mut index = VectorIndex::create_in_memory("test", dim).unwrap();
    index.reserve(vectors.len()).unwrap();
    for (i, v) in vectors.iter().enumerate() {
        index.upsert(i as u64, v).unwrap();
    }
    index
}

fn expect_rebuild(outcome: OpenOutcome) -> String {
    match outcome {
        OpenOutcome::NeedsRebuild { reason } => reason,
        OpenOutcome::Ready(index) => panic!("expected NeedsRebuild, got {index:?}"),
    }
}

fn expect_ready(outcome: OpenOutcome) -> VectorIndex {
    match outcome {
        OpenOutcome::Ready(index) => index,
        OpenOutcome::NeedsRebuild { reason } => {
            panic!("expected Ready, got NeedsRebuild: {reason}")
        }
    }
}

#[test]
fn is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<VectorIndex>();
    check::<VectorError>();
}

#[test]
fn search_returns_nearest_by_cosine() {
    let mut index = VectorIndex::create_in_memory("test", 3).unwrap();
    index.upsert(1, &[1.0, 0.0, 0.0]).unwrap();
    index.upsert(2, &[0.0, 1.0, 0.0]).unwrap();
    index.upsert(3, &[10.0, 10.0, 0.0]).unwrap(); // length does not matter for cosine
    index.upsert(4, &[-1.0, 0.0, 0.0]).unwrap();
    assert_eq!(index.len(), 4);
    let hits = index.search(&[0.9, 0.1, 0.0], 4, None).unwrap();
    assert_eq!(keys(&hits), vec![1, 3, 2, 4]);
    let expected = [
        0.9 / 0.82f32.sqrt(),
        1.0 / (0.82f32.sqrt() * 2f32.sqrt()),
        0.1 / 0.82f32.sqrt(),
        -0.9 / 0.82f32.sqrt(),
    ];
    for ((_, sim), want) in hits.iter().zip(expected) {
        assert!((sim - want).abs() < 1e-5, "{sim} vs {want}");
    }
    assert_eq!(keys(&index.search(&[0.9, 0.1, 0.0], 2, None).unwrap()), vec![1, 3]);
    // The same on the HNSW path.
    index.set_exact_search_max(0);
    assert!(!index.searches_exactly());
    assert_eq!(keys(&index.search(&[0.9, 0.1, 0.0], 2, None).unwrap()), vec![1, 3]);
}

#[test]
fn ties_are_broken_by_key() {
    let mut index = VectorIndex::create_in_memory("test", 2).unwrap();
    for key in [9, 3, 5, 7] {
        index.upsert(key, &[1.0, 1.0]).unwrap();
    }
    index.upsert(1, &[0.0, 1.0]).unwrap();
    let hits = index.search(&[1.0, 1.0], 3, None).unwrap();
    assert_eq!(keys(&hits), vec![3, 5, 7]);
    let all = |_: u64| true;
    assert_eq!(keys(&index.search(&[1.0, 1.0], 3, Some(&all)).unwrap()), vec![3, 5, 7]);
}

#[test]
fn upsert_replaces_the_old_vector() {
    let mut index = VectorIndex::create_in_memory("test", 2).unwrap();
    index.upsert(1, &[1.0, 0.0]).unwrap();
    index.upsert(2, &[0.0, 1.0]).unwrap();
    index.upsert(1, &[0.0, 1.0]).unwrap();
    assert_eq!(index.len(), 2);
    let hits = index.search(&[1.0, 0.0], 2, None).unwrap();
    assert!(hits.iter().all(|&(_, sim)| sim.abs() < 1e-6), "{hits:?}");
    assert_eq!(index.vector(1).unwrap().unwrap(), vec![0.0, 1.0]);
    let hits = index.search(&[0.0, 1.0], 2, None).unwrap();
    assert_eq!(keys(&hits), vec![1, 2]);
    assert!(hits.iter().all(|&(_, sim)| (sim - 1.0).abs() < 1e-6));
}

#[test]
fn remove_works() {
    let mut index = VectorIndex::create_in_memory("test", 2).unwrap();
    index.upsert(1, &[1.0, 0.0]).unwrap();
    index.upsert(2, &[0.9, 0.1]).unwrap();
    index.upsert(3, &[0.0, 1.0]).unwrap();
    assert!(index.remove(1).unwrap());
    assert!(!index.remove(1).unwrap());
    assert!(!index.contains(1));
    assert!(index.contains(2) && index.contains(3));
    assert_eq!(index.len(), 2);
    assert_eq!(keys(&index.search(&[1.0, 0.0], 5, None).unwrap()), vec![2, 3]);
    index.set_exact_search_max(0);
    assert_eq!(keys(&index.search(&[1.0, 0.0], 5, None).unwrap()), vec![2, 3]);
    let mut sorted: Vec<u64> = index.keys().collect();
    sorted.sort_unstable();
    assert_eq!(sorted, vec![2, 3]);
    // Re-adding a removed key reuses its slot.
    index.upsert(1, &[1.0, 0.0]).unwrap();
    assert_eq!(keys(&index.search(&[1.0, 0.0], 1, None).unwrap()), vec![1]);
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    assert!(matches!(VectorIndex::create_in_memory("test", 0), Err(VectorError::ZeroDimension)));
    let mut index = VectorIndex::create_in_memory("test", 4).unwrap();
    assert!(matches!(
        index.upsert(1, &[1.0, 2.0]),
        Err(VectorError::DimensionMismatch { expected: 4, got: 2 })
    ));
    assert!(matches!(index.upsert(1, &[f32::NAN, 0.0, 0.0, 0.0]), Err(VectorError::NonFinite)));
    assert!(matches!(index.upsert(RESERVED_KEY, &[1.0; 4]), Err(VectorError::ReservedKey(_))));
    assert!(index.is_empty());
    index.upsert(1, &[1.0; 4]).unwrap();
    assert!(matches!(
        index.search(&[1.0; 5], 3, None),
        Err(VectorError::DimensionMismatch { expected: 4, got: 5 })
    ));
    assert!(matches!(index.search(&[], 3, None), Err(VectorError::DimensionMismatch { .. })));
    assert!(matches!(index.search(&[f32::INFINITY; 4], 3, None), Err(VectorError::NonFinite)));
    index.set_exact_search_max(0);
    assert!(matches!(index.search(&[1.0; 3], 3, None), Err(VectorError::DimensionMismatch { .. })));
    let msg = index.search(&[1.0; 3], 3, None).unwrap_err().to_string();
    assert_eq!(msg, "vector has 3 dimensions but the index holds 4");
    assert!(matches!(index.save(), Err(VectorError::InMemory)));
}

#[test]
fn empty_index_zero_query_and_zero_limit_give_nothing() {
    let mut index = VectorIndex::create_in_memory("test", 3).unwrap();
    assert!(index.search(&[1.0, 0.0, 0.0], 10, None).unwrap().is_empty());
    index.set_exact_search_max(0);
    assert!(index.search(&[1.0, 0.0, 0.0], 10, None).unwrap().is_empty());
    index.upsert(1, &[1.0, 0.0, 0.0]).unwrap();
    assert!(index.search(&[1.0, 0.0, 0.0], 0, None).unwrap().is_empty());
    assert!(index.search(&[0.0, 0.0, 0.0], 10, None).unwrap().is_empty());
    // A stored zero vector is similar to nothing.
    index.upsert(2, &[0.0, 0.0, 0.0]).unwrap();
    let hits = index.search(&[0.0, 1.0, 0.0], 10, None).unwrap();
    assert_eq!(hits.len(), 2);
    assert!(hits.iter().all(|&(_, sim)| sim.abs() < 1e-6), "{hits:?}");
}

#[test]
fn filter_applies_inside_retrieval() {
    let dim = 64;
    let mut rng = Rng(7);
    let vectors: Vec<Vec<f32>> = (0..10_000).map(|_| rng.vector(dim)).collect();
    let mut index = build(&vectors, dim);
    let allowed = [17u64, 4_242, 9_001];
    let allow = |k: u64| allowed.contains(&k);
    for exact_max in [EXACT_SEARCH_MAX, 0] {
        index.set_exact_search_max(exact_max);
        for _ in 0..5 {
            let query = rng.vector(dim);
            let hits = index.search(&query, 2, Some(&allow)).unwrap();
            assert_eq!(
                keys(&hits),
                exact_reference(&vectors, &query, 2, allow),
                "exact_max {exact_max}"
            );
            // The unfiltered top 2 are (almost surely) other keys.
            let unfiltered = index.search(&query, 2, None).unwrap();
            assert!(keys(&unfiltered).iter().all(|k| !allowed.contains(k)));
        }
        // A filter that allows nothing, and one that allows everything.
        let query = rng.vector(dim);
        assert!(index.search(&query, 5, Some(&|_| false)).unwrap().is_empty());
        let all = index.search(&query, 5, Some(&|_| true)).unwrap();
        assert_eq!(keys(&all), exact_reference(&vectors, &query, 5, |_| true));
        // Half the keys: too many to score one by one, so usearch runs the search.
        let odd = |k: u64| k % 2 == 1;
        let hits = index.search(&query, 20, Some(&odd)).unwrap();
        assert_eq!(hits.len(), 20);
        assert!(keys(&hits).iter().all(|&k| odd(k)));
        if index.searches_exactly() {
            assert_eq!(keys(&hits), exact_reference(&vectors, &query, 20, odd));
        }
        // 30 % of the keys, all far from the query: the over-fetch finds none of them and
        // the search falls back to scoring the allowed keys.
        let q = normalized(&query).unwrap();
        let mut by_sim: Vec<(u64, f32)> = vectors
            .iter()
            .enumerate()
            .map(|(i, v)| (i as u64, dot(&q, &normalized(v).unwrap())))
            .collect();
        by_sim.sort_by(by_rank);
        let far: std::collections::HashSet<u64> = by_sim[7_000..].iter().map(|&(k, _)| k).collect();
        let is_far = |k: u64| far.contains(&k);
        let hits = keys(&index.search(&query, 10, Some(&is_far)).unwrap());
        let reference = exact_reference(&vectors, &query, 10, is_far);
        if index.searches_exactly() {
            assert_eq!(hits, reference);
        } else {
            assert!(hits.len() == 10 && hits.iter().all(|&k| is_far(k)));
            assert!(hits.iter().filter(|k| reference.contains(k)).count() >= 8, "{hits:?}");
        }
    }
}

#[test]
#[should_panic(expected = "filter exploded")]
fn a_panicking_filter_panics_in_the_caller() {
    let mut index = VectorIndex::create_in_memory("test", 2).unwrap();
    for key in 0..10 {
        index.upsert(key, &[1.0, key as f32]).unwrap();
    }
    let _ = index.search(&[1.0, 1.0], 3, Some(&|_| panic!("filter exploded")));
}

#[test]
#[should_panic(expected = "filter exploded inside usearch")]
fn a_filter_panicking_inside_usearch_panics_in_the_caller() {
    let mut rng = Rng(9);
    let n = 5_000;
    let vectors: Vec<Vec<f32>> = (0..n).map(|_| rng.vector(8)).collect();
    let mut index = build(&vectors, 8);
    index.set_exact_search_max(0);
    // The first pass over the keys runs in Rust; the next calls come from usearch's C++.
    let calls = std::cell::Cell::new(0);
    let filter = |k: u64| {
        calls.set(calls.get() + 1);
        assert!(calls.get() <= n, "filter exploded inside usearch");
        k.is_multiple_of(2)
    };
    let _ = index.search(&vectors[0], 3, Some(&filter));
}

#[test]
fn save_and_open_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let vdir = dir.path().join("indices").join("vector");
    let dim = 32;
    let mut rng = Rng(11);
    let centres: Vec<Vec<f32>> = (0..40).map(|_| rng.vector(dim)).collect();
    let vectors = clustered(&mut rng, 2_000, &centres, 0.3);
    let mut index = VectorIndex::create(&vdir, "builtin-v1", dim).unwrap();
    for (i, v) in vectors.iter().enumerate() {
        index.upsert(i as u64 * 3 + 1, v).unwrap();
    }
    for key in (1..600).step_by(9) {
        index.remove(key).unwrap();
    }
    assert!(index.has_unsaved_changes());
    index.save().unwrap();
    assert!(!index.has_unsaved_changes());
    for name in [VECTORS_FILE, KEYS_FILE, META_FILE] {
        assert!(vdir.join(name).is_file(), "{name}");
        assert!(!vdir.join(format!("{name}.tmp")).exists(), "{name}.tmp");
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&fs::read(vdir.join(META_FILE)).unwrap()).unwrap();
    assert_eq!(meta["format"], FORMAT);
    assert_eq!(meta["embedder_id"], "builtin-v1");
    assert_eq!(meta["dim"], dim);
    assert_eq!(meta["count"], index.len());

    let opened = expect_ready(VectorIndex::open(&vdir, "builtin-v1", dim).unwrap());
    assert_eq!(opened.len(), index.len());
    assert_eq!(opened.dir(), Some(vdir.as_path()));
    assert!(!opened.has_unsaved_changes());
    let mut a: Vec<u64> = index.keys().collect();
    let mut b: Vec<u64> = opened.keys().collect();
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b);
    let odd = |k: u64| k % 2 == 1;
    for exact_max in [EXACT_SEARCH_MAX, 0] {
        let (mut index, mut opened) =
            (&mut index, expect_ready(VectorIndex::open(&vdir, "builtin-v1", dim).unwrap()));
        index.set_exact_search_max(exact_max);
        opened.set_exact_search_max(exact_max);
        for _ in 0..10 {
            let q = rng.vector(dim);
            assert_eq!(index.search(&q, 10, None).unwrap(), opened.search(&q, 10, None).unwrap());
            assert_eq!(
                index.search(&q, 10, Some(&odd)).unwrap(),
                opened.search(&q, 10, Some(&odd)).unwrap()
            );
        }
        let _ = (&mut index, &mut opened);
    }

    // The opened index keeps working and saves again.
    let mut opened = opened;
    opened.upsert(5, &vectors[0]).unwrap();
    opened.remove(4).unwrap();
    opened.save().unwrap();
    let again = expect_ready(VectorIndex::open(&vdir, "builtin-v1", dim).unwrap());
    assert!(again.contains(5) && !again.contains(4));
    assert_eq!(again.len(), opened.len());
}

#[test]
fn an_empty_index_saves_and_opens() {
    let dir = tempfile::tempdir().unwrap();
    VectorIndex::create(dir.path(), "e", 4).unwrap().save().unwrap();
    let mut opened = expect_ready(VectorIndex::open(dir.path(), "e", 4).unwrap());
    assert!(opened.is_empty());
    assert!(opened.search(&[1.0; 4], 5, None).unwrap().is_empty());
    opened.upsert(1, &[1.0; 4]).unwrap();
    assert_eq!(keys(&opened.search(&[1.0; 4], 5, None).unwrap()), vec![1]);
}

#[test]
fn another_embedder_or_dimension_needs_a_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = VectorIndex::create(dir.path(), "builtin-v1", 8).unwrap();
    index.upsert(1, &[1.0; 8]).unwrap();
    index.save().unwrap();
    let reason = expect_rebuild(VectorIndex::open(dir.path(), "minilm-l6-v2", 8).unwrap());
    assert!(reason.contains("builtin-v1"), "{reason}");
    let reason = expect_rebuild(VectorIndex::open(dir.path(), "builtin-v1", 16).unwrap());
    assert!(reason.contains("dimension"), "{reason}");
    expect_ready(VectorIndex::open(dir.path(), "builtin-v1", 8).unwrap());
}

#[test]
fn missing_directory_or_files_need_a_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    expect_rebuild(VectorIndex::open(&dir.path().join("nope"), "e", 4).unwrap());
    let mut index = VectorIndex::create(dir.path(), "e", 4).unwrap();
    index.upsert(1, &[1.0; 4]).unwrap();
    index.save().unwrap();
    for name in [VECTORS_FILE, KEYS_FILE, META_FILE] {
        let path = dir.path().join(name);
        let saved = fs::read(&path).unwrap();
        fs::remove_file(&path).unwrap();
        expect_rebuild(VectorIndex::open(dir.path(), "e", 4).unwrap());
        fs::write(&path, saved).unwrap();
        expect_ready(VectorIndex::open(dir.path(), "e", 4).unwrap());
    }
}

#[test]
fn corrupt_or_truncated_files_need_a_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let dim = 16;
    let mut rng = Rng(3);
    let mut index = VectorIndex::create(dir.path(), "e", dim).unwrap();
    for key in 0..300 {
        index.upsert(key, &rng.vector(dim)).unwrap();
    }
    index.save().unwrap();
    let vectors = dir.path().join(VECTORS_FILE);
    let meta = dir.path().join(META_FILE);
    let keys = dir.path().join(KEYS_FILE);
    let good_vectors = fs::read(&vectors).unwrap();
    let good_meta = fs::read(&meta).unwrap();
    let good_keys = fs::read(&keys).unwrap();
    let restore = || {
        fs::write(&vectors, &good_vectors).unwrap();
        fs::write(&meta, &good_meta).unwrap();
        fs::write(&keys, &good_keys).unwrap();
    };
    let mut damaged: Vec<(&Path, Vec<u8>)> = vec![
        (&vectors, b"garbage, not a usearch file".to_vec()),
        (&vectors, good_vectors[..good_vectors.len() / 2].to_vec()),
        (&vectors, Vec::new()),
        (&meta, b"{ not json".to_vec()),
        (&meta, b"{}".to_vec()),
        (&meta, Vec::new()),
        (&keys, good_keys[..good_keys.len() - 3].to_vec()),
        (&keys, vec![0xAB; good_keys.len()]),
    ];
    // Same length, one byte flipped in the middle of the vectors.
    let mut flipped = good_vectors.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x40;
    damaged.push((&vectors, flipped));
    // A meta.json that claims another count.
    let mut meta_json: serde_json::Value = serde_json::from_slice(&good_meta).unwrap();
    meta_json["count"] = serde_json::json!(299);
    damaged.push((&meta, serde_json::to_vec(&meta_json).unwrap()));
    for (path, bytes) in damaged {
        fs::write(path, &bytes).unwrap();
        let reason = expect_rebuild(VectorIndex::open(dir.path(), "e", dim).unwrap());
        assert!(!reason.is_empty());
        restore();
        expect_ready(VectorIndex::open(dir.path(), "e", dim).unwrap());
    }
}

fn mtime(path: &Path) -> std::time::SystemTime {
    fs::metadata(path).unwrap().modified().unwrap()
}

#[test]
fn the_journal_survives_reopen_and_compaction() {
    let dim = 8;
    let mut rng = Rng(7);
    let mut vectors: Vec<Vec<f32>> = (0..120).map(|_| rng.vector(dim)).collect();
    let dir = tempfile::tempdir().unwrap();
    let mut index = VectorIndex::create(dir.path(), "e", dim).unwrap();
    for (i, v) in vectors.iter().enumerate() {
        index.upsert(i as u64, v).unwrap();
    }
    index.save().unwrap();
    let base = dir.path().join(VECTORS_FILE);
    let base_mtime = mtime(&base);

    // A few changes through a memory-mapped writer: only the journal is written.
    let mut w = expect_ready(VectorIndex::open_for_update(dir.path(), "e", dim).unwrap());
    for (i, v) in vectors.iter_mut().enumerate().skip(100).take(3) {
        *v = rng.vector(dim);
        w.upsert(i as u64, v).unwrap();
    }
    for i in 120..125 {
        let v = rng.vector(dim);
        w.upsert(i, &v).unwrap();
        vectors.push(v);
    }
    assert!(w.remove(5).unwrap() && w.remove(122).unwrap());
    assert!(!w.remove(5).unwrap(), "removing twice finds nothing");
    let gone = |k: u64| k != 5 && k != 122;
    w.save().unwrap();
    assert_eq!(mtime(&base), base_mtime, "the base file is not rewritten");
    assert!(w.journaled() > 0);
    let q = rng.vector(dim);
    let want = exact_reference(&vectors, &q, 10, gone);
    assert_eq!(keys(&w.search(&q, 10, None).unwrap()), want);

    // Every way of opening sees the journal.
    for opened in [
        VectorIndex::open(dir.path(), "e", dim).unwrap(),
        VectorIndex::open_read_only(dir.path(), "e", dim).unwrap(),
        VectorIndex::open_for_update(dir.path(), "e", dim).unwrap(),
    ] {
        let mut r = expect_ready(opened);
        assert_eq!(r.len(), 123);
        assert!(!r.contains(5) && !r.contains(122) && r.contains(124));
        assert_eq!(keys(&r.search(&q, 10, None).unwrap()), want);
        let odd = |k: u64| k % 2 == 1;
        let want_odd = exact_reference(&vectors, &q, 7, |k| gone(k) && odd(k));
        assert_eq!(keys(&r.search(&q, 7, Some(&odd)).unwrap()), want_odd);
        let v = r.vector(101).unwrap().unwrap();
        assert!((dot(&v, &normalized(&vectors[101]).unwrap()) - 1.0).abs() < 1e-5);
        assert_eq!(r.vector(5).unwrap(), None);
        // The HNSW path (ef ≥ n here, so exact too) leaves the journaled keys out as well.
        r.set_exact_search_max(0);
        assert_eq!(keys(&r.search(&q, 10, None).unwrap()), want);
    }

    // Past delta_max the next save compacts into a new generation with an empty journal.
    let mut w = expect_ready(VectorIndex::open_for_update(dir.path(), "e", dim).unwrap());
    w.set_delta_max(8);
    for i in 0..10u64 {
        let v = rng.vector(dim);
        w.upsert(i, &v).unwrap();
        vectors[i as usize] = v;
    }
    let old_journal = fs::read(dir.path().join(DELTA_FILE)).unwrap();
    w.save().unwrap();
    assert_eq!(w.journaled(), 0);
    assert_ne!(mtime(&base), base_mtime, "a compaction rewrites the base");
    let gone = |k: u64| k != 122;
    let want = exact_reference(&vectors, &q, 10, gone);
    let r = expect_ready(VectorIndex::open(dir.path(), "e", dim).unwrap());
    assert_eq!((r.len(), r.journaled()), (124, 0));
    assert_eq!(keys(&r.search(&q, 10, None).unwrap()), want);
    // The writer keeps going on its compacted base.
    w.remove(0).unwrap();
    w.save().unwrap();
    assert_eq!(expect_ready(VectorIndex::open(dir.path(), "e", dim).unwrap()).len(), 123);

    // A journal of an older generation (a crash right after a compaction) is ignored.
    fs::write(dir.path().join(DELTA_FILE), &old_journal).unwrap();
    let r = expect_ready(VectorIndex::open_read_only(dir.path(), "e", dim).unwrap());
    assert_eq!((r.len(), r.journaled()), (124, 0));
    // A damaged journal means a rebuild, never a wrong answer.
    let mut bad = old_journal.clone();
    let n = bad.len();
    bad[n / 2] ^= 0xff;
    fs::write(dir.path().join(DELTA_FILE), &bad).unwrap();
    expect_rebuild(VectorIndex::open(dir.path(), "e", dim).unwrap());
}

#[test]
fn a_journal_newer_than_the_base_is_a_mismatch() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = VectorIndex::create(dir.path(), "e", 4).unwrap();
    index.upsert(1, &[1.0, 0.0, 0.0, 0.0]).unwrap();
    index.save().unwrap();
    write_delta(dir.path(), index.generation + 1, 4, &HashMap::new()).unwrap();
    let reason = expect_rebuild(VectorIndex::open(dir.path(), "e", 4).unwrap());
    assert!(reason.contains(DELTA_FILE), "{reason}");
}

#[test]
fn a_crash_between_renames_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = VectorIndex::create(dir.path(), "e", 4).unwrap();
    index.upsert(1, &[1.0, 0.0, 0.0, 0.0]).unwrap();
    index.upsert(2, &[0.0, 1.0, 0.0, 0.0]).unwrap();
    index.save().unwrap();
    let old_meta = fs::read(dir.path().join(META_FILE)).unwrap();
    // Same count, same keys, other vectors: only the hashes tell the saves apart (a full
    // save, not a journal).
    index.set_delta_max(0);
    index.upsert(1, &[0.0, 0.0, 1.0, 0.0]).unwrap();
    index.save().unwrap();
    fs::write(dir.path().join(META_FILE), &old_meta).unwrap();
    let reason = expect_rebuild(VectorIndex::open(dir.path(), "e", 4).unwrap());
    assert!(reason.contains(VECTORS_FILE), "{reason}");
}

#[test]
fn concurrent_searches_share_the_index() {
    let dim = 16;
    let mut rng = Rng(5);
    // 5,000 vectors: half of them is too many to score one by one, so the filtered searches
    // below run usearch's filtered_search concurrently too.
    let vectors: Vec<Vec<f32>> = (0..5_000).map(|_| rng.vector(dim)).collect();
    let mut index = build(&vectors, dim);
    index.set_exact_search_max(0);
    let index = &index;
    let vectors = &vectors;
    // More threads than usearch has search contexts: they wait, none fails.
    std::thread::scope(|s| {
        for t in 0..(search_threads() * 3) {
            s.spawn(move || {
                for i in 0..50 {
                    let v = &vectors[(t * 50 + i) % vectors.len()];
                    let hits = index.search(v, 3, None).unwrap();
                    assert_eq!(hits.len(), 3);
                    let even = |k: u64| k.is_multiple_of(2);
                    assert_eq!(index.search(v, 3, Some(&even)).unwrap().len(), 3);
                }
            });
        }
    });
}

#[test]
fn hnsw_recall_on_clustered_vectors() {
    let dim = 64;
    let n = 30_000;
    let mut rng = Rng(42);
    let centres: Vec<Vec<f32>> = (0..300).map(|_| rng.vector(dim)).collect();
    let vectors = clustered(&mut rng, n, &centres, 0.35);
    let mut index = build(&vectors, dim);
    assert!(!index.searches_exactly());
    // Queries near the data (as real queries are) and half-way between a centre and noise.
    let mut queries = clustered(&mut rng, 50, &centres, 0.35);
    queries.extend(clustered(&mut rng, 50, &centres, 1.0));
    let (mut found, mut total) = (0usize, 0usize);
    let mut approx = Vec::new();
    for q in &queries {
        approx.push(keys(&index.search(q, 10, None).unwrap()));
    }
    index.set_exact_search_max(usize::MAX);
    for (q, approx) in queries.iter().zip(&approx) {
        let exact = keys(&index.search(q, 10, None).unwrap());
        total += exact.len();
        found += exact.iter().filter(|k| approx.contains(k)).count();
    }
    let recall = found as f64 / total as f64;
    assert!(recall >= 0.95, "recall@10 = {recall}");
    // usearch's exact search agrees with the brute-force reference.
    for q in queries.iter().take(3) {
        let exact = keys(&index.search(q, 10, None).unwrap());
        assert_eq!(exact, exact_reference(&vectors, q, 10, |_| true));
    }
}

/// Timings at 10k and 100k vectors of dimension 384. Run with
/// `cargo test --release --lib vector -- --ignored --nocapture`.
#[test]
#[ignore = "performance measurement; run in release"]
#[allow(clippy::print_stderr)]
fn perf_384() {
    use std::time::Instant;
    fn median_and_p95(mut xs: Vec<f64>) -> (f64, f64) {
        xs.sort_by(f64::total_cmp);
        (xs[xs.len() / 2], xs[xs.len() * 95 / 100])
    }
    let dim = 384;
    for n in [10_000usize, 100_000] {
        let mut rng = Rng(n as u64);
        let centres: Vec<Vec<f32>> = (0..(n / 100)).map(|_| rng.vector(dim)).collect();
        let vectors = clustered(&mut rng, n, &centres, 0.5);
        let queries = clustered(&mut rng, 200, &centres, 0.8);

        let dir = tempfile::tempdir().unwrap();
        let mut index = VectorIndex::create(dir.path(), "perf", dim).unwrap();
        let t = Instant::now();
        for (i, v) in vectors.iter().enumerate() {
            index.upsert(i as u64, v).unwrap();
        }
        let add = t.elapsed().as_secs_f64();
        eprintln!(
            "n={n}: upsert {:.2} s = {:.0} vectors/s; usearch memory {:.1} MB",
            add,
            n as f64 / add,
            index.memory_usage() as f64 / 1e6
        );

        let half = |k: u64| k.is_multiple_of(2);
        let one_percent = |k: u64| k % 100 == 7;
        let three = |k: u64| k == 5 || k == 5_000 || k == 9_999;
        type Filter<'a> = Option<&'a dyn Fn(u64) -> bool>;
        let filters: [(&str, Filter<'_>); 4] = [
            ("no filter", None),
            ("50% filter", Some(&half)),
            ("1% filter", Some(&one_percent)),
            ("3-key filter", Some(&three)),
        ];
        for exact_max in [EXACT_SEARCH_MAX, usize::MAX, 0] {
            index.set_exact_search_max(exact_max);
            let mode = if index.searches_exactly() { "exact" } else { "hnsw" };
            for (name, filter) in &filters {
                let mut times = Vec::new();
                for q in &queries {
                    let t = Instant::now();
                    let hits = index.search(q, 50, *filter).unwrap();
                    times.push(t.elapsed().as_secs_f64() * 1e3);
                    assert!(!hits.is_empty());
                }
                let (med, p95) = median_and_p95(times);
                eprintln!("n={n} {mode:5} {name:12} limit 50: median {med:.3} ms, p95 {p95:.3} ms");
            }
        }

        let t = Instant::now();
        index.save().unwrap();
        let save = t.elapsed().as_secs_f64();
        let bytes = fs::metadata(dir.path().join(VECTORS_FILE)).unwrap().len();
        let t = Instant::now();
        let opened = expect_ready(VectorIndex::open(dir.path(), "perf", dim).unwrap());
        let open = t.elapsed().as_secs_f64();
        eprintln!(
            "n={n}: save {:.0} ms, open {:.0} ms, {VECTORS_FILE} {:.1} MB",
            save * 1e3,
            open * 1e3,
            bytes as f64 / 1e6
        );
        assert_eq!(opened.len(), n);
        eprintln!(
            "n={n}: usearch memory after open {:.1} MB ({:?})",
            opened.memory_usage() as f64 / 1e6,
            opened.index.memory_stats()
        );
    }
}

#[test]
fn a_read_only_view_answers_like_the_loaded_index_and_refuses_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("v");
    let mut idx = VectorIndex::create(&dir, "e", 8).unwrap();
    for k in 0..200u64 {
        let v: Vec<f32> = (0..8).map(|i| ((k * 7 + i * 13) % 17) as f32 - 8.0).collect();
        idx.upsert(k, &v).unwrap();
    }
    idx.save().unwrap();
    let q = [1.0, -2.0, 3.0, 0.5, 0.0, 1.0, -1.0, 2.0];
    let want = idx.search(&q, 10, None).unwrap();
    let OpenOutcome::Ready(mut view) = VectorIndex::open_read_only(&dir, "e", 8).unwrap() else {
        panic!("the saved index should open")
    };
    assert_eq!(view.len(), 200);
    assert_eq!(view.search(&q, 10, None).unwrap(), want);
    let only_odd = |k: u64| k % 2 == 1;
    assert!(view.search(&q, 5, Some(&only_odd)).unwrap().iter().all(|(k, _)| k % 2 == 1));
    assert!(view.upsert(999, &q).is_err(), "a view cannot be written");
    assert!(view.remove(3).is_err(), "a view cannot be written");
    assert_eq!(view.search(&q, 10, None).unwrap(), want, "a refused write changes nothing");
}

/// usearch is handed the file memlane opened beneath the vault handle, not a path: a link
/// swapped in at the path after the open changes nothing about what is loaded, and a save
/// never writes through a link at the temporary name.
#[cfg(target_os = "linux")]
#[test]
fn usearch_reaches_the_open_file_never_a_link_swapped_in_at_its_path() {
    let tmp = tempfile::tempdir().unwrap();
    let vdir = tmp.path().join("vault/indices/vector");
    let outside = tmp.path().join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::create_dir_all(tmp.path().join("vault")).unwrap();
    let mut index = VectorIndex::create(&vdir, "e", 4).unwrap();
    index.upsert(1, &[1.0, 0.0, 0.0, 0.0]).unwrap();
    index.upsert(2, &[0.0, 1.0, 0.0, 0.0]).unwrap();
    index.save().unwrap();

    // Loading: the path now names a link to another index with one vector outside.
    let path = vdir.join(VECTORS_FILE);
    let file = crate::index::confined_io::open(&path).unwrap();
    let other = Index::new(&index_options(4)).unwrap();
    other.reserve(4).unwrap();
    other.add(9, &[0.0, 0.0, 1.0, 0.0]).unwrap();
    other.save(outside.join("other.usearch").to_str().unwrap()).unwrap();
    let moved = vdir.join("moved.usearch");
    fs::rename(&path, &moved).unwrap();
    std::os::unix::fs::symlink(outside.join("other.usearch"), &path).unwrap();
    let via = persist::engine_path(&file, &path).unwrap();
    assert!(via.by_handle);
    let loaded = Index::new(&index_options(4)).unwrap();
    loaded.load(&via.path).unwrap();
    assert_eq!(loaded.size(), 2, "the file opened, not the link's target");
    assert!(loaded.contains(1) && !loaded.contains(9));
    fs::remove_file(&path).unwrap();
    fs::rename(&moved, &path).unwrap();

    // Saving: a link planted at the temporary name is removed, never written through.
    std::os::unix::fs::symlink(outside.join("victim"), vdir.join(format!("{VECTORS_FILE}.tmp")))
        .unwrap();
    fs::write(outside.join("victim"), "precious").unwrap();
    let mut index = expect_ready(VectorIndex::open(&vdir, "e", 4).unwrap());
    index.set_delta_max(0);
    index.upsert(3, &[0.0, 0.0, 0.0, 1.0]).unwrap();
    index.save().unwrap();
    assert_eq!(fs::read_to_string(outside.join("victim")).unwrap(), "precious");
    let reopened = expect_ready(VectorIndex::open(&vdir, "e", 4).unwrap());
    assert_eq!(reopened.len(), 3);
}

#[test]
fn vectors_added_together_are_found_as_if_added_one_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let vdir = dir.path().join("vector");
    let dim = 32;
    let mut rng = Rng(5);
    let centres: Vec<Vec<f32>> = (0..30).map(|_| rng.vector(dim)).collect();
    let vectors = clustered(&mut rng, 3_000, &centres, 0.3);
    let items: Vec<(u64, &[f32])> =
        vectors.iter().enumerate().map(|(i, v)| (i as u64, v.as_slice())).collect();
    let mut together = VectorIndex::create(&vdir, "test", dim).unwrap();
    together.add_new(&items).unwrap();
    let mut one_by_one = build(&vectors, dim);
    assert_eq!(together.len(), vectors.len());
    // Exact search (under EXACT_SEARCH_MAX) finds exactly what one-by-one insertion finds.
    together.set_exact_search_max(EXACT_SEARCH_MAX);
    for q in vectors.iter().step_by(97) {
        let hits = keys(&together.search(q, 10, None).unwrap());
        assert_eq!(hits, exact_reference(&vectors, q, 10, |_| true));
        assert_eq!(hits, keys(&one_by_one.search(q, 10, None).unwrap()));
    }
    // The HNSW graph built on every core is approximate and its shape depends on thread
    // timing: its recall is as good as the graph built one by one (both measured against the
    // exact answer), and all but a few stored vectors find themselves first. Threads inserting
    // at once can leave a node that no link reaches (measured: 0 to 10 of these 3,000, none
    // when inserted one by one); a check that looks each one up again cost 10 s of a 50 s
    // `reindex` at 100k memories, so the few are left to the keyword side.
    together.set_exact_search_max(0);
    one_by_one.set_exact_search_max(0);
    let (mut found, mut found_alone, mut wanted) = (0usize, 0usize, 0usize);
    for q in vectors.iter().step_by(97) {
        let exact = exact_reference(&vectors, q, 10, |_| true);
        let hits = keys(&together.search(q, 10, None).unwrap());
        found += hits.iter().filter(|k| exact.contains(k)).count();
        let alone = keys(&one_by_one.search(q, 10, None).unwrap());
        found_alone += alone.iter().filter(|k| exact.contains(k)).count();
        wanted += exact.len();
    }
    let lost: Vec<usize> = (0..vectors.len())
        .filter(|&i| {
            together.search(&vectors[i], 1, None).unwrap().first().map(|h| h.0) != Some(i as u64)
        })
        .collect();
    assert!(
        lost.len() <= vectors.len() / 100,
        "{} stored vectors do not find themselves",
        lost.len()
    );
    let lost_alone = (0..vectors.len())
        .filter(|&i| {
            one_by_one.search(&vectors[i], 1, None).unwrap().first().map(|h| h.0) != Some(i as u64)
        })
        .count();
    assert!(lost_alone <= vectors.len() / 300, "{lost_alone} do not find themselves, one by one");
    let recall = found as f64 / wanted as f64;
    let recall_alone = found_alone as f64 / wanted as f64;
    assert!(recall >= 0.95 && recall >= recall_alone - 0.03, "recall {recall} vs {recall_alone}");
    // Saved and opened: every key is there.
    together.save().unwrap();
    let opened = expect_ready(VectorIndex::open(&vdir, "test", dim).unwrap());
    assert_eq!(opened.len(), vectors.len());
    assert!((0..vectors.len() as u64).all(|k| opened.contains(k)));
    // Bad input is refused before anything is stored; a key already stored is replaced.
    let mut index = VectorIndex::create_in_memory("test", dim).unwrap();
    let mut bad = items.clone();
    bad[700].0 = RESERVED_KEY;
    assert!(matches!(index.add_new(&bad), Err(VectorError::ReservedKey(_))));
    let short = [0.5f32; 3];
    bad[700] = (700, &short);
    assert!(matches!(index.add_new(&bad), Err(VectorError::DimensionMismatch { .. })));
    assert_eq!(index.len(), 0);
    index.add_new(&items[..300]).unwrap();
    let again: Vec<(u64, &[f32])> =
        items[..300].iter().map(|(k, _)| (*k, vectors[0].as_slice())).collect();
    index.add_new(&again).unwrap();
    assert_eq!(index.len(), 300);
    assert_eq!(keys(&index.search(&vectors[0], 300, None).unwrap()).len(), 300);
}

#[test]
fn a_view_checks_a_sample_of_keys_and_a_write_checks_them_all() {
    let dir = tempfile::tempdir().unwrap();
    let dim = 8;
    let mut rng = Rng(11);
    let mut index = VectorIndex::create(dir.path(), "e", dim).unwrap();
    for key in 0..2_000 {
        index.upsert(key, &rng.vector(dim)).unwrap();
    }
    index.save().unwrap();
    let mut ro = expect_ready(VectorIndex::open_read_only(dir.path(), "e", dim).unwrap());
    let mut keys = ro.keys.clone();
    assert!(check_loaded(&ro.index, &keys, dim, true).is_none());
    assert!(check_loaded(&ro.index, &keys, dim, false).is_none());
    // A key the vectors file lacks, between two sampled ones: the sample passes it, the full
    // check names it.
    let step = keys.len() / VIEW_KEY_CHECKS;
    keys[step + 1] = 999_999;
    assert!(check_loaded(&ro.index, &keys, dim, true).is_none());
    assert!(
        matches!(check_loaded(&ro.index, &keys, dim, false), Some(Attempt::Rebuild(r)) if r.contains("999999"))
    );
    // A read-only view asked to take changes checks every key first and refuses.
    let good = std::mem::replace(&mut ro.keys, keys);
    assert!(!ro.allow_updates());
    assert!(ro.upsert(5, &rng.vector(dim)).is_err(), "still read-only");
    ro.keys = good;
    assert!(ro.allow_updates());
    ro.upsert(5, &rng.vector(dim)).unwrap();
}

/// Vectors whose 8-bit copies are the same (they differ below the copies' resolution) are
/// still told apart: every path ends with the exact vectors, before and after a save.
#[test]
fn the_graph_finds_candidates_on_8_bit_copies_and_the_exact_vectors_rank_them() {
    let dim = 8;
    let near = |eps: f32| {
        let mut v = vec![1.0, 0.5, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0];
        v[3] = eps;
        v
    };
    // Keys 1..=4: ever closer to the query, all with the same 8-bit copy (0.4 % of the
    // largest component is below half a step of 127). Scored on the copies, they would tie and
    // come back by ascending key.
    let stored: Vec<(u64, Vec<f32>)> =
        [(1, 0.0), (2, 0.001), (3, 0.002), (4, 0.003)].map(|(k, e)| (k, near(e))).into();
    let copy = |v: &[f32]| exact::quantized(&normalized(v).unwrap());
    assert!(stored.iter().all(|(_, v)| copy(v) == copy(&stored[0].1)));
    let query = near(0.01);
    let q = normalized(&query).unwrap();
    let exact_score =
        |k: u64| dot(&q, &normalized(&stored.iter().find(|s| s.0 == k).unwrap().1).unwrap());
    let check = |index: &mut VectorIndex, how: &str| {
        // An exact search and an HNSW one, unfiltered and filtered.
        for exact_max in [usize::MAX, 0] {
            index.set_exact_search_max(exact_max);
            let all = index.search(&query, 4, None).unwrap();
            let odd = |k: u64| k % 2 == 1;
            let filtered = index.search(&query, 2, Some(&odd)).unwrap();
            assert_eq!(keys(&all), [4, 3, 2, 1], "{how}, exact up to {exact_max}");
            assert_eq!(keys(&filtered), [3, 1], "{how}, exact up to {exact_max}");
            for (k, score) in all.iter().chain(&filtered) {
                assert!((score - exact_score(*k)).abs() < 1e-6, "{how}: key {k} scored {score}");
            }
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let mut index = VectorIndex::create(dir.path(), "e", dim).unwrap();
    for (k, v) in &stored {
        index.upsert(*k, v).unwrap();
    }
    check(&mut index, "in memory");
    index.save().unwrap();
    check(&mut index, "saved");
    let mut opened = expect_ready(VectorIndex::open_for_update(dir.path(), "e", dim).unwrap());
    check(&mut opened, "opened from the files");
    assert_eq!(opened.vector(3).unwrap().unwrap(), normalized(&stored[2].1).unwrap());
    // A journaled change and a compaction keep exact scores too.
    opened.upsert(9, &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]).unwrap();
    check(&mut opened, "with a journal");
    opened.set_delta_max(0);
    opened.save().unwrap();
    check(&mut opened, "compacted");
    let mut read_only = expect_ready(VectorIndex::open_read_only(dir.path(), "e", dim).unwrap());
    check(&mut read_only, "read-only view");
    // The graph holds the 8-bit copies: a quarter of the exact file's rows.
    let exact_len = fs::metadata(dir.path().join(EXACT_FILE)).unwrap().len();
    assert_eq!(exact_len, 32 + 5 * dim as u64 * 4);
}

/// The exact vectors' file belongs to one save: one from another save, cut short, missing or
/// damaged is never read as this one's.
#[test]
fn an_exact_vectors_file_from_another_save_or_damaged_needs_a_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = VectorIndex::create(dir.path(), "e", 4).unwrap();
    index.upsert(1, &[1.0, 0.0, 0.0, 0.0]).unwrap();
    index.upsert(2, &[0.0, 1.0, 0.0, 0.0]).unwrap();
    index.save().unwrap();
    let path = dir.path().join(EXACT_FILE);
    let first = fs::read(&path).unwrap();
    index.set_delta_max(0);
    index.upsert(1, &[0.0, 0.0, 1.0, 0.0]).unwrap();
    index.save().unwrap();
    let second = fs::read(&path).unwrap();
    assert_eq!(first.len(), second.len());
    expect_ready(VectorIndex::open(dir.path(), "e", 4).unwrap());

    // The previous save's file (a crash between the renames): same size, other generation.
    fs::write(&path, &first).unwrap();
    let reason = expect_rebuild(VectorIndex::open(dir.path(), "e", 4).unwrap());
    assert!(reason.contains(EXACT_FILE), "{reason}");
    // Cut short, missing.
    fs::write(&path, &second[..second.len() - 4]).unwrap();
    let reason = expect_rebuild(VectorIndex::open_read_only(dir.path(), "e", 4).unwrap());
    assert!(reason.contains(EXACT_FILE), "{reason}");
    fs::remove_file(&path).unwrap();
    let reason = expect_rebuild(VectorIndex::open_for_update(dir.path(), "e", 4).unwrap());
    assert!(reason.contains(EXACT_FILE), "{reason}");
    // A row holding NaN reads as zeros: a damaged file never yields a non-finite score.
    let mut damaged = second.clone();
    damaged[32..36].copy_from_slice(&f32::NAN.to_le_bytes());
    fs::write(&path, &damaged).unwrap();
    let index = expect_ready(VectorIndex::open(dir.path(), "e", 4).unwrap());
    for (_, score) in index.search(&[1.0, 1.0, 1.0, 0.0], 2, None).unwrap() {
        assert!(score.is_finite());
    }
}

/// HNSW build time and recall@10 against exact search, on real vectors: `MEMLANE_VECTORS` names
/// an `exact.f32` file of an indexed vault (the first `MEMLANE_N` rows, default 60,000, are
/// indexed; 200 rows after them are the queries). Prints one line per insertion width.
#[test]
#[ignore = "a measurement on a real vault's vectors: needs MEMLANE_VECTORS"]
#[allow(clippy::print_stderr)]
fn hnsw_settings_on_real_vectors() {
    let path = std::env::var("MEMLANE_VECTORS").expect("MEMLANE_VECTORS");
    let n: usize = std::env::var("MEMLANE_N").map_or(60_000, |s| s.parse().unwrap());
    let bytes = fs::read(path).unwrap();
    let dim = u64::from_le_bytes(bytes[16..24].try_into().unwrap()) as usize;
    let rows: Vec<Vec<f32>> = bytes[32..]
        .chunks_exact(dim * 4)
        .take(n + 200)
        .map(|r| r.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect())
        .collect();
    let (data, queries) = rows.split_at(n);
    for width in [64, 48, 32] {
        let mut index = VectorIndex::create_in_memory("t", dim).unwrap();
        index.index.change_expansion_add(width);
        let items: Vec<(u64, &[f32])> =
            data.iter().enumerate().map(|(i, v)| (i as u64, v.as_slice())).collect();
        let t = std::time::Instant::now();
        index.add_new(&items).unwrap();
        let built = t.elapsed();
        index.set_exact_search_max(0);
        let approx: Vec<Vec<u64>> =
            queries.iter().map(|q| keys(&index.search(q, 10, None).unwrap())).collect();
        index.set_exact_search_max(usize::MAX);
        let (mut found, mut total) = (0, 0);
        for (q, a) in queries.iter().zip(&approx) {
            let exact = keys(&index.search(q, 10, None).unwrap());
            total += exact.len();
            found += exact.iter().filter(|k| a.contains(k)).count();
        }
        eprintln!(
            "expansion_add {width}: built {n} in {:.1} s, recall@10 {:.4}",
            built.as_secs_f64(),
            found as f64 / total as f64
        );
    }
}

/// A compaction copies the base's exact rows block by block: across several blocks, with keys
/// removed, replaced and added in between, every vector reads back as the last one stored.
#[test]
fn a_compaction_keeps_every_exact_vector_across_blocks() {
    let dim = 2048; // 128 rows a block
    let mut rng = Rng(11);
    let dir = tempfile::tempdir().unwrap();
    let mut index = VectorIndex::create(dir.path(), "e", dim).unwrap();
    let mut expected: HashMap<u64, Vec<f32>> = HashMap::new();
    for key in 0..450u64 {
        let v = rng.vector(dim);
        index.upsert(key * 3, &v).unwrap();
        expected.insert(key * 3, normalized(&v).unwrap());
    }
    index.save().unwrap();
    let mut index = expect_ready(VectorIndex::open_for_update(dir.path(), "e", dim).unwrap());
    for key in 0..450u64 {
        match key % 7 {
            0 => {
                index.remove(key * 3).unwrap();
                expected.remove(&(key * 3));
            }
            1 => {
                let v = rng.vector(dim);
                index.upsert(key * 3, &v).unwrap();
                expected.insert(key * 3, normalized(&v).unwrap());
            }
            2 => {
                let v = rng.vector(dim);
                index.upsert(key * 3 + 1, &v).unwrap();
                expected.insert(key * 3 + 1, normalized(&v).unwrap());
            }
            _ => {}
        }
    }
    index.set_delta_max(0);
    index.save().unwrap();
    assert_eq!(index.journaled(), 0, "the save compacted");
    let opened = expect_ready(VectorIndex::open(dir.path(), "e", dim).unwrap());
    assert_eq!(opened.len(), expected.len());
    for (key, v) in &expected {
        assert_eq!(opened.vector(*key).unwrap().as_ref(), Some(v), "key {key}");
    }
    for key in (0..450u64).filter(|k| k % 7 == 0) {
        assert_eq!(opened.vector(key * 3).unwrap(), None);
    }
}

/// The time of a compaction of a real index: `MEMLANE_VECTOR_DIR` names a copy of an indexed
/// vault's `indices/vector` (it is rewritten). Prints the time of the full save.
#[test]
#[ignore = "a measurement on a copy of a real vault's vector index: needs MEMLANE_VECTOR_DIR"]
#[allow(clippy::print_stderr)]
fn compaction_time_on_a_real_index() {
    let dir = PathBuf::from(std::env::var("MEMLANE_VECTOR_DIR").expect("MEMLANE_VECTOR_DIR"));
    let meta: Meta = serde_json::from_slice(&fs::read(dir.join(META_FILE)).unwrap()).unwrap();
    let t = std::time::Instant::now();
    let mut index =
        expect_ready(VectorIndex::open_for_update(&dir, &meta.embedder_id, meta.dim).unwrap());
    eprintln!("open {:.3} s", t.elapsed().as_secs_f64());
    let mut rng = Rng(3);
    for key in 0..1_100u64 {
        index.upsert(key.wrapping_mul(0x9E37_79B9), &rng.vector(meta.dim)).unwrap();
    }
    let t = std::time::Instant::now();
    index.save().unwrap();
    eprintln!("save with compaction {:.3} s", t.elapsed().as_secs_f64());
}
