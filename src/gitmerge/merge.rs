//! The three-way merge of one memory file.
//!
//! The frontmatter is merged key by key, each by its meaning:
//!
//! - `tags`, `links`, `consolidated_from` and `merge_conflicts`: as sets. An item is in the
//!   result when either side has it and neither side removed it (it was in the base and one side
//!   no longer has it).
//! - `updated_at`: from the side that changed it, the later of the two when both did;
//!   `created_at` likewise, the earlier when both changed it.
//! - `id`: kept; two different ids are a conflict.
//! - Every other key (`type`, `status`, `pinned`, your own): from the side that changed it; both
//!   changed it differently is a conflict on that key only.
//!
//! A key conflict keeps our value and records both under `merge_conflicts:` in the frontmatter
//! (`- { key: status, ours: active, theirs: archived }`), so the file stays valid YAML and every
//! reader can still read it. The body is merged as `git merge-file` merges text; overlapping
//! changes leave git's markers in the body only.
//!
//! Keys the merge does not change keep their bytes (comments, quoting, layout): the result starts
//! from our file, and a key taken from theirs is copied with its own lines. A file whose
//! frontmatter is missing or does not parse on either side is merged as plain text.

use jiff::Timestamp;
use serde_yaml_ng::{Mapping, Value};

use super::{CONFLICTS_KEY, GitError};
use crate::model::Document;
use crate::model::frontmatter::{list_value, read_tags};
use crate::model::time::parse_timestamp;

/// The three versions of a memory file a merge starts from.
#[derive(Debug, Clone, Copy)]
pub struct MergeInput<'a> {
    /// The common ancestor (empty when both sides added the file).
    pub base: &'a str,
    /// Our version (the branch merged into).
    pub ours: &'a str,
    /// Their version (the branch merged in).
    pub theirs: &'a str,
}

/// A frontmatter key that both sides changed differently.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct KeyConflict {
    /// The key.
    pub key: String,
    /// Our value (kept in the file); `null` when we removed the key.
    #[schemars(with = "Option<serde_json::Value>")]
    pub ours: Option<Value>,
    /// Their value; `null` when they removed the key.
    #[schemars(with = "Option<serde_json::Value>")]
    pub theirs: Option<Value>,
}

/// A merged memory file.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedFile {
    /// The merged file.
    pub text: String,
    /// The frontmatter keys both sides changed differently (recorded under `merge_conflicts`).
    pub key_conflicts: Vec<KeyConflict>,
    /// How many conflicting hunks of text carry git's markers.
    pub text_conflicts: usize,
    /// Whether the file was merged as plain text (a side without readable frontmatter), so a
    /// text conflict may sit in the frontmatter.
    pub as_text: bool,
}

impl MergedFile {
    /// Whether the merge needs no one to look at it.
    pub fn is_clean(&self) -> bool {
        self.key_conflicts.is_empty() && self.text_conflicts == 0
    }

    fn clean(text: &str) -> MergedFile {
        MergedFile {
            text: text.to_owned(),
            key_conflicts: Vec::new(),
            text_conflicts: 0,
            as_text: false,
        }
    }
}

/// The conflict marker labels of a text merge.
#[derive(Debug, Clone)]
pub struct Labels {
    /// After `<<<<<<<`.
    pub ours: String,
    /// After `|||||||` (shown in the diff3 style only).
    pub base: String,
    /// After `>>>>>>>`.
    pub theirs: String,
}

impl Default for Labels {
    fn default() -> Labels {
        Labels { ours: "ours".into(), base: "base".into(), theirs: "theirs".into() }
    }
}

/// A three-way text merge: `(base, ours, theirs)` to the merged text and its number of
/// conflicting hunks. [`git_merge_text`] is the one memlane uses.
pub type TextMerge<'a> = dyn Fn(&str, &str, &str) -> Result<(String, usize), GitError> + 'a;

/// Merges three versions of a memory file: the frontmatter key by key, the body with
/// `text_merge` (see the module documentation).
///
/// A side merged with itself, or with an unchanged base, comes back byte for byte.
pub fn merge_memory(
    input: MergeInput<'_>,
    text_merge: &TextMerge<'_>,
) -> Result<MergedFile, GitError> {
    let MergeInput { base, ours, theirs } = input;
    if ours == theirs || base == theirs {
        return Ok(MergedFile::clean(ours));
    }
    if base == ours {
        return Ok(MergedFile::clean(theirs));
    }
    if let Some(merged) = merge_structured(input, text_merge)? {
        return Ok(merged);
    }
    let (text, text_conflicts) = text_merge(base, ours, theirs)?;
    Ok(MergedFile { text, key_conflicts: Vec::new(), text_conflicts, as_text: true })
}

