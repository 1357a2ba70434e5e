//! The indices follow the files: edits outside memlane, deletions, bulk changes, a deleted
//! `indices/`, concurrent processes.

use crate::common::{TestEnv, set_mtime};

/// A distinct made-up word per number (`zorbak`, `zorbal` …), one token to the analyzer.
fn word(i: usize) -> String {
    let letters = b"bdfgklmnprstvz";
    format!(
        "zor{}{}a",
        letters[i / letters.len() % letters.len()] as char,
        letters[i % letters.len()] as char
    )
}

fn top(env: &TestEnv, q: &str) -> Option<String> {
    let out = env.run(["search", q, "--json", "-n", "1"]).success().json()["results"].clone();
    out.as_array().unwrap().first().map(|h| h["name"].as_str().unwrap().to_owned())
}

#[test]
fn edits_made_outside_memlane_are_searchable_at_once() {
    let env = TestEnv::with_vault("search");
    assert_eq!(top(&env, "kubernetes helm chart"), None);
    env.write(
        "ops/k8s.md",
        "---\ntype: fact\n---\n\n# Kubernetes\n\nWe deploy with a Helm chart named `app-chart`.\n",
    );
    assert_eq!(top(&env, "kubernetes helm chart").as_deref(), Some("ops/k8s"));
    // Edit in place: the old words go, the new ones come.
    env.write("ops/k8s.md", "---\ntype: fact\n---\n\n# Nomad\n\nWe moved to Nomad job files.\n");
    assert_eq!(top(&env, "kubernetes helm chart"), None);
    assert_eq!(top(&env, "nomad job files").as_deref(), Some("ops/k8s"));
    // Delete by hand.
    std::fs::remove_file(env.vault().join("ops/k8s.md")).unwrap();
    assert_eq!(top(&env, "nomad job files"), None);
    // Through memlane too.
    env.run(["add", "notes/grpc", "We use gRPC with protobuf for internal services."]).success();
    assert_eq!(top(&env, "grpc protobuf").as_deref(), Some("notes/grpc"));
    env.run(["rm", "notes/grpc"]).success();
    assert_eq!(top(&env, "grpc protobuf"), None);
}

#[test]
fn a_bulk_change_like_git_pull_is_reconciled() {
    let env = TestEnv::with_vault("search");
    env.run(["search", "anything"]).success();
    for i in 0..60 {
        env.write(
            &format!("pulled/n{i:02}.md"),
            &format!("# Pulled {i}\n\nnote {} from a colleague\n", word(i)),
        );
    }
    std::fs::remove_file(env.vault().join("db/migrations.md")).unwrap();
    assert_eq!(top(&env, &word(37)).as_deref(), Some("pulled/n37"));
    assert_eq!(top(&env, "apply_pending_migrations"), None);
}

