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

/// An object of string keys to `values`.
fn map_of(values: Value) -> Value {
    json!({"type": "object", "additionalProperties": values})
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

fn memory() -> Value {
    object(
        &[
            ("memory_id", string()),
            ("name", string()),
            ("id", string()),
            ("type", string()),
            ("status", string()),
            ("tags", strings()),
            ("pinned", boolean()),
            ("created_at", string()),
            ("updated_at", string()),
            ("file_path", string()),
            ("content", string()),
        ],
        &[],
    )
}

/// `read_memory`
pub fn read() -> Arc<JsonObject> {
    root(memory())
}

/// `read_memories`: one item per name asked for, in order: the memory, or `{name, error}`.
pub fn read_many() -> Arc<JsonObject> {
    let missing = object(&[("name", string()), ("error", string())], &[]);
    root(object(
        &[
            ("memories", array(json!({"anyOf": [memory(), missing]}))),
            ("found", integer()),
            ("missing", integer()),
        ],
        &[],
    ))
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

/// `search_linked_memories`
pub fn linked() -> Arc<JsonObject> {
    let hit = object(
        &[
            ("memory_id", string()),
            ("name", string()),
            ("score", number()),
            ("edge_type", string()),
            ("context", string()),
            ("content", string()),
            ("file_path", string()),
        ],
        &[],
    );
    root(object(&[("target_document", string()), ("results", array(hit))], &[]))
}

/// `get_memory_relationships`
pub fn relationships() -> Arc<JsonObject> {
    let link = object(
        &[
            ("memory_id", string()),
            ("edge_type", string()),
            ("context", string()),
            ("confidence", number()),
            ("origin", string()),
        ],
        &[],
    );
    root(object(
        &[
            ("memory_id", string()),
            ("name", string()),
            ("version_chain", strings()),
            ("outgoing", array(link.clone())),
            ("incoming", array(link)),
        ],
        &[],
    ))
}

/// `get_memory_stats`
pub fn stats() -> Arc<JsonObject> {
    let graph = object(
        &[
            ("memories", integer()),
            ("ghosts", integer()),
            ("entities", integer()),
            ("edges", integer()),
            ("missing", integer()),
        ],
        &[],
    );
    root(object(
        &[
            ("count", integer()),
            ("total_size", string()),
            ("total_bytes", integer()),
            ("tags", map_of(integer())),
            ("types", map_of(integer())),
            ("memory_path", string()),
            ("by_status", map_of(integer())),
            ("pinned", integer()),
            ("embedder", string()),
            ("graph", graph),
        ],
        &[],
    ))
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

/// `suggest_memory_merges`
pub fn suggest_merges() -> Arc<JsonObject> {
    let member = object(
        &[
            ("id", string()),
            ("name", string()),
            ("type", string()),
            ("file_path", string()),
            ("preview", string()),
        ],
        &[],
    );
    let cluster = object(
        &[
            ("cluster_id", integer()),
            ("score", number()),
            ("reason", string()),
            ("memory_count", integer()),
            ("memories", array(member)),
        ],
        &[],
    );
    root(object(&[("threshold", number()), ("clusters", array(cluster))], &[]))
}

/// `get_cold_memories`
pub fn cold() -> Arc<JsonObject> {
    let item = object(
        &[
            ("id", string()),
            ("name", string()),
            ("file", string()),
            ("temperature", number()),
            ("tokens", integer()),
        ],
        &[],
    );
    root(object(&[("cold_threshold", number()), ("memories", array(item))], &[]))
}

/// `memory_tree`
pub fn tree() -> Arc<JsonObject> {
    let section = object(&[("header_path", string()), ("tokens", integer())], &[]);
    let row = object(
        &[
            ("name", string()),
            ("id", string()),
            ("type", string()),
            ("temperature", number()),
            ("pinned", boolean()),
            ("tokens", integer()),
            ("sections", array(section)),
        ],
        &[],
    );
    root(object(&[("vault", string()), ("memories", array(row))], &[]))
}

/// `memory_history`
pub fn history() -> Arc<JsonObject> {
    let version = object(
        &[
            ("version", integer()),
            ("replaced_at", string()),
            ("action", string()),
            ("size", integer()),
            ("path", string()),
        ],
        &[],
    );
    root(object(&[("name", string()), ("id", string()), ("versions", array(version))], &[]))
}

/// `get_related_memories`: `path` is one `[node, edge type]` pair per hop.
pub fn related() -> Arc<JsonObject> {
    let hop =
        json!({"type": "array", "prefixItems": [string(), string()], "minItems": 2, "maxItems": 2});
    let item = object(&[("key", string()), ("score", number()), ("path", array(hop))], &[]);
    root(object(
        &[
            ("memory_id", string()),
            ("name", string()),
            ("depth", integer()),
            ("related", array(item)),
        ],
        &[],
    ))
}

/// `split_memory`
pub fn split() -> Arc<JsonObject> {
    root(object(&[("split", string()), ("outcomes", array(outcome()))], &[]))
}

/// `list_trash`
pub fn trash() -> Arc<JsonObject> {
    let entry = object(
        &[
            ("entry", string()),
            ("name", string()),
            ("deleted_at", string()),
            ("id", nullable(&string())),
            ("size", integer()),
            ("path", string()),
        ],
        &[],
    );
    root(object(&[("entries", array(entry))], &[]))
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
