//! tantivy's files beneath the vault's handle: a [`Directory`] whose every open, write,
//! rename, remove, lock and folder sync goes through [`Confined`], so no symbolic link is
//! followed at `indices/`, at `indices/keyword/` or at any file in it, whatever another process
//! swaps in while the index is open (tantivy's own `MmapDirectory` opens files by path).
//!
//! Files are read with positioned reads (`pread`) on the handle opened once per file, rather
//! than memory-mapped: mapping a file needs `unsafe`, which memlane forbids. The cost is one
//! system call and a copy per range tantivy reads; docs/internals/indices.md gives the
//! measurement.
//!
//! tantivy only calls [`Directory::watch`] to reload a reader by itself after another
//! process's commit; the keyword index reloads its reader explicitly instead (after its own
//! commits, and the stores are reopened when another process changed them), so watching is not
//! offered.

use std::io::{self, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tantivy::HasLen;
use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    AntiCallToken, Directory, DirectoryLock, FileHandle, Lock, OwnedBytes, TerminatingWrite,
    WatchCallback, WatchHandle, WritePtr,
};

use crate::disk::{Confined, Kind};

/// The folder of a keyword index, reached beneath the handle of the folder holding the vault's
/// `indices/` (see [`crate::index::confined_io`]).
#[derive(Debug, Clone)]
pub(crate) struct ConfinedDirectory {
    fs: Confined,
    /// The index folder, relative to `fs`.
    dir: PathBuf,
}

impl ConfinedDirectory {
    /// The existing folder `dir` (refused when it or a folder on the way is a link, or when it
    /// is not a folder).
    pub(crate) fn open(dir: &Path) -> io::Result<Self> {
        let (fs, rel) = crate::index::confined_io::handle(dir)?;
        match fs.stat(&rel).map_err(|e| e.source)? {
            Some(s) if s.kind == Kind::Dir => Ok(Self { fs, dir: rel }),
            Some(_) => Err(io::Error::other("it is not a folder")),
            None => Err(io::ErrorKind::NotFound.into()),
        }
    }

    fn path(&self, name: &Path) -> PathBuf {
        self.dir.join(name)
    }
}

/// A file tantivy reads, held open: each range is read at its offset.
#[derive(Debug)]
struct ReadAt {
    file: std::fs::File,
    len: usize,
}

impl HasLen for ReadAt {
    fn len(&self) -> usize {
        self.len
    }
}

impl FileHandle for ReadAt {
    fn read_bytes(&self, range: Range<usize>) -> io::Result<OwnedBytes> {
        if range.start >= range.end {
            return Ok(OwnedBytes::empty());
        }
        if range.end > self.len {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("a read up to byte {} of a file of {} bytes", range.end, self.len),
            ));
        }
        let mut buf = vec![0u8; range.len()];
        read_exact_at(&self.file, &mut buf, range.start as u64)?;
        Ok(OwnedBytes::new(buf))
    }
}

#[cfg(unix)]
fn read_exact_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    use std::os::unix::fs::FileExt as _;
    file.read_exact_at(buf, offset)
}

