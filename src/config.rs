//! Layered configuration: built-in defaults, the user config file, the vault's
//! `.memories/config.toml`, `MEMLANE_*` environment variables and command-line flags.
//!
//! Precedence, lowest first: defaults < user file < vault file < environment < flags. Every leaf
//! value remembers which layer set it ([`LoadedConfig::sources`]), so `memlane config` can show
//! where each number came from.
//!
//! Each layer is read as a [`toml::Table`] and validated on its own before it is merged, so an
//! error always names the file, variable or flag that caused it, the key as a dotted path
//! (`types.bug_fix.weight`), the bad value and what is allowed. Layers merge leaf by leaf: a
//! `[types.bug_fix]` table that sets only `half_life_days` keeps the other numbers of the layers
//! below it, and in the end of the built-in `bug_fix` profile. A type that is not built in takes
//! the fields no layer sets from the built-in `journal` profile (not from an overridden one).
//!
//! This module does no discovery of its own beyond [`default_user_config_path`]: the caller
//! decides which files to read and passes the environment in, so tests never touch the process
//! environment. It knows nothing about clap; flags arrive as `(dotted key, value, flag name)`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;
use toml::{Table, Value};

/// The configuration file `memlane init` writes into a new vault (`.memories/config.toml`).
///
/// Every key is present but commented out with its built-in default, so the file loads as the
/// defaults. Section headers stay uncommented: uncommenting a single `# key = value` line is
/// enough to change that value.
pub const DEFAULT_CONFIG_TOML: &str = r#"# memlane configuration for this vault.
#
# Every setting is optional: the commented lines show the built-in defaults.
# Precedence, lowest first: built-in defaults < user config file < this file
# < MEMLANE_* environment variables < command-line flags.
# Run `memlane config` to see the effective configuration and where each value comes from.

# Where vaults live: "project" (the nearest .memories/ above the current directory)
# or "user" (one vault per user in the platform data directory).
# storage_strategy = "project"

# The type given to memories created without --type; must be a known type.
# default_type = "journal"

[privacy]
# Replace credential-shaped text (API keys, tokens, passwords) after <private> redaction.
# scrub_secrets = true

# One table per memory type. Built-in types: architecture, bug_fix, code_context, decision,
# document_chunk, fact, journal, observation, plan, preference, reflection, session_summary.
# A table may set any subset of the fields below; the rest keep their built-in values.
# A new type, such as [types.meeting], takes the fields it does not set from journal.
[types.bug_fix]
# Age in days at which the type-profile factor has fallen to one half.
# half_life_days = 30.0
# Score multiplier for this type.
# weight = 1.3
# Memories younger than this many days get a recency boost; 0 turns the boost off.
# recency_window_days = 14.0
# Largest recency boost, added to the score of a brand-new memory (0 to 1).
# recency_max_boost = 0.2
# The boost is recency_max_boost * recency_rate ^ age_in_days (greater than 0, at most 1).
# recency_rate = 0.95
"#;

/// Environment variables that start with `MEMLANE_` but are read elsewhere, not by the loader.
const RESERVED_ENV: &[&str] =
    &["MEMLANE_VAULT", "MEMLANE_CONFIG", "MEMLANE_LOG", "MEMLANE_NOW", "MEMLANE_MODEL"];

/// What an unknown `MEMLANE_*` variable should have been.
const ENV_HELP: &str = "unset it or use one of MEMLANE_STORAGE_STRATEGY, MEMLANE_DEFAULT_TYPE, \
MEMLANE_PRIVACY__SCRUB_SECRETS, MEMLANE_TYPES__<TYPE>__<FIELD> with FIELD one of HALF_LIFE_DAYS, \
WEIGHT, RECENCY_WINDOW_DAYS, RECENCY_MAX_BOOST, RECENCY_RATE (nested keys are joined with `__`); \
MEMLANE_VAULT, MEMLANE_CONFIG, MEMLANE_LOG, MEMLANE_NOW and MEMLANE_MODEL are read elsewhere";

const TOP_KEYS: &[&str] = &["storage_strategy", "default_type", "privacy", "types"];
const PRIVACY_KEYS: &[&str] = &["scrub_secrets"];
const PROFILE_KEYS: &[&str] =
    &["half_life_days", "weight", "recency_window_days", "recency_max_boost", "recency_rate"];

/// The type whose numbers a new, user-defined type starts from.
const NEW_TYPE_BASE: &str = "journal";

/// The built-in type profiles (SPEC §3).
const BUILTIN_TYPES: &[(&str, TypeProfile)] = &[
    ("decision", TypeProfile::new(365.0, 1.5, 14.0, 0.10, 0.95)),
    ("architecture", TypeProfile::new(365.0, 1.4, 14.0, 0.10, 0.95)),
    ("preference", TypeProfile::new(365.0, 1.2, 14.0, 0.10, 0.95)),
    ("bug_fix", TypeProfile::new(30.0, 1.3, 14.0, 0.20, 0.95)),
    ("fact", TypeProfile::new(90.0, 1.0, 7.0, 0.10, 0.98)),
    ("code_context", TypeProfile::new(14.0, 1.0, 7.0, 0.20, 0.90)),
    ("session_summary", TypeProfile::new(14.0, 1.0, 14.0, 0.20, 0.95)),
    ("document_chunk", TypeProfile::new(14.0, 0.6, 0.0, 0.0, 1.0)),
    ("journal", TypeProfile::new(30.0, 1.0, 14.0, 0.20, 0.95)),
    ("plan", TypeProfile::new(90.0, 1.0, 21.0, 0.15, 0.93)),
    ("observation", TypeProfile::new(30.0, 1.0, 14.0, 0.20, 0.92)),
    ("reflection", TypeProfile::new(180.0, 1.0, 30.0, 0.15, 0.98)),
];

/// The effective memlane configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Config {
    /// Where vaults are found.
    pub storage_strategy: StorageStrategy,
    /// The type given to memories created without `--type`; always a key of `types`.
    pub default_type: String,
    /// Redaction settings.
    pub privacy: PrivacyConfig,
    /// Every known memory type and its ranking profile, built-in and user-defined.
    pub types: BTreeMap<String, TypeProfile>,
}

