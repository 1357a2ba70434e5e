//! `split`: one memory into one memory per section (or the pieces an agent gives).

use super::*;

/// A body cut at its top-level headings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Sections<'a> {
    /// Text before the first section when it holds more than headings.
    pub(super) intro: Option<&'a str>,
    /// `(heading text, section text including its heading line)`.
    pub(super) sections: Vec<(String, &'a str)>,
}

/// Cuts `body` at the first heading level that occurs more than once (a lone `# Title` above
/// `##` sections is not the split level). A section runs to the next heading of that level.
pub(super) fn sections_of(body: &str) -> Sections<'_> {
    let hs = headings(body);
    let Some(level) = (1..=6).find(|l| hs.iter().filter(|h| h.level == *l).count() > 1) else {
        return Sections { intro: None, sections: Vec::new() };
    };
    let tops: Vec<&Heading> = hs.iter().filter(|h| h.level == level).collect();
    let pre = &body[..tops[0].start];
    let pre_has_text = pre.lines().any(|l| {
        let t = l.trim();
        !t.is_empty() && !headings(l).iter().any(|h| h.start == 0)
    });
    let intro = pre_has_text.then(|| pre.trim());
    let sections = tops
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let end = tops.get(i + 1).map_or(body.len(), |n| n.start);
            (h.text.clone(), body[h.start..end].trim())
        })
        .collect();
    Sections { intro, sections }
}

/// A name-safe slug: lowercase letters and digits, other runs become one `-` (at most 60 chars).
pub(super) fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        if out.chars().count() >= 60 {
            break;
        }
    }
    out.trim_end_matches('-').to_owned()
}

/// Splits memory `m` into one new memory per top-level section.
///
/// The body is redacted first (`<private>` blocks and secrets), so no heading that held private
/// text or a secret names a piece. The sections are cut at the first heading level that occurs
/// more than once (usually `##`); headings inside code fences do not count. Each section (heading line included, byte for
/// byte) becomes `<name>/<slug of its heading>`, or `<name>-<n>` (n = the piece's 1-based
/// position) when the slug is empty or another section has it; text before the first section that
/// is more than headings (an introduction) becomes a first piece `<name>/intro`.
///
/// Each piece copies the original's type and tags and records `split_from: <name>` (a plain
/// provenance key, like `consolidated_from`). While the original stays (MIRA's default), each
/// piece also links to it with `links: [{ type: extends, target: memory:<name> }]`, so the graph
/// connects them.
///
/// With `replace`, the original then goes to the trash with `superseded_by: <first piece>`
/// written first (history kept), and every link to it is redirected to the first piece
/// (simple and predictable; the pieces carry no link to the trashed original).
///
/// Refuses with a clear error, writing nothing, when there are fewer than two sections, a
/// piece's name is invalid, or a piece is empty after redaction; and with
/// [`Error::PiecesExist`], naming them, when pieces exist already (a second split of the same
/// memory never creates `<name>-<n>` copies of them). If a write fails
/// midway, the pieces already written are removed again.
///
/// Returns the created pieces in order, then (with `replace`) the original's trash outcome and
/// the relinked memories.
pub fn split(vault: &Vault, m: &Memory, replace: bool) -> crate::Result<Vec<WriteOutcome>> {
    check_current(vault, m, "splitting")?;
    // The pieces are cut from the redacted body: a heading becomes a file name, which no
    // redaction reaches (`# Key AKIA… usage` must not name a file), and a cut through a
    // `<private>` block would leave each half unbalanced and kept literally.
    let scrub = vault.config.privacy.scrub_secrets;
    let clean = sanitize(m.content(), scrub);
    let body = clean.text.as_str();
    let parts = sections_of(body);
    if parts.sections.len() < 2 {
        return Err(Error::TooFewSections {
            name: m.name.to_string(),
            sections: parts.sections.len(),
        });
    }
    let mut pieces: Vec<(String, &str)> = Vec::new();
    if let Some(intro) = parts.intro {
        pieces.push(("intro".to_owned(), intro));
    }
    for (heading, text) in &parts.sections {
        // Markers are not words of the heading: `# [redacted] plan` gives `plan`.
        pieces.push((slug(&strip_markers(heading)), text));
    }

    // Plan every name before writing anything.
    let taken = |n: &MemoryName| {
        let p = vault.path_of(n);
        p.exists() || std::fs::symlink_metadata(&p).is_ok()
    };
    // A piece's name that exists already means the memory was split before (or the name is
    // someone else's): refuse, naming every such piece, rather than invent `<name>-<n>` copies.
    let mut planned: Vec<(MemoryName, &str)> = Vec::with_capacity(pieces.len());
    let mut existing: Vec<String> = Vec::new();
    for (i, (piece_slug, text)) in pieces.iter().enumerate() {
        let preferred = (!piece_slug.is_empty())
            .then(|| MemoryName::parse(&format!("{}/{piece_slug}", m.name)).ok())
            .flatten()
            .filter(|n| !planned.iter().any(|(p, _)| p == n));
        let name = match preferred {
            Some(n) => n,
            None => {
                let n = MemoryName::parse(&format!("{}-{}", m.name, i + 1))?;
                if planned.iter().any(|(p, _)| *p == n) {
                    return Err(Error::Exists(n.to_string()));
                }
                n
            }
        };
        if taken(&name) {
            existing.push(name.to_string());
        }
        planned.push((name, text));
    }
    if !existing.is_empty() {
        return Err(Error::PiecesExist { name: m.name.to_string(), pieces: existing });
    }
    write_split(vault, m, &planned, replace, clean.had_private_content)
}

