//! Link targets: normalising `[[target]]` text and deciding memory or ghost node.

use super::edge::LinkTarget;

/// Normalises a link target so spellings of one path meet: trims whitespace, turns `\` into `/`,
/// drops `.` segments (so leading `./`, repeatedly, and inner `/./`), collapses duplicate
/// slashes and drops a trailing one. A leading `/`, `..`, case and a trailing `.md` are kept as
/// written.
///
/// `./src//auth.py`, `.\src\auth.py` and `src/auth.py` all become `src/auth.py`.
pub fn normalize_target(raw: &str) -> String {
    let s = raw.trim().replace('\\', "/");
    let absolute = s.starts_with('/');
    let segments: Vec<&str> = s.split('/').filter(|seg| !seg.is_empty() && *seg != ".").collect();
    let joined = segments.join("/");
    if absolute { format!("/{joined}") } else { joined }
}

/// Strips a case-insensitive `memory:` prefix.
pub(super) fn strip_memory_prefix(s: &str) -> Option<&str> {
    const PREFIX: &str = "memory:";
    s.get(..PREFIX.len()).filter(|p| p.eq_ignore_ascii_case(PREFIX)).map(|_| &s[PREFIX.len()..])
}

/// A memory name as written in a link: normalised, `.md` stripped.
pub(super) fn memory_name(s: &str) -> String {
    let n = normalize_target(s);
    match n.strip_suffix(".md") {
        Some(stem) => stem.to_owned(),
        None => n,
    }
}

/// Resolves a link target (the part before `#` and `|`): `memory:name` is a memory; otherwise a
/// memory when `is_memory` knows the normalised target without `.md`, else a ghost. `None` when
/// the target is empty.
pub fn resolve_target(target: &str, is_memory: &dyn Fn(&str) -> bool) -> Option<LinkTarget> {
    if let Some(rest) = strip_memory_prefix(target.trim()) {
        let name = memory_name(rest);
        return (!name.is_empty() && name != "/").then_some(LinkTarget::Memory(name));
    }
    let candidate = normalize_target(target);
    if candidate.is_empty() {
        return None;
    }
    let stem = candidate.strip_suffix(".md").unwrap_or(&candidate);
    if !stem.is_empty() && is_memory(stem) {
        return Some(LinkTarget::Memory(stem.to_owned()));
    }
    Some(LinkTarget::Ghost(candidate))
}

/// Where the parts of a link's inner text are.
pub(super) struct Parts {
    pub(super) target: std::ops::Range<usize>,
    pub(super) heading: Option<std::ops::Range<usize>>,
    pub(super) alias: Option<std::ops::Range<usize>>,
}

/// Splits `target#heading|alias` (also `target\|alias`).
pub(super) fn split_raw(raw: &str) -> Parts {
    let (before_alias, alias) = match raw.find('|') {
        Some(p) => {
            let end = if p > 0 && raw.as_bytes()[p - 1] == b'\\' { p - 1 } else { p };
            (0..end, Some(p + 1..raw.len()))
        }
        None => (0..raw.len(), None),
    };
    match raw[before_alias.clone()].find('#') {
        Some(h) => Parts { target: 0..h, heading: Some(h + 1..before_alias.end), alias },
        None => Parts { target: before_alias, heading: None, alias },
    }
}

pub(super) fn non_empty(s: &str) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_owned())
}
