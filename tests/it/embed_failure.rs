//! An embedding model that loaded but fails when it embeds (its weights damaged after the
//! import, without changing their size or time, so memlane still trusts the install and only finds
//! out when it reads them): every command that needs an embedding fails with kind `model` and
//! the cause, nothing derived from the failure is stored, memory files stay as they are, and once
//! the model works again what was not indexed is.
//!
//! Needs the all-MiniLM-L6-v2 model (skipped, with the reason printed, when it cannot be had).

use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::TestEnv;
use crate::mcp::Client;
use crate::model::model_dir;

/// Imports the model into `env`, indexes the vault with it, and returns the installed weights.
fn with_model(env: &TestEnv) -> Option<PathBuf> {
    let dir = model_dir()?;
    env.run(["model", "import", dir.to_str().unwrap()]).success();
    let out = env.run(["reindex", "--json"]).success().json();
    assert!(out["embedder"].as_str().unwrap().starts_with("st-bert-v1:384:"), "{out}");
    Some(env.root.join("home/.local/share/memlane/models/default/model.safetensors"))
}

/// Writes `bytes` at the start of `weights`, keeping its size and modification time; returns the
/// bytes it replaced.
fn overwrite_start(weights: &Path, bytes: &[u8]) -> Vec<u8> {
    let mtime = std::fs::metadata(weights).unwrap().modified().unwrap();
    let f = std::fs::File::options().read(true).write(true).open(weights).unwrap();
    let mut old = vec![0u8; bytes.len()];
    f.read_exact_at(&mut old, 0).unwrap();
    f.write_all_at(bytes, 0).unwrap();
    f.set_modified(mtime).unwrap();
    old
}

/// Damages the safetensors header (its length becomes absurd); returns what to put back.
fn damage(weights: &Path) -> Vec<u8> {
    overwrite_start(weights, &(u64::MAX / 2).to_le_bytes())
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    out.sort();
    out
}

/// The memory files (Markdown outside `indices/` and `state/`) with their bytes.
fn memory_files(env: &TestEnv) -> Vec<(String, Vec<u8>)> {
    env.contents()
        .into_iter()
        .filter(|(f, _)| {
            f.ends_with(".md") && !f.starts_with("indices/") && !f.starts_with("state/")
        })
        .collect()
}

#[track_caller]
fn assert_model_error(out: &crate::common::CommandOutput) -> Value {
    assert_eq!(out.code, 1, "{out}");
    let err = out.json()["error"].clone();
    assert_eq!(err["kind"], "model", "{out}");
    let message = err["message"].as_str().unwrap();
    // The cause chain: which model, and what is wrong with it.
    assert!(message.contains("failed to embed"), "{message}");
    assert!(message.contains("models/default"), "{message}");
    assert!(message.contains("model.safetensors"), "{message}");
    assert!(err["hint"].as_str().unwrap().contains("memlane model import"), "{out}");
    assert!(out.stderr.contains("memlane: error: the embedding model"), "{out}");
    err
}

#[test]
fn a_model_that_fails_to_embed_is_an_error_and_nothing_derived_is_stored() {
    let env = TestEnv::with_vault("semantic");
    let Some(weights) = with_model(&env) else { return };
    let cache = env.vault().join("indices/embeddings");
    let cached = snapshot(&cache);
    assert!(!cached.is_empty());
    let files = memory_files(&env);
    let original = damage(&weights);

    // A write checked for duplicates: refused, nothing written.
    let out = env.run(["add", "notes/ferry", "The ferry leaves the harbour at noon.", "--json"]);
    assert_model_error(&out);
    assert_eq!(memory_files(&env), files, "no memory file written");

    // A search: an error, not an answer from keywords alone that looks complete.
    let out = env.run(["search", "kitten vet shots", "--json"]);
    assert_model_error(&out);
    assert_eq!(out.stdout.lines().count(), 1, "only the error on stdout: {out}");

    // A memory written by hand, then a reindex: an error; the file stays, the cache holds no
    // record for its text (nor for anything else), and no vector index was written.
    env.write(
        "notes/lighthouse.md",
        "# Lighthouse\n\nThe lighthouse keeper logs every passing ship.\n",
    );
    let out = env.run(["reindex", "--json"]);
    assert_model_error(&out);
    assert!(env.read("notes/lighthouse.md").contains("lighthouse keeper"));
    assert_eq!(snapshot(&cache), cached, "indices/embeddings/ is unchanged");
    assert!(!env.vault().join("indices/manifest.bin").exists(), "no index was committed");

    // The model repaired: the next command indexes what was left stale, and finds it.
    overwrite_start(&weights, &original);
    let hits = env.run(["search", "who records ships passing by", "--json"]).success().json();
    assert_eq!(hits["results"][0]["name"], "notes/lighthouse", "{hits:#}");
    assert!(snapshot(&cache).len() >= cached.len());
}

#[test]
fn mcp_tools_report_a_failing_model_as_a_model_error_and_keep_serving() {
    let env = TestEnv::with_vault("semantic");
    let Some(weights) = with_model(&env) else { return };
    let cached = snapshot(&env.vault().join("indices/embeddings"));
    damage(&weights);
    let mut c = Client::start(&env);
    c.initialize();

    for (tool, args) in [
        ("create_memory", json!({"name": "notes/ferry", "content": "The ferry leaves at noon."})),
        ("search_memories", json!({"query": "kitten vet shots"})),
    ] {
        let r = c.call(tool, args);
        assert_eq!(r["isError"], json!(true), "{tool}: {r}");
        let err = &r["structuredContent"]["error"];
        assert_eq!(err["kind"], "model", "{tool}: {r}");
        let message = err["message"].as_str().unwrap();
        assert!(message.contains("failed to embed"), "{tool}: {message}");
        assert!(message.contains("model.safetensors"), "{tool}: the cause: {message}");
        assert!(err["hint"].as_str().unwrap().contains("memlane model import"), "{r}");
    }
    assert!(!env.exists("notes/ferry.md"));

    // The server still answers what needs no embedding.
    let pets = c.ok("read_memory", json!({"name": "pets"}));
    assert!(pets.to_string().contains("vaccinations"), "{pets}");
    drop(c);
    assert_eq!(snapshot(&env.vault().join("indices/embeddings")), cached);
}
