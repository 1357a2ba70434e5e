//! Wikilinks, typed edges and structural entities: pure functions over a memory's text (SPEC §6).
//!
//! Nothing here touches the disk. [`extract_links`] reads the `[[wikilinks]]` of a body and types
//! each one from its own sentence, [`frontmatter_links`] reads explicit `links:` from frontmatter,
//! [`extract_entities`] lists the names that `shares_entity:<Name>` links join on, and
//! [`rewrite_memory_links`] points links at a memory's new name after a rename or merge.
//!
//! # Wikilink syntax
//!
//! - `[[target]]`, `[[target|alias]]`, `[[target#heading]]`, `[[target#heading|alias]]` and
//!   `[[memory:name]]` (with the same optional parts). `![[embed]]` is a link to `embed` (the span
//!   starts at `[[`). In tables, Obsidian's `[[target\|alias]]` works too.
//! - Code never links: fenced blocks (```` ``` ```` or `~~~`, at any indent or inside `>` quotes;
//!   an unclosed fence runs to the end) and inline code spans (CommonMark: a run of n backticks
//!   closes at the next run of exactly n in the same paragraph; an unmatched run is plain text).
//!   Indented (4-space) code blocks are not recognised: list continuations look the same.
//! - `\[[x]]` is escaped (an odd number of backslashes before `[[`). `[[]]`, `[[ ]]`,
//!   `[[#heading]]` (a link within the same memory), `[[|alias]]` and `[[memory:]]` name no target
//!   and are not links. The closing `]]` must be on the same line. (HTML comments are not
//!   special: a link inside `<!-- -->` counts.)
//! - Brackets: the text between `[[` and the first `]]` is the link, single brackets included, so
//!   `[[a [b] c]]` is a (ghost) link to `a [b] c`. Another `[[` before the `]]` restarts the link
//!   there (`[[a [[b]] c]]` links `b`), and of a run of three or more `[` the last two open it
//!   (`[[[x]]]` links `x`).
//!
//! # Targets
//!
//! `memory:name` is always a memory (`.md` stripped, normalised like a path). Any other target is a
//! memory when `is_memory` knows its [`normalize_target`]ed form without a trailing `.md`, and a
//! ghost node (`ghost:<normalised target>`, `.md` kept as written) otherwise.
//!
//! # Edge types
//!
//! A wikilink's type comes from whole-word, case-insensitive keywords in the link's own sentence
//! (the link texts themselves and inline code are not read). Of all keywords in the sentence the
//! one nearest to the link wins (distance in bytes between the keyword and the link); at equal
//! distance the earlier type in this precedence list wins:
//!
//! | type | keywords (inflections) |
//! |---|---|
//! | supersedes | supersede(s/d/ing), replace(s/d/ing), obsoletes/obsoleted/obsoleting, deprecate(s/d/ing), updates |
//! | depends_on | depend(s/ed/ing) on, dependent on, require(s/d/ing), need(s/ed/ing), build(s/ing) on, built on, rel(y/ies/ied/ying) on |
//! | contradicts | contradict(s/ed/ing), conflict(s/ed/ing) with, in conflict with, disagree(s/d/ing) with, challenges/challenged |
//! | extends | extend(s/ed/ing), elaborate(s/d/ing) (on), expand(s/ed/ing) on |
//! | causes | causes/caused/causing (so `caused by`), lead(s/ing) to, led to, result(s/ed/ing) in |
//! | instance_of | instance(s) of, example(s) of, is an example |
//! | invalidated_by | invalidated by, disproved/disproven by, refuted by, debunked by |
//! | motivated_by | because of, motivated by, in order to |
//!
//! Passive phrases whose direction is the reverse of the edge (`superseded by`, `replaced by`,
//! `deprecated by` / `deprecated in favour of`, `obsoleted by`, `updated by`, `required by`,
//! `needed by`, `extended by`) and modal `need(s/ed) to` / `require(s/d) to` are read as no keyword
//! at all, so `[[memory:v2]]` in `this is superseded by [[memory:v2]]` does not become an edge
//! saying this memory supersedes v2; frontmatter `superseded_by` records that direction.
//!
//! Without a keyword, a memory target is `related_to` and a ghost target takes the nearest of
//! ragdocs' document verbs: `refactors` (refactor, refactors, refactored, refactoring(s)),
//! `plans` (plan(s) to, plan(s) for, plans, planned, planning), `debugs` (debug(s/ged/ging),
//! investigate(s/d/ing), troubleshoot(s/ed/ing), fix(ed/es/ing) a/the bug(s) in, bug(s) in), else
//! `mentions`.
//!
//! Sentences end at `.`, `!` or `?` followed by whitespace or the end of the line (closing
//! quotes, brackets and emphasis may sit in between), at blank lines, and before a list item, a
//! heading, a table row or a block quote; headings and table rows end at their line end. A soft
//! line break does not end a sentence. A period does not end one after an abbreviation (`e.g.`,
//! `i.e.`, `a.k.a.` — dotted single letters — a single-letter initial, `vs.`, `cf.`, `approx.`,
//! `Dr.`, `Mr.`, `Mrs.`, `Ms.`, `St.`, `fig.`, `al.`, `viz.`, `resp.`, `incl.`, and `etc.` unless
//! a capital follows). Dots inside `src/auth.py` or `v1.2` are not followed by whitespace, so
//! they never split.
//!
//! # Confidence and context
//!
//! Keyword-typed (a relationship keyword or a document verb): `0.8`. Defaulted (`related_to`,
//! `mentions`): `0.5`. Frontmatter: `1.0`. `context` is the link with about 50 characters either
//! side, fenced code left out, whitespace collapsed, cut at a word boundary when one is near and
//! marked with `…` where text was cut (ragdocs' `anchor_context`).
//!
//! # Entities
//!
//! See [`extract_entities`].

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;
use std::sync::LazyLock;

use regex::Regex;
use serde_yaml_ng::Value;

/// Why a link type or origin name was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// Not a link type.
    #[error("unknown link type `{0}` (expected one of: {names}, shares_entity:<name>)", names = EdgeType::ALL_NAMED.join(", "))]
    UnknownType(String),
    /// Not a link origin.
    #[error(
        "unknown link origin `{0}` (expected one of: keyword, frontmatter, agent, entity, context)"
    )]
    UnknownOrigin(String),
}

/// The type of a link (SPEC §6).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum EdgeType {
    /// A newer version of the target (ragdocs, MIRA).
    Supersedes,
    /// Needs the target (ragdocs).
    DependsOn,
    /// Conflicts with the target (ragdocs; MIRA's `conflicts`).
    Contradicts,
    /// Builds out the target (ragdocs).
    Extends,
    /// Causes the target (MIRA).
    Causes,
    /// A concrete example of the target's pattern (MIRA).
    InstanceOf,
    /// Disproved by the target (MIRA).
    InvalidatedBy,
    /// Explained by the target (MIRA).
    MotivatedBy,
    /// Names a document (ghost target) without a verb (ragdocs).
    Mentions,
    /// Links a memory without a keyword (ragdocs' default).
    RelatedTo,
    /// Refactors a document (ragdocs' ghost-edge verb).
    Refactors,
    /// Plans work on a document (ragdocs' ghost-edge verb).
    Plans,
    /// Debugs a document (ragdocs' ghost-edge verb).
    Debugs,
    /// Both memories mention this entity (MIRA's structural `shares_entity:<Name>`).
    SharesEntity(String),
    /// The memory was used as context for the target (MIRA's structural link).
    WasContextFor,
}

const NAMED: [(&str, EdgeType); 14] = [
    ("supersedes", EdgeType::Supersedes),
    ("depends_on", EdgeType::DependsOn),
    ("contradicts", EdgeType::Contradicts),
    ("extends", EdgeType::Extends),
    ("causes", EdgeType::Causes),
    ("instance_of", EdgeType::InstanceOf),
    ("invalidated_by", EdgeType::InvalidatedBy),
    ("motivated_by", EdgeType::MotivatedBy),
    ("mentions", EdgeType::Mentions),
    ("related_to", EdgeType::RelatedTo),
    ("refactors", EdgeType::Refactors),
    ("plans", EdgeType::Plans),
    ("debugs", EdgeType::Debugs),
    ("was_context_for", EdgeType::WasContextFor),
];

const SHARES_ENTITY: &str = "shares_entity";

/// The names of the non-parametric link types (the same list as [`EdgeType::ALL_NAMED`]).
pub const ALL_NAMED: &[&str] = EdgeType::ALL_NAMED;

impl EdgeType {
    /// The canonical name of a link type as a user typed it (`Depends-On` → `depends_on`), or
    /// an error listing the allowed names.
    pub fn canonical(typed: &str) -> Result<String, LinkError> {
        typed.parse::<EdgeType>().map(|t| t.as_str().into_owned())
    }

    /// The names of the non-parametric types, in precedence order for keyword typing.
    pub const ALL_NAMED: &[&str] = &[
        "supersedes",
        "depends_on",
        "contradicts",
        "extends",
        "causes",
        "instance_of",
        "invalidated_by",
        "motivated_by",
        "mentions",
        "related_to",
        "refactors",
        "plans",
        "debugs",
        "was_context_for",
    ];

    /// The type's kind: its name, or `shares_entity` for [`EdgeType::SharesEntity`].
    pub fn kind(&self) -> &'static str {
        match self {
            EdgeType::SharesEntity(_) => SHARES_ENTITY,
            other => NAMED.iter().find(|(_, t)| t == other).map_or("related_to", |(n, _)| n),
        }
    }

    /// The type as written in files and output: `depends_on`, `shares_entity:Redis Cluster`.
    pub fn as_str(&self) -> Cow<'static, str> {
        match self {
            EdgeType::SharesEntity(name) => Cow::Owned(format!("{SHARES_ENTITY}:{name}")),
            other => Cow::Borrowed(other.kind()),
        }
    }
}

impl fmt::Display for EdgeType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.as_str())
    }
}

/// Lowercase, `-` and spaces as `_`.
fn canonical_type_name(s: &str) -> String {
    s.trim().to_lowercase().replace(['-', ' '], "_")
}

impl FromStr for EdgeType {
    type Err = LinkError;

