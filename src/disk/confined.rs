//! The vault's file system, confined to the vault: every path is resolved beneath one open
//! directory handle (the vault root) and no symbolic link is ever followed on the way, so no
//! path, whatever it says and whatever links a cloned repository holds, reads or writes outside
//! the vault.
//!
//! Paths are given relative to the root (`notes/a.md`), or as absolute paths under the root (the
//! root as given, or its canonical form): what the rest of memlane passes around. A path with
//! `..`, an absolute path elsewhere, and a path that goes through a symbolic link (in the middle
//! or as its last part) are refused; the OS does the resolving, not a string check:
//!
//! - on Linux, `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` (kernel 5.6 and later);
//! - elsewhere on Unix, or when `openat2` is not available, one `openat` per part with
//!   `O_NOFOLLOW | O_DIRECTORY` (and `O_NOFOLLOW` on the last part).
//!
//! Renames, removes, links and new folders are made relative to the parent folder's handle
//! (`renameat`, `unlinkat`, `linkat`, `mkdirat`), which never follow a link in the last part.
//!
//! On other systems than Unix, each part is checked with `symlink_metadata` before the standard
//! library's call: a link swapped in between the check and the call is not caught there.

use std::ffi::OsString;
use std::io::{Read as _, Write as _};
use std::path::{Component, Path, PathBuf};

use crate::error::PathError;
use crate::failpoint;

use super::atomic::TEMP_SUFFIX;

/// What a path is, without following a symbolic link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A regular file.
    File,
    /// A folder.
    Dir,
    /// A symbolic link (never followed).
    Symlink,
    /// Anything else (a socket, a fifo, a device).
    Other,
}

/// What [`Confined::stat`] knows of a path (the path itself, never a link's target).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    /// What it is.
    pub kind: Kind,
    /// Its size in bytes.
    pub len: u64,
    /// Its Unix permission bits (`None` elsewhere).
    pub mode: Option<u32>,
    /// Its modification time in nanoseconds since the Unix epoch (0 when unknown or before
    /// 1970).
    pub mtime_ns: i128,
    /// Its status-change time (ctime) in nanoseconds since the Unix epoch: moved to now by every
    /// write, rename, change of mode or owner, and change of its times, so a file given back an
    /// older mtime still shows that it changed (0 off Unix, when unknown or before 1970).
    pub ctime_ns: i128,
    /// Its inode number (0 off Unix).
    pub ino: u64,
    /// The device it is on (0 off Unix).
    pub dev: u64,
    /// The user who owns it (`None` off Unix).
    pub uid: Option<u32>,
}

impl Stat {
    /// What tells one version of a file from another: (mtime, size, inode). memlane replaces
    /// its files by rename or only appends to them, so a new inode or size shows a write even
    /// within one mtime tick.
    pub fn version(&self) -> (i128, u64, u64) {
        (self.mtime_ns, self.len, self.ino)
    }
}

/// A folder of the vault held open (see [`Confined::open_dir`]): its entries are listed, stat-ed
/// and read, and its sub-folders opened, relative to the folder's own handle, so a walk of the
/// vault looks up no path from the root per file and follows no symbolic link.
#[derive(Debug)]
pub struct ConfinedDir {
    path: PathBuf,
    #[cfg(unix)]
    fd: std::os::fd::OwnedFd,
}

/// One entry of a folder listed by [`Confined::read_dir`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// Its name in the folder.
    pub name: OsString,
    /// What it is (a link is [`Kind::Symlink`], never what it points to).
    pub kind: Kind,
}

/// A handle on the vault's root folder through which all of the vault's file I/O goes. Cheap
/// to clone (the folder handle is shared).
#[derive(Debug, Clone)]
pub struct Confined {
    root: PathBuf,
    canonical: PathBuf,
    #[cfg(unix)]
    dir: std::sync::Arc<std::os::fd::OwnedFd>,
    /// Handles on folders right under the root, kept between operations (shared by clones).
    #[cfg(unix)]
    kept: std::sync::Arc<std::sync::Mutex<Vec<KeptFolder>>>,
}

/// A folder right under the root, opened beneath it once and reused while the root's entry of
/// that name is still that very folder (same device and inode, not a link): a long-lived
/// session stats its state files and renames its markers without opening a folder each time.
#[cfg(unix)]
#[derive(Debug)]
struct KeptFolder {
    name: OsString,
    id: (u64, u64),
    fd: std::os::fd::OwnedFd,
}

/// How many folders a handle keeps open (the internal folders a session uses on every call).
#[cfg(unix)]
const KEPT_FOLDERS: usize = 4;

/// The error of a refused path (outside the vault, or `..`).
fn outside(path: &Path, action: &'static str) -> PathError {
    PathError {
        action,
        path: path.to_owned(),
        source: std::io::Error::other("it is outside the vault"),
    }
}

/// The words for an error the resolution gives: a link met on the way reads as such.
fn explain(e: std::io::Error) -> std::io::Error {
    #[cfg(unix)]
    {
        let loop_ = rustix::io::Errno::LOOP.raw_os_error();
        let xdev = rustix::io::Errno::XDEV.raw_os_error();
        let mlink = rustix::io::Errno::MLINK.raw_os_error();
        let notdir = rustix::io::Errno::NOTDIR.raw_os_error();
        match e.raw_os_error() {
            Some(c) if c == loop_ || c == xdev || c == mlink => std::io::Error::other(
                "it is or goes through a symbolic link, and memlane never follows links there",
            ),
            Some(c) if c == notdir => std::io::Error::other("a part of it is not a folder"),
            _ => e,
        }
    }
    #[cfg(not(unix))]
    e
}

impl Confined {
    /// Opens the folder `root` (which may itself be reached through links: it is trusted as
    /// given) as the handle everything else is resolved beneath.
    pub fn open(root: &Path) -> Result<Confined, PathError> {
        let canonical = root.canonicalize().map_err(|source| PathError {
            action: "open",
            path: root.to_owned(),
            source,
        })?;
        Self::open_canonical(root, canonical)
    }

