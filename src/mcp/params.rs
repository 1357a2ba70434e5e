//! The tools' parameters: what an agent sends, with their JSON schemas.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{lenient, schema};
use crate::config::{Intent, describe_values};
use crate::model::frontmatter::STATUSES;

/// `{name}`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct NameParams {
    /// The memory: its name (e.g. `auth-decision` or `notes/auth-decision`), `name.md`, or its id
    #[serde(alias = "filename")]
    pub name: String,
}

/// `read_memories`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct NamesParams {
    /// The memories to read (names, `name.md` or ids; one string is one name), at most 100
    #[serde(alias = "filenames", deserialize_with = "lenient::list")]
    pub names: Vec<String>,
}

/// `create_memory`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct CreateParams {
    /// The new memory's name: lowercase words joined by `-`, optionally in folders (`auth/jwt-plan`)
    #[serde(alias = "filename")]
    pub name: String,
    /// The Markdown body
    pub content: String,
    /// The memory type (e.g. fact, decision, plan, journal, preference); default from the config
    /// (`default_type`, journal)
    #[serde(default, rename = "type", alias = "memory_type")]
    #[schemars(with = "String")]
    pub memory_type: Option<String>,
    /// Tags for filtering (a list, or one tag as a string); default none
    #[serde(default, deserialize_with = "lenient::opt_list")]
    #[schemars(with = "Vec<String>")]
    pub tags: Option<Vec<String>>,
    /// Create it even when an existing memory is nearly the same (normally refused); default false
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "bool", extend("default" = false))]
    pub force: Option<bool>,
}

/// `update_memory` / `append_memory`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct ContentParams {
    /// The memory: its name, `name.md`, or its id
    #[serde(alias = "filename")]
    pub name: String,
    /// The Markdown text (update: the new body; append: text added at the end)
    pub content: String,
}

/// `search_memories`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct SearchParams {
    /// What to look for, in natural language or keywords
    pub query: String,
    /// Maximum results (1–1000; default 5)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "usize", extend("default" = 5, "minimum" = 1, "maximum" = 1000))]
    pub limit: Option<usize>,
    /// Only memories of these types (any of them; a list, or one type as a string)
    #[serde(default, deserialize_with = "lenient::opt_list")]
    #[schemars(with = "Vec<String>")]
    pub types: Option<Vec<String>>,
    /// Only memories with any of these tags (a list, or one tag as a string)
    #[serde(default, deserialize_with = "lenient::opt_list")]
    #[schemars(with = "Vec<String>")]
    pub tags: Option<Vec<String>>,
    /// Only memories created at or after this time: an ISO-8601 date or timestamp
    /// (`2026-01-10`, `2026-01-10T10:00:00Z`)
    #[serde(default)]
    #[schemars(with = "String")]
    pub after: Option<String>,
    /// Only memories created before this time: an ISO-8601 date or timestamp
    #[serde(default)]
    #[schemars(with = "String")]
    pub before: Option<String>,
    /// Only memories created within this long before now (`30m`, `12h`, `7d`, `2w`); overrides
    /// after and before
    #[serde(default)]
    #[schemars(with = "String")]
    pub since: Option<String>,
    /// What kind of search: an [`Intent`], whose values and their meanings the schema lists
    #[serde(default)]
    #[schemars(
        with = "String",
        description = describe_values::<Intent>("What kind of search"),
        extend("default" = Intent::General.as_str(), "enum" = Intent::NAMES)
    )]
    pub intent: Option<String>,
    /// Only memories with this status: active or archived (default: active, and archived too
    /// with include_archived)
    #[serde(default)]
    #[schemars(with = "String", extend("enum" = STATUSES))]
    pub status: Option<String>,
    /// Include archived memories; default false
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "bool", extend("default" = false))]
    pub include_archived: Option<bool>,
    /// Only memories of this type (ragdocs' name; joins `types`)
    #[serde(default)]
    #[schemars(with = "String")]
    pub filter_type: Option<String>,
    /// Unix seconds: only memories created after this time (ragdocs' form of `after`)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "i64")]
    pub after_timestamp: Option<i64>,
    /// Unix seconds: only memories created before this time (ragdocs' form of `before`)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "i64")]
    pub before_timestamp: Option<i64>,
    /// Only memories from the last N days (ragdocs' form of `since`; overrides the timestamps)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "i64", extend("minimum" = 0))]
    pub relative_days: Option<i64>,
}

/// `search_linked_memories`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct LinkedParams {
    /// Ranks the linked memories
    pub query: String,
    /// A project file path, e.g. `src/auth.py`
    pub target_document: String,
    /// Maximum results (1–1000; default 5)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "usize", extend("default" = 5, "minimum" = 1, "maximum" = 1000))]
    pub limit: Option<usize>,
}

/// `get_memory_relationships`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct RelationshipsParams {
    /// The memory: its name, `name.md`, or its id
    #[serde(alias = "filename")]
    pub name: String,
    /// Only this link type (e.g. supersedes, depends_on, contradicts, related_to); default all
    #[serde(default, rename = "type", alias = "relationship_type")]
    #[schemars(with = "String")]
    pub edge_type: Option<String>,
}

