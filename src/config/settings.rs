//! Every config key, declared once: name, type, default, documentation and validation rule.
//!
//! A key's `///` lines are its rustdoc, the comment `memlane init` writes above it in
//! `config.toml` and the text `memlane config` follows; its rule validates every layer and
//! decides how a `MEMLANE_*` value is read. Adding a key to a table is one line pair here;
//! the loader, the validator, `memlane config`, `--json`, the environment variables and the
//! default `config.toml` pick it up from the generated `KEYS`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::schema::{Range, Rule, Table, config_enum, config_table};

config_table! {
    /// The effective memlane configuration.
    #[derive(Debug, Clone, PartialEq, Serialize)]
    pub struct Config {
        keys {
            /// Where vaults live: "project" (the nearest .memories/ above the current directory)
            /// or "user" (one vault per user in the platform data directory).
            storage_strategy: StorageStrategy = StorageStrategy::Project,
                Rule::Choice(StorageStrategy::NAMES);
            /// The type given to memories created without --type; must be a known type.
            default_type: String = NEW_TYPE_BASE.to_owned(), Rule::TypeName;
        }
        tables {
            /// Which embedder builds the vector index.
            embedding: EmbeddingConfig = EmbeddingConfig::default();
            /// Search ranking constants.
            search: SearchConfig = SearchConfig::default();
            /// Temperature, cold notifications and near-duplicate thresholds.
            lifecycle: LifecycleConfig = LifecycleConfig::default();
            /// Commands and a live watcher.
            watch: WatchConfig = WatchConfig::default();
            /// The MCP server.
            mcp: McpConfig = McpConfig::default();
            /// Agent lifecycle hooks.
            hooks: HooksConfig = HooksConfig::default();
            /// Redaction settings.
            privacy: PrivacyConfig = PrivacyConfig::default();
            /// Every known memory type and its ranking profile, built-in and user-defined.
            types: BTreeMap<String, TypeProfile> =
                BUILTIN_TYPES.iter().map(|(name, p)| ((*name).to_owned(), *p)).collect();
        }
    }
}

config_table! {
    /// Which embedder builds the vector index, `[embedding]`.
    #[derive(Debug, Clone, PartialEq, Serialize)]
    pub struct EmbeddingConfig {
        keys {
            /// "auto" (a local model when one is installed, else builtin), "builtin", a model directory, or "static:FILE" (a table from `memlane model distill`).
            model: String = "auto".to_owned(), Rule::Model;
            /// Texts embedded per forward pass (1 to 1024).
            batch_size: usize = 32, Rule::Int(1, 1024);
        }
    }
}

