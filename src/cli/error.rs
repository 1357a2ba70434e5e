//! Errors of the command line's own input (flags, environment, files it reads for a command),
//! beside the library's [`memlane::Error`]. Their hints are in `hints.rs` with the library's.

use std::path::PathBuf;

use memlane::ErrorKind;

/// A command-line input memlane cannot use.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// `--now` / `MEMLANE_NOW` that does not parse.
    #[error("--now / MEMLANE_NOW `{0}` is not an ISO-8601 time")]
    BadNow(String),
    /// A `-c` override without `=`.
    #[error("`-c {0}` is not KEY=VALUE")]
    NotKeyValue(String),
    /// A duration flag that does not parse.
    #[error("{flag} `{value}` is not a duration")]
    BadDuration {
        /// The flag (`--older-than`).
        flag: &'static str,
        /// What was given.
        value: String,
    },
    /// A `--file` that is not UTF-8 text.
    #[error("{} is not UTF-8 text", .0.display())]
    FileNotUtf8(PathBuf),
    /// A `--debounce` past [`memlane::limits::MAX_DEBOUNCE_MS`].
    #[error("--debounce must be at most {max} ms (one hour); got {value}")]
    DebounceTooLong {
        /// The longest accepted.
        max: u64,
        /// What was given.
        value: u64,
    },
}

impl CliError {
    /// What kind of failure this is (the `kind` of a `--json` error, and the exit code through
    /// [`ErrorKind::exit_code`]).
    pub(crate) fn kind(&self) -> ErrorKind {
        match self {
            CliError::BadNow(_)
            | CliError::NotKeyValue(_)
            | CliError::BadDuration { .. }
            | CliError::FileNotUtf8(_)
            | CliError::DebounceTooLong { .. } => ErrorKind::Invalid,
        }
    }
}
