//! The indices folder's bookkeeping files (pending marker, supersedes, verified stamps), damage
//! checks, link extraction and error words.

use super::*;

/// Present in `indices/` while a writer commits the stores (keyword, vector, graph, manifest);
/// left behind only by a writer that died, which makes the next open rebuild.
pub const PENDING_FILE: &str = "pending";

/// Whether no process holds the index lock now (probed without waiting).
pub(super) fn lock_is_free(dir: &Path) -> bool {
    // Read access is enough to probe a lock; never through a link.
    let Ok(file) = crate::index::confined_io::open(&dir.join("write.lock")) else {
        return true;
    };
    file.try_lock().is_ok()
}

/// One file of [`disk_stamp`]: path, size, inode (0 off Unix) and mtime.
pub(super) type FileStamp = (String, u64, u64, i128);

/// The size, inode and mtime of every file of the stores: the top level of `indices/`
/// (manifest, markers), tantivy's `meta.json` (by the opstamp it records, see
/// [`keyword_opstamp`]), and the vector and graph folders. Any write by
/// another process changes it: every store file is replaced by a rename (a new inode), so even
/// a write within the same mtime tick and of the same size shows.
pub(super) fn disk_stamp(dir: &Path) -> Vec<FileStamp> {
    let mut out = Vec::new();
    let mut push = |rel: String, st: crate::disk::Stat| out.push(file_stamp(rel, &st));
    for sub in ["", "vector", "graph"] {
        let Ok(folder) = crate::index::confined_io::open_dir(&dir.join(sub)) else { continue };
        let Ok(entries) = folder.entries() else { continue };
        for entry in entries {
            // Rewritten by readers (see `check_stores`): no write of the stores.
            if sub.is_empty() && entry.name == VERIFIED_FILE {
                continue;
            }
            if entry.kind == crate::disk::Kind::File
                && let Ok(st) = folder.stat(&entry.name)
                && st.kind == crate::disk::Kind::File
            {
                push(format!("{sub}/{}", entry.name.to_string_lossy()), st);
            }
        }
    }
    let meta = dir.join("keyword").join("meta.json");
    if let Some(opstamp) = keyword_opstamp(&meta) {
        out.push(("keyword/meta.json".to_owned(), opstamp, 0, 0));
    } else if let Some(st) = crate::index::confined_io::stat(&meta) {
        push("keyword/meta.json".to_owned(), st);
    }
    out.sort();
    out
}

/// The opstamp tantivy's `meta.json` at `path` records: every commit raises it, while a merge
/// rewrites the file with the same chunks and the same opstamp. So a merge that ends after the
/// write that started it (see [`Indexes::merge_in_background`]) does not count as a change of
/// the stores, and the stamp a watcher vouched for stays good.
fn keyword_opstamp(path: &Path) -> Option<u64> {
    #[derive(serde::Deserialize)]
    struct Meta {
        opstamp: u64,
    }
    let bytes = crate::index::confined_io::read(path).ok()?;
    serde_json::from_slice::<Meta>(&bytes).ok().map(|m| m.opstamp)
}

