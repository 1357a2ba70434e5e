//! Durable file-system primitives that every write memlane makes goes through: atomic writes and
//! creates (`atomic`), moves that never replace a file, directory sync, and OS file locks
//! (`lock`). Nothing here knows what a memory or an index is.

mod atomic;
mod lock;

pub use atomic::atomic_write;
pub(crate) use atomic::{
    TEMP_SUFFIX, atomic_create, atomic_write_mode, file_mode, move_no_clobber, sync_dir,
};
pub(crate) use lock::lock_file;
