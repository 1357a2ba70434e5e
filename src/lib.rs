//! memlane: a project-local long-term memory for AI agents and the people beside them.
//!
//! (architecture overview: see README; filled in as modules land)
#![warn(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod config;
pub mod disk;
pub mod error;
pub mod failpoint;
pub mod index;
pub mod lifecycle;
pub mod limits;
pub mod mcp;
pub mod privacy;
pub mod search;
pub mod watch;

pub use error::{Error, Result};
pub mod model;
pub mod vault;

#[cfg(test)]
mod fuzz_tests;
