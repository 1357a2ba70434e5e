//! What the server keeps between calls: the open indices (kept fresh by the watcher's change
//! counter, the server's own writes and other processes' index writes), the client's logging
//! level, and the cold check.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

#[allow(deprecated)]
// MCP logging is deprecated by a draft of the protocol; clients still use it.
use rmcp::model::LoggingLevel;
use serde_json::Value;

use crate::ops::session::Server;
use crate::ops::usage::{self, UseKind};
use crate::vault::Vault;

pub use crate::ops::session::{ChangeCounter, ChangeSource, SYNC_TIMEOUT};

/// The logger name of cold notifications.
pub const COLD_LOGGER: &str = "memlane.temperature";

/// The message of a cold notification.
pub const COLD_MESSAGE: &str = "Cold memories detected; consider summarizing via summarize_memory";

/// No level set by the client: send no log notifications.
const LEVEL_OFF: u8 = u8::MAX;

/// The server's state shared by every tool call.
pub struct Live {
    vault: Arc<Vault>,
    /// The open indices and what keeps them fresh.
    indices: Server,
    level: AtomicU8,
    usage: usage::Buffered,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live").field("vault", &self.vault.root()).finish_non_exhaustive()
    }
}

#[allow(deprecated)]
fn level_rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

impl Live {
    /// Fresh state over `vault`: no indices open yet, no watcher, no logging.
    pub fn new(vault: Arc<Vault>) -> Live {
        Live {
            vault,
            indices: Server::new(),
            level: AtomicU8::new(LEVEL_OFF),
            usage: usage::Buffered::default(),
        }
    }

    /// Uses `counter` to skip the vault stat when nothing changed since the last call.
    pub fn set_change_counter(&self, counter: ChangeCounter) {
        self.indices.set_change_counter(counter);
    }

    /// The indices this server keeps open between calls.
    pub fn indices(&self) -> &Server {
        &self.indices
    }

    /// Records that this server wrote to the vault.
    pub fn wrote(&self) {
        self.indices.wrote();
    }

    /// Why the vault cannot be written, while the indices in use live in memory for that reason
    /// (what a search result warns about).
    pub fn unwritable(&self) -> Option<String> {
        self.indices.unwritable()
    }

    /// Logs once that the vault cannot be written (`why`, in words).
    pub fn note_unwritable(&self, why: &str) {
        self.indices.note_unwritable(why);
    }

    /// The usage this server buffers (see [`usage::Buffered`]).
    pub fn usage(&self) -> &usage::Buffered {
        &self.usage
    }

    /// Memories just created or found new start their usage clocks.
    pub fn observe<'a>(&self, ids: impl IntoIterator<Item = &'a String>, kind: UseKind) {
        self.usage.observe(&self.vault, ids, kind);
    }

    /// Writes the buffered usage to the state file.
    pub fn flush(&self) -> crate::Result<()> {
        self.usage.flush(&self.vault)
    }

    /// Records the level the client asked for (`logging/setLevel`).
    #[allow(deprecated)]
    pub fn set_level(&self, level: LoggingLevel) {
        self.level.store(level_rank(level), Ordering::SeqCst);
    }

    /// Whether the client asked for messages of `level` or more severe ones.
    #[allow(deprecated)]
    pub fn wants(&self, level: LoggingLevel) -> bool {
        let set = self.level.load(Ordering::SeqCst);
        set != LEVEL_OFF && level_rank(level) >= set
    }

    /// The cold check: the payload of a `notifications/message` for the memories that crossed
    /// below `notify_threshold` since they were last announced, or `None` when there are none or
    /// the client did not ask for warnings (then nothing is marked announced).
    #[allow(deprecated)]
    pub fn cold_check(&self) -> crate::Result<Option<Value>> {
        if !self.wants(LoggingLevel::Warning) {
            return Ok(None);
        }
        self.flush()?;
        let (memories, reset) = crate::ops::maintenance::announce_cold(&self.vault)?;
        if let Some(r) = reset {
            tracing::warn!("{r}");
        }
        if memories.is_empty() {
            return Ok(None);
        }
        let notice = crate::ops::wire::ColdNotice {
            message: COLD_MESSAGE.to_owned(),
            suggested_action: "summarize_memory".to_owned(),
            memories,
        };
        Ok(Some(serde_json::to_value(notice).map_err(|e| crate::Error::Encode {
            what: "the cold notification",
            problem: e.to_string(),
        })?))
    }
}
