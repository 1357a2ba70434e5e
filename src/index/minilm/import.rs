//! Installing a model: [`import_model`] copies a model directory into memlane's data directory.

use std::fs;
use std::path::{Path, PathBuf};

use super::{ModelError, SentenceEmbedder};
use crate::error::IoResultExt;

/// The model directory installed by `memlane model import`, if there is one:
/// `<user data dir>/memlane/models/default` when it contains `model.safetensors`.
///
/// The user data dir is the platform's (`$XDG_DATA_HOME` or `~/.local/share` on Linux,
/// `~/Library/Application Support` on macOS, `%APPDATA%` on Windows).
pub fn installed_model_dir() -> Option<PathBuf> {
    let dir = directories::ProjectDirs::from("", "", "memlane")?.data_dir().join("models/default");
    dir.join("model.safetensors").is_file().then_some(dir)
}

/// Copies the model in `src` to the directory `dest` (which it creates or replaces) and returns
/// `dest`.
///
/// `src` is loaded first, so a broken model is refused before anything is written. Only the
/// files the model needs are copied (`config.json`, `tokenizer.json`, `model.safetensors`, the
/// pooling config, and `sentence_bert_config.json` / `modules.json` when present). The copy is
/// made in a hidden temporary directory beside `dest` (half-precision weights widened to f32
/// there, read once instead of at every load) and renamed into place once complete; an
/// existing `dest` is moved aside only then and deleted after the rename, so a failure at any
/// point leaves either the old install or the new one, never a partial one. The CLI imports to
/// `<data dir>/models/default`, which is where [`installed_model_dir`] looks.
pub fn import_model(src: &Path, dest: &Path) -> Result<PathBuf, ModelError> {
    let model = SentenceEmbedder::load(src)?;
    if dest.file_name().is_none() {
        return Err(ModelError::BadDestination(dest.to_owned()));
    }
    let parent = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&parent).at("create", &parent)?;
    if let (Ok(a), Ok(b)) = (fs::canonicalize(src), fs::canonicalize(dest))
        && a == b
    {
        return Ok(dest.to_owned()); // already installed there
    }

    let tmp = crate::disk::staging_dir(dest, "importing");
    if tmp.exists() {
        fs::remove_dir_all(&tmp).at("remove", &tmp)?;
    }
    let installed = copy_model_files(src, &tmp, &model.files)
        .and_then(|()| super::convert::weights_to_f32(&tmp))
        .and_then(|converted| {
            crate::disk::install_dir(&tmp, dest).map_err(ModelError::from)?;
            Ok(converted)
        });
    match installed {
        Err(err) => {
            let _ = fs::remove_dir_all(&tmp);
            return Err(err);
        }
        // Weights widened to f32: the copy is loaded once (which records it), so later
        // processes open it without re-reading it.
        Ok(true) => {
            SentenceEmbedder::load(dest)?;
        }
        // The copy loads as the source did.
        Ok(false) => super::stamp::remember(dest, model.id(), &model.files),
    }
    Ok(dest.to_owned())
}

fn copy_model_files(src: &Path, tmp: &Path, files: &[PathBuf]) -> Result<(), ModelError> {
    fs::create_dir_all(tmp).at("create", tmp)?;
    for rel in files {
        let (from, to) = (src.join(rel), tmp.join(rel));
        if let Some(dir) = to.parent() {
            fs::create_dir_all(dir).at("create", dir)?;
        }
        fs::copy(&from, &to).at("copy", &from)?;
        // Flush before the rename makes the install visible.
        fs::File::open(&to).and_then(|f| f.sync_all()).at("write", &to)?;
    }
    Ok(())
}
