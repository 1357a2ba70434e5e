//! The BERT encoder, written on `candle-nn` building blocks, and pooling.
//!
//! Weights come from memory (a full load, which reads the whole file to hash it) or straight
//! from the file (a lazy open): then only the safetensors header is parsed up front, each
//! tensor is read with one positioned read, and the word-embedding table (half of a MiniLM
//! file) is never read whole: each forward pass reads the rows of its tokens.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Mutex;

use candle_core::{D, DType, Device, IndexOp, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, Module};

use super::config::BertConfig;
use super::kernels;
use super::{ModelError, Pooling};

/// Where the tensors are.
pub(super) enum Source {
    /// Already loaded (from the bytes a full load read).
    Memory(HashMap<String, Tensor>),
    /// In the file: name → (dtype, shape, absolute byte range).
    File { file: Mutex<File>, index: HashMap<String, (DType, Vec<usize>, u64, u64)> },
}

impl Source {
    /// Parses the safetensors header of `path` (8-byte length, JSON) without reading tensors.
    pub(super) fn open(path: &Path) -> candle_core::Result<Self> {
        let mut file = File::open(path)?;
        let mut len = [0u8; 8];
        file.read_exact(&mut len)?;
        let len = u64::from_le_bytes(len);
        let file_len = file.metadata()?.len();
        if len > file_len.saturating_sub(8) || len > 100 << 20 {
            return Err(candle_core::Error::Msg(format!("header length {len} is out of range")));
        }
        let mut header = vec![0u8; len as usize];
        file.read_exact(&mut header)?;
        let header: HashMap<String, serde_json::Value> = serde_json::from_slice(&header)
            .map_err(|e| candle_core::Error::Msg(format!("safetensors header: {e}")))?;
        let start = 8 + len;
        let mut index = HashMap::new();
        for (name, info) in header {
            if name == "__metadata__" {
                continue;
            }
            let bad = || candle_core::Error::Msg(format!("tensor `{name}`: malformed header"));
            let dtype = match info["dtype"].as_str().ok_or_else(bad)? {
                "F32" => DType::F32,
                "F16" => DType::F16,
                "BF16" => DType::BF16,
                "F64" => DType::F64,
                "I64" => DType::I64,
                "U8" => DType::U8,
                "U32" => DType::U32,
                other => {
                    return Err(candle_core::Error::Msg(format!(
                        "tensor `{name}`: unsupported dtype {other}"
                    )));
                }
            };
            let shape: Vec<usize> = info["shape"]
                .as_array()
                .ok_or_else(bad)?
                .iter()
                .map(|d| d.as_u64().map(|d| d as usize).ok_or_else(bad))
                .collect::<candle_core::Result<_>>()?;
            let offsets = info["data_offsets"].as_array().ok_or_else(bad)?;
            let (b, e) = match offsets.as_slice() {
                [b, e] => (b.as_u64().ok_or_else(bad)?, e.as_u64().ok_or_else(bad)?),
                _ => return Err(bad()),
            };
            let want = shape.iter().product::<usize>() * dtype.size_in_bytes();
            if e < b || (e - b) as usize != want || start + e > file_len {
                return Err(bad());
            }
            index.insert(name, (dtype, shape, start + b, start + e));
        }
        Ok(Source::File { file: Mutex::new(file), index })
    }

    fn contains(&self, name: &str) -> bool {
        match self {
            Source::Memory(m) => m.contains_key(name),
            Source::File { index, .. } => index.contains_key(name),
        }
    }

    fn shape(&self, name: &str) -> Option<Vec<usize>> {
        match self {
            Source::Memory(m) => m.get(name).map(|t| t.dims().to_vec()),
            Source::File { index, .. } => index.get(name).map(|i| i.1.clone()),
        }
    }

    fn read_range(file: &Mutex<File>, from: u64, to: u64) -> candle_core::Result<Vec<u8>> {
        let mut f = file.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        f.seek(SeekFrom::Start(from))?;
        let mut bytes = vec![0u8; (to - from) as usize];
        f.read_exact(&mut bytes)?;
        Ok(bytes)
    }

