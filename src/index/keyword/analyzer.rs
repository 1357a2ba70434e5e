//! The code-aware text analyzer of the keyword index.
//!
//! Text is cut into *source tokens* at whitespace and at punctuation that never joins an
//! identifier. A source token keeps the joiners `_ . / \ - : @` inside it, so `src/auth.py`,
//! `snake_case`, `std::io`, `v1.2` and `user@example.com` stay whole. Then:
//!
//! - a source token that contains a joiner or a camelCase boundary is a *code token*: the analyzer
//!   emits the whole token lowercased (`src/auth.py`, `camelcase`), each `/`-separated segment
//!   that is itself compound (`auth.py`), and its parts (`src`, `auth`, `py`; `camel`, `case`);
//! - any other source token is a *prose word*: it is lowercased and dropped when it is an English
//!   stopword (the 33 words of Lucene's English set). Parts of code tokens are never dropped, so
//!   `is_valid` keeps `is`.
//!
//! Every emitted token then goes through ASCII folding (`café` → `cafe`) and the English
//! (Snowball) stemmer, both sides alike, so `indexing` matches `indexed` and a query for
//! `camelcase` meets the whole token of `camelCase`. Tokens longer than [`MAX_TOKEN_BYTES`] are
//! dropped (base64 blobs, hostile input).
//!
//! Two analyzers are registered: [`INDEX_TOKENIZER`] (whole tokens and parts) for documents and
//! for bag-of-words queries, and [`PHRASE_TOKENIZER`] (parts only, consecutive positions) for
//! phrase queries. Whole tokens share the position of their first part, so a phrase built from
//! parts matches the indexed parts.
//!
//! Custom tokenizers are not stored in a tantivy index: [`register`] must run on every open.

use tantivy::Index;
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, Stemmer, TextAnalyzer, Token, TokenStream, Tokenizer,
};

/// Name under which the index-side analyzer is registered.
pub const INDEX_TOKENIZER: &str = "memlane_code";
/// Name under which the parts-only analyzer (for phrase queries) is registered.
pub const PHRASE_TOKENIZER: &str = "memlane_code_parts";
/// Tokens longer than this many bytes are not indexed.
pub const MAX_TOKEN_BYTES: usize = 64;

/// Lucene's English stopword set, applied to prose words only.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with",
];

/// Words that make a query a question, a request or a sentence but say nothing about the answer:
/// interrogatives, auxiliaries and modals, pronouns, determiners and quantifiers, and a few
/// fillers of spoken questions. A query's terms from these words weigh
/// `search.question_weight` (default 0: left out) in BM25 and in query-term coverage, unless the
/// query has no other term. Documents keep them (the index analyzer drops only Lucene's 33 English stopwords).
///
/// Left out on purpose: words that are also content in a memory (`may` the month, `us` the
/// country, `will` the document, `can` the container is rare but `can` stays a question word).
pub const QUESTION_WORDS: &[&str] = &[
    "what",
    "when",
    "where",
    "which",
    "who",
    "whom",
    "whose",
    "why",
    "how",
    "whats",
    "whatever",
    "do",
    "does",
    "did",
    "done",
    "doing",
    "has",
    "have",
    "had",
    "having",
    "am",
    "been",
    "being",
    "can",
    "could",
    "would",
    "should",
    "shall",
    "might",
    "must",
    "ought",
    "i",
    "me",
    "my",
    "mine",
    "myself",
    "you",
    "your",
    "yours",
    "yourself",
    "he",
    "him",
    "his",
    "himself",
    "she",
    "her",
    "hers",
    "herself",
    "its",
    "itself",
    "we",
    "our",
    "ours",
    "ourselves",
    "them",
    "theirs",
    "themselves",
    "those",
    "some",
    "any",
    "all",
    "each",
    "every",
    "other",
    "another",
    "both",
    "either",
    "about",
    "ever",
    "also",
    "here",
    "much",
    "many",
    "more",
    "most",
    "so",
    "very",
    "just",
    "only",
    "too",
    "than",
    "from",
    "up",
    "out",
    "over",
    "again",
    "anything",
    "something",
    "please",
    "tell",
    "mention",
    "mentioned",
    "say",
    "said",
    "get",
    "got",
    "one",
    "ones",
    "thing",
    "things",
    "kind",
    "sort",
    "lot",
    "like",
];

