//! Error types shared by the library.
//!
//! Every IO error carries its path ([`PathError`]); every user-facing error says what was wrong,
//! with the data as fields. How to fix it is said at the edge, in each front end's words: the
//! CLI's hints (`memlane …`) are in `src/cli/hints.rs`, the MCP server's (tool names) in
//! `src/mcp/hints.rs`; no message here names a command or a tool (a hint that names neither is
//! [`Error::neutral_hint`], which both fall back to). Each error has one [`ErrorKind`]
//! ([`Error::kind`]), and the kind alone decides the CLI's exit code ([`ErrorKind::exit_code`]).

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

/// The message of `err` and of each of its causes, `a: b: c`, in words a user understands.
///
/// The search library's errors quote Rust debug structures in their messages
/// (`IoError { io_error: Os { code: 13, kind: PermissionDenied, … } }`): they are described by
/// [`describe_tantivy`] instead, which already says their cause. A cause whose text is already
/// in the message is not repeated. Every front end renders errors through this.
pub fn chain_text(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = String::new();
    let mut cur = Some(err);
    while let Some(e) = cur {
        let (part, last) = match describe_library_error(e) {
            Some(words) => (words, true),
            None => (e.to_string(), false),
        };
        if !part.is_empty() && !text.contains(&part) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&part);
        }
        if last {
            break;
        }
        cur = e.source();
    }
    text
}

/// Words for an error of the search library (it and its causes), `None` for any other error.
fn describe_library_error(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    use tantivy::directory::error::{LockError, OpenDirectoryError, OpenReadError, OpenWriteError};
    if let Some(t) = e.downcast_ref::<tantivy::TantivyError>() {
        return Some(describe_tantivy(t));
    }
    if let Some(d) = e.downcast_ref::<OpenDirectoryError>() {
        return Some(describe_open_dir(d));
    }
    if let Some(r) = e.downcast_ref::<OpenReadError>() {
        return Some(describe_open_read(r));
    }
    if let Some(w) = e.downcast_ref::<OpenWriteError>() {
        return Some(describe_open_write(w));
    }
    e.downcast_ref::<LockError>().map(describe_lock)
}

/// A search-library (tantivy) error in words, without the Rust debug text its own message
/// carries.
pub fn describe_tantivy(e: &tantivy::TantivyError) -> String {
    use tantivy::TantivyError as T;
    match e {
        T::OpenDirectoryError(d) => describe_open_dir(d),
        T::OpenReadError(r) => describe_open_read(r),
        T::OpenWriteError(w) => describe_open_write(w),
        T::LockFailure(l, _) => describe_lock(l),
        T::IoError(io) => describe_io(io),
        T::DataCorruption(_) => "the index files are damaged".into(),
        T::IncompatibleIndex(_) => {
            "the index files are in a format this version cannot read".into()
        }
        T::IndexAlreadyExists => "an index already exists there".into(),
        T::Poisoned => "a thread of the search library failed".into(),
        other => other.to_string(),
    }
}

fn describe_open_dir(e: &tantivy::directory::error::OpenDirectoryError) -> String {
    use tantivy::directory::error::OpenDirectoryError as D;
    match e {
        D::DoesNotExist(p) => format!("the folder {} does not exist", p.display()),
        D::NotADirectory(p) => format!("{} is not a folder", p.display()),
        D::FailedToCreateTempDir(io) => {
            format!("cannot create a temporary folder: {}", describe_io(io))
        }
        D::IoError { io_error, directory_path } => {
            format!(
                "cannot open the folder {}: {}",
                directory_path.display(),
                describe_io(io_error)
            )
        }
    }
}

fn describe_open_read(e: &tantivy::directory::error::OpenReadError) -> String {
    use tantivy::directory::error::OpenReadError as R;
    match e {
        R::FileDoesNotExist(p) => format!("the index file {} does not exist", p.display()),
        R::IoError { io_error, filepath } => {
            format!("cannot read the index file {}: {}", filepath.display(), describe_io(io_error))
        }
        R::IncompatibleIndex(_) => {
            "the index files are in a format this version cannot read".into()
        }
    }
}

