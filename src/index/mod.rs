//! Derived indices: everything under `.memories/indices/`, rebuilt from the files at will.
//!
//! - [`chunk`] splits memories into sections; [`keyword`] is the tantivy BM25 index;
//!   [`vector`] the usearch index; [`embed`] the embedder trait and the built-in embedder;
//!   [`minilm`] the local sentence-transformer; [`select`] picks one from the config;
//!   [`hub`] downloads models (`memlane model pull`); [`prefix`] applies their query prefixes.
//! - [`manifest`] records what was indexed; [`store`] ties them together and keeps them fresh.

pub mod chunk;
pub(crate) mod confined_io;
pub mod embed;
pub mod embed_cache;
pub mod graph;
pub mod hub;
pub mod keyword;
pub mod manifest;
pub mod math;
pub mod minilm;
pub mod prefix;
pub mod select;
pub mod store;
pub mod vector;
