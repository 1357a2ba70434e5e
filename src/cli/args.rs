//! Argument groups several commands share, defined once.

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
