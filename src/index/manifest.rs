//! The index manifest: what the derived indices were built from.
//!
//! One entry per memory file with its size, mtime, ctime and content hash (so a reconcile can
//! tell an unchanged file from a changed one with a `stat`, and a touched-but-identical file with
//! a hash),
//! its chunk count (vector keys are derived from the name and chunk ordinal), and the metadata that
//! search filters and ranks on without reading the file. Written always last, so a crash leaves
//! an older manifest that the next reconcile repairs from.
//!
//! On disk (`indices/manifest.bin`, [`FILE`]) it is a JSON header line followed by one
//! fixed-width binary record per memory, sorted by name, and then the records' text (names,
//! hashes, ids, titles, types, statuses, tags, `superseded_by`, warnings), UTF-8. Every command
//! reads it, so nothing in it is parsed on open: the file is read into memory in one go, its
//! checksum (the header's `base`, an xxh3 of everything after the header line) and record layout
//! are checked, and then an entry is found by a binary search over the records' names and
//! decoded only when a caller asks for it (see [`Manifest::get`], [`Manifest::iter`]). A
//! no-change reconcile compares each record's size, mtime and ctime in place; a search decodes
//! its candidates. A record is `RECORD` (128) bytes, little-endian: the offset of its text (u32),
//! the lengths of its nine text fields (u32 each), size (u64), mtime in nanoseconds (i128),
//! chunks (u32), flags (u32: 1 pinned, 2 has `expires_at`, 4 has `happens_at`), `created`,
//! `updated`, `expires_at`, `happens_at` (i64 each), the links hash (u64) and the ctime in
//! nanoseconds (i128; `i128::MIN` when unknown). A record of format 8 is the same without the
//! ctime (112 bytes). Tags and warnings are lists whose items are separated by `\x1f` (items
//! escape `\\`, tab, newline, CR and `\x1f`).
//!
//! Beside it, [`JOURNAL`]: the entries changed since [`FILE`] was written, one text line each
//! (`+` and the entry's tab-separated line in the base's format, or `-` and the removed name),
//! appended by
//! [`Manifest::save`], so that indexing one memory in a 100k-memory vault appends a line instead
//! of rewriting 17 MB. Its first line names the base it extends (the header's `base`): a journal
//! left beside another base is ignored, and the next save writes the whole file. Past
//! [`JOURNAL_MAX_LINES`] (or more lines than the base has entries) the whole file is written again
//! and the journal removed. A journal line that does not parse makes the manifest unreadable (the
//! caller rebuilds); a last line without its newline is a write still under way, not yet there.
//!
//! Before format 8 the manifest was `indices/manifest.tsv` ([`LEGACY_FILE`]): a JSON header line
//! and one tab-separated line per memory. Such a file (formats 6 and 7) is still read, and the
//! next reconcile that may write saves it as [`FILE`] and removes it (see [`FORMAT`]).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

/// The manifest format; a different number means "rebuild".
///
/// 4: tags and warnings are redacted before they are recorded, so a manifest written
/// before that is rebuilt rather than trusted.
/// 5: redaction markers (`[redacted]`, `«redacted:<kind>»`) are no longer indexed or embedded.
/// A manifest with a journal keeps its format: a memlane that does not know the journal ignores
/// the header's `base` and the journal, finds the stores ahead of the file, and rebuilds.
/// 6: a link whose target held private text or a secret is no longer in the graph, so a graph
/// built before (which may hold such targets) is rebuilt.
/// 7: each warning is recorded with its [`WarningKind`] (`kind:message`). A manifest of format 6
/// (messages only) is still read: its warnings are classified as it loads.
/// 8: the binary [`FILE`] replaces the tab-separated [`LEGACY_FILE`]. A `manifest.tsv` of format 6
/// or 7 is still read (see [`OLDEST_READ`]), and [`Manifest::upgrade_due`] says so: the next
/// reconcile that may write saves it whole as [`FILE`] and removes the old file and its journal.
/// When both files are there, `manifest.tsv` is the one read: this memlane removes it right after
/// writing [`FILE`], so one still there was written by an older memlane after [`FILE`] (which
/// finds no `manifest.tsv` and rebuilds), or left by a save that stopped between the two steps.
/// 9: each entry records its file's ctime ([`Entry::ctime_ns`]; a record of 128 bytes, and one
/// more field in a journal line), so an edit that gives a file back its size and mtime is seen.
/// A [`FILE`] of format 8 (and its journal) is still read, its entries' ctime unknown: the next
/// reconcile compares each such file's content hash once, records its ctime, and (as
/// [`Manifest::upgrade_due`] says) saves the whole file in this format.
pub const FORMAT: u32 = 9;

/// The oldest format [`Manifest::load`] reads (and upgrades in memory) instead of asking for a
/// rebuild.
pub const OLDEST_READ: u32 = 6;

/// The file name of the manifest under `indices/`.
pub const FILE: &str = "manifest.bin";

/// The file name of the manifest before format 8 (tab-separated text) under `indices/`.
pub const LEGACY_FILE: &str = "manifest.tsv";

/// The file name of its journal under `indices/`.
pub const JOURNAL: &str = "manifest.journal";

/// Journal lines at most: a save past them writes the whole manifest instead.
pub const JOURNAL_MAX_LINES: usize = 1024;

/// The manifest of one vault's indices.
///
/// Entries change only through [`insert`](Self::insert), [`remove`](Self::remove),
/// [`set_links`](Self::set_links) and [`reset`](Self::reset), which note what [`save`](Self::save)
/// must write. The entries read from [`FILE`] stay in their binary records until asked for; the
/// changes since (the journal's and this process's) are held decoded beside them.
#[derive(Debug, Clone, Default)]
pub struct Manifest {
    /// [`FORMAT`] when written.
    pub format: u32,
    /// The embedder the vector index was built with.
    pub embedder_id: String,
    /// Its vector length.
    pub dim: usize,
    /// The entries of [`FILE`] as read (or last written), decoded one by one when asked for.
    table: Option<Arc<Table>>,
    /// Entries set (`Some`) or removed (`None`) since `table`; every entry when there is none.
    overlay: BTreeMap<String, Option<Entry>>,
    /// How many entries there are.
    len: usize,
    /// Every entry decoded, for [`entries`](Self::entries); dropped on a change.
    all: OnceLock<BTreeMap<String, Entry>>,
    /// Lookups derived from every entry, for [`derived`](Self::derived); dropped on a change.
    memo: Memo,
    /// How many entries carry each id (by the id's xxh3), built on first use and then kept up
    /// to date by every change: what [`duplicate_ids_of`](Self::duplicate_ids_of) asks.
    id_counts: OnceLock<std::collections::HashMap<u64, u32>>,
    /// What is on disk and what changed since.
    disk: DiskState,
}

/// How a [`Manifest`] relates to its files.
#[derive(Debug, Clone, Default)]
struct DiskState {
    /// The `base` of the file this manifest was read from or last written as, when its journal
    /// holds every change up to now except `changed`; `None`: write the whole file.
    base: Option<u64>,
    /// Lines in that journal (its first line, naming the base, not counted).
    journal_lines: usize,
    /// Names whose entry changed since (set, changed or removed).
    changed: BTreeSet<String>,
    /// The header changed (embedder, dimension, format): write the whole file.
    rewrite: bool,
    /// Read in an older format (a [`LEGACY_FILE`], or a [`FILE`] of format 8): to be saved
    /// whole in this one even when nothing changed.
    upgrade: bool,
}

impl PartialEq for Manifest {
    /// Equal content: the header and every entry (not how it is split between file and journal).
    fn eq(&self, other: &Self) -> bool {
        self.format == other.format
            && self.embedder_id == other.embedder_id
            && self.dim == other.dim
            && self.len == other.len
            && self
                .iter()
                .zip(other.iter())
                .all(|((a, ea), (b, eb))| a == b && ea.to_entry() == eb.to_entry())
    }
}

/// How many memories of a [`Manifest`] have one status, and their chunks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusCount {
    /// The status, as the entries hold it.
    pub status: String,
    /// Memories.
    pub memories: usize,
    /// Their chunks.
    pub chunks: usize,
}

/// What the indices know about one memory file.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Entry {
    /// File size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i128,
    /// Status-change time (ctime), nanoseconds since the Unix epoch (0 off Unix): any write,
    /// rename or change of the file's times moves it, so a file whose size and mtime are as
    /// recorded but whose ctime is not may have changed. `None`: unknown (recorded by a manifest
    /// before format 9), so the file's content hash is compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ctime_ns: Option<i128>,
    /// xxh3-64 of the file's bytes, hex.
    pub hash: String,
    /// The memory's id.
    pub id: String,
    /// How many chunks it was split into.
    pub chunks: usize,
    /// Its title (first heading, else the file stem).
    pub title: String,
    /// Effective type.
    pub memory_type: String,
    /// Effective status.
    pub status: String,
    /// Tags.
    pub tags: Vec<String>,
    /// `created_at` (or mtime), Unix seconds.
    pub created: i64,
    /// `updated_at` (or created), Unix seconds.
    pub updated: i64,
    /// `pinned`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
    /// `superseded_by`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// `expires_at`, Unix seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<i64>,
    /// `happens_at`, Unix seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub happens_at: Option<i64>,
    /// Problems found reading the file (shown by `doctor` and in `--json`), each with its kind.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
    /// xxh3 of the memory's outgoing links as last put in the graph: an edit that leaves them
    /// alone needs neither to load nor to save the graph.
    #[serde(default)]
    pub links: u64,
}

pub use crate::vault::{Warning, WarningKind};

/// A warning recorded by a format-6 manifest, which kept only the message: classified once,
/// when that manifest is read, by the message's start ([`crate::vault::KEY_CONFLICT`],
/// [`crate::vault::BODY_CONFLICT`]); the loader itself records the kind.
fn legacy_warning(message: String) -> Warning {
    let kind = if message.starts_with(crate::vault::KEY_CONFLICT) {
        WarningKind::KeyConflict
    } else if message.starts_with(crate::vault::BODY_CONFLICT) {
        WarningKind::BodyConflict
    } else {
        WarningKind::Frontmatter
    };
    Warning { kind, message }
}

/// One entry of a [`Manifest`] as it is held: a binary record not decoded yet, or an [`Entry`].
/// Its fixed-width fields and plain text fields are read in place; [`entry`](Self::entry)
/// decodes the whole entry (once per process for a record).
#[derive(Clone, Copy)]
pub struct EntryRef<'a>(Held<'a>);

