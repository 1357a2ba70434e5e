//! Searching the vector index: exact, HNSW, filtered, and the journal combined.

use super::*;

impl VectorIndex {
    /// The `limit` stored vectors most similar to `query`, as `(key, cosine similarity)`, most
    /// similar first, ties by ascending key.
    ///
    /// `filter`, when given, decides which keys may be returned; it is applied inside retrieval,
    /// so up to `limit` allowed keys are returned however few the filter allows. Search is exact
    /// up to [`exact_search_max`](Self::exact_search_max) vectors and HNSW (approximate) above;
    /// see the notes at the top of `src/index/vector/search.rs` for how filters are run.
    ///
    /// A query of the wrong length or with NaN/infinite components is an error; an all-zero query,
    /// `limit == 0` or an empty index give no results. The filter may be called more than once per
    /// key; a panic in it propagates to the caller.
    pub fn search(
        &self,
        query: &[f32],
        limit: usize,
        filter: Option<&dyn Fn(u64) -> bool>,
    ) -> Result<Vec<(u64, f32)>, VectorError> {
        self.check_vector(query)?;
        if limit == 0 || self.keys.is_empty() {
            return Ok(Vec::new());
        }
        let Some(q) = normalized(query) else {
            return Ok(Vec::new());
        };
        let wanted = limit.saturating_add(TIE_SLACK).min(self.keys.len());
        let mut hits = if self.delta.is_empty() {
            match filter {
                None => self.engine_search(&q, wanted, self.searches_exactly(), None)?,
                Some(filter) => self.filtered_search(&q, limit, wanted, filter)?,
            }
        } else {
            self.search_with_delta(&q, limit, wanted, filter)?
        };
        hits.sort_unstable_by(by_rank);
        hits.truncate(limit);
        Ok(hits)
    }

    /// [`search`](Self::search) over the base without its journaled keys, plus the journaled
    /// vectors scored exactly.
    fn search_with_delta(
        &self,
        q: &[f32],
        limit: usize,
        wanted: usize,
        filter: Option<&dyn Fn(u64) -> bool>,
    ) -> Result<Vec<(u64, f32)>, VectorError> {
        let journaled = |key: u64| self.delta.contains_key(&key);
        let mut hits = match filter {
            None if self.searches_exactly() => {
                // At most `delta.len()` of the base's nearest are journaled: fetch that many more.
                let fetch = wanted.saturating_add(self.delta.len()).min(self.index.size());
                let mut hits = self.engine_search(q, fetch, true, None)?;
                hits.retain(|&(key, _)| !journaled(key));
                hits
            }
            None => {
                let base = |key: u64| !journaled(key);
                self.engine_search(q, wanted, false, Some(&base))?
            }
            Some(filter) => {
                let base = |key: u64| !journaled(key) && filter(key);
                self.filtered_search(q, limit, wanted, &base)?
            }
        };
        for (&key, vector) in &self.delta {
            if let Some(v) = vector
                && filter.is_none_or(|f| f(key))
            {
                hits.push((key, dot(q, v).clamp(-1.0, 1.0)));
            }
        }
        Ok(hits)
    }

    /// One usearch search over the 8-bit copies, exact (no filter) or HNSW (optionally
    /// filtered), for [`exact::overfetch`]`(wanted)` candidates, which are scored again with their
    /// exact vectors; the `wanted` best of them, in no particular order.
    fn engine_search(
        &self,
        q: &[f32],
        wanted: usize,
        exact: bool,
        filter: Option<&dyn Fn(u64) -> bool>,
    ) -> Result<Vec<(u64, f32)>, VectorError> {
        let fetch = exact::overfetch(wanted).min(self.index.size());
        let qi = quantized(q);
        let matches = match filter {
            None => {
                let _slot = self.slots.acquire();
                if exact {
                    self.index.exact_search(&qi, fetch)
                } else {
                    self.index.search(&qi, fetch)
                }
            }
            Some(filter) => {
                // The predicate is called from C++: a panic must not unwind through it. Catch it,
                // reject everything after it, and resume it once usearch has returned.
                let panicked: RefCell<Option<Box<dyn Any + Send>>> = RefCell::new(None);
                let predicate = |key: u64| -> bool {
                    if panicked.borrow().is_some() {
                        return false;
                    }
                    match panic::catch_unwind(AssertUnwindSafe(|| filter(key))) {
                        Ok(allowed) => allowed,
                        Err(payload) => {
                            *panicked.borrow_mut() = Some(payload);
                            false
                        }
                    }
                };
                let result = {
                    let _slot = self.slots.acquire();
                    self.index.filtered_search(&qi, fetch, predicate)
                };
                if let Some(payload) = panicked.into_inner() {
                    panic::resume_unwind(payload);
                }
                result
            }
        }
        .map_err(engine("search"))?;
        let candidates: Vec<u64> =
            matches.keys.iter().copied().filter(|&key| key != RESERVED_KEY).collect();
        self.rescored(q, wanted, &candidates)
    }

