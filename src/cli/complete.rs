//! Dynamic shell completion (`COMPLETE=bash memlane`): memory names, types and tags, read from the
//! vault the shell is in. Fixed words (`--intent`, `--profile`) complete from their value parsers
//! (`args::choice`).
//!
//! Completion runs on every Tab, so it reads as little as it can: names from the file list,
//! types from the config, tags from the frontmatter. It never writes, and a problem (no vault,
//! a bad config) completes nothing rather than printing an error into the shell.

use std::ffi::OsStr;

use clap_complete::engine::CompletionCandidate;
use memlane::config::{ConfigInputs, LoadedConfig};
use memlane::vault::{Clock, Location, Vault};

/// The vault the command would use: `MEMLANE_VAULT`, or the one found from the current folder.
fn vault() -> Option<Vault> {
    let location = match std::env::var_os("MEMLANE_VAULT") {
        Some(v) => Location::Explicit(std::env::current_dir().ok()?.join(v)),
        None => Location::Discover(std::env::current_dir().ok()?),
    };
    let root = memlane::vault::locate(&location).ok()?;
    let user_file = memlane::config::default_user_config_path();
    let vault_file = root.join("config.toml");
    let inputs = ConfigInputs {
        user_file: user_file.as_deref(),
        user_file_required: false,
        vault_file: Some(&vault_file),
        env: &[],
        flags: &[],
    };
    let config = LoadedConfig::load(&inputs).ok()?.config;
    Vault::open(&root, config, Clock::system()).ok()
}

/// Candidates from `values` that start with what was typed so far.
fn matching(current: &OsStr, values: impl IntoIterator<Item = String>) -> Vec<CompletionCandidate> {
    let typed = current.to_string_lossy();
    let mut values: Vec<String> = values.into_iter().filter(|v| v.starts_with(&*typed)).collect();
    values.sort();
    values.dedup();
    values.into_iter().map(CompletionCandidate::new).collect()
}

/// Memory names.
pub(crate) fn memory_names(current: &OsStr) -> Vec<CompletionCandidate> {
    let names = vault().and_then(|v| v.names().ok()).unwrap_or_default();
    matching(current, names.into_iter().map(|n| n.to_string()))
}

/// Memory types, as configured for the vault.
pub(crate) fn types(current: &OsStr) -> Vec<CompletionCandidate> {
    let types = vault().map(|v| v.config.types.keys().cloned().collect::<Vec<_>>());
    matching(current, types.unwrap_or_default())
}

/// Tags used in the vault.
pub(crate) fn tags(current: &OsStr) -> Vec<CompletionCandidate> {
    let tags = vault()
        .and_then(|v| v.scan().ok())
        .map(|(memories, _)| memories.into_iter().flat_map(|m| m.meta.tags).collect::<Vec<_>>());
    matching(current, tags.unwrap_or_default())
}
