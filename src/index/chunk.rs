//! Splitting a memory's Markdown body into chunks for the indices.
//!
//! A chunk is one section: the text under an ATX heading (`#` … `######`) up to the next heading
//! of any level, including its heading line. `#` lines inside fenced code blocks (```` ``` ```` or
//! `~~~`, by the rules of [`crate::model::markdown`], which the link parser shares) are not
//! headings. Text before the first heading is a chunk with an empty
//! `header_path`. Each chunk's `header_path` joins the headings above it: `Goals > Risks`.
//!
//! - A heading with no text of its own (directly followed by another heading) is merged into the
//!   next section, whose chunk then starts at the empty heading's line, so its words stay
//!   searchable. Trailing empty headings form one chunk, so a heading-only memory still has one.
//! - A section longer than [`ChunkOptions::max_chars`] (counted in chars, not bytes) is split
//!   further, at the last paragraph break, else sentence end, else whitespace in the second half of
//!   the window (a hard cut, on a char boundary, only for a run without whitespace); consecutive
//!   pieces overlap by about [`ChunkOptions::overlap_chars`], starting on a word boundary.
//! - Every chunk's `text` is exactly `&body[start..end]`, trimmed of surrounding whitespace.
//! - An empty or whitespace-only body yields one empty chunk (`0..0`): the indexer needs a
//!   document per memory so that its title and tags are findable.
//!
//! The memory's title is not part of [`Chunk`] (it is the same for every chunk); the indexer
//! takes it from the frontmatter or from [`markdown_title`].

/// One section (or piece of a long section) of a memory's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// Position of the chunk in the memory, from 0.
    pub ordinal: usize,
    /// Headings above the chunk, outermost first, joined with ` > `; empty before the first one.
    pub header_path: String,
    /// The chunk's text: `&body[start..end]`.
    pub text: String,
    /// Byte offset of the chunk's start in the body.
    pub start: usize,
    /// Byte offset just past the chunk's end in the body.
    pub end: usize,
}

/// Limits for [`chunk_markdown`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkOptions {
    /// Longest chunk, in chars (about 200 English words at the default 1,200). Values below 32
    /// are raised to 32.
    pub max_chars: usize,
    /// Overlap between consecutive pieces of a split section, in chars (default 180, 15 %).
    /// Capped at a third of `max_chars`.
    pub overlap_chars: usize,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        Self { max_chars: 1_200, overlap_chars: 180 }
    }
}

/// Separator between the headings of a `header_path`.
pub const HEADER_PATH_SEPARATOR: &str = " > ";

/// Estimated number of LLM tokens in `text`: chars / 4, rounded up.
///
/// A heuristic (about 4 chars per token for English with GPT-style tokenizers), good enough for
/// filling a `--budget`; it undercounts code and non-Latin scripts somewhat.
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// The text of the body's first ATX heading (outside code fences), if any.
pub fn markdown_title(body: &str) -> Option<String> {
    scan_headings(body).into_iter().next().map(|h| h.text)
}

