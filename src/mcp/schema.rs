//! The `outputSchema` of every tool: JSON Schema (2020-12) for its structured result, derived
//! from the wire type the tool returns ([`crate::ops::wire`]), so a result and its schema cannot
//! drift apart. Keys a result always has are `required`; `additionalProperties` is not
//! restricted, so adding a key never breaks a client. The MCP tests validate every tool's real
//! result against its schema.

use std::sync::Arc;

use rmcp::model::JsonObject;
use serde_json::Value;

/// The schema of what `T` serialises to.
pub fn of<T: schemars::JsonSchema + std::any::Any>() -> Arc<JsonObject> {
    rmcp::handler::server::tool::schema_for_output::<T>()
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