    /// [`Confined::open`] for a caller that has `root`'s canonical form already.
    pub fn open_canonical(root: &Path, canonical: PathBuf) -> Result<Confined, PathError> {
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags};
            let dir = rustix::fs::open(
                root,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(|e| PathError {
                action: "open",
                path: root.to_owned(),
                source: e.into(),
            })?;
            Ok(Confined {
                root: root.to_owned(),
                canonical,
                dir: std::sync::Arc::new(dir),
                kept: Default::default(),
            })
        }
        #[cfg(not(unix))]
        Ok(Confined { root: root.to_owned(), canonical })
    }

    /// A handle on the folder holding `path` (the folders above it are trusted as given), with
    /// `path`'s name in it: the atomic writer for files that are not in
    /// the vault (the per-user config, models), and for files in a folder already checked.
    pub fn beside(path: &Path, action: &'static str) -> Result<(Confined, PathBuf), PathError> {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let Some(name) = path.file_name() else {
            return Err(PathError {
                action,
                path: path.to_owned(),
                source: std::io::Error::other("it names no file"),
            });
        };
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags};
            let fd = rustix::fs::open(
                dir,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(|e| PathError {
                action,
                path: path.to_owned(),
                source: e.into(),
            })?;
            let fs = Confined {
                root: dir.to_owned(),
                canonical: dir.to_owned(),
                dir: std::sync::Arc::new(fd),
                kept: Default::default(),
            };
            Ok((fs, PathBuf::from(name)))
        }
        #[cfg(not(unix))]
        Ok((Confined { root: dir.to_owned(), canonical: dir.to_owned() }, PathBuf::from(name)))
    }

    /// The vault root above `path` when `path` is in a vault's indices folder: the folder
    /// holding the nearest folder named `indices` above it.
    pub(crate) fn anchor_of(path: &Path) -> Option<&Path> {
        path.ancestors()
            .skip(1)
            .find(|a| a.file_name().is_some_and(|n| n == "indices"))
            .and_then(Path::parent)
    }

    /// A handle for memlane's own file at `path`, with `path` relative to it: in a vault's
    /// indices folder, a handle on the vault root (the folder holding the nearest `indices`
    /// folder above `path`), so that no link is followed at `indices` or anywhere under it,
    /// whatever is swapped in between a check and the write; elsewhere (the per-user config and
    /// models), as [`beside`](Self::beside).
    pub fn anchored(path: &Path, action: &'static str) -> Result<(Confined, PathBuf), PathError> {
        let Some(base) = Confined::anchor_of(path) else {
            return Confined::beside(path, action);
        };
        let base = if base.as_os_str().is_empty() { Path::new(".") } else { base };
        let fs = Confined::open_canonical(base, base.to_owned())?;
        let rel = fs.relative(path, action)?;
        Ok((fs, rel))
    }

    /// The root folder, as given to [`Confined::open`].
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `path` relative to the root, checked to be plain names only (no `..`, no root, no
    /// prefix). An absolute path must lie under the root (as given or canonical).
    pub fn relative(&self, path: &Path, action: &'static str) -> Result<PathBuf, PathError> {
        let rel = if let Ok(r) = path.strip_prefix(&self.root) {
            r
        } else if path.is_absolute() {
            path.strip_prefix(&self.canonical).map_err(|_| outside(path, action))?
        } else {
            path
        };
        let mut out = PathBuf::new();
        for c in rel.components() {
            match c {
                Component::Normal(n) => out.push(n),
                Component::CurDir => {}
                Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                    return Err(outside(path, action));
                }
            }
        }
        Ok(out)
    }

    /// The full path of `rel` for messages.
    fn shown(&self, rel: &Path) -> PathBuf {
        self.root.join(rel)
    }

    fn err(&self, action: &'static str, rel: &Path, e: std::io::Error) -> PathError {
        if e.kind() != std::io::ErrorKind::NotFound && e.kind() != std::io::ErrorKind::AlreadyExists
        {
            // Name the link that stopped it, when one did (for the message only).
            let mut p = self.root.clone();
            for part in rel.iter() {
                p.push(part);
                if std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink()) {
                    return PathError {
                        action,
                        path: p,
                        source: std::io::Error::other(
                            "it is a symbolic link, and memlane never follows links there",
                        ),
                    };
                }
            }
        }
        PathError { action, path: self.shown(rel), source: explain(e) }
    }

    /// The parent folder and last name of `rel` (which must not be the root).
    fn split<'a>(
        &self,
        rel: &'a Path,
        action: &'static str,
    ) -> Result<(&'a Path, &'a std::ffi::OsStr), PathError> {
        match (rel.parent(), rel.file_name()) {
            (Some(p), Some(n)) => Ok((p, n)),
            _ => Err(PathError {
                action,
                path: self.shown(rel),
                source: std::io::Error::other("it is the vault's root folder"),
            }),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Unix: resolution beneath the root's handle.

#[cfg(unix)]
mod unix {
    use std::ffi::OsString;
    use std::os::fd::{AsFd, OwnedFd};
    use std::path::{Component, Path};
    use std::sync::atomic::{AtomicU8, Ordering};

    use rustix::fs::{Mode, OFlags};
    use rustix::io::Errno;

    use super::{DirEntry, Kind, Stat};

    /// Whether `openat2` works here: 0 unknown, 1 yes, 2 no.
    static OPENAT2: AtomicU8 = AtomicU8::new(0);

    /// Opens `rel` beneath `root` with `flags`, following no symbolic link on the way or at the
    /// end. An empty `rel` opens the root itself again.
    pub(super) fn open_beneath(
        root: &OwnedFd,
        rel: &Path,
        flags: OFlags,
        mode: Mode,
    ) -> std::io::Result<OwnedFd> {
        let flags = flags | OFlags::CLOEXEC | OFlags::NOFOLLOW;
        if rel.as_os_str().is_empty() {
            return Ok(rustix::fs::openat(root.as_fd(), ".", flags, mode)?);
        }
        #[cfg(target_os = "linux")]
        if OPENAT2.load(Ordering::Relaxed) != 2 {
            use rustix::fs::ResolveFlags;
            let how =
                ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
            match rustix::fs::openat2(root.as_fd(), rel, flags, mode, how) {
                Ok(fd) => {
                    OPENAT2.store(1, Ordering::Relaxed);
                    return Ok(fd);
                }
                // Not in this kernel, or refused by a sandbox's filter: walk instead.
                Err(Errno::NOSYS | Errno::PERM) if OPENAT2.load(Ordering::Relaxed) == 0 => {
                    OPENAT2.store(2, Ordering::Relaxed);
                }
                Err(Errno::AGAIN) => {}
                Err(e) => return Err(e.into()),
            }
        }
        let _ = &OPENAT2;
        walk(root, rel, flags, mode)
    }

    /// The fallback: one `openat` per part, each refusing a link.
    pub(super) fn walk(
        root: &OwnedFd,
        rel: &Path,
        flags: OFlags,
        mode: Mode,
    ) -> std::io::Result<OwnedFd> {
        let parts: Vec<&std::ffi::OsStr> = rel
            .components()
            .map(|c| match c {
                Component::Normal(n) => Ok(n),
                _ => Err(std::io::Error::from(Errno::XDEV)),
            })
            .collect::<Result<_, _>>()?;
        let mut cur: Option<OwnedFd> = None;
        for (i, part) in parts.iter().enumerate() {
            let at = cur.as_ref().map_or(root.as_fd(), |f| f.as_fd());
            let last = i + 1 == parts.len();
            let fd = if last {
                rustix::fs::openat(at, *part, flags, mode)?
            } else {
                rustix::fs::openat(
                    at,
                    *part,
                    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                    Mode::empty(),
                )?
            };
            cur = Some(fd);
        }
        Ok(cur.expect("a non-empty path has a part"))
    }

    /// Opens the folder `rel` beneath `root`.
    pub(super) fn open_dir(root: &OwnedFd, rel: &Path) -> std::io::Result<OwnedFd> {
        open_beneath(root, rel, OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty())
    }

    /// What a path is, from its `stat` (of the path itself: callers never follow a link).
    pub(super) fn kind_of(mode: u32) -> Kind {
        match rustix::fs::FileType::from_raw_mode(mode) {
            rustix::fs::FileType::RegularFile => Kind::File,
            rustix::fs::FileType::Directory => Kind::Dir,
            rustix::fs::FileType::Symlink => Kind::Symlink,
            _ => Kind::Other,
        }
    }

    /// [`Stat`] of a `stat` result.
    // The fields' types differ between systems (`st_mode` is 16 bits on macOS).
    #[allow(clippy::unnecessary_cast)]
    pub(super) fn stat_of(st: &rustix::fs::Stat) -> Stat {
        let mode = st.st_mode as u32;
        // As `SystemTime::duration_since(UNIX_EPOCH)` gives it: 0 before 1970.
        let ns = |secs: i64, nsec: i64| {
            if secs < 0 { 0 } else { i128::from(secs) * 1_000_000_000 + i128::from(nsec) }
        };
        let mtime_ns = ns(st.st_mtime as i64, st.st_mtime_nsec as i64);
        let ctime_ns = ns(st.st_ctime as i64, st.st_ctime_nsec as i64);
        Stat {
            kind: kind_of(mode),
            len: st.st_size as u64,
            mode: Some(mode & 0o7777),
            mtime_ns,
            ctime_ns,
            ino: st.st_ino as u64,
            dev: st.st_dev as u64,
            uid: Some(st.st_uid as u32),
        }
    }

    /// The entries of the open folder `fd` (`.` and `..` left out), each with what it is (a
    /// link is a link).
    pub(super) fn entries(fd: &OwnedFd) -> std::io::Result<Vec<DirEntry>> {
        let mut out = Vec::new();
        for e in rustix::fs::Dir::read_from(fd)? {
            let e = e?;
            let name = e.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            let name: OsString =
                <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(name).to_os_string();
            let kind = match e.file_type() {
                rustix::fs::FileType::RegularFile => Kind::File,
                rustix::fs::FileType::Directory => Kind::Dir,
                rustix::fs::FileType::Symlink => Kind::Symlink,
                rustix::fs::FileType::Unknown => {
                    let st = rustix::fs::statat(
                        fd,
                        name.as_os_str(),
                        rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
                    )?;
                    kind_of(st.st_mode as u32)
                }
                _ => Kind::Other,
            };
            out.push(DirEntry { name, kind });
        }
        Ok(out)
    }

    /// Opens the entry `name` of the open folder `dir` (one plain name: never `..`, never a
    /// link).
    pub(super) fn open_in(
        dir: &OwnedFd,
        name: &std::ffi::OsStr,
        flags: OFlags,
    ) -> std::io::Result<OwnedFd> {
        plain_name(name)?;
        Ok(rustix::fs::openat(
            dir,
            name,
            flags | OFlags::CLOEXEC | OFlags::NOFOLLOW,
            Mode::empty(),
        )?)
    }

    /// Refuses a name that is not one plain part (`..`, `a/b`, empty).
    pub(super) fn plain_name(name: &std::ffi::OsStr) -> std::io::Result<()> {
        let bytes = name.as_encoded_bytes();
        if bytes.is_empty() || bytes == b"." || bytes == b".." || bytes.contains(&b'/') {
            return Err(Errno::XDEV.into());
        }
        Ok(())
    }
}

#[cfg(unix)]
impl Confined {
    /// A handle on the folder `rel`. A folder right under the root is opened once and then
    /// reused for as long as the root's entry of that name is the same folder (one `fstatat`
    /// that never follows a link, and a `dup`), so no call opens it again; a link or another
    /// folder put there is opened afresh, beneath the root as always (a link is refused).
    fn dir_fd(&self, rel: &Path) -> std::io::Result<std::os::fd::OwnedFd> {
        let mut parts = rel.components();
        match (parts.next(), parts.next()) {
            (Some(Component::Normal(name)), None) => self.top_folder(name),
            _ => unix::open_dir(&self.dir, rel),
        }
    }

    /// [`Confined::dir_fd`] of the folder `name` right under the root.
    // The fields' types differ between systems.
    #[allow(clippy::unnecessary_cast)]
    fn top_folder(&self, name: &std::ffi::OsStr) -> std::io::Result<std::os::fd::OwnedFd> {
        use rustix::fs::{AtFlags, FileType};
        unix::plain_name(name)?;
        let st = rustix::fs::statat(&*self.dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
        let id = (st.st_dev as u64, st.st_ino as u64);
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if FileType::from_raw_mode(st.st_mode as u32) == FileType::Directory
            && let Some(k) = kept.iter().find(|k| k.id == id && k.name == name)
        {
            return k.fd.try_clone();
        }
        let fd = unix::open_dir(&self.dir, Path::new(name))?;
        let st = rustix::fs::fstat(&fd)?;
        kept.retain(|k| k.name != name);
        if kept.len() >= KEPT_FOLDERS {
            kept.remove(0);
        }
        kept.push(KeptFolder {
            name: name.to_owned(),
            id: (st.st_dev as u64, st.st_ino as u64),
            fd: fd.try_clone()?,
        });
        Ok(fd)
    }

    fn open_file(
        &self,
        rel: &Path,
        flags: rustix::fs::OFlags,
        mode: u32,
    ) -> std::io::Result<std::fs::File> {
        let fd = unix::open_beneath(&self.dir, rel, flags, rustix::fs::Mode::from_raw_mode(mode))?;
        Ok(std::fs::File::from(fd))
    }
}

// ---------------------------------------------------------------------------------------------
// Non-Unix: each part checked with `symlink_metadata` first.

/// [`Stat`] of a path's own metadata (never a link's target).
#[cfg(not(unix))]
fn stat_of_meta(m: &std::fs::Metadata) -> Stat {
    let t = m.file_type();
    Stat {
        kind: if t.is_symlink() {
            Kind::Symlink
        } else if t.is_dir() {
            Kind::Dir
        } else if t.is_file() {
            Kind::File
        } else {
            Kind::Other
        },
        len: m.len(),
        mode: None,
        mtime_ns: m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128),
        ctime_ns: 0,
        ino: 0,
        dev: 0,
        uid: None,
    }
}

/// The entries of the folder `p` (checked already), each with what it is.
#[cfg(not(unix))]
fn entries_of_path(p: &Path) -> std::io::Result<Vec<DirEntry>> {
    std::fs::read_dir(p)?
        .map(|e| {
            let e = e?;
            let kind = stat_of_meta(&std::fs::symlink_metadata(e.path())?).kind;
            Ok(DirEntry { name: e.file_name(), kind })
        })
        .collect()
}

/// The path of `name` in the folder `dir` once `name` is one plain part and not a link.
#[cfg(not(unix))]
fn checked_in(dir: &Path, name: &std::ffi::OsStr) -> std::io::Result<PathBuf> {
    let mut parts = Path::new(name).components();
    if !matches!((parts.next(), parts.next()), (Some(Component::Normal(_)), None)) {
        return Err(std::io::Error::other("it is outside the vault"));
    }
    let p = dir.join(name);
    if std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(std::io::Error::other(
            "it is a symbolic link, and memlane never follows links there",
        ));
    }
    Ok(p)
}

#[cfg(not(unix))]
impl Confined {
    /// The full path of `rel` once no part of it is a link (the last part may be missing).
    fn checked(&self, rel: &Path) -> std::io::Result<PathBuf> {
        let mut p = self.root.clone();
        for c in rel.components() {
            p.push(c);
            match std::fs::symlink_metadata(&p) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(std::io::Error::other(
                        "it is or goes through a symbolic link, and memlane never follows links there",
                    ));
                }
                _ => {}
            }
        }
        Ok(p)
    }
}