/// The analysed (folded, stemmed) forms of [`QUESTION_WORDS`].
fn question_terms() -> &'static std::collections::HashSet<String> {
    static TERMS: std::sync::LazyLock<std::collections::HashSet<String>> =
        std::sync::LazyLock::new(|| {
            let mut analyzer = index_analyzer();
            QUESTION_WORDS
                .iter()
                .flat_map(|w| analyze(&mut analyzer, w).into_iter().map(|(_, t)| t))
                .collect()
        });
    &TERMS
}

/// True when the analysed term `term` comes from a [question word](QUESTION_WORDS).
pub fn is_question_term(term: &str) -> bool {
    question_terms().contains(term)
}

/// Words that open a question or a request.
const QUESTION_OPENERS: &[&str] = &[
    "what", "when", "where", "which", "who", "whom", "whose", "why", "how", "whats", "do", "does",
    "did", "is", "are", "was", "were", "am", "has", "have", "had", "can", "could", "would",
    "should", "shall", "will", "may", "might", "must", "tell", "remind", "list", "show", "find",
    "in", "on", "at", "since", "during",
];

/// True when `query` reads as a question or a request (it ends with `?`, or its first word
/// opens one: `which database…`, `did we…`, `tell me…`, `in what year…`). Only then are its
/// [question words](QUESTION_WORDS) weighed down: a statement or a bag of keywords ("more
/// sleep improves recall") keeps every word.
pub fn looks_like_question(query: &str) -> bool {
    let trimmed = query.trim_end();
    if trimmed.ends_with('?') {
        return true;
    }
    let first = trimmed
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .find(|w| !w.is_empty())
        .map(|w| w.trim_end_matches("'s").to_lowercase());
    first.is_some_and(|w| QUESTION_OPENERS.contains(&w.as_str()))
}

/// The distinct analysed terms of a query, in order, each with its weight: `question_weight`
/// for a [question word](QUESTION_WORDS) of a query that [reads as a
/// question](looks_like_question), else 1. When every term is a question word (`what is this`),
/// all weigh 1: the query is taken as typed. Terms of weight 0 are left out.
pub fn weighted_query_terms(query: &str, question_weight: f32) -> Vec<(String, f32)> {
    let question_weight = if looks_like_question(query) { question_weight } else { 1.0 };
    let mut seen = std::collections::HashSet::new();
    let mut terms: Vec<(String, bool)> = Vec::new();
    for (_, term) in analyze(&mut index_analyzer(), query) {
        if seen.insert(term.clone()) {
            let q = is_question_term(&term);
            terms.push((term, q));
        }
    }
    let all_questions = terms.iter().all(|(_, q)| *q);
    terms
        .into_iter()
        .map(|(t, q)| (t, if q && !all_questions { question_weight.max(0.0) } else { 1.0 }))
        .filter(|(_, w)| *w > 0.0)
        .collect()
}

/// Registers both analyzers on `index`. Call it after every create or open.
pub fn register(index: &Index) {
    let manager = index.tokenizers();
    manager.register(INDEX_TOKENIZER, index_analyzer());
    manager.register(PHRASE_TOKENIZER, phrase_analyzer());
}

/// The index-side analyzer: whole code tokens, their parts, and prose words.
pub fn index_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(CodeTokenizer { whole_tokens: true })
        .filter(AsciiFoldingFilter)
        .filter(Stemmer::new(Language::English))
        .build()
}

/// The phrase analyzer: parts and prose words only, at consecutive positions.
pub fn phrase_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(CodeTokenizer { whole_tokens: false })
        .filter(AsciiFoldingFilter)
        .filter(Stemmer::new(Language::English))
        .build()
}

/// Runs `analyzer` over `text` and returns `(position, term)` pairs.
pub fn analyze(analyzer: &mut TextAnalyzer, text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while let Some(token) = stream.next() {
        out.push((token.position, token.text.clone()));
    }
    out
}

