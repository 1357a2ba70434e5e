//! Blanking out code (fenced blocks and inline spans) so links and sentences are found in prose only.

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
        let fences = fenced_regions(body);
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

/// The line with leading whitespace and blockquote markers removed.
pub(super) fn strip_block_prefix(line: &str) -> &str {
    line.trim_start_matches([' ', '\t', '>'])
}

pub(super) fn run_len(b: &[u8], i: usize, c: u8) -> usize {
    b[i..].iter().take_while(|&&x| x == c).count()
}

/// An opening fence: (fence char, run length).
pub(super) fn fence_open(rest: &str) -> Option<(u8, usize)> {
    let b = rest.as_bytes();
    let c = *b.first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = run_len(b, 0, c);
    // A backtick fence's info string cannot contain backticks (```` ```x``` ```` is inline code).
    (n >= 3 && !(c == b'`' && rest[n..].contains('`'))).then_some((c, n))
}

pub(super) fn fence_closes(rest: &str, c: u8, n: usize) -> bool {
    let m = run_len(rest.as_bytes(), 0, c);
    m >= n && rest[m..].trim().is_empty()
}

/// Fenced code blocks as byte ranges of whole lines.
pub(super) fn fenced_regions(text: &str) -> Vec<(usize, usize)> {
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

/// Whether the line starting at `k` is blank (or the text ends).
pub(super) fn line_blank_at(b: &[u8], mut k: usize) -> bool {
    while k < b.len() {
        match b[k] {
            b' ' | b'\t' | b'\r' => k += 1,
            b'\n' => return true,
            _ => return false,
        }
    }
    true
}

/// Inline code spans (CommonMark): a run of n backticks, not escaped, opens a span that closes at
/// the next run of exactly n backticks before the paragraph ends; an unmatched run is text.
/// Runs are indexed by length, so each opener finds its closer by a binary search.
pub(super) fn code_spans(text: &str) -> Vec<(usize, usize, usize)> {
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
    let mut by_len: std::collections::HashMap<usize, Vec<usize>> = std::collections::HashMap::new();
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
pub(super) fn escaped(b: &[u8], i: usize) -> bool {
    b[..i].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 1
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
