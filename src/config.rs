//! Layered configuration: built-in defaults, the user config file, the vault's
//! `.memories/config.toml`, `MEMLANE_*` environment variables and command-line flags.
//!
//! Precedence, lowest first: defaults < user file < vault file < environment < flags. Every leaf
//! value remembers which layer set it ([`LoadedConfig::sources`]), so `memlane config` can show
//! where each number came from.
//!
//! Each layer is read as a [`toml::Table`] and validated on its own before it is merged, so an
//! error always names the file, variable or flag that caused it, the key as a dotted path
//! (`types.bug_fix.weight`), the bad value and what is allowed. Layers merge leaf by leaf: a
//! `[types.bug_fix]` table that sets only `half_life_days` keeps the other numbers of the layers
//! below it, and in the end of the built-in `bug_fix` profile. A type that is not built in takes
//! the fields no layer sets from the built-in `journal` profile (not from an overridden one).
//!
//! Besides the top-level keys and `[privacy]`, the sections `[embedding]`, `[search]` (with one
//! `[search.intents.<intent>]` table per search intent), `[lifecycle]` and `[mcp]` hold plain
//! keys described by a small schema (`SECTIONS`); every key of those sections is optional.
//!
//! This module does no discovery of its own beyond [`default_user_config_path`]: the caller
//! decides which files to read and passes the environment in, so tests never touch the process
//! environment. It knows nothing about clap; flags arrive as `(dotted key, value, flag name)`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use toml::{Table, Value};

/// The configuration file `memlane init` writes into a new vault (`.memories/config.toml`).
///
/// Every key is present but commented out with its built-in default, so the file loads as the
/// defaults. Section headers stay uncommented: uncommenting a single `# key = value` line is
/// enough to change that value.
pub const DEFAULT_CONFIG_TOML: &str = r#"# memlane configuration for this vault.
#
# Every setting is optional: the commented lines show the built-in defaults.
# Precedence, lowest first: built-in defaults < user config file < this file
# < MEMLANE_* environment variables < command-line flags.
# Run `memlane config` to see the effective configuration and where each value comes from.

# Where vaults live: "project" (the nearest .memories/ above the current directory)
# or "user" (one vault per user in the platform data directory).
# storage_strategy = "project"

# The type given to memories created without --type; must be a known type.
# default_type = "journal"

[embedding]
# "auto" (a local model when one is installed, else builtin), "builtin" or a model directory.
# model = "auto"
# Texts embedded per forward pass (1 to 1024).
# batch_size = 32

# Search ranking; `memlane search --explain` shows what each stage did.
[search]
# Ranking preset: "balanced", "ragdocs", "mnestra", "remindb" or "mira".
# profile = "balanced"
# Number of results when no --limit is given (1 to 1000).
# limit = 5
# Results whose relevance is below this are dropped (0 to 1).
# score_threshold = 0.1
# The k of reciprocal rank fusion, which sums weight / (k + rank) (greater than 0).
# rrf_k = 60.0
# Each retriever returns max(min_candidates, candidate_factor * limit) chunks (1 to 100000).
# min_candidates = 50
# The per-result candidate multiplier of that formula (1 to 100).
# candidate_factor = 4
# Evidence at which the calibrated relevance is 0.5 (greater than 0 and less than 1).
# calibration_midpoint = 0.35
# Steepness of the calibration sigmoid (greater than 0).
# calibration_steepness = 10.0
# Score multiplier for a memory superseded by another (greater than 0, at most 1).
# supersession_penalty = 0.5
# Weight of a query's question words (what, when, did, we, …) in keyword scoring (0 to 1;
# 0 leaves them out unless the query has nothing else).
# question_weight = 0.0
# Share of a memory's fused score added from its best neighbour in the same thread: memories
# of one folder written one after another (0 to 1; 0 turns it off).
# context_weight = 0.3
# Neighbours on each side in a thread that lend context (0 to 50).
# context_span = 2
# A thread breaks where two memories of a folder were written more than this many minutes
# apart (0 or more).
# context_gap_minutes = 120.0
# Weight of a date named in the query ("in May 2023", "last week"): memories created then
# are preferred (0 to 1; 0 turns it off).
# temporal_weight = 0.5
# Days after expires_at over which a memory fades to 0, then leaves results (0 or more).
# expiry_fade_days = 5.0

# Weights of BM25 and vector ranks in the fusion for each --intent (each 0 to 1).
# Only these four intents exist; a table may set either weight and keep the other.
[search.intents.general]
# Weight of the keyword (BM25) ranking.
# bm25 = 0.4
# Weight of the vector (embedding) ranking.
# vector = 0.6

[search.intents.recall]
# Weight of the keyword (BM25) ranking.
# bm25 = 0.6
# Weight of the vector (embedding) ranking.
# vector = 0.4

[search.intents.exact]
# Weight of the keyword (BM25) ranking.
# bm25 = 0.8
# Weight of the vector (embedding) ranking.
# vector = 0.2

[search.intents.explore]
# Weight of the keyword (BM25) ranking.
# bm25 = 0.3
# Weight of the vector (embedding) ranking.
# vector = 0.7

# Usage state: temperature, cold memories, near-duplicates.
[lifecycle]
# How ages are counted: "activity" (days the vault was used) or "calendar" (wall-clock days).
# clock = "activity"
# Temperature of a new or summarized memory (0 to 1).
# temperature_start = 0.5
# Added to the temperature by each read and each search hit (0 to 1).
# temperature_warm = 0.15
# Per-hour cooling: temperature * exp(-cooling_rate * hours) (0 or more).
# cooling_rate = 0.05
# Memories below this temperature are cold (0 to 1).
# cold_threshold = 0.1
# Memories that cool below this temperature are announced to MCP clients (0 to 1).
# notify_threshold = 0.1
# Minutes between the MCP server's checks for cold memories (at least 1).
# cold_check_minutes = 5
# Minutes between the runs of `maintain` inside `memlane watch` and the MCP server; 0 means never.
# maintain_minutes = 60
# Hours after which a still-cold memory is announced again; 0 means never.
# renotify_hours = 0
# `add` refuses content at least this similar to an existing memory, unless --force (0 to 1).
# dedup_threshold = 0.95
# MCP `remember` updates a memory at least this similar in place (0 to 1).
# remember_update_threshold = 0.88
# Default similarity threshold of `memlane suggest-merges` (0 to 1).
# merge_threshold = 0.85

[mcp]
# Tools the MCP server offers: "core" (a short list) or "full" (every tool).
# tools = "core"

[privacy]
# Replace credential-shaped text (API keys, tokens, passwords) after <private> redaction.
# scrub_secrets = true

# One table per memory type. Built-in types: architecture, bug_fix, code_context, decision,
# document_chunk, fact, journal, observation, plan, preference, reflection, session_summary.
# A table may set any subset of the fields below; the rest keep their built-in values.
# A new type, such as [types.meeting], takes the fields it does not set from journal.
[types.bug_fix]
# Age in days at which the type-profile factor has fallen to one half.
# half_life_days = 30.0
# Score multiplier for this type.
# weight = 1.3
# Memories younger than this many days get a recency boost; 0 turns the boost off.
# recency_window_days = 14.0
# Largest recency boost, added to the score of a brand-new memory (0 to 1).
# recency_max_boost = 0.2
# The boost is recency_max_boost * recency_rate ^ age_in_days (greater than 0, at most 1).
# recency_rate = 0.95
"#;

/// Environment variables that start with `MEMLANE_` but are read elsewhere, not by the loader.
const RESERVED_ENV: &[&str] =
    &["MEMLANE_VAULT", "MEMLANE_CONFIG", "MEMLANE_LOG", "MEMLANE_NOW", "MEMLANE_MODEL"];

/// What an unknown `MEMLANE_*` variable should have been.
const ENV_HELP: &str = "unset it or use one of MEMLANE_STORAGE_STRATEGY, MEMLANE_DEFAULT_TYPE, \
MEMLANE_EMBEDDING__<KEY>, MEMLANE_SEARCH__<KEY>, MEMLANE_SEARCH__INTENTS__<INTENT>__<BM25|VECTOR> \
with INTENT one of GENERAL, RECALL, EXACT, EXPLORE, MEMLANE_LIFECYCLE__<KEY>, MEMLANE_MCP__TOOLS, \
MEMLANE_PRIVACY__SCRUB_SECRETS, MEMLANE_TYPES__<TYPE>__<FIELD> with FIELD one of HALF_LIFE_DAYS, \
WEIGHT, RECENCY_WINDOW_DAYS, RECENCY_MAX_BOOST, RECENCY_RATE, where KEY is a key of that section \
as `memlane config` prints it (nested keys are joined with `__`); MEMLANE_VAULT, MEMLANE_CONFIG, \
MEMLANE_LOG, MEMLANE_NOW and MEMLANE_MODEL are read elsewhere";

/// The top-level keys, in the order `render_toml` writes them.
const TOP_KEYS: &[&str] = &[
    "storage_strategy",
    "default_type",
    "embedding",
    "search",
    "lifecycle",
    "mcp",
    "privacy",
    "types",
];
const PRIVACY_KEYS: &[&str] = &["scrub_secrets"];
const PROFILE_KEYS: &[&str] =
    &["half_life_days", "weight", "recency_window_days", "recency_max_boost", "recency_rate"];

/// The keys of a schema-described section and what each accepts, in `render_toml` order.
type Keys = &'static [(&'static str, Rule)];

const EMBEDDING_KEYS: Keys = &[("model", Rule::Model), ("batch_size", Rule::Int(1, 1024))];
const SEARCH_KEYS: Keys = &[
    ("profile", Rule::Choice(SearchProfile::NAMES)),
    ("limit", Rule::Int(1, 1000)),
    ("score_threshold", Rule::Num(Range::Unit)),
    ("rrf_k", Rule::Num(Range::Positive)),
    // Bounded: each retriever allocates room for this many chunks (a cloned repository's config
    // must not make every search abort).
    ("min_candidates", Rule::Int(1, 100_000)),
    ("candidate_factor", Rule::Int(1, 100)),
    ("calibration_midpoint", Rule::Num(Range::OpenUnit)),
    ("calibration_steepness", Rule::Num(Range::Positive)),
    ("supersession_penalty", Rule::Num(Range::PositiveUnit)),
    ("question_weight", Rule::Num(Range::Unit)),
    ("context_weight", Rule::Num(Range::Unit)),
    ("context_span", Rule::Int(0, 50)),
    ("context_gap_minutes", Rule::Num(Range::NonNegative)),
    ("temporal_weight", Rule::Num(Range::Unit)),
    ("expiry_fade_days", Rule::Num(Range::NonNegative)),
];
/// The sub-table of `[search]` holding one `[search.intents.<intent>]` table per intent.
const INTENTS_KEY: &str = "intents";
const WEIGHT_KEYS: Keys = &[("bm25", Rule::Num(Range::Unit)), ("vector", Rule::Num(Range::Unit))];
const LIFECYCLE_KEYS: Keys = &[
    ("clock", Rule::Choice(ClockKind::NAMES)),
    ("temperature_start", Rule::Num(Range::Unit)),
    ("temperature_warm", Rule::Num(Range::Unit)),
    ("cooling_rate", Rule::Num(Range::NonNegative)),
    ("cold_threshold", Rule::Num(Range::Unit)),
    ("notify_threshold", Rule::Num(Range::Unit)),
    ("cold_check_minutes", Rule::Int(1, i64::MAX)),
    ("maintain_minutes", Rule::Int(0, i64::MAX)),
    ("renotify_hours", Rule::Int(0, i64::MAX)),
    ("dedup_threshold", Rule::Num(Range::Unit)),
    ("remember_update_threshold", Rule::Num(Range::Unit)),
    ("merge_threshold", Rule::Num(Range::Unit)),
];
const MCP_KEYS: Keys = &[("tools", Rule::Choice(McpTools::NAMES))];

/// The sections of plain keys, in the order `render_toml` writes them. `[search]` also holds
/// the `[search.intents.<intent>]` tables ([`INTENTS_KEY`], [`WEIGHT_KEYS`]).
const SECTIONS: &[(&str, Keys)] = &[
    ("embedding", EMBEDDING_KEYS),
    ("search", SEARCH_KEYS),
    ("lifecycle", LIFECYCLE_KEYS),
    ("mcp", MCP_KEYS),
];

/// What a key of a schema-described section accepts.
#[derive(Debug, Clone, Copy)]
enum Rule {
    /// One of these strings.
    Choice(&'static [&'static str]),
    /// `embedding.model`: a non-blank string (`"auto"`, `"builtin"` or a model directory; the
    /// directory is checked by the model loader, which names it in its error).
    Model,
    /// A TOML integer (not a float) from the first to the second bound, inclusive.
    Int(i64, i64),
    /// A finite number, integer or float, in this range.
    Num(Range),
}

/// The range of a [`Rule::Num`] key.
#[derive(Debug, Clone, Copy)]
enum Range {
    /// [0, 1]
    Unit,
    /// (0, 1)
    OpenUnit,
    /// (0, 1]
    PositiveUnit,
    /// > 0
    Positive,
    /// >= 0
    NonNegative,
}

impl Rule {
    fn allows(self, value: &Value) -> bool {
        match self {
            Self::Choice(names) => value.as_str().is_some_and(|s| names.contains(&s)),
            Self::Model => value.as_str().is_some_and(|s| !s.trim().is_empty()),
            Self::Int(min, max) => value.as_integer().is_some_and(|i| (min..=max).contains(&i)),
            Self::Num(range) => number(value).is_some_and(|x| x.is_finite() && range.contains(x)),
        }
    }

    /// The "allowed" text of an invalid-value error.
    fn allowed(self) -> String {
        match self {
            Self::Choice(names) => quoted_list(names),
            Self::Model => "\"auto\", \"builtin\" or the path of a sentence-transformer model \
                            directory, as a string"
                .to_owned(),
            Self::Int(min, i64::MAX) => format!("an integer >= {min}"),
            Self::Int(min, max) => format!("an integer from {min} to {max}"),
            Self::Num(range) => range.allowed().to_owned(),
        }
    }

    /// Whether an environment value for this key is taken as text even when it parses as TOML.
    fn is_string(self) -> bool {
        matches!(self, Self::Choice(_) | Self::Model)
    }
}

impl Range {
    fn contains(self, x: f64) -> bool {
        match self {
            Self::Unit => (0.0..=1.0).contains(&x),
            Self::OpenUnit => x > 0.0 && x < 1.0,
            Self::PositiveUnit => x > 0.0 && x <= 1.0,
            Self::Positive => x > 0.0,
            Self::NonNegative => x >= 0.0,
        }
    }

