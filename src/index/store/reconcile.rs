//! Reconciling the indices with the memory files: what changed, re-chunk, re-embed, commit.

use super::*;
use crate::vault::PathState;

/// What a reconcile looks at: the memory files' stats, sorted by name, of the whole vault
/// (`gone` `None`), or of the paths a [`Indexes::reconcile_paths`] was given, with the names
/// there that have no file any more.
struct Scope {
    stats: Vec<Stat>,
    gone: Option<Vec<String>>,
}

impl Indexes {
    /// Brings the indices up to date with the files: cheap when nothing changed.
    pub fn reconcile(&mut self, vault: &Vault) -> crate::Result<ReconcileReport> {
        self.reconcile_with(vault, false, false, &mut |_| {})
    }

    /// Like [`Indexes::reconcile`], but also reads every file whose stat is unchanged and
    /// compares its content hash with the manifest (an edit that kept size and mtime is found).
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
                let Some(e) = self.manifest.entries().get(s.name.as_str()) else { return false };
                if e.size != s.size || e.mtime_ns != s.mtime_ns {
                    return false; // already a candidate
                }
                vault
                    .read_memory(&s.name)
                    .is_ok_and(|b| format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&b)) != e.hash)
            })
            .cloned()
            .collect()
    }

    /// Files new or changed by their stat, names no longer on disk, and the unchanged count.
    /// `stats` is sorted by name ([`Vault::files`]), like the manifest: one merge pass.
    pub(super) fn diff(&self, stats: &[Stat]) -> (Vec<Stat>, Vec<String>, usize) {
        debug_assert!(stats.windows(2).all(|w| w[0].name < w[1].name));
        let mut maybe_changed = Vec::new();
        let mut removed = Vec::new();
        let mut unchanged = 0;
        let mut entries = self.manifest.entries().iter().peekable();
        for s in stats {
            while let Some((name, _)) = entries.next_if(|(n, _)| n.as_str() < s.name.as_str()) {
                removed.push(name.clone());
            }
            match entries.next_if(|(n, _)| n.as_str() == s.name.as_str()) {
                Some((_, e)) if e.size == s.size && e.mtime_ns == s.mtime_ns => unchanged += 1,
                _ => maybe_changed.push(s.clone()),
            }
        }
        removed.extend(entries.map(|(name, _)| name.clone()));
        (maybe_changed, removed, unchanged)
    }

    /// Like [`Indexes::reconcile`], for a caller that knows which paths changed since the
    /// indices last matched the files (the MCP server, from the watcher's events): only those
    /// paths are stat-ed, instead of the whole vault. When a path cannot be judged alone (a
    /// folder, a symbolic link on the way, see [`Vault::path_state`]) or the indices need a
    /// rebuild, it is a whole [`Indexes::reconcile`]. The report's `unchanged` counts the given
    /// paths only.
    pub fn reconcile_paths(
        &mut self,
        vault: &Vault,
        paths: &[std::path::PathBuf],
    ) -> crate::Result<ReconcileReport> {
        let mut stats = Vec::new();
        let mut gone = Vec::new();
        for path in paths {
            match vault.path_state(path) {
                PathState::Memory(f) => {
                    stats.push(Stat { name: f.name, size: f.size, mtime_ns: f.mtime_ns });
                }
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
        self.reconcile_in(vault, Some(Scope { stats, gone: Some(gone) }), false, false, &mut |_| {})
    }

    /// [`Indexes::reconcile`] with the vault's stats taken already ([`Indexes::stat_vault`],
    /// after or while this `Indexes` was opened).
    pub(super) fn reconcile_stats(
        &mut self,
        vault: &Vault,
        stats: Vec<Stat>,
    ) -> crate::Result<ReconcileReport> {
        self.reconcile_in(vault, Some(Scope { stats, gone: None }), false, false, &mut |_| {})
    }

    /// The change `stats` shows: against the whole manifest, or (`gone` given) for the names
    /// in `stats` and `gone` only.
    fn diff_in(&self, stats: &[Stat], gone: Option<&[String]>) -> (Vec<Stat>, Vec<String>, usize) {
        let Some(gone) = gone else { return self.diff(stats) };
        let mut maybe_changed = Vec::new();
        let mut unchanged = 0;
        for s in stats {
            match self.manifest.entries().get(s.name.as_str()) {
                Some(e) if e.size == s.size && e.mtime_ns == s.mtime_ns => unchanged += 1,
                _ => maybe_changed.push(s.clone()),
            }
        }
        let removed = gone
            .iter()
            .filter(|n| self.manifest.entries().contains_key(n.as_str()))
            .cloned()
            .collect();
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

    /// The reconcile: of the whole vault (`scope` `None`), or of the paths in `scope`.
    fn reconcile_in(
        &mut self,
        vault: &Vault,
        scope: Option<Scope>,
        force: bool,
        verify: bool,
        progress: &mut dyn FnMut(Progress),
    ) -> crate::Result<ReconcileReport> {
        let start = Instant::now();
        let (mut stats, mut gone) = match scope {
            Some(Scope { stats, gone }) => (stats, gone),
            None => (Self::stat_vault(vault)?, None),
        };
        let t_stat = start.elapsed();
        let (mut maybe_changed, removed, mut unchanged) = self.diff_in(&stats, gone.as_deref());
        if verify && !force {
            let stale = self.hash_mismatches(vault, &stats);
            unchanged -= stale.len();
            maybe_changed.extend(stale);
        }
        tracing::debug!(
            files = stats.len(),
            stat_ms = t_stat.as_secs_f64() * 1e3,
            diff_ms = (start.elapsed() - t_stat).as_secs_f64() * 1e3,
            "reconcile checked the vault"
        );
        if !force && self.needs_rebuild.is_none() && maybe_changed.is_empty() && removed.is_empty()
        {
            return Ok(ReconcileReport { unchanged, ..Default::default() });
        }
        if self.snapshot {
            // Read from disk and now out of date: rebuilt in memory from the files.
            self.snapshot = false;
            self.needs_rebuild
                .get_or_insert_with(|| "the indices on disk cannot be written".into());
        }
        let _lock = if self.ephemeral { None } else { Some(lock(&self.dir)?) };
        let t_lock = start.elapsed();
        // Another process may have done the work while we waited: start from the newest state,
        // unless the stores are still exactly what this process last wrote (a long-lived
        // watcher or server then skips reloading the vectors and the graph).
        let known = self.written.take();
        if self.ephemeral {
            // Nothing on disk to reload: the stores live in this process only.
        } else if known.is_none()
            || known != Some(disk_stamp(&self.dir))
            || crate::index::confined_io::exists(&self.dir.join(PENDING_FILE))
        {
            let mut fresh = Indexes::open_mode(vault, self.embedder.clone(), false)?;
            let earlier = self.damage.take();
            // What this process embedded so far stays at hand.
            fresh.cache = self.cache.clone();
            *self = fresh;
            self.damage = earlier.or(self.damage.take());
        } else {
            // What this process opened read-only is still what is on disk: write on top of it.
            self.vector.allow_updates();
        }
        let t_open = start.elapsed();
        let rebuild = if force { Some("requested".to_owned()) } else { self.needs_rebuild.take() };
        if rebuild.is_some() && gone.is_some() {
            // A rebuild reads every file.
            stats = Self::stat_vault(vault)?;
            gone = None;
        }
        let mut report = ReconcileReport::default();
        let (mut maybe_changed, removed, mut unchanged) = if rebuild.is_some() {
            (stats.clone(), Vec::new(), 0)
        } else {
            self.diff_in(&stats, gone.as_deref())
        };
        if verify && rebuild.is_none() {
            let stale = self.hash_mismatches(vault, &stats);
            unchanged -= stale.len();
            maybe_changed.extend(stale);
        }
        if rebuild.is_none() && maybe_changed.is_empty() && removed.is_empty() {
            // Another process did the work while we waited for the lock: nothing to write.
            self.written = (!self.ephemeral).then(|| disk_stamp(&self.dir));
            return Ok(ReconcileReport {
                unchanged,
                elapsed_ms: start.elapsed().as_millis() as u64,
                ..Default::default()
            });
        }
        let mut rebuild = rebuild;
        let mut removed = removed;
        report.unchanged = unchanged;

        // Read, hash and chunk every candidate before any store is touched.
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
        let on_disk: HashSet<String> = match &gone {
            None => stats.iter().map(|s| s.name.to_string()).collect(),
            // The manifest knows the memories no given path changed.
            Some(gone) => (self.manifest.entries().keys())
                .filter(|n| !gone.contains(n))
                .cloned()
                .chain(stats.iter().map(|s| s.name.to_string()))
                .collect(),
        };
        let is_memory = |n: &str| on_disk.contains(n);
        // Whether the graph's changes are appended to its journal without loading it.
        let mut unloaded;
        let pending: Vec<Pending> = loop {
            if rebuild.is_some() {
                self.manifest.reset(self.embedder.id(), self.embedder.dim());
            } else {
                self.manifest.ensure_header(self.embedder.id(), self.embedder.dim());
            }
            let mut pending: Vec<Pending> = Vec::new();
            for s in &maybe_changed {
                let path = vault.path_of(&s.name);
                let bytes = match vault.read_memory(&s.name) {
                    Ok(b) => b,
                    Err(Error::Io(e)) => {
                        report.problems.push(format!("{}: cannot read: {}", s.name, e.source));
                        continue;
                    }
                    Err(e) => {
                        report.problems.push(format!("{}: cannot read: {e}", s.name));
                        continue;
                    }
                };
                let hash = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes));
                let old = self.manifest.entries().get(s.name.as_str());
                if let Some(old) = old.filter(|o| o.hash == hash) {
                    // Touched, not changed: remember the new stat only.
                    let mut e = old.clone();
                    e.size = s.size;
                    e.mtime_ns = s.mtime_ns;
                    self.manifest.insert(s.name.to_string(), e);
                    report.unchanged += 1;
                    continue;
                }
                let Ok(raw) = String::from_utf8(bytes) else {
                    report.problems.push(format!("{}: not UTF-8 text; not indexed", s.name));
                    continue;
                };
                let memory = match vault.memory_from_text(s.name.clone(), path, raw) {
                    Ok(m) => m,
                    Err(e) => {
                        report.problems.push(format!("{}: {e}", s.name));
                        continue;
                    }
                };
                let content = memory.redacted_content(vault.config.privacy.scrub_secrets);
                let chunks = chunk_markdown(&content, &ChunkOptions::default());
                let title = markdown_title(&content)
                    .unwrap_or_else(|| memory.name.file_stem().replace(['-', '_'], " "));
                let links =
                    memory_links(&memory, &content, &is_memory, vault.config.privacy.scrub_secrets);
                let links_hash = links_hash(&links);
                let entry = Entry {
                    size: s.size,
                    mtime_ns: s.mtime_ns,
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
                pending.push(Pending {
                    name: s.name.to_string(),
                    memory,
                    entry,
                    chunks,
                    links,
                    existed: old.is_some(),
                    relink: old.is_none_or(|o| o.links != links_hash),
                });
            }
            // The graph is needed only when a link changes (or a memory comes or goes), and not
            // even then when the change is only new and removed memories (see `unloaded_ok`).
            unloaded = rebuild.is_none()
                && self.graph.get().is_none()
                && pending.iter().all(|p| !p.relink || !p.existed)
                && self.unloaded_ok(pending.iter().filter(|p| p.relink).map(|p| p.name.as_str()));
            let needs_graph = rebuild.is_none()
                && !unloaded
                && (!removed.is_empty() || pending.iter().any(|p| p.relink))
                && self.graph.get().is_none();
            if needs_graph {
                match LinkGraph::load(&self.dir.join("graph")).map_err(IndexError::from)? {
                    Some(g) => {
                        let _ = self.graph.set(g);
                    }
                    None => {
                        // Unreadable: rebuild everything from the files instead.
                        rebuild = Some("the link graph was unreadable".to_owned());
                        if gone.take().is_some() {
                            stats = Self::stat_vault(vault)?;
                        }
                        maybe_changed = stats.clone();
                        removed.clear();
                        report = ReconcileReport::default();
                        continue;
                    }
                }
            }
            break pending;
        };
        let graph_changed =
            rebuild.is_some() || !removed.is_empty() || pending.iter().any(|p| p.relink);
        if rebuild.is_none() && removed.is_empty() && pending.is_empty() {
            // Only touched files: their new stats are the whole change.
            if !self.ephemeral {
                self.manifest.save(&self.dir)?;
                self.written = Some(disk_stamp(&self.dir));
            }
            report.elapsed_ms = start.elapsed().as_millis() as u64;
            return Ok(report);
        }

        let small = rebuild.is_none() && pending.len() + removed.len() <= SMALL_CHANGE;
        let mut kw = if small { self.keyword.small_writer() } else { self.keyword.writer() }
            .map_err(IndexError::from)?;
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
        // (name, chunks before, chunks now) of every memory whose vector keys change.
        let mut key_changes: Vec<(String, usize, usize)> = Vec::new();
        for name in &removed {
            if let Some(old) = self.manifest.remove(name) {
                key_changes.push((name.clone(), old.chunks, 0));
                kw.delete_memory(name);
                for ord in 0..old.chunks {
                    self.vector.remove(chunk_key(name, ord)).map_err(IndexError::from)?;
                }
                if !unloaded {
                    self.graph_mut().remove_memory(&format!("memory:{name}"));
                }
                report.removed += 1;
                report.removed_names.push(name.clone());
            }
        }

        let total: usize = pending.iter().map(|p| p.chunks.len()).sum();
        let mut done = 0;
        progress(Progress { done, total });
        let stats_before = self.cache.stats();
        // All chunk texts this pass indexes: the live set of a compaction after a rebuild.
        let mut live: Vec<String> = Vec::new();
        // Chunks of several memories are embedded together (a model batches by length), in
        // groups of about EMBED_GROUP chunks so progress moves and memory stays bounded.
        let mut group_start = 0;
        let mut vectors: std::collections::VecDeque<Vec<f32>> = Default::default();
        for (pi, p) in pending.iter().enumerate() {
            if pi == group_start {
                let mut end = pi;
                let mut n = 0;
                while end < pending.len()
                    && (n == 0 || n + pending[end].chunks.len() <= EMBED_GROUP)
                {
                    n += pending[end].chunks.len();
                    end += 1;
                }
                let texts: Vec<String> = pending[pi..end]
                    .iter()
                    .flat_map(|p| {
                        p.chunks.iter().map(|c| embed_text(&p.entry.title, &c.header_path, &c.text))
                    })
                    .collect();
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                // On an error nothing is committed: the stores on disk and the manifest are as
                // they were (the cache holds only vectors that were computed), and the memories
                // stay stale until a reconcile embeds them.
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
                vectors = got.into();
                if rebuild.is_some() {
                    live.extend(texts);
                }
                group_start = end;
            }
            let before = self.manifest.entries().get(&p.name).map_or(0, |old| old.chunks);
            key_changes.push((p.name.clone(), before, p.chunks.len()));
            if let Some(old) = self.manifest.entries().get(&p.name) {
                kw.delete_memory(&p.name);
                for ord in 0..old.chunks {
                    self.vector.remove(chunk_key(&p.name, ord)).map_err(IndexError::from)?;
                }
            }
            for ord in 0..p.chunks.len() {
                let v = vectors.pop_front().unwrap_or_default();
                self.vector.upsert(chunk_key(&p.name, ord), &v).map_err(IndexError::from)?;
            }
            done += p.chunks.len();
            progress(Progress { done, total });
            for c in &p.chunks {
                let id = chunk_id(&p.name, c.ordinal);
                kw.add(&KeywordDoc {
                    chunk_id: &id,
                    memory_id: &p.name,
                    title: &p.entry.title,
                    headers: &c.header_path,
                    body: &c.text,
                    tags: &p.memory.meta.tags,
                    memory_type: &p.entry.memory_type,
                    status: &p.entry.status,
                    created_unix: p.entry.created,
                })
                .map_err(IndexError::from)?;
            }
            if (p.relink || rebuild.is_some()) && !unloaded {
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
        if rebuild.is_some() {
            report.added = pending.len();
            report.updated = 0;
        }
        let stats = self.cache.stats();
        report.embedded = stats.embedded - stats_before.embedded;
        report.reused = stats.hits - stats_before.hits;
        // A new memory turns earlier links to a ghost of its name into links to itself.
        let added_names: Vec<&String> =
            pending.iter().filter(|p| !p.existed).map(|p| &p.name).collect();
        let mut relink: Vec<String> = Vec::new();
        // Unloaded, no ghost has a new memory's name (checked by `unloaded_ok`).
        for name in added_names.into_iter().filter(|_| !unloaded) {
            for ghost in [format!("ghost:{name}"), format!("ghost:{name}.md")] {
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
                memory_links(&memory, &content, &is_memory, vault.config.privacy.scrub_secrets);
            self.graph_mut().set_links(&key, &links, LINK_ORIGINS);
            self.manifest.set_links(name, links_hash(&links));
        }
        let t_index = start.elapsed();
        // Until the manifest is saved, the stores may disagree with it and with each other: a
        // crash in between leaves this marker, and the next open rebuilds.
        let marker = self.dir.join(PENDING_FILE);
        let disk = !self.ephemeral;
        if disk {
            crate::vault::atomic_write(&marker, b"an index update is being written\n")?;
        }
        kw.commit().map_err(IndexError::from)?;
        // No merge of this writer may outlive the lock (see `KeywordWriter::finish`).
        kw.finish().map_err(IndexError::from)?;
        let t_keyword = start.elapsed();
        if disk && (self.vector.has_unsaved_changes() || rebuild.is_some()) {
            self.vector.save().map_err(IndexError::from)?;
        }
        let t_vector = start.elapsed();
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
            if disk {
                self.graph_mut().save_changes(&gdir).map_err(IndexError::from)?;
            }
            self.save_supersedes()?;
            // Written from a graph in memory: its content needs no check by the next reader.
            record_verified(&self.dir, &[GRAPH_REL, GRAPH_JOURNAL_REL]);
        }
        let t_graph = start.elapsed();
        if disk {
            self.manifest.save(&self.dir)?;
            std::fs::remove_file(&marker).at("remove", &marker)?;
        }
        self.update_keys(rebuild.is_some(), &key_changes);
        self.written = disk.then(|| disk_stamp(&self.dir));
        if disk && rebuild.is_some() {
            // Still under the lock: drop what no memory uses (within the documented budget).
            match self.cache.compact(live.iter().map(String::as_str)) {
                Ok(kept) => tracing::debug!(kept, "embedding cache compacted"),
                Err(e) => tracing::debug!(error = %e, "cannot compact the embedding cache"),
            }
        }
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        tracing::debug!(
            lock_ms = ms(t_lock),
            reopen_ms = ms(t_open - t_lock),
            index_ms = ms(t_index - t_open),
            keyword_commit_ms = ms(t_keyword - t_index),
            vector_save_ms = ms(t_vector - t_keyword),
            graph_save_ms = ms(t_graph - t_vector),
            manifest_save_ms = ms(start.elapsed() - t_graph),
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
        report.elapsed_ms = start.elapsed().as_millis() as u64;
        Ok(report)
    }
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

    #[test]
    fn a_failed_embedding_commits_nothing_and_the_next_reconcile_indexes_the_memory() {
        let (_tmp, vault) = new_vault();
        add(&vault, "ships", "The ferry leaves the harbour at noon.");
        let flaky = Arc::new(Flaky::default());
        // Held open across calls, as the MCP server and the watcher hold it.
        let mut idx = Indexes::open(&vault, flaky.clone()).unwrap();
        idx.reconcile(&vault).unwrap();
        let dir = Indexes::dir_of(&vault);
        let manifest = std::fs::read(dir.join("manifest.tsv")).unwrap();
        let cache = snapshot(&dir.join(crate::index::embed_cache::CACHE_DIR));

        add(&vault, "lighthouse", "The lighthouse keeper logs every passing ship.");
        flaky.fail.store(true, Ordering::SeqCst);
        let err = idx.reconcile(&vault).unwrap_err();
        assert!(matches!(err, Error::Embed(_)), "{err}");
        assert_eq!(err.kind(), crate::ErrorKind::Model);
        assert_eq!(std::fs::read(dir.join("manifest.tsv")).unwrap(), manifest);
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
}
