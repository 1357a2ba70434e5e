//! `maintain`: the self-maintenance jobs (dead links, importance, cold memories, merge and split
//! candidates, expiry).

use super::*;

/// A link from a memory to one that no longer exists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeadLink {
    /// The memory holding the link.
    pub source: String,
    /// The missing memory it names.
    pub target: String,
    /// The memory that replaced the missing one (from its trash entry's `superseded_by`), when
    /// known: `maintain` rewrote the link to it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub successor: Option<String>,
}

/// A cold memory.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColdEntry {
    /// Its name.
    pub name: String,
    /// Its id.
    pub id: String,
    /// Its temperature now.
    pub temperature: f64,
}

/// A long, used memory worth splitting (MIRA).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SplitCandidate {
    /// Its name.
    pub name: String,
    /// Estimated tokens of its body (more than [`SPLIT_MIN_TOKENS`]).
    pub tokens: usize,
    /// Its age in days on the configured clock (at least [`SPLIT_MIN_AGE_DAYS`]).
    pub age_days: f64,
    /// Reads and search hits (at least [`SPLIT_MIN_ACCESSES`]).
    pub access_count: u64,
    /// Its top-level sections: `split` by headings works from 2.
    pub sections: usize,
}

/// One memory's importance in an [`ImportanceSummary`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportanceEntry {
    /// Its name.
    pub name: String,
    /// Its importance, in [0, 1).
    pub importance: f64,
}

/// What `maintain` found recomputing importance.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ImportanceSummary {
    /// Memories whose importance was computed: every indexed memory, any status.
    pub computed: usize,
    /// Mean importance of the active memories not faded out past `expires_at`.
    pub mean: f64,
    /// The most important of those, highest first (at most [`IMPORTANCE_SHOWN`]).
    pub top: Vec<ImportanceEntry>,
    /// The least important of those, lowest first (at most [`IMPORTANCE_SHOWN`]).
    pub bottom: Vec<ImportanceEntry>,
}

/// How many memories [`ImportanceSummary::top`] and [`ImportanceSummary::bottom`] list.
pub const IMPORTANCE_SHOWN: usize = 5;

/// What one `maintain` run found and changed.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MaintainReport {
    /// Links to missing memories, sorted.
    pub dead_links: Vec<DeadLink>,
    /// Memories whose dead links were rewritten to the missing memory's successor (history kept).
    pub healed: Vec<WriteOutcome>,
    /// Graph node and edge counts. The graph collects orphan ghost and entity nodes itself as
    /// links change, so there is nothing left to collect here; `missing` counts the missing
    /// memories that something still links to.
    pub graph: GraphStats,
    /// Importance, recomputed for every memory: how many, and the top and bottom few.
    pub importance: ImportanceSummary,
    /// Cold memories, coldest first.
    pub cold: Vec<ColdEntry>,
    /// Near-duplicate clusters at the configured `merge_threshold` (at most 5).
    pub merge_suggestions: Vec<MergeCluster>,
    /// Long, used memories worth splitting, by name.
    pub split_candidates: Vec<SplitCandidate>,
    /// Memories past `expires_at` and its fade, now archived (history kept; never deleted).
    pub expired: Vec<WriteOutcome>,
    /// Problems met on the way (an unreadable usage state, a memory that could not be read).
    pub problems: Vec<String>,
    /// Temp files left by killed writers, removed (paths relative to the vault root).
    pub temp_files_removed: Vec<String>,
}

impl MaintainReport {
    /// Whether the run changed any file.
    pub fn changed(&self) -> bool {
        !self.healed.is_empty() || !self.expired.is_empty()
    }
}

