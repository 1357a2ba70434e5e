//! Writing the vector index: full saves, the journal, compaction, and file stamps.

use super::*;
use crate::disk::FileGroup;

impl VectorIndex {
    /// Writes the index into its directory atomically (see the notes at the top of `src/index/vector/persist.rs`).
    ///
    /// Creates the directory if needed. An index opened from disk writes only its journal while
    /// it holds at most [`delta_max`](Self::delta_max) changes; otherwise (a new index, or a
    /// compaction) the whole index is rewritten as a new generation.
    /// [`has_unsaved_changes`](Self::has_unsaved_changes) says whether there is anything to write.
    pub fn save(&mut self) -> Result<(), VectorError> {
        let dir = self.dir.clone().ok_or(VectorError::InMemory)?;
        if self.read_only {
            return Err(VectorError::ReadOnly);
        }
        crate::index::confined_io::create_dir_all(&dir).at("create", &dir)?;
        if self.journal && self.delta.len() <= self.delta_max {
            write_delta(&dir, self.generation, self.dim, &self.delta)?;
        } else {
            if self.journal {
                self.compact(&dir)?;
            }
            let generation = self.generation.max(disk_generation(&dir)) + 1;
            let keys = self.write_files(&dir, generation)?;
            // An empty journal of the new generation: a reader that opened the old base and
            // then finds it retries instead of missing the old journal's changes.
            write_delta(&dir, generation, self.dim, &HashMap::new())?;
            self.generation = generation;
            self.journal = true;
            self.reopen_exact(&dir, keys)?;
        }
        sync_dir(&dir)?;
        self.dirty.store(false, AtomicOrdering::Relaxed);
        Ok(())
    }

    /// Folds the journal into the base (loading the base first when it is a view); the next
    /// save is then a full one.
    fn compact(&mut self, dir: &Path) -> Result<(), VectorError> {
        if self.view {
            let path = dir.join(VECTORS_FILE);
            let index = Index::new(&index_options(self.dim)).map_err(engine("create an index"))?;
            let file = crate::index::confined_io::open(&path).at("open", &path)?;
            index.load(&engine_path(&file, &path)?.path).map_err(|e| VectorError::EngineFile {
                action: "load",
                path: path.clone(),
                message: e.to_string(),
            })?;
            index.change_expansion_search(EXPANSION_SEARCH);
            index.change_expansion_add(EXPANSION_ADD);
            index
                .reserve_capacity_and_threads(index.capacity().max(MIN_CAPACITY), self.threads)
                .map_err(engine("reserve memory"))?;
            self.index = index;
            self.view = false;
        }
        let delta = std::mem::take(&mut self.delta);
        self.journal = false;
        let mut keys: Vec<u64> = delta.keys().copied().collect();
        keys.sort_unstable();
        for key in keys {
            if self.index.contains(key) {
                self.index.remove(key).map_err(engine("remove a vector"))?;
            }
            if let Some(v) = &delta[&key] {
                if self.index.size() + 1 > self.index.capacity() {
                    let grown = self.index.capacity().saturating_mul(2).max(MIN_CAPACITY);
                    self.index
                        .reserve_capacity_and_threads(grown, self.threads)
                        .map_err(engine("reserve memory"))?;
                }
                self.index.add(key, &quantized(v)).map_err(engine("add a vector"))?;
            }
        }
        for (key, v) in delta {
            if let Some(v) = v {
                self.fresh.insert(key, v);
            }
        }
        Ok(())
    }

    /// The exact vectors of the base just saved (generation `self.generation`, keys `keys`)
    /// opened in place of the previous base's; the vectors held since are dropped.
    fn reopen_exact(&mut self, dir: &Path, keys: Vec<u64>) -> Result<(), VectorError> {
        match ExactFile::open(dir, self.generation, self.dim, keys)? {
            Ok(file) => self.base_exact = Some(file),
            Err(_) => {
                return Err(VectorError::Io(PathError {
                    action: "read",
                    path: dir.join(EXACT_FILE),
                    source: io::Error::other("the file just saved was replaced"),
                }));
            }
        }
        self.fresh = HashMap::new();
        Ok(())
    }