config_table! {
    /// Search ranking constants, `[search]`.
    #[derive(Debug, Clone, PartialEq, Serialize)]
    pub struct SearchConfig {
        keys {
            /// Ranking preset: "balanced", "ragdocs", "mnestra", "remindb" or "mira".
            profile: SearchProfile = SearchProfile::Balanced, Rule::Choice(SearchProfile::NAMES);
            /// Number of results when no --limit is given (1 to 1000).
            limit: usize = 5, Rule::Int(1, 1000);
            /// Results whose relevance is below this are dropped (0 to 1).
            score_threshold: f64 = 0.1, Rule::Num(Range::Unit);
            /// The k of reciprocal rank fusion, which sums weight / (k + rank) (greater than 0).
            rrf_k: f64 = 60.0, Rule::Num(Range::Positive);
            /// Each retriever returns max(min_candidates, candidate_factor * limit) chunks (1 to 100000).
            // Bounded: each retriever allocates room for this many chunks (a cloned repository's
            // config must not make every search abort).
            min_candidates: usize = 50, Rule::Int(1, 100_000);
            /// The per-result candidate multiplier of that formula (1 to 100).
            candidate_factor: usize = 4, Rule::Int(1, 100);
            /// Evidence at which the calibrated relevance is 0.5 (greater than 0 and less than 1).
            calibration_midpoint: f64 = 0.35, Rule::Num(Range::OpenUnit);
            /// Steepness of the calibration sigmoid (greater than 0).
            calibration_steepness: f64 = 10.0, Rule::Num(Range::Positive);
            /// Score multiplier for a memory superseded by another (greater than 0, at most 1).
            supersession_penalty: f64 = 0.5, Rule::Num(Range::PositiveUnit);
            /// Weight of a query's question words (what, how, did, I, we, …) in keyword scoring, in a
            /// vault whose chunks average question_chunk_terms words or more (0 to 1; 0 leaves them
            /// out unless the query has nothing else).
            question_weight: f64 = 0.3, Rule::Num(Range::Unit);
            /// Mean chunk length, in indexed words, from which question words weigh question_weight in
            /// full: a long chunk holds a request with its answer, so the words of the request are
            /// evidence; a chunk of a line or two that shares them is most often another question.
            /// At half this length or less they weigh nothing, in between in proportion (1 or more).
            question_chunk_terms: f64 = 60.0, Rule::Num(Range::Positive);
            /// Whether a query term also matches its abbreviation or long form (k8s, kubernetes; auth,
            /// authentication) and, when the vault lacks the term, the vault's words it is a prefix of
            /// or that are a prefix of it (postgres, postgresql).
            expand_terms: bool = true, Rule::Bool;
            /// Weight of such an expansion relative to the term itself, in keyword scoring and term
            /// coverage (0 to 1; 0 turns expansion off).
            expansion_weight: f64 = 0.5, Rule::Num(Range::Unit);
            /// Share of a memory's fused score added from its best neighbour in the same thread: memories
            /// of one folder written one after another (0 to 1; 0 turns it off).
            context_weight: f64 = 0.3, Rule::Num(Range::Unit);
            /// Neighbours on each side in a thread that lend context (0 to 50).
            context_span: usize = 2, Rule::Int(0, 50);
            /// Share of a question's fused score added to its reply: a line of a transcript ("Name:
            /// ...") right after, in its thread, a line of another speaker that asks something (0 to
            /// 1; 0 turns it off). What the question matched, the reply answers.
            reply_weight: f64 = 0.6, Rule::Num(Range::Unit);
            /// A thread breaks where two memories of a folder were written more than this many minutes
            /// apart (0 or more).
            context_gap_minutes: f64 = 120.0, Rule::Num(Range::NonNegative);
            /// Weight of a date named in the query ("in May 2023", "last week"): memories created then
            /// are preferred (0 to 1; 0 turns it off).
            temporal_weight: f64 = 0.5, Rule::Num(Range::Unit);
            /// Days after expires_at over which a memory fades to 0, then leaves results (0 or more).
            expiry_fade_days: f64 = 5.0, Rule::Num(Range::NonNegative);
            /// Weight of the speaker: a memory that opens with "Name:" (a line of a transcript) is
            /// multiplied by 1 + subject_weight when the query names that speaker (0 to 1; 0 turns it
            /// off).
            subject_weight: f64 = 0.5, Rule::Num(Range::Unit);
            /// With a sentence model, the lexical side's weight in the fusion when the best
            /// candidate holds none of the query's words, as a share of its full weight; it rises
            /// linearly to full weight where the best candidate holds half of them (0 to 1; 1, the
            /// default, turns it off). 0.5 suits questions worded unlike the memories.
            lexical_trust_floor: f64 = 1.0, Rule::Num(Range::Unit);
            /// How many of a memory's retrieved chunks its lexical score is measured on, the best
            /// counting (1 to 64; 1 measures only the chunk with the best BM25 score). In a long
            /// memory the section that repeats the query's rarest word is not always the one that
            /// holds the whole question (8 ranks long memories better; see the ranking notes).
            lexical_chunks: usize = 1, Rule::Int(1, 64);
            /// Weight of pseudo-relevance feedback on the lines of a transcript ("Name: ..."): when
            /// most of the first keyword retrieval's best memories are such lines, a second keyword
            /// retrieval with their informative words, added to the lexical score of the memories
            /// that match the query. It weighs in full where chunks average half of
            /// question_chunk_terms words or less, nothing from question_chunk_terms on, in
            /// proportion in between (0 to 1; 0 turns it off).
            feedback_weight: f64 = 0.3, Rule::Num(Range::Unit);
            /// How many of the first keyword retrieval's best memories lend their words to that
            /// feedback (1 to 50).
            feedback_memories: usize = 5, Rule::Int(1, 50);
        }
        tables {
            /// BM25 and vector weights of the fusion per intent.
            intents: IntentWeights = IntentWeights::default();
        }
    }
}

