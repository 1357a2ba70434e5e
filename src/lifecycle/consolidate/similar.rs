//! Memory-level vectors, near-duplicates on write (`find_duplicate`) and merge suggestions
//! (`suggest_merges`).

use super::*;
use crate::index::embed::EmbedError;

// ---------------------------------------------------------------------------------------------
// memory-level vectors

/// Row-major unit vectors, one row per memory.
pub(super) struct Matrix {
    pub(super) dim: usize,
    pub(super) data: Vec<f32>,
}

impl Matrix {
    pub(super) fn len(&self) -> usize {
        self.data.len().checked_div(self.dim).unwrap_or(0)
    }

    pub(super) fn row(&self, i: usize) -> &[f32] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }

    fn sim(&self, i: usize, j: usize) -> f32 {
        dot(self.row(i), self.row(j)).clamp(-1.0, 1.0)
    }
}

pub(super) use crate::index::math::dot;

/// Scales `v` to unit length; `None` for a zero (or non-finite) vector.
pub(super) fn normalized(mut v: Vec<f32>) -> Option<Vec<f32>> {
    crate::index::math::normalise(&mut v).then_some(v)
}

/// The mean of `vectors` (each of length `dim`), normalised.
fn mean_vector(vectors: &[Vec<f32>], dim: usize) -> Option<Vec<f32>> {
    let mut sum = vec![0.0f32; dim];
    for v in vectors.iter().filter(|v| v.len() == dim) {
        sum.iter_mut().zip(v).for_each(|(s, x)| *s += x);
    }
    normalized(sum)
}

/// Embeds `content` the way the indexer does (each chunk with `title` in front): the chunk
/// vectors, in order. Empty when the embedder returned something malformed; an error when it
/// failed.
fn embed_chunks(idx: &Indexes, title: &str, content: &str) -> Result<Vec<Vec<f32>>, EmbedError> {
    let texts: Vec<String> = chunk_markdown(content, &ChunkOptions::default())
        .iter()
        .map(|c| embed_text(title, &c.header_path, &c.text))
        .collect();
    let mut out = Vec::with_capacity(texts.len());
    for part in texts.chunks(EMBED_BATCH) {
        let refs: Vec<&str> = part.iter().map(String::as_str).collect();
        // Through the vault's embedding cache: the index update after a write reuses these.
        let vectors = idx.embed_documents(&refs)?;
        let embedder = idx.embedder();
        if vectors.len() != refs.len() || vectors.iter().any(|v| v.len() != embedder.dim()) {
            tracing::warn!(embedder = embedder.id(), "the embedder returned malformed vectors");
            return Ok(Vec::new());
        }
        out.extend(vectors);
    }
    Ok(out)
}

/// The vector of a text on its own: chunks embedded with the text's first heading as title
/// (never a name), averaged. Two identical texts get identical vectors.
fn content_vector(idx: &Indexes, text: &str) -> Result<ChunksAndMean, EmbedError> {
    let title = markdown_title(text).unwrap_or_default();
    let chunks = embed_chunks(idx, &title, text)?;
    let mean = mean_vector(&chunks, idx.embedder().dim());
    Ok((chunks, mean))
}

/// A text's chunk vectors and their normalised mean.
type ChunksAndMean = (Vec<Vec<f32>>, Option<Vec<f32>>);

/// A memory's vector from the index: the mean of its stored chunk vectors, normalised. When
/// none is stored (a stale index), the memory is re-embedded as the indexer would (an error when
/// the embedder fails). `None` for a memory that cannot be loaded or has no vector.
pub(super) fn memory_vector(
    vault: &Vault,
    idx: &Indexes,
    name: &str,
    entry: &Entry,
) -> Result<Option<Vec<f32>>, EmbedError> {
    let vi = idx.vector();
    let dim = vi.dim();
    let mut sum = vec![0.0f32; dim];
    let mut found = 0;
    for ord in 0..entry.chunks {
        if let Ok(Some(v)) = vi.vector(chunk_key(name, ord)) {
            sum.iter_mut().zip(&v).for_each(|(s, x)| *s += x);
            found += 1;
        }
    }
    if found > 0 {
        return Ok(normalized(sum));
    }
    let Some(memory) = MemoryName::parse(name).ok().and_then(|n| vault.load(&n).ok()) else {
        return Ok(None);
    };
    let content = memory.redacted_content(vault.config.privacy.scrub_secrets);
    let chunks = embed_chunks(idx, &entry.title, &content)?;
    Ok(mean_vector(&chunks, dim))
}

