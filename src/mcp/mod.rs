//! The MCP server (`memlane mcp`): the vault's memories as tools for an agent, over stdio.
//!
//! stdout carries JSON-RPC only; logs go to stderr. Tool failures are MCP tool errors
//! (`isError: true`) whose text is the library error's message.

mod calls;
mod guard;
mod hints;
mod lenient;
mod live;
mod names;
mod params;
mod prompts;
mod resources;
mod schema;
mod tools;

use std::collections::BTreeSet;
use std::sync::Arc;

use rmcp::ServiceExt as _;

use crate::vault::Vault;

pub use guard::MAX_LINE_BYTES;
pub use live::{COLD_LOGGER, COLD_MESSAGE, ChangeCounter, ChangeSource, Live, SYNC_TIMEOUT};
pub use names::ToolName;
pub use tools::MemlaneServer;

/// What the server tells the agent about when to use it.
pub const INSTRUCTIONS: &str = "memlane is this project's long-term memory: Markdown notes that \
persist across sessions. SEARCH (search_memories) before answering questions about the project, \
its past decisions, conventions, known bugs or the user's preferences, and before starting work \
on a file (search_linked_memories with the file's path). REMEMBER (remember) whenever you make \
or learn a decision, fix a bug, discover a convention or fact, or the user states a preference: \
one short self-contained note per fact, with a type (decision, fact, preference, observation, \
…). remember updates a near-duplicate instead of adding a copy. Use read_memory for a whole \
note, link_memories to connect notes, pin_memory for notes that must never fade, and mark_used \
to report the notes that helped you.";

/// What the server offers, as a client lists it: every tool (also those `[mcp] tools = "core"`
/// leaves unlisted), the resource templates and the prompts. `memlane generate docs` writes the
/// MCP reference from it, so a tool, parameter or result field cannot go undocumented.
#[derive(Debug, Clone)]
pub struct Catalogue {
    /// Every tool with its schemas, in the order `tools/list` gives them.
    pub tools: Vec<rmcp::model::Tool>,
    /// The resource templates (`memory://{name}`).
    pub resource_templates: Vec<rmcp::model::ResourceTemplate>,
    /// The prompts.
    pub prompts: Vec<rmcp::model::Prompt>,
}

/// The server's [`Catalogue`].
pub fn catalogue() -> Catalogue {
    Catalogue {
        tools: tools::all_tools(),
        resource_templates: MemlaneServer::resource_templates().resource_templates,
        prompts: prompts::list(),
    }
}

/// Runs the cold check and sends its notification, if any, to `peer` (errors are logged: a
/// failed check must not stop the server).
#[allow(deprecated)]
pub(crate) async fn send_cold_notification(live: &Live, peer: &rmcp::Peer<rmcp::RoleServer>) {
    use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
    match live.cold_check() {
        Ok(Some(data)) => {
            let msg = LoggingMessageNotificationParam::new(LoggingLevel::Warning, data)
                .with_logger(COLD_LOGGER);
            if let Err(e) = peer.notify_logging_message(msg).await {
                tracing::warn!("cannot send the cold notification: {e}");
            }
        }
        Ok(None) => {}
        Err(e) => tracing::warn!("cold check failed: {e}"),
    }
}

/// How long the server's watcher waits before its start pass (a content-hash check of every
/// memory, ≈ 1 s of both cores at 100k memories). The first calls check the files themselves
/// meanwhile (a stat of the vault), and the pass must not compete with them.
const WATCH_START_AFTER: std::time::Duration = std::time::Duration::from_secs(3);

/// How long the server waits for a first call before it registers its watcher anyway; it
/// registers it as soon as the first call has checked the files.
const WATCH_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

/// The server's watcher and the freshness service it enables, started in the background so
/// that `initialize` never waits for them (registering the watches walks the whole vault).
struct Background {
    /// The watcher, once it is registered and counts changes.
    watcher: std::sync::OnceLock<Watcher>,
    /// The freshness service, once started; `None` once the server stopped (a service not
    /// started yet is then never started).
    service: std::sync::Mutex<Option<Option<crate::fresh::Service>>>,
}

