//! Walking the vault: every memory file with its stat, the symbolic links not followed and the
//! files no command can name, and what one changed path is. The walk is the whole cost of the
//! cheap reconcile before every command, so it stays lean: one open folder per folder, opened
//! relative to the folder holding it, and one `fstatat` per memory, beneath the vault's handle.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::disk::{ConfinedDir, DirEntry, Kind, Stat};
use crate::error::PathError;
use crate::model::MemoryName;
use crate::model::name::RESERVED_DIRS;
use crate::vault::Vault;

/// A memory file's name, size, modification time and status-change time.
#[derive(Debug, Clone)]
pub struct FileStat {
    /// The memory's name.
    pub name: MemoryName,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i128,
    /// Status-change time (ctime), nanoseconds since the Unix epoch (0 off Unix): see
    /// [`crate::disk::Stat::ctime_ns`].
    pub ctime_ns: i128,
}

/// What one changed path is, as [`Vault::path_state`] tells.
#[derive(Debug, Clone)]
pub enum PathState {
    /// A memory file that [`Vault::files`] lists, with its stat.
    Memory(FileStat),
    /// A memory file's name with no file there now.
    Gone(MemoryName),
    /// A path that is never a memory (a dot file, a reserved folder, a name not UTF-8 or that
    /// no command can use).
    NotAMemory,
    /// Cannot be told from the path alone (a folder, a symbolic link on the way): stat the vault.
    Unsure,
}

/// A symbolic link in the vault that memlane does not follow (see [`Vault::link_target`]).
#[derive(Debug, Clone, serde::Serialize)]
pub struct EscapingLink {
    /// The link's path relative to the vault root (`notes.md`, `shared`).
    pub name: String,
    /// Where it resolves, when it resolves at all.
    pub target: Option<PathBuf>,
    /// Whether it leads to a folder.
    pub folder: bool,
}

/// A `.md` file in the vault that no command can name; it is never read. `doctor` reports it
/// and `list` warns about it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Unreachable {
    /// The file, as shown (control characters escaped).
    pub path: String,
    /// Why no command can name it.
    pub why: UnreachableWhy,
}

/// Why no command can name a file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum UnreachableWhy {
    /// Its name is not UTF-8.
    NotUtf8,
    /// Its name starts with `.`.
    Hidden,
    /// Its name is not a memory name (the reason).
    BadName(String),
}

impl std::fmt::Display for Unreachable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = &self.path;
        match &self.why {
            UnreachableWhy::NotUtf8 => write!(
                f,
                "{path}: the file name is not UTF-8, so no command can name it; it is not read"
            ),
            UnreachableWhy::Hidden => write!(
                f,
                "{path}: hidden files (names starting with `.`) are not memories; it is not read"
            ),
            UnreachableWhy::BadName(e) => {
                write!(f, "{path}: no command can name this file ({e}); it is not read")
            }
        }
    }
}

impl Unreachable {
    /// What to do about it (the same in every front end: it is about the file, not a command).
    pub fn hint(&self) -> &'static str {
        match self.why {
            UnreachableWhy::Hidden => "rename it without the leading `.` to make it one",
            UnreachableWhy::NotUtf8 | UnreachableWhy::BadName(_) => "rename it",
        }
    }
}

/// A file's modification time in nanoseconds since the Unix epoch (0 when unknown).
pub fn mtime_ns(meta: &std::fs::Metadata) -> i128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128)
}

/// What [`Vault::walk`] found.
#[derive(Debug, Default)]
struct Walked {
    files: Vec<FileStat>,
    escaping: Vec<EscapingLink>,
    unreachable: Vec<Unreachable>,
}

impl Walked {
    /// The memory `name`, when its file's stat says it is a regular file (the resolved file's,
    /// for a link).
    fn push_file(&mut self, name: MemoryName, stat: Option<Stat>) {
        let Some(stat) = stat.filter(|s| s.kind == Kind::File) else { return };
        self.files.push(FileStat {
            name,
            size: stat.len,
            mtime_ns: stat.mtime_ns,
            ctime_ns: stat.ctime_ns,
        });
    }
}

