//! Agent lifecycle hooks (`memlane hook session-start`, `memlane hook stop`): the event a
//! client sends, and the stop reminder's once-per-session state.
//!
//! Claude Code runs a command hook with the event as JSON on stdin: `session_id`,
//! `transcript_path`, `cwd`, `hook_event_name`, and per event `source` (SessionStart: `startup`,
//! `resume`, `clear` or `compact`) or `stop_hook_active` (Stop: true while the agent is already
//! continuing because a stop hook asked it to). A hook must never break the session, so every
//! field is optional and an event that is not JSON reads as an empty one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::vault::Vault;

/// The file, in the vault's per-user `state/` folder, that remembers which sessions were
/// reminded.
pub const STATE_FILE: &str = "hooks.json";

/// Sessions are remembered this long (seconds), then forgotten.
const KEEP_SECS: i64 = 30 * 86_400;

/// Longest session id kept; a longer one is cut (it is only a key).
const MAX_SESSION_ID: usize = 200;

/// What the stop hook asks the agent to do before it ends its turn, once per session.
pub const STOP_REMINDER: &str = "Before you finish: record what this work taught that a later \
session should know, each as one short self-contained note with memlane's `remember` tool \
(or `create_memory` with a name): decisions and their reasons (type decision), bugs fixed and how \
(bug_fix), the user's preferences (preference), project facts and conventions (fact). Skip what \
is already in memory or only mattered today. If memories helped, report them with `mark_used`. \
A short summary of the session can be saved with `remember` and type session_summary. If there \
is nothing worth keeping, just stop.";

/// The hook event a client sends on stdin (fields Claude Code documents; all optional).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct HookEvent {
    /// The session's id.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The session's transcript file.
    #[serde(default)]
    pub transcript_path: Option<PathBuf>,
    /// The directory the session works in.
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// `SessionStart`, `Stop` …
    #[serde(default)]
    pub hook_event_name: Option<String>,
    /// SessionStart: `startup`, `resume`, `clear` or `compact`.
    #[serde(default)]
    pub source: Option<String>,
    /// Stop: the agent is already continuing because a stop hook asked it to.
    #[serde(default)]
    pub stop_hook_active: Option<bool>,
}

impl HookEvent {
    /// Reads an event; text that is not a JSON object gives an empty event (a hook never fails
    /// on its input).
    pub fn parse(text: &str) -> HookEvent {
        serde_json::from_str(text).unwrap_or_default()
    }
}

/// What the hooks remember between runs.
#[derive(Debug, Default, Serialize, Deserialize)]
struct HookState {
    /// Session id → when the stop hook reminded it (Unix seconds).
    #[serde(default)]
    stop_reminded: BTreeMap<String, i64>,
}

fn state_path(vault: &Vault) -> PathBuf {
    vault.root().join(crate::lifecycle::STATE_DIR).join(STATE_FILE)
}

fn read_state(vault: &Vault, path: &Path) -> HookState {
    vault.fs().read(path).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default()
}

/// Whether the stop hook should remind session `event.session_id` now, recording that it did.
///
/// Not when the reminder is off (`[hooks] stop_reminder`), the agent is already continuing for a
/// stop hook, the event names no session, or the session was reminded before. The reminder is
/// recorded before it is given: a state that cannot be written is an error, and the caller then
/// stays silent rather than remind on every turn.
pub fn stop_reminder(vault: &Vault, event: &HookEvent) -> crate::Result<Option<&'static str>> {
    if !vault.config.hooks.stop_reminder || event.stop_hook_active == Some(true) {
        return Ok(None);
    }
    let Some(id) = event.session_id.as_deref().map(str::trim).filter(|s| !s.is_empty()) else {
        return Ok(None);
    };
    let id: String = id.chars().take(MAX_SESSION_ID).collect();
    let path = state_path(vault);
    let mut state = read_state(vault, &path);
    if state.stop_reminded.contains_key(&id) {
        return Ok(None);
    }
    let now = vault.clock.now().as_second();
    state.stop_reminded.retain(|_, at| now.saturating_sub(*at) < KEEP_SECS);
    state.stop_reminded.insert(id, now);
    let bytes = serde_json::to_vec_pretty(&state)
        .map_err(|e| crate::Error::Encode { what: "the hook state", problem: e.to_string() })?;
    // Beneath the vault's handle: `state/` is the repository's, a link there is refused.
    vault.fs().write(&path, &bytes)?;
    Ok(Some(STOP_REMINDER))
}

/// What a Claude Code `Stop` hook prints to make the agent continue with `reason`.
pub fn stop_block(reason: &str) -> super::wire::StopDecision {
    super::wire::StopDecision { decision: "block", reason: reason.to_owned() }
}
