//! Loading the layers: reading files, `MEMLANE_*` variables and flags into TOML tables,
//! validating each on its own ([`super::validate`]), merging them leaf by leaf while recording
//! each leaf's source, and building the [`Config`].

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use toml::{Table as TomlTable, Value};

use super::render::{join_key, leaf_keys};
use super::schema::{Key, Rule, Table};
use super::settings::{
    Config, INTENTS_KEY, Intent, NEW_TYPE_BASE, SECTIONS, TYPES_KEY, TypeProfile, Weights, section,
};
use super::validate::{invalid, validate_layer};

/// Environment variables that start with `MEMLANE_` but are read elsewhere, not by the loader.
const RESERVED_ENV: &[&str] = &[
    "MEMLANE_VAULT",
    "MEMLANE_CONFIG",
    "MEMLANE_LOG",
    "MEMLANE_NOW",
    "MEMLANE_MODEL",
    "MEMLANE_HF_ENDPOINT",
];

/// The layer that set a configuration value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigSource {
    /// The built-in default.
    Default,
    /// The user config file at this path.
    UserFile(PathBuf),
    /// The vault config file (`.memories/config.toml`) at this path.
    VaultFile(PathBuf),
    /// The environment variable with this name.
    Env(String),
    /// The command-line flag with this name (including its dashes).
    Flag(String),
}

impl fmt::Display for ConfigSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Default => f.write_str("default"),
            Self::UserFile(path) => write!(f, "user config {}", path.display()),
            Self::VaultFile(path) => write!(f, "vault config {}", path.display()),
            Self::Env(var) => write!(f, "env {var}"),
            Self::Flag(flag) => write!(f, "flag {flag}"),
        }
    }
}

/// A problem with the configuration. Every variant names where the problem is.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A config file exists but could not be read.
    #[error("cannot read config file {} (check that it is a readable UTF-8 file)", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The IO error.
        #[source]
        source: std::io::Error,
    },
    /// The config file named explicitly (by `MEMLANE_CONFIG`) does not exist.
    #[error(
        "config file {} does not exist (named by MEMLANE_CONFIG); create it or point \
         MEMLANE_CONFIG at an existing file",
        .path.display()
    )]
    MissingFile {
        /// The missing file.
        path: PathBuf,
    },
    /// A config file is not valid TOML.
    #[error("cannot parse {origin}; fix the TOML syntax where marked: {message}")]
    Parse {
        /// Where the text came from.
        origin: ConfigSource,
        /// The TOML parser's message, with line and column.
        message: String,
    },
    /// A key that memlane does not know.
    #[error("unknown key `{key}` in {origin}; allowed: {allowed}")]
    UnknownKey {
        /// Where the key was set.
        origin: ConfigSource,
        /// The key as a dotted path, e.g. `types.bug_fix.halflife`.
        key: String,
        /// The keys allowed at that level, comma-separated.
        allowed: String,
    },
    /// A value of the wrong type or out of range.
    #[error("invalid value {value} for `{key}` in {origin}; allowed: {allowed}")]
    Invalid {
        /// Where the value was set.
        origin: ConfigSource,
        /// The key as a dotted path, e.g. `types.bug_fix.weight`.
        key: String,
        /// The bad value, as TOML.
        value: String,
        /// What the key accepts.
        allowed: String,
    },
    /// A `[types.<name>]` table whose name is not a valid type name.
    #[error(
        "invalid type name `{name}` at `{key}` in {origin}; allowed: a lowercase ASCII letter \
         followed by lowercase letters, digits or `_` (e.g. `meeting_notes`)"
    )]
    InvalidTypeName {
        /// Where the table was defined.
        origin: ConfigSource,
        /// The dotted path of the table, e.g. `types.Bug-Fix`.
        key: String,
        /// The bad name.
        name: String,
    },
    /// A `MEMLANE_*` environment variable that matches no config key. The loader ignores such
    /// variables (a user's own `MEMLANE_BIN`, say, must not stop memlane); [`unknown_env_vars`]
    /// names them so the front end can warn, and this error says what was meant.
    #[error("environment variable {var} matches no config key; {}", env_help())]
    UnknownEnv {
        /// The variable's name as given.
        var: String,
    },
}

