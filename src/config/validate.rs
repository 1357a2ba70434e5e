//! Checking one layer against the declared keys on its own, so that every error names the
//! file, variable or flag that caused it, the key as a dotted path, the bad value and what is
//! allowed.

use toml::{Table as TomlTable, Value};

use super::load::{ConfigError, ConfigSource};
use super::render::join_key;
use super::schema::{Key, Rule};
use super::settings::{
    Config, INTENTS_KEY, Intent, TYPES_KEY, TypeProfile, Weights, defaults, section,
};

/// Checks one layer against the schema on its own, so that errors name the layer.
pub(super) fn validate_layer(table: &TomlTable, origin: &ConfigSource) -> Result<(), ConfigError> {
    validate_table(table, "", Config::KEYS, Config::TABLES, origin)?;
    for (name, value) in table {
        if name == TYPES_KEY {
            validate_types(value, origin)?;
        } else if let Some(s) = section(name) {
            let schema = (s.get)(defaults());
            let allowed = table_allowed(schema.keys(), schema.tables());
            let table = expect_table(value, origin, name, &allowed)?;
            validate_table(table, name, schema.keys(), schema.tables(), origin)?;
            if let Some(intents) = table.get(INTENTS_KEY) {
                validate_intents(intents, &join_key(name, INTENTS_KEY), origin)?;
            }
        }
    }
    Ok(())
}

/// Checks that `table` (at dotted `path`) holds only `keys` and `tables`, and every key's value.
fn validate_table(
    table: &TomlTable,
    path: &str,
    keys: &[Key],
    tables: &[&str],
    origin: &ConfigSource,
) -> Result<(), ConfigError> {
    check_keys(table, path, &names(keys, tables), origin)?;
    for (name, value) in table {
        if let Some(key) = keys.iter().find(|k| k.name == name) {
            validate_leaf(key.rule, value, &join_key(path, name), origin)?;
        }
    }
    Ok(())
}

fn names<'a>(keys: &'a [Key], tables: &[&'a str]) -> Vec<&'a str> {
    keys.iter().map(|k| k.name).chain(tables.iter().copied()).collect()
}

/// The "allowed" text of a value that should have been a table with these keys.
fn table_allowed(keys: &[Key], tables: &[&str]) -> String {
    format!("a table with keys {}", names(keys, tables).join(", "))
}

/// Checks `[types]`: a table of `[types.<name>]` tables with valid names.
fn validate_types(value: &Value, origin: &ConfigSource) -> Result<(), ConfigError> {
    let types = expect_table(value, origin, TYPES_KEY, "a table of [types.<name>] tables")?;
    for (name, profile) in types {
        let path = join_key(TYPES_KEY, name);
        if !is_type_name(name) {
            return Err(ConfigError::InvalidTypeName {
                origin: origin.clone(),
                key: path,
                name: name.clone(),
            });
        }
        let allowed = table_allowed(TypeProfile::KEYS, &[]);
        let profile = expect_table(profile, origin, &path, &allowed)?;
        validate_table(profile, &path, TypeProfile::KEYS, &[], origin)?;
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
    for (intent, weights) in intents {
        let path = join_key(path, intent);
        let allowed = table_allowed(Weights::KEYS, &[]);
        let weights = expect_table(weights, origin, &path, &allowed)?;
        validate_table(weights, &path, Weights::KEYS, &[], origin)?;
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

fn check_keys(
    table: &TomlTable,
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
) -> Result<&'v TomlTable, ConfigError> {
    value.as_table().ok_or_else(|| invalid(origin, key, value, allowed))
}

pub(super) fn invalid(
    origin: &ConfigSource,
    key: &str,
    value: &Value,
    allowed: &str,
) -> ConfigError {
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

fn is_type_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}
