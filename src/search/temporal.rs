//! Times named in a query (`search.temporal_weight`): "what did we decide in March 2025",
//! "the deploy on 7 July, 2023", "notes from last week". The first such expression is resolved
//! against the search's clock (`--now`, `MEMLANE_NOW`) to a span of time, and memories created
//! in that span are preferred: the others' fused score is multiplied by
//! `1 − temporal_weight × (1 − closeness)`, where closeness falls from 1 at the span's edge to 0
//! one span-length (at least a week) away.
//!
//! Understood (case-insensitive, English): ISO dates (`2023-05-07`); `7 July 2023`,
//! `7 July, 2023`, `July 7, 2023`, `July 7th 2023`; `July 2023`; `in July`, `last July`,
//! `during July` (the latest July before now); `in 2023`; `today`, `yesterday`;
//! `this`/`last` `week`/`month`/`year`; `N days/weeks/months/years ago` (N a number or one to
//! twelve in words, or `a`). A bare month name without `in`/`last`/`during`/`since`/a day or a
//! year is not a time (`march` the verb, `may` the modal).

use jiff::civil::Date;
use jiff::{Span, Timestamp, ToSpan, tz::TimeZone};

/// A span of time, Unix seconds, `start` inclusive, `end` exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeSpan {
    /// First second of the span.
    pub start: i64,
    /// First second after it.
    pub end: i64,
}

impl TimeSpan {
    /// How close `t` is to the span: 1 inside, falling linearly to 0 one span-length (at least
    /// seven days) outside.
    pub fn closeness(&self, t: i64) -> f64 {
        let len = (self.end - self.start).max(7 * 86_400) as f64;
        let dist = if t < self.start {
            self.start - t
        } else if t >= self.end {
            t - self.end + 1
        } else {
            0
        };
        (1.0 - dist as f64 / len).max(0.0)
    }
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

fn month(word: &str) -> Option<i8> {
    const SHORT: [&str; 12] =
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
    let word = if word == "sept" { "sep" } else { word };
    MONTHS
        .iter()
        .position(|m| *m == word)
        .or_else(|| SHORT.iter().position(|m| *m == word))
        .map(|i| i as i8 + 1)
}

fn number(word: &str) -> Option<i64> {
    const WORDS: [&str; 13] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve",
    ];
    if word == "a" || word == "an" {
        return Some(1);
    }
    WORDS.iter().position(|w| *w == word).map(|i| i as i64).or_else(|| {
        (word.len() <= 4 && word.bytes().all(|b| b.is_ascii_digit())).then(|| word.parse().ok())?
    })
}