#[derive(Clone, Copy)]
enum Held<'a> {
    Record(&'a Table, usize),
    Decoded(&'a Entry),
}

impl<'a> EntryRef<'a> {
    /// File size in bytes.
    pub fn size(self) -> u64 {
        match self.0 {
            Held::Record(t, i) => t.u64(i, R_SIZE),
            Held::Decoded(e) => e.size,
        }
    }

    /// Modification time, nanoseconds since the Unix epoch.
    pub fn mtime_ns(self) -> i128 {
        match self.0 {
            Held::Record(t, i) => i128::from_le_bytes(t.field(i, R_MTIME)),
            Held::Decoded(e) => e.mtime_ns,
        }
    }

    /// Status-change time, nanoseconds since the Unix epoch (`None`: unknown, see
    /// [`Entry::ctime_ns`]).
    pub fn ctime_ns(self) -> Option<i128> {
        match self.0 {
            Held::Record(t, i) => t.ctime_ns(i),
            Held::Decoded(e) => e.ctime_ns,
        }
    }

    /// How many chunks the memory was split into.
    pub fn chunks(self) -> usize {
        match self.0 {
            Held::Record(t, i) => t.u32(i, R_CHUNKS) as usize,
            Held::Decoded(e) => e.chunks,
        }
    }

    /// `created_at` (or mtime), Unix seconds.
    pub fn created(self) -> i64 {
        match self.0 {
            Held::Record(t, i) => t.i64(i, R_CREATED),
            Held::Decoded(e) => e.created,
        }
    }

    /// `updated_at` (or created), Unix seconds.
    pub fn updated(self) -> i64 {
        match self.0 {
            Held::Record(t, i) => t.i64(i, R_UPDATED),
            Held::Decoded(e) => e.updated,
        }
    }

    /// `pinned`.
    pub fn pinned(self) -> bool {
        match self.0 {
            Held::Record(t, i) => t.u32(i, R_FLAGS) & F_PINNED != 0,
            Held::Decoded(e) => e.pinned,
        }
    }

    /// Whether it names a `superseded_by`.
    pub fn is_superseded(self) -> bool {
        match self.0 {
            Held::Record(t, i) => !t.text(i, T_SUPERSEDED).is_empty(),
            Held::Decoded(e) => e.superseded_by.is_some(),
        }
    }

    /// xxh3-64 of the file's bytes, hex.
    pub fn hash(self) -> &'a str {
        match self.0 {
            Held::Record(t, i) => t.text(i, T_HASH),
            Held::Decoded(e) => &e.hash,
        }
    }

    /// The memory's id.
    pub fn id(self) -> &'a str {
        match self.0 {
            Held::Record(t, i) => t.text(i, T_ID),
            Held::Decoded(e) => &e.id,
        }
    }

    /// Effective type.
    pub fn memory_type(self) -> &'a str {
        match self.0 {
            Held::Record(t, i) => t.text(i, T_TYPE),
            Held::Decoded(e) => &e.memory_type,
        }
    }

    /// Effective status.
    pub fn status(self) -> &'a str {
        match self.0 {
            Held::Record(t, i) => t.text(i, T_STATUS),
            Held::Decoded(e) => &e.status,
        }
    }

    /// Tags.
    pub fn tags(self) -> Cow<'a, [String]> {
        match self.0 {
            Held::Record(t, i) => Cow::Owned(lossy_list(t.text(i, T_TAGS))),
            Held::Decoded(e) => Cow::Borrowed(&e.tags),
        }
    }

    /// The whole entry, decoded (a record once per process, then kept).
    pub fn entry(self) -> &'a Entry {
        match self.0 {
            Held::Record(t, i) => t.entry(i),
            Held::Decoded(e) => e,
        }
    }

    /// The whole entry, decoded into a new value (nothing kept).
    pub fn to_entry(self) -> Entry {
        match self.0 {
            Held::Record(t, i) => match t.decoded[i].get() {
                Some(e) => (**e).clone(),
                None => t.decode(i),
            },
            Held::Decoded(e) => e.clone(),
        }
    }
}

impl std::fmt::Debug for EntryRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.to_entry().fmt(f)
    }
}

/// The entries of a [`Manifest`], by name: its records and its decoded changes merged.
pub struct Iter<'a> {
    table: Option<&'a Table>,
    next: usize,
    overlay: std::iter::Peekable<std::collections::btree_map::Range<'a, String, Option<Entry>>>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a str, EntryRef<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let record = self.table.filter(|t| self.next < t.n).map(|t| (t, t.name(self.next)));
            let changed_first = match (record, self.overlay.peek()) {
                (None, None) => return None,
                (Some(_), None) => false,
                (None, Some(_)) => true,
                (Some((_, name)), Some((changed, _))) => changed.as_str() <= name,
            };
            if changed_first {
                let (name, entry) = self.overlay.next()?;
                if record.is_some_and(|(_, n)| n == name.as_str()) {
                    self.next += 1; // replaced or removed
                }
                if let Some(e) = entry {
                    return Some((name.as_str(), EntryRef(Held::Decoded(e))));
                }
            } else {
                let (table, name) = record?;
                self.next += 1;
                return Some((name, EntryRef(Held::Record(table, self.next - 1))));
            }
        }
    }
}

impl Manifest {
    /// Ids that more than one memory carries, with those memories' names (sorted).
    pub fn duplicate_ids(&self) -> Vec<(String, Vec<String>)> {
        self.shared_ids(None)
    }

    /// [`duplicate_ids`](Self::duplicate_ids) among the ids of `names` only, for a reconcile
    /// that indexed a few memories.
    ///
    /// The entries are passed over only when one of those ids is carried more than once: the
    /// count of each id is built once (one pass) and kept up to date by every change, so a
    /// long-lived process that indexes one memory at a time pays per memory, not per vault.
    pub fn duplicate_ids_of(&self, names: &[String]) -> Vec<(String, Vec<String>)> {
        let counts = self.id_counts.get_or_init(|| {
            let mut counts = std::collections::HashMap::with_capacity(self.len);
            for (_, e) in self.iter() {
                *counts.entry(id_key(e.id())).or_insert(0) += 1;
            }
            counts
        });
        let ids: BTreeSet<&str> = names
            .iter()
            .filter_map(|n| self.get_ref(n))
            .map(EntryRef::id)
            .filter(|id| counts.get(&id_key(id)).is_some_and(|c| *c > 1))
            .collect();
        if ids.is_empty() {
            return Vec::new();
        }
        self.shared_ids(Some(&ids))
    }

    fn shared_ids(&self, only: Option<&BTreeSet<&str>>) -> Vec<(String, Vec<String>)> {
        let mut by_id: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for (name, e) in self.iter() {
            let id = e.id();
            if only.is_none_or(|ids| ids.contains(id)) {
                by_id.entry(id).or_default().push(name.to_owned());
            }
        }
        by_id
            .into_iter()
            .filter(|(_, names)| names.len() > 1)
            .map(|(id, names)| (id.to_owned(), names))
            .collect()
    }

    /// An empty manifest for `embedder_id` vectors of `dim`, whose next save writes the whole
    /// file.
    pub fn new(embedder_id: &str, dim: usize) -> Manifest {
        Manifest {
            format: FORMAT,
            embedder_id: embedder_id.to_owned(),
            dim,
            disk: DiskState { rewrite: true, ..Default::default() },
            ..Default::default()
        }
    }

    /// Empties it for `embedder_id` vectors of `dim` (a rebuild): the next save writes the whole
    /// file.
    pub fn reset(&mut self, embedder_id: &str, dim: usize) {
        *self = Manifest::new(embedder_id, dim);
    }

    /// Makes the header say [`FORMAT`], `embedder_id` and `dim` (the next save writes the whole
    /// file if it did not).
    pub fn ensure_header(&mut self, embedder_id: &str, dim: usize) {
        if self.format != FORMAT || self.embedder_id != embedder_id || self.dim != dim {
            self.format = FORMAT;
            self.embedder_id = embedder_id.to_owned();
            self.dim = dim;
            self.disk.rewrite = true;
        }
    }

    /// Whether it was read in an older format (a [`LEGACY_FILE`], or a [`FILE`] of format 8)
    /// and is still to be saved whole in this one: a reconcile that may write saves it even
    /// when no memory changed.
    pub fn upgrade_due(&self) -> bool {
        self.disk.upgrade
    }

