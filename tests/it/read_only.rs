//! Reading works where writing cannot. The vault is made truly read-only with
//! a read-only bind mount in a private mount namespace (`unshare -m`: tests run as root, which
//! ignores file modes), and the real binary and the real MCP protocol must answer from the
//! files, say once that the index and usage state are not updated, and change no byte of the
//! vault. Where `unshare` or `mount` cannot be used, these tests skip and say why.

use std::process::Command;

use serde_json::json;

use crate::common::TestEnv;
use crate::mcp::Client;

/// The shell line that makes `$V` read-only in a new mount namespace and runs `$0` (memlane)
/// with the arguments.
const RO_SCRIPT: &str =
    r#"mount --bind "$V" "$V" && mount -o remount,bind,ro "$V" "$V" && exec "$0" "$@""#;

/// `memlane ARGS` on `env`'s vault mounted read-only, with `env`'s environment.
pub(crate) fn read_only(env: &TestEnv, args: &[&str]) -> Command {
    let inner = env.command();
    let mut cmd = Command::new("unshare");
    cmd.env_clear();
    for (k, v) in inner.get_envs() {
        if let Some(v) = v {
            cmd.env(k, v);
        }
    }
    cmd.env("V", env.vault())
        .current_dir(inner.get_current_dir().unwrap())
        .args(["-m", "sh", "-c", RO_SCRIPT])
        .arg(inner.get_program())
        .args(args);
    cmd
}

