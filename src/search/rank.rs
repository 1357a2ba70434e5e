//! The ranking stages after fusion, as pure functions of their inputs.

/// The lexical score: `(1 − share) × bm25_norm + share × coverage`, in [0, 1].
///
/// `bm25_norm` (BM25 relative to the query's best) keeps BM25's term-frequency and length
/// normalisation; `coverage` (the IDF-weighted share of the query's terms present) rewards a
/// memory that matches the whole query over one that repeats a single rare term.
pub fn lexical_score(bm25_norm: f64, coverage: f64, share: f64) -> f64 {
    let s = share.clamp(0.0, 1.0);
    (1.0 - s) * bm25_norm.clamp(0.0, 1.0) + s * coverage.clamp(0.0, 1.0)
}

/// Calibrates a fused score into an absolute relevance in [0, 1]:
/// `sigmoid(steepness × (gate − midpoint)) × fused_share`.
///
/// `gate` is the best absolute evidence among the query's candidates (query-term coverage and
/// normalised vector similarity, in [0, 1]), so the best result scores
/// `sigmoid(steepness × (gate − midpoint))` — high when something really matches, near 0 when
/// even the least-bad candidate matches nothing. `fused_share` is the memory's fused score
/// relative to the query's best: the others scale down from the best in proportion, so the
/// order is the fused order and a result half as good as the best scores half its relevance.
/// (Scaling inside the sigmoid, as before, pushed right answers at ranks 5–10 under the
/// threshold: on LoCoMo 4.6 points of Recall@10.) `midpoint` is the evidence that scores 0.5.
pub fn calibrate_fused(gate: f64, fused_share: f64, midpoint: f64, steepness: f64) -> f64 {
    sigmoid(steepness * (gate.clamp(0.0, 1.0) - midpoint)) * fused_share.clamp(0.0, 1.0)
}

/// ragdocs' calibration of a raw RRF score: `1 / (1 + exp(-steepness × (rrf − threshold)))`.
pub fn calibrate_rrf(rrf: f64, threshold: f64, steepness: f64) -> f64 {
    sigmoid(steepness * (rrf - threshold))
}

/// The logistic function.
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Mnestra's type weight, bounded: `1 − (1 − relevance)^weight`.
///
/// Mnestra multiplies unbounded RRF scores by the weight; memlane's relevance is calibrated to
/// [0, 1], where a plain product would clamp every strong decision at 1.0 and erase the
/// difference between good and perfect. Raising the complement to the weight keeps the order
/// within a type, keeps 0 and 1 fixed, lifts weights above 1 and lowers weights below 1.
pub fn type_weighted(relevance: f64, weight: f64) -> f64 {
    1.0 - (1.0 - relevance.clamp(0.0, 1.0)).powf(weight.max(0.0))
}

/// Mnestra's type decay: `1 / (1 + age / half_life)`.
pub fn type_decay(age_days: f64, half_life_days: f64) -> f64 {
    1.0 / (1.0 + age_days.max(0.0) / half_life_days)
}

/// ragdocs' additive recency bonus: `max_boost × rate^age` within the window, 0 after it.
pub fn recency_bonus(age_days: f64, window_days: f64, max_boost: f64, rate: f64) -> f64 {
    let age = age_days.max(0.0);
    if window_days > 0.0 && age <= window_days { max_boost * rate.powf(age) } else { 0.0 }
}

/// remindb's temperature factor: `0.3 + 0.7 × T`.
pub fn temperature_factor(temperature: f64) -> f64 {
    0.3 + 0.7 * temperature.clamp(0.0, 1.0)
}

/// The `mira` profile's importance factor: `0.3 + 0.7 × importance`.
///
/// MIRA orders retrieval by intent-weighted hybrid fusion and lets importance decide what
/// survives: memories "earn their persistence through access and linking" (its importance
/// score), and its retrieval drops memories under a minimum importance. memlane folds that into
/// the score with the same shape as remindb's temperature stage, so a memory that is read and
/// linked to outranks an equally relevant one that is not, without a strong match ever being
/// lifted past 1. MIRA's minimum (0.1) needs no separate filter: importance stays above
/// `sigmoid(−2) ≈ 0.12` until a memory has faded out past `expires_at`, and those leave search
/// anyway (stage 7).
pub fn importance_factor(importance: f64) -> f64 {
    0.3 + 0.7 * importance.clamp(0.0, 1.0)
}

