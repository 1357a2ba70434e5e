//! Freshness on a live watcher's word: with `memlane watch` or `memlane mcp` running, a fresh
//! `memlane search` asks it instead of stat-ing every memory file. Whatever happens to the
//! watcher (alive, killed with `kill -9` before it answers, while it reconciles, right after it
//! answered, between an edit and the command) and whatever listens on its socket (nobody, a
//! listener that never answers, garbage, a lie), the command answers from indices that hold
//! every edit made before it started.
//!
//! Whether a command trusted the watcher is read from its debug log (`MEMLANE_LOG`): a test that
//! expects the watcher's word also proves the path that skips the stat ran. Nothing here asserts
//! a duration (the figures are `benches/cli/fresh_watch.py`).

use std::io::{BufRead as _, Read as _, Write as _};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use crate::common::{TestEnv, set_mtime};
use crate::mcp::Client;

const TIMEOUT: Duration = Duration::from_secs(30);

/// A generous wait for the watcher's answer, so a loaded machine never makes a live watcher
/// look absent; the fallbacks below end long before it.
const LONG_WAIT: (&str, &str) = ("MEMLANE_WATCH__ASK_WAIT_MS", "5000");

/// The debug log's words when a command skipped the stat on the watcher's word.
const TRUSTED: &str = "the watcher vouched for the indices";
/// ... and when the indices it opened were not the ones vouched for.
const MISMATCH: &str = "the indices changed since the watcher vouched";

/// A distinct made-up word per number, one token to the analyzer.
fn word(i: usize) -> String {
    let l = b"bdfgklmnprstvz";
    format!("fre{}{}{}ix", l[i / 196 % 14] as char, l[i / 14 % 14] as char, l[i % 14] as char)
}

/// What one `memlane search` found, and whether it trusted a watcher.
#[derive(Debug)]
struct Found {
    top: Option<String>,
    trusted: bool,
    log: String,
}

fn search(env: &TestEnv, q: &str, vars: &[(&str, &str)]) -> Found {
    let mut all = vec![("MEMLANE_LOG", "memlane=debug")];
    all.extend_from_slice(vars);
    let out = env.run_with_env(&all, ["search", q, "--json", "-n", "1", "--no-touch"]).success();
    let top = out.json()["results"]
        .as_array()
        .unwrap()
        .first()
        .map(|h| h["name"].as_str().unwrap().to_owned());
    let trusted = out.stderr.contains(TRUSTED) && !out.stderr.contains(MISMATCH);
    Found { top, trusted, log: out.stderr }
}

/// Writes `notes/fresh.md` holding `word(i)` (a new memory the first time, an edit in place
/// after).
fn edit(env: &TestEnv, i: usize) {
    env.write("notes/fresh.md", &format!("# Fresh\n\nThe code word is {}.\n", word(i)));
}

/// `edit(env, i)` as `rsync -t` makes it: the new text is written beside the file, given the
/// old file's mtime and renamed over it. The size is the same too (every `word` is as long), so
/// no stat tells the edit: only the content, and the watcher's event on the path.
fn edit_keeping_size_and_mtime(env: &TestEnv, i: usize) {
    let path = env.vault().join("notes/fresh.md");
    let before = std::fs::metadata(&path).unwrap();
    let temp = env.vault().join("notes/.fresh.md.tmp");
    let text = format!("# Fresh\n\nThe code word is {}.\n", word(i));
    assert_eq!(text.len() as u64, before.len());
    std::fs::write(&temp, text).unwrap();
    set_mtime(&temp, before.modified().unwrap());
    std::fs::rename(&temp, &path).unwrap();
}

/// After `edit(env, i)`: the search finds the new word and not the one before.
#[track_caller]
fn assert_current(env: &TestEnv, i: usize, vars: &[(&str, &str)]) -> Found {
    let found = search(env, &word(i), vars);
    assert_eq!(found.top.as_deref(), Some("notes/fresh"), "{}\n{}", word(i), found.log);
    if i > 0 {
        let old = search(env, &word(i - 1), vars);
        assert_eq!(old.top, None, "{} is gone from the file\n{}", word(i - 1), old.log);
    }
    found
}

