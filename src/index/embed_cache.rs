//! The persistent embedding cache: `.memories/indices/embeddings/`, chunk vectors keyed by
//! (embedder id, text), so that no text is ever sent to a model twice.
//!
//! Re-indexing a vault (`reindex`, a deleted vector index, a moved memory, a `git checkout` of
//! an older version, switching models back and forth) embeds only the chunk texts this cache has
//! never seen for the embedder; and the vectors a duplicate check computes before a write are the
//! ones the index update after it uses.
//!
//! # Files
//!
//! 256 shard files, `embeddings/<xx>.bin`, where `xx` is the first byte of the text's hash, so a
//! lookup of a few texts reads a few small files. Each is a sequence of records, appended:
//!
//! | bytes | field |
//! |---|---|
//! | 4 | magic `MLEC` |
//! | 4 | dimension `d`, little-endian `u32` |
//! | 8 | xxh3-64 of the embedder id |
//! | 16 | xxh3-128 of the text |
//! | 4·d | the vector, little-endian `f32`s |
//! | 8 | xxh3-64 of all the bytes above |
//!
//! A record whose checksum, magic or dimension is wrong (a torn append, a damaged or foreign
//! file) is skipped, up to the next record that checks out; its text is re-embedded when needed,
//! and the next compaction rewrites the shard without it. Records of other embedders are kept (switching back
//! reuses them) but never returned. A cache hit is exactly the vector the embedder returned when
//! the record was written, so search results do not depend on whether a vector came from here.
//!
//! Only the embedders that are worth it use a cache ([`Embedder::cacheable`]): the built-in
//! embedder computes a vector faster than a lookup.
//!
//! # Growth
//!
//! Records are appended as vectors are computed (one write per shard per batch, by the process
//! that computed them; appends need no lock, a torn one is detected by its checksum). A full
//! rebuild ([`EmbedCache::compact`], run by `reindex`) rewrites every shard, atomically
//! (temporary file, rename), keeping the records of every embedder whose text is still in the
//! vault, and at most as many others (the most recently written) as there are live ones in the
//! shard, so an older version of a memory survives one rebuild and the cache stays within about
//! twice the vault's chunks per embedder. Between rebuilds it grows by one record
//! (`24 + 4·d` bytes, 1.6 KB for a 384-dimension model) per chunk text embedded.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use xxhash_rust::xxh3::{xxh3_64, xxh3_128};

use super::embed::{EmbedError, Embedder};

/// The cache's folder under `indices/`.
pub const CACHE_DIR: &str = "embeddings";

const MAGIC: &[u8; 4] = b"MLEC";
/// Header bytes of a record before the vector.
const HEADER: usize = 4 + 4 + 8 + 16;
/// Largest dimension a record may claim (anything bigger is damage).
const MAX_DIM: usize = 16_384;
const SHARDS: usize = 256;

/// What an [`EmbedCache`] did since it was created.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct CacheStats {
    /// Texts whose vector came from the cache (memory or disk).
    pub hits: usize,
    /// Texts sent to the embedder.
    pub embedded: usize,
    /// Records skipped as damaged (bad checksum, magic or dimension) while reading shards.
    pub damaged: usize,
}

/// A text's key: its xxh3-128.
type TextHash = u128;

#[derive(Default)]
struct State {
    /// Vectors of this embedder, by text hash: read from disk or computed in this process.
    memo: HashMap<TextHash, Arc<[f32]>>,
    /// Shards already read into `memo`.
    loaded: Vec<bool>,
    /// Records computed but not yet appended, by shard.
    unwritten: HashMap<u8, Vec<u8>>,
    stats: CacheStats,
}

/// The embedding cache of one vault for one embedder; see the [module docs](self).
///
/// Cheap to share (`Send + Sync`); every method takes `&self`.
pub struct EmbedCache {
    embedder: Arc<dyn Embedder>,
    /// `None`: an in-memory cache (an index that cannot be written), nothing persisted.
    dir: Option<PathBuf>,
    /// Whether computed vectors are appended (false: the indices are read-only for this process).
    writable: bool,
    model: u64,
    state: Mutex<State>,
}