/// The expiration fade: 1 before `expires_at`, linear to 0 over `fade_days` after it, `None`
/// once fully faded (the memory leaves the results).
pub fn expiry_factor(days_past_expiry: Option<f64>, fade_days: f64) -> Option<f64> {
    match days_past_expiry {
        None => Some(1.0),
        Some(d) if d <= 0.0 => Some(1.0),
        Some(d) if fade_days > 0.0 && d < fade_days => Some(1.0 - d / fade_days),
        Some(_) => None,
    }
}

/// Normalises a cosine similarity to [0, 1] between an embedder's noise floor and the
/// similarity of a near-paraphrase.
pub fn vector_evidence(cosine: f64, floor: f64, ceiling: f64) -> f64 {
    vector_score(cosine, floor, ceiling).min(1.0)
}

/// [`vector_evidence`] without the cap at 1: 0 at the noise floor, 1 at the ceiling, above 1
/// beyond it. Fusion uses it so that similarities past the ceiling keep their order.
pub fn vector_score(cosine: f64, floor: f64, ceiling: f64) -> f64 {
    let s = (cosine - floor) / (ceiling - floor);
    if s.is_finite() { s.max(0.0) } else { 0.0 }
}

/// The best candidate's coverage from which the lexical side has its full weight: a memory
/// holding half of a query's informative words is a match in the query's own words.
pub const FULL_TRUST_COVERAGE: f64 = 0.5;