/// Whether an indexed memory takes part in dedup and merge suggestions at `now`: active, not
/// superseded, not faded out past `expires_at`.
fn is_live(entry: &Entry, now: Timestamp, fade_days: f64) -> bool {
    entry.status == "active"
        && entry.superseded_by.is_none()
        && !entry.expires_at.is_some_and(|e| is_expired(e, now, fade_days))
}

/// Past `expires_at` and its fade: excluded from search, archived by `maintain`.
pub(super) fn is_expired(expires_at: i64, now: Timestamp, fade_days: f64) -> bool {
    let past = (now.as_second() - expires_at) as f64 / SECONDS_PER_DAY;
    past > 0.0 && past >= fade_days
}

// ---------------------------------------------------------------------------------------------
// dedup on write

/// The existing memory most similar to `content`, when its similarity is at least `threshold`
///: `(name, similarity)`.
///
/// `content` is redacted first (nothing is deduplicated unredacted). Candidates are the
/// owners of the nearest stored chunks to the new text's vector and to each of its chunk vectors
/// (the index's vector search), ranked by memory-level similarity; the best few within a margin
/// below `threshold` are re-scored by embedding both bodies the same way (see the module docs),
/// so an identical copy scores 1 whatever the names. Archived, superseded and expired memories
/// are not candidates.
///
/// Dedup must never block a write: an index that cannot be searched (logged as a warning) means
/// no duplicate is reported. An embedding model that fails is an error: the write would leave a
/// memory no search finds. Reconcile the index first so recent memories count.
pub fn find_duplicate(
    vault: &Vault,
    idx: &Indexes,
    content: &str,
    threshold: f64,
) -> Result<Option<(String, f32)>, EmbedError> {
    let scrub = vault.config.privacy.scrub_secrets;
    let clean = sanitize(content, scrub);
    if clean.is_empty() {
        return Ok(None);
    }
    let (chunks, query) = content_vector(idx, &clean.text)?;
    let Some(query) = query else { return Ok(None) };
    let now = vault.clock.now();
    let fade = vault.config.search.expiry_fade_days;
    let mut candidates: Vec<&str> = Vec::new();
    for v in std::iter::once(&query).chain(chunks.iter().take(8)) {
        let hits = match idx.vector().search(v, DEDUP_NEIGHBOURS, None) {
            Ok(h) => h,
            Err(e) => {
                tracing::warn!(error = %e, "cannot search the vector index for duplicates");
                return Ok(None);
            }
        };
        for (key, _) in hits {
            if let Some((name, _)) = idx.key_owner(key)
                && !candidates.contains(&name.as_str())
            {
                candidates.push(name);
            }
        }
    }
    let mut ranked: Vec<(&str, f32)> = Vec::new();
    for name in candidates {
        let Some(entry) = idx.manifest().get(name) else { continue };
        if !is_live(entry, now, fade) {
            continue;
        }
        let Some(v) = memory_vector(vault, idx, name, entry)? else { continue };
        let sim = cosine(&query, &v);
        if f64::from(sim) >= threshold - DEDUP_MARGIN {
            ranked.push((name, sim));
        }
    }
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    ranked.truncate(DEDUP_RESCORE);
    let new_text = clean.text.trim();
    let mut best: Option<(String, f32)> = None;
    for (name, _) in ranked {
        let Ok(mname) = MemoryName::parse(name) else { continue };
        let Ok(memory) = vault.load(&mname) else { continue };
        let body = memory.redacted_content(scrub);
        let sim = if body.trim() == new_text {
            1.0
        } else {
            match content_vector(idx, &body)?.1 {
                Some(v) => cosine(&query, &v),
                None => continue,
            }
        };
        if best.as_ref().is_none_or(|(bn, bs)| sim > *bs || (sim == *bs && name < bn.as_str())) {
            best = Some((name.to_owned(), sim));
        }
    }
    Ok(best.filter(|(_, s)| f64::from(*s) >= threshold))
}

// ---------------------------------------------------------------------------------------------
// suggest merges

/// One member of a [`MergeCluster`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemberPreview {
    /// The memory's name.
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub memory_type: String,
    /// The start of its (redacted) body, whitespace collapsed, at most [`PREVIEW_CHARS`] chars.
    pub preview: String,
}

/// A group of near-duplicate memories that could be merged.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MergeCluster {
    /// The members, by name.
    pub members: Vec<MemberPreview>,
    /// The mean pairwise cosine similarity of the members' vectors (identical bodies count 1).
    pub score: f32,
    /// Why they were grouped, for people: size, similarity, shared tags, types.
    pub reason: String,
}

