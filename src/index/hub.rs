//! `memlane model pull`: downloading a sentence-transformer from the Hugging Face Hub.
//!
//! The hub's layout is the one `huggingface_hub` uses: `GET {endpoint}/api/models/{repo}/revision/
//! {revision}?blobs=true` lists the files of a commit (each with its git blob id, size and, for
//! LFS files such as the weights, their sha256), and `GET {endpoint}/{repo}/resolve/{commit}/
//! {file}` serves a file (the hub redirects LFS files to its CDN). The endpoint is
//! `https://huggingface.co` unless `MEMLANE_HF_ENDPOINT` or `HF_ENDPOINT` names another (a mirror,
//! or the tests' local server).
//!
//! A pull downloads into `<data dir>/memlane/models/.pull-<org>--<name>/`, one `<file>.part` at a
//! time, resuming a `.part` left by an interrupted pull with an HTTP `Range` request. Every file is
//! checked against the hub's metadata (sha256 for LFS files, the git blob id otherwise), the model
//! is loaded and run once, and only then is the directory renamed to
//! `<data dir>/memlane/models/<org>--<name>/`, replacing an older install of the same model in one
//! rename. A failed or interrupted pull never touches an installed model. The pulled model becomes
//! the one `[embedding] model = "auto"` uses (the pointer file `models/default-model`).

use std::fs;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::Digest as _;

use crate::disk::hex;
use crate::error::{IoResultExt, PathError};
use crate::index::minilm::{ModelError, SentenceEmbedder};

/// The model `memlane model pull` installs when given no name.
pub const DEFAULT_MODEL: &str = "sentence-transformers/all-MiniLM-L6-v2";
/// The Hugging Face Hub.
pub const DEFAULT_ENDPOINT: &str = "https://huggingface.co";
/// The metadata file a pull writes into the model directory.
pub const METADATA_FILE: &str = ".memlane-model.json";
/// The file naming the installed model `auto` uses, in the models directory.
const DEFAULT_POINTER: &str = "default-model";

/// Files of a sentence-transformers repository that memlane reads. Everything else (other weight
/// formats, ONNX exports, READMEs) is not downloaded.
const MODEL_FILES: &[(&str, bool)] = &[
    ("config.json", true),
    ("tokenizer.json", true),
    ("model.safetensors", true),
    ("modules.json", false),
    ("sentence_bert_config.json", false),
    ("config_sentence_transformers.json", false),
];

/// Why a pull failed. The command line adds what to do next (`src/cli/hints.rs`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HubError {
    /// The model name is not `organisation/name[@revision]`.
    #[error("invalid model name `{0}`")]
    BadName(String),
    /// The hub could not be reached or the connection broke.
    #[error("cannot download {url}: {message}")]
    Network {
        /// The URL being fetched.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// The hub answered with an error status.
    #[error("{url} answered HTTP {status}")]
    Status {
        /// The URL.
        url: String,
        /// The HTTP status code.
        status: u16,
    },
    /// The hub's file listing is not what the hub API returns.
    #[error("unexpected answer from {url}: {what}")]
    BadListing {
        /// The API URL.
        url: String,
        /// What is wrong.
        what: String,
    },
    /// The repository lacks a file every sentence-transformer model needs.
    #[error(
        "{repo}@{revision} has no `{file}`, so it is not a sentence-transformers model memlane can run"
    )]
    MissingFile {
        /// The repository.
        repo: String,
        /// The revision.
        revision: String,
        /// The missing file.
        file: String,
    },
    /// A downloaded file does not match the hub's checksum.
    #[error(
        "`{file}` from {repo} is corrupt: its {kind} is {found}, but the hub lists {expected}; the download was discarded and the installed model was not changed"
    )]
    Checksum {
        /// The repository.
        repo: String,
        /// The file.
        file: String,
        /// `sha256` or `git blob id` or `size`.
        kind: &'static str,
        /// What the hub lists.
        expected: String,
        /// What was downloaded.
        found: String,
    },
    /// Another pull is running.
    #[error(
        "another model pull is running (lock {})",
        .0.display()
    )]
    Busy(PathBuf),
    /// The downloaded model does not load or run.
    #[error("the model downloaded from {repo} does not load; the installed model was not changed")]
    Model {
        /// The repository.
        repo: String,
        /// Why it does not load.
        #[source]
        source: Box<ModelError>,
    },
    /// A file could not be read or written.
    #[error(transparent)]
    Io(#[from] PathError),
}

