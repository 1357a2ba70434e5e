//! A BERT WordPiece tokenizer that loads in about a millisecond.
//!
//! Parsing `tokenizer.json` with the `tokenizers` crate costs 12–28 ms, in every process that
//! embeds (a fresh `memlane search` with the MiniLM model pays it before it can embed the query).
//! Almost every sentence-transformer memlane runs (all-MiniLM, bge, e5, arctic-embed) uses the
//! plain BERT pipeline: `BertNormalizer`, `BertPreTokenizer`, `WordPiece`, `[CLS] $A [SEP]`. For
//! those, [`WordPiece::from_tokenizer_json`] reads the settings and the vocabulary once, and
//! [`WordPiece::save`] keeps them in memlane's data directory as a small text file keyed by the
//! hash of `tokenizer.json`'s bytes, which [`WordPiece::load`] reads back (a vocabulary line per
//! id: one read, one hash map). Any other tokenizer (another model type, added tokens with
//! options, a different template) is left to the `tokenizers` crate.
//!
//! It reproduces the `tokenizers` crate's ids for the same settings (test:
//! `wordpiece_matches_the_tokenizers_crate`, over real dialogue and abstracts, accents, CJK,
//! control characters, special tokens and random text).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use unicode_categories::UnicodeCategories;
use unicode_normalization_alignments::UnicodeNormalization;

/// Bumped when the cache file's layout or the tokenizer's behaviour changes.
const CACHE_FORMAT: u32 = 1;

/// The settings of a BERT WordPiece pipeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Settings {
    format: u32,
    clean_text: bool,
    handle_chinese_chars: bool,
    strip_accents: bool,
    lowercase: bool,
    unk: u32,
    cls: u32,
    sep: u32,
    prefix: String,
    max_chars: usize,
    /// Special tokens matched in the raw text before normalization, as the `tokenizers`
    /// crate's added vocabulary does: (content, id).
    special: Vec<(String, u32)>,
}

/// A BERT WordPiece tokenizer: see the module documentation.
#[derive(Debug, Clone)]
pub(super) struct WordPiece {
    settings: Settings,
    vocab: Vocab,
    /// Tokens in id order (what the cache file stores); empty when read from the cache.
    tokens: Vec<String>,
}

/// Token → id, with a fast hash (the map is built in every process that embeds).
type Vocab = HashMap<Box<str>, u32, xxhash_rust::xxh3::Xxh3Builder>;

// What `tokenizer.json` must say for this tokenizer to apply.
#[derive(Deserialize)]
struct Json {
    normalizer: Option<NormalizerJson>,
    pre_tokenizer: Option<TypeOnly>,
    model: ModelJson,
    post_processor: Option<serde_json::Value>,
    #[serde(default)]
    added_tokens: Vec<AddedJson>,
}

#[derive(Deserialize)]
struct TypeOnly {
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Deserialize)]
struct NormalizerJson {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default = "yes")]
    clean_text: bool,
    #[serde(default = "yes")]
    handle_chinese_chars: bool,
    #[serde(default)]
    strip_accents: Option<bool>,
    #[serde(default = "yes")]
    lowercase: bool,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
struct ModelJson {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    vocab: HashMap<String, u32>,
    unk_token: Option<String>,
    continuing_subword_prefix: Option<String>,
    max_input_chars_per_word: Option<usize>,
}

#[derive(Deserialize)]
struct AddedJson {
    id: u32,
    content: String,
    #[serde(default)]
    single_word: bool,
    #[serde(default)]
    lstrip: bool,
    #[serde(default)]
    rstrip: bool,
    #[serde(default)]
    normalized: bool,
}