/// `remember`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct RememberParams {
    /// One self-contained note (a decision, fix, preference or fact)
    pub content: String,
    /// The memory type (e.g. decision, fact, preference, observation); default from the config
    /// (`default_type`, journal)
    #[serde(default, rename = "type", alias = "memory_type")]
    #[schemars(with = "String")]
    pub memory_type: Option<String>,
}

/// `link_memories`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct LinkParams {
    /// The memory the link starts from
    pub from: String,
    /// The memory it points to
    pub to: String,
    /// The link type (default related_to; e.g. supersedes, depends_on, contradicts)
    #[serde(default, rename = "type")]
    #[schemars(with = "String", extend("default" = "related_to"))]
    pub edge_type: Option<String>,
}

/// `get_memory_stats`
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct NoParams {}

/// `summarize_memory`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct SummarizeParams {
    /// The memory: its name, `name.md`, or its id
    #[serde(alias = "filename")]
    pub name: String,
    /// The shorter text that replaces the memory's body (keep every fact worth keeping)
    pub content: String,
    /// The temperature to restart from (0–1; default 0.5)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "f64", extend("default" = 0.5, "minimum" = 0, "maximum" = 1))]
    pub temperature: Option<f64>,
}

/// `merge_memories`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct MergeParams {
    /// The memories to merge (two or more names)
    #[serde(alias = "sources", deserialize_with = "lenient::list")]
    pub source_files: Vec<String>,
    /// The new memory's name (must not exist)
    #[serde(alias = "target")]
    pub target_file: String,
    /// The merged memory's body; when omitted, each source's body under a heading of its name.
    /// Frontmatter in it is ignored: type, tags and `consolidated_from` are generated
    #[serde(default, alias = "content")]
    #[schemars(with = "String")]
    pub summary_content: Option<String>,
    /// Archive the sources (`status: archived`) instead of moving them to the trash; default false
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "bool", extend("default" = false))]
    pub archive: Option<bool>,
}

/// `suggest_memory_merges`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct SuggestMergesParams {
    /// Minimum cosine similarity between every two members (0–1; default from the config,
    /// `[lifecycle] merge_threshold`, 0.85)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "f64", extend("default" = 0.85, "minimum" = 0, "maximum" = 1))]
    pub threshold: Option<f64>,
    /// Maximum clusters (default 5)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "usize", extend("default" = 5, "minimum" = 1))]
    pub limit: Option<usize>,
    /// Only memories of this type; default all
    #[serde(default)]
    #[schemars(with = "String")]
    pub filter_type: Option<String>,
}

/// `memory_tree`
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct TreeParams {
    /// List each memory's heading sections too (default true)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "bool", extend("default" = true))]
    pub sections: Option<bool>,
}

/// `get_related_memories`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct RelatedParams {
    /// The memory: its name, `name.md`, or its id
    #[serde(alias = "filename")]
    pub name: String,
    /// Exactly this many links away (1–32; default 1; a shared file or entity in between is a hop)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "usize", extend("default" = 1, "minimum" = 1, "maximum" = 32))]
    pub depth: Option<usize>,
    /// Maximum results (1–1000; default 10)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "usize", extend("default" = 10, "minimum" = 1, "maximum" = 1000))]
    pub limit: Option<usize>,
}

/// One piece of `split_memory`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct PieceParams {
    /// The piece's name (default `<memory>-<n>`)
    #[serde(default)]
    #[schemars(with = "String")]
    pub name: Option<String>,
    /// The piece's Markdown body
    pub content: String,
}

/// `split_memory`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct SplitParams {
    /// The memory to split
    #[serde(alias = "filename")]
    pub name: String,
    /// The pieces; when omitted the memory is cut at its top-level headings
    #[serde(default)]
    #[schemars(with = "Vec<PieceParams>")]
    pub pieces: Option<Vec<PieceParams>>,
    /// Move the original to the trash (its links then point to the first piece); default false
    /// (the original is kept)
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "bool", extend("default" = false))]
    pub replace: Option<bool>,
}

/// `restore_memory`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct RestoreParams {
    /// A deleted memory's name or trash entry (see list_trash), or an existing memory's name
    /// together with `version`
    #[serde(alias = "filename")]
    pub name: String,
    /// Restore this history version of an existing memory (see memory_history); omit it to
    /// restore a deleted memory from the trash
    #[serde(default, deserialize_with = "lenient::opt")]
    #[schemars(with = "usize", extend("minimum" = 1))]
    pub version: Option<usize>,
    /// Restore a deleted memory under this name instead of its old one
    #[serde(default)]
    #[schemars(with = "String")]
    pub as_name: Option<String>,
}

/// `mark_used`
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = schema::no_null_defaults)]
pub struct MarkUsedParams {
    /// The memories you used (names, `name.md` or ids; one string is one name), at most 100
    #[serde(alias = "memories", deserialize_with = "lenient::list")]
    pub names: Vec<String>,
    /// The memory they were context for (e.g. the decision or session summary you just wrote):
    /// each used memory gets a `was_context_for` link to it. Default: none, only counted as used
    #[serde(default)]
    #[schemars(with = "String")]
    pub context_for: Option<String>,
}