    fn allowed(self) -> &'static str {
        match self {
            Self::Unit => "a number from 0 to 1",
            Self::OpenUnit => "a number greater than 0 and less than 1",
            Self::PositiveUnit => "a number greater than 0 and at most 1",
            Self::Positive => "a finite number > 0",
            Self::NonNegative => "a finite number >= 0",
        }
    }
}

/// `"a", "b" or "c"`.
fn quoted_list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

/// The names of a section's keys.
fn key_names(keys: Keys) -> Vec<&'static str> {
    keys.iter().map(|(key, _)| *key).collect()
}

/// The rule of `section.key` for a schema-described section.
fn section_rule(section: &str, key: &str) -> Option<Rule> {
    let (_, keys) = SECTIONS.iter().find(|(name, _)| *name == section)?;
    keys.iter().find(|(k, _)| *k == key).map(|(_, rule)| *rule)
}

/// The type whose numbers a new, user-defined type starts from.
const NEW_TYPE_BASE: &str = "journal";

/// The built-in type profiles (SPEC §3).
const BUILTIN_TYPES: &[(&str, TypeProfile)] = &[
    ("decision", TypeProfile::new(365.0, 1.5, 14.0, 0.10, 0.95)),
    ("architecture", TypeProfile::new(365.0, 1.4, 14.0, 0.10, 0.95)),
    ("preference", TypeProfile::new(365.0, 1.2, 14.0, 0.10, 0.95)),
    ("bug_fix", TypeProfile::new(30.0, 1.3, 14.0, 0.20, 0.95)),
    ("fact", TypeProfile::new(90.0, 1.0, 7.0, 0.10, 0.98)),
    ("code_context", TypeProfile::new(14.0, 1.0, 7.0, 0.20, 0.90)),
    ("session_summary", TypeProfile::new(14.0, 1.0, 14.0, 0.20, 0.95)),
    ("document_chunk", TypeProfile::new(14.0, 0.6, 0.0, 0.0, 1.0)),
    ("journal", TypeProfile::new(30.0, 1.0, 14.0, 0.20, 0.95)),
    ("plan", TypeProfile::new(90.0, 1.0, 21.0, 0.15, 0.93)),
    ("observation", TypeProfile::new(30.0, 1.0, 14.0, 0.20, 0.92)),
    ("reflection", TypeProfile::new(180.0, 1.0, 30.0, 0.15, 0.98)),
];

/// The effective memlane configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Config {
    /// Where vaults are found.
    pub storage_strategy: StorageStrategy,
    /// The type given to memories created without `--type`; always a key of `types`.
    pub default_type: String,
    /// Which embedder builds the vector index.
    pub embedding: EmbeddingConfig,
    /// Search ranking constants.
    pub search: SearchConfig,
    /// Temperature, cold notifications and near-duplicate thresholds.
    pub lifecycle: LifecycleConfig,
    /// The MCP server.
    pub mcp: McpConfig,
    /// Redaction settings.
    pub privacy: PrivacyConfig,
    /// Every known memory type and its ranking profile, built-in and user-defined.
    pub types: BTreeMap<String, TypeProfile>,
}

/// Where vaults are found (SPEC §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StorageStrategy {
    /// Walk up from the current directory to the first `.memories/`.
    Project,
    /// One per-user vault in the platform data directory.
    User,
}

/// A name that is not one of a config enum's values, e.g. `"fast".parse::<SearchProfile>()`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} {value:?}; allowed: {}", .allowed.join(", "))]
pub struct ParseEnumError {
    /// What was being parsed, e.g. `search profile`.
    pub what: &'static str,
    /// The text that matched no value.
    pub value: String,
    /// Every accepted name.
    pub allowed: &'static [&'static str],
}

/// Gives a config enum `ALL`, `as_str`, `Display` and `FromStr` (exact, lowercase names).
macro_rules! config_enum {
    ($ty:ident, $what:literal, $($variant:ident = $name:literal),+ $(,)?) => {
        impl $ty {
            /// Every value, in documentation order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];
            const NAMES: &'static [&'static str] = &[$($name),+];

            /// The name used in config files, on the command line and in JSON.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)+
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $ty {
            type Err = ParseEnumError;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($name => Ok(Self::$variant),)+
                    _ => Err(ParseEnumError {
                        what: $what,
                        value: s.to_owned(),
                        allowed: Self::NAMES,
                    }),
                }
            }
        }
    };
}

/// Which embedder builds the vector index (SPEC §5.3), `[embedding]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EmbeddingConfig {
    /// `"auto"` (a local model when one is installed, else builtin), `"builtin"`, or the path of
    /// a sentence-transformer model directory. Never blank; a path is not checked here (the
    /// model loader checks it and names it in its error).
    pub model: String,
    /// Texts per forward pass; 1 to 1024.
    pub batch_size: usize,
}

impl Default for EmbeddingConfig {
    fn default() -> Self {
        Self { model: "auto".to_owned(), batch_size: 32 }
    }
}

/// Search ranking constants (SPEC §8), `[search]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchConfig {
    /// Preset stage parameters.
    pub profile: SearchProfile,
    /// Default number of results; 1 to 1000.
    pub limit: usize,
    /// Results whose relevance is below this are dropped; in [0, 1].
    pub score_threshold: f64,
    /// The k of weighted reciprocal rank fusion, `Σ wᵢ / (k + rankᵢ)`; > 0.
    pub rrf_k: f64,
    /// Each retriever returns `max(min_candidates, candidate_factor × limit)` chunks; >= 1.
    pub min_candidates: usize,
    /// See `min_candidates`; >= 1.
    pub candidate_factor: usize,
    /// Evidence at which the calibrated relevance is 0.5; in (0, 1).
    pub calibration_midpoint: f64,
    /// Steepness of the calibration sigmoid; > 0.
    pub calibration_steepness: f64,
    /// Score multiplier for a superseded memory; in (0, 1].
    pub supersession_penalty: f64,
    /// Weight of a query's question words in BM25 and coverage; in [0, 1] (0: left out).
    pub question_weight: f64,
    /// Share of the best thread neighbour's fused score added to a memory's; in [0, 1].
    pub context_weight: f64,
    /// Thread neighbours on each side that lend context; 0 to 50.
    pub context_span: usize,
    /// Minutes between two memories of a folder beyond which a thread breaks; >= 0.
    pub context_gap_minutes: f64,
    /// Weight of a time named in the query on memories created then; in [0, 1].
    pub temporal_weight: f64,
    /// Days after `expires_at` over which a memory fades to 0 (then leaves results); >= 0.
    pub expiry_fade_days: f64,
    /// BM25 and vector weights of the fusion per intent.
    pub intents: IntentWeights,
}

impl Default for SearchConfig {
    fn default() -> Self {
        Self {
            profile: SearchProfile::Balanced,
            limit: 5,
            score_threshold: 0.1,
            rrf_k: 60.0,
            min_candidates: 50,
            candidate_factor: 4,
            calibration_midpoint: 0.35,
            calibration_steepness: 10.0,
            supersession_penalty: 0.5,
            question_weight: 0.0,
            context_weight: 0.3,
            context_span: 2,
            context_gap_minutes: 120.0,
            temporal_weight: 0.5,
            expiry_fade_days: 5.0,
            intents: IntentWeights::default(),
        }
    }
}

/// `[search] profile`: preset stage parameters (SPEC §8).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchProfile {
    /// Every stage (the default).
    #[default]
    Balanced,
    /// Memory Lane's ranking.
    Ragdocs,
    /// Mnestra's ranking.
    Mnestra,
    /// remindb's ranking.
    Remindb,
    /// MIRA's ranking.
    Mira,
}

config_enum!(
    SearchProfile,
    "search profile",
    Balanced = "balanced",
    Ragdocs = "ragdocs",
    Mnestra = "mnestra",
    Remindb = "remindb",
    Mira = "mira",
);

/// A search intent (`--intent`), which selects the fusion weights.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Intent {
    /// No particular intent (the default).
    #[default]
    General,
    /// Remembering something seen before: leans on keywords.
    Recall,
    /// An exact identifier or phrase: mostly keywords.
    Exact,
    /// Browsing a topic: mostly vectors.
    Explore,
}

config_enum!(
    Intent,
    "intent",
    General = "general",
    Recall = "recall",
    Exact = "exact",
    Explore = "explore",
);

/// The weights of the BM25 and vector rankings in weighted RRF; each in [0, 1].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Weights {
    /// Weight of the keyword (BM25) ranking.
    pub bm25: f64,
    /// Weight of the vector ranking.
    pub vector: f64,
}

/// The fusion weights of each [`Intent`], `[search.intents.<intent>]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct IntentWeights {
    /// `general`: 0.4 / 0.6.
    pub general: Weights,
    /// `recall`: 0.6 / 0.4.
    pub recall: Weights,
    /// `exact`: 0.8 / 0.2.
    pub exact: Weights,
    /// `explore`: 0.3 / 0.7.
    pub explore: Weights,
}

impl Default for IntentWeights {
    fn default() -> Self {
        Self {
            general: Weights { bm25: 0.4, vector: 0.6 },
            recall: Weights { bm25: 0.6, vector: 0.4 },
            exact: Weights { bm25: 0.8, vector: 0.2 },
            explore: Weights { bm25: 0.3, vector: 0.7 },
        }
    }
}

impl IntentWeights {
    /// The weights of `intent`.
    pub fn get(&self, intent: Intent) -> Weights {
        match intent {
            Intent::General => self.general,
            Intent::Recall => self.recall,
            Intent::Exact => self.exact,
            Intent::Explore => self.explore,
        }
    }

    fn get_mut(&mut self, intent: Intent) -> &mut Weights {
        match intent {
            Intent::General => &mut self.general,
            Intent::Recall => &mut self.recall,
            Intent::Exact => &mut self.exact,
            Intent::Explore => &mut self.explore,
        }
    }
}

/// Usage-state settings (SPEC §7), `[lifecycle]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LifecycleConfig {
    /// How ages are counted.
    pub clock: ClockKind,
    /// Temperature of a new or summarized memory; in [0, 1].
    pub temperature_start: f64,
    /// Added per read and per search hit (capped at 1); in [0, 1].
    pub temperature_warm: f64,
    /// Per hour: `T × exp(-cooling_rate × hours)`; >= 0.
    pub cooling_rate: f64,
    /// Below this a memory is cold; in [0, 1].
    pub cold_threshold: f64,
    /// Below this a memory is announced to MCP clients; in [0, 1].
    pub notify_threshold: f64,
    /// Minutes between cold checks; >= 1.
    pub cold_check_minutes: u64,
    /// Minutes between scheduled `maintain` runs in the watcher and the MCP server; 0 = never.
    pub maintain_minutes: u64,
    /// Re-announce a still-cold memory after this many hours; 0 means never.
    pub renotify_hours: u64,
    /// `add` refuses content at least this similar to an existing memory (unless `--force`);
    /// in [0, 1].
    pub dedup_threshold: f64,
    /// MCP `remember` updates the near-duplicate in place at or above this; in [0, 1].
    pub remember_update_threshold: f64,
    /// Default threshold of suggest-merges; in [0, 1].
    pub merge_threshold: f64,
}

impl Default for LifecycleConfig {
    fn default() -> Self {
        Self {
            clock: ClockKind::Activity,
            temperature_start: 0.5,
            temperature_warm: 0.15,
            cooling_rate: 0.05,
            cold_threshold: 0.10,
            notify_threshold: 0.10,
            cold_check_minutes: 5,
            maintain_minutes: 60,
            renotify_hours: 0,
            dedup_threshold: 0.95,
            remember_update_threshold: 0.88,
            merge_threshold: 0.85,
        }
    }
}

/// `[lifecycle] clock`: how age-based formulas count days (SPEC §7.2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClockKind {
    /// Days on which the vault was used (the default).
    #[default]
    Activity,
    /// Wall-clock days.
    Calendar,
}

config_enum!(ClockKind, "clock", Activity = "activity", Calendar = "calendar");

/// MCP server settings (SPEC §10), `[mcp]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct McpConfig {
    /// Which tools the server lists.
    pub tools: McpTools,
}

/// `[mcp] tools`: how many tools the MCP server offers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum McpTools {
    /// A short list (the default): agents pay for every tool description.
    #[default]
    Core,
    /// Every tool.
    Full,
}

config_enum!(McpTools, "MCP tool set", Core = "core", Full = "full");

/// Reads and writes the keys of a schema-described section by name. `get` returns `None` and
/// `set` ignores keys the section does not have; `set` takes values [`Rule::allows`] accepted.
trait Section {
    fn get(&self, key: &str) -> Option<Value>;
    fn set(&mut self, key: &str, value: &Value);
}

impl Section for EmbeddingConfig {
    fn get(&self, key: &str) -> Option<Value> {
        Some(match key {
            "model" => self.model.as_str().into(),
            "batch_size" => int_value(self.batch_size),
            _ => return None,
        })
    }

    fn set(&mut self, key: &str, value: &Value) {
        match key {
            "model" => {
                if let Some(model) = value.as_str() {
                    model.clone_into(&mut self.model);
                }
            }
            "batch_size" => set_int(&mut self.batch_size, value),
            _ => {}
        }
    }
}

impl Section for SearchConfig {
    fn get(&self, key: &str) -> Option<Value> {
        Some(match key {
            "profile" => self.profile.as_str().into(),
            "limit" => int_value(self.limit),
            "score_threshold" => self.score_threshold.into(),
            "rrf_k" => self.rrf_k.into(),
            "min_candidates" => int_value(self.min_candidates),
            "candidate_factor" => int_value(self.candidate_factor),
            "calibration_midpoint" => self.calibration_midpoint.into(),
            "calibration_steepness" => self.calibration_steepness.into(),
            "supersession_penalty" => self.supersession_penalty.into(),
            "question_weight" => self.question_weight.into(),
            "context_weight" => self.context_weight.into(),
            "context_span" => int_value(self.context_span),
            "context_gap_minutes" => self.context_gap_minutes.into(),
            "temporal_weight" => self.temporal_weight.into(),
            "expiry_fade_days" => self.expiry_fade_days.into(),
            _ => return None,
        })
    }

