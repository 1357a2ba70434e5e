//! Wikilinks, typed edges and structural entities: pure functions over a memory's text.
//!
//! Nothing here touches the disk. [`extract_links`] reads the `[[wikilinks]]` of a body and types
//! each one from its own sentence, [`frontmatter_links`] reads explicit `links:` from frontmatter,
//! [`extract_entities`] lists the names that `shares_entity:<Name>` links join on, and
//! [`rewrite_memory_links`] points links at a memory's new name after a rename or merge.
//!
//! Where things live: `edge` (link types, origins, the [`Link`] record), `target` (what a
//! `[[target]]` names), `code` (what is code and so never links), `sentence` and `keywords` (what
//! types a link), `parse` ([`extract_links`]), `rewrite` ([`rewrite_memory_links`]),
//! `frontmatter` ([`frontmatter_links`]) and `entities` ([`extract_entities`]).
//!
//! # Wikilink syntax
//!
//! - `[[target]]`, `[[target|alias]]`, `[[target#heading]]`, `[[target#heading|alias]]` and
//!   `[[memory:name]]` (with the same optional parts). `![[embed]]` is a link to `embed` (the span
//!   starts at `[[`). In tables, Obsidian's `[[target\|alias]]` works too.
//! - Code never links (by the rules of [`crate::model::markdown`], which the chunker shares):
//!   fenced blocks (```` ``` ```` or `~~~`, at any indent or inside `>` quotes;
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

mod code;
mod edge;
mod entities;
mod frontmatter;
mod keywords;
mod parse;
mod rewrite;
mod sentence;
mod target;

#[cfg(test)]
mod tests;

pub use edge::*;
pub use entities::*;
pub use frontmatter::*;
pub use parse::*;
pub use rewrite::*;
pub use target::*;
