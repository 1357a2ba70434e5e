//! Freshness on the watcher's word: a one-shot command asks a live watcher instead of stat-ing
//! every memory file.
//!
//! A fresh process (`memlane search`, `list`, ...) must answer from indices that reflect every
//! memory file as it was when the command started. Without help that costs a stat of the whole
//! vault against the manifest (see [`crate::index::store::Indexes::open_reconciled`]). When a
//! watcher runs for the vault (`memlane watch`, or `memlane mcp`), it already knows what changed,
//! the way git's fsmonitor asks watchman:
//!
//! 1. The watcher listens on a Unix socket in a private per-user runtime folder
//!    (`$XDG_RUNTIME_DIR/memlane/`, else `$TMPDIR/memlane-<uid>/`; created `0700`, used only
//!    when it is a real folder owned by this user that nobody else can enter), named after the
//!    vault's canonical path, device and inode. Never inside the vault: everything in
//!    `.memories/` may come from a cloned repository.
//! 2. A command connects and checks that the peer runs as its own user (`SO_PEERCRED`); the
//!    watcher checks the same of the command. The command sends the vault it means.
//! 3. The watcher makes sure it has seen every event up to now (a marker file's event, see
//!    [`crate::watch::VaultWatcher::sync`]), brings the indices on disk up to date with what
//!    changed ([`Service::start`]'s `catch_up`), and answers with a digest of the indices' files
//!    (size, inode, mtime of every store file, as a writer's check for other writers uses).
//! 4. The command opens the indices and compares that digest with the one it took itself before
//!    reading them. Equal, the indices it holds are the ones the watcher vouched for, and the
//!    stat is skipped ([`crate::index::store::Indexes::open_fresh`]).
//!
//! Anything else — no socket, nobody listening (a watcher killed with `kill -9` leaves its socket
//! file behind), another user, an unhealthy watcher (lost events), a watcher still on its first
//! pass, a failed pass, no answer within the wait (`[watch] ask_wait_ms`, [`DEFAULT_WAIT`]), an answer that does not
//! parse or names another vault, a digest that differs (another process wrote since), an
//! interrupted write — makes the command do the full check, as it would with no watcher at all.
//! Correctness never depends on the watcher: it can only save the stat.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a command waits for the watcher's answer before it checks the files itself (the
/// default of `[watch] ask_wait_ms`). The
/// answer usually takes a millisecond or two; when something changed, the watcher reconciles
/// first (≈ 100 ms at 10k memories), and a command that gives up meanwhile finds the change
/// itself.
pub const DEFAULT_WAIT: Duration = Duration::from_millis(50);

/// The protocol version, in every request and answer.
const VERSION: u32 = 1;

/// The longest request or answer line read.
const MAX_LINE: usize = 8 * 1024;

/// How long the watcher waits for a command's request once it has connected.
const REQUEST_WAIT: Duration = Duration::from_millis(500);

/// Why a command does the full check instead of trusting a watcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// Not available on this platform.
    Unsupported,
    /// No private runtime folder (missing, not ours, open to others).
    NoRuntimeDir,
    /// The vault's root cannot be identified.
    NoVault,
    /// No socket for this vault.
    NoSocket,
    /// A socket file, but nobody listening (a watcher that died).
    NoListener,
    /// The socket is not this user's, or the peer runs as another user.
    OtherUser,
    /// No answer in time.
    Timeout,
    /// An answer that does not parse, or is of another protocol version.
    Garbage,
    /// An answer about another vault.
    OtherVault,
    /// The watcher cannot vouch now (unhealthy, first pass not done, a pass failed).
    NotVouched,
    /// An error talking to the watcher.
    Io(std::io::ErrorKind),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Unsupported => f.write_str("not supported on this platform"),
            Refused::NoRuntimeDir => f.write_str("no private runtime folder"),
            Refused::NoVault => f.write_str("the vault cannot be identified"),
            Refused::NoSocket => f.write_str("no watcher"),
            Refused::NoListener => f.write_str("a stale socket, nobody listening"),
            Refused::OtherUser => f.write_str("the socket belongs to another user"),
            Refused::Timeout => f.write_str("no answer in time"),
            Refused::Garbage => f.write_str("an answer that does not parse"),
            Refused::OtherVault => f.write_str("an answer about another vault"),
            Refused::NotVouched => f.write_str("the watcher cannot vouch for the indices now"),
            Refused::Io(k) => write!(f, "{k}"),
        }
    }
}