/// Clusters of near-duplicate memories, most similar first.
///
/// Uses memory-level vectors and complete linkage (see the module docs): every pair in a cluster
/// has cosine ≥ `threshold`. Only active, non-superseded, non-expired memories take part; with
/// `type_filter`, only memories of that type. Clusters are ordered by score, then size, then
/// the first member's name; at most `limit` are returned. Works from the index's view of the
/// vault (reconcile first); members deleted since are dropped. Fails only when a memory missing
/// from the vector index must be embedded and the embedder fails.
pub fn suggest_merges(
    vault: &Vault,
    idx: &Indexes,
    threshold: f64,
    type_filter: Option<&str>,
    limit: usize,
) -> Result<Vec<MergeCluster>, EmbedError> {
    if limit == 0 {
        return Ok(Vec::new());
    }
    let started = std::time::Instant::now();
    let now = vault.clock.now();
    let fade = vault.config.search.expiry_fade_days;
    let dim = idx.vector().dim();
    let mut names: Vec<&str> = Vec::new();
    let mut data: Vec<f32> = Vec::new();
    for (name, entry) in idx.manifest().entries() {
        if !is_live(entry, now, fade) || type_filter.is_some_and(|t| t != entry.memory_type) {
            continue;
        }
        if let Some(v) = memory_vector(vault, idx, name, entry)?.filter(|v| v.len() == dim) {
            names.push(name);
            data.extend(v);
        }
    }
    let matrix = Matrix { dim, data };
    let threshold = threshold as f32;
    let t_vectors = started.elapsed();
    let pairs = if matrix.len() <= EXACT_PAIRS_MAX {
        candidate_pairs(&matrix, threshold)
    } else {
        forest_pairs(&matrix, threshold)
    };
    let t_pairs = started.elapsed();
    let groups = complete_linkage(&matrix, &pairs, threshold);
    tracing::debug!(
        memories = matrix.len(),
        pairs = pairs.len(),
        clusters = groups.len(),
        vectors_ms = t_vectors.as_secs_f64() * 1e3,
        pairs_ms = (t_pairs - t_vectors).as_secs_f64() * 1e3,
        "suggest-merges compared every memory"
    );

    let scrub = vault.config.privacy.scrub_secrets;
    let mut clusters: Vec<MergeCluster> = Vec::new();
    for group in groups {
        // Load the members (dropping any deleted since the index was built).
        let mut members: Vec<(usize, Memory, String)> = Vec::new();
        for &i in &group {
            let Ok(mname) = MemoryName::parse(names[i]) else { continue };
            let Ok(memory) = vault.load(&mname) else { continue };
            let body = memory.redacted_content(scrub);
            members.push((i, memory, body));
        }
        if members.len() < 2 {
            continue;
        }
        let (mut total, mut pairs, mut identical) = (0.0f32, 0usize, 0usize);
        for a in 0..members.len() {
            for b in a + 1..members.len() {
                let same = members[a].2.trim() == members[b].2.trim();
                identical += usize::from(same);
                total += if same { 1.0 } else { matrix.sim(members[a].0, members[b].0) };
                pairs += 1;
            }
        }
        let score = total / pairs as f32;
        let reason = cluster_reason(&members, score, identical == pairs);
        clusters.push(MergeCluster {
            members: members
                .iter()
                .map(|(_, m, body)| MemberPreview {
                    name: m.name.to_string(),
                    memory_type: m.memory_type.clone(),
                    preview: preview(body),
                })
                .collect(),
            score,
            reason,
        });
    }
    clusters.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(b.members.len().cmp(&a.members.len()))
            .then_with(|| a.members[0].name.cmp(&b.members[0].name))
    });
    clusters.truncate(limit);
    Ok(clusters)
}

/// "3 memories, mean similarity 0.93, shared tags: auth; same type decision".
fn cluster_reason(members: &[(usize, Memory, String)], score: f32, identical: bool) -> String {
    let mut reason = format!("{} memories, mean similarity {score:.2}", members.len());
    if identical {
        reason.push_str(", identical content");
    }
    let shared: Vec<&str> = members[0]
        .1
        .meta
        .tags
        .iter()
        .filter(|t| members.iter().all(|(_, m, _)| m.meta.tags.contains(t)))
        .map(String::as_str)
        .collect();
    if !shared.is_empty() {
        reason.push_str(&format!(", shared tags: {}", shared.join(", ")));
    }
    let mut types: Vec<&str> = Vec::new();
    for (_, m, _) in members {
        if !types.contains(&m.memory_type.as_str()) {
            types.push(&m.memory_type);
        }
    }
    if let [only] = types.as_slice() {
        reason.push_str(&format!("; same type {only}"));
    } else {
        reason.push_str(&format!("; types {}", types.join(", ")));
    }
    reason
}

