//! Link types, origins, targets and the [`Link`] record, with each type's ranking weight.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

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

/// The type of a link.
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

pub(super) const NAMED: [(&str, EdgeType); 14] = [
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

pub(super) const SHARES_ENTITY: &str = "shares_entity";

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
pub(super) fn canonical_type_name(s: &str) -> String {
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

/// Where a link came from.
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
    /// A ghost node: a document outside the vault, by its [`normalize_target`](super::normalize_target)ed path.
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