/// What a [`Vault::walk`] looks for besides the memory files.
#[derive(Debug, Clone, Copy)]
struct How {
    /// The `.md` files no command can name.
    unreachable: bool,
    /// Each memory's size and mtime (one `stat` each); without, they are 0.
    stat: bool,
}

/// Warns about the symbolic links that lead outside the vault's memories, once per link and
/// process (a server or watcher scans again and again).
fn warn_escaping(escaping: Vec<EscapingLink>) {
    static WARNED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    if !escaping.is_empty()
        && let Ok(mut warned) = WARNED.lock()
    {
        for link in escaping {
            if !warned.contains(&link.name) {
                tracing::warn!(
                    "`{}` is a symbolic link that resolves outside the vault's memories; not read",
                    link.name
                );
                warned.push(link.name);
            }
        }
    }
}

/// A folder [`Vault::walk`] has still to read: the folder holding it (held open, so it is opened
/// relative to it), its name there, and its path relative to the vault root.
type Pending = (Arc<ConfinedDir>, OsString, String);

impl Vault {
    /// Every memory name in the vault, sorted.
    pub fn names(&self) -> crate::Result<Vec<MemoryName>> {
        // The folders' listings say which entries are regular files: no stat per memory.
        let walked = self.walk(How { unreachable: false, stat: false })?;
        warn_escaping(walked.escaping);
        Ok(walked.files.into_iter().map(|f| f.name).collect())
    }

    /// Every memory file in the vault with its size and mtime, sorted by name (reserved folders,
    /// dot files and non-`.md` files skipped; symlinked files followed only when they resolve
    /// inside the vault's memories, symlinked folders never).
    ///
    /// One `readdir` per folder and one `stat` per memory, relative to its folder: this is the
    /// whole cost of a no-change reconcile, so it stays this lean.
    pub fn files(&self) -> crate::Result<Vec<FileStat>> {
        let walked = self.walk(How { unreachable: false, stat: true })?;
        warn_escaping(walked.escaping);
        Ok(walked.files)
    }

    /// Symbolic links in the vault that memlane does not follow because they resolve outside
    /// its memories (or nowhere): files named `*.md` and folders, for `memlane doctor`.
    pub fn escaping_links(&self) -> crate::Result<Vec<EscapingLink>> {
        Ok(self.walk(How { unreachable: false, stat: true })?.escaping)
    }

    /// `.md` files in the vault that no command can reach, each with why: names memlane
    /// cannot use (control characters, `\\`, `:` …, not UTF-8) and hidden files (`.x.md`,
    /// `...md`). `list` warns about them and `doctor` reports them; they are never read.
    pub fn unreachable_files(&self) -> crate::Result<Vec<Unreachable>> {
        let mut out = self.walk(How { unreachable: true, stat: true })?.unreachable;
        out.sort();
        Ok(out)
    }

