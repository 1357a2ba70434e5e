//! Timestamps and durations as memlane reads and writes them.
//!
//! Frontmatter dates are ISO-8601 strings (`2026-01-10T10:00:00Z`, an offset, or a bare date,
//! which means midnight UTC). memlane writes UTC with second precision. Durations on the command
//! line are `30s`, `15m`, `12h`, `7d`, `2w`.

use jiff::{Timestamp, tz::TimeZone};

/// Parses an ISO-8601 timestamp (`Z` or an offset) or a bare date (`2026-01-10`, midnight UTC).
pub fn parse_timestamp(s: &str) -> Option<Timestamp> {
    let s = s.trim();
    if let Ok(ts) = s.parse::<Timestamp>() {
        return Some(ts);
    }
    // A datetime without an offset, or a bare date, is read as UTC.
    let civil = if s.len() == 10 {
        s.parse::<jiff::civil::Date>().ok().map(|d| d.to_datetime(jiff::civil::Time::midnight()))
    } else {
        s.parse::<jiff::civil::DateTime>().ok()
    };
    civil.and_then(|dt| dt.to_zoned(TimeZone::UTC).ok()).map(|z| z.timestamp())
}

/// Formats a timestamp the way memlane writes it: `2026-01-10T10:00:00Z`.
pub fn format_timestamp(ts: Timestamp) -> String {
    ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Formats a timestamp for file names: `20260110T100000.000Z`.
pub fn format_compact(ts: Timestamp) -> String {
    // Before 1970 jiff's sub-second part is negative; the civil time shown is floored, so the
    // milliseconds are floored too (from the nanoseconds: -0.9 ms is 999, not 0).
    let ms = ts.subsec_nanosecond().rem_euclid(1_000_000_000) / 1_000_000;
    format!("{}.{ms:03}Z", ts.strftime("%Y%m%dT%H%M%S"))
}

/// Parses a file-name timestamp written by [`format_compact`].
pub fn parse_compact(s: &str) -> Option<Timestamp> {
    let (main, frac) = s.strip_suffix('Z')?.split_once('.')?;
    if main.len() != 15 || frac.len() != 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let iso = format!(
        "{}-{}-{}T{}:{}:{}.{frac}Z",
        main.get(0..4)?,
        main.get(4..6)?,
        main.get(6..8)?,
        main.get(9..11)?,
        main.get(11..13)?,
        main.get(13..15)?
    );
    iso.parse().ok()
}

/// Parses a duration such as `30s`, `15m`, `12h`, `7d`, `2w` into seconds.
pub fn parse_duration_secs(s: &str) -> Option<i64> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit())?;
    let (num, unit) = s.split_at(split);
    let n: i64 = num.parse().ok()?;
    let mult = match unit.trim() {
        "s" | "sec" | "secs" => 1,
        "m" | "min" | "mins" => 60,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3600,
        "d" | "day" | "days" => 86_400,
        "w" | "week" | "weeks" => 604_800,
        _ => return None,
    };
    n.checked_mul(mult)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_parse_in_every_accepted_form() {
        let z = parse_timestamp("2026-01-10T10:00:00Z").unwrap();
        assert_eq!(format_timestamp(z), "2026-01-10T10:00:00Z");
        let off = parse_timestamp("2026-01-10T12:00:00+02:00").unwrap();
        assert_eq!(off, z);
        let date = parse_timestamp("2026-01-10").unwrap();
        assert_eq!(format_timestamp(date), "2026-01-10T00:00:00Z");
        let naive = parse_timestamp("2026-01-10T10:00:00").unwrap();
        assert_eq!(naive, z);
        assert_eq!(parse_timestamp("yesterday"), None);
        assert_eq!(parse_timestamp("2026-13-01"), None);
    }

    #[test]
    fn compact_form_round_trips() {
        let ts: Timestamp = "2026-01-10T10:00:00.123Z".parse().unwrap();
        let s = format_compact(ts);
        assert_eq!(s, "20260110T100000.123Z");
        assert_eq!(parse_compact(&s), Some(ts));
        assert_eq!(parse_compact("garbage"), None);
    }

    /// Found by `fuzz_time_shaped_input_never_panics`: before 1970 a time with
    /// a sub-millisecond part was written 999 ms early (`.000` for `00:00:00.9991`).
    #[test]
    fn compact_form_floors_sub_milliseconds_before_1970() {
        let ts: Timestamp = "1000-01-01T00:00:00.9991Z".parse().unwrap();
        assert_eq!(format_compact(ts), "10000101T000000.999Z");
        let ts: Timestamp = "1969-12-31T23:59:59.0005Z".parse().unwrap();
        assert_eq!(format_compact(ts), "19691231T235959.000Z");
        let ts: Timestamp = "2026-01-10T10:00:00.1239Z".parse().unwrap();
        assert_eq!(format_compact(ts), "20260110T100000.123Z");
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_secs("7d"), Some(7 * 86_400));
        assert_eq!(parse_duration_secs("2w"), Some(14 * 86_400));
        assert_eq!(parse_duration_secs("12h"), Some(43_200));
        assert_eq!(parse_duration_secs("15m"), Some(900));
        assert_eq!(parse_duration_secs("d"), None);
        assert_eq!(parse_duration_secs("7"), None);
        assert_eq!(parse_duration_secs("7y"), None);
    }
}
