//! Redaction of what is not a body: titles ([`strip_markers`]), tags ([`redact_tags`]) and JSON ([`redact_json`]).

use super::*;

/// `text` without the markers redaction writes (`[redacted]`, `«redacted:<kind>»`), for deriving
/// a name or a title from redacted text: a marker is not a word of the memory.
#[must_use]
pub fn strip_markers(text: &str) -> String {
    MARKER_RE.replace_all(&text.replace(PRIVATE_MARKER, " "), " ").into_owned()
}

/// What [`redact_tags`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RedactedTags {
    /// The tags that held nothing private, in their order.
    pub tags: Vec<String>,
    /// How many tags were dropped because redaction removed something from them.
    pub dropped: usize,
    /// `<private>` blocks found in the dropped tags.
    pub private_blocks: usize,
    /// Secrets found in the dropped tags, by kind.
    pub secrets: Vec<SecretFinding>,
}

/// Runs every tag through [`sanitize`] and drops each one redaction changed.
///
/// A tag is a single label used to filter by: `acme-[redacted]` would still tell what the author
/// hid next to, and a marker is useless as a filter, so the whole tag goes. The counts say what
/// was dropped, for the write's report.
#[must_use]
pub fn redact_tags(tags: &[String], scrub: bool) -> RedactedTags {
    let mut out = RedactedTags::default();
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    for tag in tags {
        let s = sanitize(tag, scrub);
        if s.had_private_content {
            out.dropped += 1;
            out.private_blocks += s.private_blocks;
            for f in s.secrets {
                *counts.entry(f.kind).or_default() += f.count;
            }
        } else {
            out.tags.push(tag.clone());
        }
    }
    out.secrets = counts.into_iter().map(|(kind, count)| SecretFinding { kind, count }).collect();
    out
}

/// Redacts every string in a JSON value, object keys included (a frontmatter shown to a person or
/// an agent). Returns whether anything changed.
pub fn redact_json(value: &mut serde_json::Value, scrub: bool) -> bool {
    use serde_json::Value;
    match value {
        Value::String(s) => {
            let clean = sanitize(s, scrub);
            if clean.had_private_content {
                *s = clean.text;
                true
            } else {
                false
            }
        }
        Value::Array(items) => {
            items.iter_mut().fold(false, |changed, v| redact_json(v, scrub) | changed)
        }
        Value::Object(map) => {
            let mut changed = false;
            let old = std::mem::take(map);
            for (k, mut v) in old {
                changed |= redact_json(&mut v, scrub);
                let key = sanitize(&k, scrub);
                changed |= key.had_private_content;
                map.insert(key.text, v);
            }
            changed
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => false,
    }
}
