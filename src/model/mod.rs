//! Plain data, no IO: memory names and ids, the frontmatter document model, time parsing.
//!
//! Everything here is a pure function of its inputs so it can be table- and property-tested.

pub mod conflict;
pub mod frontmatter;
pub mod links;
pub mod markdown;
pub mod name;
pub mod time;

pub use frontmatter::{Document, FrontmatterError, Meta};
pub use name::{MemoryId, MemoryName, NameError};