    /// How many memories it lists.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it lists no memory.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The entries by name, each decoded only when asked for (see [`EntryRef`]).
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            table: self.table.as_deref(),
            next: 0,
            overlay: self.overlay.range::<str, _>(..).peekable(),
        }
    }

    /// The entries after `name` (all when `None`), by name, each decoded only when asked for.
    pub fn iter_after(&self, name: Option<&str>) -> Iter<'_> {
        let Some(after) = name else { return self.iter() };
        let next =
            self.table.as_deref().map_or(0, |t| partition_point(t.n, |i| t.name(i) <= after));
        let overlay = self
            .overlay
            .range::<str, _>((std::ops::Bound::Excluded(after), std::ops::Bound::Unbounded));
        Iter { table: self.table.as_deref(), next, overlay: overlay.peekable() }
    }

    /// The entry of `name`, in place.
    pub fn get_ref(&self, name: &str) -> Option<EntryRef<'_>> {
        self.get_key_ref(name).map(|(_, e)| e)
    }

    /// The entry of `name` with the name as the manifest holds it.
    fn get_key_ref(&self, name: &str) -> Option<(&str, EntryRef<'_>)> {
        match self.overlay.get_key_value(name) {
            Some((n, Some(e))) => Some((n.as_str(), EntryRef(Held::Decoded(e)))),
            Some((_, None)) => None,
            None => {
                let t = self.table.as_deref()?;
                let i = t.find(name)?;
                Some((t.name(i), EntryRef(Held::Record(t, i))))
            }
        }
    }

    /// The entry of `name` (decoded on first use).
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.get_ref(name).map(EntryRef::entry)
    }

    /// The entry of `name` and the name as the manifest holds it.
    pub fn get_key_value(&self, name: &str) -> Option<(&str, &Entry)> {
        self.get_key_ref(name).map(|(n, e)| (n, e.entry()))
    }

    /// Whether `name` has an entry.
    pub fn contains(&self, name: &str) -> bool {
        match self.overlay.get(name) {
            Some(e) => e.is_some(),
            None => self.table.as_deref().is_some_and(|t| t.find(name).is_some()),
        }
    }

    /// Every entry, by memory name, decoded (all at once, on first use: at 100k memories that is
    /// tens of milliseconds; [`iter`](Self::iter) and [`get`](Self::get) decode what they
    /// return only).
    pub fn entries(&self) -> &BTreeMap<String, Entry> {
        self.all.get_or_init(|| {
            let start = std::time::Instant::now();
            let all: BTreeMap<String, Entry> =
                self.iter().map(|(n, e)| (n.to_owned(), e.to_entry())).collect();
            tracing::debug!(
                ms = start.elapsed().as_secs_f64() * 1e3,
                entries = all.len(),
                "decoded every manifest entry"
            );
            all
        })
    }

    /// A lookup `build` derives from every entry (a time index, the entries of one status …),
    /// kept until the next change. `None` the first time a kind of lookup is asked for since the
    /// last change: the caller scans the entries instead. A one-command process asks once and
    /// so never pays for building it; a long-lived server builds it on its second search and
    /// then answers from it.
    pub fn derived<T: std::any::Any + Send + Sync>(
        &self,
        build: impl FnOnce(&Manifest) -> T,
    ) -> Option<Arc<T>> {
        let key = std::any::TypeId::of::<T>();
        {
            let mut memo = self.memo.0.lock().unwrap_or_else(|e| e.into_inner());
            match memo.get(&key) {
                Some(Some(v)) => return v.clone().downcast::<T>().ok(),
                Some(None) => {}
                None => {
                    memo.insert(key, None);
                    return None;
                }
            }
        }
        // Built outside the lock: two threads may both build it; either result is the same.
        let value: Arc<T> = Arc::new(build(self));
        let any: Arc<dyn std::any::Any + Send + Sync> = value.clone();
        self.memo.0.lock().unwrap_or_else(|e| e.into_inner()).insert(key, Some(any));
        Some(value)
    }

    /// Sets (`Some`) or removes the entry of `name`, keeping the count; whether it was there.
    fn put(&mut self, name: String, entry: Option<Entry>) -> bool {
        let had = self.contains(&name);
        if self.id_counts.get().is_some() {
            let old = self.get_ref(&name).map(|e| id_key(e.id()));
            let new = entry.as_ref().map(|e| id_key(&e.id));
            let counts = self.id_counts.get_mut().expect("checked just above");
            if let Some(k) = old
                && let Some(c) = counts.get_mut(&k)
            {
                *c -= 1;
                if *c == 0 {
                    counts.remove(&k);
                }
            }
            if let Some(k) = new {
                *counts.entry(k).or_insert(0) += 1;
            }
        }
        self.all.take();
        self.memo = Memo::default();
        match entry {
            Some(e) => {
                self.len += usize::from(!had);
                self.overlay.insert(name, Some(e));
            }
            None if !had => {}
            None => {
                self.len -= 1;
                if self.table.as_deref().is_some_and(|t| t.find(&name).is_some()) {
                    self.overlay.insert(name, None);
                } else {
                    self.overlay.remove(&name);
                }
            }
        }
        had
    }

    /// Sets the entry of `name`.
    pub fn insert(&mut self, name: String, entry: Entry) {
        if self.get(&name) != Some(&entry) {
            self.note_changed(&name);
            self.put(name, Some(entry));
        }
    }

    /// Removes the entry of `name`, returning it.
    pub fn remove(&mut self, name: &str) -> Option<Entry> {
        let old = self.get_ref(name)?.to_entry();
        self.note_changed(name);
        self.put(name.to_owned(), None);
        Some(old)
    }

    /// Records the hash of `name`'s outgoing links (see [`Entry::links`]).
    pub fn set_links(&mut self, name: &str, links: u64) {
        if let Some(e) = self.get_ref(name)
            && e.entry().links != links
        {
            let mut e = e.to_entry();
            e.links = links;
            self.note_changed(name);
            self.put(name.to_owned(), Some(e));
        }
    }

    /// Notes `name` for the journal; not needed when the next save writes the whole file (a
    /// rebuild inserts every entry).
    fn note_changed(&mut self, name: &str) {
        if !self.disk.rewrite {
            self.disk.changed.insert(name.to_owned());
        }
    }

    /// Reads the manifest of the indices folder `dir` (its file and journal); `None` when it is
    /// missing, unreadable, or of a format older than [`OLDEST_READ`] or newer than [`FORMAT`].
    ///
    /// Nothing per memory is decoded here (see the module's docs). A manifest of an older format
    /// ([`LEGACY_FILE`], read whole; or a [`FILE`] of format 8, read in place, its entries'
    /// ctime unknown) is upgraded in memory: it says [`FORMAT`], [`upgrade_due`](Self::upgrade_due)
    /// is true, and its next save writes the whole [`FILE`].
    pub fn load(dir: &Path) -> Option<Manifest> {
        match crate::index::confined_io::read(&dir.join(LEGACY_FILE)) {
            Ok(bytes) => return Self::load_legacy(dir, String::from_utf8(bytes).ok()?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => return None,
        }
        let (head, text) = read_split(&dir.join(FILE))?;
        let (header, table) = Table::parse_parts(head, text)?;
        let mut m = Manifest {
            format: header.format,
            embedder_id: header.embedder_id,
            dim: header.dim,
            len: table.n,
            table: Some(Arc::new(table)),
            overlay: BTreeMap::new(),
            all: OnceLock::new(),
            memo: Memo::default(),
            id_counts: OnceLock::new(),
            disk: DiskState { base: header.base, ..Default::default() },
        };
        // A journal extends its base, so its lines are in the base's format.
        m.replay_journal(&dir.join(JOURNAL), header.format)?;
        if header.format != FORMAT {
            // Format 8: saved next as a whole file in this one, after the reconcile has compared
            // the content of each file whose ctime it lacks (and recorded that ctime).
            m.format = FORMAT;
            m.disk = DiskState { rewrite: true, upgrade: true, ..Default::default() };
        }
        Some(m)
    }

    /// [`load`](Self::load) of a `manifest.tsv` of format 6 or 7 (`text`), parsed whole.
    fn load_legacy(dir: &Path, text: String) -> Option<Manifest> {
        let (first, body) = text.split_once('\n').unwrap_or((&text, ""));
        let header: Header = serde_json::from_str(first).ok()?;
        if !(OLDEST_READ..FORMAT).contains(&header.format) {
            return None;
        }
        let format = header.format;
        // A large one is parsed in two halves at once (the lines are independent).
        let parse = |part: &str| -> Option<Vec<(String, Entry)>> {
            part.split('\n').filter(|l| !l.is_empty()).map(|l| decode_entry(l, format)).collect()
        };
        let mid = body.len() / 2;
        let split = body[mid..].find('\n').map(|i| mid + i + 1);
        let parsed = match split {
            Some(at) if body.len() >= PARALLEL_PARSE_BYTES => {
                let (a, b) = body.split_at(at);
                std::thread::scope(|s| {
                    let second = s.spawn(|| parse(b));
                    let first = parse(a);
                    let second = second.join().ok().flatten();
                    Some(first?.into_iter().chain(second?).collect::<Vec<_>>())
                })
            }
            _ => parse(body),
        }?;
        // The lines are sorted by name, so this builds the map in one pass.
        let overlay: BTreeMap<String, Option<Entry>> =
            parsed.into_iter().map(|(n, e)| (n, Some(e))).collect();
        if overlay.len() != header.entries {
            return None;
        }
        let mut m = Manifest {
            format: header.format,
            embedder_id: header.embedder_id,
            dim: header.dim,
            len: overlay.len(),
            table: None,
            overlay,
            all: OnceLock::new(),
            memo: Memo::default(),
            id_counts: OnceLock::new(),
            disk: DiskState { base: header.base, ..Default::default() },
        };
        m.replay_journal(&dir.join(JOURNAL), format)?;
        // Read in an older format: what is saved next is the whole file in this one.
        m.format = FORMAT;
        m.disk = DiskState { rewrite: true, upgrade: true, ..Default::default() };
        Some(m)
    }

    /// Applies the journal at `path` (its lines in `format`) when it extends this manifest's base
    /// (see the module's docs); `None` when a line does not parse.
    fn replay_journal(&mut self, path: &Path, format: u32) -> Option<()> {
        let text = match crate::index::confined_io::read(path) {
            Ok(bytes) => String::from_utf8(bytes).ok()?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(()),
            Err(_) => return None,
        };
        let mut lines = text.split_inclusive('\n');
        let extends = lines
            .next()
            .and_then(|l| l.strip_suffix('\n')?.strip_prefix('#'))
            .and_then(|b| u64::from_str_radix(b, 16).ok());
        if self.disk.base.is_none() || self.disk.base != extends {
            // Written for another base (or cut in its first line): not this file's changes.
            self.disk.base = None;
            return Some(());
        }
        for line in lines {
            let Some(line) = line.strip_suffix('\n') else {
                // A write under way; what is whole is the manifest as of now. The next save
                // writes the whole file rather than append after a cut line.
                self.disk.base = None;
                break;
            };
            if let Some(name) = line.strip_prefix('-') {
                self.put(unescape(name)?, None);
            } else {
                let (name, entry) = decode_entry(line.strip_prefix('+')?, format)?;
                self.put(name, Some(entry));
            }
            self.disk.journal_lines += 1;
        }
        Some(())
    }

    /// Writes what changed since the manifest was read from `dir` or last written there: lines
    /// appended to the journal, or the whole file (atomically, then the journal removed) when
    /// there is no base to extend, the header changed, or the journal would grow past
    /// [`JOURNAL_MAX_LINES`] or past the number of entries.
    pub fn save(&mut self, dir: &Path) -> Result<(), crate::error::PathError> {
        let lines = self.disk.journal_lines + self.disk.changed.len();
        match self.disk.base {
            Some(base)
                if !self.disk.rewrite
                    && lines <= JOURNAL_MAX_LINES
                    && lines <= self.len.max(16) =>
            {
                if self.disk.changed.is_empty() {
                    return Ok(());
                }
                let path = dir.join(JOURNAL);
                let mut out = String::new();
                if self.disk.journal_lines == 0 {
                    out.push_str(&format!("#{base:016x}\n"));
                }
                for name in &self.disk.changed {
                    match self.get(name) {
                        Some(e) => {
                            out.push('+');
                            encode_entry(&mut out, name, e, FORMAT);
                        }
                        None => {
                            out.push('-');
                            escape(&mut out, name);
                        }
                    }
                    out.push('\n');
                }
                if self.disk.journal_lines == 0 {
                    // A journal of another base left behind (a save that died before removing
                    // it) goes: this one starts with its own base.
                    remove_if_there(&path)?;
                }
                crate::disk::append_synced(&path, out.as_bytes())?;
                self.disk.journal_lines = lines;
                self.disk.changed.clear();
                Ok(())
            }
            _ => self.save_whole(dir),
        }
    }

    /// Writes the whole manifest file atomically and removes the journal (and a
    /// [`LEGACY_FILE`]). What was written is what the manifest holds from then on, in records.
    pub fn save_whole(&mut self, dir: &Path) -> Result<(), crate::error::PathError> {
        let out = self.whole_file(self.format);
        crate::vault::atomic_write(&dir.join(FILE), &out)?;
        remove_if_there(&dir.join(LEGACY_FILE))?;
        remove_if_there(&dir.join(JOURNAL))?;
        let base = Table::parse(out).map(|(header, table)| {
            self.table = Some(Arc::new(table));
            self.overlay.clear();
            header.base
        });
        self.disk = DiskState { base: base.flatten(), ..Default::default() };
        Ok(())
    }

    /// The bytes of the whole [`FILE`] in `format` (this one, or 8 without the ctimes).
    fn whole_file(&self, format: u32) -> Vec<u8> {
        let width = record_width(format).unwrap_or(RECORD);
        let mut records = Vec::with_capacity(self.len * width);
        let mut text = String::new();
        for (name, e) in self.iter() {
            push_record(&mut records, &mut text, name, e, width);
        }
        records.extend_from_slice(text.as_bytes());
        drop(text);
        let base = xxhash_rust::xxh3::xxh3_64(&records);
        let header = Header {
            format,
            embedder_id: self.embedder_id.clone(),
            dim: self.dim,
            entries: self.len,
            base: Some(base),
            text: Some(records.len() - self.len * width),
        };
        let mut out = serde_json::to_vec(&header).expect("a header always serialises");
        out.push(b'\n');
        out.extend_from_slice(&records);
        out
    }

    /// Writes the whole manifest as a [`FILE`] of format 8 (no ctimes), as a memlane before
    /// format 9 did, and removes the journal: for tests of the upgrade.
    #[doc(hidden)]
    pub fn save_format_8(&self, dir: &Path) -> Result<(), crate::error::PathError> {
        crate::vault::atomic_write(&dir.join(FILE), &self.whole_file(8))?;
        remove_if_there(&dir.join(LEGACY_FILE))?;
        remove_if_there(&dir.join(JOURNAL))
    }

    /// Writes the whole manifest as a [`LEGACY_FILE`] of format 7, as a memlane before format 8
    /// did, and removes [`FILE`] and the journal: for tests of the upgrade.
    #[doc(hidden)]
    pub fn save_legacy(&self, dir: &Path) -> Result<(), crate::error::PathError> {
        let format = 7;
        let mut body = String::new();
        for (name, e) in self.iter() {
            encode_entry(&mut body, name, e.entry(), format);
            body.push('\n');
        }
        let base = xxhash_rust::xxh3::xxh3_64(body.as_bytes());
        let header = Header {
            format,
            embedder_id: self.embedder_id.clone(),
            dim: self.dim,
            entries: self.len,
            base: Some(base),
            text: None,
        };
        let mut out = serde_json::to_string(&header).expect("a header always serialises");
        out.push('\n');
        out.push_str(&body);
        crate::vault::atomic_write(&dir.join(LEGACY_FILE), out.as_bytes())?;
        remove_if_there(&dir.join(FILE))?;
        remove_if_there(&dir.join(JOURNAL))
    }

    /// The total number of chunks.
    pub fn total_chunks(&self) -> usize {
        self.census().iter().map(|c| c.chunks).sum()
    }

    /// How many memories have each status, and their chunks, without a pass over the entries:
    /// counted when the file was read, corrected by the changes since.
    pub fn census(&self) -> Vec<StatusCount> {
        let mut out: Vec<StatusCount> = self.table.as_deref().map_or_else(Vec::new, |t| {
            t.census
                .iter()
                .map(|(status, memories, chunks)| StatusCount {
                    status: status.to_string(),
                    memories: *memories,
                    chunks: *chunks,
                })
                .collect()
        });
        let mut count = |status: &str, memories: isize, chunks: isize| {
            let i = match out.iter().position(|c| c.status == status) {
                Some(i) => i,
                None => {
                    out.push(StatusCount { status: status.to_owned(), memories: 0, chunks: 0 });
                    out.len() - 1
                }
            };
            let c = &mut out[i];
            c.memories = c.memories.saturating_add_signed(memories);
            c.chunks = c.chunks.saturating_add_signed(chunks);
        };
        for (name, changed) in &self.overlay {
            if let Some((t, i)) = self.table.as_deref().and_then(|t| Some((t, t.find(name)?))) {
                count(t.text(i, T_STATUS), -1, -(t.u32(i, R_CHUNKS) as isize));
            }
            if let Some(e) = changed {
                count(&e.status, 1, e.chunks as isize);
            }
        }
        out.retain(|c| c.memories > 0);
        out
    }
}

