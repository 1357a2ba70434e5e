//! Registering the merge driver in a git repository: a `.gitattributes` rule at the work tree's
//! root (committed, so it travels with the project) and the `merge.memlane.*` entries in the
//! repository's local git config (never committed, so each clone adds them: `memlane init` does).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{DRIVER_NAME, GitError};
use crate::error::IoResultExt;

/// The comment written above the `.gitattributes` rule.
const ATTRIBUTE_COMMENT: &str =
    "# memlane: merge memory files key by key (`memlane merge-file`, set up by `memlane init`)";

/// The value of `merge.memlane.name`.
pub const DRIVER_DESCRIPTION: &str = "memlane: merges memory files key by key";

/// Whether to add the driver or remove it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriverAction {
    /// Add the `.gitattributes` rule and the git config entries that are missing or differ.
    Install,
    /// Remove them.
    Remove,
}

/// One change to a repository (made, or to be made on a dry run).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum DriverChange {
    /// A line added to a `.gitattributes` file (created when missing).
    AddAttribute {
        /// The file.
        file: PathBuf,
        /// The rule.
        line: String,
    },
    /// A line removed from a `.gitattributes` file.
    RemoveAttribute {
        /// The file.
        file: PathBuf,
        /// The rule.
        line: String,
    },
    /// A key set in the repository's local git config (`git config --local`).
    SetConfig {
        /// The key (`merge.memlane.driver`).
        key: String,
        /// The value.
        value: String,
        /// The value it replaces; `null` when the key was not set.
        previous: Option<String>,
    },
    /// A key removed from the repository's local git config.
    UnsetConfig {
        /// The key.
        key: String,
    },
}

impl std::fmt::Display for DriverChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DriverChange::AddAttribute { file, line } => {
                write!(f, "add `{line}` to {}", file.display())
            }
            DriverChange::RemoveAttribute { file, line } => {
                write!(f, "remove `{line}` from {}", file.display())
            }
            DriverChange::SetConfig { key, value, .. } => {
                write!(f, "set {key} = {value} (git config --local)")
            }
            DriverChange::UnsetConfig { key } => write!(f, "unset {key} (git config --local)"),
        }
    }
}

/// What [`merge_driver_setup`] found and did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct DriverSetup {
    /// The git work tree the vault is in; `null` when it is in none (or git is not installed),
    /// and then there is nothing to change.
    pub work_tree: Option<PathBuf>,
    /// The changes made (or, on a dry run, to be made); empty when everything is in place
    /// already (installing twice changes nothing).
    pub changes: Vec<DriverChange>,
    /// Whether the changes were made (`false` on a dry run).
    pub applied: bool,
}

/// The `.gitattributes` rule for a vault at `rel` (relative to the work tree's root, `/`
/// separated): `.memories/**/*.md merge=memlane`.
pub fn attribute_line(rel: &str) -> String {
    let pattern = if rel.is_empty() { "**/*.md".to_owned() } else { format!("{rel}/**/*.md") };
    let pattern = if pattern.contains([' ', '\t', '"', '\\']) {
        format!("\"{}\"", pattern.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        pattern
    };
    format!("{pattern} merge={DRIVER_NAME}")
}

/// The `merge.memlane.driver` command for the program `program` (`memlane`, or a path).
pub fn driver_command(program: &str) -> String {
    let plain = !program.is_empty()
        && program.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+:@".contains(c));
    let program =
        if plain { program.to_owned() } else { format!("'{}'", program.replace('\'', "'\\''")) };
    format!("{program} merge-file %O %A %B %P")
}

/// The program git should run for the driver: `memlane` when that name on `PATH` is this very
/// binary, else this binary's absolute path (git may run with another `PATH`, and a binary run
/// from a build folder is not on it).
pub fn default_driver_program() -> String {
    let Ok(exe) = std::env::current_exe().and_then(std::fs::canonicalize) else {
        return DRIVER_NAME.to_owned();
    };
    let on_path = std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path)
            .any(|dir| std::fs::canonicalize(dir.join(DRIVER_NAME)).is_ok_and(|found| found == exe))
    });
    if on_path { DRIVER_NAME.to_owned() } else { exe.to_string_lossy().into_owned() }
}

