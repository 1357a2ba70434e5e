//! Privacy redaction and secret scrubbing for everything memlane writes.
//!
//! This module owns the two passes that run on every write (create, update, append, summarize,
//! merge) *before* anything is written, embedded, deduplicated or indexed. It is pure: it never
//! touches the filesystem, never logs the text it sees and never prints.
//!
//! Where things live: [`sanitize`] (both passes, in order) here; `private` (the `<private>` tag
//! scanner), `secrets` (the credential rules) and `metadata` (titles, tags and JSON).
//!
//! # Order: private blocks first, then secrets
//!
//! 1. [`redact_private`] replaces each `<private>…</private>` block with the literal `[redacted]`.
//! 2. [`scrub_secrets`] replaces well-known credential shapes with `«redacted:<kind>»`.
//!
//! The order matters. The secret patterns are greedy about what a value may contain, so running
//! them first could swallow a closing tag (`password=hunter2</private>` would become
//! `password=«redacted:password-assignment»`), turning a closed block into an unclosed one, which
//! is then kept literally and leaks whatever else the block held. Redacting the blocks first
//! means the author's explicit intent always wins, a secret inside a block is counted once as a
//! private block, and the scrubber never sees tag syntax it could damage. The scrubber's marker
//! uses `«»` so that it can never be mistaken for a tag or for `[redacted]`.
//!
//! # `<private>` rules (Mnestra's, exactly)
//!
//! - An opening tag is `<private` followed by a word boundary and anything up to the next `>`, in
//!   any case: `<private>`, `<PRIVATE>`, `<private data-owner="josh">`, but not `<privateer>`.
//! - A closing tag is `</private`, optional ASCII whitespace, then `>`, in any case: `</private >`.
//! - From an opening tag, nesting is counted. The block ends where the depth returns to zero, so
//!   nested blocks collapse into one `[redacted]`.
//! - If no closing tag exists anywhere after an opening tag, the rest of the text is literal: a
//!   typo must not silently cost the rest of a memory.
//! - If closing tags exist after it but the nesting never balances, everything from the outer
//!   opening tag to the end of the text is redacted: the author clearly meant to hide something
//!   and we cannot tell where it stops.
//! - A closing tag with no opening tag before it is literal. Text between blocks is kept byte for
//!   byte.
//!
//! The tag scanner is a single linear pass over the text plus a linear pass over the tags, so it
//! cannot backtrack catastrophically on hostile input.
//!
//! # Secret rules
//!
//! Each kind in [`secret_kinds`] has one or more patterns, compiled once. Token-shaped secrets
//! (cloud keys, API tokens, JWTs, private key blocks) are replaced whole. For key/value shapes
//! (`password=…`, `"api_key": "…"`, `AccountKey=…`, `Bearer …`, `scheme://user:pass@host`) only
//! the value is replaced and the key is kept, so the memory still says *what* was there.
//! Placeholders (`${DB_PASSWORD}`, `<your-password>`, `****`, empty values) and prose ("reset your
//! password") are left alone. A `-----BEGIN … PRIVATE KEY-----` without its `END` line is redacted
//! to the end of the text, so a truncated key never leaks.
//!
//! ```
//! use memlane::privacy::sanitize;
//!
//! let s = sanitize("db <private>prod</private> at postgres://app:hunter2@db/app", true);
//! assert_eq!(s.text, "db [redacted] at postgres://app:«redacted:connection-string»@db/app");
//! assert!(s.had_private_content);
//! ```

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

mod metadata;
mod private;
mod secrets;

#[cfg(test)]
mod tests;

pub use metadata::*;
pub use private::*;
pub use secrets::*;

/// The literal that replaces each `<private>` block.
const PRIVATE_MARKER: &str = "[redacted]";

/// What sanitizing a text did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sanitized {
    /// The text after private blocks and (if asked) secrets were replaced.
    pub text: String,
    /// True when anything was removed: a private block or a secret.
    pub had_private_content: bool,
    /// How many `[redacted]` blocks replaced `<private>` content.
    pub private_blocks: usize,
    /// One finding per secret kind that was replaced, sorted by kind.
    pub secrets: Vec<SecretFinding>,
}

impl Sanitized {
    /// True when nothing worth storing is left: the text is empty or only whitespace, or (when
    /// something was removed) it holds nothing but whitespace and redaction markers.
    ///
    /// The caller then stores nothing and answers `skipped`. Treating a bare `[redacted]` as
    /// empty follows Mnestra, which refuses to store a memory that redaction emptied rather than
    /// keep a bare marker. Markers only count when this sanitize pass produced them, so a text
    /// that merely quotes `[redacted]` is kept.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        if self.text.trim().is_empty() {
            return true;
        }
        if !self.had_private_content {
            return false;
        }
        let without_private = self.text.replace(PRIVATE_MARKER, "");
        MARKER_RE.replace_all(&without_private, "").trim().is_empty()
    }
}

/// One kind of secret found by [`scrub_secrets`], and how many times it was replaced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SecretFinding {
    /// The kind, a short kebab-case name from [`secret_kinds`] such as `github-token`.
    pub kind: &'static str,
    /// How many values of this kind were replaced.
    pub count: usize,
}

/// Redact `<private>` blocks, then (if `scrub`) secrets, and report what was removed.
///
/// `had_private_content` is true when anything at all was removed.
///
/// Scrubbing can change what the tag scanner sees: in `<private<private>…<private-----END
/// PRIVATE KEY----- </private>` the second `<private` swallows the `</private>` as part of an
/// opening tag (so nothing is closed and the text stays literal) until the key is scrubbed away.
/// So the two passes repeat until the text no longer changes, and redaction is idempotent:
/// what `sanitize` returns, `sanitize` returns unchanged.
#[must_use]
pub fn sanitize(input: &str, scrub: bool) -> Sanitized {
    /// Each round after the first needs a block that only scrubbing revealed; a handful is
    /// plenty, and the cap keeps hostile input linear.
    const MAX_ROUNDS: usize = 8;
    let mut text = input.to_owned();
    let mut private_blocks = 0;
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    for _ in 0..MAX_ROUNDS {
        let (redacted, blocks) = redact_private(&text);
        let (scrubbed, found) =
            if scrub { scrub_secrets(&redacted) } else { (redacted, Vec::new()) };
        private_blocks += blocks;
        for f in &found {
            *counts.entry(f.kind).or_default() += f.count;
        }
        let changed = scrubbed != text;
        text = scrubbed;
        if !changed || !scrub {
            break;
        }
    }
    let secrets: Vec<SecretFinding> =
        counts.into_iter().map(|(kind, count)| SecretFinding { kind, count }).collect();
    Sanitized {
        had_private_content: private_blocks > 0 || !secrets.is_empty(),
        text,
        private_blocks,
        secrets,
    }
}
