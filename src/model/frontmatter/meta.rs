//! The typed, lenient view of a frontmatter mapping ([`Meta`]) and value constructors.

use jiff::Timestamp;
use serde_yaml_ng::{Mapping, Value};

use super::STATUSES;
use crate::model::time::{format_timestamp, parse_timestamp};

/// The typed view of a memory's frontmatter, read leniently.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Meta {
    /// `id`, when present and well-formed.
    pub id: Option<String>,
    /// `type`, as written.
    pub memory_type: Option<String>,
    /// `status`, as written.
    pub status: Option<String>,
    /// `tags`, from a list or a comma string.
    pub tags: Vec<String>,
    /// `created_at`.
    pub created_at: Option<Timestamp>,
    /// `updated_at`.
    pub updated_at: Option<Timestamp>,
    /// `pinned`.
    pub pinned: bool,
    /// `happens_at`.
    pub happens_at: Option<Timestamp>,
    /// `expires_at`.
    pub expires_at: Option<Timestamp>,
    /// `superseded_by`.
    pub superseded_by: Option<String>,
    /// `had_private_content`.
    pub had_private_content: bool,
}

fn scalar_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Reads `tags` as written by hand: a list of scalars or a comma-separated string.
pub fn read_tags(v: &Value) -> Option<Vec<String>> {
    let raw: Vec<String> = match v {
        Value::Sequence(items) => items.iter().map(scalar_string).collect::<Option<Vec<_>>>()?,
        Value::String(s) => s.split(',').map(str::to_owned).collect(),
        Value::Null => Vec::new(),
        other => vec![scalar_string(other)?],
    };
    // A set beside the list: a hand-written file may hold thousands of tags.
    let mut seen = std::collections::HashSet::new();
    let mut tags: Vec<String> = Vec::new();
    for t in raw {
        let t = t.trim().to_owned();
        if !t.is_empty() && seen.insert(t.clone()) {
            tags.push(t);
        }
    }
    Some(tags)
}

impl Meta {
    /// Reads the known keys; a bad value becomes a warning and the key's default.
    pub fn from_mapping(map: &Mapping) -> (Meta, Vec<String>) {
        let mut meta = Meta::default();
        let mut warnings = Vec::new();
        let get = |k: &str| map.get(k).filter(|v| !v.is_null());
        let text = |k: &str, warnings: &mut Vec<String>| -> Option<String> {
            let v = get(k)?;
            let s = scalar_string(v);
            if s.is_none() {
                warnings.push(format!("`{k}` should be a single value; ignored"));
            }
            s
        };
        meta.id = text("id", &mut warnings);
        if let Some(id) = &meta.id
            && crate::model::name::MemoryId::parse(id).is_none()
        {
            // The value is not quoted: a warning is shown, and a hand-written value may be
            // anything (`id: <a token>`).
            warnings.push("`id` is not an 11-character base62 id; kept as written".to_owned());
        }
        meta.memory_type = text("type", &mut warnings);
        meta.status = text("status", &mut warnings);
        if let Some(st) = &meta.status
            && !STATUSES.contains(&st.as_str())
        {
            warnings.push("`status` is neither active nor archived; read as active".to_owned());
            meta.status = None;
        }
        meta.superseded_by = text("superseded_by", &mut warnings);
        if let Some(v) = get("tags") {
            match read_tags(v) {
                Some(t) => meta.tags = t,
                None => warnings
                    .push("`tags` should be a list or a comma-separated string; ignored".into()),
            }
        }
        for (key, slot) in [
            ("created_at", &mut meta.created_at),
            ("updated_at", &mut meta.updated_at),
            ("happens_at", &mut meta.happens_at),
            ("expires_at", &mut meta.expires_at),
        ] {
            if let Some(v) = get(key) {
                match scalar_string(v).as_deref().and_then(parse_timestamp) {
                    Some(ts) => *slot = Some(ts),
                    None => warnings.push(format!(
                        "`{key}` is not an ISO-8601 date or timestamp (like 2026-01-10T10:00:00Z); ignored"
                    )),
                }
            }
        }
        for (key, slot) in
            [("pinned", &mut meta.pinned), ("had_private_content", &mut meta.had_private_content)]
        {
            match get(key) {
                None => {}
                Some(Value::Bool(b)) => *slot = *b,
                Some(_) => warnings.push(format!("`{key}` should be true or false; read as false")),
            }
        }
        (meta, warnings)
    }
}

/// A string value.
pub fn str_value(s: &str) -> Value {
    Value::String(s.to_owned())
}

/// A timestamp value as memlane writes it.
pub fn ts_value(ts: Timestamp) -> Value {
    Value::String(format_timestamp(ts))
}

/// A list of strings.
pub fn list_value(items: &[String]) -> Value {
    Value::Sequence(items.iter().map(|s| Value::String(s.clone())).collect())
}
