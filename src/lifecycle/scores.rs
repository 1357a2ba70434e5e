//! Importance of indexed memories: MIRA's inputs gathered from the index's manifest
//! and link graph and from the usage state, then [`importance()`](super::importance()).
//!
//! One place computes the inputs for `list --sort importance`, the `mira` search profile and
//! `maintain`, so they always agree. Importance is never cached: it is computed from the current
//! state every time it is asked for, which is cheap (a few graph lookups per memory), so there is
//! nothing to go stale and nothing for `maintain` to refresh.
//!
//! | input | from |
//! |---|---|
//! | access count, days since the last access, age | the usage state, on the configured clock ([`UsageState::importance_inputs`]) |
//! | inbound links | links from *other* memories to this one, one per (source, link type) — MIRA keeps one inbound entry per linking memory and type |
//! | entity links | for each entity the memory mentions, how many other memories mention it, summed |
//! | mentions | 0: memlane has no conversation log to count explicit mentions in |
//! | event, expiry | `happens_at` and `expires_at` from the manifest, in calendar days |

use std::collections::HashMap;

use jiff::Timestamp;

use super::importance::{Importance, ImportanceInputs, importance};
use super::state::UsageState;
use crate::config::ClockKind;
use crate::index::graph::{ENTITY_PREFIX, LinkGraph};
use crate::index::manifest::Entry;
use crate::index::store::Indexes;

const SECONDS_PER_DAY: f64 = 86_400.0;

/// Computes importance for memories of open indices (reconcile them first) from a usage state,
/// at a given "now" and on a given clock.
pub struct ImportanceSource<'a> {
    idx: &'a Indexes,
    state: &'a UsageState,
    now: Timestamp,
    clock: ClockKind,
}

