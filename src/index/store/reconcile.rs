//! Reconciling the indices with the memory files: what changed, re-chunk, re-embed, commit.

use super::*;
use crate::index::keyword::KeywordWriter;
use crate::vault::PathState;

/// What a reconcile looks at: the memory files' stats, sorted by name, of the whole vault
/// (`gone` `None`), or of the paths a [`Indexes::reconcile_paths`] was given, with the names
/// there that have no file any more.
struct Scope {
    stats: Vec<Stat>,
    gone: Option<Vec<String>>,
    /// With a content-hash check: the files whose content did not match the manifest when
    /// checked before the lock. Only these are read again under it, so the lock is not held
    /// while the whole vault is read.
    stale: Option<Vec<Stat>>,
}

/// Whether the content of the file of `s` has the xxh3 `hash` (hex) a manifest entry records;
/// `None` when it cannot be read.
fn content_matches(vault: &Vault, s: &Stat, hash: &str) -> Option<bool> {
    // A step a test can count: each file's content is read once per check.
    let _ = crate::failpoint::step("reconcile.hash");
    let bytes = vault.read_memory(&s.name).ok()?;
    Some(format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes)) == hash)
}

impl Indexes {
    /// Brings the indices up to date with the files: cheap when nothing changed.
    pub fn reconcile(&mut self, vault: &Vault) -> crate::Result<ReconcileReport> {
        self.reconcile_with(vault, false, false, &mut |_| {})
    }

    /// Like [`Indexes::reconcile`], but also reads every file whose stat is unchanged and
    /// compares its content hash with the manifest (an edit that left the whole stat as it was,
    /// which off Unix, with no ctime, is one that kept the size and mtime, is found).
    /// Costs a read of the whole vault; the watcher runs it once on start.
    pub fn reconcile_verify(&mut self, vault: &Vault) -> crate::Result<ReconcileReport> {
        self.reconcile_with(vault, false, true, &mut |_| {})
    }

    /// Rebuilds everything from the files.
    pub fn rebuild(
        &mut self,
        vault: &Vault,
        progress: &mut dyn FnMut(Progress),
    ) -> crate::Result<ReconcileReport> {
        self.reconcile_with(vault, true, false, progress)
    }

    /// After a reconcile that stopped before it committed: the stores and the manifest held here
    /// may be half updated, so the next reconcile starts again from what is on disk (for indices
    /// in memory only: from the files).
    fn forget_unsaved(&mut self) {
        self.written = None;
        self.keys = std::sync::OnceLock::new();
        if self.ephemeral {
            self.needs_rebuild.get_or_insert_with(|| "an update stopped half way".into());
        } else {
            // The manifest on disk decides what the next reconcile finds changed.
            self.manifest = Manifest::load(&self.dir).unwrap_or_default();
        }
    }

    /// The files whose stat matches the manifest but whose content hash does not.
    pub(super) fn hash_mismatches(&self, vault: &Vault, stats: &[Stat]) -> Vec<Stat> {
        stats
            .iter()
            .filter(|s| {
                let Some(e) = self.manifest.get_ref(s.name.as_str()) else { return false };
                if !s.matches(e) {
                    return false; // already a candidate
                }
                content_matches(vault, s, e.hash()) == Some(false)
            })
            .cloned()
            .collect()
    }

    /// Whether the file of `s` is the one its entry records although that entry has no ctime
    /// (a manifest before format 9): the same size and mtime, and the same content hash.
    pub(super) fn same_but_ctime(&self, vault: &Vault, s: &Stat) -> bool {
        let Some(e) = self.manifest.get_ref(s.name.as_str()) else { return false };
        if e.ctime_ns().is_some() || e.size() != s.size || e.mtime_ns() != s.mtime_ns {
            return false;
        }
        content_matches(vault, s, e.hash()) == Some(true)
    }

    /// Files new or changed by their stat, names no longer on disk, and the unchanged count.
    /// `stats` is sorted by name ([`Vault::files`]), like the manifest: one merge pass.
    pub(super) fn diff(&self, stats: &[Stat]) -> (Vec<Stat>, Vec<String>, usize) {
        debug_assert!(stats.windows(2).all(|w| w[0].name < w[1].name));
        let mut maybe_changed = Vec::new();
        let mut removed = Vec::new();
        let mut unchanged = 0;
        // Sizes, mtimes and ctimes are compared in the manifest's records, nothing decoded.
        let mut entries = self.manifest.iter().peekable();
        for s in stats {
            while let Some((name, _)) = entries.next_if(|(n, _)| *n < s.name.as_str()) {
                removed.push(name.to_owned());
            }
            match entries.next_if(|(n, _)| *n == s.name.as_str()) {
                Some((_, e)) if s.matches(e) => unchanged += 1,
                _ => maybe_changed.push(s.clone()),
            }
        }
        removed.extend(entries.map(|(name, _)| name.to_owned()));
        (maybe_changed, removed, unchanged)
    }

    /// Like [`Indexes::reconcile`], for a caller that knows which paths changed since the
    /// indices last matched the files (the MCP server and `memlane watch`, from the watcher's
    /// events): only those paths are stat-ed, instead of the whole vault, and a path whose stat
    /// did not change is read and compared by content hash (an event says it was written, and
    /// off Unix, where no ctime is recorded, an edit that restored the file's size and mtime, as
    /// `cp -p` or `rsync -t` do, shows in no stat).
    /// When a path cannot be judged alone (a folder, a symbolic link on the way, see
    /// [`Vault::path_state`]) or the indices need a rebuild, it is a whole
    /// [`Indexes::reconcile`]. The report's `unchanged` counts the given paths only.
    pub fn reconcile_paths(
        &mut self,
        vault: &Vault,
        paths: &[std::path::PathBuf],
    ) -> crate::Result<ReconcileReport> {
        let mut stats = Vec::new();
        let mut gone = Vec::new();
        for path in paths {
            match vault.path_state(path) {
                PathState::Memory(f) => stats.push(Stat::from(f)),
                PathState::Gone(name) => gone.push(name.to_string()),
                PathState::NotAMemory => {}
                PathState::Unsure => return self.reconcile(vault),
            }
        }
        if self.needs_rebuild.is_some() || self.snapshot {
            return self.reconcile(vault);
        }
        stats.sort_by(|a, b| a.name.cmp(&b.name));
        stats.dedup_by(|a, b| a.name == b.name);
        gone.sort();
        gone.dedup();
        self.reconcile_in(
            vault,
            Some(Scope { stats, gone: Some(gone), stale: None }),
            false,
            true,
            &mut |_| {},
        )
    }

    /// [`Indexes::reconcile`] with the vault's stats taken already ([`Indexes::stat_vault`],
    /// after or while this `Indexes` was opened).
    pub(super) fn reconcile_stats(
        &mut self,
        vault: &Vault,
        stats: Vec<Stat>,
    ) -> crate::Result<ReconcileReport> {
        self.reconcile_in(
            vault,
            Some(Scope { stats, gone: None, stale: None }),
            false,
            false,
            &mut |_| {},
        )
    }

    /// The change `stats` shows: against the whole manifest, or (`gone` given) for the names
    /// in `stats` and `gone` only.
    fn diff_in(&self, stats: &[Stat], gone: Option<&[String]>) -> (Vec<Stat>, Vec<String>, usize) {
        let Some(gone) = gone else { return self.diff(stats) };
        let mut maybe_changed = Vec::new();
        let mut unchanged = 0;
        for s in stats {
            match self.manifest.get_ref(s.name.as_str()) {
                Some(e) if s.matches(e) => unchanged += 1,
                _ => maybe_changed.push(s.clone()),
            }
        }
        let removed = gone.iter().filter(|n| self.manifest.contains(n.as_str())).cloned().collect();
        (maybe_changed, removed, unchanged)
    }

