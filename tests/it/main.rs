//! memlane's CLI tests: one test binary (like uv), real processes on temp copies of
//! `fixtures/vaults/…`.

mod common;

mod cli_basics;
mod config;
mod generated;
mod memories;
mod privacy;
mod safety;
mod trash_history;