/// Adds (or removes) memlane's merge driver for the vault at `vault_root` in the git work tree
/// that holds it: the `.gitattributes` rule at the work tree's root and `merge.memlane.name` and
/// `merge.memlane.driver` (running `program`, see [`default_driver_program`]) in the
/// repository's local config. With `apply` false nothing is written: the result lists what would
/// change. Idempotent: what is in place already is not listed and not written again. A vault
/// outside any git work tree (or without git installed) gets no changes.
pub fn merge_driver_setup(
    vault_root: &Path,
    action: DriverAction,
    apply: bool,
    program: &str,
) -> Result<DriverSetup, GitError> {
    let Some(work_tree) = work_tree_of(vault_root) else {
        return Ok(DriverSetup { work_tree: None, changes: Vec::new(), applied: apply });
    };
    let vault = std::fs::canonicalize(vault_root).at("read", vault_root)?;
    let Ok(rel) = vault.strip_prefix(&work_tree) else {
        // Reached through a link from outside: no rule could name its files.
        return Ok(DriverSetup { work_tree: None, changes: Vec::new(), applied: apply });
    };
    let rel = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/");
    let attributes = work_tree.join(".gitattributes");
    let line = attribute_line(&rel);
    let existing = match std::fs::read_to_string(&attributes) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Err(GitError::Io(crate::error::PathError {
                action: "read",
                path: attributes,
                source: e,
            }));
        }
    };
    let has_line = existing.lines().any(|l| l.trim() == line);
    let wanted = [
        ("merge.memlane.name", DRIVER_DESCRIPTION.to_owned()),
        ("merge.memlane.driver", driver_command(program)),
    ];
    let mut changes = Vec::new();
    match action {
        DriverAction::Install => {
            if !has_line {
                changes.push(DriverChange::AddAttribute {
                    file: attributes.clone(),
                    line: line.clone(),
                });
            }
            for (key, value) in &wanted {
                let previous = config_get(&work_tree, key)?;
                if previous.as_deref() != Some(value.as_str()) {
                    changes.push(DriverChange::SetConfig {
                        key: (*key).to_owned(),
                        value: value.clone(),
                        previous,
                    });
                }
            }
        }
        DriverAction::Remove => {
            if has_line {
                changes.push(DriverChange::RemoveAttribute {
                    file: attributes.clone(),
                    line: line.clone(),
                });
            }
            for (key, _) in &wanted {
                if config_get(&work_tree, key)?.is_some() {
                    changes.push(DriverChange::UnsetConfig { key: (*key).to_owned() });
                }
            }
        }
    }
    if apply {
        for change in &changes {
            match change {
                DriverChange::AddAttribute { file, line } => {
                    let mut text = existing.clone();
                    if !text.is_empty() && !text.ends_with('\n') {
                        text.push('\n');
                    }
                    text.push_str(&format!("{ATTRIBUTE_COMMENT}\n{line}\n"));
                    crate::disk::atomic_write(file, text.as_bytes())?;
                }
                DriverChange::RemoveAttribute { file, line } => {
                    let mut kept: Vec<&str> = Vec::new();
                    for l in existing.lines() {
                        if l.trim() == line {
                            if kept.last() == Some(&ATTRIBUTE_COMMENT) {
                                kept.pop();
                            }
                            continue;
                        }
                        kept.push(l);
                    }
                    let text: String = kept.iter().map(|l| format!("{l}\n")).collect();
                    crate::disk::atomic_write(file, text.as_bytes())?;
                }
                DriverChange::SetConfig { key, value, .. } => {
                    git(&work_tree, &["config", "--local", key, value])?;
                }
                DriverChange::UnsetConfig { key } => {
                    git(&work_tree, &["config", "--local", "--unset-all", key])?;
                }
            }
        }
    }
    Ok(DriverSetup { work_tree: Some(work_tree), changes, applied: apply })
}

/// Whether git would merge this vault's memory files as plain text: the vault is in a git work
/// tree whose `.gitattributes` lacks memlane's rule or whose local config has no
/// `merge.memlane.driver` (a clone where `memlane init` has not run). `None` outside a work tree.
/// A driver that names another memlane binary counts as set up.
pub fn merge_driver_missing(vault_root: &Path) -> Result<Option<Vec<DriverChange>>, GitError> {
    let setup = merge_driver_setup(vault_root, DriverAction::Install, false, DRIVER_NAME)?;
    if setup.work_tree.is_none() {
        return Ok(None);
    }
    let missing: Vec<DriverChange> = setup
        .changes
        .into_iter()
        .filter(|c| match c {
            DriverChange::SetConfig { key, previous, .. } => {
                key == "merge.memlane.driver" && previous.is_none()
            }
            _ => true,
        })
        .collect();
    Ok(Some(missing))
}

/// The root of the git work tree holding `dir`, when there is one and git runs.
pub fn work_tree_of(dir: &Path) -> Option<PathBuf> {
    let out = Command::new("git")
        .args(["rev-parse", "--show-toplevel"])
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let top = String::from_utf8(out.stdout).ok()?;
    let top = top.trim_end_matches(['\n', '\r']);
    (!top.is_empty()).then(|| std::fs::canonicalize(top).unwrap_or_else(|_| PathBuf::from(top)))
}

/// A key of the repository's local git config, `None` when unset.
fn config_get(work_tree: &Path, key: &str) -> Result<Option<String>, GitError> {
    let out = Command::new("git")
        .args(["config", "--local", "--get", key])
        .current_dir(work_tree)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| GitError::NotRunnable(e.to_string()))?;
    match out.status.code() {
        Some(0) => Ok(Some(String::from_utf8_lossy(&out.stdout).trim_end_matches('\n').to_owned())),
        Some(1) => Ok(None),
        _ => Err(GitError::Failed {
            args: format!("config --local --get {key}"),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        }),
    }
}

fn git(work_tree: &Path, args: &[&str]) -> Result<(), GitError> {
    let out = Command::new("git")
        .args(args)
        .current_dir(work_tree)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| GitError::NotRunnable(e.to_string()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(GitError::Failed {
            args: args.join(" "),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        })
    }
}