/// Indices whose manifest an older release wrote (`manifest.tsv`, with a journal of changes
/// since) answer the same searches, filters included, and the first command saves the manifest
/// in the current format without rebuilding anything; a change after that is seen as usual.
#[test]
fn a_vault_indexed_with_the_previous_manifest_format_searches_the_same_after_the_upgrade() {
    let env = TestEnv::with_vault("search");
    let search = |env: &TestEnv, args: &[&str]| {
        let mut all = vec!["search", "--json", "--no-touch"];
        all.extend_from_slice(args);
        env.run(all).success().stdout
    };
    let queries: [&[&str]; 3] =
        [&["JWT rotation"], &["database migrations"], &["JWT rotation", "--type", "decision"]];
    // A change since the last whole write, so the old manifest has a journal line to replay.
    env.write("notes/fresh.md", "# Fresh\n\nRotate the JWT signing keys monthly.\n");
    let before: Vec<String> = queries.iter().map(|q| search(&env, q)).collect();
    let indices = env.vault().join("indices");
    let manifest = memlane::index::manifest::Manifest::load(&indices).unwrap();
    manifest.save_legacy(&indices).unwrap();
    let legacy = std::fs::read_to_string(indices.join("manifest.tsv")).unwrap();
    let base =
        serde_json::from_str::<serde_json::Value>(legacy.lines().next().unwrap()).unwrap()["base"]
            .as_str()
            .unwrap()
            .to_owned();
    let fresh = legacy.lines().find(|l| l.starts_with("notes/fresh\t")).unwrap().to_owned();
    let without: String = legacy
        .lines()
        .filter(|l| !l.starts_with("notes/fresh\t"))
        .map(|l| format!("{l}\n"))
        .collect();
    // The entry moved to the journal: the file lists one entry fewer under its own base.
    let body = without.split_once('\n').unwrap().1;
    let new_base = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(body.as_bytes()));
    let count = manifest.len();
    let without = without
        .replacen(&format!("\"entries\":{count}"), &format!("\"entries\":{}", count - 1), 1)
        .replacen(&base, &new_base, 1);
    std::fs::write(indices.join("manifest.tsv"), without).unwrap();
    std::fs::write(indices.join("manifest.journal"), format!("#{new_base}\n+{fresh}\n")).unwrap();
    assert!(!env.exists("indices/manifest.bin"));
    let vectors = std::fs::read(indices.join("vector/vectors.usearch")).unwrap();

    let after: Vec<String> = queries.iter().map(|q| search(&env, q)).collect();
    assert_eq!(after, before);
    assert!(env.exists("indices/manifest.bin"), "saved in the current format");
    assert!(!env.exists("indices/manifest.tsv"));
    assert!(!env.exists("indices/manifest.journal"));
    assert_eq!(
        std::fs::read(indices.join("vector/vectors.usearch")).unwrap(),
        vectors,
        "no rebuild"
    );
    assert_eq!(memlane::index::manifest::Manifest::load(&indices).unwrap(), manifest);
    let again: Vec<String> = queries.iter().map(|q| search(&env, q)).collect();
    assert_eq!(again, before);
    // A change after the upgrade is found as before.
    env.write("notes/later.md", "# Later\n\nzanzibar quokka\n");
    assert_eq!(top(&env, "zanzibar quokka").as_deref(), Some("notes/later"));
}

/// The text of `notes/fresh.md` with code word `i`: the same length for every `i`.
fn fresh_text(i: usize) -> String {
    format!("# Fresh\n\nThe code word is {}.\n", word(i))
}

/// An edit that gives a file back its size and mtime (as `cp -p` or `rsync -t` of another copy,
/// or `touch -r`, leave it) changes neither; its ctime moves, so a command finds the edit with
/// no watcher running: made in place, or written beside the file and renamed over it.
#[test]
fn an_edit_that_restores_the_size_and_mtime_is_found_without_a_watcher() {
    let env = TestEnv::with_vault("search");
    env.write("notes/fresh.md", &fresh_text(0));
    assert_eq!(top(&env, &word(0)).as_deref(), Some("notes/fresh"));
    let path = env.vault().join("notes/fresh.md");
    let stat = || {
        let m = std::fs::metadata(&path).unwrap();
        (m.len(), m.modified().unwrap())
    };

    // In place: the same number of bytes written over it, then the mtime set back.
    let before = stat();
    std::fs::write(&path, fresh_text(1)).unwrap();
    set_mtime(&path, before.1);
    assert_eq!(stat(), before);
    assert_eq!(top(&env, &word(1)).as_deref(), Some("notes/fresh"));
    assert_eq!(top(&env, &word(0)), None, "the old word is gone from the file");

    // Beside it: written to a temporary file, its mtime set to the file's, renamed over it.
    let before = stat();
    let temp = env.vault().join("notes/.fresh.md.tmp");
    std::fs::write(&temp, fresh_text(2)).unwrap();
    set_mtime(&temp, before.1);
    std::fs::rename(&temp, &path).unwrap();
    assert_eq!(stat(), before);
    assert_eq!(top(&env, &word(2)).as_deref(), Some("notes/fresh"));
    assert_eq!(top(&env, &word(1)), None, "the old word is gone from the file");
}