impl WordPiece {
    /// The tokenizer `tokenizer.json` (its bytes) describes, when it is the plain BERT pipeline
    /// this module implements; `None` for anything else.
    pub(super) fn from_tokenizer_json(bytes: &[u8]) -> Option<WordPiece> {
        let json: Json = serde_json::from_slice(bytes).ok()?;
        let n = json.normalizer?;
        if n.kind != "BertNormalizer" || json.pre_tokenizer?.kind != "BertPreTokenizer" {
            return None;
        }
        let m = json.model;
        if m.kind != "WordPiece" || m.vocab.is_empty() {
            return None;
        }
        // Special tokens are matched as they are; any option on them is not implemented here.
        if json.added_tokens.iter().any(|a| a.single_word || a.lstrip || a.rstrip || a.normalized) {
            return None;
        }
        let (cls, sep) = template_ends(&json.post_processor?)?;
        let id_of = |t: &str| m.vocab.get(t).copied();
        let unk = id_of(m.unk_token.as_deref().unwrap_or("[UNK]"))?;
        // Ids are dense: the cache stores tokens by id.
        let mut tokens = vec![String::new(); m.vocab.len()];
        for (t, &id) in &m.vocab {
            *tokens.get_mut(id as usize)? = t.clone();
        }
        if tokens.iter().any(String::is_empty) {
            return None;
        }
        let mut special: Vec<(String, u32)> =
            json.added_tokens.into_iter().map(|a| (a.content, a.id)).collect();
        // Longest first: a leftmost-longest match, as the added vocabulary does.
        special.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
        let settings = Settings {
            format: CACHE_FORMAT,
            clean_text: n.clean_text,
            handle_chinese_chars: n.handle_chinese_chars,
            strip_accents: n.strip_accents.unwrap_or(n.lowercase),
            lowercase: n.lowercase,
            unk,
            cls: id_of(&cls)?,
            sep: id_of(&sep)?,
            prefix: m.continuing_subword_prefix.unwrap_or_else(|| "##".to_owned()),
            max_chars: m.max_input_chars_per_word.unwrap_or(100),
            special,
        };
        let vocab = m.vocab.into_iter().map(|(t, id)| (t.into_boxed_str(), id)).collect();
        Some(WordPiece { settings, vocab, tokens })
    }

    /// The vocabulary size.
    pub(super) fn vocab_size(&self) -> usize {
        self.vocab.len()
    }

    /// Where the tokenizer of a `tokenizer.json` with these bytes is kept, in `cache_dir`.
    pub(super) fn cache_path(cache_dir: &Path, tokenizer_json: &[u8]) -> PathBuf {
        let hash = xxhash_rust::xxh3::xxh3_64(tokenizer_json);
        cache_dir.join(format!("{hash:016x}.wordpiece"))
    }

    /// Reads a tokenizer [`save`](Self::save)d at `path`; `None` when it is missing or not a
    /// whole, well-formed file of this format.
    pub(super) fn load(path: &Path) -> Option<WordPiece> {
        Self::from_cache_text(&std::fs::read_to_string(path).ok()?)
    }

    /// Parses the text [`to_cache_text`](Self::to_cache_text) wrote; `None` when it is not a
    /// whole, well-formed text of this format.
    pub(super) fn from_cache_text(text: &str) -> Option<WordPiece> {
        let (head, body) = text.split_once('\n')?;
        let settings: Settings = serde_json::from_str(head).ok()?;
        if settings.format != CACHE_FORMAT {
            return None;
        }
        let body = body.strip_suffix("\nend\n")?;
        let lines = body.split('\n');
        let mut vocab = Vocab::with_capacity_and_hasher(body.len() / 6, Default::default());
        let mut count = 0;
        for (id, token) in lines.enumerate() {
            vocab.insert(token.into(), id as u32);
            count += 1;
        }
        let max = [settings.unk, settings.cls, settings.sep].into_iter().max()?;
        if vocab.len() != count || max as usize >= count {
            return None;
        }
        Some(WordPiece { settings, vocab, tokens: Vec::new() })
    }

    /// The tokens in id order (rebuilt from the vocabulary when read from a cache); `None` when
    /// the ids are not dense.
    pub(super) fn tokens(&self) -> Option<Vec<String>> {
        if self.tokens.len() == self.vocab.len() {
            return Some(self.tokens.clone());
        }
        let mut tokens = vec![None; self.vocab.len()];
        for (t, &id) in &self.vocab {
            *tokens.get_mut(id as usize)? = Some(t.to_string());
        }
        tokens.into_iter().collect()
    }

