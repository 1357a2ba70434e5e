//! The two clocks ages are counted on: wall-clock days, or activity days.
//!
//! An **activity day** is a UTC calendar date on which the vault was used: any command that reads
//! or writes records today through [`UsageState::touch_day`](super::UsageState::touch_day). The
//! activity age of something dated `from` at `now` is the number of recorded activity days `d`
//! with `date(from) < d ≤ date(now)` (UTC dates): the day it happened does not count, today does.
//! So a memory written on Monday and read again on Tuesday is one activity day old, whatever the
//! hour; and a two-week holiday in between adds nothing (MIRA: memories do not rot while nobody
//! works). Days are recorded, never inferred, so the activity age only counts what the state
//! file saw; a lost state file starts the count again.
//!
//! This module is pure: no IO, no "now" of its own.

use std::fmt;

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::Offset;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::config::ClockKind;

const SECONDS_PER_DAY: f64 = 86_400.0;

/// The UTC calendar date of an instant.
pub fn utc_date(ts: Timestamp) -> Date {
    Offset::UTC.to_datetime(ts).date()
}

/// The set of days on which the vault was used, in ascending order, without duplicates.
///
/// Stored in the usage state as a list of `YYYY-MM-DD` strings. One entry per day of use keeps
/// it small (ten years of daily use is 3,650 dates) and answers "how many activity days
/// between these two instants" for any pair, which a counter alone could not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActivityDays {
    days: Vec<Date>,
}

impl ActivityDays {
    /// No activity days.
    pub fn new() -> ActivityDays {
        ActivityDays::default()
    }

    /// Records the UTC date of `now` as a day of use; returns whether it was new.
    pub fn insert(&mut self, now: Timestamp) -> bool {
        self.insert_date(utc_date(now))
    }

    /// Records `date` as a day of use; returns whether it was new.
    pub fn insert_date(&mut self, date: Date) -> bool {
        match self.days.binary_search(&date) {
            Ok(_) => false,
            Err(at) => {
                self.days.insert(at, date);
                true
            }
        }
    }

    /// Whether the vault was used on `date`.
    pub fn contains(&self, date: Date) -> bool {
        self.days.binary_search(&date).is_ok()
    }

    /// The number of activity days.
    pub fn len(&self) -> usize {
        self.days.len()
    }

    /// Whether no day of use was recorded yet.
    pub fn is_empty(&self) -> bool {
        self.days.is_empty()
    }

    /// The most recent day of use.
    pub fn last(&self) -> Option<Date> {
        self.days.last().copied()
    }

    /// The days of use, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = Date> + '_ {
        self.days.iter().copied()
    }

    /// The number of activity days up to and including the UTC date of `ts`.
    pub fn count_through(&self, ts: Timestamp) -> u64 {
        let date = utc_date(ts);
        self.days.partition_point(|d| *d <= date) as u64
    }

    /// The number of activity days `d` with `date(from) < d ≤ date(to)` (0 when `to` is not
    /// after `from`).
    pub fn count_between(&self, from: Timestamp, to: Timestamp) -> u64 {
        self.count_through(to).saturating_sub(self.count_through(from))
    }
}

impl FromIterator<Date> for ActivityDays {
    fn from_iter<I: IntoIterator<Item = Date>>(iter: I) -> ActivityDays {
        let mut days: Vec<Date> = iter.into_iter().collect();
        days.sort_unstable();
        days.dedup();
        ActivityDays { days }
    }
}

impl Serialize for ActivityDays {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.days.iter().map(ToString::to_string))
    }
}

impl<'de> Deserialize<'de> for ActivityDays {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ActivityDays, D::Error> {
        let raw = Vec::<String>::deserialize(deserializer)?;
        raw.iter()
            .map(|s| s.parse::<Date>().map_err(|_| BadDate(s.clone())))
            .collect::<Result<ActivityDays, BadDate>>()
            .map_err(serde::de::Error::custom)
    }
}

struct BadDate(String);

impl fmt::Display for BadDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid activity day {:?} (expected YYYY-MM-DD)", self.0)
    }
}

