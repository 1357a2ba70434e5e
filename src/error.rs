//! Error types shared by the library.
//!
//! Every IO error carries its path ([`PathError`]); every user-facing error says what was wrong
//! and what to do. The CLI maps [`Error::is_usage`] to exit code 2 and everything else to 1.

use std::path::{Path, PathBuf};

use crate::model::{FrontmatterError, NameError};

/// An IO error with the path it happened on.
///
/// It reads as one sentence in words (`cannot write .memories/x.md: the disk is full`), so the
/// IO error is part of the message rather than a separate cause.
#[derive(Debug)]
pub struct PathError {
    /// What memlane was doing (`read`, `write`, `create`, `rename` …).
    pub action: &'static str,
    /// The path that could not be read or written.
    pub path: PathBuf,
    /// The underlying IO error.
    pub source: std::io::Error,
}

impl std::fmt::Display for PathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot {} {}: {}", self.action, self.path.display(), describe_io(&self.source))
    }
}

// The IO error is in the message already, so it is not reported again as a cause.
impl std::error::Error for PathError {}

/// An IO error in words a user understands ("the disk is full" for `ENOSPC`).
pub fn describe_io(e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::StorageFull => "the disk is full".into(),
        K::QuotaExceeded => "the disk quota is used up".into(),
        K::ReadOnlyFilesystem => "the file system is read-only".into(),
        K::PermissionDenied => "permission denied".into(),
        K::NotFound => "it does not exist".into(),
        K::AlreadyExists => "it already exists".into(),
        _ => {
            // Drop the errno suffix (`(os error 5)`): the words say it.
            let s = e.to_string();
            match s.rfind(" (os error ") {
                Some(i) if s.ends_with(')') => s[..i].to_owned(),
                _ => s,
            }
        }
    }
}

