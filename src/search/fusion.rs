//! Fusion of the two retrievers, as pure functions: reciprocal-rank fusion (the `ragdocs`
//! profile, and `--explain`) and score fusion (every other profile).

use std::collections::HashMap;

/// A memory's place in one ranked list: `(memory, rank, best chunk ordinal, that chunk's score)`.
pub type Ranked = (String, usize, usize, f32);

/// The rank (1-based) of each memory in one ranked list of chunk hits: a memory's rank is the
/// rank of its best chunk among the memories, so several chunks of one memory never push others
/// down. Returns `(memory, rank, best chunk ordinal, score of that chunk)` in rank order.
pub fn memory_ranks(hits: &[(String, usize, f32)]) -> Vec<Ranked> {
    let mut seen: HashMap<&str, ()> = HashMap::new();
    let mut out = Vec::new();
    for (memory, ordinal, score) in hits {
        if seen.insert(memory.as_str(), ()).is_none() {
            out.push((memory.clone(), out.len() + 1, *ordinal, *score));
        }
    }
    out
}

/// Weighted RRF: Σ wᵢ / (k + rankᵢ) over the lists a memory appears in.
pub fn fuse_rrf<'a>(lists: &[(f64, &'a [Ranked])], k: f64) -> HashMap<&'a str, f64> {
    let mut fused: HashMap<&str, f64> = HashMap::new();
    for (weight, list) in lists {
        for (memory, rank, _, _) in list.iter() {
            *fused.entry(memory.as_str()).or_default() += weight / (k + *rank as f64);
        }
    }
    fused
}

/// A score relative to the query's best, in [0, 1]; 0 for a missing score or a best of 0.
pub fn relative_score(score: Option<f64>, best: f64) -> f64 {
    match score {
        Some(s) if best > 0.0 && s.is_finite() => (s / best).clamp(0.0, 1.0),
        _ => 0.0,
    }
}

/// Score fusion: `(wa × a + wb × b) / (wa + wb)`, 0 when both weights are 0.
pub fn weighted_mean(a: f64, b: f64, wa: f64, wb: f64) -> f64 {
    let w = wa.max(0.0) + wb.max(0.0);
    if w > 0.0 { (wa.max(0.0) * a + wb.max(0.0) * b) / w } else { 0.0 }
}

/// The largest fused score possible: first in every list.
pub fn max_rrf(weights: &[f64], k: f64) -> f64 {
    weights.iter().map(|w| w / (k + 1.0)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(v: &[(&str, usize)]) -> Vec<(String, usize, f32)> {
        v.iter().map(|(m, o)| ((*m).to_owned(), *o, 1.0)).collect()
    }

    #[test]
    fn memory_ranks_keep_the_best_chunk_and_never_duplicate() {
        let r = memory_ranks(&hits(&[("a", 2), ("a", 0), ("b", 1), ("a", 3), ("c", 0)]));
        let names: Vec<(&str, usize, usize)> =
            r.iter().map(|(m, rank, o, _)| (m.as_str(), *rank, *o)).collect();
        assert_eq!(names, [("a", 1, 2), ("b", 2, 1), ("c", 3, 0)]);
    }

    #[test]
    fn rrf_rewards_agreement_and_respects_weights() {
        let bm = memory_ranks(&hits(&[("a", 0), ("b", 0), ("c", 0)]));
        let vec = memory_ranks(&hits(&[("b", 0), ("c", 0), ("a", 0)]));
        let fused = fuse_rrf(&[(0.5, &bm), (0.5, &vec)], 60.0);
        // b is 2nd and 1st, a is 1st and 3rd: b wins.
        assert!(fused["b"] > fused["a"]);
        assert!(fused["a"] > fused["c"]);
        let exact = fuse_rrf(&[(0.8, &bm), (0.2, &vec)], 60.0);
        assert!(exact["a"] > exact["b"], "a BM25-heavy intent prefers the BM25 winner");
        assert!((max_rrf(&[0.4, 0.6], 60.0) - 1.0 / 61.0).abs() < 1e-12);
    }

    #[test]
    fn score_fusion_is_a_bounded_weighted_mean() {
        assert_eq!(relative_score(Some(5.0), 10.0), 0.5);
        assert_eq!(relative_score(None, 10.0), 0.0);
        assert_eq!(relative_score(Some(5.0), 0.0), 0.0);
        assert_eq!(relative_score(Some(f64::NAN), 1.0), 0.0);
        assert!((weighted_mean(1.0, 0.0, 0.4, 0.6) - 0.4).abs() < 1e-12);
        assert_eq!(weighted_mean(0.3, 0.9, 1.0, 0.0), 0.3, "a zero weight ignores its side");
        assert_eq!(weighted_mean(0.3, 0.9, 0.0, 0.0), 0.0);
    }
}