    /// Writes a full save of generation `generation` (see [`save`](Self::save)); returns its
    /// keys, ascending.
    fn write_files(&self, dir: &Path, generation: u64) -> Result<Vec<u64>, VectorError> {
        let mut files = FileGroup::new(dir);
        let vectors_tmp = files.temp_path(VECTORS_FILE);

        let vectors = {
            // Created beneath the vault handle (never through a link), then written by usearch
            // through that handle; read and write access so that fsync also works where it
            // needs it (Windows).
            let (fs, rel) = crate::disk::Confined::anchored(&vectors_tmp, "create")?;
            let mut file = fs.create_file(&rel)?;
            let target = engine_path(&file, &vectors_tmp)?;
            self.index.save(&target.path).map_err(|e| VectorError::EngineFile {
                action: "save",
                path: vectors_tmp.clone(),
                message: e.to_string(),
            })?;
            file.sync_all().at("sync", &vectors_tmp)?;
            stamp_of_reader(&mut file).at("read", &vectors_tmp)?
        };
        files.staged(VECTORS_FILE);

        let mut keys = self.keys.clone();
        keys.sort_unstable();
        let exact_tmp = files.temp_path(EXACT_FILE);
        // The base's rows are read in order, in large blocks (the keys are ascending).
        let mut base = self.base_exact.as_ref().map(ExactFile::in_order);
        exact::write(&exact_tmp, generation, self.dim, &keys, |key, row| {
            let found = match (self.held(key), base.as_mut()) {
                (Held::Vector(v), _) => {
                    row.copy_from_slice(v);
                    true
                }
                (Held::Base, Some(base)) => base.read(key, row)?,
                (Held::Base | Held::Removed, None) | (Held::Removed, _) => false,
            };
            if found {
                Ok(())
            } else {
                Err(engine("save")(format!("no exact vector for key {key}")))
            }
        })?;
        files.staged(EXACT_FILE);

        let key_bytes: Vec<u8> = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
        files.write(KEYS_FILE, &key_bytes)?;

        let meta = Meta {
            format: FORMAT,
            embedder_id: self.embedder_id.clone(),
            dim: self.dim,
            count: self.keys.len(),
            metric: METRIC_NAME.to_owned(),
            scalar: SCALAR_NAME.to_owned(),
            vectors,
            keys: stamp_of(&key_bytes),
            generation,
        };
        let mut meta_bytes = serde_json::to_vec_pretty(&meta)
            .map_err(|source| VectorError::Encode { path: files.temp_path(META_FILE), source })?;
        meta_bytes.push(b'\n');
        // meta.json last: until it is renamed, open() sees the old meta and detects new files by
        // their hashes.
        files.write(META_FILE, &meta_bytes)?;
        files.commit()?;
        Ok(keys)
    }
}

/// The generation recorded in `dir`'s `meta.json` (0 when there is none).
pub(super) fn disk_generation(dir: &Path) -> u64 {
    crate::index::confined_io::read(&dir.join(META_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice::<Meta>(&b).ok())
        .map_or(0, |m| m.generation)
}

/// Writes the journal atomically: magic, generation, dim, count, then `key, 0` (removed) or
/// `key, 1, dim × f32` per entry (sorted by key), then the xxh3 of all that, little-endian.
pub(super) fn write_delta(
    dir: &Path,
    generation: u64,
    dim: usize,
    delta: &HashMap<u64, Option<Vec<f32>>>,
) -> Result<(), VectorError> {
    let mut keys: Vec<u64> = delta.keys().copied().collect();
    keys.sort_unstable();
    let mut bytes = Vec::with_capacity(40 + delta.len() * (9 + dim * 4));
    bytes.extend_from_slice(DELTA_MAGIC);
    bytes.extend_from_slice(&generation.to_le_bytes());
    bytes.extend_from_slice(&(dim as u64).to_le_bytes());
    bytes.extend_from_slice(&(delta.len() as u64).to_le_bytes());
    for key in keys {
        bytes.extend_from_slice(&key.to_le_bytes());
        match &delta[&key] {
            Some(v) => {
                bytes.push(1);
                for x in v {
                    bytes.extend_from_slice(&x.to_le_bytes());
                }
            }
            None => bytes.push(0),
        }
    }
    let sum = xxh3_64(&bytes);
    bytes.extend_from_slice(&sum.to_le_bytes());
    // One file, replaced without syncing the folder (the save that writes it syncs it after).
    let mut journal = FileGroup::new(dir);
    journal.write(DELTA_FILE, &bytes)?;
    Ok(journal.commit_unsynced()?)
}

/// What [`read_delta`] found.
pub(super) enum DeltaRead {
    Missing,
    Corrupt(String),
    Ok { generation: u64, entries: Vec<(u64, Option<Vec<f32>>)> },
}

pub(super) fn read_delta(path: &Path, dim: usize) -> Result<DeltaRead, VectorError> {
    let Some(bytes) = read_if_exists(path)? else {
        return Ok(DeltaRead::Missing);
    };
    let corrupt = |what: &str| Ok(DeltaRead::Corrupt(format!("{DELTA_FILE} is corrupt: {what}")));
    if bytes.len() < 40 || &bytes[..8] != DELTA_MAGIC {
        return corrupt("bad header");
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    if xxh3_64(body).to_le_bytes() != sum {
        return corrupt("bad checksum");
    }
    let u64_at = |at: usize| u64::from_le_bytes(body[at..at + 8].try_into().unwrap_or_default());
    let generation = u64_at(8);
    if u64_at(16) != dim as u64 {
        return corrupt("another dimension");
    }
    let count = u64_at(24) as usize;
    let mut entries = Vec::with_capacity(count.min(body.len() / 9));
    let mut at = 32;
    for _ in 0..count {
        if at + 9 > body.len() {
            return corrupt("truncated");
        }
        let key = u64_at(at);
        let tag = body[at + 8];
        at += 9;
        let vector = match tag {
            0 => None,
            1 if at + dim * 4 <= body.len() => {
                let v: Vec<f32> = body[at..at + dim * 4]
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes(b.try_into().unwrap_or_default()))
                    .collect();
                at += dim * 4;
                if !v.iter().all(|x| x.is_finite()) {
                    return corrupt("a non-finite value");
                }
                Some(v)
            }
            _ => return corrupt("bad entry"),
        };
        entries.push((key, vector));
    }
    if at != body.len() {
        return corrupt("trailing bytes");
    }
    Ok(DeltaRead::Ok { generation, entries })
}

pub(super) enum Attempt {
    Ready(Box<VectorIndex>),
    /// Permanent: the files are there and consistent, but unusable for this request.
    Rebuild(String),
    /// The files disagree with meta.json: a crash mid-save, or a writer renaming right now.
    Mismatch(String),
}

pub(super) fn rebuild(reason: String) -> OpenOutcome {
    tracing::debug!(%reason, "vector index needs a rebuild");
    OpenOutcome::NeedsRebuild { reason }
}

/// Identity of a file: (device, inode) on Unix; size and mtime elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FileIdentity {
    a: u64,
    b: u64,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl FileIdentity {
    pub(super) fn of(meta: &fs::Metadata) -> Self {
        #[cfg(unix)]
        let (a, b) = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino())
        };
        #[cfg(not(unix))]
        let (a, b) = (0, 0);
        Self { a, b, len: meta.len(), modified: meta.modified().ok() }
    }
}

