//! Temperature (remindb) and cold notifications with hysteresis.
//!
//! A memory's temperature lies in [0, 1]. It starts at `temperature_start` (0.50) when the state
//! first sees the memory; each read or search hit first applies the cooling due so far, then adds
//! `temperature_warm` (0.15), capped at 1. Time cools it: `T × exp(−cooling_rate × hours)`.
//!
//! **Lazy cooling.** remindb runs a ticker every 5 minutes that multiplies every temperature by
//! `exp(−rate × hours since the last tick)`. A CLI has no ticker, so memlane stores the
//! temperature with the instant it was computed (`updated_at`) and applies the cooling when the
//! value is read. Because `exp(−r·a)·exp(−r·b) = exp(−r·(a + b))`, that is exactly the value the
//! ticker would hold at every tick, including catch-up after downtime; between ticks it is the
//! smooth value rather than the last tick's step. Reading never writes.
//!
//! **Pinned memories** do not cool: their stored temperature is their temperature, and warming
//! still raises it. The pinned flag lives in the frontmatter, so callers pass it in. When a
//! memory is pinned or unpinned, call [`UsageState::settle`] with the *old* flag first, so that
//! pinning freezes the value cooled so far and unpinning starts cooling from now instead of from
//! the last warm-up (a flag flipped by a hand edit cools from the last update, which is at worst
//! a memory that was never read cooling as if it had not been pinned).
//!
//! A memory the state has not seen is at `temperature_start` and does not cool until it is
//! observed ([`UsageState::observe`], the cold check, or any warm-up).
//!
//! Instants before `updated_at` (a clock set back) count as no time passing.

use jiff::Timestamp;
use serde::Serialize;

use super::state::{MemoryUsage, UsageState};
use crate::config::LifecycleConfig;

const SECONDS_PER_HOUR: f64 = 3_600.0;

/// A memory below a temperature threshold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColdMemory {
    /// The memory id.
    pub id: String,
    /// Its current temperature.
    pub temperature: f64,
}

impl MemoryUsage {
    /// The temperature at `now`: the stored value, cooled since `updated_at` unless pinned.
    fn temperature_at(&self, pinned: bool, now: i64, cooling_rate: f64) -> f64 {
        if pinned {
            return self.temperature;
        }
        let hours = now.saturating_sub(self.updated_at).max(0) as f64 / SECONDS_PER_HOUR;
        self.temperature * (-cooling_rate * hours).exp()
    }

    /// Stores `t` as the temperature at `now` (never moving `updated_at` back).
    fn set_temperature(&mut self, t: f64, now: i64) {
        self.temperature = t.clamp(0.0, 1.0);
        self.updated_at = self.updated_at.max(now);
    }
}

impl UsageState {
    /// The temperature of memory `id` at `now`, without changing anything.
    pub fn temperature(
        &self,
        id: &str,
        pinned: bool,
        now: Timestamp,
        cfg: &LifecycleConfig,
    ) -> f64 {
        self.get(id).map_or(cfg.temperature_start.clamp(0.0, 1.0), |u| {
            u.temperature_at(pinned, now.as_second(), cfg.cooling_rate)
        })
    }

    /// Records a read or search hit of memory `id` at `now`: cools it to `now`, adds
    /// `temperature_warm` (cap 1), counts the access and records today as an activity day.
    /// Warming above `notify_threshold` re-arms its cold notification. Returns the new
    /// temperature.
    pub fn warm(&mut self, id: &str, pinned: bool, now: Timestamp, cfg: &LifecycleConfig) -> f64 {
        self.touch_day(now);
        let days_through_today = self.activity_days.count_through(now);
        let now_s = now.as_second();
        let usage = self.entry(id, now, cfg);
        let t =
            (usage.temperature_at(pinned, now_s, cfg.cooling_rate) + cfg.temperature_warm).min(1.0);
        usage.set_temperature(t, now_s);
        usage.access_count += 1;
        usage.last_access = Some(usage.last_access.map_or(now_s, |last| last.max(now_s)));
        usage.activity_days_at_last_access = Some(days_through_today);
        if usage.temperature >= cfg.notify_threshold {
            usage.announced_cold = false;
        }
        usage.temperature
    }

