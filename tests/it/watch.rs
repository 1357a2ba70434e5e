//! `memlane watch` on a real filesystem: a spawned `memlane watch --json` follows
//! editor saves, renames, deletes, new folders and a 1,000-file burst, indexing each file once
//! per burst; a restart reconciles by content hash. Waits poll with a generous timeout; nothing
//! here asserts a duration (the latency figure is `cargo bench --bench watch`).

use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead as _;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::TestEnv;

const TIMEOUT: Duration = Duration::from_secs(20);

/// A running `memlane watch --json` whose stdout lines are collected as they come.
struct Watch {
    child: Child,
    lines: Arc<Mutex<Vec<Value>>>,
}

/// `memlane watch --json` with its stdout piped.
fn watch_command(env: &TestEnv) -> std::process::Command {
    let mut cmd = env.command();
    cmd.args(["watch", "--json"]).stdin(Stdio::null()).stdout(Stdio::piped());
    cmd
}

impl Watch {
    fn start(env: &TestEnv) -> Watch {
        let mut child = watch_command(env).stderr(Stdio::inherit()).spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = lines.clone();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let v: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}"));
                sink.lock().unwrap().push(v);
            }
        });
        let w = Watch { child, lines };
        w.wait_for("the start pass", |ls| ls.iter().any(|l| l["trigger"] == "start"));
        w
    }

    fn lines(&self) -> Vec<Value> {
        self.lines.lock().unwrap().clone()
    }

    /// Polls until `done` holds for the lines so far (panics with them after `TIMEOUT`).
    #[track_caller]
    fn wait_for(&self, what: &str, done: impl Fn(&[Value]) -> bool) {
        let start = Instant::now();
        loop {
            if done(&self.lines()) {
                return;
            }
            assert!(
                start.elapsed() < TIMEOUT,
                "timed out waiting for {what}; watch printed:\n{:#?}",
                self.lines()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits until no new line has come for a while (so late duplicates would show).
    fn settle(&self) {
        let mut seen = self.lines().len();
        let mut quiet_since = Instant::now();
        let start = Instant::now();
        while quiet_since.elapsed() < Duration::from_millis(1500) && start.elapsed() < TIMEOUT {
            std::thread::sleep(Duration::from_millis(50));
            let n = self.lines().len();
            if n != seen {
                seen = n;
                quiet_since = Instant::now();
            }
        }
    }

    /// How often each name was indexed, over the lines from `from` on.
    fn indexed_counts(&self, from: usize) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for l in &self.lines()[from..] {
            for n in l["indexed"].as_array().into_iter().flatten() {
                *counts.entry(n.as_str().unwrap().to_owned()).or_default() += 1;
            }
        }
        counts
    }

    fn removed(&self, from: usize) -> BTreeSet<String> {
        self.lines()[from..]
            .iter()
            .flat_map(|l| l["removed"].as_array().cloned().unwrap_or_default())
            .map(|n| n.as_str().unwrap().to_owned())
            .collect()
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn top(env: &TestEnv, q: &str) -> Option<String> {
    let out = env.run(["search", q, "--json", "-n", "1", "--no-touch"]).success().json()["results"]
        .clone();
    out.as_array().unwrap().first().map(|h| h["name"].as_str().unwrap().to_owned())
}

/// The watcher left nothing to do: a command's own reconcile finds the indices exact (the
/// command does not ask the watcher, which would vouch instead of letting it check).
#[track_caller]
fn assert_index_current(env: &TestEnv) {
    let out = env
        .run_with_env(
            &[("MEMLANE_WATCH__ASK_WAIT_MS", "0")],
            ["-v", "search", "anything", "--no-touch"],
        )
        .success();
    assert!(!out.stderr.contains("indices updated"), "the index was behind the files:\n{out}");
}

/// A distinct made-up word per number, one token to the analyzer.
fn word(i: usize) -> String {
    let l = b"bdfgklmnprstvz";
    format!("qua{}{}{}o", l[i / 196 % 14] as char, l[i / 14 % 14] as char, l[i % 14] as char)
}

#[test]
fn editor_saves_renames_deletes_and_new_folders_end_in_a_correct_index() {
    let env = TestEnv::with_vault("search");
    let w = Watch::start(&env);
    assert!(w.lines()[0]["indexed"].as_array().unwrap().len() > 5, "{:#?}", w.lines());

    // An editor's atomic save: a temp file beside the memory, renamed over it.
    let from = w.lines().len();
    let tmp = env.vault().join("ops/.deploy.md.swp");
    std::fs::create_dir_all(tmp.parent().unwrap()).unwrap();
    std::fs::write(&tmp, "# Deploy\n\nWe deploy with the quokkaship pipeline.\n").unwrap();
    std::fs::rename(&tmp, env.vault().join("ops/deploy.md")).unwrap();
    w.wait_for("the saved file", |_| w.indexed_counts(from).contains_key("ops/deploy"));
    w.settle();
    assert_eq!(w.indexed_counts(from), BTreeMap::from([("ops/deploy".to_owned(), 1)]));
    assert_index_current(&env);
    assert_eq!(top(&env, "quokkaship").as_deref(), Some("ops/deploy"));

    // A plain rename.
    let from = w.lines().len();
    std::fs::rename(env.vault().join("ops/deploy.md"), env.vault().join("ops/shipping.md"))
        .unwrap();
    w.wait_for("the rename", |_| {
        w.indexed_counts(from).contains_key("ops/shipping")
            && w.removed(from).contains("ops/deploy")
    });
    assert_index_current(&env);
    assert_eq!(top(&env, "quokkaship").as_deref(), Some("ops/shipping"));

    // A delete.
    let from = w.lines().len();
    std::fs::remove_file(env.vault().join("ops/shipping.md")).unwrap();
    w.wait_for("the delete", |_| w.removed(from).contains("ops/shipping"));
    assert_index_current(&env);
    assert_eq!(top(&env, "quokkaship"), None);

    // A new folder made in place, and a folder of memories moved in from outside the vault.
    let from = w.lines().len();
    env.write("team/alice.md", "# Alice\n\nAlice owns the quillfeather service.\n");
    env.write("team/bob.md", "# Bob\n\nBob reviews quillfeather changes.\n");
    let outside = env.root.join("incoming/archive");
    std::fs::create_dir_all(outside.join("deep")).unwrap();
    std::fs::write(outside.join("old.md"), "# Old\n\nThe snorkelwhale project ended.\n").unwrap();
    std::fs::write(outside.join("deep/older.md"), "# Older\n\nsnorkelwhale v0 notes.\n").unwrap();
    std::fs::rename(&outside, env.vault().join("archive")).unwrap();
    let expected = ["archive/deep/older", "archive/old", "team/alice", "team/bob"];
    w.wait_for("the new folders", |_| {
        let c = w.indexed_counts(from);
        expected.iter().all(|n| c.contains_key(*n))
    });
    w.settle();
    let counts = w.indexed_counts(from);
    assert_eq!(counts.keys().map(String::as_str).collect::<Vec<_>>(), expected);
    assert!(counts.values().all(|&c| c == 1), "indexed more than once: {counts:?}");
    assert_index_current(&env);
    assert_eq!(top(&env, "snorkelwhale project ended").as_deref(), Some("archive/old"));

    // The folder moved out again: all of its memories go.
    let from = w.lines().len();
    std::fs::rename(env.vault().join("archive"), env.root.join("incoming/archive")).unwrap();
    w.wait_for("the folder moved away", |_| {
        let r = w.removed(from);
        r.contains("archive/old") && r.contains("archive/deep/older")
    });
    assert_index_current(&env);
    assert_eq!(top(&env, "snorkelwhale"), None);
}

#[test]
fn a_burst_of_1000_files_indexes_each_file_once() {
    let env = TestEnv::with_vault("basic");
    let w = Watch::start(&env);
    let from = w.lines().len();
    // Like a `git checkout`: files written straight into place, as fast as possible.
    for i in 0..1000 {
        let p = env.vault().join(format!("burst/d{}/n{i:04}.md", i % 10));
        if i < 10 {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        }
        std::fs::write(p, format!("# Note {i}\n\nThe {} fact from the burst.\n", word(i))).unwrap();
    }
    w.wait_for("1,000 files", |_| {
        w.indexed_counts(from).keys().filter(|n| n.starts_with("burst/")).count() == 1000
    });
    w.settle();
    let counts = w.indexed_counts(from);
    assert_eq!(counts.len(), 1000, "{:?}", counts.keys().take(5).collect::<Vec<_>>());
    let twice: Vec<_> = counts.iter().filter(|(_, c)| **c != 1).collect();
    assert!(twice.is_empty(), "indexed more than once: {twice:?}");
    assert_index_current(&env);
    assert_eq!(top(&env, &word(737)).as_deref(), Some("burst/d7/n0737"));

    // The burst deleted again.
    let from = w.lines().len();
    std::fs::remove_dir_all(env.vault().join("burst")).unwrap();
    w.wait_for("1,000 deletes", |_| w.removed(from).len() == 1000);
    assert_index_current(&env);
    assert_eq!(top(&env, &word(737)), None);
}

/// Changes the case of the first "migrations" in `rel`, then sets the mtime back: only the
/// content hash can tell.
fn edit_keeping_size_and_mtime(env: &TestEnv, rel: &str) {
    let path = env.vault().join(rel);
    let meta = std::fs::metadata(&path).unwrap();
    let old = std::fs::read_to_string(&path).unwrap();
    let new = old.replacen("migrations", "mIGRATIONs", 1);
    assert_ne!(old, new);
    assert_eq!(old.len(), new.len());
    std::fs::write(&path, &new).unwrap();
    crate::common::set_mtime(&path, meta.modified().unwrap());
}

#[test]
fn starting_on_a_vault_edited_while_down_reconciles_by_content_hash() {
    let env = TestEnv::with_vault("search");
    drop(Watch::start(&env));
    // While nothing watches: an edit that keeps the size and the mtime (the ctime or the content
    // hash tells), a delete, a new file.
    edit_keeping_size_and_mtime(&env, "db/migrations.md");
    let gone = "team-preferences.md";
    std::fs::remove_file(env.vault().join(gone)).unwrap();
    env.write("fresh.md", "# Fresh\n\nA note about the plumbusfield.\n");

    let w = Watch::start(&env);
    let start = w.lines()[0].clone();
    assert_eq!(start["trigger"], "start");
    let indexed: BTreeSet<&str> =
        start["indexed"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(indexed, BTreeSet::from(["db/migrations", "fresh"]), "{start:#}");
    assert_eq!(start["removed"], serde_json::json!([gone.trim_end_matches(".md")]));
    assert_index_current(&env);
    assert_eq!(top(&env, "plumbusfield").as_deref(), Some("fresh"));
}

/// The start pass reads every memory whose stat is unchanged once to compare its content hash,
/// before it takes the write lock; under the lock it reads only the files found changed (by
/// their stat, or by that check). So a write from another process waits for the changed files,
/// not for a read of the whole vault, and each memory is read once.
#[test]
fn the_start_pass_reads_each_memory_once_and_only_the_changed_ones_again() {
    let env = TestEnv::with_vault("search");
    drop(Watch::start(&env));
    let memories =
        env.files().iter().filter(|f| f.ends_with(".md") && !f.starts_with("indices/")).count();
    assert!(memories >= 5, "{:?}", env.files());
    // While nothing watches: an edit that keeps the size and the mtime (its ctime shows it).
    edit_keeping_size_and_mtime(&env, "db/migrations.md");

    let mut child = watch_command(&env)
        .env("MEMLANE_FAILPOINT_TRACE", "1")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let trace = std::thread::spawn(move || {
        let (mut hashed, mut read) = (0, 0);
        for line in std::io::BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            hashed += usize::from(line.ends_with(" reconcile.hash"));
            read += usize::from(line.ends_with(" reconcile.read"));
        }
        (hashed, read)
    });
    let mut start = None;
    for line in std::io::BufReader::new(child.stdout.take().unwrap()).lines() {
        let v: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if v["trigger"] == "start" {
            start = Some(v);
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let start = start.expect("no start pass");
    assert_eq!(start["indexed"], serde_json::json!(["db/migrations"]), "{start:#}");
    // The unchanged ones once each before the lock, the changed one under it.
    assert_eq!(trace.join().unwrap(), (memories - 1, 1));
    assert_index_current(&env);
}

/// Library level: the generation moves within moments of a write, long before the debounced
/// pass, and the pass then catches up with it.
#[test]
fn generation_bumps_after_a_write() {
    use memlane::watch::WatchOptions;

    let env = TestEnv::with_vault("basic");
    let (w, rx) = library_watcher(
        &env,
        WatchOptions { debounce: Duration::from_millis(300), ..WatchOptions::default() },
    );
    let first = rx.recv_timeout(TIMEOUT).unwrap();
    assert!(first.error.is_none(), "{first:?}");
    assert!(w.healthy());
    let g0 = w.generation();
    assert_eq!(w.reconciled_generation(), g0);

    // Writes the watcher must ignore: derived data, usage state, dot files.
    std::fs::write(env.vault().join("indices/scratch.md"), "x").unwrap();
    std::fs::write(env.vault().join(".note.md.swp"), "x").unwrap();
    env.write("a-new-note.md", "# New\n\nwombatwise\n");
    let start = Instant::now();
    while w.generation() == g0 {
        assert!(start.elapsed() < TIMEOUT, "the generation never moved");
        std::thread::sleep(Duration::from_millis(1));
    }
    let batch = loop {
        let b = rx.recv_timeout(TIMEOUT).expect("no pass after the write");
        if b.indexed.iter().any(|n| n == "a-new-note") {
            break b;
        }
    };
    assert!(batch.error.is_none(), "{batch:?}");
    assert!(batch.generation > g0);
    assert!(w.reconciled_generation() >= batch.generation);
    drop(w); // stops the threads
    assert!(rx.recv().is_err(), "the worker is gone, so is its sender");
}

/// Library level: `maintain` runs on the watcher's schedule, reconciling around it.
#[test]
fn maintain_runs_on_the_schedule() {
    use memlane::watch::{BatchKind, WatchOptions};

    let env = TestEnv::with_vault("basic");
    let (_w, rx) = library_watcher(
        &env,
        WatchOptions {
            maintain_every: Some(Duration::from_millis(200)),
            ..WatchOptions::default()
        },
    );
    let report = loop {
        let r = rx.recv_timeout(TIMEOUT).expect("no maintain pass");
        assert!(r.error.is_none(), "{r:?}");
        if r.kind == BatchKind::Maintain {
            break r;
        }
    };
    let m = report.maintain.expect("a maintain pass carries maintain's report");
    assert!(m.problems.is_empty(), "{:?}", m.problems);
}

/// A [`VaultWatcher`](memlane::watch::VaultWatcher) on `env`'s vault (built-in embedder, system
/// clock) and the channel its passes arrive on.
fn library_watcher(
    env: &TestEnv,
    opts: memlane::watch::WatchOptions,
) -> (memlane::watch::VaultWatcher, std::sync::mpsc::Receiver<memlane::watch::BatchReport>) {
    let mut config = memlane::config::Config::default();
    config.embedding.model = "builtin".into();
    let vault =
        memlane::vault::Vault::open(&env.vault(), config, memlane::vault::Clock::system()).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let w = memlane::watch::VaultWatcher::start(Arc::new(vault), opts, move |r| {
        let _ = tx.send(r);
    })
    .unwrap();
    (w, rx)
}

/// `sync` returns only once the watcher has seen every event queued before it, so the
/// generation read right after a write already counts it — no sleeping or polling. `covered`
/// lets a caller that indexed the change itself spare the worker its pass.
#[test]
fn sync_makes_the_generation_count_every_earlier_write() {
    use memlane::watch::WatchOptions;

    let env = TestEnv::with_vault("basic");
    // Markers left by servers that were killed: the one whose process is gone is removed when a
    // watcher starts, a running process's is kept (process 1 always runs).
    std::fs::create_dir_all(env.vault().join("state")).unwrap();
    let dead = env.vault().join("state/.sync-999999999-7");
    let alive = env.vault().join("state/.sync-1-3");
    std::fs::write(&dead, "").unwrap();
    std::fs::write(&alive, "").unwrap();
    // A long debounce, so the worker cannot start its pass before `covered` below.
    let (w, rx) = library_watcher(
        &env,
        WatchOptions { debounce: Duration::from_secs(2), ..WatchOptions::default() },
    );
    let first = rx.recv_timeout(TIMEOUT).unwrap();
    assert!(first.error.is_none(), "{first:?}");
    for i in 0..50 {
        assert!(w.sync(TIMEOUT), "sync timed out");
        let before = w.generation();
        env.write(&format!("note-{i}.md"), "# Note\n\nsynced\n");
        assert!(w.sync(TIMEOUT), "sync timed out");
        assert!(w.generation() > before, "write {i} was not counted after sync");
    }
    // One marker per watcher, renamed by every sync; never indexed.
    let markers = || -> Vec<String> {
        let own = format!(".sync-{}-", std::process::id());
        std::fs::read_dir(env.vault().join("state"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(&own))
            .collect()
    };
    assert_eq!(markers().len(), 1, "{:?}", markers());
    if cfg!(target_os = "linux") {
        assert!(!dead.exists(), "a dead process's marker is removed");
    }
    assert!(alive.exists(), "a running process's marker is kept");

    // A caller that indexed everything up to now: the worker's next pass is skipped.
    let settled = loop {
        let b = rx.recv_timeout(TIMEOUT).expect("no pass after the notes");
        if b.indexed.iter().any(|n| n == "note-49") {
            break b;
        }
    };
    assert!(settled.error.is_none(), "{settled:?}");
    env.write("covered.md", "# Covered\n\nby the caller\n");
    assert!(w.sync(TIMEOUT));
    w.covered(w.generation());
    std::thread::sleep(Duration::from_secs(3));
    let passes: Vec<_> = rx.try_iter().collect();
    assert!(
        passes.iter().all(|p| !p.indexed.iter().any(|n| n == "covered")),
        "the worker indexed a change its caller had covered: {passes:?}"
    );
    // A stopped watcher leaves no marker behind.
    drop(w);
    assert_eq!(markers(), Vec::<String>::new());
}