/// Characters that join the parts of an identifier inside one source token.
fn is_joiner(c: char) -> bool {
    matches!(c, '_' | '.' | '/' | '\\' | '-' | ':' | '@')
}

/// The tokenizer at the head of both analyzers (before folding and stemming).
#[derive(Clone, Debug)]
pub struct CodeTokenizer {
    /// Emit whole code tokens (index side) besides their parts.
    whole_tokens: bool,
}

/// A token stream over a precomputed list of tokens.
pub struct CodeTokenStream {
    tokens: Vec<Token>,
    cursor: usize,
}

impl TokenStream for CodeTokenStream {
    fn advance(&mut self) -> bool {
        if self.cursor < self.tokens.len() {
            self.cursor += 1;
            true
        } else {
            false
        }
    }

    fn token(&self) -> &Token {
        &self.tokens[self.cursor - 1]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.cursor - 1]
    }
}

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = CodeTokenStream;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CodeTokenStream {
        let mut tokens = Vec::new();
        let mut position = 0usize;
        let markers = redaction_markers(text);
        for (start, end) in source_tokens(text) {
            if markers.iter().any(|&(from, to)| start >= from && end <= to) {
                continue;
            }
            self.emit(text, start, end, &mut position, &mut tokens);
        }
        CodeTokenStream { tokens, cursor: 0 }
    }
}

impl CodeTokenizer {
    /// Emits the tokens of the source token `text[start..end]`.
    fn emit(
        &self,
        text: &str,
        start: usize,
        end: usize,
        position: &mut usize,
        out: &mut Vec<Token>,
    ) {
        let source = &text[start..end];
        let parts = split_parts(source);
        if parts.is_empty() {
            return;
        }
        let is_code = parts.len() > 1;
        if !is_code {
            let word = source.to_lowercase();
            if word.len() > MAX_TOKEN_BYTES || STOPWORDS.contains(&word.as_str()) {
                return;
            }
            push(out, word, start, end, *position);
            *position += 1;
            return;
        }
        let base = *position;
        if self.whole_tokens {
            let whole = source.to_lowercase();
            if whole.len() <= MAX_TOKEN_BYTES {
                push(out, whole, start, end, base);
            }
            // Compound path segments: `auth.py` of `src/auth.py`.
            if source.contains(['/', '\\']) {
                let mut seg_start = 0;
                for segment in source.split(['/', '\\']) {
                    let seg_from = start + seg_start;
                    seg_start += segment.len() + 1;
                    if segment.len() > MAX_TOKEN_BYTES || split_parts(segment).len() < 2 {
                        continue;
                    }
                    let trimmed = segment.trim_matches(is_joiner);
                    if !trimmed.is_empty() {
                        let offset = seg_from
                            + (segment.len() - segment.trim_start_matches(is_joiner).len());
                        push(out, trimmed.to_lowercase(), offset, offset + trimmed.len(), base);
                    }
                }
            }
        }
        for (i, &(from, to)) in parts.iter().enumerate() {
            let part = source[from..to].to_lowercase();
            if part.len() <= MAX_TOKEN_BYTES {
                push(out, part, start + from, start + to, base + i);
            }
        }
        *position = base + parts.len();
    }
}

fn push(out: &mut Vec<Token>, text: String, from: usize, to: usize, position: usize) {
    out.push(Token { offset_from: from, offset_to: to, position, text, position_length: 1 });
}

/// Byte ranges of the markers redaction writes in place of private text (`[redacted]`) and
/// secrets (`«redacted:<kind>»`, see [`crate::privacy`]). They are not words of the memory, so
/// they are never indexed: a query for "redacted" or "api key" must not find every memory that
/// once held a key.
fn redaction_markers(text: &str) -> Vec<(usize, usize)> {
    const PRIVATE: &str = "[redacted]";
    const SECRET: &str = "«redacted:";
    if !text.contains("redacted") {
        return Vec::new();
    }
    let mut out: Vec<(usize, usize)> =
        text.match_indices(PRIVATE).map(|(i, m)| (i, i + m.len())).collect();
    for (i, m) in text.match_indices(SECRET) {
        let rest = &text[i + m.len()..];
        let kind = rest
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
            .unwrap_or(rest.len());
        if kind > 0 && rest[kind..].starts_with('»') {
            out.push((i, i + m.len() + kind + '»'.len_utf8()));
        }
    }
    out
}