/// Removes the file at `path` if there is one.
fn remove_if_there(path: &Path) -> Result<(), crate::error::PathError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => {
            Err(crate::error::PathError { action: "remove", path: path.to_owned(), source })
        }
    }
}

#[derive(Serialize, Deserialize)]
struct Header {
    format: u32,
    embedder_id: String,
    dim: usize,
    entries: usize,
    /// What a journal names to extend this file (see the module's docs); in [`FILE`], also the
    /// checksum of everything after the header line.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "hex_u64")]
    base: Option<u64>,
    /// In [`FILE`]: the length of the text after the records, in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<usize>,
}

mod hex_u64 {
    use serde::{Deserialize, Deserializer, Serializer};

    #[allow(clippy::ref_option)]
    pub fn serialize<S: Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => s.serialize_str(&format!("{v:016x}")),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        let s: Option<String> = Option::deserialize(d)?;
        s.map(|s| u64::from_str_radix(&s, 16).map_err(serde::de::Error::custom)).transpose()
    }
}

/// Bytes per record in [`FILE`] (see the module's docs).
const RECORD: usize = 128;
/// Bytes per record in a [`FILE`] of format 8 (no ctime).
const RECORD_8: usize = 112;
/// The ctime a record holds when it is unknown (see [`Entry::ctime_ns`]).
const CTIME_UNKNOWN: i128 = i128::MIN;
/// Where a record's fields start.
const R_TEXT: usize = 0;
const R_LENS: usize = 4;
const R_SIZE: usize = 40;
const R_MTIME: usize = 48;
const R_CHUNKS: usize = 64;
const R_FLAGS: usize = 68;
const R_CREATED: usize = 72;
const R_UPDATED: usize = 80;
const R_EXPIRES: usize = 88;
const R_HAPPENS: usize = 96;
const R_LINKS: usize = 104;
const R_CTIME: usize = 112;
/// The text fields of a record, in the order they follow each other in the text.
const T_NAME: usize = 0;
const T_HASH: usize = 1;
const T_ID: usize = 2;
const T_TITLE: usize = 3;
const T_TYPE: usize = 4;
const T_STATUS: usize = 5;
const T_TAGS: usize = 6;
const T_SUPERSEDED: usize = 7;
const T_WARNINGS: usize = 8;
const TEXT_FIELDS: usize = 9;
/// Record flags.
const F_PINNED: u32 = 1;
const F_EXPIRES: u32 = 2;
const F_HAPPENS: u32 = 4;

/// The key of an id in [`Manifest`]'s id counts.
fn id_key(id: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(id.as_bytes())
}

/// The lookups of [`Manifest::derived`], by type: `None` once asked for and not built yet.
#[derive(Default)]
struct Memo(
    std::sync::Mutex<
        std::collections::HashMap<std::any::TypeId, Option<Arc<dyn std::any::Any + Send + Sync>>>,
    >,
);

impl Clone for Memo {
    /// A copy starts without lookups (they are cheap to derive again, and the copy may change).
    fn clone(&self) -> Memo {
        Memo::default()
    }
}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memo").finish_non_exhaustive()
    }
}

/// The records and text of a [`FILE`], checked and kept as read.
struct Table {
    /// The file up to the end of the records.
    bytes: Vec<u8>,
    /// Where the records start in `bytes`.
    start: usize,
    /// Bytes per record: [`RECORD`], or [`RECORD_8`] in a file of format 8.
    width: usize,
    /// How many records.
    n: usize,
    /// The records' text.
    text: String,
    /// Records decoded so far, by position.
    decoded: Vec<OnceLock<Box<Entry>>>,
    /// Per status: how many records, and their chunks.
    census: Vec<(Box<str>, usize, usize)>,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table").field("records", &self.n).field("text", &self.text.len()).finish()
    }
}

/// Bytes per record in a [`FILE`] of `format`; `None` for a format not read as [`FILE`].
fn record_width(format: u32) -> Option<usize> {
    match format {
        FORMAT => Some(RECORD),
        8 => Some(RECORD_8),
        _ => None,
    }
}

/// The header of a [`FILE`] whose first bytes are `bytes`, and where its records end; `None`
/// when it is not one of this format or of format 8.
fn records_end(bytes: &[u8]) -> Option<(Header, usize)> {
    let newline = bytes.iter().position(|b| *b == b'\n')?;
    let header: Header = serde_json::from_slice(&bytes[..newline]).ok()?;
    let width = record_width(header.format)?;
    let end = header.entries.checked_mul(width)?.checked_add(newline + 1)?;
    Some((header, end))
}

/// A [`FILE`] read in two parts, up to the end of its records and the text after them, each
/// read straight into a buffer of its own (one read of the file, no copy of its text: at 100k
/// memories the text is ≈ 10 MB). `None` when it cannot be read or is not of a format read.
fn read_split(path: &Path) -> Option<(Vec<u8>, Vec<u8>)> {
    use crate::index::confined_io::read_exact_at;
    let file = crate::index::confined_io::open(path).ok()?;
    let len = usize::try_from(file.metadata().ok()?.len()).ok()?;
    // The header line is a few hundred bytes.
    let mut first = vec![0; len.min(4096)];
    read_exact_at(&file, &mut first, 0).ok()?;
    let (_, end) = records_end(&first)?;
    if end > len {
        return None;
    }
    let head = if end <= first.len() {
        first.truncate(end);
        first
    } else {
        let mut head = vec![0; end];
        head[..first.len()].copy_from_slice(&first);
        read_exact_at(&file, &mut head[first.len()..], first.len() as u64).ok()?;
        head
    };
    let mut text = vec![0; len - end];
    read_exact_at(&file, &mut text, end as u64).ok()?;
    Some((head, text))
}

impl Table {
    /// The header and records of a [`FILE`]'s `bytes`; `None` when it is not of a format read,
    /// its checksum does not match, or a record is out of its bounds or order.
    fn parse(mut bytes: Vec<u8>) -> Option<(Header, Table)> {
        let (_, end) = records_end(&bytes)?;
        if bytes.len() < end {
            return None;
        }
        let text = bytes.split_off(end);
        Self::parse_parts(bytes, text)
    }