    pub(super) fn reconcile_with(
        &mut self,
        vault: &Vault,
        force: bool,
        verify: bool,
        progress: &mut dyn FnMut(Progress),
    ) -> crate::Result<ReconcileReport> {
        self.reconcile_in(vault, None, force, verify, progress)
    }

    /// The reconcile: of the whole vault (`scope` `None`), or of the paths in `scope`. Four
    /// stages under the write lock: [`plan`](Self::plan) what changed on disk against the
    /// manifest, [`prepare`](Self::prepare) the changed memories (read, parse, chunk, links),
    /// [`apply`](Self::apply) them to the keyword, vector and graph stores (embedding the
    /// chunks), [`commit`](Self::commit) the stores, the manifest and the durable markers.
    fn reconcile_in(
        &mut self,
        vault: &Vault,
        scope: Option<Scope>,
        force: bool,
        verify: bool,
        progress: &mut dyn FnMut(Progress),
    ) -> crate::Result<ReconcileReport> {
        let mut clock = Timings { start: Instant::now(), ..Default::default() };
        let scope = match self.check(vault, scope, force, verify, clock.start)? {
            Step::Next(scope) => scope,
            Step::Done(report) => return Ok(*report),
        };
        if self.snapshot {
            // Read from disk and now out of date: rebuilt in memory from the files.
            self.snapshot = false;
            self.needs_rebuild
                .get_or_insert_with(|| "the indices on disk cannot be written".into());
        }
        let mut held = if self.ephemeral { None } else { Some(self.take_lock()?) };
        clock.lock = clock.start.elapsed();
        let res = self.reconcile_locked(vault, scope, force, verify, progress, &mut held, clock);
        if let Some(mut held) = held {
            if res.is_err()
                && let Err(e) = held.finish_writer()
            {
                // A write that failed half way: its keyword writer is closed (the changes it
                // did not commit are dropped) before the lock is let go.
                tracing::warn!("{}", error_chain(&e));
            }
            self.release_lock(held);
        }
        res
    }

    /// [`reconcile_in`](Self::reconcile_in) under the index lock (`held`, `None` for indices in
    /// memory): a small write's keyword writer is left in `held` while its merge runs on.
    #[allow(clippy::too_many_arguments)]
    fn reconcile_locked(
        &mut self,
        vault: &Vault,
        scope: Scope,
        force: bool,
        verify: bool,
        progress: &mut dyn FnMut(Progress),
        held: &mut Option<HeldLock>,
        mut clock: Timings,
    ) -> crate::Result<ReconcileReport> {
        if self.reload(vault)?
            && let Some(h) = held.as_mut()
        {
            // Opened anew: a writer of the keyword index as it was is closed first.
            h.finish_writer()?;
        }
        clock.open = clock.start.elapsed();
        let plan = match self.plan(vault, scope, force, verify, clock)? {
            Step::Next(plan) => plan,
            Step::Done(report) => return Ok(*report),
        };
        let prepared = self.prepare(vault, plan)?;
        let p = &prepared.plan;
        if p.rebuild.is_none() && p.removed.is_empty() && prepared.pending.is_empty() {
            // Only touched files: their new stats are the whole change.
            let mut report = prepared.plan.report;
            if !self.ephemeral {
                self.manifest.save(&self.dir)?;
                self.written = Some(disk_stamp(&self.dir));
            }
            report.elapsed_ms = clock.start.elapsed().as_millis() as u64;
            return Ok(report);
        }
        let applied = self.apply(vault, prepared, held.as_mut(), progress)?;
        self.commit(applied, held.as_mut())
    }

    /// The quick look before the lock: the stats of the scope (the whole vault when `None`)
    /// against the manifest, and with `verify` the content hashes of the files whose stat did
    /// not change. Done when nothing changed and no rebuild is due.
    fn check(
        &self,
        vault: &Vault,
        scope: Option<Scope>,
        force: bool,
        verify: bool,
        start: Instant,
    ) -> crate::Result<Step<Scope>> {
        let (stats, gone) = match scope {
            Some(Scope { stats, gone, .. }) => (stats, gone),
            None => (Self::stat_vault(vault)?, None),
        };
        let t_stat = start.elapsed();
        let (mut maybe_changed, removed, mut unchanged) = self.diff_in(&stats, gone.as_deref());
        let mut stale = None;
        if verify && !force {
            let found = self.hash_mismatches(vault, &stats);
            unchanged -= found.len();
            maybe_changed.extend(found.iter().cloned());
            stale = Some(found);
        }
        tracing::debug!(
            files = stats.len(),
            stat_ms = t_stat.as_secs_f64() * 1e3,
            diff_ms = (start.elapsed() - t_stat).as_secs_f64() * 1e3,
            "reconcile checked the vault"
        );
        // A manifest read in an older format is saved in this one, even with nothing changed.
        let upgrade = self.manifest.upgrade_due() && !self.ephemeral;
        if !force
            && self.needs_rebuild.is_none()
            && maybe_changed.is_empty()
            && removed.is_empty()
            && !upgrade
        {
            return Ok(Step::Done(Box::new(ReconcileReport { unchanged, ..Default::default() })));
        }
        Ok(Step::Next(Scope { stats, gone, stale }))
    }

    /// Under the lock: another process may have done the work while we waited, so the stores
    /// start from the newest state on disk, unless they are still exactly what this process
    /// last wrote (a long-lived watcher or server then skips reloading the vectors and the
    /// graph). Says whether the stores were opened anew.
    fn reload(&mut self, vault: &Vault) -> crate::Result<bool> {
        let known = self.written.take();
        if self.ephemeral {
            // Nothing on disk to reload: the stores live in this process only.
        } else if known.is_none()
            || known != Some(disk_stamp(&self.dir))
            || crate::index::confined_io::exists(&self.dir.join(PENDING_FILE))
            // What this process opened read-only is still what is on disk: write on top of
            // it, once every key is checked (a read-only open checks a sample).
            || !self.vector.allow_updates()
        {
            let mut fresh = Indexes::open_mode(vault, self.embedder.clone(), false)?;
            let earlier = self.damage.take();
            // What this process embedded so far stays at hand.
            fresh.cache = self.cache.clone();
            fresh.lingering = self.lingering.clone();
            fresh.merge_in_background = self.merge_in_background;
            *self = fresh;
            self.damage = earlier.or(self.damage.take());
            return Ok(true);
        }
        Ok(false)
    }

