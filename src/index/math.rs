//! Vector math shared by the embedders, the vector index and consolidation: the one home of
//! dot products, norms, normalisation and cosine similarity.

/// Dot product with eight independent accumulators (vectorisable without fast-math).
///
/// Vectors of different lengths are multiplied over their common prefix.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (xa, xb) in ca.zip(cb) {
        for ((s, x), y) in acc.iter_mut().zip(xa).zip(xb) {
            *s += x * y;
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// The Euclidean length of `v`, summed in `f32`.
pub fn norm(v: &[f32]) -> f32 {
    v.iter().map(|x| x * x).sum::<f32>().sqrt()
}

/// Scales `v` to unit length in place. Returns `false` (and leaves `v` as it is) when `v` is all
/// zeros or its length is not finite.
pub fn normalise(v: &mut [f32]) -> bool {
    let n = norm(v);
    if n == 0.0 || !n.is_finite() {
        return false;
    }
    v.iter_mut().for_each(|x| *x /= n);
    true
}

/// `v / |v|` computed in `f64` (so a stored vector is unit length to the last bit `f32` allows),
/// or `None` when `v` is all zeros or not finite.
pub fn normalised_precise(v: &[f32]) -> Option<Vec<f32>> {
    let norm2: f64 = v.iter().map(|&x| f64::from(x) * f64::from(x)).sum();
    if norm2 == 0.0 || !norm2.is_finite() {
        return None;
    }
    let inv = 1.0 / norm2.sqrt();
    Some(v.iter().map(|&x| (f64::from(x) * inv) as f32).collect())
}

/// Cosine similarity of two vectors, in [-1, 1]; 0 when either is all zeros.
///
/// Vectors of different lengths are compared over their common prefix.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let (mut dot, mut na, mut nb) = (0.0f32, 0.0f32, 0.0f32);
    for (x, y) in a.iter().zip(b) {
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    (dot / (na.sqrt() * nb.sqrt())).clamp(-1.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_matches_the_naive_sum_at_every_length() {
        for n in [0, 1, 7, 8, 9, 16, 17, 384] {
            let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos()).collect();
            let naive: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!((dot(&a, &b) - naive).abs() < 1e-4, "n = {n}");
        }
        assert_eq!(dot(&[1.0, 2.0, 3.0], &[1.0]), 1.0, "common prefix");
    }

    #[test]
    fn normalisation_gives_unit_vectors_and_refuses_zero() {
        let mut v = vec![3.0, 4.0];
        assert!(normalise(&mut v));
        assert_eq!(v, vec![0.6, 0.8]);
        let mut z = vec![0.0; 3];
        assert!(!normalise(&mut z));
        assert_eq!(z, vec![0.0; 3]);
        assert_eq!(normalised_precise(&[0.0, 0.0]), None);
        assert_eq!(normalised_precise(&[f32::INFINITY, 1.0]), None);
        let p = normalised_precise(&[3.0, 4.0]).unwrap();
        assert!((norm(&p) - 1.0).abs() < 1e-7);
        assert!((cosine(&[1.0, 0.0], &[0.0, 2.0])).abs() < 1e-7);
        assert_eq!(cosine(&[1.0, 1.0], &[0.0, 0.0]), 0.0);
    }
}
