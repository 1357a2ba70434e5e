//! One module per command (`pin` holds `pin` and `unpin`); `content` and `lifecycle`
//! hold what several commands share.

pub(crate) mod add;
pub(crate) mod append;
pub(crate) mod cold;
pub(crate) mod config;
pub(crate) mod content;
pub(crate) mod doctor;
pub(crate) mod edit;
pub(crate) mod generate;
pub(crate) mod history;
pub(crate) mod init;
pub(crate) mod lifecycle;
pub(crate) mod link;
pub(crate) mod linked;
pub(crate) mod list;
pub(crate) mod maintain;
pub(crate) mod mcp;
pub(crate) mod merge;
pub(crate) mod model_hub;
pub(crate) mod mv;
pub(crate) mod pin;
pub(crate) mod related;
pub(crate) mod relationships;
pub(crate) mod restore;
pub(crate) mod rm;
pub(crate) mod search;
pub(crate) mod show;
pub(crate) mod split;
pub(crate) mod suggest_merges;
pub(crate) mod summarize;
pub(crate) mod trash;
pub(crate) mod tree;
pub(crate) mod unlink;
pub(crate) mod update;
pub(crate) mod watch;