impl std::fmt::Debug for EmbedCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbedCache")
            .field("embedder", &self.embedder.id())
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

fn text_hash(text: &str) -> TextHash {
    xxh3_128(text.as_bytes())
}

fn shard_of(hash: TextHash) -> u8 {
    (hash >> 120) as u8
}

impl EmbedCache {
    /// A cache for `embedder` in `indices_dir/embeddings/` (`None`: in memory only). Nothing is
    /// read until a text is looked up; nothing is written unless `writable`.
    pub fn new(embedder: Arc<dyn Embedder>, indices_dir: Option<&Path>, writable: bool) -> Self {
        let dir = indices_dir.filter(|_| embedder.cacheable()).map(|d| d.join(CACHE_DIR));
        let model = xxh3_64(embedder.id().as_bytes());
        let state = State { loaded: vec![false; SHARDS], ..State::default() };
        Self { embedder, dir, writable, model, state: Mutex::new(state) }
    }

    /// The embedder behind the cache.
    pub fn embedder(&self) -> &Arc<dyn Embedder> {
        &self.embedder
    }

    /// What the cache did so far.
    pub fn stats(&self) -> CacheStats {
        self.lock().stats
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Embeds `texts` as the indexer does, one vector per text, in order: vectors the cache has
    /// (for this embedder) are reused; the others are computed in one call to the embedder and
    /// appended to the cache. Texts that are not worth caching (built-in embedder) go straight
    /// to the embedder. When the embedder fails, its error is returned and nothing is cached.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if !self.embedder.cacheable() {
            let v = self.embedder.embed_batch(texts)?;
            self.lock().stats.embedded += texts.len();
            return Ok(v);
        }
        let hashes: Vec<TextHash> = texts.iter().map(|t| text_hash(t)).collect();
        let mut out: Vec<Option<Vec<f32>>> = vec![None; texts.len()];
        let mut missing: Vec<usize> = Vec::new();
        {
            let mut st = self.lock();
            for (i, &h) in hashes.iter().enumerate() {
                self.load_shard(&mut st, shard_of(h));
                match st.memo.get(&h) {
                    Some(v) => {
                        out[i] = Some(v.to_vec());
                        st.stats.hits += 1;
                    }
                    None => missing.push(i),
                }
            }
        }
        if !missing.is_empty() {
            // Each distinct text once.
            let mut first: HashMap<TextHash, usize> = HashMap::new();
            let mut unique: Vec<usize> = Vec::new();
            for &i in &missing {
                if first.insert(hashes[i], i).is_none() {
                    unique.push(i);
                }
            }
            let refs: Vec<&str> = unique.iter().map(|&i| texts[i]).collect();
            let vectors = self.embedder.embed_batch(&refs)?;
            let dim = self.embedder.dim();
            let mut st = self.lock();
            st.stats.embedded += refs.len();
            if vectors.len() == refs.len() {
                for (&i, v) in unique.iter().zip(&vectors) {
                    // A zero vector says nothing about the text: never cached.
                    if v.len() == dim && v.iter().any(|x| *x != 0.0) {
                        let h = hashes[i];
                        let rec = self.record(h, v);
                        st.unwritten.entry(shard_of(h)).or_default().extend_from_slice(&rec);
                        st.memo.insert(h, Arc::from(v.as_slice()));
                    }
                }
                let by_hash: HashMap<TextHash, &Vec<f32>> =
                    unique.iter().map(|&i| hashes[i]).zip(&vectors).collect();
                for &i in &missing {
                    out[i] = by_hash.get(&hashes[i]).map(|v| (*v).clone());
                }
            } else {
                // Malformed answer: hand it back as it is for the caller to refuse.
                drop(st);
                return Ok(vectors);
            }
            self.write_unwritten(&mut st);
        }
        Ok(out.into_iter().map(Option::unwrap_or_default).collect())
    }

    fn record(&self, hash: TextHash, v: &[f32]) -> Vec<u8> {
        let mut rec = Vec::with_capacity(HEADER + 4 * v.len() + 8);
        rec.extend_from_slice(MAGIC);
        rec.extend_from_slice(&(v.len() as u32).to_le_bytes());
        rec.extend_from_slice(&self.model.to_le_bytes());
        rec.extend_from_slice(&hash.to_le_bytes());
        for x in v {
            rec.extend_from_slice(&x.to_le_bytes());
        }
        let sum = xxh3_64(&rec);
        rec.extend_from_slice(&sum.to_le_bytes());
        rec
    }

    /// Reads shard `s` into the memo, once.
    fn load_shard(&self, st: &mut State, s: u8) {
        if st.loaded[s as usize] {
            return;
        }
        st.loaded[s as usize] = true;
        let Some(dir) = &self.dir else { return };
        let Ok(bytes) = crate::index::confined_io::read(&dir.join(shard_name(s))) else { return };
        let dim = self.embedder.dim();
        let parsed = parse(&bytes);
        st.stats.damaged += parsed.damaged;
        for r in parsed.records {
            if r.model == self.model && r.vector.len() == dim {
                st.memo.insert(r.text, Arc::from(r.vector));
            }
        }
    }

    /// Appends the computed records to their shards (best effort: a cache that cannot be
    /// written only costs time later).
    fn write_unwritten(&self, st: &mut State) {
        let pending = std::mem::take(&mut st.unwritten);
        let Some(dir) = &self.dir else { return };
        if pending.is_empty() || !self.writable {
            return;
        }
        if let Err(e) = crate::index::confined_io::create_dir_all(dir) {
            tracing::debug!(error = %e, "cannot create the embedding cache");
            return;
        }
        for (s, bytes) in pending {
            let path = dir.join(shard_name(s));
            let appended = crate::index::confined_io::append_unsynced(&path, &bytes);
            if let Err(e) = appended {
                tracing::debug!(path = %path.display(), error = %e, "cannot append to the embedding cache");
            }
        }
    }

    /// Rewrites every shard, keeping the records (of any embedder) whose text is in `live`
    /// (the texts the vault's chunks are embedded from, as given to [`embed`](Self::embed)), and
    /// as many of the other records as there are live ones in the shard, the most recently
    /// written first. Damaged records are dropped. Call it under the index lock, after a full
    /// rebuild. Returns the number of records kept.
    pub fn compact<'a>(&self, live: impl IntoIterator<Item = &'a str>) -> std::io::Result<usize> {
        let Some(dir) = &self.dir else { return Ok(0) };
        if crate::index::confined_io::stat(dir).is_none_or(|s| s.kind != crate::disk::Kind::Dir)
            || !self.writable
        {
            return Ok(0);
        }
        let live: HashSet<TextHash> = live.into_iter().map(text_hash).collect();
        let mut kept = 0;
        for s in 0..SHARDS {
            let s = s as u8;
            let path = dir.join(shard_name(s));
            let bytes = match crate::index::confined_io::read(&path) {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            };
            let parsed = parse(&bytes);
            // Last record of each (embedder, text) wins; newest first.
            let mut seen: HashSet<(u64, TextHash)> = HashSet::new();
            let mut keep_live: Vec<&Record<'_>> = Vec::new();
            let mut keep_dead: Vec<&Record<'_>> = Vec::new();
            for r in parsed.records.iter().rev() {
                if !seen.insert((r.model, r.text)) {
                    continue;
                }
                if live.contains(&r.text) { keep_live.push(r) } else { keep_dead.push(r) }
            }
            keep_dead.truncate(keep_live.len());
            if keep_live.len() + keep_dead.len() == parsed.records.len() && parsed.damaged == 0 {
                kept += parsed.records.len();
                continue; // nothing to drop
            }
            let mut out = Vec::with_capacity(bytes.len());
            // Oldest first, as appended.
            for r in keep_dead.iter().rev().chain(keep_live.iter().rev()) {
                out.extend_from_slice(r.raw);
            }
            kept += keep_live.len() + keep_dead.len();
            if out.is_empty() {
                crate::index::confined_io::remove_file(&path)?;
                continue;
            }
            crate::disk::atomic_write(&path, &out).map_err(std::io::Error::other)?;
        }
        Ok(kept)
    }
}

