//! One module per command family; each holds its `*Args` and `run` functions.

pub(crate) mod config;
pub(crate) mod consolidate;
pub(crate) mod generate;
pub(crate) mod init;
pub(crate) mod lifecycle;
pub(crate) mod links;
pub(crate) mod list;
pub(crate) mod mcp;
pub(crate) mod memory;
pub(crate) mod model_hub;
pub(crate) mod search;
pub(crate) mod trash;
pub(crate) mod watch;