/// A digest of a [`disk_stamp`], what a watcher vouches for (see [`crate::fresh`]); `None`
/// while a write is under way or was interrupted (the `pending` marker is there): such
/// indices are never vouched for.
pub(super) fn stamp_digest(stamp: &[FileStamp]) -> Option<u64> {
    let pending = format!("/{PENDING_FILE}");
    if stamp.iter().any(|(path, ..)| *path == pending) {
        return None;
    }
    let mut bytes = Vec::with_capacity(stamp.len() * 48);
    for (path, size, ino, mtime) in stamp {
        bytes.extend_from_slice(path.as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(&size.to_le_bytes());
        bytes.extend_from_slice(&ino.to_le_bytes());
        bytes.extend_from_slice(&mtime.to_le_bytes());
    }
    Some(xxhash_rust::xxh3::xxh3_64(&bytes))
}

/// Beside the graph: `old<TAB>new` for every `supersedes` link, read by search.
pub const SUPERSEDES_FILE: &str = "supersedes.tsv";

impl Indexes {
    /// Updates `graph/supersedes.tsv` for memories added (with their links) and removed by an
    /// [`LinkGraph::append_unloaded`], without the graph: what [`Self::save_supersedes`] of the
    /// graph with those changes writes.
    pub(super) fn update_supersedes_unloaded(
        &mut self,
        added: &[(String, &[OutLink])],
        removed: &[String],
    ) -> crate::Result<()> {
        let path = self.dir.join("graph").join(SUPERSEDES_FILE);
        let old = crate::index::confined_io::read_to_string(&path).ok();
        let gone = |new: &str| {
            removed
                .iter()
                .chain(added.iter().map(|(n, _)| n))
                .any(|n| n.strip_prefix("memory:") == Some(new))
        };
        let mut lines: Vec<String> = (old.as_deref().unwrap_or_default().lines())
            .filter(|l| l.split_once('\t').is_some_and(|(_, new)| !gone(new)))
            .map(str::to_owned)
            .collect();
        for (key, links) in added {
            let Some(name) = key.strip_prefix("memory:") else { continue };
            for l in links.iter() {
                if l.data.edge_type == crate::index::graph::SUPERSEDES
                    && let Some(target) = l.target.strip_prefix("memory:")
                    && target != name
                {
                    lines.push(format!("{target}\t{name}"));
                }
            }
        }
        self.write_supersedes(lines, old.as_deref())
    }

    /// Writes `old<TAB>new` `lines` as `graph/supersedes.tsv` (sorted, once each) unless the
    /// file (`old`: its text, `None` when missing) already says the same, and drops this
    /// process's copy.
    fn write_supersedes(&mut self, mut lines: Vec<String>, old: Option<&str>) -> crate::Result<()> {
        lines.sort();
        lines.dedup();
        let text = lines.join("\n");
        // Most changes leave the supersedes links as they were: nothing to write then.
        if old != Some(text.as_str()) {
            let path = self.dir.join("graph").join(SUPERSEDES_FILE);
            crate::vault::atomic_write(&path, text.as_bytes())?;
        }
        self.supersedes = std::sync::OnceLock::new();
        Ok(())
    }

    /// Whether this reconcile may append its graph changes without loading the graph (see
    /// [`LinkGraph::append_unloaded`]): indices on disk, the graph file and its journal as last
    /// checked (so appending cannot hide damage), a ghost list, and no ghost named like one of
    /// the `added` memories (it would take over the ghost's links).
    pub(super) fn unloaded_ok<'a>(&self, added: impl Iterator<Item = &'a str>) -> bool {
        if self.ephemeral || crate::index::confined_io::exists(&self.dir.join(PENDING_FILE)) {
            return false;
        }
        let verified = load_verified(&self.dir);
        let Some(graph) = stamp_of(&self.dir, GRAPH_REL) else { return false };
        if !verified.contains(&graph)
            || stamp_of(&self.dir, GRAPH_JOURNAL_REL).is_some_and(|j| !verified.contains(&j))
        {
            return false;
        }
        let Some(ghosts) = crate::index::graph::read_ghosts(&self.dir.join("graph")) else {
            return false;
        };
        added.into_iter().all(|name| {
            !ghosts.contains(&format!("ghost:{name}"))
                && !ghosts.contains(&format!("ghost:{name}.md"))
        })
    }

    pub(super) fn save_supersedes(&mut self) -> crate::Result<()> {
        // One pass over the graph's edges (not a lookup per memory: 10k of them). Links to
        // memories that do not exist (yet) are kept: they are never asked about, and the file
        // then changes only with its sources, so adding a memory can update it unloaded.
        let pairs: Vec<(String, String)> = self
            .graph()
            .edges_of_type(crate::index::graph::SUPERSEDES)
            .filter_map(|(source, target)| {
                let name = source.strip_prefix("memory:")?;
                let old = target.strip_prefix("memory:")?;
                self.manifest
                    .entries()
                    .contains_key(name)
                    .then(|| (old.to_owned(), name.to_owned()))
            })
            .collect();
        if self.ephemeral {
            self.supersedes =
                std::sync::OnceLock::from(pairs.into_iter().collect::<HashMap<_, _>>());
            return Ok(());
        }
        let lines: Vec<String> = pairs.iter().map(|(old, new)| format!("{old}\t{new}")).collect();
        let old = crate::index::confined_io::read_to_string(
            &self.dir.join("graph").join(SUPERSEDES_FILE),
        )
        .ok();
        self.write_supersedes(lines, old.as_deref())
    }
}

/// The edge origins a re-parse of a file replaces (agent-made links survive it).
pub const LINK_ORIGINS: &[&str] = &["keyword", "frontmatter", "entity"];

