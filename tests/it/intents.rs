//! The undo log (`state/intents/`) through the real binary: a folder a repository plants there,
//! another user's or another vault's undo log, or a tampered one, is reported by every command,
//! by `doctor` and at `memlane mcp` start-up, and is never replayed nor removed; and a file a
//! user edits between a crash and the next command keeps the edit, the bytes the roll-back would
//! have written going to `.history/` with a warning.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::TestEnv;

/// An executable git hook, the payload of a planted intent.
const HOOK: &str = "#!/bin/sh\necho pwned > /tmp/memlane-planted-hook\n";

/// Every file and symbolic link under `dir` (links not followed), with its bytes or target.
fn tree(dir: &Path) -> BTreeMap<String, String> {
    fn walk(dir: &Path, base: &Path, out: &mut BTreeMap<String, String>) {
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        for e in rd {
            let e = e.unwrap();
            let rel = e.path().strip_prefix(base).unwrap().to_string_lossy().into_owned();
            let ty = e.file_type().unwrap();
            if ty.is_symlink() {
                let target = std::fs::read_link(e.path()).unwrap();
                out.insert(rel, format!("-> {}", target.display()));
            } else if ty.is_dir() {
                out.insert(format!("{rel}/"), String::new());
                walk(&e.path(), base, out);
            } else {
                out.insert(rel, String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

#[cfg(unix)]
fn symlink(target: &str, link: &Path) {
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, link).unwrap();
}

/// Plants, in `env`'s vault, the shapes a cloned repository can commit: an intent writing an
/// executable hook through `h -> ../git/hooks`, one deleting a file outside through
/// `notes -> ../outside`, one in memlane's own format with a made-up signature, and an intent
/// folder that is itself a symbolic link to a folder outside. Returns the folders' names.
#[cfg(unix)]
fn plant(env: &TestEnv) -> Vec<&'static str> {
    let intents = env.vault().join("state/intents");
    std::fs::create_dir_all(env.root.join("git/hooks")).unwrap();
    symlink("../git/hooks", &env.vault().join("h"));
    std::fs::create_dir_all(env.root.join("outside")).unwrap();
    std::fs::write(env.root.join("outside/victim"), "a file outside the vault\n").unwrap();
    symlink("../outside", &env.vault().join("notes"));
    let hook = serde_json::json!([{ "path": "h/post-checkout", "text": HOOK, "mode": 493 }]);
    let write = |folder: &str, json: &serde_json::Value| {
        let dir = intents.join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("000001.json"), json.to_string()).unwrap();
    };
    write("mv-1-x", &hook);
    write("rm-1-y", &serde_json::json!([{ "path": "notes/victim", "text": null }]));
    write(
        "merge-1-z",
        &serde_json::json!({
            "changes": [{ "path": "auth-v1.md", "before": { "text": "forged\n" }, "after": null }],
            "mac": "0".repeat(64),
        }),
    );
    std::fs::create_dir_all(env.root.join("planted")).unwrap();
    std::fs::write(env.root.join("planted/000001.json"), hook.to_string()).unwrap();
    symlink("../../../planted", &intents.join("mv-2-w"));
    vec!["merge-1-z", "mv-1-x", "mv-2-w", "rm-1-y"]
}

#[cfg(unix)]
#[test]
fn a_planted_intent_is_reported_by_every_command_and_changes_no_file() {
    let env = TestEnv::with_vault("links");
    let folders = plant(&env);
    let before = tree(&env.root);

    let out = env.run(["list"]).success();
    assert!(out.stdout.contains("auth-v1"), "{out}");
    for name in &folders {
        let path = format!("[ROOT]/vault/state/intents/{name}");
        assert_eq!(
            out.stderr.matches(&format!("{path} is not an undo log")).count(),
            1,
            "one warning for {name}:\n{out}"
        );
        assert!(out.stderr.contains(&format!("rm -r {path}")), "{out}");
    }
    assert!(out.stderr.contains("inspect it, then delete it"), "{out}");
    assert!(out.stderr.contains("is a symbolic link"), "{out}");
    assert!(out.stderr.contains("is not signed with your key"), "{out}");
    assert!(!out.stderr.contains("rolled back"), "{out}");

    // A writer warns as well, and works.
    let added = env.run(["add", "fresh", "written next to planted intents", "--force"]).success();
    assert!(added.stderr.contains("[ROOT]/vault/state/intents/mv-1-x is not an undo log"));

    let doctor = env.run(["doctor", "--json"]).success().json();
    let untrusted: Vec<&serde_json::Value> = doctor["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == "untrusted_intent")
        .collect();
    assert_eq!(untrusted.len(), folders.len(), "{doctor:#}");
    for (p, name) in untrusted.iter().zip(&folders) {
        let path = format!("[ROOT]/vault/state/intents/{name}");
        assert_eq!(p["path"], path);
        assert_eq!(p["hint"], format!("inspect it, then delete it: rm -r {path}"));
    }
    let text = env.run(["doctor"]).success();
    assert!(
        text.stdout
            .contains("hint: inspect it, then delete it: rm -r [ROOT]/vault/state/intents/mv-1-x"),
        "{text}"
    );

    // Nothing was written, deleted or run: the only change is the memory `add` wrote (and the
    // indices and per-user state memlane keeps).
    let compared = |k: &String| {
        !k.starts_with("vault/indices/")
            && !k.starts_with("home/")
            && k != "vault/fresh.md"
            && (!k.starts_with("vault/state/") || k.starts_with("vault/state/intents"))
    };
    let mut after = tree(&env.root);
    after.retain(|k, _| compared(k));
    let mut expected = before.clone();
    expected.retain(|k, _| compared(k));
    assert_eq!(after, expected);
    assert!(!env.root.join("git/hooks/post-checkout").exists());
    assert_eq!(
        std::fs::read_to_string(env.root.join("outside/victim")).unwrap(),
        "a file outside the vault\n"
    );

    // The hint works: once the folders are gone, `doctor` has nothing to say about them.
    for name in &folders {
        let path = env.vault().join("state/intents").join(name);
        let status = std::process::Command::new("rm").arg("-r").arg(&path).status().unwrap();
        assert!(status.success());
    }
    let doctor = env.run(["doctor", "--json"]).success().json();
    assert!(
        !doctor["problems"].as_array().unwrap().iter().any(|p| p["kind"] == "untrusted_intent"),
        "{doctor:#}"
    );
    assert!(env.root.join("planted/000001.json").exists(), "rm -r removed the link only");
}

#[cfg(unix)]
#[test]
fn memlane_mcp_logs_a_planted_intent_at_start_up_and_replays_nothing() {
    let env = TestEnv::with_vault("links");
    plant(&env);
    let init = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": { "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } }
    });
    let out = env.run_stdin(["mcp"], &format!("{init}\n"));
    let reply: serde_json::Value =
        serde_json::from_str(out.stdout.lines().next().unwrap_or_default()).unwrap_or_default();
    assert_eq!(reply["id"], 1, "the server answers over stdout:\n{out}");
    assert!(
        out.stdout.lines().all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()),
        "{out}"
    );
    assert!(
        out.stderr
            .contains("[ROOT]/vault/state/intents/mv-1-x is not an undo log memlane wrote for you"),
        "{out}"
    );
    assert!(!env.root.join("git/hooks/post-checkout").exists());
    assert!(env.root.join("outside/victim").exists());
    assert!(env.vault().join("state/intents/mv-1-x/000001.json").exists(), "never removed");
}

