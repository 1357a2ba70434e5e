//! The time window filters of `list` and `search` (`after`, `before`, `since`), one rule for
//! every front end.

use jiff::{SignedDuration, Timestamp};

use crate::Error;
use crate::model::time::{format_timestamp, parse_duration_secs, parse_timestamp};
use crate::vault::Vault;

/// A window of creation times: `[after, before)`, either end open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimeWindow {
    /// At or after this time.
    pub after: Option<Timestamp>,
    /// Before this time.
    pub before: Option<Timestamp>,
}

/// Resolves a window given as text, as people type it: `after`/`before` are ISO-8601 dates or
/// timestamps, `since` a duration back from now (`30m`, `12h`, `7d`, `2w`) that overrides both.
pub fn from_text(
    vault: &Vault,
    after: Option<&str>,
    before: Option<&str>,
    since: Option<&str>,
) -> crate::Result<TimeWindow> {
    if let Some(s) = since {
        let secs = parse_duration_secs(s)
            .ok_or_else(|| Error::BadDuration { field: "since", value: s.to_owned() })?;
        return from_parts(vault, None, None, Some(("since", secs)));
    }
    let after = after.map(|s| parse_time("after", s)).transpose()?;
    let before = before.map(|s| parse_time("before", s)).transpose()?;
    from_parts(vault, after, before, None)
}

/// Parses one end of a window (`field` names it in the error): an ISO-8601 date or timestamp.
pub fn parse_time(field: &'static str, s: &str) -> crate::Result<Timestamp> {
    parse_timestamp(s).ok_or_else(|| Error::BadTime { field, value: s.to_owned() })
}

/// Checks a window given as times: `since` (the input's name, and seconds back from the vault's
/// clock) overrides both ends; an empty window (`after ≥ before`) is an error; a negative
/// `since` too.
pub fn from_parts(
    vault: &Vault,
    after: Option<Timestamp>,
    before: Option<Timestamp>,
    since: Option<(&'static str, i64)>,
) -> crate::Result<TimeWindow> {
    if let Some((field, secs)) = since {
        if secs < 0 {
            return Err(Error::BadDuration { field, value: secs.to_string() });
        }
        // A window reaching past the earliest time jiff knows is everything.
        let after = vault
            .clock
            .now()
            .checked_sub(SignedDuration::from_secs(secs))
            .unwrap_or(Timestamp::MIN);
        return Ok(TimeWindow { after: Some(after), before: None });
    }
    if let (Some(a), Some(b)) = (after, before)
        && a >= b
    {
        return Err(Error::EmptyWindow { after: format_timestamp(a), before: format_timestamp(b) });
    }
    Ok(TimeWindow { after, before })
}

/// A timestamp given as seconds since 1970 (the MCP tools' `after_timestamp`).
pub fn from_unix(field: &'static str, secs: i64) -> crate::Result<Timestamp> {
    Timestamp::from_second(secs).map_err(|_| Error::BadTime { field, value: secs.to_string() })
}