/// How many days old something dated `from` is at `now`, on the configured clock.
///
/// - [`ClockKind::Calendar`]: wall-clock days, fractional (`(now − from) / 24 h`).
/// - [`ClockKind::Activity`]: whole activity days `d` with `date(from) < d ≤ date(now)` (see the
///   module docs); the caller should have recorded today ([`ActivityDays::insert`]) first.
///
/// Never negative: a `from` after `now` is 0 days old.
pub fn age_days(kind: ClockKind, from: Timestamp, now: Timestamp, days: &ActivityDays) -> f64 {
    match kind {
        ClockKind::Calendar => {
            let secs = now.as_second().saturating_sub(from.as_second());
            (secs as f64 / SECONDS_PER_DAY).max(0.0)
        }
        ClockKind::Activity => days.count_between(from, now) as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    fn date(s: &str) -> Date {
        s.parse().unwrap()
    }

    /// Every day from `first` to `last` inclusive.
    fn every_day(first: &str, last: &str) -> Vec<Date> {
        let (mut d, last) = (date(first), date(last));
        let mut out = Vec::new();
        while d <= last {
            out.push(d);
            d = d.tomorrow().unwrap();
        }
        out
    }

    #[test]
    fn insert_dedups_by_utc_date_and_keeps_order() {
        let mut days = ActivityDays::new();
        assert!(days.insert(ts("2026-01-12T23:59:59Z")));
        assert!(!days.insert(ts("2026-01-12T00:00:00Z")));
        // 01:00 at +02:00 is still the 11th in UTC.
        assert!(days.insert(ts("2026-01-12T01:00:00+02:00")));
        assert_eq!(days.iter().collect::<Vec<_>>(), [date("2026-01-11"), date("2026-01-12")]);
        assert_eq!(days.last(), Some(date("2026-01-12")));
        assert!(days.contains(date("2026-01-11")));
    }

    #[test]
    fn counts_are_exclusive_of_from_and_inclusive_of_now() {
        let days: ActivityDays = every_day("2026-01-01", "2026-01-10").into_iter().collect();
        assert_eq!(days.count_through(ts("2026-01-05T12:00:00Z")), 5);
        assert_eq!(days.count_between(ts("2026-01-05T23:00:00Z"), ts("2026-01-06T01:00:00Z")), 1);
        assert_eq!(days.count_between(ts("2026-01-05T01:00:00Z"), ts("2026-01-05T23:00:00Z")), 0);
        // Backwards is 0, not negative.
        assert_eq!(days.count_between(ts("2026-01-09T00:00:00Z"), ts("2026-01-02T00:00:00Z")), 0);
    }

    #[test]
    fn a_holiday_does_not_age_memories_on_the_activity_clock() {
        // Worked 1–10 January, away 11–24 January, back 25–28 January.
        let mut used = every_day("2026-01-01", "2026-01-10");
        used.extend(every_day("2026-01-25", "2026-01-28"));
        let days: ActivityDays = used.into_iter().collect();
        let written = ts("2026-01-08T09:00:00Z");
        let now = ts("2026-01-28T17:00:00Z");

        // Activity days after the 8th: 9, 10, 25, 26, 27, 28.
        assert_eq!(age_days(ClockKind::Activity, written, now, &days), 6.0);
        // The wall clock says 20 days and 8 hours.
        let calendar = age_days(ClockKind::Calendar, written, now, &days);
        assert!((calendar - (20.0 + 8.0 / 24.0)).abs() < 1e-9, "{calendar}");
        // Nothing ages during the holiday itself.
        let on_holiday = ts("2026-01-20T12:00:00Z");
        assert_eq!(age_days(ClockKind::Activity, written, on_holiday, &days), 2.0);
        assert_eq!(
            age_days(ClockKind::Activity, ts("2026-01-10T18:00:00Z"), on_holiday, &days),
            0.0
        );
    }

    #[test]
    fn ages_are_never_negative() {
        let days: ActivityDays = every_day("2026-01-01", "2026-01-10").into_iter().collect();
        let (a, b) = (ts("2026-01-09T00:00:00Z"), ts("2026-01-02T00:00:00Z"));
        assert_eq!(age_days(ClockKind::Calendar, a, b, &days), 0.0);
        assert_eq!(age_days(ClockKind::Activity, a, b, &days), 0.0);
    }

    #[test]
    fn serializes_as_sorted_date_strings() {
        let days: ActivityDays =
            [date("2026-02-01"), date("2026-01-31"), date("2026-02-01")].into_iter().collect();
        let json = serde_json::to_string(&days).unwrap();
        assert_eq!(json, r#"["2026-01-31","2026-02-01"]"#);
        assert_eq!(serde_json::from_str::<ActivityDays>(&json).unwrap(), days);
        // Unsorted input is normalised; a bad date is an error.
        let back: ActivityDays = serde_json::from_str(r#"["2026-02-01","2026-01-31"]"#).unwrap();
        assert_eq!(back, days);
        let err = serde_json::from_str::<ActivityDays>(r#"["2026-13-01"]"#).unwrap_err();
        assert!(err.to_string().contains("2026-13-01"), "{err}");
    }
}
