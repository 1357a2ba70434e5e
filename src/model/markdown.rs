//! The one Markdown scanner memlane has: what is code (fenced blocks, inline code spans) and
//! where the ATX headings are. The link parser ([`crate::model::links`]) and the chunker
//! ([`crate::index::chunk`]) both read a body through it, so they always agree on what is code:
//! a `[[link]]` the parser ignores as code is never a heading the chunker splits at, and the
//! other way round.
//!
//! # Rules
//!
//! - A fenced code block opens at a line of three or more backticks or tildes, at any indent and
//!   inside `>` quotes (list continuations look like indented code, so indent never makes a
//!   fence), and closes at a line of at least as many of the same character with nothing after
//!   them. A backtick fence's info string cannot contain a backtick: ```` ```x``` ```` is inline
//!   code, not a fence. An unclosed fence runs to the end of the text.
//! - An inline code span (CommonMark): a run of n backticks, not escaped, opens a span that
//!   closes at the next run of exactly n backticks before the paragraph ends; an unmatched run is
//!   plain text.
//! - An ATX heading is a line outside fenced code, indented at most three spaces, of one to six
//!   `#` followed by a space, a tab or the end of the line; an optional closing sequence of `#`
//!   is not part of its text.
//!
//! Offsets are byte offsets into the text; every range starts and ends on an ASCII byte.

use std::collections::HashMap;

/// Fenced code blocks as byte ranges of whole lines: from the start of the opening line to the
/// end of the closing line (or of the text, for an unclosed fence).
pub fn fenced_blocks(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut open: Option<(u8, usize, usize)> = None;
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let line_start = pos;
        pos += line.len();
        let rest = strip_block_prefix(line);
        match open {
            None => {
                if let Some((c, n)) = fence_open(rest) {
                    open = Some((c, n, line_start));
                }
            }
            Some((c, n, start)) => {
                if fence_closes(rest, c, n) {
                    out.push((start, pos));
                    open = None;
                }
            }
        }
    }
    if let Some((_, _, start)) = open {
        out.push((start, text.len()));
    }
    out
}

/// The line with leading whitespace and blockquote markers removed.
pub(crate) fn strip_block_prefix(line: &str) -> &str {
    line.trim_start_matches([' ', '\t', '>'])
}

fn run_len(b: &[u8], i: usize, c: u8) -> usize {
    b[i..].iter().take_while(|&&x| x == c).count()
}

/// An opening fence: (fence char, run length).
fn fence_open(rest: &str) -> Option<(u8, usize)> {
    let b = rest.as_bytes();
    let c = *b.first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = run_len(b, 0, c);
    // A backtick fence's info string cannot contain backticks (```` ```x``` ```` is inline code).
    (n >= 3 && !(c == b'`' && rest[n..].contains('`'))).then_some((c, n))
}

fn fence_closes(rest: &str, c: u8, n: usize) -> bool {
    let m = run_len(rest.as_bytes(), 0, c);
    m >= n && rest[m..].trim().is_empty()
}

/// Whether the line starting at `k` is blank (or the text ends).
fn line_blank_at(b: &[u8], mut k: usize) -> bool {
    while k < b.len() {
        match b[k] {
            b' ' | b'\t' | b'\r' => k += 1,
            b'\n' => return true,
            _ => return false,
        }
    }
    true
}

/// Inline code spans as (start of the opening run, end of the closing run, run length). Pass
/// the text with fenced blocks blanked out (their backticks would otherwise pair with prose).
/// Runs are indexed by length, so each opener finds its closer by a binary search.
pub fn code_spans(text: &str) -> Vec<(usize, usize, usize)> {
    let b = text.as_bytes();
    // Maximal backtick runs, and the newlines that end a paragraph (followed by a blank line).
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut paragraph_ends: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'`' => {
                let n = run_len(b, i, b'`');
                runs.push((i, n));
                i += n;
            }
            b'\n' => {
                if line_blank_at(b, i + 1) {
                    paragraph_ends.push(i);
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    let mut by_len: HashMap<usize, Vec<usize>> = HashMap::new();
    for &(start, n) in &runs {
        by_len.entry(n).or_default().push(start);
    }
    let mut out = Vec::new();
    let mut pos = 0;
    for &(start, n) in &runs {
        if start < pos {
            continue;
        }
        // An escaped first backtick is text; the rest of the run may still open a span.
        let (open, n) = if escaped(b, start) { (start + 1, n - 1) } else { (start, n) };
        if n == 0 {
            continue;
        }
        let paragraph_end = paragraph_ends
            .get(paragraph_ends.partition_point(|&e| e < open))
            .copied()
            .unwrap_or(b.len());
        let closer = by_len.get(&n).and_then(|starts| {
            starts.get(starts.partition_point(|&s| s <= open)).filter(|&&s| s < paragraph_end)
        });
        match closer {
            Some(&close) => {
                out.push((open, close + n, n));
                pos = close + n;
            }
            None => pos = open + n,
        }
    }
    out
}

/// Whether `b[i]` is escaped by an odd number of backslashes.
pub fn escaped(b: &[u8], i: usize) -> bool {
    b[..i].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 1
}

/// An ATX heading of a Markdown body (outside fenced code).
#[derive(Debug)]
pub struct Heading {
    /// Byte offset of the heading line.
    pub start: usize,
    /// Byte offset just past the heading line (including its newline).
    pub line_end: usize,
    /// 1 for `#` … 6 for `######`.
    pub level: usize,
    /// The heading's text, without the `#`s and a closing sequence.
    pub text: String,
}

/// The ATX headings of `body`, in order, skipping fenced code blocks.
pub fn headings(body: &str) -> Vec<Heading> {
    let fences = fenced_blocks(body);
    let mut fence = fences.iter().peekable();
    let mut headings = Vec::new();
    let mut offset = 0;
    for line in body.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        while fence.next_if(|&&(_, end)| end <= start).is_some() {}
        if fence.peek().is_some_and(|&&(s, _)| s <= start) {
            continue;
        }
        let content = line.trim_end_matches(['\n', '\r']);
        let indent = content.len() - content.trim_start_matches(' ').len();
        if indent > 3 {
            continue;
        }
        if let Some((level, text)) = parse_atx(&content[indent..]) {
            headings.push(Heading { start, line_end: offset, level, text });
        }
    }
    headings
}

/// `(level, text)` when `line` (indent removed) is an ATX heading.
fn parse_atx(line: &str) -> Option<(usize, String)> {
    let level = line.len() - line.trim_start_matches('#').len();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &line[level..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let mut text = rest.trim();
    // Optional closing sequence: `## Title ##`.
    let without_hashes = text.trim_end_matches('#');
    if without_hashes.is_empty() {
        text = "";
    } else if without_hashes.len() < text.len() && without_hashes.ends_with([' ', '\t']) {
        text = without_hashes.trim_end();
    }
    Some((level, text.to_string()))
}
