//! Remembering that a model directory loaded: its id and each file's size and modification
//! time, in `<user data dir>/memlane/model-ids/`, so that [`SentenceEmbedder::open`] can trust
//! the files without reading (and hashing) 90 MB of weights in every process.
//!
//! A stamp is only a shortcut: one that is missing, unreadable, for another directory, or whose
//! files' sizes or times differ from the files' now, sends `open` to a full load (which checks
//! everything and writes a new stamp). Writing a stamp is best effort.
//!
//! [`SentenceEmbedder::open`]: super::SentenceEmbedder::open

use std::fs;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Stamp {
    dir: String,
    id: String,
    /// (path relative to `dir`, size, modification time: seconds, nanoseconds).
    files: Vec<(String, u64, u64, u32)>,
}

fn stamp_path(dir: &Path) -> Option<(PathBuf, String)> {
    let canonical = fs::canonicalize(dir).ok()?;
    let key = canonical.to_string_lossy().into_owned();
    let base = directories::ProjectDirs::from("", "", "memlane")?.data_dir().join("model-ids");
    let name = format!("{:016x}.json", xxhash_rust::xxh3::xxh3_64(key.as_bytes()));
    Some((base.join(name), key))
}

fn file_facts(dir: &Path, files: &[PathBuf]) -> Option<Vec<(String, u64, u64, u32)>> {
    files
        .iter()
        .map(|rel| {
            let meta = fs::metadata(dir.join(rel)).ok()?;
            let t = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
            Some((rel.to_string_lossy().into_owned(), meta.len(), t.as_secs(), t.subsec_nanos()))
        })
        .collect()
}

/// Records that the model in `dir`, made of `files`, loaded with `id`.
pub(super) fn remember(dir: &Path, id: &str, files: &[PathBuf]) {
    if cfg!(test) {
        return; // unit tests never write to the user's data directory (the CLI tests do this)
    }
    let Some((path, key)) = stamp_path(dir) else { return };
    let Some(facts) = file_facts(dir, files) else { return };
    let stamp = Stamp { dir: key, id: id.to_owned(), files: facts };
    let Ok(json) = serde_json::to_vec(&stamp) else { return };
    let written = path
        .parent()
        .map_or(Ok(()), fs::create_dir_all)
        .and_then(|()| crate::vault::atomic_write(&path, &json).map_err(std::io::Error::other));
    if let Err(e) = written {
        tracing::debug!(path = %path.display(), error = %e, "cannot remember the model");
    }
}

/// The id recorded for `dir` when its `files` are exactly as they were when it loaded.
pub(super) fn recall(dir: &Path, files: &[PathBuf]) -> Option<String> {
    let (path, key) = stamp_path(dir)?;
    let stamp: Stamp = serde_json::from_slice(&fs::read(path).ok()?).ok()?;
    (stamp.dir == key && Some(&stamp.files) == file_facts(dir, files).as_ref()).then_some(stamp.id)
}