/// Splits `body` into chunks (see the module documentation). Never returns an empty vector.
pub fn chunk_markdown(body: &str, opts: &ChunkOptions) -> Vec<Chunk> {
    let max_chars = opts.max_chars.max(32);
    let overlap = opts.overlap_chars.min(max_chars / 3);
    let mut chunks = Vec::new();
    let mut push = |header_path: &str, start: usize, end: usize| {
        for (s, e) in split_long(body, start, end, max_chars, overlap) {
            chunks.push(Chunk {
                ordinal: chunks.len(),
                header_path: header_path.to_string(),
                text: body[s..e].to_string(),
                start: s,
                end: e,
            });
        }
    };

    let headings = scan_headings(body);
    let first_heading = headings.first().map_or(body.len(), |h| h.start);
    if let Some((s, e)) = trim_span(body, 0, first_heading) {
        push("", s, e);
    }

    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut pending_start: Option<usize> = None;
    for (i, heading) in headings.iter().enumerate() {
        while stack.last().is_some_and(|(level, _)| *level >= heading.level) {
            stack.pop();
        }
        stack.push((heading.level, heading.text.clone()));
        let end = headings.get(i + 1).map_or(body.len(), |h| h.start);
        let is_last = i + 1 == headings.len();
        let empty = body[heading.line_end..end].trim().is_empty();
        if empty && !is_last {
            pending_start.get_or_insert(heading.start);
            continue;
        }
        let start = pending_start.take().unwrap_or(heading.start);
        if let Some((s, e)) = trim_span(body, start, end) {
            let path: Vec<&str> = stack.iter().map(|(_, t)| t.as_str()).collect();
            push(&path.join(HEADER_PATH_SEPARATOR), s, e);
        }
    }

    if chunks.is_empty() {
        chunks.push(Chunk {
            ordinal: 0,
            header_path: String::new(),
            text: String::new(),
            start: 0,
            end: 0,
        });
    }
    chunks
}

pub use crate::model::markdown::Heading;

/// Finds the ATX headings of `body`, skipping fenced code blocks (see [`crate::model::markdown`],
/// which the link parser reads code with too).
pub fn scan_headings(body: &str) -> Vec<Heading> {
    crate::model::markdown::headings(body)
}

/// `body[start..end]` without surrounding whitespace, or `None` when nothing is left.
fn trim_span(body: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    let slice = &body[start..end];
    let trimmed = slice.trim();
    if trimmed.is_empty() {
        return None;
    }
    let s = start + (slice.len() - slice.trim_start().len());
    Some((s, s + trimmed.len()))
}

/// Splits the span `body[start..end]` into pieces of at most `max_chars` chars.
fn split_long(
    body: &str,
    start: usize,
    end: usize,
    max_chars: usize,
    overlap: usize,
) -> Vec<(usize, usize)> {
    let mut pieces = Vec::new();
    let mut a = start;
    loop {
        let rest = &body[a..end];
        let Some((limit, _)) = rest.char_indices().nth(max_chars) else {
            pieces.push((a, end));
            break;
        };
        let window = &rest[..limit];
        let half = window.char_indices().nth(max_chars / 2).map_or(limit, |(i, _)| i);
        let cut = find_break(window, half);
        let (s, e) = trim_span(body, a, a + cut).unwrap_or((a, a + cut));
        pieces.push((s, e));
        // The next piece starts `overlap` chars before the cut, at the start of a word.
        let back =
            window[..cut].char_indices().rev().nth(overlap.saturating_sub(1)).map_or(0, |(i, _)| i);
        let mut next = a + back;
        if overlap == 0 {
            next = a + cut;
        } else if next > a && !body[..next].ends_with(char::is_whitespace) {
            // Inside a word: move to the next word start before the cut.
            next = body[next..a + cut].find(char::is_whitespace).map_or(a + cut, |i| next + i);
        }
        if next <= a {
            next = a + cut;
        }
        // Skip whitespace so the piece starts on a word.
        let skipped = body[next..end].len() - body[next..end].trim_start().len();
        a = next + skipped;
        if a >= end {
            break;
        }
    }
    pieces
}

