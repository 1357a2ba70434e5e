//! Query-term expansion: sub-words and abbreviations, from the vault's own vocabulary.
//!
//! A memory titled "Auth refactor" should answer `authentication`, one that says `k8s` should
//! answer `kubernetes`, and `postgres` should find `PostgreSQL`. The analyzer's stemmer does not
//! relate these forms, so a query term (analysed like the documents) may also match:
//!
//! - **abbreviations**: the other side of a pair of [`ABBREVIATIONS`] (`k8s` ↔ `kubernetes`,
//!   `pg` ↔ `postgres`, `auth` ↔ `authentication`, …), in both directions;
//! - **sub-words**: a term of the vault that the query term is a prefix of (`postgr` of
//!   `postgres` → `postgresql`), or that is a prefix of the query term (`authent` of
//!   `authentication` → `auth`), read from the index's term dictionary. Only when the vault does
//!   not contain the query term itself: a word the vault uses is answered by its own memories,
//!   and guessing at its relatives would only move them down.
//!
//! Bounds, so a short or common term never matches everything: both terms of a sub-word pair
//! are alphabetic, the shorter has at least [`MIN_STEM_CHARS`] characters and at least half of
//! the longer's; a term expands to at most [`MAX_EXPANSIONS`] vault terms (abbreviations first,
//! then the sub-words closest in length, then the more frequent), and a dictionary scan reads at
//! most [`MAX_SCANNED_TERMS`] entries. Every expansion must occur in the vault.
//!
//! An expansion scores below the term itself: in BM25 its clause is boosted by
//! `search.expansion_weight`, inside the same dis-max as the term (a chunk with both scores as
//! the better of the two), and in query-term coverage a chunk that has only an expansion counts
//! the term at that weight.

use std::collections::{BTreeMap, HashMap};
use std::sync::LazyLock;

use tantivy::Term;

use super::{KeywordError, KeywordIndex, analyzer};

/// Common technical abbreviations and the words they stand for, declared once. Each pair
/// expands both ways (`auth` finds `authentication` and `authentication` finds `auth`), except
/// from the long forms of [`ONE_WAY`]; two long forms of one abbreviation are not related to
/// each other.
pub const ABBREVIATIONS: &[(&str, &[&str])] = &[
    ("k8s", &["kubernetes"]),
    ("pg", &["postgres", "postgresql"]),
    ("postgres", &["postgresql"]),
    ("mongo", &["mongodb"]),
    ("db", &["database"]),
    ("auth", &["authentication", "authorization"]),
    ("authn", &["authentication"]),
    ("authz", &["authorization"]),
    ("js", &["javascript"]),
    ("ts", &["typescript"]),
    ("repo", &["repository"]),
    ("config", &["configuration"]),
    ("cfg", &["config", "configuration"]),
    ("env", &["environment"]),
    ("infra", &["infrastructure"]),
    ("deps", &["dependencies"]),
    ("msg", &["message"]),
    ("err", &["error"]),
    ("req", &["request"]),
    ("resp", &["response"]),
    ("impl", &["implementation"]),
    ("perf", &["performance"]),
    ("spec", &["specification"]),
    ("admin", &["administrator"]),
    ("svc", &["service"]),
    ("ctx", &["context"]),
    ("fn", &["function"]),
    ("func", &["function"]),
    ("param", &["parameter"]),
    ("arg", &["argument"]),
    ("tmp", &["temporary"]),
    ("async", &["asynchronous"]),
    ("tf", &["terraform"]),
    ("gh", &["github"]),
    ("i18n", &["internationalization"]),
    ("l10n", &["localization"]),
    ("a11y", &["accessibility"]),
    ("o11y", &["observability"]),
];

/// Long forms of [`ABBREVIATIONS`] whose stem is also an everyday word (`author`, `specif`ic,
/// `perform`, `access`, `local`, `observ`e): the abbreviation finds them, they do not find it.
pub const ONE_WAY: &[&str] = &[
    "authorization",
    "specification",
    "performance",
    "accessibility",
    "localization",
    "observability",
];

/// The shorter term of a sub-word pair has at least this many characters (`auth`, not `au`).
pub const MIN_STEM_CHARS: usize = 4;

/// A query term expands to at most this many vault terms.
pub const MAX_EXPANSIONS: usize = 4;

/// A prefix scan of a field's term dictionary reads at most this many entries.
pub const MAX_SCANNED_TERMS: usize = 512;

/// The default weight of an expansion relative to the term itself (`search.expansion_weight`).
pub const DEFAULT_EXPANSION_WEIGHT: f32 = 0.5;

