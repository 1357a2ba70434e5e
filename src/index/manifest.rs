//! The index manifest: what the derived indices were built from.
//!
//! One entry per memory file with its size, mtime and content hash (so a reconcile can tell an
//! unchanged file from a changed one with a `stat`, and a touched-but-identical file with a hash),
//! its chunk count (vector keys are derived from the name and chunk ordinal), and the metadata that
//! search filters and ranks on without reading the file. Written atomically and always last, so a
//! crash leaves an older manifest that the next reconcile repairs from.
//!
//! On disk (`indices/manifest.tsv`) it is a JSON header line followed by one tab-separated line per
//! memory: a no-change reconcile reads it on every command, and this parses several times faster
//! than JSON at 10k memories. Fields escape `\\`, tab, newline and the list separator `\x1f`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The manifest format; a different number means "rebuild".
///
/// 4: tags and warnings are redacted before they are recorded (see: #14), so a manifest written
/// before that is rebuilt rather than trusted.
/// 5: redaction markers (`[redacted]`, `«redacted:<kind>»`) are no longer indexed or embedded.
pub const FORMAT: u32 = 5;

/// The manifest of one vault's indices.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    /// [`FORMAT`] when written.
    pub format: u32,
    /// The embedder the vector index was built with.
    pub embedder_id: String,
    /// Its vector length.
    pub dim: usize,
    /// One entry per memory, by name.
    pub entries: BTreeMap<String, Entry>,
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
    /// Problems found reading the file (shown by `doctor` and in `--json`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// xxh3 of the memory's outgoing links as last put in the graph: an edit that leaves them
    /// alone needs neither to load nor to save the graph.
    #[serde(default)]
    pub links: u64,
}

impl Manifest {
    /// Ids that more than one memory carries, with those memories' names (sorted).
    pub fn duplicate_ids(&self) -> Vec<(String, Vec<String>)> {
        let mut by_id: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for (name, e) in &self.entries {
            by_id.entry(e.id.as_str()).or_default().push(name.clone());
        }
        by_id
            .into_iter()
            .filter(|(_, names)| names.len() > 1)
            .map(|(id, names)| (id.to_owned(), names))
            .collect()
    }

    /// Reads a manifest; `None` when it is missing, unreadable, or of another format.
    pub fn load(path: &Path) -> Option<Manifest> {
        let text = std::fs::read_to_string(path).ok()?;
        let (first, body) = text.split_once('\n').unwrap_or((&text, ""));
        let header: Header = serde_json::from_str(first).ok()?;
        if header.format != FORMAT {
            return None;
        }
        // Every command reads the manifest: at 10k memories the parse is most of its cost, so
        // a large one is parsed in two halves at once (the lines are independent).
        let parse = |part: &str| -> Option<Vec<(String, Entry)>> {
            part.split('\n').filter(|l| !l.is_empty()).map(decode_entry).collect()
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
        (entries.len() == header.entries).then_some(Manifest {
            format: header.format,
            embedder_id: header.embedder_id,
            dim: header.dim,
            entries,
        })
    }

    /// Writes the manifest atomically.
    pub fn save(&self, path: &Path) -> Result<(), crate::error::PathError> {
        let header = Header {
            format: self.format,
            embedder_id: self.embedder_id.clone(),
            dim: self.dim,
            entries: self.entries.len(),
        };
        let mut out = serde_json::to_string(&header).expect("a header always serialises");
        out.push('\n');
        for (name, e) in &self.entries {
            encode_entry(&mut out, name, e);
            out.push('\n');
        }
        crate::vault::atomic_write(path, out.as_bytes())
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
    push_list(out, &e.warnings);
    let _ = write!(out, "\t{:x}", e.links);
}

fn decode_entry(line: &str) -> Option<(String, Entry)> {
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
            warnings: list(f[16])?,
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

    #[test]
    fn manifest_round_trips_through_its_file_with_awkward_text() {
        let mut m = Manifest {
            format: FORMAT,
            embedder_id: "builtin-ngram-v1".into(),
            dim: 384,
            ..Default::default()
        };
        m.entries.insert(
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
                warnings: vec!["broken YAML".into()],
                links: 0xdead_beef_0123,
            },
        );
        m.entries.insert("plain".into(), Entry::default());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("manifest.tsv");
        m.save(&path).unwrap();
        assert_eq!(Manifest::load(&path), Some(m.clone()));
        // A truncated file is not trusted.
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, &text[..text.len() - 10]).unwrap();
        assert_eq!(Manifest::load(&path), None);
        std::fs::write(&path, "{not json\n").unwrap();
        assert_eq!(Manifest::load(&path), None);
    }

    #[test]
    fn a_large_manifest_is_parsed_in_halves_identically() {
        let mut m =
            Manifest { format: FORMAT, embedder_id: "e".into(), dim: 8, ..Default::default() };
        for i in 0..5_000 {
            let e = Entry {
                size: i,
                hash: format!("{i:016x}"),
                title: format!("title\t{i}"),
                tags: vec![format!("t{i}")],
                chunks: 2,
                ..Default::default()
            };
            m.entries.insert(format!("dir{}/m{i:05}", i % 7), e);
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("manifest.tsv");
        m.save(&path).unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() as usize > PARALLEL_PARSE_BYTES);
        assert_eq!(Manifest::load(&path), Some(m));
        // A damaged line in the second half is caught too.
        let text = std::fs::read_to_string(&path).unwrap();
        let cut = text.rfind("\tt4").unwrap();
        std::fs::write(&path, format!("{}\tx\ty{}", &text[..cut], &text[cut..])).unwrap();
        assert_eq!(Manifest::load(&path), None);
    }
}
