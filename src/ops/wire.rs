//! The JSON every front end prints: `--json` output and MCP structured results.
//!
//! These structs are the one definition of each shape; the CLI and the MCP server serialise
//! the same ones. A new field is added here, once. Scores are rounded to four decimals and
//! temperatures to three: the digits past that are float noise, not meaning.

use serde::Serialize;
use serde_json::Value;

use crate::model::time::format_timestamp;
use crate::vault::{Memory, Vault};

/// Rounds a score to four decimals (`0.3` rather than `0.30000001192092896`).
pub fn score(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// Rounds a temperature or importance to three decimals.
pub fn level(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// One memory: `show --json`, `list --json`, MCP `read_memory`.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryJson {
    /// `memory:<name>` (ragdocs' id form).
    pub memory_id: String,
    /// The memory's name.
    pub name: String,
    /// Its 11-character id.
    pub id: String,
    /// Its type.
    #[serde(rename = "type")]
    pub memory_type: String,
    /// `active` or `archived`.
    pub status: String,
    /// Its tags.
    pub tags: Vec<String>,
    /// When it was created (ISO-8601, UTC).
    pub created_at: String,
    /// When it was last changed.
    pub updated_at: String,
    /// Whether it is pinned.
    pub pinned: bool,
    /// Whether redaction removed something when it was written.
    pub had_private_content: bool,
    /// Its file.
    pub file_path: String,
    /// The file's size in bytes.
    pub size: usize,
    /// Problems found reading it.
    pub warnings: Vec<String>,
    /// The frontmatter, redacted (with content only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frontmatter: Option<Value>,
    /// The content, redacted (with content only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Its temperature after this read (`show` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Its MIRA importance (`show` only, when the indices could be read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub importance: Option<f64>,
}

impl MemoryJson {
    /// The shape of `m`; `with_content` adds its redacted frontmatter and content.
    pub fn new(vault: &Vault, m: &Memory, with_content: bool) -> MemoryJson {
        let scrub = vault.config.privacy.scrub_secrets;
        let (frontmatter, content) = if with_content {
            let mut fm: Value = m
                .doc
                .mapping()
                .ok()
                .and_then(|map| serde_json::to_value(map).ok())
                .unwrap_or(Value::Null);
            // Every value, as content is: a hand-written `note: <private>…</private>` or a
            // secret in any key never reaches the output. Tags are the redacted list (a tag
            // redaction touches is left out, not shown as a marker).
            crate::privacy::redact_json(&mut fm, scrub);
            if let Some(map) = fm.as_object_mut()
                && map.contains_key("tags")
            {
                map.insert("tags".into(), serde_json::json!(m.meta.tags));
            }
            (Some(fm), Some(m.redacted_content(scrub)))
        } else {
            (None, None)
        };
        MemoryJson {
            memory_id: format!("memory:{}", m.name),
            name: m.name.to_string(),
            id: m.id.to_string(),
            memory_type: m.memory_type.clone(),
            status: m.status.clone(),
            tags: m.meta.tags.clone(),
            created_at: format_timestamp(m.created_at),
            updated_at: format_timestamp(m.updated_at),
            pinned: m.meta.pinned,
            had_private_content: m.meta.had_private_content,
            file_path: m.path.display().to_string(),
            size: m.size(),
            warnings: m.warnings.clone(),
            frontmatter,
            content,
            temperature: None,
            importance: None,
        }
    }
}

/// One search result as JSON (`search --json`, MCP `search_memories`): the hit with its score
/// rounded, and every stage's value only when `explain` asks for it.
pub fn hit(h: &crate::search::SearchHit, explain: bool) -> Value {
    scored(h, h.score, explain)
}

/// One candidate below the threshold, as [`hit`] shapes a result.
pub fn below(b: &crate::search::BelowThreshold, explain: bool) -> Value {
    scored(b, b.score, explain)
}

fn scored<T: Serialize>(item: &T, value: f64, explain: bool) -> Value {
    let mut v = serde_json::to_value(item).unwrap_or(Value::Null);
    if let Some(map) = v.as_object_mut() {
        map.insert("score".into(), serde_json::json!(score(value)));
        if !explain {
            map.remove("explain");
        }
    }
    v
}

/// Rounds every fractional number in `v` to four decimals, in place: what a score, a weight or
/// an importance means, without the float noise of `0.30000001192092896` (an `f32` read as
/// `f64`) or `0.6499999999999999`. Whole numbers are left as they are.
pub fn tidy(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            if let Some(x) = n.as_f64()
                && x.is_finite()
                && let Some(r) = serde_json::Number::from_f64(score(x))
            {
                *n = r;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        Value::Object(map) => map.values_mut().for_each(tidy),
        _ => {}
    }
}

/// The session-start digest (`context --json`, the session-start hook's text).
#[derive(Debug, Clone, Serialize)]
pub struct ContextDigest {
    /// The budget it was built for, in estimated tokens.
    pub budget: usize,
    /// Estimated tokens of `text` (at most `budget`).
    pub tokens: usize,
    /// The working tree's branch, when known.
    pub branch: Option<String>,
    /// The files changed in the working tree (`git status`), relative to its top.
    pub changed_files: Vec<String>,
    /// Active memories in the vault.
    pub total: usize,
    /// Memories listed.
    pub shown: usize,
    /// Memories that were picked but left out for the budget.
    pub omitted: usize,
    /// The memories listed, in order.
    pub memories: Vec<ContextItem>,
    /// The digest as the agent reads it.
    pub text: String,
}

/// One memory of a [`ContextDigest`].
#[derive(Debug, Clone, Serialize)]
pub struct ContextItem {
    /// `memory:<name>`.
    pub memory_id: String,
    /// Its name.
    pub name: String,
    /// Its 11-character id.
    pub id: String,
    /// Its type.
    #[serde(rename = "type")]
    pub memory_type: String,
    /// Why it is listed: `pinned`, `changed_files`, `task` or `hot`.
    pub section: &'static str,
    /// The changed file that links to it (`changed_files` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Its age since it last changed: `today`, `3d`, `5w`, `8mo`, `2y`.
    pub age: String,
    /// When it last changed.
    pub updated_at: String,
    /// Whether it is pinned.
    pub pinned: bool,
    /// Its temperature now.
    pub temperature: f64,
    /// Its first sentence, redacted.
    pub summary: String,
    /// Estimated tokens of its line.
    pub tokens: usize,
}

/// What `mark_used` recorded.
#[derive(Debug, Clone, Serialize)]
pub struct MarkedUsed {
    /// The memories counted as used (warmed), in the order given.
    pub used: Vec<UsedMemory>,
    /// The memory they were context for (`memory:<name>`), when one was named.
    pub context_for: Option<String>,
    /// The `was_context_for` links written (one per used memory; `unchanged` when it existed).
    pub linked: Vec<crate::vault::WriteOutcome>,
}

/// One memory of [`MarkedUsed`].
#[derive(Debug, Clone, Serialize)]
pub struct UsedMemory {
    /// `memory:<name>`.
    pub memory_id: String,
    /// Its name.
    pub name: String,
    /// Its 11-character id.
    pub id: String,
}
