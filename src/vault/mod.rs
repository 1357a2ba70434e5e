//! The vault: `.memories/` on disk, the source of truth.
//!
//! Owns discovery (walk up like git, `--vault`, `MEMLANE_VAULT`, the per-user vault), `init`, and
//! every read and write of memory files. It never touches the derived indices.

mod folders;
mod intent;
mod scan;
mod signing;
mod temp;
mod write;

use std::path::{Path, PathBuf};

use jiff::Timestamp;

use crate::config::Config;
use crate::error::{Error, IoResultExt};

pub use folders::{INTERNAL_FOLDERS, folder_problems};
pub use intent::{
    INTENTS_DIR, IntentReport, ROLLBACK_ACTION, UntrustedIntent, remove_command, shown_path,
};
pub use scan::{
    BODY_CONFLICT, EscapingLink, FileStat, KEY_CONFLICT, ListFilter, ListSort, Memory, PathState,
    ScanProblem, Unreachable, UnreachableWhy, mtime_ns,
};
pub use temp::TEMP_STALE_AFTER;
pub use write::{
    AddRequest, HistoryEntry, TrashEntry, UpdateRequest, WriteOutcome, WriteStatus, atomic_write,
};

/// The name of the vault folder inside a project.
pub const VAULT_DIR: &str = ".memories";

/// The `.gitignore` written by `init`: what git tracks in `.memories/`, and why.
///
/// The memory files and `config.toml` are the source of truth and are committed; the indices and
/// usage state are derived or per-user; `.history/` and `.trash/` are each person's local safety
/// net (every edit and delete would otherwise show up in `git status`). A team that wants them
/// shared re-includes them with `!.history/` and `!.trash/`.
pub const GITIGNORE: &str = "\
# memlane: what git tracks in .memories/
# Commit the memory files (*.md) and config.toml: they are the source of truth.
# indices/ and state/ are derived from them or per-user (search indices, usage
# counts, locks); memlane rebuilds them, so they stay out of git.
indices/
state/
# .history/ (earlier versions of edited memories) and .trash/ (deleted memories)
# are a local safety net: `memlane history`, `memlane restore`, `memlane trash`.
# To share them with your team, uncomment the two `!` lines below and commit.
.history/
.trash/
# !.history/
# !.trash/
# temp files of writes in progress (a killed writer's are removed by the next one)
.*.tmp
";

/// The folders every vault's `.gitignore` should mention (ignored, or re-included on purpose).
const GITIGNORED: &[&str] = &["indices/", "state/", ".history/", ".trash/"];

/// The clock memlane reads "now" from: the system clock, or a pinned instant (`--now`,
/// `MEMLANE_NOW`) so results and files are reproducible.
#[derive(Debug, Clone, Copy, Default)]
pub struct Clock {
    pinned: Option<Timestamp>,
}

impl Clock {
    /// The system clock.
    pub fn system() -> Clock {
        Clock { pinned: None }
    }

    /// A clock stuck at `now`.
    pub fn pinned(now: Timestamp) -> Clock {
        Clock { pinned: Some(now) }
    }

    /// The current instant.
    pub fn now(&self) -> Timestamp {
        self.pinned.unwrap_or_else(Timestamp::now)
    }
}

/// What is wrong with a vault's `.gitignore` (see [`Vault::gitignore_advice`]). It reads as the
/// problem; each front end says how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitignoreAdvice {
    /// There is no `.gitignore`.
    Missing {
        /// Where it should be.
        path: PathBuf,
    },
    /// It does not mention some of the folders memlane keeps out of git.
    Unmentioned {
        /// The file.
        path: PathBuf,
        /// The folders it does not mention (`.history/` …).
        missing: Vec<&'static str>,
    },
}

impl std::fmt::Display for GitignoreAdvice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GitignoreAdvice::Missing { path } => write!(
                f,
                "{} is missing, so git would track the derived indices, usage state, history and trash",
                path.display()
            ),
            GitignoreAdvice::Unmentioned { path, missing } => write!(
                f,
                "{} does not mention {}, so git would track {}",
                path.display(),
                missing.join(", "),
                if missing.len() == 1 { "its files" } else { "their files" },
            ),
        }
    }
}

/// Where to look for a vault.
#[derive(Debug, Clone)]
pub enum Location {
    /// An explicit path (`--vault`, `MEMLANE_VAULT`): the `.memories` folder itself, or a folder
    /// that contains one.
    Explicit(PathBuf),
    /// Walk up from this directory to the first `.memories/`.
    Discover(PathBuf),
    /// The per-user vault (`storage_strategy = "user"`).
    User,
}

/// The per-user vault folder in the platform data dir.
pub fn user_vault_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "memlane").map(|d| d.data_dir().join("vault"))
}

/// Finds the vault root for `loc` without opening it.
pub fn locate(loc: &Location) -> crate::Result<PathBuf> {
    match loc {
        Location::Explicit(p) => {
            let nested = p.join(VAULT_DIR);
            if nested.is_dir() {
                Ok(nested)
            } else if p.is_dir() {
                Ok(p.clone())
            } else {
                Err(Error::VaultMissing(p.clone()))
            }
        }
        Location::Discover(start) => {
            let mut dir = Some(start.as_path());
            while let Some(d) = dir {
                let candidate = d.join(VAULT_DIR);
                if candidate.is_dir() {
                    check_vault_link(d, &candidate)?;
                    return Ok(candidate);
                }
                dir = d.parent();
            }
            Err(Error::NoVault(start.clone()))
        }
        Location::User => {
            let dir = user_vault_dir().ok_or(Error::NoHomeVault)?;
            if dir.is_dir() { Ok(dir) } else { Err(Error::VaultMissing(dir)) }
        }
    }
}