impl<'a> ImportanceSource<'a> {
    /// A source over `idx` and `state` at `now` on `clock` (normally the vault's clock and
    /// `lifecycle.clock`).
    pub fn new(
        idx: &'a Indexes,
        state: &'a UsageState,
        now: Timestamp,
        clock: ClockKind,
    ) -> ImportanceSource<'a> {
        ImportanceSource { idx, state, now, clock }
    }

    /// The importance inputs of memory `name`; `None` when it is not indexed.
    pub fn inputs(&self, name: &str) -> Option<ImportanceInputs> {
        let entry = self.idx.manifest().get(name)?;
        let g = self.idx.graph();
        Some(self.inputs_of(name, entry, g, &mut |entity| entity_mentions(g, entity)))
    }

    /// The importance of memory `name`; `None` when it is not indexed.
    pub fn importance(&self, name: &str) -> Option<Importance> {
        self.inputs(name).map(|i| importance(&i))
    }

    /// The importance of every indexed memory (any status), by name, sorted by name.
    pub fn all(&self) -> Vec<(String, Importance)> {
        let g = self.idx.graph();
        let mut mentions: HashMap<String, usize> = HashMap::new();
        let mut count = |entity: &str| -> usize {
            if let Some(n) = mentions.get(entity) {
                return *n;
            }
            let n = entity_mentions(g, entity);
            mentions.insert(entity.to_owned(), n);
            n
        };
        let mut out: Vec<(String, Importance)> = self
            .idx
            .manifest()
            .entries()
            .iter()
            .map(|(name, entry)| {
                (name.clone(), importance(&self.inputs_of(name, entry, g, &mut count)))
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    fn inputs_of(
        &self,
        name: &str,
        entry: &Entry,
        g: &LinkGraph,
        entity_count: &mut dyn FnMut(&str) -> usize,
    ) -> ImportanceInputs {
        let key = format!("memory:{name}");
        let mut inbound: Vec<(String, String)> = g
            .incoming(&key)
            .into_iter()
            .filter(|(source, _)| source.starts_with("memory:") && *source != key)
            .map(|(source, data)| (source, data.edge_type))
            .collect();
        inbound.sort();
        inbound.dedup();
        let entity_links: f64 = g
            .outgoing(&key)
            .iter()
            .filter(|(target, _)| target.starts_with(ENTITY_PREFIX))
            .map(|(target, _)| entity_count(target).saturating_sub(1) as f64)
            .sum();
        let now = self.now.as_second();
        let days = |at: i64| (at - now) as f64 / SECONDS_PER_DAY;
        let created = Timestamp::from_second(entry.created).unwrap_or(self.now);
        ImportanceInputs {
            inbound_links: inbound.len(),
            entity_links,
            happens_in_days: entry.happens_at.map(days),
            days_past_expiry: entry.expires_at.map(|e| -days(e)),
            ..self.state.importance_inputs(&entry.id, created, self.now, self.clock)
        }
    }
}

/// How many distinct memories mention `entity` (an `entity:` key).
fn entity_mentions(g: &LinkGraph, entity: &str) -> usize {
    let mut sources: Vec<String> = g.incoming(entity).into_iter().map(|(k, _)| k).collect();
    sources.dedup();
    sources.len()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::config::Config;
    use crate::index::embed::BuiltinEmbedder;
    use crate::vault::{Clock, Vault};

    const NOW: &str = "2026-03-01T10:00:00Z";

    fn vault_with(files: &[(&str, &str)]) -> (tempfile::TempDir, Vault, Indexes) {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join(".memories");
        crate::vault::init(&root, "").unwrap();
        for (name, text) in files {
            std::fs::write(root.join(format!("{name}.md")), text).unwrap();
        }
        let vault =
            Vault::open(&root, Config::default(), Clock::pinned(NOW.parse().unwrap())).unwrap();
        let mut idx = Indexes::open(&vault, Arc::new(BuiltinEmbedder::new())).unwrap();
        idx.reconcile(&vault).unwrap();
        (tmp, vault, idx)
    }

    #[test]
    fn inputs_come_from_links_dates_and_usage() {
        let (_tmp, vault, idx) = vault_with(&[
            (
                "hub",
                "---\nid: HubHubHub01\ncreated_at: 2026-02-27T10:00:00Z\nhappens_at: 2026-03-03T10:00:00Z\n---\n\n# Hub\n\nItself: [[memory:hub]].\n",
            ),
            // Two links of one type from one memory count once; another type counts again.
            (
                "a",
                "---\nlinks:\n  - target: memory:hub\n    type: depends_on\n---\n\n# A\n\nSee [[memory:hub]] and [[memory:hub]].\n",
            ),
            ("b", "# B\n\nAlso [[memory:hub]].\n"),
            ("gone", "---\nexpires_at: 2026-02-20T10:00:00Z\n---\n\n# Gone\n\nA notice.\n"),
        ]);
        let mut state = UsageState::default();
        let now: Timestamp = NOW.parse().unwrap();
        let cfg = &vault.config.lifecycle;
        state.warm("HubHubHub01", false, now, cfg);
        state.warm("HubHubHub01", false, now, cfg);
        let source = ImportanceSource::new(&idx, &state, now, ClockKind::Calendar);

        let hub = source.inputs("hub").unwrap();
        assert_eq!(hub.inbound_links, 3, "a (link + depends_on) and b; not itself");
        assert_eq!(hub.access_count, 2);
        assert!((hub.age_days - 2.0).abs() < 1e-9, "{}", hub.age_days);
        assert_eq!(hub.happens_in_days, Some(2.0));
        assert_eq!(hub.days_past_expiry, None);
        let gone = source.importance("gone").unwrap();
        assert!(gone.is_expired() && gone.score == 0.0, "{gone:?}");
        assert!(source.inputs("nope").is_none());

        let all = source.all();
        let names: Vec<&str> = all.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["a", "b", "gone", "hub"]);
        let hub_all = all.iter().find(|(n, _)| n == "hub").unwrap().1;
        assert_eq!(Some(hub_all), source.importance("hub"), "one computation for both paths");
        assert!(hub_all.score > all[0].1.score, "linked, read and with an event in two days");
    }
}
