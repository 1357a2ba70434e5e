//! The model directory's configuration files: `config.json`, `sentence_bert_config.json`,
//! `modules.json`, the pooling config and `tokenizer.json`.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

use super::encoder::Activation;
use super::{ModelError, Pooling};

/// The fields of a Hugging Face BERT `config.json` the encoder needs.
#[derive(Debug, Clone, Deserialize)]
pub(super) struct BertConfig {
    #[serde(default)]
    pub(super) model_type: Option<String>,
    #[serde(default)]
    pub(super) architectures: Vec<String>,
    pub(super) vocab_size: usize,
    pub(super) hidden_size: usize,
    pub(super) num_hidden_layers: usize,
    pub(super) num_attention_heads: usize,
    pub(super) intermediate_size: usize,
    pub(super) max_position_embeddings: usize,
    #[serde(default = "default_type_vocab_size")]
    pub(super) type_vocab_size: usize,
    #[serde(default = "default_layer_norm_eps")]
    pub(super) layer_norm_eps: f64,
    #[serde(default = "default_hidden_act")]
    pub(super) hidden_act: String,
    #[serde(default)]
    pub(super) position_embedding_type: Option<String>,
}

pub(super) fn default_type_vocab_size() -> usize {
    2
}

pub(super) fn default_layer_norm_eps() -> f64 {
    1e-12
}

pub(super) fn default_hidden_act() -> String {
    "gelu".to_owned()
}

impl BertConfig {
    pub(super) fn validate(&self, path: &Path) -> Result<(), ModelError> {
        let unsupported = |what: String| ModelError::Unsupported { path: path.to_owned(), what };
        match self.model_type.as_deref() {
            Some("bert") => {}
            None if self.architectures.iter().any(|a| a.starts_with("Bert")) => {}
            other => {
                return Err(unsupported(format!(
                    "model_type {} (only BERT models are supported)",
                    other.map_or_else(|| "missing".to_owned(), |t| format!("`{t}`"))
                )));
            }
        }
        if let Some(kind) = &self.position_embedding_type
            && kind != "absolute"
        {
            return Err(unsupported(format!("position_embedding_type `{kind}`")));
        }
        Activation::parse(&self.hidden_act)
            .ok_or_else(|| unsupported(format!("hidden_act `{}`", self.hidden_act)))?;
        let invalid = |what: String| ModelError::InvalidConfig { path: path.to_owned(), what };
        for (name, value) in [
            ("vocab_size", self.vocab_size),
            ("hidden_size", self.hidden_size),
            ("num_hidden_layers", self.num_hidden_layers),
            ("num_attention_heads", self.num_attention_heads),
            ("intermediate_size", self.intermediate_size),
            ("max_position_embeddings", self.max_position_embeddings),
            ("type_vocab_size", self.type_vocab_size),
        ] {
            if value == 0 {
                return Err(invalid(format!("{name} is 0")));
            }
        }
        if !self.hidden_size.is_multiple_of(self.num_attention_heads) {
            return Err(invalid(format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                self.hidden_size, self.num_attention_heads
            )));
        }
        if !(self.layer_norm_eps.is_finite() && self.layer_norm_eps > 0.0) {
            return Err(invalid(format!("layer_norm_eps {}", self.layer_norm_eps)));
        }
        Ok(())
    }
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct SentenceBertConfig {
    #[serde(default)]
    pub(super) max_seq_length: Option<usize>,
    #[serde(default)]
    pub(super) do_lower_case: bool,
}

/// One entry of `modules.json`.
#[derive(Debug, Deserialize)]
pub(super) struct StModule {
    #[serde(rename = "type")]
    pub(super) kind: String,
    #[serde(default)]
    pub(super) path: String,
}