/// A model on the hub: `organisation/name` at a revision (a branch, tag or commit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRef {
    /// `organisation/name`.
    pub repo: String,
    /// Branch, tag or commit; `main` by default.
    pub revision: String,
}

impl ModelRef {
    /// Parses `organisation/name[@revision]`.
    pub fn parse(s: &str) -> Result<Self, HubError> {
        let bad = || HubError::BadName(s.to_owned());
        let (repo, revision) = match s.trim().split_once('@') {
            Some((r, rev)) => (r, rev),
            None => (s.trim(), "main"),
        };
        if !is_repo_name(repo) {
            return Err(bad());
        }
        let rev_ok = !revision.is_empty()
            && revision.len() <= 128
            && !revision.contains("..")
            && revision.chars().all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c));
        if !rev_ok {
            return Err(bad());
        }
        Ok(Self { repo: repo.to_owned(), revision: revision.to_owned() })
    }

    /// The directory name of the installed model: `organisation--name`.
    pub fn dir_name(&self) -> String {
        self.repo.replace('/', "--")
    }
}

/// Whether `s` has the shape of a hub repository name, `organisation/name`.
pub fn is_repo_name(s: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && p.len() <= 96
            && !p.starts_with(['.', '-'])
            && !p.contains("..")
            && p.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
    };
    matches!(s.split_once('/'), Some((org, name)) if part(org) && part(name))
}

/// The hub URL: `MEMLANE_HF_ENDPOINT`, else `HF_ENDPOINT` (as `huggingface_hub` reads it), else
/// [`DEFAULT_ENDPOINT`]; without a trailing slash.
pub fn endpoint() -> String {
    ["MEMLANE_HF_ENDPOINT", "HF_ENDPOINT"]
        .iter()
        .filter_map(|k| std::env::var(k).ok())
        .map(|v| v.trim().trim_end_matches('/').to_owned())
        .find(|v| !v.is_empty())
        .unwrap_or_else(|| DEFAULT_ENDPOINT.to_owned())
}

/// `<user data dir>/memlane/models`, where pulled and imported models live.
pub fn models_root() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "memlane").map(|d| d.data_dir().join("models"))
}

/// The directory a pulled `organisation/name` is installed in, if it is installed.
pub fn installed_dir(repo: &str) -> Option<PathBuf> {
    if !is_repo_name(repo) {
        return None;
    }
    let dir = models_root()?.join(repo.replace('/', "--"));
    dir.join("model.safetensors").is_file().then_some(dir)
}

/// The pulled model `auto` uses: the one the last `memlane model pull` installed, unless a
/// `memlane model import` came after it (which removes the pointer).
pub fn default_pulled_dir() -> Option<PathBuf> {
    let root = models_root()?;
    let name = fs::read_to_string(root.join(DEFAULT_POINTER)).ok()?;
    let name = name.trim();
    let valid = !name.is_empty()
        && !name.starts_with('.')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
    let dir = root.join(name);
    (valid && dir.join("model.safetensors").is_file()).then_some(dir)
}

/// Makes `models/default` (the imported model) what `auto` uses again: removes the pointer to a
/// pulled model. Called by `memlane model import`.
pub fn clear_default_pointer() -> Result<(), PathError> {
    let Some(root) = models_root() else { return Ok(()) };
    let p = root.join(DEFAULT_POINTER);
    match fs::remove_file(&p) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e).at("remove", &p),
        _ => Ok(()),
    }
}

/// What a pull records in the model directory ([`METADATA_FILE`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PulledModel {
    /// `organisation/name`.
    pub repo: String,
    /// The revision asked for.
    pub revision: String,
    /// The commit it resolved to.
    pub commit: String,
    /// The files, relative to the model directory, with their size and checksum.
    pub files: Vec<PulledFile>,
}

/// One downloaded file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PulledFile {
    /// Path relative to the model directory.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// The sha256 (LFS files) or git blob id the file was checked against.
    pub checksum: String,
}

impl PulledModel {
    /// Reads the metadata a pull left in `dir`, if any.
    pub fn read(dir: &Path) -> Option<Self> {
        serde_json::from_slice(&fs::read(dir.join(METADATA_FILE)).ok()?).ok()
    }
}