    /// [`parse`](Self::parse) of a file read in two parts: `bytes` up to the end of the
    /// records, and the records' `text` after them.
    fn parse_parts(bytes: Vec<u8>, text: Vec<u8>) -> Option<(Header, Table)> {
        let (header, end) = records_end(&bytes)?;
        if bytes.len() != end || text.len() != header.text? {
            return None;
        }
        // `records_end` computed `end` as this plus the records.
        let width = record_width(header.format)?;
        let start = end - header.entries * width;
        let mut base = xxhash_rust::xxh3::Xxh3::new();
        base.update(&bytes[start..]);
        base.update(&text);
        if base.digest() != header.base? {
            return None;
        }
        let text = String::from_utf8(text).ok()?;
        let n = header.entries;
        let table = Table { bytes, start, width, n, text, decoded: Vec::new(), census: Vec::new() };
        // Every record's text within the text, and the names strictly in order: lookups are
        // binary searches, and nothing read later is out of bounds.
        // In the same pass: what every record's status and chunks add up to.
        let mut census: Vec<(Box<str>, usize, usize)> = Vec::new();
        let mut previous: Option<&str> = None;
        for i in 0..n {
            let at = table.u32(i, R_TEXT) as usize;
            let len: usize = (0..TEXT_FIELDS).map(|f| table.u32(i, R_LENS + 4 * f) as usize).sum();
            if at.checked_add(len)? > table.text.len() {
                return None;
            }
            let name = table.text.get(at..at + table.u32(i, R_LENS) as usize)?;
            if previous.is_some_and(|p| p >= name) {
                return None;
            }
            previous = Some(name);
            let (status, chunks) = (table.text(i, T_STATUS), table.u32(i, R_CHUNKS) as usize);
            match census.iter_mut().find(|c| *c.0 == *status) {
                Some(c) => (c.1, c.2) = (c.1 + 1, c.2 + chunks),
                None => census.push((status.into(), 1, chunks)),
            }
        }
        let decoded = (0..n).map(|_| OnceLock::new()).collect();
        Some((header, Table { decoded, census, ..table }))
    }

    fn field<const N: usize>(&self, i: usize, at: usize) -> [u8; N] {
        let from = self.start + i * self.width + at;
        let mut out = [0; N];
        out.copy_from_slice(&self.bytes[from..from + N]);
        out
    }

    fn u32(&self, i: usize, at: usize) -> u32 {
        u32::from_le_bytes(self.field(i, at))
    }

    fn u64(&self, i: usize, at: usize) -> u64 {
        u64::from_le_bytes(self.field(i, at))
    }

    fn i64(&self, i: usize, at: usize) -> i64 {
        i64::from_le_bytes(self.field(i, at))
    }

    /// The ctime of record `i` (`None`: unknown, as in every record of format 8).
    fn ctime_ns(&self, i: usize) -> Option<i128> {
        if self.width <= R_CTIME {
            return None;
        }
        let t = i128::from_le_bytes(self.field(i, R_CTIME));
        (t != CTIME_UNKNOWN).then_some(t)
    }

    /// Text field `f` of record `i` ("" if it is not whole characters, which a file memlane
    /// wrote never has).
    fn text(&self, i: usize, f: usize) -> &str {
        let at = self.u32(i, R_TEXT) as usize
            + (0..f).map(|g| self.u32(i, R_LENS + 4 * g) as usize).sum::<usize>();
        let len = self.u32(i, R_LENS + 4 * f) as usize;
        self.text.get(at..at + len).unwrap_or("")
    }

    fn name(&self, i: usize) -> &str {
        self.text(i, T_NAME)
    }

    /// The position of `name`'s record.
    fn find(&self, name: &str) -> Option<usize> {
        let i = partition_point(self.n, |i| self.name(i) < name);
        (i < self.n && self.name(i) == name).then_some(i)
    }

    /// Record `i`, decoded once.
    fn entry(&self, i: usize) -> &Entry {
        self.decoded[i].get_or_init(|| Box::new(self.decode(i)))
    }

    fn decode(&self, i: usize) -> Entry {
        let flags = self.u32(i, R_FLAGS);
        let superseded = self.text(i, T_SUPERSEDED);
        Entry {
            size: self.u64(i, R_SIZE),
            mtime_ns: i128::from_le_bytes(self.field(i, R_MTIME)),
            ctime_ns: self.ctime_ns(i),
            hash: self.text(i, T_HASH).to_owned(),
            id: self.text(i, T_ID).to_owned(),
            chunks: self.u32(i, R_CHUNKS) as usize,
            title: self.text(i, T_TITLE).to_owned(),
            memory_type: self.text(i, T_TYPE).to_owned(),
            status: self.text(i, T_STATUS).to_owned(),
            tags: lossy_list(self.text(i, T_TAGS)),
            created: self.i64(i, R_CREATED),
            updated: self.i64(i, R_UPDATED),
            pinned: flags & F_PINNED != 0,
            superseded_by: (!superseded.is_empty()).then(|| superseded.to_owned()),
            expires_at: (flags & F_EXPIRES != 0).then(|| self.i64(i, R_EXPIRES)),
            happens_at: (flags & F_HAPPENS != 0).then(|| self.i64(i, R_HAPPENS)),
            warnings: lossy_list(self.text(i, T_WARNINGS))
                .into_iter()
                .map(|item| {
                    match item.split_once(':').and_then(|(k, m)| Some((WarningKind::parse(k)?, m)))
                    {
                        Some((kind, message)) => Warning { kind, message: message.to_owned() },
                        None => legacy_warning(item),
                    }
                })
                .collect(),
            links: self.u64(i, R_LINKS),
        }
    }
}

/// The first of `0..n` for which `before` is false (`before` true for a prefix).
fn partition_point(n: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// A list field of a record: its items (an item that does not unescape, which memlane never
/// writes, as it is).
fn lossy_list(s: &str) -> Vec<String> {
    if s.is_empty() {
        return Vec::new();
    }
    s.split(LIST_SEP).map(|item| unescape(item).unwrap_or_else(|| item.to_owned())).collect()
}

/// Appends the record of `name` (`width` bytes: [`RECORD`], or [`RECORD_8`] for a file of
/// format 8) and its text.
fn push_record(
    records: &mut Vec<u8>,
    text: &mut String,
    name: &str,
    e: EntryRef<'_>,
    width: usize,
) {
    let at = u32::try_from(text.len()).unwrap_or(u32::MAX);
    let mut record = [0u8; RECORD];
    let fields: [Cow<'_, str>; TEXT_FIELDS] = match e.0 {
        Held::Record(t, i) => {
            // Copied as it is, without decoding (a record of format 8 without its ctime).
            let from = t.start + i * t.width;
            record[..t.width].copy_from_slice(&t.bytes[from..from + t.width]);
            if t.width <= R_CTIME {
                record[R_CTIME..].copy_from_slice(&CTIME_UNKNOWN.to_le_bytes());
            }
            std::array::from_fn(|f| Cow::Borrowed(t.text(i, f)))
        }
        Held::Decoded(entry) => {
            let (mut tags, mut warnings) = (String::new(), String::new());
            push_list(&mut tags, &entry.tags);
            push_warnings(&mut warnings, &entry.warnings);
            let mut put =
                |at: usize, bytes: &[u8]| record[at..at + bytes.len()].copy_from_slice(bytes);
            put(R_SIZE, &entry.size.to_le_bytes());
            put(R_MTIME, &entry.mtime_ns.to_le_bytes());
            put(R_CHUNKS, &u32::try_from(entry.chunks).unwrap_or(u32::MAX).to_le_bytes());
            let flags = if entry.pinned { F_PINNED } else { 0 }
                | if entry.expires_at.is_some() { F_EXPIRES } else { 0 }
                | if entry.happens_at.is_some() { F_HAPPENS } else { 0 };
            put(R_FLAGS, &flags.to_le_bytes());
            put(R_CREATED, &entry.created.to_le_bytes());
            put(R_UPDATED, &entry.updated.to_le_bytes());
            put(R_EXPIRES, &entry.expires_at.unwrap_or(0).to_le_bytes());
            put(R_HAPPENS, &entry.happens_at.unwrap_or(0).to_le_bytes());
            put(R_LINKS, &entry.links.to_le_bytes());
            put(R_CTIME, &entry.ctime_ns.unwrap_or(CTIME_UNKNOWN).to_le_bytes());
            [
                Cow::Borrowed(name),
                Cow::Borrowed(entry.hash.as_str()),
                Cow::Borrowed(entry.id.as_str()),
                Cow::Borrowed(entry.title.as_str()),
                Cow::Borrowed(entry.memory_type.as_str()),
                Cow::Borrowed(entry.status.as_str()),
                Cow::Owned(tags),
                Cow::Borrowed(entry.superseded_by.as_deref().unwrap_or("")),
                Cow::Owned(warnings),
            ]
        }
    };
    record[R_TEXT..R_TEXT + 4].copy_from_slice(&at.to_le_bytes());
    for (f, field) in fields.iter().enumerate() {
        text.push_str(field);
        let len = u32::try_from(field.len()).unwrap_or(u32::MAX);
        record[R_LENS + 4 * f..R_LENS + 4 * f + 4].copy_from_slice(&len.to_le_bytes());
    }
    records.extend_from_slice(&record[..width]);
}

const LIST_SEP: char = '\u{1f}';

/// From this size on (≈ 1,500 memories) [`Manifest::load`] parses on two threads.
const PARALLEL_PARSE_BYTES: usize = 256 * 1024;

fn escape(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            LIST_SEP => out.push_str("\\u"),
            c => out.push(c),
        }
    }
}

fn unescape(s: &str) -> Option<String> {
    if !s.contains('\\') {
        return Some(s.to_owned());
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.push(match chars.next()? {
                '\\' => '\\',
                't' => '\t',
                'n' => '\n',
                'r' => '\r',
                'u' => LIST_SEP,
                _ => return None,
            });
        } else {
            out.push(c);
        }
    }
    Some(out)
}

fn push_list(out: &mut String, items: &[String]) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(LIST_SEP);
        }
        escape(out, item);
    }
}

/// Warnings as a list of `kind:message` items.
fn push_warnings(out: &mut String, warnings: &[Warning]) {
    for (i, w) in warnings.iter().enumerate() {
        if i > 0 {
            out.push(LIST_SEP);
        }
        out.push_str(w.kind.as_str());
        out.push(':');
        escape(out, &w.message);
    }
}

/// The warnings field of a line in `format`: `kind:message` items, or (before format 7) the
/// loader's messages, classified here.
fn warnings(s: &str, format: u32) -> Option<Vec<Warning>> {
    let items = list(s)?;
    if format < 7 {
        return Some(items.into_iter().map(legacy_warning).collect());
    }
    items
        .into_iter()
        .map(|item| {
            let (kind, message) = item.split_once(':')?;
            Some(Warning { kind: WarningKind::parse(kind)?, message: message.to_owned() })
        })
        .collect()
}

fn list(s: &str) -> Option<Vec<String>> {
    if s.is_empty() {
        return Some(Vec::new());
    }
    s.split(LIST_SEP).map(unescape).collect()
}