    /// Accepts the names of [`EdgeType::ALL_NAMED`] in any case with `-` or `_`, MIRA's
    /// `conflicts` (and `conflicts_with`) for `contradicts`, and `shares_entity:<Name>`.
    fn from_str(s: &str) -> Result<EdgeType, LinkError> {
        let trimmed = s.trim();
        if let Some((kind, name)) = trimmed.split_once(':') {
            let name = name.trim();
            if canonical_type_name(kind) == SHARES_ENTITY && !name.is_empty() {
                return Ok(EdgeType::SharesEntity(name.to_owned()));
            }
            return Err(LinkError::UnknownType(trimmed.to_owned()));
        }
        let canon = canonical_type_name(trimmed);
        if canon == "conflicts" || canon == "conflicts_with" {
            return Ok(EdgeType::Contradicts);
        }
        NAMED
            .iter()
            .find(|(n, _)| *n == canon)
            .map(|(_, t)| t.clone())
            .ok_or_else(|| LinkError::UnknownType(trimmed.to_owned()))
    }
}

impl serde::Serialize for EdgeType {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for EdgeType {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<EdgeType, D::Error> {
        let s = <Cow<'de, str>>::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Where a link came from (SPEC §5.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkOrigin {
    /// A wikilink in the body, typed by keywords or defaulted.
    Keyword,
    /// An explicit `links:` entry in the frontmatter.
    Frontmatter,
    /// An agent's `link_memories` call.
    Agent,
    /// A shared entity (structural).
    Entity,
    /// An agent reported using the memory as context (structural).
    Context,
}

impl LinkOrigin {
    /// The origin as written in output: `keyword`, `frontmatter`, `agent`, `entity`, `context`.
    pub fn as_str(self) -> &'static str {
        match self {
            LinkOrigin::Keyword => "keyword",
            LinkOrigin::Frontmatter => "frontmatter",
            LinkOrigin::Agent => "agent",
            LinkOrigin::Entity => "entity",
            LinkOrigin::Context => "context",
        }
    }
}

impl fmt::Display for LinkOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for LinkOrigin {
    type Err = LinkError;

    fn from_str(s: &str) -> Result<LinkOrigin, LinkError> {
        match s.trim().to_lowercase().as_str() {
            "keyword" => Ok(LinkOrigin::Keyword),
            "frontmatter" => Ok(LinkOrigin::Frontmatter),
            "agent" => Ok(LinkOrigin::Agent),
            "entity" => Ok(LinkOrigin::Entity),
            "context" => Ok(LinkOrigin::Context),
            _ => Err(LinkError::UnknownOrigin(s.trim().to_owned())),
        }
    }
}

/// What a link points at.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LinkTarget {
    /// A memory, by name (vault-relative, no `.md`).
    Memory(String),
    /// A ghost node: a document outside the vault, by its [`normalize_target`]ed path.
    Ghost(String),
}

impl LinkTarget {
    /// The graph node key: `memory:<name>` or `ghost:<target>`.
    pub fn key(&self) -> String {
        match self {
            LinkTarget::Memory(name) => format!("memory:{name}"),
            LinkTarget::Ghost(target) => format!("ghost:{target}"),
        }
    }

    /// The memory name or ghost target without its prefix.
    pub fn name(&self) -> &str {
        match self {
            LinkTarget::Memory(s) | LinkTarget::Ghost(s) => s,
        }
    }

    /// Reads a node key written by [`LinkTarget::key`].
    pub fn from_key(key: &str) -> Option<LinkTarget> {
        if let Some(name) = key.strip_prefix("memory:") {
            (!name.is_empty()).then(|| LinkTarget::Memory(name.to_owned()))
        } else {
            key.strip_prefix("ghost:")
                .filter(|t| !t.is_empty())
                .map(|t| LinkTarget::Ghost(t.to_owned()))
        }
    }
}

impl fmt::Display for LinkTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkTarget::Memory(name) => write!(f, "memory:{name}"),
            LinkTarget::Ghost(target) => write!(f, "ghost:{target}"),
        }
    }
}

impl serde::Serialize for LinkTarget {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for LinkTarget {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<LinkTarget, D::Error> {
        let s = <Cow<'de, str>>::deserialize(deserializer)?;
        LinkTarget::from_key(&s).ok_or_else(|| {
            serde::de::Error::custom(format!("`{s}` is not `memory:<name>` or `ghost:<target>`"))
        })
    }
}

/// One link from a memory: a typed edge to a memory or a ghost node.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Link {
    /// What the link points at.
    pub target: LinkTarget,
    /// The text inside `[[ ]]` as written (for frontmatter: the `target` value).
    pub raw: String,
    /// The `|alias`, trimmed, if any.
    pub alias: Option<String>,
    /// The `#heading`, trimmed, if any.
    pub heading: Option<String>,
    /// The link's type.
    pub edge_type: EdgeType,
    /// About 100 characters of text around the link (empty for frontmatter links without one).
    pub context: String,
    /// How sure the typing is: 0.8 keyword-typed, 0.5 defaulted, 1.0 frontmatter.
    pub confidence: f32,
    /// Where the link came from.
    pub origin: LinkOrigin,
    /// Byte offset of `[[` in the body (0 for frontmatter links).
    pub start: usize,
    /// Byte offset just past `]]` in the body (0 for frontmatter links).
    pub end: usize,
}

/// Confidence of a link typed by a keyword in its sentence.
pub const KEYWORD_CONFIDENCE: f32 = 0.8;
/// Confidence of a link typed by default (`related_to`, `mentions`).
pub const DEFAULT_CONFIDENCE: f32 = 0.5;
/// Confidence of an explicit frontmatter link.
pub const FRONTMATTER_CONFIDENCE: f32 = 1.0;

// ---------------------------------------------------------------------------------------------
// Targets

/// Normalises a link target so spellings of one path meet: trims whitespace, turns `\` into `/`,
/// drops `.` segments (so leading `./`, repeatedly, and inner `/./`), collapses duplicate
/// slashes and drops a trailing one. A leading `/`, `..`, case and a trailing `.md` are kept as
/// written.
///
/// `./src//auth.py`, `.\src\auth.py` and `src/auth.py` all become `src/auth.py`.
pub fn normalize_target(raw: &str) -> String {
    let s = raw.trim().replace('\\', "/");
    let absolute = s.starts_with('/');
    let segments: Vec<&str> = s.split('/').filter(|seg| !seg.is_empty() && *seg != ".").collect();
    let joined = segments.join("/");
    if absolute { format!("/{joined}") } else { joined }
}

/// Strips a case-insensitive `memory:` prefix.
fn strip_memory_prefix(s: &str) -> Option<&str> {
    const PREFIX: &str = "memory:";
    s.get(..PREFIX.len()).filter(|p| p.eq_ignore_ascii_case(PREFIX)).map(|_| &s[PREFIX.len()..])
}

/// A memory name as written in a link: normalised, `.md` stripped.
fn memory_name(s: &str) -> String {
    let n = normalize_target(s);
    match n.strip_suffix(".md") {
        Some(stem) => stem.to_owned(),
        None => n,
    }
}

/// Resolves a link target (the part before `#` and `|`): `memory:name` is a memory; otherwise a
/// memory when `is_memory` knows the normalised target without `.md`, else a ghost. `None` when
/// the target is empty.
pub fn resolve_target(target: &str, is_memory: &dyn Fn(&str) -> bool) -> Option<LinkTarget> {
    if let Some(rest) = strip_memory_prefix(target.trim()) {
        let name = memory_name(rest);
        return (!name.is_empty() && name != "/").then_some(LinkTarget::Memory(name));
    }
    let candidate = normalize_target(target);
    if candidate.is_empty() {
        return None;
    }
    let stem = candidate.strip_suffix(".md").unwrap_or(&candidate);
    if !stem.is_empty() && is_memory(stem) {
        return Some(LinkTarget::Memory(stem.to_owned()));
    }
    Some(LinkTarget::Ghost(candidate))
}

/// Where the parts of a link's inner text are.
struct Parts {
    target: std::ops::Range<usize>,
    heading: Option<std::ops::Range<usize>>,
    alias: Option<std::ops::Range<usize>>,
}

/// Splits `target#heading|alias` (also `target\|alias`).
fn split_raw(raw: &str) -> Parts {
    let (before_alias, alias) = match raw.find('|') {
        Some(p) => {
            let end = if p > 0 && raw.as_bytes()[p - 1] == b'\\' { p - 1 } else { p };
            (0..end, Some(p + 1..raw.len()))
        }
        None => (0..raw.len(), None),
    };
    match raw[before_alias.clone()].find('#') {
        Some(h) => Parts { target: 0..h, heading: Some(h + 1..before_alias.end), alias },
        None => Parts { target: before_alias, heading: None, alias },
    }
}

fn non_empty(s: &str) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_owned())
}

// ---------------------------------------------------------------------------------------------
// Code masking

/// The body with code blanked out, byte offsets unchanged.
struct Masked {
    /// Fenced code blocks blanked to spaces (newlines kept): the source of link contexts.
    prose: String,
    /// Also inline code spans blanked to `\x01` (newlines kept): where links are found.
    code_free: String,
    /// Inline code spans: (start of the opening run, end of the closing run, run length).
    inline: Vec<(usize, usize, usize)>,
    /// Fenced code blocks: (start of the opening line, end of the closing line or text).
    fences: Vec<(usize, usize)>,
}

/// The filler for inline code and link texts: not whitespace, not a word character, not
/// sentence punctuation.
const FILL: u8 = 0x01;

impl Masked {
    fn new(body: &str) -> Masked {
        let fences = fenced_regions(body);
        let prose = blank(body, fences.iter().copied(), b' ');
        let inline = code_spans(&prose);
        let code_free = blank(&prose, inline.iter().map(|&(s, e, _)| (s, e)), FILL);
        Masked { prose, code_free, inline, fences }
    }
}