fn describe_open_write(e: &tantivy::directory::error::OpenWriteError) -> String {
    use tantivy::directory::error::OpenWriteError as W;
    match e {
        W::FileAlreadyExists(p) => format!("the index file {} already exists", p.display()),
        W::IoError { io_error, filepath } => {
            format!("cannot write the index file {}: {}", filepath.display(), describe_io(io_error))
        }
    }
}

fn describe_lock(e: &tantivy::directory::error::LockError) -> String {
    use tantivy::directory::error::LockError as L;
    match e {
        L::LockBusy => "the index is locked by another writer".into(),
        L::IoError(io) => format!("cannot take the index lock: {}", describe_io(io)),
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
    /// `model distill` without `--from` and no installed model to distil from.
    #[error(
        "no sentence-transformer model to distil from: pass `--from DIR`, or install one with `memlane model pull`"
    )]
    NoModelToDistill,
    /// There is no user data directory to keep models in (no home directory).
    #[error("cannot find the user data directory for models")]
    NoModelDir,
    /// A model pull from the Hugging Face Hub failed (a bad name is the caller's input; the rest
    /// is the network's).
    #[error(transparent)]
    Hub(#[from] crate::index::hub::HubError),
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
    /// Running `git` failed (the merge driver, its registration).
    #[error(transparent)]
    Git(#[from] crate::gitmerge::GitError),
    /// A client config file `setup` cannot edit.
    #[error(transparent)]
    Setup(#[from] crate::setup::SetupError),
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
    /// A count, depth or budget outside what memlane accepts ([`crate::limits`]).
    #[error("{what} must be between {min} and {max} (got {value})")]
    LimitExceeded {
        /// The parameter, as the caller spells it (`--limit`, `limit`).
        what: String,
        /// The smallest value accepted.
        min: usize,
        /// The largest value accepted.
        max: usize,
        /// What was given.
        value: usize,
    },
    /// More names in one call than it reads.
    #[error("{given} names asked for; read at most {max} per call")]
    TooManyNames {
        /// How many were given.
        given: usize,
        /// The most one call reads.
        max: usize,
    },
    /// A threshold or temperature outside 0..=1.
    #[error("{what} {value} is not between 0 and 1")]
    NotAFraction {
        /// Which input (`threshold`, `temperature`).
        what: &'static str,
        /// What was given.
        value: f64,
    },
    /// A word that is not one of the accepted ones (an intent, a profile, a status). The message
    /// does not repeat what was given: a front end may have been handed memory content by mistake.
    #[error("unknown {what}: use {}", or_list(.allowed))]
    UnknownChoice {
        /// Which input (`intent`, `profile`, `status`).
        what: &'static str,
        /// The accepted words.
        allowed: &'static [&'static str],
    },
    /// A status that is not `active` or `archived`, in a write. The message does not repeat the
    /// value: it may come from a hand-written file, and a value of a memory is never quoted.
    #[error("{}`status` must be active or archived; nothing was written", .name.as_ref().map(|n| format!("{n}: ")).unwrap_or_default())]
    UnknownStatus {
        /// The memory, when the status came from its file.
        name: Option<String>,
    },
    /// Two inputs that exclude each other were both given.
    #[error("give {first} or {second}, not both")]
    Exclusive {
        /// One input.
        first: &'static str,
        /// The other.
        second: &'static str,
    },
    /// A restore of an old version under a new name.
    #[error("as_name restores a deleted memory; it cannot be combined with version")]
    RenameWithVersion,
    /// A tag with a control character in it.
    #[error("tag {0:?} contains a control character")]
    TagControlChar(String),
    /// There is no home directory to put the per-user vault in.
    #[error("cannot find a home directory for the per-user vault")]
    NoHomeVault,
    /// A file that is not UTF-8 text.
    #[error("{} is not UTF-8 text", .0.display())]
    NotUtf8(PathBuf),
    /// A file memlane was about to write would not read back cleanly.
    #[error("{name}: {problem}; nothing was written")]
    WouldNotReadBack {
        /// The memory.
        name: String,
        /// What reading it back would warn about.
        problem: String,
    },
    /// A memory changed on disk between being read and being written.
    #[error("{name} changed on disk while memlane was {doing} it; nothing was changed")]
    ChangedOnDisk {
        /// The memory.
        name: String,
        /// What memlane was doing (`updating`, `merging`, `splitting`).
        doing: &'static str,
    },
    /// A raw update that changes the memory's id.
    #[error("the new file changes `id` from {from} to {to}; ids are stable")]
    IdChanged {
        /// The memory.
        name: String,
        /// Its id.
        from: String,
        /// The id in the new file.
        to: String,
    },
    /// Frontmatter that is not valid YAML once a secret in it is redacted.
    #[error("the frontmatter held a secret and is not valid YAML once redacted: {problem}")]
    RedactedYaml {
        /// The YAML error.
        problem: String,
    },
    /// A new name that holds private text or a credential (a name becomes a file name).
    #[error(
        "the name `{redacted}` holds private text or a credential; a name becomes a file name, so nothing was written"
    )]
    PrivateName {
        /// The name with the private part redacted.
        redacted: String,
    },
    /// A new link target that holds private text or a credential (it would reach the graph).
    #[error(
        "the link target `{redacted}` holds private text or a credential; a link target reaches the graph and every listing of links, so nothing was written"
    )]
    PrivateLinkTarget {
        /// The target with the private part redacted.
        redacted: String,
    },
    /// A new name that lands in a reserved folder on a case-insensitive file system.
    #[error(
        "`{name}` would land in memlane's reserved folder `{dir}/` on macOS and Windows, which treat `{first}` and `{dir}` as one name; nothing was written"
    )]
    ReservedFolder {
        /// The name given.
        name: String,
        /// The reserved folder.
        dir: String,
        /// The first part of the name.
        first: String,
    },
    /// A new name that differs from an existing one only in letter case or Unicode form.
    #[error(
        "`{name}` {} the existing {} `{existing}` {}; nothing was written",
        if *.accents_only { "is" } else { "differs from" },
        if *.folder { "folder" } else { "memory" },
        if *.accents_only {
            "with its accents encoded differently (Unicode NFC/NFD); macOS and Windows treat them as one name, so one would be lost on checkout"
        } else {
            "only in letter case or Unicode form; macOS and Windows treat them as one name, so one would be lost on checkout"
        }
    )]
    NameCollision {
        /// The name given.
        name: String,
        /// The existing memory or folder (a folder ends in `/`).
        existing: String,
        /// Whether the existing one is a folder.
        folder: bool,
        /// Whether only the Unicode composition differs (NFC/NFD).
        accents_only: bool,
    },
    /// Two memory files carry the same id.
    #[error(
        "`{name}` and `{other}` have the same id {id} ({} and {}; one is a copy of the other); nothing was changed, so that their histories never mix",
        .path.display(), .other_path.display()
    )]
    SameId {
        /// The memory.
        name: String,
        /// The other memory.
        other: String,
        /// The id.
        id: String,
        /// The memory's file.
        path: PathBuf,
        /// The other memory's file.
        other_path: PathBuf,
    },
    /// A split of a memory with fewer than two top-level sections.
    #[error(
        "`{name}` has {sections} top-level section{}; a split needs at least two; nothing was written",
        if *.sections == 1 { "" } else { "s" }
    )]
    TooFewSections {
        /// The memory.
        name: String,
        /// How many sections it has.
        sections: usize,
    },
    /// A split given fewer than two pieces.
    #[error("a split of `{name}` needs at least two pieces, got {given}; nothing was written")]
    TooFewPieces {
        /// The memory.
        name: String,
        /// How many pieces were given.
        given: usize,
    },
    /// A split piece that redaction leaves empty.
    #[error("the piece `{piece}` of `{name}` is empty after redaction; nothing was written")]
    EmptyPiece {
        /// The memory being split.
        name: String,
        /// The piece.
        piece: String,
    },
    /// A split piece or a merge target the write skipped.
    #[error(
        "{}`{name}` was not written ({reason}); nothing {} changed",
        if *.piece { "the piece " } else { "" },
        if *.piece { "was" } else { "else was" }
    )]
    NotWritten {
        /// The piece or target.
        name: String,
        /// Why the write skipped it.
        reason: String,
        /// Whether it is a split piece (else a merge target).
        piece: bool,
    },
    /// A merge of fewer than two memories.
    #[error("a merge needs at least two sources ({given} given); nothing was changed")]
    TooFewSources {
        /// How many were given.
        given: usize,
        /// The merge target.
        target: String,
    },
    /// A merge that names one source twice.
    #[error("`{0}` is listed twice among the sources; nothing was changed")]
    ListedTwice(String),
    /// Another process held the vault's write lock too long.
    #[error(
        "cannot lock {}: another memlane process has held it for over {secs} s; nothing was written",
        .path.display()
    )]
    VaultLocked {
        /// The lock file.
        path: PathBuf,
        /// How long memlane waited.
        secs: u64,
    },
    /// A result that cannot be encoded as JSON.
    #[error("cannot encode {what}: {problem}")]
    Encode {
        /// What was encoded.
        what: &'static str,
        /// The serde error.
        problem: String,
    },
    /// The MCP server failed.
    #[error("{what}: {problem}")]
    Server {
        /// What failed (`MCP handshake failed` …).
        what: &'static str,
        /// Why.
        problem: String,
    },
    /// One of memlane's own folders in the vault (`.trash`, `.history`, `indices`, `state`) is a
    /// symbolic link or not a folder: memlane never follows it.
    #[error(
        "`{folder}` is {}; memlane keeps {purpose} there and never follows links out of the vault",
        if *.link { "a symbolic link" } else { "not a folder" }
    )]
    UnsafeFolder {
        /// The folder as the user sees it (`.memories/.history`).
        folder: String,
        /// Its full path.
        path: PathBuf,
        /// Whether it is a symbolic link (else a file or something else that is not a folder).
        link: bool,
        /// What memlane keeps there (`its history`).
        purpose: &'static str,
    },
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
        problem: FrontmatterError,
    },
    /// A `.memories` found by walking up from the current folder that is a symbolic link to a
    /// folder outside the project folder holding it (a repository cannot point memlane at
    /// another folder of the user's).
    #[error(
        "{} is a symbolic link to {}, outside the folder that holds it; memlane does not follow a vault link found in a project",
        .link.display(),
        .target.display()
    )]
    VaultLinkOutside {
        /// The link (`…/.memories`).
        link: PathBuf,
        /// Where it leads.
        target: PathBuf,
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
    #[error(transparent)]
    UnknownEdgeType(crate::model::links::LinkError),
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

/// Declares [`ErrorKind`] once, one row per kind: its rustdoc, `Variant = "json_name"`, its exit
/// code and what happened (the README's table). `ALL`, `as_str`, `exit_code` and `description`
/// are generated from the rows, so no list of kinds can miss one.
macro_rules! error_kinds {
    ($(
        $(#[doc = $doc:literal])+
        $variant:ident = $name:literal, exit $code:literal, $what:literal;
    )+) => {
        /// What kind of failure an error is: the `kind` of a `--json` error and of an MCP tool
        /// error, and what decides the command line's exit code.
        ///
        /// Every [`Error`] variant maps to one kind ([`Error::kind`]), and every kind to one exit
        /// code ([`ErrorKind::exit_code`]); [`ErrorKind::ALL`] lists the kinds with
        /// [`ErrorKind::description`], for a reference page of exit codes.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
        #[serde(rename_all = "snake_case")]
        pub enum ErrorKind {
            $($(#[doc = $doc])+ $variant,)+
        }

        impl ErrorKind {
            /// Every kind, in the order of the README's table (the caller's kinds first, exit
            /// code 2, then the machine's, exit code 1).
            pub const ALL: &'static [ErrorKind] = &[$(ErrorKind::$variant),+];

            /// The kind's name, as in JSON.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorKind::$variant => $name,)+
                }
            }

            /// The command line's exit code for an error of this kind: 2 for the caller's
            /// ([`ErrorKind::is_usage`]), 1 for the machine's. `0` is success.
            pub const fn exit_code(self) -> u8 {
                match self {
                    $(ErrorKind::$variant => $code,)+
                }
            }

            /// What happened, in one line for a reference page (the README's table of kinds).
            pub const fn description(self) -> &'static str {
                match self {
                    $(ErrorKind::$variant => $what,)+
                }
            }
        }
    };
}

error_kinds! {
    /// A memory, vault, version, trash entry or link that does not exist.
    NotFound = "not_found", exit 2,
        "no such memory, vault, history version, trash entry or link";
    /// A name that is taken.
    Exists = "exists", exit 2, "the name is taken";
    /// A file with unresolved git merge-conflict markers.
    Conflict = "conflict", exit 2,
        "the memory file holds unresolved git merge-conflict markers";
    /// Content nearly the same as an existing memory's.
    Duplicate = "duplicate", exit 2,
        "the content is nearly the same as an existing memory's (`--force` adds it anyway)";
    /// Input that is not acceptable (a bad name, type, time, value).
    Invalid = "invalid", exit 2,
        "bad input: a name, type, time, duration, value, or missing content";
    /// A file memlane will not read or write (outside the vault, past the limits).
    Refused = "refused", exit 2,
        "a file memlane will not read or write (outside the vault, past the parsing limits)";
    /// The configuration is wrong.
    Config = "config", exit 2, "the configuration is wrong";
    /// The command line does not parse (an unknown flag, a missing argument): only the CLI
    /// reports it, as clap finds it; no library error is of this kind.
    Usage = "usage", exit 2, "the command line does not parse (unknown flag, missing argument)";
    /// A file could not be read or written.
    Io = "io", exit 1, "a file could not be read or written (disk full, permissions)";
    /// The embedding model cannot be loaded, or failed to embed.
    Model = "model", exit 1, "the embedding model cannot be loaded, or failed to embed a text";
    /// The indices, the usage state, the watcher or the editor failed.
    Internal = "internal", exit 1,
        "the indices, the usage state, the watcher or the editor failed";
}

impl ErrorKind {
    /// Whether the caller can fix it (its input, or a thing it named that is missing) rather
    /// than a failure of the machine, the files or the model: exit code 2.
    pub const fn is_usage(self) -> bool {
        self.exit_code() == 2
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `a, b or c`.
fn or_list(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
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
    /// What kind of failure this is, which also decides the exit code
    /// ([`ErrorKind::exit_code`]). Every variant is named here once, so a new one must choose.
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
            | Error::LimitExceeded { .. }
            | Error::TooManyNames { .. }
            | Error::NotAFraction { .. }
            | Error::UnknownChoice { .. }
            | Error::UnknownStatus { .. }
            | Error::Exclusive { .. }
            | Error::RenameWithVersion
            | Error::TagControlChar(_)
            | Error::NoHomeVault
            | Error::NotUtf8(_)
            | Error::WouldNotReadBack { .. }
            | Error::ChangedOnDisk { .. }
            | Error::IdChanged { .. }
            | Error::RedactedYaml { .. }
            | Error::PrivateName { .. }
            | Error::PrivateLinkTarget { .. }
            | Error::ReservedFolder { .. }
            | Error::NameCollision { .. }
            | Error::SameId { .. }
            | Error::TooFewSections { .. }
            | Error::TooFewPieces { .. }
            | Error::EmptyPiece { .. }
            | Error::NotWritten { .. }
            | Error::TooFewSources { .. }
            | Error::ListedTwice(_)
            | Error::NoContent { .. }
            | Error::CannotRewrite { .. }
            | Error::EmptyAfterRedaction { .. }
            | Error::RawWithoutContent
            | Error::UnknownEdgeType(_)
            | Error::SelfLink(_)
            | Error::BadTime { .. }
            | Error::BadDuration { .. }
            | Error::EmptyWindow { .. }
            | Error::Setup(_)
            | Error::NoModelDir
            | Error::NoModelToDistill
            | Error::Hub(crate::index::hub::HubError::BadName(_)) => K::Invalid,
            Error::OverLimit { .. }
            | Error::OutsideVault(_)
            | Error::UnsafeFolder { .. }
            | Error::VaultLinkOutside { .. }
            | Error::LinkOutsideVault(_)
            | Error::PathOutsideVault { .. } => K::Refused,
            Error::Config(_) => K::Config,
            Error::Io(_) | Error::VaultLocked { .. } | Error::Git(_) => K::Io,
            Error::Model { .. } | Error::Embed(_) => K::Model,
            Error::Index(_)
            | Error::Lifecycle(_)
            | Error::Watch(_)
            | Error::Editor { .. }
            | Error::Encode { .. }
            | Error::Server { .. }
            | Error::Hub(_) => K::Internal,
        }
    }

    /// A hint that names no command and no tool, so every front end gives it as it is (`choose
    /// another name`). A front end's own hints (`src/cli/hints.rs`, `mcp::hints`) come first; this
    /// is what they fall back to.
    pub fn neutral_hint(&self) -> Option<String> {
        Some(match self {
            Error::NotAFraction { .. } => "use a number from 0 to 1, such as 0.8".into(),
            Error::VaultLinkOutside { target, .. } => format!(
                "to use that folder as the vault on purpose, pass `--vault {}` (or set MEMLANE_VAULT)",
                target.display()
            ),
            Error::UnsafeFolder { path, link: true, .. } => {
                format!("remove the link (`rm {}`) and run the command again", path.display())
            }
            Error::UnsafeFolder { path, link: false, .. } => format!(
                "move it out of the way (`mv {0} {0}.old`) and run the command again",
                path.display()
            ),
            Error::IdChanged { from, .. } => format!("keep `id: {from}` or remove the line"),
            Error::PrivateName { .. } => "choose a name without it".into(),
            Error::PrivateLinkTarget { .. } => "link to a target without it".into(),
            Error::ReservedFolder { .. } => "choose another folder name".into(),
            Error::NameCollision { existing, .. } => {
                format!("use `{existing}`, or choose another name")
            }
            Error::ListedTwice(_) => "name each memory once".into(),
            Error::Watch(crate::watch::WatchError::Start { .. }) => {
                "on Linux, raise fs.inotify.max_user_watches or max_user_instances".into()
            }
            _ => return None,
        })
    }

    /// Whether this is the caller's input or a missing thing rather than a failure of the
    /// machine: [`ErrorKind::is_usage`] of its [`kind`](Error::kind).
    pub fn is_usage(&self) -> bool {
        self.kind().is_usage()
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::{Error, ErrorKind};

    #[test]
    fn each_kind_is_named_in_json_as_declared_and_its_exit_code_follows_from_it() {
        let mut names: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.as_str()).collect();
        for k in ErrorKind::ALL {
            assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
            assert!(matches!(k.exit_code(), 1 | 2), "{k}");
            assert!(!k.description().is_empty(), "{k}");
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ErrorKind::ALL.len(), "a kind is listed twice");
        // A model that cannot be loaded is the machine's failure, as the README documents.
        let model = Error::Model {
            path: "/nowhere".into(),
            source: Box::new(crate::index::minilm::ModelError::MissingDir("/nowhere".into())),
        };
        assert_eq!((model.kind(), model.kind().exit_code()), (ErrorKind::Model, 1));
        let missing = Error::NotFound { name: "x".into(), suggestions: vec![] };
        assert_eq!((missing.kind(), missing.kind().exit_code()), (ErrorKind::NotFound, 2));
    }
}