/// Where vaults are found (SPEC §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StorageStrategy {
    /// Walk up from the current directory to the first `.memories/`.
    Project,
    /// One per-user vault in the platform data directory.
    User,
}

/// Redaction settings (SPEC §4).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PrivacyConfig {
    /// Run the credential scrubber after `<private>` redaction.
    pub scrub_secrets: bool,
}

/// How a memory type ranks (SPEC §3, §8 stages 4 and 5).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TypeProfile {
    /// Age in days at which the decay factor `1 / (1 + age / half_life)` is one half; > 0.
    pub half_life_days: f64,
    /// Score multiplier; >= 0.
    pub weight: f64,
    /// Ages up to this many days get the recency boost; 0 means no boost.
    pub recency_window_days: f64,
    /// The boost at age 0; in [0, 1].
    pub recency_max_boost: f64,
    /// Per-day factor of the boost, `max_boost * rate^age`; in (0, 1].
    pub recency_rate: f64,
}

impl TypeProfile {
    const fn new(
        half_life_days: f64,
        weight: f64,
        recency_window_days: f64,
        recency_max_boost: f64,
        recency_rate: f64,
    ) -> Self {
        Self { half_life_days, weight, recency_window_days, recency_max_boost, recency_rate }
    }

    fn field(&self, key: &str) -> Option<f64> {
        Some(match key {
            "half_life_days" => self.half_life_days,
            "weight" => self.weight,
            "recency_window_days" => self.recency_window_days,
            "recency_max_boost" => self.recency_max_boost,
            "recency_rate" => self.recency_rate,
            _ => return None,
        })
    }

    fn field_mut(&mut self, key: &str) -> Option<&mut f64> {
        Some(match key {
            "half_life_days" => &mut self.half_life_days,
            "weight" => &mut self.weight,
            "recency_window_days" => &mut self.recency_window_days,
            "recency_max_boost" => &mut self.recency_max_boost,
            "recency_rate" => &mut self.recency_rate,
            _ => return None,
        })
    }
}

impl Default for Config {
    fn default() -> Self {
        Self {
            storage_strategy: StorageStrategy::Project,
            default_type: NEW_TYPE_BASE.to_owned(),
            privacy: PrivacyConfig { scrub_secrets: true },
            types: BUILTIN_TYPES.iter().map(|(name, p)| ((*name).to_owned(), *p)).collect(),
        }
    }
}

impl Config {
    /// The profile of memory type `ty`, or `None` for an unknown type.
    pub fn type_profile(&self, ty: &str) -> Option<&TypeProfile> {
        self.types.get(ty)
    }

    /// The names of all known memory types, sorted.
    pub fn type_names(&self) -> Vec<&str> {
        self.types.keys().map(String::as_str).collect()
    }
}

impl StorageStrategy {
    fn as_str(self) -> &'static str {
        match self {
            Self::Project => "project",
            Self::User => "user",
        }
    }
}

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
    /// A `MEMLANE_*` environment variable that matches no config key.
    #[error("environment variable {var} matches no config key; {}", ENV_HELP)]
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
        let mut merged = Table::new();
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

    /// The effective configuration as TOML, each value followed by `  # <source>`.
    ///
    /// Top-level keys come first, then `[privacy]`, then one `[types.<name>]` table per type in
    /// name order. The output loads back to the same [`Config`].
    pub fn render_toml(&self) -> String {
        let mut out = String::new();
        let c = &self.config;
        self.render_leaf(&mut out, "", "storage_strategy", &c.storage_strategy.as_str().into());
        self.render_leaf(&mut out, "", "default_type", &c.default_type.as_str().into());
        out.push_str("\n[privacy]\n");
        self.render_leaf(&mut out, "privacy", "scrub_secrets", &c.privacy.scrub_secrets.into());
        for (name, profile) in &c.types {
            out.push_str(&format!("\n[types.{}]\n", toml_key(name)));
            let section = format!("types.{name}");
            for field in PROFILE_KEYS {
                let value = profile.field(field).unwrap_or_default();
                self.render_leaf(&mut out, &section, field, &Value::Float(value));
            }
        }
        out
    }

    fn render_leaf(&self, out: &mut String, section: &str, key: &str, value: &Value) {
        let path = join_key(section, key);
        let source = self.sources.get(&path).unwrap_or(&ConfigSource::Default);
        // A comment ends at a newline; escape control characters a path might contain.
        let mut comment = String::new();
        for c in source.to_string().chars() {
            if c.is_control() {
                comment.extend(c.escape_default());
            } else {
                comment.push(c);
            }
        }
        out.push_str(&format!("{} = {value}  # {comment}\n", toml_key(key)));
    }

    /// The effective configuration as JSON:
    /// `{"config": {...}, "sources": {"dotted.key": "source"}, "files": ["path", ...]}`.
    pub fn to_json(&self) -> serde_json::Value {
        let sources: serde_json::Map<String, serde_json::Value> =
            self.sources.iter().map(|(k, s)| (k.clone(), s.to_string().into())).collect();
        let files: Vec<serde_json::Value> =
            self.files.iter().map(|p| p.to_string_lossy().into_owned().into()).collect();
        serde_json::json!({
            "config": serde_json::to_value(&self.config).unwrap_or(serde_json::Value::Null),
            "sources": sources,
            "files": files,
        })
    }
}

