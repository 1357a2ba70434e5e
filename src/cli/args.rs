//! Argument groups several commands share, defined once.

use memlane::config::ConfigEnum;
use memlane::model::frontmatter::STATUSES;
use memlane::ops::window::{self, TimeWindow};
use memlane::vault::Vault;

/// `--after`, `--before`, `--since`: which creation times a command looks at.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct TimeWindowArgs {
    /// Only memories created at or after this time (ISO-8601 date or timestamp)
    #[arg(long, value_name = "TIME")]
    after: Option<String>,
    /// Only memories created before this time
    #[arg(long, value_name = "TIME")]
    before: Option<String>,
    /// Only memories created within this long before now (`30m`, `12h`, `7d`, `2w`); overrides
    /// --after/--before
    #[arg(long, value_name = "AGE")]
    since: Option<String>,
}

impl TimeWindowArgs {
    /// The window these flags describe, checked (an empty window is an error).
    pub fn window(&self, vault: &Vault) -> memlane::Result<TimeWindow> {
        window::from_text(
            vault,
            self.after.as_deref(),
            self.before.as_deref(),
            self.since.as_deref(),
        )
    }
}

/// The value parser of `--status`: a memory status ([`STATUSES`]).
pub(crate) fn status() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(STATUSES)
}

/// The value parser of `list --status`: a memory status ([`STATUSES`]) or `all`.
pub(crate) fn status_or_all() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(STATUSES.iter().chain(&["all"]))
}

/// The value parser of a word-valued flag declared once as a [`ConfigEnum`] (`--intent`,
/// `--profile`): clap lists its values with their descriptions in `--help` and the man page,
/// completes them in every shell, and refuses any other word with the list.
pub(crate) fn choice<T: ConfigEnum>() -> impl clap::builder::TypedValueParser<Value = T> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser as _};
    PossibleValuesParser::new(
        T::all()
            .iter()
            .map(|v| PossibleValue::new(v.name()).help(v.describe().trim_end_matches('.'))),
    )
    .try_map(|s| s.parse::<T>())
}