/// What [`LoadedConfig::load`] reads. `Default` gives the built-in defaults only.
#[derive(Debug, Clone, Copy, Default)]
pub struct ConfigInputs<'a> {
    /// The user config file: `$MEMLANE_CONFIG` if set, else [`default_user_config_path`].
    pub user_file: Option<&'a Path>,
    /// Whether a missing `user_file` is an error (true when it was named by `MEMLANE_CONFIG`).
    pub user_file_required: bool,
    /// The vault's `.memories/config.toml`; a missing file is skipped.
    pub vault_file: Option<&'a Path>,
    /// The process environment (or a test's); only `MEMLANE_*` names are looked at.
    pub env: &'a [(String, String)],
    /// Command-line overrides, applied in order: (dotted key, value, flag name such as `--type`).
    pub flags: &'a [(String, Value, String)],
}

/// The effective configuration together with where each value came from.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedConfig {
    /// The effective configuration.
    pub config: Config,
    /// The source of every leaf value, by dotted key (`types.bug_fix.weight`).
    pub sources: BTreeMap<String, ConfigSource>,
    /// The config files that were actually read, lowest precedence first.
    pub files: Vec<PathBuf>,
}

/// The user config file's default location: `config.toml` in the platform config directory
/// (`~/.config/memlane/config.toml` on Linux), or `None` when no home directory is known.
pub fn default_user_config_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "memlane").map(|d| d.config_dir().join("config.toml"))
}

impl LoadedConfig {
    /// Reads, validates and merges every layer of `inputs`.
    pub fn load(inputs: &ConfigInputs) -> Result<LoadedConfig, ConfigError> {
        let mut merged = TomlTable::new();
        let mut sources = BTreeMap::new();
        let mut files = Vec::new();

        let file_layers = [
            (inputs.user_file, inputs.user_file_required, true),
            (inputs.vault_file, false, false),
        ];
        for (path, required, is_user) in file_layers {
            let Some(path) = path else { continue };
            let origin = if is_user {
                ConfigSource::UserFile(path.to_owned())
            } else {
                ConfigSource::VaultFile(path.to_owned())
            };
            let Some(table) = read_file_layer(path, required, &origin)? else { continue };
            files.push(path.to_owned());
            validate_layer(&table, &origin)?;
            merge(&mut merged, table, "", &origin, &mut sources);
        }

        for (var, table) in env_layers(inputs.env)? {
            let origin = ConfigSource::Env(var);
            validate_layer(&table, &origin)?;
            merge(&mut merged, table, "", &origin, &mut sources);
        }

        for (key, value, flag) in inputs.flags {
            let origin = ConfigSource::Flag(flag.clone());
            let segments: Vec<String> = key.split('.').map(str::to_owned).collect();
            let table = nest(&segments, value.clone());
            validate_layer(&table, &origin)?;
            merge(&mut merged, table, "", &origin, &mut sources);
        }

        let config = build_config(&merged, &sources)?;
        for key in leaf_keys(&config) {
            sources.entry(key).or_insert(ConfigSource::Default);
        }
        Ok(LoadedConfig { config, sources, files })
    }
}

/// Reads and parses one config file; `Ok(None)` when it is absent and not required.
fn read_file_layer(
    path: &Path,
    required: bool,
    origin: &ConfigSource,
) -> Result<Option<TomlTable>, ConfigError> {
    // The vault's file is the repository's: read beneath a handle on the vault folder, so that
    // a `config.toml` that is a symbolic link (to a key file, say, whose lines a parse error
    // would quote) is refused, never followed.
    let read = match origin {
        ConfigSource::VaultFile(_) => crate::disk::Confined::beside(path, "read")
            .and_then(|(fs, name)| fs.read_to_string(&name))
            .map_err(|e| e.source),
        _ => std::fs::read_to_string(path),
    };
    let text = match read {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return if required {
                Err(ConfigError::MissingFile { path: path.to_owned() })
            } else {
                Ok(None)
            };
        }
        Err(source) => return Err(ConfigError::Read { path: path.to_owned(), source }),
    };
    text.parse::<TomlTable>().map(Some).map_err(|err| ConfigError::Parse {
        origin: origin.clone(),
        message: err.to_string().trim_end().to_owned(),
    })
}

/// What a `MEMLANE_*` variable is to the loader.
enum EnvVar {
    /// Not `MEMLANE_*`, or one read elsewhere (`MEMLANE_VAULT`, …).
    NotConfig,
    /// A config key, as lowercase `__`-separated segments, and whether it takes a string.
    Key(Vec<String>, bool),
    /// `MEMLANE_*` but no config key: ignored, with a warning from the front end.
    Unknown,
}