/// How query terms expand (`search.expand_terms`, `search.expansion_weight`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Expansion {
    /// Whether query terms expand at all.
    pub enabled: bool,
    /// An expansion's weight relative to the term itself, in [0, 1] (0 turns expansion off).
    pub weight: f32,
}

impl Expansion {
    /// No expansion: every query term matches only itself.
    pub const OFF: Self = Self { enabled: false, weight: 0.0 };

    /// Expansion on, at `weight` (clamped to [0, 1]).
    pub fn new(enabled: bool, weight: f32) -> Self {
        let weight = if weight.is_finite() { weight.clamp(0.0, 1.0) } else { 0.0 };
        Self { enabled, weight }
    }

    /// True when expansions are looked up and scored.
    pub fn is_on(&self) -> bool {
        self.enabled && self.weight > 0.0
    }
}

impl Default for Expansion {
    fn default() -> Self {
        Self::new(true, DEFAULT_EXPANSION_WEIGHT)
    }
}

/// Why a vault term is an expansion of a query term.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ExpansionKind {
    /// A pair of [`ABBREVIATIONS`].
    Abbreviation,
    /// One term is a prefix of the other.
    Subword,
}

/// One expansion of a query term: a term of the vault it may match instead.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ExpandedTerm {
    /// The query's analysed term.
    pub from: String,
    /// The vault's analysed term it expands to.
    pub to: String,
    /// Why.
    pub kind: ExpansionKind,
}

impl std::fmt::Display for ExpandedTerm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}→{}", self.from, self.to)
    }
}

/// The analysed forms of [`ABBREVIATIONS`]: each term with the terms it expands to.
fn abbreviation_terms() -> &'static HashMap<String, Vec<String>> {
    static TERMS: LazyLock<HashMap<String, Vec<String>>> = LazyLock::new(|| {
        let mut analyzer = analyzer::index_analyzer();
        let mut one = |word: &str| -> Option<String> {
            let terms = analyzer::analyze(&mut analyzer, word);
            (terms.len() == 1).then(|| terms[0].1.clone())
        };
        let mut map: HashMap<String, Vec<String>> = HashMap::new();
        for (short, longs) in ABBREVIATIONS {
            let Some(short) = one(short) else { continue };
            for word in *longs {
                let Some(long) = one(word) else { continue };
                if long == short {
                    continue;
                }
                let back = !ONE_WAY.contains(word);
                for (a, b) in
                    [(&short, &long), (&long, &short)].into_iter().take(1 + usize::from(back))
                {
                    let to = map.entry(a.clone()).or_default();
                    if !to.contains(b) {
                        to.push(b.clone());
                    }
                }
            }
        }
        map
    });
    &TERMS
}

/// True when `term` may take part in a sub-word pair: letters only (no digits, no joiners of a
/// code token).
fn subword_candidate(term: &str) -> bool {
    !term.is_empty() && term.chars().all(char::is_alphabetic)
}

/// True when `short` (a proper prefix of `long`) is long enough to stand for it.
fn subword_pair(short: &str, long: &str) -> bool {
    let (s, l) = (short.chars().count(), long.chars().count());
    s >= MIN_STEM_CHARS
        && s < l
        && 2 * s >= l
        && subword_candidate(short)
        && subword_candidate(long)
}

impl KeywordIndex {
    /// The chunks that contain `term` in any text field (the most over the fields).
    pub(super) fn doc_freq(&self, searcher: &tantivy::Searcher, term: &str) -> u64 {
        let f = &self.fields;
        [f.body, f.title, f.headers, f.tags]
            .into_iter()
            .map(|field| searcher.doc_freq(&Term::from_field_text(field, term)).unwrap_or(0))
            .max()
            .unwrap_or(0)
    }