    /// **Plan**: under the lock, what changed on disk against the (reloaded) manifest: the
    /// files new or changed by their stat (or content hash, with `verify`), the memories gone,
    /// and whether everything is rebuilt (`force`, or damaged indices). Done when another
    /// process did the work while this one waited for the lock.
    fn plan(
        &mut self,
        vault: &Vault,
        scope: Scope,
        force: bool,
        verify: bool,
        clock: Timings,
    ) -> crate::Result<Step<Plan>> {
        let Scope { mut stats, mut gone, stale } = scope;
        let rebuild = if force { Some("requested".to_owned()) } else { self.needs_rebuild.take() };
        if rebuild.is_some() && gone.is_some() {
            // A rebuild reads every file.
            stats = Self::stat_vault(vault)?;
            gone = None;
        }
        let (mut maybe_changed, mut removed, mut unchanged) = if rebuild.is_some() {
            (stats.clone(), Vec::new(), 0)
        } else {
            self.diff_in(&stats, gone.as_deref())
        };
        if gone.is_none() && !removed.is_empty() {
            // The stats were taken before the lock (while the indices opened): a memory another
            // process created and indexed since is in the reloaded manifest but not in them.
            // Only a name whose file is gone now is removed; one still there is looked at again.
            let listed = stats.len();
            removed.retain(|name| {
                let Ok(mname) = MemoryName::parse(name) else { return true };
                match vault.path_state(&vault.path_of(&mname)) {
                    PathState::Memory(f) => {
                        let stat = Stat::from(f);
                        maybe_changed.push(stat.clone());
                        stats.push(stat);
                        false
                    }
                    _ => true,
                }
            });
            if stats.len() > listed {
                stats.sort_by(|a, b| a.name.cmp(&b.name));
            }
        }
        if verify && rebuild.is_none() {
            // Only what the check before the lock found stale is read again: an edit after that
            // check that leaves the whole stat as it was is the watcher's to report.
            let stale = self.hash_mismatches(vault, stale.as_deref().unwrap_or(&stats));
            unchanged -= stale.len();
            maybe_changed.extend(stale);
        }
        if rebuild.is_none() && maybe_changed.is_empty() && removed.is_empty() {
            // Another process did the work while we waited for the lock: nothing to write,
            // unless the manifest is still in an older format.
            if self.manifest.upgrade_due() && !self.ephemeral {
                self.manifest.save(&self.dir)?;
            }
            self.written = (!self.ephemeral).then(|| disk_stamp(&self.dir));
            return Ok(Step::Done(Box::new(ReconcileReport {
                unchanged,
                elapsed_ms: clock.start.elapsed().as_millis() as u64,
                ..Default::default()
            })));
        }
        let report = ReconcileReport { unchanged, ..Default::default() };
        Ok(Step::Next(Plan { stats, gone, rebuild, maybe_changed, removed, report, clock }))
    }

    /// **Prepare**: every changed file read, hashed and chunked, its links found, before any
    /// store is touched. A file whose content hash did not change only gets its new stat. The
    /// link graph is loaded when a link changes (or a memory comes or goes), unless the change
    /// is only new and removed memories that the graph's journal can take unloaded
    /// ([`Indexes::unloaded_ok`]); an unreadable graph turns the plan into a rebuild.
    fn prepare(&mut self, vault: &Vault, mut plan: Plan) -> crate::Result<Prepared> {
        let on_disk = match &plan.gone {
            None => OnDisk::Listed(plan.stats.iter().map(|s| s.name.to_string()).collect()),
            // Only the given paths were looked at: a link's target is stat-ed when a link needs
            // it, instead of a set of every memory's name built for each write.
            Some(_) => OnDisk::Stat,
        };
        loop {
            if plan.rebuild.is_some() {
                self.manifest.reset(self.embedder.id(), self.embedder.dim());
            } else {
                self.manifest.ensure_header(self.embedder.id(), self.embedder.dim());
            }
            let is_memory = |n: &str| on_disk.contains(vault, n);
            let pending =
                self.read_changed(vault, &plan.maybe_changed, &mut plan.report, &is_memory);
            let unloaded = plan.rebuild.is_none()
                && self.graph.get().is_none()
                && pending.iter().all(|p| !p.relink || !p.existed)
                && self.unloaded_ok(pending.iter().filter(|p| p.relink).map(|p| p.name.as_str()));
            let needs_graph = plan.rebuild.is_none()
                && !unloaded
                && (!plan.removed.is_empty() || pending.iter().any(|p| p.relink))
                && self.graph.get().is_none();
            if needs_graph {
                match LinkGraph::load(&self.dir.join("graph")).map_err(IndexError::from)? {
                    Some(g) => {
                        let _ = self.graph.set(g);
                    }
                    None => {
                        // Unreadable: rebuild everything from the files instead.
                        plan.rebuild = Some("the link graph was unreadable".to_owned());
                        if plan.gone.take().is_some() {
                            plan.stats = Self::stat_vault(vault)?;
                        }
                        plan.maybe_changed = plan.stats.clone();
                        plan.removed.clear();
                        plan.report = ReconcileReport::default();
                        continue;
                    }
                }
            }
            return Ok(Prepared { plan, pending, on_disk, unloaded });
        }
    }