type Watcher = Arc<std::sync::Mutex<crate::watch::VaultWatcher>>;

impl Background {
    /// Starts the watcher on a thread of its own and returns at once.
    ///
    /// The watches are registered once the first call has checked the files (or after
    /// [`WATCH_AFTER`] without a call), so the two do not compete for the cores.
    ///
    /// The order keeps every call fresh. Until the watcher is registered, the server has no
    /// change counter and every call stats the vault, as a server without a watcher does. Once
    /// it is registered, it counts every change from then on, and only then is it handed to
    /// the server: the first call after that still stats the whole vault (no call has checked
    /// under the counter yet), after taking its ticket, so changes made while the watches were
    /// being registered are found by that check and the ones after it by the counter. The
    /// freshness service starts last: a command is vouched for only by a registered watcher.
    fn start(vault: Arc<Vault>, live: Arc<Live>) -> Arc<Background> {
        let bg = Arc::new(Background {
            watcher: std::sync::OnceLock::new(),
            service: std::sync::Mutex::new(Some(None)),
        });
        let this = bg.clone();
        let spawned = std::thread::Builder::new()
            .name("memlane-watch-start".to_owned())
            .spawn(move || this.watch(&vault, &live));
        if let Err(e) = spawned {
            tracing::warn!("not watching the vault ({e}); every call checks the files instead");
        }
        bg
    }

    fn watch(&self, vault: &Arc<Vault>, live: &Arc<Live>) {
        // Registering the watches stats every file of the vault: not while the first call
        // checks the files.
        live.indices().wait_first_check(WATCH_AFTER);
        let t0 = std::time::Instant::now();
        // The server reconciles its own indices on demand, from the paths the watcher reports;
        // the watcher's own start pass waits, at a low priority.
        let opts = crate::watch::WatchOptions {
            index_changes: false,
            start_after: WATCH_START_AFTER,
            low_priority: true,
            ..crate::watch::WatchOptions::from_config(&vault.config)
        };
        let watcher = match crate::watch::VaultWatcher::start(vault.clone(), opts, |batch| {
            for p in &batch.problems {
                tracing::warn!("{p}");
            }
            if let Some(e) = &batch.error {
                tracing::warn!("watcher: {e}");
            }
        }) {
            Ok(w) => Arc::new(std::sync::Mutex::new(w)),
            Err(e) => {
                tracing::warn!("not watching the vault ({e}); every call checks the files instead");
                return;
            }
        };
        // Registered, not handed over yet (tests hold the server here, or make it go without).
        if crate::failpoint::step("mcp.watch.registered").is_err() {
            tracing::warn!("not watching the vault; every call checks the files instead");
            return;
        }
        // The watcher tells the server whether, and where, the vault changed since the last
        // call, so it can skip the vault stat.
        live.set_change_counter(watcher.clone());
        let _ = self.watcher.set(watcher);
        tracing::debug!(ms = t0.elapsed().as_secs_f64() * 1e3, "watching the vault");
        // Fresh commands on this vault ask the server instead of stat-ing the vault: it brings
        // the indices up to date the way a call does, and vouches for them (see `crate::fresh`).
        let mut slot = self.service.lock().unwrap_or_else(|e| e.into_inner());
        let Some(service) = slot.as_mut() else { return };
        let (live, vault, root) = (live.clone(), vault.clone(), vault.root().to_owned());
        *service = crate::fresh::Service::start(
            &root,
            Box::new(move || {
                let found = |ids: &[String]| {
                    live.observe(ids.iter(), crate::ops::usage::UseKind::Found);
                };
                live.indices().catch_up(&vault, &found)
            }),
        );
    }

    /// The watcher's change counter, once it is registered.
    fn generation(&self) -> Option<u64> {
        self.watcher.get().map(|w| w.lock().unwrap_or_else(|e| e.into_inner()).generation())
    }

    /// The server stops: the freshness service stops (its socket is removed), or is never
    /// started.
    fn stop(&self) {
        let service = self.service.lock().unwrap_or_else(|e| e.into_inner()).take();
        drop(service);
    }
}