/// Reads and parses one config file; `Ok(None)` when it is absent and not required.
fn read_file_layer(
    path: &Path,
    required: bool,
    origin: &ConfigSource,
) -> Result<Option<Table>, ConfigError> {
    let text = match std::fs::read_to_string(path) {
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
    text.parse::<Table>().map(Some).map_err(|err| ConfigError::Parse {
        origin: origin.clone(),
        message: err.to_string().trim_end().to_owned(),
    })
}

/// Turns the `MEMLANE_*` variables into one single-key layer each, sorted by variable name so
/// that the result does not depend on the order of the environment.
fn env_layers(env: &[(String, String)]) -> Result<Vec<(String, Table)>, ConfigError> {
    let mut layers = Vec::new();
    for (var, raw) in env {
        let Some(prefix) = var.get(..8) else { continue };
        if !prefix.eq_ignore_ascii_case("MEMLANE_") {
            continue;
        }
        if RESERVED_ENV.iter().any(|r| r.eq_ignore_ascii_case(var)) {
            continue;
        }
        let rest = var[8..].to_lowercase();
        let segments: Vec<String> = rest.split("__").map(str::to_owned).collect();
        let is_string = match segments.as_slice() {
            [key] if key == "storage_strategy" || key == "default_type" => true,
            [section, key] if section == "privacy" && PRIVACY_KEYS.contains(&key.as_str()) => false,
            [section, name, field]
                if section == "types"
                    && !name.is_empty()
                    && PROFILE_KEYS.contains(&field.as_str()) =>
            {
                false
            }
            _ => return Err(ConfigError::UnknownEnv { var: var.clone() }),
        };
        layers.push((var.clone(), nest(&segments, env_value(raw, is_string))));
    }
    layers.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(layers)
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
fn nest(segments: &[String], value: Value) -> Table {
    let mut value = value;
    for segment in segments.iter().skip(1).rev() {
        let mut table = Table::new();
        table.insert(segment.clone(), value);
        value = Value::Table(table);
    }
    let mut top = Table::new();
    top.insert(segments.first().cloned().unwrap_or_default(), value);
    top
}

/// Checks one layer against the schema on its own, so that errors name the layer.
fn validate_layer(table: &Table, origin: &ConfigSource) -> Result<(), ConfigError> {
    check_keys(table, "", TOP_KEYS, origin)?;
    for (key, value) in table {
        match key.as_str() {
            "storage_strategy" if !matches!(value.as_str(), Some("project" | "user")) => {
                return Err(invalid(origin, key, value, "\"project\" or \"user\""));
            }
            "default_type" if !value.is_str() => {
                return Err(invalid(
                    origin,
                    key,
                    value,
                    "a type name as a string, e.g. \"journal\"",
                ));
            }
            "privacy" => {
                let section = expect_table(value, origin, key, "a table with key scrub_secrets")?;
                check_keys(section, key, PRIVACY_KEYS, origin)?;
                for (field, value) in section {
                    if !value.is_bool() {
                        return Err(invalid(origin, &join_key(key, field), value, "true or false"));
                    }
                }
            }
            "types" => {
                let types = expect_table(value, origin, key, "a table of [types.<name>] tables")?;
                for (name, profile) in types {
                    let path = join_key(key, name);
                    if !is_type_name(name) {
                        return Err(ConfigError::InvalidTypeName {
                            origin: origin.clone(),
                            key: path,
                            name: name.clone(),
                        });
                    }
                    let allowed = format!("a table with keys {}", PROFILE_KEYS.join(", "));
                    let profile = expect_table(profile, origin, &path, &allowed)?;
                    check_keys(profile, &path, PROFILE_KEYS, origin)?;
                    for (field, value) in profile {
                        validate_profile_field(origin, &join_key(&path, field), field, value)?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn validate_profile_field(
    origin: &ConfigSource,
    path: &str,
    field: &str,
    value: &Value,
) -> Result<(), ConfigError> {
    let (ok, allowed): (fn(f64) -> bool, &str) = match field {
        "half_life_days" => (|x| x > 0.0, "a finite number of days > 0"),
        "weight" => (|x| x >= 0.0, "a finite number >= 0"),
        "recency_window_days" => {
            (|x| x >= 0.0, "a finite number of days >= 0 (0 turns the recency boost off)")
        }
        "recency_max_boost" => (|x| (0.0..=1.0).contains(&x), "a number from 0 to 1"),
        "recency_rate" => (|x| x > 0.0 && x <= 1.0, "a number greater than 0 and at most 1"),
        _ => return Ok(()),
    };
    match number(value) {
        Some(x) if x.is_finite() && ok(x) => Ok(()),
        _ => Err(invalid(origin, path, value, allowed)),
    }
}

fn check_keys(
    table: &Table,
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
) -> Result<&'v Table, ConfigError> {
    value.as_table().ok_or_else(|| invalid(origin, key, value, allowed))
}

fn invalid(origin: &ConfigSource, key: &str, value: &Value, allowed: &str) -> ConfigError {
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

fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Float(x) => Some(*x),
        // Integers are accepted where floats go; config numbers are far below 2^53.
        Value::Integer(i) => Some(*i as f64),
        _ => None,
    }
}

fn is_type_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fn join_key(prefix: &str, key: &str) -> String {
    if prefix.is_empty() { key.to_owned() } else { format!("{prefix}.{key}") }
}

/// A key for TOML output: bare when it can be, quoted otherwise.
fn toml_key(key: &str) -> String {
    if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        key.to_owned()
    } else {
        Value::String(key.to_owned()).to_string()
    }
}

/// Deep-merges `src` into `dst`, recording `origin` as the source of every leaf it sets.
fn merge(
    dst: &mut Table,
    src: Table,
    prefix: &str,
    origin: &ConfigSource,
    sources: &mut BTreeMap<String, ConfigSource>,
) {
    for (key, value) in src {
        let path = join_key(prefix, &key);
        match value {
            Value::Table(table) => {
                let slot = dst.entry(key).or_insert_with(|| Value::Table(Table::new()));
                if !slot.is_table() {
                    *slot = Value::Table(Table::new());
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
    merged: &Table,
    sources: &BTreeMap<String, ConfigSource>,
) -> Result<Config, ConfigError> {
    let mut config = Config::default();
    if let Some(value) = merged.get("storage_strategy").and_then(Value::as_str) {
        config.storage_strategy =
            if value == "user" { StorageStrategy::User } else { StorageStrategy::Project };
    }
    if let Some(value) = merged.get("default_type").and_then(Value::as_str) {
        config.default_type = value.to_owned();
    }
    let privacy = merged.get("privacy").and_then(Value::as_table);
    if let Some(scrub) = privacy.and_then(|p| p.get("scrub_secrets")).and_then(Value::as_bool) {
        config.privacy.scrub_secrets = scrub;
    }
    if let Some(types) = merged.get("types").and_then(Value::as_table) {
        // New types start from journal's built-in numbers, not from an overridden journal, so
        // that no profile depends on the order in which the types are filled in.
        let base = Config::default().types.get(NEW_TYPE_BASE).copied();
        let base = base.unwrap_or(TypeProfile::new(30.0, 1.0, 14.0, 0.20, 0.95));
        for (name, fields) in types {
            let mut profile = config.types.get(name).copied().unwrap_or(base);
            for (field, value) in fields.as_table().into_iter().flatten() {
                if let (Some(slot), Some(x)) = (profile.field_mut(field), number(value)) {
                    *slot = x;
                }
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

/// The dotted keys of every leaf of `config`.
fn leaf_keys(config: &Config) -> Vec<String> {
    let mut keys: Vec<String> =
        ["storage_strategy", "default_type", "privacy.scrub_secrets"].map(str::to_owned).into();
    for name in config.types.keys() {
        keys.extend(PROFILE_KEYS.iter().map(|field| format!("types.{name}.{field}")));
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn load_vault_text(text: &str) -> Result<LoadedConfig, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "config.toml", text);
        LoadedConfig::load(&ConfigInputs { vault_file: Some(&path), ..Default::default() })
    }

    fn load_env(pairs: &[(&str, &str)]) -> Result<LoadedConfig, ConfigError> {
        let env = env(pairs);
        LoadedConfig::load(&ConfigInputs { env: &env, ..Default::default() })
    }

    #[test]
    fn defaults_match_spec_table() {
        #[rustfmt::skip]
        let spec: [(&str, f64, f64, f64, f64, f64); 12] = [
            ("decision", 365.0, 1.5, 14.0, 0.10, 0.95),
            ("architecture", 365.0, 1.4, 14.0, 0.10, 0.95),
            ("preference", 365.0, 1.2, 14.0, 0.10, 0.95),
            ("bug_fix", 30.0, 1.3, 14.0, 0.20, 0.95),
            ("fact", 90.0, 1.0, 7.0, 0.10, 0.98),
            ("code_context", 14.0, 1.0, 7.0, 0.20, 0.90),
            ("session_summary", 14.0, 1.0, 14.0, 0.20, 0.95),
            ("document_chunk", 14.0, 0.6, 0.0, 0.0, 1.0),
            ("journal", 30.0, 1.0, 14.0, 0.20, 0.95),
            ("plan", 90.0, 1.0, 21.0, 0.15, 0.93),
            ("observation", 30.0, 1.0, 14.0, 0.20, 0.92),
            ("reflection", 180.0, 1.0, 30.0, 0.15, 0.98),
        ];
        let config = Config::default();
        assert_eq!(config.types.len(), spec.len());
        for (name, half_life, weight, window, boost, rate) in spec {
            let profile = config.type_profile(name).unwrap();
            assert_eq!(
                *profile,
                TypeProfile::new(half_life, weight, window, boost, rate),
                "{name}"
            );
        }
        assert_eq!(config.storage_strategy, StorageStrategy::Project);
        assert_eq!(config.default_type, "journal");
        assert!(config.privacy.scrub_secrets);
        assert_eq!(config.type_names()[..3], ["architecture", "bug_fix", "code_context"]);
        assert_eq!(config.type_profile("nope"), None);

        let loaded = LoadedConfig::load(&ConfigInputs::default()).unwrap();
        assert_eq!(loaded.config, config);
        assert!(loaded.files.is_empty());
        assert_eq!(loaded.sources.len(), 3 + 12 * 5);
        assert!(loaded.sources.values().all(|s| *s == ConfigSource::Default));
    }

    #[test]
    fn each_layer_overrides_the_one_below_and_records_its_source() {
        let dir = tempfile::tempdir().unwrap();
        let user = write(
            dir.path(),
            "user.toml",
            "default_type = \"fact\"\n[types.bug_fix]\nweight = 2.0\nhalf_life_days = 40\n\
             [types.plan]\nweight = 0.5\n[types.fact]\nweight = 0.7\n",
        );
        let vault = write(
            dir.path(),
            "vault.toml",
            "[types.bug_fix]\nweight = 3.0\nrecency_rate = 0.5\n[types.plan]\nweight = 0.6\n",
        );
        let env = env(&[
            ("MEMLANE_TYPES__BUG_FIX__WEIGHT", "4"),
            ("MEMLANE_TYPES__PLAN__WEIGHT", "0.8"),
            ("HOME", "/home/x"),
        ]);
        let flags =
            [("types.bug_fix.weight".to_owned(), Value::Float(5.0), "--bug-fix-weight".to_owned())];
        let mut inputs = ConfigInputs {
            user_file: Some(&user),
            user_file_required: true,
            vault_file: Some(&vault),
            env: &env,
            flags: &flags,
        };

        let all = LoadedConfig::load(&inputs).unwrap();
        let bug_fix = all.config.type_profile("bug_fix").unwrap();
        assert_eq!(bug_fix.weight, 5.0);
        assert_eq!(bug_fix.half_life_days, 40.0);
        assert_eq!(bug_fix.recency_rate, 0.5);
        assert_eq!(bug_fix.recency_max_boost, 0.20);
        assert_eq!(all.config.type_profile("plan").unwrap().weight, 0.8);
        assert_eq!(all.config.type_profile("fact").unwrap().weight, 0.7);
        assert_eq!(all.config.default_type, "fact");
        let src = |key: &str| all.sources[key].to_string();
        assert_eq!(src("types.bug_fix.weight"), "flag --bug-fix-weight");
        assert_eq!(src("types.plan.weight"), "env MEMLANE_TYPES__PLAN__WEIGHT");
        assert_eq!(src("types.bug_fix.recency_rate"), format!("vault config {}", vault.display()));
        assert_eq!(src("types.bug_fix.half_life_days"), format!("user config {}", user.display()));
        assert_eq!(src("types.fact.weight"), format!("user config {}", user.display()));
        assert_eq!(src("default_type"), format!("user config {}", user.display()));
        assert_eq!(src("types.bug_fix.recency_max_boost"), "default");
        assert_eq!(all.files, [user.clone(), vault.clone()]);

        inputs.flags = &[];
        let no_flags = LoadedConfig::load(&inputs).unwrap();
        assert_eq!(no_flags.config.type_profile("bug_fix").unwrap().weight, 4.0);
        assert_eq!(
            no_flags.sources["types.bug_fix.weight"],
            ConfigSource::Env("MEMLANE_TYPES__BUG_FIX__WEIGHT".to_owned())
        );

        inputs.env = &[];
        let files_only = LoadedConfig::load(&inputs).unwrap();
        assert_eq!(files_only.config.type_profile("bug_fix").unwrap().weight, 3.0);
        assert_eq!(files_only.config.type_profile("plan").unwrap().weight, 0.6);
        assert_eq!(
            files_only.sources["types.bug_fix.weight"],
            ConfigSource::VaultFile(vault.clone())
        );

        inputs.vault_file = None;
        let user_only = LoadedConfig::load(&inputs).unwrap();
        assert_eq!(user_only.config.type_profile("bug_fix").unwrap().weight, 2.0);
        assert_eq!(user_only.sources["types.bug_fix.weight"], ConfigSource::UserFile(user.clone()));

        inputs.user_file = None;
        let defaults = LoadedConfig::load(&inputs).unwrap();
        assert_eq!(defaults.config, Config::default());
    }

    #[test]
    fn later_flags_win_and_top_level_flags_work() {
        let flags = [
            ("default_type".to_owned(), Value::from("plan"), "--type".to_owned()),
            ("storage_strategy".to_owned(), Value::from("user"), "--user".to_owned()),
            ("default_type".to_owned(), Value::from("fact"), "--default-type".to_owned()),
        ];
        let loaded = LoadedConfig::load(&ConfigInputs { flags: &flags, ..Default::default() });
        let loaded = loaded.unwrap();
        assert_eq!(loaded.config.default_type, "fact");
        assert_eq!(loaded.config.storage_strategy, StorageStrategy::User);
        assert_eq!(loaded.sources["default_type"].to_string(), "flag --default-type");
    }

    #[test]
    fn partial_type_override_keeps_other_fields() {
        let loaded = load_vault_text("[types.bug_fix]\nhalf_life_days = 60\n").unwrap();
        let expected = TypeProfile { half_life_days: 60.0, ..BUILTIN_TYPES[3].1 };
        assert_eq!(BUILTIN_TYPES[3].0, "bug_fix");
        assert_eq!(loaded.config.type_profile("bug_fix"), Some(&expected));
        assert_eq!(loaded.config.types.len(), 12);
    }

    #[test]
    fn new_type_inherits_journal_numbers() {
        let loaded = load_vault_text(
            "default_type = \"meeting\"\n[types.meeting]\nweight = 0.9\n[types.x1]\n",
        )
        .unwrap();
        let journal = *loaded.config.type_profile("journal").unwrap();
        assert_eq!(
            loaded.config.type_profile("meeting"),
            Some(&TypeProfile { weight: 0.9, ..journal })
        );
        assert_eq!(loaded.config.type_profile("x1"), Some(&journal));
        assert_eq!(loaded.config.default_type, "meeting");
        assert_eq!(loaded.sources["types.meeting.half_life_days"], ConfigSource::Default);
        assert!(loaded.config.type_names().contains(&"meeting"));
    }

    #[test]
    fn new_type_inherits_the_builtin_journal_not_an_override() {
        // New types start from journal's built-in numbers, whatever a layer did to journal, so
        // a type's profile never depends on the order in which types are processed.
        let dir = tempfile::tempdir().unwrap();
        let user = write(dir.path(), "user.toml", "[types.journal]\nhalf_life_days = 10\n");
        let vault = write(dir.path(), "vault.toml", "[types.meeting]\nweight = 2\n");
        let inputs =
            ConfigInputs { user_file: Some(&user), vault_file: Some(&vault), ..Default::default() };
        let loaded = LoadedConfig::load(&inputs).unwrap();
        assert_eq!(loaded.config.type_profile("journal").unwrap().half_life_days, 10.0);
        assert_eq!(loaded.config.type_profile("meeting").unwrap().half_life_days, 30.0);
    }

    #[test]
    fn integers_are_accepted_where_floats_go() {
        let loaded = load_vault_text(
            "[types.fact]\nhalf_life_days = 7\nweight = 2\nrecency_window_days = 0\n\
             recency_max_boost = 1\nrecency_rate = 1\n",
        )
        .unwrap();
        assert_eq!(
            loaded.config.type_profile("fact"),
            Some(&TypeProfile::new(7.0, 2.0, 0.0, 1.0, 1.0))
        );
    }

    #[test]
    fn validation_errors_name_origin_key_value_and_allowed() {
        let cases: &[(&str, &str, &str, &str)] = &[
            // (file text, key, value, part of allowed)
            (
                "storage_strategy = \"global\"",
                "storage_strategy",
                "\"global\"",
                "\"project\" or \"user\"",
            ),
            ("storage_strategy = 1", "storage_strategy", "1", "\"project\" or \"user\""),
            ("default_type = \"nope\"", "default_type", "\"nope\"", "bug_fix, code_context"),
            ("default_type = 3", "default_type", "3", "a type name"),
            ("[types.bug_fix]\nhalf_life_days = 0", "types.bug_fix.half_life_days", "0", "> 0"),
            (
                "[types.bug_fix]\nhalf_life_days = inf",
                "types.bug_fix.half_life_days",
                "inf",
                "finite",
            ),
            ("[types.bug_fix]\nweight = -1", "types.bug_fix.weight", "-1", ">= 0"),
            ("[types.bug_fix]\nweight = nan", "types.bug_fix.weight", "nan", ">= 0"),
            (
                "[types.bug_fix]\nweight = \"high\"",
                "types.bug_fix.weight",
                "\"high\"",
                "a finite number",
            ),
            (
                "[types.plan]\nrecency_window_days = -0.5",
                "types.plan.recency_window_days",
                "-0.5",
                ">= 0",
            ),
            (
                "[types.plan]\nrecency_max_boost = 1.5",
                "types.plan.recency_max_boost",
                "1.5",
                "from 0 to 1",
            ),
            (
                "[types.plan]\nrecency_max_boost = -0.1",
                "types.plan.recency_max_boost",
                "-0.1",
                "from 0 to 1",
            ),
            (
                "[types.plan]\nrecency_rate = 0",
                "types.plan.recency_rate",
                "0",
                "greater than 0 and at most 1",
            ),
            ("[types.plan]\nrecency_rate = 1.01", "types.plan.recency_rate", "1.01", "at most 1"),
            (
                "[types.new_one]\nrecency_rate = true",
                "types.new_one.recency_rate",
                "true",
                "number",
            ),
            (
                "[privacy]\nscrub_secrets = \"no\"",
                "privacy.scrub_secrets",
                "\"no\"",
                "true or false",
            ),
            ("privacy = 1", "privacy", "1", "scrub_secrets"),
            ("types = [1, 2]", "types", "[1, 2]", "[types.<name>]"),
            ("[types]\nplan = 5", "types.plan", "5", "half_life_days, weight"),
        ];
        for (text, key, value, allowed) in cases {
            let err = load_vault_text(text).unwrap_err();
            let msg = err.to_string();
            match &err {
                ConfigError::Invalid { origin, key: k, value: v, allowed: a } => {
                    assert!(matches!(origin, ConfigSource::VaultFile(_)), "{msg}");
                    assert_eq!(k, key, "{msg}");
                    assert_eq!(v, value, "{msg}");
                    assert!(a.contains(allowed), "{msg}");
                }
                other => panic!("{text}: unexpected {other:?}"),
            }
            assert!(msg.starts_with("invalid value "), "{msg}");
            assert!(msg.contains("vault config ") && msg.contains("config.toml"), "{msg}");
            assert!(msg.contains(&format!("`{key}`")) && msg.contains(allowed), "{msg}");
        }
    }

    #[test]
    fn unknown_keys_name_origin_key_and_allowed() {
        let cases: &[(&str, &str, &str)] = &[
            ("colour = 1", "colour", "storage_strategy, default_type, privacy, types"),
            ("[privacy]\nscrub = true", "privacy.scrub", "scrub_secrets"),
            (
                "[types.bug_fix]\nhalflife = 3",
                "types.bug_fix.halflife",
                "half_life_days, weight, recency_window_days, recency_max_boost, recency_rate",
            ),
            (
                "[search]\nprofile = \"x\"",
                "search",
                "storage_strategy, default_type, privacy, types",
            ),
        ];
        for (text, key, allowed) in cases {
            let err = load_vault_text(text).unwrap_err();
            let msg = err.to_string();
            assert!(matches!(err, ConfigError::UnknownKey { .. }), "{msg}");
            assert!(msg.starts_with(&format!("unknown key `{key}` in vault config ")), "{msg}");
            assert!(msg.ends_with(&format!("config.toml; allowed: {allowed}")), "{msg}");
        }
    }

    #[test]
    fn bad_type_names_are_rejected() {
        for name in ["\"Bug\"", "\"9lives\"", "\"bug-fix\"", "\"\"", "\"é\"", "_x"] {
            let err = load_vault_text(&format!("[types.{name}]\nweight = 1")).unwrap_err();
            let msg = err.to_string();
            assert!(matches!(err, ConfigError::InvalidTypeName { .. }), "{msg}");
            assert!(msg.contains("vault config "), "{msg}");
            assert!(msg.contains("allowed: a lowercase ASCII letter"), "{msg}");
        }
        let err = load_vault_text("[types.Bug]\nweight = 1").unwrap_err();
        assert_eq!(
            err.to_string().split(" in ").next().unwrap(),
            "invalid type name `Bug` at `types.Bug`"
        );
        assert!(load_vault_text("[types.a_1]\n[types.z]").is_ok());
    }

    #[test]
    fn default_type_may_name_a_type_from_another_layer() {
        let dir = tempfile::tempdir().unwrap();
        let user = write(dir.path(), "user.toml", "[types.meeting]\n");
        let env = env(&[("MEMLANE_DEFAULT_TYPE", "meeting")]);
        let inputs = ConfigInputs { user_file: Some(&user), env: &env, ..Default::default() };
        assert_eq!(LoadedConfig::load(&inputs).unwrap().config.default_type, "meeting");

        let err = load_env(&[("MEMLANE_DEFAULT_TYPE", "meeting")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid value \"meeting\" for `default_type` in env MEMLANE_DEFAULT_TYPE; allowed: \
             a known type (architecture, bug_fix, code_context, decision, document_chunk, fact, \
             journal, observation, plan, preference, reflection, session_summary) or a new type \
             defined with a [types.<name>] table"
        );
    }

    #[test]
    fn env_nesting_case_and_values() {
        let loaded = load_env(&[
            ("MEMLANE_STORAGE_STRATEGY", "user"),
            ("memlane_privacy__scrub_secrets", "false"),
            ("MEMLANE_TYPES__BUG_FIX__HALF_LIFE_DAYS", "60"),
            ("Memlane_Types__Meeting__Weight", " 0.5 "),
            ("MEMLANE_DEFAULT_TYPE", "\"meeting\""),
            ("PATH", "/bin"),
            ("MEMLANEX", "1"),
        ])
        .unwrap();
        let c = &loaded.config;
        assert_eq!(c.storage_strategy, StorageStrategy::User);
        assert!(!c.privacy.scrub_secrets);
        assert_eq!(c.type_profile("bug_fix").unwrap().half_life_days, 60.0);
        assert_eq!(c.type_profile("bug_fix").unwrap().weight, 1.3);
        assert_eq!(c.type_profile("meeting").unwrap().weight, 0.5);
        assert_eq!(c.default_type, "meeting");
        assert_eq!(
            loaded.sources["types.meeting.weight"],
            ConfigSource::Env("Memlane_Types__Meeting__Weight".to_owned())
        );
        assert_eq!(
            loaded.sources["privacy.scrub_secrets"].to_string(),
            "env memlane_privacy__scrub_secrets"
        );
    }

    #[test]
    fn env_string_keys_take_the_raw_text() {
        // `true` parses as a TOML boolean, but default_type takes a string.
        let dir = tempfile::tempdir().unwrap();
        let user = write(dir.path(), "user.toml", "[types.true]\n");
        let env = env(&[("MEMLANE_DEFAULT_TYPE", "true")]);
        let inputs = ConfigInputs { user_file: Some(&user), env: &env, ..Default::default() };
        assert_eq!(LoadedConfig::load(&inputs).unwrap().config.default_type, "true");
    }

    #[test]
    fn env_reserved_names_are_ignored() {
        let loaded = load_env(&[
            ("MEMLANE_VAULT", "/v"),
            ("MEMLANE_CONFIG", "/c.toml"),
            ("MEMLANE_LOG", "debug"),
            ("MEMLANE_NOW", "2026-01-01T00:00:00Z"),
            ("memlane_model", "/m"),
        ])
        .unwrap();
        assert_eq!(loaded.config, Config::default());
    }

    #[test]
    fn env_unknown_variables_are_errors() {
        for var in [
            "MEMLANE_COLOR",
            "MEMLANE_",
            "MEMLANE_TYPES_BUG_FIX_WEIGHT",
            "MEMLANE_TYPES__BUG_FIX",
            "MEMLANE_TYPES__BUG_FIX__HALFLIFE",
            "MEMLANE_TYPES____WEIGHT",
            "MEMLANE_PRIVACY__SCRUB",
            "MEMLANE_PRIVACY",
            "MEMLANE_STORAGE_STRATEGY__X",
        ] {
            let err = load_env(&[(var, "1")]).unwrap_err();
            let msg = err.to_string();
            assert!(matches!(err, ConfigError::UnknownEnv { .. }), "{msg}");
            assert!(
                msg.starts_with(&format!("environment variable {var} matches no config key; "))
            );
            assert!(msg.contains("MEMLANE_TYPES__<TYPE>__<FIELD>"), "{msg}");
            assert!(msg.contains("MEMLANE_PRIVACY__SCRUB_SECRETS"), "{msg}");
        }
    }

    #[test]
    fn env_value_errors_name_the_variable() {
        let err = load_env(&[("MEMLANE_TYPES__BUG_FIX__WEIGHT", "heavy")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid value \"heavy\" for `types.bug_fix.weight` in env \
             MEMLANE_TYPES__BUG_FIX__WEIGHT; allowed: a finite number >= 0"
        );
        let err = load_env(&[("MEMLANE_STORAGE_STRATEGY", "")]).unwrap_err();
        assert!(err.to_string().contains("in env MEMLANE_STORAGE_STRATEGY; allowed: \"project\""));
        let err = load_env(&[("MEMLANE_TYPES__BUG-FIX__WEIGHT", "1")]).unwrap_err();
        assert!(matches!(err, ConfigError::InvalidTypeName { .. }), "{err}");
        assert!(err.to_string().contains("env MEMLANE_TYPES__BUG-FIX__WEIGHT"), "{err}");
    }

    #[test]
    fn flag_errors_name_the_flag() {
        let flags =
            [("types.bug_fix.weight".to_owned(), Value::Float(-2.0), "--weight".to_owned())];
        let err = LoadedConfig::load(&ConfigInputs { flags: &flags, ..Default::default() });
        assert_eq!(
            err.unwrap_err().to_string(),
            "invalid value -2.0 for `types.bug_fix.weight` in flag --weight; allowed: a finite number >= 0"
        );
        let flags = [("nope".to_owned(), Value::Boolean(true), "--nope".to_owned())];
        let err = LoadedConfig::load(&ConfigInputs { flags: &flags, ..Default::default() });
        assert!(
            err.unwrap_err()
                .to_string()
                .starts_with("unknown key `nope` in flag --nope; allowed: ")
        );
    }

    #[test]
    fn files_missing_unreadable_or_broken() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.toml");

        let optional = ConfigInputs {
            user_file: Some(&missing),
            vault_file: Some(&missing),
            ..Default::default()
        };
        let loaded = LoadedConfig::load(&optional).unwrap();
        assert!(loaded.files.is_empty());
        assert_eq!(loaded.config, Config::default());

        let required = ConfigInputs { user_file_required: true, ..optional };
        let err = LoadedConfig::load(&required).unwrap_err();
        assert!(matches!(err, ConfigError::MissingFile { .. }));
        assert_eq!(
            err.to_string(),
            format!(
                "config file {} does not exist (named by MEMLANE_CONFIG); create it or point \
                 MEMLANE_CONFIG at an existing file",
                missing.display()
            )
        );

        let as_dir = ConfigInputs { vault_file: Some(dir.path()), ..Default::default() };
        let err = LoadedConfig::load(&as_dir).unwrap_err();
        assert!(matches!(err, ConfigError::Read { .. }), "{err:?}");
        assert!(
            err.to_string()
                .starts_with(&format!("cannot read config file {}", dir.path().display()))
        );

        let broken = write(dir.path(), "broken.toml", "[types.bug_fix]\nweight = = 2\n");
        let inputs = ConfigInputs { user_file: Some(&broken), ..Default::default() };
        let err = LoadedConfig::load(&inputs).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, ConfigError::Parse { .. }));
        assert!(
            msg.starts_with(&format!("cannot parse user config {}", broken.display())),
            "{msg}"
        );
        assert!(msg.contains("line 2, column"), "{msg}");

        let dup = write(dir.path(), "dup.toml", "weight = 1\nweight = 2\n");
        let inputs = ConfigInputs { vault_file: Some(&dup), ..Default::default() };
        assert!(matches!(LoadedConfig::load(&inputs), Err(ConfigError::Parse { .. })));
    }

    #[test]
    fn render_toml_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let user = write(
            dir.path(),
            "user config.toml",
            "storage_strategy = \"user\"\n[types.meeting]\nweight = 0.25\n",
        );
        let env = env(&[("MEMLANE_PRIVACY__SCRUB_SECRETS", "false")]);
        let flags = [("default_type".to_owned(), Value::from("meeting"), "--type".to_owned())];
        let inputs =
            ConfigInputs { user_file: Some(&user), env: &env, flags: &flags, ..Default::default() };
        let loaded = LoadedConfig::load(&inputs).unwrap();
        let rendered = loaded.render_toml();

        assert!(rendered.starts_with(&format!(
            "storage_strategy = \"user\"  # user config {}\ndefault_type = \"meeting\"  # flag --type\n\
             \n[privacy]\nscrub_secrets = false  # env MEMLANE_PRIVACY__SCRUB_SECRETS\n\
             \n[types.architecture]\nhalf_life_days = 365.0  # default\n",
            user.display()
        )));
        assert!(rendered.contains(&format!(
            "[types.meeting]\nhalf_life_days = 30.0  # default\nweight = 0.25  # user config {}\n",
            user.display()
        )));
        assert!(
            rendered
                .lines()
                .filter(|l| !l.is_empty() && !l.starts_with('['))
                .all(|l| l.contains("  # "))
        );

        let table: Table = rendered.parse().unwrap();
        assert_eq!(table.len(), 4);
        let reloaded = load_vault_text(&rendered).unwrap();
        assert_eq!(reloaded.config, loaded.config);

        let defaults = LoadedConfig::load(&ConfigInputs::default()).unwrap();
        assert_eq!(load_vault_text(&defaults.render_toml()).unwrap().config, Config::default());
    }

    #[test]
    fn render_toml_escapes_control_characters_in_sources() {
        let mut loaded = LoadedConfig::load(&ConfigInputs::default()).unwrap();
        loaded.sources.insert(
            "default_type".to_owned(),
            ConfigSource::VaultFile(PathBuf::from("/tmp/a\nb = 1")),
        );
        let reloaded = load_vault_text(&loaded.render_toml()).unwrap();
        assert_eq!(reloaded.config, Config::default());
    }

    #[test]
    fn to_json_shape() {
        let dir = tempfile::tempdir().unwrap();
        let vault = write(dir.path(), "config.toml", "[types.plan]\nweight = 2\n");
        let inputs = ConfigInputs { vault_file: Some(&vault), ..Default::default() };
        let json = LoadedConfig::load(&inputs).unwrap().to_json();
        assert_eq!(json["config"]["storage_strategy"], "project");
        assert_eq!(json["config"]["default_type"], "journal");
        assert_eq!(json["config"]["privacy"]["scrub_secrets"], true);
        assert_eq!(json["config"]["types"]["plan"]["weight"], 2.0);
        assert_eq!(json["config"]["types"]["document_chunk"]["recency_rate"], 1.0);
        assert_eq!(
            json["sources"]["types.plan.weight"],
            format!("vault config {}", vault.display())
        );
        assert_eq!(json["sources"]["storage_strategy"], "default");
        assert_eq!(json["files"], serde_json::json!([vault.to_string_lossy()]));
        let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["config", "sources", "files"]);
    }

    #[test]
    fn default_config_toml_loads_as_defaults() {
        let loaded = load_vault_text(DEFAULT_CONFIG_TOML).unwrap();
        assert_eq!(loaded.config, Config::default());
        assert!(loaded.sources.values().all(|s| *s == ConfigSource::Default));
        // Nothing but comments and section headers.
        let table: Table = DEFAULT_CONFIG_TOML.parse().unwrap();
        assert_eq!(table["privacy"].as_table().unwrap().len(), 0);
        assert_eq!(table["types"]["bug_fix"].as_table().unwrap().len(), 0);
    }

    #[test]
    fn default_config_toml_examples_are_valid_and_complete() {
        let setting = |line: &str| -> Option<String> {
            let rest = line.strip_prefix("# ")?;
            let (key, _) = rest.split_once(" = ")?;
            key.chars().all(|c| c.is_ascii_lowercase() || c == '_').then(|| key.to_owned())
        };
        let lines: Vec<&str> = DEFAULT_CONFIG_TOML.lines().collect();
        let mut keys = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let Some(key) = setting(line) else { continue };
            keys.push(key.clone());
            let mut edited = lines.clone();
            edited[i] = &line[2..];
            let loaded = load_vault_text(&edited.join("\n"))
                .unwrap_or_else(|e| panic!("uncommenting {line:?}: {e}"));
            // Each example is the built-in default and is recorded as set by the file.
            assert_eq!(loaded.config, Config::default(), "{line}");
            assert!(loaded.sources.values().any(|s| matches!(s, ConfigSource::VaultFile(_))));
        }
        let mut expected: Vec<&str> = vec!["storage_strategy", "default_type", "scrub_secrets"];
        expected.extend(PROFILE_KEYS);
        assert_eq!(keys, expected);

        let all: Vec<&str> =
            lines.iter().map(|l| if setting(l).is_some() { &l[2..] } else { l }).collect();
        let loaded = load_vault_text(&all.join("\n")).unwrap();
        assert_eq!(loaded.config, Config::default());
        assert_eq!(loaded.sources.values().filter(|s| **s != ConfigSource::Default).count(), 8);
    }

    #[test]
    fn default_user_config_path_ends_in_config_toml() {
        if let Some(path) = default_user_config_path() {
            assert!(path.ends_with("config.toml"));
            assert!(path.to_string_lossy().contains("memlane"));
        }
    }
}