/// Indices whose manifest is of format 8 (no ctimes) are read, not rebuilt: the first command
/// reads each memory once to compare its content (so it finds an edit that restored a file's
/// size and mtime too) and saves the manifest in the current format; the next reads none.
#[test]
fn a_format_8_manifest_is_upgraded_by_reading_each_memory_once() {
    let env = TestEnv::with_vault("search");
    env.write("notes/fresh.md", &fresh_text(0));
    env.run(["search", "anything"]).success();
    let indices = env.vault().join("indices");
    let manifest = memlane::index::manifest::Manifest::load(&indices).unwrap();
    manifest.save_format_8(&indices).unwrap();
    let head = |env: &TestEnv| {
        let bytes = std::fs::read(env.vault().join("indices/manifest.bin")).unwrap();
        let eol = bytes.iter().position(|b| *b == b'\n').unwrap();
        String::from_utf8_lossy(&bytes[..eol]).into_owned()
    };
    assert!(head(&env).starts_with("{\"format\":8,"), "{}", head(&env));
    let path = env.vault().join("notes/fresh.md");
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    std::fs::write(&path, fresh_text(1)).unwrap();
    set_mtime(&path, mtime);
    let memories =
        env.files().iter().filter(|f| f.ends_with(".md") && !f.starts_with("indices/")).count();
    // A search, and how many memory files its reconcile read.
    let search = |q: &str| {
        let out = env
            .run_with_env(&[("MEMLANE_FAILPOINT_TRACE", "1")], ["search", q, "--json", "-n", "1"])
            .success();
        let reads = out.stderr.lines().filter(|l| l.ends_with(" reconcile.read")).count();
        let top = out.json()["results"]
            .as_array()
            .unwrap()
            .first()
            .map(|h| h["name"].as_str().unwrap().to_owned());
        (top, reads)
    };

    assert_eq!(search(&word(1)), (Some("notes/fresh".to_owned()), memories));
    assert!(head(&env).starts_with("{\"format\":9,"), "{}", head(&env));
    assert_eq!(search(&word(0)), (None, 0));
    assert_eq!(search(&word(1)), (Some("notes/fresh".to_owned()), 0));
}

#[test]
fn deleting_indices_is_always_safe_and_reindex_rebuilds() {
    let env = TestEnv::with_vault("search");
    let before = env.run(["search", "JWT rotation", "--json", "--no-touch"]).success().stdout;
    std::fs::remove_dir_all(env.vault().join("indices")).unwrap();
    assert_eq!(
        env.run(["search", "JWT rotation", "--json", "--no-touch"]).success().stdout,
        before
    );
    let out = env.run(["reindex", "--json"]).success().json();
    assert_eq!(out["memories"], 11);
    assert_eq!(out["embedder"], "builtin-ngram-v1");
    assert_eq!(
        env.run(["search", "JWT rotation", "--json", "--no-touch"]).success().stdout,
        before
    );
    // A damaged manifest is rebuilt, not trusted.
    std::fs::write(env.vault().join("indices/manifest.bin"), b"{not json").unwrap();
    assert_eq!(
        env.run(["search", "JWT rotation", "--json", "--no-touch"]).success().stdout,
        before
    );
    // A damaged vector file too.
    std::fs::write(env.vault().join("indices/vector/vectors.usearch"), b"garbage").unwrap();
    assert_eq!(
        env.run(["search", "JWT rotation", "--json", "--no-touch"]).success().stdout,
        before
    );
}

#[test]
fn concurrent_processes_never_corrupt_the_indices() {
    let env = TestEnv::with_vault("search");
    for i in 0..40 {
        env.write(
            &format!("bulk/m{i:02}.md"),
            &format!("# Bulk {i}\n\n{} shaving notes\n", word(i)),
        );
    }
    let mut children = Vec::new();
    for i in 0..6 {
        let mut cmd = env.command();
        if i % 2 == 0 {
            cmd.args(["reindex", "-q"]);
        } else {
            cmd.args(["search", &word(17), "--json"]);
        }
        cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
        children.push(cmd.spawn().unwrap());
    }
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(top(&env, &word(17)).as_deref(), Some("bulk/m17"));
    let out = env.run(["reindex", "--json"]).success().json();
    assert_eq!(out["memories"], 51);
}

