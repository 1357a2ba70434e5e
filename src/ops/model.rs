//! `model import`, `model pull` and `model list`: the local sentence-transformer models.
//!
//! The download itself (the Hugging Face Hub's API, resuming, checksums) is
//! [`crate::index::hub`]; these functions are the operations a front end calls, and a front end
//! only shows the progress it is given.

use std::path::{Path, PathBuf};

use crate::Error;
use crate::index::hub::{self, ModelRef, Progress};
use crate::index::select::{Choice, choose};

use super::wire::{ModelDistilled, ModelImported, ModelList, ModelRow, ModelUse, PullReport};
use crate::index::minilm::static_table::{self, DistillOptions};

/// Installs the sentence-transformer model directory `dir` as the default local model, the one
/// `[embedding] model = "auto"` then uses (rather than a model pulled before).
pub fn import(dir: &Path) -> crate::Result<ModelImported> {
    let dest = crate::index::select::default_model_dir().ok_or(Error::NoModelDir)?;
    let installed = crate::index::select::import_model(dir, &dest)?;
    hub::clear_default_pointer()?;
    Ok(ModelImported { installed })
}

/// Distils a static token table (see [`static_table`]) from the sentence-transformer model in
/// `from` (by default the model `[embedding] model = "auto"` would use) and writes it to `out`
/// atomically. Fails, writing nothing, when there is no model to distil from.
pub fn distill(
    from: Option<&Path>,
    out: &Path,
    options: DistillOptions,
) -> crate::Result<ModelDistilled> {
    let from = match from {
        Some(dir) => dir.to_owned(),
        None => match choose("auto") {
            Choice::Model(dir) => dir,
            _ => return Err(Error::NoModelToDistill),
        },
    };
    let model = crate::index::minilm::SentenceEmbedder::load(&from)
        .map_err(|e| Error::Model { path: from.clone(), source: Box::new(e) })?;
    let bytes = static_table::distill(&model, options)
        .map_err(|e| Error::Model { path: from.clone(), source: Box::new(e) })?;
    // Read back before it is written: what is written loads.
    let table = static_table::StaticEmbedder::from_bytes(out, &bytes)
        .map_err(|e| Error::Model { path: out.to_owned(), source: Box::new(e) })?;
    crate::disk::atomic_write(out, &bytes)?;
    let header = table.header();
    Ok(ModelDistilled {
        out: out.to_owned(),
        from,
        source_model: header.source_model.clone(),
        dims: header.dims,
        vocab: header.vocab,
        weighting: header.weighting.name().to_owned(),
        bytes: bytes.len() as u64,
        xxh3: format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes)),
    })
}

/// A pull about to start: what a front end names before the download starts.
#[derive(Debug, Clone)]
pub struct PullTarget {
    /// The model and revision.
    pub model: ModelRef,
    /// The hub it comes from.
    pub endpoint: String,
    /// Where models are installed.
    root: PathBuf,
}

/// The pull of `name` (`organisation/name[@revision]`, by default [`hub::DEFAULT_MODEL`]):
/// checks the name and finds where it goes, downloading nothing.
pub fn pull_target(name: Option<&str>) -> crate::Result<PullTarget> {
    let model = ModelRef::parse(name.unwrap_or(hub::DEFAULT_MODEL))?;
    let root = hub::models_root().ok_or(Error::NoModelDir)?;
    Ok(PullTarget { model, endpoint: hub::endpoint(), root })
}

/// Downloads `target`, verifies it and makes it the default local model (an interrupted pull
/// resumes), telling `progress` how the download goes.
pub fn pull(target: &PullTarget, progress: &mut dyn Progress) -> crate::Result<PullReport> {
    Ok(hub::pull(&target.root, &target.model, &target.endpoint, progress)?)
}

/// The installed models, the interrupted pulls, and the model `setting` (an `[embedding] model`
/// value) picks for the vault at `vault`, when there is a vault here.
pub fn list(vault: Option<&Path>, setting: &str) -> crate::Result<ModelList> {
    let root = hub::models_root().ok_or(Error::NoModelDir)?;
    Ok(list_in(&root, vault, setting))
}

fn list_in(root: &Path, vault: Option<&Path>, setting: &str) -> ModelList {
    let choice = choose(setting);
    let used = |dir: &Path| match &choice {
        Choice::Model(d) => same_dir(d, dir),
        Choice::Builtin | Choice::Static(_) => false,
    };
    let models = hub::installed_models(root)
        .into_iter()
        .map(|m| ModelRow {
            used_by_vault: vault.is_some() && used(&m.dir),
            name: m.name,
            dir: m.dir,
            commit: m.commit,
            bytes: m.bytes,
            auto: m.auto,
        })
        .collect();
    let vault = vault.map(|v| {
        let (uses, builtin) = match &choice {
            Choice::Builtin => (PathBuf::from("builtin"), true),
            Choice::Model(d) | Choice::Static(d) => (d.clone(), false),
        };
        ModelUse { root: v.to_owned(), setting: setting.to_owned(), uses, builtin }
    });
    ModelList { models, interrupted: hub::interrupted_pulls(root), vault }
}

/// Whether `a` and `b` are the same directory.
fn same_dir(a: &Path, b: &Path) -> bool {
    a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_model_name_is_refused_before_anything_is_downloaded() {
        let err = pull_target(Some("not a model")).unwrap_err();
        assert!(matches!(err, Error::Hub(hub::HubError::BadName(_))), "{err:?}");
        assert_eq!(err.kind(), crate::ErrorKind::Invalid);
        let target = pull_target(Some("BAAI/bge-small-en-v1.5@v1")).unwrap();
        assert_eq!(
            (target.model.repo.as_str(), target.model.revision.as_str()),
            ("BAAI/bge-small-en-v1.5", "v1")
        );
    }

    #[test]
    fn an_empty_models_folder_lists_nothing_and_the_vault_uses_the_builtin_embedder() {
        let dir = tempfile::tempdir().unwrap();
        let listed = list_in(dir.path(), None, "builtin");
        assert!(listed.models.is_empty() && listed.interrupted.is_empty());
        assert!(listed.vault.is_none());
        let vault = dir.path().join(".memories");
        let listed = list_in(dir.path(), Some(&vault), "builtin");
        let used = listed.vault.expect("a vault here is listed");
        assert!(used.builtin && used.uses == Path::new("builtin"), "{used:?}");
        assert_eq!((used.root, used.setting.as_str()), (vault, "builtin"));
    }
}