/// The key-by-key merge, or `None` when either side's frontmatter cannot be read (then the
/// whole file is merged as text).
pub(super) fn merge_structured(
    input: MergeInput<'_>,
    text_merge: &TextMerge<'_>,
) -> Result<Option<MergedFile>, GitError> {
    let (o, a, b) =
        (Document::parse(input.base), Document::parse(input.ours), Document::parse(input.theirs));
    if !a.has_frontmatter() || !b.has_frontmatter() {
        return Ok(None);
    }
    let (Ok(ma), Ok(mb)) = (a.mapping(), b.mapping()) else { return Ok(None) };
    if [&a, &b].iter().any(|d| crate::model::conflict::conflict_line(&d.yaml()).is_some()) {
        return Ok(None);
    }
    let mo = if o.has_frontmatter() { o.mapping().unwrap_or_default() } else { Mapping::new() };

    let mut result = a.clone();
    let mut conflicts = Vec::new();
    let mut keys: Vec<&str> = ma.keys().filter_map(Value::as_str).collect();
    keys.extend(mb.keys().filter_map(Value::as_str).filter(|k| !ma.contains_key(*k)));
    for key in keys {
        let (vo, va, vb) = (mo.get(key), ma.get(key), mb.get(key));
        match decide(key, vo, va, vb) {
            Decision::Ours => {}
            Decision::Theirs => result.copy_entry_from(&b, key),
            Decision::Set(v) => result.set(key, &v),
            Decision::Conflict => conflicts.push(KeyConflict {
                key: key.to_owned(),
                ours: va.cloned(),
                theirs: vb.cloned(),
            }),
        }
    }
    if !conflicts.is_empty() {
        let mut recorded = match result.mapping().ok().and_then(|m| m.get(CONFLICTS_KEY).cloned()) {
            Some(Value::Sequence(items)) => items,
            _ => Vec::new(),
        };
        for c in &conflicts {
            let mut entry = Mapping::new();
            entry.insert("key".into(), Value::String(c.key.clone()));
            entry.insert("ours".into(), c.ours.clone().unwrap_or(Value::Null));
            entry.insert("theirs".into(), c.theirs.clone().unwrap_or(Value::Null));
            recorded.push(Value::Mapping(entry));
        }
        result.set(CONFLICTS_KEY, &Value::Sequence(recorded));
    }

    let (bo, ba, bb) = (o.body(), a.body(), b.body());
    let (body, text_conflicts) = if ba == bb || bo == bb {
        (ba.to_owned(), 0)
    } else if bo == ba {
        (bb.to_owned(), 0)
    } else {
        text_merge(bo, ba, bb)?
    };
    result.set_body(&body);
    if result.verify_edits().is_err() {
        // A layout the segmenter misjudged: merge as text rather than write keys it did not mean.
        return Ok(None);
    }
    Ok(Some(MergedFile {
        text: result.render(),
        key_conflicts: conflicts,
        text_conflicts,
        as_text: false,
    }))
}

/// What the merge does with one key.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Decision {
    /// Keep our lines.
    Ours,
    /// Take their lines.
    Theirs,
    /// Write this value.
    Set(Value),
    /// Both changed it differently.
    Conflict,
}

/// How one key merges, from its value in the base, ours and theirs (`None`: absent).
pub(super) fn decide(
    key: &str,
    vo: Option<&Value>,
    va: Option<&Value>,
    vb: Option<&Value>,
) -> Decision {
    if va == vb {
        return Decision::Ours;
    }
    match key {
        "updated_at" => by_time(vo, va, vb, |a, b| a >= b),
        "created_at" => by_time(vo, va, vb, |a, b| a <= b),
        "id" => match (va, vb) {
            (Some(_), Some(_)) => Decision::Conflict,
            (None, _) => Decision::Theirs,
            (_, None) => Decision::Ours,
        },
        "tags" => merge_tags(vo, va, vb),
        "links" | "consolidated_from" | CONFLICTS_KEY => merge_values(vo, va, vb),
        _ => three_way(vo, va, vb),
    }
}

fn three_way(vo: Option<&Value>, va: Option<&Value>, vb: Option<&Value>) -> Decision {
    if va == vo {
        Decision::Theirs
    } else if vb == vo {
        Decision::Ours
    } else {
        Decision::Conflict
    }
}

fn timestamp(v: Option<&Value>) -> Option<Timestamp> {
    match v? {
        Value::String(s) => parse_timestamp(s),
        _ => None,
    }
}