#[test]
fn an_explicit_model_that_is_missing_is_a_clear_error() {
    let env = TestEnv::with_vault("search");
    // Kind `model`, exit code 1, as the README's table of kinds says.
    let out = env.run(["search", "x", "-c", "embedding.model=/nowhere/model"]).code(1);
    assert!(out.stderr.contains("/nowhere/model"), "{out}");
    assert!(out.stderr.contains("builtin"), "the hint names the way out: {out}");
}

/// A long-lived `Indexes` (the watcher's, the MCP server's) and small edits: only what changed
/// is written, and another writer's work is seen, not redone.
mod incremental {
    use std::collections::BTreeMap;
    use std::path::Path;
    use std::sync::Arc;

    use memlane::config::Config;
    use memlane::index::embed::BuiltinEmbedder;
    use memlane::index::store::Indexes;
    use memlane::index::{graph, vector};
    use memlane::vault::{Clock, Vault};

    use super::{top, word};
    use crate::common::{NOW, TestEnv};

    fn open(env: &TestEnv) -> (Vault, Indexes) {
        let vault =
            Vault::open(&env.vault(), Config::default(), Clock::pinned(NOW.parse().unwrap()))
                .unwrap();
        let idx = Indexes::open(&vault, Arc::new(BuiltinEmbedder::new())).unwrap();
        (vault, idx)
    }