    fn load(&self, name: &str) -> candle_core::Result<Tensor> {
        match self {
            Source::Memory(m) => {
                m.get(name).cloned().ok_or_else(|| candle_core::Error::Msg(name.to_owned()))
            }
            Source::File { file, index } => {
                let (dtype, shape, from, to) =
                    index.get(name).ok_or_else(|| candle_core::Error::Msg(name.to_owned()))?;
                if *dtype == DType::F32 && cfg!(target_endian = "little") {
                    // Straight into the tensor's buffer: one copy from the page cache, not two.
                    let mut values = vec![0f32; ((to - from) / 4) as usize];
                    let mut f = file.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    f.seek(SeekFrom::Start(*from))?;
                    f.read_exact(bytemuck::cast_slice_mut(&mut values))?;
                    return Tensor::from_vec(values, shape.as_slice(), &Device::Cpu);
                }
                let bytes = Self::read_range(file, *from, *to)?;
                Tensor::from_raw_buffer(&bytes, *dtype, shape, &Device::Cpu)
            }
        }
    }
}

/// The word-embedding table: loaded, or rows read from the file as tokens need them.
pub(super) enum WordTable {
    Loaded(Embedding),
    OnDisk { file: Mutex<File>, offset: u64, rows: usize, hidden: usize },
}

impl WordTable {
    /// (b, l) u32 ids → (b, l, hidden).
    fn forward(&self, ids: &Tensor) -> candle_core::Result<Tensor> {
        let (file, offset, rows, hidden) = match self {
            WordTable::Loaded(e) => return e.forward(ids),
            WordTable::OnDisk { file, offset, rows, hidden } => (file, *offset, *rows, *hidden),
        };
        let (b, l) = ids.dims2()?;
        let flat = ids.flatten_all()?.to_vec1::<u32>()?;
        let mut unique: Vec<u32> = flat.clone();
        unique.sort_unstable();
        unique.dedup();
        let row_bytes = (hidden * 4) as u64;
        let mut table = Vec::with_capacity(unique.len() * hidden);
        let mut f = file.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut buf = vec![0u8; row_bytes as usize];
        for &id in &unique {
            if id as usize >= rows {
                return Err(candle_core::Error::Msg(format!("token id {id} out of range")));
            }
            f.seek(SeekFrom::Start(offset + u64::from(id) * row_bytes))?;
            f.read_exact(&mut buf)?;
            table.extend(buf.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])));
        }
        drop(f);
        let slot: HashMap<u32, u32> =
            unique.iter().enumerate().map(|(i, &id)| (id, i as u32)).collect();
        let local: Vec<u32> = flat.iter().map(|id| slot[id]).collect();
        let table = Tensor::from_vec(table, (unique.len(), hidden), &Device::Cpu)?;
        let local = Tensor::from_vec(local, b * l, &Device::Cpu)?;
        table.index_select(&local, 0)?.reshape((b, l, hidden))
    }
}

/// The safetensors tensors, with the name prefix (`""` or `"bert."`) the file uses.
pub(super) struct Weights<'a> {
    path: &'a Path,
    tensors: Source,
    prefix: &'static str,
}

impl<'a> Weights<'a> {
    pub(super) fn new(path: &'a Path, tensors: Source) -> Result<Self, ModelError> {
        const PROBE: &str = "embeddings.word_embeddings.weight";
        let prefix = ["", "bert."]
            .into_iter()
            .find(|p| tensors.contains(&format!("{p}{PROBE}")))
            .ok_or_else(|| ModelError::MissingTensor {
            path: path.to_owned(),
            name: PROBE.to_owned(),
        })?;
        Ok(Self { path, tensors, prefix })
    }

