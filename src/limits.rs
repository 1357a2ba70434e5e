//! The largest sizes a user or an agent may ask for, shared by the CLI and the MCP server.
//!
//! Every count, depth or budget that comes from outside (a flag, an MCP tool parameter) is checked
//! here before anything is allocated from it: a request for a billion results once made the
//! server try to allocate 32 GB and abort. A value out of range is refused with an error that
//! names the parameter and the allowed range; nothing is clamped silently.

use crate::Error;

/// Most results of one search (`search --limit`, `search_memories.limit`, `linked`,
/// `search_linked_memories`); the same bound as the config's `search.limit`.
pub const MAX_RESULTS: usize = 1000;

/// Most clusters `suggest-merges` / `suggest_memory_merges` returns.
pub const MAX_CLUSTERS: usize = 1000;

/// Deepest `related --depth` / `get_related_memories.depth` (hops through the link graph).
pub const MAX_DEPTH: usize = 32;

/// Largest `search --budget`, in estimated tokens.
pub const MAX_BUDGET_TOKENS: usize = 10_000_000;

/// Most top results `search --expand` follows links from.
pub const MAX_EXPAND: usize = 100;

/// Longest `watch --debounce`, in milliseconds (one hour).
pub const MAX_DEBOUNCE_MS: u64 = 3_600_000;

/// Checks that `value` (the parameter `what`, as the caller spells it: `--limit` or `limit`) is
/// between `min` and `max`, inclusive.
pub fn check(what: &str, value: usize, min: usize, max: usize) -> Result<usize, Error> {
    if (min..=max).contains(&value) {
        return Ok(value);
    }
    Err(Error::LimitExceeded { what: what.to_owned(), min, max, value })
}

/// [`check`] of an optional value.
pub fn check_opt(
    what: &str,
    value: Option<usize>,
    min: usize,
    max: usize,
) -> Result<Option<usize>, Error> {
    value.map(|v| check(what, v, min, max)).transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_values_are_refused_with_the_range() {
        assert_eq!(check("limit", 5, 1, MAX_RESULTS).unwrap(), 5);
        let e = check("limit", 1_000_000_000_000_000_000, 1, MAX_RESULTS).unwrap_err();
        assert!(e.to_string().starts_with("limit must be between 1 and 1000"), "{e}");
        assert!(check("--depth", 0, 1, MAX_DEPTH).is_err());
        assert_eq!(check_opt("x", None, 1, 2).unwrap(), None);
    }
}