/// The start of `body`, whitespace collapsed, at most [`PREVIEW_CHARS`] chars (`…` when cut).
fn preview(body: &str) -> String {
    let collapsed = body.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= PREVIEW_CHARS {
        return collapsed;
    }
    let mut cut: String = collapsed.chars().take(PREVIEW_CHARS - 1).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

/// Rows per work item of [`candidate_pairs`] (a block of rows stays in cache while the columns
/// stream past).
const ROW_BLOCK: usize = 64;
/// Columns per tile.
const COL_BLOCK: usize = 1_024;

/// Every pair `(i, j)`, `i < j`, with similarity ≥ `threshold`, each row keeping its
/// [`MAX_NEIGHBOURS`] best partners `j > i`; sorted by similarity (descending), then `(i, j)`.
///
/// A blocked brute force over all pairs, spread over the cores: exact, deterministic, and about
/// `n²/2 × dim` multiply-adds (seconds for 10k memories).
pub(super) fn candidate_pairs(m: &Matrix, threshold: f32) -> Vec<(usize, usize, f32)> {
    let n = m.len();
    let blocks = n.div_ceil(ROW_BLOCK);
    let next = AtomicUsize::new(0);
    let work = || {
        let mut out: Vec<(usize, usize, f32)> = Vec::new();
        loop {
            let b = next.fetch_add(1, AtomicOrdering::Relaxed);
            if b >= blocks {
                break;
            }
            let (start, end) = (b * ROW_BLOCK, ((b + 1) * ROW_BLOCK).min(n));
            let mut hits: Vec<Vec<(usize, f32)>> = vec![Vec::new(); end - start];
            let mut col = start + 1;
            while col < n {
                let col_end = (col + COL_BLOCK).min(n);
                for i in start..end {
                    let a = m.row(i);
                    for j in col.max(i + 1)..col_end {
                        let s = dot(a, m.row(j));
                        if s >= threshold {
                            hits[i - start].push((j, s.min(1.0)));
                        }
                    }
                }
                col = col_end;
            }
            for (k, mut row) in hits.into_iter().enumerate() {
                if row.len() > MAX_NEIGHBOURS {
                    row.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
                    row.truncate(MAX_NEIGHBOURS);
                }
                out.extend(row.into_iter().map(|(j, s)| (start + k, j, s)));
            }
        }
        out
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from).clamp(1, 8);
    let mut pairs: Vec<(usize, usize, f32)> = if threads == 1 || blocks < 2 {
        work()
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads.min(blocks)).map(|_| s.spawn(work)).collect();
            handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
        })
    };
    pairs.sort_by(|x, y| y.2.total_cmp(&x.2).then(x.0.cmp(&y.0)).then(x.1.cmp(&y.1)));
    pairs
}

/// Random-projection trees in [`forest_pairs`]: how many, and the most memories in a leaf.
const FOREST_TREES: usize = 24;
const FOREST_LEAF: usize = 48;

