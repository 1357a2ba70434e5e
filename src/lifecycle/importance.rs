//! Importance (MIRA): how much a memory has earned its place, in (0, 1).
//!
//! Pure arithmetic on [`ImportanceInputs`]; the caller gathers the inputs from the usage state
//! ([`UsageState::importance_inputs`](super::UsageState::importance_inputs)), the link graph and
//! the frontmatter dates.
//!
//! ```text
//! score = sigmoid(raw × recency × temporal × expiration − 2)      sigmoid(x) = 1 / (1 + e^−x)
//! raw   = value + hub + entity_hub + mention + newness
//! ```
//!
//! | component   | formula |
//! |-------------|---------|
//! | value       | `ln(1 + (effective_access / max(7, age_days)) / 0.02) × 0.8`, effective_access = `access_count × 0.95^days_since_last_access` |
//! | hub         | `0.04 × n` for n ≤ 10 inbound links, then `0.4 + 0.02 (n − 10) / (1 + 0.05 (n − 10))` (approaches 0.8) |
//! | entity_hub  | `0.005 × w` for w ≤ 50 weighted entity links, then `0.25 + 0.075 × ln(w / 50)` |
//! | mention     | `0.08 × m` for m ≤ 5 mentions, then `0.4 + 0.1 × ln(1 + (m − 5))` |
//! | newness     | `max(0, 2 − 0.033 × age_days)` |
//! | recency     | `1 / (1 + 0.015 × activity_days_since_access)` |
//! | temporal    | [`temporal_multiplier`] |
//! | expiration  | [`expiration_trailoff`] over 5 days |
//!
//! The value, recency and newness formulas are those of MIRA's published
//! scoring table. The hub, entity-hub and mention
//! curves are MIRA's own scoring code (`scoring_formula.sql`): each is linear up to its threshold
//! and continuous there, with diminishing returns after. Two choices differ from a literal
//! reading of that table:
//!
//! - The multipliers apply to the whole raw sum, as the formula is written (the table groups
//!   them the same way).
//! - Newness uses the table's `0.033` per day, so the grace period fades over about 60 days of
//!   age; MIRA's code uses `0.133` (15 days), which the table's "15 activity-day grace" text
//!   describes. [`NEWNESS_DECAY_PER_DAY`] holds the number we chose.
//!
//! A brand-new memory (no accesses, no links, age 0) scores exactly `sigmoid(0) = 0.5`: it
//! starts in the middle and has to earn its keep. Once its expiry trail-off has reached 0 the
//! score is 0 (MIRA's hard zero), not `sigmoid(−2)`, and search drops it.
//!
//! Ages (`age_days`, `days_since_last_access`, `activity_days_since_access`) are on the configured
//! clock; event and expiry distances are calendar days, because real deadlines do not
//! pause for holidays (MIRA does the same). Negative or NaN counts and ages are read as 0.

use serde::Serialize;

/// The access rate (accesses per day) that counts as "used normally": 1 per 50 days.
const BASELINE_ACCESS_RATE: f64 = 0.02;
/// Weight of the value component.
const VALUE_WEIGHT: f64 = 0.8;
/// Effective access fades by 5% per day since the last access.
const MOMENTUM_DECAY: f64 = 0.95;
/// Ages below this are read as this, so a memory read twice on its first day does not spike.
const MIN_AGE_DAYS: f64 = 7.0;
/// The newness boost of a memory of age 0.
const NEWNESS_MAX: f64 = 2.0;
/// How fast the newness boost fades, per day of age (see the module docs).
pub const NEWNESS_DECAY_PER_DAY: f64 = 0.033;
/// Recency: `1 / (1 + RECENCY_RATE × days)`, a half-life of about 67 days.
const RECENCY_RATE: f64 = 0.015;
/// The sigmoid's centre: a raw score of 2 maps to 0.5.
const SIGMOID_CENTER: f64 = 2.0;
/// Days past `expires_at` over which importance fades to 0.
pub const EXPIRY_FADE_DAYS: f64 = 5.0;
/// Days after an event over which its multiplier falls from 0.8 to its floor.
const PAST_EVENT_DECAY_DAYS: f64 = 45.0;

