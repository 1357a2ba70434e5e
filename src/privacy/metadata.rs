//! Redaction of what is not a body: titles ([`strip_markers`]), tags ([`redact_tags`]) and JSON ([`redact_json`]).

use super::*;

/// `text` without the markers redaction writes (`[redacted]`, `«redacted:<kind>»`), for deriving
/// a name or a title from redacted text: a marker is not a word of the memory.
#[must_use]
pub fn strip_markers(text: &str) -> String {
    MARKER_RE.replace_all(&text.replace(PRIVATE_MARKER, " "), " ").into_owned()
}

/// Whether `text` holds a marker redaction writes (`[redacted]`, `«redacted:<kind>»`): a link
/// target or a name that redaction touched, which memlane leaves out rather than keep as a
/// marker.
#[must_use]
pub fn holds_marker(text: &str) -> bool {
    text.contains(PRIVATE_MARKER) || MARKER_RE.is_match(text)
}

/// The byte ranges of the markers redaction writes in `text`, in order: what a link or a name
/// that overlaps one was made of is not the author's.
#[must_use]
pub fn marker_ranges(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = text
        .match_indices(PRIVATE_MARKER)
        .map(|(at, m)| at..at + m.len())
        .chain(MARKER_RE.find_iter(text).map(|m| m.range()))
        .collect();
    out.sort_by_key(|r| r.start);
    out
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

/// The words a frontmatter key ends with when its value is a credential, compared after the key
/// is lowercased and `-` and `.` become `_`. A key is secret when it is one of these, ends with
/// `_` + one of these (`db_password`, `github-token`), or, for the longer words, simply ends with
/// one (`dbpassword`, `githubtoken`).
const SECRET_KEY_WORDS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "pass",
    "secret",
    "secrets",
    "token",
    "api_key",
    "apikey",
    "access_key",
    "secret_key",
    "private_key",
    "client_secret",
    "auth",
    "credential",
    "credentials",
];

/// The words of [`SECRET_KEY_WORDS`] long enough to count glued to the end of a key
/// (`dbpassword`); short ones (`pwd`, `pass`, `auth`) only count as a whole part (`db_pass`, not
/// `bypass` or `oauth`).
const GLUED_SECRET_WORDS: &[&str] =
    &["password", "passwd", "passphrase", "secret", "token", "apikey", "credentials"];

/// Whether a frontmatter key names a credential (`password`, `API-Key`, `db_password`,
/// `client_secret`, `auth`, …), case-insensitive; its value is then never shown (see
/// [`redact_json`]). `password_hint`, `max_tokens` and `author` are not.
#[must_use]
pub fn is_secret_key(key: &str) -> bool {
    let k: String = key
        .trim()
        .chars()
        .map(|c| if matches!(c, '-' | '.' | ' ') { '_' } else { c.to_ascii_lowercase() })
        .collect();
    SECRET_KEY_WORDS
        .iter()
        .any(|w| k == *w || k.strip_suffix(w).is_some_and(|head| head.ends_with('_')))
        || GLUED_SECRET_WORDS.iter().any(|w| k.ends_with(w))
}

/// The marker that replaces the value of a key that names a credential: the scrubber's for
/// `password: …` in text.
const KEYED_MARKER: &str = "«redacted:password-assignment»";

/// Replaces every string and number under a key that names a credential with the marker;
/// placeholders (`${DB_PASSWORD}`, `<your-token>`, `****`, earlier markers), booleans and nulls
/// stay. Returns whether anything changed.
fn redact_keyed(value: &mut serde_json::Value) -> bool {
    use serde_json::Value;
    match value {
        Value::String(s) if is_placeholder(s) => false,
        Value::String(_) | Value::Number(_) => {
            *value = Value::String(KEYED_MARKER.to_owned());
            true
        }
        Value::Array(items) => items.iter_mut().fold(false, |changed, v| redact_keyed(v) | changed),
        Value::Object(map) => map.values_mut().fold(false, |changed, v| redact_keyed(v) | changed),
        Value::Null | Value::Bool(_) => false,
    }
}

/// [`redact_json`]'s keyed rule for frontmatter memlane is about to write (a raw update): every
/// value under a key that names a credential, at any depth, becomes the marker. Returns how many
/// values were replaced.
pub fn redact_secret_keys_yaml(value: &mut serde_yaml_ng::Value) -> usize {
    use serde_yaml_ng::Value;
    fn all(value: &mut Value) -> usize {
        match value {
            Value::String(s) if is_placeholder(s) => 0,
            Value::String(_) | Value::Number(_) => {
                *value = Value::String(KEYED_MARKER.to_owned());
                1
            }
            Value::Sequence(items) => items.iter_mut().map(all).sum(),
            Value::Mapping(map) => map.values_mut().map(all).sum(),
            Value::Tagged(t) => all(&mut t.value),
            Value::Null | Value::Bool(_) => 0,
        }
    }
    match value {
        Value::Sequence(items) => items.iter_mut().map(redact_secret_keys_yaml).sum(),
        Value::Mapping(map) => map
            .iter_mut()
            .map(|(k, v)| match k {
                Value::String(k) if is_secret_key(k) => all(v),
                _ => redact_secret_keys_yaml(v),
            })
            .sum(),
        Value::Tagged(t) => redact_secret_keys_yaml(&mut t.value),
        _ => 0,
    }
}

/// Redacts every string in a JSON value, object keys included (a frontmatter shown to a person or
/// an agent). With `scrub`, the whole value of a key that names a credential ([`is_secret_key`],
/// at any depth: `db: { password: … }`, `creds: [{ token: … }]`) is replaced too, since a bare
/// `hunter2` has no shape the scrubber could recognise. Returns whether anything changed.
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
                if scrub && is_secret_key(&k) {
                    changed |= redact_keyed(&mut v);
                }
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