/// Where `init` creates the vault for `loc`.
pub fn init_target(loc: &Location) -> crate::Result<PathBuf> {
    match loc {
        Location::Explicit(p) => {
            let nested = p.join(VAULT_DIR);
            Ok(if nested.is_dir() { nested } else { p.clone() })
        }
        Location::Discover(start) => {
            let candidate = start.join(VAULT_DIR);
            check_vault_link(start, &candidate)?;
            Ok(candidate)
        }
        Location::User => user_vault_dir().ok_or(Error::NoHomeVault),
    }
}

/// Refuses a discovered `.memories` (in `project`) that is a symbolic link leading outside
/// `project`: a cloned repository could commit one pointing at any folder of the user's, and
/// memlane would then write its memories, history and indices there. A link that stays inside
/// the project is followed; `--vault` and `MEMLANE_VAULT` are the user's own choice and are not
/// checked.
fn check_vault_link(project: &Path, candidate: &Path) -> crate::Result<()> {
    let is_link = std::fs::symlink_metadata(candidate).is_ok_and(|m| m.file_type().is_symlink());
    if !is_link {
        return Ok(());
    }
    let target = std::fs::canonicalize(candidate).unwrap_or_else(|_| candidate.to_owned());
    let inside = std::fs::canonicalize(project).is_ok_and(|p| target.starts_with(&p));
    if inside {
        Ok(())
    } else {
        Err(Error::VaultLinkOutside { link: candidate.to_owned(), target })
    }
}

/// What `init` did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct InitReport {
    /// The vault root.
    pub vault: PathBuf,
    /// Whether the vault already existed (init is idempotent and never overwrites).
    pub existed: bool,
    /// Paths created, relative to the vault root.
    pub created: Vec<String>,
}

/// Creates a vault at `root` (idempotent: existing files are left alone).
pub fn init(root: &Path, config_toml: &str) -> crate::Result<InitReport> {
    let existed = root.is_dir();
    let mut created = Vec::new();
    if !existed {
        std::fs::create_dir_all(root).at("create", root)?;
    }
    let fs = crate::disk::Confined::open(root)?;
    folders::check_folders(&fs, root, &crate::model::time::format_compact(Timestamp::now()))?;
    for dir in [".trash", ".history"] {
        if fs.kind(Path::new(dir)).is_none() {
            fs.create_dir_all(Path::new(dir))?;
            created.push(format!("{dir}/"));
        }
    }
    for (file, text) in [(".gitignore", GITIGNORE), ("config.toml", config_toml)] {
        if fs.kind(Path::new(file)).is_none() {
            fs.create(Path::new(file), text.as_bytes(), None)?;
            created.push(file.to_owned());
        }
    }
    let vault = root.canonicalize().unwrap_or_else(|_| root.to_owned());
    Ok(InitReport { vault, existed, created })
}

/// An open vault.
#[derive(Debug, Clone)]
pub struct Vault {
    root: PathBuf,
    canonical_root: PathBuf,
    /// The confined file system every read and write of the vault goes through.
    fs: crate::disk::Confined,
    /// The effective configuration.
    pub config: Config,
    /// The clock used for timestamps.
    pub clock: Clock,
}

impl Vault {
    /// Opens the vault at `root` (a `.memories` folder).
    pub fn open(root: &Path, config: Config, clock: Clock) -> crate::Result<Vault> {
        if !root.is_dir() {
            return Err(Error::VaultMissing(root.to_owned()));
        }
        let canonical_root = root.canonicalize().at("open", root)?;
        let fs = crate::disk::Confined::open_canonical(root, canonical_root.clone())?;
        folders::check_folders(&fs, root, &crate::model::time::format_compact(clock.now()))?;
        let vault = Vault { root: root.to_owned(), canonical_root, fs, config, clock };
        vault.recover_on_open();
        Ok(vault)
    }

    /// The vault root (the `.memories` folder).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The `.trash/` folder.
    pub fn trash_dir(&self) -> PathBuf {
        self.root.join(".trash")
    }

    /// The `.history/` folder.
    pub fn history_dir(&self) -> PathBuf {
        self.root.join(".history")
    }

    /// The vault's own config file.
    pub fn config_file(&self) -> PathBuf {
        self.root.join("config.toml")
    }

    /// What `doctor` suggests about `.memories/.gitignore`: `None` when it names every folder
    /// memlane keeps out of git ([`GITIGNORE`]), whether ignored or re-included with `!`; else
    /// which folders it does not mention (a vault made before they were added, or a hand-made
    /// file), so `git status` would list their files. `init` never overwrites a user's file.
    pub fn gitignore_advice(&self) -> Option<GitignoreAdvice> {
        let path = self.root.join(".gitignore");
        let Ok(text) = self.fs.read_to_string(&path) else {
            return Some(GitignoreAdvice::Missing { path });
        };
        let mentions = |dir: &str| {
            let bare = dir.trim_end_matches('/');
            text.lines().map(str::trim).any(|l| {
                let l = l.strip_prefix('!').unwrap_or(l).trim_start_matches('/');
                l == dir || l == bare
            })
        };
        let missing: Vec<&str> = GITIGNORED.iter().copied().filter(|d| !mentions(d)).collect();
        (!missing.is_empty()).then_some(GitignoreAdvice::Unmentioned { path, missing })
    }

    /// Checks a memory type against the configured ones.
    pub fn check_type(&self, ty: &str) -> crate::Result<()> {
        if self.config.type_profile(ty).is_some() {
            Ok(())
        } else {
            Err(Error::UnknownType {
                // The error is shown: it must not echo a secret typed as a type.
                ty: crate::privacy::sanitize(ty, self.config.privacy.scrub_secrets).text,
                known: self.config.type_names().into_iter().map(str::to_owned).collect(),
            })
        }
    }
}
