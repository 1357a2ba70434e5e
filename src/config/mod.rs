//! Layered configuration: built-in defaults, the user config file, the vault's
//! `.memories/config.toml`, `MEMLANE_*` environment variables and command-line flags.
//!
//! Precedence, lowest first: defaults < user file < vault file < environment < flags. Every leaf
//! value remembers which layer set it ([`LoadedConfig::sources`]), so `memlane config` can show
//! where each number came from.
//!
//! Where things live:
//! - `settings.rs` declares every key once (name, type, default, documentation, rule) with the
//!   `config_table!` macro of `schema.rs`; everything else is generated from those declarations.
//! - `load.rs` reads the layers, merges them leaf by leaf and builds the [`Config`];
//!   `validate.rs` checks each layer on its own; `render.rs` writes `memlane config` and the
//!   default `config.toml` ([`default_config_toml`]).
//!
//! Each layer is read as a [`toml::Table`] and validated on its own before it is merged, so an
//! error always names the file, variable or flag that caused it, the key as a dotted path
//! (`types.bug_fix.weight`), the bad value and what is allowed. Layers merge leaf by leaf: a
//! `[types.bug_fix]` table that sets only `half_life_days` keeps the other numbers of the layers
//! below it, and in the end of the built-in `bug_fix` profile. A type that is not built in takes
//! the fields no layer sets from the built-in `journal` profile (not from an overridden one).
//!
//! Besides the top-level keys, the sections `[embedding]`, `[search]` (with one
//! `[search.intents.<intent>]` table per search intent), `[lifecycle]`, `[mcp]`, `[hooks]` and `[privacy]`
//! hold plain keys, and `[types.<name>]` one profile per memory type; every key is optional.
//!
//! This module does no discovery of its own beyond [`default_user_config_path`]: the caller
//! decides which files to read and passes the environment in, so tests never touch the process
//! environment. It knows nothing about clap; flags arrive as `(dotted key, value, flag name)`.

mod load;
mod render;
mod schema;
mod settings;
mod validate;

#[cfg(test)]
mod tests;

pub use load::{
    ConfigError, ConfigInputs, ConfigSource, LoadedConfig, default_user_config_path,
    unknown_env_vars,
};
pub use render::{
    KeyReference, builtin_type_profiles, default_config_toml, key_reference, table_intros,
};
pub use schema::{ConfigEnum, ParseEnumError, describe_values};
pub use settings::{
    ClockKind, Config, EmbeddingConfig, HooksConfig, Intent, IntentWeights, LifecycleConfig,
    McpConfig, McpTools, PrivacyConfig, SearchConfig, SearchProfile, StorageStrategy, TypeProfile,
    Weights,
};
