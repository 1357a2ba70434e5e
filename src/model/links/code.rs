//! Blanking out code (fenced blocks and inline spans, as [`crate::model::markdown`] finds them)
//! so links and sentences are found in prose only, and finding the `[[…]]` spans left.

use crate::model::markdown::{code_spans, escaped, fenced_blocks};

/// The body with code blanked out, byte offsets unchanged.
pub(super) struct Masked {
    /// Fenced code blocks blanked to spaces (newlines kept): the source of link contexts.
    pub(super) prose: String,
    /// Also inline code spans blanked to `\x01` (newlines kept): where links are found.
    pub(super) code_free: String,
    /// Inline code spans: (start of the opening run, end of the closing run, run length).
    pub(super) inline: Vec<(usize, usize, usize)>,
    /// Fenced code blocks: (start of the opening line, end of the closing line or text).
    pub(super) fences: Vec<(usize, usize)>,
}

/// The filler for inline code and link texts: not whitespace, not a word character, not
/// sentence punctuation.
pub(super) const FILL: u8 = 0x01;

impl Masked {
    pub(super) fn new(body: &str) -> Masked {
        let fences = fenced_blocks(body);
        let prose = blank(body, fences.iter().copied(), b' ');
        let inline = code_spans(&prose);
        let code_free = blank(&prose, inline.iter().map(|&(s, e, _)| (s, e)), FILL);
        Masked { prose, code_free, inline, fences }
    }
}

/// Replaces every byte of the ranges except `\n` with `fill`. The ranges start and end on ASCII
/// bytes, so the result is valid UTF-8 of the same length.
pub(super) fn blank(text: &str, ranges: impl Iterator<Item = (usize, usize)>, fill: u8) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for (s, e) in ranges {
        for b in bytes.get_mut(s..e).unwrap_or_default() {
            if *b != b'\n' {
                *b = fill;
            }
        }
    }
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_owned())
}

/// `[[…]]` spans outside code, as (start of `[[`, end past `]]`), with a non-blank inside.
pub(super) fn scan_links(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < b.len() {
        if !(b[i] == b'[' && b[i + 1] == b'[') || escaped(b, i) {
            i += 1;
            continue;
        }
        // Of `[[[`, the last two brackets open the link.
        while i + 2 < b.len() && b[i + 2] == b'[' {
            i += 1;
        }
        let mut j = i + 2;
        let mut close = None;
        while j < b.len() {
            match b[j] {
                b'\n' => break,
                b'[' if b.get(j + 1) == Some(&b'[') => break,
                b']' if b.get(j + 1) == Some(&b']') => {
                    close = Some(j);
                    break;
                }
                _ => j += 1,
            }
        }
        match close {
            Some(j) => {
                if !text[i + 2..j].trim().is_empty() {
                    out.push((i, j + 2));
                }
                i = j + 2;
            }
            None => i = j.max(i + 1),
        }
    }
    out
}
