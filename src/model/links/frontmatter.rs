//! Explicit `links:` from frontmatter ([`frontmatter_links`]).

use serde_yaml_ng::Value;

use super::edge::{EdgeType, FRONTMATTER_CONFIDENCE, Link, LinkOrigin, LinkTarget};
use super::target::{memory_name, strip_memory_prefix};

pub(super) fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A frontmatter target: `memory:name` or a bare name, both read as a memory.
pub(super) fn frontmatter_link(target: &str, edge_type: EdgeType, context: String) -> Option<Link> {
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
/// names (`memory:` and `.md` stripped), as the file format names them; a caller that holds the vault can turn a
/// target that names no memory into a ghost with [`resolve_target`](super::resolve_target)`(&link.raw, …)`. Links have
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

pub(super) fn frontmatter_item(item: &Value) -> Result<Link, String> {
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
