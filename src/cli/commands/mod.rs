//! One module per command (a few small families share one); each holds its `*Args` and `run`.

pub(crate) mod add;
pub(crate) mod append;
pub(crate) mod config;
pub(crate) mod consolidate;
pub(crate) mod content;
pub(crate) mod edit;
pub(crate) mod generate;
pub(crate) mod init;
pub(crate) mod lifecycle;
pub(crate) mod links;
pub(crate) mod list;
pub(crate) mod mcp;
pub(crate) mod mv;
pub(crate) mod rm;
pub(crate) mod search;
pub(crate) mod show;
pub(crate) mod trash;
pub(crate) mod update;
pub(crate) mod watch;