config_table! {
    /// The weights of the BM25 and vector rankings in weighted RRF, `[search.intents.<intent>]`.
    /// The defaults here are `general`'s; [`IntentWeights`] holds each intent's.
    #[derive(Debug, Clone, Copy, PartialEq, Serialize)]
    pub struct Weights {
        keys {
            /// Weight of the keyword (BM25) ranking.
            bm25: f64 = 0.4, Rule::Num(Range::Unit);
            /// Weight of the vector (embedding) ranking.
            vector: f64 = 0.6, Rule::Num(Range::Unit);
        }
    }
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

    pub(crate) fn get_mut(&mut self, intent: Intent) -> &mut Weights {
        match intent {
            Intent::General => &mut self.general,
            Intent::Recall => &mut self.recall,
            Intent::Exact => &mut self.exact,
            Intent::Explore => &mut self.explore,
        }
    }
}

config_table! {
    /// Usage-state settings, `[lifecycle]`.
    #[derive(Debug, Clone, PartialEq, Serialize)]
    pub struct LifecycleConfig {
        keys {
            /// How ages are counted: "activity" (days the vault was used) or "calendar" (wall-clock days).
            clock: ClockKind = ClockKind::Activity, Rule::Choice(ClockKind::NAMES);
            /// Temperature of a new or summarized memory (0 to 1).
            temperature_start: f64 = 0.5, Rule::Num(Range::Unit);
            /// Added to the temperature by each read and each search hit (0 to 1).
            temperature_warm: f64 = 0.15, Rule::Num(Range::Unit);
            /// Per-hour cooling: temperature * exp(-cooling_rate * hours) (0 or more).
            cooling_rate: f64 = 0.05, Rule::Num(Range::NonNegative);
            /// Memories below this temperature are cold (0 to 1).
            cold_threshold: f64 = 0.10, Rule::Num(Range::Unit);
            /// Memories that cool below this temperature are announced to MCP clients (0 to 1).
            notify_threshold: f64 = 0.10, Rule::Num(Range::Unit);
            /// Minutes between the MCP server's checks for cold memories (at least 1).
            cold_check_minutes: u64 = 5, Rule::Int(1, i64::MAX);
            /// Minutes between the runs of `maintain` inside `memlane watch` and the MCP server; 0 means never.
            maintain_minutes: u64 = 60, Rule::Int(0, i64::MAX);
            /// Hours after which a still-cold memory is announced again; 0 means never.
            renotify_hours: u64 = 0, Rule::Int(0, i64::MAX);
            /// `add` refuses content at least this similar to an existing memory, unless --force (0 to 1).
            dedup_threshold: f64 = 0.95, Rule::Num(Range::Unit);
            /// MCP `remember` updates a memory at least this similar in place (0 to 1).
            remember_update_threshold: f64 = 0.88, Rule::Num(Range::Unit);
            /// Default similarity threshold of `memlane suggest-merges` (0 to 1).
            merge_threshold: f64 = 0.85, Rule::Num(Range::Unit);
        }
    }
}

config_table! {
    /// MCP server settings, `[mcp]`.
    #[derive(Debug, Clone, PartialEq, Serialize)]
    pub struct McpConfig {
        keys {
            /// Tools the MCP server offers: "core" (a short list) or "full" (every tool).
            tools: McpTools = McpTools::Core, Rule::Choice(McpTools::NAMES);
        }
    }
}

