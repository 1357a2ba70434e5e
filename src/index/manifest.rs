//! The index manifest: what the derived indices were built from.
//!
//! One entry per memory file with its size, mtime and content hash (so a reconcile can tell an
//! unchanged file from a changed one with a `stat`, and a touched-but-identical file with a hash),
//! its chunk count (vector keys are derived from the name and chunk ordinal), and the metadata that
//! search filters and ranks on without reading the file. Written always last, so a crash leaves
//! an older manifest that the next reconcile repairs from.
//!
//! On disk (`indices/manifest.tsv`) it is a JSON header line followed by one tab-separated line per
//! memory: a no-change reconcile reads it on every command, and this parses several times faster
//! than JSON at 10k memories. Fields escape `\\`, tab, newline and the list separator `\x1f`.
//!
//! Beside it, [`JOURNAL`]: the entries changed since `manifest.tsv` was written, one line each
//! (`+` and the entry's line, or `-` and the removed name), appended by [`Manifest::save`], so that
//! indexing one memory in a 10k-memory vault appends a line instead of rewriting 1.7 MB. Its first
//! line names the base it extends (the header's `base`, a hash of the entry lines): a journal left
//! beside another base is ignored, and the next save writes the whole file. Past
//! [`JOURNAL_MAX_LINES`] (or more lines than the base has entries) the whole file is written again
//! and the journal removed. A journal line that does not parse makes the manifest unreadable (the
//! caller rebuilds); a last line without its newline is a write still under way, not yet there.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

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
/// (messages only) is still read: its warnings are classified as it loads, and its next save
/// writes the whole file in this format (see [`OLDEST_READ`]).
pub const FORMAT: u32 = 7;

/// The oldest format [`Manifest::load`] reads (and upgrades in memory) instead of asking for a
/// rebuild.
pub const OLDEST_READ: u32 = 6;

/// The file name of the manifest under `indices/`.
pub const FILE: &str = "manifest.tsv";

/// The file name of its journal under `indices/`.
pub const JOURNAL: &str = "manifest.journal";

/// Journal lines at most: a save past them writes the whole manifest instead.
pub const JOURNAL_MAX_LINES: usize = 1024;

/// The manifest of one vault's indices.
///
/// Entries change only through [`insert`](Self::insert), [`remove`](Self::remove),
/// [`set_links`](Self::set_links) and [`reset`](Self::reset), which note what [`save`](Self::save)
/// must write.
#[derive(Debug, Clone, Default)]
pub struct Manifest {
    /// [`FORMAT`] when written.
    pub format: u32,
    /// The embedder the vector index was built with.
    pub embedder_id: String,
    /// Its vector length.
    pub dim: usize,
    /// One entry per memory, by name.
    entries: BTreeMap<String, Entry>,
    /// What is on disk and what changed since.
    disk: DiskState,
}

/// How a [`Manifest`] relates to its files.
#[derive(Debug, Clone, Default)]
struct DiskState {
    /// The `base` of the `manifest.tsv` this manifest was read from or last written as, when its
    /// journal holds every change up to now except `changed`; `None`: write the whole file.
    base: Option<u64>,
    /// Lines in that journal (its first line, naming the base, not counted).
    journal_lines: usize,
    /// Names whose entry changed since (set, changed or removed).
    changed: BTreeSet<String>,
    /// The header changed (embedder, dimension, format): write the whole file.
    rewrite: bool,
}

impl PartialEq for Manifest {
    /// Equal content: the header and every entry (not how it is split between file and journal).
    fn eq(&self, other: &Self) -> bool {
        self.format == other.format
            && self.embedder_id == other.embedder_id
            && self.dim == other.dim
            && self.entries == other.entries
    }
}

/// What the indices know about one memory file.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Entry {
    /// File size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i128,
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

impl Manifest {
    /// Ids that more than one memory carries, with those memories' names (sorted).
    pub fn duplicate_ids(&self) -> Vec<(String, Vec<String>)> {
        self.shared_ids(None)
    }

    /// [`duplicate_ids`](Self::duplicate_ids) among the ids of `names` only: one pass over the
    /// entries, for a reconcile that indexed a few memories.
    pub fn duplicate_ids_of(&self, names: &[String]) -> Vec<(String, Vec<String>)> {
        let ids: BTreeSet<&str> =
            names.iter().filter_map(|n| self.entries.get(n)).map(|e| e.id.as_str()).collect();
        self.shared_ids(Some(&ids))
    }