/// The share of the lexical side's fusion weight for a query whose best candidate covers
/// `best_coverage` of its terms: `floor` with none of them, rising linearly to full weight at
/// [`FULL_TRUST_COVERAGE`].
pub fn lexical_trust(best_coverage: f64, floor: f64) -> f64 {
    let floor = floor.clamp(0.0, 1.0);
    floor + (1.0 - floor) * (best_coverage / FULL_TRUST_COVERAGE).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ragdocs_examples() {
        // ragdocs' example: a 7-day-old journal with base 0.4 gets +0.140.
        let bonus = recency_bonus(7.0, 14.0, 0.2, 0.95);
        assert!((bonus - 0.1397).abs() < 1e-3, "{bonus}");
        assert_eq!(recency_bonus(15.0, 14.0, 0.2, 0.95), 0.0);
        assert_eq!(recency_bonus(3.0, 0.0, 0.2, 0.95), 0.0, "window 0 is no boost");
        // RRF 0.039 calibrates to ≈0.646 with ragdocs' constants.
        assert!((calibrate_rrf(0.039, 0.035, 150.0) - 0.646).abs() < 1e-3);
    }

    #[test]
    fn the_words_lose_weight_only_when_no_candidate_holds_half_of_them() {
        assert_eq!(lexical_trust(0.0, 0.5), 0.5);
        assert_eq!(lexical_trust(0.25, 0.5), 0.75);
        assert_eq!(lexical_trust(FULL_TRUST_COVERAGE, 0.5), 1.0);
        assert_eq!(lexical_trust(0.9, 0.5), 1.0);
        assert_eq!(lexical_trust(0.0, 1.0), 1.0, "a floor of 1 turns it off");
        assert_eq!(lexical_trust(0.1, 0.0), 0.2);
    }

    #[test]
    fn type_weight_is_bounded_and_ordered() {
        assert_eq!(type_weighted(0.0, 1.5), 0.0);
        assert_eq!(type_weighted(1.0, 0.6), 1.0);
        assert!((type_weighted(0.7, 1.0) - 0.7).abs() < 1e-12);
        assert!(type_weighted(0.7, 1.5) > 0.7 && type_weighted(0.7, 1.5) < 1.0);
        assert!(type_weighted(0.7, 0.6) < 0.7);
        assert!(type_weighted(0.8, 1.5) > type_weighted(0.7, 1.5));
    }

    #[test]
    fn mnestra_decay_and_remindb_temperature() {
        assert_eq!(type_decay(0.0, 30.0), 1.0);
        assert!((type_decay(30.0, 30.0) - 0.5).abs() < 1e-12);
        assert!((type_decay(365.0, 365.0) - 0.5).abs() < 1e-12);
        assert!((temperature_factor(0.5) - 0.65).abs() < 1e-12);
        assert_eq!(temperature_factor(1.0), 1.0);
        assert!((temperature_factor(0.0) - 0.3).abs() < 1e-12);
    }

    #[test]
    fn importance_factor_is_bounded_and_monotone() {
        assert!((importance_factor(0.5) - 0.65).abs() < 1e-12, "a brand-new memory");
        assert_eq!(importance_factor(1.0), 1.0);
        assert!((importance_factor(0.0) - 0.3).abs() < 1e-12);
        assert_eq!(importance_factor(7.0), 1.0, "clamped");
        assert!(importance_factor(0.9) > importance_factor(0.2));
    }

    #[test]
    fn expiry_fades_linearly_then_excludes() {
        assert_eq!(expiry_factor(None, 5.0), Some(1.0));
        assert_eq!(expiry_factor(Some(-1.0), 5.0), Some(1.0));
        assert_eq!(expiry_factor(Some(2.5), 5.0), Some(0.5));
        assert_eq!(expiry_factor(Some(5.0), 5.0), None);
    }

    #[test]
    fn calibration_gives_nothing_for_no_evidence_and_keeps_the_fused_order() {
        assert!(calibrate_fused(0.0, 1.0, 0.35, 10.0) < 0.05);
        assert!(calibrate_fused(1.0, 0.0, 0.35, 10.0) < 0.05);
        assert!(calibrate_fused(1.0, 1.0, 0.35, 10.0) > 0.99);
        // Monotone in the fused share at a fixed gate, and in the gate at a fixed share.
        let mut last = -1.0;
        for i in 0..=10 {
            let c = calibrate_fused(0.7, f64::from(i) / 10.0, 0.35, 10.0);
            assert!(c > last);
            last = c;
        }
        assert!(calibrate_fused(0.8, 0.9, 0.35, 10.0) > calibrate_fused(0.5, 0.9, 0.35, 10.0));
        // Bands: a strong match ≥ 0.6; a result a fifth as good as the best is noise (< 0.2).
        assert!(calibrate_fused(0.6, 1.0, 0.35, 10.0) > 0.9);
        assert!(calibrate_fused(0.6, 0.2, 0.35, 10.0) < 0.2);
        // Proportional below the best.
        let best = calibrate_fused(0.6, 1.0, 0.35, 10.0);
        assert!((calibrate_fused(0.6, 0.5, 0.35, 10.0) - best / 2.0).abs() < 1e-12);
    }

    #[test]
    fn vector_scores_rescale_the_cosine_and_only_the_evidence_is_capped() {
        assert_eq!(vector_evidence(0.1, 0.2, 0.6), 0.0);
        assert!((vector_evidence(0.4, 0.2, 0.6) - 0.5).abs() < 1e-12);
        assert_eq!(vector_evidence(0.9, 0.2, 0.6), 1.0);
        assert!((vector_score(0.8, 0.2, 0.6) - 1.5).abs() < 1e-12);
        assert!(vector_score(0.9, 0.2, 0.6) > vector_score(0.8, 0.2, 0.6));
        assert_eq!(vector_score(0.5, 0.5, 0.5), 0.0, "a degenerate range is no evidence");
    }

    #[test]
    fn lexical_score_mixes_bm25_and_coverage() {
        assert_eq!(lexical_score(1.0, 1.0, 0.5), 1.0);
        assert_eq!(lexical_score(0.0, 0.0, 0.5), 0.0);
        assert!((lexical_score(1.0, 0.2, 0.5) - 0.6).abs() < 1e-12);
        assert_eq!(lexical_score(0.4, 0.9, 0.0), 0.4);
        assert_eq!(lexical_score(2.0, -1.0, 0.5), 0.5, "inputs are clamped");
    }
}
