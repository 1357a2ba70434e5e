//! memlane's CLI tests: one test binary (like uv), real processes on temp copies of
//! `fixtures/vaults/…`.

mod common;

mod api;
mod atomicity;
mod cli_basics;
mod concurrency;
mod config;
mod consolidate;
mod embed_failure;
mod freshness;
mod generated;
mod graph;
mod hardening;
mod hints;
mod intents;
mod lifecycle;
mod mcp;
mod mcp_sdk;
mod mcp_tools;
mod memories;
mod model;
mod model_cache;
mod model_pull;
mod privacy;
mod read_only;
mod safety;
mod search;
mod search_quality;
mod trash_history;
mod ux;
mod vault_git;
mod watch;