config_table! {
    /// How commands use a live watcher, `[watch]`.
    #[derive(Debug, Clone, PartialEq, Serialize)]
    pub struct WatchConfig {
        keys {
            /// Milliseconds a command waits for a live watcher (`memlane watch`, `memlane mcp`) to vouch for the indices before it stats every memory file itself; 0 never asks (0 to 5000).
            ask_wait_ms: u64 = crate::fresh::DEFAULT_WAIT.as_millis() as u64, Rule::Int(0, 5000);
        }
    }
}

config_table! {
    /// Agent lifecycle hooks (`memlane hook session-start`, `memlane hook stop`), `[hooks]`.
    #[derive(Debug, Clone, PartialEq, Serialize)]
    pub struct HooksConfig {
        keys {
            /// Estimated tokens of the digest the session-start hook prints (50 to 100000).
            session_start_budget: usize = 400, Rule::Int(50, 100_000);
            /// The stop hook reminds the agent, once per session, to record what it learned; false turns it off.
            stop_reminder: bool = true, Rule::Bool;
        }
    }
}

config_table! {
    /// Redaction settings, `[privacy]`.
    // The key's doc is also the config.toml comment, which names the `<private>` tag as written.
    #[allow(rustdoc::invalid_html_tags)]
    #[derive(Debug, Clone, PartialEq, Serialize)]
    pub struct PrivacyConfig {
        keys {
            /// Replace credential-shaped text (API keys, tokens, passwords) after <private> redaction.
            scrub_secrets: bool = true, Rule::Bool;
        }
    }
}

config_table! {
    /// How a memory type ranks, `[types.<name>]`. The decay factor
    /// is `1 / (1 + age / half_life_days)`; the recency boost `recency_max_boost *
    /// recency_rate^age`. The defaults are those of `journal`, which a new type starts from.
    #[derive(Debug, Clone, Copy, PartialEq, Serialize)]
    pub struct TypeProfile {
        keys {
            /// Age in days at which the type-profile factor has fallen to one half.
            half_life_days: f64 = 30.0, Rule::Num(Range::PositiveDays);
            /// Score multiplier for this type.
            weight: f64 = 1.0, Rule::Num(Range::NonNegative);
            /// Memories younger than this many days get a recency boost; 0 turns the boost off.
            recency_window_days: f64 = 14.0, Rule::Num(Range::RecencyDays);
            /// Largest recency boost, added to the score of a brand-new memory (0 to 1).
            recency_max_boost: f64 = 0.20, Rule::Num(Range::Unit);
            /// The boost is recency_max_boost * recency_rate ^ age_in_days (greater than 0, at most 1).
            recency_rate: f64 = 0.95, Rule::Num(Range::PositiveUnit);
        }
    }
}

impl TypeProfile {
    pub(crate) const fn new(
        half_life_days: f64,
        weight: f64,
        recency_window_days: f64,
        recency_max_boost: f64,
        recency_rate: f64,
    ) -> Self {
        Self { half_life_days, weight, recency_window_days, recency_max_boost, recency_rate }
    }
}

/// The type whose numbers a new, user-defined type starts from.
pub(crate) const NEW_TYPE_BASE: &str = "journal";

/// The built-in type profiles.
pub(crate) const BUILTIN_TYPES: &[(&str, TypeProfile)] = &[
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

/// A table of plain keys directly under the top level, with the comment written above its
/// header in the default `config.toml`.
pub(crate) struct Section {
    pub name: &'static str,
    pub intro: &'static [&'static str],
    pub get: fn(&Config) -> &dyn Table,
    pub get_mut: fn(&mut Config) -> &mut dyn Table,
}