/// How much a shared entity counts as a link (low: entities are dense and cheap).
pub const ENTITY_CONFIDENCE: f32 = 0.3;

/// Every outgoing link of a memory: body wikilinks, frontmatter `links:`, shared entities.
///
/// `content` is the memory's redacted content, and `scrub` the vault's `privacy.scrub_secrets`: a
/// link whose target held private text or a secret is left out, so no target reaches the graph,
/// the ghost list or any output unredacted.
pub fn memory_links(
    memory: &Memory,
    content: &str,
    is_memory: &dyn Fn(&str) -> bool,
    scrub: bool,
) -> Vec<OutLink> {
    use crate::model::links::{
        LinkTarget, extract_entities, extract_links, frontmatter_links, resolve_target,
    };
    let mut out = Vec::new();
    let mut push =
        |target: &LinkTarget, edge_type: String, context: &str, confidence: f32, origin: &str| {
            out.push(OutLink {
                target: target.key(),
                data: EdgeData {
                    edge_type,
                    context: context.to_owned(),
                    confidence,
                    origin: origin.to_owned(),
                },
            });
        };
    // `content` is redacted, so a wikilink whose target held private text or a secret overlaps a
    // marker now: such a link is left out (a marker names nothing, and `[[a [redacted]]]` would
    // make a ghost of the marker's pieces).
    let markers = if crate::privacy::holds_marker(content) {
        crate::privacy::marker_ranges(content)
    } else {
        Vec::new()
    };
    for l in extract_links(content, is_memory) {
        if markers.iter().any(|m| m.start < l.end && l.start < m.end)
            || crate::privacy::holds_marker(&l.target.key())
        {
            continue;
        }
        push(
            &l.target,
            l.edge_type.as_str().into_owned(),
            &l.context,
            l.confidence,
            l.origin.as_str(),
        );
    }
    if let Ok(map) = memory.doc.mapping()
        && let Some(v) = map.get("links")
    {
        let (links, _warnings) = frontmatter_links(v);
        for mut l in links {
            // Hand-written frontmatter is not redacted on disk: a target that redaction would
            // change is left out, and the context is redacted like the content.
            if crate::privacy::sanitize(&l.raw, scrub).had_private_content {
                continue;
            }
            let context = crate::privacy::sanitize(&l.context, scrub);
            if context.had_private_content {
                l.context = context.text;
            }
            // A frontmatter target that names no memory is a document (ghost).
            let target = match &l.target {
                LinkTarget::Memory(n) if !is_memory(n) => {
                    resolve_target(&l.raw, is_memory).unwrap_or_else(|| l.target.clone())
                }
                t => t.clone(),
            };
            push(
                &target,
                l.edge_type.as_str().into_owned(),
                &l.context,
                l.confidence,
                l.origin.as_str(),
            );
        }
    }
    for entity in extract_entities(content, &memory.meta.tags) {
        out.push(OutLink {
            target: format!("entity:{entity}"),
            data: EdgeData {
                edge_type: format!("shares_entity:{entity}"),
                context: String::new(),
                confidence: ENTITY_CONFIDENCE,
                origin: "entity".to_owned(),
            },
        });
    }
    out
}

/// The text a chunk is embedded as: the memory's title (when the chunk does not already start
/// with it), then the chunk; without redaction markers, which are not words of the memory.
pub fn embed_text(title: &str, _header_path: &str, text: &str) -> String {
    let (title, text) = (crate::privacy::strip_markers(title), crate::privacy::strip_markers(text));
    if text.trim_start().trim_start_matches('#').trim_start().starts_with(&title) {
        text
    } else {
        format!("{title}\n{text}")
    }
}

impl From<IndexError> for Error {
    fn from(e: IndexError) -> Error {
        Error::Index(Box::new(e))
    }
}

/// Removes a damaged store's folder (derived data) so it can be created afresh (or a file where
/// the folder should be).
pub(super) fn remove_damaged(dir: &Path) -> crate::Result<()> {
    // Beneath the vault root: a link at the folder is removed, never entered.
    let remove = || crate::index::confined_io::remove_all(dir);
    let mut removed = remove();
    // Another reader may be creating files in it at this moment (it opens without the lock):
    // try again shortly.
    for _ in 0..50 {
        match &removed {
            Err(e) if e.kind() == std::io::ErrorKind::DirectoryNotEmpty => {
                std::thread::sleep(std::time::Duration::from_millis(20));
                removed = remove();
            }
            _ => break,
        }
    }
    match removed {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(crate::error::PathError {
            action: "remove the damaged index",
            path: dir.to_owned(),
            source: e,
        }
        .into()),
    }
}

