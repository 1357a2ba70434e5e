//! Structural entities (paths, files, identifiers, names, tags) that `shares_entity` links join on ([`extract_entities`]).

use std::collections::HashSet;

use super::parse::Prepared;
use super::sentence::is_heading;
use super::target::normalize_target;
use crate::model::markdown::strip_block_prefix;

/// Extensions that make a bare `name.ext` a file name.
pub(super) const KNOWN_EXTENSIONS: &[&str] = &[
    "rs", "py", "pyi", "js", "mjs", "cjs", "ts", "tsx", "jsx", "go", "java", "kt", "kts", "rb",
    "php", "c", "h", "cc", "cpp", "hpp", "cs", "swift", "scala", "sh", "bash", "zsh", "fish",
    "ps1", "sql", "html", "htm", "css", "scss", "vue", "svelte", "json", "jsonl", "yaml", "yml",
    "toml", "ini", "cfg", "conf", "env", "lock", "md", "mdx", "rst", "txt", "csv", "xml", "proto",
    "graphql", "gradle", "tf", "hcl", "mk", "cmake", "nix", "lua", "ex", "exs", "erl", "hs", "ml",
    "dart", "jl", "zig", "ipynb",
];

/// File names without an extension that are file names anyway.
pub(super) const KNOWN_FILES: &[&str] = &[
    "Makefile",
    "Dockerfile",
    "Containerfile",
    "Justfile",
    "Gemfile",
    "Rakefile",
    "Procfile",
    "Jenkinsfile",
    "Vagrantfile",
];

/// Words that start sentences without starting a name; dropped from the front of a name.
pub(super) const STARTERS: &[&str] = &[
    "a",
    "about",
    "after",
    "again",
    "all",
    "also",
    "although",
    "an",
    "and",
    "any",
    "as",
    "at",
    "because",
    "before",
    "both",
    "but",
    "by",
    "each",
    "every",
    "finally",
    "first",
    "for",
    "from",
    "he",
    "her",
    "here",
    "his",
    "how",
    "however",
    "if",
    "in",
    "into",
    "it",
    "its",
    "last",
    "let",
    "maybe",
    "my",
    "next",
    "no",
    "not",
    "note",
    "now",
    "of",
    "on",
    "once",
    "only",
    "or",
    "our",
    "please",
    "see",
    "she",
    "since",
    "so",
    "some",
    "still",
    "that",
    "the",
    "their",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "to",
    "today",
    "tomorrow",
    "use",
    "using",
    "via",
    "we",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "why",
    "with",
    "yesterday",
    "yet",
    "you",
    "your",
];

/// Backticked words too generic to join memories on.
pub(super) const CODE_STOPWORDS: &[&str] = &[
    "true", "false", "null", "none", "nil", "self", "this", "let", "mut", "pub", "use", "mod",
    "def", "var", "const", "return", "else", "for", "while", "and", "not", "int", "str", "bool",
    "void", "string",
];

pub(super) fn is_url_like(token: &str) -> bool {
    let lower = token.to_ascii_lowercase();
    lower.contains("://")
        || lower.starts_with("www.")
        || lower.starts_with("mailto:")
        || lower.contains('@')
}

/// `(stem, ext)` when `name` ends in an extension of 1–10 ASCII alphanumerics with a letter.
pub(super) fn split_extension(name: &str) -> Option<(&str, &str)> {
    let (stem, ext) = name.rsplit_once('.')?;
    let ok = (1..=10).contains(&ext.len())
        && ext.bytes().all(|c| c.is_ascii_alphanumeric())
        && ext.bytes().any(|c| c.is_ascii_alphabetic());
    ok.then_some((stem, ext))
}

/// Drops a `:42` or `:42:7` line suffix.
pub(super) fn strip_line_suffix(s: &str) -> &str {
    let mut s = s;
    for _ in 0..2 {
        if let Some((a, b)) = s.rsplit_once(':')
            && !b.is_empty()
            && b.bytes().all(|c| c.is_ascii_digit())
        {
            s = a;
        }
    }
    s
}