fn opt_i64(s: &str) -> Option<Option<i64>> {
    if s.is_empty() { Some(None) } else { s.parse().ok().map(Some) }
}

fn opt_i128(s: &str) -> Option<Option<i128>> {
    if s.is_empty() { Some(None) } else { s.parse().ok().map(Some) }
}

/// The line of entry `e` of `name`, in `format` (from 9 on, with the ctime as a last field,
/// empty when unknown).
fn encode_entry(out: &mut String, name: &str, e: &Entry, format: u32) {
    use std::fmt::Write as _;
    escape(out, name);
    let _ = write!(out, "\t{}\t{}\t", e.size, e.mtime_ns);
    escape(out, &e.hash);
    out.push('\t');
    escape(out, &e.id);
    let _ = write!(out, "\t{}\t", e.chunks);
    for field in [&e.title, &e.memory_type, &e.status] {
        escape(out, field);
        out.push('\t');
    }
    push_list(out, &e.tags);
    let _ = write!(out, "\t{}\t{}\t{}\t", e.created, e.updated, u8::from(e.pinned));
    escape(out, e.superseded_by.as_deref().unwrap_or(""));
    out.push('\t');
    if let Some(x) = e.expires_at {
        let _ = write!(out, "{x}");
    }
    out.push('\t');
    if let Some(x) = e.happens_at {
        let _ = write!(out, "{x}");
    }
    out.push('\t');
    push_warnings(out, &e.warnings);
    let _ = write!(out, "\t{:x}", e.links);
    if format >= 9 {
        out.push('\t');
        if let Some(t) = e.ctime_ns {
            let _ = write!(out, "{t}");
        }
    }
}

/// An entry's line, written in `format` (before 9, without the ctime: unknown).
fn decode_entry(line: &str, format: u32) -> Option<(String, Entry)> {
    let mut f = [""; 19];
    let mut fields = line.split('\t');
    let count = if format >= 9 { 19 } else { 18 };
    for slot in &mut f[..count] {
        *slot = fields.next()?;
    }
    if fields.next().is_some() {
        return None;
    }
    let superseded = unescape(f[13])?;
    Some((
        unescape(f[0])?,
        Entry {
            size: f[1].parse().ok()?,
            mtime_ns: f[2].parse().ok()?,
            ctime_ns: opt_i128(f[18])?,
            hash: unescape(f[3])?,
            id: unescape(f[4])?,
            chunks: f[5].parse().ok()?,
            title: unescape(f[6])?,
            memory_type: unescape(f[7])?,
            status: unescape(f[8])?,
            tags: list(f[9])?,
            created: f[10].parse().ok()?,
            updated: f[11].parse().ok()?,
            pinned: f[12] == "1",
            superseded_by: (!superseded.is_empty()).then_some(superseded),
            expires_at: opt_i64(f[14])?,
            happens_at: opt_i64(f[15])?,
            warnings: warnings(f[16], format)?,
            links: u64::from_str_radix(f[17], 16).ok()?,
        },
    ))
}

/// The vector-index key of chunk `ordinal` of memory `name`.
pub fn chunk_key(name: &str, ordinal: usize) -> u64 {
    // `name#ordinal` hashed from a buffer on the stack: a one-command search may compute this
    // for every chunk of the vault, and two allocations each were most of its cost.
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = ordinal;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let digits = &digits[at..];
    let len = name.len() + 1 + digits.len();
    let mut buf = [0u8; 192];
    if len > buf.len() {
        let mut long = Vec::with_capacity(len);
        long.extend_from_slice(name.as_bytes());
        long.push(b'#');
        long.extend_from_slice(digits);
        return xxhash_rust::xxh3::xxh3_64(&long);
    }
    buf[..name.len()].copy_from_slice(name.as_bytes());
    buf[name.len()] = b'#';
    buf[name.len() + 1..len].copy_from_slice(digits);
    xxhash_rust::xxh3::xxh3_64(&buf[..len])
}

/// The keyword-index chunk id of chunk `ordinal` of memory `name`.
pub fn chunk_id(name: &str, ordinal: usize) -> String {
    format!("{name}#{ordinal}")
}

