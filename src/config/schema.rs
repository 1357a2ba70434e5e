//! The machinery that lets every config key be declared once (in `settings.rs`): what a key
//! accepts ([`Rule`]), the per-key record ([`Key`]), the [`Table`] trait that reads and writes
//! keys by name, and the two macros that generate a table's struct, default, key list and
//! accessors (`config_table!`) and a config enum's names and parsing (`config_enum!`).

use toml::Value;

/// One key of a config table: its name, its documentation (the comment lines `memlane init`
/// writes above it, also its rustdoc) and what it accepts.
#[derive(Debug)]
pub(crate) struct Key {
    /// The key as written in TOML.
    pub name: &'static str,
    /// The documentation, one entry a line (each as written after `///`, so with a leading
    /// space).
    pub doc: &'static [&'static str],
    /// What the key accepts.
    pub rule: Rule,
}

impl Key {
    /// The documentation lines without the leading space rustdoc keeps.
    pub fn doc_lines(&self) -> impl Iterator<Item = &'static str> {
        self.doc.iter().map(|line| line.strip_prefix(' ').unwrap_or(line))
    }
}

/// A config table whose keys are read and written by name. `get` returns `None` and `set`
/// ignores keys the table does not have; `set` takes values [`Rule::allows`] accepted.
pub(crate) trait Table {
    /// The table's keys, in the order they are written.
    fn keys(&self) -> &'static [Key];
    /// The names of the table's sub-tables (written after its keys).
    fn tables(&self) -> &'static [&'static str];
    /// The value of `key`.
    fn get(&self, key: &str) -> Option<Value>;
    /// Sets `key` from a validated value.
    fn set(&mut self, key: &str, value: &Value);
}

/// A Rust value a config key holds, converted to and from TOML.
pub(crate) trait ConfigValue: Sized {
    fn to_value(&self) -> Value;
    /// `None` for a value of the wrong type (never produced by validated config).
    fn from_value(value: &Value) -> Option<Self>;
}

impl ConfigValue for f64 {
    fn to_value(&self) -> Value {
        Value::Float(*self)
    }

    fn from_value(value: &Value) -> Option<Self> {
        number(value)
    }
}

impl ConfigValue for bool {
    fn to_value(&self) -> Value {
        Value::Boolean(*self)
    }

    fn from_value(value: &Value) -> Option<Self> {
        value.as_bool()
    }
}

impl ConfigValue for String {
    fn to_value(&self) -> Value {
        Value::String(self.clone())
    }

    fn from_value(value: &Value) -> Option<Self> {
        value.as_str().map(str::to_owned)
    }
}

macro_rules! integer_value {
    ($($ty:ty),+) => {$(
        impl ConfigValue for $ty {
            /// Values past `i64::MAX` (never produced by validated config) saturate.
            fn to_value(&self) -> Value {
                Value::Integer(i64::try_from(*self).unwrap_or(i64::MAX))
            }

            fn from_value(value: &Value) -> Option<Self> {
                value.as_integer().and_then(|i| Self::try_from(i).ok())
            }
        }
    )+};
}

integer_value!(usize, u64);

/// What a config key accepts.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Rule {
    /// One of these strings.
    Choice(&'static [&'static str]),
    /// `embedding.model`: a non-blank string (`"auto"`, `"builtin"`, a model directory or
    /// `"static:FILE"`; the directory or file is checked by the loader, which names it in its
    /// error).
    Model,
    /// `default_type`: a string (whether the type exists is checked once all layers are merged).
    TypeName,
    /// `true` or `false`.
    Bool,
    /// A TOML integer (not a float) from the first to the second bound, inclusive.
    Int(i64, i64),
    /// A finite number, integer or float, in this range.
    Num(Range),
}

/// The range of a [`Rule::Num`] key.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Range {
    /// [0, 1]
    Unit,
    /// (0, 1)
    OpenUnit,
    /// (0, 1]
    PositiveUnit,
    /// > 0
    Positive,
    /// >= 0
    NonNegative,
    /// > 0, a number of days.
    PositiveDays,
    /// >= 0, a number of days where 0 turns the recency boost off.
    RecencyDays,
}

impl Rule {
    pub fn allows(self, value: &Value) -> bool {
        match self {
            Self::Choice(names) => value.as_str().is_some_and(|s| names.contains(&s)),
            Self::Model => value.as_str().is_some_and(|s| !s.trim().is_empty()),
            Self::TypeName => value.is_str(),
            Self::Bool => value.is_bool(),
            Self::Int(min, max) => value.as_integer().is_some_and(|i| (min..=max).contains(&i)),
            Self::Num(range) => number(value).is_some_and(|x| x.is_finite() && range.contains(x)),
        }
    }

