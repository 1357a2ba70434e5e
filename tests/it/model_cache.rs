//! The embedding cache and the lazily loaded model, through the real binary with the real
//! all-MiniLM-L6-v2 model (skipped, with the reason printed, when it cannot be had).

use std::path::Path;

use crate::common::TestEnv;
use crate::model::model_dir;

fn cache_dir(env: &TestEnv) -> std::path::PathBuf {
    env.vault().join("indices/embeddings")
}

fn with_model() -> Option<TestEnv> {
    let dir = model_dir()?;
    let env = TestEnv::with_vault("semantic");
    env.run(["model", "import", dir.to_str().unwrap()]).success();
    Some(env)
}

fn reindex(env: &TestEnv) -> serde_json::Value {
    let out = env.run(["reindex", "--json"]).success().json();
    assert!(out["embedder"].as_str().unwrap().starts_with("st-bert-v1:384:"), "{out}");
    out
}

fn top(env: &TestEnv, query: &str) -> String {
    let hits = env.run(["search", query, "--json"]).success().json();
    hits["results"][0]["name"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn reindex_deleted_vectors_and_switching_models_reuse_the_cache() {
    let Some(env) = with_model() else { return };
    let first = reindex(&env);
    let chunks = first["chunks"].as_u64().unwrap();
    assert!(chunks >= 3, "{first}");
    assert_eq!(first["embedded"].as_u64().unwrap() + first["reused"].as_u64().unwrap(), chunks);
    assert!(cache_dir(&env).is_dir());

    // Nothing changed: nothing is embedded again.
    let again = reindex(&env);
    assert_eq!((again["embedded"].as_u64(), again["reused"].as_u64()), (Some(0), Some(chunks)));

    // The vector index deleted by hand: rebuilt from the cache, same answers.
    std::fs::remove_dir_all(env.vault().join("indices/vector")).unwrap();
    assert_eq!(top(&env, "kitten vet shots"), "pets");
    assert_eq!(reindex(&env)["embedded"], 0);

    // A moved memory keeps its text, and so its vectors.
    env.run(["mv", "pets", "animals/pets"]).success();
    let moved = reindex(&env);
    assert_eq!(moved["embedded"], 0, "{moved}");
    assert_eq!(top(&env, "kitten vet shots"), "animals/pets");

    // The built-in embedder and back: the model's vectors are still there.
    env.run(["reindex", "-c", "embedding.model=builtin"]).success();
    assert_eq!(reindex(&env)["embedded"], 0);

    // An edited memory: only its changed text is embedded.
    let path = env.vault().join("animals/pets.md");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{text}\nThe dog needs a new lead.\n")).unwrap();
    let edited = reindex(&env);
    assert_eq!(edited["embedded"], 1, "{edited}");
}

#[test]
fn a_corrupt_or_foreign_cache_is_ignored_and_rebuilt() {
    let Some(env) = with_model() else { return };
    let clean = reindex(&env);
    let chunks = clean["chunks"].as_u64().unwrap();
    let want = top(&env, "database standby delay");
    assert_eq!(want, "replication");
    // Damage every record: flip bytes inside each shard, and plant a foreign file.
    for entry in std::fs::read_dir(cache_dir(&env)).unwrap() {
        let path = entry.unwrap().path();
        let mut bytes = std::fs::read(&path).unwrap();
        for i in (40..bytes.len()).step_by(97) {
            bytes[i] ^= 0xA5;
        }
        std::fs::write(&path, bytes).unwrap();
    }
    std::fs::write(cache_dir(&env).join("00.bin"), b"not a cache file at all").unwrap();
    let rebuilt = reindex(&env);
    assert_eq!(rebuilt["embedded"].as_u64(), Some(chunks), "every damaged vector re-embedded");
    assert_eq!(top(&env, "database standby delay"), want, "damage never changes an answer");
    let after = reindex(&env);
    assert_eq!((after["embedded"].as_u64(), after["reused"].as_u64()), (Some(0), Some(chunks)));
}

#[test]
fn add_embeds_each_new_chunk_once() {
    let Some(env) = with_model() else { return };
    reindex(&env);
    // The duplicate check embeds the new text; the index update after it reuses that vector.
    env.run(["add", "garden", "# Garden\n\nThe tomatoes need watering twice a day in July.\n"])
        .success();
    let out = env.run(["-vv", "search", "watering plants", "--json"]).success();
    assert!(out.stderr.contains("embedded=0"), "{out}");
    assert!(out.stderr.contains("reused=1"), "{out}");
    assert_eq!(out.json()["results"][0]["name"], "garden");
}

#[test]
fn commands_that_do_not_embed_never_read_the_weights() {
    let Some(env) = with_model() else { return };
    reindex(&env);
    // Weights replaced by zeros of the same size and time: a process that reads them fails.
    let weights = env.root.join("home/.local/share/memlane/models/default/model.safetensors");
    let meta = std::fs::metadata(&weights).unwrap();
    let zeros = vec![0u8; meta.len() as usize];
    std::fs::write(&weights, zeros).unwrap();
    crate::common::set_mtime(&weights, meta.modified().unwrap());
    let listed = env.run(["list", "--json"]).success().json();
    assert_eq!(listed.as_array().unwrap().len(), 3, "{listed}");
    let shown = env.run(["show", "pets"]).success();
    assert!(shown.stdout.contains("vaccinations"), "{shown}");
    assert!(Path::new(&weights).is_file());
}

#[test]
fn the_tokenizer_is_read_from_its_cache_and_a_damaged_cache_changes_nothing() {
    let Some(env) = with_model() else { return };
    let want =
        env.run(["search", "which pet needs shots", "--json", "--no-touch"]).success().json();
    let dir = env.root.join("home/.local/share/memlane/tokenizers");
    let cached: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    assert_eq!(cached.len(), 1, "one tokenizer cached: {cached:?}");
    assert!(cached[0].extension().is_some_and(|e| e == "wordpiece"));
    // From the cache: the same answer.
    let out = env.run(["search", "which pet needs shots", "--json", "--no-touch"]).success().json();
    assert_eq!(out["results"], want["results"]);
    // A cut cache file is not used: the answer stays, and the file is written whole again.
    let text = std::fs::read_to_string(&cached[0]).unwrap();
    std::fs::write(&cached[0], &text[..text.len() / 2]).unwrap();
    let out = env.run(["search", "which pet needs shots", "--json", "--no-touch"]).success().json();
    assert_eq!(out["results"], want["results"]);
    assert_eq!(std::fs::read_to_string(&cached[0]).unwrap(), text);
}