    /// The ids of `[CLS]`, `[SEP]` and `[UNK]`, and of the special tokens matched in raw text.
    pub(super) fn special_ids(&self) -> Vec<u32> {
        let s = &self.settings;
        let mut ids = vec![s.cls, s.sep, s.unk];
        ids.extend(s.special.iter().map(|(_, id)| *id));
        ids
    }

    /// The settings and vocabulary as text (a JSON line, then a token per line in id order,
    /// then `end`), for [`from_cache_text`](Self::from_cache_text); `None` when a token holds a
    /// line break or the ids are not dense.
    pub(super) fn to_cache_text(&self) -> Option<String> {
        let tokens = self.tokens()?;
        if tokens.iter().any(|t| t.contains('\n')) {
            return None;
        }
        let mut text = serde_json::to_string(&self.settings).expect("settings serialise");
        text.push('\n');
        text.push_str(&tokens.join("\n"));
        text.push_str("\nend\n");
        Some(text)
    }

    /// Writes this tokenizer to `path` (atomically), for [`load`](Self::load).
    pub(super) fn save(&self, path: &Path) -> Result<(), crate::error::PathError> {
        if self.tokens.len() != self.vocab.len() {
            return Ok(()); // read from a cache: not cached again
        }
        let Some(text) = self.to_cache_text() else { return Ok(()) }; // not one token per line
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| crate::error::PathError {
                action: "create",
                path: dir.to_owned(),
                source,
            })?;
        }
        crate::disk::atomic_write(path, text.as_bytes())
    }

    /// The ids of `text`: `[CLS]`, its word pieces (at most `max_tokens - 2`), `[SEP]`.
    pub(super) fn encode(&self, text: &str, max_tokens: usize) -> Vec<u32> {
        let s = &self.settings;
        let mut ids = vec![s.cls];
        let room = max_tokens.saturating_sub(2);
        let mut rest = text;
        while ids.len() - 1 < room {
            // The next special token in the raw text (leftmost, then longest).
            let next = s
                .special
                .iter()
                .filter_map(|(content, id)| {
                    rest.find(content.as_str()).map(|at| (at, content, *id))
                })
                .min_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.len().cmp(&a.1.len())));
            let (plain, special) = match next {
                Some((at, content, id)) if !content.is_empty() => {
                    (&rest[..at], Some((id, at + content.len())))
                }
                _ => (rest, None),
            };
            self.encode_plain(plain, &mut ids, room + 1);
            match special {
                Some((id, end)) => {
                    if ids.len() - 1 < room {
                        ids.push(id);
                    }
                    rest = &rest[end..];
                }
                None => break,
            }
        }
        ids.truncate(room + 1);
        ids.push(s.sep);
        ids
    }

    /// Normalizes, splits and word-pieces `text`, pushing ids until `ids` holds `limit`.
    fn encode_plain(&self, text: &str, ids: &mut Vec<u32>, limit: usize) {
        if text.is_empty() || ids.len() >= limit {
            return;
        }
        let normalized = self.normalize(text);
        let mut word = String::new();
        let flush = |word: &mut String, ids: &mut Vec<u32>| {
            if !word.is_empty() && ids.len() < limit {
                self.word_pieces(word, ids);
            }
            word.clear();
        };
        for c in normalized.chars() {
            if ids.len() >= limit {
                return;
            }
            if c.is_whitespace() {
                flush(&mut word, ids);
            } else if c.is_ascii_punctuation() || c.is_punctuation() {
                flush(&mut word, ids);
                word.push(c);
                flush(&mut word, ids);
            } else {
                word.push(c);
            }
        }
        flush(&mut word, ids);
    }

    /// The `BertNormalizer`'s steps, in its order.
    fn normalize(&self, text: &str) -> String {
        let s = &self.settings;
        let mut out: String = if s.clean_text {
            text.chars()
                .filter(|&c| {
                    !(c == '\0'
                        || c == '\u{fffd}'
                        || (!matches!(c, '\t' | '\n' | '\r') && c.is_other()))
                })
                .map(|c| if matches!(c, '\t' | '\n' | '\r') || c.is_whitespace() { ' ' } else { c })
                .collect()
        } else {
            text.to_owned()
        };
        if s.handle_chinese_chars && out.chars().any(is_chinese_char) {
            let mut spaced = String::with_capacity(out.len() + 16);
            for c in out.chars() {
                if is_chinese_char(c) {
                    spaced.push(' ');
                    spaced.push(c);
                    spaced.push(' ');
                } else {
                    spaced.push(c);
                }
            }
            out = spaced;
        }
        if s.strip_accents && !out.is_ascii() {
            out = out.nfd().map(|(c, _)| c).filter(|c| !c.is_mark_nonspacing()).collect();
        }
        if s.lowercase {
            // Char by char, as the `tokenizers` crate does (no final-sigma rule).
            out = out.chars().flat_map(char::to_lowercase).collect();
        }
        out
    }

    /// WordPiece on one word: greedy longest match, `##` for a piece inside the word, the whole
    /// word `[UNK]` when a piece cannot be matched or the word is too long.
    fn word_pieces(&self, word: &str, ids: &mut Vec<u32>) {
        let s = &self.settings;
        if word.chars().count() > s.max_chars {
            ids.push(s.unk);
            return;
        }
        let mut pieces = Vec::new();
        let mut start = 0;
        let mut candidate = String::new();
        while start < word.len() {
            let mut end = word.len();
            let mut found = None;
            while start < end {
                candidate.clear();
                if start > 0 {
                    candidate.push_str(&s.prefix);
                }
                candidate.push_str(&word[start..end]);
                if let Some(&id) = self.vocab.get(candidate.as_str()) {
                    found = Some(id);
                    break;
                }
                end -= word[start..end].chars().next_back().map_or(1, char::len_utf8);
            }
            match found {
                Some(id) => {
                    pieces.push(id);
                    start = end;
                }
                None => {
                    ids.push(s.unk);
                    return;
                }
            }
        }
        ids.extend(pieces);
    }
}

