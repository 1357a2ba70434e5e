//! Pointing links at a memory's new name after a rename or merge ([`rewrite_memory_links`]).

use super::code::{Masked, scan_links};
use super::target::{memory_name, split_raw, strip_memory_prefix};

/// Rewrites the links that name memory `from` to name `to`: `[[memory:from]]` (with `|alias`
/// and `#heading`), and bare `[[from]]` / `[[from.md]]` / `[[./from]]`, which resolved to the
/// memory while it existed. Links in code are left alone, and so are alias, heading, the
/// `memory:` prefix and a `.md` suffix as written. `from` and `to` may be given as `name`,
/// `name.md` or `memory:name`. `None` when nothing changed.
pub fn rewrite_memory_links(body: &str, from: &str, to: &str) -> Option<String> {
    let canon = |s: &str| memory_name(strip_memory_prefix(s.trim()).unwrap_or(s));
    let (from, to) = (canon(from), canon(to));
    if from.is_empty() || to.is_empty() || from == to {
        return None;
    }
    let masked = Masked::new(body);
    let mut out = String::with_capacity(body.len() + 16);
    let mut last = 0;
    for (s, e) in scan_links(&masked.code_free) {
        let inner = s + 2;
        let raw = &body[inner..e - 2];
        let target = &raw[split_raw(raw).target];
        let lead = target.len() - target.trim_start().len();
        let trimmed = target.trim();
        let (name_at, name_text) = match strip_memory_prefix(trimmed) {
            Some(rest) => {
                let rest_lead = rest.len() - rest.trim_start().len();
                (inner + lead + (trimmed.len() - rest.len()) + rest_lead, rest.trim())
            }
            None => (inner + lead, trimmed),
        };
        if memory_name(name_text) != from {
            continue;
        }
        let suffix = if name_text.ends_with(".md") { ".md" } else { "" };
        out.push_str(&body[last..name_at]);
        out.push_str(&to);
        out.push_str(suffix);
        last = name_at + name_text.len();
    }
    if last == 0 {
        return None;
    }
    out.push_str(&body[last..]);
    (out != body).then_some(out)
}
