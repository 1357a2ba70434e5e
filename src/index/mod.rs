//! Derived indices (placeholder; being written).

pub mod chunk;
pub mod embed;
pub mod keyword;