    fn shared_ids(&self, only: Option<&BTreeSet<&str>>) -> Vec<(String, Vec<String>)> {
        let mut by_id: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for (name, e) in &self.entries {
            if only.is_none_or(|ids| ids.contains(e.id.as_str())) {
                by_id.entry(e.id.as_str()).or_default().push(name.clone());
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
            entries: BTreeMap::new(),
            disk: DiskState { rewrite: true, ..Default::default() },
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

    /// Every entry, by memory name.
    pub fn entries(&self) -> &BTreeMap<String, Entry> {
        &self.entries
    }

    /// Sets the entry of `name`.
    pub fn insert(&mut self, name: String, entry: Entry) {
        if self.entries.get(&name) != Some(&entry) {
            self.note_changed(&name);
            self.entries.insert(name, entry);
        }
    }

    /// Removes the entry of `name`, returning it.
    pub fn remove(&mut self, name: &str) -> Option<Entry> {
        let old = self.entries.remove(name)?;
        self.note_changed(name);
        Some(old)
    }

    /// Records the hash of `name`'s outgoing links (see [`Entry::links`]).
    pub fn set_links(&mut self, name: &str, links: u64) {
        if let Some(e) = self.entries.get_mut(name)
            && e.links != links
        {
            e.links = links;
            self.note_changed(name);
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
    /// A manifest of an older format it reads is upgraded in memory (see [`FORMAT`]): it says
    /// [`FORMAT`], and its next save writes the whole file.
    pub fn load(dir: &Path) -> Option<Manifest> {
        let text = crate::index::confined_io::read_to_string(&dir.join(FILE)).ok()?;
        let (first, body) = text.split_once('\n').unwrap_or((&text, ""));
        let header: Header = serde_json::from_str(first).ok()?;
        if !(OLDEST_READ..=FORMAT).contains(&header.format) {
            return None;
        }
        let format = header.format;
        // Every command reads the manifest: at 10k memories the parse is most of its cost, so
        // a large one is parsed in two halves at once (the lines are independent).
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
        let entries: BTreeMap<String, Entry> = parsed.into_iter().collect();
        if entries.len() != header.entries {
            return None;
        }
        let mut m = Manifest {
            format: header.format,
            embedder_id: header.embedder_id,
            dim: header.dim,
            entries,
            disk: DiskState { base: header.base, ..Default::default() },
        };
        m.replay_journal(&dir.join(JOURNAL), format)?;
        if m.format != FORMAT {
            // Read in the older format: what is saved next is the whole file in this one.
            m.format = FORMAT;
            m.disk = DiskState { rewrite: true, ..Default::default() };
        }
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
                self.entries.remove(&unescape(name)?);
            } else {
                let (name, entry) = decode_entry(line.strip_prefix('+')?, format)?;
                self.entries.insert(name, entry);
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
                    && lines <= self.entries.len().max(16) =>
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
                    match self.entries.get(name) {
                        Some(e) => {
                            out.push('+');
                            encode_entry(&mut out, name, e);
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
                    match std::fs::remove_file(&path) {
                        Ok(()) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                        Err(source) => {
                            return Err(crate::error::PathError { action: "remove", path, source });
                        }
                    }
                }
                crate::disk::append_synced(&path, out.as_bytes())?;
                self.disk.journal_lines = lines;
                self.disk.changed.clear();
                Ok(())
            }
            _ => self.save_whole(dir),
        }
    }

    /// Writes the whole manifest file atomically and removes the journal.
    pub fn save_whole(&mut self, dir: &Path) -> Result<(), crate::error::PathError> {
        let mut body = String::new();
        for (name, e) in &self.entries {
            encode_entry(&mut body, name, e);
            body.push('\n');
        }
        let base = xxhash_rust::xxh3::xxh3_64(body.as_bytes());
        let header = Header {
            format: self.format,
            embedder_id: self.embedder_id.clone(),
            dim: self.dim,
            entries: self.entries.len(),
            base: Some(base),
        };
        let mut out = serde_json::to_string(&header).expect("a header always serialises");
        out.push('\n');
        out.push_str(&body);
        crate::vault::atomic_write(&dir.join(FILE), out.as_bytes())?;
        let journal = dir.join(JOURNAL);
        match std::fs::remove_file(&journal) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(crate::error::PathError { action: "remove", path: journal, source });
            }
        }
        self.disk = DiskState { base: Some(base), ..Default::default() };
        Ok(())
    }

    /// The total number of chunks.
    pub fn total_chunks(&self) -> usize {
        self.entries.values().map(|e| e.chunks).sum()
    }
}

#[derive(Serialize, Deserialize)]
struct Header {
    format: u32,
    embedder_id: String,
    dim: usize,
    entries: usize,
    /// What a journal names to extend this file (see the module's docs).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "hex_u64")]
    base: Option<u64>,
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

fn encode_entry(out: &mut String, name: &str, e: &Entry) {
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
}

/// An entry's line, written in `format`.
fn decode_entry(line: &str, format: u32) -> Option<(String, Entry)> {
    let mut f = [""; 18];
    let mut fields = line.split('\t');
    for slot in &mut f {
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
    let mut buf = String::with_capacity(name.len() + 8);
    buf.push_str(name);
    buf.push('#');
    buf.push_str(&ordinal.to_string());
    xxhash_rust::xxh3::xxh3_64(buf.as_bytes())
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

    #[test]
    fn manifest_round_trips_through_its_file_with_awkward_text() {
        let mut m = Manifest::new("builtin-ngram-v1", 384);
        m.insert(
            "auth/jwt plan".into(),
            Entry {
                size: 12,
                mtime_ns: 1_767_225_600_123_456_789,
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
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, &text[..text.len() - 10]).unwrap();
        assert_eq!(Manifest::load(dir.path()), None);
        std::fs::write(&path, "{not json\n").unwrap();
        assert_eq!(Manifest::load(dir.path()), None);
    }

    #[test]
    fn a_format_6_manifest_is_read_with_its_conflict_warnings_classified_and_saved_as_7() {
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
        std::fs::write(dir.path().join(FILE), header + &entries).unwrap();
        std::fs::write(
            dir.path().join(JOURNAL),
            format!("#{base:016x}\n+{}", line("merged", &body)),
        )
        .unwrap();

        let mut m = Manifest::load(dir.path()).expect("a format-6 manifest is read");
        assert_eq!(m.format, FORMAT);
        let kinds = |m: &Manifest, name: &str| -> Vec<WarningKind> {
            m.entries()[name].warnings.iter().map(|w| w.kind).collect()
        };
        assert_eq!(kinds(&m, "conflicted"), [WarningKind::KeyConflict, WarningKind::Frontmatter]);
        assert_eq!(kinds(&m, "merged"), [WarningKind::BodyConflict]);
        assert!(kinds(&m, "plain").is_empty());
        assert_eq!(m.entries()["conflicted"].warnings[0].message, key);
        assert_eq!(m.entries()["merged"].warnings[0].message, body);

        // The next save writes the whole file in the current format, and drops the old journal.
        m.save(dir.path()).unwrap();
        assert!(!dir.path().join(JOURNAL).exists());
        let text = std::fs::read_to_string(dir.path().join(FILE)).unwrap();
        assert!(text.starts_with(&format!("{{\"format\":{FORMAT},")), "{text}");
        assert!(text.contains("\tkey_conflict:unresolved merge conflict"), "{text}");
        assert_eq!(Manifest::load(dir.path()), Some(m));

        // A format older than the oldest read is rebuilt, as before.
        let old = text.replacen(&format!("\"format\":{FORMAT}"), "\"format\":5", 1);
        std::fs::write(dir.path().join(FILE), old).unwrap();
        assert_eq!(Manifest::load(dir.path()), None);
    }

    #[test]
    fn a_large_manifest_is_parsed_in_halves_identically() {
        let mut m = Manifest::new("e", 8);
        for i in 0..5_000 {
            m.insert(format!("dir{}/m{i:05}", i % 7), entry(i));
        }
        let dir = tempfile::tempdir().unwrap();
        m.save(dir.path()).unwrap();
        let path = dir.path().join(FILE);
        assert!(std::fs::metadata(&path).unwrap().len() as usize > PARALLEL_PARSE_BYTES);
        assert_eq!(Manifest::load(dir.path()), Some(m));
        // A damaged line in the second half is caught too.
        let text = std::fs::read_to_string(&path).unwrap();
        let cut = text.rfind("\tt4").unwrap();
        std::fs::write(&path, format!("{}\tx\ty{}", &text[..cut], &text[cut..])).unwrap();
        assert_eq!(Manifest::load(dir.path()), None);
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