/// Runs the self-maintenance jobs once and reports what it found and changed.
///
/// - Dead links: every link to a missing memory ([`LinkGraph::dangling`]); when the missing
///   memory has a known successor ([`Vault::successor_of`]: merged or split away), the links to
///   it are rewritten to the successor in every memory (history kept). Other dead links are only
///   reported (never removed from anyone's text).
/// - Graph counts ([`GraphStats`]).
/// - Importance (MIRA) recomputed for every indexed memory from the usage state, the
///   link graph and the frontmatter dates ([`ImportanceSource`]), summarised in
///   [`MaintainReport::importance`]. Importance is never cached, so every reader (search's `mira`
///   profile, `list --sort importance`) already sees these values; MIRA's maintenance archives
///   memories whose importance reaches 0, which only happens past `expires_at` and its fade —
///   the expiry job below.
/// - Cold memories (active ones, from the usage state; pinned never count).
/// - Merge suggestions: [`suggest_merges`] at `lifecycle.merge_threshold`, at most 5.
/// - Split candidates (MIRA): active memories of more than [`SPLIT_MIN_TOKENS`] estimated tokens,
///   at least [`SPLIT_MIN_AGE_DAYS`] old on the configured clock, read or found at least
///   [`SPLIT_MIN_ACCESSES`] times.
/// - Expiry: active memories whose `expires_at` plus the fade (`search.expiry_fade_days`) has
///   passed are archived (`status: archived`, history kept) — never deleted.
///
/// Decisions use `now`; written timestamps come from the vault's clock. It reads the index's
/// view of the vault (reconcile first) and does not update the index (reconcile after, when
/// [`MaintainReport::changed`]). A second run changes nothing.
///
/// [`LinkGraph::dangling`]: crate::index::graph::LinkGraph::dangling
pub fn maintain(vault: &Vault, idx: &Indexes, now: Timestamp) -> crate::Result<MaintainReport> {
    let mut report = MaintainReport { graph: idx.graph().stats(), ..MaintainReport::default() };
    report.temp_files_removed = vault
        .clean_stale_temps()
        .iter()
        .map(|p| p.strip_prefix(vault.root()).unwrap_or(p).to_string_lossy().replace('\\', "/"))
        .collect();
    let manifest = idx.manifest();
    let cfg = &vault.config.lifecycle;

    // Dead links, healed when the missing memory has a successor.
    let bare = |key: &str| key.strip_prefix("memory:").unwrap_or(key).to_owned();
    let dangling: Vec<(String, String)> =
        idx.graph().dangling().into_iter().map(|(s, t)| (bare(&s), bare(&t))).collect();
    // The trash is listed once for all the missing memories (not once per missing memory).
    let successors = vault.successors_of(dangling.iter().map(|(_, t)| t.as_str()));
    for (source, target) in dangling {
        let successor = successors.get(&target).cloned().flatten();
        report.dead_links.push(DeadLink { source, target, successor });
    }
    for (missing, successor) in &successors {
        let Some(successor) = successor else { continue };
        let (Ok(from), Ok(to)) = (MemoryName::parse(missing), MemoryName::parse(successor)) else {
            continue;
        };
        for out in vault.rewrite_links(&from, &to)? {
            if out.status == WriteStatus::Updated {
                report.healed.push(out);
            }
        }
    }

    // Cold memories and split candidates need the usage state.
    let (store, reset) = UsageStore::open(vault.root())?;
    if let Some(reset) = reset {
        report.problems.push(reset.to_string());
    }
    let state = store.state();
    let active: Vec<(&String, &Entry)> =
        manifest.entries().iter().filter(|(_, e)| e.status == "active").collect();
    report.importance = summarize_importance(idx, state, now, cfg.clock);
    let by_id: HashMap<&str, &str> =
        active.iter().map(|(n, e)| (e.id.as_str(), n.as_str())).collect();
    report.cold = state
        .cold_set(
            active.iter().map(|(_, e)| (e.id.as_str(), e.pinned)),
            cfg.cold_threshold,
            now,
            cfg,
        )
        .into_iter()
        .filter_map(|c| {
            let name = by_id.get(c.id.as_str())?;
            Some(ColdEntry { name: (*name).to_owned(), id: c.id, temperature: c.temperature })
        })
        .collect();

    report.merge_suggestions = suggest_merges(vault, idx, cfg.merge_threshold, None, 5)?;

    let scrub = vault.config.privacy.scrub_secrets;
    for (name, entry) in &active {
        // tokens = ⌈chars / 4⌉ and chars ≤ bytes: smaller files cannot qualify.
        if entry.size <= (SPLIT_MIN_TOKENS * 4) as u64 {
            continue;
        }
        let Some(usage) = state.get(&entry.id) else { continue };
        if usage.access_count < SPLIT_MIN_ACCESSES {
            continue;
        }
        let created = Timestamp::from_second(entry.created).unwrap_or(now);
        let age = age_days(cfg.clock, created, now, state.activity_days());
        if age < SPLIT_MIN_AGE_DAYS {
            continue;
        }
        let Ok(mname) = MemoryName::parse(name) else { continue };
        let memory = match vault.load(&mname) {
            Ok(m) => m,
            Err(e) => {
                report.problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        let body = memory.redacted_content(scrub);
        let tokens = estimate_tokens(&body);
        if tokens > SPLIT_MIN_TOKENS {
            report.split_candidates.push(SplitCandidate {
                name: (*name).clone(),
                tokens,
                age_days: age,
                access_count: usage.access_count,
                sections: sections_of(&body).sections.len(),
            });
        }
    }

    // Expiry: archive, never delete. The file is checked again (the index may be stale).
    let fade = vault.config.search.expiry_fade_days;
    for (name, entry) in &active {
        if !entry.expires_at.is_some_and(|e| is_expired(e, now, fade)) {
            continue;
        }
        let Ok(mname) = MemoryName::parse(name) else { continue };
        let Ok(memory) = vault.load(&mname) else { continue };
        let still_expired =
            memory.meta.expires_at.is_some_and(|e| is_expired(e.as_second(), now, fade));
        if memory.status != "active" || !still_expired {
            continue;
        }
        let out = vault.archive(&memory, None, "expire")?;
        if out.status == WriteStatus::Updated {
            report.expired.push(out);
        }
    }
    Ok(report)
}

/// Importance of every indexed memory, summarised over the active ones still in search.
fn summarize_importance(
    idx: &Indexes,
    state: &UsageState,
    now: Timestamp,
    clock: crate::config::ClockKind,
) -> ImportanceSummary {
    let all = ImportanceSource::new(idx, state, now, clock).all();
    let manifest = idx.manifest();
    let mut ranked: Vec<ImportanceEntry> = all
        .iter()
        .filter(|(name, imp)| {
            !imp.is_expired() && manifest.get(name).is_some_and(|e| e.status == "active")
        })
        .map(|(name, imp)| ImportanceEntry { name: name.clone(), importance: imp.score })
        .collect();
    ranked.sort_by(|a, b| b.importance.total_cmp(&a.importance).then_with(|| a.name.cmp(&b.name)));
    let mean = if ranked.is_empty() {
        0.0
    } else {
        ranked.iter().map(|e| e.importance).sum::<f64>() / ranked.len() as f64
    };
    let top = ranked.iter().take(IMPORTANCE_SHOWN).cloned().collect();
    let bottom = ranked.iter().rev().take(IMPORTANCE_SHOWN).cloned().collect();
    ImportanceSummary { computed: all.len(), mean, top, bottom }
}