/// A path: has `/`, path characters only, a letter, and (unless `loose`) an extension.
pub(super) fn as_path(core: &str, loose: bool) -> Option<String> {
    if is_url_like(core) || core.starts_with("//") {
        return None;
    }
    let s = strip_line_suffix(core).replace('\\', "/");
    if !s.contains('/')
        || !s.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '+' | '~'))
        || !s.chars().any(char::is_alphabetic)
    {
        return None;
    }
    let n = normalize_target(&s);
    let last = n.rsplit('/').next().unwrap_or_default();
    let has_ext = split_extension(last).is_some();
    (!last.is_empty() && (has_ext || loose) && n != "/").then_some(n)
}

/// A bare file name: `Cargo.toml`, `auth.py`, `Makefile`.
pub(super) fn as_bare_file(core: &str) -> Option<String> {
    if KNOWN_FILES.contains(&core) {
        return Some(core.to_owned());
    }
    let (stem, ext) = split_extension(core)?;
    let ok = !stem.is_empty()
        && stem.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
        && stem.bytes().any(|c| c.is_ascii_alphabetic())
        && KNOWN_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str());
    ok.then(|| core.to_owned())
}

pub(super) fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `snake_case` / `SCREAMING_CASE`: an underscore with an alphanumeric on both sides.
pub(super) fn is_snake(s: &str) -> bool {
    let b = s.as_bytes();
    is_ident(s)
        && b.windows(3)
            .any(|w| w[1] == b'_' && w[0].is_ascii_alphanumeric() && w[2].is_ascii_alphanumeric())
}

/// `camelCase` (lowercase first) or `PascalCase` (uppercase first): an inner capital and a
/// lowercase letter.
pub(super) fn is_camel_or_pascal(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 3
        && b.iter().all(u8::is_ascii_alphanumeric)
        && b[0].is_ascii_alphabetic()
        && b[1..].iter().any(u8::is_ascii_uppercase)
        && b.iter().any(u8::is_ascii_lowercase)
}

/// A code identifier in prose: `snake_case`, `SCREAMING_CASE`, `camelCase`, `PascalCase`,
/// `Type::method`, or any identifier written as a call (`reconcile()`).
pub(super) fn as_identifier(core: &str) -> Option<String> {
    let (s, called) = match core.strip_suffix("()") {
        Some(s) => (s, true),
        None => (core, false),
    };
    if s.contains("::") {
        let ok = s.split("::").all(is_ident) && s.chars().any(|c| c.is_ascii_alphabetic());
        return ok.then(|| s.to_owned());
    }
    let ok = is_snake(s)
        || is_camel_or_pascal(s)
        || (called && is_ident(s) && s.len() >= 3 && !CODE_STOPWORDS.contains(&s));
    ok.then(|| s.to_owned())
}

/// The content of an inline code span as an entity: one token, a path or an identifier-like name.
pub(super) fn code_span_entity(content: &str) -> Option<String> {
    let c = content.trim();
    let c = c.strip_suffix("()").unwrap_or(c);
    if c.is_empty() || c.chars().any(char::is_whitespace) || c.chars().count() > 80 {
        return None;
    }
    if c.contains('/') || c.contains('\\') {
        return as_path(c, true);
    }
    let mut chars = c.chars();
    let identifier_like = chars.next().is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.chars().all(|x| x.is_ascii_alphanumeric() || matches!(x, '_' | '-' | '.' | ':'))
        && !c.ends_with(['.', ':', '-'])
        && c.split(['.', ':'])
            .filter(|p| !p.is_empty())
            .all(|p| p.starts_with(|f: char| f.is_ascii_alphabetic() || f == '_'));
    let ok =
        identifier_like && c.len() >= 3 && !CODE_STOPWORDS.contains(&c.to_lowercase().as_str());
    ok.then(|| c.to_owned())
}

/// The core of a prose token and whether punctuation breaks a name run before / after it.
pub(super) fn token_core(token: &str) -> (&str, bool, bool) {
    const LEAD: &[char] = &['"', '\'', '(', '[', '{', '<', '*', '_', '~', '“', '‘', '«'];
    const TRAIL: &[char] = &[
        '"', '\'', '.', ',', ';', ':', '!', '?', ')', ']', '}', '>', '*', '_', '~', '”', '’', '»',
    ];
    const LEAD_BREAK: &[char] = &['"', '\'', '(', '[', '{', '<', '“', '‘', '«'];
    const TRAIL_BREAK: &[char] =
        &['"', '\'', '.', ',', ';', ':', '!', '?', ')', ']', '}', '>', '”', '’', '»'];
    let start = token.trim_start_matches(LEAD);
    let lead = &token[..token.len() - start.len()];
    let mut core = start.trim_end_matches(TRAIL);
    let mut trail = &start[core.len()..];
    for possessive in ["'s", "’s"] {
        if let Some(stem) = core.strip_suffix(possessive) {
            core = stem;
            trail = possessive;
        }
    }
    (core, lead.contains(LEAD_BREAK), trail.contains(TRAIL_BREAK))
}

