//! Sentence boundaries, which decide what text types a link.

use crate::model::markdown::strip_block_prefix;

pub(super) const ABBREVIATIONS: &[&str] =
    &["vs", "cf", "approx", "dr", "mr", "mrs", "ms", "st", "fig", "al", "viz", "resp", "incl"];

/// Whether a period after `before` ends an abbreviation rather than a sentence.
pub(super) fn is_abbreviation(before: &str, next_char: Option<char>) -> bool {
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '.')
        .last()
        .map_or(before.len(), |(i, _)| i);
    let word = &before[start..];
    if word.is_empty() {
        return false;
    }
    let lower = word.to_lowercase();
    if lower == "etc" {
        return !next_char.is_some_and(char::is_uppercase);
    }
    if ABBREVIATIONS.contains(&lower.as_str()) {
        return true;
    }
    // `e.g`, `i.e`, `a.k.a`, or a single-letter initial: every part is one letter.
    word.split('.').all(|part| {
        let mut chars = part.chars();
        chars.next().is_some_and(char::is_alphabetic) && chars.next().is_none()
    })
}

pub(super) fn is_list_item(s: &str) -> bool {
    let b = s.as_bytes();
    let space_at = |k: usize| b.get(k).is_none_or(|c| *c == b' ' || *c == b'\t');
    match b.first() {
        Some(b'-' | b'*' | b'+') => space_at(1),
        Some(c) if c.is_ascii_digit() => {
            let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
            digits <= 9 && matches!(b.get(digits), Some(b'.' | b')')) && space_at(digits + 1)
        }
        _ => false,
    }
}

pub(super) fn is_heading(s: &str) -> bool {
    let hashes = s.bytes().take_while(|&c| c == b'#').count();
    (1..=6).contains(&hashes) && s.as_bytes().get(hashes).is_none_or(|c| *c == b' ' || *c == b'\t')
}

pub(super) const CLOSERS: &[char] = &[')', ']', '"', '\'', '*', '_', '’', '”', '»'];

/// Sentence start offsets, sorted, starting with 0 (see the module docs).
pub(super) fn sentence_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    let mut pos = 0;
    let mut prev_quoted = false;
    for line in text.split_inclusive('\n') {
        let line_start = pos;
        pos += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let rest = strip_block_prefix(content);
        let quoted = content.trim_start().starts_with('>');
        let quote_starts = quoted && !prev_quoted;
        prev_quoted = quoted;
        if rest.trim().is_empty() {
            starts.extend([line_start, pos]);
            continue;
        }
        if is_heading(rest) || rest.starts_with('|') {
            starts.extend([line_start, pos]);
        } else if is_list_item(rest) || quote_starts {
            starts.push(line_start);
        }
        for (k, c) in content.char_indices() {
            if !matches!(c, '.' | '!' | '?') {
                continue;
            }
            let after = &content[k + 1..];
            let closers = after.len() - after.trim_start_matches(CLOSERS).len();
            let tail = &after[closers..];
            let mut next = tail.chars();
            match next.next() {
                None => {}
                Some(w) if w.is_whitespace() => {}
                Some(_) => continue,
            }
            if c == '.' {
                let next_char = tail.trim_start().chars().next();
                if is_abbreviation(&content[..k], next_char) {
                    continue;
                }
            }
            starts.push(line_start + k + 1 + closers);
        }
    }
    starts.sort_unstable();
    starts.dedup();
    starts
}

/// The sentence holding byte `pos`: (start, end).
pub(super) fn sentence_of(starts: &[usize], len: usize, pos: usize) -> (usize, usize) {
    let k = starts.partition_point(|&s| s <= pos).max(1);
    (starts[k - 1], starts.get(k).copied().unwrap_or(len))
}
