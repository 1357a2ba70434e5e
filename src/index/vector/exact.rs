//! The exact copies of the vectors: the graph searches 8-bit copies, and the candidates it
//! finds are scored again with these.
//!
//! usearch stores each vector as `i8` (a quarter of the `f32` size), scaled by its own largest
//! component so that the 8 bits cover the vector's range (cosine ignores the scale). That is
//! what the graph is built and walked with: 4× fewer bytes to map, read and compare. The exact
//! unit vectors are kept beside it in [`EXACT_FILE`], read by position with `pread` (never
//! mapped: a search touches a few dozen rows, and none of them stays in the process's memory),
//! and every candidate's similarity is computed again from them before the final cut. So
//! scores are exact `f32` cosines; only which candidates reach the rescoring depends on the
//! 8-bit copies, and [`overfetch`] asks for enough of them that a vector of the exact top is
//! not lost (the 8-bit cosine is within ≈ 0.002 of the exact one on 384 dimensions).
//!
//! The file: a 32-byte header (`MLVEXCT1`, the generation of the save, the dimension, the
//! count, each `u64` little-endian), then one row of `dim` little-endian `f32`s per key, in the
//! order of `keys.bin`, which a save writes sorted (a key's row is found by binary search).

use std::fs;
use std::io::{self, Write as _};
use std::path::Path;

use super::{Attempt, VectorError};
use crate::error::{IoResultExt, PathError};

/// File name of the exact vectors inside the index directory.
pub const EXACT_FILE: &str = "exact.f32";

const MAGIC: &[u8; 8] = b"MLVEXCT1";
const HEADER: u64 = 32;

/// Candidates fetched from the 8-bit graph for `wanted` results: `wanted` plus as many again,
/// at least 32 more.
pub(super) fn overfetch(wanted: usize) -> usize {
    wanted.saturating_add(wanted.max(32))
}

/// The 8-bit copy of a unit vector: each component times `127 / max |component|`, rounded
/// (all zeros stay zeros).
pub(super) fn quantized(unit: &[f32]) -> Vec<i8> {
    let max = unit.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    if max == 0.0 || !max.is_finite() {
        return vec![0; unit.len()];
    }
    let scale = 127.0 / max;
    unit.iter().map(|x| (x * scale).round().clamp(-127.0, 127.0) as i8).collect()
}

/// Cosine similarity of two 8-bit copies (0 when either is all zeros).
pub(super) fn cosine_i8(a: &[i8], b: &[i8]) -> f32 {
    let (mut ab, mut aa, mut bb) = (0i64, 0i64, 0i64);
    for (&x, &y) in a.iter().zip(b) {
        let (x, y) = (i64::from(x), i64::from(y));
        ab += x * y;
        aa += x * x;
        bb += y * y;
    }
    if aa == 0 || bb == 0 {
        return 0.0;
    }
    (ab as f64 / ((aa as f64).sqrt() * (bb as f64).sqrt())) as f32
}

/// The exact vectors of the base on disk, held open.
#[derive(Debug)]
pub(super) struct ExactFile {
    file: fs::File,
    /// The base's keys, ascending: a key's row is its position.
    keys: Vec<u64>,
    dim: usize,
    path: std::path::PathBuf,
}

impl ExactFile {
    /// The file of `dir` for the base of generation `generation` whose keys (ascending) are
    /// `keys`. Its header must name that generation, `dim` and the number of keys, and its
    /// length hold exactly that many rows; else the files are from different saves (a crash
    /// between two renames, or a writer renaming right now).
    pub(super) fn open(
        dir: &Path,
        generation: u64,
        dim: usize,
        keys: Vec<u64>,
    ) -> Result<Result<Self, Attempt>, VectorError> {
        let path = dir.join(EXACT_FILE);
        let file = match crate::index::confined_io::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(Err(Attempt::Mismatch(format!("{EXACT_FILE} is missing"))));
            }
            Err(e) => return Err(VectorError::Io(PathError { action: "open", path, source: e })),
        };
        let len = file.metadata().at("read", &path)?.len();
        let mut header = [0u8; HEADER as usize];
        if len >= HEADER {
            crate::index::confined_io::read_exact_at(&file, &mut header, 0).at("read", &path)?;
        }
        let u64_at =
            |at: usize| u64::from_le_bytes(header[at..at + 8].try_into().unwrap_or_default());
        let count = keys.len() as u64;
        let rows = (dim as u64).saturating_mul(4).saturating_mul(count);
        if len < HEADER
            || &header[..8] != MAGIC
            || u64_at(8) != generation
            || u64_at(16) != dim as u64
            || u64_at(24) != count
            || len != HEADER.saturating_add(rows)
        {
            return Ok(Err(Attempt::Mismatch(format!(
                "{EXACT_FILE} is not the one {} records",
                super::META_FILE
            ))));
        }
        Ok(Ok(Self { file, keys, dim, path }))
    }

    /// Copies the exact vector of `key` into `buf`; false when the base does not hold `key`.
    /// A component that is not a finite number (a damaged file) reads as 0.
    pub(super) fn read(&self, key: u64, buf: &mut [f32]) -> Result<bool, VectorError> {
        let Ok(row) = self.keys.binary_search(&key) else {
            return Ok(false);
        };
        // Read straight into `buf`, then each value from its little-endian bytes.
        self.read_rows(row, bytemuck::cast_slice_mut(buf))?;
        for x in buf.iter_mut() {
            *x = finite(f32::from_le_bytes(x.to_ne_bytes()));
        }
        Ok(true)
    }

    /// A reader of the rows of keys asked in ascending order, in blocks of about 1 MB: what a
    /// full save copies, without one read per row.
    pub(super) fn in_order(&self) -> InOrder<'_> {
        InOrder { file: self, next: 0, first: 0, block: Vec::new() }
    }

    fn read_rows(&self, row: usize, bytes: &mut [u8]) -> Result<(), VectorError> {
        let at = HEADER + (row * self.dim * 4) as u64;
        crate::index::confined_io::read_exact_at(&self.file, bytes, at).at("read", &self.path)?;
        Ok(())
    }
}