    /// Size and mtime of every file under `indices/` but the lock file.
    fn snapshot(dir: &Path) -> BTreeMap<String, (u64, std::time::SystemTime)> {
        let mut out = BTreeMap::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let meta = e.metadata().unwrap();
                if meta.is_dir() {
                    stack.push(e.path());
                } else if e.file_name() != "write.lock" {
                    let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
                    out.insert(rel, (meta.len(), meta.modified().unwrap()));
                }
            }
        }
        out
    }

    fn append(env: &TestEnv, rel: &str, text: &str) {
        let old = env.read(rel);
        env.write(rel, &format!("{old}\n{text}\n"));
    }

    #[test]
    fn an_edit_that_keeps_the_links_writes_no_graph_and_only_the_vector_journal() {
        let env = TestEnv::with_vault("search");
        let (vault, mut idx) = open(&env);
        idx.reconcile(&vault).unwrap();
        let dir = Indexes::dir_of(&vault);
        let before = snapshot(&dir);
        append(&env, "cache-v1.md", &format!("and {} too", word(1)));
        let report = idx.reconcile(&vault).unwrap();
        assert_eq!((report.updated, report.added, report.removed), (1, 0, 0));
        let after = snapshot(&dir);
        let graph_file = format!("graph/{}", graph::FILE);
        let base = format!("vector/{}", vector::VECTORS_FILE);
        assert_eq!(before[&graph_file], after[&graph_file], "the graph was rewritten");
        assert_eq!(before[&base], after[&base], "the vector base was rewritten");
        assert_ne!(before.get("vector/delta.bin"), after.get("vector/delta.bin"));
        assert_eq!(top(&env, &word(1)).as_deref(), Some("cache-v1"));
        // A new link does reach the graph: as a line of its journal, not a rewrite of the file.
        append(&env, "cache-v1.md", "see [[old-plan]]");
        idx.reconcile(&vault).unwrap();
        let journal = format!("graph/{}", graph::JOURNAL);
        assert_eq!(after[&graph_file], snapshot(&dir)[&graph_file]);
        assert_ne!(after.get(&journal), snapshot(&dir).get(&journal));
        let (_, fresh) = open(&env);
        let targets: Vec<String> =
            fresh.graph().outgoing("memory:cache-v1").into_iter().map(|(t, _)| t).collect();
        assert!(targets.iter().any(|t| t == "memory:old-plan"), "{targets:?}");
    }

    #[test]
    fn a_reused_index_sees_another_writers_change_and_redoes_nothing() {
        let env = TestEnv::with_vault("search");
        let (vault, mut a) = open(&env);
        a.reconcile(&vault).unwrap();
        let (_, mut b) = open(&env);
        assert!(!b.reconcile(&vault).unwrap().changed());

        append(&env, "cache-v1.md", &word(2));
        assert_eq!(a.reconcile(&vault).unwrap().updated, 1);
        // B kept its indices open across A's write: it must start from A's state.
        append(&env, "team-preferences.md", &word(3));
        let report = b.reconcile(&vault).unwrap();
        assert_eq!(report.updated, 1, "only B's own change is indexed: {report:?}");
        assert_eq!(report.indexed, ["team-preferences"]);
        let total = b.manifest().total_chunks();
        assert_eq!(b.vector().len(), total);
        assert_eq!(b.manifest().entries()["cache-v1"], {
            let (_, fresh) = open(&env);
            fresh.manifest().entries()["cache-v1"].clone()
        });

        // A finds B's change already indexed: nothing is written.
        let dir = Indexes::dir_of(&vault);
        let before = snapshot(&dir);
        let report = a.reconcile(&vault).unwrap();
        assert!(!report.changed(), "{report:?}");
        assert_eq!(before, snapshot(&dir), "a reconcile with nothing to do wrote files");
        assert_eq!(
            a.manifest().entries()["team-preferences"],
            b.manifest().entries()["team-preferences"]
        );
        assert_eq!(top(&env, &word(2)).as_deref(), Some("cache-v1"));
        assert_eq!(top(&env, &word(3)).as_deref(), Some("team-preferences"));
    }

    /// The MCP server reconciles only the paths its watcher reported: what that finds must be
    /// what a stat of the whole vault finds, and whatever it cannot judge alone falls back to one.
    #[test]
    fn a_reconcile_of_the_changed_paths_leaves_what_a_whole_reconcile_would() {
        let env = TestEnv::with_vault("search");
        let (vault, mut idx) = open(&env);
        idx.reconcile(&vault).unwrap();
        let root = env.vault();
        append(&env, "cache-v1.md", &word(4));
        env.write("new/area/fresh.md", &format!("# Fresh\n\nabout {}\n", word(5)));
        std::fs::remove_file(root.join("old-plan.md")).unwrap();
        env.write(".hidden.md", "# not a memory\n");
        env.write("notes.txt", "not a memory\n");
        let paths: Vec<_> = ["cache-v1.md", "new/area/fresh.md", "old-plan.md", ".hidden.md"]
            .iter()
            .map(|p| root.join(p))
            .chain([root.join("never-there.md")])
            .collect();
        let report = idx.reconcile_paths(&vault, &paths).unwrap();
        assert_eq!(
            (report.updated, report.added, report.removed),
            (1, 1, 1),
            "one edit, one new memory, one deletion: {report:?}"
        );
        assert_eq!(top(&env, &word(5)).as_deref(), Some("new/area/fresh"));
        assert_eq!(top(&env, &word(4)).as_deref(), Some("cache-v1"));
        let report = idx.reconcile(&vault).unwrap();
        assert!(!report.changed(), "a whole reconcile found more to do: {report:?}");
        let (_, mut fresh) = open(&env);
        fresh.rebuild(&vault, &mut |_| {}).unwrap();
        assert_eq!(idx.manifest().entries().keys().collect::<Vec<_>>(), {
            fresh.manifest().entries().keys().collect::<Vec<_>>()
        });

        // A folder renamed: its path alone cannot say which memories moved.
        std::fs::rename(root.join("new"), root.join("renamed")).unwrap();
        let report = idx.reconcile_paths(&vault, &[root.join("renamed")]).unwrap();
        assert_eq!((report.added, report.removed), (1, 1), "{report:?}");
        assert_eq!(top(&env, &word(5)).as_deref(), Some("renamed/area/fresh"));
        // A symbolic link on the way: the whole vault is looked at, and the link's rules hold.
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc", root.join("outside")).unwrap();
            let report = idx.reconcile_paths(&vault, &[root.join("outside/passwd.md")]).unwrap();
            assert!(!report.changed(), "{report:?}");
            assert!(!idx.manifest().entries().keys().any(|k| k.starts_with("outside")));
        }
    }

    /// The graph as it loads (file plus journal), written whole, and the supersedes list.
    fn graph_state(env: &TestEnv) -> (String, String) {
        let dir = env.vault().join("indices/graph");
        let mut g = graph::LinkGraph::load(&dir).unwrap().expect("the graph loads");
        let tmp = tempfile::tempdir().unwrap();
        g.save(tmp.path()).unwrap();
        (
            std::fs::read_to_string(tmp.path().join(graph::FILE)).unwrap(),
            std::fs::read_to_string(dir.join("supersedes.tsv")).unwrap(),
        )
    }

    /// A process that has not loaded the graph adds and removes memories by appending to the
    /// graph's journal; what it leaves is what a rebuild makes, also when a new memory takes
    /// over a ghost's links (which loads the graph).
    #[test]
    fn new_and_removed_memories_reach_the_graph_without_loading_it() {
        let env = TestEnv::with_vault("links");
        let (vault, mut idx) = open(&env);
        idx.reconcile(&vault).unwrap();
        let gdir = env.vault().join("indices/graph");
        let base = std::fs::read(gdir.join(graph::FILE)).unwrap();

        env.write(
            "auth-v4.md",
            "# Auth v4\n\nThis replaces [[memory:auth-v3]]; see [[future-notes]] and [[src/new.py]].\n",
        );
        std::fs::remove_file(env.vault().join("bug-login.md")).unwrap();
        let (_, mut cold) = open(&env);
        let report = cold.reconcile(&vault).unwrap();
        assert_eq!((report.added, report.removed), (1, 1), "{report:?}");
        assert_eq!(std::fs::read(gdir.join(graph::FILE)).unwrap(), base, "graph.json is kept");
        let journal = std::fs::read_to_string(gdir.join(graph::JOURNAL)).unwrap();
        assert_eq!(journal.lines().count(), 2, "{journal}");
        let ghosts = graph::read_ghosts(&gdir).unwrap();
        assert!(ghosts.contains("ghost:future-notes"), "{ghosts:?}");
        let supersedes = std::fs::read_to_string(gdir.join("supersedes.tsv")).unwrap();
        assert!(supersedes.contains("auth-v3\tauth-v4"), "{supersedes}");

        // A new memory named like a ghost takes over its links.
        env.write("future-notes.md", "# Future notes\n\nNothing yet.\n");
        let (_, mut cold) = open(&env);
        cold.reconcile(&vault).unwrap();
        let (_, fresh) = open(&env);
        let targets: Vec<String> =
            fresh.graph().outgoing("memory:auth-v4").into_iter().map(|(t, _)| t).collect();
        assert!(targets.iter().any(|t| t == "memory:future-notes"), "{targets:?}");

        let appended = graph_state(&env);
        let (_, mut again) = open(&env);
        again.rebuild(&vault, &mut |_| {}).unwrap();
        assert_eq!(appended, graph_state(&env), "the journal's graph is a rebuild's");
    }
}