/// One piece of [`split_into`]: the text, and the name it should get (generated when `None`).
#[derive(Debug, Clone)]
pub struct SplitPiece {
    /// The piece's name; `<original>-<n>` when `None`.
    pub name: Option<MemoryName>,
    /// The piece's Markdown body.
    pub content: String,
}

/// Splits memory `m` into the pieces an agent supplies (MCP `split_memory` with `pieces`), with
/// the same provenance, links, `replace` and all-or-nothing rules as [`split`]. A piece without a
/// name becomes `<name>-<n>` (its 1-based position). Refuses with fewer than two pieces or a
/// taken, duplicate or invalid name.
pub fn split_into(
    vault: &Vault,
    m: &Memory,
    pieces: &[SplitPiece],
    replace: bool,
) -> crate::Result<Vec<WriteOutcome>> {
    check_current(vault, m, "splitting")?;
    if pieces.len() < 2 {
        return Err(Error::TooFewPieces { name: m.name.to_string(), given: pieces.len() });
    }
    let mut planned: Vec<(MemoryName, &str)> = Vec::with_capacity(pieces.len());
    let mut existing: Vec<String> = Vec::new();
    for (i, p) in pieces.iter().enumerate() {
        let name = match &p.name {
            Some(n) => n.clone(),
            None => MemoryName::parse(&format!("{}-{}", m.name, i + 1))?,
        };
        if name == m.name || planned.iter().any(|(q, _)| *q == name) {
            return Err(Error::Exists(name.to_string()));
        }
        let p_path = vault.path_of(&name);
        if p_path.exists() || std::fs::symlink_metadata(&p_path).is_ok() {
            existing.push(name.to_string());
        }
        planned.push((name, p.content.as_str()));
    }
    if !existing.is_empty() {
        return Err(Error::PiecesExist { name: m.name.to_string(), pieces: existing });
    }
    write_split(vault, m, &planned, replace, false)
}

/// Writes planned split pieces (all or nothing), then retires the original with `replace`.
fn write_split(
    vault: &Vault,
    m: &Memory,
    planned: &[(MemoryName, &str)],
    replace: bool,
    redacted: bool,
) -> crate::Result<Vec<WriteOutcome>> {
    for (name, text) in planned {
        // A piece cut from a redacted body holds markers where its private text was: only
        // markers is empty, as it would be if redaction ran on the piece itself.
        let only_markers = redacted && strip_markers(text).trim().is_empty();
        if only_markers || sanitize(text, vault.config.privacy.scrub_secrets).is_empty() {
            return Err(Error::EmptyPiece { name: m.name.to_string(), piece: name.to_string() });
        }
    }
    vault.check_type(&m.memory_type)?;

    let mut fields: Vec<(&str, Value)> = vec![
        ("type", str_value(&m.memory_type)),
        ("tags", list_value(&m.meta.tags)),
        ("split_from", str_value(m.name.as_str())),
    ];
    // Cut from a body redaction changed: each piece says so, as a write that redacted would.
    if redacted {
        fields.push(("had_private_content", Value::Bool(true)));
    }
    if !replace {
        let mut link = serde_yaml_ng::Mapping::new();
        link.insert(str_value("type"), str_value("extends"));
        link.insert(str_value("target"), str_value(&format!("memory:{}", m.name)));
        fields.push(("links", Value::Sequence(vec![Value::Mapping(link)])));
    }
    vault.all_or_nothing("split", || split_writes(vault, m, planned, replace, &fields))
}

fn split_writes(
    vault: &Vault,
    m: &Memory,
    planned: &[(MemoryName, &str)],
    replace: bool,
    fields: &[(&str, Value)],
) -> crate::Result<Vec<WriteOutcome>> {
    let mut outcomes: Vec<WriteOutcome> = Vec::with_capacity(planned.len() + 1);
    for (name, text) in planned {
        let written = vault.create_with_frontmatter(name, text, fields).and_then(|out| {
            if out.status == WriteStatus::Created {
                Ok(out)
            } else {
                Err(Error::NotWritten {
                    name: name.to_string(),
                    reason: out.reason.as_deref().unwrap_or("skipped").to_owned(),
                    piece: true,
                })
            }
        });
        match written {
            Ok(out) => outcomes.push(out),
            Err(e) => {
                remove_created(vault, &outcomes);
                return Err(e);
            }
        }
    }

    if replace {
        let first = &planned[0].0;
        vault.set_fields(m, &[("superseded_by", Some(str_value(first.as_str())))], "split")?;
        outcomes.push(vault.delete(m)?);
        outcomes.extend(
            vault
                .rewrite_links(&m.name, first)?
                .into_iter()
                .filter(|o| o.status == WriteStatus::Updated),
        );
    }
    Ok(outcomes)
}

/// Removes files this module just created (rollback of a failed split), and the folders that
/// only they filled.
fn remove_created(vault: &Vault, created: &[WriteOutcome]) {
    for out in created {
        let Some(path) = &out.path else { continue };
        let _ = vault.fs().remove_file(path);
        let mut dir = path.parent();
        while let Some(d) = dir {
            if d == vault.root()
                || !d.starts_with(vault.root())
                || vault.fs().remove_dir(d).is_err()
            {
                break;
            }
            dir = d.parent();
        }
    }
}