// ---------------------------------------------------------------------------------------------
// Open folders.

impl Confined {
    /// Opens the folder `path` (the root for an empty path) beneath the root, for a walk.
    pub fn open_dir(&self, path: &Path) -> Result<ConfinedDir, PathError> {
        let rel = self.relative(path, "read")?;
        #[cfg(unix)]
        let res = self.dir_fd(&rel).map(|fd| ConfinedDir { path: self.shown(&rel), fd });
        #[cfg(not(unix))]
        let res = self.checked(&rel).and_then(|p| {
            if std::fs::metadata(&p)?.is_dir() {
                Ok(ConfinedDir { path: p })
            } else {
                Err(std::io::Error::other("it is not a folder"))
            }
        });
        res.map_err(|e| self.err("read", &rel, e))
    }
}

impl ConfinedDir {
    /// The folder's path (the vault root joined with its path in the vault), for messages and
    /// for the paths of its entries.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its entries (`.` and `..` left out), in no particular order; a link is
    /// [`Kind::Symlink`].
    pub fn entries(&self) -> std::io::Result<Vec<DirEntry>> {
        #[cfg(unix)]
        return unix::entries(&self.fd);
        #[cfg(not(unix))]
        entries_of_path(&self.path)
    }

    /// What its entry `name` is (the entry itself, never a link's target): one `fstatat`
    /// relative to the folder.
    pub fn stat(&self, name: &std::ffi::OsStr) -> std::io::Result<Stat> {
        #[cfg(unix)]
        {
            unix::plain_name(name)?;
            let st = rustix::fs::statat(&self.fd, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)?;
            Ok(unix::stat_of(&st))
        }
        #[cfg(not(unix))]
        std::fs::symlink_metadata(checked_in(&self.path, name)?).map(|m| stat_of_meta(&m))
    }