/// The special tokens around a single sequence: `[CLS] $A [SEP]` of a `TemplateProcessing` or
/// a `BertProcessing`, as (first, last) token strings.
fn template_ends(post: &serde_json::Value) -> Option<(String, String)> {
    match post.get("type")?.as_str()? {
        "BertProcessing" => {
            let cls = post.get("cls")?.get(0)?.as_str()?.to_owned();
            let sep = post.get("sep")?.get(0)?.as_str()?.to_owned();
            Some((cls, sep))
        }
        "TemplateProcessing" => {
            let single = post.get("single")?.as_array()?;
            let [first, middle, last] = single.as_slice() else { return None };
            middle.get("Sequence")?;
            let special = |v: &serde_json::Value| -> Option<String> {
                let t = v.get("SpecialToken")?;
                (t.get("type_id")?.as_u64()? == 0).then_some(())?;
                let id = t.get("id")?.as_str()?;
                // The template's token must be one token of that name.
                let entry = post.get("special_tokens")?.get(id)?;
                let tokens = entry.get("tokens")?.as_array()?;
                (tokens.len() == 1 && tokens[0].as_str()? == id).then(|| id.to_owned())
            };
            (middle.get("Sequence")?.get("type_id")?.as_u64()? == 0).then_some(())?;
            Some((special(first)?, special(last)?))
        }
        _ => None,
    }
}

fn is_chinese_char(c: char) -> bool {
    matches!(
        c as u32,
        0x4E00..=0x9FFF
            | 0x3400..=0x4DBF
            | 0x20000..=0x2A6DF
            | 0x2A700..=0x2B73F
            | 0x2B740..=0x2B81F
            | 0x2B920..=0x2CEAF
            | 0xF900..=0xFAFF
            | 0x2F800..=0x2FA1F
    )
}
