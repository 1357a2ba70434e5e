//! memlane: a project-local long-term memory for AI agents and the people beside them.
//!
//! Memories are Markdown files with YAML frontmatter in `.memories/`; they are the source of
//! truth. Everything under `.memories/indices/` (keyword, vector and graph indices) and
//! `.memories/state/` (usage) is derived from them or local to one machine, and can be deleted.
//!
//! The repository's `docs/` folder explains the design for users and contributors:
//! `docs/architecture.md` (these layers, and where to make each kind of change),
//! `docs/internals/` (the file format, the ranking pipeline, the indices) and the references
//! generated from this code (`docs/reference/`).
//!
//! # Where things are
//!
//! The layers, each using only the ones above it:
//!
//! | module | what it holds |
//! |---|---|
//! | [`model`] | plain data, no IO: names, ids, frontmatter, links in text, time parsing |
//! | [`config`] | the layered configuration (built-in, user file, vault file, env, `-c`) |
//! | [`privacy`] | redaction of `<private>` blocks and secrets, before anything is written or shown |
//! | [`vault`] | `.memories/` on disk: discovery, reading, atomic writes, history, trash, locks |
//! | [`index`] | the derived indices: chunking, tantivy (BM25), usearch (vectors), petgraph (links), embedders, and the reconcile that keeps them fresh |
//! | [`search`] | the search pipeline: retrieval, score fusion, calibration, lifecycle stages, explain |
//! | [`lifecycle`] | usage state, temperature, importance, merge/split/summarize, views (tree, cold) |
//! | [`ops`] | **the operations**: one function per user-visible action, shared by every front end |
//! | [`watch`] | the filesystem watcher that keeps the indices fresh |
//! | [`gitmerge`] | git's merge driver for memory files, and its registration in a repository |
//! | [`mcp`] | the MCP server over stdio: tools that parse, call [`ops`], and return JSON |
//! | [`setup`] | the project files that connect an agent client (Claude Code, Cursor, VS Code, Gemini CLI, Codex) to `memlane mcp` |
//!
//! The binary's `src/cli/` (not part of this library) is the other front end: clap definitions,
//! one file per command in `src/cli/commands/`, each parsing its arguments, calling [`ops`] and
//! rendering the result.
//!
//! # Rules every change keeps
//!
//! - A front end parses, calls an [`ops`] function, and renders; business rules (validation,
//!   duplicate checks, usage tracking, the order of a write) live in [`ops`] and below.
//! - The JSON shapes (`--json`, MCP results) are defined once, in [`ops::wire`] and the serde
//!   types the operations return.
//! - Library errors are typed ([`Error`], with an [`ErrorKind`]): one variant per failure, with
//!   the data as fields, no `Invalid(String)`. They say what went wrong and never how to fix it:
//!   no `hint:` text, no `memlane …` command and no MCP tool name in a library message. Each front
//!   end adds the hint in its own words, in one place: `src/cli/hints.rs` (commands and flags,
//!   also for the CLI's own `CliError`s) and `mcp::hints` (tools and parameters). A warning or a
//!   `doctor` finding the library returns is a typed value too ([`vault::ScanProblem`],
//!   [`vault::GitignoreAdvice`]). A hint that names no command and no tool (`rename it`,
//!   `choose another name`) may stay in the library, on the value ([`vault::Unreachable::hint`],
//!   [`Error::neutral_hint`]), so that the front ends do not write it twice.
//! - Files are written atomically and all-or-nothing, through [`disk`] (one file, a group of
//!   files, a whole directory); the indices are never trusted over the files and are rebuilt when
//!   they disagree ([`index::store`]).
//! - An embedder that fails is an error ([`Error::Embed`]), never a placeholder vector: nothing
//!   derived from a failed embedding is stored.
//! - stdout carries results only; logs and warnings go to stderr; under `memlane mcp` stdout is
//!   JSON-RPC only.
#![warn(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod config;
pub mod disk;
pub mod error;
pub mod failpoint;
pub mod fresh;
pub mod gitmerge;
pub mod index;
pub mod lifecycle;
pub mod limits;
pub mod mcp;
mod par;
pub mod privacy;
pub mod search;
pub mod setup;
pub mod watch;

pub mod model;
pub mod ops;
pub mod vault;

pub use error::{Error, ErrorKind, Result};

#[cfg(test)]
mod fuzz_tests;