/// What identifies a vault to its watcher: its canonical root, device and inode.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct VaultKey {
    /// The canonical root path, lossily as text.
    pub root: String,
    /// The root's device.
    pub dev: u64,
    /// The root's inode.
    pub ino: u64,
}

/// A command's request.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Request {
    memlane_fresh: u32,
    vault: VaultKey,
}

/// The watcher's answer: `stamp` is the digest of the indices' files once they reflect every
/// change made before the request (`None`: it cannot vouch now).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Answer {
    memlane_fresh: u32,
    vault: VaultKey,
    stamp: Option<u64>,
}

/// Judges a watcher's answer line: the digest it vouches for, or why it cannot be trusted.
/// Anything but a well-formed answer of this version about `key` with a digest is refused.
pub fn judge(line: &[u8], key: &VaultKey) -> Result<u64, Refused> {
    let answer: Answer = serde_json::from_slice(line).map_err(|_| Refused::Garbage)?;
    if answer.memlane_fresh != VERSION {
        return Err(Refused::Garbage);
    }
    if answer.vault != *key {
        return Err(Refused::OtherVault);
    }
    answer.stamp.ok_or(Refused::NotVouched)
}

#[cfg(target_os = "linux")]
pub use imp::{Service, ask, socket_path};

#[cfg(not(target_os = "linux"))]
pub use fallback::{Service, ask, socket_path};

#[cfg(not(target_os = "linux"))]
mod fallback {
    use super::*;

    /// Not available here: every command does the full check.
    pub fn ask(_root: &Path, _wait: Duration) -> Result<u64, Refused> {
        Err(Refused::Unsupported)
    }

    /// Not available here.
    pub fn socket_path(_root: &Path) -> Option<PathBuf> {
        None
    }

    /// Not available here: never started.
    #[derive(Debug)]
    pub struct Service;

    impl Service {
        /// Not available here: `None`.
        pub fn start(
            _root: &Path,
            _catch_up: Box<dyn FnMut() -> Option<u64> + Send>,
        ) -> Option<Service> {
            None
        }
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use std::io::{Read, Write};
    use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt};
    use std::os::unix::net::{UnixListener, UnixStream};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::thread::JoinHandle;
    use std::time::Instant;

    use super::*;

    fn uid() -> u32 {
        rustix::process::geteuid().as_raw()
    }