/// The sections of plain keys, in the order they are written. `[search]` also holds the
/// `[search.intents.<intent>]` tables and `[types.<name>]` follow them; both are walked apart.
pub(crate) const SECTIONS: &[Section] = &[
    Section { name: "embedding", intro: &[], get: |c| &c.embedding, get_mut: |c| &mut c.embedding },
    Section {
        name: "search",
        intro: &["Search ranking; `memlane search --explain` shows what each stage did."],
        get: |c| &c.search,
        get_mut: |c| &mut c.search,
    },
    Section {
        name: "lifecycle",
        intro: &["Usage state: temperature, cold memories, near-duplicates."],
        get: |c| &c.lifecycle,
        get_mut: |c| &mut c.lifecycle,
    },
    Section {
        name: "watch",
        intro: &["What a command asks of a live watcher before it checks the files itself."],
        get: |c| &c.watch,
        get_mut: |c| &mut c.watch,
    },
    Section { name: "mcp", intro: &[], get: |c| &c.mcp, get_mut: |c| &mut c.mcp },
    Section {
        name: "hooks",
        intro: &["What `memlane hook` does when an agent's session starts and stops."],
        get: |c| &c.hooks,
        get_mut: |c| &mut c.hooks,
    },
    Section { name: "privacy", intro: &[], get: |c| &c.privacy, get_mut: |c| &mut c.privacy },
];

/// The sub-table of `[search]` holding one `[search.intents.<intent>]` table per intent.
pub(crate) const INTENTS_KEY: &str = "intents";

/// The comment above the first `[search.intents.<intent>]` table of the default `config.toml`.
pub(crate) const INTENTS_INTRO: &[&str] = &[
    "Weights of BM25 and vector ranks in the fusion for each --intent (each 0 to 1).",
    "Only these four intents exist; a table may set either weight and keep the other.",
];

/// The top-level table of memory types.
pub(crate) const TYPES_KEY: &str = "types";

/// The type whose `[types.<name>]` table the default `config.toml` shows as an example.
pub(crate) const EXAMPLE_TYPE: &str = "bug_fix";

/// The section named `name`.
pub(crate) fn section(name: &str) -> Option<&'static Section> {
    SECTIONS.iter().find(|s| s.name == name)
}

/// The built-in defaults, built once; the schema of a section is read from them.
pub(crate) fn defaults() -> &'static Config {
    static DEFAULTS: std::sync::LazyLock<Config> = std::sync::LazyLock::new(Config::default);
    &DEFAULTS
}

config_enum! {
    /// Where vaults are found.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "lowercase")]
    pub enum StorageStrategy("storage strategy") {
        /// Walk up from the current directory to the first `.memories/`.
        Project = "project",
        /// One per-user vault in the platform data directory.
        User = "user",
    }
}

config_enum! {
    /// `[search] profile`: preset stage parameters.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum SearchProfile("search profile", default = Balanced) {
        /// Every stage (the default).
        Balanced = "balanced",
        /// Memory Lane's ranking.
        Ragdocs = "ragdocs",
        /// Mnestra's ranking.
        Mnestra = "mnestra",
        /// remindb's ranking.
        Remindb = "remindb",
        /// MIRA's ranking.
        Mira = "mira",
    }
}

config_enum! {
    /// A search intent (`--intent`), which selects the fusion weights.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Intent("intent", default = General) {
        /// No particular intent (the default).
        General = "general",
        /// Remembering something seen before: leans on keywords.
        Recall = "recall",
        /// An exact identifier or phrase: mostly keywords.
        Exact = "exact",
        /// Browsing a topic: mostly vectors.
        Explore = "explore",
    }
}

config_enum! {
    /// `[lifecycle] clock`: how age-based formulas count days.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum ClockKind("clock", default = Activity) {
        /// Days on which the vault was used (the default).
        Activity = "activity",
        /// Wall-clock days.
        Calendar = "calendar",
    }
}

config_enum! {
    /// `[mcp] tools`: how many tools the MCP server offers.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum McpTools("MCP tool set", default = Core) {
        /// A short list (the default): agents pay for every tool description.
        Core = "core",
        /// Every tool.
        Full = "full",
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
}
