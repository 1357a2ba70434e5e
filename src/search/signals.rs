//! The lifecycle's signals a search ranks with: each memory's temperature (stage 6), its MIRA
//! importance (stage 6 of the `mira` profile) and its age in days (stages 4–5).

use crate::index::store::Indexes;
use crate::lifecycle::{ImportanceSource, UsageState, age_days};
use crate::vault::Vault;

/// A temperature lookup: `(id, pinned)` → T in [0, 1].
type Temperature<'a> = Box<dyn Fn(&str, bool) -> f64 + 'a>;
/// An importance lookup: memory name → I in [0, 1], `None` when unknown (neutral).
type Importance<'a> = Box<dyn Fn(&str) -> Option<f64> + 'a>;
/// An age lookup: creation (Unix seconds) → age in days.
type Age<'a> = Box<dyn Fn(i64) -> f64 + 'a>;

/// The three lookups stages 4–6 take from the lifecycle. [`Signals::neutral`] has none: every
/// memory at temperature 1 (no effect), no importance, ages in calendar days on the vault's
/// clock. [`Signals::from_usage`] reads them from the usage state, as `memlane search` and the
/// MCP server's search do.
pub struct Signals<'a> {
    temperature: Temperature<'a>,
    importance: Importance<'a>,
    age_days: Option<Age<'a>>,
}

impl<'a> Signals<'a> {
    /// No lifecycle signal: temperature 1, no importance, calendar ages.
    pub fn neutral() -> Signals<'a> {
        Signals {
            temperature: Box::new(|_, _| 1.0),
            importance: Box::new(|_| None),
            age_days: None,
        }
    }

    /// Each memory's temperature, importance and age (on `lifecycle.clock`; with the default
    /// activity clock, days on which the vault was not used do not age memories) from the usage
    /// `state` at the vault's clock. Importance (which reads the link graph) is only computed
    /// for the `mira` profile's candidates.
    pub fn from_usage(vault: &'a Vault, idx: &'a Indexes, state: &'a UsageState) -> Signals<'a> {
        let now = vault.clock.now();
        let lc = &vault.config.lifecycle;
        let source = ImportanceSource::new(idx, state, now, lc.clock);
        Signals {
            temperature: Box::new(move |id, pinned| state.temperature(id, pinned, now, lc)),
            importance: Box::new(move |name| source.importance(name).map(|i| i.score)),
            age_days: Some(Box::new(move |created| {
                let created = jiff::Timestamp::from_second(created).unwrap_or(now);
                age_days(lc.clock, created, now, state.activity_days())
            })),
        }
    }

    /// These signals with each memory's temperature from `f(id, pinned)`, in [0, 1].
    pub fn with_temperature(self, f: impl Fn(&str, bool) -> f64 + 'a) -> Signals<'a> {
        Signals { temperature: Box::new(f), ..self }
    }

    /// These signals with each memory's MIRA importance from `f(name)`, in [0, 1] (`None` is
    /// neutral); only the `mira` profile asks, and only for its candidates.
    pub fn with_importance(self, f: impl Fn(&str) -> Option<f64> + 'a) -> Signals<'a> {
        Signals { importance: Box::new(f), ..self }
    }

    /// These signals with each memory's age in days from `f(created)` (Unix seconds).
    pub fn with_age_days(self, f: impl Fn(i64) -> f64 + 'a) -> Signals<'a> {
        Signals { age_days: Some(Box::new(f)), ..self }
    }

    pub(super) fn temperature(&self, id: &str, pinned: bool) -> f64 {
        (self.temperature)(id, pinned)
    }

    pub(super) fn importance(&self, name: &str) -> Option<f64> {
        (self.importance)(name)
    }

    /// The age of a memory created at `created`, `now` being the search's clock (both Unix
    /// seconds): calendar days unless an age lookup was given.
    pub(super) fn age_days(&self, created: i64, now: i64) -> f64 {
        match &self.age_days {
            Some(f) => f(created),
            None => (now - created) as f64 / 86_400.0,
        }
    }
}

impl Default for Signals<'_> {
    fn default() -> Self {
        Signals::neutral()
    }
}
