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
        "cannot load the embedding model at {} (fix or re-import it with `memlane model import DIR`, or set `[embedding] model = \"builtin\"`)",
        .path.display()
    )]
    Model {
        /// The model directory.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        source: Box<crate::index::minilm::ModelError>,
    },
    /// The usage state failed.
    #[error(transparent)]
    Lifecycle(#[from] crate::lifecycle::LifecycleError),
    /// The filesystem watcher failed.
    #[error(transparent)]
    Watch(#[from] crate::watch::WatchError),
    /// No vault was found.
    #[error(
        "no memlane vault found in {} or any parent folder\n  hint: run `memlane init` to create `.memories/` here, or pass `--vault PATH` / set MEMLANE_VAULT",
        .0.display()
    )]
    NoVault(PathBuf),
    /// A vault path given explicitly does not exist.
    #[error("the vault {} does not exist\n  hint: run `memlane init` with the same --vault / MEMLANE_VAULT to create it", .0.display())]
    VaultMissing(PathBuf),
    /// A bad memory name.
    #[error("invalid memory name: {0}")]
    Name(NameError),
    /// The memory does not exist.
    #[error("no memory named `{name}`{}", hint_list("did you mean", .suggestions))]
    NotFound {
        /// What the user asked for.
        name: String,
        /// Close names that do exist.
        suggestions: Vec<String>,
    },
    /// The target name is taken.
    #[error(
        "a memory named `{0}` already exists\n  hint: choose another name, or use `memlane update {0}` to change it"
    )]
    Exists(String),
    /// An unknown memory type.
    #[error("unknown memory type `{ty}`\n  hint: known types are {}; add one under [types.{ty}] in .memories/config.toml", .known.join(", "))]
    UnknownType {
        /// The type asked for.
        ty: String,
        /// The configured types.
        known: Vec<String>,
    },
    /// Frontmatter given in a write does not parse.
    #[error(
        "invalid frontmatter in {what}: {problem}\n  hint: fix the YAML between the `---` lines; nothing was written"
    )]
    Frontmatter {
        /// Which input (a name or a path).
        what: String,
        /// The parse problem.
        problem: FrontmatterError,
    },
    /// A memory file past memlane's parsing limits: it is skipped, not read.
    #[error(
        "{} is skipped: {problem}\n  hint: shorten its frontmatter (between the `---` lines) or move the file out of the vault",
        .path.display()
    )]
    OverLimit {
        /// The file.
        path: PathBuf,
        /// Which limit.
        problem: FrontmatterError,
    },
    /// Input the user gave is not acceptable (bad time range, empty content …).
    #[error("{0}")]
    Invalid(String),
    /// A write would leave the vault (through a symlink).
    #[error("refusing to write {}: it resolves outside the vault (through a symbolic link)", .0.display())]
    OutsideVault(PathBuf),
    /// A read through a symbolic link that leaves the vault's memories.
    #[error(
        "refusing to read `{0}`: it is a symbolic link that resolves outside the vault's memories\n  hint: memlane never reads outside `.memories/`; copy the file into the vault if you want it as a memory (`memlane doctor` lists such links)"
    )]
    LinkOutsideVault(String),
    /// A version number that is not in the history.
    #[error("`{name}` has no version {version}{}", if *.available == 0 { " (it has no history yet)".to_owned() } else { format!(" (versions 1 to {})\n  hint: `memlane history {}` lists them", .available, .name) })]
    NoSuchVersion {
        /// The memory.
        name: String,
        /// The version asked for.
        version: usize,
        /// How many versions exist.
        available: usize,
    },
    /// No trash entry matched.
    #[error("nothing in the trash matches `{0}`\n  hint: `memlane trash list` shows the entries")]
    NotInTrash(String),
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

fn hint_list(lead: &str, items: &[String]) -> String {
    if items.is_empty() {
        "\n  hint: `memlane list` shows every memory".to_owned()
    } else {
        let quoted: Vec<String> = items.iter().map(|s| format!("`{s}`")).collect();
        format!("\n  hint: {lead} {}?", quoted.join(", "))
    }
}

impl Error {
    /// Whether this is the user's input or a missing thing (exit code 2) rather than a failure
    /// of the machine (exit code 1).
    pub fn is_usage(&self) -> bool {
        !matches!(
            self,
            Error::Io(_)
                | Error::Editor { .. }
                | Error::Index(_)
                | Error::Lifecycle(_)
                | Error::Watch(_)
        )
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
