//! Durable file-system primitives that every write memlane makes goes through: atomic writes and
//! creates (`atomic`), moves that never replace a file, directory sync, several files replaced
//! together (`group`), a directory installed whole (`install`), and OS file locks (`lock`).
//! Nothing here knows what a memory, an index or a model is.

mod atomic;
mod confined;
mod group;
mod install;
mod lock;

pub use atomic::atomic_write;
pub(crate) use atomic::{TEMP_SUFFIX, append_synced};
pub use confined::{Confined, ConfinedDir, DirEntry, Kind, Stat};
pub(crate) use group::{FileGroup, sync_folder};
pub(crate) use install::{install_dir, staging_dir};
pub(crate) use lock::{lock_file, lock_opened};

/// Lower-case hex of `bytes` (checksums, signatures, random name parts).
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}
