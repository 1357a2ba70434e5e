//! Consolidation: merge, merge suggestions, split, dedup on write, maintain.
//!
//! This module owns the decisions of consolidation: which memories are near-duplicates, what a
//! merged or split memory looks like, and what `maintain` finds and changes. Every change goes
//! through the [`Vault`] writers, so it is atomic, redacted and reversible: a merged or
//! split-away memory goes to `.trash/` (or is archived), every rewritten memory first has its old
//! version stored in `.history/`, and nothing is ever deleted. It never writes the derived
//! indices: it reads them ([`Indexes`]) and the caller reconciles after a change.
//!
//! One file per job: `merge.rs`, `split.rs`, `similar.rs` (memory-level vectors, dedup on write,
//! merge suggestions) and `maintain.rs`; the constants and imports they share live here.
//!
//! # Memory-level vectors
//!
//! Near-duplicate detection compares whole memories, not chunks. A memory's vector is the mean of
//! its chunk vectors as stored in the vector index (keys from [`chunk_key`]), re-normalised to
//! unit length. Reading the stored vectors keeps [`suggest_merges`] cheap with any embedder
//! (re-embedding 10k memories with a sentence-transformer would take minutes); a memory whose
//! vectors are missing from the index is re-embedded the way the indexer does it. The mean
//! weights every chunk equally.
//!
//! Stored chunk vectors embed the memory's title in front of each chunk, and a memory without a
//! heading takes its title from its *name*, so two identical bodies under different names are
//! not quite identical vectors. Hence [`find_duplicate`] re-scores its best candidates by
//! re-embedding both texts the same way (title = first heading, never the name), and
//! [`suggest_merges`] scores a pair with identical (redacted) bodies exactly 1.
//!
//! # Clusters without chaining
//!
//! [`suggest_merges`] finds candidate pairs (cosine ≥ threshold) by a blocked, multi-threaded
//! brute force over the unit vectors (exact and deterministic; each memory keeps at most
//! [`MAX_NEIGHBOURS`] partners), then clusters them with complete linkage: pairs are taken from
//! the most similar down, and two clusters join only when *every* cross pair is at or above the
//! threshold. A chain A~B~C with A≁C therefore never becomes one cluster. A cluster's score is
//! the mean pairwise cosine.
//!
//! # Use
//!
//! ```no_run
//! # fn demo(vault: &memlane::vault::Vault, idx: &mut memlane::index::store::Indexes) -> memlane::Result<()> {
//! use memlane::lifecycle::consolidate::{maintain, suggest_merges};
//!
//! idx.reconcile(vault)?; // consolidation reads the index's view of the vault
//! let threshold = vault.config.lifecycle.merge_threshold;
//! let clusters = suggest_merges(vault, idx, threshold, None, 5);
//! let report = maintain(vault, idx, vault.clock.now())?;
//! if report.changed() {
//!     idx.reconcile(vault)?; // and never writes it
//! }
//! # let _ = clusters;
//! # Ok(())
//! # }
//! ```

mod maintain;
mod merge;
mod similar;
mod split;
#[cfg(test)]
mod tests;

pub use maintain::*;
pub use merge::*;
pub use similar::*;
pub use split::*;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

use jiff::Timestamp;
use serde::Serialize;
use serde_yaml_ng::Value;

use crate::error::Error;
use crate::index::chunk::{ChunkOptions, chunk_markdown, estimate_tokens, markdown_title};
use crate::index::chunk::{Heading, scan_headings as headings};
use crate::index::graph::GraphStats;
use crate::index::manifest::{Entry, chunk_key};
use crate::index::math::cosine;
use crate::index::store::{Indexes, embed_text};
use crate::lifecycle::{ImportanceSource, UsageState, UsageStore, age_days};
use crate::model::MemoryName;
use crate::model::frontmatter::{list_value, str_value};
use crate::model::links::rewrite_memory_links;
use crate::privacy::{sanitize, strip_markers};
use crate::vault::{Memory, Vault, WriteOutcome, WriteStatus};

/// Length of a member preview in [`suggest_merges`], in chars.
pub const PREVIEW_CHARS: usize = 120;

/// At most this many partners per memory when collecting candidate pairs (bounds the work on a
/// vault of templated, all-alike memories; ordinary vaults never reach it).
pub const MAX_NEIGHBOURS: usize = 16;

/// Up to this many memories, `suggest-merges` and `maintain` compare every pair (exact, and
/// seconds at 10k); above, the pairs come from random-projection trees (linear in the vault).
pub const EXACT_PAIRS_MAX: usize = 10_000;

/// `maintain` lists a memory as a split candidate when it is longer than this many estimated
/// tokens ([`estimate_tokens`]) …
pub const SPLIT_MIN_TOKENS: usize = 2_000;

/// … at least this many days old on the configured clock …
pub const SPLIT_MIN_AGE_DAYS: f64 = 7.0;

/// … and was read or returned by search at least this many times (MIRA: a long memory that is
/// actually used is worth splitting; one nobody reads is not).
pub const SPLIT_MIN_ACCESSES: u64 = 5;

/// [`find_duplicate`] re-scores the candidates whose index similarity is within this margin below
/// the threshold (the name-derived title can pull a short memory's stored vector down) …
const DEDUP_MARGIN: f64 = 0.25;

/// … at most this many of them, best first.
const DEDUP_RESCORE: usize = 5;

/// Neighbours fetched per query vector by [`find_duplicate`].
const DEDUP_NEIGHBOURS: usize = 10;

/// Chunks embedded per embedder call (as the indexer does).
const EMBED_BATCH: usize = 32;

const SECONDS_PER_DAY: f64 = 86_400.0;