/// What importance is computed from. Build it with struct-update syntax from
/// [`UsageState::importance_inputs`](super::UsageState::importance_inputs) or `Default`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ImportanceInputs {
    /// Reads and search hits so far.
    pub access_count: u64,
    /// Days since the last access (configured clock); for a never-accessed memory, its age.
    /// Drives the 5%-a-day momentum decay of the access count.
    pub days_since_last_access: f64,
    /// Days since the memory was created (configured clock).
    pub age_days: f64,
    /// Links from other memories to this one (typed or `[[wikilinks]]`).
    pub inbound_links: usize,
    /// Weighted entity links: for each entity this memory mentions, the number of memories that
    /// mention it, summed. MIRA also weighs each entity by its NER type; memlane's entities are
    /// untyped, so a weight of 1 is the natural input, but any non-negative weighting works.
    pub entity_links: f64,
    /// Explicit references to this memory by name (MIRA: mentions by the agent in a
    /// conversation), the strongest behavioural signal.
    pub mentions: usize,
    /// Calendar days until `happens_at`: positive ahead, negative once it has passed; `None`
    /// without one.
    pub happens_in_days: Option<f64>,
    /// Calendar days since `expires_at`: positive once expired, negative before; `None` without
    /// one.
    pub days_past_expiry: Option<f64>,
    /// Days since the last access for the recency boost (configured clock; with the activity
    /// clock, activity days). Normally the same number as `days_since_last_access`; they are
    /// separate so that a ranking profile can feed them from different clocks.
    pub activity_days_since_access: f64,
}

/// An importance score with every component, for `--explain` and JSON output.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Importance {
    /// The final importance in [0, 1).
    pub score: f64,
    /// `value + hub + entity_hub + mention + newness`.
    pub raw: f64,
    /// Access frequency normalised by age.
    pub value: f64,
    /// Inbound-link score.
    pub hub: f64,
    /// Shared-entity score.
    pub entity_hub: f64,
    /// Explicit-mention score.
    pub mention: f64,
    /// Grace boost for young memories.
    pub newness: f64,
    /// Multiplier in (0, 1] that falls with days since the last access.
    pub recency: f64,
    /// Event-proximity multiplier ([`temporal_multiplier`]).
    pub temporal: f64,
    /// Expiry multiplier in [0, 1] ([`expiration_trailoff`]).
    pub expiration: f64,
}

impl Importance {
    /// Whether the memory is past its expiry fade (importance 0; excluded from search).
    pub fn is_expired(&self) -> bool {
        self.expiration <= 0.0
    }
}

/// Computes importance with MIRA's formula (see the module docs).
pub fn importance(inputs: &ImportanceInputs) -> Importance {
    let age = non_negative(inputs.age_days);
    let value = value_score(inputs.access_count, non_negative(inputs.days_since_last_access), age);
    let hub = hub_score(inputs.inbound_links);
    let entity_hub = entity_hub_score(non_negative(inputs.entity_links));
    let mention = mention_score(inputs.mentions);
    let newness = (NEWNESS_MAX - age * NEWNESS_DECAY_PER_DAY).max(0.0);
    let recency = 1.0 / (1.0 + non_negative(inputs.activity_days_since_access) * RECENCY_RATE);
    let temporal = temporal_multiplier(inputs.happens_in_days);
    let expiration = expiration_trailoff(inputs.days_past_expiry, EXPIRY_FADE_DAYS);

    let raw = value + hub + entity_hub + mention + newness;
    let score = if expiration <= 0.0 {
        0.0
    } else {
        sigmoid(raw * recency * temporal * expiration - SIGMOID_CENTER)
    };
    Importance {
        score,
        raw,
        value,
        hub,
        entity_hub,
        mention,
        newness,
        recency,
        temporal,
        expiration,
    }
}

/// The event-proximity multiplier for a memory whose `happens_at` is `happens_in_days` calendar
/// days away (negative: in the past). 1 without an event.
///
/// - Ahead: ×2.0 within a day, ×1.5 within a week, ×1.2 within two weeks, ×1.0 beyond (MIRA's
///   steps; each bound inclusive).
/// - The first day after `happens_at` still counts as ×2.0. memlane addition: `happens_at` is
///   often a bare date, which means midnight UTC, so without this the event's own day would
///   already be "past".
/// - Past that: MIRA's fade for past events, from ×0.8 down to ×0.4 linearly over 45 days after
///   the event, then ×0.4 for good. A past event is less relevant than an undated memory.
pub fn temporal_multiplier(happens_in_days: Option<f64>) -> f64 {
    let Some(days) = happens_in_days.filter(|d| !d.is_nan()) else {
        return 1.0;
    };
    if days >= -1.0 {
        if days <= 1.0 {
            2.0
        } else if days <= 7.0 {
            1.5
        } else if days <= 14.0 {
            1.2
        } else {
            1.0
        }
    } else {
        let past = (-days).min(PAST_EVENT_DECAY_DAYS);
        0.8 - 0.4 * past / PAST_EVENT_DECAY_DAYS
    }
}

