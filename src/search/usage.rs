//! Search with the lifecycle's signals wired in: temperature for every profile that uses it,
//! MIRA's importance for `mira`, and ages on the configured clock (with the default
//! activity clock, days on which the vault was not used do not age memories).

use crate::index::store::Indexes;
use crate::lifecycle::{ImportanceSource, UsageState, age_days};
use crate::vault::Vault;

use super::{SearchQuery, SearchResults, search_ranked};

/// Runs a search with each memory's temperature, importance and age (on `lifecycle.clock`) from
/// the usage `state` at the vault's clock (what `memlane search` and the MCP server's search
/// do). Importance (which reads the link graph) is only computed for the `mira` profile's
/// candidates.
pub fn search_with_usage(
    vault: &Vault,
    idx: &Indexes,
    q: &SearchQuery,
    state: &UsageState,
) -> crate::Result<SearchResults> {
    let now = vault.clock.now();
    let lc = &vault.config.lifecycle;
    let source = ImportanceSource::new(idx, state, now, lc.clock);
    let age = |created: i64| {
        let created = jiff::Timestamp::from_second(created).unwrap_or(now);
        age_days(lc.clock, created, now, state.activity_days())
    };
    search_ranked(
        vault,
        idx,
        q,
        &|id, pinned| state.temperature(id, pinned, now, lc),
        &|name| source.importance(name).map(|i| i.score),
        &age,
    )
}