    /// The stored name of tensor `name` (without prefix), checked to have `shape`.
    fn resolve(&self, name: &str, shape: &[usize]) -> Result<String, ModelError> {
        let full = format!("{}{name}", self.prefix);
        // Original TensorFlow-converted BERT checkpoints call LayerNorm's parameters gamma/beta.
        let legacy = full
            .strip_suffix("LayerNorm.weight")
            .map(|p| format!("{p}LayerNorm.gamma"))
            .or_else(|| full.strip_suffix("LayerNorm.bias").map(|p| format!("{p}LayerNorm.beta")));
        let stored = if self.tensors.contains(&full) {
            full.clone()
        } else {
            legacy.filter(|l| self.tensors.contains(l)).ok_or_else(|| {
                ModelError::MissingTensor { path: self.path.to_owned(), name: full.clone() }
            })?
        };
        let found = self.tensors.shape(&stored).unwrap_or_default();
        if found != shape {
            return Err(ModelError::TensorShape {
                path: self.path.to_owned(),
                name: full,
                expected: shape.to_vec(),
                found,
            });
        }
        Ok(stored)
    }

    /// The tensor `name` (without prefix), checked to have `shape`, as f32.
    pub(super) fn get(&self, name: &str, shape: &[usize]) -> Result<Tensor, ModelError> {
        let stored = self.resolve(name, shape)?;
        self.tensors
            .load(&stored)
            .and_then(|t| t.to_dtype(DType::F32))
            .map_err(|source| ModelError::Weights { path: self.path.to_owned(), source })
    }

    /// The word-embedding table: left in the file when it is there as f32.
    fn word_table(&self, rows: usize, size: usize) -> Result<WordTable, ModelError> {
        let name = "embeddings.word_embeddings.weight";
        let stored = self.resolve(name, &[rows, size])?;
        if let Source::File { file, index } = &self.tensors
            && let Some((DType::F32, _, from, _)) = index.get(&stored)
        {
            let reopened = file
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .try_clone()
                .map_err(|e| ModelError::Weights {
                    path: self.path.to_owned(),
                    source: e.into(),
                })?;
            return Ok(WordTable::OnDisk {
                file: Mutex::new(reopened),
                offset: *from,
                rows,
                hidden: size,
            });
        }
        Ok(WordTable::Loaded(Embedding::new(self.get(name, &[rows, size])?, size)))
    }

    pub(super) fn linear(
        &self,
        name: &str,
        inputs: usize,
        outputs: usize,
    ) -> Result<Linear, ModelError> {
        let weight = self.get(&format!("{name}.weight"), &[outputs, inputs])?;
        let bias = self.get(&format!("{name}.bias"), &[outputs])?;
        Ok(Linear::new(weight, Some(bias)))
    }

    pub(super) fn layer_norm(
        &self,
        name: &str,
        size: usize,
        eps: f64,
    ) -> Result<LayerNorm, ModelError> {
        let weight = self.get(&format!("{name}.weight"), &[size])?;
        let bias = self.get(&format!("{name}.bias"), &[size])?;
        Ok(LayerNorm::new(weight, bias, eps))
    }

    pub(super) fn embedding(
        &self,
        name: &str,
        rows: usize,
        size: usize,
    ) -> Result<Embedding, ModelError> {
        Ok(Embedding::new(self.get(&format!("{name}.weight"), &[rows, size])?, size))
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) enum Activation {
    /// The exact, erf-based GELU (`gelu` in Hugging Face configs).
    GeluErf,
    /// The tanh approximation (`gelu_new`, `gelu_pytorch_tanh`).
    GeluTanh,
    Relu,
}

impl Activation {
    pub(super) fn parse(name: &str) -> Option<Self> {
        match name {
            "gelu" => Some(Self::GeluErf),
            "gelu_new" | "gelu_pytorch_tanh" => Some(Self::GeluTanh),
            "relu" => Some(Self::Relu),
            _ => None,
        }
    }

    fn kernel(self) -> kernels::Act {
        match self {
            Self::GeluErf => kernels::Act::GeluErf,
            Self::GeluTanh => kernels::Act::GeluTanh,
            Self::Relu => kernels::Act::Relu,
        }
    }
}

/// A linear layer whose bias is added by the fused pass that follows its matrix product.
pub(super) struct Dense {
    /// (outputs, inputs), as stored (gemm reads the transposed view as fast as a transposed
    /// copy, and a copy would cost the model load time).
    weight: Tensor,
    bias: Vec<f32>,
}

impl Dense {
    fn load(
        w: &Weights<'_>,
        name: &str,
        inputs: usize,
        outputs: usize,
    ) -> Result<Self, ModelError> {
        let l = w.linear(name, inputs, outputs)?;
        Self::from_linear(&l).map_err(ModelError::Inference)
    }