/// What a reader is told when the vault cannot be written (`why`, in words, from
/// [`unwritable`]): said once by a command or a server.
pub fn unwritable_message(why: &str) -> String {
    format!(
        "the vault cannot be written ({why}): the search index and the usage state are not updated; answering from the memory files"
    )
}

/// Why `e` means the vault cannot be written (in words: "the file system is read-only", "the
/// disk is full", "permission denied"), or `None` for any other failure.
pub fn unwritable(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    unwritable_source(e)
}

/// [`unwritable`] of any error: looks through its sources for an IO error of the kinds a
/// read-only or full file system gives (tantivy and the vector engine keep only its words).
pub(super) fn unwritable_source(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    use std::io::ErrorKind as K;
    let io_kind = |io: &std::io::Error| {
        matches!(
            io.kind(),
            K::ReadOnlyFilesystem | K::StorageFull | K::QuotaExceeded | K::PermissionDenied
        )
        .then(|| crate::error::describe_io(io))
    };
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        // `#[error(transparent)]` wrappers hide a `PathError` from `source()`: look inside.
        let path_error = err.downcast_ref::<crate::error::PathError>().or_else(|| {
            match err.downcast_ref::<Error>()? {
                Error::Io(p) => Some(p),
                Error::Lifecycle(crate::lifecycle::LifecycleError::Io(p)) => Some(p),
                Error::Index(i) => match &**i {
                    IndexError::Vector(crate::index::vector::VectorError::Io(p))
                    | IndexError::Graph(crate::index::graph::GraphError::Io(p)) => Some(p),
                    _ => None,
                },
                _ => None,
            }
        });
        let path_error = path_error.or_else(|| match err.downcast_ref()? {
            crate::lifecycle::LifecycleError::Io(p) => Some(p),
            _ => None,
        });
        if let Some(p) = path_error {
            return io_kind(&p.source);
        }
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            if let Some(why) = io_kind(io) {
                return Some(why);
            }
        } else if let Some(io) = err.downcast_ref::<Arc<std::io::Error>>() {
            if let Some(why) = io_kind(io) {
                return Some(why);
            }
        } else {
            let text = err.to_string();
            for (os, words) in [
                ("Read-only file system", "the file system is read-only"),
                ("No space left on device", "the disk is full"),
                ("Disk quota exceeded", "the disk quota is used up"),
                ("Permission denied", "permission denied"),
            ] {
                if text.contains(os) {
                    return Some(words.to_owned());
                }
            }
        }
        cur = err.source();
    }
    None
}

/// An error and its sources, in words (`a: b: c`).
pub(super) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cur = e.source();
    while let Some(s) = cur {
        out.push_str(": ");
        out.push_str(&s.to_string());
        cur = s.source();
    }
    out
}

/// Beside the stores: the stamp (size, inode, mtime) of every keyword segment file and of the
/// graph file whose content was checked since it last changed, one `path<TAB>size<TAB>inode<TAB>
/// mtime` line each. Only a file not listed (new, or changed since) is checked again.
pub const VERIFIED_FILE: &str = "verified.tsv";

/// The graph file, relative to `indices/`.
pub(super) const GRAPH_REL: &str = "graph/graph.json";
/// The graph's journal (see [`crate::index::graph::JOURNAL`]).
pub(super) const GRAPH_JOURNAL_REL: &str = "graph/journal.jsonl";

/// What [`check_stores`] found damaged, in words.
#[derive(Debug)]
pub(super) struct Damage {
    /// Whether it is the keyword index (removed and rebuilt) rather than the graph.
    pub(super) keyword: bool,
    pub(super) words: String,
}

/// The stamp of one file under `indices/`, `rel` to it.
pub(super) fn stamp_of(dir: &Path, rel: &str) -> Option<FileStamp> {
    let st = crate::index::confined_io::stat(&dir.join(rel))
        .filter(|s| s.kind == crate::disk::Kind::File)?;
    Some(file_stamp(rel.to_owned(), &st))
}

/// `rel`'s size, inode and mtime (nanoseconds) from its stat (never a link's target).
pub(super) fn file_stamp(rel: String, st: &crate::disk::Stat) -> FileStamp {
    (rel, st.len, st.ino, st.mtime_ns)
}

