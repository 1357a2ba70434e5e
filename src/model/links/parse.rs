//! Finding the wikilinks of a body ([`extract_links`]) and the context around each.

use super::code::{FILL, Masked, blank, scan_links};
use super::edge::{DEFAULT_CONFIDENCE, EdgeType, KEYWORD_CONFIDENCE, Link, LinkOrigin, LinkTarget};
use super::keywords::{GHOST_KEYWORDS, GHOST_TYPES, REL_KEYWORDS, REL_TYPES, nearest};
use super::sentence::{sentence_of, sentence_starts};
use super::target::{non_empty, resolve_target, split_raw};

pub(super) const CONTEXT_SIDE: usize = 50;
pub(super) const WORD_SNAP: usize = 20;

/// The link with about [`CONTEXT_SIDE`] characters either side, whitespace collapsed, `…` at cuts.
pub(super) fn anchor_context(src: &str, start: usize, end: usize) -> String {
    let before = &src[..start];
    let mut left = before.char_indices().rev().take(CONTEXT_SIDE).last().map_or(start, |(i, _)| i);
    let left_cut = !before[..left].trim_end().is_empty();
    // Cut mid-word: move to the next space when one is near.
    if left_cut
        && !before[..left].ends_with(char::is_whitespace)
        && let Some(k) = before[left..].find(char::is_whitespace).filter(|&k| k <= WORD_SNAP)
    {
        left += k;
    }
    let after = &src[end..];
    let mut right = after.char_indices().nth(CONTEXT_SIDE).map_or(after.len(), |(i, _)| i);
    let right_cut = !after[right..].trim_start().is_empty();
    if right_cut
        && !after[right..].starts_with(char::is_whitespace)
        && let Some(k) =
            after[..right].rfind(char::is_whitespace).filter(|&k| right - k <= WORD_SNAP)
    {
        right = k;
    }
    let text = src[left..end + right].split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = String::with_capacity(text.len() + 6);
    if left_cut {
        out.push('…');
    }
    out.push_str(&text);
    if right_cut {
        out.push('…');
    }
    out
}

/// A body prepared for link and entity reading.
pub(super) struct Prepared {
    pub(super) masked: Masked,
    /// Link spans.
    pub(super) spans: Vec<(usize, usize)>,
    /// `code_free` with link texts blanked too: what sentences and keywords are read from.
    pub(super) analysis: String,
    pub(super) starts: Vec<usize>,
}

impl Prepared {
    pub(super) fn new(body: &str) -> Prepared {
        let masked = Masked::new(body);
        let spans = scan_links(&masked.code_free);
        let analysis = blank(&masked.code_free, spans.iter().copied(), FILL);
        let starts = sentence_starts(&analysis);
        Prepared { masked, spans, analysis, starts }
    }
}

/// The wikilinks of a Markdown body, in order, typed from their sentences (see the module docs).
/// `is_memory(name)` says whether a memory of that name (no `.md`) exists.
///
/// Every `[[…]]` outside code gives one [`Link`] with origin [`LinkOrigin::Keyword`], so several
/// links to one target give several links.
pub fn extract_links(body: &str, is_memory: &dyn Fn(&str) -> bool) -> Vec<Link> {
    let prep = Prepared::new(body);
    if prep.spans.is_empty() {
        return Vec::new();
    }
    let rel = REL_KEYWORDS.matches(&prep.analysis);
    let ghost = GHOST_KEYWORDS.matches(&prep.analysis);
    let len = prep.analysis.len();
    prep.spans
        .iter()
        .filter_map(|&(s, e)| {
            let raw = &body[s + 2..e - 2];
            let parts = split_raw(raw);
            let target = resolve_target(&raw[parts.target.clone()], is_memory)?;
            let sentence = sentence_of(&prep.starts, len, s);
            let typed = match nearest(&rel, s, e, sentence) {
                Some(k) => Some(REL_TYPES[k].clone()),
                None if matches!(target, LinkTarget::Ghost(_)) => {
                    nearest(&ghost, s, e, sentence).map(|k| GHOST_TYPES[k].clone())
                }
                None => None,
            };
            let (edge_type, confidence) = match typed {
                Some(t) => (t, KEYWORD_CONFIDENCE),
                None => match target {
                    LinkTarget::Memory(_) => (EdgeType::RelatedTo, DEFAULT_CONFIDENCE),
                    LinkTarget::Ghost(_) => (EdgeType::Mentions, DEFAULT_CONFIDENCE),
                },
            };
            Some(Link {
                target,
                raw: raw.to_owned(),
                alias: parts.alias.and_then(|r| non_empty(&raw[r])),
                heading: parts.heading.and_then(|r| non_empty(&raw[r])),
                edge_type,
                context: anchor_context(&prep.masked.prose, s, e),
                confidence,
                origin: LinkOrigin::Keyword,
                start: s,
                end: e,
            })
        })
        .collect()
}