    fn set(&mut self, key: &str, value: &Value) {
        match key {
            "profile" => set_parsed(&mut self.profile, value),
            "limit" => set_int(&mut self.limit, value),
            "score_threshold" => set_num(&mut self.score_threshold, value),
            "rrf_k" => set_num(&mut self.rrf_k, value),
            "min_candidates" => set_int(&mut self.min_candidates, value),
            "candidate_factor" => set_int(&mut self.candidate_factor, value),
            "calibration_midpoint" => set_num(&mut self.calibration_midpoint, value),
            "calibration_steepness" => set_num(&mut self.calibration_steepness, value),
            "supersession_penalty" => set_num(&mut self.supersession_penalty, value),
            "question_weight" => set_num(&mut self.question_weight, value),
            "context_weight" => set_num(&mut self.context_weight, value),
            "context_span" => set_int(&mut self.context_span, value),
            "context_gap_minutes" => set_num(&mut self.context_gap_minutes, value),
            "temporal_weight" => set_num(&mut self.temporal_weight, value),
            "expiry_fade_days" => set_num(&mut self.expiry_fade_days, value),
            _ => {}
        }
    }
}

impl Section for Weights {
    fn get(&self, key: &str) -> Option<Value> {
        Some(match key {
            "bm25" => self.bm25.into(),
            "vector" => self.vector.into(),
            _ => return None,
        })
    }

    fn set(&mut self, key: &str, value: &Value) {
        match key {
            "bm25" => set_num(&mut self.bm25, value),
            "vector" => set_num(&mut self.vector, value),
            _ => {}
        }
    }
}

impl Section for LifecycleConfig {
    fn get(&self, key: &str) -> Option<Value> {
        Some(match key {
            "clock" => self.clock.as_str().into(),
            "temperature_start" => self.temperature_start.into(),
            "temperature_warm" => self.temperature_warm.into(),
            "cooling_rate" => self.cooling_rate.into(),
            "cold_threshold" => self.cold_threshold.into(),
            "notify_threshold" => self.notify_threshold.into(),
            "cold_check_minutes" => int_value(self.cold_check_minutes),
            "maintain_minutes" => int_value(self.maintain_minutes),
            "renotify_hours" => int_value(self.renotify_hours),
            "dedup_threshold" => self.dedup_threshold.into(),
            "remember_update_threshold" => self.remember_update_threshold.into(),
            "merge_threshold" => self.merge_threshold.into(),
            _ => return None,
        })
    }

    fn set(&mut self, key: &str, value: &Value) {
        match key {
            "clock" => set_parsed(&mut self.clock, value),
            "temperature_start" => set_num(&mut self.temperature_start, value),
            "temperature_warm" => set_num(&mut self.temperature_warm, value),
            "cooling_rate" => set_num(&mut self.cooling_rate, value),
            "cold_threshold" => set_num(&mut self.cold_threshold, value),
            "notify_threshold" => set_num(&mut self.notify_threshold, value),
            "cold_check_minutes" => set_int(&mut self.cold_check_minutes, value),
            "maintain_minutes" => set_int(&mut self.maintain_minutes, value),
            "renotify_hours" => set_int(&mut self.renotify_hours, value),
            "dedup_threshold" => set_num(&mut self.dedup_threshold, value),
            "remember_update_threshold" => set_num(&mut self.remember_update_threshold, value),
            "merge_threshold" => set_num(&mut self.merge_threshold, value),
            _ => {}
        }
    }
}

impl Section for McpConfig {
    fn get(&self, key: &str) -> Option<Value> {
        (key == "tools").then(|| self.tools.as_str().into())
    }

    fn set(&mut self, key: &str, value: &Value) {
        if key == "tools" {
            set_parsed(&mut self.tools, value);
        }
    }
}

fn set_num(slot: &mut f64, value: &Value) {
    if let Some(x) = number(value) {
        *slot = x;
    }
}

fn set_int<T: TryFrom<i64>>(slot: &mut T, value: &Value) {
    if let Some(x) = value.as_integer().and_then(|i| T::try_from(i).ok()) {
        *slot = x;
    }
}

fn set_parsed<T: FromStr>(slot: &mut T, value: &Value) {
    if let Some(x) = value.as_str().and_then(|s| s.parse().ok()) {
        *slot = x;
    }
}

/// A TOML integer; values past `i64::MAX` (never produced by validated config) saturate.
fn int_value<T: TryInto<i64>>(x: T) -> Value {
    Value::Integer(x.try_into().unwrap_or(i64::MAX))
}

/// Redaction settings (SPEC §4).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PrivacyConfig {
    /// Run the credential scrubber after `<private>` redaction.
    pub scrub_secrets: bool,
}

/// How a memory type ranks (SPEC §3, §8 stages 4 and 5).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TypeProfile {
    /// Age in days at which the decay factor `1 / (1 + age / half_life)` is one half; > 0.
    pub half_life_days: f64,
    /// Score multiplier; >= 0.
    pub weight: f64,
    /// Ages up to this many days get the recency boost; 0 means no boost.
    pub recency_window_days: f64,
    /// The boost at age 0; in [0, 1].
    pub recency_max_boost: f64,
    /// Per-day factor of the boost, `max_boost * rate^age`; in (0, 1].
    pub recency_rate: f64,
}

impl TypeProfile {
    const fn new(
        half_life_days: f64,
        weight: f64,
        recency_window_days: f64,
        recency_max_boost: f64,
        recency_rate: f64,
    ) -> Self {
        Self { half_life_days, weight, recency_window_days, recency_max_boost, recency_rate }
    }

    fn field(&self, key: &str) -> Option<f64> {
        Some(match key {
            "half_life_days" => self.half_life_days,
            "weight" => self.weight,
            "recency_window_days" => self.recency_window_days,
            "recency_max_boost" => self.recency_max_boost,
            "recency_rate" => self.recency_rate,
            _ => return None,
        })
    }

    fn field_mut(&mut self, key: &str) -> Option<&mut f64> {
        Some(match key {
            "half_life_days" => &mut self.half_life_days,
            "weight" => &mut self.weight,
            "recency_window_days" => &mut self.recency_window_days,
            "recency_max_boost" => &mut self.recency_max_boost,
            "recency_rate" => &mut self.recency_rate,
            _ => return None,
        })
    }
}

impl Default for Config {
    fn default() -> Self {
        Self {
            storage_strategy: StorageStrategy::Project,
            default_type: NEW_TYPE_BASE.to_owned(),
            embedding: EmbeddingConfig::default(),
            search: SearchConfig::default(),
            lifecycle: LifecycleConfig::default(),
            mcp: McpConfig::default(),
            privacy: PrivacyConfig { scrub_secrets: true },
            types: BUILTIN_TYPES.iter().map(|(name, p)| ((*name).to_owned(), *p)).collect(),
        }
    }
}

impl Config {
    /// The profile of memory type `ty`, or `None` for an unknown type.
    pub fn type_profile(&self, ty: &str) -> Option<&TypeProfile> {
        self.types.get(ty)
    }

    /// The names of all known memory types, sorted.
    pub fn type_names(&self) -> Vec<&str> {
        self.types.keys().map(String::as_str).collect()
    }

    /// The schema-described section `name` (one of [`SECTIONS`]).
    fn section(&self, name: &str) -> Option<&dyn Section> {
        let section: &dyn Section = match name {
            "embedding" => &self.embedding,
            "search" => &self.search,
            "lifecycle" => &self.lifecycle,
            "mcp" => &self.mcp,
            _ => return None,
        };
        Some(section)
    }

    fn section_mut(&mut self, name: &str) -> Option<&mut dyn Section> {
        let section: &mut dyn Section = match name {
            "embedding" => &mut self.embedding,
            "search" => &mut self.search,
            "lifecycle" => &mut self.lifecycle,
            "mcp" => &mut self.mcp,
            _ => return None,
        };
        Some(section)
    }
}

impl StorageStrategy {
    fn as_str(self) -> &'static str {
        match self {
            Self::Project => "project",
            Self::User => "user",
        }
    }
}

/// The layer that set a configuration value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigSource {
    /// The built-in default.
    Default,
    /// The user config file at this path.
    UserFile(PathBuf),
    /// The vault config file (`.memories/config.toml`) at this path.
    VaultFile(PathBuf),
    /// The environment variable with this name.
    Env(String),
    /// The command-line flag with this name (including its dashes).
    Flag(String),
}

impl fmt::Display for ConfigSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Default => f.write_str("default"),
            Self::UserFile(path) => write!(f, "user config {}", path.display()),
            Self::VaultFile(path) => write!(f, "vault config {}", path.display()),
            Self::Env(var) => write!(f, "env {var}"),
            Self::Flag(flag) => write!(f, "flag {flag}"),
        }
    }
}

/// A problem with the configuration. Every variant names where the problem is.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A config file exists but could not be read.
    #[error("cannot read config file {} (check that it is a readable UTF-8 file)", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The IO error.
        #[source]
        source: std::io::Error,
    },
    /// The config file named explicitly (by `MEMLANE_CONFIG`) does not exist.
    #[error(
        "config file {} does not exist (named by MEMLANE_CONFIG); create it or point \
         MEMLANE_CONFIG at an existing file",
        .path.display()
    )]
    MissingFile {
        /// The missing file.
        path: PathBuf,
    },
    /// A config file is not valid TOML.
    #[error("cannot parse {origin}; fix the TOML syntax where marked: {message}")]
    Parse {
        /// Where the text came from.
        origin: ConfigSource,
        /// The TOML parser's message, with line and column.
        message: String,
    },
    /// A key that memlane does not know.
    #[error("unknown key `{key}` in {origin}; allowed: {allowed}")]
    UnknownKey {
        /// Where the key was set.
        origin: ConfigSource,
        /// The key as a dotted path, e.g. `types.bug_fix.halflife`.
        key: String,
        /// The keys allowed at that level, comma-separated.
        allowed: String,
    },
    /// A value of the wrong type or out of range.
    #[error("invalid value {value} for `{key}` in {origin}; allowed: {allowed}")]
    Invalid {
        /// Where the value was set.
        origin: ConfigSource,
        /// The key as a dotted path, e.g. `types.bug_fix.weight`.
        key: String,
        /// The bad value, as TOML.
        value: String,
        /// What the key accepts.
        allowed: String,
    },
    /// A `[types.<name>]` table whose name is not a valid type name.
    #[error(
        "invalid type name `{name}` at `{key}` in {origin}; allowed: a lowercase ASCII letter \
         followed by lowercase letters, digits or `_` (e.g. `meeting_notes`)"
    )]
    InvalidTypeName {
        /// Where the table was defined.
        origin: ConfigSource,
        /// The dotted path of the table, e.g. `types.Bug-Fix`.
        key: String,
        /// The bad name.
        name: String,
    },
    /// A `MEMLANE_*` environment variable that matches no config key.
    #[error("environment variable {var} matches no config key; {}", ENV_HELP)]
    UnknownEnv {
        /// The variable's name as given.
        var: String,
    },
}

/// What [`LoadedConfig::load`] reads. `Default` gives the built-in defaults only.
#[derive(Debug, Clone, Copy, Default)]
pub struct ConfigInputs<'a> {
    /// The user config file: `$MEMLANE_CONFIG` if set, else [`default_user_config_path`].
    pub user_file: Option<&'a Path>,
    /// Whether a missing `user_file` is an error (true when it was named by `MEMLANE_CONFIG`).
    pub user_file_required: bool,
    /// The vault's `.memories/config.toml`; a missing file is skipped.
    pub vault_file: Option<&'a Path>,
    /// The process environment (or a test's); only `MEMLANE_*` names are looked at.
    pub env: &'a [(String, String)],
    /// Command-line overrides, applied in order: (dotted key, value, flag name such as `--type`).
    pub flags: &'a [(String, Value, String)],
}

/// The effective configuration together with where each value came from.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedConfig {
    /// The effective configuration.
    pub config: Config,
    /// The source of every leaf value, by dotted key (`types.bug_fix.weight`).
    pub sources: BTreeMap<String, ConfigSource>,
    /// The config files that were actually read, lowest precedence first.
    pub files: Vec<PathBuf>,
}

/// The user config file's default location: `config.toml` in the platform config directory
/// (`~/.config/memlane/config.toml` on Linux), or `None` when no home directory is known.
pub fn default_user_config_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "memlane").map(|d| d.config_dir().join("config.toml"))
}

impl LoadedConfig {
    /// Reads, validates and merges every layer of `inputs`.
    pub fn load(inputs: &ConfigInputs) -> Result<LoadedConfig, ConfigError> {
        let mut merged = Table::new();
        let mut sources = BTreeMap::new();
        let mut files = Vec::new();

        let file_layers = [
            (inputs.user_file, inputs.user_file_required, true),
            (inputs.vault_file, false, false),
        ];
        for (path, required, is_user) in file_layers {
            let Some(path) = path else { continue };
            let origin = if is_user {
                ConfigSource::UserFile(path.to_owned())
            } else {
                ConfigSource::VaultFile(path.to_owned())
            };
            let Some(table) = read_file_layer(path, required, &origin)? else { continue };
            files.push(path.to_owned());
            validate_layer(&table, &origin)?;
            merge(&mut merged, table, "", &origin, &mut sources);
        }

        for (var, table) in env_layers(inputs.env)? {
            let origin = ConfigSource::Env(var);
            validate_layer(&table, &origin)?;
            merge(&mut merged, table, "", &origin, &mut sources);
        }

        for (key, value, flag) in inputs.flags {
            let origin = ConfigSource::Flag(flag.clone());
            let segments: Vec<String> = key.split('.').map(str::to_owned).collect();
            let table = nest(&segments, value.clone());
            validate_layer(&table, &origin)?;
            merge(&mut merged, table, "", &origin, &mut sources);
        }

        let config = build_config(&merged, &sources)?;
        for key in leaf_keys(&config) {
            sources.entry(key).or_insert(ConfigSource::Default);
        }
        Ok(LoadedConfig { config, sources, files })
    }

