//! Writing a configuration out: `memlane config` ([`LoadedConfig::render_toml`],
//! [`LoadedConfig::to_json`]) and the default `config.toml` ([`default_config_toml`]). Both walk
//! the same declared keys ([`walk`]), so a new key appears in both without being written here.

use toml::Value;

use super::load::{ConfigSource, LoadedConfig};
use super::schema::{Key, Rule, Table};
use super::settings::{
    Config, EXAMPLE_TYPE, INTENTS_INTRO, INTENTS_KEY, Intent, NEW_TYPE_BASE, SECTIONS, TYPES_KEY,
};

/// The lines above the first setting of the default `config.toml`.
const TEMPLATE_HEADER: &str = "# memlane configuration for this vault.
#
# Every setting is optional: the commented lines show the built-in defaults.
# Precedence, lowest first: built-in defaults < user config file < this file
# < MEMLANE_* environment variables < command-line flags.
# Run `memlane config` to see the effective configuration and where each value comes from.
";

/// Comment lines of the default `config.toml` are wrapped before this many characters.
const TEMPLATE_WIDTH: usize = 96;

/// One step of a walk over a configuration, in the order it is written.
pub(super) enum Step<'a> {
    /// A table header: `header` is written between the brackets, `intro` (the comment above it
    /// in the default `config.toml`) before them.
    Table { header: String, intro: Vec<String> },
    /// A key of the table at the dotted path `table` (empty for the top level).
    Leaf { table: &'a str, key: &'static Key, value: Value },
}

/// Walks every key of `config` in output order: the top-level keys, each section of
/// `SECTIONS` (with `[search.intents.<intent>]` after `[search]`), then one `[types.<name>]`
/// table per type, or only type `only_type` when given.
pub(super) fn walk(config: &Config, only_type: Option<&str>, visit: &mut dyn FnMut(Step<'_>)) {
    leaves(config, "", visit);
    for section in SECTIONS {
        visit(Step::Table { header: section.name.to_owned(), intro: owned(section.intro) });
        leaves((section.get)(config), section.name, visit);
        if section.name == "search" {
            for (i, intent) in Intent::ALL.iter().enumerate() {
                let path = format!("search.{INTENTS_KEY}.{intent}");
                let intro = if i == 0 { INTENTS_INTRO } else { &[] };
                visit(Step::Table { header: path.clone(), intro: owned(intro) });
                leaves(&config.search.intents.get(*intent), &path, visit);
            }
        }
    }
    let mut first = true;
    for (name, profile) in &config.types {
        if only_type.is_some_and(|only| only != name) {
            continue;
        }
        let intro = if first { types_intro(config) } else { Vec::new() };
        first = false;
        visit(Step::Table { header: format!("{TYPES_KEY}.{}", toml_key(name)), intro });
        leaves(profile, &format!("{TYPES_KEY}.{name}"), visit);
    }
}

fn owned(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|s| (*s).to_owned()).collect()
}

fn leaves(table: &dyn Table, path: &str, visit: &mut dyn FnMut(Step<'_>)) {
    for key in table.keys() {
        if let Some(value) = table.get(key.name) {
            visit(Step::Leaf { table: path, key, value });
        }
    }
}

/// The comment above the `[types.<name>]` example of the default `config.toml`.
fn types_intro(config: &Config) -> Vec<String> {
    let list =
        format!("One table per memory type. Built-in types: {}.", config.type_names().join(", "));
    let mut lines = wrap(&list, TEMPLATE_WIDTH - 2);
    lines.push(
        "A table may set any subset of the fields below; the rest keep their built-in values."
            .to_owned(),
    );
    lines.push(format!(
        "A new type, such as [{TYPES_KEY}.meeting], takes the fields it does not set from \
         {NEW_TYPE_BASE}."
    ));
    lines
}

/// Greedy word wrap to lines of at most `width` characters.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines
}

/// The configuration file `memlane init` writes into a new vault (`.memories/config.toml`).
///
/// Every key is present but commented out with its built-in default and its documentation
/// above it, so the file loads as the defaults. Section headers stay uncommented: uncommenting
/// a single `# key = value` line is enough to change that value.
pub fn default_config_toml() -> String {
    let mut out = TEMPLATE_HEADER.to_owned();
    walk(&Config::default(), Some(EXAMPLE_TYPE), &mut |step| match step {
        Step::Table { header, intro } => {
            out.push('\n');
            for line in intro {
                out.push_str(&format!("# {line}\n"));
            }
            out.push_str(&format!("[{header}]\n"));
        }
        Step::Leaf { table, key, value } => {
            if table.is_empty() {
                out.push('\n');
            }
            for line in key.doc_lines() {
                out.push_str(&format!("# {line}\n"));
            }
            out.push_str(&format!("# {} = {value}\n", toml_key(key.name)));
        }
    });
    out
}