    fn from_linear(l: &Linear) -> candle_core::Result<Self> {
        let bias = match l.bias() {
            Some(b) => b.to_vec1::<f32>()?,
            None => vec![0.0; l.weight().dim(0)?],
        };
        Ok(Self { weight: l.weight().clone(), bias })
    }

    /// `x · weightᵀ` without the bias: (rows, inputs) → (rows, outputs).
    fn product(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        x.matmul(&self.weight.t()?)
    }
}

/// A layer norm's scale and shift.
pub(super) struct Norm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
    eps: f32,
}

impl Norm {
    fn load(w: &Weights<'_>, name: &str, size: usize, eps: f64) -> Result<Self, ModelError> {
        let n = w.layer_norm(name, size, eps)?;
        let vec = |t: &Tensor| t.to_vec1::<f32>().map_err(ModelError::Inference);
        let beta = match n.bias() {
            Some(b) => vec(b)?,
            None => vec![0.0; size],
        };
        Ok(Self { gamma: vec(n.weight())?, beta, eps: eps as f32 })
    }
}

/// The f32 slice a contiguous CPU tensor's storage holds.
fn f32_slice<'a>(
    storage: &'a candle_core::CpuStorage,
    layout: &candle_core::Layout,
    what: &str,
) -> candle_core::Result<&'a [f32]> {
    match (storage, layout.contiguous_offsets()) {
        (candle_core::CpuStorage::F32(data), Some((start, end))) => Ok(&data[start..end]),
        _ => Err(candle_core::Error::Msg(format!("{what}: needs a contiguous f32 tensor"))),
    }
}

/// The f32 slice a contiguous CPU tensor's storage holds, to write in place.
fn f32_slice_mut<'a>(
    storage: &'a mut candle_core::CpuStorage,
    layout: &candle_core::Layout,
    what: &str,
) -> candle_core::Result<&'a mut [f32]> {
    match (storage, layout.contiguous_offsets()) {
        (candle_core::CpuStorage::F32(data), Some((start, end))) => Ok(&mut data[start..end]),
        _ => Err(candle_core::Error::Msg(format!("{what}: needs a contiguous f32 tensor"))),
    }
}

/// In place: `y = act(y + bias)` (the intermediate layer's bias and activation in one pass).
struct BiasActivation<'a> {
    bias: &'a [f32],
    act: kernels::Act,
}

impl candle_core::InplaceOp1 for BiasActivation<'_> {
    fn name(&self) -> &'static str {
        "bias-activation"
    }

    fn cpu_fwd(
        &self,
        storage: &mut candle_core::CpuStorage,
        layout: &candle_core::Layout,
    ) -> candle_core::Result<()> {
        let y = f32_slice_mut(storage, layout, "bias-activation")?;
        kernels::bias_activation(y, self.bias, self.act);
        Ok(())
    }
}

/// In place: `y = layer_norm(y + bias + residual)` (a sublayer's output bias, its residual
/// connection and the layer norm in one pass).
struct BiasResidualNorm<'a> {
    bias: &'a [f32],
    norm: &'a Norm,
}

impl candle_core::InplaceOp2 for BiasResidualNorm<'_> {
    fn name(&self) -> &'static str {
        "bias-residual-norm"
    }

    fn cpu_fwd(
        &self,
        dst: &mut candle_core::CpuStorage,
        dst_l: &candle_core::Layout,
        src: &candle_core::CpuStorage,
        src_l: &candle_core::Layout,
    ) -> candle_core::Result<()> {
        let residual = f32_slice(src, src_l, "bias-residual-norm")?;
        let y = f32_slice_mut(dst, dst_l, "bias-residual-norm")?;
        if y.len() != residual.len() {
            return Err(candle_core::Error::Msg("bias-residual-norm: shapes differ".into()));
        }
        let n = self.norm;
        kernels::bias_residual_layer_norm(y, residual, self.bias, &n.gamma, &n.beta, n.eps);
        Ok(())
    }
}