    /// Stores the temperature of `id` as cooled up to `now` under the *current* pinned flag, so
    /// that a change of the flag takes effect from `now` (see the module docs). Returns it.
    pub fn settle(&mut self, id: &str, pinned: bool, now: Timestamp, cfg: &LifecycleConfig) -> f64 {
        let now_s = now.as_second();
        let usage = self.entry(id, now, cfg);
        let t = usage.temperature_at(pinned, now_s, cfg.cooling_rate);
        usage.set_temperature(t, now_s);
        usage.temperature
    }

    /// Sets the temperature of `id` to `t` (clamped to [0, 1]) as of `now`: what `summarize` does
    /// (with `temperature_start`, or `--temperature`). Access counts stay; a temperature at or
    /// above `notify_threshold` re-arms the cold notification. Returns the stored value.
    pub fn reset(&mut self, id: &str, t: f64, now: Timestamp, cfg: &LifecycleConfig) -> f64 {
        let usage = self.entry(id, now, cfg);
        let t = if t.is_nan() { cfg.temperature_start } else { t };
        usage.temperature = t.clamp(0.0, 1.0);
        usage.updated_at = now.as_second();
        if usage.temperature >= cfg.notify_threshold {
            usage.announced_cold = false;
        }
        usage.temperature
    }

    /// The memories among `memories` (`(id, pinned)`) whose temperature at `now` is below
    /// `threshold` (usually `cold_threshold`), coldest first, ties by id. Pinned memories are
    /// never cold; memories the state has not seen are at `temperature_start`.
    pub fn cold_set<'a>(
        &self,
        memories: impl IntoIterator<Item = (&'a str, bool)>,
        threshold: f64,
        now: Timestamp,
        cfg: &LifecycleConfig,
    ) -> Vec<ColdMemory> {
        let mut cold: Vec<ColdMemory> = memories
            .into_iter()
            .filter(|(_, pinned)| !pinned)
            .map(|(id, _)| ColdMemory {
                id: id.to_owned(),
                temperature: self.temperature(id, false, now, cfg),
            })
            .filter(|m| m.temperature < threshold)
            .collect();
        sort_coldest_first(&mut cold);
        cold
    }
}

/// The periodic cold check: which of `memories` (`(id, pinned)`) to announce now, coldest
/// first.
///
/// A memory is announced once when its temperature is below `notify_threshold`; it is not
/// announced again until it has been at or above the line (re-armed by a warm-up, a reset, or a
/// check that finds it there) and has cooled below it again. With `renotify_hours` > 0, a memory
/// still below the line is announced again once that many hours have passed since its last
/// announcement; 0 means never. Pinned memories are never announced. Memories the state has not
/// seen are observed (they start cooling now). The caller should run this inside
/// [`UsageStore::update`](super::UsageStore::update) so the flags persist.
pub fn cold_announcements(
    state: &mut UsageState,
    memories: &[(&str, bool)],
    now: Timestamp,
    cfg: &LifecycleConfig,
) -> Vec<ColdMemory> {
    let now_s = now.as_second();
    let renotify_secs = i64::try_from(cfg.renotify_hours).unwrap_or(i64::MAX).saturating_mul(3_600);
    let mut out = Vec::new();
    for &(id, pinned) in memories {
        let usage = state.entry(id, now, cfg);
        let t = usage.temperature_at(pinned, now_s, cfg.cooling_rate);
        if t >= cfg.notify_threshold {
            usage.announced_cold = false;
            continue;
        }
        if pinned {
            continue;
        }
        let due = if usage.announced_cold {
            renotify_secs > 0
                && usage
                    .last_announced
                    .is_none_or(|last| now_s.saturating_sub(last) >= renotify_secs)
        } else {
            true
        };
        if due {
            usage.announced_cold = true;
            usage.last_announced = Some(now_s);
            out.push(ColdMemory { id: id.to_owned(), temperature: t });
        }
    }
    sort_coldest_first(&mut out);
    out
}