    /// Walks the vault: every memory file with its stat (sorted by name), the links not
    /// followed, and (`unreachable`) the `.md` files no name can reach. The root is read here;
    /// the folders under it are shared out between up to four threads, each reading its
    /// folders depth first. Everything goes through open folder handles beneath the vault's
    /// (see [`ConfinedDir`]): each folder is opened relative to the folder holding it (never
    /// through a link) and each memory stat-ed relative to its folder, with no path lookup from
    /// the root per file.
    fn walk(&self, how: How) -> crate::Result<Walked> {
        let read_error =
            |source| PathError { action: "read", path: self.root().to_owned(), source };
        // Tests hold a command here, while its indices open.
        crate::failpoint::step("vault.walk").map_err(read_error)?;
        let root = self.fs.open_dir(Path::new(""))?;
        let entries = root.entries().map_err(read_error)?;
        let root = Arc::new(root);
        let mut top = Walked::default();
        let mut folders = Vec::new();
        self.visit(&root, entries, "", how, &mut top, &mut folders);
        drop(root);
        let threads = std::thread::available_parallelism().map_or(1, usize::from).clamp(1, 4);
        // Each part's memories sorted by name where they were found (on every core), then
        // merged: a sort of the whole list afterwards took ≈ 10 ms of one core at 100k files.
        // A name is its file's path without `.md`, so no two files share one: an unstable sort
        // (no scratch buffer) gives the one order.
        let walk_sorted = |share: Vec<Pending>| {
            let mut part = self.walk_folders(share, how);
            part.files.sort_unstable_by(|a, b| a.name.cmp(&b.name));
            part
        };
        let parts: Vec<Walked> = if threads == 1 || folders.len() < 2 {
            vec![walk_sorted(folders)]
        } else {
            // Round robin: folders are listed in directory order, with no size known.
            let mut shares: Vec<Vec<Pending>> = (0..threads).map(|_| Vec::new()).collect();
            for (i, f) in folders.into_iter().enumerate() {
                shares[i % threads].push(f);
            }
            std::thread::scope(|s| {
                let handles: Vec<_> = shares
                    .into_iter()
                    .filter(|share| !share.is_empty())
                    .map(|share| s.spawn(|| walk_sorted(share)))
                    .collect();
                // A walk that panicked must not read as folders without memories (a reconcile
                // would drop them from the indices): the panic goes on.
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .collect()
            })
        };
        top.files.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        let mut sorted = vec![std::mem::take(&mut top.files)];
        for part in parts {
            sorted.push(part.files);
            top.escaping.extend(part.escaping);
            top.unreachable.extend(part.unreachable);
        }
        top.files = merge_by_name(sorted);
        top.escaping.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(top)
    }

    /// [`walk`](Self::walk) of `folders` and all under them.
    fn walk_folders(&self, mut folders: Vec<Pending>, how: How) -> Walked {
        let mut out = Walked::default();
        while let Some((parent, name, prefix)) = folders.pop() {
            // Opened relative to the folder holding it, refusing a link swapped in since that
            // folder was read.
            let opened = parent.open_dir(&name).and_then(|d| {
                let entries = d.entries()?;
                Ok((d, entries))
            });
            match opened {
                Ok((dir, entries)) => {
                    drop(parent);
                    let dir = Arc::new(dir);
                    self.visit(&dir, entries, &prefix, how, &mut out, &mut folders);
                }
                Err(e) => {
                    let dir = parent.path().join(&name);
                    tracing::warn!(dir = %dir.display(), error = %e, "cannot read a folder in the vault; skipped");
                }
            }
        }
        out
    }