/// Self-attention from the fused, bias-less QKV product (see [`kernels::attention`]).
struct Attention<'a> {
    bias: &'a [f32],
    valid: &'a [usize],
    shape: kernels::AttentionShape,
}

impl candle_core::CustomOp1 for Attention<'_> {
    fn name(&self) -> &'static str {
        "attention"
    }

    fn cpu_fwd(
        &self,
        storage: &candle_core::CpuStorage,
        layout: &candle_core::Layout,
    ) -> candle_core::Result<(candle_core::CpuStorage, candle_core::Shape)> {
        let qkv = f32_slice(storage, layout, "attention")?;
        let s = self.shape;
        if qkv.len() != s.batch * s.len * 3 * s.heads * s.head_dim {
            return Err(candle_core::Error::Msg("attention: qkv shape".into()));
        }
        let ctx = kernels::attention(qkv, self.bias, self.valid, s);
        let shape = (s.batch * s.len, s.heads * s.head_dim).into();
        Ok((candle_core::CpuStorage::F32(ctx), shape))
    }
}

/// A BERT encoder (embeddings + transformer layers; the pooler is not used).
pub(super) struct BertEncoder {
    word: WordTable,
    position: Embedding,
    token_type: Embedding,
    norm: LayerNorm,
    layers: Vec<BertLayer>,
    hidden: usize,
    heads: usize,
    activation: Activation,
}

/// One transformer layer. Biases are not added by the matrix products but by the fused pass
/// after each (attention, bias + activation, bias + residual + layer norm).
pub(super) struct BertLayer {
    /// Query, key and value in one matrix, (3·hidden, hidden): one matmul instead of three;
    /// the query rows (and bias) are pre-scaled by 1/√head_dim.
    qkv: Dense,
    attention_out: Dense,
    attention_norm: Norm,
    intermediate: Dense,
    output: Dense,
    output_norm: Norm,
}

impl BertEncoder {
    pub(super) fn load(w: &Weights<'_>, c: &BertConfig) -> Result<Self, ModelError> {
        let h = c.hidden_size;
        let eps = c.layer_norm_eps;
        let layers = (0..c.num_hidden_layers)
            .map(|i| {
                let p = format!("encoder.layer.{i}");
                Ok(BertLayer {
                    qkv: fused_qkv(w, &p, h, c.num_attention_heads)?,
                    attention_out: Dense::load(w, &format!("{p}.attention.output.dense"), h, h)?,
                    attention_norm: Norm::load(
                        w,
                        &format!("{p}.attention.output.LayerNorm"),
                        h,
                        eps,
                    )?,
                    intermediate: Dense::load(
                        w,
                        &format!("{p}.intermediate.dense"),
                        h,
                        c.intermediate_size,
                    )?,
                    output: Dense::load(w, &format!("{p}.output.dense"), c.intermediate_size, h)?,
                    output_norm: Norm::load(w, &format!("{p}.output.LayerNorm"), h, eps)?,
                })
            })
            .collect::<Result<Vec<_>, ModelError>>()?;
        Ok(Self {
            word: w.word_table(c.vocab_size, h)?,
            position: w.embedding(
                "embeddings.position_embeddings",
                c.max_position_embeddings,
                h,
            )?,
            token_type: w.embedding("embeddings.token_type_embeddings", c.type_vocab_size, h)?,
            norm: w.layer_norm("embeddings.LayerNorm", h, eps)?,
            layers,
            hidden: h,
            heads: c.num_attention_heads,
            activation: Activation::parse(&c.hidden_act).unwrap_or(Activation::GeluErf),
        })
    }