/// Indices built by the previous release recorded the problems of each memory as messages only;
/// this release records their kind. Such indices are read as they are (no rebuild, no "damaged"
/// warning), and `doctor` still names both kinds of merge conflict, with their hints.
#[test]
fn indices_of_the_previous_manifest_format_keep_their_merge_conflicts_without_a_rebuild() {
    let env = TestEnv::with_vault("basic");
    env.write(
        "decisions/queue.md",
        "---\nstatus: active\nmerge_conflicts:\n  - { key: status, ours: active, theirs: archived }\n---\n\n# Queue\n\nWe use a queue.\n",
    );
    env.write(
        "notes/standup.md",
        "---\ntags: [team]\n---\n\n# Standup\n\n<<<<<<< ours\nat nine\n=======\nat ten\n>>>>>>> theirs\n",
    );
    let conflicts = |env: &TestEnv| {
        let out = env.run(["doctor", "--json"]).success();
        let doctor = out.json();
        let mut found: Vec<(String, bool)> = doctor["problems"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["kind"] == "merge_conflict")
            .map(|p| {
                let hint = p["hint"].as_str().unwrap_or_default();
                (
                    p["memory"].as_str().unwrap_or_default().to_owned(),
                    hint.contains("merge_conflicts"),
                )
            })
            .collect();
        found.sort();
        (found, out.stderr)
    };
    let expected = vec![("decisions/queue".to_owned(), true), ("notes/standup".to_owned(), false)];
    env.run(["reindex"]).success();
    assert_eq!(conflicts(&env).0, expected);

    // The same manifest as an older release wrote it: `manifest.tsv` of format 6, messages
    // without kinds.
    let indices = env.vault().join("indices");
    let manifest = memlane::index::manifest::Manifest::load(&indices).unwrap();
    manifest.save_legacy(&indices).unwrap();
    let path = indices.join("manifest.tsv");
    let now = std::fs::read_to_string(&path).unwrap();
    assert!(now.starts_with("{\"format\":7,"), "{now}");
    assert!(now.contains("\tkey_conflict:unresolved merge conflict"), "{now}");
    let old = now
        .replacen("{\"format\":7,", "{\"format\":6,", 1)
        .replace("\tkey_conflict:", "\t")
        .replace("\tbody_conflict:", "\t")
        .replace("\tfrontmatter:", "\t")
        .replace("\u{1f}frontmatter:", "\u{1f}")
        .replace("\u{1f}key_conflict:", "\u{1f}")
        .replace("\u{1f}body_conflict:", "\u{1f}");
    std::fs::write(&path, &old).unwrap();
    assert!(!env.exists("indices/manifest.bin"));
    let vectors = std::fs::read(indices.join("vector/vectors.usearch")).unwrap();

    let (found, stderr) = conflicts(&env);
    assert_eq!(found, expected);
    assert!(!stderr.contains("damaged"), "an older manifest is not damage: {stderr}");
    // Read, not rebuilt (the vectors are as they were), and saved in the current format by the
    // first command.
    assert!(!env.exists("indices/manifest.tsv"));
    assert!(env.exists("indices/manifest.bin"));
    assert_eq!(std::fs::read(indices.join("vector/vectors.usearch")).unwrap(), vectors);
    env.run(["add", "notes/lunch", "Lunch is at noon."]).success();
    assert_eq!(conflicts(&env).0, expected);
    let upgraded = memlane::index::manifest::Manifest::load(&indices).unwrap();
    assert!(upgraded.contains("notes/lunch"));
    let kinds: Vec<_> =
        upgraded.get("notes/standup").unwrap().warnings.iter().map(|w| w.kind).collect();
    assert!(kinds.contains(&memlane::index::manifest::WarningKind::BodyConflict), "{kinds:?}");
}