    /// `candidates` scored with their exact vectors (a key without one is left out); the
    /// `wanted` best, in no particular order.
    fn rescored(
        &self,
        q: &[f32],
        wanted: usize,
        candidates: &[u64],
    ) -> Result<Vec<(u64, f32)>, VectorError> {
        let mut buf = vec![0.0f32; self.dim];
        let mut hits = Vec::with_capacity(candidates.len());
        for &key in candidates {
            if self.read_vector(key, &mut buf)? {
                hits.push((key, dot(q, &buf).clamp(-1.0, 1.0)));
            }
        }
        if wanted > 0 && hits.len() > wanted {
            hits.select_nth_unstable_by(wanted - 1, by_rank);
            hits.truncate(wanted);
        }
        Ok(hits)
    }

    /// Filtered search (the filter applies before the top-k cut).
    ///
    /// The filter is first run over every key. Few allowed keys (at most
    /// [`brute_force_max`] of them) are scored one by one. Otherwise an exact index over-fetches
    /// its nearest neighbours (about twice `wanted` allowed keys expected among them) and keeps the
    /// allowed ones; an HNSW index runs usearch's `filtered_search`. Either way, when fewer than
    /// `limit` hits come back although more keys are allowed, the allowed keys are scored one by
    /// one, so the result is never short.
    fn filtered_search(
        &self,
        q: &[f32],
        limit: usize,
        wanted: usize,
        filter: &dyn Fn(u64) -> bool,
    ) -> Result<Vec<(u64, f32)>, VectorError> {
        let n = self.keys.len();
        let allowed: Vec<u64> = self.keys.iter().copied().filter(|&key| filter(key)).collect();
        if allowed.is_empty() {
            return Ok(Vec::new());
        }
        if allowed.len() <= brute_force_max(n) {
            return self.score_keys(q, wanted, &allowed);
        }
        let hits = if self.searches_exactly() {
            // Any allowed key outside the exact top `fetch` is farther than every allowed key
            // inside it, so the allowed keys inside are the exact filtered top.
            let fetch = wanted.saturating_mul(2).saturating_mul(n.div_ceil(allowed.len())).min(n);
            let mut hits = self.engine_search(q, fetch, true, None)?;
            hits.retain(|&(key, _)| filter(key));
            hits
        } else {
            self.engine_search(q, wanted, false, Some(filter))?
        };
        if hits.len() >= limit.min(allowed.len()) {
            Ok(hits)
        } else {
            self.score_keys(q, wanted, &allowed)
        }
    }

    /// Search over `keys`, one by one: each scored first with its 8-bit copy in the graph (or
    /// its exact vector when the journal or the vectors added since the last save hold it),
    /// then the [`exact::overfetch`]`(wanted)` best scored again exactly.
    fn score_keys(
        &self,
        q: &[f32],
        wanted: usize,
        keys: &[u64],
    ) -> Result<Vec<(u64, f32)>, VectorError> {
        let qi = quantized(q);
        let mut stored = vec![0i8; self.dim];
        let mut first = Vec::with_capacity(keys.len());
        for &key in keys {
            let score = match self.held(key) {
                Held::Vector(v) => dot(q, v),
                Held::Removed => continue,
                Held::Base => {
                    if self.index.get(key, &mut stored).map_err(engine("read a vector"))? == 0 {
                        continue;
                    }
                    exact::cosine_i8(&qi, &stored)
                }
            };
            first.push((key, score));
        }
        let fetch = exact::overfetch(wanted);
        if wanted > 0 && first.len() > fetch {
            first.select_nth_unstable_by(fetch - 1, by_rank);
            first.truncate(fetch);
        }
        let candidates: Vec<u64> = first.into_iter().map(|(key, _)| key).collect();
        self.rescored(q, wanted, &candidates)
    }
}

/// Largest number of allowed keys that a filtered search scores one by one rather than through
/// usearch: 2,048, or an eighth of the index (scoring costs ≈ 0.5 µs per 384-dimension vector).
pub(super) fn brute_force_max(n: usize) -> usize {
    (n / 8).max(2_048)
}

/// Ranking order: higher similarity first, then lower key.
pub(super) fn by_rank(a: &(u64, f32), b: &(u64, f32)) -> Ordering {
    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
}
