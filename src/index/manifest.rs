//! The index manifest: what the derived indices were built from.
//!
//! One entry per memory file with its size, mtime and content hash (so a reconcile can tell an
//! unchanged file from a changed one with a `stat`, and a touched-but-identical file with a hash),
//! its chunk count (vector keys are derived from the name and chunk ordinal), and the metadata that
//! search filters and ranks on without reading the file. Written atomically and always last, so a
//! crash leaves an older manifest that the next reconcile repairs from.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The manifest format; a different number means "rebuild".
pub const FORMAT: u32 = 1;

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
}

impl Manifest {
    /// Reads a manifest; `None` when it is missing, unreadable, or of another format.
    pub fn load(path: &Path) -> Option<Manifest> {
        let bytes = std::fs::read(path).ok()?;
        let m: Manifest = serde_json::from_slice(&bytes).ok()?;
        (m.format == FORMAT).then_some(m)
    }

    /// Writes the manifest atomically.
    pub fn save(&self, path: &Path) -> Result<(), crate::error::PathError> {
        let bytes = serde_json::to_vec(self).expect("a manifest always serialises");
        crate::vault::atomic_write(path, &bytes)
    }

    /// The total number of chunks.
    pub fn total_chunks(&self) -> usize {
        self.entries.values().map(|e| e.chunks).sum()
    }
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