    /// Opens its sub-folder `name` (refused when it is a link).
    pub fn open_dir(&self, name: &std::ffi::OsStr) -> std::io::Result<ConfinedDir> {
        let path = self.path.join(name);
        #[cfg(unix)]
        {
            use rustix::fs::OFlags;
            let fd = unix::open_in(&self.fd, name, OFlags::RDONLY | OFlags::DIRECTORY)?;
            Ok(ConfinedDir { path, fd })
        }
        #[cfg(not(unix))]
        {
            let p = checked_in(&self.path, name)?;
            if !std::fs::metadata(&p)?.is_dir() {
                return Err(std::io::Error::other("it is not a folder"));
            }
            let _ = path;
            Ok(ConfinedDir { path: p })
        }
    }

    /// The bytes of its file `name` (refused when it is a link).
    pub fn read(&self, name: &std::ffi::OsStr) -> std::io::Result<Vec<u8>> {
        #[cfg(unix)]
        let mut f = std::fs::File::from(unix::open_in(&self.fd, name, rustix::fs::OFlags::RDONLY)?);
        #[cfg(not(unix))]
        let mut f = std::fs::File::open(checked_in(&self.path, name)?)?;
        let mut out = Vec::new();
        f.read_to_end(&mut out)?;
        Ok(out)
    }
}

// ---------------------------------------------------------------------------------------------
// The operations.