/// What the caller shows while files download (the CLI draws a progress bar on stderr).
pub trait Progress {
    /// A file starts: `total` bytes, of which `done` are already on disk (a resumed download).
    fn start(&mut self, file: &str, total: u64, done: u64);
    /// `bytes` more arrived.
    fn advance(&mut self, bytes: u64);
    /// The file is complete.
    fn finish(&mut self);
}

/// A [`Progress`] that shows nothing.
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&mut self, _: &str, _: u64, _: u64) {}
    fn advance(&mut self, _: u64) {}
    fn finish(&mut self) {}
}

/// What [`pull`] did.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PullReport {
    /// `organisation/name`.
    pub repo: String,
    /// The commit installed.
    pub commit: String,
    /// Where it is installed.
    pub dir: PathBuf,
    /// The embedder id of the installed model.
    pub embedder: String,
    /// Bytes downloaded by this pull.
    pub downloaded_bytes: u64,
    /// Bytes of interrupted downloads this pull resumed from instead of downloading again.
    pub resumed_bytes: u64,
    /// The model was already installed at this commit; nothing was downloaded.
    pub up_to_date: bool,
}

/// The hub's file listing (`/api/models/{repo}/revision/{rev}?blobs=true`), the fields we use.
#[derive(Debug, Deserialize)]
struct Listing {
    sha: String,
    #[serde(default)]
    siblings: Vec<Sibling>,
}

#[derive(Debug, Deserialize)]
struct Sibling {
    rfilename: String,
    #[serde(default, rename = "blobId")]
    blob_id: Option<String>,
    #[serde(default)]
    size: Option<u64>,
    #[serde(default)]
    lfs: Option<Lfs>,
}

#[derive(Debug, Deserialize)]
struct Lfs {
    sha256: String,
    #[serde(default)]
    size: Option<u64>,
}

/// Downloads `model` from the hub at `endpoint` into `root` (the models directory), verifies and
/// load-tests it, installs it as `root/<organisation>--<name>` and makes it the model `auto`
/// uses. See the module docs for the guarantees.
pub fn pull(
    root: &Path,
    model: &ModelRef,
    endpoint: &str,
    progress: &mut dyn Progress,
) -> Result<PullReport, HubError> {
    fs::create_dir_all(root).at("create", root)?;
    let lock_path = root.join(".pull.lock");
    let _lock = crate::error::lock_file(&lock_path, Duration::ZERO, Duration::from_millis(50))?
        .ok_or_else(|| HubError::Busy(lock_path.clone()))?;

    let agent = agent();
    let listing = list(&agent, endpoint, model)?;
    let files = select_files(model, &listing)?;
    let dest = root.join(model.dir_name());

    if let Some(installed) = PulledModel::read(&dest)
        && installed.commit == listing.sha
        && let Ok(m) = SentenceEmbedder::load(&dest)
    {
        set_default(root, &model.dir_name())?;
        let embedder = crate::index::prefix::embedder_id(&m, &dest);
        return Ok(PullReport {
            repo: model.repo.clone(),
            commit: listing.sha,
            dir: dest,
            embedder,
            downloaded_bytes: 0,
            resumed_bytes: 0,
            up_to_date: true,
        });
    }

    // The staging directory is named after the model, not the process, so the next pull
    // resumes what this one leaves; it is tied to one commit.
    let staging = root.join(format!(".pull-{}", model.dir_name()));
    let meta_path = staging.join(METADATA_FILE);
    let same_commit = PulledModel::read(&staging).is_some_and(|m| m.commit == listing.sha);
    if staging.exists() && !same_commit {
        fs::remove_dir_all(&staging).at("remove", &staging)?;
    }
    fs::create_dir_all(&staging).at("create", &staging)?;
    let meta = PulledModel {
        repo: model.repo.clone(),
        revision: model.revision.clone(),
        commit: listing.sha.clone(),
        files: files
            .iter()
            .map(|f| PulledFile {
                path: f.rfilename.clone(),
                size: f.expected_size().unwrap_or(0),
                checksum: f.checksum().map(|c| c.1.to_owned()).unwrap_or_default(),
            })
            .collect(),
    };
    write_json(&meta_path, &meta)?;

    let (mut downloaded, mut resumed) = (0, 0);
    for file in &files {
        let (d, r) = fetch_file(&agent, endpoint, model, &listing.sha, file, &staging, progress)?;
        downloaded += d;
        resumed += r;
    }

    // Half-precision weights are widened to f32 once, here, not at every load.
    super::minilm::weights_to_f32(&staging)
        .map_err(|e| HubError::Model { repo: model.repo.clone(), source: Box::new(e) })?;
    let loaded = SentenceEmbedder::load(&staging)
        .and_then(|m| m.embed(&["memlane checks the model runs"]).map(|_| m))
        .map_err(|e| HubError::Model { repo: model.repo.clone(), source: Box::new(e) })?;
    let embedder = crate::index::prefix::embedder_id(&loaded, &staging);
    drop(loaded);
    // `dest` is always either the old model or the new one.
    crate::disk::install_dir(&staging, &dest)?;
    set_default(root, &model.dir_name())?;
    Ok(PullReport {
        repo: model.repo.clone(),
        commit: listing.sha,
        dir: dest,
        embedder,
        downloaded_bytes: downloaded,
        resumed_bytes: resumed,
        up_to_date: false,
    })
}