    /// The private runtime folder: `$XDG_RUNTIME_DIR/memlane`, else `$TMPDIR/memlane-<uid>`;
    /// created (`0700`) when `create`. `None` unless it is a real folder owned by this user that
    /// no one else may enter.
    fn runtime_dir(create: bool) -> Option<PathBuf> {
        let dir = match std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from) {
            Some(d) if d.is_absolute() => d.join("memlane"),
            _ => std::env::temp_dir().join(format!("memlane-{}", uid())),
        };
        if create {
            match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => {
                    tracing::debug!(error = %e, dir = %dir.display(), "no runtime folder");
                    return None;
                }
            }
        }
        let md = std::fs::symlink_metadata(&dir).ok()?;
        (md.is_dir() && md.uid() == uid() && md.mode() & 0o077 == 0).then_some(dir)
    }

    fn vault_key(root: &Path) -> Option<VaultKey> {
        let root = root.canonicalize().ok()?;
        let md = std::fs::metadata(&root).ok()?;
        Some(VaultKey { root: root.to_string_lossy().into_owned(), dev: md.dev(), ino: md.ino() })
    }

    fn socket_name(key: &VaultKey) -> String {
        let mut bytes = key.root.as_bytes().to_vec();
        bytes.extend_from_slice(&key.dev.to_le_bytes());
        bytes.extend_from_slice(&key.ino.to_le_bytes());
        format!("{:016x}.sock", xxhash_rust::xxh3::xxh3_64(&bytes))
    }

    /// Where the watcher of the vault at `root` listens (`None`: no private runtime folder).
    pub fn socket_path(root: &Path) -> Option<PathBuf> {
        let key = vault_key(root)?;
        Some(runtime_dir(false)?.join(socket_name(&key)))
    }

    /// Reads one line (without its newline), at most [`MAX_LINE`] bytes, before `deadline`.
    fn read_line(stream: &mut UnixStream, deadline: Instant) -> Result<Vec<u8>, Refused> {
        let mut buf = Vec::with_capacity(256);
        let mut chunk = [0u8; 1024];
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Refused::Timeout);
            }
            stream.set_read_timeout(Some(left)).map_err(|e| Refused::Io(e.kind()))?;
            match stream.read(&mut chunk) {
                Ok(0) => return Err(Refused::Garbage),
                Ok(n) => {
                    buf.extend_from_slice(&chunk[..n]);
                    if let Some(end) = buf.iter().position(|b| *b == b'\n') {
                        buf.truncate(end);
                        return Ok(buf);
                    }
                    if buf.len() > MAX_LINE {
                        return Err(Refused::Garbage);
                    }
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    return Err(Refused::Timeout);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Refused::Io(e.kind())),
            }
        }
    }

    fn peer_is_us(stream: &UnixStream) -> bool {
        rustix::net::sockopt::socket_peercred(stream).is_ok_and(|c| c.uid.as_raw() == uid())
    }

    /// Asks the watcher of the vault at `root` (waiting at most `wait` in all) to vouch for the
    /// indices: the digest of their files once they reflect every change made before this call.
    pub fn ask(root: &Path, wait: Duration) -> Result<u64, Refused> {
        let deadline = Instant::now() + wait;
        let key = vault_key(root).ok_or(Refused::NoVault)?;
        let dir = runtime_dir(false).ok_or(Refused::NoRuntimeDir)?;
        ask_at(&dir.join(socket_name(&key)), &key, deadline)
    }

    /// [`ask`] the socket at `path`.
    pub(super) fn ask_at(path: &Path, key: &VaultKey, deadline: Instant) -> Result<u64, Refused> {
        let md = std::fs::symlink_metadata(path).map_err(|_| Refused::NoSocket)?;
        if !md.file_type().is_socket() {
            return Err(Refused::NoSocket);
        }
        if md.uid() != uid() {
            return Err(Refused::OtherUser);
        }
        let mut stream = UnixStream::connect(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::NotFound => {
                Refused::NoListener
            }
            k => Refused::Io(k),
        })?;
        if !peer_is_us(&stream) {
            return Err(Refused::OtherUser);
        }
        let mut line = serde_json::to_vec(&Request { memlane_fresh: VERSION, vault: key.clone() })
            .map_err(|_| Refused::Garbage)?;
        line.push(b'\n');
        let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
        stream.set_write_timeout(Some(left)).map_err(|e| Refused::Io(e.kind()))?;
        stream.write_all(&line).map_err(|e| Refused::Io(e.kind()))?;
        let answer = read_line(&mut stream, deadline)?;
        judge(&answer, key)
    }

    /// A watcher's freshness socket: answers commands' requests until dropped (the socket file
    /// is then removed). A watcher killed leaves the file behind; commands find nobody
    /// listening, and the next watcher replaces it.
    pub struct Service {
        path: PathBuf,
        ino: u64,
        stop: Arc<AtomicBool>,
        thread: Option<JoinHandle<()>>,
    }

    impl std::fmt::Debug for Service {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("Service").field("path", &self.path).finish_non_exhaustive()
        }
    }

    impl Service {
        /// Listens for the vault at `root`. For each request, `catch_up` must bring the indices
        /// on disk up to date with every change made before it was called and return the digest
        /// of their files ([`crate::index::store::Indexes::disk_digest`]), or `None` when it
        /// cannot. `None` (logged) when there is no private runtime folder or another live
        /// watcher already serves the vault.
        pub fn start(
            root: &Path,
            catch_up: Box<dyn FnMut() -> Option<u64> + Send>,
        ) -> Option<Service> {
            let key = vault_key(root)?;
            let dir = runtime_dir(true)?;
            let path = dir.join(socket_name(&key));
            let listener = match UnixListener::bind(&path) {
                Ok(l) => l,
                Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
                    if UnixStream::connect(&path).is_ok() {
                        tracing::debug!(path = %path.display(), "another watcher serves this vault");
                        return None;
                    }
                    // Left by a watcher that died: replaced.
                    let stale = std::fs::symlink_metadata(&path)
                        .is_ok_and(|m| m.file_type().is_socket() && m.uid() == uid());
                    if !stale || std::fs::remove_file(&path).is_err() {
                        return None;
                    }
                    UnixListener::bind(&path).ok()?
                }
                Err(e) => {
                    tracing::debug!(error = %e, path = %path.display(), "cannot listen");
                    return None;
                }
            };
            let ino = std::fs::symlink_metadata(&path).ok()?.ino();
            let stop = Arc::new(AtomicBool::new(false));
            let thread = {
                let stop = stop.clone();
                std::thread::Builder::new()
                    .name("memlane-fresh".to_owned())
                    .spawn(move || serve(listener, key, catch_up, &stop))
                    .ok()?
            };
            tracing::debug!(path = %path.display(), "answering freshness requests");
            Some(Service { path, ino, stop, thread: Some(thread) })
        }
    }

    impl Drop for Service {
        fn drop(&mut self) {
            self.stop.store(true, Ordering::SeqCst);
            // Wakes the accept.
            let _ = UnixStream::connect(&self.path);
            if let Some(t) = self.thread.take() {
                let _ = t.join();
            }
            // Only our own socket: another watcher may have replaced it.
            if std::fs::symlink_metadata(&self.path).is_ok_and(|m| m.ino() == self.ino) {
                let _ = std::fs::remove_file(&self.path);
            }
        }
    }

    fn serve(
        listener: UnixListener,
        key: VaultKey,
        mut catch_up: Box<dyn FnMut() -> Option<u64> + Send>,
        stop: &AtomicBool,
    ) {
        for stream in listener.incoming() {
            if stop.load(Ordering::SeqCst) {
                return;
            }
            let Ok(mut stream) = stream else { continue };
            if !peer_is_us(&stream) {
                tracing::debug!("freshness request from another user, ignored");
                continue;
            }
            let Ok(line) = read_line(&mut stream, Instant::now() + REQUEST_WAIT) else { continue };
            let Ok(req) = serde_json::from_slice::<Request>(&line) else { continue };
            if req.memlane_fresh != VERSION || req.vault != key {
                continue;
            }
            if crate::failpoint::step("fresh.request").is_err() {
                continue;
            }
            let t0 = Instant::now();
            let stamp = catch_up();
            if crate::failpoint::step("fresh.caught_up").is_err() {
                continue;
            }
            let answer = Answer { memlane_fresh: VERSION, vault: key.clone(), stamp };
            let Ok(mut out) = serde_json::to_vec(&answer) else { continue };
            out.push(b'\n');
            let _ = stream.set_write_timeout(Some(REQUEST_WAIT));
            let sent = stream.write_all(&out);
            tracing::debug!(
                ms = t0.elapsed().as_secs_f64() * 1e3,
                vouched = stamp.is_some(),
                sent = sent.is_ok(),
                "freshness request"
            );
            let _ = crate::failpoint::step("fresh.answered");
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::io::{Read, Write};
    use std::os::unix::net::UnixListener;
    use std::time::Instant;

    use super::*;

    fn key() -> VaultKey {
        VaultKey { root: "/v/.memories".to_owned(), dev: 1, ino: 2 }
    }

    #[test]
    fn only_a_well_formed_answer_about_this_vault_with_a_stamp_is_trusted() {
        let k = key();
        let ok = serde_json::to_vec(&Answer {
            memlane_fresh: VERSION,
            vault: k.clone(),
            stamp: Some(7),
        })
        .unwrap();
        assert_eq!(judge(&ok, &k), Ok(7));
        let none =
            serde_json::to_vec(&Answer { memlane_fresh: VERSION, vault: k.clone(), stamp: None })
                .unwrap();
        assert_eq!(judge(&none, &k), Err(Refused::NotVouched));
        let other = VaultKey { ino: 3, ..k.clone() };
        let wrong =
            serde_json::to_vec(&Answer { memlane_fresh: VERSION, vault: other, stamp: Some(7) })
                .unwrap();
        assert_eq!(judge(&wrong, &k), Err(Refused::OtherVault));
        let future = serde_json::to_vec(&Answer {
            memlane_fresh: VERSION + 1,
            vault: k.clone(),
            stamp: Some(7),
        })
        .unwrap();
        assert_eq!(judge(&future, &k), Err(Refused::Garbage));
        assert_eq!(judge(b"garbage", &k), Err(Refused::Garbage));
        assert_eq!(judge(b"{\"stamp\":7}", &k), Err(Refused::Garbage));
        assert_eq!(judge(b"", &k), Err(Refused::Garbage));
    }

    fn soon() -> Instant {
        Instant::now() + Duration::from_millis(100)
    }

    #[test]
    fn no_socket_a_stale_socket_and_a_plain_file_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("x.sock");
        assert_eq!(imp::ask_at(&path, &key(), soon()), Err(Refused::NoSocket));
        std::fs::write(&path, "not a socket").unwrap();
        assert_eq!(imp::ask_at(&path, &key(), soon()), Err(Refused::NoSocket));
        std::fs::remove_file(&path).unwrap();
        // A socket whose listener is gone (a watcher killed with kill -9).
        drop(UnixListener::bind(&path).unwrap());
        assert_eq!(imp::ask_at(&path, &key(), soon()), Err(Refused::NoListener));
    }

    /// A socket file of another user's is never asked, however well its listener answers.
    /// Tests run as root in CI, which may hand a file to another user; elsewhere the check is
    /// skipped with a message.
    #[test]
    #[allow(clippy::print_stderr)]
    fn another_users_socket_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("theirs.sock");
        let listener = UnixListener::bind(&path).unwrap();
        let mine = std::os::unix::fs::MetadataExt::uid(&std::fs::symlink_metadata(&path).unwrap());
        if std::os::unix::fs::lchown(&path, Some(mine + 4242), None).is_err() {
            eprintln!("skipped: this user cannot give a file to another user (not root)");
            return;
        }
        listener.set_nonblocking(true).unwrap();
        assert_eq!(imp::ask_at(&path, &key(), soon()), Err(Refused::OtherUser));
        assert!(listener.accept().is_err(), "the socket was connected to");
    }

    #[test]
    fn a_silent_or_garbling_listener_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        // Accepts and never answers.
        let path = tmp.path().join("silent.sock");
        let _silent = UnixListener::bind(&path).unwrap();
        assert_eq!(imp::ask_at(&path, &key(), soon()), Err(Refused::Timeout));
        // Answers garbage, half an answer, or hangs up.
        for (i, answer) in [&b"nonsense\n"[..], b"{\"memlane_fresh\":1}\n", b""].iter().enumerate()
        {
            let path = tmp.path().join(format!("g{i}.sock"));
            let listener = UnixListener::bind(&path).unwrap();
            let answer = answer.to_vec();
            let t = std::thread::spawn(move || {
                let (mut s, _) = listener.accept().unwrap();
                let mut buf = [0u8; 512];
                let _ = s.read(&mut buf);
                let _ = s.write_all(&answer);
            });
            assert_eq!(imp::ask_at(&path, &key(), soon()), Err(Refused::Garbage), "{i}");
            t.join().unwrap();
        }
    }

    #[test]
    fn a_well_formed_answer_is_trusted() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s.sock");
        let listener = UnixListener::bind(&path).unwrap();
        let k = key();
        let k2 = k.clone();
        let t = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = vec![0u8; 4096];
            let n = s.read(&mut buf).unwrap();
            let req: Request = serde_json::from_slice(buf[..n].trim_ascii_end()).unwrap();
            assert_eq!(req.vault, k2);
            let mut out =
                serde_json::to_vec(&Answer { memlane_fresh: VERSION, vault: k2, stamp: Some(42) })
                    .unwrap();
            out.push(b'\n');
            s.write_all(&out).unwrap();
        });
        assert_eq!(imp::ask_at(&path, &k, soon()), Ok(42));
        t.join().unwrap();
    }
}