    /// The effective configuration as TOML, each value followed by `  # <source>`.
    ///
    /// Top-level keys come first, then `[embedding]`, `[search]`, one
    /// `[search.intents.<intent>]` table per intent, `[lifecycle]`, `[mcp]`, `[privacy]`, and
    /// one `[types.<name>]` table per type in name order. The output loads back to the same
    /// [`Config`].
    pub fn render_toml(&self) -> String {
        let mut out = String::new();
        let c = &self.config;
        self.render_leaf(&mut out, "", "storage_strategy", &c.storage_strategy.as_str().into());
        self.render_leaf(&mut out, "", "default_type", &c.default_type.as_str().into());
        for (name, keys) in SECTIONS {
            out.push_str(&format!("\n[{name}]\n"));
            if let Some(section) = c.section(name) {
                self.render_section(&mut out, name, keys, section);
            }
            if *name == "search" {
                for intent in Intent::ALL {
                    let path = format!("search.{INTENTS_KEY}.{intent}");
                    out.push_str(&format!("\n[{path}]\n"));
                    self.render_section(
                        &mut out,
                        &path,
                        WEIGHT_KEYS,
                        &c.search.intents.get(*intent),
                    );
                }
            }
        }
        out.push_str("\n[privacy]\n");
        self.render_leaf(&mut out, "privacy", "scrub_secrets", &c.privacy.scrub_secrets.into());
        for (name, profile) in &c.types {
            out.push_str(&format!("\n[types.{}]\n", toml_key(name)));
            let section = format!("types.{name}");
            for field in PROFILE_KEYS {
                let value = profile.field(field).unwrap_or_default();
                self.render_leaf(&mut out, &section, field, &Value::Float(value));
            }
        }
        out
    }

    fn render_section(&self, out: &mut String, path: &str, keys: Keys, section: &dyn Section) {
        for (key, _) in keys {
            if let Some(value) = section.get(key) {
                self.render_leaf(out, path, key, &value);
            }
        }
    }

    fn render_leaf(&self, out: &mut String, section: &str, key: &str, value: &Value) {
        let path = join_key(section, key);
        let source = self.sources.get(&path).unwrap_or(&ConfigSource::Default);
        // A comment ends at a newline; escape control characters a path might contain.
        let mut comment = String::new();
        for c in source.to_string().chars() {
            if c.is_control() {
                comment.extend(c.escape_default());
            } else {
                comment.push(c);
            }
        }
        out.push_str(&format!("{} = {value}  # {comment}\n", toml_key(key)));
    }

    /// The effective configuration as JSON:
    /// `{"config": {...}, "sources": {"dotted.key": "source"}, "files": ["path", ...]}`.
    pub fn to_json(&self) -> serde_json::Value {
        let sources: serde_json::Map<String, serde_json::Value> =
            self.sources.iter().map(|(k, s)| (k.clone(), s.to_string().into())).collect();
        let files: Vec<serde_json::Value> =
            self.files.iter().map(|p| p.to_string_lossy().into_owned().into()).collect();
        serde_json::json!({
            "config": serde_json::to_value(&self.config).unwrap_or(serde_json::Value::Null),
            "sources": sources,
            "files": files,
        })
    }
}

/// Reads and parses one config file; `Ok(None)` when it is absent and not required.
fn read_file_layer(
    path: &Path,
    required: bool,
    origin: &ConfigSource,
) -> Result<Option<Table>, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return if required {
                Err(ConfigError::MissingFile { path: path.to_owned() })
            } else {
                Ok(None)
            };
        }
        Err(source) => return Err(ConfigError::Read { path: path.to_owned(), source }),
    };
    text.parse::<Table>().map(Some).map_err(|err| ConfigError::Parse {
        origin: origin.clone(),
        message: err.to_string().trim_end().to_owned(),
    })
}

/// Turns the `MEMLANE_*` variables into one single-key layer each, sorted by variable name so
/// that the result does not depend on the order of the environment.
fn env_layers(env: &[(String, String)]) -> Result<Vec<(String, Table)>, ConfigError> {
    let mut layers = Vec::new();
    for (var, raw) in env {
        let Some(prefix) = var.get(..8) else { continue };
        if !prefix.eq_ignore_ascii_case("MEMLANE_") {
            continue;
        }
        // The test builds' crash points (`crate::failpoint`) are read by debug builds only.
        let failpoint =
            cfg!(debug_assertions) && var.to_ascii_uppercase().starts_with("MEMLANE_FAILPOINT");
        if failpoint || RESERVED_ENV.iter().any(|r| r.eq_ignore_ascii_case(var)) {
            continue;
        }
        let rest = var[8..].to_lowercase();
        let segments: Vec<String> = rest.split("__").map(str::to_owned).collect();
        let Some(is_string) = env_key_is_string(&segments) else {
            return Err(ConfigError::UnknownEnv { var: var.clone() });
        };
        layers.push((var.clone(), nest(&segments, env_value(raw, is_string))));
    }
    layers.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(layers)
}

/// Whether the config key an environment variable names (as lowercase `__`-separated segments)
/// takes a string; `None` when it names no key.
fn env_key_is_string(segments: &[String]) -> Option<bool> {
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    match segments.as_slice() {
        ["storage_strategy" | "default_type"] => Some(true),
        ["privacy", key] => PRIVACY_KEYS.contains(key).then_some(false),
        ["search", INTENTS_KEY, intent, field] => (Intent::NAMES.contains(intent)
            && WEIGHT_KEYS.iter().any(|(k, _)| k == field))
        .then_some(false),
        ["types", name, field] => {
            (!name.is_empty() && PROFILE_KEYS.contains(field)).then_some(false)
        }
        [section, key] => section_rule(section, key).map(Rule::is_string),
        _ => None,
    }
}

/// An environment value: a TOML value when it parses as one, else the raw text as a string.
/// For keys that take a string, only a quoted TOML string is unquoted, so `MEMLANE_DEFAULT_TYPE=true`
/// means the type `true`, not a boolean.
fn env_value(raw: &str, is_string: bool) -> Value {
    match raw.trim().parse::<Value>() {
        Ok(Value::String(s)) => Value::String(s),
        Ok(value) if !is_string => value,
        _ => Value::String(raw.to_owned()),
    }
}

/// `nest(["a", "b"], v)` is the table `{ a = { b = v } }`.
fn nest(segments: &[String], value: Value) -> Table {
    let mut value = value;
    for segment in segments.iter().skip(1).rev() {
        let mut table = Table::new();
        table.insert(segment.clone(), value);
        value = Value::Table(table);
    }
    let mut top = Table::new();
    top.insert(segments.first().cloned().unwrap_or_default(), value);
    top
}

/// Checks one layer against the schema on its own, so that errors name the layer.
fn validate_layer(table: &Table, origin: &ConfigSource) -> Result<(), ConfigError> {
    check_keys(table, "", TOP_KEYS, origin)?;
    for (key, value) in table {
        match key.as_str() {
            "storage_strategy" if !matches!(value.as_str(), Some("project" | "user")) => {
                return Err(invalid(origin, key, value, "\"project\" or \"user\""));
            }
            "default_type" if !value.is_str() => {
                return Err(invalid(
                    origin,
                    key,
                    value,
                    "a type name as a string, e.g. \"journal\"",
                ));
            }
            "privacy" => {
                let section = expect_table(value, origin, key, "a table with key scrub_secrets")?;
                check_keys(section, key, PRIVACY_KEYS, origin)?;
                for (field, value) in section {
                    if !value.is_bool() {
                        return Err(invalid(origin, &join_key(key, field), value, "true or false"));
                    }
                }
            }
            "types" => {
                let types = expect_table(value, origin, key, "a table of [types.<name>] tables")?;
                for (name, profile) in types {
                    let path = join_key(key, name);
                    if !is_type_name(name) {
                        return Err(ConfigError::InvalidTypeName {
                            origin: origin.clone(),
                            key: path,
                            name: name.clone(),
                        });
                    }
                    let allowed = format!("a table with keys {}", PROFILE_KEYS.join(", "));
                    let profile = expect_table(profile, origin, &path, &allowed)?;
                    check_keys(profile, &path, PROFILE_KEYS, origin)?;
                    for (field, value) in profile {
                        validate_profile_field(origin, &join_key(&path, field), field, value)?;
                    }
                }
            }
            section => {
                if let Some((_, keys)) = SECTIONS.iter().find(|(name, _)| *name == section) {
                    validate_section(value, section, keys, origin)?;
                }
            }
        }
    }
    Ok(())
}

/// Checks one schema-described section (and, for `[search]`, its intent tables).
fn validate_section(
    value: &Value,
    name: &str,
    keys: Keys,
    origin: &ConfigSource,
) -> Result<(), ConfigError> {
    let mut names = key_names(keys);
    if name == "search" {
        names.push(INTENTS_KEY);
    }
    let allowed = format!("a table with keys {}", names.join(", "));
    let section = expect_table(value, origin, name, &allowed)?;
    check_keys(section, name, &names, origin)?;
    for (key, value) in section {
        let path = join_key(name, key);
        if name == "search" && key == INTENTS_KEY {
            validate_intents(value, &path, origin)?;
        } else if let Some((_, rule)) = keys.iter().find(|(k, _)| k == key) {
            validate_leaf(*rule, value, &path, origin)?;
        }
    }
    Ok(())
}

/// Checks `[search.intents]`: only the known intents, each a table of weights.
fn validate_intents(value: &Value, path: &str, origin: &ConfigSource) -> Result<(), ConfigError> {
    let allowed = format!(
        "a table of [{path}.<intent>] tables with intent one of {}",
        Intent::NAMES.join(", ")
    );
    let intents = expect_table(value, origin, path, &allowed)?;
    check_keys(intents, path, Intent::NAMES, origin)?;
    let names = key_names(WEIGHT_KEYS);
    for (intent, weights) in intents {
        let path = join_key(path, intent);
        let allowed = format!("a table with keys {}", names.join(", "));
        let weights = expect_table(weights, origin, &path, &allowed)?;
        check_keys(weights, &path, &names, origin)?;
        for (key, value) in weights {
            if let Some((_, rule)) = WEIGHT_KEYS.iter().find(|(k, _)| k == key) {
                validate_leaf(*rule, value, &join_key(&path, key), origin)?;
            }
        }
    }
    Ok(())
}

fn validate_leaf(
    rule: Rule,
    value: &Value,
    path: &str,
    origin: &ConfigSource,
) -> Result<(), ConfigError> {
    if rule.allows(value) { Ok(()) } else { Err(invalid(origin, path, value, &rule.allowed())) }
}

fn validate_profile_field(
    origin: &ConfigSource,
    path: &str,
    field: &str,
    value: &Value,
) -> Result<(), ConfigError> {
    let (ok, allowed): (fn(f64) -> bool, &str) = match field {
        "half_life_days" => (|x| x > 0.0, "a finite number of days > 0"),
        "weight" => (|x| x >= 0.0, "a finite number >= 0"),
        "recency_window_days" => {
            (|x| x >= 0.0, "a finite number of days >= 0 (0 turns the recency boost off)")
        }
        "recency_max_boost" => (|x| (0.0..=1.0).contains(&x), "a number from 0 to 1"),
        "recency_rate" => (|x| x > 0.0 && x <= 1.0, "a number greater than 0 and at most 1"),
        _ => return Ok(()),
    };
    match number(value) {
        Some(x) if x.is_finite() && ok(x) => Ok(()),
        _ => Err(invalid(origin, path, value, allowed)),
    }
}

fn check_keys(
    table: &Table,
    prefix: &str,
    allowed: &[&str],
    origin: &ConfigSource,
) -> Result<(), ConfigError> {
    match table.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(key) => Err(ConfigError::UnknownKey {
            origin: origin.clone(),
            key: join_key(prefix, key),
            allowed: allowed.join(", "),
        }),
        None => Ok(()),
    }
}

fn expect_table<'v>(
    value: &'v Value,
    origin: &ConfigSource,
    key: &str,
    allowed: &str,
) -> Result<&'v Table, ConfigError> {
    value.as_table().ok_or_else(|| invalid(origin, key, value, allowed))
}

fn invalid(origin: &ConfigSource, key: &str, value: &Value, allowed: &str) -> ConfigError {
    ConfigError::Invalid {
        origin: origin.clone(),
        key: key.to_owned(),
        value: value_repr(value),
        allowed: allowed.to_owned(),
    }
}

/// A bad value as it would be written in TOML, shortened when long.
fn value_repr(value: &Value) -> String {
    let text = match value {
        Value::Table(_) => return "(a table)".to_owned(),
        other => other.to_string(),
    };
    if text.chars().count() > 60 {
        let short: String = text.chars().take(57).collect();
        format!("{short}...")
    } else {
        text
    }
}

fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Float(x) => Some(*x),
        // Integers are accepted where floats go; config numbers are far below 2^53.
        Value::Integer(i) => Some(*i as f64),
        _ => None,
    }
}

fn is_type_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fn join_key(prefix: &str, key: &str) -> String {
    if prefix.is_empty() { key.to_owned() } else { format!("{prefix}.{key}") }
}

/// A key for TOML output: bare when it can be, quoted otherwise.
fn toml_key(key: &str) -> String {
    if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        key.to_owned()
    } else {
        Value::String(key.to_owned()).to_string()
    }
}

/// Deep-merges `src` into `dst`, recording `origin` as the source of every leaf it sets.
fn merge(
    dst: &mut Table,
    src: Table,
    prefix: &str,
    origin: &ConfigSource,
    sources: &mut BTreeMap<String, ConfigSource>,
) {
    for (key, value) in src {
        let path = join_key(prefix, &key);
        match value {
            Value::Table(table) => {
                let slot = dst.entry(key).or_insert_with(|| Value::Table(Table::new()));
                if !slot.is_table() {
                    *slot = Value::Table(Table::new());
                }
                if let Value::Table(inner) = slot {
                    merge(inner, table, &path, origin, sources);
                }
            }
            leaf => {
                sources.insert(path, origin.clone());
                dst.insert(key, leaf);
            }
        }
    }
}