    /// `ids`, `type_ids`: (b, l) u32; `mask`: (b, l) f32, 1 for tokens and 0 for padding, which
    /// comes after a text's tokens. Returns the last layer's token vectors, (b, l, hidden);
    /// those of padding positions are finite but meaningless.
    pub(super) fn forward(
        &self,
        ids: &Tensor,
        type_ids: &Tensor,
        mask: &Tensor,
    ) -> candle_core::Result<Tensor> {
        let (b, l) = ids.dims2()?;
        let positions = Tensor::arange(0u32, l as u32, ids.device())?;
        let x = self
            .word
            .forward(ids)?
            .add(&self.token_type.forward(type_ids)?)?
            .broadcast_add(&self.position.forward(&positions)?)?;
        // Token vectors stay 2-D, (b·l, hidden), so each linear layer is one matmul.
        let mut x = self.norm.forward(&x.reshape((b * l, self.hidden))?)?;
        // Real tokens per text: attention never looks past them.
        let valid: Vec<usize> =
            mask.sum(1)?.to_vec1::<f32>()?.iter().map(|&m| m.round() as usize).collect();
        for layer in &self.layers {
            x = self.layer_forward(layer, &x, &valid, b, l)?;
        }
        x.reshape((b, l, self.hidden))
    }

    pub(super) fn layer_forward(
        &self,
        layer: &BertLayer,
        x: &Tensor,
        valid: &[usize],
        b: usize,
        l: usize,
    ) -> candle_core::Result<Tensor> {
        let shape = kernels::AttentionShape {
            batch: b,
            len: l,
            heads: self.heads,
            head_dim: self.hidden / self.heads,
        };
        let qkv = layer.qkv.product(x)?; // (b·l, 3·hidden), no bias
        let context = qkv.apply_op1_no_bwd(&Attention { bias: &layer.qkv.bias, valid, shape })?;
        let attended = layer.attention_out.product(&context)?;
        attended.inplace_op2(
            x,
            &BiasResidualNorm { bias: &layer.attention_out.bias, norm: &layer.attention_norm },
        )?;
        let inner = layer.intermediate.product(&attended)?;
        inner.inplace_op1(&BiasActivation {
            bias: &layer.intermediate.bias,
            act: self.activation.kernel(),
        })?;
        let out = layer.output.product(&inner)?;
        out.inplace_op2(
            &attended,
            &BiasResidualNorm { bias: &layer.output.bias, norm: &layer.output_norm },
        )?;
        Ok(out)
    }
}

/// The query, key and value projections of layer `p` as one linear layer (see [`BertLayer`]).
fn fused_qkv(w: &Weights<'_>, p: &str, h: usize, heads: usize) -> Result<Dense, ModelError> {
    let scale = 1.0 / ((h / heads) as f64).sqrt();
    let part = |name: &str| w.linear(&format!("{p}.attention.self.{name}"), h, h);
    let (q, k, v) = (part("query")?, part("key")?, part("value")?);
    let bias =
        |l: &Linear| l.bias().cloned().ok_or_else(|| candle_core::Error::Msg("no bias".into()));
    let fuse = || -> candle_core::Result<Dense> {
        let weight =
            Tensor::cat(&[(q.weight() * scale)?, k.weight().clone(), v.weight().clone()], 0)?;
        let b = Tensor::cat(&[(bias(&q)? * scale)?, bias(&k)?, bias(&v)?], 0)?;
        Dense::from_linear(&Linear::new(weight, Some(b)))
    };
    fuse().map_err(ModelError::Inference)
}

/// Pools (b, l, h) token vectors into (b, h) sentence vectors, ignoring padding.
pub(super) fn pool(mode: Pooling, hidden: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
    let m = mask.unsqueeze(2)?; // (b, l, 1)
    match mode {
        Pooling::Cls => hidden.i((.., 0))?.contiguous(),
        Pooling::Mean | Pooling::MeanSqrtLen => {
            let sum = hidden.broadcast_mul(&m)?.sum(1)?;
            let count = mask.sum_keepdim(1)?.clamp(1e-9f32, f32::MAX)?; // (b, 1)
            let count = if mode == Pooling::Mean { count } else { count.sqrt()? };
            sum.broadcast_div(&count)
        }
        Pooling::Max => {
            // Padding positions become -1e9, as in sentence-transformers.
            let masked = hidden.broadcast_mul(&m)?.broadcast_add(&m.affine(1e9, -1e9)?)?;
            masked.max(D::Minus2)
        }
    }
}