    /// The changed files of [`prepare`](Self::prepare), read and parsed; a file that cannot be
    /// read or parsed is a problem in the report, a touched one (same content hash) only
    /// updates its stat in the manifest.
    fn read_changed(
        &mut self,
        vault: &Vault,
        maybe_changed: &[Stat],
        report: &mut ReconcileReport,
        is_memory: &(dyn Fn(&str) -> bool + Sync),
    ) -> Vec<Pending> {
        /// What reading one file found.
        enum Read {
            Problem(String),
            /// The same content: the new stat is all that changed.
            Touched(String, Box<Entry>),
            Changed(Box<Pending>),
        }
        let manifest = &self.manifest;
        let read = |s: &Stat| -> Read {
            // A step a test can count: each file a reconcile reads.
            let _ = crate::failpoint::step("reconcile.read");
            let path = vault.path_of(&s.name);
            let bytes = match vault.read_memory(&s.name) {
                Ok(b) => b,
                Err(Error::Io(e)) => {
                    return Read::Problem(format!("{}: cannot read: {}", s.name, e.source));
                }
                Err(e) => return Read::Problem(format!("{}: cannot read: {e}", s.name)),
            };
            let hash = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes));
            let old = manifest.get(s.name.as_str());
            if let Some(old) = old.filter(|o| o.hash == hash) {
                let mut e = old.clone();
                e.size = s.size;
                e.mtime_ns = s.mtime_ns;
                e.ctime_ns = Some(s.ctime_ns);
                return Read::Touched(s.name.to_string(), Box::new(e));
            }
            let Ok(raw) = String::from_utf8(bytes) else {
                return Read::Problem(format!("{}: not UTF-8 text; not indexed", s.name));
            };
            match vault.memory_from_text(s.name.clone(), path, raw) {
                Ok(memory) => {
                    Read::Changed(Box::new(Pending::new(vault, s, hash, memory, old, is_memory)))
                }
                Err(e) => Read::Problem(format!("{}: {e}", s.name)),
            }
        };
        // Many files (a `reindex`, a first index): read and parsed on every core, in order.
        let found = crate::par::map_in_order(maybe_changed, PARALLEL_READ, read);
        let mut pending: Vec<Pending> = Vec::new();
        for r in found {
            match r {
                Read::Problem(p) => report.problems.push(p),
                Read::Touched(name, e) => {
                    self.manifest.insert(name, *e);
                    report.unchanged += 1;
                }
                Read::Changed(p) => pending.push(*p),
            }
        }
        pending
    }

    /// **Apply**: the plan's removals, then every prepared memory, written to the keyword,
    /// vector and graph stores (a rebuild starts them empty), nothing committed yet; then the
    /// links to a ghost of a new memory's name are pointed at it.
    fn apply(
        &mut self,
        vault: &Vault,
        prepared: Prepared,
        held: Option<&mut HeldLock>,
        progress: &mut dyn FnMut(Progress),
    ) -> crate::Result<Applied> {
        let Prepared { plan, pending, on_disk, unloaded } = prepared;
        let Plan { rebuild, removed, mut report, mut clock, .. } = plan;
        let graph_changed =
            rebuild.is_some() || !removed.is_empty() || pending.iter().any(|p| p.relink);
        let small = rebuild.is_none() && pending.len() + removed.len() <= SMALL_CHANGE;
        // A small writer an earlier write left merging goes on; any other is closed first.
        let kept = held.and_then(|h| h.writer.take());
        let mut kw = match kept {
            Some(kw) if small => kw,
            kept => {
                if let Some(kw) = kept {
                    kw.finish().map_err(IndexError::from)?;
                }
                if small { self.keyword.small_writer() } else { self.keyword.writer() }
                    .map_err(IndexError::from)?
            }
        };
        if rebuild.is_some() {
            self.graph = std::sync::OnceLock::from(LinkGraph::new());
            kw.delete_all().map_err(IndexError::from)?;
            self.vector = if self.ephemeral {
                VectorIndex::create_in_memory(self.embedder.id(), self.embedder.dim())
            } else {
                VectorIndex::create(
                    &self.dir.join("vector"),
                    self.embedder.id(),
                    self.embedder.dim(),
                )
            }
            .map_err(IndexError::from)?;
        }
        let mut applied = Applied {
            kw,
            key_changes: Vec::new(),
            live: Vec::new(),
            pending: Vec::new(),
            removed,
            rebuild,
            unloaded,
            graph_changed,
            report: ReconcileReport::default(),
            clock,
        };
        self.remove_memories(&mut applied, &mut report)?;
        self.index_pending(&mut applied, &pending, &mut report, progress)?;
        if applied.rebuild.is_some() {
            report.added = pending.len();
            report.updated = 0;
        }
        if !unloaded {
            let is_memory = |n: &str| on_disk.contains(vault, n);
            self.relink_ghosts(vault, &pending, &is_memory);
        }
        clock.index = clock.start.elapsed();
        applied.clock = clock;
        applied.pending = pending;
        applied.report = report;
        Ok(applied)
    }

    /// The removals of [`apply`](Self::apply): out of the manifest, the keyword and vector
    /// stores, and the graph (unless its journal takes them unloaded).
    fn remove_memories(
        &mut self,
        a: &mut Applied,
        report: &mut ReconcileReport,
    ) -> crate::Result<()> {
        for name in &a.removed {
            if let Some(old) = self.manifest.remove(name) {
                a.key_changes.push((name.clone(), old.chunks, 0));
                a.kw.delete_memory(name);
                for ord in 0..old.chunks {
                    self.vector.remove(chunk_key(name, ord)).map_err(IndexError::from)?;
                }
                if !a.unloaded {
                    self.graph_mut().remove_memory(&format!("memory:{name}"));
                }
                report.removed += 1;
                report.removed_names.push(name.clone());
            }
        }
        Ok(())
    }

    /// The prepared memories of [`apply`](Self::apply), in order: their chunks embedded
    /// together in groups of about [`EMBED_GROUP`] (a model batches by length; progress moves
    /// and memory stays bounded), their old chunks replaced in the keyword and vector stores,
    /// their links set in the graph, their entries in the manifest. On an embedding error
    /// nothing is committed: the stores on disk and the manifest are as they were (the cache
    /// holds only vectors that were computed), and the memories stay stale until a reconcile
    /// embeds them.
    fn index_pending(
        &mut self,
        a: &mut Applied,
        pending: &[Pending],
        report: &mut ReconcileReport,
        progress: &mut dyn FnMut(Progress),
    ) -> crate::Result<()> {
        let total: usize = pending.iter().map(|p| p.chunks.len()).sum();
        let mut done = 0;
        progress(Progress { done, total });
        let stats_before = self.cache.stats();
        let mut group_start = 0;
        let mut vectors: std::collections::VecDeque<Vec<f32>> = Default::default();
        // The vectors of a group's new memories, added together (on every core) before the next
        // group is embedded.
        let mut new_vectors: Vec<(u64, Vec<f32>)> = Vec::new();
        for (pi, p) in pending.iter().enumerate() {
            if pi == group_start {
                self.add_new_vectors(&mut new_vectors)?;
                let end = embed_group_end(pending, pi);
                vectors = self.embed_group(&pending[pi..end], a)?.into();
                group_start = end;
            }
            let before = self.manifest.get(&p.name).map_or(0, |old| old.chunks);
            a.key_changes.push((p.name.clone(), before, p.chunks.len()));
            if let Some(old) = self.manifest.get(&p.name) {
                a.kw.delete_memory(&p.name);
                for ord in 0..old.chunks {
                    self.vector.remove(chunk_key(&p.name, ord)).map_err(IndexError::from)?;
                }
                for ord in 0..p.chunks.len() {
                    let v = vectors.pop_front().unwrap_or_default();
                    self.vector.upsert(chunk_key(&p.name, ord), &v).map_err(IndexError::from)?;
                }
            } else {
                for ord in 0..p.chunks.len() {
                    let v = vectors.pop_front().unwrap_or_default();
                    new_vectors.push((chunk_key(&p.name, ord), v));
                }
            }
            done += p.chunks.len();
            progress(Progress { done, total });
            p.add_chunks(&mut a.kw)?;
            if (p.relink || a.rebuild.is_some()) && !a.unloaded {
                self.graph_mut().set_links(&format!("memory:{}", p.name), &p.links, LINK_ORIGINS);
            }
            report.chunks += p.chunks.len();
            report.indexed.push(p.name.clone());
            if p.existed {
                report.updated += 1;
            } else {
                report.added += 1;
                report.added_ids.push(p.entry.id.clone());
            }
            self.manifest.insert(p.name.clone(), p.entry.clone());
        }
        self.add_new_vectors(&mut new_vectors)?;
        let stats = self.cache.stats();
        report.embedded = stats.embedded - stats_before.embedded;
        report.reused = stats.hits - stats_before.hits;
        Ok(())
    }

    /// Stores `items` (chunks of memories the index did not hold) in the vector index, emptying
    /// it.
    fn add_new_vectors(&mut self, items: &mut Vec<(u64, Vec<f32>)>) -> crate::Result<()> {
        let refs: Vec<(u64, &[f32])> = items.iter().map(|(k, v)| (*k, v.as_slice())).collect();
        self.vector.add_new(&refs).map_err(IndexError::from)?;
        items.clear();
        Ok(())
    }

    /// The vectors of every chunk of `group`, in order (through the embedding cache). After a
    /// rebuild the texts are kept as the live set of the cache's compaction.
    fn embed_group(&mut self, group: &[Pending], a: &mut Applied) -> crate::Result<Vec<Vec<f32>>> {
        let texts: Vec<String> = group
            .iter()
            .flat_map(|p| {
                p.chunks.iter().map(|c| embed_text(&p.entry.title, &c.header_path, &c.text))
            })
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let got = match self.cache.embed(&refs) {
            Ok(got) => got,
            Err(e) => {
                self.forget_unsaved();
                return Err(e.into());
            }
        };
        if got.len() != refs.len() {
            self.forget_unsaved();
            return Err(IndexError::Embed(format!(
                "{} vectors for {} texts",
                got.len(),
                refs.len()
            ))
            .into());
        }
        if a.rebuild.is_some() {
            a.live.extend(texts);
        }
        Ok(got)
    }

    /// A new memory turns earlier links to a ghost of its name into links to itself: the
    /// memories linking to such a ghost are read again and relinked. (With the graph unloaded,
    /// no ghost has a new memory's name: checked by [`Indexes::unloaded_ok`].)
    fn relink_ghosts(
        &mut self,
        vault: &Vault,
        pending: &[Pending],
        is_memory: &dyn Fn(&str) -> bool,
    ) {
        let mut relink: Vec<String> = Vec::new();
        for p in pending.iter().filter(|p| !p.existed) {
            for ghost in [format!("ghost:{}", p.name), format!("ghost:{}.md", p.name)] {
                for (src, _) in self.graph().memories_linking_to(&ghost) {
                    relink.push(src);
                }
            }
        }
        relink.sort();
        relink.dedup();
        for key in relink {
            let Some(name) = key.strip_prefix("memory:") else { continue };
            let Ok(mname) = MemoryName::parse(name) else { continue };
            let Ok(memory) = vault.load(&mname) else { continue };
            let content = memory.redacted_content(vault.config.privacy.scrub_secrets);
            let links =
                memory_links(&memory, &content, is_memory, vault.config.privacy.scrub_secrets);
            self.graph_mut().set_links(&key, &links, LINK_ORIGINS);
            self.manifest.set_links(name, links_hash(&links));
        }
    }

    /// **Commit**: until the manifest is saved the stores may disagree with it and with each
    /// other, so a durable marker ([`PENDING_FILE`]) is written first and removed last (a crash
    /// in between makes the next open rebuild); in between the keyword index commits, the
    /// vector index and the graph are saved, then the manifest. After a rebuild, still under
    /// the lock, the embedding cache drops what no memory uses.
    fn commit(
        &mut self,
        a: Applied,
        held: Option<&mut HeldLock>,
    ) -> crate::Result<ReconcileReport> {
        let Applied { mut kw, key_changes, live, rebuild, mut report, clock, .. } = a;
        let marker = self.dir.join(PENDING_FILE);
        let disk = !self.ephemeral;
        if disk {
            crate::vault::atomic_write(&marker, b"an index update is being written\n")?;
            // Tests stop the process here, half way through a write.
            crate::failpoint::step("index.commit").at("write", &marker)?;
        }
        kw.commit().map_err(IndexError::from)?;
        let t_kw_commit = clock.start.elapsed();
        // No merge of this writer may outlive the lock (see `KeywordWriter::finish`): a
        // long-lived process keeps the lock and the writer while the merge runs on, and its next
        // write goes on with them (see `Indexes::merge_in_background`); others wait for it.
        match held {
            Some(h) if self.merge_in_background && kw.merging() => h.writer = Some(kw),
            _ => kw.finish().map_err(IndexError::from)?,
        }
        let t_keyword = clock.start.elapsed();
        if disk && (self.vector.has_unsaved_changes() || rebuild.is_some()) {
            self.vector.save().map_err(IndexError::from)?;
        }
        let t_vector = clock.start.elapsed();
        self.commit_graph(&a.pending, &a.removed, a.unloaded, a.graph_changed)?;
        let t_graph = clock.start.elapsed();
        if disk {
            self.manifest.save(&self.dir)?;
            crate::index::confined_io::remove_file(&marker).at("remove", &marker)?;
        }
        self.update_keys(rebuild.is_some(), &key_changes);
        self.written = disk.then(|| disk_stamp(&self.dir));
        if disk && rebuild.is_some() {
            match self.cache.compact(live.iter().map(String::as_str)) {
                Ok(kept) => tracing::debug!(kept, "embedding cache compacted"),
                Err(e) => tracing::debug!(error = %e, "cannot compact the embedding cache"),
            }
        }
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        tracing::debug!(
            lock_ms = ms(clock.lock),
            reopen_ms = ms(clock.open - clock.lock),
            index_ms = ms(clock.index - clock.open),
            keyword_commit_ms = ms(t_kw_commit - clock.index),
            keyword_merge_wait_ms = ms(t_keyword - t_kw_commit),
            keyword_segments = self.keyword.segments().len(),
            vector_save_ms = ms(t_vector - t_keyword),
            graph_save_ms = ms(t_graph - t_vector),
            manifest_save_ms = ms(clock.start.elapsed() - t_graph),
            embedded = report.embedded,
            reused = report.reused,
            "reconcile wrote the indices"
        );
        if rebuild.is_some() {
            report.repaired = self.damage.take();
        }
        report.rebuilt = rebuild;
        // A file indexed now that shares its id with another memory (a hand copy) is reported:
        // id-based operations (history, restore) refuse such memories.
        if !report.indexed.is_empty() {
            for (id, names) in self.manifest.duplicate_ids_of(&report.indexed) {
                report.problems.push(duplicate_id_message(&id, &names));
            }
        }
        report.elapsed_ms = clock.start.elapsed().as_millis() as u64;
        Ok(report)
    }

    /// The graph's part of [`commit`](Self::commit): appended to its journal without loading
    /// it when [`apply`](Self::apply) left it unloaded and the journal has room; else saved
    /// from memory (loaded first and changed when it was unloaded). Either way its content
    /// needs no check by the next reader.
    fn commit_graph(
        &mut self,
        pending: &[Pending],
        removed: &[String],
        unloaded: bool,
        graph_changed: bool,
    ) -> crate::Result<()> {
        let added: Vec<(String, &[OutLink])> = pending
            .iter()
            .filter(|p| unloaded && p.relink)
            .map(|p| (format!("memory:{}", p.name), p.links.as_slice()))
            .collect();
        let removed_keys: Vec<String> =
            (removed.iter()).filter(|_| unloaded).map(|n| format!("memory:{n}")).collect();
        let gdir = self.dir.join("graph");
        let appended = graph_changed
            && unloaded
            && LinkGraph::append_unloaded(&gdir, &added, &removed_keys)
                .map_err(IndexError::from)?;
        if appended {
            self.update_supersedes_unloaded(&added, &removed_keys)?;
            record_verified(&self.dir, &[GRAPH_REL, GRAPH_JOURNAL_REL]);
        } else if graph_changed {
            if unloaded {
                // The journal is full: load the graph as it was, apply, save it whole.
                for key in &removed_keys {
                    self.graph_mut().remove_memory(key);
                }
                for (key, links) in &added {
                    self.graph_mut().set_links(key, links, LINK_ORIGINS);
                }
            }
            if !self.ephemeral {
                self.graph_mut().save_changes(&gdir).map_err(IndexError::from)?;
            }
            self.save_supersedes()?;
            record_verified(&self.dir, &[GRAPH_REL, GRAPH_JOURNAL_REL]);
        }
        Ok(())
    }
}