/// Builds the configuration from the merged, validated layers on top of the defaults.
fn build_config(
    merged: &Table,
    sources: &BTreeMap<String, ConfigSource>,
) -> Result<Config, ConfigError> {
    let mut config = Config::default();
    if let Some(value) = merged.get("storage_strategy").and_then(Value::as_str) {
        config.storage_strategy =
            if value == "user" { StorageStrategy::User } else { StorageStrategy::Project };
    }
    if let Some(value) = merged.get("default_type").and_then(Value::as_str) {
        config.default_type = value.to_owned();
    }
    for (name, _) in SECTIONS {
        let Some(table) = merged.get(*name).and_then(Value::as_table) else { continue };
        if let Some(section) = config.section_mut(name) {
            for (key, value) in table {
                section.set(key, value);
            }
        }
    }
    let intents = merged.get("search").and_then(|s| s.get(INTENTS_KEY)).and_then(Value::as_table);
    for (intent, weights) in intents.into_iter().flatten() {
        let Ok(intent) = intent.parse::<Intent>() else { continue };
        let slot = config.search.intents.get_mut(intent);
        for (key, value) in weights.as_table().into_iter().flatten() {
            slot.set(key, value);
        }
    }
    let privacy = merged.get("privacy").and_then(Value::as_table);
    if let Some(scrub) = privacy.and_then(|p| p.get("scrub_secrets")).and_then(Value::as_bool) {
        config.privacy.scrub_secrets = scrub;
    }
    if let Some(types) = merged.get("types").and_then(Value::as_table) {
        // New types start from journal's built-in numbers, not from an overridden journal, so
        // that no profile depends on the order in which the types are filled in.
        let base = Config::default().types.get(NEW_TYPE_BASE).copied();
        let base = base.unwrap_or(TypeProfile::new(30.0, 1.0, 14.0, 0.20, 0.95));
        for (name, fields) in types {
            let mut profile = config.types.get(name).copied().unwrap_or(base);
            for (field, value) in fields.as_table().into_iter().flatten() {
                if let (Some(slot), Some(x)) = (profile.field_mut(field), number(value)) {
                    *slot = x;
                }
            }
            config.types.insert(name.clone(), profile);
        }
    }
    if !config.types.contains_key(&config.default_type) {
        let origin = sources.get("default_type").cloned().unwrap_or(ConfigSource::Default);
        let allowed = format!(
            "a known type ({}) or a new type defined with a [types.<name>] table",
            config.type_names().join(", ")
        );
        return Err(invalid(
            &origin,
            "default_type",
            &config.default_type.as_str().into(),
            &allowed,
        ));
    }
    Ok(config)
}