/// Serves the vault over MCP on stdin/stdout until the client disconnects, checking for cold
/// memories every `[lifecycle] cold_check_minutes` and when the client sets its log level.
pub async fn serve_stdio(vault: Vault) -> crate::Result<()> {
    let minutes = vault.config.lifecycle.cold_check_minutes;
    let vault = Arc::new(vault);
    let server = MemlaneServer::new(vault.clone());
    let live = server.live().clone();
    let server_live = live.clone();
    // The watcher starts in the background (once the first call has checked the files); calls
    // made before it is ready check the files themselves.
    let background = Background::start(vault.clone(), live.clone());
    // stdin → guard → rmcp → stdout: the guard answers malformed lines itself (see guard.rs);
    // rmcp's output and those answers share stdout a whole line at a time.
    let (to_rmcp, rmcp_in) = tokio::io::duplex(256 * 1024);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(256 * 1024);
    let stdout = Arc::new(tokio::sync::Mutex::new(tokio::io::stdout()));
    let reader = tokio::spawn(guard::filter_input(tokio::io::stdin(), to_rmcp, stdout.clone()));
    let writer = tokio::spawn(guard::copy_output(from_rmcp, stdout));
    let finish = async move {
        // The reader may be blocked on stdin: stop it, then let the writer drain.
        reader.abort();
        let _ = writer.await;
    };
    let running = match server.serve((rmcp_in, rmcp_out)).await {
        Ok(r) => r,
        Err(e) => {
            background.stop();
            finish.await;
            return Err(crate::Error::Server {
                what: "MCP handshake failed",
                problem: e.to_string(),
            });
        }
    };
    let peer = running.peer().clone();
    let ticker = (minutes > 0).then(|| {
        tokio::spawn(async move {
            let period = std::time::Duration::from_secs(minutes.saturating_mul(60));
            let mut interval = tokio::time::interval(period);
            interval.tick().await;
            loop {
                interval.tick().await;
                send_cold_notification(&live, &peer).await;
            }
        })
    });
    // Clients that list the memories as resources hear when the list changed.
    let lister = tokio::spawn(watch_resource_list(
        vault.clone(),
        background.clone(),
        running.peer().clone(),
    ));
    // Warm-ups from searches and reads reach the state file within a second.
    let flusher = {
        let live = server_live.clone();
        tokio::spawn(async move {
            let mut interval = tokio::time::interval(std::time::Duration::from_secs(1));
            loop {
                interval.tick().await;
                if let Err(e) = live.flush() {
                    match crate::index::store::unwritable(&e) {
                        // Kept in memory; said once, not every second.
                        Some(why) => live.note_unwritable(&why),
                        None => tracing::warn!("cannot save the usage state: {e}"),
                    }
                }
            }
        })
    };
    // From here on a write's index update runs right after its answer, not in the next call.
    server_live.start_updates();
    let result = running.waiting().await;
    if let Some(t) = ticker {
        t.abort();
    }
    flusher.abort();
    lister.abort();
    // An index update under way ends before the server does.
    server_live.stop_updates();
    if let Err(e) = server_live.flush() {
        tracing::warn!("cannot save the usage state: {e}");
    }
    finish.await;
    background.stop();
    result
        .map_err(|e| crate::Error::Server { what: "MCP server stopped", problem: e.to_string() })?;
    Ok(())
}

/// How often the server looks for memories added, removed or renamed: every tick when the
/// watcher counted a change since the last look, every [`LIST_POLL_TICKS`] ticks without one.
const LIST_TICK: std::time::Duration = std::time::Duration::from_secs(1);

/// Ticks between looks when there is no watcher to say that something changed.
const LIST_POLL_TICKS: u64 = 10;

/// The memory names of the vault, or `None` when they cannot be read now: one walk of the whole
/// vault. `low_priority`: on a thread of its own at a lower priority (the first list, taken
/// while the first calls run).
async fn memory_names(vault: &Arc<Vault>, low_priority: bool) -> Option<BTreeSet<String>> {
    let vault = vault.clone();
    let names = tokio::task::spawn_blocking(move || {
        if !low_priority {
            return vault.names();
        }
        let v = vault.clone();
        let list = std::thread::Builder::new().name("memlane-list".to_owned()).spawn(move || {
            crate::watch::lower_priority();
            v.names()
        });
        match list {
            Ok(t) => t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            Err(_) => vault.names(),
        }
    })
    .await
    .ok()?;
    match names {
        Ok(n) => Some(n.into_iter().map(|n| n.to_string()).collect()),
        Err(e) => {
            tracing::debug!("cannot list the memories: {e}");
            None
        }
    }
}

