//! `<private>…</private>` blocks: the tag scanner and [`redact_private`].

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TagKind {
    Open,
    Close,
}

/// A tag found by [`scan_tags`]: its kind and byte range in the input.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tag {
    pub(super) kind: TagKind,
    pub(super) start: usize,
    pub(super) end: usize,
}

/// Matches one word character at the start of the haystack, with exactly the same meaning as
/// the `\b` in Mnestra's rule (Unicode `\w`).
pub(super) static WORD_CHAR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\A\w").expect("word-char pattern is valid"));

/// Matches the markers that [`scrub_secrets`] writes.
pub(super) static MARKER_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"«redacted:[a-z0-9-]+»").expect("marker pattern is valid"));

/// Whether `bytes[at..]` starts with `word`, ignoring ASCII case.
pub(super) fn starts_with_ignore_case(bytes: &[u8], at: usize, word: &[u8]) -> bool {
    bytes.get(at..at + word.len()).is_some_and(|b| b.eq_ignore_ascii_case(word))
}

/// Find every opening and closing tag, left to right, without overlaps.
///
/// Linear: the search for an opening tag's `>` starts where the main loop is and the main loop
/// resumes after that `>`, so every byte is looked at a bounded number of times. All offsets are
/// char boundaries because every byte compared is ASCII.
pub(super) fn scan_tags(input: &str) -> Vec<Tag> {
    const PRIVATE: &[u8] = b"private";
    let bytes = input.as_bytes();
    let mut tags = Vec::new();
    let mut i = 0;
    while let Some(offset) = bytes[i..].iter().position(|&b| b == b'<') {
        let lt = i + offset;
        i = lt + 1;
        if bytes.get(lt + 1) == Some(&b'/') {
            if starts_with_ignore_case(bytes, lt + 2, PRIVATE) {
                let mut j = lt + 2 + PRIVATE.len();
                while bytes.get(j).is_some_and(u8::is_ascii_whitespace) {
                    j += 1;
                }
                if bytes.get(j) == Some(&b'>') {
                    tags.push(Tag { kind: TagKind::Close, start: lt, end: j + 1 });
                    i = j + 1;
                }
            }
        } else if starts_with_ignore_case(bytes, lt + 1, PRIVATE) {
            let after = lt + 1 + PRIVATE.len();
            if !WORD_CHAR.is_match(&input[after..]) {
                match bytes[after..].iter().position(|&b| b == b'>') {
                    Some(gt) => {
                        let end = after + gt + 1;
                        tags.push(Tag { kind: TagKind::Open, start: lt, end });
                        i = end;
                    }
                    // No `>` anywhere after: neither kind of tag can follow.
                    None => break,
                }
            }
        }
    }
    tags
}

/// Replace every `<private>…</private>` block with `[redacted]`, following the rules in the
/// module docs.
///
/// Returns the new text and the number of `[redacted]` blocks written. When nothing matched,
/// the text is the input unchanged and the count is 0.
#[must_use]
pub fn redact_private(input: &str) -> (String, usize) {
    let tags = scan_tags(input);
    let Some(last_close) = tags.iter().rposition(|t| t.kind == TagKind::Close) else {
        return (input.to_owned(), 0);
    };
    let mut out = String::with_capacity(input.len());
    let mut cursor = 0;
    let mut blocks = 0;
    let mut i = 0;
    // Opening tags after the last closing tag have no closing tag after them: literal.
    while i < last_close {
        let open = tags[i];
        if open.kind == TagKind::Close {
            // A stray closing tag with no opening tag before it: literal.
            i += 1;
            continue;
        }
        let mut depth = 0usize;
        let mut block_end = None;
        let mut j = i;
        while j < tags.len() {
            match tags[j].kind {
                TagKind::Open => depth += 1,
                TagKind::Close => {
                    depth -= 1;
                    if depth == 0 {
                        block_end = Some(tags[j].end);
                        break;
                    }
                }
            }
            j += 1;
        }
        out.push_str(&input[cursor..open.start]);
        out.push_str(PRIVATE_MARKER);
        blocks += 1;
        match block_end {
            Some(end) => {
                cursor = end;
                i = j + 1;
            }
            None => {
                // Closing tags exist but the nesting never balances: redact to the end.
                cursor = input.len();
                break;
            }
        }
    }
    if blocks == 0 {
        return (input.to_owned(), 0);
    }
    out.push_str(&input[cursor..]);
    (out, blocks)
}