    /// The "allowed" text of an invalid-value error.
    pub fn allowed(self) -> String {
        match self {
            Self::Choice(names) => quoted_list(names),
            Self::Model => "\"auto\", \"builtin\", the path of a sentence-transformer model \
                            directory, or \"static:\" and the path of a table from `memlane \
                            model distill`, as a string"
                .to_owned(),
            Self::TypeName => "a type name as a string, e.g. \"journal\"".to_owned(),
            Self::Bool => "true or false".to_owned(),
            Self::Int(min, i64::MAX) => format!("an integer >= {min}"),
            Self::Int(min, max) => format!("an integer from {min} to {max}"),
            Self::Num(range) => range.allowed().to_owned(),
        }
    }

    /// Whether an environment value for this key is taken as text even when it parses as TOML.
    pub fn is_string(self) -> bool {
        matches!(self, Self::Choice(_) | Self::Model | Self::TypeName)
    }
}

impl Range {
    fn contains(self, x: f64) -> bool {
        match self {
            Self::Unit => (0.0..=1.0).contains(&x),
            Self::OpenUnit => x > 0.0 && x < 1.0,
            Self::PositiveUnit => x > 0.0 && x <= 1.0,
            Self::Positive | Self::PositiveDays => x > 0.0,
            Self::NonNegative | Self::RecencyDays => x >= 0.0,
        }
    }

    fn allowed(self) -> &'static str {
        match self {
            Self::Unit => "a number from 0 to 1",
            Self::OpenUnit => "a number greater than 0 and less than 1",
            Self::PositiveUnit => "a number greater than 0 and at most 1",
            Self::Positive => "a finite number > 0",
            Self::NonNegative => "a finite number >= 0",
            Self::PositiveDays => "a finite number of days > 0",
            Self::RecencyDays => "a finite number of days >= 0 (0 turns the recency boost off)",
        }
    }
}

/// `"a", "b" or "c"`.
pub(crate) fn quoted_list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

/// A TOML number as `f64`.
pub(crate) fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Float(x) => Some(*x),
        // Integers are accepted where floats go; config numbers are far below 2^53.
        Value::Integer(i) => Some(*i as f64),
        _ => None,
    }
}

/// A name that is not one of a config enum's values, e.g. `"fast".parse::<SearchProfile>()`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} {value:?}; allowed: {}", .allowed.join(", "))]
pub struct ParseEnumError {
    /// What was being parsed, e.g. `search profile`.
    pub what: &'static str,
    /// The text that matched no value.
    pub value: String,
    /// Every accepted name.
    pub allowed: &'static [&'static str],
}

/// Declares a config table once: the struct (each key's `///` lines are both its rustdoc and
/// the comment `memlane init` writes above it), its `Default`, its key list `KEYS` (with each
/// key's [`Rule`]), the names of its sub-tables `TABLES`, and its [`Table`] accessors.
///
/// ```ignore
/// config_table! {
///     /// Struct docs.
///     #[derive(Debug, Clone, PartialEq, Serialize)]
///     pub struct Example {
///         keys {
///             /// Number of results (1 to 1000).
///             limit: usize = 5, Rule::Int(1, 1000);
///         }
///         tables {
///             /// A nested table, with its default.
///             intents: IntentWeights = IntentWeights::default();
///         }
///     }
/// }
/// ```
macro_rules! config_table {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            keys {
                $(
                    $(#[doc = $doc:literal])+
                    $key:ident : $ty:ty = $default:expr, $rule:expr;
                )*
            }
            $(tables {
                $(
                    $(#[doc = $tdoc:literal])+
                    $table:ident : $tty:ty = $tdefault:expr;
                )*
            })?
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $($(#[doc = $doc])+ pub $key: $ty,)*
            $($($(#[doc = $tdoc])+ pub $table: $tty,)*)?
        }

        impl Default for $name {
            fn default() -> Self {
                Self { $($key: $default,)* $($($table: $tdefault,)*)? }
            }
        }

        impl $name {
            /// The keys of this table, in the order they are written.
            pub(crate) const KEYS: &'static [$crate::config::schema::Key] = &[$(
                $crate::config::schema::Key {
                    name: stringify!($key),
                    doc: &[$($doc),+],
                    rule: $rule,
                },
            )*];
            /// The names of this table's sub-tables, after its keys.
            pub(crate) const TABLES: &'static [&'static str] = &[$($(stringify!($table)),*)?];
        }

        impl $crate::config::schema::Table for $name {
            fn keys(&self) -> &'static [$crate::config::schema::Key] {
                Self::KEYS
            }

            fn tables(&self) -> &'static [&'static str] {
                Self::TABLES
            }

            fn get(&self, key: &str) -> Option<toml::Value> {
                use $crate::config::schema::ConfigValue;
                match key {
                    $(stringify!($key) => Some(self.$key.to_value()),)*
                    _ => None,
                }
            }

            fn set(&mut self, key: &str, value: &toml::Value) {
                use $crate::config::schema::ConfigValue;
                match key {
                    $(stringify!($key) => {
                        if let Some(x) = ConfigValue::from_value(value) {
                            self.$key = x;
                        }
                    })*
                    _ => {}
                }
            }
        }
    };
}