/// The expiry multiplier: 1 before `expires_at` (or without one), then linear from 1 down to 0
/// over `fade_days` calendar days, then 0. With `fade_days` 0 it drops to 0 at expiry.
pub fn expiration_trailoff(days_past_expiry: Option<f64>, fade_days: f64) -> f64 {
    match days_past_expiry {
        Some(past) if past > 0.0 => {
            if fade_days > 0.0 {
                (1.0 - past / fade_days).max(0.0)
            } else {
                0.0
            }
        }
        _ => 1.0,
    }
}

fn value_score(access_count: u64, days_since_last_access: f64, age: f64) -> f64 {
    let effective = access_count as f64 * MOMENTUM_DECAY.powf(days_since_last_access);
    let rate = effective / age.max(MIN_AGE_DAYS);
    (1.0 + rate / BASELINE_ACCESS_RATE).ln() * VALUE_WEIGHT
}

fn hub_score(inbound: usize) -> f64 {
    let n = inbound as f64;
    if n <= 10.0 {
        0.04 * n
    } else {
        let extra = n - 10.0;
        0.4 + 0.02 * extra / (1.0 + 0.05 * extra)
    }
}

fn entity_hub_score(weighted: f64) -> f64 {
    if weighted <= 50.0 { 0.005 * weighted } else { 0.25 + 0.075 * (weighted / 50.0).ln() }
}