/// The core of a token for code rules: surrounding quotes, brackets and emphasis stripped,
/// a trailing call `()` kept.
pub(super) fn code_core(token: &str) -> &str {
    let t = token.trim_matches(['"', '\'', '*', '<', '>', '“', '”', '‘', '’', '«', '»']);
    let t = t.trim_end_matches(['.', ',', ';', ':', '!', '?']).trim_start_matches(['(', '[', '{']);
    if t.ends_with("()") {
        return t;
    }
    t.trim_end_matches([')', ']', '}', ':', '.', ',', ';'])
}

/// Tokens of `s` split at `is_sep`, with their byte offsets.
pub(super) fn split_tokens(s: &str, is_sep: impl Fn(char) -> bool) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        if is_sep(c) {
            if let Some(st) = start.take() {
                out.push((st, &s[st..i]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(st) = start {
        out.push((st, &s[st..]));
    }
    out
}

pub(super) fn flush_run(run: &mut Vec<Word<'_>>, at_start: bool, found: &mut Vec<(usize, String)>) {
    if let Some(name) = name_from_run(run, at_start) {
        found.push(name);
    }
    run.clear();
}

/// A capitalised word: an uppercase first letter, then letters, digits or inner `-`, at least
/// two characters.
pub(super) fn is_capitalised(core: &str) -> bool {
    let mut chars = core.chars();
    chars.next().is_some_and(char::is_uppercase)
        && core.chars().count() >= 2
        && core.chars().all(|c| c.is_alphanumeric() || c == '-')
        && !core.ends_with('-')
}

pub(super) struct Word<'a> {
    pub(super) start: usize,
    pub(super) core: &'a str,
}

/// Turns a run of capitalised words into a name (see [`extract_entities`]).
pub(super) fn name_from_run(run: &[Word<'_>], at_sentence_start: bool) -> Option<(usize, String)> {
    let mut words = run;
    let mut at_start = at_sentence_start;
    while let Some(first) = words.first() {
        if !STARTERS.contains(&first.core.to_lowercase().as_str()) {
            break;
        }
        words = &words[1..];
        at_start = false;
    }
    let min = if at_start { 3 } else { 2 };
    let ok = (min..=4).contains(&words.len())
        && words.iter().any(|w| w.core.chars().any(char::is_lowercase));
    ok.then(|| (words[0].start, words.iter().map(|w| w.core).collect::<Vec<_>>().join(" ")))
}

/// Names for MIRA's structural `shares_entity:<Name>` links, deduplicated, in order of first
/// appearance in the body, then the tags. A documented heuristic, built to miss rather than to
/// add noise (MIRA: sparse links over dense links):
///
/// - **File paths**, normalised like link targets: tokens with `/` whose last part has an
///   extension (`src/auth.py`, `./config//app.toml` → `config/app.toml`, `src/auth.py:42` →
///   `src/auth.py`), and bare file names with a known source or config extension (`Cargo.toml`,
///   `auth.py`; also `Node.js`) or a known name (`Makefile`, `Dockerfile`). URLs, e-mail
///   addresses, version numbers (`v1.2.3`), `e.g.` and fractions (`1/2`) are not paths.
/// - **Code identifiers**, as written: `snake_case` (an inner `_`), `SCREAMING_CASE` (two or more
///   parts), `camelCase` / `PascalCase` (an inner capital and a lowercase letter, like `HashMap`,
///   `GitHub`), `Type::method`, a call like `reconcile()`, and single-token inline code spans
///   (`` `serde_yaml_ng` ``, `` `reconcile` ``, `` `Cargo.toml` ``; not multi-word spans, flags
///   like `--json`, numbers, or a few generic words like `true`).
/// - **Capitalised names**: 2–4 consecutive capitalised words with only spaces between them
///   (`Redis Cluster`, `Open Policy Agent`, `[[Redis Cluster]]`), in one sentence. Common
///   sentence starters (`The`, `We`, `Then`, `This`, …) are dropped from the front. A run that
///   still begins its sentence needs three words (so two capitalised beyond the first), since a
///   sentence's first word is capitalised anyway. Single words (`Redis`, `I`), runs of 5+ words,
///   runs without a lowercase letter (`TODO FIXME`) and heading lines (title case) are skipped.
/// - **Tags**, lowercased with a leading `#` dropped, as `tag:<name>` (`tag:auth`), so a tag never
///   collides with a word.
///
/// Fenced code blocks give only file paths (their identifiers are mostly generic locals); inline
/// code gives paths and identifiers; link targets are read like prose (`[[src/auth.py]]`).
pub fn extract_entities(body: &str, tags: &[String]) -> Vec<String> {
    let prep = Prepared::new(body);
    let mut found: Vec<(usize, String)> = Vec::new();

    // Fenced code: paths only.
    for &(s, e) in &prep.masked.fences {
        let pieces = split_tokens(&body[s..e], |c| {
            !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '\\' | '+' | '~' | ':'))
        });
        for (offset, piece) in pieces {
            if let Some(p) = as_path(piece.trim_matches(['.', ':']), false) {
                found.push((s + offset, p));
            }
        }
    }

    // Inline code spans.
    for &(s, e, n) in &prep.masked.inline {
        if let Some(entity) = body.get(s + n..e - n).and_then(code_span_entity) {
            found.push((s, entity));
        }
    }

    // Prose: link delimiters blanked so `[[src/auth.py|auth]]` reads as `src/auth.py auth`.
    let mut text = prep.masked.code_free.clone().into_bytes();
    for &(s, e) in &prep.spans {
        text[s..s + 2].fill(b' ');
        text[e - 2..e].fill(b' ');
        let raw = &body[s + 2..e - 2];
        if let Some(p) = raw.find(['|', '#']) {
            text[s + 2 + p] = b' ';
        }
    }
    let text = String::from_utf8(text).unwrap_or_else(|_| prep.masked.code_free.clone());

    let mut run: Vec<Word<'_>> = Vec::new();
    let mut run_at_start = false;
    let mut last_word_sentence: Option<usize> = None;
    let mut prev_end = 0;
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let line_start = pos;
        pos += line.len();
        let heading = is_heading(strip_block_prefix(line));
        for (offset, token) in split_tokens(line, |c| c.is_whitespace() || c == '\u{1}') {
            let start = line_start + offset;
            if is_url_like(token) {
                flush_run(&mut run, run_at_start, &mut found);
                prev_end = start + token.len();
                continue;
            }
            let code = code_core(token);
            if let Some(entity) =
                as_path(code, false).or_else(|| as_bare_file(code)).or_else(|| as_identifier(code))
            {
                found.push((start, entity));
            }
            let has_word = token.chars().any(char::is_alphanumeric);
            let sentence = prep.starts.partition_point(|&x| x <= start);
            let at_start = has_word && last_word_sentence != Some(sentence);
            if has_word {
                last_word_sentence = Some(sentence);
            }
            let (core, break_before, break_after) = token_core(token);
            let gap = &text[prev_end.min(start)..start];
            let joins = !run.is_empty() && !break_before && !at_start && !gap.contains('\u{1}');
            if !joins {
                flush_run(&mut run, run_at_start, &mut found);
            }
            if !heading && is_capitalised(core) {
                if run.is_empty() {
                    run_at_start = at_start;
                }
                run.push(Word { start, core });
                if break_after {
                    flush_run(&mut run, run_at_start, &mut found);
                }
            } else {
                flush_run(&mut run, run_at_start, &mut found);
            }
            prev_end = start + token.len();
        }
    }
    flush_run(&mut run, run_at_start, &mut found);

    found.sort_by_key(|(pos, _)| *pos);
    let mut seen = HashSet::new();
    let mut out: Vec<String> = Vec::new();
    for (_, entity) in found {
        if seen.insert(entity.clone()) {
            out.push(entity);
        }
    }
    for tag in tags {
        let t = tag.trim().trim_start_matches('#').trim().to_lowercase();
        if !t.is_empty() {
            let entity = format!("tag:{t}");
            if seen.insert(entity.clone()) {
                out.push(entity);
            }
        }
    }
    out
}