/// [`candidate_pairs`] for large vaults, in time linear in the number of memories: the pairs
/// come from a forest of [`FOREST_TREES`] random-projection trees (each splits its memories at
/// the median of their projection on a random direction until at most [`FOREST_LEAF`] are
/// left), and every pair that shares a leaf is scored exactly. Two memories with a small angle
/// between them fall on the same side of most splits, so near-duplicates share a leaf in
/// nearly every tree; a pair just above the threshold can be missed (then it is not
/// suggested). Deterministic: the directions come from a fixed seed. Same output shape as
/// [`candidate_pairs`].
pub(super) fn forest_pairs(m: &Matrix, threshold: f32) -> Vec<(usize, usize, f32)> {
    let n = m.len();
    let next = AtomicUsize::new(0);
    let work = || {
        let mut found: Vec<(usize, usize, f32)> = Vec::new();
        loop {
            let t = next.fetch_add(1, AtomicOrdering::Relaxed);
            if t >= FOREST_TREES {
                break;
            }
            let mut seed =
                0x9e37_79b9_7f4a_7c15u64 ^ (t as u64).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            let mut ids: Vec<usize> = (0..n).collect();
            split_leaves(m, &mut ids, &mut seed, &mut |leaf| {
                for (a, &i) in leaf.iter().enumerate() {
                    for &j in &leaf[a + 1..] {
                        let s = dot(m.row(i), m.row(j));
                        if s >= threshold {
                            found.push((i.min(j), i.max(j), s.min(1.0)));
                        }
                    }
                }
            });
        }
        found
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from).clamp(1, 8);
    let mut found: Vec<(usize, usize, f32)> = if threads == 1 {
        work()
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads).map(|_| s.spawn(work)).collect();
            handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
        })
    };
    found.sort_by(|x, y| x.0.cmp(&y.0).then(x.1.cmp(&y.1)));
    found.dedup_by(|x, y| x.0 == y.0 && x.1 == y.1);
    // Per row, the best MAX_NEIGHBOURS partners, as the exact scan keeps them.
    let mut pairs: Vec<(usize, usize, f32)> = Vec::with_capacity(found.len());
    for row in found.chunk_by(|x, y| x.0 == y.0) {
        let mut row = row.to_vec();
        if row.len() > MAX_NEIGHBOURS {
            row.sort_by(|x, y| y.2.total_cmp(&x.2).then(x.1.cmp(&y.1)));
            row.truncate(MAX_NEIGHBOURS);
        }
        pairs.extend(row);
    }
    pairs.sort_by(|x, y| y.2.total_cmp(&x.2).then(x.0.cmp(&y.0)).then(x.1.cmp(&y.1)));
    pairs
}

/// Splits `ids` at the median of their projection on a random direction, recursively, and
/// calls `leaf` with each part of at most [`FOREST_LEAF`] memories.
fn split_leaves(m: &Matrix, ids: &mut [usize], seed: &mut u64, leaf: &mut impl FnMut(&[usize])) {
    if ids.len() <= FOREST_LEAF {
        leaf(ids);
        return;
    }
    let mut rnd = || {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        // Uniform in [-1, 1): the sum of three is close enough to a normal for a direction.
        (0..3).map(|k| ((*seed >> (k * 21)) & 0x1f_ffff) as f32 / 1_048_576.0 - 1.0).sum::<f32>()
    };
    let direction: Vec<f32> = (0..m.dim).map(|_| rnd()).collect();
    let mut keyed: Vec<(f32, usize)> =
        ids.iter().map(|&i| (dot(m.row(i), &direction), i)).collect();
    let mid = keyed.len() / 2;
    keyed.select_nth_unstable_by(mid, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    for (slot, (_, i)) in ids.iter_mut().zip(keyed) {
        *slot = i;
    }
    let (left, right) = ids.split_at_mut(mid);
    split_leaves(m, left, seed, leaf);
    split_leaves(m, right, seed, leaf);
}

/// Complete-linkage clustering of the candidate `pairs` (most similar first): two clusters join
/// only when every cross pair has similarity ≥ `threshold`. Clusters of two or more, each
/// sorted.
pub(super) fn complete_linkage(
    m: &Matrix,
    pairs: &[(usize, usize, f32)],
    threshold: f32,
) -> Vec<Vec<usize>> {
    let mut cluster_of: HashMap<usize, usize> = HashMap::new();
    let mut clusters: Vec<Vec<usize>> = Vec::new();
    for &(i, j, _) in pairs {
        let (ci, cj) = (cluster_of.get(&i).copied(), cluster_of.get(&j).copied());
        if ci.is_some() && ci == cj {
            continue;
        }
        let left = ci.map_or_else(|| vec![i], |c| clusters[c].clone());
        let right = cj.map_or_else(|| vec![j], |c| clusters[c].clone());
        let all_close = left.iter().all(|&a| right.iter().all(|&b| m.sim(a, b) >= threshold));
        if !all_close {
            continue;
        }
        let keep = match (ci, cj) {
            (Some(a), Some(b)) => {
                let (keep, gone) = (a.min(b), a.max(b));
                let moved = std::mem::take(&mut clusters[gone]);
                clusters[keep].extend(moved);
                keep
            }
            (Some(a), None) => {
                clusters[a].push(j);
                a
            }
            (None, Some(b)) => {
                clusters[b].push(i);
                b
            }
            (None, None) => {
                clusters.push(vec![i, j]);
                clusters.len() - 1
            }
        };
        for &member in &clusters[keep] {
            cluster_of.insert(member, keep);
        }
    }
    let mut out: Vec<Vec<usize>> = clusters.into_iter().filter(|c| c.len() > 1).collect();
    out.iter_mut().for_each(|c| c.sort_unstable());
    out
}
