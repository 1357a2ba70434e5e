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
//! Syncing: a commit of one small segment writes about six files and rewrites tantivy's list of
//! the files it manages once per new file. The segment files are synced together, in parallel,
//! when tantivy next syncs the folder or replaces a file that may refer to them (`meta.json`),
//! rather than one after another as each is finished: the same durability, one wait instead of
//! six. The list of managed files (`.managed.json`) is replaced atomically but not synced: it
//! only tells tantivy which files it may delete, so an older copy after a power cut leaves
//! unused files behind, never a wrong index.
//!
//! tantivy only calls [`Directory::watch`] to reload a reader by itself after another
//! process's commit; the keyword index reloads its reader explicitly instead (after its own
//! commits, and the stores are reopened when another process changed them), so watching is not
//! offered.

use std::io::{self, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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
    /// Files written in full whose data is not synced yet (shared by every clone).
    unsynced: Arc<Unsynced>,
}

/// tantivy's file list (see the module documentation): replaced without a sync.
const MANAGED_LIST: &str = ".managed.json";

/// Files tantivy has finished writing and that are not synced yet.
#[derive(Debug, Default)]
struct Unsynced(Mutex<Vec<std::fs::File>>);

impl Unsynced {
    fn push(&self, file: std::fs::File) {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(file);
    }

    /// Syncs the data of every file written so far, in parallel. The list stays locked until
    /// all are synced, so a caller that finds it empty knows its own files are durable.
    fn sync_all(&self) -> io::Result<()> {
        let mut files = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let res = match files.as_slice() {
            [] => Ok(()),
            [one] => one.sync_data(),
            [first, rest @ ..] => std::thread::scope(|scope| {
                let others: Vec<_> =
                    rest.iter().map(|f| scope.spawn(move || f.sync_data())).collect();
                let mut res = first.sync_data();
                for t in others {
                    let r = t.join().unwrap_or_else(|_| Err(io::Error::other("a sync panicked")));
                    res = res.and(r);
                }
                res
            }),
        };
        // On an error the files stay listed: the next sync tries them again.
        if res.is_ok() {
            files.clear();
        }
        res
    }
}

impl ConfinedDirectory {
    /// The existing folder `dir` (refused when it or a folder on the way is a link, or when it
    /// is not a folder).
    pub(crate) fn open(dir: &Path) -> io::Result<Self> {
        let (fs, rel) = crate::index::confined_io::handle(dir)?;
        match fs.stat(&rel).map_err(|e| e.source)? {
            Some(s) if s.kind == Kind::Dir => Ok(Self { fs, dir: rel, unsynced: Arc::default() }),
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
        crate::index::confined_io::read_exact_at(&self.file, &mut buf, range.start as u64)?;
        Ok(OwnedBytes::new(buf))
    }
}

/// A new file tantivy writes: flushed when tantivy terminates it, then listed in
/// [`Unsynced`], synced with the others before the folder is synced or `meta.json` replaced.
struct NewFile {
    /// `None` once terminated.
    file: Option<std::fs::File>,
    unsynced: Arc<Unsynced>,
}

impl NewFile {
    fn file(&mut self) -> io::Result<&mut std::fs::File> {
        self.file.as_mut().ok_or_else(|| io::Error::other("the file was already terminated"))
    }
}

impl Write for NewFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file()?.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file()?.flush()
    }
}

impl TerminatingWrite for NewFile {
    fn terminate_ref(&mut self, _: AntiCallToken) -> io::Result<()> {
        let mut file = self.file.take().ok_or_else(|| io::Error::other("terminated twice"))?;
        file.flush()?;
        self.unsynced.push(file);
        Ok(())
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
        Ok(io::BufWriter::new(Box::new(NewFile {
            file: Some(file),
            unsynced: Arc::clone(&self.unsynced),
        })))
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.fs.read(&self.path(path)).map_err(|e| match e.source.kind() {
            io::ErrorKind::NotFound => OpenReadError::FileDoesNotExist(path.to_owned()),
            _ => OpenReadError::wrap_io_error(e.source, path.to_owned()),
        })
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        if path == Path::new(MANAGED_LIST) {
            return self.fs.write_unsynced(&self.path(path), data).map_err(|e| e.source);
        }
        self.unsynced.sync_all()?;
        self.fs.write(&self.path(path), data).map_err(|e| e.source)
    }

    fn sync_directory(&self) -> io::Result<()> {
        self.unsynced.sync_all()?;
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
    fn finished_files_wait_for_one_sync_before_the_folder_or_meta_is_written() {
        let (_tmp, dir) = vault();
        let d = ConfinedDirectory::open(&dir).unwrap();
        for name in ["a.idx", "a.pos", "a.term"] {
            let mut w = d.open_write(Path::new(name)).unwrap();
            w.write_all(name.as_bytes()).unwrap();
            w.terminate().unwrap();
        }
        // Finished files are readable at once, and listed until the next sync.
        assert_eq!(std::fs::read(dir.join("a.pos")).unwrap(), b"a.pos");
        assert_eq!(d.unsynced.0.lock().unwrap().len(), 3);
        // The list of managed files is no reason to sync them; meta.json is.
        d.atomic_write(Path::new(MANAGED_LIST), b"[\"a.idx\"]").unwrap();
        assert_eq!(d.unsynced.0.lock().unwrap().len(), 3);
        d.atomic_write(Path::new("meta.json"), b"{}").unwrap();
        assert!(d.unsynced.0.lock().unwrap().is_empty());
        // A clone (tantivy clones its directory) shares the list; the folder sync drains it.
        let clone = d.clone();
        let mut w = clone.open_write(Path::new("b.store")).unwrap();
        w.write_all(b"b").unwrap();
        w.terminate().unwrap();
        assert_eq!(d.unsynced.0.lock().unwrap().len(), 1);
        d.sync_directory().unwrap();
        assert!(d.unsynced.0.lock().unwrap().is_empty());
        // Both replaces left no temp file behind.
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, [".managed.json", "a.idx", "a.pos", "a.term", "b.store", "meta.json"]);
        assert_eq!(d.atomic_read(Path::new(MANAGED_LIST)).unwrap(), b"[\"a.idx\"]");
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