/// Replaces every byte of the ranges except `\n` with `fill`. The ranges start and end on ASCII
/// bytes, so the result is valid UTF-8 of the same length.
fn blank(text: &str, ranges: impl Iterator<Item = (usize, usize)>, fill: u8) -> String {
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
fn strip_block_prefix(line: &str) -> &str {
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

/// Fenced code blocks as byte ranges of whole lines.
fn fenced_regions(text: &str) -> Vec<(usize, usize)> {
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

/// Inline code spans (CommonMark): a run of n backticks, not escaped, opens a span that closes at
/// the next run of exactly n backticks before the paragraph ends; an unmatched run is text.
/// Runs are indexed by length, so each opener finds its closer by a binary search.
fn code_spans(text: &str) -> Vec<(usize, usize, usize)> {
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
fn escaped(b: &[u8], i: usize) -> bool {
    b[..i].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 1
}

/// `[[…]]` spans outside code, as (start of `[[`, end past `]]`), with a non-blank inside.
fn scan_links(text: &str) -> Vec<(usize, usize)> {
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

// ---------------------------------------------------------------------------------------------
// Sentences

const ABBREVIATIONS: &[&str] =
    &["vs", "cf", "approx", "dr", "mr", "mrs", "ms", "st", "fig", "al", "viz", "resp", "incl"];

/// Whether a period after `before` ends an abbreviation rather than a sentence.
fn is_abbreviation(before: &str, next_char: Option<char>) -> bool {
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

fn is_list_item(s: &str) -> bool {
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

fn is_heading(s: &str) -> bool {
    let hashes = s.bytes().take_while(|&c| c == b'#').count();
    (1..=6).contains(&hashes) && s.as_bytes().get(hashes).is_none_or(|c| *c == b' ' || *c == b'\t')
}

const CLOSERS: &[char] = &[')', ']', '"', '\'', '*', '_', '’', '”', '»'];

/// Sentence start offsets, sorted, starting with 0 (see the module docs).
fn sentence_starts(text: &str) -> Vec<usize> {
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
fn sentence_of(starts: &[usize], len: usize, pos: usize) -> (usize, usize) {
    let k = starts.partition_point(|&s| s <= pos).max(1);
    (starts[k - 1], starts.get(k).copied().unwrap_or(len))
}

// ---------------------------------------------------------------------------------------------
// Keywords

const REL_TYPES: [EdgeType; 8] = [
    EdgeType::Supersedes,
    EdgeType::DependsOn,
    EdgeType::Contradicts,
    EdgeType::Extends,
    EdgeType::Causes,
    EdgeType::InstanceOf,
    EdgeType::InvalidatedBy,
    EdgeType::MotivatedBy,
];

/// Phrases matched first and then ignored: reversed-direction passives and modal verbs.
const NEUTRAL_PHRASES: &str = r"(?:superseded|replaced|deprecated|obsoleted|updated|required|needed|extended)\s+by|deprecated\s+in\s+favou?r\s+of|need(?:s|ed)?\s+to|requir(?:e|es|ed)\s+to";

const REL_PHRASES: [&str; 8] = [
    r"supersed(?:e|es|ed|ing)|replac(?:e|es|ed|ing)|obsolet(?:es|ed|ing)|deprecat(?:e|es|ed|ing)|updates",
    r"depend(?:s|ed|ing)?\s+on|dependent\s+on|requir(?:e|es|ed|ing)|need(?:s|ed|ing)?|build(?:s|ing)?\s+on|built\s+on|rel(?:y|ies|ied|ying)\s+on",
    r"contradict(?:s|ed|ing)?|conflict(?:s|ed|ing)?\s+with|in\s+conflict\s+with|disagree(?:s|d|ing)?\s+with|challenge(?:s|d)",
    r"extend(?:s|ed|ing)?|elaborat(?:e|es|ed|ing)(?:\s+on)?|expand(?:s|ed|ing)?\s+on",
    r"caus(?:es|ed|ing)|lead(?:s|ing)?\s+to|led\s+to|result(?:s|ed|ing)?\s+in",
    r"instances?\s+of|examples?\s+of|is\s+an\s+example",
    r"invalidated\s+by|disprov(?:ed|en)\s+by|refuted\s+by|debunked\s+by",
    r"because\s+of|motivated\s+by|in\s+order\s+to",
];

const GHOST_TYPES: [EdgeType; 3] = [EdgeType::Refactors, EdgeType::Plans, EdgeType::Debugs];

const GHOST_PHRASES: [&str; 3] = [
    r"refactor(?:s|ed|ings?)?",
    r"plans?\s+(?:to|for)|planned|planning|plans",
    r"debug(?:s|ged|ging)?|investigat(?:e|es|ed|ing)|troubleshoot(?:s|ed|ing)?|fix(?:ed|es|ing)?\s+(?:a\s+|the\s+)?bugs?\s+in|bugs?\s+in",
];

/// A keyword matcher: `(?i)\b(?:(neutral)|(type 0)|(type 1)…)\b`.
struct Keywords {
    re: Regex,
    /// Groups before type 0's (the whole match, and the neutral group if any).
    skip: usize,
}

impl Keywords {
    fn new(neutral: Option<&str>, phrases: &[&str]) -> Keywords {
        let alternatives: Vec<String> =
            neutral.into_iter().chain(phrases.iter().copied()).map(|p| format!("({p})")).collect();
        let pattern = format!(r"(?i)\b(?:{})\b", alternatives.join("|"));
        let re = Regex::new(&pattern).expect("keyword patterns are valid regexes");
        Keywords { re, skip: 1 + usize::from(neutral.is_some()) }
    }

    /// Matches (start, end, type index), in order, neutral phrases dropped.
    fn matches(&self, text: &str) -> Vec<(usize, usize, usize)> {
        self.re
            .captures_iter(text)
            .filter_map(|caps| {
                let whole = caps.get(0)?;
                let k = (self.skip..caps.len()).find(|&g| caps.get(g).is_some())?;
                Some((whole.start(), whole.end(), k - self.skip))
            })
            .collect()
    }
}

static REL_KEYWORDS: LazyLock<Keywords> =
    LazyLock::new(|| Keywords::new(Some(NEUTRAL_PHRASES), &REL_PHRASES));
static GHOST_KEYWORDS: LazyLock<Keywords> = LazyLock::new(|| Keywords::new(None, &GHOST_PHRASES));

/// The type index of the keyword nearest to the link `[s, e)` within `sentence`; ties go to the
/// lower index (higher precedence).
fn nearest(
    matches: &[(usize, usize, usize)],
    s: usize,
    e: usize,
    sentence: (usize, usize),
) -> Option<usize> {
    let idx = matches.partition_point(|m| m.0 < e);
    let right = matches.get(idx).filter(|m| m.1 <= sentence.1).map(|m| (m.0 - e, m.2));
    let left = idx
        .checked_sub(1)
        .and_then(|i| matches.get(i))
        .filter(|m| m.0 >= sentence.0 && m.1 <= s)
        .map(|m| (s - m.1, m.2));
    match (left, right) {
        (Some(l), Some(r)) => Some(if (l.0, l.1) <= (r.0, r.1) { l.1 } else { r.1 }),
        (l, r) => l.or(r).map(|m| m.1),
    }
}

// ---------------------------------------------------------------------------------------------
// Context

const CONTEXT_SIDE: usize = 50;
const WORD_SNAP: usize = 20;

/// The link with about [`CONTEXT_SIDE`] characters either side, whitespace collapsed, `…` at cuts.
fn anchor_context(src: &str, start: usize, end: usize) -> String {
    let before = &src[..start];
    let mut left = before.char_indices().rev().take(CONTEXT_SIDE).last().map_or(start, |(i, _)| i);
    let left_cut = !before[..left].trim_end().is_empty();
    // Cut mid-word: move to the next space when one is near.
    if left_cut
        && !before[..left].ends_with(char::is_whitespace)
        && let Some(k) = before[left..].find(char::is_whitespace).filter(|&k| k <= WORD_SNAP)
    {
        left += k;
    }
    let after = &src[end..];
    let mut right = after.char_indices().nth(CONTEXT_SIDE).map_or(after.len(), |(i, _)| i);
    let right_cut = !after[right..].trim_start().is_empty();
    if right_cut
        && !after[right..].starts_with(char::is_whitespace)
        && let Some(k) =
            after[..right].rfind(char::is_whitespace).filter(|&k| right - k <= WORD_SNAP)
    {
        right = k;
    }
    let text = src[left..end + right].split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = String::with_capacity(text.len() + 6);
    if left_cut {
        out.push('…');
    }
    out.push_str(&text);
    if right_cut {
        out.push('…');
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Links

/// A body prepared for link and entity reading.
struct Prepared {
    masked: Masked,
    /// Link spans.
    spans: Vec<(usize, usize)>,
    /// `code_free` with link texts blanked too: what sentences and keywords are read from.
    analysis: String,
    starts: Vec<usize>,
}

impl Prepared {
    fn new(body: &str) -> Prepared {
        let masked = Masked::new(body);
        let spans = scan_links(&masked.code_free);
        let analysis = blank(&masked.code_free, spans.iter().copied(), FILL);
        let starts = sentence_starts(&analysis);
        Prepared { masked, spans, analysis, starts }
    }
}

/// The wikilinks of a Markdown body, in order, typed from their sentences (see the module docs).
/// `is_memory(name)` says whether a memory of that name (no `.md`) exists.
///
/// Every `[[…]]` outside code gives one [`Link`] with origin [`LinkOrigin::Keyword`], so several
/// links to one target give several links.
pub fn extract_links(body: &str, is_memory: &dyn Fn(&str) -> bool) -> Vec<Link> {
    let prep = Prepared::new(body);
    if prep.spans.is_empty() {
        return Vec::new();
    }
    let rel = REL_KEYWORDS.matches(&prep.analysis);
    let ghost = GHOST_KEYWORDS.matches(&prep.analysis);
    let len = prep.analysis.len();
    prep.spans
        .iter()
        .filter_map(|&(s, e)| {
            let raw = &body[s + 2..e - 2];
            let parts = split_raw(raw);
            let target = resolve_target(&raw[parts.target.clone()], is_memory)?;
            let sentence = sentence_of(&prep.starts, len, s);
            let typed = match nearest(&rel, s, e, sentence) {
                Some(k) => Some(REL_TYPES[k].clone()),
                None if matches!(target, LinkTarget::Ghost(_)) => {
                    nearest(&ghost, s, e, sentence).map(|k| GHOST_TYPES[k].clone())
                }
                None => None,
            };
            let (edge_type, confidence) = match typed {
                Some(t) => (t, KEYWORD_CONFIDENCE),
                None => match target {
                    LinkTarget::Memory(_) => (EdgeType::RelatedTo, DEFAULT_CONFIDENCE),
                    LinkTarget::Ghost(_) => (EdgeType::Mentions, DEFAULT_CONFIDENCE),
                },
            };
            Some(Link {
                target,
                raw: raw.to_owned(),
                alias: parts.alias.and_then(|r| non_empty(&raw[r])),
                heading: parts.heading.and_then(|r| non_empty(&raw[r])),
                edge_type,
                context: anchor_context(&prep.masked.prose, s, e),
                confidence,
                origin: LinkOrigin::Keyword,
                start: s,
                end: e,
            })
        })
        .collect()
}

/// Rewrites the links that name memory `from` to name `to`: `[[memory:from]]` (with `|alias`
/// and `#heading`), and bare `[[from]]` / `[[from.md]]` / `[[./from]]`, which resolved to the
/// memory while it existed. Links in code are left alone, and so are alias, heading, the
/// `memory:` prefix and a `.md` suffix as written. `from` and `to` may be given as `name`,
/// `name.md` or `memory:name`. `None` when nothing changed.
pub fn rewrite_memory_links(body: &str, from: &str, to: &str) -> Option<String> {
    let canon = |s: &str| memory_name(strip_memory_prefix(s.trim()).unwrap_or(s));
    let (from, to) = (canon(from), canon(to));
    if from.is_empty() || to.is_empty() || from == to {
        return None;
    }
    let masked = Masked::new(body);
    let mut out = String::with_capacity(body.len() + 16);
    let mut last = 0;
    for (s, e) in scan_links(&masked.code_free) {
        let inner = s + 2;
        let raw = &body[inner..e - 2];
        let target = &raw[split_raw(raw).target];
        let lead = target.len() - target.trim_start().len();
        let trimmed = target.trim();
        let (name_at, name_text) = match strip_memory_prefix(trimmed) {
            Some(rest) => {
                let rest_lead = rest.len() - rest.trim_start().len();
                (inner + lead + (trimmed.len() - rest.len()) + rest_lead, rest.trim())
            }
            None => (inner + lead, trimmed),
        };
        if memory_name(name_text) != from {
            continue;
        }
        let suffix = if name_text.ends_with(".md") { ".md" } else { "" };
        out.push_str(&body[last..name_at]);
        out.push_str(&to);
        out.push_str(suffix);
        last = name_at + name_text.len();
    }
    if last == 0 {
        return None;
    }
    out.push_str(&body[last..]);
    (out != body).then_some(out)
}

// ---------------------------------------------------------------------------------------------
// Frontmatter links

fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A frontmatter target: `memory:name` or a bare name, both read as a memory.
fn frontmatter_link(target: &str, edge_type: EdgeType, context: String) -> Option<Link> {
    let raw = target.trim();
    let name = memory_name(strip_memory_prefix(raw).unwrap_or(raw));
    (!name.is_empty()).then(|| Link {
        target: LinkTarget::Memory(name),
        raw: raw.to_owned(),
        alias: None,
        heading: None,
        edge_type,
        context,
        confidence: FRONTMATTER_CONFIDENCE,
        origin: LinkOrigin::Frontmatter,
        start: 0,
        end: 0,
    })
}

/// Explicit typed links from frontmatter, with a warning for each entry that was skipped.
///
/// `value` is the value of the `links` key (or the whole frontmatter mapping, whose `links` key is
/// then read). Each entry may be:
/// - a map `{ type: depends_on, target: jwt-research }` (`target: memory:x` works too; a missing
///   `type` means `related_to`; an optional `context` string is kept; other keys are warned about),
/// - a one-key map `{ depends_on: jwt-research }` whose key is a link type,
/// - a bare string `jwt-research`, meaning `related_to`.
///
/// A single map or string in place of the list is read as a one-entry list. Targets are memory
/// names (`memory:` and `.md` stripped), as in SPEC §2; a caller that holds the vault can turn a
/// target that names no memory into a ghost with [`resolve_target`]`(&link.raw, …)`. Links have
/// origin [`LinkOrigin::Frontmatter`], confidence 1.0 and an empty span (0..0).
pub fn frontmatter_links(value: &Value) -> (Vec<Link>, Vec<String>) {
    let mut links = Vec::new();
    let mut warnings = Vec::new();
    let value = match value {
        Value::Mapping(m) if m.contains_key("links") => m.get("links").unwrap_or(&Value::Null),
        other => other,
    };
    let items: Vec<&Value> = match value {
        Value::Null => Vec::new(),
        Value::Sequence(items) => items.iter().collect(),
        Value::Mapping(_) | Value::String(_) => vec![value],
        _ => {
            warnings
                .push("`links` should be a list of `{ type, target }` entries; ignored".to_owned());
            Vec::new()
        }
    };
    for (i, item) in items.into_iter().enumerate() {
        match frontmatter_item(item) {
            Ok(link) => links.push(link),
            Err(why) => warnings.push(format!("`links` entry {}: {why}; skipped", i + 1)),
        }
    }
    (links, warnings)
}

fn frontmatter_item(item: &Value) -> Result<Link, String> {
    let empty = || "the target is empty".to_owned();
    match item {
        Value::String(s) => {
            frontmatter_link(s, EdgeType::RelatedTo, String::new()).ok_or_else(empty)
        }
        Value::Mapping(m) => {
            let Some(target) = m.get("target") else {
                // The `{ depends_on: name }` shorthand.
                if m.len() == 1
                    && let Some((Value::String(k), v)) = m.iter().next()
                    && let Ok(edge_type) = k.parse::<EdgeType>()
                {
                    let t = scalar_text(v).ok_or("the target should be a memory name")?;
                    return frontmatter_link(&t, edge_type, String::new()).ok_or_else(empty);
                }
                return Err("missing `target`".to_owned());
            };
            let target = scalar_text(target).ok_or("`target` should be a memory name")?;
            let edge_type = match m.get("type") {
                None | Some(Value::Null) => EdgeType::RelatedTo,
                Some(Value::String(t)) => t.parse::<EdgeType>().map_err(|e| e.to_string())?,
                Some(_) => return Err("`type` should be a link type name".to_owned()),
            };
            let context = match m.get("context") {
                None | Some(Value::Null) => String::new(),
                Some(v) => scalar_text(v).ok_or("`context` should be text")?,
            };
            if let Some(key) = m.keys().find_map(|k| match k {
                Value::String(k) if !matches!(k.as_str(), "type" | "target" | "context") => {
                    Some(k.clone())
                }
                Value::String(_) => None,
                _ => Some("(not a string)".to_owned()),
            }) {
                return Err(format!("unknown key `{key}` (expected type, target, context)"));
            }
            frontmatter_link(&target, edge_type, context).ok_or_else(empty)
        }
        Value::Number(_) => frontmatter_link(
            &scalar_text(item).unwrap_or_default(),
            EdgeType::RelatedTo,
            String::new(),
        )
        .ok_or_else(empty),
        _ => Err("should be a `{ type, target }` map or a memory name".to_owned()),
    }
}

// ---------------------------------------------------------------------------------------------
// Entities

/// Extensions that make a bare `name.ext` a file name.
const KNOWN_EXTENSIONS: &[&str] = &[
    "rs", "py", "pyi", "js", "mjs", "cjs", "ts", "tsx", "jsx", "go", "java", "kt", "kts", "rb",
    "php", "c", "h", "cc", "cpp", "hpp", "cs", "swift", "scala", "sh", "bash", "zsh", "fish",
    "ps1", "sql", "html", "htm", "css", "scss", "vue", "svelte", "json", "jsonl", "yaml", "yml",
    "toml", "ini", "cfg", "conf", "env", "lock", "md", "mdx", "rst", "txt", "csv", "xml", "proto",
    "graphql", "gradle", "tf", "hcl", "mk", "cmake", "nix", "lua", "ex", "exs", "erl", "hs", "ml",
    "dart", "jl", "zig", "ipynb",
];

/// File names without an extension that are file names anyway.
const KNOWN_FILES: &[&str] = &[
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
const STARTERS: &[&str] = &[
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
const CODE_STOPWORDS: &[&str] = &[
    "true", "false", "null", "none", "nil", "self", "this", "let", "mut", "pub", "use", "mod",
    "def", "var", "const", "return", "else", "for", "while", "and", "not", "int", "str", "bool",
    "void", "string",
];

fn is_url_like(token: &str) -> bool {
    let lower = token.to_ascii_lowercase();
    lower.contains("://")
        || lower.starts_with("www.")
        || lower.starts_with("mailto:")
        || lower.contains('@')
}

/// `(stem, ext)` when `name` ends in an extension of 1–10 ASCII alphanumerics with a letter.
fn split_extension(name: &str) -> Option<(&str, &str)> {
    let (stem, ext) = name.rsplit_once('.')?;
    let ok = (1..=10).contains(&ext.len())
        && ext.bytes().all(|c| c.is_ascii_alphanumeric())
        && ext.bytes().any(|c| c.is_ascii_alphabetic());
    ok.then_some((stem, ext))
}

/// Drops a `:42` or `:42:7` line suffix.
fn strip_line_suffix(s: &str) -> &str {
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
fn as_path(core: &str, loose: bool) -> Option<String> {
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
fn as_bare_file(core: &str) -> Option<String> {
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

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `snake_case` / `SCREAMING_CASE`: an underscore with an alphanumeric on both sides.
fn is_snake(s: &str) -> bool {
    let b = s.as_bytes();
    is_ident(s)
        && b.windows(3)
            .any(|w| w[1] == b'_' && w[0].is_ascii_alphanumeric() && w[2].is_ascii_alphanumeric())
}

/// `camelCase` (lowercase first) or `PascalCase` (uppercase first): an inner capital and a
/// lowercase letter.
fn is_camel_or_pascal(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 3
        && b.iter().all(u8::is_ascii_alphanumeric)
        && b[0].is_ascii_alphabetic()
        && b[1..].iter().any(u8::is_ascii_uppercase)
        && b.iter().any(u8::is_ascii_lowercase)
}

/// A code identifier in prose: `snake_case`, `SCREAMING_CASE`, `camelCase`, `PascalCase`,
/// `Type::method`, or any identifier written as a call (`reconcile()`).
fn as_identifier(core: &str) -> Option<String> {
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
fn code_span_entity(content: &str) -> Option<String> {
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
fn token_core(token: &str) -> (&str, bool, bool) {
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
fn code_core(token: &str) -> &str {
    let t = token.trim_matches(['"', '\'', '*', '<', '>', '“', '”', '‘', '’', '«', '»']);
    let t = t.trim_end_matches(['.', ',', ';', ':', '!', '?']).trim_start_matches(['(', '[', '{']);
    if t.ends_with("()") {
        return t;
    }
    t.trim_end_matches([')', ']', '}', ':', '.', ',', ';'])
}

/// Tokens of `s` split at `is_sep`, with their byte offsets.
fn split_tokens(s: &str, is_sep: impl Fn(char) -> bool) -> Vec<(usize, &str)> {
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

fn flush_run(run: &mut Vec<Word<'_>>, at_start: bool, found: &mut Vec<(usize, String)>) {
    if let Some(name) = name_from_run(run, at_start) {
        found.push(name);
    }
    run.clear();
}

/// A capitalised word: an uppercase first letter, then letters, digits or inner `-`, at least
/// two characters.
fn is_capitalised(core: &str) -> bool {
    let mut chars = core.chars();
    chars.next().is_some_and(char::is_uppercase)
        && core.chars().count() >= 2
        && core.chars().all(|c| c.is_alphanumeric() || c == '-')
        && !core.ends_with('-')
}

struct Word<'a> {
    start: usize,
    core: &'a str,
}

/// Turns a run of capitalised words into a name (see [`extract_entities`]).
fn name_from_run(run: &[Word<'_>], at_sentence_start: bool) -> Option<(usize, String)> {
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

/// How much a link of this type counts when ranking related memories (`related`, `--expand`).
///
/// MIRA separates sparse, high-value semantic links from dense, cheap structural ones; these
/// weights keep that order: explicit relationships first, document verbs and plain mentions
/// next, shared entities last.
pub fn link_weight(edge_type: &str) -> f32 {
    let kind = edge_type.split(':').next().unwrap_or(edge_type);
    match kind {
        "supersedes" => 1.0,
        "contradicts" | "invalidated_by" => 0.9,
        "causes" => 0.85,
        "depends_on" => 0.8,
        "instance_of" | "motivated_by" => 0.75,
        "extends" => 0.7,
        "refactors" | "plans" | "debugs" => 0.6,
        "related_to" => 0.5,
        "mentions" | "was_context_for" => 0.4,
        "shares_entity" => 0.3,
        _ => 0.3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_memories(_: &str) -> bool {
        false
    }

    fn memories(names: &'static [&'static str]) -> impl Fn(&str) -> bool {
        move |n: &str| names.contains(&n)
    }

    fn links(body: &str) -> Vec<Link> {
        extract_links(body, &memories(&["auth-v1", "auth-v2", "jwt-impl", "auth-plan", "notes/x"]))
    }

    fn mem(s: &str) -> LinkTarget {
        LinkTarget::Memory(s.to_owned())
    }

    fn ghost(s: &str) -> LinkTarget {
        LinkTarget::Ghost(s.to_owned())
    }

    /// (target, alias, heading) of a link.
    type Shape = (LinkTarget, Option<String>, Option<String>);

    fn shapes(body: &str) -> Vec<Shape> {
        links(body).into_iter().map(|l| (l.target, l.alias, l.heading)).collect()
    }

    fn types(body: &str) -> Vec<String> {
        links(body).iter().map(|l| l.edge_type.to_string()).collect()
    }

    fn opt(s: &str) -> Option<String> {
        Some(s.to_owned())
    }

    #[test]
    fn link_forms() {
        let cases: &[(&str, &str, Vec<Shape>)] = &[
            ("bare ghost", "see [[src/auth.py]] now", vec![(ghost("src/auth.py"), None, None)]),
            ("bare memory", "see [[auth-v1]]", vec![(mem("auth-v1"), None, None)]),
            (
                "alias",
                "[[auth-v1|the old plan]]",
                vec![(mem("auth-v1"), opt("the old plan"), None)],
            ),
            ("heading", "[[auth-v1#Risks]]", vec![(mem("auth-v1"), None, opt("Risks"))]),
            (
                "heading and alias",
                "[[docs/guide.md#Setup|setup]]",
                vec![(ghost("docs/guide.md"), opt("setup"), opt("Setup"))],
            ),
            ("memory prefix", "[[memory:auth-v1]]", vec![(mem("auth-v1"), None, None)]),
            (
                "memory prefix of an unknown memory",
                "[[memory:nope]]",
                vec![(mem("nope"), None, None)],
            ),
            ("memory prefix with .md", "[[memory:auth-v1.md]]", vec![(mem("auth-v1"), None, None)]),
            ("memory prefix any case", "[[Memory:auth-v1]]", vec![(mem("auth-v1"), None, None)]),
            (
                "memory prefix, heading and alias",
                "[[memory:auth-v2#Goals|v2]]",
                vec![(mem("auth-v2"), opt("v2"), opt("Goals"))],
            ),
            ("memory in a folder", "[[notes/x]]", vec![(mem("notes/x"), None, None)]),
            ("bare memory with .md", "[[auth-plan.md]]", vec![(mem("auth-plan"), None, None)]),
            (
                "spaces inside are trimmed",
                "[[  auth-v1 | v1 ]]",
                vec![(mem("auth-v1"), opt("v1"), None)],
            ),
            ("empty alias and heading", "[[auth-v1#|]]", vec![(mem("auth-v1"), None, None)]),
            ("table pipe escape", "| [[auth-v1\\|v1]] |", vec![(mem("auth-v1"), opt("v1"), None)]),
            ("embed", "![[diagram.png]]", vec![(ghost("diagram.png"), None, None)]),
            ("unicode target", "[[日本/メモ.md]]", vec![(ghost("日本/メモ.md"), None, None)]),
            (
                "double backslash is not an escape",
                "\\\\[[auth-v1]]",
                vec![(mem("auth-v1"), None, None)],
            ),
            (
                "nested single brackets are kept",
                "[[a [b] c]]",
                vec![(ghost("a [b] c"), None, None)],
            ),
            ("inner [[ restarts the link", "[[a [[b]] c]]", vec![(ghost("b"), None, None)]),
            ("triple brackets", "[[[x]]]", vec![(ghost("x"), None, None)]),
            (
                "several links to one target",
                "[[auth-v1]] and again [[auth-v1]]",
                vec![(mem("auth-v1"), None, None), (mem("auth-v1"), None, None)],
            ),
            ("unmatched backtick is text", "a ` b [[auth-v1]]", vec![(mem("auth-v1"), None, None)]),
            (
                "code span ends before the link",
                "`code` [[auth-v1]] `more`",
                vec![(mem("auth-v1"), None, None)],
            ),
            (
                "escaped backtick opens no span",
                "\\`x [[auth-v1]] `y`",
                vec![(mem("auth-v1"), None, None)],
            ),
            (
                "inline triple backticks are a span, not a fence",
                "```[[a]]``` [[auth-v1]]",
                vec![(mem("auth-v1"), None, None)],
            ),
            (
                "after a closed fence",
                "```\n[[a]]\n```\n[[auth-v1]]",
                vec![(mem("auth-v1"), None, None)],
            ),
            (
                "code span does not cross a blank line",
                "`open\n\n[[auth-v1]] `x`",
                vec![(mem("auth-v1"), None, None)],
            ),
        ];
        for (name, body, want) in cases {
            assert_eq!(&shapes(body), want, "case: {name}");
        }
    }

    #[test]
    fn not_links() {
        let cases: &[(&str, &str)] = &[
            ("escaped", "\\[[auth-v1]]"),
            ("empty", "[[]]"),
            ("blank", "[[ ]]"),
            ("unclosed", "[[auth-v1"),
            ("closed on the next line", "[[auth-v1\n]]"),
            ("heading only", "[[#Risks]]"),
            ("alias only", "[[|x]]"),
            ("memory prefix only", "[[memory:]]"),
            ("single brackets", "[auth-v1]"),
            ("dot only", "[[./]]"),
            ("fenced backticks", "```\n[[auth-v1]]\n```"),
            ("fenced tildes", "~~~md\n[[auth-v1]]\n~~~"),
            ("fence with info string", "```rust title=\"x\"\n[[auth-v1]]\n```"),
            ("indented fence", "- item\n    ```\n    [[auth-v1]]\n    ```"),
            ("fence in a quote", "> ```\n> [[auth-v1]]\n> ```"),
            ("unclosed fence runs to the end", "text\n```\n[[auth-v1]]\n\nmore [[x]]"),
            ("longer fence is not closed by a shorter one", "````\n```\n[[auth-v1]]\n````"),
            ("tilde fence not closed by backticks", "~~~\n```\n[[auth-v1]]\n"),
            ("inline code", "use `[[auth-v1]]` literally"),
            ("double-backtick code span", "``a ` [[auth-v1]] b``"),
            ("code span over a soft line break", "`a\n[[auth-v1]]`"),
            ("code span cuts the link", "[[auth `v1]] x`"),
        ];
        for (name, body) in cases {
            assert_eq!(links(body), vec![], "case: {name}");
        }
    }

    #[test]
    fn span_and_raw() {
        let body = "Intro — [[src/auth.py|auth]] and [[memory:auth-v1]].";
        let ls = links(body);
        assert_eq!(ls.len(), 2);
        for l in &ls {
            assert_eq!(&body[l.start..l.end], format!("[[{}]]", l.raw));
        }
        assert_eq!(ls[0].raw, "src/auth.py|auth");
        assert_eq!(ls[1].raw, "memory:auth-v1");
        assert!(ls.iter().all(|l| l.origin == LinkOrigin::Keyword));
    }

    #[test]
    fn normalize_target_table() {
        let cases = [
            ("src/auth.py", "src/auth.py"),
            ("./src/auth.py", "src/auth.py"),
            ("././src/auth.py", "src/auth.py"),
            ("./src//auth.py", "src/auth.py"),
            ("src///auth.py", "src/auth.py"),
            (".\\src\\auth.py", "src/auth.py"),
            ("src/./auth.py", "src/auth.py"),
            ("  src/auth.py \t", "src/auth.py"),
            ("docs/guide.md", "docs/guide.md"),
            ("./docs//guide.md", "docs/guide.md"),
            ("/etc/hosts", "/etc/hosts"),
            ("//etc//hosts", "/etc/hosts"),
            ("../up/file.rs", "../up/file.rs"),
            ("src/", "src"),
            ("Src/Auth.PY", "Src/Auth.PY"),
            ("My Notes/a b.md", "My Notes/a b.md"),
            ("./", ""),
            ("", ""),
        ];
        for (input, want) in cases {
            assert_eq!(normalize_target(input), want, "input: {input:?}");
        }
    }

    #[test]
    fn ghosts_meet() {
        let targets: Vec<LinkTarget> =
            links("[[./src//auth.py]] [[src/auth.py]] [[.\\src\\auth.py]] [[ src/auth.py ]]")
                .into_iter()
                .map(|l| l.target)
                .collect();
        assert_eq!(targets, vec![ghost("src/auth.py"); 4]);
        assert_eq!(targets[0].key(), "ghost:src/auth.py");
    }

    #[test]
    fn resolution_asks_for_the_stem() {
        let asked = std::cell::RefCell::new(Vec::new());
        let is_memory = |n: &str| {
            asked.borrow_mut().push(n.to_owned());
            n == "auth/plan"
        };
        let ls = extract_links("[[./auth//plan.md]] [[docs/x.md]]", &is_memory);
        assert_eq!(ls[0].target, mem("auth/plan"));
        assert_eq!(ls[1].target, ghost("docs/x.md"));
        assert_eq!(*asked.borrow(), vec!["auth/plan".to_owned(), "docs/x".to_owned()]);
        assert_eq!(resolve_target("  ", &no_memories), None);
        assert_eq!(resolve_target("memory: x.md ", &no_memories), Some(mem("x")));
    }

    #[test]
    fn edge_types_from_keywords() {
        let cases: &[(&str, &str, &[&str])] = &[
            (
                "ragdocs supersedes example",
                "This plan [[memory:auth-v1]] supersedes the previous approach.",
                &["supersedes"],
            ),
            ("replaces", "[[memory:auth-v2]] replaces the session design.", &["supersedes"]),
            ("replaced (past)", "We replaced [[memory:auth-v1]] last week.", &["supersedes"]),
            ("replacing", "Replacing [[memory:auth-v1]] with tokens.", &["supersedes"]),
            ("obsoletes", "It obsoletes [[memory:auth-v1]].", &["supersedes"]),
            ("deprecates", "This deprecates [[memory:auth-v1]].", &["supersedes"]),
            ("updates", "This updates [[memory:auth-v1]] with new numbers.", &["supersedes"]),
            ("uppercase keyword", "THIS SUPERSEDES [[memory:auth-v1]].", &["supersedes"]),
            (
                "ragdocs depends_on example (both links)",
                "The implementation [[memory:jwt-impl]] depends on [[memory:auth-plan]].",
                &["depends_on", "depends_on"],
            ),
            ("depend on", "Both depend on [[memory:auth-plan]].", &["depends_on"]),
            ("requires", "Login requires [[memory:jwt-impl]].", &["depends_on"]),
            ("required", "Token refresh is required for [[memory:jwt-impl]].", &["depends_on"]),
            ("needs", "The CLI needs [[memory:jwt-impl]] first.", &["depends_on"]),
            ("builds on", "This builds on [[memory:auth-plan]].", &["depends_on"]),
            ("relies on", "It relies on [[memory:auth-plan]].", &["depends_on"]),
            (
                "contradicts (ragdocs)",
                "Our new strategy [[memory:auth-v2]] contradicts [[memory:auth-v1]].",
                &["contradicts", "contradicts"],
            ),
            ("conflicts with", "This conflicts with [[memory:auth-v1]].", &["contradicts"]),
            ("disagrees with", "Bob disagrees with [[memory:auth-v1]].", &["contradicts"]),
            ("challenges", "The benchmark challenges [[memory:auth-v1]].", &["contradicts"]),
            ("extends", "This extends [[memory:auth-plan]] to mobile.", &["extends"]),
            ("elaborates on", "Here I elaborate on [[memory:auth-plan]].", &["extends"]),
            ("expands on", "It expands on [[memory:auth-plan]].", &["extends"]),
            ("causes", "The cache bug causes [[memory:auth-v1]] to fail.", &["causes"]),
            ("caused by", "The outage was caused by [[memory:jwt-impl]].", &["causes"]),
            ("leads to", "Skipping it leads to [[memory:auth-v1]].", &["causes"]),
            ("results in", "That results in [[memory:auth-v1]].", &["causes"]),
            ("instance of", "This is an instance of [[memory:auth-plan]].", &["instance_of"]),
            ("example of", "A good example of [[memory:auth-plan]].", &["instance_of"]),
            ("is an example", "[[memory:auth-v1]] is an example.", &["instance_of"]),
            (
                "invalidated by",
                "The idea was invalidated by [[memory:jwt-impl]].",
                &["invalidated_by"],
            ),
            ("disproved by", "Disproved by [[memory:jwt-impl]].", &["invalidated_by"]),
            ("refuted by", "It was refuted by [[memory:jwt-impl]].", &["invalidated_by"]),
            ("because of", "We switched because of [[memory:jwt-impl]].", &["motivated_by"]),
            ("motivated by", "Motivated by [[memory:jwt-impl]].", &["motivated_by"]),
            ("in order to", "In order to ship, see [[memory:jwt-impl]].", &["motivated_by"]),
            ("no keyword: memory", "See [[memory:auth-v1]] for details.", &["related_to"]),
            ("no keyword: ghost", "See [[docs/guide.md]] for details.", &["mentions"]),
        ];
        for (name, body, want) in cases {
            assert_eq!(types(body), *want, "case: {name}");
        }
    }

    #[test]
    fn edge_type_rules() {
        let cases: &[(&str, &str, &[&str])] = &[
            (
                "substring is not a keyword",
                "The prerequisites are in [[memory:auth-v1]].",
                &["related_to"],
            ),
            ("requirements is not requires", "Requirements: [[memory:auth-v1]].", &["related_to"]),
            (
                "causes inside because is not causes",
                "Fine, because [[memory:auth-v1]].",
                &["related_to"],
            ),
            (
                "keyword inside the link text",
                "See [[memory:replaces-old|replaces]].",
                &["related_to"],
            ),
            ("keyword in inline code", "Run `replaces` on [[memory:auth-v1]].", &["related_to"]),
            (
                "keyword in the previous sentence",
                "The new design replaces the old one. See [[memory:auth-v1]].",
                &["related_to"],
            ),
            (
                "keyword in the next sentence",
                "See [[memory:auth-v1]]. It depends on nothing.",
                &["related_to"],
            ),
            (
                "question mark ends a sentence",
                "Replaced? [[memory:auth-v1]] maybe.",
                &["related_to"],
            ),
            (
                "closing quote then period",
                "He said \"it replaces it.\" Read [[memory:auth-v1]].",
                &["related_to"],
            ),
            (
                "e.g. does not end a sentence",
                "This replaces older notes, e.g. [[memory:auth-v1]].",
                &["supersedes"],
            ),
            (
                "i.e. does not end a sentence",
                "It replaces the last one, i.e. [[memory:auth-v1]].",
                &["supersedes"],
            ),
            (
                "vs. does not end a sentence",
                "Tokens replace cookies vs. [[memory:auth-v1]].",
                &["supersedes"],
            ),
            (
                "a dotted path does not end a sentence",
                "Editing src/auth.py replaces [[memory:auth-v1]].",
                &["supersedes"],
            ),
            (
                "a path at a sentence end does",
                "It replaces src/auth.py. Then [[memory:auth-v1]].",
                &["related_to"],
            ),
            ("version numbers do not split", "v1.2 replaces [[memory:auth-v1]].", &["supersedes"]),
            (
                "etc. before a capital ends a sentence",
                "Replaces tokens, keys, etc. The rest is in [[memory:auth-v1]].",
                &["related_to"],
            ),
            (
                "soft line break keeps the sentence",
                "[[memory:auth-v1]] is\nreplaced now.",
                &["supersedes"],
            ),
            (
                "blank line ends it",
                "It replaces the old one\n\n[[memory:auth-v1]]",
                &["related_to"],
            ),
            (
                "list items are sentences",
                "- replaces the old one\n- [[memory:auth-v1]]",
                &["related_to"],
            ),
            ("numbered list items", "1. replaces it\n2. [[memory:auth-v1]]", &["related_to"]),
            (
                "heading is its own sentence",
                "## Replaces\n[[memory:auth-v1]] here",
                &["related_to"],
            ),
            ("table rows are sentences", "| replaces |\n| [[memory:auth-v1]] |", &["related_to"]),
            ("fence between", "Replaces\n```\ncode\n```\n[[memory:auth-v1]]", &["related_to"]),
            (
                "nearest keyword wins",
                "[[memory:auth-v2]] replaces [[memory:auth-v1]], which depends on [[memory:jwt-impl]].",
                &["supersedes", "supersedes", "depends_on"],
            ),
            (
                "a tie goes to precedence",
                "It requires [[memory:auth-v1]] replaces it.",
                &["supersedes"],
            ),
            (
                "passive supersession is not supersedes",
                "This is superseded by [[memory:auth-v2]].",
                &["related_to"],
            ),
            ("replaced by", "It was replaced by [[memory:auth-v2]].", &["related_to"]),
            (
                "deprecated in favour of",
                "Deprecated in favour of [[memory:auth-v2]].",
                &["related_to"],
            ),
            ("required by", "This is required by [[memory:jwt-impl]].", &["related_to"]),
            (
                "passive falls through to another keyword",
                "Replaced by [[memory:auth-v2]] because of cost.",
                &["motivated_by"],
            ),
            ("need to is modal", "We need to refactor [[src/auth.py]].", &["refactors"]),
        ];
        for (name, body, want) in cases {
            assert_eq!(types(body), *want, "case: {name}");
        }
    }

    #[test]
    fn ghost_document_verbs() {
        let cases: &[(&str, &str, &[&str])] = &[
            (
                "ragdocs example: refactor is nearer than plan to",
                "Plan to refactor [[src/auth.py]] to use JWT tokens.",
                &["refactors"],
            ),
            ("refactoring", "Refactoring [[src/db.rs]] today.", &["refactors"]),
            ("refactored", "I refactored [[src/db.rs]].", &["refactors"]),
            ("plans to", "The team plans to split [[docs/roadmap.md]].", &["plans"]),
            ("plan for", "Our plan for [[docs/roadmap.md]] is below.", &["plans"]),
            ("planned", "We planned [[docs/roadmap.md]] in May.", &["plans"]),
            ("debugging", "Debugging [[src/db.rs]] all day.", &["debugs"]),
            ("debugged", "I debugged [[src/db.rs]].", &["debugs"]),
            ("investigated", "We investigated [[src/db.rs]] for leaks.", &["debugs"]),
            ("fixed a bug in", "Fixed a bug in [[src/db.rs]].", &["debugs"]),
            ("bug in", "There is a bug in [[src/db.rs]].", &["debugs"]),
            ("no verb", "Look at [[src/db.rs]].", &["mentions"]),
            (
                "relationship keyword beats a verb",
                "Refactoring [[src/db.rs]] requires care.",
                &["depends_on"],
            ),
            (
                "document verbs do not type memories",
                "Refactor [[memory:auth-v1]].",
                &["related_to"],
            ),
            ("verb in another sentence", "I refactored it. See [[src/db.rs]].", &["mentions"]),
            ("preplanned is not planned", "The preplanned [[src/db.rs]].", &["mentions"]),
        ];
        for (name, body, want) in cases {
            assert_eq!(types(body), *want, "case: {name}");
        }
    }

    #[test]
    fn confidence_follows_typing() {
        let ls = links(
            "[[memory:auth-v2]] replaces it. See [[memory:auth-v1]]. Refactor [[src/a.rs]]. [[b.rs]]",
        );
        let got: Vec<f32> = ls.iter().map(|l| l.confidence).collect();
        assert_eq!(got, vec![0.8, 0.5, 0.8, 0.5]);
    }

    #[test]
    fn context_like_anchor_context() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "ragdocs example, short enough to keep whole",
                "Plan to refactor [[src/auth.py]] to use JWT tokens.\n\n## Goals",
                "Plan to refactor [[src/auth.py]] to use JWT tokens. ## Goals",
            ),
            ("whitespace collapsed", "a\n\n  b   [[x]]\tc\n", "a b [[x]] c"),
            (
                "cut at words with ellipses",
                "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor refactor [[src/auth.py]] to use JWT tokens and drop the session table, then measure everything again carefully.",
                "…adipiscing elit, sed do eiusmod tempor refactor [[src/auth.py]] to use JWT tokens and drop the session table,…",
            ),
            ("fenced code left out", "```\nsecret code\n```\nsee [[x]]", "see [[x]]"),
        ];
        for (name, body, want) in cases {
            let ls = links(body);
            assert_eq!(ls[0].context, *want, "case: {name}");
        }
        // Multi-byte text is cut on char boundaries.
        let body = format!("{}[[x]]{}", "é日🙂".repeat(40), "ü".repeat(80));
        let ctx = &links(&body)[0].context;
        assert!(ctx.starts_with('…') && ctx.ends_with('…') && ctx.contains("[[x]]"), "{ctx}");
        assert!(ctx.chars().count() <= 5 + 2 * CONTEXT_SIDE + 2, "{ctx}");
    }

    #[test]
    fn edge_type_names() {
        for name in EdgeType::ALL_NAMED {
            let t: EdgeType = name.parse().unwrap();
            assert_eq!(t.as_str(), *name);
            assert_eq!(t.to_string(), *name);
            assert_eq!(t.kind(), *name);
            assert_eq!(serde_json::to_string(&t).unwrap(), format!("\"{name}\""));
            assert_eq!(serde_json::from_str::<EdgeType>(&format!("\"{name}\"")).unwrap(), t);
        }
        let cases = [
            ("DEPENDS_ON", EdgeType::DependsOn),
            ("depends-on", EdgeType::DependsOn),
            (" Instance-Of ", EdgeType::InstanceOf),
            ("SUPERSEDES", EdgeType::Supersedes),
            ("conflicts", EdgeType::Contradicts),
            ("was-context-for", EdgeType::WasContextFor),
            ("shares_entity:Redis Cluster", EdgeType::SharesEntity("Redis Cluster".into())),
            ("Shares-Entity: src/auth.py", EdgeType::SharesEntity("src/auth.py".into())),
        ];
        for (input, want) in cases {
            assert_eq!(input.parse::<EdgeType>().unwrap(), want, "input: {input}");
        }
        let e = EdgeType::SharesEntity("Redis Cluster".into());
        assert_eq!(e.as_str(), "shares_entity:Redis Cluster");
        assert_eq!(e.kind(), "shares_entity");
        assert_eq!(serde_json::to_string(&e).unwrap(), "\"shares_entity:Redis Cluster\"");
        for bad in ["", "foo", "shares_entity:", "shares_entity", "depends:on", "mentions:x"] {
            assert!(bad.parse::<EdgeType>().is_err(), "accepted {bad:?}");
        }
        let msg = "foo".parse::<EdgeType>().unwrap_err().to_string();
        assert!(
            msg.starts_with("unknown link type `foo` (expected one of: supersedes, depends_on"),
            "{msg}"
        );
        assert!(msg.contains("was_context_for, shares_entity:<name>)"), "{msg}");
    }

    #[test]
    fn origins_and_targets() {
        for (o, s) in [
            (LinkOrigin::Keyword, "keyword"),
            (LinkOrigin::Frontmatter, "frontmatter"),
            (LinkOrigin::Agent, "agent"),
            (LinkOrigin::Entity, "entity"),
            (LinkOrigin::Context, "context"),
        ] {
            assert_eq!(o.as_str(), s);
            assert_eq!(s.parse::<LinkOrigin>().unwrap(), o);
            assert_eq!(serde_json::to_string(&o).unwrap(), format!("\"{s}\""));
        }
        assert!("nope".parse::<LinkOrigin>().is_err());
        assert_eq!(mem("a/b").key(), "memory:a/b");
        assert_eq!(LinkTarget::from_key("ghost:src/a.rs"), Some(ghost("src/a.rs")));
        assert_eq!(LinkTarget::from_key("memory:"), None);
        assert_eq!(LinkTarget::from_key("x"), None);
        let link = &links("This plan [[memory:auth-v1]] supersedes it.")[0];
        let json = serde_json::to_value(link).unwrap();
        assert_eq!(json["target"], "memory:auth-v1");
        assert_eq!(json["edge_type"], "supersedes");
        assert_eq!(json["origin"], "keyword");
        let back: Link = serde_json::from_value(json).unwrap();
        assert_eq!(&back, link);
    }

    fn yaml(s: &str) -> Value {
        serde_yaml_ng::from_str(s).unwrap()
    }

    /// A frontmatter link's target and type.
    type Typed = (LinkTarget, String);

    fn fm(s: &str) -> (Vec<Typed>, Vec<String>) {
        let (ls, warnings) = frontmatter_links(&yaml(s));
        for l in &ls {
            assert_eq!(
                (l.origin, l.confidence, l.start, l.end),
                (LinkOrigin::Frontmatter, 1.0, 0, 0)
            );
        }
        (ls.into_iter().map(|l| (l.target, l.edge_type.to_string())).collect(), warnings)
    }

    #[test]
    fn frontmatter_links_table() {
        let t = |n: &str, ty: &str| (mem(n), ty.to_owned());
        let cases: &[(&str, &str, Vec<Typed>, usize)] = &[
            (
                "spec example",
                "- { type: depends_on, target: jwt-library-research }",
                vec![t("jwt-library-research", "depends_on")],
                0,
            ),
            (
                "memory prefix",
                "- { type: depends_on, target: memory:x }",
                vec![t("x", "depends_on")],
                0,
            ),
            (
                "block maps",
                "- type: supersedes\n  target: auth-v1.md\n",
                vec![t("auth-v1", "supersedes")],
                0,
            ),
            (
                "bare string",
                "- auth-v1\n- memory:auth-v2",
                vec![t("auth-v1", "related_to"), t("auth-v2", "related_to")],
                0,
            ),
            ("missing type", "- { target: auth-v1 }", vec![t("auth-v1", "related_to")], 0),
            (
                "type any case, conflicts",
                "- { type: Conflicts, target: a }",
                vec![t("a", "contradicts")],
                0,
            ),
            (
                "shorthand map",
                "- depends_on: jwt-research",
                vec![t("jwt-research", "depends_on")],
                0,
            ),
            (
                "shares_entity",
                "- { type: 'shares_entity:Redis', target: a }",
                vec![t("a", "shares_entity:Redis")],
                0,
            ),
            ("single map", "{ type: extends, target: a }", vec![t("a", "extends")], 0),
            ("single string", "a", vec![t("a", "related_to")], 0),
            ("null", "~", vec![], 0),
            ("empty list", "[]", vec![], 0),
            (
                "whole frontmatter",
                "id: x\nlinks:\n  - { type: causes, target: b }\n",
                vec![t("b", "causes")],
                0,
            ),
            (
                "unknown type",
                "- { type: likes, target: a }\n- { type: extends, target: b }",
                vec![t("b", "extends")],
                1,
            ),
            ("missing target", "- { type: extends }", vec![], 1),
            ("empty target", "- { type: extends, target: '' }", vec![], 1),
            ("list target", "- { type: extends, target: [a, b] }", vec![], 1),
            ("non-string type", "- { type: 3, target: a }", vec![], 1),
            ("unknown key", "- { type: extends, taget: a, target: b }", vec![], 1),
            ("nested list", "- [a, b]", vec![], 1),
            ("boolean item", "- true", vec![], 1),
            ("not a list", "true", vec![], 1),
        ];
        for (name, src, want, n_warnings) in cases {
            let (got, warnings) = fm(src);
            assert_eq!(&got, want, "case: {name}");
            assert_eq!(warnings.len(), *n_warnings, "case: {name}: {warnings:?}");
        }
        let (_, w) = fm("- { type: likes, target: a }");
        assert!(w[0].starts_with("`links` entry 1: unknown link type `likes`"), "{w:?}");
        let (ls, _) =
            frontmatter_links(&yaml("- { type: extends, target: a, context: see the plan }"));
        assert_eq!(ls[0].context, "see the plan");
    }

    fn entities(body: &str) -> Vec<String> {
        extract_entities(body, &[])
    }

    #[test]
    fn entities_from_prose_and_code() {
        let body = "\
Plan to refactor [[src/auth.py]] so `verify_token` uses the Redis Cluster.

We moved config to ./config//app.toml and Cargo.toml; see src\\db\\pool.rs:42 too.
The MAX_RETRIES constant and the getUser and HashMap helpers changed. Call reconcile() first.
Open Policy Agent now guards the API Gateway.

```rust
// load config/extra.yaml
let user_id = open(\"data/seed.json\");
```
";
        assert_eq!(
            entities(body),
            [
                "src/auth.py",
                "verify_token",
                "Redis Cluster",
                "config/app.toml",
                "Cargo.toml",
                "src/db/pool.rs",
                "MAX_RETRIES",
                "getUser",
                "HashMap",
                "reconcile",
                "Open Policy Agent",
                "API Gateway",
                "config/extra.yaml",
                "data/seed.json",
            ]
        );
    }

    #[test]
    fn entity_rules() {
        let cases: &[(&str, &str, &[&str])] = &[
            ("sentence-initial The", "The cache is cold.", &[]),
            ("I", "I think I fixed it.", &[]),
            (
                "sentence start with a starter",
                "Then Redis Cluster failed over.",
                &["Redis Cluster"],
            ),
            ("sentence start needs three words", "Redis Cluster failed over.", &[]),
            ("three words at the start", "Open Policy Agent handles it.", &["Open Policy Agent"]),
            ("mid-sentence pair", "we run Redis Cluster here", &["Redis Cluster"]),
            (
                "starter dropped mid-sentence",
                "we chose The Open Policy Agent",
                &["Open Policy Agent"],
            ),
            ("single capitalised word", "we use Redis here", &[]),
            ("five words are a title", "see Quick Brown Fox Jumps Over it", &[]),
            ("punctuation breaks a name", "we use Redis, Kafka and Postgres", &[]),
            ("all caps only", "a TODO FIXME note", &[]),
            ("acronym with a word", "behind the AWS Lambda layer", &["AWS Lambda"]),
            ("in a wikilink", "see [[Redis Cluster]] notes", &["Redis Cluster"]),
            ("possessive", "the Redis Cluster's leader", &["Redis Cluster"]),
            ("emphasis", "we use **Redis Cluster** now", &["Redis Cluster"]),
            ("heading lines are title case", "## Goals And Risks\ntext", &[]),
            ("after a list marker", "- Then Open Policy Agent", &["Open Policy Agent"]),
            ("url", "see https://github.com/foo/bar.rs and www.example.com/a.py", &[]),
            ("email", "mail ops@example.com now", &[]),
            ("version numbers", "bumped to v1.2.3 and 2.0.1 (1.2)", &[]),
            ("e.g.", "tools, e.g. ripgrep", &[]),
            ("fraction and/or", "1/2 of km/h and/or TCP/IP", &[]),
            ("plain lowercase words", "the cache is cold and slow", &[]),
            ("domain is not a file", "visit example.com today", &[]),
            ("snake_case", "set user_id and _private_fn", &["user_id", "_private_fn"]),
            ("underscore emphasis", "this is _very_ important", &[]),
            ("dunder", "call __init__ later", &[]),
            ("SCREAMING_CASE needs two parts", "set MAX_RETRIES not MAX", &["MAX_RETRIES"]),
            ("camelCase", "getUser and iPhone", &["getUser", "iPhone"]),
            ("PascalCase", "HashMap, GitHub, OAuth", &["HashMap", "GitHub", "OAuth"]),
            ("capitalised, not PascalCase", "say Hello World", &["Hello World"]),
            ("qualified path", "see Vault::open and std::fs", &["Vault::open", "std::fs"]),
            ("dotfile in a folder", "edit config/.env", &["config/.env"]),
            ("known file name", "the Makefile and Dockerfile", &["Makefile", "Dockerfile"]),
            ("bare file", "edit auth.py and notes.txt", &["auth.py", "notes.txt"]),
            (
                "inline code",
                "use `serde_yaml_ng` and `reconcile` and `Cargo.toml`",
                &["serde_yaml_ng", "reconcile", "Cargo.toml"],
            ),
            ("inline code path", "in `src/model`", &["src/model"]),
            ("inline code rejects", "`npm ci` `--json` `42` `true` `v1.2` `a`", &[]),
            ("fence identifiers are skipped", "```\nlet user_id = HashMap::new();\n```", &[]),
            (
                "link parts",
                "[[src/auth.py|the auth module]] and [[memory:auth-v1]]",
                &["src/auth.py"],
            ),
            ("dedupe keeps first", "src/a.rs then ./src/a.rs and `src/a.rs`", &["src/a.rs"]),
            ("unicode capitalised", "we met Zoë Åberg there", &["Zoë Åberg"]),
        ];
        for (name, body, want) in cases {
            assert_eq!(entities(body), *want, "case: {name}");
        }
    }

    #[test]
    fn entity_tags() {
        let tags = ["Auth".to_owned(), "#refactor".to_owned(), " ".to_owned(), "auth".to_owned()];
        assert_eq!(
            extract_entities("uses user_id", &tags),
            ["user_id", "tag:auth", "tag:refactor"]
        );
    }

    #[test]
    fn rewrite_table() {
        let cases: &[(&str, &str, Option<&str>)] = &[
            ("memory prefix", "see [[memory:old]].", Some("see [[memory:new]].")),
            ("alias kept", "[[memory:old|the plan]]", Some("[[memory:new|the plan]]")),
            ("heading kept", "[[memory:old#Goals]]", Some("[[memory:new#Goals]]")),
            ("heading and alias", "[[memory:old#G|x]]", Some("[[memory:new#G|x]]")),
            ("bare", "[[old]] and [[old|o]]", Some("[[new]] and [[new|o]]")),
            ("bare .md kept", "[[old.md]]", Some("[[new.md]]")),
            ("memory .md kept", "[[memory:old.md]]", Some("[[memory:new.md]]")),
            ("prefix case kept", "[[Memory: old ]]", Some("[[Memory: new ]]")),
            ("normalised bare", "[[./old]]", Some("[[new]]")),
            ("escaped table pipe", "| [[old\\|o]] |", Some("| [[new\\|o]] |")),
            (
                "code untouched",
                "`[[old]]`\n```\n[[memory:old]]\n```\n[[old]]",
                Some("`[[old]]`\n```\n[[memory:old]]\n```\n[[new]]"),
            ),
            ("other targets untouched", "[[older]] [[memory:old-2]] [[src/old]]", None),
            ("nothing to do", "no links", None),
            ("escaped link", "\\[[old]]", None),
        ];
        for (name, body, want) in cases {
            assert_eq!(rewrite_memory_links(body, "old", "new").as_deref(), *want, "case: {name}");
        }
        assert_eq!(
            rewrite_memory_links("[[memory:a/old]]", "memory:a/old.md", "b/new").as_deref(),
            Some("[[memory:b/new]]")
        );
        assert_eq!(rewrite_memory_links("[[old]]", "old", "old"), None);
        assert_eq!(rewrite_memory_links("[[old]]", "", "x"), None);
        let rewritten = rewrite_memory_links("[[memory:old]] replaces it", "old", "new").unwrap();
        assert_eq!(extract_links(&rewritten, &no_memories)[0].target, mem("new"));
    }

    /// A deterministic generator of awkward bodies.
    fn generated(count: usize) -> Vec<String> {
        const PIECES: &[&str] = &[
            "[[",
            "]]",
            "[",
            "]",
            "`",
            "``",
            "```",
            "~~~",
            "|",
            "#",
            "\\",
            "memory:",
            "a",
            "src/auth.py",
            " ",
            "\n",
            "\n\n",
            "  ",
            "\t",
            ".",
            "!",
            "?",
            "é",
            "日本",
            "🙂",
            "\u{a0}",
            "\r\n",
            "depends on",
            "replaces",
            "Redis Cluster",
            "- ",
            "> ",
            "## ",
            "_",
            "x_y",
            "fooBar",
            "e.g.",
            "1. ",
            "::",
            "()",
            "/",
            "./",
            "*",
            "\"",
            "'s",
            "http://",
            "\u{1}",
            "refactor",
            "because of",
        ];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..count)
            .map(|_| {
                let len = (next() % 40) as usize;
                (0..len).map(|_| PIECES[(next() % PIECES.len() as u64) as usize]).collect()
            })
            .collect()
    }

    #[test]
    fn never_panics_on_generated_input() {
        let is_memory = |n: &str| n.len().is_multiple_of(2);
        for body in generated(4000) {
            for l in extract_links(&body, &is_memory) {
                let span = &body[l.start..l.end];
                assert!(span.starts_with("[[") && span.ends_with("]]"), "{body:?} {l:?}");
                assert_eq!(&span[2..span.len() - 2], l.raw, "{body:?}");
                assert!(!l.raw.contains('\n'), "{body:?}");
            }
            let _ = extract_entities(&body, &["t".to_owned()]);
            if let Some(out) = rewrite_memory_links(&body, "a", "b") {
                assert_ne!(out, body);
            }
            let _ = normalize_target(&body);
            let _ = frontmatter_links(&Value::String(body.clone()));
        }
    }

    #[test]
    fn large_adversarial_inputs_finish() {
        // These would be quadratic with naive rescans; they must stay fast (no timing assert:
        // benchmarks measure speed, this only guards against a blow-up that hangs the suite).
        let n = 100_000;
        let bodies = [
            "[[".repeat(n),
            "[[a".repeat(n),
            "`".repeat(n),
            (1..2000).map(|k| "`".repeat(k)).collect::<Vec<_>>().join(" "),
            "\\".repeat(n) + "[[x]]",
            "a ".repeat(n) + "replaces [[memory:x]]",
            "[[x]] replaces ".repeat(n / 10),
            "```\n".repeat(n / 4),
            "Redis Cluster ".repeat(n / 10),
        ];
        for body in &bodies {
            let _ = extract_links(body, &no_memories);
            let _ = extract_entities(body, &[]);
            let _ = rewrite_memory_links(body, "x", "y");
            let _ = extract_entities(body, &[]);
            let _ = rewrite_memory_links(body, "x", "y");
        }
    }
}
