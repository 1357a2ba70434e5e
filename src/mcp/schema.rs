//! The `outputSchema` of every tool: JSON Schema (2020-12) for its structured result.
//!
//! Written by hand, because the results are built from library types of several modules. Each
//! schema lists the keys a result always has as `required` and leaves room for more
//! (`additionalProperties` is not restricted), so adding a key never breaks a client. The MCP
//! tests validate every tool's real result against its schema.

use std::sync::Arc;

use rmcp::model::JsonObject;
use serde_json::{Value, json};

fn string() -> Value {
    json!({"type": "string"})
}

fn integer() -> Value {
    json!({"type": "integer", "minimum": 0})
}

fn number() -> Value {
    json!({"type": "number"})
}

fn boolean() -> Value {
    json!({"type": "boolean"})
}

fn array(items: Value) -> Value {
    json!({"type": "array", "items": items})
}

fn strings() -> Value {
    array(string())
}

/// `T` or `null`.
fn nullable(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(t) = v.get("type").cloned() {
        v["type"] = json!([t, "null"]);
    }
    v
}

/// An object with these `required` keys and these optional ones.
fn object(required: &[(&str, Value)], optional: &[(&str, Value)]) -> Value {
    let mut props = serde_json::Map::new();
    for (k, v) in required.iter().chain(optional) {
        props.insert((*k).to_owned(), v.clone());
    }
    let req: Vec<&str> = required.iter().map(|(k, _)| *k).collect();
    json!({"type": "object", "properties": props, "required": req})
}

/// The schema of what `T` serialises to: derived from the wire type itself, so the shape and
/// its schema cannot drift apart.
pub fn of<T: schemars::JsonSchema + std::any::Any>() -> Arc<JsonObject> {
    rmcp::handler::server::tool::schema_for_output::<T>()
}

fn root(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(o) => Arc::new(o),
        _ => unreachable!("output schemas are objects"),
    }
}

/// What a write did (`WriteOutcome`): `status` is created, updated, unchanged, skipped, deleted,
/// moved or restored.
fn outcome() -> Value {
    object(
        &[
            (
                "status",
                json!({"type": "string", "enum": ["created", "updated", "unchanged", "skipped", "deleted", "moved", "restored"]}),
            ),
            ("name", string()),
            ("id", string()),
            ("had_private_content", boolean()),
            ("private_blocks", integer()),
            ("secrets", array(object(&[("kind", string()), ("count", integer())], &[]))),
        ],
        &[
            ("path", string()),
            ("tags_dropped", integer()),
            ("history_version", integer()),
            ("trash_entry", string()),
            ("from", string()),
            ("reason", string()),
        ],
    )
}

/// Writes that return one `outcome`: create, update, append, delete, pin, unpin, link,
/// summarize, restore.
pub fn write() -> Arc<JsonObject> {
    root(outcome())
}

/// `remember`: a write outcome with `action` (created or updated) and, when it updated a
/// near-duplicate, the `similarity`.
pub fn remember() -> Arc<JsonObject> {
    let mut v = outcome();
    v["properties"]["action"] = json!({"type": "string", "enum": ["created", "updated"]});
    v["properties"]["similarity"] = number();
    v["required"].as_array_mut().into_iter().for_each(|r| r.push(json!("action")));
    root(v)
}

/// `search_memories`
pub fn search() -> Arc<JsonObject> {
    let hit = object(
        &[
            ("memory_id", string()),
            ("name", string()),
            ("score", number()),
            ("content", string()),
            ("type", string()),
            ("status", string()),
            ("tags", strings()),
            ("file_path", string()),
            ("header_path", string()),
        ],
        &[],
    );
    root(object(&[("results", array(hit))], &[("warning", string())]))
}

/// `merge_memories` (`MergeOutcome`)
pub fn merge() -> Arc<JsonObject> {
    root(object(
        &[
            ("target", outcome()),
            ("memory_type", string()),
            ("tags", strings()),
            ("sources", array(outcome())),
            ("relinked", array(outcome())),
        ],
        &[],
    ))
}

/// `split_memory`
pub fn split() -> Arc<JsonObject> {
    root(object(&[("split", string()), ("outcomes", array(outcome()))], &[]))
}

/// A parameters struct's schema without `"default": null` on its optional fields.
///
/// schemars writes the Rust default of an `Option` field (`null`) as its `default`, which a
/// field typed `string` or `integer` cannot hold: a client that fills in defaults would send
/// an invalid value. An optional parameter without a real default has none in its schema.
pub fn no_null_defaults(schema: &mut schemars::Schema) {
    let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    for prop in props.values_mut() {
        if let Some(p) = prop.as_object_mut()
            && p.get("default") == Some(&Value::Null)
        {
            p.remove("default");
        }
    }
}

/// `mark_used`
pub fn mark_used() -> Arc<JsonObject> {
    let used = object(&[("memory_id", string()), ("name", string()), ("id", string())], &[]);
    root(object(
        &[("used", array(used)), ("linked", array(outcome()))],
        &[("context_for", nullable(&string()))],
    ))
}