/// The dotted keys of every leaf of `config`.
fn leaf_keys(config: &Config) -> Vec<String> {
    let mut keys: Vec<String> = ["storage_strategy", "default_type"].map(str::to_owned).into();
    for (section, fields) in SECTIONS {
        keys.extend(fields.iter().map(|(field, _)| format!("{section}.{field}")));
    }
    for intent in Intent::ALL {
        keys.extend(
            WEIGHT_KEYS.iter().map(|(field, _)| format!("search.{INTENTS_KEY}.{intent}.{field}")),
        );
    }
    keys.extend(PRIVACY_KEYS.iter().map(|field| format!("privacy.{field}")));
    for name in config.types.keys() {
        keys.extend(PROFILE_KEYS.iter().map(|field| format!("types.{name}.{field}")));
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn load_vault_text(text: &str) -> Result<LoadedConfig, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "config.toml", text);
        LoadedConfig::load(&ConfigInputs { vault_file: Some(&path), ..Default::default() })
    }

    fn load_env(pairs: &[(&str, &str)]) -> Result<LoadedConfig, ConfigError> {
        let env = env(pairs);
        LoadedConfig::load(&ConfigInputs { env: &env, ..Default::default() })
    }

    #[test]
    fn defaults_match_spec_table() {
        #[rustfmt::skip]
        let spec: [(&str, f64, f64, f64, f64, f64); 12] = [
            ("decision", 365.0, 1.5, 14.0, 0.10, 0.95),
            ("architecture", 365.0, 1.4, 14.0, 0.10, 0.95),
            ("preference", 365.0, 1.2, 14.0, 0.10, 0.95),
            ("bug_fix", 30.0, 1.3, 14.0, 0.20, 0.95),
            ("fact", 90.0, 1.0, 7.0, 0.10, 0.98),
            ("code_context", 14.0, 1.0, 7.0, 0.20, 0.90),
            ("session_summary", 14.0, 1.0, 14.0, 0.20, 0.95),
            ("document_chunk", 14.0, 0.6, 0.0, 0.0, 1.0),
            ("journal", 30.0, 1.0, 14.0, 0.20, 0.95),
            ("plan", 90.0, 1.0, 21.0, 0.15, 0.93),
            ("observation", 30.0, 1.0, 14.0, 0.20, 0.92),
            ("reflection", 180.0, 1.0, 30.0, 0.15, 0.98),
        ];
        let config = Config::default();
        assert_eq!(config.types.len(), spec.len());
        for (name, half_life, weight, window, boost, rate) in spec {
            let profile = config.type_profile(name).unwrap();
            assert_eq!(
                *profile,
                TypeProfile::new(half_life, weight, window, boost, rate),
                "{name}"
            );
        }
        assert_eq!(config.storage_strategy, StorageStrategy::Project);
        assert_eq!(config.default_type, "journal");
        assert!(config.privacy.scrub_secrets);
        assert_eq!(config.type_names()[..3], ["architecture", "bug_fix", "code_context"]);
        assert_eq!(config.type_profile("nope"), None);

        let loaded = LoadedConfig::load(&ConfigInputs::default()).unwrap();
        assert_eq!(loaded.config, config);
        assert!(loaded.files.is_empty());
        assert_eq!(loaded.sources.len(), 2 + 2 + 15 + 4 * 2 + 12 + 1 + 1 + 12 * 5);
        assert!(loaded.sources.values().all(|s| *s == ConfigSource::Default));
    }

    #[test]
    fn new_section_defaults_match_the_spec() {
        let c = Config::default();
        assert_eq!(c.embedding, EmbeddingConfig { model: "auto".to_owned(), batch_size: 32 });
        let w = |bm25, vector| Weights { bm25, vector };
        assert_eq!(
            c.search,
            SearchConfig {
                profile: SearchProfile::Balanced,
                limit: 5,
                score_threshold: 0.1,
                rrf_k: 60.0,
                min_candidates: 50,
                candidate_factor: 4,
                calibration_midpoint: 0.35,
                calibration_steepness: 10.0,
                supersession_penalty: 0.5,
                question_weight: 0.0,
                context_weight: 0.3,
                context_span: 2,
                context_gap_minutes: 120.0,
                temporal_weight: 0.5,
                expiry_fade_days: 5.0,
                intents: IntentWeights {
                    general: w(0.4, 0.6),
                    recall: w(0.6, 0.4),
                    exact: w(0.8, 0.2),
                    explore: w(0.3, 0.7),
                },
            }
        );
        assert_eq!(c.search.intents.get(Intent::Exact), w(0.8, 0.2));
        assert_eq!(c.search.intents.get(Intent::General), w(0.4, 0.6));
        assert_eq!(
            c.lifecycle,
            LifecycleConfig {
                clock: ClockKind::Activity,
                temperature_start: 0.5,
                temperature_warm: 0.15,
                cooling_rate: 0.05,
                cold_threshold: 0.10,
                notify_threshold: 0.10,
                cold_check_minutes: 5,
                maintain_minutes: 60,
                renotify_hours: 0,
                dedup_threshold: 0.95,
                remember_update_threshold: 0.88,
                merge_threshold: 0.85,
            }
        );
        assert_eq!(c.mcp, McpConfig { tools: McpTools::Core });
    }

    #[test]
    fn schema_and_structs_agree() {
        // Every schema key can be read and written, and writing its value back is a no-op.
        let mut config = Config::default();
        for (name, keys) in SECTIONS {
            for (key, rule) in *keys {
                let value = config.section(name).unwrap().get(key).unwrap();
                assert!(rule.allows(&value), "{name}.{key} = {value}");
                config.section_mut(name).unwrap().set(key, &value);
            }
            assert_eq!(config.section(name).unwrap().get("nope"), None);
        }
        let mut weights = config.search.intents.general;
        for (key, rule) in WEIGHT_KEYS {
            let value = weights.get(key).unwrap();
            assert!(rule.allows(&value));
            weights.set(key, &Value::Float(0.0));
        }
        assert_eq!(weights, Weights { bm25: 0.0, vector: 0.0 });
        assert_eq!(config, Config::default());
        assert_eq!(SECTIONS.iter().map(|(n, _)| *n).collect::<Vec<_>>(), TOP_KEYS[2..6]);
    }

    #[test]
    fn enums_parse_display_and_list_their_values() {
        assert_eq!(
            SearchProfile::ALL,
            [
                SearchProfile::Balanced,
                SearchProfile::Ragdocs,
                SearchProfile::Mnestra,
                SearchProfile::Remindb,
                SearchProfile::Mira
            ]
        );
        for p in SearchProfile::ALL {
            assert_eq!(p.to_string().parse::<SearchProfile>(), Ok(*p));
            assert_eq!(serde_json::to_value(p).unwrap(), p.as_str());
        }
        let err = "fast".parse::<SearchProfile>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown search profile \"fast\"; allowed: balanced, ragdocs, mnestra, remindb, mira"
        );
        assert_eq!(Intent::ALL.len(), 4);
        for i in Intent::ALL {
            assert_eq!(i.as_str().parse::<Intent>(), Ok(*i));
            let json = serde_json::to_string(i).unwrap();
            assert_eq!(serde_json::from_str::<Intent>(&json).unwrap(), *i);
        }
        assert_eq!(Intent::Explore.to_string(), "explore");
        assert_eq!(
            "Exact".parse::<Intent>().unwrap_err().to_string(),
            "unknown intent \"Exact\"; allowed: general, recall, exact, explore"
        );
        assert_eq!("calendar".parse::<ClockKind>(), Ok(ClockKind::Calendar));
        assert_eq!(ClockKind::ALL, [ClockKind::Activity, ClockKind::Calendar]);
        assert_eq!(McpTools::Full.to_string(), "full");
        assert_eq!(McpTools::ALL, [McpTools::Core, McpTools::Full]);
        assert!("all".parse::<McpTools>().unwrap_err().to_string().contains("core, full"));
        assert_eq!(SearchProfile::default(), SearchProfile::Balanced);
        assert_eq!(Intent::default(), Intent::General);
    }

    #[test]
    fn new_sections_follow_layer_precedence() {
        let dir = tempfile::tempdir().unwrap();
        let user = write(
            dir.path(),
            "user.toml",
            "[embedding]\nmodel = \"/models/mini\"\nbatch_size = 8\n\
             [search]\nlimit = 7\nrrf_k = 30\n[lifecycle]\nclock = \"calendar\"\n\
             cold_threshold = 0.2\n[mcp]\ntools = \"full\"\n",
        );
        let vault = write(
            dir.path(),
            "vault.toml",
            "[embedding]\nbatch_size = 16\n[search]\nlimit = 9\n\
             [search.intents.exact]\nbm25 = 0.9\n[lifecycle]\ncold_threshold = 0.3\n\
             [mcp]\ntools = \"core\"\n",
        );
        let env = env(&[
            ("MEMLANE_EMBEDDING__BATCH_SIZE", "64"),
            ("MEMLANE_SEARCH__LIMIT", "11"),
            ("MEMLANE_SEARCH__INTENTS__EXACT__BM25", "0.7"),
            ("MEMLANE_LIFECYCLE__COLD_THRESHOLD", "0.4"),
            ("MEMLANE_MCP__TOOLS", "full"),
        ]);
        let flags = [
            (
                "embedding.batch_size".to_owned(),
                Value::Integer(128),
                "-c embedding.batch_size".to_owned(),
            ),
            ("search.limit".to_owned(), Value::Integer(13), "--limit".to_owned()),
            ("search.intents.exact.bm25".to_owned(), Value::Float(0.5), "-c x".to_owned()),
            ("lifecycle.cold_threshold".to_owned(), Value::Float(0.5), "-c y".to_owned()),
            ("mcp.tools".to_owned(), Value::from("core"), "--tools".to_owned()),
        ];
        let mut inputs = ConfigInputs {
            user_file: Some(&user),
            user_file_required: false,
            vault_file: Some(&vault),
            env: &env,
            flags: &flags,
        };
        let user_src = format!("user config {}", user.display());
        let vault_src = format!("vault config {}", vault.display());

        let all = LoadedConfig::load(&inputs).unwrap();
        let c = &all.config;
        let src = |key: &str| all.sources[key].to_string();
        assert_eq!(c.embedding.model, "/models/mini");
        assert_eq!(src("embedding.model"), user_src);
        assert_eq!(c.embedding.batch_size, 128);
        assert_eq!(src("embedding.batch_size"), "flag -c embedding.batch_size");
        assert_eq!(c.search.limit, 13);
        assert_eq!(src("search.limit"), "flag --limit");
        assert_eq!(c.search.rrf_k, 30.0);
        assert_eq!(src("search.rrf_k"), user_src);
        assert_eq!(c.search.intents.exact, Weights { bm25: 0.5, vector: 0.2 });
        assert_eq!(src("search.intents.exact.bm25"), "flag -c x");
        assert_eq!(src("search.intents.exact.vector"), "default");
        assert_eq!(c.lifecycle.clock, ClockKind::Calendar);
        assert_eq!(src("lifecycle.clock"), user_src);
        assert_eq!(c.lifecycle.cold_threshold, 0.5);
        assert_eq!(c.mcp.tools, McpTools::Core);
        assert_eq!(src("mcp.tools"), "flag --tools");
        assert_eq!(src("search.profile"), "default");

        inputs.flags = &[];
        let no_flags = LoadedConfig::load(&inputs).unwrap();
        let c = &no_flags.config;
        assert_eq!(
            (c.embedding.batch_size, c.search.limit, c.lifecycle.cold_threshold, c.mcp.tools),
            (64, 11, 0.4, McpTools::Full)
        );
        assert_eq!(c.search.intents.get(Intent::Exact).bm25, 0.7);
        assert_eq!(
            no_flags.sources["search.intents.exact.bm25"].to_string(),
            "env MEMLANE_SEARCH__INTENTS__EXACT__BM25"
        );
        assert_eq!(no_flags.sources["mcp.tools"].to_string(), "env MEMLANE_MCP__TOOLS");

        inputs.env = &[];
        let files_only = LoadedConfig::load(&inputs).unwrap();
        let c = &files_only.config;
        assert_eq!(
            (c.embedding.batch_size, c.search.limit, c.lifecycle.cold_threshold, c.mcp.tools),
            (16, 9, 0.3, McpTools::Core)
        );
        assert_eq!(c.search.intents.exact.bm25, 0.9);
        assert_eq!(files_only.sources["search.limit"].to_string(), vault_src);
        assert_eq!(files_only.sources["mcp.tools"].to_string(), vault_src);

        inputs.vault_file = None;
        let user_only = LoadedConfig::load(&inputs).unwrap();
        let c = &user_only.config;
        assert_eq!(
            (c.embedding.batch_size, c.search.limit, c.lifecycle.cold_threshold, c.mcp.tools),
            (8, 7, 0.2, McpTools::Full)
        );
        assert_eq!(c.search.intents, IntentWeights::default());
        assert_eq!(user_only.sources["lifecycle.cold_threshold"].to_string(), user_src);
    }

    #[test]
    fn intent_tables_may_set_one_weight() {
        let loaded = load_vault_text(
            "[search.intents.recall]\nvector = 0.1\n[search.intents.explore]\nbm25 = 0\n\
             [search.intents.general]\n",
        )
        .unwrap();
        let intents = loaded.config.search.intents;
        assert_eq!(intents.recall, Weights { bm25: 0.6, vector: 0.1 });
        assert_eq!(intents.explore, Weights { bm25: 0.0, vector: 0.7 });
        assert_eq!(intents.general, IntentWeights::default().general);
        assert_eq!(intents.exact, IntentWeights::default().exact);
        assert!(matches!(
            loaded.sources["search.intents.recall.vector"],
            ConfigSource::VaultFile(_)
        ));
        assert_eq!(loaded.sources["search.intents.recall.bm25"], ConfigSource::Default);
        // Dotted keys and inline tables work too.
        let loaded = load_vault_text("[search]\nintents.exact.vector = 1\n").unwrap();
        assert_eq!(loaded.config.search.intents.exact, Weights { bm25: 0.8, vector: 1.0 });
        let loaded = load_vault_text("search = { intents = { exact = { vector = 1 } } }").unwrap();
        assert_eq!(loaded.config.search.intents.exact, Weights { bm25: 0.8, vector: 1.0 });
    }

    #[test]
    fn unknown_intents_are_errors_listing_the_four() {
        let err = load_vault_text("[search.intents.fuzzy]\nbm25 = 0.5\n").unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, ConfigError::UnknownKey { .. }), "{msg}");
        assert!(msg.starts_with("unknown key `search.intents.fuzzy` in vault config "), "{msg}");
        assert!(msg.ends_with("; allowed: general, recall, exact, explore"), "{msg}");

        let err = load_vault_text("[search.intents.exact]\nkeyword = 0.5\n").unwrap_err();
        assert!(
            err.to_string().starts_with("unknown key `search.intents.exact.keyword` in vault "),
            "{err}"
        );
        assert!(err.to_string().ends_with("; allowed: bm25, vector"), "{err}");

        for var in ["MEMLANE_SEARCH__INTENTS__FUZZY__BM25", "MEMLANE_SEARCH__INTENTS__EXACT"] {
            let err = load_env(&[(var, "0.5")]).unwrap_err();
            assert!(matches!(err, ConfigError::UnknownEnv { .. }), "{err}");
            assert!(err.to_string().contains("INTENT one of GENERAL, RECALL, EXACT, EXPLORE"));
        }
        let flags = [("search.intents.Exact.bm25".to_owned(), Value::Float(0.5), "-c".to_owned())];
        let err = LoadedConfig::load(&ConfigInputs { flags: &flags, ..Default::default() });
        assert!(err.unwrap_err().to_string().ends_with("allowed: general, recall, exact, explore"));
    }

    #[test]
    fn integer_keys_reject_floats_and_strings() {
        for (text, key) in [
            ("[search]\nlimit = 2.5", "search.limit"),
            ("[search]\nlimit = 5.0", "search.limit"),
            ("[search]\nlimit = \"5\"", "search.limit"),
            ("[embedding]\nbatch_size = 32.0", "embedding.batch_size"),
            ("[search]\nmin_candidates = 1e2", "search.min_candidates"),
            ("[lifecycle]\nrenotify_hours = 0.5", "lifecycle.renotify_hours"),
        ] {
            let err = load_vault_text(text).unwrap_err();
            assert!(matches!(err, ConfigError::Invalid { .. }), "{err}");
            assert!(err.to_string().contains(&format!("`{key}`")), "{err}");
            assert!(err.to_string().contains("allowed: an integer"), "{err}");
        }
        let err = load_env(&[("MEMLANE_SEARCH__CANDIDATE_FACTOR", "2.5")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid value 2.5 for `search.candidate_factor` in env \
             MEMLANE_SEARCH__CANDIDATE_FACTOR; allowed: an integer from 1 to 100"
        );
        let big = load_vault_text("[search]\nmin_candidates = 100000").unwrap();
        assert_eq!(big.config.search.min_candidates, 100_000);
        let err = load_vault_text("[search]\nmin_candidates = 9223372036854775807").unwrap_err();
        assert!(err.to_string().contains("an integer from 1 to 100000"), "{err}");
    }

    #[test]
    fn each_layer_overrides_the_one_below_and_records_its_source() {
        let dir = tempfile::tempdir().unwrap();
        let user = write(
            dir.path(),
            "user.toml",
            "default_type = \"fact\"\n[types.bug_fix]\nweight = 2.0\nhalf_life_days = 40\n\
             [types.plan]\nweight = 0.5\n[types.fact]\nweight = 0.7\n",
        );
        let vault = write(
            dir.path(),
            "vault.toml",
            "[types.bug_fix]\nweight = 3.0\nrecency_rate = 0.5\n[types.plan]\nweight = 0.6\n",
        );
        let env = env(&[
            ("MEMLANE_TYPES__BUG_FIX__WEIGHT", "4"),
            ("MEMLANE_TYPES__PLAN__WEIGHT", "0.8"),
            ("HOME", "/home/x"),
        ]);
        let flags =
            [("types.bug_fix.weight".to_owned(), Value::Float(5.0), "--bug-fix-weight".to_owned())];
        let mut inputs = ConfigInputs {
            user_file: Some(&user),
            user_file_required: true,
            vault_file: Some(&vault),
            env: &env,
            flags: &flags,
        };

        let all = LoadedConfig::load(&inputs).unwrap();
        let bug_fix = all.config.type_profile("bug_fix").unwrap();
        assert_eq!(bug_fix.weight, 5.0);
        assert_eq!(bug_fix.half_life_days, 40.0);
        assert_eq!(bug_fix.recency_rate, 0.5);
        assert_eq!(bug_fix.recency_max_boost, 0.20);
        assert_eq!(all.config.type_profile("plan").unwrap().weight, 0.8);
        assert_eq!(all.config.type_profile("fact").unwrap().weight, 0.7);
        assert_eq!(all.config.default_type, "fact");
        let src = |key: &str| all.sources[key].to_string();
        assert_eq!(src("types.bug_fix.weight"), "flag --bug-fix-weight");
        assert_eq!(src("types.plan.weight"), "env MEMLANE_TYPES__PLAN__WEIGHT");
        assert_eq!(src("types.bug_fix.recency_rate"), format!("vault config {}", vault.display()));
        assert_eq!(src("types.bug_fix.half_life_days"), format!("user config {}", user.display()));
        assert_eq!(src("types.fact.weight"), format!("user config {}", user.display()));
        assert_eq!(src("default_type"), format!("user config {}", user.display()));
        assert_eq!(src("types.bug_fix.recency_max_boost"), "default");
        assert_eq!(all.files, [user.clone(), vault.clone()]);

        inputs.flags = &[];
        let no_flags = LoadedConfig::load(&inputs).unwrap();
        assert_eq!(no_flags.config.type_profile("bug_fix").unwrap().weight, 4.0);
        assert_eq!(
            no_flags.sources["types.bug_fix.weight"],
            ConfigSource::Env("MEMLANE_TYPES__BUG_FIX__WEIGHT".to_owned())
        );

        inputs.env = &[];
        let files_only = LoadedConfig::load(&inputs).unwrap();
        assert_eq!(files_only.config.type_profile("bug_fix").unwrap().weight, 3.0);
        assert_eq!(files_only.config.type_profile("plan").unwrap().weight, 0.6);
        assert_eq!(
            files_only.sources["types.bug_fix.weight"],
            ConfigSource::VaultFile(vault.clone())
        );

        inputs.vault_file = None;
        let user_only = LoadedConfig::load(&inputs).unwrap();
        assert_eq!(user_only.config.type_profile("bug_fix").unwrap().weight, 2.0);
        assert_eq!(user_only.sources["types.bug_fix.weight"], ConfigSource::UserFile(user.clone()));

        inputs.user_file = None;
        let defaults = LoadedConfig::load(&inputs).unwrap();
        assert_eq!(defaults.config, Config::default());
    }

    #[test]
    fn later_flags_win_and_top_level_flags_work() {
        let flags = [
            ("default_type".to_owned(), Value::from("plan"), "--type".to_owned()),
            ("storage_strategy".to_owned(), Value::from("user"), "--user".to_owned()),
            ("default_type".to_owned(), Value::from("fact"), "--default-type".to_owned()),
        ];
        let loaded = LoadedConfig::load(&ConfigInputs { flags: &flags, ..Default::default() });
        let loaded = loaded.unwrap();
        assert_eq!(loaded.config.default_type, "fact");
        assert_eq!(loaded.config.storage_strategy, StorageStrategy::User);
        assert_eq!(loaded.sources["default_type"].to_string(), "flag --default-type");
    }

    #[test]
    fn partial_type_override_keeps_other_fields() {
        let loaded = load_vault_text("[types.bug_fix]\nhalf_life_days = 60\n").unwrap();
        let expected = TypeProfile { half_life_days: 60.0, ..BUILTIN_TYPES[3].1 };
        assert_eq!(BUILTIN_TYPES[3].0, "bug_fix");
        assert_eq!(loaded.config.type_profile("bug_fix"), Some(&expected));
        assert_eq!(loaded.config.types.len(), 12);
    }

    #[test]
    fn new_type_inherits_journal_numbers() {
        let loaded = load_vault_text(
            "default_type = \"meeting\"\n[types.meeting]\nweight = 0.9\n[types.x1]\n",
        )
        .unwrap();
        let journal = *loaded.config.type_profile("journal").unwrap();
        assert_eq!(
            loaded.config.type_profile("meeting"),
            Some(&TypeProfile { weight: 0.9, ..journal })
        );
        assert_eq!(loaded.config.type_profile("x1"), Some(&journal));
        assert_eq!(loaded.config.default_type, "meeting");
        assert_eq!(loaded.sources["types.meeting.half_life_days"], ConfigSource::Default);
        assert!(loaded.config.type_names().contains(&"meeting"));
    }

    #[test]
    fn new_type_inherits_the_builtin_journal_not_an_override() {
        // New types start from journal's built-in numbers, whatever a layer did to journal, so
        // a type's profile never depends on the order in which types are processed.
        let dir = tempfile::tempdir().unwrap();
        let user = write(dir.path(), "user.toml", "[types.journal]\nhalf_life_days = 10\n");
        let vault = write(dir.path(), "vault.toml", "[types.meeting]\nweight = 2\n");
        let inputs =
            ConfigInputs { user_file: Some(&user), vault_file: Some(&vault), ..Default::default() };
        let loaded = LoadedConfig::load(&inputs).unwrap();
        assert_eq!(loaded.config.type_profile("journal").unwrap().half_life_days, 10.0);
        assert_eq!(loaded.config.type_profile("meeting").unwrap().half_life_days, 30.0);
    }

    #[test]
    fn integers_are_accepted_where_floats_go() {
        let loaded = load_vault_text(
            "[types.fact]\nhalf_life_days = 7\nweight = 2\nrecency_window_days = 0\n\
             recency_max_boost = 1\nrecency_rate = 1\n",
        )
        .unwrap();
        assert_eq!(
            loaded.config.type_profile("fact"),
            Some(&TypeProfile::new(7.0, 2.0, 0.0, 1.0, 1.0))
        );
    }

    #[test]
    fn validation_errors_name_origin_key_value_and_allowed() {
        let cases: &[(&str, &str, &str, &str)] = &[
            // (file text, key, value, part of allowed)
            (
                "storage_strategy = \"global\"",
                "storage_strategy",
                "\"global\"",
                "\"project\" or \"user\"",
            ),
            ("storage_strategy = 1", "storage_strategy", "1", "\"project\" or \"user\""),
            ("default_type = \"nope\"", "default_type", "\"nope\"", "bug_fix, code_context"),
            ("default_type = 3", "default_type", "3", "a type name"),
            ("[types.bug_fix]\nhalf_life_days = 0", "types.bug_fix.half_life_days", "0", "> 0"),
            (
                "[types.bug_fix]\nhalf_life_days = inf",
                "types.bug_fix.half_life_days",
                "inf",
                "finite",
            ),
            ("[types.bug_fix]\nweight = -1", "types.bug_fix.weight", "-1", ">= 0"),
            ("[types.bug_fix]\nweight = nan", "types.bug_fix.weight", "nan", ">= 0"),
            (
                "[types.bug_fix]\nweight = \"high\"",
                "types.bug_fix.weight",
                "\"high\"",
                "a finite number",
            ),
            (
                "[types.plan]\nrecency_window_days = -0.5",
                "types.plan.recency_window_days",
                "-0.5",
                ">= 0",
            ),
            (
                "[types.plan]\nrecency_max_boost = 1.5",
                "types.plan.recency_max_boost",
                "1.5",
                "from 0 to 1",
            ),
            (
                "[types.plan]\nrecency_max_boost = -0.1",
                "types.plan.recency_max_boost",
                "-0.1",
                "from 0 to 1",
            ),
            (
                "[types.plan]\nrecency_rate = 0",
                "types.plan.recency_rate",
                "0",
                "greater than 0 and at most 1",
            ),
            ("[types.plan]\nrecency_rate = 1.01", "types.plan.recency_rate", "1.01", "at most 1"),
            (
                "[types.new_one]\nrecency_rate = true",
                "types.new_one.recency_rate",
                "true",
                "number",
            ),
            (
                "[privacy]\nscrub_secrets = \"no\"",
                "privacy.scrub_secrets",
                "\"no\"",
                "true or false",
            ),
            ("privacy = 1", "privacy", "1", "scrub_secrets"),
            ("types = [1, 2]", "types", "[1, 2]", "[types.<name>]"),
            ("[types]\nplan = 5", "types.plan", "5", "half_life_days, weight"),
            // [embedding]
            (
                "[embedding]\nmodel = \"\"",
                "embedding.model",
                "\"\"",
                "\"auto\", \"builtin\" or the path of a sentence-transformer model directory",
            ),
            ("[embedding]\nmodel = \"  \"", "embedding.model", "\"  \"", "\"auto\""),
            ("[embedding]\nmodel = 3", "embedding.model", "3", "as a string"),
            (
                "[embedding]\nbatch_size = 0",
                "embedding.batch_size",
                "0",
                "an integer from 1 to 1024",
            ),
            ("[embedding]\nbatch_size = 1025", "embedding.batch_size", "1025", "from 1 to 1024"),
            (
                "embedding = \"auto\"",
                "embedding",
                "\"auto\"",
                "a table with keys model, batch_size",
            ),
            // [search]
            (
                "[search]\nprofile = \"fast\"",
                "search.profile",
                "\"fast\"",
                "\"balanced\", \"ragdocs\", \"mnestra\", \"remindb\" or \"mira\"",
            ),
            ("[search]\nprofile = \"Balanced\"", "search.profile", "\"Balanced\"", "\"balanced\""),
            ("[search]\nlimit = 0", "search.limit", "0", "an integer from 1 to 1000"),
            ("[search]\nlimit = 1001", "search.limit", "1001", "an integer from 1 to 1000"),
            ("[search]\nlimit = 2.5", "search.limit", "2.5", "an integer from 1 to 1000"),
            ("[search]\nscore_threshold = 1.5", "search.score_threshold", "1.5", "from 0 to 1"),
            ("[search]\nscore_threshold = -0.1", "search.score_threshold", "-0.1", "from 0 to 1"),
            ("[search]\nrrf_k = 0", "search.rrf_k", "0", "a finite number > 0"),
            ("[search]\nrrf_k = inf", "search.rrf_k", "inf", "a finite number > 0"),
            (
                "[search]\nmin_candidates = 0",
                "search.min_candidates",
                "0",
                "an integer from 1 to 100000",
            ),
            (
                "[search]\ncandidate_factor = 0",
                "search.candidate_factor",
                "0",
                "an integer from 1 to 100",
            ),
            (
                "[search]\ncalibration_midpoint = 0",
                "search.calibration_midpoint",
                "0",
                "greater than 0 and less than 1",
            ),
            (
                "[search]\ncalibration_midpoint = 1.0",
                "search.calibration_midpoint",
                "1.0",
                "greater than 0 and less than 1",
            ),
            (
                "[search]\ncalibration_steepness = -1",
                "search.calibration_steepness",
                "-1",
                "a finite number > 0",
            ),
            (
                "[search]\nsupersession_penalty = 0",
                "search.supersession_penalty",
                "0",
                "greater than 0 and at most 1",
            ),
            (
                "[search]\nsupersession_penalty = 1.5",
                "search.supersession_penalty",
                "1.5",
                "greater than 0 and at most 1",
            ),
            (
                "[search]\nexpiry_fade_days = -1",
                "search.expiry_fade_days",
                "-1",
                "a finite number >= 0",
            ),
            ("search = []", "search", "[]", "a table with keys profile, limit"),
            ("[search]\nintents = 1", "search.intents", "1", "general, recall, exact, explore"),
            (
                "[search.intents]\nexact = 0.5",
                "search.intents.exact",
                "0.5",
                "a table with keys bm25, vector",
            ),
            (
                "[search.intents.exact]\nbm25 = 1.1",
                "search.intents.exact.bm25",
                "1.1",
                "from 0 to 1",
            ),
            (
                "[search.intents.explore]\nvector = -0.5",
                "search.intents.explore.vector",
                "-0.5",
                "from 0 to 1",
            ),
            (
                "[search.intents.recall]\nvector = \"high\"",
                "search.intents.recall.vector",
                "\"high\"",
                "a number from 0 to 1",
            ),
            // [lifecycle]
            (
                "[lifecycle]\nclock = \"wall\"",
                "lifecycle.clock",
                "\"wall\"",
                "\"activity\" or \"calendar\"",
            ),
            (
                "[lifecycle]\ntemperature_start = 2",
                "lifecycle.temperature_start",
                "2",
                "from 0 to 1",
            ),
            (
                "[lifecycle]\ntemperature_warm = -1",
                "lifecycle.temperature_warm",
                "-1",
                "from 0 to 1",
            ),
            ("[lifecycle]\ncooling_rate = -0.01", "lifecycle.cooling_rate", "-0.01", ">= 0"),
            ("[lifecycle]\ncold_threshold = 1.2", "lifecycle.cold_threshold", "1.2", "from 0 to 1"),
            ("[lifecycle]\nnotify_threshold = nan", "lifecycle.notify_threshold", "nan", "0 to 1"),
            (
                "[lifecycle]\ncold_check_minutes = 0",
                "lifecycle.cold_check_minutes",
                "0",
                "an integer >= 1",
            ),
            (
                "[lifecycle]\nrenotify_hours = -1",
                "lifecycle.renotify_hours",
                "-1",
                "an integer >= 0",
            ),
            ("[lifecycle]\ndedup_threshold = 1.01", "lifecycle.dedup_threshold", "1.01", "0 to 1"),
            (
                "[lifecycle]\nremember_update_threshold = -0.5",
                "lifecycle.remember_update_threshold",
                "-0.5",
                "from 0 to 1",
            ),
            ("[lifecycle]\nmerge_threshold = true", "lifecycle.merge_threshold", "true", "0 to 1"),
            // [mcp]
            ("[mcp]\ntools = \"all\"", "mcp.tools", "\"all\"", "\"core\" or \"full\""),
            ("[mcp]\ntools = 1", "mcp.tools", "1", "\"core\" or \"full\""),
            ("mcp = true", "mcp", "true", "a table with keys tools"),
        ];
        for (text, key, value, allowed) in cases {
            let err = load_vault_text(text).unwrap_err();
            let msg = err.to_string();
            match &err {
                ConfigError::Invalid { origin, key: k, value: v, allowed: a } => {
                    assert!(matches!(origin, ConfigSource::VaultFile(_)), "{msg}");
                    assert_eq!(k, key, "{msg}");
                    assert_eq!(v, value, "{msg}");
                    assert!(a.contains(allowed), "{msg}");
                }
                other => panic!("{text}: unexpected {other:?}"),
            }
            assert!(msg.starts_with("invalid value "), "{msg}");
            assert!(msg.contains("vault config ") && msg.contains("config.toml"), "{msg}");
            assert!(msg.contains(&format!("`{key}`")) && msg.contains(allowed), "{msg}");
        }
    }

    #[test]
    fn unknown_keys_name_origin_key_and_allowed() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "colour = 1",
                "colour",
                "storage_strategy, default_type, embedding, search, lifecycle, mcp, privacy, types",
            ),
            ("[privacy]\nscrub = true", "privacy.scrub", "scrub_secrets"),
            (
                "[types.bug_fix]\nhalflife = 3",
                "types.bug_fix.halflife",
                "half_life_days, weight, recency_window_days, recency_max_boost, recency_rate",
            ),
            ("[embedding]\nmodle = \"x\"", "embedding.modle", "model, batch_size"),
            (
                "[search]\nlimits = 3",
                "search.limits",
                "profile, limit, score_threshold, rrf_k, min_candidates, candidate_factor, \
                 calibration_midpoint, calibration_steepness, supersession_penalty, \
                 question_weight, context_weight, context_span, context_gap_minutes, \
                 temporal_weight, expiry_fade_days, intents",
            ),
            (
                "[lifecycle]\nclocks = 1",
                "lifecycle.clocks",
                "clock, temperature_start, temperature_warm, cooling_rate, cold_threshold, \
                 notify_threshold, cold_check_minutes, maintain_minutes, renotify_hours, dedup_threshold, \
                 remember_update_threshold, merge_threshold",
            ),
            ("[mcp]\ntool = \"core\"", "mcp.tool", "tools"),
            ("[search.intents.general]\nbm = 1", "search.intents.general.bm", "bm25, vector"),
        ];
        for (text, key, allowed) in cases {
            let err = load_vault_text(text).unwrap_err();
            let msg = err.to_string();
            assert!(matches!(err, ConfigError::UnknownKey { .. }), "{msg}");
            assert!(msg.starts_with(&format!("unknown key `{key}` in vault config ")), "{msg}");
            assert!(msg.ends_with(&format!("config.toml; allowed: {allowed}")), "{msg}");
        }
    }

    #[test]
    fn bad_type_names_are_rejected() {
        for name in ["\"Bug\"", "\"9lives\"", "\"bug-fix\"", "\"\"", "\"é\"", "_x"] {
            let err = load_vault_text(&format!("[types.{name}]\nweight = 1")).unwrap_err();
            let msg = err.to_string();
            assert!(matches!(err, ConfigError::InvalidTypeName { .. }), "{msg}");
            assert!(msg.contains("vault config "), "{msg}");
            assert!(msg.contains("allowed: a lowercase ASCII letter"), "{msg}");
        }
        let err = load_vault_text("[types.Bug]\nweight = 1").unwrap_err();
        assert_eq!(
            err.to_string().split(" in ").next().unwrap(),
            "invalid type name `Bug` at `types.Bug`"
        );
        assert!(load_vault_text("[types.a_1]\n[types.z]").is_ok());
    }

    #[test]
    fn default_type_may_name_a_type_from_another_layer() {
        let dir = tempfile::tempdir().unwrap();
        let user = write(dir.path(), "user.toml", "[types.meeting]\n");
        let env = env(&[("MEMLANE_DEFAULT_TYPE", "meeting")]);
        let inputs = ConfigInputs { user_file: Some(&user), env: &env, ..Default::default() };
        assert_eq!(LoadedConfig::load(&inputs).unwrap().config.default_type, "meeting");

        let err = load_env(&[("MEMLANE_DEFAULT_TYPE", "meeting")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid value \"meeting\" for `default_type` in env MEMLANE_DEFAULT_TYPE; allowed: \
             a known type (architecture, bug_fix, code_context, decision, document_chunk, fact, \
             journal, observation, plan, preference, reflection, session_summary) or a new type \
             defined with a [types.<name>] table"
        );
    }

    #[test]
    fn env_nesting_case_and_values() {
        let loaded = load_env(&[
            ("MEMLANE_STORAGE_STRATEGY", "user"),
            ("memlane_privacy__scrub_secrets", "false"),
            ("MEMLANE_TYPES__BUG_FIX__HALF_LIFE_DAYS", "60"),
            ("Memlane_Types__Meeting__Weight", " 0.5 "),
            ("MEMLANE_DEFAULT_TYPE", "\"meeting\""),
            ("MEMLANE_EMBEDDING__MODEL", "/opt/models/all-MiniLM-L6-v2"),
            ("memlane_search__profile", "mira"),
            ("MEMLANE_SEARCH__SCORE_THRESHOLD", "0"),
            ("MEMLANE_LIFECYCLE__CLOCK", "calendar"),
            ("MEMLANE_LIFECYCLE__RENOTIFY_HOURS", "24"),
            ("MEMLANE_SEARCH__INTENTS__EXPLORE__VECTOR", "1"),
            ("PATH", "/bin"),
            ("MEMLANEX", "1"),
        ])
        .unwrap();
        let c = &loaded.config;
        assert_eq!(c.storage_strategy, StorageStrategy::User);
        assert!(!c.privacy.scrub_secrets);
        assert_eq!(c.type_profile("bug_fix").unwrap().half_life_days, 60.0);
        assert_eq!(c.type_profile("bug_fix").unwrap().weight, 1.3);
        assert_eq!(c.type_profile("meeting").unwrap().weight, 0.5);
        assert_eq!(c.default_type, "meeting");
        assert_eq!(c.embedding.model, "/opt/models/all-MiniLM-L6-v2");
        assert_eq!(c.search.profile, SearchProfile::Mira);
        assert_eq!(c.search.score_threshold, 0.0);
        assert_eq!(c.lifecycle.clock, ClockKind::Calendar);
        assert_eq!(c.lifecycle.renotify_hours, 24);
        assert_eq!(c.search.intents.explore, Weights { bm25: 0.3, vector: 1.0 });
        assert_eq!(loaded.sources["search.profile"].to_string(), "env memlane_search__profile");
        assert_eq!(
            loaded.sources["types.meeting.weight"],
            ConfigSource::Env("Memlane_Types__Meeting__Weight".to_owned())
        );
        assert_eq!(
            loaded.sources["privacy.scrub_secrets"].to_string(),
            "env memlane_privacy__scrub_secrets"
        );
    }

    #[test]
    fn env_string_keys_take_the_raw_text() {
        // `true` parses as a TOML boolean, but default_type takes a string.
        let dir = tempfile::tempdir().unwrap();
        let user = write(dir.path(), "user.toml", "[types.true]\n");
        let env = env(&[("MEMLANE_DEFAULT_TYPE", "true")]);
        let inputs = ConfigInputs { user_file: Some(&user), env: &env, ..Default::default() };
        assert_eq!(LoadedConfig::load(&inputs).unwrap().config.default_type, "true");

        // So does embedding.model; a quoted TOML string is unquoted.
        let loaded = load_env(&[("MEMLANE_EMBEDDING__MODEL", "123")]).unwrap();
        assert_eq!(loaded.config.embedding.model, "123");
        let loaded = load_env(&[("MEMLANE_EMBEDDING__MODEL", "\"builtin\"")]).unwrap();
        assert_eq!(loaded.config.embedding.model, "builtin");
        let err = load_env(&[("MEMLANE_MCP__TOOLS", "1")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid value \"1\" for `mcp.tools` in env MEMLANE_MCP__TOOLS; allowed: \"core\" or \
             \"full\""
        );
    }

    #[test]
    fn env_reserved_names_are_ignored() {
        let loaded = load_env(&[
            ("MEMLANE_VAULT", "/v"),
            ("MEMLANE_CONFIG", "/c.toml"),
            ("MEMLANE_LOG", "debug"),
            ("MEMLANE_NOW", "2026-01-01T00:00:00Z"),
            ("memlane_model", "/m"),
        ])
        .unwrap();
        assert_eq!(loaded.config, Config::default());
    }

    #[test]
    fn env_unknown_variables_are_errors() {
        for var in [
            "MEMLANE_COLOR",
            "MEMLANE_",
            "MEMLANE_TYPES_BUG_FIX_WEIGHT",
            "MEMLANE_TYPES__BUG_FIX",
            "MEMLANE_TYPES__BUG_FIX__HALFLIFE",
            "MEMLANE_TYPES____WEIGHT",
            "MEMLANE_PRIVACY__SCRUB",
            "MEMLANE_PRIVACY",
            "MEMLANE_STORAGE_STRATEGY__X",
            "MEMLANE_SEARCH",
            "MEMLANE_SEARCH__LIMT",
            "MEMLANE_SEARCH__INTENTS",
            "MEMLANE_SEARCH__INTENTS__EXACT",
            "MEMLANE_SEARCH__INTENTS__EXACT__BM25__X",
            "MEMLANE_SEARCH__LIMIT__X",
            "MEMLANE_EMBEDDING",
            "MEMLANE_EMBEDDING_MODEL",
            "MEMLANE_LIFECYCLE__SCRUB_SECRETS",
            "MEMLANE_MCP__TOOL",
            "MEMLANE_PRIVACY__TOOLS",
        ] {
            let err = load_env(&[(var, "1")]).unwrap_err();
            let msg = err.to_string();
            assert!(matches!(err, ConfigError::UnknownEnv { .. }), "{msg}");
            assert!(
                msg.starts_with(&format!("environment variable {var} matches no config key; "))
            );
            assert!(msg.contains("MEMLANE_TYPES__<TYPE>__<FIELD>"), "{msg}");
            assert!(msg.contains("MEMLANE_PRIVACY__SCRUB_SECRETS"), "{msg}");
            assert!(msg.contains("MEMLANE_SEARCH__<KEY>"), "{msg}");
            assert!(msg.contains("MEMLANE_SEARCH__INTENTS__<INTENT>__<BM25|VECTOR>"), "{msg}");
            assert!(msg.contains("MEMLANE_MODEL are read elsewhere"), "{msg}");
        }
    }

    #[test]
    fn env_value_errors_name_the_variable() {
        let err = load_env(&[("MEMLANE_TYPES__BUG_FIX__WEIGHT", "heavy")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid value \"heavy\" for `types.bug_fix.weight` in env \
             MEMLANE_TYPES__BUG_FIX__WEIGHT; allowed: a finite number >= 0"
        );
        let err = load_env(&[("MEMLANE_STORAGE_STRATEGY", "")]).unwrap_err();
        assert!(err.to_string().contains("in env MEMLANE_STORAGE_STRATEGY; allowed: \"project\""));
        let err = load_env(&[("MEMLANE_TYPES__BUG-FIX__WEIGHT", "1")]).unwrap_err();
        assert!(matches!(err, ConfigError::InvalidTypeName { .. }), "{err}");
        assert!(err.to_string().contains("env MEMLANE_TYPES__BUG-FIX__WEIGHT"), "{err}");
    }

    #[test]
    fn flag_errors_name_the_flag() {
        let flags =
            [("types.bug_fix.weight".to_owned(), Value::Float(-2.0), "--weight".to_owned())];
        let err = LoadedConfig::load(&ConfigInputs { flags: &flags, ..Default::default() });
        assert_eq!(
            err.unwrap_err().to_string(),
            "invalid value -2.0 for `types.bug_fix.weight` in flag --weight; allowed: a finite number >= 0"
        );
        let flags = [("nope".to_owned(), Value::Boolean(true), "--nope".to_owned())];
        let err = LoadedConfig::load(&ConfigInputs { flags: &flags, ..Default::default() });
        assert!(
            err.unwrap_err()
                .to_string()
                .starts_with("unknown key `nope` in flag --nope; allowed: ")
        );
    }

    #[test]
    fn files_missing_unreadable_or_broken() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.toml");

        let optional = ConfigInputs {
            user_file: Some(&missing),
            vault_file: Some(&missing),
            ..Default::default()
        };
        let loaded = LoadedConfig::load(&optional).unwrap();
        assert!(loaded.files.is_empty());
        assert_eq!(loaded.config, Config::default());

        let required = ConfigInputs { user_file_required: true, ..optional };
        let err = LoadedConfig::load(&required).unwrap_err();
        assert!(matches!(err, ConfigError::MissingFile { .. }));
        assert_eq!(
            err.to_string(),
            format!(
                "config file {} does not exist (named by MEMLANE_CONFIG); create it or point \
                 MEMLANE_CONFIG at an existing file",
                missing.display()
            )
        );

        let as_dir = ConfigInputs { vault_file: Some(dir.path()), ..Default::default() };
        let err = LoadedConfig::load(&as_dir).unwrap_err();
        assert!(matches!(err, ConfigError::Read { .. }), "{err:?}");
        assert!(
            err.to_string()
                .starts_with(&format!("cannot read config file {}", dir.path().display()))
        );

        let broken = write(dir.path(), "broken.toml", "[types.bug_fix]\nweight = = 2\n");
        let inputs = ConfigInputs { user_file: Some(&broken), ..Default::default() };
        let err = LoadedConfig::load(&inputs).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, ConfigError::Parse { .. }));
        assert!(
            msg.starts_with(&format!("cannot parse user config {}", broken.display())),
            "{msg}"
        );
        assert!(msg.contains("line 2, column"), "{msg}");

        let dup = write(dir.path(), "dup.toml", "weight = 1\nweight = 2\n");
        let inputs = ConfigInputs { vault_file: Some(&dup), ..Default::default() };
        assert!(matches!(LoadedConfig::load(&inputs), Err(ConfigError::Parse { .. })));
    }

    #[test]
    fn render_toml_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let user = write(
            dir.path(),
            "user config.toml",
            "storage_strategy = \"user\"\n[types.meeting]\nweight = 0.25\n\
             [embedding]\nmodel = 'C:\\models\\\"mini\"'\n[search]\nrrf_k = 30\n\
             [search.intents.recall]\nvector = 0\n[lifecycle]\nrenotify_hours = 12\n",
        );
        let env = env(&[
            ("MEMLANE_PRIVACY__SCRUB_SECRETS", "false"),
            ("MEMLANE_SEARCH__PROFILE", "remindb"),
            ("MEMLANE_LIFECYCLE__CLOCK", "calendar"),
        ]);
        let flags = [
            ("default_type".to_owned(), Value::from("meeting"), "--type".to_owned()),
            ("mcp.tools".to_owned(), Value::from("full"), "-c mcp.tools".to_owned()),
            ("search.limit".to_owned(), Value::Integer(20), "--limit".to_owned()),
        ];
        let inputs =
            ConfigInputs { user_file: Some(&user), env: &env, flags: &flags, ..Default::default() };
        let loaded = LoadedConfig::load(&inputs).unwrap();
        let rendered = loaded.render_toml();
        let u = user.display();

        assert!(
            rendered.starts_with(&format!(
                "storage_strategy = \"user\"  # user config {u}\n\
                 default_type = \"meeting\"  # flag --type\n\
                 \n[embedding]\nmodel = 'C:\\models\\\"mini\"'  # user config {u}\n\
                 batch_size = 32  # default\n\
                 \n[search]\nprofile = \"remindb\"  # env MEMLANE_SEARCH__PROFILE\n\
                 limit = 20  # flag --limit\nscore_threshold = 0.1  # default\n\
                 rrf_k = 30.0  # user config {u}\nmin_candidates = 50  # default\n"
            )),
            "{rendered}"
        );
        assert!(rendered.contains(
            "expiry_fade_days = 5.0  # default\n\
             \n[search.intents.general]\nbm25 = 0.4  # default\nvector = 0.6  # default\n\
             \n[search.intents.recall]\n"
        ));
        assert!(rendered.contains(&format!("vector = 0.0  # user config {u}\n")));
        assert!(rendered.contains(
            "\n[lifecycle]\nclock = \"calendar\"  # env MEMLANE_LIFECYCLE__CLOCK\n\
             temperature_start = 0.5  # default\n"
        ));
        assert!(rendered.contains(&format!("renotify_hours = 12  # user config {u}\n")));
        assert!(rendered.contains(
            "merge_threshold = 0.85  # default\n\
             \n[mcp]\ntools = \"full\"  # flag -c mcp.tools\n\
             \n[privacy]\nscrub_secrets = false  # env MEMLANE_PRIVACY__SCRUB_SECRETS\n\
             \n[types.architecture]\nhalf_life_days = 365.0  # default\n"
        ));
        let headers: Vec<&str> = rendered.lines().filter(|l| l.starts_with('[')).collect();
        assert_eq!(
            headers[..9],
            [
                "[embedding]",
                "[search]",
                "[search.intents.general]",
                "[search.intents.recall]",
                "[search.intents.exact]",
                "[search.intents.explore]",
                "[lifecycle]",
                "[mcp]",
                "[privacy]",
            ]
        );
        assert_eq!(rendered.lines().filter(|l| l.contains("  # ")).count(), loaded.sources.len());
        assert!(rendered.contains(&format!(
            "[types.meeting]\nhalf_life_days = 30.0  # default\nweight = 0.25  # user config {}\n",
            user.display()
        )));
        assert!(
            rendered
                .lines()
                .filter(|l| !l.is_empty() && !l.starts_with('['))
                .all(|l| l.contains("  # "))
        );

        let table: Table = rendered.parse().unwrap();
        assert_eq!(table.keys().collect::<Vec<_>>(), TOP_KEYS);
        let reloaded = load_vault_text(&rendered).unwrap();
        assert_eq!(reloaded.config, loaded.config);

        let defaults = LoadedConfig::load(&ConfigInputs::default()).unwrap();
        assert_eq!(load_vault_text(&defaults.render_toml()).unwrap().config, Config::default());
    }

    #[test]
    fn render_toml_escapes_control_characters_in_sources() {
        let mut loaded = LoadedConfig::load(&ConfigInputs::default()).unwrap();
        loaded.sources.insert(
            "default_type".to_owned(),
            ConfigSource::VaultFile(PathBuf::from("/tmp/a\nb = 1")),
        );
        let reloaded = load_vault_text(&loaded.render_toml()).unwrap();
        assert_eq!(reloaded.config, Config::default());
    }

    #[test]
    fn to_json_shape() {
        let dir = tempfile::tempdir().unwrap();
        let vault = write(dir.path(), "config.toml", "[types.plan]\nweight = 2\n");
        let inputs = ConfigInputs { vault_file: Some(&vault), ..Default::default() };
        let json = LoadedConfig::load(&inputs).unwrap().to_json();
        assert_eq!(json["config"]["storage_strategy"], "project");
        assert_eq!(json["config"]["default_type"], "journal");
        assert_eq!(json["config"]["privacy"]["scrub_secrets"], true);
        assert_eq!(json["config"]["types"]["plan"]["weight"], 2.0);
        assert_eq!(json["config"]["types"]["document_chunk"]["recency_rate"], 1.0);
        assert_eq!(
            json["config"]["embedding"],
            serde_json::json!({"model": "auto", "batch_size": 32})
        );
        assert_eq!(json["config"]["search"]["profile"], "balanced");
        assert_eq!(json["config"]["search"]["limit"], 5);
        assert_eq!(json["config"]["search"]["rrf_k"], 60.0);
        assert_eq!(
            json["config"]["search"]["intents"]["exact"],
            serde_json::json!({"bm25": 0.8, "vector": 0.2})
        );
        assert_eq!(json["config"]["lifecycle"]["clock"], "activity");
        assert_eq!(json["config"]["lifecycle"]["cold_check_minutes"], 5);
        assert_eq!(json["config"]["mcp"]["tools"], "core");
        assert_eq!(json["sources"]["search.intents.exact.bm25"], "default");
        let sections: Vec<&String> = json["config"].as_object().unwrap().keys().collect();
        assert_eq!(sections, TOP_KEYS);
        assert_eq!(
            json["sources"]["types.plan.weight"],
            format!("vault config {}", vault.display())
        );
        assert_eq!(json["sources"]["storage_strategy"], "default");
        assert_eq!(json["files"], serde_json::json!([vault.to_string_lossy()]));
        let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["config", "sources", "files"]);
    }

    #[test]
    fn default_config_toml_loads_as_defaults() {
        let loaded = load_vault_text(DEFAULT_CONFIG_TOML).unwrap();
        assert_eq!(loaded.config, Config::default());
        assert!(loaded.sources.values().all(|s| *s == ConfigSource::Default));
        // Nothing but comments and section headers.
        let table: Table = DEFAULT_CONFIG_TOML.parse().unwrap();
        assert_eq!(table["privacy"].as_table().unwrap().len(), 0);
        assert_eq!(table["types"]["bug_fix"].as_table().unwrap().len(), 0);
        assert_eq!(table["embedding"].as_table().unwrap().len(), 0);
        assert_eq!(table["lifecycle"].as_table().unwrap().len(), 0);
        assert_eq!(table["mcp"].as_table().unwrap().len(), 0);
        let search = table["search"].as_table().unwrap();
        assert_eq!(search.keys().collect::<Vec<_>>(), [INTENTS_KEY]);
        let intents = search[INTENTS_KEY].as_table().unwrap();
        assert_eq!(intents.keys().collect::<Vec<_>>(), Intent::NAMES);
        assert!(intents.values().all(|t| t.as_table().unwrap().is_empty()));
    }

    #[test]
    fn default_config_toml_examples_are_valid_and_complete() {
        let setting = |line: &str| -> Option<String> {
            let rest = line.strip_prefix("# ")?;
            let (key, _) = rest.split_once(" = ")?;
            key.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                .then(|| key.to_owned())
        };
        let lines: Vec<&str> = DEFAULT_CONFIG_TOML.lines().collect();
        let mut keys = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let Some(key) = setting(line) else { continue };
            keys.push(key.clone());
            let mut edited = lines.clone();
            edited[i] = &line[2..];
            let loaded = load_vault_text(&edited.join("\n"))
                .unwrap_or_else(|e| panic!("uncommenting {line:?}: {e}"));
            // Each example is the built-in default and is recorded as set by the file.
            assert_eq!(loaded.config, Config::default(), "{line}");
            assert!(loaded.sources.values().any(|s| matches!(s, ConfigSource::VaultFile(_))));
        }
        let mut expected: Vec<&str> = vec!["storage_strategy", "default_type"];
        for (name, fields) in SECTIONS {
            expected.extend(key_names(fields));
            if *name == "search" {
                for _ in Intent::ALL {
                    expected.extend(key_names(WEIGHT_KEYS));
                }
            }
        }
        expected.extend(PRIVACY_KEYS);
        expected.extend(PROFILE_KEYS);
        assert_eq!(keys, expected);
        // Every example has its own one-line comment just above it.
        for (i, line) in lines.iter().enumerate() {
            if setting(line).is_some() {
                let above = lines[i - 1];
                assert!(above.starts_with("# ") && setting(above).is_none(), "{line}");
            }
        }

        let all: Vec<&str> =
            lines.iter().map(|l| if setting(l).is_some() { &l[2..] } else { l }).collect();
        let loaded = load_vault_text(&all.join("\n")).unwrap();
        assert_eq!(loaded.config, Config::default());
        assert_eq!(
            loaded.sources.values().filter(|s| **s != ConfigSource::Default).count(),
            keys.len()
        );
    }

    #[test]
    fn default_user_config_path_ends_in_config_toml() {
        if let Some(path) = default_user_config_path() {
            assert!(path.ends_with("config.toml"));
            assert!(path.to_string_lossy().contains("memlane"));
        }
    }
}
