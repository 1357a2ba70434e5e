//! Memory names (`auth/jwt-plan`) and ids (11-char base62).
//!
//! A name is the memory's path relative to `.memories/`, `/`-separated, without `.md`. Names are
//! validated before anything touches the disk, so a bad name can never write outside the vault,
//! into a reserved folder, or produce a file that other platforms cannot check out.

use std::fmt;

/// Folders inside `.memories/` that hold no memories.
pub const RESERVED_DIRS: &[&str] = &[".trash", ".history", "indices", "state"];

/// Why a name was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// The name is empty.
    #[error("the name is empty")]
    Empty,
    /// The name is an absolute path.
    #[error("`{0}` is an absolute path; names are relative to the vault, like `auth/jwt-plan`")]
    Absolute(String),
    /// The name walks out of its folder.
    #[error("`{0}` contains `..` or `.`; names cannot leave or re-enter folders")]
    DotSegment(String),
    /// A component starts with a dot.
    #[error("`{0}` has a part starting with `.`; hidden files are reserved for memlane")]
    LeadingDot(String),
    /// The name points into a reserved folder.
    #[error("`{name}` is inside the reserved folder `{dir}/`")]
    Reserved {
        /// The refused name.
        name: String,
        /// The reserved folder.
        dir: String,
    },
    /// The name holds a character that is not portable.
    #[error("`{name}` contains {what}; use letters, digits, `-`, `_`, `.`, spaces and `/`")]
    BadChar {
        /// The refused name (control characters escaped).
        name: String,
        /// A description of the character.
        what: String,
    },
    /// The name has an empty component (`a//b`, trailing `/`).
    #[error("`{0}` has an empty folder or file part")]
    EmptyComponent(String),
    /// A component is too long for common file systems.
    #[error("`{0}` has a part longer than 200 bytes")]
    TooLong(String),
}

/// A validated memory name: vault-relative, `/`-separated, no `.md` suffix.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct MemoryName(String);

impl MemoryName {
    /// Parses what a user typed: `name`, `name.md`, `memory:name`; validates it.
    pub fn parse(input: &str) -> Result<MemoryName, NameError> {
        let s = input.strip_prefix("memory:").unwrap_or(input);
        let s = s.strip_suffix(".md").unwrap_or(s);
        validate(input, s)?;
        Ok(MemoryName(s.to_owned()))
    }

    /// The memory a file in the vault holds, from the file's path relative to the vault root
    /// (`auth/jwt-plan.md`, `/` between folders): the path without its `.md`, validated. Unlike
    /// [`parse`](Self::parse), which reads what a user typed, nothing else is taken off, so a
    /// file named `memory:x.md` is not the memory `x` (it is no memory at all: `:` is refused).
    /// The path's own allocation becomes the name's.
    pub fn from_file_path(mut rel: String) -> Result<MemoryName, NameError> {
        let stem = rel.strip_suffix(".md").map_or(rel.len(), str::len);
        validate(&rel, &rel[..stem])?;
        rel.truncate(stem);
        Ok(MemoryName(rel))
    }

    /// The name as a string.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The file path relative to the vault root (`auth/jwt-plan.md`).
    pub fn rel_path(&self) -> String {
        format!("{}.md", self.0)
    }

    /// The last component (`jwt-plan` for `auth/jwt-plan`).
    pub fn file_stem(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or(&self.0)
    }
}

impl fmt::Display for MemoryName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn escape(s: &str) -> String {
    s.chars().flat_map(char::escape_debug).collect()
}

