//! What the server keeps between calls: the open indices (kept fresh by the watcher's change
//! counter, the server's own writes and other processes' index writes), the client's logging
//! level, and the cold check.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex};

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
    /// Brings the indices up to date after a write, once its answer is on its way (see
    /// [`Live::update_after_write`]); `None` until [`Live::start_updates`].
    updater: Mutex<Option<Updater>>,
}

/// The thread of [`Live::update_after_write`] and what it is asked to do.
struct Updater {
    thread: std::thread::JoinHandle<()>,
    asks: Arc<Asks>,
}

/// What is asked of the [`Updater`]'s thread: an update, or to stop.
#[derive(Default)]
struct Asks {
    state: Mutex<AskState>,
    wake: Condvar,
}

#[derive(Default)]
struct AskState {
    update: bool,
    stop: bool,
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
            updater: Mutex::new(None),
        }
    }

    /// From now on, a call that wrote to the vault has the indices brought up to date right
    /// after it, by a thread of their own, instead of by the next call (see
    /// [`update_after_write`](Self::update_after_write)). [`stop_updates`](Self::stop_updates)
    /// ends that thread.
    pub fn start_updates(self: &Arc<Live>) {
        let mut slot = self.updater.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_some() {
            return;
        }
        let asks = Arc::new(Asks::default());
        let (live, thread_asks) = (self.clone(), asks.clone());
        let spawned = std::thread::Builder::new()
            .name("memlane-index-update".into())
            .spawn(move || live.run_updates(&thread_asks));
        match spawned {
            Ok(thread) => *slot = Some(Updater { thread, asks }),
            // Without it, the next call brings the indices up to date, as before.
            Err(e) => tracing::debug!(error = %e, "cannot start the index update thread"),
        }
    }

    /// After a tool call: when it wrote to the vault, the indices are brought up to date now,
    /// on the update thread, while the answer goes out, so that the next call (which waits for
    /// that update if it has not ended) usually finds them ready. The write itself is already
    /// on disk: an update cut short by a crash leaves the indices to be repaired from the files
    /// by the next reader, as any interrupted index write does.
    pub fn update_after_write(&self) {
        if !self.indices.is_dirty() {
            return;
        }
        let slot = self.updater.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(u) = slot.as_ref() {
            u.asks.state.lock().unwrap_or_else(|e| e.into_inner()).update = true;
            u.asks.wake.notify_one();
        }
    }

    /// Ends the update thread, after the update asked for last (an index write is never cut
    /// short by the server's exit, and the next command finds the indices current).
    pub fn stop_updates(&self) {
        let Some(u) = self.updater.lock().unwrap_or_else(|e| e.into_inner()).take() else {
            return;
        };
        u.asks.state.lock().unwrap_or_else(|e| e.into_inner()).stop = true;
        u.asks.wake.notify_one();
        if u.thread.join().is_err() {
            tracing::warn!("the index update thread failed");
        }
    }

    /// The update thread: an update each time one is asked for, until asked to stop.
    fn run_updates(&self, asks: &Asks) {
        loop {
            let stop = {
                let mut st = asks.state.lock().unwrap_or_else(|e| e.into_inner());
                while !st.update && !st.stop {
                    st = asks.wake.wait(st).unwrap_or_else(|e| e.into_inner());
                }
                if !st.update {
                    return;
                }
                st.update = false;
                st.stop
            };
            // What a call does before it reads, with nothing read: the next call finds the
            // indices current. Memories indexed for the first time start their usage clocks.
            let found = |ids: &[String]| self.usage.observe(&self.vault, ids, UseKind::Found);
            if let Err(e) = self.indices.update(&self.vault, &found) {
                // The next call tries again, and reports what stops it.
                tracing::debug!(error = %e, "cannot update the indices after a write");
            }
            if stop {
                return;
            }
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
