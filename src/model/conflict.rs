//! Git merge-conflict markers in a memory file.
//!
//! After a `git merge` that changed the same lines of a memory on both sides, git writes both
//! versions into the file between `<<<<<<<`, `=======` and `>>>>>>>` lines. Such a file is neither
//! version: its frontmatter usually no longer parses, and reading it leniently would turn it into
//! a new memory (default type, an id derived from its name) that search, links and `show` would
//! then serve. memlane refuses to read it instead and reports it until the conflict is resolved.

/// The 1-based line of the first unresolved git conflict in `text`: a `<<<<<<<` line followed
/// later by a `=======` line and then a `>>>>>>>` line (diff3's `|||||||` section may sit
/// between the first two). Lines inside Markdown code fences are ignored, so a memory that
/// documents what a conflict looks like is still read.
///
/// A lone `=======` is a Setext heading underline, not a conflict, and is never enough.
pub fn conflict_line(text: &str) -> Option<usize> {
    if !text.contains("<<<<<<<") {
        return None;
    }
    #[derive(PartialEq)]
    enum Seen {
        Nothing,
        Ours(usize),
        Theirs(usize),
    }
    let mut state = Seen::Nothing;
    let mut fence: Option<&str> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if state == Seen::Nothing {
            // Fences matter only outside a conflict: inside one, each side may open a fence the
            // other does not close.
            if let Some(open) = fence {
                if trimmed.starts_with(open) {
                    fence = None;
                }
                continue;
            }
            if trimmed.starts_with("```") {
                fence = Some("```");
                continue;
            }
            if trimmed.starts_with("~~~") {
                fence = Some("~~~");
                continue;
            }
        }
        let marker = |m: &str| {
            line.strip_prefix(m).is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
        };
        state = match state {
            _ if marker("<<<<<<<") => Seen::Ours(i + 1),
            Seen::Ours(at) if marker("=======") => Seen::Theirs(at),
            Seen::Theirs(at) if marker(">>>>>>>") => return Some(at),
            s => s,
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::conflict_line;

    #[test]
    fn finds_a_conflict_in_the_frontmatter_and_the_body() {
        let fm = "---\n<<<<<<< HEAD\ntags: [a]\n=======\ntags: [b]\n>>>>>>> other\n---\nbody\n";
        assert_eq!(conflict_line(fm), Some(2));
        let body = "---\nid: x\n---\n# T\n\n<<<<<<< HEAD\none\n||||||| base\nzero\n=======\ntwo\n>>>>>>> feature\n";
        assert_eq!(conflict_line(body), Some(6));
        let crlf = "a\r\n<<<<<<< HEAD\r\nb\r\n=======\r\nc\r\n>>>>>>> x\r\n";
        assert_eq!(conflict_line(crlf), Some(2));
    }

    #[test]
    fn ignores_headings_partial_markers_and_fenced_examples() {
        assert_eq!(conflict_line("Title\n=======\n\ntext\n"), None);
        assert_eq!(conflict_line("<<<<<<< HEAD\nonly the start\n"), None);
        assert_eq!(conflict_line("<<<<<<< HEAD\na\n>>>>>>> x\n"), None, "no separator");
        assert_eq!(conflict_line("=======\n<<<<<<< a\n>>>>>>> b\n"), None, "out of order");
        assert_eq!(conflict_line("<<<<<<<<< not a marker\n=======\n>>>>>>> b\n"), None);
        let fenced = "How a conflict looks:\n\n```\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> x\n```\n";
        assert_eq!(conflict_line(fenced), None);
    }
}
