//! Keeping the vault and its indices in shape: `maintain`, `reindex`, the watcher's reports, and
//! the cold memories a long-lived session announces.

use super::Session;
use super::wire::{
    self, ColdMemory, DeadLink, ImportanceEntry, ImportanceSummary, MaintainedReport, MergeCluster,
    MergeMember, Reindexed, SplitCandidate, WatchEvent,
};
use crate::lifecycle::consolidate::MaintainReport;
use crate::vault::Vault;

pub use crate::index::store::Progress;
pub use crate::watch::{BatchReport, VaultWatcher, WatchOptions};

/// The longest a watcher spends bringing the indices up to date for one command's freshness
/// request (see [`crate::fresh`]); a command that stopped waiting earlier checks the files itself.
pub const CATCH_UP_LIMIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Answers fresh commands' requests for the vault `watcher` keeps up to date (`memlane watch`),
/// so they skip the vault stat (see [`crate::fresh`]). `None` when it cannot listen (logged).
pub fn serve_freshness(
    vault: &std::sync::Arc<Vault>,
    watcher: std::sync::Arc<std::sync::Mutex<VaultWatcher>>,
) -> Option<crate::fresh::Service> {
    let v = vault.clone();
    crate::fresh::Service::start(
        vault.root(),
        Box::new(move || {
            let w = watcher.lock().unwrap_or_else(|e| e.into_inner());
            if !w.catch_up(CATCH_UP_LIMIT) {
                return None;
            }
            crate::index::store::Indexes::disk_digest(&v)
        }),
    )
}

/// Runs the self-maintenance jobs once: heals links whose target has a recorded successor,
/// recomputes importance, lists cold memories, merge suggestions and split candidates, and
/// archives expired memories. The indices are brought up to date before and after.
pub fn maintain<S: Session>(s: &S) -> crate::Result<MaintainedReport> {
    let vault = s.vault();
    let now = vault.clock.now();
    // Run again only after indices that failed to read were rebuilt; its writes (healing a
    // link, archiving an expired memory) are idempotent, so a second run finds them done.
    let report = s.with_indexes(&|idx| crate::lifecycle::consolidate::maintain(vault, idx, now))?;
    if report.changed() {
        s.wrote();
        s.with_indexes(&|_| Ok(()))?;
    }
    for p in &report.problems {
        s.warn(p.clone());
    }
    // The usage journal folded into its base: the commands after replay nothing.
    s.flush_usage()?;
    match crate::ops::usage::fold(vault) {
        Ok(Some(r)) => s.warn(r.to_string()),
        Ok(None) => {}
        Err(e) => s.warn(format!("cannot fold the usage journal into its base: {e}")),
    }
    Ok(maintained(vault, report))
}

/// The wire shape of a maintenance report.
pub fn maintained(vault: &Vault, r: MaintainReport) -> MaintainedReport {
    MaintainedReport {
        dead_links: r
            .dead_links
            .into_iter()
            .map(|d| DeadLink { source: d.source, target: d.target, successor: d.successor })
            .collect(),
        healed: wire::written(r.healed),
        graph: r.graph.into(),
        importance: ImportanceSummary {
            computed: r.importance.computed,
            mean: wire::level(r.importance.mean),
            top: entries(r.importance.top),
            bottom: entries(r.importance.bottom),
        },
        cold: r
            .cold
            .into_iter()
            .map(|c| wire::ColdEntry {
                memory_id: format!("memory:{}", c.name),
                name: c.name,
                id: c.id,
                temperature: wire::level(c.temperature),
            })
            .collect(),
        merge_suggestions: clusters(vault, r.merge_suggestions),
        split_candidates: r
            .split_candidates
            .into_iter()
            .map(|c| SplitCandidate {
                name: c.name,
                tokens: c.tokens,
                age_days: c.age_days,
                access_count: c.access_count,
                sections: c.sections,
            })
            .collect(),
        expired: wire::written(r.expired),
        problems: r.problems,
        temp_files_removed: r.temp_files_removed,
    }
}

fn entries(e: Vec<crate::lifecycle::consolidate::ImportanceEntry>) -> Vec<ImportanceEntry> {
    e.into_iter().map(|e| ImportanceEntry { name: e.name, importance: e.importance }).collect()
}

/// Merge clusters in their wire shape, numbered from 0.
pub(crate) fn clusters(
    vault: &Vault,
    clusters: Vec<crate::lifecycle::consolidate::MergeCluster>,
) -> Vec<MergeCluster> {
    clusters
        .into_iter()
        .enumerate()
        .map(|(i, c)| MergeCluster {
            cluster_id: i,
            score: wire::score(f64::from(c.score)),
            reason: c.reason,
            memory_count: c.members.len(),
            memories: c
                .members
                .into_iter()
                .map(|m| MergeMember {
                    memory_id: format!("memory:{}", m.name),
                    file_path: crate::model::MemoryName::parse(&m.name)
                        .map(|n| vault.path_of(&n).display().to_string())
                        .unwrap_or_default(),
                    name: m.name,
                    memory_type: m.memory_type,
                    preview: m.preview,
                })
                .collect(),
        })
        .collect()
}

/// Rebuilds the indices from the files, from nothing (a damaged store must not stop the
/// rebuild that repairs it), with the configured embedder; `progress` hears about every chunk.
/// Problems met are in the result (and `repaired` says what was damaged).
pub fn reindex(vault: &Vault, progress: &mut dyn FnMut(Progress)) -> crate::Result<Reindexed> {
    crate::index::store::Indexes::reset(vault)?;
    let embedder = crate::index::select::embedder_for(&vault.config)?;
    let mut idx = crate::index::store::Indexes::open(vault, embedder)?;
    let report = idx.rebuild(vault, progress)?;
    Ok(Reindexed {
        memories: report.added,
        chunks: report.chunks,
        embedded: report.embedded,
        reused: report.reused,
        embedder: idx.embedder().id().to_string(),
        elapsed_ms: report.elapsed_ms,
        problems: report.problems,
        repaired: report.repaired.map(|d| d.to_string()),
    })
}

/// What the watcher says after a pass: `reindexed` when it changed the indices (and once on
/// start), `maintained` after `maintain` ran.
pub fn watch_events(r: &BatchReport) -> Vec<WatchEvent> {
    let mut out = Vec::new();
    if r.changed() || r.kind == crate::watch::BatchKind::Start {
        out.push(WatchEvent::Reindexed {
            trigger: r.kind.as_str().to_owned(),
            indexed: r.indexed.clone(),
            removed: r.removed.clone(),
            added: r.added,
            updated: r.updated,
            unchanged: r.unchanged,
            elapsed_ms: r.elapsed_ms,
        });
    }
    if let Some(m) = &r.maintain {
        out.push(WatchEvent::Maintained {
            dead_links: m.dead_links.len(),
            healed: m.healed.iter().map(|o| o.name.clone()).collect(),
            expired: m.expired.iter().map(|o| o.name.clone()).collect(),
            cold: m.cold.len(),
            merge_suggestions: m.merge_suggestions.len(),
            split_candidates: m.split_candidates.len(),
        });
    }
    out
}

/// The memories that crossed below `lifecycle.notify_threshold` since they were last announced,
/// coldest first, now marked announced (what a long-lived session tells its client once per
/// crossing).
pub fn announce_cold(vault: &Vault) -> crate::Result<(Vec<ColdMemory>, Option<String>)> {
    let (items, reset) = crate::lifecycle::views::announce_cold(vault)?;
    Ok((items.into_iter().map(Into::into).collect(), reset.map(|r| r.to_string())))
}