pub(super) fn load_verified(dir: &Path) -> HashSet<FileStamp> {
    let text =
        crate::index::confined_io::read_to_string(&dir.join(VERIFIED_FILE)).unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let mut parts = l.split('\t');
            let rel = parts.next()?.to_owned();
            let size = parts.next()?.parse().ok()?;
            let ino = parts.next()?.parse().ok()?;
            let mtime = parts.next()?.parse().ok()?;
            Some((rel, size, ino, mtime))
        })
        .collect()
}

/// Saves the checked stamps; best effort (a read-only vault checks again next time).
pub(super) fn save_verified(dir: &Path, stamps: &HashSet<FileStamp>) {
    let mut lines: Vec<String> = stamps
        .iter()
        .map(|(rel, size, ino, mtime)| format!("{rel}\t{size}\t{ino}\t{mtime}\n"))
        .collect();
    lines.sort();
    if let Err(e) = crate::vault::atomic_write(&dir.join(VERIFIED_FILE), lines.concat().as_bytes())
    {
        tracing::debug!(error = %e, "cannot remember which index files were checked");
    }
}

/// Marks the files `rels` (as they are now) checked.
pub(super) fn record_verified(dir: &Path, rels: &[&str]) {
    let mut stamps = load_verified(dir);
    stamps.retain(|s| !rels.contains(&s.0.as_str()));
    stamps.extend(rels.iter().filter_map(|rel| stamp_of(dir, rel)));
    save_verified(dir, &stamps);
}

/// Checks the content of every keyword segment file (tantivy's checksum) and of the graph file
/// (it parses) that [`VERIFIED_FILE`] does not list as it is now, and remembers those found
/// sound. Files unchanged since they were checked cost a `stat` each. A graph that parses is
/// kept in `graph`: the caller needs no second read.
pub(super) fn check_stores(
    dir: &Path,
    graph: &std::sync::OnceLock<LinkGraph>,
) -> Result<(), Damage> {
    let verified = load_verified(dir);
    let mut now: HashSet<FileStamp> = HashSet::new();
    let kdir = dir.join("keyword");
    let corrupt = |detail: &str| Damage {
        keyword: true,
        words: format!("the keyword index in {} is corrupt{detail}", kdir.display()),
    };
    let mut unchecked: Vec<FileStamp> = Vec::new();
    if let Ok(entries) = crate::index::confined_io::read_dir(&kdir) {
        for entry in entries {
            let name = entry.name.to_string_lossy().into_owned();
            // Segment files are `<uuid>.<component>`; `meta.json` was read by the open.
            if name.starts_with('.') || !name.contains('.') || name == "meta.json" {
                continue;
            }
            let Some(stamp) = stamp_of(dir, &format!("keyword/{name}")) else { continue };
            if verified.contains(&stamp) {
                now.insert(stamp);
            } else {
                unchecked.push(stamp);
            }
        }
    }
    if !unchecked.is_empty() {
        // Beneath the vault handle, as the index itself is opened.
        let directory = crate::index::keyword::directory::ConfinedDirectory::open(&kdir)
            .map_err(|_| corrupt(""))?;
        let index = tantivy::Index::open(directory).map_err(|_| corrupt(""))?;
        let active = index.load_metas().map_err(|_| corrupt(""))?.list_segment_files();
        for stamp in unchecked {
            let name = std::path::PathBuf::from(&stamp.0["keyword/".len()..]);
            if !active.contains(&name) {
                continue; // not (yet or any longer) part of the index: never read
            }
            match index.directory().validate_checksum(&name) {
                Ok(true) => {
                    now.insert(stamp);
                }
                Ok(false) => {
                    return Err(corrupt(&format!(
                        ": {} does not match its checksum",
                        name.display()
                    )));
                }
                // Removed since it was listed: a writer replaced the segment.
                Err(tantivy::directory::error::OpenReadError::FileDoesNotExist(_)) => {}
                Err(_) => {
                    return Err(corrupt(&format!(": {} cannot be read", name.display())));
                }
            }
        }
    }
    if let Some(stamp) = stamp_of(dir, GRAPH_REL) {
        // The journal is part of the graph: the two are checked together.
        let journal = stamp_of(dir, GRAPH_JOURNAL_REL);
        // A file checked by another version of memlane may be of another format (64 bytes read).
        let this_format =
            LinkGraph::file_format(&dir.join(GRAPH_REL)) == Some(crate::index::graph::FORMAT);
        if this_format
            && verified.contains(&stamp)
            && journal.as_ref().is_none_or(|j| verified.contains(j))
        {
            now.insert(stamp);
            now.extend(journal);
        } else {
            match LinkGraph::load(&dir.join("graph")) {
                Ok(Some(g)) => {
                    let _ = graph.set(g);
                    now.insert(stamp);
                    now.extend(journal);
                }
                Ok(None) => {
                    let path = dir.join(GRAPH_REL);
                    let other = LinkGraph::file_format(&path)
                        .is_some_and(|f| f != crate::index::graph::FORMAT);
                    let what = if other {
                        "was written by another version of memlane"
                    } else {
                        "is corrupt"
                    };
                    return Err(Damage {
                        keyword: false,
                        words: format!("the link graph {} {what}", path.display()),
                    });
                }
                // Not readable (permissions): a rebuild would not fix it; `graph()` says so.
                Err(_) => {}
            }
        }
    }
    if now != verified {
        save_verified(dir, &now);
    }
    Ok(())
}