/// Why a read-only mount cannot be made here, if it cannot (then the test skips).
pub(crate) fn no_read_only_mount(env: &TestEnv) -> Option<String> {
    let probe = Command::new("unshare")
        .env("V", env.vault())
        .args(["-m", "sh", "-c", r#"mount --bind "$V" "$V" && mount -o remount,bind,ro "$V" "$V" && ! touch "$V/probe" 2>/dev/null"#])
        .output();
    match probe {
        Err(e) => Some(format!("cannot run unshare: {e}")),
        Ok(o) if !o.status.success() => Some(format!(
            "cannot make a read-only bind mount with `unshare -m` (needs root): {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Ok(_) if env.exists("probe") => Some("the read-only mount did not hold".into()),
        Ok(_) => None,
    }
}

macro_rules! need_read_only_mount {
    ($env:expr) => {
        if let Some(why) = no_read_only_mount(&$env) {
            eprintln!("skipped: {why}");
            return;
        }
    };
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(mut cmd: Command) -> Run {
    let out = cmd.output().unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The one warning a read gives when the vault cannot be written: exactly one line, in words.
fn assert_one_warning(r: &Run, why: &str) {
    let warnings: Vec<&str> = r.stderr.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "exactly one warning:\n{}", r.stderr);
    let w = warnings[0];
    assert!(
        w.contains("the vault cannot be written")
            && w.contains(why)
            && w.contains("search index")
            && w.contains("usage state"),
        "{w}"
    );
    assert!(!r.stderr.contains("os error") && !r.stderr.contains("error:"), "{}", r.stderr);
}

/// A vault whose indices are stale (or missing): a memory written by hand since.
fn stale_vault(indexed_before: bool) -> TestEnv {
    let env = TestEnv::with_vault("search");
    if indexed_before {
        env.run(["search", "cache", "--no-touch"]).success();
        assert!(env.exists("indices/manifest.bin"));
    }
    env.write(
        "zebra-crossing.md",
        "# Zebra crossing\n\nThe zebra crossing outside the office is repainted every spring.\n",
    );
    env
}

#[test]
fn search_show_and_doctor_answer_from_the_files_on_a_read_only_vault() {
    for indexed_before in [true, false] {
        let env = stale_vault(indexed_before);
        need_read_only_mount!(env);
        let before = env.contents();

        // The memory written since the last index (or with no index at all) is found.
        let r = run(read_only(&env, &["search", "zebra crossing"]));
        assert_eq!(r.code, Some(0), "indexed before: {indexed_before}\n{}", r.stderr);
        assert!(r.stdout.contains("zebra-crossing"), "{}", r.stdout);
        assert_one_warning(&r, "the file system is read-only");

        let r = run(read_only(&env, &["search", "memcached", "--json"]));
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        let hits = v["results"].as_array().unwrap_or_else(|| panic!("{v}"));
        assert!(hits.iter().any(|h| h["name"] == "cache-v1"), "{v}");
        assert_one_warning(&r, "the file system is read-only");

        let r = run(read_only(&env, &["show", "cache-v1"]));
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        assert!(r.stdout.contains("memcached for five minutes"), "{}", r.stdout);
        assert_one_warning(&r, "the file system is read-only");

        let r = run(read_only(&env, &["list", "--sort", "importance"]));
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        assert!(
            r.stdout.contains("zebra-crossing") && r.stdout.contains("IMPORTANCE"),
            "{}",
            r.stdout
        );
        assert_one_warning(&r, "the file system is read-only");

        let r = run(read_only(&env, &["doctor", "--json"]));
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        // Every memory file, the one written by hand included.
        let files = env.files().iter().filter(|f| f.ends_with(".md")).count();
        assert_eq!(v["memories"], json!(files), "{v}");
        assert_one_warning(&r, "the file system is read-only");

        assert!(env.contents() == before, "no file of the vault changed");
        assert!(!env.exists("probe"));
    }
}

#[test]
fn search_answers_from_current_indices_on_a_read_only_vault() {
    let env = stale_vault(true);
    need_read_only_mount!(env);
    // Brought up to date while writable: the read-only run finds nothing to change.
    env.run(["search", "zebra", "--no-touch"]).success();
    let before = env.contents();
    let r = run(read_only(&env, &["search", "zebra crossing"]));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.contains("zebra-crossing"), "{}", r.stdout);
    // The usage state (a search warms what it returns) cannot be saved: said once.
    assert_one_warning(&r, "the file system is read-only");
    let r = run(read_only(&env, &["search", "zebra crossing", "--no-touch"]));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.contains("zebra-crossing"), "{}", r.stdout);
    assert!(env.contents() == before, "no file of the vault changed");
}

#[test]
fn mcp_search_answers_from_the_files_on_a_read_only_vault() {
    let env = stale_vault(true);
    need_read_only_mount!(env);
    let before = env.contents();
    let mut client = Client::spawn(read_only(&env, &["mcp"]));
    client.initialize();
    for _ in 0..2 {
        let r = client.ok("search_memories", json!({"query": "zebra crossing"}));
        let names: Vec<&str> =
            r["results"].as_array().unwrap().iter().filter_map(|h| h["name"].as_str()).collect();
        assert_eq!(names.first(), Some(&"zebra-crossing"), "{r}");
        let warning = r["warning"].as_str().unwrap_or_else(|| panic!("a warning: {r}"));
        assert!(
            warning.contains("the vault cannot be written (the file system is read-only)"),
            "{warning}"
        );
    }
    let r = client.ok("search_memories", json!({"query": "memcached"}));
    assert!(r["results"].as_array().unwrap().iter().any(|h| h["name"] == "cache-v1"), "{r}");
    drop(client);
    assert!(env.contents() == before, "no file of the vault changed");
}

// ---------------------------------------------------------------------------------------------
// the same through the failpoint hook (no mount needed): every write of the index and the
// usage state fails as on a full disk

#[test]
fn search_doctor_and_show_answer_when_the_disk_is_full() {
    let env = stale_vault(true);
    for args in [&["search", "zebra crossing"][..], &["show", "zebra-crossing"], &["doctor"]] {
        let mut cmd = env.command();
        cmd.args(args).env("MEMLANE_FAILPOINT", "temp.create=enospc,usage.write=enospc");
        let r = run(cmd);
        assert_eq!(r.code, Some(0), "{args:?}: {}", r.stderr);
        assert!(r.stdout.contains("zebra") || r.stdout.contains("memories"), "{}", r.stdout);
        assert_one_warning(&r, "the disk is full");
    }
}