/// Adds the path to an IO result.
pub trait IoResultExt<T> {
    /// Wraps the error in a [`PathError`] for `path`.
    fn at(self, action: &'static str, path: &Path) -> Result<T, PathError>;
}

impl<T> IoResultExt<T> for std::io::Result<T> {
    fn at(self, action: &'static str, path: &Path) -> Result<T, PathError> {
        self.map_err(|source| PathError { action, path: path.to_owned(), source })
    }
}

pub(crate) use crate::disk::lock_file;

/// Every error the memlane library returns.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An IO error on a path.
    #[error(transparent)]
    Io(#[from] PathError),
    /// A configuration problem.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// The derived indices failed.
    #[error(transparent)]
    Index(Box<crate::index::store::IndexError>),
    /// The embedding model cannot be loaded.
    #[error(
        "cannot load the embedding model at {}",
        .path.display()
    )]
    Model {
        /// The model directory.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        source: Box<crate::index::minilm::ModelError>,
    },
    /// The embedding model loaded but failed to embed a text: nothing derived from it was stored
    /// (memories it could not index stay stale until an embedding works).
    #[error(transparent)]
    Embed(#[from] crate::index::embed::EmbedError),
    /// The usage state failed.
    #[error(transparent)]
    Lifecycle(#[from] crate::lifecycle::LifecycleError),
    /// The filesystem watcher failed.
    #[error(transparent)]
    Watch(#[from] crate::watch::WatchError),
    /// No vault was found.
    #[error(
        "no memlane vault found in {} or any parent folder",
        .0.display()
    )]
    NoVault(PathBuf),
    /// A vault path given explicitly does not exist.
    #[error("the vault {} does not exist", .0.display())]
    VaultMissing(PathBuf),
    /// A bad memory name.
    #[error("invalid memory name: {0}")]
    Name(NameError),
    /// The memory does not exist.
    #[error("no memory named `{name}`")]
    NotFound {
        /// What the user asked for.
        name: String,
        /// Close names that do exist.
        suggestions: Vec<String>,
    },
    /// The target name is taken.
    #[error("a memory named `{0}` already exists")]
    Exists(String),
    /// An unknown memory type.
    #[error("unknown memory type `{ty}` (known types: {})", .known.join(", "))]
    UnknownType {
        /// The type asked for.
        ty: String,
        /// The configured types.
        known: Vec<String>,
    },
    /// Frontmatter given in a write does not parse.
    #[error("invalid frontmatter in {what}: {problem}; nothing was written")]
    Frontmatter {
        /// Which input (a name or a path).
        what: String,
        /// The parse problem.
        problem: FrontmatterError,
    },
    /// A memory file past memlane's parsing limits: it is skipped, not read.
    #[error("{} is skipped: {problem}", .path.display())]
    OverLimit {
        /// The file.
        path: PathBuf,
        /// Which limit.
        problem: FrontmatterError,
    },
    /// A memory file holds unresolved git conflict markers: it is not read until they are gone.
    #[error(
        "unresolved merge conflict in {} (line {line}); memlane does not read it until the markers are gone",
        .path.display()
    )]
    MergeConflict {
        /// The file.
        path: PathBuf,
        /// The line of the first `<<<<<<<` marker (1-based).
        line: usize,
    },
    /// A split whose pieces already exist (split twice): nothing is written.
    #[error(
        "`{name}` was split before: {} already exist{}; nothing was written",
        .pieces.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", "),
        if .pieces.len() == 1 { "s" } else { "" }
    )]
    PiecesExist {
        /// The memory being split.
        name: String,
        /// The pieces that already exist.
        pieces: Vec<String>,
    },
    /// Input the user gave is not acceptable (bad time range, empty content …).
    #[error("{0}")]
    Invalid(String),
    /// A write would leave the vault (through a symlink).
    #[error("refusing to write {}: it resolves outside the vault (through a symbolic link)", .0.display())]
    OutsideVault(PathBuf),
    /// A read through a symbolic link that leaves the vault's memories.
    #[error(
        "refusing to read `{0}`: it is a symbolic link that resolves outside the vault's memories"
    )]
    LinkOutsideVault(String),
    /// A version number that is not in the history.
    #[error("`{name}` has no version {version}{}", if *.available == 0 { " (it has no history yet)".to_owned() } else { format!(" (versions 1 to {})", .available) })]
    NoSuchVersion {
        /// The memory.
        name: String,
        /// The version asked for.
        version: usize,
        /// How many versions exist.
        available: usize,
    },
    /// No trash entry matched.
    #[error("nothing in the trash matches `{0}`")]
    NotInTrash(String),
    /// The content is nearly the same as an existing memory's (`lifecycle.dedup_threshold`).
    #[error(
        "the content is {similarity:.2} similar to the existing memory `{existing}`; nothing was written"
    )]
    Duplicate {
        /// The existing memory.
        existing: String,
        /// How similar (cosine of the embeddings).
        similarity: f32,
    },
    /// An operation that needs content got none.
    #[error("no content to {what}")]
    NoContent {
        /// The operation.
        what: &'static str,
    },
    /// A deleted memory cannot come back under its name: another memory has it now.
    #[error("a memory named `{0}` already exists; nothing was restored")]
    RestoreTaken(String),
    /// A rewrite would change frontmatter it was not asked to change (a hand-written file whose
    /// YAML memlane cannot edit in place).
    #[error("cannot change `{name}`: {problem}; nothing was written")]
    CannotRewrite {
        /// The memory.
        name: String,
        /// Why.
        problem: String,
    },
    /// A path given for a memory that is not inside the vault.
    #[error("`{input}` is outside the vault {}", .vault.display())]
    PathOutsideVault {
        /// What was given.
        input: String,
        /// The vault.
        vault: PathBuf,
    },
    /// Content that redaction leaves empty, where something must be written.
    #[error("{what} is empty after redaction; nothing was changed")]
    EmptyAfterRedaction {
        /// Which content.
        what: String,
    },
    /// A raw update without the new file.
    #[error("a raw update needs the whole new file as content")]
    RawWithoutContent,
    /// Every name a generated name could take is used.
    #[error("no free name starting with `{0}`")]
    NoFreeName(String),
    /// An unknown link type.
    #[error("{0}")]
    UnknownEdgeType(String),
    /// A memory linked to itself.
    #[error("`{0}` cannot link to itself")]
    SelfLink(String),
    /// No frontmatter link to remove.
    #[error("`{from}` has no frontmatter link to `{to}`{}", .edge_type.as_ref().map(|t| format!(" of type {t}")).unwrap_or_default())]
    NoSuchLink {
        /// The memory the link would start at.
        from: String,
        /// The target asked for.
        to: String,
        /// The type asked for.
        edge_type: Option<String>,
    },
    /// A time that does not parse.
    #[error("{field} is not a date or time")]
    BadTime {
        /// Which input (`after`, `before` …).
        field: &'static str,
        /// What was given (kept out of the message: it may be content).
        value: String,
    },
    /// A duration that does not parse, or is negative.
    #[error("{field} is not a duration")]
    BadDuration {
        /// Which input (`since`, `relative_days`).
        field: &'static str,
        /// What was given.
        value: String,
    },
    /// A time window with nothing in it.
    #[error("after {after} is not before {before}; the range is empty")]
    EmptyWindow {
        /// The start.
        after: String,
        /// The end.
        before: String,
    },
    /// The editor failed.
    #[error("the editor `{editor}` {problem}")]
    Editor {
        /// The editor command.
        editor: String,
        /// What went wrong.
        problem: String,
    },
}