/// Byte ranges of the source tokens of `text`: maximal runs of alphanumerics and joiners, with
/// leading and trailing joiners trimmed (`end.` → `end`, `/path/` → `path`).
fn source_tokens(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut run_start: Option<usize> = None;
    let flush = |from: usize, to: usize, out: &mut Vec<(usize, usize)>| {
        let run = &text[from..to];
        let lead = run.len() - run.trim_start_matches(is_joiner).len();
        let trimmed = run.trim_matches(is_joiner);
        if !trimmed.is_empty() {
            out.push((from + lead, from + lead + trimmed.len()));
        }
    };
    for (i, c) in text.char_indices() {
        let inside = c.is_alphanumeric() || is_joiner(c);
        match (inside, run_start) {
            (true, None) => run_start = Some(i),
            (false, Some(s)) => {
                flush(s, i, &mut out);
                run_start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = run_start {
        flush(s, text.len(), &mut out);
    }
    out
}

/// Byte ranges (relative to `token`) of the parts of a source token: split at joiners and at
/// camelCase boundaries (`camelCase` → `camel`, `Case`; `HTTPServer` → `HTTP`, `Server`;
/// `base64Encode` → `base64`, `Encode`).
fn split_parts(token: &str) -> Vec<(usize, usize)> {
    let mut parts = Vec::new();
    let chars: Vec<(usize, char)> = token.char_indices().collect();
    let mut start: Option<usize> = None;
    for (k, &(i, c)) in chars.iter().enumerate() {
        if is_joiner(c) {
            if let Some(s) = start.take() {
                parts.push((s, i));
            }
            continue;
        }
        match start {
            None => start = Some(i),
            Some(s) => {
                let prev = chars[k - 1].1;
                let next = chars.get(k + 1).map(|&(_, n)| n);
                let boundary = c.is_uppercase()
                    && (prev.is_lowercase()
                        || (prev.is_numeric() && has_lower_since(&chars[..k], s))
                        || (prev.is_uppercase() && next.is_some_and(char::is_lowercase)));
                if boundary {
                    parts.push((s, i));
                    start = Some(i);
                }
            }
        }
    }
    if let Some(s) = start {
        parts.push((s, token.len()));
    }
    parts
}

/// True when the part that started at byte `start` (the chars before `chars.len()`) contains a
/// lowercase letter: `base64Encode` splits before `E`, `4K` does not split.
fn has_lower_since(chars: &[(usize, char)], start: usize) -> bool {
    chars.iter().filter(|&&(i, _)| i >= start).any(|&(_, c)| c.is_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<String> {
        analyze(&mut index_analyzer(), text).into_iter().map(|(_, t)| t).collect()
    }

    fn phrase_terms(text: &str) -> Vec<(usize, String)> {
        analyze(&mut phrase_analyzer(), text)
    }

    #[test]
    fn path_emits_whole_segments_and_parts() {
        // Whole tokens are stemmed like everything else (`py` → `pi`), on both sides alike.
        let t = terms("see src/auth.py.");
        for want in ["see", "src/auth.pi", "auth.pi", "src", "auth", "py"] {
            assert!(t.iter().any(|x| x == want), "{want} missing from {t:?}");
        }
    }

    #[test]
    fn snake_and_camel_case() {
        let t = terms("snake_case camelCase HTTPServer");
        for want in ["snake_cas", "snake", "case", "camelcas", "camel", "http", "server"] {
            assert!(t.iter().any(|x| x == want), "{want} missing from {t:?}");
        }
        // The query `camelcase` is a prose word; it meets the whole code token.
        assert_eq!(terms("camelcase"), vec!["camelcas".to_string()]);
    }

    #[test]
    fn versions_and_prose() {
        let t = terms("Upgrade to v1.2 with npm ci");
        assert!(t.contains(&"v1.2".to_string()), "{t:?}");
        assert!(t.contains(&"v1".to_string()), "{t:?}");
        assert!(t.contains(&"npm".to_string()), "{t:?}");
        assert!(t.contains(&"ci".to_string()), "{t:?}");
        assert!(!t.contains(&"to".to_string()), "stopword kept: {t:?}");
        assert!(!t.contains(&"with".to_string()), "stopword kept: {t:?}");
    }

    #[test]
    fn stemming_and_folding() {
        assert_eq!(terms("indexing"), terms("indexed"));
        assert_eq!(terms("café"), terms("cafe"));
    }

    #[test]
    fn code_parts_keep_stopwords() {
        let t = terms("is_valid");
        assert!(t.contains(&"is".to_string()), "{t:?}");
    }

    #[test]
    fn phrase_positions_are_consecutive_parts() {
        let t = phrase_terms("open src/auth.py now");
        let texts: Vec<&str> = t.iter().map(|(_, s)| s.as_str()).collect();
        assert_eq!(texts, ["open", "src", "auth", "py", "now"]);
        let positions: Vec<usize> = t.iter().map(|(p, _)| *p).collect();
        assert_eq!(positions, [0, 1, 2, 3, 4]);
    }

    #[test]
    fn split_parts_boundaries() {
        let parts = |s: &str| -> Vec<String> {
            split_parts(s).into_iter().map(|(a, b)| s[a..b].to_string()).collect()
        };
        assert_eq!(parts("base64Encode"), ["base64", "Encode"]);
        assert_eq!(parts("HTTPServer"), ["HTTP", "Server"]);
        assert_eq!(parts("ABC"), ["ABC"]);
        assert_eq!(parts("IL-6"), ["IL", "6"]);
        assert_eq!(parts("4K"), ["4K"]);
        assert_eq!(parts("sha256"), ["sha256"]);
    }

    #[test]
    fn question_words_weigh_question_weight_unless_nothing_else_is_left() {
        let w = |q: &str, x: f32| -> Vec<(String, f32)> { weighted_query_terms(q, x) };
        let terms: Vec<String> =
            w("Which database did we pick?", 0.0).into_iter().map(|(t, _)| t).collect();
        assert_eq!(terms, ["databas", "pick"]);
        let half = w("which database", 0.5);
        assert_eq!(half, [("which".to_owned(), 0.5), ("databas".to_owned(), 1.0)]);
        // Only question words: the query is taken as typed.
        assert_eq!(w("what have you done", 0.0).len(), 4);
        // `May` the month and `US` the country are content.
        assert!(w("what happened in May in the US", 0.0).iter().any(|(t, _)| t == "may"));
        assert!(w("what happened in May in the US", 0.0).iter().any(|(t, _)| t == "us"));
        // Repeated terms once.
        assert_eq!(w("redis redis", 0.0).len(), 1);
        // A statement keeps every word; the same words as a question lose theirs.
        assert_eq!(w("more sleep improves recall in most adults", 0.0).len(), 6);
        assert_eq!(w("does more sleep improve recall?", 0.0).len(), 3);
        assert!(looks_like_question("In what year did we move to Kubernetes"));
        assert!(looks_like_question("What's our cache strategy"));
        assert!(!looks_like_question("postgres transactions orders"));
    }

    #[test]
    fn redaction_markers_are_not_words() {
        let text = "db [redacted] at postgres://app:«redacted:connection-string»@db/app, token «redacted:api-key» here";
        let got = terms(text);
        for marker_word in ["redact", "redacted", "connect", "connection", "string", "api", "key"] {
            assert!(!got.iter().any(|t| t == marker_word), "{marker_word} in {got:?}");
        }
        for word in ["db", "postgr", "app", "here"] {
            assert!(got.iter().any(|t| t.starts_with(word)), "{word} missing from {got:?}");
        }
        // Only the exact marker forms: the word itself, or a malformed marker, is text.
        assert!(terms("the redacted report").iter().any(|t| t.starts_with("redact")));
        assert!(terms("«redacted:» «redacted:x").iter().any(|t| t.starts_with("redact")));
    }

    #[test]
    fn hostile_text_does_not_panic() {
        let long = "a".repeat(10_000);
        assert!(terms(&long).is_empty());
        let _ = terms("\"[(*)]\\ 🦀 -+: ::: ... ///");
        let _ = terms("日本語のテキスト");
    }
}
