//! The BERT encoder, written on `candle-nn` building blocks, and pooling.

use std::collections::HashMap;
use std::path::Path;

use candle_core::{D, DType, IndexOp, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, Module};

use super::config::BertConfig;
use super::{ModelError, Pooling};

/// The safetensors tensors, with the name prefix (`""` or `"bert."`) the file uses.
pub(super) struct Weights<'a> {
    path: &'a Path,
    tensors: HashMap<String, Tensor>,
    prefix: &'static str,
}

impl<'a> Weights<'a> {
    pub(super) fn new(
        path: &'a Path,
        tensors: HashMap<String, Tensor>,
    ) -> Result<Self, ModelError> {
        const PROBE: &str = "embeddings.word_embeddings.weight";
        let prefix = ["", "bert."]
            .into_iter()
            .find(|p| tensors.contains_key(&format!("{p}{PROBE}")))
            .ok_or_else(|| ModelError::MissingTensor {
                path: path.to_owned(),
                name: PROBE.to_owned(),
            })?;
        Ok(Self { path, tensors, prefix })
    }

    /// The tensor `name` (without prefix), checked to have `shape`, as f32.
    pub(super) fn get(&self, name: &str, shape: &[usize]) -> Result<Tensor, ModelError> {
        let full = format!("{}{name}", self.prefix);
        // Original TensorFlow-converted BERT checkpoints call LayerNorm's parameters gamma/beta.
        let legacy = full
            .strip_suffix("LayerNorm.weight")
            .map(|p| format!("{p}LayerNorm.gamma"))
            .or_else(|| full.strip_suffix("LayerNorm.bias").map(|p| format!("{p}LayerNorm.beta")));
        let tensor = self
            .tensors
            .get(&full)
            .or_else(|| legacy.and_then(|l| self.tensors.get(&l)))
            .ok_or_else(|| ModelError::MissingTensor {
                path: self.path.to_owned(),
                name: full.clone(),
            })?;
        if tensor.dims() != shape {
            return Err(ModelError::TensorShape {
                path: self.path.to_owned(),
                name: full,
                expected: shape.to_vec(),
                found: tensor.dims().to_vec(),
            });
        }
        tensor
            .to_dtype(DType::F32)
            .map_err(|source| ModelError::Weights { path: self.path.to_owned(), source })
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

    pub(super) fn apply(self, x: &Tensor) -> candle_core::Result<Tensor> {
        match self {
            Self::GeluErf => x.gelu_erf(),
            Self::GeluTanh => x.gelu(),
            Self::Relu => x.relu(),
        }
    }
}

/// A BERT encoder (embeddings + transformer layers; the pooler is not used).
pub(super) struct BertEncoder {
    word: Embedding,
    position: Embedding,
    token_type: Embedding,
    norm: LayerNorm,
    layers: Vec<BertLayer>,
    hidden: usize,
    heads: usize,
    activation: Activation,
}

pub(super) struct BertLayer {
    /// Query, key and value in one matrix, (3·hidden, hidden): one matmul instead of three;
    /// the query rows are pre-scaled by 1/√head_dim.
    qkv: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
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
                    attention_out: w.linear(&format!("{p}.attention.output.dense"), h, h)?,
                    attention_norm: w.layer_norm(
                        &format!("{p}.attention.output.LayerNorm"),
                        h,
                        eps,
                    )?,
                    intermediate: w.linear(
                        &format!("{p}.intermediate.dense"),
                        h,
                        c.intermediate_size,
                    )?,
                    output: w.linear(&format!("{p}.output.dense"), c.intermediate_size, h)?,
                    output_norm: w.layer_norm(&format!("{p}.output.LayerNorm"), h, eps)?,
                })
            })
            .collect::<Result<Vec<_>, ModelError>>()?;
        Ok(Self {
            word: w.embedding("embeddings.word_embeddings", c.vocab_size, h)?,
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

    /// `ids`, `type_ids`: (b, l) u32; `mask`: (b, l) f32, 1 for tokens and 0 for padding.
    /// Returns the last layer's token vectors, (b, l, hidden).
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
        // Added to attention scores: 0 for tokens, the most negative f32 for padding (softmax
        // then gives padding exactly 0 weight), shaped (b, 1, 1, l) to broadcast over heads and
        // query positions.
        let bias = mask.affine(f64::from(f32::MAX), f64::from(f32::MIN))?.reshape((b, 1, 1, l))?;
        for layer in &self.layers {
            x = self.layer_forward(layer, &x, &bias, b, l)?;
        }
        x.reshape((b, l, self.hidden))
    }

    pub(super) fn layer_forward(
        &self,
        layer: &BertLayer,
        x: &Tensor,
        bias: &Tensor,
        b: usize,
        l: usize,
    ) -> candle_core::Result<Tensor> {
        let head_dim = self.hidden / self.heads;
        // (b·l, hidden) → (b, heads, l, head_dim)
        let split = |t: Tensor| -> candle_core::Result<Tensor> {
            t.reshape((b, l, self.heads, head_dim))?.transpose(1, 2)?.contiguous()
        };
        let qkv = layer.qkv.forward(x)?; // (b·l, 3·hidden)
        let q = split(qkv.narrow(1, 0, self.hidden)?)?;
        let k = split(qkv.narrow(1, self.hidden, self.hidden)?)?;
        let v = split(qkv.narrow(1, 2 * self.hidden, self.hidden)?)?;
        let scores = q.matmul(&k.t()?)?.broadcast_add(bias)?; // (b, heads, l, l)
        let probs = candle_nn::ops::softmax_last_dim(&scores)?;
        let context =
            probs.matmul(&v)?.transpose(1, 2)?.contiguous()?.reshape((b * l, self.hidden))?;
        let attended =
            layer.attention_norm.forward(&layer.attention_out.forward(&context)?.add(x)?)?;
        let inner = self.activation.apply(&layer.intermediate.forward(&attended)?)?;
        layer.output_norm.forward(&layer.output.forward(&inner)?.add(&attended)?)
    }
}

/// The query, key and value projections of layer `p` as one linear layer (see [`BertLayer`]).
fn fused_qkv(w: &Weights<'_>, p: &str, h: usize, heads: usize) -> Result<Linear, ModelError> {
    let scale = 1.0 / ((h / heads) as f64).sqrt();
    let part = |name: &str| w.linear(&format!("{p}.attention.self.{name}"), h, h);
    let (q, k, v) = (part("query")?, part("key")?, part("value")?);
    let bias =
        |l: &Linear| l.bias().cloned().ok_or_else(|| candle_core::Error::Msg("no bias".into()));
    let fuse = || -> candle_core::Result<Linear> {
        let weight =
            Tensor::cat(&[(q.weight() * scale)?, k.weight().clone(), v.weight().clone()], 0)?;
        let b = Tensor::cat(&[(bias(&q)? * scale)?, bias(&k)?, bias(&v)?], 0)?;
        Ok(Linear::new(weight, Some(b)))
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