fn sort_coldest_first(list: &mut [ColdMemory]) {
    list.sort_by(|a, b| a.temperature.total_cmp(&b.temperature).then_with(|| a.id.cmp(&b.id)));
}

#[cfg(test)]
mod tests {
    use jiff::SignedDuration;

    use super::*;

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    fn hours(h: i64) -> SignedDuration {
        SignedDuration::from_hours(h)
    }

    fn cfg() -> LifecycleConfig {
        LifecycleConfig::default()
    }

    const T0: &str = "2026-01-05T09:00:00Z";

    #[test]
    fn unseen_memories_are_at_the_start_temperature() {
        let state = UsageState::new();
        assert_eq!(state.temperature("x", false, ts(T0), &cfg()), 0.5);
    }

    #[test]
    fn a_week_cools_an_unpinned_memory_and_leaves_a_pinned_one() {
        let cfg = cfg();
        let t0 = ts(T0);
        let mut state = UsageState::new();
        state.observe("loose", t0, &cfg);
        state.observe("pinned", t0, &cfg);

        let week = t0 + hours(7 * 24);
        // 0.5 × exp(−0.05 × 168) = 0.5 × e^−8.4 = 0.000112434
        let loose = state.temperature("loose", false, week, &cfg);
        assert!((loose - 0.5 * (-8.4f64).exp()).abs() < 1e-12, "{loose}");
        assert!(loose < cfg.cold_threshold);
        assert_eq!(state.temperature("pinned", true, week, &cfg), 0.5);
        // After one hour: 0.5 × e^−0.05 = 0.475615
        let hour = state.temperature("loose", false, t0 + hours(1), &cfg);
        assert!((hour - 0.475_614_712_250_357).abs() < 1e-12, "{hour}");

        let cold =
            state.cold_set([("loose", false), ("pinned", true)], cfg.cold_threshold, week, &cfg);
        assert_eq!(cold.len(), 1);
        assert_eq!(cold[0].id, "loose");
        // Reading wrote nothing.
        assert_eq!(state.get("loose").unwrap().updated_at, t0.as_second());
    }

    #[test]
    fn lazy_cooling_equals_a_five_minute_ticker_with_catch_up() {
        let cfg = cfg();
        let t0 = ts(T0);
        let mut ticked = UsageState::new();
        ticked.observe("m", t0, &cfg);
        let lazy = ticked.clone();
        let mut now = t0;
        // A day of 5-minute ticks, then 30 hours of downtime caught up by one tick.
        for _ in 0..(24 * 12) {
            now += SignedDuration::from_mins(5);
            ticked.settle("m", false, now, &cfg);
        }
        now += hours(30);
        let t = ticked.settle("m", false, now, &cfg);
        let expected = lazy.temperature("m", false, now, &cfg);
        assert!((t - expected).abs() < 1e-12, "{t} vs {expected}");
        assert!((expected - 0.5 * (-0.05f64 * 54.0).exp()).abs() < 1e-12);
    }

    #[test]
    fn warming_cools_first_then_adds_and_caps_at_one() {
        let cfg = cfg();
        let t0 = ts(T0);
        let mut state = UsageState::new();
        // Unknown memory: starts at 0.5, +0.15.
        assert!((state.warm("m", false, t0, &cfg) - 0.65).abs() < 1e-12);
        // Two hours later: 0.65 × e^−0.1 + 0.15 = 0.588150 + 0.15 = 0.738150
        let t = state.warm("m", false, t0 + hours(2), &cfg);
        assert!((t - (0.65 * (-0.1f64).exp() + 0.15)).abs() < 1e-12, "{t}");
        // 0.888150, then 1.0 (capped).
        let mut last = t;
        for _ in 0..2 {
            let next = state.warm("m", false, t0 + hours(2), &cfg);
            assert!(next > last);
            last = next;
        }
        assert_eq!(state.warm("m", false, t0 + hours(2), &cfg), 1.0);
        assert_eq!(state.warm("m", false, t0 + hours(2), &cfg), 1.0);
        let usage = state.get("m").unwrap();
        assert_eq!(usage.access_count, 6);
        assert_eq!(usage.last_access, Some((t0 + hours(2)).as_second()));
        assert_eq!(usage.first_seen, t0.as_second());
        assert_eq!(usage.activity_days_at_last_access, Some(1));
        assert!(state.activity_days().contains(jiff::civil::date(2026, 1, 5)));
    }