/// Checks the module pipeline is Transformer → Pooling (→ Normalize) and returns the pooling
/// module's directory, relative to the model directory.
pub(super) fn pooling_dir_from_modules(
    path: &Path,
    modules: &[StModule],
) -> Result<PathBuf, ModelError> {
    let unsupported = |what: String| ModelError::Unsupported { path: path.to_owned(), what };
    let mut pooling = None;
    for module in modules {
        let kind = module.kind.rsplit('.').next().unwrap_or_default();
        match kind {
            "Transformer" if module.path.is_empty() => {}
            "Transformer" => {
                return Err(unsupported(format!(
                    "the transformer is in the subfolder `{}`; only models whose transformer \
                     files are at the top level are supported",
                    module.path
                )));
            }
            "Pooling" => pooling = Some(PathBuf::from(&module.path)),
            // Always applied: memlane L2-normalises every vector.
            "Normalize" => {}
            _ => return Err(unsupported(format!("module `{}`", module.kind))),
        }
    }
    pooling.ok_or_else(|| unsupported("no Pooling module".to_owned()))
}

/// `1_Pooling/config.json`.
#[derive(Debug, Deserialize)]
pub(super) struct PoolingConfig {
    #[serde(default)]
    pub(super) word_embedding_dimension: Option<usize>,
    #[serde(default)]
    pub(super) pooling_mode_cls_token: bool,
    #[serde(default)]
    pub(super) pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pub(super) pooling_mode_max_tokens: bool,
    #[serde(default)]
    pub(super) pooling_mode_mean_sqrt_len_tokens: bool,
    #[serde(default)]
    pub(super) pooling_mode_weightedmean_tokens: bool,
    #[serde(default)]
    pub(super) pooling_mode_lasttoken: bool,
}

impl PoolingConfig {
    pub(super) fn mode(&self, path: &Path, hidden_size: usize) -> Result<Pooling, ModelError> {
        if let Some(dim) = self.word_embedding_dimension
            && dim != hidden_size
        {
            return Err(ModelError::InvalidConfig {
                path: path.to_owned(),
                what: format!(
                    "word_embedding_dimension {dim} differs from config.json's hidden_size \
                     {hidden_size}"
                ),
            });
        }
        let modes = [
            (self.pooling_mode_mean_tokens, Some(Pooling::Mean), "mean"),
            (self.pooling_mode_cls_token, Some(Pooling::Cls), "cls"),
            (self.pooling_mode_max_tokens, Some(Pooling::Max), "max"),
            (self.pooling_mode_mean_sqrt_len_tokens, Some(Pooling::MeanSqrtLen), "mean_sqrt_len"),
            (self.pooling_mode_weightedmean_tokens, None, "weightedmean"),
            (self.pooling_mode_lasttoken, None, "lasttoken"),
        ];
        let on: Vec<_> = modes.iter().filter(|m| m.0).collect();
        match on.as_slice() {
            [(_, Some(mode), _)] => Ok(*mode),
            [] => Err(ModelError::Unsupported {
                path: path.to_owned(),
                what: "no pooling mode is enabled".to_owned(),
            }),
            modes => Err(ModelError::Unsupported {
                path: path.to_owned(),
                what: format!(
                    "pooling mode {} (supported: exactly one of mean, cls, max, mean_sqrt_len)",
                    modes.iter().map(|m| m.2).collect::<Vec<_>>().join(" + ")
                ),
            }),
        }
    }
}

/// Loads `tokenizer.json` and replaces its padding and truncation: the files shipped with
/// sentence-transformers models often pad every input to a fixed 128 tokens (10× slower for
/// short texts) and truncate at 128 instead of the model's `max_seq_length`. Padding is done
/// per batch in [`SentenceEmbedder::embed`] instead.
pub(super) fn load_tokenizer(
    path: &Path,
    bytes: &[u8],
    max_tokens: usize,
    config: &BertConfig,
) -> Result<Tokenizer, ModelError> {
    let err = |source| ModelError::Tokenizer { path: path.to_owned(), source };
    let mut tokenizer = Tokenizer::from_bytes(bytes).map_err(err)?;
    tokenizer.with_padding(None);
    tokenizer
        .with_truncation(Some(TruncationParams {
            direction: TruncationDirection::Right,
            max_length: max_tokens,
            strategy: TruncationStrategy::LongestFirst,
            stride: 0,
        }))
        .map_err(err)?;
    let vocab = tokenizer.get_vocab_size(true);
    if vocab > config.vocab_size {
        return Err(ModelError::InvalidConfig {
            path: path.to_owned(),
            what: format!(
                "the tokenizer has {vocab} tokens but config.json's vocab_size is {}",
                config.vocab_size
            ),
        });
    }
    Ok(tokenizer)
}