fn classify_env(var: &str) -> EnvVar {
    let Some(prefix) = var.get(..8) else { return EnvVar::NotConfig };
    if !prefix.eq_ignore_ascii_case("MEMLANE_") {
        return EnvVar::NotConfig;
    }
    // The test builds' crash points (`crate::failpoint`) are read by debug builds only.
    let failpoint =
        cfg!(debug_assertions) && var.to_ascii_uppercase().starts_with("MEMLANE_FAILPOINT");
    if failpoint || RESERVED_ENV.iter().any(|r| r.eq_ignore_ascii_case(var)) {
        return EnvVar::NotConfig;
    }
    let rest = var[8..].to_lowercase();
    let segments: Vec<String> = rest.split("__").map(str::to_owned).collect();
    match env_key_is_string(&segments) {
        Some(is_string) => EnvVar::Key(segments, is_string),
        None => EnvVar::Unknown,
    }
}

/// The `MEMLANE_*` variables of `env` that name no config key and are not read elsewhere, sorted:
/// [`LoadedConfig::load`] ignores them, and the front end warns about each once (as cargo and git
/// do with unknown variables of their prefix). A known variable with a bad value stays an error.
pub fn unknown_env_vars(env: &[(String, String)]) -> Vec<String> {
    let mut vars: Vec<String> = env
        .iter()
        .filter(|(var, _)| matches!(classify_env(var), EnvVar::Unknown))
        .map(|(var, _)| var.clone())
        .collect();
    vars.sort();
    vars.dedup();
    vars
}

/// Turns the `MEMLANE_*` variables into one single-key layer each, sorted by variable name so
/// that the result does not depend on the order of the environment. Unknown ones are skipped
/// ([`unknown_env_vars`]).
fn env_layers(env: &[(String, String)]) -> Result<Vec<(String, TomlTable)>, ConfigError> {
    let mut layers = Vec::new();
    for (var, raw) in env {
        let EnvVar::Key(segments, is_string) = classify_env(var) else { continue };
        layers.push((var.clone(), nest(&segments, env_value(raw, is_string))));
    }
    layers.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(layers)
}

/// Whether the config key an environment variable names (as lowercase `__`-separated segments)
/// takes a string; `None` when it names no key.
fn env_key_is_string(segments: &[String]) -> Option<bool> {
    let rule = |keys: &[Key], name: &str| keys.iter().find(|k| k.name == name).map(|k| k.rule);
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    let rule = match segments.as_slice() {
        [key] => rule(Config::KEYS, key),
        ["search", INTENTS_KEY, intent, field] if Intent::NAMES.contains(intent) => {
            rule(Weights::KEYS, field)
        }
        [TYPES_KEY, name, field] if !name.is_empty() => rule(TypeProfile::KEYS, field),
        [name, key] => {
            section(name).and_then(|s| rule((s.get)(super::settings::defaults()).keys(), key))
        }
        _ => None,
    };
    rule.map(Rule::is_string)
}

/// An environment value: a TOML value when it parses as one, else the raw text as a string.
/// For keys that take a string, only a quoted TOML string is unquoted, so `MEMLANE_DEFAULT_TYPE=true`
/// means the type `true`, not a boolean.
fn env_value(raw: &str, is_string: bool) -> Value {
    match raw.trim().parse::<Value>() {
        Ok(Value::String(s)) => Value::String(s),
        Ok(value) if !is_string => value,
        _ => Value::String(raw.to_owned()),
    }
}

/// `nest(["a", "b"], v)` is the table `{ a = { b = v } }`.
fn nest(segments: &[String], value: Value) -> TomlTable {
    let mut value = value;
    for segment in segments.iter().skip(1).rev() {
        let mut table = TomlTable::new();
        table.insert(segment.clone(), value);
        value = Value::Table(table);
    }
    let mut top = TomlTable::new();
    top.insert(segments.first().cloned().unwrap_or_default(), value);
    top
}

