//! Lifecycle views and actions shared by the CLI and the MCP server: the cold set, the vault
//! tree with temperatures, and summarize.
//!
//! Each returns the usage-state reset it met, if the state file was unreadable, so the caller can
//! warn the way it warns (stderr on the CLI, the log in the server).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use super::{ColdMemory, StateReset, UsageStore, cold_announcements};
use crate::index::chunk::{ChunkOptions, chunk_markdown, estimate_tokens};
use crate::vault::{Memory, UpdateRequest, Vault, WriteOutcome, WriteStatus};

/// One memory of the cold set.
#[derive(Debug, Clone, Serialize)]
pub struct ColdItem {
    /// The memory id.
    pub id: String,
    /// The memory name.
    pub name: String,
    /// Its file.
    pub file: PathBuf,
    /// Its temperature now (three decimals).
    pub temperature: f64,
    /// Estimated tokens of its content: what summarizing it would save.
    pub tokens: usize,
}

/// One memory of [`tree`].
#[derive(Debug, Clone, Serialize)]
pub struct TreeRow {
    /// The memory name (folders joined by `/`).
    pub name: String,
    /// The memory id.
    pub id: String,
    /// The memory type.
    #[serde(rename = "type")]
    pub memory_type: String,
    /// Its temperature now (three decimals).
    pub temperature: f64,
    /// Pinned memories never cool.
    pub pinned: bool,
    /// Estimated tokens of its (redacted) content.
    pub tokens: usize,
    /// Its heading sections, unless the caller asked for none.
    pub sections: Vec<TreeSection>,
}

/// One heading section of a memory in [`tree`].
#[derive(Debug, Clone, Serialize)]
pub struct TreeSection {
    /// The headings leading to it (`Design > Storage`).
    pub header_path: String,
    /// Estimated tokens of the section.
    pub tokens: usize,
}

fn rounded(t: f64) -> f64 {
    (t * 1000.0).round() / 1000.0
}

/// The cold memories that still exist, with their names, files and sizes.
fn cold_items(cold: &[ColdMemory], by_id: &BTreeMap<&str, &Memory>) -> Vec<ColdItem> {
    cold.iter()
        .filter_map(|c| by_id.get(c.id.as_str()).map(|m| (c, m)))
        .map(|(c, m)| ColdItem {
            id: c.id.clone(),
            name: m.name.to_string(),
            file: m.path.clone(),
            temperature: rounded(c.temperature),
            tokens: estimate_tokens(m.content()),
        })
        .collect()
}

/// The cold set: memories below `cold_threshold`, coldest first. Memories the usage state has not
/// seen yet are recorded, so they start cooling from now.
pub fn cold_memories(vault: &Vault) -> crate::Result<(Vec<ColdItem>, Option<StateReset>)> {
    let now = vault.clock.now();
    let cfg = &vault.config.lifecycle;
    let (memories, _) = vault.scan()?;
    let by_id: BTreeMap<&str, &Memory> = memories.iter().map(|m| (m.id.as_str(), m)).collect();
    let (cold, reset) = UsageStore::update(vault.root(), |state| {
        for m in &memories {
            state.observe(m.id.as_str(), now, cfg);
        }
        state.cold_set(
            memories.iter().map(|m| (m.id.as_str(), m.meta.pinned)),
            cfg.cold_threshold,
            now,
            cfg,
        )
    })?;
    Ok((cold_items(&cold, &by_id), reset))
}

/// The periodic cold check of the MCP server: the memories that crossed below
/// `notify_threshold` since they were last announced, coldest first, recording that they were
/// announced (hysteresis, kept in the usage state).
pub fn announce_cold(vault: &Vault) -> crate::Result<(Vec<ColdItem>, Option<StateReset>)> {
    let now = vault.clock.now();
    let cfg = &vault.config.lifecycle;
    let (memories, _) = vault.scan()?;
    let by_id: BTreeMap<&str, &Memory> = memories.iter().map(|m| (m.id.as_str(), m)).collect();
    let flags: Vec<(&str, bool)> =
        memories.iter().map(|m| (m.id.as_str(), m.meta.pinned)).collect();
    let (announced, reset) =
        UsageStore::update(vault.root(), |state| cold_announcements(state, &flags, now, cfg))?;
    Ok((cold_items(&announced, &by_id), reset))
}

/// Every memory in name order with its temperature, token estimate and (when `sections`) its
/// heading sections — remindb's dump.
pub fn tree(vault: &Vault, sections: bool) -> crate::Result<(Vec<TreeRow>, Option<StateReset>)> {
    let (store, reset) = UsageStore::open(vault.root())?;
    let state = store.into_state();
    let now = vault.clock.now();
    let cfg = &vault.config.lifecycle;
    let (memories, _) = vault.scan()?;
    let scrub = vault.config.privacy.scrub_secrets;
    let rows = memories
        .iter()
        .map(|m| {
            let content = m.redacted_content(scrub);
            let sections = if sections {
                chunk_markdown(&content, &ChunkOptions::default())
                    .into_iter()
                    .filter(|c| !c.header_path.is_empty())
                    .map(|c| TreeSection {
                        tokens: estimate_tokens(&c.text),
                        header_path: c.header_path,
                    })
                    .collect()
            } else {
                Vec::new()
            };
            TreeRow {
                name: m.name.to_string(),
                id: m.id.to_string(),
                memory_type: m.memory_type.clone(),
                temperature: rounded(state.temperature(m.id.as_str(), m.meta.pinned, now, cfg)),
                pinned: m.meta.pinned,
                tokens: estimate_tokens(&content),
                sections,
            }
        })
        .collect();
    Ok((rows, reset))
}

/// Shrinks `m` in place to `content`: same name, id and links, the previous version in
/// history, and the temperature reset to `temperature` (default `temperature_start`).
pub fn summarize(
    vault: &Vault,
    m: &Memory,
    content: String,
    temperature: Option<f64>,
) -> crate::Result<(WriteOutcome, Option<StateReset>)> {
    if let Some(t) = temperature
        && !(0.0..=1.0).contains(&t)
    {
        return Err(crate::Error::NotAFraction { what: "temperature", value: t });
    }
    if content.trim().is_empty() {
        return Err(crate::Error::NoContent { what: "summarize" });
    }
    let req = UpdateRequest { content: Some(content), action: "summarize", ..Default::default() };
    let out = vault.update(m, &req)?;
    let mut reset = None;
    if out.status == WriteStatus::Updated {
        let now = vault.clock.now();
        let cfg = &vault.config.lifecycle;
        let t = temperature.unwrap_or(cfg.temperature_start);
        (_, reset) =
            UsageStore::update(vault.root(), |state| state.reset(m.id.as_str(), t, now, cfg))?;
    }
    Ok((out, reset))
}