impl Sibling {
    fn expected_size(&self) -> Option<u64> {
        self.lfs.as_ref().and_then(|l| l.size).or(self.size)
    }

    /// The checksum to verify: `("sha256", hex)` for LFS files, `("git blob id", hex)` otherwise.
    fn checksum(&self) -> Option<(&'static str, &str)> {
        match (&self.lfs, &self.blob_id) {
            (Some(lfs), _) => Some(("sha256", lfs.sha256.as_str())),
            (None, Some(blob)) => Some(("git blob id", blob.as_str())),
            (None, None) => None,
        }
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(30)))
        .timeout_recv_response(Some(Duration::from_secs(60)))
        .http_status_as_error(false)
        .user_agent(concat!("memlane/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

fn network(url: &str, e: &dyn std::fmt::Display) -> HubError {
    HubError::Network { url: url.to_owned(), message: e.to_string() }
}

fn list(agent: &ureq::Agent, endpoint: &str, model: &ModelRef) -> Result<Listing, HubError> {
    let url = format!(
        "{endpoint}/api/models/{}/revision/{}?blobs=true",
        model.repo,
        model.revision.replace('/', "%2F")
    );
    let mut resp = agent.get(&url).call().map_err(|e| network(&url, &e))?;
    let status = resp.status().as_u16();
    if status != 200 {
        return Err(HubError::Status { url, status });
    }
    let body = resp
        .body_mut()
        .with_config()
        .limit(16 * 1024 * 1024)
        .read_to_vec()
        .map_err(|e| network(&url, &e))?;
    let listing: Listing = serde_json::from_slice(&body)
        .map_err(|e| HubError::BadListing { url: url.clone(), what: e.to_string() })?;
    let commit_ok = !listing.sha.is_empty() && listing.sha.chars().all(|c| c.is_ascii_hexdigit());
    if !commit_ok {
        return Err(HubError::BadListing { url, what: format!("commit `{}`", listing.sha) });
    }
    Ok(listing)
}

/// The files to download: [`MODEL_FILES`] and every module's `config.json` (`1_Pooling/…`).
fn select_files<'a>(model: &ModelRef, listing: &'a Listing) -> Result<Vec<&'a Sibling>, HubError> {
    let mut out = Vec::new();
    for (name, required) in MODEL_FILES {
        match listing.siblings.iter().find(|s| s.rfilename == *name) {
            Some(s) => out.push(s),
            None if *required => {
                return Err(HubError::MissingFile {
                    repo: model.repo.clone(),
                    revision: model.revision.clone(),
                    file: (*name).to_owned(),
                });
            }
            None => {}
        }
    }
    for s in &listing.siblings {
        // `1_Pooling/config.json`, `2_Normalize/config.json`: module folders of one level.
        if let Some((dir, "config.json")) = s.rfilename.split_once('/')
            && dir.split_once('_').is_some_and(|(n, rest)| {
                !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) && !rest.is_empty()
            })
            && dir.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            out.push(s);
        }
    }
    Ok(out)
}

