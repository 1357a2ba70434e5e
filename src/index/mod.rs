//! Derived indices (placeholder; being written).

pub mod chunk;
pub mod embed;
pub mod keyword;
pub mod minilm;
pub mod vector;