/// Where to end a piece inside `window` (a byte offset > 0): the last paragraph break, sentence
/// end or whitespace at or after `half`; else the end of the window.
fn find_break(window: &str, half: usize) -> usize {
    let tail = &window[half..];
    if let Some(i) = tail.rfind("\n\n") {
        return half + i;
    }
    let sentence = tail
        .match_indices(['.', '!', '?'])
        .filter(|(i, m)| tail[i + m.len()..].chars().next().is_some_and(char::is_whitespace))
        .map(|(i, m)| i + m.len())
        .next_back();
    if let Some(i) = sentence {
        return half + i;
    }
    if let Some((i, _)) = tail.char_indices().rev().find(|(_, c)| c.is_whitespace())
        && half + i > 0
    {
        return half + i;
    }
    window.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(body: &str) -> Vec<Chunk> {
        chunk_markdown(body, &ChunkOptions::default())
    }

    fn check_invariants(body: &str, chunks: &[Chunk]) {
        for (i, c) in chunks.iter().enumerate() {
            assert_eq!(c.ordinal, i);
            assert_eq!(c.text, &body[c.start..c.end]);
        }
    }

    #[test]
    fn heading_hierarchy() {
        let body = "intro line\n\n# Plan\nplan text\n## Goals\ngoal text\n### Risks\nrisk text\n## Budget\nmoney\n# Other\nx\n";
        let c = chunks(body);
        check_invariants(body, &c);
        let paths: Vec<&str> = c.iter().map(|c| c.header_path.as_str()).collect();
        assert_eq!(
            paths,
            ["", "Plan", "Plan > Goals", "Plan > Goals > Risks", "Plan > Budget", "Other"]
        );
        assert_eq!(c[0].text, "intro line");
        assert_eq!(c[3].text, "### Risks\nrisk text");
        assert_eq!(markdown_title(body).as_deref(), Some("Plan"));
    }

    #[test]
    fn heading_syntax_details() {
        let body = "#NotAHeading\n    # indented code\n## Closed ##\ntext\n#\nempty heading text\n";
        let c = chunks(body);
        check_invariants(body, &c);
        assert_eq!(c[0].header_path, "");
        assert!(c[0].text.contains("#NotAHeading"));
        assert_eq!(c[1].header_path, "Closed");
        assert_eq!(c[2].header_path, "");
    }

    #[test]
    fn code_fences_hide_hashes() {
        let body = "# Setup\n```bash\n# install deps\nnpm ci\n~~~\n# still code\n```\nafter\n~~~~\n# tilde code\n~~~~\n## Next\nmore\n";
        let c = chunks(body);
        check_invariants(body, &c);
        let paths: Vec<&str> = c.iter().map(|c| c.header_path.as_str()).collect();
        assert_eq!(paths, ["Setup", "Setup > Next"]);
        assert!(c[0].text.contains("# install deps"));
        assert!(c[0].text.contains("# tilde code"));
    }

    /// The chunker and the link parser read code with one scanner: on every tricky input, a
    /// `# Heading [[target]]` line is a heading exactly when its link is a link.
    #[test]
    fn chunker_and_linker_agree_on_what_is_code() {
        let cases: &[(&str, &str, bool)] = &[
            // (what the input shows, body around the probe line `# P [[probe]]`, probe is prose)
            ("tilde fence", "~~~\n{P}\n~~~\n", false),
            ("longer tilde fence closed by a longer run", "~~~~\n~~~\n{P}\n~~~~~\n", false),
            ("fence indented in a list", "- step\n\n    ```sh\n{P}\n    ```\n", false),
            ("fence in a block quote", "> ```\n{P}\n> ```\n", false),
            ("unclosed fence", "```\n{P}\n", false),
            ("fence in a list item", "1. install\n   ```\n{P}\n   ```\n", false),
            ("after a closed fence", "```\ncode\n```\n{P}\n", true),
            ("inline code with triple backticks", "```[[a]]``` is inline\n{P}\n", true),
            ("inline code with a backtick run", "`` `[[a]]` `` text\n{P}\n", true),
            ("backtick fence whose info has a backtick", "```x`\n{P}\n", true),
            ("tilde fence does not close a backtick one", "```\n~~~\n{P}\n```\n", false),
        ];
        for (what, template, prose) in cases {
            let body = template.replace("{P}", "# P [[probe]]");
            let is_heading = scan_headings(&body).iter().any(|h| h.text == "P [[probe]]");
            let links = crate::model::links::extract_links(&body, &|_| true);
            let is_link = links.iter().any(|l| l.target.name() == "probe");
            assert_eq!(is_heading, *prose, "{what}: chunker");
            assert_eq!(is_link, *prose, "{what}: linker");
            // Links inside inline code are never links.
            assert!(!links.iter().any(|l| l.target.name() == "a"), "{what}");
        }
    }

    #[test]
    fn empty_sections_merge_into_next() {
        let body = "# Title\n## Goals\ngoal text\n## Empty\n\n## Last\n";
        let c = chunks(body);
        check_invariants(body, &c);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].header_path, "Title > Goals");
        assert!(c[0].text.starts_with("# Title\n## Goals"));
        // Trailing empty headings form one chunk.
        assert_eq!(c[1].header_path, "Title > Last");
        assert_eq!(c[1].text, "## Empty\n\n## Last");
    }

    #[test]
    fn heading_only_memory_has_one_chunk() {
        let c = chunks("# Just a title\n");
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].text, "# Just a title");
        assert_eq!(c[0].header_path, "Just a title");
    }

    #[test]
    fn empty_body_gives_one_empty_chunk() {
        for body in ["", "  \n\n "] {
            let c = chunks(body);
            assert_eq!(c.len(), 1);
            assert_eq!((c[0].start, c[0].end, c[0].text.as_str()), (0, 0, ""));
        }
    }

    #[test]
    fn long_section_splits_with_overlap() {
        let sentence = "The cache must be invalidated whenever the schema changes. ";
        let body = format!("# Cache\n{}", sentence.repeat(60));
        let opts = ChunkOptions::default();
        let c = chunk_markdown(&body, &opts);
        check_invariants(&body, &c);
        assert!(c.len() >= 3, "{}", c.len());
        for (prev, next) in c.iter().zip(c.iter().skip(1)) {
            assert!(prev.text.chars().count() <= opts.max_chars);
            assert_eq!(next.header_path, "Cache");
            // Overlap: the next piece starts before the previous one ends.
            assert!(next.start < prev.end, "no overlap {prev:?} {next:?}");
            let overlap = prev.end - next.start;
            assert!(overlap <= opts.overlap_chars + 80, "overlap {overlap}");
            // Pieces end at sentence ends and start on words.
            assert!(prev.text.ends_with('.'), "{:?}", prev.text);
            assert!(!next.text.starts_with(' '));
        }
        // Every byte is covered.
        assert_eq!(c.first().unwrap().start, 0);
        assert_eq!(c.last().unwrap().end, body.trim_end().len());
    }

    #[test]
    fn paragraph_breaks_are_preferred() {
        let para = "word ".repeat(100);
        let body = format!("{para}\n\n{para}\n\n{para}");
        let c = chunk_markdown(&body, &ChunkOptions::default());
        check_invariants(&body, &c);
        assert!(c.len() >= 2);
        let after = body[c[0].end..].trim_start_matches(' ');
        assert!(after.starts_with("\n\n"), "first piece should end at a paragraph break");
    }

    #[test]
    fn unicode_is_never_split_inside_a_char() {
        let body = format!("# Ünïcødé\n{}", "日本語の文章🦀".repeat(400));
        let opts = ChunkOptions { max_chars: 100, overlap_chars: 15 };
        let c = chunk_markdown(&body, &opts);
        check_invariants(&body, &c);
        assert!(c.len() > 10);
        for chunk in &c {
            assert!(chunk.text.chars().count() <= 100);
            assert_eq!(chunk.header_path, "Ünïcødé");
        }
        let words = format!("{} end", "ß ".repeat(3_000));
        let c = chunk_markdown(&words, &opts);
        check_invariants(&words, &c);
        assert!(c.last().unwrap().text.ends_with("end"));
    }

    #[test]
    fn tiny_limits_still_progress() {
        let body = "a b c d e f g h i j k l m n o p q r s t u v w x y z ".repeat(20);
        let opts = ChunkOptions { max_chars: 1, overlap_chars: 1_000 };
        let c = chunk_markdown(&body, &opts);
        check_invariants(&body, &c);
        assert!(c.len() > 1);
    }

    #[test]
    fn token_estimate() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert_eq!(estimate_tokens("ééééé"), 2);
    }
}
