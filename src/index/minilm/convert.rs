//! Half-precision weights converted to f32 once, when a model is installed.
//!
//! Many models on the hub ship `model.safetensors` in f16 or bf16. memlane computes in f32, so
//! such a file would be converted at every load: the whole word-embedding table read and
//! widened, where an f32 file lets a fresh process read only the rows its tokens need (see
//! [`super::encoder`]). `memlane model pull` and `memlane model import` therefore write the
//! installed copy in f32 (the values are the same: widening a half-precision number is exact),
//! so every later load takes the fast path.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use candle_core::{DType, Device, Tensor};

use super::{ModelError, WEIGHTS_FILE};
use crate::error::IoResultExt;

/// Rewrites `dir/model.safetensors` with every floating-point tensor in f32 when some are not
/// (f16, bf16, f64); integer tensors are kept as they are. Returns whether the file changed.
/// The new file is written beside the old one, synced, and renamed over it.
pub(crate) fn weights_to_f32(dir: &Path) -> Result<bool, ModelError> {
    let path = dir.join(WEIGHTS_FILE);
    let bytes = fs::read(&path).at("read", &path)?;
    let tensors = candle_core::safetensors::load_buffer(&bytes, &Device::Cpu)
        .map_err(|source| ModelError::Weights { path: path.clone(), source })?;
    drop(bytes);
    let widen = |t: &Tensor| matches!(t.dtype(), DType::F16 | DType::BF16 | DType::F64);
    if !tensors.values().any(widen) {
        return Ok(false);
    }
    let converted: HashMap<String, Tensor> = tensors
        .into_iter()
        .map(|(name, t)| {
            let t = if widen(&t) { t.to_dtype(DType::F32)? } else { t };
            Ok((name, t))
        })
        .collect::<candle_core::Result<_>>()
        .map_err(|source| ModelError::Weights { path: path.clone(), source })?;
    let tmp = dir.join(format!(".{WEIGHTS_FILE}.f32.tmp"));
    let written = candle_core::safetensors::save(&converted, &tmp)
        .map_err(|source| ModelError::Weights { path: path.clone(), source })
        .and_then(|()| {
            fs::File::open(&tmp).and_then(|f| f.sync_all()).at("write", &tmp)?;
            fs::rename(&tmp, &path).at("rename", &tmp)?;
            Ok(())
        });
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written.map(|()| true)
}