/// Checks a name; the error quotes it redacted, so a refused name never echoes a secret (names
/// are checked on every scan, so redaction runs only for the error).
fn validate(original: &str, s: &str) -> Result<(), NameError> {
    check(original, s).map_err(|e| {
        let shown = |n: String| crate::privacy::sanitize(&n, true).text;
        match e {
            NameError::Absolute(n) => NameError::Absolute(shown(n)),
            NameError::DotSegment(n) => NameError::DotSegment(shown(n)),
            NameError::LeadingDot(n) => NameError::LeadingDot(shown(n)),
            NameError::Reserved { name, dir } => NameError::Reserved { name: shown(name), dir },
            NameError::BadChar { name, what } => NameError::BadChar { name: shown(name), what },
            NameError::EmptyComponent(n) => NameError::EmptyComponent(shown(n)),
            NameError::TooLong(n) => NameError::TooLong(shown(n)),
            NameError::Empty => NameError::Empty,
        }
    })
}

fn check(original: &str, s: &str) -> Result<(), NameError> {
    if s.is_empty() {
        return Err(NameError::Empty);
    }
    for c in s.chars() {
        let what = match c {
            '\0' => Some("a NUL byte".to_owned()),
            c if c.is_control() => Some(format!("the control character {c:?}")),
            '\\' => Some("`\\` (use `/` between folders)".to_owned()),
            '<' | '>' | ':' | '"' | '|' | '?' | '*' => Some(format!("`{c}`")),
            _ => None,
        };
        if let Some(what) = what {
            return Err(NameError::BadChar { name: escape(original), what });
        }
    }
    if s.starts_with('/') || (s.len() > 1 && s.as_bytes()[1] == b':') {
        return Err(NameError::Absolute(original.to_owned()));
    }
    for part in s.split('/') {
        if part.is_empty() {
            return Err(NameError::EmptyComponent(original.to_owned()));
        }
        if part == "." || part == ".." {
            return Err(NameError::DotSegment(original.to_owned()));
        }
        if part.starts_with('.') {
            return Err(NameError::LeadingDot(original.to_owned()));
        }
        if part.trim() != part {
            return Err(NameError::BadChar {
                name: escape(original),
                what: "a space at the start or end of a part".to_owned(),
            });
        }
        if part.len() > 200 {
            return Err(NameError::TooLong(original.to_owned()));
        }
    }
    if let Some((first, _)) = s.split_once('/')
        && RESERVED_DIRS.contains(&first)
    {
        return Err(NameError::Reserved { name: original.to_owned(), dir: first.to_owned() });
    }
    Ok(())
}

/// `s` in Unicode NFC (composed: `é` as one character).
pub fn nfc(s: &str) -> String {
    use unicode_normalization_alignments::UnicodeNormalization as _;
    // This fork also yields each char's alignment change; only the chars matter here.
    s.nfc().map(|(c, _)| c).collect()
}

/// `s` as macOS and Windows file systems compare names: Unicode NFC, then lower case (then NFC
/// again, as lower-casing can decompose). Two names with the same fold are one file there.
pub fn fold_name(s: &str) -> String {
    let lower: String = nfc(s).chars().flat_map(char::to_lowercase).collect();
    nfc(&lower)
}

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// An 11-character base62 memory id, stable across renames.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct MemoryId(String);

impl MemoryId {
    /// A new random id.
    pub fn random() -> MemoryId {
        let mut bytes = [0u8; 16];
        // getrandom only fails when the OS has no entropy source at all; fall back to a
        // time-and-address hash so creating a memory never fails for that reason.
        if getrandom::fill(&mut bytes).is_err() {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default();
            let seed = format!("{t}:{:p}", &bytes);
            bytes = xxhash_rust::xxh3::xxh3_128(seed.as_bytes()).to_le_bytes();
        }
        // An id YAML could read as a number (`0x…`, `0o…`, `0b…`: about 1 in 640) would be
        // written quoted; drawn again (from a hash of the draw), every id is written plain, so
        // a file's bytes do not depend on the luck of its id.
        let mut n = u128::from_le_bytes(bytes);
        loop {
            let id = MemoryId::from_u128(n);
            if crate::model::frontmatter::yaml_scalar(id.as_str()) == id.as_str() {
                return id;
            }
            n = xxhash_rust::xxh3::xxh3_128(&n.to_le_bytes());
        }
    }