impl From<NameError> for Error {
    fn from(e: NameError) -> Error {
        Error::Name(e)
    }
}

/// What kind of failure an error is: the `kind` of a `--json` error and of an MCP tool error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// A memory, vault, version, trash entry or link that does not exist.
    NotFound,
    /// A name that is taken.
    Exists,
    /// Content nearly the same as an existing memory's.
    Duplicate,
    /// A file with unresolved git merge-conflict markers.
    Conflict,
    /// Input that is not acceptable (a bad name, type, time, value).
    Invalid,
    /// A file memlane will not read or write (outside the vault, past the limits).
    Refused,
    /// The configuration is wrong.
    Config,
    /// A file could not be read or written.
    Io,
    /// The indices, the usage state, the watcher or the editor failed.
    Internal,
    /// The embedding model cannot be loaded, or failed to embed.
    Model,
}

impl ErrorKind {
    /// The kind's name, as in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::NotFound => "not_found",
            ErrorKind::Exists => "exists",
            ErrorKind::Duplicate => "duplicate",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Invalid => "invalid",
            ErrorKind::Refused => "refused",
            ErrorKind::Config => "config",
            ErrorKind::Io => "io",
            ErrorKind::Internal => "internal",
            ErrorKind::Model => "model",
        }
    }
}

/// `did you mean `a`, `b`?` for close names that do exist, or `None` when there are none: the
/// suggestion every front end gives for [`Error::NotFound`].
pub fn did_you_mean(suggestions: &[String]) -> Option<String> {
    if suggestions.is_empty() {
        return None;
    }
    let quoted: Vec<String> = suggestions.iter().map(|s| format!("`{s}`")).collect();
    Some(format!("did you mean {}?", quoted.join(", ")))
}

impl Error {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        use ErrorKind as K;
        match self {
            Error::NotFound { .. }
            | Error::NoVault(_)
            | Error::VaultMissing(_)
            | Error::NoSuchVersion { .. }
            | Error::NotInTrash(_)
            | Error::NoSuchLink { .. } => K::NotFound,
            Error::Exists(_)
            | Error::NoFreeName(_)
            | Error::PiecesExist { .. }
            | Error::RestoreTaken(_) => K::Exists,
            Error::MergeConflict { .. } => K::Conflict,
            Error::Duplicate { .. } => K::Duplicate,
            Error::Name(_)
            | Error::UnknownType { .. }
            | Error::Frontmatter { .. }
            | Error::Invalid(_)
            | Error::NoContent { .. }
            | Error::CannotRewrite { .. }
            | Error::EmptyAfterRedaction { .. }
            | Error::RawWithoutContent
            | Error::UnknownEdgeType(_)
            | Error::SelfLink(_)
            | Error::BadTime { .. }
            | Error::BadDuration { .. }
            | Error::EmptyWindow { .. } => K::Invalid,
            Error::OverLimit { .. }
            | Error::OutsideVault(_)
            | Error::LinkOutsideVault(_)
            | Error::PathOutsideVault { .. } => K::Refused,
            Error::Config(_) => K::Config,
            Error::Io(_) => K::Io,
            Error::Model { .. } | Error::Embed(_) => K::Model,
            Error::Index(_) | Error::Lifecycle(_) | Error::Watch(_) | Error::Editor { .. } => {
                K::Internal
            }
        }
    }

    /// Whether this is the user's input or a missing thing (exit code 2) rather than a failure
    /// of the machine (exit code 1).
    pub fn is_usage(&self) -> bool {
        !matches!(
            self,
            Error::Io(_)
                | Error::Editor { .. }
                | Error::Embed(_)
                | Error::Index(_)
                | Error::Lifecycle(_)
                | Error::Watch(_)
        )
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