#[cfg(windows)]
fn read_exact_at(file: &std::fs::File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    use std::os::windows::fs::FileExt as _;
    while !buf.is_empty() {
        match file.seek_read(buf, offset)? {
            0 => return Err(io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

/// A new file tantivy writes: flushed and synced when tantivy terminates it (the folder is
/// synced by [`Directory::sync_directory`]).
struct SyncedFile(std::fs::File);

impl Write for SyncedFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl TerminatingWrite for SyncedFile {
    fn terminate_ref(&mut self, _: AntiCallToken) -> io::Result<()> {
        self.0.flush()?;
        self.0.sync_data()
    }
}

impl Directory for ConfinedDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        let file = self.fs.open_read(&self.path(path)).map_err(|e| match e.source.kind() {
            io::ErrorKind::NotFound => OpenReadError::FileDoesNotExist(path.to_owned()),
            _ => OpenReadError::wrap_io_error(e.source, path.to_owned()),
        })?;
        let len =
            file.metadata().map_err(|e| OpenReadError::wrap_io_error(e, path.to_owned()))?.len()
                as usize;
        Ok(Arc::new(ReadAt { file, len }))
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.fs.remove_file(&self.path(path)).map_err(|e| match e.source.kind() {
            io::ErrorKind::NotFound => DeleteError::FileDoesNotExist(path.to_owned()),
            _ => DeleteError::IoError { io_error: Arc::new(e.source), filepath: path.to_owned() },
        })
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.fs
            .stat(&self.path(path))
            .map(|s| s.is_some())
            .map_err(|e| OpenReadError::wrap_io_error(e.source, path.to_owned()))
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        let file = self.fs.create_file(&self.path(path)).map_err(|e| match e.source.kind() {
            io::ErrorKind::AlreadyExists => OpenWriteError::FileAlreadyExists(path.to_owned()),
            _ => OpenWriteError::wrap_io_error(e.source, path.to_owned()),
        })?;
        Ok(io::BufWriter::new(Box::new(SyncedFile(file))))
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.fs.read(&self.path(path)).map_err(|e| match e.source.kind() {
            io::ErrorKind::NotFound => OpenReadError::FileDoesNotExist(path.to_owned()),
            _ => OpenReadError::wrap_io_error(e.source, path.to_owned()),
        })
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        self.fs.write(&self.path(path), data).map_err(|e| e.source)
    }

    fn sync_directory(&self) -> io::Result<()> {
        self.fs.sync_dir(&self.dir).map_err(|e| e.source)
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        let file = self
            .fs
            .open_lock_file(&self.path(&lock.filepath))
            .map_err(|e| LockError::wrap_io_error(e.source))?;
        if lock.is_blocking {
            file.lock().map_err(LockError::wrap_io_error)?;
        } else {
            match file.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => return Err(LockError::LockBusy),
                Err(std::fs::TryLockError::Error(e)) => return Err(LockError::wrap_io_error(e)),
            }
        }
        // Closing the file releases the lock; the file itself stays, as tantivy's does.
        Ok(DirectoryLock::from(Box::new(file)))
    }

    fn watch(&self, _: WatchCallback) -> tantivy::Result<WatchHandle> {
        Ok(WatchHandle::empty())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn vault() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("vault/indices/keyword");
        std::fs::create_dir_all(&dir).unwrap();
        (tmp, dir)
    }

    #[test]
    fn files_are_written_read_and_removed_in_the_folder() {
        let (_tmp, dir) = vault();
        let d = ConfinedDirectory::open(&dir).unwrap();
        let mut w = d.open_write(Path::new("seg.idx")).unwrap();
        w.write_all(b"hello, index").unwrap();
        w.terminate().unwrap();
        assert!(matches!(
            d.open_write(Path::new("seg.idx")),
            Err(OpenWriteError::FileAlreadyExists(_))
        ));
        let h = d.get_file_handle(Path::new("seg.idx")).unwrap();
        assert_eq!(h.len(), 12);
        assert_eq!(h.read_bytes(7..12).unwrap().as_slice(), b"index");
        assert!(h.read_bytes(3..3).unwrap().is_empty());
        assert!(h.read_bytes(7..13).is_err(), "past the end");
        d.atomic_write(Path::new("meta.json"), b"{}").unwrap();
        assert_eq!(d.atomic_read(Path::new("meta.json")).unwrap(), b"{}");
        assert!(d.exists(Path::new("meta.json")).unwrap());
        d.delete(Path::new("seg.idx")).unwrap();
        assert!(matches!(d.delete(Path::new("seg.idx")), Err(DeleteError::FileDoesNotExist(_))));
        assert!(matches!(
            d.atomic_read(Path::new("seg.idx")),
            Err(OpenReadError::FileDoesNotExist(_))
        ));
    }

    #[test]
    fn a_writer_lock_is_exclusive_and_released_when_dropped() {
        let (_tmp, dir) = vault();
        let d = ConfinedDirectory::open(&dir).unwrap();
        let lock = Lock { filepath: PathBuf::from(".w.lock"), is_blocking: false };
        let held = d.acquire_lock(&lock).unwrap();
        assert!(matches!(d.acquire_lock(&lock), Err(LockError::LockBusy)));
        drop(held);
        d.acquire_lock(&lock).unwrap();
    }

    #[test]
    fn no_link_is_followed_in_or_above_the_index_folder() {
        let (tmp, dir) = vault();
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret"), "outside text").unwrap();
        let d = ConfinedDirectory::open(&dir).unwrap();

        // A file in the index folder that is a link to a file outside: neither read nor
        // written through; removing it removes the link.
        std::os::unix::fs::symlink(outside.join("secret"), dir.join("meta.json")).unwrap();
        assert!(d.atomic_read(Path::new("meta.json")).is_err());
        assert!(d.get_file_handle(Path::new("meta.json")).is_err());
        assert!(d.open_write(Path::new("meta.json")).is_err());
        let lock = Lock { filepath: PathBuf::from("meta.json"), is_blocking: false };
        assert!(d.acquire_lock(&lock).is_err());
        d.atomic_write(Path::new("meta.json"), b"{}").unwrap();
        assert_eq!(std::fs::read_to_string(outside.join("secret")).unwrap(), "outside text");
        assert!(!std::fs::symlink_metadata(dir.join("meta.json")).unwrap().is_symlink());

        // The index folder swapped for a link to a folder outside after it was opened: every
        // operation fails, nothing outside is created, read or removed.
        std::fs::remove_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink(&outside, &dir).unwrap();
        assert!(d.atomic_read(Path::new("secret")).is_err());
        assert!(!matches!(d.exists(Path::new("secret")), Ok(true)));
        assert!(d.open_write(Path::new("new.idx")).is_err());
        assert!(d.atomic_write(Path::new("new.json"), b"x").is_err());
        assert!(d.delete(Path::new("secret")).is_err());
        assert!(d.acquire_lock(&lock).is_err());
        let mut names: Vec<_> =
            std::fs::read_dir(&outside).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        assert_eq!(names, ["secret"], "nothing was created or removed outside");
        assert_eq!(std::fs::read_to_string(outside.join("secret")).unwrap(), "outside text");
        assert!(ConfinedDirectory::open(&dir).is_err(), "a linked index folder is not opened");
    }
}