    #[test]
    fn pinned_memories_warm_but_do_not_cool() {
        let cfg = cfg();
        let t0 = ts(T0);
        let mut state = UsageState::new();
        state.warm("p", true, t0, &cfg);
        let t = state.warm("p", true, t0 + hours(500), &cfg);
        assert!((t - 0.8).abs() < 1e-12, "{t}");
        assert!((state.temperature("p", true, t0 + hours(5000), &cfg) - 0.8).abs() < 1e-12);
    }

    #[test]
    fn settle_makes_pin_changes_take_effect_now() {
        let cfg = cfg();
        let t0 = ts(T0);
        let mut state = UsageState::new();
        state.observe("m", t0, &cfg);
        // Pin after 10 hours: freeze 0.5 × e^−0.5.
        let frozen = state.settle("m", false, t0 + hours(10), &cfg);
        assert!((frozen - 0.5 * (-0.5f64).exp()).abs() < 1e-12);
        assert_eq!(state.temperature("m", true, t0 + hours(100), &cfg), frozen);
        // Unpin 100 hours later: cooling restarts then, not at hour 10.
        state.settle("m", true, t0 + hours(100), &cfg);
        let later = state.temperature("m", false, t0 + hours(101), &cfg);
        assert!((later - frozen * (-0.05f64).exp()).abs() < 1e-12);
    }

    #[test]
    fn reset_sets_the_temperature_and_keeps_access_counts() {
        let cfg = cfg();
        let t0 = ts(T0);
        let mut state = UsageState::new();
        state.warm("m", false, t0, &cfg);
        let week = t0 + hours(168);
        assert!(state.temperature("m", false, week, &cfg) < 0.01);
        assert_eq!(state.reset("m", cfg.temperature_start, week, &cfg), 0.5);
        assert_eq!(state.temperature("m", false, week, &cfg), 0.5);
        assert_eq!(state.get("m").unwrap().access_count, 1);
        assert_eq!(state.reset("m", 3.0, week, &cfg), 1.0);
        assert_eq!(state.reset("m", f64::NAN, week, &cfg), 0.5);
    }

    #[test]
    fn clock_set_back_does_not_warm_or_double_cool() {
        let cfg = cfg();
        let t0 = ts(T0);
        let mut state = UsageState::new();
        state.observe("m", t0, &cfg);
        assert_eq!(state.temperature("m", false, t0 - hours(5), &cfg), 0.5);
        state.warm("m", false, t0 - hours(5), &cfg);
        assert_eq!(state.get("m").unwrap().updated_at, t0.as_second());
    }

    #[test]
    fn cold_notifications_cross_once_do_not_spam_and_re_arm() {
        let cfg = cfg();
        let t0 = ts(T0);
        let mut state = UsageState::new();
        let mems = [("m", false), ("p", true)];
        // 0.5 → 0.1 takes ln(5) / 0.05 = 32.19 hours.
        assert!(cold_announcements(&mut state, &mems, t0, &cfg).is_empty());
        assert!(cold_announcements(&mut state, &mems, t0 + hours(32), &cfg).is_empty());
        let first = cold_announcements(&mut state, &mems, t0 + hours(33), &cfg);
        assert_eq!(first.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["m"]);
        assert!(first[0].temperature < 0.1);
        // Checked every 5 minutes for days: nothing more.
        for step in 1..=500 {
            let now = t0 + hours(33) + SignedDuration::from_mins(5 * step);
            assert!(cold_announcements(&mut state, &mems, now, &cfg).is_empty(), "{step}");
        }
        // A read at hour 80 lifts it over the line (0.5·e^−4 + 0.15 = 0.159) and re-arms it.
        let now = t0 + hours(80);
        let t = state.warm("m", false, now, &cfg);
        assert!(t >= cfg.notify_threshold);
        assert!(!state.get("m").unwrap().announced_cold);
        assert!(cold_announcements(&mut state, &mems, now, &cfg).is_empty());
        // It cools below again: ln(t / 0.1) / 0.05 hours later it is announced a second time.
        let back = now + hours(((t / 0.1).ln() / 0.05).ceil() as i64);
        let again = cold_announcements(&mut state, &mems, back, &cfg);
        assert_eq!(again.len(), 1);
        assert!(cold_announcements(&mut state, &mems, back + hours(1), &cfg).is_empty());
    }