/// Why the keyword index could not be opened, in words naming its folder.
pub(super) fn keyword_damage_words(kdir: &Path, e: &KeywordError) -> String {
    use tantivy::directory::error::OpenReadError;
    if matches!(e, KeywordError::SchemaMismatch { .. }) {
        return format!(
            "the keyword index in {} was built by another version of memlane",
            kdir.display()
        );
    }
    let missing =
        std::iter::successors(Some(e as &dyn std::error::Error), |e| e.source()).any(|s| {
            matches!(
                s.downcast_ref::<tantivy::TantivyError>(),
                Some(tantivy::TantivyError::OpenReadError(OpenReadError::FileDoesNotExist(_)))
            ) || matches!(
                s.downcast_ref::<OpenReadError>(),
                Some(OpenReadError::FileDoesNotExist(_))
            ) || s
                .downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound)
        });
    if missing {
        format!("a file of the keyword index in {} is missing", kdir.display())
    } else {
        format!("the keyword index in {} is corrupt", kdir.display())
    }
}

thread_local! {
    /// Set while [`catch_index_panic`] runs on this thread: its panics are expected.
    static GUARDED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f`, a read of the indices, and catches a panic of the search library on a damaged store
/// (`None`): the caller rebuilds with [`Indexes::rebuild_after_failure`] and tries again once.
/// Such a panic is logged at debug level instead of printed; any other panic prints as usual
/// (on stderr: never on stdout, the MCP transport).
pub fn catch_index_panic<T>(f: impl FnOnce() -> T) -> Option<T> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if GUARDED.get() {
                tracing::debug!(%info, "reading the indices panicked");
            } else {
                previous(info);
            }
        }));
    });
    let was = GUARDED.replace(true);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    GUARDED.set(was);
    result.ok()
}
#[cfg(test)]
mod unwritable_tests {
    use super::*;

    pub(super) fn path_error(errno: i32) -> crate::error::PathError {
        crate::error::PathError {
            action: "create",
            path: PathBuf::from("/v/.memories/indices"),
            source: std::io::Error::from_raw_os_error(errno),
        }
    }

    #[test]
    pub(super) fn write_failures_are_recognised_in_words_and_others_are_not() {
        let e: Error = path_error(30).into();
        assert_eq!(unwritable(&e).as_deref(), Some("the file system is read-only"));
        let e: Error = path_error(28).into();
        assert_eq!(unwritable(&e).as_deref(), Some("the disk is full"));
        let e: Error = path_error(13).into();
        assert_eq!(unwritable(&e).as_deref(), Some("permission denied"));
        let e = crate::lifecycle::LifecycleError::Io(path_error(30));
        assert_eq!(unwritable(&e).as_deref(), Some("the file system is read-only"));
        let e: Error =
            IndexError::Graph(crate::index::graph::GraphError::Io(path_error(28))).into();
        assert_eq!(unwritable(&e).as_deref(), Some("the disk is full"));
        // Not a write failure: a missing file, an invalid request.
        let e: Error = path_error(2).into();
        assert_eq!(unwritable(&e), None);
        assert_eq!(unwritable(&Error::RawWithoutContent), None);
        // Tantivy keeps only the OS's words.
        let e = KeywordError::Tantivy {
            action: "open a reader",
            source: tantivy::TantivyError::from(std::io::Error::from_raw_os_error(30)),
        };
        assert_eq!(unwritable(&e).as_deref(), Some("the file system is read-only"));
    }
}
