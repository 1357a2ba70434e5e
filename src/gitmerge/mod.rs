//! Memory files in git: a merge driver that knows what each frontmatter key means, and its
//! registration in a repository.
//!
//! [`merge_memory`] merges three versions of one memory file the way `memlane merge-file` does for
//! git (`merge.memlane.driver`): the frontmatter key by key, the body as `git merge-file` does.
//! [`merge_driver_setup`] adds (or removes) the `.gitattributes` rule and the local git config
//! entry that make git call it, and reports what it changed or would change.

mod driver;
mod merge;
#[cfg(test)]
mod tests;

pub use driver::*;
pub use merge::*;

use std::path::PathBuf;

/// The `merge=` attribute and the `merge.<name>` git config section of memlane's driver.
pub const DRIVER_NAME: &str = "memlane";

/// The frontmatter key that records frontmatter keys both sides of a merge changed differently.
pub const CONFLICTS_KEY: &str = "merge_conflicts";

/// Why running `git` failed.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// `git` could not be started.
    #[error("cannot run git ({0}); is git installed?")]
    NotRunnable(String),
    /// `git` ran and failed.
    #[error("`git {args}` failed: {stderr}")]
    Failed {
        /// The arguments, joined by spaces.
        args: String,
        /// What git said.
        stderr: String,
    },
    /// A file could not be read or written.
    #[error(transparent)]
    Io(#[from] crate::error::PathError),
    /// A temporary file for `git merge-file` could not be written.
    #[error("cannot write a temporary file in {dir}: {source}")]
    Temp {
        /// The temporary folder.
        dir: PathBuf,
        /// The IO error.
        source: std::io::Error,
    },
}