    /// One folder of [`walk`](Self::walk): its memory files (stat-ed relative to it), links and
    /// unreachable files into `out`, its sub-folders onto `folders`.
    fn visit(
        &self,
        dir: &Arc<ConfinedDir>,
        entries: Vec<DirEntry>,
        prefix: &str,
        how: How,
        out: &mut Walked,
        folders: &mut Vec<Pending>,
    ) {
        for entry in entries {
            let path = || dir.path().join(&entry.name);
            let Some(fname) = entry.name.to_str() else {
                if how.unreachable && entry.name.as_encoded_bytes().ends_with(b".md") {
                    out.unreachable.push(Unreachable {
                        path: path().display().to_string(),
                        why: UnreachableWhy::NotUtf8,
                    });
                }
                continue;
            };
            if prefix.is_empty() && RESERVED_DIRS.contains(&fname) {
                continue;
            }
            if fname.starts_with('.') {
                if how.unreachable && fname.ends_with(".md") && entry.kind != Kind::Dir {
                    out.unreachable.push(Unreachable {
                        path: path().display().to_string().escape_debug().to_string(),
                        why: UnreachableWhy::Hidden,
                    });
                }
                continue;
            }
            let rel = if prefix.is_empty() {
                fname.to_owned()
            } else {
                let mut rel = String::with_capacity(prefix.len() + 1 + fname.len());
                rel.push_str(prefix);
                rel.push('/');
                rel.push_str(fname);
                rel
            };
            match entry.kind {
                Kind::Dir => folders.push((dir.clone(), entry.name, rel)),
                Kind::Symlink => {
                    let (target, allowed) = self.link_target(&path());
                    let is_dir = target.as_deref().is_some_and(Path::is_dir);
                    if !allowed && (is_dir || fname.ends_with(".md")) {
                        out.escaping.push(EscapingLink { name: rel, target, folder: is_dir });
                    } else if allowed
                        && !is_dir
                        && fname.ends_with(".md")
                        && let Some(real) = target
                        && let Ok(name) = MemoryName::from_file_path(rel)
                    {
                        // The resolved file, stat-ed beneath the vault's handle.
                        out.push_file(name, self.fs.stat(&real).ok().flatten());
                    }
                }
                _ if fname.ends_with(".md") => match MemoryName::from_file_path(rel) {
                    Err(e) if how.unreachable => out.unreachable.push(Unreachable {
                        path: path().display().to_string().escape_debug().to_string(),
                        why: UnreachableWhy::BadName(e.to_string()),
                    }),
                    // A regular file, as the folder's listing says, whose stat is not wanted.
                    Ok(name) if !how.stat && entry.kind == Kind::File => {
                        out.files.push(FileStat { name, size: 0, mtime_ns: 0, ctime_ns: 0 });
                    }
                    // `fstatat` on the folder read (no link followed): no lookup of the path.
                    Ok(name) => out.push_file(name, dir.stat(&entry.name).ok()),
                    Err(_) => {}
                },
                _ => {}
            }
        }
    }

    /// What the file at `path` (absolute, or relative to the vault root) is by the rules of
    /// [`Vault::files`], from its own `lstat` and its folders' only: what a caller that knows
    /// which paths changed (the MCP server, from the watcher's events) needs instead of a stat
    /// of the whole vault. Anything these few checks cannot decide the way the walk would (a
    /// folder, a symbolic link on the way, a path outside the vault) is [`PathState::Unsure`]:
    /// the caller then stats the whole vault.
    pub fn path_state(&self, path: &Path) -> PathState {
        let rel = if path.is_absolute() {
            match path
                .strip_prefix(&self.canonical_root)
                .or_else(|_| path.strip_prefix(self.root()))
            {
                Ok(rel) => rel,
                Err(_) => return PathState::Unsure,
            }
        } else {
            path
        };
        let mut parts = Vec::new();
        for c in rel.components() {
            let std::path::Component::Normal(p) = c else { return PathState::Unsure };
            // The walk skips names that are not UTF-8.
            let Some(p) = p.to_str() else { return PathState::NotAMemory };
            parts.push(p);
        }
        let Some(&file) = parts.last() else { return PathState::Unsure };
        if RESERVED_DIRS.contains(&parts[0]) || parts.iter().any(|p| p.starts_with('.')) {
            return PathState::NotAMemory;
        }
        if !file.ends_with(".md") {
            // A folder (created, removed or renamed) changes every memory under it.
            return PathState::Unsure;
        }
        let rel = parts.join("/");
        let Ok(name) = MemoryName::from_file_path(rel.clone()) else {
            return PathState::NotAMemory;
        };
        // Stat-ed beneath the vault's handle: a link on the way is an error (unsure), a missing
        // part is gone.
        match self.fs.stat(Path::new(&rel)) {
            Ok(None) => PathState::Gone(name),
            Ok(Some(s)) if s.kind == Kind::File => PathState::Memory(FileStat {
                name,
                size: s.len,
                mtime_ns: s.mtime_ns,
                ctime_ns: s.ctime_ns,
            }),
            _ => PathState::Unsure,
        }
    }
}