/// Deep-merges `src` into `dst`, recording `origin` as the source of every leaf it sets.
fn merge(
    dst: &mut TomlTable,
    src: TomlTable,
    prefix: &str,
    origin: &ConfigSource,
    sources: &mut BTreeMap<String, ConfigSource>,
) {
    for (key, value) in src {
        let path = join_key(prefix, &key);
        match value {
            Value::Table(table) => {
                let slot = dst.entry(key).or_insert_with(|| Value::Table(TomlTable::new()));
                if !slot.is_table() {
                    *slot = Value::Table(TomlTable::new());
                }
                if let Value::Table(inner) = slot {
                    merge(inner, table, &path, origin, sources);
                }
            }
            leaf => {
                sources.insert(path, origin.clone());
                dst.insert(key, leaf);
            }
        }
    }
}

/// Builds the configuration from the merged, validated layers on top of the defaults.
fn build_config(
    merged: &TomlTable,
    sources: &BTreeMap<String, ConfigSource>,
) -> Result<Config, ConfigError> {
    let mut config = Config::default();
    set_all(&mut config, merged);
    for s in SECTIONS {
        if let Some(table) = merged.get(s.name).and_then(Value::as_table) {
            set_all((s.get_mut)(&mut config), table);
        }
    }
    let intents = merged.get("search").and_then(|s| s.get(INTENTS_KEY)).and_then(Value::as_table);
    for (intent, weights) in intents.into_iter().flatten() {
        let Ok(intent) = intent.parse::<Intent>() else { continue };
        if let Some(weights) = weights.as_table() {
            set_all(config.search.intents.get_mut(intent), weights);
        }
    }
    if let Some(types) = merged.get(TYPES_KEY).and_then(Value::as_table) {
        // New types start from journal's built-in numbers, not from an overridden journal, so
        // that no profile depends on the order in which the types are filled in.
        let base = Config::default().types.get(NEW_TYPE_BASE).copied().unwrap_or_default();
        for (name, fields) in types {
            let mut profile = config.types.get(name).copied().unwrap_or(base);
            if let Some(fields) = fields.as_table() {
                set_all(&mut profile, fields);
            }
            config.types.insert(name.clone(), profile);
        }
    }
    if !config.types.contains_key(&config.default_type) {
        let origin = sources.get("default_type").cloned().unwrap_or(ConfigSource::Default);
        let allowed = format!(
            "a known type ({}) or a new type defined with a [types.<name>] table",
            config.type_names().join(", ")
        );
        return Err(invalid(
            &origin,
            "default_type",
            &config.default_type.as_str().into(),
            &allowed,
        ));
    }
    Ok(config)
}

/// Sets every key of `table` that `target` has (sub-tables are skipped).
fn set_all(target: &mut dyn Table, table: &TomlTable) {
    for (key, value) in table {
        target.set(key, value);
    }
}

/// What an unknown `MEMLANE_*` variable should have been: every variable the declared keys
/// accept.
fn env_help() -> String {
    let upper = |s: &str| s.to_ascii_uppercase();
    let mut names: Vec<String> =
        Config::KEYS.iter().map(|k| format!("MEMLANE_{}", upper(k.name))).collect();
    for s in SECTIONS {
        let keys = (s.get)(super::settings::defaults()).keys();
        match keys {
            [only] => names.push(format!("MEMLANE_{}__{}", upper(s.name), upper(only.name))),
            _ => names.push(format!("MEMLANE_{}__<KEY>", upper(s.name))),
        }
        if s.name == "search" {
            let fields: Vec<String> = Weights::KEYS.iter().map(|k| upper(k.name)).collect();
            let intents: Vec<String> = Intent::NAMES.iter().map(|n| upper(n)).collect();
            names.push(format!(
                "MEMLANE_SEARCH__{}__<INTENT>__<{}> with INTENT one of {}",
                upper(INTENTS_KEY),
                fields.join("|"),
                intents.join(", ")
            ));
        }
    }
    let fields: Vec<String> = TypeProfile::KEYS.iter().map(|k| upper(k.name)).collect();
    names.push(format!(
        "MEMLANE_{}__<TYPE>__<FIELD> with FIELD one of {}",
        upper(TYPES_KEY),
        fields.join(", ")
    ));
    format!(
        "unset it or use one of {}, where KEY is a key of that section as the configuration lists it \
         prints it (nested keys are joined with `__`); MEMLANE_VAULT, MEMLANE_CONFIG, \
         MEMLANE_LOG, MEMLANE_NOW and MEMLANE_MODEL are read elsewhere",
        names.join(", ")
    )
}