/// Splits a chunk id into the memory name and ordinal.
pub fn parse_chunk_id(id: &str) -> Option<(&str, usize)> {
    let (name, ord) = id.rsplit_once('#')?;
    Some((name, ord.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(i: u64) -> Entry {
        Entry {
            size: i,
            hash: format!("{i:016x}"),
            title: format!("title\t{i}"),
            tags: vec![format!("t{i}")],
            chunks: 2,
            ..Default::default()
        }
    }

    fn with_id(i: u64, id: &str) -> Entry {
        Entry { id: id.into(), ..entry(i) }
    }

    #[test]
    fn duplicate_ids_of_follows_every_change_after_its_counts_are_built() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = Manifest::new("e", 8);
        for i in 0..50 {
            m.insert(format!("m{i:02}"), with_id(i, &format!("id{i}")));
        }
        m.save(dir.path()).unwrap();
        // Read back: the entries are records of the file, the changes an overlay.
        let mut m = Manifest::load(dir.path()).unwrap();
        assert!(m.duplicate_ids_of(&["m07".into()]).is_empty());
        // A hand copy of m07 under another name.
        m.insert("copy".into(), with_id(99, "id7"));
        let want = vec![("id7".to_owned(), vec!["copy".to_owned(), "m07".to_owned()])];
        assert_eq!(m.duplicate_ids_of(&["copy".into()]), want);
        assert_eq!(m.duplicate_ids_of(&["m07".into(), "m08".into()]), want);
        assert_eq!(m.duplicate_ids(), want);
        // The copy is given an id of its own: no duplicate any longer.
        m.insert("copy".into(), with_id(99, "fresh"));
        assert!(m.duplicate_ids_of(&["copy".into(), "m07".into()]).is_empty());
        // m08 takes m09's id, then m09 is removed.
        m.insert("m08".into(), with_id(8, "id9"));
        assert_eq!(m.duplicate_ids_of(&["m08".into()]).len(), 1);
        m.remove("m09");
        assert!(m.duplicate_ids_of(&["m08".into()]).is_empty());
        // Saved whole and read again: the counts are built anew and agree.
        m.save_whole(dir.path()).unwrap();
        m.insert("again".into(), with_id(7, "id9"));
        assert_eq!(
            m.duplicate_ids_of(&["again".into()]),
            vec![("id9".to_owned(), vec!["again".to_owned(), "m08".to_owned()])]
        );
        let read = Manifest::load(dir.path()).unwrap();
        assert!(read.duplicate_ids_of(&["m08".into()]).is_empty());
    }

    #[test]
    fn manifest_round_trips_through_its_file_with_awkward_text() {
        let mut m = Manifest::new("builtin-ngram-v1", 384);
        m.insert(
            "auth/jwt plan".into(),
            Entry {
                size: 12,
                mtime_ns: 1_767_225_600_123_456_789,
                ctime_ns: Some(1_767_225_601_987_654_321),
                hash: "00ff".into(),
                id: "3kTqZ9pLx2A".into(),
                chunks: 3,
                title: "Tabs\tnew\nlines \\ and \u{1f} sep".into(),
                memory_type: "decision".into(),
                status: "active".into(),
                tags: vec!["a".into(), "b\tc".into(), String::new()],
                created: -5,
                updated: 7,
                pinned: true,
                superseded_by: Some("v2".into()),
                expires_at: Some(99),
                happens_at: None,
                warnings: vec![
                    Warning { kind: WarningKind::Frontmatter, message: "broken: YAML".into() },
                    Warning { kind: WarningKind::KeyConflict, message: "a\tb".into() },
                ],
                links: 0xdead_beef_0123,
            },
        );
        m.insert("plain".into(), Entry::default());
        let dir = tempfile::tempdir().unwrap();
        m.save(dir.path()).unwrap();
        assert_eq!(Manifest::load(dir.path()), Some(m.clone()));
        // A truncated file is not trusted.
        let path = dir.path().join(FILE);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 10]).unwrap();
        assert_eq!(Manifest::load(dir.path()), None);
        std::fs::write(&path, "{not json\n").unwrap();
        assert_eq!(Manifest::load(dir.path()), None);
    }

    /// A `manifest.tsv` of `format` holding `entries` (sorted), as a memlane before format 8
    /// wrote it, and its `base`.
    fn legacy_file(format: u32, entries: &[(String, Entry)]) -> (String, u64) {
        let mut body = String::new();
        for (name, e) in entries {
            encode_entry(&mut body, name, e, format);
            body.push('\n');
        }
        let base = xxhash_rust::xxh3::xxh3_64(body.as_bytes());
        let header = format!(
            "{{\"format\":{format},\"embedder_id\":\"e\",\"dim\":8,\"entries\":{},\"base\":\"{base:016x}\"}}\n",
            entries.len()
        );
        (header + &body, base)
    }

    #[test]
    fn a_format_6_manifest_is_read_with_its_conflict_warnings_classified_and_saved_as_8() {
        let dir = tempfile::tempdir().unwrap();
        // A format-6 file and journal as that memlane wrote them: warnings were messages only.
        let key =
            format!("{}: the merged branches set `status` differently", crate::vault::KEY_CONFLICT);
        let body = format!("{} (line 9): both versions are there", crate::vault::BODY_CONFLICT);
        let line = |name: &str, warnings: &str| {
            format!(
                "{name}\t12\t34\t00ff\t3kTqZ9pLx2A\t1\tT\tnote\tactive\t\t5\t6\t0\t\t\t\t{warnings}\t0\n"
            )
        };
        let entries = line(
            "conflicted",
            &format!("{key}\u{1f}`status` is neither active nor archived; read as active"),
        ) + &line("plain", "");
        let base = xxhash_rust::xxh3::xxh3_64(entries.as_bytes());
        let header = format!(
            "{{\"format\":6,\"embedder_id\":\"e\",\"dim\":8,\"entries\":2,\"base\":\"{base:016x}\"}}\n"
        );
        std::fs::write(dir.path().join(LEGACY_FILE), header + &entries).unwrap();
        std::fs::write(
            dir.path().join(JOURNAL),
            format!("#{base:016x}\n+{}", line("merged", &body)),
        )
        .unwrap();

        let mut m = Manifest::load(dir.path()).expect("a format-6 manifest is read");
        assert_eq!(m.format, FORMAT);
        assert!(m.upgrade_due());
        let kinds = |m: &Manifest, name: &str| -> Vec<WarningKind> {
            m.get(name).unwrap().warnings.iter().map(|w| w.kind).collect()
        };
        assert_eq!(kinds(&m, "conflicted"), [WarningKind::KeyConflict, WarningKind::Frontmatter]);
        assert_eq!(kinds(&m, "merged"), [WarningKind::BodyConflict]);
        assert!(kinds(&m, "plain").is_empty());
        assert_eq!(m.get("conflicted").unwrap().warnings[0].message, key);
        assert_eq!(m.get("merged").unwrap().warnings[0].message, body);

        // The next save writes the whole binary file, and drops the old file and journal.
        m.save(dir.path()).unwrap();
        assert!(!m.upgrade_due());
        assert!(!dir.path().join(JOURNAL).exists());
        assert!(!dir.path().join(LEGACY_FILE).exists());
        let bytes = std::fs::read(dir.path().join(FILE)).unwrap();
        assert!(bytes.starts_with(format!("{{\"format\":{FORMAT},").as_bytes()));
        let read = Manifest::load(dir.path()).unwrap();
        assert!(!read.upgrade_due());
        assert_eq!(
            kinds(&read, "conflicted"),
            [WarningKind::KeyConflict, WarningKind::Frontmatter]
        );
        assert_eq!(read, m);

        // A format older than the oldest read is rebuilt, as before.
        let (old, _) = legacy_file(5, &[("a".into(), entry(1))]);
        std::fs::write(dir.path().join(LEGACY_FILE), old).unwrap();
        assert_eq!(Manifest::load(dir.path()), None);
    }

    #[test]
    fn a_format_7_manifest_with_its_journal_is_upgraded_on_save_and_reads_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let mut sorted: Vec<(String, Entry)> =
            (0..5_000).map(|i| (format!("dir{}/m{i:05}", i % 7), entry(i))).collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        let (text, base) = legacy_file(7, &sorted);
        assert!(text.len() > PARALLEL_PARSE_BYTES, "parsed in halves");
        std::fs::write(dir.path().join(LEGACY_FILE), &text).unwrap();
        let mut changed = String::new();
        encode_entry(&mut changed, "dir0/m00000", &entry(9_999), 7);
        std::fs::write(
            dir.path().join(JOURNAL),
            format!("#{base:016x}\n+{changed}\n-dir1/m00001\n"),
        )
        .unwrap();
        let mut expected = Manifest::new("e", 8);
        for (name, e) in sorted {
            expected.insert(name, e);
        }
        expected.insert("dir0/m00000".into(), entry(9_999));
        expected.remove("dir1/m00001");

        let mut m = Manifest::load(dir.path()).expect("a format-7 manifest is read");
        assert!(m.upgrade_due());
        assert_eq!(m, expected);
        m.save(dir.path()).unwrap();
        assert!(!dir.path().join(LEGACY_FILE).exists());
        assert!(!dir.path().join(JOURNAL).exists());
        let read = Manifest::load(dir.path()).unwrap();
        assert!(!read.upgrade_due());
        assert_eq!(read, expected);
        assert_eq!(read.get("dir0/m00000"), Some(&entry(9_999)));
        assert_eq!(read.get("dir1/m00001"), None);

        // A damaged line in the second half of an old file is caught too.
        let cut = text.rfind("\tt2").unwrap();
        let damaged = format!("{}\tx\ty{}", &text[..cut], &text[cut..]);
        std::fs::write(dir.path().join(LEGACY_FILE), damaged).unwrap();
        assert_eq!(Manifest::load(dir.path()), None);
    }

    /// A `manifest.bin` of format 8 (records without the ctime) and its journal (lines without
    /// it) are read, not rebuilt: every entry's ctime is unknown, so the reconcile compares each
    /// file's content once; the next save writes the whole file in this format, with the ctimes
    /// recorded since, and a journal line of this format carries its entry's ctime.
    #[test]
    fn a_format_8_file_and_its_journal_are_read_with_unknown_ctimes_and_saved_as_9() {
        let dir = tempfile::tempdir().unwrap();
        let (file, journal) = (dir.path().join(FILE), dir.path().join(JOURNAL));
        let with_ctime =
            |i: u64| Entry { ctime_ns: Some(1_767_225_600_000_000_000 + i as i128), ..entry(i) };
        let mut m = Manifest::new("e", 8);
        for i in 0..50 {
            m.insert(format!("m{i:03}"), with_ctime(i));
        }
        m.save_format_8(dir.path()).unwrap();
        let bytes = std::fs::read(&file).unwrap();
        assert!(bytes.starts_with(b"{\"format\":8,"));
        let header: Header =
            serde_json::from_slice(&bytes[..bytes.iter().position(|b| *b == b'\n').unwrap()])
                .unwrap();
        let eol = bytes.iter().position(|b| *b == b'\n').unwrap() + 1;
        assert_eq!(bytes.len() - eol - header.text.unwrap(), 50 * RECORD_8);
        let mut line = String::new();
        encode_entry(&mut line, "m001", &entry(1001), 8);
        std::fs::write(&journal, format!("#{:016x}\n+{line}\n-m002\n", header.base.unwrap()))
            .unwrap();

        let mut read = Manifest::load(dir.path()).expect("a format-8 manifest is read");
        assert_eq!(read.format, FORMAT);
        assert!(read.upgrade_due());
        assert_eq!(read.len(), 49);
        assert!(read.iter().all(|(_, e)| e.ctime_ns().is_none()), "every ctime unknown");
        assert_eq!(read.get("m001"), Some(&entry(1001)));
        assert_eq!(read.get("m002"), None);
        // Everything else as it was (the decoded entry and the fields read in place).
        assert_eq!(read.get("m003"), Some(&entry(3)));
        assert_eq!(
            read.get_ref("m049").map(|e| (e.size(), e.hash())),
            Some((49, "0000000000000031"))
        );
        // The reconcile compared m003's content and recorded its ctime.
        read.insert("m003".into(), with_ctime(3));
        read.save(dir.path()).unwrap();
        assert!(!journal.exists());
        assert!(std::fs::read(&file).unwrap().starts_with(b"{\"format\":9,"));
        let mut again = Manifest::load(dir.path()).unwrap();
        assert!(!again.upgrade_due());
        assert_eq!(again, read);
        assert_eq!(again.get_ref("m003").unwrap().ctime_ns(), with_ctime(3).ctime_ns);
        assert_eq!(again.get("m003"), Some(&with_ctime(3)));
        // Not compared (unreadable, say): still unknown, compared again next time.
        assert_eq!(again.get_ref("m004").unwrap().ctime_ns(), None);

        // A change is a journal line in this format, with the ctime.
        again.insert("m005".into(), with_ctime(77));
        again.insert("m006".into(), entry(1006));
        again.save(dir.path()).unwrap();
        let text = std::fs::read_to_string(&journal).unwrap();
        assert!(
            text.lines().any(|l| l.starts_with("+m005\t") && l.ends_with("\t1767225600000000077")),
            "{text}"
        );
        assert!(text.lines().any(|l| l.starts_with("+m006\t") && l.ends_with('\t')), "{text}");
        let last = Manifest::load(dir.path()).unwrap();
        assert_eq!(last, again);
        assert_eq!(last.get("m005"), Some(&with_ctime(77)));
        assert_eq!(last.get_ref("m006").unwrap().ctime_ns(), None);
    }

    #[test]
    fn a_manifest_tsv_beside_the_binary_file_is_the_one_read() {
        // An older memlane that rebuilt after this one wrote `manifest.bin` left its
        // `manifest.tsv`: that is the newer manifest.
        let dir = tempfile::tempdir().unwrap();
        let mut m = Manifest::new("e", 8);
        m.insert("kept".into(), entry(1));
        m.save(dir.path()).unwrap();
        let (text, _) = legacy_file(7, &[("newer".into(), entry(2))]);
        std::fs::write(dir.path().join(LEGACY_FILE), text).unwrap();
        let mut read = Manifest::load(dir.path()).unwrap();
        assert!(read.contains("newer") && !read.contains("kept"));
        read.save(dir.path()).unwrap();
        assert!(!dir.path().join(LEGACY_FILE).exists());
        let again = Manifest::load(dir.path()).unwrap();
        assert_eq!(again, read);
        assert!(again.contains("newer"));
    }

    #[test]
    fn a_damaged_binary_file_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = Manifest::new("e", 8);
        for i in 0..40 {
            m.insert(format!("m{i:03}"), entry(i));
        }
        m.save(dir.path()).unwrap();
        let path = dir.path().join(FILE);
        let good = std::fs::read(&path).unwrap();
        let header_end = good.iter().position(|b| *b == b'\n').unwrap() + 1;
        let unreadable = |bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            Manifest::load(dir.path()).is_none()
        };
        // Cut anywhere, one byte flipped in a record or in the text, one byte too many.
        for cut in [1, header_end, header_end + 5, good.len() - 1] {
            assert!(unreadable(&good[..cut]), "cut at {cut}");
        }
        for at in [header_end + 3, header_end + RECORD * 7 + 50, good.len() - 2] {
            let mut bad = good.clone();
            bad[at] ^= 0x20;
            assert!(unreadable(&bad), "flipped at {at}");
        }
        assert!(unreadable(&[good.as_slice(), b"x"].concat()));
        // Records that agree with their checksum but not with each other (out of order, text
        // out of bounds): refused rather than searched wrongly.
        let rewrite = |edit: &dyn Fn(&mut Vec<u8>)| {
            let mut body = good[header_end..].to_vec();
            edit(&mut body);
            let header = std::str::from_utf8(&good[..header_end]).unwrap();
            let old = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&good[header_end..]));
            let new = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&body));
            [header.replace(&old, &new).as_bytes(), &body].concat()
        };
        let swapped = rewrite(&|b| {
            let (first, rest) = b.split_at_mut(RECORD);
            first.swap_with_slice(&mut rest[..RECORD]);
        });
        assert!(unreadable(&swapped));
        let far = rewrite(&|b| b[R_LENS..R_LENS + 4].copy_from_slice(&u32::MAX.to_le_bytes()));
        assert!(unreadable(&far));
        // The untouched file, rewritten the same way, is read.
        assert!(!unreadable(&rewrite(&|_| {})));
        assert_eq!(Manifest::load(dir.path()), Some(m));
    }

    fn sorted_census(m: &Manifest) -> Vec<StatusCount> {
        let mut c = m.census();
        c.sort_by(|a, b| a.status.cmp(&b.status));
        c
    }

    /// [`Manifest::census`] counted the long way.
    fn eager_census(entries: &BTreeMap<String, Entry>) -> Vec<StatusCount> {
        let mut by: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for e in entries.values() {
            let c = by.entry(&e.status).or_default();
            (c.0, c.1) = (c.0 + 1, c.1 + e.chunks);
        }
        by.into_iter()
            .map(|(s, (memories, chunks))| StatusCount { status: s.to_owned(), memories, chunks })
            .collect()
    }

    fn arbitrary_entry() -> impl proptest::strategy::Strategy<Value = Entry> {
        use proptest::prelude::*;
        let text = "[a-z\t\n\\\\\u{1f}é ]{0,6}";
        (
            (
                any::<u64>(),
                any::<i128>(),
                // Any time but the one a record keeps for "unknown".
                proptest::option::of(CTIME_UNKNOWN + 1..=i128::MAX),
                text,
                text,
                0usize..5,
                text,
                text,
                text,
            ),
            (
                // Tags are never empty (one empty tag would read as none, in either format).
                proptest::collection::vec("[a-z\t\n\\\\\u{1f}é ]{1,6}", 0..3),
                any::<i64>(),
                any::<i64>(),
                any::<bool>(),
                proptest::option::of("[a-z]{1,4}"),
                proptest::option::of(any::<i64>()),
                proptest::option::of(any::<i64>()),
                proptest::collection::vec(text, 0..2),
                any::<u64>(),
            ),
        )
            .prop_map(
                |(
                    (size, mtime_ns, ctime_ns, hash, id, chunks, title, memory_type, status),
                    (
                        tags,
                        created,
                        updated,
                        pinned,
                        superseded_by,
                        expires_at,
                        happens_at,
                        w,
                        links,
                    ),
                )| Entry {
                    size,
                    mtime_ns,
                    ctime_ns,
                    hash,
                    id,
                    chunks,
                    title,
                    memory_type,
                    status,
                    tags,
                    created,
                    updated,
                    pinned,
                    superseded_by,
                    expires_at,
                    happens_at,
                    warnings: w
                        .into_iter()
                        .map(|message| Warning { kind: WarningKind::KeyConflict, message })
                        .collect(),
                    links,
                },
            )
    }

    proptest::proptest! {
        /// Vector keys are stored on disk: the key of a chunk is the xxh3 of `name#ordinal`,
        /// whatever the name's length.
        #[test]
        fn a_chunk_key_is_the_hash_of_the_name_and_ordinal(
            name in "[a-zé/ -]{1,250}",
            ordinal in proptest::prop_oneof![0usize..40, proptest::prelude::any::<usize>()],
        ) {
            let text = format!("{name}#{ordinal}");
            proptest::prop_assert_eq!(chunk_key(&name, ordinal), xxhash_rust::xxh3::xxh3_64(text.as_bytes()));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(60))]
        /// What is read lazily (a lookup by name, the fields read in place, the iteration, the
        /// whole map) is what was written, whatever the entries and with journal changes on top.
        #[test]
        fn a_lazy_lookup_equals_the_eager_entries(
            written in proptest::collection::btree_map("[a-zé/ ]{1,8}", arbitrary_entry(), 0..40),
            changes in proptest::collection::vec(("[a-zé/ ]{1,8}", proptest::option::of(arbitrary_entry())), 0..8),
            probes in proptest::collection::vec("[a-zé/ ]{1,8}", 0..10),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let mut m = Manifest::new("e", 8);
            for (name, e) in &written {
                m.insert(name.clone(), e.clone());
            }
            m.save(dir.path()).unwrap();
            let mut eager = written.clone();
            let mut read = Manifest::load(dir.path()).unwrap();
            for (name, change) in changes {
                match change {
                    Some(e) => {
                        eager.insert(name.clone(), e.clone());
                        read.insert(name, e);
                    }
                    None => {
                        eager.remove(&name);
                        read.remove(&name);
                    }
                }
            }
            // The census counted on load, corrected by the changes since.
            proptest::prop_assert_eq!(sorted_census(&read), eager_census(&eager));
            proptest::prop_assert_eq!(read.total_chunks(), eager.values().map(|e| e.chunks).sum::<usize>());
            read.save(dir.path()).unwrap();
            let read = Manifest::load(dir.path()).unwrap();
            proptest::prop_assert_eq!(sorted_census(&read), eager_census(&eager));
            proptest::prop_assert_eq!(read.len(), eager.len());
            proptest::prop_assert_eq!(read.entries(), &eager);
            let listed: Vec<(String, Entry)> =
                read.iter().map(|(n, e)| (n.to_owned(), e.to_entry())).collect();
            proptest::prop_assert_eq!(listed, eager.clone().into_iter().collect::<Vec<_>>());
            for (name, e) in read.iter() {
                let want = &eager[name];
                proptest::prop_assert_eq!(e.size(), want.size);
                proptest::prop_assert_eq!(e.mtime_ns(), want.mtime_ns);
                proptest::prop_assert_eq!(e.ctime_ns(), want.ctime_ns);
                proptest::prop_assert_eq!(e.chunks(), want.chunks);
                proptest::prop_assert_eq!(e.created(), want.created);
                proptest::prop_assert_eq!(e.id(), want.id.as_str());
                proptest::prop_assert_eq!(e.hash(), want.hash.as_str());
                proptest::prop_assert_eq!(e.memory_type(), want.memory_type.as_str());
                proptest::prop_assert_eq!(e.status(), want.status.as_str());
                proptest::prop_assert_eq!(&*e.tags(), want.tags.as_slice());
            }
            for name in probes.iter().chain(eager.keys()) {
                let after: Vec<&str> = read.iter_after(Some(name)).map(|(n, _)| n).collect();
                let want: Vec<&str> = eager
                    .range::<str, _>((std::ops::Bound::Excluded(name.as_str()), std::ops::Bound::Unbounded))
                    .map(|(n, _)| n.as_str())
                    .collect();
                proptest::prop_assert_eq!(after, want);
                proptest::prop_assert_eq!(read.get_ref(name).map(|e| (e.pinned(), e.updated(), e.is_superseded())),
                    eager.get(name).map(|e| (e.pinned, e.updated, e.superseded_by.is_some())));
                proptest::prop_assert_eq!(read.get(name), eager.get(name));
                proptest::prop_assert_eq!(read.contains(name), eager.contains_key(name));
            }
            proptest::prop_assert_eq!(read.total_chunks(), eager.values().map(|e| e.chunks).sum::<usize>());
        }
    }

    #[test]
    fn a_change_appends_a_journal_line_and_a_long_journal_is_folded_into_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let (file, journal) = (dir.path().join(FILE), dir.path().join(JOURNAL));
        let mut m = Manifest::new("e", 8);
        for i in 0..100 {
            m.insert(format!("m{i:03}"), entry(i));
        }
        m.save(dir.path()).unwrap();
        assert!(!journal.exists(), "a first save writes the whole file");
        let whole = std::fs::read(&file).unwrap();

        // One new, one changed and one removed memory: three lines; the file is untouched.
        let mut m = Manifest::load(dir.path()).unwrap();
        m.insert("new".into(), entry(7));
        m.insert("m001".into(), entry(1001));
        m.remove("m002");
        // Setting what is there already is no change.
        m.insert("m003".into(), entry(3));
        m.save(dir.path()).unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), whole);
        let text = std::fs::read_to_string(&journal).unwrap();
        assert_eq!(text.lines().count(), 4, "{text}");
        assert!(text.lines().any(|l| l == "-m002"), "{text}");
        assert_eq!(Manifest::load(dir.path()), Some(m.clone()));

        // The same manifest saved again (loaded or kept) appends after what is there.
        m.insert("m004".into(), entry(1004));
        m.save(dir.path()).unwrap();
        let mut again = Manifest::load(dir.path()).unwrap();
        assert_eq!(again, m);
        again.set_links("m005", 9);
        again.save(dir.path()).unwrap();
        assert_eq!(std::fs::read_to_string(&journal).unwrap().lines().count(), 6);
        assert_eq!(Manifest::load(dir.path()), Some(again.clone()));

        // More lines than entries: the whole file again, and no journal.
        for i in 0..100 {
            again.insert(format!("m{i:03}"), entry(2000 + i));
        }
        again.save(dir.path()).unwrap();
        assert!(!journal.exists());
        assert_eq!(Manifest::load(dir.path()), Some(again.clone()));

        // A journal line that does not parse makes the manifest unreadable (a rebuild).
        again.remove("m010");
        again.save(dir.path()).unwrap();
        std::fs::write(&journal, std::fs::read_to_string(&journal).unwrap() + "+m011\tbad\n")
            .unwrap();
        assert_eq!(Manifest::load(dir.path()), None);
    }

    #[test]
    fn a_journal_of_another_base_or_a_cut_last_line_is_not_applied() {
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join(JOURNAL);
        let mut m = Manifest::new("e", 8);
        for i in 0..50 {
            m.insert(format!("m{i:03}"), entry(i));
        }
        m.save(dir.path()).unwrap();
        let before = Manifest::load(dir.path()).unwrap();
        m.insert("late".into(), entry(77));
        m.save(dir.path()).unwrap();
        let line = std::fs::read_to_string(&journal).unwrap();

        // A line still being written: what is whole is the manifest; the next save of what is
        // read writes the whole file rather than append after the cut.
        std::fs::write(&journal, &line[..line.len() - 5]).unwrap();
        let mut read = Manifest::load(dir.path()).unwrap();
        assert_eq!(read, before);
        read.insert("other".into(), entry(5));
        read.save(dir.path()).unwrap();
        assert!(!journal.exists());
        let mut expected = before.clone();
        expected.insert("other".into(), entry(5));
        assert_eq!(Manifest::load(dir.path()), Some(expected.clone()));

        // A journal written for another base (as a save that died before removing it leaves)
        // is ignored, and the next append starts a journal of this base.
        std::fs::write(&journal, line.replacen('#', "#0", 1).replacen("0", "", 1)).unwrap();
        std::fs::write(&journal, format!("#{:016x}\n+x\n", 1)).unwrap();
        let mut read = Manifest::load(dir.path()).unwrap();
        assert_eq!(read, expected);
        read.insert("third".into(), entry(3));
        read.save(dir.path()).unwrap();
        expected.insert("third".into(), entry(3));
        assert_eq!(Manifest::load(dir.path()), Some(expected));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(100))]
        /// Whatever the edits and however often it is saved (and read back), what loads is what
        /// was kept in memory.
        #[test]
        fn saving_the_changes_and_loading_gives_the_same_manifest(
            ops in proptest::collection::vec((0u8..4, 0u64..12, 0u64..4), 1..80),
            every in 1usize..5,
        ) {
            let dir = tempfile::tempdir().unwrap();
            let mut m = Manifest::new("e", 8);
            for (step, (op, name, value)) in ops.into_iter().enumerate() {
                let name = format!("m{name}");
                match op {
                    0 | 1 => m.insert(name, entry(value)),
                    2 => {
                        m.remove(&name);
                    }
                    _ => m.set_links(&name, value),
                }
                if step % every == 0 {
                    m.save(dir.path()).unwrap();
                    if step % 3 == 0 {
                        m = Manifest::load(dir.path()).unwrap();
                    }
                }
            }
            m.save(dir.path()).unwrap();
            proptest::prop_assert_eq!(Manifest::load(dir.path()), Some(m));
        }
    }
}
