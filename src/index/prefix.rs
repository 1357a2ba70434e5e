//! Query and document prefixes ("prompts") of sentence-transformer models.
//!
//! Some retrieval models are trained with a fixed text before each query (and sometimes before
//! each document), and rank worse without it: e5 (`query: ` / `passage: `), bge-*-en-v1.5 and
//! snowflake-arctic-embed (`Represent this sentence for searching relevant passages: ` before
//! queries only). The prefixes come from the model's own `config_sentence_transformers.json`
//! (`"prompts": {"query": …, "document" | "passage" | "corpus": …}`); when it has none, from the
//! known defaults of the model's repository (recorded by `memlane model pull`), listed in
//! [`known_prompts`]. all-MiniLM-L6-v2 has none, and its embedder is used as is.
//!
//! [`Prefixed`] wraps an embedder: documents get the document prefix through
//! [`Embedder::embed_batch`], queries the query prefix through [`Embedder::embed_query`]. Its id
//! adds a hash of both prefixes to the model's, so vectors made with other prefixes are never
//! mixed in.

use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;
use xxhash_rust::xxh3::xxh3_64;

use super::embed::{EmbedError, Embedder};
use super::minilm::SentenceEmbedder;

/// A model's query and document prefixes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prompts {
    /// Put before every search query.
    pub query: String,
    /// Put before every indexed chunk.
    pub document: String,
}

impl Prompts {
    /// Neither prefix is set.
    pub fn is_empty(&self) -> bool {
        self.query.is_empty() && self.document.is_empty()
    }
}

/// The instruction bge-*-en-v1.5 and snowflake-arctic-embed put before queries.
const SEARCH_INSTRUCTION: &str = "Represent this sentence for searching relevant passages: ";

/// Prefixes for models whose config does not carry them, by repository
/// (`organisation/name`, case-insensitive).
pub fn known_prompts(repo: &str) -> Prompts {
    let r = repo.to_ascii_lowercase();
    if r.starts_with("intfloat/e5-") || r.starts_with("intfloat/multilingual-e5-") {
        return Prompts { query: "query: ".into(), document: "passage: ".into() };
    }
    let bge_en = r.starts_with("baai/bge-") && r.contains("-en");
    if bge_en || r.starts_with("snowflake/snowflake-arctic-embed-") {
        return Prompts { query: SEARCH_INSTRUCTION.into(), document: String::new() };
    }
    Prompts::default()
}

#[derive(Debug, Default, Deserialize)]
struct StConfig {
    #[serde(default)]
    prompts: std::collections::BTreeMap<String, String>,
}

/// The prefixes of the model in `dir`: its `config_sentence_transformers.json` prompts, else the
/// known defaults of the repository a pull recorded. An unreadable config counts as none.
pub fn prompts_for(dir: &Path) -> Prompts {
    let config: StConfig = std::fs::read(dir.join("config_sentence_transformers.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let p = &config.prompts;
    let from_config = Prompts {
        query: p.get("query").cloned().unwrap_or_default(),
        document: ["document", "passage", "corpus"]
            .iter()
            .find_map(|k| p.get(*k).cloned())
            .unwrap_or_default(),
    };
    if !from_config.is_empty() {
        return from_config;
    }
    match super::hub::PulledModel::read(dir) {
        Some(m) => known_prompts(&m.repo),
        None => Prompts::default(),
    }
}

/// An embedder with a query and a document prefix.
pub struct Prefixed {
    inner: Arc<dyn Embedder>,
    prompts: Prompts,
    id: String,
}

impl Prefixed {
    /// Wraps `inner` (unless `prompts` is empty, in which case `inner` is returned unchanged).
    pub fn wrap(inner: Arc<dyn Embedder>, prompts: Prompts) -> Arc<dyn Embedder> {
        if prompts.is_empty() {
            return inner;
        }
        let id = prefixed_id(inner.id(), &prompts);
        Arc::new(Self { inner, prompts, id })
    }

    /// The prefixes applied.
    pub fn prompts(&self) -> &Prompts {
        &self.prompts
    }
}

fn prefixed_id(inner: &str, prompts: &Prompts) -> String {
    let h = xxh3_64(format!("{}\0{}", prompts.query, prompts.document).as_bytes());
    format!("{inner}:p{:08x}", h >> 32)
}

/// The id the embedder for the model in `dir` will have (the model's, with its prefixes).
pub fn embedder_id(model: &SentenceEmbedder, dir: &Path) -> String {
    let prompts = prompts_for(dir);
    if prompts.is_empty() { model.id().to_owned() } else { prefixed_id(model.id(), &prompts) }
}

impl Embedder for Prefixed {
    fn id(&self) -> &str {
        &self.id
    }

    fn dim(&self) -> usize {
        self.inner.dim()
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if self.prompts.document.is_empty() {
            return self.inner.embed_batch(texts);
        }
        let owned: Vec<String> =
            texts.iter().map(|t| format!("{}{t}", self.prompts.document)).collect();
        let refs: Vec<&str> = owned.iter().map(String::as_str).collect();
        self.inner.embed_batch(&refs)
    }

    fn embed_query(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        let q = format!("{}{text}", self.prompts.query);
        Ok(self.inner.embed_batch(&[q.as_str()])?.pop().unwrap_or_default())
    }

    fn cacheable(&self) -> bool {
        self.inner.cacheable()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::embed::BuiltinEmbedder;

    #[test]
    fn known_models_get_their_documented_prefixes() {
        assert_eq!(known_prompts("intfloat/e5-small-v2").query, "query: ");
        assert_eq!(known_prompts("intfloat/e5-small-v2").document, "passage: ");
        assert_eq!(known_prompts("BAAI/bge-small-en-v1.5").query, SEARCH_INSTRUCTION);
        assert_eq!(known_prompts("BAAI/bge-small-en-v1.5").document, "");
        assert_eq!(known_prompts("Snowflake/snowflake-arctic-embed-xs").query, SEARCH_INSTRUCTION);
        assert!(known_prompts("sentence-transformers/all-MiniLM-L6-v2").is_empty());
    }

    #[test]
    fn config_prompts_win_over_known_defaults() {
        let tmp = tempfile::tempdir().unwrap();
        assert!(prompts_for(tmp.path()).is_empty());
        std::fs::write(
            tmp.path().join("config_sentence_transformers.json"),
            r#"{"prompts": {"query": "q: ", "passage": "d: "}, "default_prompt_name": null}"#,
        )
        .unwrap();
        assert_eq!(
            prompts_for(tmp.path()),
            Prompts { query: "q: ".into(), document: "d: ".into() }
        );
    }

    #[test]
    fn prefixes_change_vectors_and_id_but_not_without_prompts() {
        let base: Arc<dyn Embedder> = Arc::new(BuiltinEmbedder::new());
        let same = Prefixed::wrap(base.clone(), Prompts::default());
        assert_eq!(same.id(), base.id());
        let wrapped = Prefixed::wrap(
            base.clone(),
            Prompts { query: "zebra ".into(), document: "giraffe ".into() },
        );
        assert_ne!(wrapped.id(), base.id());
        let one = |e: &Arc<dyn Embedder>, t: &str| e.embed_batch(&[t]).unwrap().remove(0);
        assert_eq!(wrapped.embed_query("auth").unwrap(), one(&base, "zebra auth"));
        assert_eq!(one(&wrapped, "auth"), one(&base, "giraffe auth"));
        assert_eq!(base.embed_query("auth").unwrap(), one(&base, "auth"));
    }
}