/// A one-command search runs on the indices while it still checks the files (the check of a
/// large vault takes longer than opening them). When the check finds a file changed, that
/// answer is dropped and the search runs again on the updated indices: the edit is found.
#[test]
fn an_answer_found_while_the_files_are_checked_is_dropped_when_one_changed() {
    let env = TestEnv::with_vault("search");
    assert_eq!(top(&env, "nomad job files"), None);
    env.write("ops/k8s.md", "---\ntype: fact\n---\n\n# Nomad\n\nWe moved to Nomad job files.\n");
    let out = env.run_with_the_check_held(&["search", "nomad job files", "--json", "-n", "1"]);
    let out = out.success();
    assert!(out.stderr.contains("answered while the files are checked"), "{out}");
    assert!(out.stderr.contains("the answer found meanwhile is dropped"), "{out}");
    assert_eq!(out.json()["results"][0]["name"], "ops/k8s", "{out}");
    // With nothing changed, the answer found meanwhile is the answer.
    let out = env.run_with_env(&[("MEMLANE_LOG", "memlane=debug")], ["search", "nomad", "--json"]);
    let out = out.success();
    assert!(!out.stderr.contains("dropped"), "{}", out.stderr);
    assert_eq!(out.json()["results"][0]["name"], "ops/k8s");
}