fn day(word: &str) -> Option<i8> {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    if !matches!(suffix, "" | "st" | "nd" | "rd" | "th") || digits.is_empty() || digits.len() > 2 {
        return None;
    }
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

fn year(word: &str) -> Option<i16> {
    (word.len() == 4 && word.bytes().all(|b| b.is_ascii_digit()))
        .then(|| word.parse().ok())?
        .filter(|y| (1900..=2200).contains(y))
}

fn ts(date: Date) -> Option<i64> {
    date.to_zoned(TimeZone::UTC).ok().map(|z| z.timestamp().as_second())
}

fn span_of(start: Date, len: Span) -> Option<TimeSpan> {
    let end = start.checked_add(len).ok()?;
    Some(TimeSpan { start: ts(start)?, end: ts(end)? })
}

fn month_span(y: i16, m: i8) -> Option<TimeSpan> {
    span_of(Date::new(y, m, 1).ok()?, 1.month())
}

fn day_span(y: i16, m: i8, d: i8) -> Option<TimeSpan> {
    span_of(Date::new(y, m, d).ok()?, 1.day())
}

/// The span of the first time expression in `query`, resolved against `now`; `None` when the
/// query names no time.
pub fn find_span(query: &str, now: Timestamp) -> Option<TimeSpan> {
    let today = now.to_zoned(TimeZone::UTC).date();
    let words: Vec<String> = query
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let w = |i: usize| words.get(i).map_or("", String::as_str);
    for i in 0..words.len() {
        let word = w(i);
        // ISO date.
        if word.len() == 10
            && let Ok(d) = word.parse::<Date>()
        {
            return span_of(d, 1.day());
        }
        if let Some(m) = month(word) {
            // `7 July 2023`, `7 July`.
            if let Some(d) = (i > 0).then(|| day(w(i - 1))).flatten() {
                let y = year(w(i + 1)).unwrap_or_else(|| latest_year(today, m, d));
                return day_span(y, m, d);
            }
            // `July 7, 2023`, `July 7th`.
            if let Some(d) = day(w(i + 1)) {
                let y = year(w(i + 2)).unwrap_or_else(|| latest_year(today, m, d));
                return day_span(y, m, d);
            }
            // `July 2023`.
            if let Some(y) = year(w(i + 1)) {
                return month_span(y, m);
            }
            // `in July`, `last July`: the latest such month that has begun.
            if i > 0 && matches!(w(i - 1), "in" | "last" | "during" | "since" | "early" | "late") {
                return month_span(latest_year(today, m, 1), m);
            }
            continue;
        }
        if let Some(y) = year(word)
            && i > 0
            && matches!(w(i - 1), "in" | "during" | "since" | "of")
        {
            return span_of(Date::new(y, 1, 1).ok()?, 1.year());
        }
        match word {
            "today" => return span_of(today, 1.day()),
            "yesterday" => return span_of(today.checked_sub(1.day()).ok()?, 1.day()),
            "week" | "month" | "year" if matches!(w(i.wrapping_sub(1)), "this" | "last") => {
                let back = usize::from(w(i - 1) == "last");
                return calendar_unit(today, word, back);
            }
            "ago" if i >= 2 => {
                let n = number(w(i - 2))?;
                let unit = w(i - 1).trim_end_matches('s');
                let back = match unit {
                    "day" => n.days(),
                    "week" => (7 * n).days(),
                    "month" => n.months(),
                    "year" => n.years(),
                    _ => continue,
                };
                let at = today.checked_sub(back).ok()?;
                let len = match unit {
                    "day" => 1.day(),
                    "week" => 7.days(),
                    "month" => 1.month(),
                    _ => 1.year(),
                };
                // Centred on the day `n units ago`, one unit wide.
                let half = at.checked_sub(Span::new().days(days_in(len) / 2)).ok()?;
                return span_of(half, len);
            }
            _ => {}
        }
    }
    None
}

fn days_in(len: Span) -> i64 {
    if len.get_years() > 0 {
        365
    } else if len.get_months() > 0 {
        30
    } else {
        i64::from(len.get_days())
    }
}

/// The span of this (`back` = 0) or the previous (`back` = 1) calendar week, month or year.
fn calendar_unit(today: Date, unit: &str, back: usize) -> Option<TimeSpan> {
    let back = back as i64;
    match unit {
        "week" => {
            let monday = today
                .checked_sub(i64::from(today.weekday().to_monday_zero_offset()).days())
                .ok()?;
            span_of(monday.checked_sub((7 * back).days()).ok()?, 7.days())
        }
        "month" => span_of(today.first_of_month().checked_sub(back.months()).ok()?, 1.month()),
        _ => span_of(Date::new(today.year() - back as i16, 1, 1).ok()?, 1.year()),
    }
}

/// The latest year in which month `m`, day `d` is not after `today`.
fn latest_year(today: Date, m: i8, d: i8) -> i16 {
    if (m, d) <= (today.month(), today.day()) { today.year() } else { today.year() - 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> Timestamp {
        "2023-08-15T12:00:00Z".parse().unwrap()
    }

    fn span(q: &str) -> Option<(String, String)> {
        let s = find_span(q, now())?;
        let f = |t: i64| Timestamp::from_second(t).unwrap().strftime("%Y-%m-%d").to_string();
        Some((f(s.start), f(s.end)))
    }

    fn pair(a: &str, b: &str) -> Option<(String, String)> {
        Some((a.to_owned(), b.to_owned()))
    }

    #[test]
    fn dates_months_and_years() {
        assert_eq!(span("What happened on 7 July, 2023?"), pair("2023-07-07", "2023-07-08"));
        assert_eq!(span("the deploy of July 7th 2023"), pair("2023-07-07", "2023-07-08"));
        assert_eq!(
            span("What setback did the team face in October 2023"),
            pair("2023-10-01", "2023-11-01")
        );
        assert_eq!(span("notes from 2023-05-02"), pair("2023-05-02", "2023-05-03"));
        assert_eq!(span("what did we decide last March"), pair("2023-03-01", "2023-04-01"));
        assert_eq!(span("what did we ship in September"), pair("2022-09-01", "2022-10-01"));
        assert_eq!(span("releases in 2022"), pair("2022-01-01", "2023-01-01"));
    }

    #[test]
    fn relative_times() {
        assert_eq!(span("what broke yesterday"), pair("2023-08-14", "2023-08-15"));
        assert_eq!(span("decisions this week"), pair("2023-08-14", "2023-08-21"));
        assert_eq!(span("decisions last week"), pair("2023-08-07", "2023-08-14"));
        assert_eq!(span("what changed last month"), pair("2023-07-01", "2023-08-01"));
        assert_eq!(span("the outage two weeks ago"), pair("2023-07-29", "2023-08-05"));
    }

    #[test]
    fn words_that_only_look_like_times_are_not() {
        for q in [
            "how to march the migration forward",
            "may we rotate the keys",
            "which database do we use",
            "port 2023 is open",
            "a date with destiny",
        ] {
            assert_eq!(span(q), None, "{q}");
        }
    }

    #[test]
    fn closeness_is_one_inside_and_falls_outside() {
        let s = find_span("in July 2023", now()).unwrap();
        assert_eq!(s.closeness(s.start), 1.0);
        assert_eq!(s.closeness(s.end - 1), 1.0);
        let len = s.end - s.start;
        assert!((s.closeness(s.end + len / 2) - 0.5).abs() < 0.02);
        assert_eq!(s.closeness(s.start - 2 * len), 0.0);
    }
}
