//! Whether a JSON value is what a JSON Schema documents: every key it has is a documented
//! property, every required key is there, every value has the documented type (and constant or
//! enumerated value). Enough of JSON Schema for the schemas schemars derives from the wire types,
//! no more.
//!
//! Self-contained (serde_json only): the debug build checks every `--json` output with it before
//! printing (`crate::cli::json_output::check_printed`), and `tests/it/json_output.rs` includes
//! this file to check the real output against `memlane generate schemas`.

use serde_json::Value;

/// The schema every value passes (what an unresolved `$ref` is taken for).
static ANYTHING: Value = Value::Bool(true);

/// What is wrong with `value` against `schema`, each problem with where it is (`at`, then
/// `.key` and `[index]`); empty when nothing is.
pub fn mismatches(schema: &Value, value: &Value, at: &str) -> Vec<String> {
    check(schema, schema, value, at)
}

/// `schema` with a `$ref` followed (against `root`).
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => r
            .trim_start_matches("#/")
            .split('/')
            .try_fold(root, |at, part| at.get(part))
            .unwrap_or(&ANYTHING),
        None => schema,
    }
}

/// Whether `value` has the JSON type `t`.
fn has_type(value: &Value, t: &str) -> bool {
    match t {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    }
}

/// What is wrong with `value` against `schema`: a key the schema does not document, a
/// required key missing, a value of another type or outside an enumeration.
fn check(root: &Value, schema: &Value, value: &Value, at: &str) -> Vec<String> {
    let schema = resolve(root, schema);
    if schema == &Value::Bool(true) {
        return vec![];
    }
    if let Some(vs) = schema.get("anyOf").or_else(|| schema.get("oneOf")).and_then(Value::as_array)
    {
        let tries: Vec<Vec<String>> = vs.iter().map(|v| check(root, v, value, at)).collect();
        if tries.iter().any(Vec::is_empty) {
            return vec![];
        }
        return tries.into_iter().min_by_key(Vec::len).unwrap_or_default();
    }
    if let Some(c) = schema.get("const")
        && c != value
    {
        return vec![format!("{at}: {value} is not {c}")];
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array)
        && !values.contains(value)
    {
        return vec![format!("{at}: {value} is not one of {values:?}")];
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    if !types.is_empty() && !types.iter().any(|t| has_type(value, t)) {
        return vec![format!("{at}: {value} is not of type {}", types.join(" or "))];
    }
    let mut problems = Vec::new();
    match value {
        Value::Object(map) => {
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (key, v) in map {
                    match props.get(key) {
                        Some(p) => problems.extend(check(root, p, v, &format!("{at}.{key}"))),
                        None => problems.push(format!("{at}.{key} is printed but not documented")),
                    }
                }
                for key in schema.get("required").and_then(Value::as_array).into_iter().flatten() {
                    let key = key.as_str().unwrap_or_default();
                    if !map.contains_key(key) {
                        problems.push(format!("{at}.{key} is required but missing"));
                    }
                }
            } else if let Some(inner @ Value::Object(_)) = schema.get("additionalProperties") {
                for (key, v) in map {
                    problems.extend(check(root, inner, v, &format!("{at}.{key}")));
                }
            }
        }
        Value::Array(items) => {
            let prefix = schema.get("prefixItems").and_then(Value::as_array);
            for (i, item) in items.iter().enumerate() {
                let inner = prefix.and_then(|p| p.get(i)).or_else(|| schema.get("items"));
                if let Some(inner) = inner {
                    problems.extend(check(root, inner, item, &format!("{at}[{i}]")));
                }
            }
        }
        _ => {}
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The checker itself: an undocumented key, a missing required key and a wrong type are caught.
    #[test]
    fn the_checker_finds_undocumented_missing_and_mistyped_keys() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"name": {"type": "string"}, "n": {"type": "integer"}},
            "required": ["name"]
        });
        let ok = serde_json::json!({"name": "a", "n": 1});
        assert!(mismatches(&schema, &ok, "x").is_empty());
        let bad = serde_json::json!({"n": 1.5, "extra": true});
        let problems = mismatches(&schema, &bad, "x").join("\n");
        for expected in [
            "x.extra is printed but not documented",
            "x.name is required but missing",
            "x.n: 1.5 is not of type integer",
        ] {
            assert!(problems.contains(expected), "{problems}");
        }
    }
}