/// From the side that changed it; when both did, ours when `keep_ours(ours, theirs)`, else
/// theirs (per key three-way when either is not a time).
fn by_time(
    vo: Option<&Value>,
    va: Option<&Value>,
    vb: Option<&Value>,
    keep_ours: fn(Timestamp, Timestamp) -> bool,
) -> Decision {
    if va == vo || vb == vo {
        return three_way(vo, va, vb);
    }
    match (timestamp(va), timestamp(vb)) {
        (Some(a), Some(b)) if keep_ours(a, b) => Decision::Ours,
        (Some(_), Some(_)) => Decision::Theirs,
        _ => three_way(vo, va, vb),
    }
}

/// The three-way set merge: our items in our order, then their new ones in theirs; an item one
/// side removed (in the base, not on that side) stays out.
fn merge_set<T: PartialEq + Clone>(o: &[T], a: &[T], b: &[T]) -> Vec<T> {
    let removed_by = |side: &[T], t: &T| o.contains(t) && !side.contains(t);
    let mut out: Vec<T> = a.iter().filter(|t| !removed_by(b, t)).cloned().collect();
    for t in b {
        if !out.contains(t) && !a.contains(t) && !removed_by(a, t) {
            out.push(t.clone());
        }
    }
    out
}

fn merge_tags(vo: Option<&Value>, va: Option<&Value>, vb: Option<&Value>) -> Decision {
    let tags = |v: Option<&Value>| v.map_or(Some(Vec::new()), read_tags);
    let (Some(to), Some(ta), Some(tb)) = (tags(vo), tags(va), tags(vb)) else {
        return three_way(vo, va, vb);
    };
    let merged = merge_set(&to, &ta, &tb);
    if merged == ta {
        Decision::Ours
    } else if merged == tb {
        Decision::Theirs
    } else {
        Decision::Set(list_value(&merged))
    }
}

fn merge_values(vo: Option<&Value>, va: Option<&Value>, vb: Option<&Value>) -> Decision {
    let items = |v: Option<&Value>| match v {
        None | Some(Value::Null) => Some(Vec::new()),
        Some(Value::Sequence(s)) => Some(s.clone()),
        Some(_) => None,
    };
    let (Some(io), Some(ia), Some(ib)) = (items(vo), items(va), items(vb)) else {
        return three_way(vo, va, vb);
    };
    let merged = merge_set(&io, &ia, &ib);
    if merged == ia {
        Decision::Ours
    } else if merged == ib {
        Decision::Theirs
    } else {
        Decision::Set(Value::Sequence(merged))
    }
}

/// Merges text with `git merge-file -p` (git's own three-way merge, its markers and labels):
/// the merged text and the number of conflicting hunks. The three versions go to temporary files
/// in `tmp_dir`, removed afterwards.
pub fn git_merge_text(
    base: &str,
    ours: &str,
    theirs: &str,
    labels: &Labels,
    tmp_dir: &std::path::Path,
) -> Result<(String, usize), GitError> {
    let files = TempFiles::write(tmp_dir, [ours, base, theirs])?;
    let mut cmd = std::process::Command::new("git");
    cmd.args(["merge-file", "-p", "-L", &labels.ours, "-L", &labels.base, "-L", &labels.theirs])
        .args(&files.paths)
        .stdin(std::process::Stdio::null());
    let out = cmd.output().map_err(|e| GitError::NotRunnable(e.to_string()))?;
    drop(files);
    match out.status.code() {
        Some(n @ 0..=127) => {
            let text = String::from_utf8(out.stdout).map_err(|_| GitError::Failed {
                args: "merge-file".into(),
                stderr: "the merged text is not UTF-8".into(),
            })?;
            Ok((text, n as usize))
        }
        _ => Err(GitError::Failed {
            args: "merge-file".into(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        }),
    }
}

/// Temporary files, removed when dropped.
struct TempFiles {
    paths: Vec<std::path::PathBuf>,
}

impl TempFiles {
    fn write<const N: usize>(
        dir: &std::path::Path,
        texts: [&str; N],
    ) -> Result<TempFiles, GitError> {
        use std::io::Write as _;
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let mut files = TempFiles { paths: Vec::new() };
        for text in texts {
            let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let path = dir.join(format!(".memlane-merge-{}-{n}.tmp", std::process::id()));
            let temp = |source| GitError::Temp { dir: dir.to_owned(), source };
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .map_err(temp)?;
            files.paths.push(path);
            f.write_all(text.as_bytes()).map_err(temp)?;
        }
        Ok(files)
    }
}

impl Drop for TempFiles {
    fn drop(&mut self) {
        for p in &self.paths {
            let _ = std::fs::remove_file(p);
        }
    }
}
