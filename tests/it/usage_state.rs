//! The usage state files (`state/usage.bin`, `state/usage.journal`) through the real binary:
//! reads and searches count the same as they always did, a vault with the older `usage.json`
//! reads the same and is upgraded by its first write, a journal cut short by a crash is ignored,
//! a writer killed while folding the journal into the base counts nothing twice and loses
//! nothing, and processes reading memories at once lose no access.

use std::collections::BTreeMap;

use memlane::lifecycle::{MemoryUsage, UsageStore};

use crate::common::TestEnv;

/// The temperature `tree` shows for memory `name`.
fn temperature(env: &TestEnv, name: &str) -> f64 {
    let tree = env.run(["tree", "--json"]).success().json();
    tree["memories"].as_array().unwrap().iter().find(|r| r["name"] == name).unwrap()["temperature"]
        .as_f64()
        .unwrap()
}

/// The usage state as the files hold it (no reset allowed), by memory id.
#[track_caller]
fn usage(env: &TestEnv) -> BTreeMap<String, MemoryUsage> {
    let (store, reset) = UsageStore::open(&env.vault()).unwrap();
    assert!(reset.is_none(), "{reset:?}");
    store.state().iter().map(|(id, u)| (id.to_owned(), u)).collect()
}

/// The access count of memory `id` (0 when the state does not track it).
#[track_caller]
fn accesses(env: &TestEnv, id: &str) -> u64 {
    usage(env).get(id).map_or(0, |u| u.access_count)
}

const AUTH_V1: &str = "LinkAuthV01";

#[test]
fn reads_and_searches_count_once_each_and_append_to_the_journal() {
    let env = TestEnv::with_vault("links");
    env.run(["doctor"]).success();
    env.run(["show", "auth-v1"]).success();
    env.run(["show", "auth-v1"]).success();
    assert_eq!(temperature(&env, "auth-v1"), 0.8, "+0.15 per read from 0.50");
    assert_eq!(accesses(&env, AUTH_V1), 2);
    let journal = env.vault().join("state/usage.journal");
    let before = std::fs::metadata(&journal).unwrap().len();
    let hits = env.run(["search", "memcached sessions", "--json"]).success().json();
    let found: Vec<&str> =
        hits["results"].as_array().unwrap().iter().map(|h| h["name"].as_str().unwrap()).collect();
    assert!(found.contains(&"auth-v1"), "{hits:#}");
    assert_eq!(accesses(&env, AUTH_V1), 3, "a search hit is an access");
    assert!(std::fs::metadata(&journal).unwrap().len() > before, "the search appended");
    assert!(!env.exists("state/usage.json"));
    // Folding changes no value.
    let unfolded = usage(&env);
    env.run(["maintain"]).success();
    assert_eq!(usage(&env), unfolded);
    assert!(env.exists("state/usage.bin"));
}

#[test]
fn a_usage_json_vault_reads_the_same_and_its_first_write_upgrades_it() {
    let env = TestEnv::with_vault("links");
    // The state as a memlane before the base and journal wrote it.
    env.write(
        "state/usage.json",
        r#"{ "version": 1, "activity_days": ["2026-01-09"],
  "memories": { "LinkAuthV01": { "temperature": 0.95, "updated_at": 1767952800,
    "access_count": 7, "last_access": 1767952800, "first_seen": 1767866400,
    "activity_days_at_last_access": 1, "announced_cold": false, "last_announced": null } } }
"#,
    );
    let before = usage(&env);
    let old = before[AUTH_V1];
    assert_eq!((old.access_count, old.temperature, old.updated_at), (7, 0.95, 1767952800));
    let t = temperature(&env, "auth-v1");
    assert!(t > 0.0 && t < 0.95 && t != 0.5, "read from usage.json and cooled: {t}");
    env.run(["show", "auth-v1"]).success();
    assert!(!env.exists("state/usage.json"), "the first write retires usage.json");
    assert!(env.exists("state/usage.bin"));
    let after = usage(&env);
    assert_eq!(after[AUTH_V1].access_count, 8);
    assert_eq!(after[AUTH_V1].first_seen, before[AUTH_V1].first_seen);
    assert!(temperature(&env, "auth-v1") > t, "warmed from where it was");
}

#[test]
fn a_corrupt_base_is_reported_and_costs_only_usage_history() {
    let env = TestEnv::with_vault("links");
    env.run(["show", "auth-v1"]).success();
    env.run(["maintain"]).success();
    env.write("state/usage.bin", "{\"format\":2}\nnot records");
    let out = env.run(["show", "auth-v1"]).success();
    assert!(out.stderr.contains("usage.bin"), "{out}");
    assert!(out.stderr.contains("memories are unaffected"), "{out}");
    assert_eq!(accesses(&env, AUTH_V1), 1, "started over, then read once");
}

/// A one-command search reads the usage state once, even when it searches again because a file
/// changed while it checked the files (its first answer, found meanwhile, is dropped): a damaged
/// base is reported once, and the edit found. (`--no-touch`: warming the results reads the state
/// again to write it.)
#[test]
fn a_search_run_again_after_an_edit_reports_a_corrupt_base_once() {
    let env = TestEnv::with_vault("links");
    env.run(["show", "auth-v1"]).success();
    env.run(["maintain"]).success();
    env.write("state/usage.bin", "{\"format\":2}\nnot records");
    let file = env.vault().join("onboarding.md");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{text}\nThe okapi sanctuary opens on Mondays.\n")).unwrap();
    let out = env.run_with_the_check_held(&["search", "okapi sanctuary", "--json", "--no-touch"]);
    let out = out.success();
    assert!(out.stderr.contains("the answer found meanwhile is dropped"), "{out}");
    assert_eq!(out.stderr.matches("memories are unaffected").count(), 1, "{out}");
    assert_eq!(out.json()["results"][0]["name"], "onboarding", "{out}");
}