fn shard_name(s: u8) -> String {
    format!("{s:02x}.bin")
}

struct Record<'a> {
    model: u64,
    text: TextHash,
    vector: Vec<f32>,
    raw: &'a [u8],
}

struct Parsed<'a> {
    records: Vec<Record<'a>>,
    /// Damaged stretches skipped (each up to the next record that checks out).
    damaged: usize,
}

/// Reads every record that checks out; after a damaged one, reading resumes at the next magic
/// whose record checks out (so records appended after a torn one are still found).
fn parse(bytes: &[u8]) -> Parsed<'_> {
    let mut records = Vec::new();
    let mut damaged = 0;
    let mut at = 0;
    let mut in_damage = false;
    while at < bytes.len() {
        match parse_record(&bytes[at..]) {
            Some(rec) => {
                at += rec.raw.len();
                records.push(rec);
                in_damage = false;
            }
            None => {
                if !in_damage {
                    damaged += 1;
                    in_damage = true;
                }
                at += 1;
                match bytes[at..].windows(MAGIC.len()).position(|w| w == MAGIC) {
                    Some(off) => at += off,
                    None => break,
                }
            }
        }
    }
    Parsed { records, damaged }
}

fn parse_record(b: &[u8]) -> Option<Record<'_>> {
    if b.len() < HEADER + 8 || &b[..4] != MAGIC {
        return None;
    }
    let dim = u32::from_le_bytes(b[4..8].try_into().ok()?) as usize;
    if dim == 0 || dim > MAX_DIM {
        return None;
    }
    let len = HEADER + 4 * dim + 8;
    let raw = b.get(..len)?;
    let body = &raw[..len - 8];
    let sum = u64::from_le_bytes(raw[len - 8..].try_into().ok()?);
    if xxh3_64(body) != sum {
        return None;
    }
    let model = u64::from_le_bytes(b[8..16].try_into().ok()?);
    let text = u128::from_le_bytes(b[16..32].try_into().ok()?);
    let vector = body[HEADER..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Some(Record { model, text, vector, raw })
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    /// A deterministic "expensive" embedder that counts its calls.
    struct Counting {
        id: String,
        calls: std::sync::atomic::AtomicUsize,
    }

    impl Embedder for Counting {
        fn id(&self) -> &str {
            &self.id
        }
        fn dim(&self) -> usize {
            4
        }
        fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            self.calls.fetch_add(texts.len(), std::sync::atomic::Ordering::SeqCst);
            if texts.iter().any(|t| t.contains("fail")) {
                return Err(EmbedError { model: self.id.clone(), source: "out of memory".into() });
            }
            Ok(texts.iter().map(|t| vec![t.len() as f32 + 1.0, 1.0, 0.5, -1.0]).collect())
        }
        fn cacheable(&self) -> bool {
            true
        }
    }

    fn counting(id: &str) -> Arc<Counting> {
        Arc::new(Counting { id: id.to_owned(), calls: Default::default() })
    }

    fn calls(e: &Counting) -> usize {
        e.calls.load(std::sync::atomic::Ordering::SeqCst)
    }

    #[test]
    fn a_text_is_embedded_once_per_embedder_across_processes() {
        let tmp = tempfile::tempdir().unwrap();
        let e = counting("m1");
        let cache = EmbedCache::new(e.clone(), Some(tmp.path()), true);
        let v = cache.embed(&["alpha", "beta", "alpha"]).unwrap();
        assert_eq!(v[0], v[2]);
        assert_eq!(calls(&e), 2, "the duplicate text is embedded once");
        assert_eq!(cache.embed(&["beta"]).unwrap(), vec![v[1].clone()]);
        assert_eq!(calls(&e), 2);
        // A new process (a new cache) reads the records back.
        let again = EmbedCache::new(e.clone(), Some(tmp.path()), true);
        assert_eq!(again.embed(&["alpha", "beta"]).unwrap(), vec![v[0].clone(), v[1].clone()]);
        assert_eq!(calls(&e), 2);
        assert_eq!(again.stats(), CacheStats { hits: 2, embedded: 0, damaged: 0 });
        // Another embedder never gets these vectors.
        let other = counting("m2");
        EmbedCache::new(other.clone(), Some(tmp.path()), true).embed(&["alpha"]).unwrap();
        assert_eq!(calls(&other), 1);
    }

    #[test]
    fn damaged_records_are_ignored_and_compaction_drops_them() {
        let tmp = tempfile::tempdir().unwrap();
        let e = counting("m");
        let texts: Vec<String> = (0..600).map(|i| format!("text {i}")).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let want = EmbedCache::new(e.clone(), Some(tmp.path()), true).embed(&refs).unwrap();
        // Flip one byte in the middle of every shard.
        let dir = tmp.path().join(CACHE_DIR);
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let mut b = fs::read(&path).unwrap();
            let mid = b.len() / 2;
            b[mid] ^= 0x55;
            fs::write(&path, b).unwrap();
        }
        let before = calls(&e);
        let cache = EmbedCache::new(e.clone(), Some(tmp.path()), true);
        assert_eq!(cache.embed(&refs).unwrap(), want, "damage never changes a vector");
        let recomputed = calls(&e) - before;
        assert!(recomputed > 0 && recomputed < 600, "{recomputed} re-embedded");
        assert!(cache.stats().damaged > 0);
        assert_eq!(cache.compact(refs.iter().copied()).unwrap(), 600);
        let clean = EmbedCache::new(e.clone(), Some(tmp.path()), true);
        let before = calls(&e);
        assert_eq!(clean.embed(&refs).unwrap(), want);
        assert_eq!(calls(&e), before);
        assert_eq!(clean.stats().damaged, 0);
    }

    #[test]
    fn compaction_keeps_live_texts_of_every_embedder_and_bounds_the_rest() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (counting("a"), counting("b"));
        let old: Vec<String> = (0..2000).map(|i| format!("old {i}")).collect();
        let live: Vec<String> = (0..300).map(|i| format!("live {i}")).collect();
        let old_refs: Vec<&str> = old.iter().map(String::as_str).collect();
        let live_refs: Vec<&str> = live.iter().map(String::as_str).collect();
        EmbedCache::new(a.clone(), Some(tmp.path()), true).embed(&old_refs).unwrap();
        EmbedCache::new(a.clone(), Some(tmp.path()), true).embed(&live_refs).unwrap();
        EmbedCache::new(b.clone(), Some(tmp.path()), true).embed(&live_refs).unwrap();
        let cache = EmbedCache::new(a.clone(), Some(tmp.path()), true);
        let kept = cache.compact(live_refs.iter().copied()).unwrap();
        assert!((600..1300).contains(&kept), "kept {kept} of 2,600");
        for e in [&a, &b] {
            let before = calls(e);
            EmbedCache::new(e.clone(), Some(tmp.path()), true).embed(&live_refs).unwrap();
            assert_eq!(calls(e), before, "live texts of both embedders survive");
        }
    }

    #[test]
    fn an_uncacheable_embedder_writes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = EmbedCache::new(
            Arc::new(super::super::embed::BuiltinEmbedder::new()),
            Some(tmp.path()),
            true,
        );
        cache.embed(&["hello"]).unwrap();
        assert!(!tmp.path().join(CACHE_DIR).exists());
    }

    #[test]
    fn a_failed_embedding_is_an_error_and_caches_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let e = counting("m");
        let cache = EmbedCache::new(e.clone(), Some(tmp.path()), true);
        let err = cache.embed(&["alpha", "this one fails"]).unwrap_err();
        assert_eq!(err.model, "m");
        assert!(!tmp.path().join(CACHE_DIR).exists(), "no record written");
        // Nothing was kept in memory either: the texts are embedded again next time.
        let before = calls(&e);
        cache.embed(&["alpha"]).unwrap();
        assert_eq!(calls(&e), before + 1);
    }
}