/// One list of the memory files of `lists`, each sorted by name, in name order (a list's own
/// order kept among equal names, lists in turn).
fn merge_by_name(mut lists: Vec<Vec<FileStat>>) -> Vec<FileStat> {
    lists.retain(|l| !l.is_empty());
    while lists.len() > 1 {
        let b = lists.pop().unwrap_or_default();
        let a = lists.pop().unwrap_or_default();
        let mut merged = Vec::with_capacity(a.len() + b.len());
        let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
        while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
            let next = if y.name < x.name { b.next() } else { a.next() };
            merged.extend(next);
        }
        merged.extend(a);
        merged.extend(b);
        lists.push(merged);
    }
    lists.pop().unwrap_or_default()
}

#[cfg(all(test, unix))]
mod tests {
    use crate::config::Config;
    use crate::vault::{Clock, Vault};

    /// `names` reads the folders without a stat per memory; it lists exactly what `files` does,
    /// whatever else the vault holds.
    #[test]
    fn names_without_a_stat_are_the_names_of_the_files() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("vault");
        let outside = tmp.path().join("outside.md");
        std::fs::create_dir_all(root.join("notes/deep")).unwrap();
        std::fs::create_dir_all(root.join("folder.md")).unwrap();
        std::fs::create_dir_all(root.join("indices")).unwrap();
        for f in ["a.md", "notes/b.md", "notes/deep/c.md", "notes/.hidden.md", "indices/x.md"] {
            std::fs::write(root.join(f), "# T\n\nText.\n").unwrap();
        }
        std::fs::write(root.join("readme.txt"), "not a memory").unwrap();
        std::fs::write(&outside, "# Out\n").unwrap();
        std::os::unix::fs::symlink("a.md", root.join("notes/inside-link.md")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("escaping.md")).unwrap();
        std::os::unix::fs::symlink("nowhere.md", root.join("dangling.md")).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            root.join("fifo.md"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let vault = Vault::open(&root, Config::default(), Clock::system()).unwrap();
        let names: Vec<String> = vault.names().unwrap().iter().map(|n| n.to_string()).collect();
        let files: Vec<String> =
            vault.files().unwrap().iter().map(|f| f.name.to_string()).collect();
        assert_eq!(names, files);
        assert!(names.contains(&"notes/deep/c".to_owned()), "{names:?}");
        assert!(!names.iter().any(|n| n.contains("fifo") || n.contains("folder")), "{names:?}");
    }

    /// The folders are walked on several threads, each part sorted where it was found and the
    /// parts merged: the list is every memory once, in name order, including names whose
    /// order crosses folders (`a/b.md`, `a/b/c.md`, `a/b0.md`).
    #[test]
    fn files_walked_on_several_threads_come_back_once_each_in_name_order() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("vault");
        let mut wanted = Vec::new();
        for f in 0..12 {
            for name in ["b", "b/c", "b0", "b-x", "B", "z/y/x"] {
                let rel = format!("f{f}/{name}");
                let path = root.join(format!("{rel}.md"));
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, "# T\n\nText.\n").unwrap();
                wanted.push(rel);
            }
        }
        for name in ["top", "f1-top", "f10a"] {
            std::fs::write(root.join(format!("{name}.md")), "# T\n").unwrap();
            wanted.push(name.to_owned());
        }
        let vault = Vault::open(&root, Config::default(), Clock::system()).unwrap();
        let files = vault.files().unwrap();
        let names: Vec<String> = files.iter().map(|f| f.name.to_string()).collect();
        let mut sorted = files.iter().map(|f| f.name.clone()).collect::<Vec<_>>();
        sorted.sort();
        assert_eq!(files.iter().map(|f| f.name.clone()).collect::<Vec<_>>(), sorted);
        wanted.sort();
        let mut got = names.clone();
        got.sort();
        assert_eq!(got, wanted, "every memory once");
    }
}