/// Kills `args` at the first step named `point` (as `kill -9` would).
fn kill_at(env: &TestEnv, args: &[&str], point: &str) {
    let out = env.command().args(args).env("MEMLANE_FAILPOINT", point).output().unwrap();
    assert_eq!(out.status.code(), None, "{args:?} killed at {point}: {out:?}");
}

/// The only folder in `state/intents/`.
fn the_intent(env: &TestEnv) -> std::path::PathBuf {
    let mut found: Vec<_> = std::fs::read_dir(env.vault().join("state/intents"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    found.pop().unwrap()
}

#[test]
fn an_undo_log_of_another_user_another_vault_or_tampered_with_is_not_replayed() {
    let merge = ["merge", "auth-v1", "auth-v2", "--into", "auth-sessions"];
    let env = TestEnv::with_vault("links");
    env.run(["list"]).success();
    let original = env.read("auth-v1.md");
    kill_at(&env, &merge, "delete.rename");
    assert!(env.exists("auth-sessions.md"), "the merge was under way");
    let killed = tree(&env.vault());
    let intent = the_intent(&env);

    // Another user (another data dir, so another key).
    let other_home = env.root.join("other-user");
    let other = env.run_with_env(
        &[("XDG_DATA_HOME", other_home.to_str().unwrap()), ("HOME", other_home.to_str().unwrap())],
        ["list"],
    );
    assert_eq!(other.code, 0, "{other}");
    assert!(other.stderr.contains("is not signed with your key for this vault"), "{other}");
    let memlanes_own = |k: &String| {
        k.starts_with("indices/") || (k.starts_with("state/") && !k.starts_with("state/intents"))
    };
    let mut now = tree(&env.vault());
    now.retain(|k, _| !memlanes_own(k));
    let mut was = killed.clone();
    was.retain(|k, _| !memlanes_own(k));
    assert_eq!(now, was, "another user's memlane replays nothing");

    // Another vault of the same user: the undo log names the vault it was written for.
    let env2 = TestEnv::with_vault("links");
    env2.run(["list"]).success();
    let key = "home/.local/share/memlane/intent.key";
    std::fs::create_dir_all(env2.root.join(key).parent().unwrap()).unwrap();
    std::fs::copy(env.root.join(key), env2.root.join(key)).unwrap();
    let copied = env2.vault().join("state/intents").join(intent.file_name().unwrap());
    copy_dir(&intent, &copied);
    // The bytes the merge wrote: replaying the copy would remove them.
    let merged = env.read("auth-sessions.md");
    env2.write("auth-sessions.md", &merged);
    let out = env2.run(["list"]).success();
    assert!(out.stderr.contains("is not signed with your key for this vault"), "{out}");
    assert_eq!(env2.read("auth-sessions.md"), merged);
    assert!(copied.exists());

    // The same vault, under another folder name, or with an entry changed.
    let renamed = intent.with_file_name("merge-1-00000000");
    copy_dir(&intent, &renamed);
    let tampered = intent.with_file_name("merge-2-00000000");
    copy_dir(&intent, &tampered);
    let entry = tampered.join("000001.json");
    let text = std::fs::read_to_string(&entry).unwrap();
    std::fs::write(&entry, text.replacen("auth-sessions.md", "auth-v3.md", 1)).unwrap();

    // With this user's key the real one is rolled back; the copies are reported and kept.
    let out = env.run(["list"]).success();
    assert!(out.stderr.contains("an interrupted `merge` was found and rolled back"), "{out}");
    assert!(!env.exists("auth-sessions.md"));
    assert_eq!(env.read("auth-v1.md"), original);
    assert!(!intent.exists());
    for copy in [&renamed, &tampered] {
        let name = copy.file_name().unwrap().to_string_lossy().into_owned();
        assert!(out.stderr.contains(&format!("{name} is not an undo log")), "{name}: {out}");
        assert!(copy.exists(), "{name} is never removed automatically");
    }
    let doctor = env.run(["doctor", "--json"]).success().json();
    let untrusted =
        doctor["problems"].as_array().unwrap().iter().filter(|p| p["kind"] == "untrusted_intent");
    assert_eq!(untrusted.count(), 2, "{doctor:#}");
}

/// Tests run as root in CI, which may hand a file to another user; elsewhere the check is
/// skipped with a message.
#[cfg(unix)]
#[test]
fn an_undo_log_owned_by_another_user_is_not_replayed() {
    let env = TestEnv::with_vault("links");
    env.run(["list"]).success();
    kill_at(&env, &["merge", "auth-v1", "auth-v2", "--into", "auth-sessions"], "delete.rename");
    let intent = the_intent(&env);
    let entry = intent.join("000001.json");
    let mine = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(&entry).unwrap());
    if std::os::unix::fs::chown(&entry, Some(mine + 4242), None).is_err() {
        eprintln!("skipped: this user cannot give a file to another user (not root)");
        return;
    }
    let out = env.run(["list"]).success();
    assert!(out.stderr.contains("`000001.json` belongs to another user"), "{out}");
    assert!(env.exists("auth-sessions.md") && entry.exists(), "nothing replayed or removed");
    std::os::unix::fs::chown(&entry, Some(mine), None).unwrap();
    let out = env.run(["list"]).success();
    assert!(out.stderr.contains("rolled back"), "{out}");
    assert!(!env.exists("auth-sessions.md"));
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// The roll-back copies in `.history/` (path relative to the vault, text).
fn rollback_copies(env: &TestEnv) -> Vec<(String, String)> {
    env.contents()
        .into_iter()
        .filter(|(p, _)| p.starts_with(".history/") && p.ends_with("_rollback.md"))
        .map(|(p, b)| (p, String::from_utf8(b).unwrap()))
        .collect()
}

/// Edits `rel` the way an editor does (a new file renamed over it).
fn edit(env: &TestEnv, rel: &str, text: &str) {
    let tmp = env.root.join("editor.tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, env.vault().join(rel)).unwrap();
}

#[test]
fn a_file_edited_after_a_killed_merge_keeps_the_edit() {
    let env = TestEnv::with_vault("links");
    env.run(["list"]).success();
    let original = env.read("auth-v1.md");
    // Killed after noting and rewriting `auth-v1.md` (marked superseded), before its move to
    // the trash.
    kill_at(&env, &["merge", "auth-v1", "auth-v2", "--into", "auth-sessions"], "delete.rename");
    assert!(env.read("auth-v1.md").contains("superseded_by"));
    let mine = format!("{original}\nMy edit after the crash.\n");
    edit(&env, "auth-v1.md", &mine);

    let out = env.run(["list"]).success();
    assert_eq!(env.read("auth-v1.md"), mine, "the edit survives:\n{out}");
    assert!(!env.exists("auth-sessions.md"), "the rest of the merge is rolled back");
    let copies = rollback_copies(&env);
    assert_eq!(copies.len(), 1, "{copies:?}");
    assert_eq!(copies[0].1, original, "the roll-back's bytes are kept");
    assert!(copies[0].0.starts_with(".history/LinkAuthV01/"), "{copies:?}");
    assert!(
        out.stderr.contains("[ROOT]/vault/auth-v1.md changed after an interrupted `merge` had written it: your version stays as it is")
            && out.stderr.contains(&format!("[ROOT]/vault/{}", copies[0].0)),
        "the warning names both files:\n{out}"
    );
    // The kept bytes are an ordinary version: `history` lists it, `restore` brings it back.
    let hist = env.run(["history", "auth-v1", "--json"]).success().json();
    let versions = hist["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 1, "{hist:#}");
    assert_eq!(versions[0]["action"], "rollback");
    env.run(["restore", "auth-v1", "--version", "1"]).success();
    assert_eq!(env.read("auth-v1.md"), original);
}

#[test]
fn a_file_edited_or_removed_after_a_killed_split_keeps_the_users_version() {
    let env = TestEnv::with_vault("links");
    env.write(
        "big.md",
        "---\nid: BigSplit001\ntype: fact\n---\n\n# Plan\n\n## Goals\n\nShip search.\n\n## Risks\n\nThe model is slow.\n",
    );
    env.run(["list"]).success();
    let original = env.read("big.md");
    kill_at(&env, &["split", "big", "--replace"], "delete.rename");
    let pieces: Vec<String> = env
        .files()
        .into_iter()
        .filter(|f| f.starts_with("big-") || f.starts_with("big/"))
        .collect();
    assert!(!pieces.is_empty(), "the pieces were written: {:?}", env.files());
    // The user removes the rewritten file (a branch switch), and edits one of the pieces.
    std::fs::remove_file(env.vault().join("big.md")).unwrap();
    let piece = &pieces[0];
    let mine = format!("{}\nKept by hand.\n", env.read(piece));
    edit(&env, piece, &mine);

    let out = env.run(["list"]).success();
    assert!(!env.exists("big.md"), "removed by the user, it stays removed:\n{out}");
    assert_eq!(env.read(piece), mine, "the edited piece stays");
    for other in &pieces[1..] {
        assert!(!env.exists(other), "{other} is rolled back");
    }
    let copies = rollback_copies(&env);
    assert_eq!(copies.len(), 1, "{copies:?}");
    assert_eq!(copies[0].1, original);
    assert!(out.stderr.contains("[ROOT]/vault/big.md was removed after an interrupted `split` had written it: your version stays removed"), "{out}");
    assert!(out.stderr.contains(&copies[0].0), "{out}");
    assert!(
        out.stderr.contains(&format!("[ROOT]/vault/{piece} changed after an interrupted `split` had created it: your version stays")),
        "{out}"
    );
}

#[test]
fn a_file_edited_after_a_killed_mv_keeps_the_edit() {
    let env = TestEnv::with_vault("links");
    env.run(["list"]).success();
    let original = env.read("auth-v2.md");
    // Killed between the move's hard link and its unlink: both names are there.
    kill_at(&env, &["mv", "auth-v2", "auth/v2"], "move.unlink");
    assert!(env.exists("auth/v2.md") && env.exists("auth-v2.md"));
    let mine = format!("{original}\nEdited under the old name.\n");
    edit(&env, "auth-v2.md", &mine);

    let out = env.run(["list"]).success();
    assert_eq!(env.read("auth-v2.md"), mine, "the edit survives:\n{out}");
    assert!(!env.exists("auth/v2.md"), "the new name is rolled back");
    let copies = rollback_copies(&env);
    assert_eq!(copies.len(), 1);
    assert_eq!(copies[0].1, original);
    assert!(
        out.stderr.contains(&copies[0].0) && out.stderr.contains("[ROOT]/vault/auth-v2.md"),
        "{out}"
    );

    // Edited under the new name instead: the `mv` is rolled back with the edit (one file per
    // id, and the links the `mv` would have rewritten still lead to it).
    let env = TestEnv::with_vault("links");
    env.run(["list"]).success();
    kill_at(&env, &["mv", "auth-v2", "auth/v2"], "move.unlink");
    let mine = format!("{original}\nEdited under the new name.\n");
    edit(&env, "auth/v2.md", &mine);
    let out = env.run(["list"]).success();
    assert_eq!(env.read("auth-v2.md"), mine, "{out}");
    assert!(!env.exists("auth/v2.md"));
    let copies = rollback_copies(&env);
    assert_eq!(copies.len(), 1);
    assert_eq!(copies[0].1, original);
    assert!(
        out.stderr.contains("your version is back under the old name, [ROOT]/vault/auth-v2.md")
            && out.stderr.contains(&copies[0].0),
        "{out}"
    );
    let doctor = env.run(["doctor", "--json"]).success().json();
    assert!(
        !doctor["problems"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["kind"] == "duplicate_id" || p["kind"] == "dead_link"),
        "{doctor:#}"
    );

    // A restore from the trash whose restored file was edited is completed instead: the edit
    // never goes back into the trash.
    let env = TestEnv::with_vault("links");
    env.run(["rm", "onboarding"]).success();
    let trashed = env.read(".trash/onboarding_20260110T100000.000Z.md");
    kill_at(&env, &["trash", "restore", "onboarding"], "move.unlink");
    let mine = format!("{trashed}\nEdited once restored.\n");
    edit(&env, "onboarding.md", &mine);
    let out = env.run(["list"]).success();
    assert_eq!(env.read("onboarding.md"), mine, "{out}");
    assert!(
        env.run(["trash", "list", "--json"]).success().json()["entries"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let copies = rollback_copies(&env);
    assert_eq!(copies.len(), 1);
    assert_eq!(copies[0].1, trashed);
    assert!(
        out.stderr.contains("the move is completed") && out.stderr.contains(&copies[0].0),
        "{out}"
    );
}

#[test]
fn a_file_edited_after_a_killed_update_keeps_the_edit() {
    let env = TestEnv::with_vault("links");
    env.run(["list"]).success();
    let original = env.read("auth-v1.md");
    // Killed with every file written, right before the commit.
    kill_at(&env, &["update", "auth-v1", "a new body"], "intent.commit");
    assert!(env.read("auth-v1.md").contains("a new body"));
    let mine = env.read("auth-v1.md").replace("a new body", "a new body, and my edit");
    edit(&env, "auth-v1.md", &mine);

    let out = env.run(["list"]).success();
    assert_eq!(env.read("auth-v1.md"), mine, "the edit survives:\n{out}");
    let copies = rollback_copies(&env);
    assert_eq!(copies.len(), 1, "{copies:?}");
    assert_eq!(copies[0].1, original);
    let hist = env.run(["history", "auth-v1", "--json"]).success().json();
    let versions = hist["versions"].as_array().unwrap();
    assert_eq!(
        versions.len(),
        1,
        "the update's own copy is rolled back, the roll-back's kept: {hist:#}"
    );
    assert!(
        out.stderr.contains("auth-v1.md changed after an interrupted `update` had written it"),
        "{out}"
    );

    // Without a later edit the same kill rolls back as before, and keeps no copy.
    let env = TestEnv::with_vault("links");
    env.run(["list"]).success();
    kill_at(&env, &["update", "auth-v1", "a new body"], "intent.commit");
    let out = env.run(["list"]).success();
    assert_eq!(env.read("auth-v1.md"), original, "{out}");
    assert!(rollback_copies(&env).is_empty());
    assert!(!env.exists(".history/LinkAuthV01"), "{:?}", env.files());
}