/// Downloads one file into `staging` unless a verified copy is there already. Returns the bytes
/// downloaded and the bytes of a `.part` resumed.
fn fetch_file(
    agent: &ureq::Agent,
    endpoint: &str,
    model: &ModelRef,
    commit: &str,
    file: &Sibling,
    staging: &Path,
    progress: &mut dyn Progress,
) -> Result<(u64, u64), HubError> {
    let target = staging.join(&file.rfilename);
    if target.is_file() && verify(model, file, &target).is_ok() {
        return Ok((0, 0));
    }
    if let Some(dir) = target.parent() {
        fs::create_dir_all(dir).at("create", dir)?;
    }
    let part = staging.join(format!("{}.part", file.rfilename));
    let mut have = fs::metadata(&part).map(|m| m.len()).unwrap_or(0);
    let expected = file.expected_size();
    if expected.is_some_and(|n| have > n) {
        have = 0;
    }
    let url = format!("{endpoint}/{}/resolve/{commit}/{}", model.repo, file.rfilename);
    let mut req = agent.get(&url);
    if have > 0 && expected != Some(have) {
        req = req.header("Range", format!("bytes={have}-"));
    }
    let mut resumed = 0;
    let mut downloaded = 0;
    if expected != Some(have) || have == 0 {
        let resp = req.call().map_err(|e| network(&url, &e))?;
        let status = resp.status().as_u16();
        // A 206 must continue exactly where the .part ends (`Content-Range: bytes <have>-…`).
        let range_start = resp
            .headers()
            .get("content-range")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("bytes "))
            .and_then(|v| v.split('-').next())
            .and_then(|v| v.trim().parse::<u64>().ok());
        let append = match status {
            206 if have > 0 && range_start == Some(have) => true,
            206 => {
                let _ = fs::remove_file(&part);
                return Err(network(&url, &"the server resumed at the wrong offset"));
            }
            200 => false,
            416 if have > 0 => {
                // The .part is no prefix of the file any more: start over next time.
                let _ = fs::remove_file(&part);
                return Err(HubError::Status { url, status });
            }
            _ => return Err(HubError::Status { url, status }),
        };
        if append {
            resumed = have;
        } else {
            have = 0;
        }
        let mut out = fs::OpenOptions::new()
            .create(true)
            .write(true)
            .append(append)
            .truncate(!append)
            .open(&part)
            .at("write", &part)?;
        let total = match resp.headers().get("content-length").and_then(|v| v.to_str().ok()) {
            Some(n) => n.parse::<u64>().ok().map(|n| n + have),
            None => None,
        };
        progress.start(&file.rfilename, expected.or(total).unwrap_or(0), have);
        let mut reader = resp.into_body().into_reader();
        let mut buf = vec![0u8; 256 * 1024];
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    progress.finish();
                    // What arrived stays in the .part for the next pull to resume from.
                    let _ = out.sync_all();
                    return Err(network(&url, &format!("the download broke off: {e}")));
                }
            };
            out.write_all(&buf[..n]).at("write", &part)?;
            downloaded += n as u64;
            progress.advance(n as u64);
        }
        progress.finish();
        out.sync_all().at("write", &part)?;
    }
    if let Err(e) = verify(model, file, &part) {
        // A corrupt download is discarded, so the next pull fetches it afresh.
        let _ = fs::remove_file(&part);
        return Err(e);
    }
    fs::rename(&part, &target).at("rename", &part)?;
    Ok((downloaded, resumed))
}

/// Checks `path` against the hub's size and checksum for `file`.
fn verify(model: &ModelRef, file: &Sibling, path: &Path) -> Result<(), HubError> {
    let corrupt = |kind, expected: String, found: String| HubError::Checksum {
        repo: model.repo.clone(),
        file: file.rfilename.clone(),
        kind,
        expected,
        found,
    };
    let len = fs::metadata(path).at("read", path)?.len();
    if let Some(n) = file.expected_size()
        && n != len
    {
        return Err(corrupt("size", format!("{n} bytes"), format!("{len} bytes")));
    }
    let Some((kind, expected)) = file.checksum() else { return Ok(()) };
    let mut f = fs::File::open(path).at("read", path)?;
    let mut buf = vec![0u8; 256 * 1024];
    // Every byte of the file, through `update`.
    let mut feed = |update: &mut dyn FnMut(&[u8])| -> Result<(), crate::error::PathError> {
        loop {
            let n = f.read(&mut buf).at("read", path)?;
            if n == 0 {
                return Ok(());
            }
            update(&buf[..n]);
        }
    };
    let found = if kind == "sha256" {
        let mut h = sha2::Sha256::new();
        feed(&mut |bytes| h.update(bytes))?;
        hex(&h.finalize())
    } else {
        // git's blob id: sha1 of "blob <len>\0" and the content.
        let mut h = sha1::Sha1::new();
        h.update(format!("blob {len}\0").as_bytes());
        feed(&mut |bytes| h.update(bytes))?;
        hex(&h.finalize())
    };
    if !found.eq_ignore_ascii_case(expected) {
        return Err(corrupt(kind, expected.to_owned(), found));
    }
    Ok(())
}

fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), PathError> {
    let bytes = serde_json::to_vec_pretty(value).unwrap_or_default();
    crate::disk::atomic_write(path, &bytes)
}

fn set_default(root: &Path, dir_name: &str) -> Result<(), PathError> {
    crate::disk::atomic_write(&root.join(DEFAULT_POINTER), format!("{dir_name}\n").as_bytes())
}

/// One installed model, for `memlane model list`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct InstalledModel {
    /// `organisation/name` for a pulled model; `default` for the one `memlane model import`
    /// installed.
    pub name: String,
    /// The directory.
    pub dir: PathBuf,
    /// The commit a pulled model was downloaded at.
    pub commit: Option<String>,
    /// Total size of the model's files.
    pub bytes: u64,
    /// `[embedding] model = "auto"` uses this one.
    pub auto: bool,
}

/// The models under `root` (pulled and imported), sorted by name.
pub fn installed_models(root: &Path) -> Vec<InstalledModel> {
    let auto = default_pulled_dir().or_else(crate::index::minilm::installed_model_dir);
    let Ok(rd) = fs::read_dir(root) else { return Vec::new() };
    let mut out: Vec<InstalledModel> = rd
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .filter(|p| p.join("model.safetensors").is_file())
        .map(|dir| {
            let meta = PulledModel::read(&dir);
            let name = match &meta {
                Some(m) => m.repo.clone(),
                None => dir.file_name().unwrap_or_default().to_string_lossy().into_owned(),
            };
            InstalledModel {
                name,
                commit: meta.map(|m| m.commit),
                bytes: dir_size(&dir),
                auto: auto.as_deref() == Some(dir.as_path()),
                dir,
            }
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// A pull that broke off and left its downloads for the next pull to resume.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct InterruptedPull {
    /// `organisation/name`.
    pub name: String,
    /// The commit being pulled.
    pub commit: String,
    /// Bytes downloaded so far.
    pub bytes: u64,
}

/// The interrupted pulls under `root` (their `.pull-*` staging directories), sorted by name.
pub fn interrupted_pulls(root: &Path) -> Vec<InterruptedPull> {
    let Ok(rd) = fs::read_dir(root) else { return Vec::new() };
    let mut out: Vec<InterruptedPull> = rd
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(".pull-"))
        .filter_map(|e| {
            let meta = PulledModel::read(&e.path())?;
            Some(InterruptedPull {
                name: meta.repo,
                commit: meta.commit,
                bytes: dir_size(&e.path()),
            })
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn dir_size(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_names_parse_and_refuse_paths() {
        let m = ModelRef::parse("BAAI/bge-small-en-v1.5").unwrap();
        assert_eq!(m.repo, "BAAI/bge-small-en-v1.5");
        assert_eq!(m.revision, "main");
        assert_eq!(m.dir_name(), "BAAI--bge-small-en-v1.5");
        let m = ModelRef::parse("intfloat/e5-small-v2@ffb93f3").unwrap();
        assert_eq!(m.revision, "ffb93f3");
        for bad in
            ["", "minilm", "a/b/c", "../x", "a/..", "/abs", "a b/c", "a/b@", "a/b@x..y", ".a/b"]
        {
            assert!(ModelRef::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn git_blob_ids_match_git() {
        // `printf 'hello\n' | git hash-object --stdin`
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("f");
        fs::write(&p, "hello\n").unwrap();
        let model = ModelRef::parse("a/b").unwrap();
        let file = Sibling {
            rfilename: "f".into(),
            blob_id: Some("ce013625030ba8dba906f756967f9e9ca394464a".into()),
            size: Some(6),
            lfs: None,
        };
        verify(&model, &file, &p).unwrap();
        fs::write(&p, "hellO\n").unwrap();
        let err = verify(&model, &file, &p).unwrap_err();
        assert!(err.to_string().contains("git blob id"), "{err}");
    }
}