fn mention_score(mentions: usize) -> f64 {
    let m = mentions as f64;
    if m <= 5.0 { 0.08 * m } else { 0.4 + 0.1 * (1.0 + (m - 5.0)).ln() }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Negative and NaN become 0; +∞ stays (every formula has a finite limit there).
fn non_negative(x: f64) -> f64 {
    x.max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    macro_rules! assert_close {
        ($a:expr, $b:expr) => {{
            let (a, b) = ($a, $b);
            assert!(close(a, b), "{} = {a}, expected {b}", stringify!($a));
        }};
    }

    #[test]
    fn a_brand_new_memory_scores_one_half() {
        // value = ln(1 + 0) × 0.8 = 0; newness = 2 − 0 = 2; raw = 2; no multipliers.
        // score = sigmoid(2 × 1 × 1 × 1 − 2) = sigmoid(0) = 0.5
        let imp = importance(&ImportanceInputs::default());
        assert_close!(imp.value, 0.0);
        assert_close!(imp.newness, 2.0);
        assert_close!(imp.raw, 2.0);
        assert_close!(imp.score, 0.5);
        assert!(!imp.is_expired());
    }

    #[test]
    fn hand_computed_example() {
        let imp = importance(&ImportanceInputs {
            access_count: 10,
            days_since_last_access: 2.0,
            age_days: 30.0,
            inbound_links: 3,
            entity_links: 20.0,
            mentions: 2,
            happens_in_days: Some(3.0),
            days_past_expiry: None,
            activity_days_since_access: 2.0,
        });
        // effective_access = 10 × 0.95² = 9.025
        // rate = 9.025 / max(7, 30) = 0.300833…; / 0.02 = 15.041666…
        // value = ln(16.041666…) × 0.8 = 2.775189… × 0.8 = 2.2201516031518707
        assert_close!(imp.value, 2.220_151_603_151_870_7);
        // hub = 3 × 0.04 = 0.12; entity_hub = 20 × 0.005 = 0.1; mention = 2 × 0.08 = 0.16
        assert_close!(imp.hub, 0.12);
        assert_close!(imp.entity_hub, 0.1);
        assert_close!(imp.mention, 0.16);
        // newness = 2 − 30 × 0.033 = 1.01
        assert_close!(imp.newness, 1.01);
        // raw = 2.22015… + 0.12 + 0.1 + 0.16 + 1.01 = 3.610151603151871
        assert_close!(imp.raw, 3.610_151_603_151_871);
        // recency = 1 / (1 + 2 × 0.015) = 1 / 1.03 = 0.970873786…
        assert_close!(imp.recency, 1.0 / 1.03);
        // temporal: 3 days ahead is within a week → 1.5
        assert_close!(imp.temporal, 1.5);
        assert_close!(imp.expiration, 1.0);
        // x = 3.610151… × 0.970873… × 1.5 − 2 = 3.2575023346871905
        // score = 1 / (1 + e^−3.2575…) = 0.9629417646949048
        assert_close!(imp.score, 0.962_941_764_694_904_8);
    }

    #[test]
    fn old_unused_memory_sinks() {
        // 200 days old, read once 180 days ago, nothing links to it.
        let imp = importance(&ImportanceInputs {
            access_count: 1,
            days_since_last_access: 180.0,
            age_days: 200.0,
            activity_days_since_access: 180.0,
            ..Default::default()
        });
        // effective = 0.95^180 = 9.7453e-5; rate = that / 200 = 4.8727e-7; / 0.02 = 2.4363e-5
        // value = ln(1 + 2.4363e-5) × 0.8 ≈ 1.949e-5; newness = max(0, 2 − 6.6) = 0
        assert!(imp.value < 2e-5 && imp.value > 1.9e-5, "{}", imp.value);
        assert_close!(imp.newness, 0.0);
        // recency = 1 / (1 + 2.7) = 0.27027; x ≈ 5.3e-6 − 2; score ≈ sigmoid(−2) = 0.1192
        assert_close!(imp.recency, 1.0 / 3.7);
        assert!((imp.score - 0.119_202_922).abs() < 1e-5, "{}", imp.score);
    }

    #[test]
    fn curves_are_continuous_at_their_thresholds() {
        // hub: 0.04 × 10 = 0.4 on the left, 0.4 + 0 on the right.
        assert_close!(hub_score(10), 0.4);
        // 11: 0.4 + 0.02 / 1.05 = 0.41904761…; a small step, smaller than the linear 0.04.
        assert_close!(hub_score(11), 0.4 + 0.02 / 1.05);
        assert!(hub_score(11) - hub_score(10) < hub_score(10) - hub_score(9));
        // Approaching the threshold from the right lands on the linear value.
        let near = 0.4 + 0.02 * 1e-9 / (1.0 + 0.05 * 1e-9);
        assert!((near - hub_score(10)).abs() < 1e-9);
        // 20 links: 0.4 + 0.2 / 1.5 = 0.5333…; 100: 0.4 + 1.8 / 5.5 = 0.72727…; limit 0.8.
        assert_close!(hub_score(20), 0.4 + 0.2 / 1.5);
        assert_close!(hub_score(100), 0.4 + 1.8 / 5.5);
        assert!(hub_score(1_000_000) < 0.8);

        assert_close!(entity_hub_score(50.0), 0.25);
        assert_close!(entity_hub_score(50.0 + 1e-9), 0.25);
        assert_close!(entity_hub_score(100.0), 0.25 + 0.075 * 2f64.ln());
        assert_close!(mention_score(5), 0.4);
        assert_close!(mention_score(6), 0.4 + 0.1 * 2f64.ln());

        // Recency, newness and the expiry fade have no steps at all.
        let at = |age: f64| importance(&ImportanceInputs { age_days: age, ..Default::default() });
        assert!((at(60.0).newness - at(60.0 + 1e-9).newness).abs() < 1e-9);
        assert_close!(at(2.0 / 0.033).newness, 0.0);
    }

    #[test]
    fn monotone_in_access_count_and_inbound_links() {
        let base = ImportanceInputs {
            days_since_last_access: 3.0,
            age_days: 40.0,
            activity_days_since_access: 3.0,
            ..Default::default()
        };
        let mut last = importance(&base);
        for n in 1..200 {
            let next = importance(&ImportanceInputs { access_count: n, ..base });
            assert!(next.value > last.value && next.score > last.score, "access {n}");
            last = next;
        }
        let mut last = importance(&base);
        for n in 1..200 {
            let next = importance(&ImportanceInputs { inbound_links: n, ..base });
            assert!(next.hub > last.hub && next.score > last.score, "links {n}");
            last = next;
        }
        let mut last = importance(&base);
        for n in 1..100 {
            let next = importance(&ImportanceInputs { mentions: n, ..base });
            assert!(next.mention > last.mention, "mentions {n}");
            last = next;
        }
        // More days since the last access lowers both momentum and recency.
        let recent = importance(&ImportanceInputs { access_count: 5, ..base });
        let stale = importance(&ImportanceInputs {
            access_count: 5,
            days_since_last_access: 30.0,
            activity_days_since_access: 30.0,
            ..base
        });
        assert!(stale.value < recent.value && stale.recency < recent.recency);
        assert!(stale.score < recent.score);
    }

    #[test]
    fn value_uses_a_minimum_age_of_seven_days() {
        // Two reads on day 1: rate = 2 / max(7, 1) = 0.285714…; value = ln(1 + 14.2857…) × 0.8
        let imp =
            importance(&ImportanceInputs { access_count: 2, age_days: 1.0, ..Default::default() });
        assert_close!(imp.value, (1.0 + (2.0 / 7.0) / 0.02f64).ln() * 0.8);
    }

    #[test]
    fn temporal_steps_and_past_events() {
        let t = |d: f64| temporal_multiplier(Some(d));
        assert_close!(temporal_multiplier(None), 1.0);
        assert_close!(t(0.5), 2.0);
        assert_close!(t(1.0), 2.0);
        assert_close!(t(1.01), 1.5);
        assert_close!(t(7.0), 1.5);
        assert_close!(t(10.0), 1.2);
        assert_close!(t(14.0), 1.2);
        assert_close!(t(14.01), 1.0);
        assert_close!(t(365.0), 1.0);
        // The event's own day still counts.
        assert_close!(t(-0.5), 2.0);
        assert_close!(t(-1.0), 2.0);
        // After it: 0.8 − 0.4 × days / 45, floor 0.4.
        assert_close!(t(-9.0), 0.8 - 0.4 * 9.0 / 45.0);
        assert_close!(t(-45.0), 0.4);
        assert_close!(t(-400.0), 0.4);
        assert_close!(temporal_multiplier(Some(f64::NAN)), 1.0);
    }

    #[test]
    fn expiry_fades_linearly_to_zero_then_scores_zero() {
        let at = |p: Option<f64>| {
            importance(&ImportanceInputs {
                access_count: 20,
                age_days: 20.0,
                inbound_links: 15,
                days_past_expiry: p,
                ..Default::default()
            })
        };
        let fresh = at(None);
        assert_close!(at(Some(-3.0)).expiration, 1.0);
        assert_close!(at(Some(0.0)).expiration, 1.0);
        assert_close!(at(Some(1.0)).expiration, 0.8);
        assert_close!(at(Some(2.5)).expiration, 0.5);
        assert_close!(at(Some(4.0)).expiration, 0.2);
        // Halfway: x = raw × 0.5 − 2 with recency 1 and no event.
        assert_close!(at(Some(2.5)).score, sigmoid(fresh.raw * 0.5 - 2.0));
        let mut last = fresh.score;
        for tenth in 1..50 {
            let s = at(Some(f64::from(tenth) / 10.0)).score;
            assert!(s < last, "day {tenth}/10");
            last = s;
        }
        // Five days past: the product is 0, the memory is expired and its importance 0.
        let gone = at(Some(5.0));
        assert_close!(gone.expiration, 0.0);
        assert!(gone.is_expired());
        assert_close!(gone.score, 0.0);
        assert_close!(at(Some(30.0)).score, 0.0);

        assert_close!(expiration_trailoff(Some(0.1), 0.0), 0.0);
        assert_close!(expiration_trailoff(Some(3.0), 10.0), 0.7);
    }

    #[test]
    fn bad_inputs_are_read_as_zero() {
        let imp = importance(&ImportanceInputs {
            access_count: 3,
            days_since_last_access: -4.0,
            age_days: f64::NAN,
            entity_links: -10.0,
            activity_days_since_access: -1.0,
            ..Default::default()
        });
        assert!(imp.score.is_finite());
        assert_close!(imp.newness, 2.0);
        assert_close!(imp.entity_hub, 0.0);
        assert_close!(imp.recency, 1.0);
        assert_close!(imp.value, (1.0 + (3.0 / 7.0) / 0.02f64).ln() * 0.8);
    }
}
