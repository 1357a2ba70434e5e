//! Finding a vault (walk up like git, `--vault`, `MEMLANE_VAULT`, the per-user vault) and
//! creating one (`init`).

use std::path::{Path, PathBuf};

use jiff::Timestamp;

use super::folders;
use crate::error::{Error, IoResultExt};
use crate::vault::{GITIGNORE, VAULT_DIR};

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