/// A word-valued setting or option declared once with `config_enum!` (in `settings.rs`): its
/// values, each with the name config files, flags and JSON use and a one-line description. The
/// command line's value parsers and completions, the MCP schemas' `enum` lists, the help text
/// and the config validation all read it from here.
pub trait ConfigEnum:
    Copy + Send + Sync + 'static + std::str::FromStr<Err = ParseEnumError>
{
    /// What one value is called in messages (`intent`, `search profile`).
    const WHAT: &'static str;
    /// Every value, in documentation order.
    fn all() -> &'static [Self];
    /// Every value's name, in documentation order.
    fn names() -> &'static [&'static str];
    /// The name used in config files, on the command line and in JSON.
    fn name(self) -> &'static str;
    /// What the value means, in one line (its rustdoc).
    fn describe(self) -> &'static str;
}

/// `lead`, then every value of `T` with its description, one sentence each (`What kind of search.
/// general: No particular intent (the default). recall: …`): a parameter's description for a
/// schema that lists the values from their one declaration.
pub fn describe_values<T: ConfigEnum>(lead: &str) -> String {
    let mut text = lead.trim_end_matches('.').to_owned();
    text.push('.');
    for v in T::all() {
        text.push_str(&format!(" {}: {}", v.name(), v.describe()));
    }
    text
}

/// Declares a config enum once: the enum (each value's `///` lines are both its rustdoc and its
/// [`description`](ConfigEnum::describe)), its `Default` (when `default = Variant` is given),
/// `ALL`, `NAMES`, `as_str`, `description`, `Display`, `FromStr` (exact, lowercase names),
/// [`ConfigValue`] and [`ConfigEnum`].
///
/// ```ignore
/// config_enum! {
///     /// Enum docs.
///     #[derive(Debug, Clone, Copy, PartialEq, Eq)]
///     pub enum Example("example", default = One) {
///         /// The first value.
///         One = "one",
///         /// The second value.
///         Two = "two",
///     }
/// }
/// ```
macro_rules! config_enum {
    (
        $(#[$meta:meta])*
        pub enum $ty:ident ($what:literal $(, default = $default:ident)?) {
            $(
                $(#[doc = $doc:literal])+
                $variant:ident = $name:literal
            ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        pub enum $ty {
            $($(#[doc = $doc])+ $variant,)+
        }

        $(
            impl Default for $ty {
                fn default() -> Self {
                    Self::$default
                }
            }
        )?

        impl $ty {
            /// Every value, in documentation order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];
            /// Every value's name, in documentation order.
            pub const NAMES: &'static [&'static str] = &[$($name),+];

            /// The name used in config files, on the command line and in JSON.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)+
                }
            }

            /// What the value means, in one line (its rustdoc).
            pub const fn description(self) -> &'static str {
                match self {
                    $(Self::$variant => concat!($($doc),+).trim_ascii(),)+
                }
            }
        }

        impl $crate::config::schema::ConfigEnum for $ty {
            const WHAT: &'static str = $what;

            fn all() -> &'static [Self] {
                Self::ALL
            }

            fn names() -> &'static [&'static str] {
                Self::NAMES
            }

            fn name(self) -> &'static str {
                self.as_str()
            }

            fn describe(self) -> &'static str {
                self.description()
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $ty {
            type Err = $crate::config::schema::ParseEnumError;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($name => Ok(Self::$variant),)+
                    _ => Err($crate::config::schema::ParseEnumError {
                        what: $what,
                        value: s.to_owned(),
                        allowed: Self::NAMES,
                    }),
                }
            }
        }

        impl $crate::config::schema::ConfigValue for $ty {
            fn to_value(&self) -> toml::Value {
                toml::Value::String(self.as_str().to_owned())
            }

            fn from_value(value: &toml::Value) -> Option<Self> {
                value.as_str().and_then(|s| s.parse().ok())
            }
        }
    };
}

pub(crate) use {config_enum, config_table};