/// Applies the changes at `paths` to `names` (the vault's memory names), each path looked at
/// alone ([`Vault::path_state`]): whether the set changed, or `None` when a path cannot be
/// judged alone (a folder, a link on the way), so the vault must be listed again (`names` is
/// then left as it was).
fn apply_changed_paths(
    vault: &Vault,
    names: &mut BTreeSet<String>,
    paths: &[std::path::PathBuf],
) -> Option<bool> {
    use crate::vault::PathState;
    let states: Vec<PathState> = paths.iter().map(|p| vault.path_state(p)).collect();
    if states.iter().any(|s| matches!(s, PathState::Unsure)) {
        return None;
    }
    let mut changed = false;
    for state in states {
        match state {
            PathState::Memory(f) => changed |= names.insert(f.name.to_string()),
            PathState::Gone(name) => changed |= names.remove(name.as_str()),
            PathState::NotAMemory | PathState::Unsure => {}
        }
    }
    Some(changed)
}

/// Sends `notifications/resources/list_changed` whenever the set of memories changes (a memory
/// added, deleted or renamed, by this server or anyone else); an edit of a memory's content
/// changes no list. The watcher's change counter says when to look, and its log of changed
/// paths where: only those are stat-ed. The whole vault is listed again only when the paths
/// are not all known (too many changes, a folder changed) or there is no watcher. (At 100k
/// memories a listing costs a stat per memory; done every second of a burst of writes, it
/// slowed the calls it overlapped.)
async fn watch_resource_list(
    vault: Arc<Vault>,
    watcher: Arc<Background>,
    peer: rmcp::Peer<rmcp::RoleServer>,
) {
    let generation = || watcher.generation();
    // Read before the listing: a change during it is looked at again on the next tick.
    let mut seen = generation();
    let mut known = memory_names(&vault, true).await;
    let mut interval = tokio::time::interval(LIST_TICK);
    let mut tick: u64 = 0;
    loop {
        interval.tick().await;
        tick += 1;
        let now = generation();
        match now {
            Some(g) if Some(g) == seen => continue,
            Some(_) => {}
            None if !tick.is_multiple_of(LIST_POLL_TICKS) => continue,
            None => {}
        }
        let paths = match (watcher.watcher.get(), seen) {
            (Some(w), Some(since)) => {
                w.lock().unwrap_or_else(|e| e.into_inner()).changed_since(since)
            }
            _ => None,
        };
        seen = now;
        let mut names = known.take();
        let mut incremental = None;
        if let (Some(set), Some(paths)) = (names.take(), paths) {
            let v = vault.clone();
            let Ok((set, changed)) = tokio::task::spawn_blocking(move || {
                let mut set = set;
                let changed = apply_changed_paths(&v, &mut set, &paths);
                (set, changed)
            })
            .await
            else {
                continue;
            };
            names = Some(set);
            incremental = changed;
        }
        let changed = match incremental {
            Some(changed) => {
                known = names;
                changed
            }
            None => {
                let Some(now) = memory_names(&vault, false).await else {
                    known = names;
                    continue;
                };
                // An earlier list that could not be read counts as a change.
                let changed = names.as_ref() != Some(&now);
                known = Some(now);
                changed
            }
        };
        if changed && let Err(e) = peer.notify_resource_list_changed().await {
            tracing::debug!("cannot send resources/list_changed: {e}");
        }
    }
}

/// [`serve_stdio`] on a current-thread tokio runtime, for synchronous callers.
pub fn serve_stdio_blocking(vault: Vault) -> crate::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| {
        crate::Error::Server { what: "cannot start the async runtime", problem: e.to_string() }
    })?;
    rt.block_on(serve_stdio(vault))
}