/// A stage's outcome: go on with `T`, or the reconcile is over with this report.
enum Step<T> {
    Next(T),
    Done(Box<ReconcileReport>),
}

/// When each part of a reconcile ended, since it began (logged at debug level).
#[derive(Debug, Clone, Copy)]
struct Timings {
    start: Instant,
    lock: Duration,
    open: Duration,
    index: Duration,
}

impl Default for Timings {
    fn default() -> Self {
        Timings {
            start: Instant::now(),
            lock: Duration::ZERO,
            open: Duration::ZERO,
            index: Duration::ZERO,
        }
    }
}

/// What [`Indexes::plan`] found to do.
struct Plan {
    /// The stats looked at (the whole vault after a rebuild was decided).
    stats: Vec<Stat>,
    /// The names given that have no file any more (`None`: the whole vault was stat-ed).
    gone: Option<Vec<String>>,
    /// Why everything is rebuilt, if it is.
    rebuild: Option<String>,
    /// Files new or changed by their stat (or hash).
    maybe_changed: Vec<Stat>,
    /// Memories in the manifest with no file any more.
    removed: Vec<String>,
    report: ReconcileReport,
    clock: Timings,
}

/// A changed memory, read, hashed and chunked, and its links ([`Indexes::prepare`]).
struct Pending {
    name: String,
    memory: Memory,
    entry: Entry,
    chunks: Vec<crate::index::chunk::Chunk>,
    links: Vec<OutLink>,
    existed: bool,
    /// Whether its links differ from those in the graph (by the manifest's hash).
    relink: bool,
}