#[test]
fn a_journal_cut_short_by_a_crash_is_ignored_without_a_word() {
    let env = TestEnv::with_vault("links");
    env.run(["show", "auth-v1"]).success();
    // Half a record, as a writer killed in the middle of its append leaves it.
    let journal = env.vault().join("state/usage.journal");
    let mut bytes = std::fs::read(&journal).unwrap();
    bytes.extend_from_slice(&[70, 0, 0, 0, 1, 2, 3, 4, 1, 0x9a]);
    std::fs::write(&journal, &bytes).unwrap();
    let out = env.run(["show", "auth-v1"]).success();
    assert!(!out.stderr.contains("reset"), "{out}");
    assert_eq!(accesses(&env, AUTH_V1), 2);
    let out = env.run(["show", "auth-v1"]).success();
    assert!(!out.stderr.contains("reset"), "{out}");
    assert_eq!(accesses(&env, AUTH_V1), 3, "appended after the cut, not after the garbage");
}

/// `maintain` folds the journal into a new base; killed (abort, as `kill -9` stops it) before
/// the base is written, between the base and the new journal, and in the base's rename, the
/// next commands count every read exactly once.
#[test]
fn a_writer_killed_while_folding_counts_nothing_twice_and_loses_nothing() {
    for point in ["usage.fold.base", "usage.fold.journal", "write.rename"] {
        let env = TestEnv::with_vault("links");
        env.run(["show", "auth-v1"]).success();
        env.run(["show", "auth-v1"]).success();
        env.run(["show", "auth-v2"]).success();
        let before = usage(&env);
        let out = env.command().arg("maintain").env("MEMLANE_FAILPOINT", point).output().unwrap();
        assert_eq!(out.status.code(), None, "{point}: maintain was not killed: {out:?}");
        assert_eq!(usage(&env), before, "{point}: the state changed");
        env.run(["show", "auth-v1"]).success();
        assert_eq!(accesses(&env, AUTH_V1), 3, "{point}");
        env.run(["maintain"]).success();
        assert_eq!(accesses(&env, AUTH_V1), 3, "{point}: counted twice after the fold");
        env.run(["show", "auth-v1"]).success();
        assert_eq!(accesses(&env, AUTH_V1), 4, "{point}");
        assert_eq!(usage(&env)["LinkAuthV02"].access_count, 1, "{point}");
    }
}

/// The state files replaced by links to files outside the vault: nothing is read through them
/// or written through them.
#[cfg(unix)]
#[test]
fn usage_files_that_are_links_are_never_followed() {
    let env = TestEnv::with_vault("links");
    env.run(["show", "auth-v1"]).success();
    env.run(["maintain"]).success();
    env.run(["show", "auth-v1"]).success();
    let outside = env.root.join("outside");
    std::fs::create_dir(&outside).unwrap();
    let mut theirs = Vec::new();
    for name in ["usage.bin", "usage.journal"] {
        let path = env.vault().join("state").join(name);
        let target = outside.join(name);
        std::fs::rename(&path, &target).unwrap();
        std::os::unix::fs::symlink(&target, &path).unwrap();
        theirs.push((target.clone(), std::fs::read(&target).unwrap()));
    }
    let out = env.run(["show", "auth-v1"]).success();
    assert!(out.stderr.contains("memories are unaffected"), "{out}");
    for (target, bytes) in theirs {
        assert_eq!(std::fs::read(&target).unwrap(), bytes, "written through a link");
    }
    assert_eq!(accesses(&env, AUTH_V1), 1, "the linked history was not read");
}

#[test]
fn processes_reading_at_once_lose_no_access() {
    const PROCESSES: usize = 4;
    const READS: usize = 5;
    let env = TestEnv::with_vault("links");
    env.run(["doctor"]).success();
    std::thread::scope(|s| {
        for _ in 0..PROCESSES {
            s.spawn(|| {
                for _ in 0..READS {
                    env.run(["show", "auth-v1"]).success();
                }
            });
        }
    });
    assert_eq!(accesses(&env, AUTH_V1), (PROCESSES * READS) as u64);
}

/// The MCP server buffers the uses of its calls and writes them when it stops (or within its
/// flush interval): they count once each, appended to the journal, and the base is not
/// rewritten.
#[test]
fn the_mcp_server_appends_its_uses_and_leaves_the_base_alone() {
    let env = TestEnv::with_vault("links");
    env.run(["show", "auth-v1"]).success();
    env.run(["maintain"]).success();
    let base_path = env.vault().join("state/usage.bin");
    let base = std::fs::read(&base_path).unwrap();
    {
        let mut c =
            crate::mcp::Client::start_with(&env, &[("MEMLANE_LIFECYCLE__MAINTAIN_MINUTES", "0")]);
        c.initialize();
        c.ok("read_memory", serde_json::json!({"name": "auth-v1"}));
        c.ok("read_memory", serde_json::json!({"name": "auth-v1"}));
    }
    assert_eq!(std::fs::read(&base_path).unwrap(), base, "the base was rewritten");
    assert_eq!(accesses(&env, AUTH_V1), 3, "one read by the CLI, two by the server");
}