/// The dotted keys of every leaf of `config`.
pub(super) fn leaf_keys(config: &Config) -> Vec<String> {
    let mut keys = Vec::new();
    walk(config, None, &mut |step| {
        if let Step::Leaf { table, key, .. } = step {
            keys.push(join_key(table, key.name));
        }
    });
    keys
}

impl LoadedConfig {
    /// The effective configuration as TOML, each value followed by `  # <source>`.
    ///
    /// Top-level keys come first, then `[embedding]`, `[search]`, one
    /// `[search.intents.<intent>]` table per intent, `[lifecycle]`, `[mcp]`, `[privacy]`, and
    /// one `[types.<name>]` table per type in name order. The output loads back to the same
    /// [`Config`].
    pub fn render_toml(&self) -> String {
        let mut out = String::new();
        walk(&self.config, None, &mut |step| match step {
            Step::Table { header, .. } => out.push_str(&format!("\n[{header}]\n")),
            Step::Leaf { table, key, value } => {
                let path = join_key(table, key.name);
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
                out.push_str(&format!("{} = {value}  # {comment}\n", toml_key(key.name)));
            }
        });
        out
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

pub(super) fn join_key(prefix: &str, key: &str) -> String {
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

/// One config key as the configuration reference documents it (`memlane generate docs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyReference {
    /// The dotted key (`search.rrf_k`); a memory type's fields read `types.<name>.<field>`.
    pub key: String,
    /// The table header the key is written under (empty for the top level).
    pub table: String,
    /// The TOML type: `string`, `integer`, `float` (an integer is accepted too) or `boolean`.
    pub kind: &'static str,
    /// What the key accepts, in words (`an integer from 1 to 1024`).
    pub accepts: String,
    /// The built-in default, as TOML.
    pub default: String,
    /// The `MEMLANE_*` variable that sets it.
    pub env: String,
    /// What the key means, one line each (the comment `memlane init` writes above it).
    pub doc: Vec<String>,
}

/// Every key of the configuration, in the order `memlane init` writes them, each with what it
/// accepts, its default, its environment variable and its documentation: the declarations of
/// `settings.rs`, so the configuration reference cannot miss a key. The fields of a memory type
/// appear once, as `types.<name>.<field>` with the defaults of the type new types start from;
/// [`builtin_type_profiles`] lists every built-in type's numbers.
pub fn key_reference() -> Vec<KeyReference> {
    let mut out = Vec::new();
    walk(&Config::default(), Some(NEW_TYPE_BASE), &mut |step| {
        if let Step::Leaf { table, key, value } = step {
            let (table, path) = match table.strip_prefix(&format!("{TYPES_KEY}.")) {
                Some(_) => (format!("{TYPES_KEY}.<name>"), format!("{TYPES_KEY}.<name>")),
                None => (table.to_owned(), table.to_owned()),
            };
            let dotted = join_key(&path, key.name);
            let env = format!("MEMLANE_{}", dotted.replace('.', "__").to_ascii_uppercase());
            let kind = match key.rule {
                Rule::Choice(_) | Rule::Model | Rule::TypeName => "string",
                Rule::Bool => "boolean",
                Rule::Int(..) => "integer",
                Rule::Num(_) => "float",
            };
            out.push(KeyReference {
                key: dotted,
                table,
                kind,
                accepts: key.rule.allowed(),
                default: value.to_string(),
                env,
                doc: key.doc_lines().map(str::to_owned).collect(),
            });
        }
    });
    out
}

/// The comment above each table header of the default `config.toml`, by header as
/// [`KeyReference::table`] names it (`search`, `search.intents.general`, `types.<name>`), for the
/// tables that have one.
pub fn table_intros() -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    walk(&Config::default(), Some(NEW_TYPE_BASE), &mut |step| {
        if let Step::Table { header, intro } = step {
            if intro.is_empty() {
                return;
            }
            let header = if header.starts_with(&format!("{TYPES_KEY}.")) {
                format!("{TYPES_KEY}.<name>")
            } else {
                header
            };
            out.push((header, intro));
        }
    });
    out
}

/// Every built-in memory type with its profile, as `(field, default)` pairs in declaration
/// order: the table of types in the configuration reference.
pub fn builtin_type_profiles() -> Vec<(String, Vec<(&'static str, String)>)> {
    let config = Config::default();
    config
        .types
        .iter()
        .map(|(name, profile)| {
            let fields = profile
                .keys()
                .iter()
                .filter_map(|k| profile.get(k.name).map(|v| (k.name, v.to_string())))
                .collect();
            (name.clone(), fields)
        })
        .collect()
}