impl Pending {
    /// The memory parsed from file `s` with content hash `hash`: its redacted content chunked,
    /// its title (the first heading, else the file's stem), its links and its manifest entry;
    /// `old` is its entry before, if it had one.
    fn new(
        vault: &Vault,
        s: &Stat,
        hash: String,
        memory: Memory,
        old: Option<&Entry>,
        is_memory: &(dyn Fn(&str) -> bool + Sync),
    ) -> Pending {
        let content = memory.redacted_content(vault.config.privacy.scrub_secrets);
        let chunks = chunk_markdown(&content, &ChunkOptions::default());
        let title = markdown_title(&content)
            .unwrap_or_else(|| memory.name.file_stem().replace(['-', '_'], " "));
        let links = memory_links(&memory, &content, is_memory, vault.config.privacy.scrub_secrets);
        let links_hash = links_hash(&links);
        let entry = Entry {
            size: s.size,
            mtime_ns: s.mtime_ns,
            ctime_ns: Some(s.ctime_ns),
            hash,
            id: memory.id.to_string(),
            chunks: chunks.len(),
            title,
            memory_type: memory.memory_type.clone(),
            status: memory.status.clone(),
            tags: memory.meta.tags.clone(),
            created: memory.created_at.as_second(),
            updated: memory.updated_at.as_second(),
            pinned: memory.meta.pinned,
            superseded_by: memory.meta.superseded_by.clone(),
            expires_at: memory.meta.expires_at.map(|t| t.as_second()),
            happens_at: memory.meta.happens_at.map(|t| t.as_second()),
            warnings: memory.warnings.clone(),
            links: links_hash,
        };
        Pending {
            name: s.name.to_string(),
            memory,
            entry,
            chunks,
            links,
            existed: old.is_some(),
            relink: old.is_none_or(|o| o.links != links_hash),
        }
    }

    /// Its chunks into the keyword index.
    fn add_chunks(&self, kw: &mut KeywordWriter) -> crate::Result<()> {
        for c in &self.chunks {
            let id = chunk_id(&self.name, c.ordinal);
            kw.add(&KeywordDoc {
                chunk_id: &id,
                memory_id: &self.name,
                title: &self.entry.title,
                headers: &c.header_path,
                body: &c.text,
                tags: &self.memory.meta.tags,
                memory_type: &self.entry.memory_type,
                status: &self.entry.status,
                created_unix: self.entry.created,
            })
            .map_err(IndexError::from)?;
        }
        Ok(())
    }
}

/// The end of the embedding group that starts at `start`: about [`EMBED_GROUP`] chunks, at
/// least one memory.
fn embed_group_end(pending: &[Pending], start: usize) -> usize {
    let mut end = start;
    let mut n = 0;
    while end < pending.len() && (n == 0 || n + pending[end].chunks.len() <= EMBED_GROUP) {
        n += pending[end].chunks.len();
        end += 1;
    }
    end
}

/// The memories on disk, what a link may point at.
enum OnDisk {
    /// The names the whole vault's stat found.
    Listed(HashSet<String>),
    /// Not listed (only the changed paths were stat-ed): each name asked about is stat-ed.
    Stat,
}

impl OnDisk {
    fn contains(&self, vault: &Vault, name: &str) -> bool {
        match self {
            OnDisk::Listed(names) => names.contains(name),
            OnDisk::Stat => MemoryName::parse(name).is_ok_and(|m| {
                matches!(vault.path_state(&vault.path_of(&m)), PathState::Memory(_))
            }),
        }
    }
}

/// [`Indexes::prepare`]'s result: the plan and the memories to index.
struct Prepared {
    plan: Plan,
    pending: Vec<Pending>,
    /// The memories on disk (what a link may point at).
    on_disk: OnDisk,
    /// Whether the graph's changes are appended to its journal without loading it.
    unloaded: bool,
}

/// [`Indexes::apply`]'s result: the uncommitted keyword writer and what
/// [`Indexes::commit`] needs.
struct Applied {
    kw: KeywordWriter,
    /// (name, chunks before, chunks now) of every memory whose vector keys change.
    key_changes: Vec<(String, usize, usize)>,
    /// All chunk texts a rebuild indexed: the live set of the cache's compaction.
    live: Vec<String>,
    pending: Vec<Pending>,
    removed: Vec<String>,
    rebuild: Option<String>,
    unloaded: bool,
    graph_changed: bool,
    report: ReconcileReport,
    clock: Timings,
}

/// The problem reported for memories that share an id.
pub fn duplicate_id_message(id: &str, names: &[String]) -> String {
    let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    format!(
        "{} have the same id {id} (a copied file?); history and restore refuse them until the copy gets its own id (remove its `id:` line)",
        list.join(" and ")
    )
}

/// Memories changed in one pass up to which the keyword index is written by one thread with a
/// small memory budget.
pub(super) const SMALL_CHANGE: usize = 64;

/// Chunks embedded together by a reconcile (across memories).
const EMBED_GROUP: usize = 256;

/// From this many changed files on, a reconcile reads and parses them on every core (at 100k
/// memories a `reindex` spent 10.2 s on one core doing it).
const PARALLEL_READ: usize = 256;

