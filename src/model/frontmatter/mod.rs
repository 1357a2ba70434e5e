//! The memory file model: YAML frontmatter plus a Markdown body, kept byte-exact.
//!
//! The frontmatter is held as the original text, cut into one segment per top-level key, so a
//! rewrite replaces only the keys that changed: unknown keys, comments, key order and the author's
//! formatting of every other key survive, and `git diff` shows only what memlane changed. Values
//! are read with `serde_yaml_ng` (the maintained fork of the archived `serde_yaml`); see
//! docs/architecture.md ("Dependencies and why") for why the frontmatter split is our own and not
//! `gray_matter`.
//!
//! Writing is strict (every value is emitted by [`yaml_scalar`] and friends and re-parsed), reading
//! is lenient ([`Meta::from_mapping`] turns bad values into warnings and defaults).
//!
//! `document.rs` holds the byte-exact [`Document`] and its edits, `emit.rs` the YAML writer,
//! `meta.rs` the typed view [`Meta`]; the limits and errors they share live here.

mod document;
mod emit;
mod meta;
#[cfg(test)]
mod tests;

pub use document::*;
pub use emit::*;
pub use meta::*;

/// The canonical order of the keys memlane writes. New keys are inserted after the nearest key
/// that precedes them in this list, so files keep a stable, readable order.
pub const KEY_ORDER: &[&str] = &[
    "id",
    "type",
    "status",
    "tags",
    "created_at",
    "updated_at",
    "pinned",
    "happens_at",
    "expires_at",
    "superseded_by",
    "consolidated_from",
    "links",
    "had_private_content",
];

/// The statuses a memory can have.
pub const STATUSES: &[&str] = &["active", "archived"];

/// The largest frontmatter memlane parses, in bytes (the text between the `---` lines). A file
/// with more is skipped with a warning: nothing memlane writes comes near it, and it keeps the
/// YAML parser's work bounded.
pub const MAX_FRONTMATTER_BYTES: usize = 256 * 1024;

/// The deepest nesting of flow collections (`[` and `{`) memlane parses in frontmatter. The YAML
/// parser's work grows with the square of this depth (160,000 `[` took 81 s), so a deeper file is
/// refused before parsing, in time linear in its size. Counted over every bracket that is not
/// closed yet, quoted or not (an overestimate, never an underestimate).
pub const MAX_FRONTMATTER_DEPTH: usize = 64;

/// Why frontmatter could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrontmatterError {
    /// The YAML does not parse.
    #[error("broken YAML in the frontmatter: {0}")]
    Yaml(String),
    /// The YAML parses but is not a `key: value` mapping.
    #[error("the frontmatter is not a `key: value` mapping")]
    NotAMapping,
    /// An opening `---` has no closing `---`.
    #[error("the frontmatter starts with `---` but has no closing `---` line")]
    Unclosed,
    /// A rewrite of some keys would have changed others (a layout memlane does not understand).
    #[error("memlane cannot change this frontmatter without also changing other keys ({0})")]
    UnsafeEdit(String),
    /// The frontmatter is larger than [`MAX_FRONTMATTER_BYTES`].
    #[error(
        "the frontmatter is {bytes} bytes, over the {max} byte limit",
        max = MAX_FRONTMATTER_BYTES
    )]
    TooLarge {
        /// The frontmatter's size.
        bytes: usize,
    },
    /// Flow collections nest deeper than [`MAX_FRONTMATTER_DEPTH`].
    #[error(
        "the frontmatter nests `[`/`{{` more than {max} deep",
        max = MAX_FRONTMATTER_DEPTH
    )]
    TooDeep,
}

impl FrontmatterError {
    /// Whether the frontmatter is past memlane's parsing limits (the file is skipped, not read
    /// with defaults).
    pub fn is_over_limit(&self) -> bool {
        matches!(self, FrontmatterError::TooLarge { .. } | FrontmatterError::TooDeep)
    }
}

/// Checks `yaml` against [`MAX_FRONTMATTER_BYTES`] and [`MAX_FRONTMATTER_DEPTH`] in one linear
/// pass, before any YAML parser sees it.
pub fn check_limits(yaml: &str) -> Result<(), FrontmatterError> {
    if yaml.len() > MAX_FRONTMATTER_BYTES {
        return Err(FrontmatterError::TooLarge { bytes: yaml.len() });
    }
    let mut depth = 0usize;
    for b in yaml.bytes() {
        match b {
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_FRONTMATTER_DEPTH {
                    return Err(FrontmatterError::TooDeep);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}