pub(super) fn path_str(path: &Path) -> Result<&str, VectorError> {
    path.to_str().ok_or_else(|| VectorError::NonUtf8Path(path.to_path_buf()))
}

/// How usearch, which takes a path, reaches a file memlane opened beneath the vault handle.
pub(super) struct EnginePath {
    /// The path handed to usearch.
    pub(super) path: String,
    /// Whether that path names the open file itself, not whatever is at `path` now.
    pub(super) by_handle: bool,
}

/// The path of the open `file` (which is at `path`) for usearch: on Linux, the file's entry in
/// `/proc/self/fd`, through which the kernel hands back that very open file, whatever has been
/// swapped in at `path` or above it since; elsewhere (or without `/proc`), `path` itself.
pub(super) fn engine_path(file: &fs::File, path: &Path) -> Result<EnginePath, VectorError> {
    #[cfg(target_os = "linux")]
    {
        static PROC_FD: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        if *PROC_FD.get_or_init(|| Path::new("/proc/self/fd").is_dir()) {
            use std::os::fd::AsRawFd as _;
            let path = format!("/proc/self/fd/{}", file.as_raw_fd());
            return Ok(EnginePath { path, by_handle: true });
        }
    }
    let _ = file;
    Ok(EnginePath { path: path_str(path)?.to_owned(), by_handle: false })
}

pub(super) fn read_if_exists(path: &Path) -> Result<Option<Vec<u8>>, VectorError> {
    match crate::index::confined_io::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => {
            Err(VectorError::Io(PathError { action: "read", path: path.to_path_buf(), source: e }))
        }
    }
}

pub(super) fn hex(hash: u64) -> String {
    format!("{hash:016x}")
}

pub(super) fn stamp_of(bytes: &[u8]) -> FileStamp {
    FileStamp { bytes: bytes.len() as u64, xxh3: hex(xxh3_64(bytes)) }
}

/// Length and a sampled hash of a file: its first and last [`STAMP_SAMPLE`] bytes (the whole
/// file when it is smaller than two samples).
///
/// The stamp only has to tell one save from another (the renames of `save` are not atomic as a
/// pair); hashing every byte would cost a full read of a large index on every open.
pub(super) fn stamp_of_reader<R: Read + io::Seek>(reader: &mut R) -> io::Result<FileStamp> {
    let bytes = reader.seek(io::SeekFrom::End(0))?;
    let mut hasher = Xxh3Default::new();
    hasher.update(&bytes.to_le_bytes());
    let mut buf = vec![0u8; STAMP_SAMPLE as usize];
    let mut sample = |from: u64, len: u64, hasher: &mut Xxh3Default| -> io::Result<()> {
        reader.seek(io::SeekFrom::Start(from))?;
        let part = &mut buf[..len as usize];
        reader.read_exact(part)?;
        hasher.update(part);
        Ok(())
    };
    if bytes <= 2 * STAMP_SAMPLE {
        let mut rest = bytes;
        let mut from = 0;
        while rest > 0 {
            let len = rest.min(STAMP_SAMPLE);
            sample(from, len, &mut hasher)?;
            from += len;
            rest -= len;
        }
    } else {
        sample(0, STAMP_SAMPLE, &mut hasher)?;
        sample(bytes - STAMP_SAMPLE, STAMP_SAMPLE, &mut hasher)?;
    }
    Ok(FileStamp { bytes, xxh3: hex(hasher.digest()) })
}

/// Bytes hashed at each end of the vectors file by [`stamp_of_reader`].
pub(super) const STAMP_SAMPLE: u64 = 1 << 20;

pub(super) fn sync_dir(dir: &Path) -> Result<(), VectorError> {
    Ok(crate::disk::sync_folder(dir)?)
}