/// xxh3 of a memory's outgoing links (never 0, the "unknown" of an old manifest entry).
pub(super) fn links_hash(links: &[OutLink]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3Default::new();
    for l in links {
        for part in [&l.target, &l.data.edge_type, &l.data.context, &l.data.origin] {
            h.update(part.as_bytes());
            h.update(&[0]);
        }
        h.update(&l.data.confidence.to_bits().to_le_bytes());
    }
    h.digest().max(1)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;
    use crate::config::Config;
    use crate::index::embed::{BuiltinEmbedder, EmbedError};
    use crate::vault::{AddRequest, Clock};

    /// The built-in embedder behind a switch: while `fail` is set, every embedding fails. Cached
    /// like a model's vectors.
    #[derive(Default)]
    struct Flaky {
        fail: AtomicBool,
    }

    impl Embedder for Flaky {
        fn id(&self) -> &str {
            "flaky"
        }
        fn dim(&self) -> usize {
            BuiltinEmbedder::DIM
        }
        fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            if self.fail.load(Ordering::SeqCst) {
                return Err(EmbedError { model: "flaky".into(), source: "out of memory".into() });
            }
            BuiltinEmbedder::new().embed_batch(texts)
        }
        fn cacheable(&self) -> bool {
            true
        }
    }

    /// An empty vault in a temporary folder (kept while the first value lives).
    fn new_vault() -> (tempfile::TempDir, Vault) {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join(".memories");
        crate::vault::init(&root, "").unwrap();
        let vault = Vault::open(&root, Config::default(), Clock::system()).unwrap();
        (tmp, vault)
    }

    fn add(vault: &Vault, name: &str, content: &str) {
        let req = AddRequest { content: content.into(), memory_type: None, tags: Vec::new() };
        vault.add(&MemoryName::parse(name).unwrap(), &req).unwrap();
    }

    /// Two processes: one stats the vault while it opens the indices, another creates a memory
    /// and indexes it before the first takes the lock. The first must not take the memory for
    /// removed because its stats are older than the manifest it reloads.
    #[test]
    fn a_memory_created_and_indexed_after_the_stats_were_taken_is_kept() {
        let (_tmp, vault) = new_vault();
        add(&vault, "ships", "The ferry leaves the harbour at noon.");
        let emb: Arc<dyn Embedder> = Arc::new(BuiltinEmbedder::new());
        Indexes::open(&vault, emb.clone()).unwrap().reconcile(&vault).unwrap();
        let mut slow = Indexes::open(&vault, emb.clone()).unwrap();
        let stale = Indexes::stat_vault(&vault).unwrap();
        add(&vault, "lighthouse", "The lighthouse keeper logs every passing ship.");
        let mut other = Indexes::open(&vault, emb.clone()).unwrap();
        assert_eq!(other.reconcile(&vault).unwrap().indexed, vec!["lighthouse".to_owned()]);
        // A change the stale stats do show, so the slow one does write.
        add(&vault, "anchor", "Drop the anchor in the bay.");
        let mut stale = stale;
        stale.extend(
            Indexes::stat_vault(&vault)
                .unwrap()
                .into_iter()
                .filter(|s| s.name.as_str() == "anchor"),
        );
        stale.sort_by(|a, b| a.name.cmp(&b.name));
        let report = slow.reconcile_stats(&vault, stale).unwrap();
        assert!(report.removed_names.is_empty(), "{:?}", report.removed_names);
        let fresh = Indexes::open(&vault, emb).unwrap();
        let hits = fresh.keyword().search("lighthouse keeper", &Default::default(), 5).unwrap();
        assert!(hits.iter().any(|h| h.memory_id == "lighthouse"), "{hits:?}");
    }

    #[test]
    fn a_failed_embedding_commits_nothing_and_the_next_reconcile_indexes_the_memory() {
        let (_tmp, vault) = new_vault();
        add(&vault, "ships", "The ferry leaves the harbour at noon.");
        let flaky = Arc::new(Flaky::default());
        // Held open across calls, as the MCP server and the watcher hold it.
        let mut idx = Indexes::open(&vault, flaky.clone()).unwrap();
        idx.reconcile(&vault).unwrap();
        let dir = Indexes::dir_of(&vault);
        let manifest = std::fs::read(dir.join(crate::index::manifest::FILE)).unwrap();
        let cache = snapshot(&dir.join(crate::index::embed_cache::CACHE_DIR));

        add(&vault, "lighthouse", "The lighthouse keeper logs every passing ship.");
        flaky.fail.store(true, Ordering::SeqCst);
        let err = idx.reconcile(&vault).unwrap_err();
        assert!(matches!(err, Error::Embed(_)), "{err}");
        assert_eq!(err.kind(), crate::ErrorKind::Model);
        assert_eq!(std::fs::read(dir.join(crate::index::manifest::FILE)).unwrap(), manifest);
        assert!(!dir.join(PENDING_FILE).exists());
        assert_eq!(snapshot(&dir.join(crate::index::embed_cache::CACHE_DIR)), cache);
        // Still failing: still an error, never an empty success.
        assert!(idx.reconcile(&vault).is_err());

        flaky.fail.store(false, Ordering::SeqCst);
        let report = idx.reconcile(&vault).unwrap();
        assert_eq!(report.indexed, vec!["lighthouse".to_owned()]);
        let v = idx.vector().vector(chunk_key("lighthouse", 0)).unwrap().unwrap();
        assert!(v.iter().any(|x| *x != 0.0), "a real vector");
        assert!(idx.reconcile(&vault).unwrap().indexed.is_empty());
    }

    /// The decision of [`Indexes::open_fresh`]: the watcher's digest of exactly the indices
    /// opened skips the stat; any other digest, no answer, or a write under way checks the files.
    #[test]
    fn only_the_digest_of_the_indices_opened_skips_the_stat() {
        let (_tmp, vault) = new_vault();
        add(&vault, "ships", "The ferry leaves the harbour at noon.");
        let emb: Arc<dyn Embedder> = Arc::new(BuiltinEmbedder::new());
        Indexes::open_reconciled(&vault, emb.clone()).unwrap();
        let digest = Indexes::disk_digest(&vault).unwrap();
        // A file no one has indexed yet.
        add(&vault, "lighthouse", "The lighthouse keeper logs every passing ship.");
        // Vouched for: taken as they are, no stat (a live watcher indexes before it vouches).
        let (idx, report) = Indexes::open_fresh(&vault, emb.clone(), &|| Some(digest)).unwrap();
        assert!(!idx.manifest().entries().contains_key("lighthouse"));
        assert!(!report.changed());
        // A digest of other indices, then no answer: the full check finds the file.
        let (idx, report) = Indexes::open_fresh(&vault, emb.clone(), &|| Some(digest ^ 1)).unwrap();
        assert!(idx.manifest().entries().contains_key("lighthouse"));
        assert_eq!(report.indexed, vec!["lighthouse".to_owned()]);
        assert_ne!(Indexes::disk_digest(&vault), Some(digest));
        add(&vault, "harbour", "The harbour master keeps the tide tables.");
        let (idx, _) = Indexes::open_fresh(&vault, emb.clone(), &|| None).unwrap();
        assert!(idx.manifest().entries().contains_key("harbour"));
        // A write under way (or interrupted) is never vouched for.
        let dir = Indexes::dir_of(&vault);
        std::fs::write(dir.join(PENDING_FILE), "an index update is being written\n").unwrap();
        assert_eq!(Indexes::disk_digest(&vault), None);
    }

    #[test]
    fn a_key_map_kept_across_reconciles_equals_one_built_afresh() {
        let (_tmp, vault) = new_vault();
        let long = |topic: &str, sections: usize| -> String {
            (0..sections)
                .map(|i| {
                    format!(
                        "## {topic} part {i}\n\n{}\n\n",
                        format!("{topic} words {i} ").repeat(120)
                    )
                })
                .collect()
        };
        add(&vault, "alpha", &long("alpha", 1));
        add(&vault, "beta", &long("beta", 3));
        add(&vault, "gamma", &long("gamma", 2));
        let embedder: Arc<dyn Embedder> = Arc::new(BuiltinEmbedder::new());
        // Held open across calls, as the MCP server holds it, with its key map built.
        let mut idx = Indexes::open(&vault, embedder.clone()).unwrap();
        idx.reconcile(&vault).unwrap();
        assert!(idx.manifest().entries()["beta"].chunks > 1, "several chunks to move");
        assert!(!idx.keys().is_empty());
        // A memory grows, one shrinks, one goes, one comes.
        std::fs::write(vault.path_of(&MemoryName::parse("alpha").unwrap()), long("alpha", 4))
            .unwrap();
        std::fs::write(vault.path_of(&MemoryName::parse("beta").unwrap()), long("beta", 1))
            .unwrap();
        std::fs::remove_file(vault.path_of(&MemoryName::parse("gamma").unwrap())).unwrap();
        add(&vault, "delta", &long("delta", 2));
        let report = idx.reconcile(&vault).unwrap();
        assert_eq!((report.added, report.updated, report.removed), (1, 2, 1));
        let afresh = Indexes::open(&vault, embedder).unwrap();
        assert_eq!(idx.keys(), afresh.keys());
        assert_eq!(idx.keys().len(), afresh.manifest().total_chunks());
    }

    fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(dir)
            .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .map(|p| {
                let b = std::fs::read(&p).unwrap();
                (p, b)
            })
            .collect();
        out.sort();
        out
    }

    /// A long-lived process's small write returns while the merge its commit started runs on.
    /// The process keeps the index lock until the merge has ended; its next writes go on under
    /// it. Once the merge has ended the lock is free, every note is still found, and the stamp
    /// a watcher vouches with is the one the write left.
    #[test]
    fn a_small_writes_merge_runs_on_after_it_with_the_index_lock_kept() {
        use crate::index::keyword::SMALL_WRITE_MERGE_SEGMENTS;
        let (_tmp, vault) = new_vault();
        let emb: Arc<dyn Embedder> = Arc::new(BuiltinEmbedder::new());
        let mut idx = Indexes::open(&vault, emb.clone()).unwrap();
        idx.merge_in_background();
        let notes = 3 * SMALL_WRITE_MERGE_SEGMENTS;
        let mut kept = 0;
        for i in 0..notes {
            add(&vault, &format!("note{i}"), &format!("Note {i} about quokka{i}x."));
            assert_eq!(idx.reconcile(&vault).unwrap().indexed, vec![format!("note{i}")]);
            // Held while the lock is checked: the thread that lets the lock go once the merge
            // has ended waits for it (the merge may end at any moment).
            let slot = lingering(&idx.lingering);
            if slot.held.is_none() {
                continue;
            }
            // The merge runs on: nobody else can write meanwhile.
            kept += 1;
            assert!(!lock_is_free(&idx.dir), "the lock was let go while a merge runs");
            drop(slot);
            let digest = Indexes::disk_digest(&vault);
            assert!(digest.is_some());
            let before = idx.keyword().segments().len();
            if kept > 1 {
                continue;
            }
            let deadline = Instant::now() + Duration::from_secs(60);
            while lingering(&idx.lingering).waiting || !lock_is_free(&idx.dir) {
                assert!(Instant::now() < deadline, "the merge never let the lock go");
                std::thread::sleep(Duration::from_millis(5));
            }
            assert_eq!(Indexes::disk_digest(&vault), digest, "the merge's end looks like a write");
            idx.keyword().reload().unwrap();
            let after = idx.keyword().segments().len();
            assert!(after < before, "{before} segments before the merge, {after} after");
        }
        assert!(kept > 0, "no write of {notes} left its merge running");
        drop(idx);
        // Another process writes and finds every note, the last one's merge included.
        let mut other = Indexes::open(&vault, emb).unwrap();
        add(&vault, "last", "The last note about wombats.");
        assert_eq!(other.reconcile(&vault).unwrap().indexed, vec!["last".to_owned()]);
        for i in [0, notes / 2, notes - 1] {
            let hits = other.keyword().search(&format!("quokka{i}x"), &Default::default(), 5);
            let ids: Vec<String> = hits.unwrap().into_iter().map(|h| h.memory_id).collect();
            assert_eq!(ids, [format!("note{i}")]);
        }
    }

    /// Indices whose manifest is of format 8 (no ctimes) are read, not rebuilt: the first
    /// reconcile compares each file's content once (and so finds an edit that restored a file's
    /// size and mtime), records the ctimes and saves the manifest in this format; the next finds
    /// no file to read. A change of the ctime alone (a `chmod`) costs a read, never an index.
    #[test]
    fn a_format_8_manifest_is_upgraded_by_one_content_check_and_then_costs_only_stats() {
        let (_tmp, vault) = new_vault();
        for i in 0..6 {
            add(&vault, &format!("note{i}"), &format!("Note {i} about quokka{i}x."));
        }
        let emb: Arc<dyn Embedder> = Arc::new(BuiltinEmbedder::new());
        Indexes::open(&vault, emb.clone()).unwrap().reconcile(&vault).unwrap();
        let dir = Indexes::dir_of(&vault);
        Manifest::load(&dir).unwrap().save_format_8(&dir).unwrap();
        // An edit that gives the file back its size and mtime, while the manifest is of format 8.
        let path = vault.path_of(&MemoryName::parse("note3").unwrap());
        let before = std::fs::metadata(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap().replace("quokka3x", "wombat3x");
        std::fs::write(&path, text).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(before.modified().unwrap())
            .unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), before.len());

        let mut idx = Indexes::open(&vault, emb.clone()).unwrap();
        assert!(idx.needs_rebuild.is_none(), "{:?}", idx.needs_rebuild);
        let (maybe, removed, unchanged) = idx.diff(&Indexes::stat_vault(&vault).unwrap());
        assert_eq!(
            (maybe.len(), removed.len(), unchanged),
            (6, 0, 0),
            "each file's content compared"
        );
        let report = idx.reconcile(&vault).unwrap();
        assert!(report.rebuilt.is_none(), "{report:?}");
        assert_eq!(report.indexed, vec!["note3".to_owned()]);
        assert_eq!(report.unchanged, 5);
        let file = std::fs::read(dir.join(crate::index::manifest::FILE)).unwrap();
        assert!(file.starts_with(format!("{{\"format\":{},", manifest::FORMAT).as_bytes()));
        let hits = idx.keyword().search("wombat3x", &Default::default(), 5).unwrap();
        assert_eq!(hits.iter().map(|h| h.memory_id.as_str()).collect::<Vec<_>>(), ["note3"]);

        // Upgraded: stats alone tell that nothing changed, nothing is read.
        let idx = Indexes::open(&vault, emb.clone()).unwrap();
        let (maybe, removed, unchanged) = idx.diff(&Indexes::stat_vault(&vault).unwrap());
        assert_eq!((maybe.len(), removed.len(), unchanged), (0, 0, 6));

        // A change of the ctime alone: the file is read, found the same, and only its new ctime
        // is recorded.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
            let mut idx = Indexes::open(&vault, emb.clone()).unwrap();
            let (maybe, _, _) = idx.diff(&Indexes::stat_vault(&vault).unwrap());
            assert_eq!(maybe.len(), 1);
            let report = idx.reconcile(&vault).unwrap();
            assert!(report.indexed.is_empty() && report.rebuilt.is_none(), "{report:?}");
            assert_eq!(report.unchanged, 6);
            let idx = Indexes::open(&vault, emb).unwrap();
            let (maybe, _, unchanged) = idx.diff(&Indexes::stat_vault(&vault).unwrap());
            assert_eq!((maybe.len(), unchanged), (0, 6));
        }
    }

    /// Enough files to be read on every core: each is indexed once, in name order, a file that
    /// cannot be parsed is reported, and a touched file (same content) only has its stat
    /// updated.
    #[test]
    fn many_files_read_on_every_core_are_each_indexed_once_and_in_order() {
        let (_tmp, vault) = new_vault();
        let n = PARALLEL_READ + 40;
        for i in 0..n {
            add(&vault, &format!("bulk/n{i:04}"), &format!("Bulk note {i} about numbat{i}x."));
        }
        let bad = vault.root().join("bulk/n0100-bad.md");
        std::fs::write(&bad, b"Not text: \xff\xfe\n").unwrap();
        let emb: Arc<dyn Embedder> = Arc::new(BuiltinEmbedder::new());
        let mut idx = Indexes::open(&vault, emb.clone()).unwrap();
        let report = idx.reconcile(&vault).unwrap();
        let want: Vec<String> = (0..n).map(|i| format!("bulk/n{i:04}")).collect();
        assert_eq!(report.indexed, want);
        assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
        assert!(report.problems[0].starts_with("bulk/n0100-bad"), "{:?}", report.problems);
        for i in [0, n / 2, n - 1] {
            let hits = idx.keyword().search(&format!("numbat{i}x"), &Default::default(), 5);
            let ids: Vec<String> = hits.unwrap().into_iter().map(|h| h.memory_id).collect();
            assert_eq!(ids, [format!("bulk/n{i:04}")]);
        }
        // Every file touched (same content, a new time): nothing indexed again.
        let later = std::time::SystemTime::now() + Duration::from_secs(5);
        for i in 0..n {
            let f = std::fs::File::options()
                .write(true)
                .open(vault.root().join(format!("bulk/n{i:04}.md")))
                .unwrap();
            f.set_modified(later).unwrap();
        }
        let report = Indexes::open(&vault, emb).unwrap().reconcile(&vault).unwrap();
        assert!(report.indexed.is_empty(), "{:?}", report.indexed);
        assert_eq!(report.unchanged, n, "{report:?}");
    }
}