    /// The expansions of each of `terms` (analysed query terms) in this vault, at most
    /// [`MAX_EXPANSIONS`] each, none when `expansion` is off. See the [module docs](self).
    pub fn expand_terms(
        &self,
        terms: &[&str],
        expansion: Expansion,
    ) -> Result<Vec<Vec<ExpandedTerm>>, KeywordError> {
        let mut out = vec![Vec::new(); terms.len()];
        if !expansion.is_on() {
            return Ok(out);
        }
        let searcher = self.reader.searcher();
        let f = &self.fields;
        for (term, expanded) in terms.iter().zip(&mut out) {
            // The query's own terms are no expansions (`pg postgres` counts `postgres` once).
            let mut seen: Vec<String> = terms.iter().map(|t| (*t).to_owned()).collect();
            let mut push = |to: String, kind: ExpansionKind, expanded: &mut Vec<ExpandedTerm>| {
                if expanded.len() < MAX_EXPANSIONS && !seen.contains(&to) {
                    seen.push(to.clone());
                    expanded.push(ExpandedTerm { from: (*term).to_owned(), to, kind });
                }
            };
            if let Some(alternatives) = abbreviation_terms().get(*term) {
                for alt in alternatives {
                    if self.doc_freq(&searcher, alt) > 0 {
                        push(alt.clone(), ExpansionKind::Abbreviation, expanded);
                    }
                }
            }
            if !subword_candidate(term)
                || term.chars().count() < MIN_STEM_CHARS
                || self.doc_freq(&searcher, term) > 0
            {
                continue;
            }
            // Sub-words of the vault, each with its largest chunk count in one segment and
            // field (it only orders them).
            let mut found: BTreeMap<String, u64> = BTreeMap::new();
            let chars: Vec<(usize, char)> = term.char_indices().collect();
            for segment in searcher.segment_readers() {
                for field in [f.title, f.headers, f.body, f.tags] {
                    let inverted = segment
                        .inverted_index(field)
                        .map_err(super::tantivy_err("read the term dictionary"))?;
                    let mut per_field: BTreeMap<String, u64> = BTreeMap::new();
                    let dict = inverted.terms();
                    // Vault terms that are a prefix of the query term.
                    for &(at, _) in chars.iter().skip(MIN_STEM_CHARS) {
                        let prefix = &term[..at];
                        if !subword_pair(prefix, term) {
                            continue;
                        }
                        if let Some(info) = dict
                            .get(prefix.as_bytes())
                            .map_err(|e| super::tantivy_err("read the term dictionary")(e.into()))?
                        {
                            per_field.insert(prefix.to_owned(), u64::from(info.doc_freq));
                        }
                    }
                    // Vault terms the query term is a prefix of.
                    let mut stream =
                        dict.range().gt(term.as_bytes()).into_stream().map_err(|e| {
                            super::tantivy_err("read the term dictionary")(e.into())
                        })?;
                    let mut scanned = 0;
                    while scanned < MAX_SCANNED_TERMS && stream.advance() {
                        scanned += 1;
                        let Ok(key) = std::str::from_utf8(stream.key()) else { continue };
                        if !key.starts_with(term) {
                            break;
                        }
                        if subword_pair(term, key) {
                            per_field.insert(key.to_owned(), u64::from(stream.value().doc_freq));
                        }
                    }
                    for (t, df) in per_field {
                        let e = found.entry(t).or_default();
                        *e = (*e).max(df);
                    }
                }
            }
            let len = term.chars().count();
            let mut ranked: Vec<(String, u64)> = found.into_iter().collect();
            ranked.sort_by(|(a, da), (b, db)| {
                let gap = |t: &str| t.chars().count().abs_diff(len);
                gap(a).cmp(&gap(b)).then(db.cmp(da)).then(a.cmp(b))
            });
            for (t, _) in ranked {
                push(t, ExpansionKind::Subword, expanded);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abbreviations_expand_both_ways_in_analysed_form() {
        let map = abbreviation_terms();
        assert!(map["k8s"].contains(&"kubernet".to_owned()), "{:?}", map.get("k8s"));
        assert!(map["kubernet"].contains(&"k8s".to_owned()));
        assert!(map["auth"].contains(&"authent".to_owned()));
        assert!(map["authent"].contains(&"auth".to_owned()));
        assert!(map["pg"].contains(&"postgr".to_owned()));
        // Two long forms of one abbreviation are not related.
        assert!(!map["authent"].iter().any(|t| t == "author"));
        // A long form that is also an everyday word does not lead back to the abbreviation.
        assert!(map["auth"].contains(&"author".to_owned()));
        assert!(!map.contains_key("author"));
        assert!(!map.contains_key("perform"));
    }

    #[test]
    fn subword_pairs_need_a_long_enough_stem() {
        assert!(subword_pair("auth", "authent"));
        assert!(subword_pair("postgr", "postgresql"));
        // Too short, or too small a share of the longer term.
        assert!(!subword_pair("go", "golang"));
        assert!(!subword_pair("in", "index"));
        assert!(!subword_pair("aut", "auth"));
        assert!(!subword_pair("post", "postgresql"));
        // Not a proper prefix, or not letters.
        assert!(!subword_pair("auth", "auth"));
        assert!(!subword_pair("v1.2", "v1.23"));
        assert!(!subword_pair("2023", "20231"));
    }

    #[test]
    fn weight_is_clamped_and_zero_is_off() {
        assert_eq!(Expansion::new(true, 3.0).weight, 1.0);
        assert!(!Expansion::new(true, 0.0).is_on());
        assert!(!Expansion::new(true, f32::NAN).is_on());
        assert!(!Expansion::new(false, 0.5).is_on());
        assert!(Expansion::default().is_on());
    }
}