impl Confined {
    /// What `path` is (the path itself, never a link's target); `None` when it does not exist.
    pub fn stat(&self, path: &Path) -> Result<Option<Stat>, PathError> {
        let rel = self.relative(path, "read")?;
        #[cfg(unix)]
        let res = (|| {
            let st = match rel.parent().zip(rel.file_name()) {
                Some((parent, name)) => {
                    let dir = self.dir_fd(parent)?;
                    rustix::fs::statat(&dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)?
                }
                None => rustix::fs::fstat(&*self.dir)?,
            };
            Ok::<_, std::io::Error>(unix::stat_of(&st))
        })();
        #[cfg(not(unix))]
        let res = self.checked(&rel).and_then(std::fs::symlink_metadata).map(|m| stat_of_meta(&m));
        match res {
            Ok(s) => Ok(Some(s)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(self.err("read", &rel, e)),
        }
    }

    /// What `path` is, `None` when it does not exist or cannot be reached without a link.
    pub fn kind(&self, path: &Path) -> Option<Kind> {
        self.stat(path).ok().flatten().map(|s| s.kind)
    }

    /// Opens the regular file `path` for reading (refused when it is a link).
    pub fn open_read(&self, path: &Path) -> Result<std::fs::File, PathError> {
        let rel = self.relative(path, "read")?;
        #[cfg(unix)]
        let res = self.open_file(&rel, rustix::fs::OFlags::RDONLY, 0);
        #[cfg(not(unix))]
        let res = self.checked(&rel).and_then(std::fs::File::open);
        res.map_err(|e| self.err("read", &rel, e))
    }

    /// The bytes of the file `path`.
    pub fn read(&self, path: &Path) -> Result<Vec<u8>, PathError> {
        let mut f = self.open_read(path)?;
        let mut out = Vec::new();
        f.read_to_end(&mut out).map_err(|source| PathError {
            action: "read",
            path: path.to_owned(),
            source,
        })?;
        Ok(out)
    }

    /// The text of the file `path` (an error when it is not UTF-8).
    pub fn read_to_string(&self, path: &Path) -> Result<String, PathError> {
        String::from_utf8(self.read(path)?).map_err(|_| PathError {
            action: "read",
            path: path.to_owned(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, "it is not UTF-8 text"),
        })
    }

    /// The entries of the folder `path` (`.` and `..` left out), in no particular order.
    pub fn read_dir(&self, path: &Path) -> Result<Vec<DirEntry>, PathError> {
        let rel = self.relative(path, "read")?;
        #[cfg(unix)]
        let res = self.dir_fd(&rel).and_then(|fd| unix::entries(&fd));
        #[cfg(not(unix))]
        let res = self.checked(&rel).and_then(|p| entries_of_path(&p));
        res.map_err(|e| self.err("read", &rel, e))
    }

    /// Creates the folder `path` and every missing folder above it (an existing link where a
    /// folder should be is refused).
    pub fn create_dir_all(&self, path: &Path) -> Result<(), PathError> {
        let rel = self.relative(path, "create")?;
        // Most often it exists already: one open says so.
        #[cfg(unix)]
        if self.dir_fd(&rel).is_ok() {
            return Ok(());
        }
        let mut cur = PathBuf::new();
        for part in rel.iter() {
            cur.push(part);
            #[cfg(unix)]
            let res = (|| {
                let parent = self.dir_fd(cur.parent().unwrap_or(Path::new("")))?;
                match rustix::fs::mkdirat(&parent, part, rustix::fs::Mode::from_raw_mode(0o777)) {
                    Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                    Err(e) => return Err(e.into()),
                }
                // What exists there must be a folder, not a link to one.
                self.dir_fd(&cur).map(drop)
            })();
            #[cfg(not(unix))]
            let res = self.checked(&cur).and_then(|p| match std::fs::create_dir(&p) {
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && p.is_dir() => Ok(()),
                r => r,
            });
            res.map_err(|e| self.err("create", &cur, e))?;
        }
        Ok(())
    }

    /// Writes `bytes` to `path` atomically (a hidden temp file beside it, fsync, rename,
    /// folder sync); an existing file keeps its permission bits.
    pub fn write(&self, path: &Path, bytes: &[u8]) -> Result<(), PathError> {
        let mode =
            self.stat(path).ok().flatten().filter(|s| s.kind == Kind::File).and_then(|s| s.mode);
        self.write_mode(path, bytes, mode)
    }

    /// [`Confined::write`] giving the file the permission bits `mode` (when `Some`, on Unix).
    pub fn write_mode(
        &self,
        path: &Path,
        bytes: &[u8],
        mode: Option<u32>,
    ) -> Result<(), PathError> {
        let rel = self.relative(path, "write")?;
        let (parent, _) = self.split(&rel, "write")?;
        self.replace(&rel, bytes, mode, true)?;
        self.sync_dir_rel(parent);
        Ok(())
    }

    /// Replaces `path` with `bytes` atomically for every reader (a temp file beside it, then a
    /// rename), with no sync: a crash of the process leaves the old file or the new one, a
    /// power cut may leave the old one. For a file whose last version is only an optimisation.
    pub fn write_unsynced(&self, path: &Path, bytes: &[u8]) -> Result<(), PathError> {
        let rel = self.relative(path, "write")?;
        self.replace(&rel, bytes, None, false)
    }

    /// The temp file (synced when `sync`) renamed over `rel`.
    fn replace(
        &self,
        rel: &Path,
        bytes: &[u8],
        mode: Option<u32>,
        sync: bool,
    ) -> Result<(), PathError> {
        let tmp = self.write_temp(rel, bytes, mode, sync)?;
        let renamed = failpoint::step("write.rename").and_then(|()| self.raw_rename(&tmp, rel));
        if let Err(e) = renamed {
            let _ = self.raw_remove(&tmp);
            return Err(self.err("write", rel, e));
        }
        Ok(())
    }

    /// Writes `bytes` to `path` atomically with permission bits `mode`, failing with
    /// `AlreadyExists` when `path` exists (the temp file is hard-linked into place).
    pub fn create(&self, path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<(), PathError> {
        let rel = self.relative(path, "create")?;
        let (parent, _) = self.split(&rel, "create")?;
        let tmp = self.write_temp(&rel, bytes, mode, true)?;
        let linked = failpoint::step("create.link").and_then(|()| self.raw_link(&tmp, &rel));
        failpoint::step("create.unlink_temp").map_err(|e| self.err("create", &rel, e))?;
        let _ = self.raw_remove(&tmp);
        linked.map_err(|e| self.err("create", &rel, e))?;
        self.sync_dir_rel(parent);
        Ok(())
    }

    /// Appends `bytes` to `path` (created when missing) in one write, synced.
    pub fn append(&self, path: &Path, bytes: &[u8]) -> Result<(), PathError> {
        let rel = self.relative(path, "write")?;
        let res = self.open_append(&rel).and_then(|mut f| {
            f.write_all(bytes)?;
            f.sync_data()
        });
        res.map_err(|e| self.err("write", &rel, e))
    }

    /// Appends `bytes` to `path` (created when missing) in one write, not synced: a cache whose
    /// lost tail only costs time later.
    pub fn append_unsynced(&self, path: &Path, bytes: &[u8]) -> Result<(), PathError> {
        let rel = self.relative(path, "write")?;
        let res = self.open_append(&rel).and_then(|mut f| f.write_all(bytes));
        res.map_err(|e| self.err("write", &rel, e))
    }

    /// Creates or truncates the file `path` (never through a link), writes `bytes` and syncs it:
    /// a temp file with a fixed name (see `FileGroup`).
    pub fn write_in_place(&self, path: &Path, bytes: &[u8]) -> Result<(), PathError> {
        let rel = self.relative(path, "create")?;
        #[cfg(unix)]
        let res = (|| {
            use rustix::fs::OFlags;
            let mut f =
                self.open_file(&rel, OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC, 0o666)?;
            f.write_all(bytes)?;
            f.sync_all()
        })();
        #[cfg(not(unix))]
        let res = self.checked(&rel).and_then(|p| {
            let mut f = std::fs::File::create(p)?;
            f.write_all(bytes)?;
            f.sync_all()
        });
        res.map_err(|e| self.err("write", &rel, e))
    }

    /// Creates the new file `path` (refused when anything is there, a link included) and opens
    /// it for reading and writing, for a writer that streams into it.
    pub fn create_file(&self, path: &Path) -> Result<std::fs::File, PathError> {
        let rel = self.relative(path, "create")?;
        self.create_new(&rel).map_err(|e| self.err("create", &rel, e))
    }

    /// The new file `rel` (nothing there before, a link included), open to read and write.
    fn create_new(&self, rel: &Path) -> std::io::Result<std::fs::File> {
        #[cfg(unix)]
        {
            use rustix::fs::OFlags;
            self.open_file(rel, OFlags::RDWR | OFlags::CREATE | OFlags::EXCL, 0o666)
        }
        #[cfg(not(unix))]
        self.checked(rel).and_then(|p| {
            std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(p)
        })
    }

    /// The file `rel` (created when missing) open to append.
    fn open_append(&self, rel: &Path) -> std::io::Result<std::fs::File> {
        #[cfg(unix)]
        {
            use rustix::fs::OFlags;
            self.open_file(rel, OFlags::WRONLY | OFlags::APPEND | OFlags::CREATE, 0o666)
        }
        #[cfg(not(unix))]
        self.checked(rel)
            .and_then(|p| std::fs::OpenOptions::new().create(true).append(true).open(p))
    }

    /// Opens (creating it when missing) the file `path` for writing, without truncating it: a
    /// lock file.
    pub fn open_lock_file(&self, path: &Path) -> Result<std::fs::File, PathError> {
        let rel = self.relative(path, "open")?;
        #[cfg(unix)]
        let res =
            self.open_file(&rel, rustix::fs::OFlags::WRONLY | rustix::fs::OFlags::CREATE, 0o666);
        #[cfg(not(unix))]
        let res = self.checked(&rel).and_then(|p| {
            std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(p)
        });
        res.map_err(|e| self.err("open", &rel, e))
    }

    /// Renames `from` to `to`, replacing a file at `to`.
    pub fn rename(&self, from: &Path, to: &Path) -> Result<(), PathError> {
        let from_rel = self.relative(from, "rename")?;
        let to_rel = self.relative(to, "rename")?;
        self.raw_rename(&from_rel, &to_rel).map_err(|e| self.err("rename", &from_rel, e))
    }

    /// Moves `from` to `to` without ever replacing an existing `to` (a hard link then an unlink;
    /// a check then a rename where hard links are not supported). Creates `to`'s folders.
    pub fn move_no_clobber(&self, from: &Path, to: &Path) -> Result<(), PathError> {
        let from_rel = self.relative(from, "rename")?;
        let to_rel = self.relative(to, "create")?;
        if let Some(dir) = to_rel.parent() {
            self.create_dir_all(dir)?;
        }
        match failpoint::step("move.link").and_then(|()| self.raw_link(&from_rel, &to_rel)) {
            Ok(()) => failpoint::step("move.unlink")
                .and_then(|()| self.raw_remove(&from_rel))
                .map_err(|e| self.err("remove", &from_rel, e)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                Err(PathError { action: "create", path: self.shown(&to_rel), source: e })
            }
            Err(_) => {
                if self.stat(&to_rel)?.is_some() {
                    return Err(PathError {
                        action: "create",
                        path: self.shown(&to_rel),
                        source: std::io::ErrorKind::AlreadyExists.into(),
                    });
                }
                self.raw_rename(&from_rel, &to_rel).map_err(|e| self.err("rename", &from_rel, e))
            }
        }
    }

    /// Removes the file (or link) `path`.
    pub fn remove_file(&self, path: &Path) -> Result<(), PathError> {
        let rel = self.relative(path, "remove")?;
        self.raw_remove(&rel).map_err(|e| self.err("remove", &rel, e))
    }

    /// Removes the empty folder `path`.
    pub fn remove_dir(&self, path: &Path) -> Result<(), PathError> {
        let rel = self.relative(path, "remove")?;
        let (parent, name) = self.split(&rel, "remove")?;
        #[cfg(unix)]
        let res = self
            .dir_fd(parent)
            .and_then(|d| Ok(rustix::fs::unlinkat(&d, name, rustix::fs::AtFlags::REMOVEDIR)?));
        #[cfg(not(unix))]
        let res = {
            let _ = (parent, name);
            self.checked(&rel).and_then(std::fs::remove_dir)
        };
        res.map_err(|e| self.err("remove", &rel, e))
    }

    /// Removes the folder `path` and everything in it; a link in it is removed, never followed.
    pub fn remove_dir_all(&self, path: &Path) -> Result<(), PathError> {
        let rel = self.relative(path, "remove")?;
        for e in self.read_dir(&rel)? {
            let child = rel.join(&e.name);
            if e.kind == Kind::Dir {
                self.remove_dir_all(&child)?;
            } else {
                self.remove_file(&child)?;
            }
        }
        self.remove_dir(&rel)
    }

    /// Syncs the folder holding `path`, so that a rename or a new name in it survives a crash
    /// (best effort).
    pub fn sync_parent(&self, path: &Path) {
        if let Ok(rel) = self.relative(path, "sync") {
            self.sync_dir_rel(rel.parent().unwrap_or(Path::new("")));
        }
    }

    /// Syncs the folder `path` itself.
    pub fn sync_dir(&self, path: &Path) -> Result<(), PathError> {
        let rel = self.relative(path, "sync")?;
        #[cfg(unix)]
        let res = self.dir_fd(&rel).and_then(|d| Ok(rustix::fs::fsync(&d)?));
        #[cfg(not(unix))]
        let res = self.checked(&rel).map(drop);
        res.map_err(|e| self.err("sync", &rel, e))
    }

    fn sync_dir_rel(&self, rel: &Path) {
        let _ = self.sync_dir(rel);
    }

    /// Writes the temp file beside `rel` (synced when `sync`) and returns its relative path.
    fn write_temp(
        &self,
        rel: &Path,
        bytes: &[u8],
        mode: Option<u32>,
        sync: bool,
    ) -> Result<PathBuf, PathError> {
        let (parent, name) = self.split(rel, "write")?;
        self.create_dir_all(parent)?;
        let mut rnd = [0u8; 6];
        let _ = getrandom::fill(&mut rnd);
        let suffix = super::hex(&rnd);
        let file = name.to_string_lossy();
        let tmp = parent.join(format!(".{file}.{}.{suffix}{TEMP_SUFFIX}", std::process::id()));
        // Errors name the file being written, never the temp file.
        let created = failpoint::step("temp.create").and_then(|()| self.create_new(&tmp));
        let mut f = created.map_err(|e| self.err("write", rel, e))?;
        let res = failpoint::step("temp.write")
            .and_then(|()| {
                #[cfg(unix)]
                if let Some(mode) = mode {
                    use std::os::unix::fs::PermissionsExt as _;
                    f.set_permissions(std::fs::Permissions::from_mode(mode))?;
                }
                #[cfg(not(unix))]
                let _ = mode;
                f.write_all(bytes)
            })
            .and_then(|()| if sync { f.sync_all() } else { Ok(()) });
        if let Err(e) = res {
            let _ = self.raw_remove(&tmp);
            return Err(self.err("write", rel, e));
        }
        Ok(tmp)
    }

    fn raw_rename(&self, from: &Path, to: &Path) -> std::io::Result<()> {
        let (fp, fname) = self.split(from, "rename").map_err(|e| e.source)?;
        let (tp, tname) = self.split(to, "rename").map_err(|e| e.source)?;
        #[cfg(unix)]
        {
            let fd = self.dir_fd(fp)?;
            let td = if fp == tp { None } else { Some(self.dir_fd(tp)?) };
            Ok(rustix::fs::renameat(&fd, fname, td.as_ref().unwrap_or(&fd), tname)?)
        }
        #[cfg(not(unix))]
        {
            let _ = (fp, fname, tp, tname);
            std::fs::rename(self.checked(from)?, self.checked(to)?)
        }
    }

    fn raw_link(&self, from: &Path, to: &Path) -> std::io::Result<()> {
        let (fp, fname) = self.split(from, "create").map_err(|e| e.source)?;
        let (tp, tname) = self.split(to, "create").map_err(|e| e.source)?;
        #[cfg(unix)]
        {
            let fd = self.dir_fd(fp)?;
            let td = if fp == tp { None } else { Some(self.dir_fd(tp)?) };
            Ok(rustix::fs::linkat(
                &fd,
                fname,
                td.as_ref().unwrap_or(&fd),
                tname,
                rustix::fs::AtFlags::empty(),
            )?)
        }
        #[cfg(not(unix))]
        {
            let _ = (fp, fname, tp, tname);
            std::fs::hard_link(self.checked(from)?, self.checked(to)?)
        }
    }

    fn raw_remove(&self, rel: &Path) -> std::io::Result<()> {
        let (parent, name) = self.split(rel, "remove").map_err(|e| e.source)?;
        #[cfg(unix)]
        {
            let d = self.dir_fd(parent)?;
            Ok(rustix::fs::unlinkat(&d, name, rustix::fs::AtFlags::empty())?)
        }
        #[cfg(not(unix))]
        {
            let _ = (parent, name);
            std::fs::remove_file(self.checked(rel)?)
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    struct Fixture {
        _tmp: tempfile::TempDir,
        root: PathBuf,
        outside: PathBuf,
        fs: Confined,
    }

    fn fixture() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("vault");
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(root.join("notes")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(root.join("notes/a.md"), "a").unwrap();
        std::fs::write(outside.join("secret"), "secret").unwrap();
        // A folder link in the middle and a file link as the last part, both leading out.
        symlink(&outside, root.join("out")).unwrap();
        symlink(outside.join("secret"), root.join("notes/leak.md")).unwrap();
        // A relative link inside the vault (still refused: no link is followed).
        symlink("notes", root.join("inner")).unwrap();
        let fs = Confined::open(&root).unwrap();
        Fixture { _tmp: tmp, root, outside, fs }
    }

    fn outside_untouched(f: &Fixture) {
        outside_untouched_but(f, &["secret"]);
    }

    /// The folder outside the vault holds `names` (sorted) and nothing else, and the secret is
    /// intact.
    fn outside_untouched_but(f: &Fixture, names: &[&str]) {
        let mut found: Vec<_> = std::fs::read_dir(&f.outside)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        found.sort();
        assert_eq!(found, names, "nothing new outside the vault");
        assert_eq!(std::fs::read_to_string(f.outside.join("secret")).unwrap(), "secret");
    }

    #[test]
    fn reads_and_writes_inside_work() {
        let f = fixture();
        assert_eq!(f.fs.read(Path::new("notes/a.md")).unwrap(), b"a");
        assert_eq!(f.fs.read(&f.root.join("notes/a.md")).unwrap(), b"a");
        f.fs.write(Path::new("deep/er/b.md"), b"b").unwrap();
        assert_eq!(std::fs::read_to_string(f.root.join("deep/er/b.md")).unwrap(), "b");
        let err = f.fs.create(Path::new("deep/er/b.md"), b"x", None).unwrap_err();
        assert_eq!(err.source.kind(), std::io::ErrorKind::AlreadyExists);
        f.fs.rename(Path::new("deep/er/b.md"), Path::new("notes/b.md")).unwrap();
        f.fs.move_no_clobber(Path::new("notes/b.md"), Path::new("moved/b.md")).unwrap();
        assert_eq!(f.fs.read_to_string(Path::new("moved/b.md")).unwrap(), "b");
        f.fs.append(Path::new("moved/log"), b"1\n").unwrap();
        f.fs.append(Path::new("moved/log"), b"2\n").unwrap();
        assert_eq!(f.fs.read(Path::new("moved/log")).unwrap(), b"1\n2\n");
        let mut names: Vec<_> =
            f.fs.read_dir(Path::new("notes"))
                .unwrap()
                .into_iter()
                .map(|e| (e.name, e.kind))
                .collect();
        names.sort();
        assert_eq!(names, vec![("a.md".into(), Kind::File), ("leak.md".into(), Kind::Symlink)]);
        f.fs.remove_dir_all(Path::new("deep")).unwrap();
        assert!(!f.root.join("deep").exists());
        assert_eq!(f.fs.stat(Path::new("notes/leak.md")).unwrap().unwrap().kind, Kind::Symlink);
        assert_eq!(f.fs.stat(Path::new("nope")).unwrap(), None);
        // Nothing left behind but what was written.
        let temps = walkdir::WalkDir::new(&f.root)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(TEMP_SUFFIX))
            .count();
        assert_eq!(temps, 0);
    }

    #[test]
    fn dot_dot_and_absolute_paths_are_refused() {
        let f = fixture();
        let escapes = [
            PathBuf::from("../outside/secret"),
            PathBuf::from("notes/../../outside/secret"),
            f.outside.join("secret"),
            PathBuf::from("/etc/passwd"),
        ];
        for p in &escapes {
            assert!(f.fs.read(p).is_err(), "read {p:?}");
            assert!(f.fs.write(p, b"x").is_err(), "write {p:?}");
            assert!(f.fs.create(p, b"x", None).is_err(), "create {p:?}");
            assert!(f.fs.remove_file(p).is_err(), "remove {p:?}");
            assert!(f.fs.rename(Path::new("notes/a.md"), p).is_err(), "rename to {p:?}");
            assert!(f.fs.rename(p, Path::new("notes/x.md")).is_err(), "rename from {p:?}");
            let e = f.fs.write(p, b"x").unwrap_err();
            assert!(e.to_string().contains("outside the vault"), "{e}");
        }
        outside_untouched(&f);
        assert_eq!(std::fs::read_to_string(f.root.join("notes/a.md")).unwrap(), "a");
    }

    #[test]
    fn a_link_in_the_middle_is_never_followed() {
        let f = fixture();
        for dir in ["out", "inner"] {
            let p = PathBuf::from(dir).join("secret");
            assert!(f.fs.read(&p).is_err(), "read through {dir}");
            assert!(f.fs.write(&p, b"x").is_err(), "write through {dir}");
            assert!(f.fs.create(&Path::new(dir).join("new"), b"x", None).is_err());
            assert!(f.fs.append(&Path::new(dir).join("new"), b"x").is_err());
            assert!(f.fs.remove_file(&p).is_err(), "remove through {dir}");
            assert!(f.fs.rename(&p, Path::new("notes/stolen")).is_err());
            assert!(f.fs.rename(Path::new("notes/a.md"), &Path::new(dir).join("a.md")).is_err());
            assert!(
                f.fs.move_no_clobber(Path::new("notes/a.md"), &Path::new(dir).join("x/a.md"))
                    .is_err()
            );
            assert!(f.fs.create_dir_all(&Path::new(dir).join("sub")).is_err());
            assert!(f.fs.read_dir(Path::new(dir)).is_err());
            assert!(f.fs.remove_dir_all(Path::new(dir)).is_err());
            let e = f.fs.write(&p, b"x").unwrap_err();
            assert!(e.to_string().contains("symbolic link"), "{e}");
        }
        outside_untouched(&f);
        assert!(f.root.join("notes/a.md").is_file());
        assert!(!f.root.join("notes/stolen").exists());
    }

    #[test]
    fn the_fallback_walk_refuses_links_too() {
        use rustix::fs::{Mode, OFlags};
        let f = fixture();
        let open = |p: &str| {
            unix::walk(&f.fs.dir, Path::new(p), OFlags::RDONLY | OFlags::NOFOLLOW, Mode::empty())
        };
        assert!(open("notes/a.md").is_ok());
        for p in ["out/secret", "inner/a.md", "notes/leak.md", "../outside/secret"] {
            assert!(open(p).is_err(), "{p}");
        }
    }

    #[test]
    fn a_link_as_the_last_part_is_never_followed() {
        let f = fixture();
        let link = Path::new("notes/leak.md");
        assert!(f.fs.read(link).is_err());
        assert!(f.fs.append(link, b"x").is_err());
        assert!(f.fs.create(link, b"x", None).is_err());
        // Replacing a link (rename over it) or removing it touches the link, not its target.
        f.fs.write(link, b"mine").unwrap();
        assert_eq!(std::fs::read_to_string(f.root.join("notes/leak.md")).unwrap(), "mine");
        symlink(f.outside.join("secret"), f.root.join("notes/leak2.md")).unwrap();
        f.fs.remove_file(Path::new("notes/leak2.md")).unwrap();
        symlink(f.outside.join("secret"), f.root.join("notes/leak3.md")).unwrap();
        f.fs.rename(Path::new("notes/leak3.md"), Path::new("notes/renamed")).unwrap();
        assert_eq!(f.fs.stat(Path::new("notes/renamed")).unwrap().unwrap().kind, Kind::Symlink);
        outside_untouched(&f);
    }

    #[test]
    fn an_open_folder_lists_stats_and_reads_without_following_links() {
        let f = fixture();
        let root = f.fs.open_dir(Path::new("")).unwrap();
        let mut names: Vec<_> =
            root.entries().unwrap().into_iter().map(|e| (e.name, e.kind)).collect();
        names.sort();
        assert_eq!(
            names,
            vec![
                ("inner".into(), Kind::Symlink),
                ("notes".into(), Kind::Dir),
                ("out".into(), Kind::Symlink)
            ]
        );
        let notes = root.open_dir("notes".as_ref()).unwrap();
        assert_eq!(notes.path(), f.root.join("notes"));
        assert_eq!(notes.read("a.md".as_ref()).unwrap(), b"a");
        let st = notes.stat("a.md".as_ref()).unwrap();
        assert_eq!((st.kind, st.len), (Kind::File, 1));
        let want = std::fs::metadata(f.root.join("notes/a.md"))
            .unwrap()
            .modified()
            .unwrap()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as i128;
        assert_eq!(st.mtime_ns, want, "the same time std gives");
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(f.root.join("notes/a.md")).unwrap();
            let want = i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec());
            assert_eq!(st.ctime_ns, want, "the same ctime std gives");
        }
        // A link is what it is, never what it points to; reading or entering it is refused.
        assert_eq!(notes.stat("leak.md".as_ref()).unwrap().kind, Kind::Symlink);
        assert!(notes.read("leak.md".as_ref()).is_err());
        for link in ["out", "inner"] {
            assert!(root.open_dir(link.as_ref()).is_err(), "{link}");
        }
        for bad in ["..", "../outside", "notes/a.md", ""] {
            assert!(root.read(bad.as_ref()).is_err(), "{bad}");
            assert!(root.open_dir(bad.as_ref()).is_err(), "{bad}");
            assert!(root.stat(bad.as_ref()).is_err(), "{bad}");
        }
        assert!(f.fs.open_dir(Path::new("out")).is_err());
        assert!(f.fs.open_dir(Path::new("../outside")).is_err());
        outside_untouched(&f);
    }

    #[test]
    fn a_folder_swapped_for_a_link_after_it_was_opened_is_not_followed() {
        let f = fixture();
        std::fs::write(f.outside.join("a.md"), "outside").unwrap();
        let root = f.fs.open_dir(Path::new("")).unwrap();
        let notes = root.open_dir("notes".as_ref()).unwrap();
        // The folder is moved away and a link to a folder outside put in its place: what was
        // opened is still read, and opening the name again refuses the link.
        std::fs::rename(f.root.join("notes"), f.root.join("moved")).unwrap();
        symlink(&f.outside, f.root.join("notes")).unwrap();
        assert_eq!(notes.read("a.md".as_ref()).unwrap(), b"a");
        assert!(root.open_dir("notes".as_ref()).is_err());
        assert!(f.fs.read(Path::new("notes/a.md")).is_err());
        assert!(f.fs.stat(Path::new("notes/a.md")).is_err());
    }

    #[test]
    fn a_kept_folder_is_used_only_while_it_is_still_the_one_at_its_name() {
        let f = fixture();
        std::fs::write(f.outside.join("a.md"), "outside").unwrap();
        // Kept after the first use, then used for stats, writes and renames.
        assert!(f.fs.stat(Path::new("notes/a.md")).unwrap().is_some());
        f.fs.write(Path::new("notes/b.md"), b"b").unwrap();
        f.fs.rename(Path::new("notes/b.md"), Path::new("notes/c.md")).unwrap();
        assert_eq!(std::fs::read_to_string(f.root.join("notes/c.md")).unwrap(), "b");
        // The folder moved away and a link put in its place: refused, never followed, and
        // nothing is written through the kept handle into the moved folder.
        std::fs::rename(f.root.join("notes"), f.root.join("moved")).unwrap();
        symlink(&f.outside, f.root.join("notes")).unwrap();
        assert!(f.fs.stat(Path::new("notes/a.md")).is_err());
        assert!(f.fs.rename(Path::new("notes/c.md"), Path::new("notes/d.md")).is_err());
        assert!(f.fs.remove_file(Path::new("notes/c.md")).is_err());
        assert!(f.root.join("moved/c.md").exists(), "the moved folder is left alone");
        outside_untouched_but(&f, &["a.md", "secret"]);
        // A new folder of that name: its own files are seen, not the moved folder's.
        std::fs::remove_file(f.root.join("notes")).unwrap();
        std::fs::create_dir(f.root.join("notes")).unwrap();
        assert!(f.fs.stat(Path::new("notes/c.md")).unwrap().is_none());
        f.fs.write(Path::new("notes/e.md"), b"e").unwrap();
        assert!(f.fs.stat(Path::new("notes/e.md")).unwrap().is_some());
        assert!(f.root.join("notes/e.md").exists() && !f.root.join("moved/e.md").exists());
        // Removed: not found, as before.
        std::fs::remove_file(f.root.join("notes/e.md")).unwrap();
        std::fs::remove_dir(f.root.join("notes")).unwrap();
        assert!(f.fs.stat(Path::new("notes/e.md")).unwrap().is_none());
    }
}