/// The freshness sockets in the test's private runtime folder (`$TMPDIR/memlane-<uid>/`).
fn sockets(env: &TestEnv) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in std::fs::read_dir(env.root.join("home/tmp")).unwrap().flatten() {
        if dir.file_name().to_string_lossy().starts_with("memlane-") {
            for f in std::fs::read_dir(dir.path()).unwrap().flatten() {
                if f.file_name().to_string_lossy().ends_with(".sock") {
                    out.push(f.path());
                }
            }
        }
    }
    out
}

#[track_caller]
fn wait_for_socket(env: &TestEnv) -> PathBuf {
    let start = Instant::now();
    loop {
        if let [one] = sockets(env).as_slice() {
            return one.clone();
        }
        assert!(start.elapsed() < TIMEOUT, "no freshness socket: {:?}", sockets(env));
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A spawned `memlane watch --json`, its stdout lines on a channel.
struct Watch {
    child: Child,
    lines: Receiver<String>,
}

impl Watch {
    /// Starts it (with `vars`) and waits for its start pass and its socket.
    fn start(env: &TestEnv, vars: &[(&str, &str)]) -> Watch {
        let mut child = env
            .command()
            .envs(vars.iter().copied())
            .args(["watch", "--json"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let w = Watch { child, lines };
        loop {
            let line = w.lines.recv_timeout(TIMEOUT).expect("the watcher's start pass");
            if line.contains("\"trigger\":\"start\"") {
                break;
            }
        }
        wait_for_live_socket(env);
        w
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits until `child` has ended; whether it was stopped by a signal (an abort).
#[track_caller]
fn wait_dead(child: &mut Child) -> bool {
    use std::os::unix::process::ExitStatusExt as _;
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.signal().is_some();
        }
        assert!(start.elapsed() < TIMEOUT, "the watcher did not stop");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The indices exist before any watcher starts, so its start pass writes nothing.
fn indexed_env() -> TestEnv {
    let env = TestEnv::with_vault("search");
    env.run(["search", "anything"]).success();
    env
}

#[test]
fn a_command_trusts_a_live_watch_and_still_sees_every_edit() {
    let env = indexed_env();
    // No watcher: the full check.
    assert!(!search(&env, "anything", &[LONG_WAIT]).trusted);
    let _watch = Watch::start(&env, &[]);
    let found = search(&env, "anything", &[LONG_WAIT]);
    assert!(found.trusted, "a live watcher was not asked:\n{}", found.log);
    // Edits made right before the command: the watcher catches up before it answers.
    for i in 0..3 {
        edit(&env, i);
        let found = assert_current(&env, i, &[LONG_WAIT]);
        assert!(found.trusted, "{}", found.log);
    }
    // An edit that gave the file back its size and mtime.
    edit_keeping_size_and_mtime(&env, 3);
    let found = assert_current(&env, 3, &[LONG_WAIT]);
    assert!(found.trusted, "{}", found.log);
    // A deletion too.
    std::fs::remove_file(env.vault().join("notes/fresh.md")).unwrap();
    let found = search(&env, &word(3), &[LONG_WAIT]);
    assert_eq!(found.top, None, "{}", found.log);
    // Asking is off with a wait of 0.
    let off = search(&env, "anything", &[("MEMLANE_WATCH__ASK_WAIT_MS", "0")]);
    assert!(!off.trusted && !off.log.contains("checking the files myself"), "{}", off.log);
}

#[test]
fn a_command_trusts_a_live_mcp_server_and_still_sees_every_edit() {
    let env = indexed_env();
    let mut client = Client::start(&env);
    client.initialize();
    wait_for_socket(&env);
    // The server finishes starting in the background (its first check of the files, its
    // watcher's registration); a command meanwhile may find the indices newer than what the
    // server vouched for and check the files itself, which is right. It is trusted soon after.
    let start = Instant::now();
    loop {
        let found = search(&env, "anything", &[LONG_WAIT]);
        if found.trusted {
            break;
        }
        assert!(start.elapsed() < TIMEOUT, "a live server was not asked:\n{}", found.log);
        std::thread::sleep(Duration::from_millis(100));
    }
    for i in 0..3 {
        edit(&env, i);
        let found = assert_current(&env, i, &[LONG_WAIT]);
        assert!(found.trusted, "{}", found.log);
    }
    // The server's own answers are as fresh.
    let r = client.ok("search_memories", serde_json::json!({"query": word(2), "limit": 1}));
    assert_eq!(r["results"][0]["name"], "notes/fresh", "{r}");
    // An edit that gave the file back its size and mtime, asked of a command and of the server.
    edit_keeping_size_and_mtime(&env, 3);
    let found = assert_current(&env, 3, &[LONG_WAIT]);
    assert!(found.trusted, "{}", found.log);
    let r = client.ok("search_memories", serde_json::json!({"query": word(3), "limit": 1}));
    assert_eq!(r["results"][0]["name"], "notes/fresh", "{r}");
}

/// A live watcher of either kind, as a child process.
enum Watcher {
    Watch(Watch),
    Mcp(Client),
}

impl Watcher {
    /// Starts `memlane watch` (`mcp` false) or `memlane mcp`, with `MEMLANE_FAILPOINT` set to
    /// `failpoint` when given, and waits until it listens on the vault's socket.
    fn start(env: &TestEnv, mcp: bool, failpoint: Option<&str>) -> Watcher {
        let vars: Vec<(&str, &str)> =
            failpoint.map(|f| ("MEMLANE_FAILPOINT", f)).into_iter().collect();
        let w = if mcp {
            let mut client = Client::start_with(env, &vars);
            client.initialize();
            Watcher::Mcp(client)
        } else {
            Watcher::Watch(Watch::start(env, &vars))
        };
        wait_for_live_socket(env);
        w
    }

    fn child(&mut self) -> &mut Child {
        match self {
            Watcher::Watch(w) => &mut w.child,
            Watcher::Mcp(c) => &mut c.child,
        }
    }
}

/// Kills the watcher (a failpoint aborts the process, as `kill -9` would) at `point`, while a
/// command waits for its answer, and checks that command and the ones after it.
fn killed_at(point: &str, mcp: bool) {
    let env = indexed_env();
    let mut watcher = Watcher::start(&env, mcp, Some(point));
    edit(&env, 0);
    assert_current(&env, 0, &[LONG_WAIT]);
    assert!(wait_dead(watcher.child()), "the watcher did not stop at {point}");
    // Dead: its socket file is left, nobody listens.
    assert_eq!(sockets(&env).len(), 1, "{point}");
    edit(&env, 1);
    let found = assert_current(&env, 1, &[LONG_WAIT]);
    assert!(!found.trusted, "{point}: a dead watcher was trusted:\n{}", found.log);
    // A new watcher replaces the stale socket and is trusted again.
    let _again = Watcher::start(&env, mcp, None);
    edit(&env, 2);
    let found = assert_current(&env, 2, &[LONG_WAIT]);
    assert!(found.trusted, "{point}: the restarted watcher was not asked:\n{}", found.log);
    std::fs::remove_file(env.vault().join("notes/fresh.md")).unwrap();
    assert_eq!(search(&env, &word(2), &[LONG_WAIT]).top, None, "{point}");
}

/// The failpoints where a watcher dies: before it answers (request read), while it reconciles
/// (half way through an index write), once it caught up but before it answered, right after it
/// answered.
const POINTS: &[&str] = &["fresh.request", "index.commit", "fresh.caught_up", "fresh.answered"];

#[test]
fn a_watch_killed_at_any_point_never_leaves_a_command_stale() {
    for point in POINTS {
        killed_at(point, false);
    }
}

#[test]
fn an_mcp_server_killed_at_any_point_never_leaves_a_command_stale() {
    for point in POINTS {
        killed_at(point, true);
    }
}

/// Waits until a live listener is on the vault's socket (a new watcher replaces a stale one).
#[track_caller]
fn wait_for_live_socket(env: &TestEnv) {
    let start = Instant::now();
    loop {
        if let [one] = sockets(env).as_slice()
            && std::os::unix::net::UnixStream::connect(one).is_ok()
        {
            return;
        }
        assert!(start.elapsed() < TIMEOUT, "no live freshness socket: {:?}", sockets(env));
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_watch_killed_between_an_edit_and_the_command_is_not_trusted() {
    let env = indexed_env();
    let mut watch = Watch::start(&env, &[]);
    edit(&env, 0);
    watch.child.kill().unwrap();
    watch.child.wait().unwrap();
    let found = assert_current(&env, 0, &[LONG_WAIT]);
    assert!(!found.trusted, "{}", found.log);
}

/// What a planted listener answers to a request (`None`: nothing, ever).
type Answerer = fn(&[u8]) -> Option<Vec<u8>>;

/// Serves `answer(request)` to every command that connects to `path`, forever.
fn fake_listener(path: &Path, answer: Answerer) {
    let listener = UnixListener::bind(path).unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut req = Vec::new();
            let mut buf = [0u8; 1024];
            while !req.contains(&b'\n') {
                match s.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => req.extend_from_slice(&buf[..n]),
                }
            }
            match answer(&req) {
                Some(bytes) => {
                    let _ = s.write_all(&bytes);
                }
                // Never answers: the connection stays open.
                None => std::mem::forget(s),
            }
        }
    });
}

/// Nothing in the watcher's word depends on a clock: edits whose files carry times from a
/// clock that jumped (a day back, then a year ahead), asked at a "now" that jumped too, are each
/// found on the watcher's word.
#[test]
fn a_clock_jump_neither_hides_an_edit_nor_stops_the_watcher_vouching() {
    let env = indexed_env();
    let _watch = Watch::start(&env, &[]);
    let path = env.vault().join("notes/fresh.md");
    let day = Duration::from_secs(86_400);
    let now = std::time::SystemTime::now();
    let jumps = [(now - day, "2001-01-01T00:00:00Z"), (now + 365 * day, "2030-06-01T00:00:00Z")];
    for (i, (mtime, asked_at)) in jumps.into_iter().enumerate() {
        edit(&env, i);
        set_mtime(&path, mtime);
        let found = assert_current(&env, i, &[LONG_WAIT, ("MEMLANE_NOW", asked_at)]);
        assert!(found.trusted, "{}", found.log);
    }
}

#[test]
fn a_stale_or_planted_socket_falls_back_to_the_full_check() {
    let env = indexed_env();
    let path = {
        let mut watch = Watch::start(&env, &[]);
        let path = wait_for_socket(&env);
        watch.child.kill().unwrap();
        watch.child.wait().unwrap();
        path
    };
    // A socket file nobody listens on.
    edit(&env, 0);
    let found = assert_current(&env, 0, &[LONG_WAIT]);
    assert!(!found.trusted && found.log.contains("nobody listening"), "{}", found.log);
    // Listeners planted in its place: silent, garbling, lying about the indices.
    let short = ("MEMLANE_WATCH__ASK_WAIT_MS", "300");
    let fakes: [(&str, Answerer); 4] = [
        ("no answer in time", |_| None),
        ("does not parse", |_| Some(b"garbage\n".to_vec())),
        ("does not parse", |_| Some(b"{\"memlane_fresh\":1,\"stamp\":1}\n".to_vec())),
        // Speaks the protocol, names the right vault, vouches for indices that are not there.
        ("", |req| {
            let req: serde_json::Value = serde_json::from_slice(req.trim_ascii_end()).ok()?;
            let answer = serde_json::json!({"memlane_fresh": 1, "vault": req["vault"], "stamp": 1});
            Some(format!("{answer}\n").into_bytes())
        }),
    ];
    for (i, (why, answer)) in fakes.into_iter().enumerate() {
        std::fs::remove_file(&path).unwrap();
        fake_listener(&path, answer);
        edit(&env, i + 1);
        let found = assert_current(&env, i + 1, &[short]);
        assert!(!found.trusted && found.log.contains(why), "{i}: {}", found.log);
        if why.is_empty() {
            assert!(found.log.contains(MISMATCH), "{}", found.log);
        }
    }
}

#[test]
fn an_unhealthy_watcher_is_not_trusted() {
    let env = indexed_env();
    // Every change event is taken as lost, as when the OS watcher's queue overflows.
    let _watch = Watch::start(&env, &[("MEMLANE_FAILPOINT", "watch.event=eio")]);
    let found = search(&env, "anything", &[LONG_WAIT]);
    assert!(found.trusted, "healthy until an event is lost:\n{}", found.log);
    for i in 0..2 {
        edit(&env, i);
        let found = assert_current(&env, i, &[LONG_WAIT]);
        assert!(!found.trusted && found.log.contains("cannot vouch"), "{}", found.log);
    }
}

/// Writes the new memory `notes/<name>.md`, holding `word(i)`.
fn write_memory(env: &TestEnv, name: &str, i: usize) {
    env.write(&format!("notes/{name}.md"), &format!("# {name}\n\nIts code word is {}.\n", word(i)));
}

/// The server's best match for `word(i)`.
fn server_top(client: &mut Client, i: usize) -> Option<String> {
    let r = client.ok("search_memories", serde_json::json!({"query": word(i), "limit": 1}));
    r["results"].as_array().unwrap().first().map(|h| h["name"].as_str().unwrap().to_owned())
}

/// `MEMLANE_FAILPOINT` for a server held once its watcher is registered, before it uses it,
/// until the file `gate` exists.
fn held_until(gate: &Path) -> String {
    format!("mcp.watch.registered@{}", gate.display())
}

#[test]
fn memories_written_while_the_server_starts_are_found_by_every_search() {
    let env = indexed_env();
    let mut client = Client::start(&env);
    // Between the spawn and the first call, and right after the handshake: the server's
    // watcher starts in the background meanwhile.
    write_memory(&env, "before-handshake", 10);
    client.initialize();
    write_memory(&env, "after-handshake", 11);
    assert_eq!(server_top(&mut client, 10).as_deref(), Some("notes/before-handshake"));
    assert_eq!(server_top(&mut client, 11).as_deref(), Some("notes/after-handshake"));
    // Once the watcher is ready, the later searches see them too, and what comes next.
    wait_for_live_socket(&env);
    assert_eq!(server_top(&mut client, 10).as_deref(), Some("notes/before-handshake"));
    assert_eq!(server_top(&mut client, 11).as_deref(), Some("notes/after-handshake"));
    write_memory(&env, "after-start", 12);
    assert_eq!(server_top(&mut client, 12).as_deref(), Some("notes/after-start"));
    let found = search(&env, &word(11), &[LONG_WAIT]);
    assert_eq!(found.top.as_deref(), Some("notes/after-handshake"), "{}", found.log);
    // (The server's watcher may write the indices between its word and the command's read:
    // then the command checks the files itself.)
    assert!(found.log.contains(TRUSTED), "the ready server did not vouch:\n{}", found.log);
}

#[test]
fn a_memory_written_while_the_watcher_registers_is_found_once_the_server_uses_it() {
    let env = indexed_env();
    let gate = env.root.join("watch-go");
    let mut client = Client::start_with(&env, &[("MEMLANE_FAILPOINT", &held_until(&gate))]);
    client.initialize();
    // The watcher counts changes, the server does not use it yet: every call checks the files.
    write_memory(&env, "while-held", 10);
    assert_eq!(server_top(&mut client, 10).as_deref(), Some("notes/while-held"));
    // Written after that check, before the server takes the watcher's counter.
    write_memory(&env, "before-handover", 11);
    edit(&env, 0);
    assert!(sockets(&env).is_empty(), "a watcher not in use offers to vouch");
    std::fs::write(&gate, "").unwrap();
    wait_for_live_socket(&env);
    // The first call under the counter still sees every change since the last full check.
    assert_eq!(server_top(&mut client, 11).as_deref(), Some("notes/before-handover"));
    assert_eq!(server_top(&mut client, 0).as_deref(), Some("notes/fresh"));
    assert_eq!(server_top(&mut client, 10).as_deref(), Some("notes/while-held"));
    // And the counter the changes after it.
    edit(&env, 1);
    assert_eq!(server_top(&mut client, 1).as_deref(), Some("notes/fresh"));
    assert_eq!(server_top(&mut client, 0), None, "{} is gone from the file", word(0));
    std::fs::remove_file(env.vault().join("notes/while-held.md")).unwrap();
    assert_eq!(server_top(&mut client, 10), None, "a deleted memory is still found");
}

#[test]
fn a_command_asking_a_server_whose_watcher_is_not_ready_checks_the_files_itself() {
    let env = indexed_env();
    let gate = env.root.join("watch-go");
    let mut client = Client::start_with(&env, &[("MEMLANE_FAILPOINT", &held_until(&gate))]);
    client.initialize();
    assert_eq!(server_top(&mut client, 0), None);
    for i in 0..2 {
        edit(&env, i);
        let found = assert_current(&env, i, &[LONG_WAIT]);
        assert!(
            !found.trusted && found.log.contains("checking the files myself"),
            "a server whose watcher is not ready vouched:\n{}",
            found.log
        );
        assert_eq!(server_top(&mut client, i).as_deref(), Some("notes/fresh"));
    }
    // Ready: the command trusts it, and still sees the edits.
    std::fs::write(&gate, "").unwrap();
    wait_for_live_socket(&env);
    edit(&env, 2);
    let found = assert_current(&env, 2, &[LONG_WAIT]);
    assert!(found.log.contains(TRUSTED), "the ready server did not vouch:\n{}", found.log);
    assert_eq!(server_top(&mut client, 2).as_deref(), Some("notes/fresh"));
}
