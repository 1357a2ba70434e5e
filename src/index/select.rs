//! Choosing the embedder: `[embedding] model = "auto" | "builtin" | "static:<file>" | <path>`.
//!
//! `auto` (the default) uses the model installed last by `memlane model pull` or
//! `memlane model import` when there is one and the built-in embedder otherwise. A hub name
//! (`BAAI/bge-small-en-v1.5`) names a model `memlane model pull` installed. A model named by path — or an installed model that no longer
//! loads — is an error naming the path, never a silent fallback: switching embedders would
//! re-embed the whole vault and change every result.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use super::embed::{BuiltinEmbedder, Embedder};
use super::minilm::static_table::StaticEmbedder;
use super::minilm::{ModelError, SentenceEmbedder};
use crate::config::Config;
use crate::error::{Error, IoResultExt as _};

/// Where `memlane model import` installs the default model.
pub fn default_model_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "memlane").map(|d| d.data_dir().join("models/default"))
}

/// Which embedder `model` selects, without loading it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// The built-in embedder.
    Builtin,
    /// A sentence-transformer model directory.
    Model(PathBuf),
    /// A static token table file made by `memlane model distill`.
    Static(PathBuf),
}

/// Resolves the `embedding.model` setting.
pub fn choose(model: &str) -> Choice {
    let model = model.trim();
    if let Some(path) = model.strip_prefix("static:") {
        return Choice::Static(PathBuf::from(path));
    }
    match model {
        "builtin" => Choice::Builtin,
        "auto" => {
            match super::hub::default_pulled_dir().or_else(super::minilm::installed_model_dir) {
                Some(dir) => Choice::Model(dir),
                None => Choice::Builtin,
            }
        }
        // A directory of that name wins over a pulled model of the same name.
        name if super::hub::is_repo_name(name) && !Path::new(name).is_dir() => {
            match super::hub::installed_dir(name) {
                Some(dir) => Choice::Model(dir),
                None => Choice::Model(PathBuf::from(name)),
            }
        }
        path => Choice::Model(PathBuf::from(path)),
    }
}

fn model_error(dir: &Path, e: ModelError) -> Error {
    Error::Model { path: dir.to_owned(), source: Box::new(e) }
}

/// A model opened by [`prepare`], handed to the next [`embedder_for`] of the same directory.
static PREPARED: Mutex<Option<(PathBuf, Arc<SentenceEmbedder>)>> = Mutex::new(None);

/// For a command that will embed (a search, a write checked for duplicates): opens the model
/// the config asks for and starts loading its weights on another thread, so the load overlaps
/// the command's other work; the next [`embedder_for`] returns that model. With `query` (a
/// search's), that thread embeds it as [`Embedder::embed_query`] will ask, as soon as the model
/// is loaded. Errors are left for [`embedder_for`] to report.
pub fn prepare(config: &Config, query: Option<&str>) {
    let Choice::Model(dir) = choose(&config.embedding.model) else { return };
    let Ok(model) = SentenceEmbedder::open(&dir) else { return };
    let model = Arc::new(model);
    let query = query.map(|q| format!("{}{q}", super::prefix::prompts_for(&dir).query));
    model.warm_up(query.as_deref());
    *PREPARED.lock().unwrap_or_else(PoisonError::into_inner) = Some((dir, model));
}

/// Loads the embedder the config asks for.
pub fn embedder_for(config: &Config) -> crate::Result<Arc<dyn Embedder>> {
    match choose(&config.embedding.model) {
        Choice::Builtin => Ok(Arc::new(BuiltinEmbedder::new())),
        Choice::Static(path) => {
            Ok(Arc::new(StaticEmbedder::open(&path).map_err(|e| model_error(&path, e))?))
        }
        Choice::Model(dir) => {
            let prepared = PREPARED.lock().unwrap_or_else(PoisonError::into_inner).take();
            let model: Arc<dyn Embedder> = match prepared {
                Some((d, m)) if d == dir => m,
                // Lazily: a command that never embeds never reads the weights.
                _ => Arc::new(SentenceEmbedder::open(&dir).map_err(|e| model_error(&dir, e))?),
            };
            let _ = config.embedding.batch_size; // the model batches internally
            Ok(super::prefix::Prefixed::wrap(model, super::prefix::prompts_for(&dir)))
        }
    }
}

/// Installs the model at `src` as the default local model (validated by loading it first).
///
/// The model's `config_sentence_transformers.json`, which holds its query and document prefixes
/// ([`super::prefix`]), is copied too when there is one.
pub fn import_model(src: &Path, dest: &Path) -> crate::Result<PathBuf> {
    let installed = super::minilm::import_model(src, dest).map_err(|e| model_error(src, e))?;
    let name = "config_sentence_transformers.json";
    let (from, to) = (src.join(name), installed.join(name));
    if from.is_file() && !to.is_file() {
        let bytes = std::fs::read(&from).at("read", &from)?;
        crate::disk::atomic_write(&to, &bytes)?;
    }
    Ok(installed)
}