    #[test]
    fn a_value_hovering_below_the_line_is_not_re_announced() {
        // Warm-ups too small to cross the line keep the memory announced.
        let cfg = LifecycleConfig { temperature_warm: 0.01, ..cfg() };
        let t0 = ts(T0);
        let mut state = UsageState::new();
        state.reset("m", 0.05, t0, &cfg);
        assert_eq!(cold_announcements(&mut state, &[("m", false)], t0, &cfg).len(), 1);
        let t = state.warm("m", false, t0, &cfg);
        assert!((t - 0.06).abs() < 1e-12);
        assert!(state.get("m").unwrap().announced_cold);
        assert!(cold_announcements(&mut state, &[("m", false)], t0 + hours(1), &cfg).is_empty());
    }

    #[test]
    fn a_check_that_finds_it_above_re_arms_too() {
        let cfg = cfg();
        let t0 = ts(T0);
        let mut state = UsageState::new();
        state.reset("m", 0.05, t0, &cfg);
        assert_eq!(cold_announcements(&mut state, &[("m", false)], t0, &cfg).len(), 1);
        // A hand-edit-like direct bump above the line, then cooling again.
        state.entry("m", t0, &cfg).temperature = 0.2;
        assert!(cold_announcements(&mut state, &[("m", false)], t0, &cfg).is_empty());
        assert!(!state.get("m").unwrap().announced_cold);
        assert_eq!(cold_announcements(&mut state, &[("m", false)], t0 + hours(20), &cfg).len(), 1);
    }

    #[test]
    fn renotify_after_the_configured_hours() {
        let cfg = LifecycleConfig { renotify_hours: 12, ..cfg() };
        let t0 = ts(T0);
        let mut state = UsageState::new();
        state.reset("m", 0.05, t0, &cfg);
        assert_eq!(cold_announcements(&mut state, &[("m", false)], t0, &cfg).len(), 1);
        assert!(cold_announcements(&mut state, &[("m", false)], t0 + hours(11), &cfg).is_empty());
        assert_eq!(cold_announcements(&mut state, &[("m", false)], t0 + hours(12), &cfg).len(), 1);
        assert!(cold_announcements(&mut state, &[("m", false)], t0 + hours(23), &cfg).is_empty());
        assert_eq!(cold_announcements(&mut state, &[("m", false)], t0 + hours(24), &cfg).len(), 1);
    }

    #[test]
    fn pinned_memories_are_never_announced_and_results_are_coldest_first() {
        let cfg = cfg();
        let t0 = ts(T0);
        let mut state = UsageState::new();
        state.reset("pinned", 0.01, t0, &cfg);
        state.reset("b", 0.05, t0, &cfg);
        state.reset("a", 0.02, t0, &cfg);
        state.reset("c", 0.05, t0, &cfg);
        let mems = [("pinned", true), ("c", false), ("b", false), ("a", false), ("new", false)];
        let out = cold_announcements(&mut state, &mems, t0, &cfg);
        assert_eq!(out.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
        // "new" was observed and now cools.
        assert_eq!(state.get("new").unwrap().first_seen, t0.as_second());
        let cold = state.cold_set(mems, cfg.cold_threshold, t0, &cfg);
        assert_eq!(cold.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
    }
}