    /// The id a hand-written file without one gets: derived from its name, deterministic.
    pub fn derived(name: &MemoryName) -> MemoryId {
        MemoryId::from_u128(xxhash_rust::xxh3::xxh3_128(name.as_str().as_bytes()))
    }

    fn from_u128(mut n: u128) -> MemoryId {
        let mut s = String::with_capacity(11);
        for _ in 0..11 {
            s.push(BASE62[(n % 62) as usize] as char);
            n /= 62;
        }
        MemoryId(s)
    }

    /// Parses an id: exactly 11 base62 characters.
    pub fn parse(s: &str) -> Option<MemoryId> {
        (s.len() == 11 && s.bytes().all(|b| b.is_ascii_alphanumeric()))
            .then(|| MemoryId(s.to_owned()))
    }

    /// The id as a string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for MemoryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Levenshtein edit distance between two strings (by chars), for "did you mean" hints.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Up to three known names close to `wanted`: by edit distance, by file stem, or by substring.
pub fn suggest<'a>(wanted: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let wanted = wanted.strip_prefix("memory:").unwrap_or(wanted);
    let wanted = wanted.strip_suffix(".md").unwrap_or(wanted).to_lowercase();
    let mut scored: Vec<(usize, &str)> = known
        .into_iter()
        .filter_map(|k| {
            let lk = k.to_lowercase();
            let stem = lk.rsplit('/').next().unwrap_or(&lk);
            let d = edit_distance(&wanted, &lk).min(edit_distance(&wanted, stem));
            let limit = (wanted.chars().count() / 3).max(2);
            if d <= limit {
                Some((d, k))
            } else if wanted.len() >= 3 && lk.contains(&wanted) {
                Some((limit, k))
            } else {
                None
            }
        })
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, k)| k.to_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_id_is_always_written_plain() {
        // About 1 in 640 raw draws starts with `0x`, `0o` or `0b`; 20k draws meet some.
        for _ in 0..20_000 {
            let id = MemoryId::random();
            assert_eq!(crate::model::frontmatter::yaml_scalar(id.as_str()), id.as_str());
            assert_eq!(id.as_str().len(), 11);
            assert_eq!(MemoryId::parse(id.as_str()).as_ref(), Some(&id));
        }
    }

    #[test]
    fn names_table() {
        // (input, Ok(name) or Err(substring of the message))
        let cases: &[(&str, Result<&str, &str>)] = &[
            ("auth", Ok("auth")),
            ("auth.md", Ok("auth")),
            ("memory:auth", Ok("auth")),
            ("memory:auth/jwt-plan.md", Ok("auth/jwt-plan")),
            ("notes/2026 review", Ok("notes/2026 review")),
            ("v1.2-notes", Ok("v1.2-notes")),
            ("ünïcode/名前", Ok("ünïcode/名前")),
            ("indices", Ok("indices")),
            ("", Err("empty")),
            ("memory:", Err("empty")),
            ("/etc/x", Err("absolute")),
            ("C:/x", Err("`:`")),
            ("../x", Err("`..`")),
            ("a/../b", Err("`..`")),
            ("./x", Err("`..` or `.`")),
            (".hidden", Err("starting with `.`")),
            (".trash/x", Err("starting with `.`")),
            (".history/x", Err("starting with `.`")),
            ("indices/x", Err("reserved folder `indices/`")),
            ("state/x", Err("reserved folder `state/`")),
            ("a\0b", Err("NUL")),
            ("a\nb", Err("control character")),
            ("a\tb", Err("control character")),
            ("a\\b", Err("`\\`")),
            ("a//b", Err("empty folder")),
            ("a/", Err("empty folder")),
            ("a/ b", Err("space at the start")),
            ("what?", Err("`?`")),
            ("a*b", Err("`*`")),
        ];
        assert_table(cases, MemoryName::parse);
        let long = "x".repeat(201);
        assert!(matches!(MemoryName::parse(&long), Err(NameError::TooLong(_))));
    }

    /// A file's path names one memory, with only its `.md` taken off: what a user may type
    /// before a name (`memory:`) is part of a file's name, and refused there.
    #[test]
    fn a_file_path_is_its_memory_name_without_md() {
        let cases: &[(&str, Result<&str, &str>)] = &[
            ("auth.md", Ok("auth")),
            ("auth/jwt-plan.md", Ok("auth/jwt-plan")),
            ("notes.md.md", Ok("notes.md")),
            ("ünïcode/名前.md", Ok("ünïcode/名前")),
            ("memory:auth.md", Err("`:`")),
            ("a/memory:auth.md", Err("`:`")),
            ("indices/x.md", Err("reserved folder `indices/`")),
            (".md", Err("empty")),
            ("a\u{1}b.md", Err("control character")),
        ];
        assert_table(cases, |path| {
            let got = MemoryName::from_file_path(path.to_owned());
            // A name read from a path is the one a user reaches it by.
            if let Ok(n) = &got {
                assert_eq!(MemoryName::parse(&n.rel_path()).unwrap().as_str(), n.as_str());
            }
            got
        });
    }

    /// Each input of `cases` parsed by `parse`: `Ok(name)`, or `Err(part of the message)`.
    #[track_caller]
    fn assert_table(
        cases: &[(&str, Result<&str, &str>)],
        parse: impl Fn(&str) -> Result<MemoryName, NameError>,
    ) {
        for (input, want) in cases {
            let got = parse(input);
            match (want, &got) {
                (Ok(w), Ok(n)) => assert_eq!(n.as_str(), *w, "input {input:?}"),
                (Err(w), Err(e)) => {
                    let msg = e.to_string();
                    assert!(msg.contains(w), "input {input:?}: message {msg:?} lacks {w:?}");
                }
                _ => panic!("input {input:?}: expected {want:?}, got {got:?}"),
            }
        }
    }

    #[test]
    fn ids_are_base62_and_stable_when_derived() {
        let a = MemoryId::random();
        let b = MemoryId::random();
        assert_ne!(a, b);
        for id in [&a, &b] {
            assert_eq!(id.as_str().len(), 11);
            assert!(id.as_str().bytes().all(|c| c.is_ascii_alphanumeric()));
            assert_eq!(MemoryId::parse(id.as_str()).as_ref(), Some(id));
        }
        let n = MemoryName::parse("auth/jwt").unwrap();
        assert_eq!(MemoryId::derived(&n), MemoryId::derived(&n));
        assert_ne!(
            MemoryId::derived(&n),
            MemoryId::derived(&MemoryName::parse("auth/jw").unwrap())
        );
        assert_eq!(MemoryId::parse("short"), None);
        assert_eq!(MemoryId::parse("has-dash-12"), None);
    }

    #[test]
    fn fold_name_joins_what_macos_and_windows_join() {
        // See: #14 — `Note`/`note` and NFC/NFD `Café` are one file on those systems.
        assert_eq!(fold_name("Note"), fold_name("note"));
        assert_eq!(fold_name("Caf\u{e9}"), fold_name("Cafe\u{301}"));
        assert_eq!(fold_name("CAFE\u{301}/Plan"), fold_name("caf\u{e9}/plan"));
        assert_eq!(nfc("Cafe\u{301}"), "Caf\u{e9}");
        assert_ne!(fold_name("note"), fold_name("notes"));
        assert_ne!(fold_name("cafe"), fold_name("caf\u{e9}"));
    }

    #[test]
    fn suggestions_find_close_names() {
        let known = ["auth/jwt-plan", "deploy-notes", "database-choice"];
        assert_eq!(suggest("auth/jwt-plna", known), vec!["auth/jwt-plan"]);
        assert_eq!(suggest("jwt-plan", known), vec!["auth/jwt-plan"]);
        assert_eq!(suggest("deploy", known), vec!["deploy-notes"]);
        assert!(suggest("zzzzzz", known).is_empty());
    }
}