/// See [`ExactFile::in_order`].
pub(super) struct InOrder<'a> {
    file: &'a ExactFile,
    /// Keys before this row were passed.
    next: usize,
    /// The row `block` starts at.
    first: usize,
    block: Vec<u8>,
}

impl InOrder<'_> {
    /// As [`ExactFile::read`], for a key above every key asked before.
    pub(super) fn read(&mut self, key: u64, buf: &mut [f32]) -> Result<bool, VectorError> {
        let keys = &self.file.keys;
        let Ok(found) = keys[self.next..].binary_search(&key) else {
            return Ok(false);
        };
        let row = self.next + found;
        self.next = row + 1;
        let width = self.file.dim * 4;
        if row < self.first || row >= self.first + self.block.len() / width {
            let rows = ((1 << 20) / width).max(1).min(keys.len() - row);
            self.block.resize(rows * width, 0);
            self.first = row;
            self.file.read_rows(row, &mut self.block)?;
        }
        let at = (row - self.first) * width;
        decode(&self.block[at..at + width], buf);
        Ok(true)
    }
}

/// `row` as little-endian bytes (on a little-endian machine, the row itself; else encoded into
/// `scratch`).
fn le_bytes<'a>(row: &'a [f32], scratch: &'a mut Vec<u8>) -> &'a [u8] {
    if cfg!(target_endian = "little") {
        return bytemuck::cast_slice(row);
    }
    scratch.clear();
    for x in row {
        scratch.extend_from_slice(&x.to_le_bytes());
    }
    scratch
}

/// Little-endian `f32`s into `buf`; one that is not a finite number reads as 0.
fn decode(bytes: &[u8], buf: &mut [f32]) {
    for (x, b) in buf.iter_mut().zip(bytes.chunks_exact(4)) {
        *x = finite(f32::from_le_bytes(b.try_into().unwrap_or_default()));
    }
}

/// A stored value that is not a finite number (a damaged row) reads as 0.
fn finite(v: f32) -> f32 {
    if v.is_finite() { v } else { 0.0 }
}

/// Writes the exact vectors file at `path` (a new file, beneath the vault handle, synced): the
/// header for `generation`, then the row of each of `keys` (ascending) as `row` fills it.
pub(super) fn write(
    path: &Path,
    generation: u64,
    dim: usize,
    keys: &[u64],
    mut row: impl FnMut(u64, &mut [f32]) -> Result<(), VectorError>,
) -> Result<(), VectorError> {
    let (fs, rel) = crate::disk::Confined::anchored(path, "create")?;
    let file = fs.create_file(&rel)?;
    let mut out = io::BufWriter::with_capacity(1 << 20, file);
    let mut header = Vec::with_capacity(HEADER as usize);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&generation.to_le_bytes());
    header.extend_from_slice(&(dim as u64).to_le_bytes());
    header.extend_from_slice(&(keys.len() as u64).to_le_bytes());
    out.write_all(&header).at("write", path)?;
    let mut buf = vec![0.0f32; dim];
    let mut bytes = Vec::with_capacity(dim * 4);
    for &key in keys {
        row(key, &mut buf)?;
        out.write_all(le_bytes(&buf, &mut bytes)).at("write", path)?;
    }
    let file = out.into_inner().map_err(|e| e.into_error()).at("write", path)?;
    file.sync_all().at("sync", path)?;
    Ok(())
}
