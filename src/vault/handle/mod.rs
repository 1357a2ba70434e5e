//! The vault as a handle: finding and opening it, its paths and its confined file system,
//! memlane's own folders in it, the walk of its files, reading memories and resolving what a user
//! typed. Nothing here writes a memory: that is the `write` module's.
//!
//! - `discover`: where a vault is (`locate`, `init_target`) and `init`;
//! - `folders`: `.trash`, `.history`, `state` and `indices` must be real folders;
//! - `scan`: the walk of the vault (every memory file with its stat, links not followed);
//! - `read`: one memory, or all of them;
//! - `resolve`: a name, an id or a path to a memory, and `list`.

mod discover;
mod folders;
mod read;
mod resolve;
mod scan;

use std::path::{Path, PathBuf};

pub use discover::{InitReport, Location, init, init_target, locate, user_vault_dir};
pub use folders::{INTERNAL_FOLDERS, folder_problems};
pub use read::{BODY_CONFLICT, KEY_CONFLICT, Memory, ScanProblem, Warning, WarningKind};
pub use resolve::{ListFilter, ListSort};
pub use scan::{EscapingLink, FileStat, PathState, Unreachable, UnreachableWhy, mtime_ns};

use super::{Clock, Vault};
use crate::config::Config;
use crate::disk::{Confined, Kind};
use crate::error::{Error, IoResultExt};
use crate::model::MemoryName;

/// The folders every vault's `.gitignore` should mention (ignored, or re-included on purpose).
const GITIGNORED: &[&str] = &["indices/", "state/", ".history/", ".trash/"];

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

    /// The file of a memory name.
    pub fn path_of(&self, name: &MemoryName) -> PathBuf {
        self.root().join(name.rel_path())
    }

    /// The vault's confined file system: every read and write of the vault's files goes
    /// through it (see [`Confined`]).
    pub fn fs(&self) -> &Confined {
        &self.fs
    }

    /// Checks the internal folders again (see [`folder_problems`]): right before a path under
    /// one of them is handed to a library that opens it by path.
    pub fn check_internal_folder(&self, folder: &str) -> crate::Result<()> {
        let Some((_, purpose)) = INTERNAL_FOLDERS.iter().find(|(f, _)| *f == folder) else {
            return Ok(());
        };
        match self.fs.kind(Path::new(folder)) {
            None | Some(Kind::Dir) => Ok(()),
            Some(k) => {
                Err(folders::unsafe_folder(self.root(), folder, purpose, k == Kind::Symlink))
            }
        }
    }

    /// What `doctor` suggests about `.memories/.gitignore`: `None` when it names every folder
    /// memlane keeps out of git ([`GITIGNORE`](super::GITIGNORE)), whether ignored or re-included with `!`; else
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
