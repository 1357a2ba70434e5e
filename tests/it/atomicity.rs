//! Through the real binary: frontmatter rewrites that never edit the
//! wrong text, multi-file operations that are all-or-nothing (a crash-point sweep kills each
//! write at every file-system step), duplicate ids, temp files, and reading where writing fails.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::{TestEnv, redact_ids};

const MULTILINE: &str = "---\nid: MultiLine01\ntype: fact\ndescription: \"Migration plan.\nstatus: draft\nuntil the review\"\nstatus: active\ncreated_at: 2026-01-01T00:00:00Z\n---\n\nThe body.\n";

fn yaml_of(text: &str) -> serde_yaml_ng::Mapping {
    let inner = text.strip_prefix("---\n").unwrap();
    let end = inner.find("\n---\n").unwrap();
    serde_yaml_ng::from_str(&inner[..end + 1]).unwrap()
}

#[test]
fn update_status_with_a_multi_line_description_archives_and_keeps_the_description() {
    let env = TestEnv::with_vault("basic");
    env.write("plan.md", MULTILINE);
    env.run(["update", "plan", "--status", "archived"]).success();
    let text = env.read("plan.md");
    let map = yaml_of(&text);
    assert_eq!(map["status"].as_str(), Some("archived"), "{text}");
    assert_eq!(
        map["description"].as_str(),
        Some("Migration plan. status: draft until the review"),
        "the description is untouched:\n{text}"
    );
    let shown = env.run(["show", "plan", "--json"]).success().json();
    assert_eq!(shown["status"], "archived", "{shown:#}");
}

#[test]
fn update_body_with_a_multi_line_description_puts_updated_at_outside_the_string() {
    let env = TestEnv::with_vault("basic");
    env.write("plan.md", MULTILINE);
    env.run(["update", "plan", "new body"]).success();
    let text = env.read("plan.md");
    assert!(
        text.contains("description: \"Migration plan.\nstatus: draft\nuntil the review\"\n"),
        "{text}"
    );
    let map = yaml_of(&text);
    assert!(map["updated_at"].as_str().is_some_and(|s| s.starts_with("2026-")), "{text}");
    assert!(text.ends_with("\nnew body\n"), "{text}");
}

#[test]
fn a_multi_line_flow_list_of_tags_can_be_updated_and_appended_to() {
    let env = TestEnv::with_vault("basic");
    env.write(
        "tagged.md",
        "---\nid: FlowTags001\ntype: fact\ntags: [a,\n  b]\nnote: kept # a comment\n---\n\nBody.\n",
    );
    env.run(["update", "tagged", "--add-tag", "c"]).success();
    env.run(["append", "tagged", "More."]).success();
    let text = env.read("tagged.md");
    let map = yaml_of(&text);
    let tags: Vec<&str> =
        map["tags"].as_sequence().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    assert_eq!(tags, ["a", "b", "c"], "{text}");
    assert!(text.contains("note: kept # a comment\n"), "{text}");
    assert!(text.ends_with("Body.\n\nMore.\n"), "{text}");
}

// ---------------------------------------------------------------------------------------------
// crash points

/// The state a user sees: every memory, trash and history file (indices, per-user state and the
/// temp files of killed writers excluded), with generated ids normalised.
fn state(env: &TestEnv) -> BTreeMap<String, String> {
    // An id YAML would read as something else (`1e10…`, digits only) is written quoted.
    let id_line = regex::Regex::new(r#"(?m)^id: "?[0-9A-Za-z]{11}"?$"#).unwrap();
    env.contents()
        .into_iter()
        .filter(|(p, _)| {
            !p.starts_with("indices/")
                && !p.starts_with("state/")
                && !Path::new(p).file_name().unwrap().to_string_lossy().ends_with(".tmp")
        })
        .map(|(p, b)| {
            let text = String::from_utf8_lossy(&b);
            // Generated ids differ from run to run; the fixtures' own ids are kept.
            let text = id_line.replace_all(&text, "id: [ID]");
            (redact_ids(&p), redact_ids(&text))
        })
        .collect()
}

/// Ids carried by more than one live memory file.
fn duplicate_ids(env: &TestEnv) -> Vec<String> {
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (p, b) in env.contents() {
        if !p.ends_with(".md") || p.starts_with('.') || p.starts_with("state/") {
            continue;
        }
        let text = String::from_utf8_lossy(&b);
        if let Some(id) = text.lines().find_map(|l| l.strip_prefix("id: ")) {
            seen.entry(id.to_owned()).or_default().push(p);
        }
    }
    seen.into_iter().filter(|(_, v)| v.len() > 1).map(|(k, v)| format!("{k}: {v:?}")).collect()
}

struct Op {
    name: &'static str,
    setup: fn(&TestEnv),
    args: &'static [&'static str],
}

fn big(env: &TestEnv) {
    env.write(
        "big.md",
        "---\nid: BigSplit001\ntype: fact\ntags: [q3]\n---\n\n# Plan\n\n## Goals\n\nShip search.\n\n## Risks\n\nThe model is slow.\n",
    );
    env.write("ref.md", "---\nid: RefersBig01\ntype: fact\n---\n\nSee [[memory:big]].\n");
}

fn nothing(_: &TestEnv) {}

fn with_history(env: &TestEnv) {
    env.run(["update", "auth-v1", "second version"]).success();
}

const OPS: &[Op] = &[
    Op {
        name: "merge",
        setup: nothing,
        args: &["merge", "auth-v1", "auth-v2", "--into", "auth-sessions"],
    },
    Op {
        name: "merge --archive",
        setup: nothing,
        args: &["merge", "auth-v2", "auth-v3", "--into", "auth-all", "--archive"],
    },
    Op { name: "mv", setup: nothing, args: &["mv", "auth-v2", "auth/v2"] },
    Op { name: "split --replace", setup: big, args: &["split", "big", "--replace"] },
    Op { name: "split", setup: big, args: &["split", "big"] },
    Op {
        name: "update",
        setup: nothing,
        args: &["update", "auth-v1", "new body", "--add-tag", "x"],
    },
    Op { name: "append", setup: nothing, args: &["append", "auth-v3", "more"] },
    Op { name: "add", setup: nothing, args: &["add", "fresh/note", "a new memory", "--force"] },
    Op { name: "rm", setup: nothing, args: &["rm", "auth-v1", "bug-login"] },
    Op { name: "restore", setup: with_history, args: &["restore", "auth-v1", "--version", "1"] },
    Op {
        name: "trash restore",
        setup: |e| {
            e.run(["rm", "onboarding"]).success();
        },
        args: &["trash", "restore", "onboarding"],
    },
];

/// Which kill points also get a later edit (see [`later_edit_survives`]): every point of
/// `merge`, and for the other operations one point in [`EDIT_SAMPLE`], rotating with the day
/// (`MEMLANE_SWEEP_OFFSET` picks the offset), so that the sweep stays affordable and every point
/// is covered over a few days.
const EDIT_SAMPLE: usize = 3;

fn edit_offset() -> usize {
    std::env::var("MEMLANE_SWEEP_OFFSET").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        let days = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() / 86_400);
        days as usize
    }) % EDIT_SAMPLE
}

/// Kills every write operation at each of its file-system steps (`MEMLANE_FAILPOINT=*:N`, which
/// aborts the process like `kill -9`), runs the next command, and checks that the vault is
/// exactly as before the operation or as after it, with no id on two live files. At the points
/// [`EDIT_SAMPLE`] picks, the killed vault is also put back as the kill left it and a file the
/// operation touches is edited (or made) by hand before the next command: the edit survives.
#[test]
fn every_write_is_all_or_nothing_at_every_kill_point() {
    let offset = edit_offset();
    let mut total = 0;
    let mut sweep = Sweep::default();
    let mut report = Vec::new();
    for op in OPS {
        let fresh = || {
            let env = TestEnv::with_vault("links");
            env.run(["list"]).success(); // build the indices first, like a used vault
            (op.setup)(&env);
            env
        };
        let reference = fresh();
        let before = state(&reference);
        reference.run(op.args).success();
        let after = state(&reference);
        assert_ne!(before, after, "{}: the operation changes something", op.name);
        // The memory files the operation changes, creates or removes: the ones a user edits.
        let touched: Vec<String> = before
            .keys()
            .chain(after.keys())
            .filter(|k| !k.starts_with('.') && before.get(*k) != after.get(*k))
            .cloned()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let mut points = 0;
        for n in 1.. {
            assert!(n < 2_000, "{}: no end to the steps", op.name);
            let env = fresh();
            let out = {
                let mut cmd = env.command();
                cmd.args(op.args).env("MEMLANE_FAILPOINT", format!("*:{n}"));
                cmd.output().unwrap()
            };
            if out.status.success() {
                assert_eq!(state(&env), after, "{}: an uninterrupted run", op.name);
                break;
            }
            assert_eq!(
                out.status.code(),
                None,
                "{}: step {n} aborts (killed by a signal)",
                op.name
            );
            points += 1;
            let edit_here = op.name == "merge" || n % EDIT_SAMPLE == offset;
            let killed = edit_here.then(|| snapshot_vault(&env));
            // The next command finds the interrupted operation and rolls it back.
            env.run(["list"]).success();
            let now = state(&env);
            assert!(
                now == before || now == after,
                "{}: killed at step {n}, the vault is neither before nor after:\n{}",
                op.name,
                diff(&before, &after, &now)
            );
            assert_eq!(duplicate_ids(&env), Vec::<String>::new(), "{} step {n}", op.name);
            assert!(
                !env.vault().join("state/intents").read_dir().is_ok_and(|mut d| d.next().is_some()),
                "{} step {n}: the intent record is gone after the next command",
                op.name
            );
            if let Some(killed) = killed {
                put_back_vault(&env, &killed);
                let target = &touched[n % touched.len()];
                later_edit_survives(&env, op.name, n, target, &before, &after, &mut sweep);
            }
        }
        report.push(format!("{}: {points}", op.name));
        total += points;
    }
    eprintln!(
        "kill points swept: {total} ({}); 0 lost, 0 mixed; later edits at {} points (offset {offset} of {EDIT_SAMPLE} beyond merge): {} survived, 0 lost, {} roll-back copies in .history/",
        report.join(", "),
        sweep.edits,
        sweep.edits,
        sweep.copies
    );
    assert!(total >= 200, "only {total} kill points: {report:?}");
    assert!(sweep.edits >= 60, "only {} later edits", sweep.edits);
    assert!(sweep.copies > 0, "no roll-back ever kept a copy: the edits never met a noted file");
}

#[derive(Default)]
struct Sweep {
    edits: usize,
    copies: usize,
}

/// A copy of the killed vault (hard links inside it kept: a move killed between its link and
/// its unlink leaves one file under two names), taken with `cp -a`.
fn snapshot_vault(env: &TestEnv) -> std::path::PathBuf {
    let copy = env.root.join("killed");
    let ok = std::process::Command::new("cp")
        .arg("-a")
        .arg(env.vault())
        .arg(&copy)
        .status()
        .unwrap()
        .success();
    assert!(ok, "cp -a of the vault");
    copy
}

/// Puts the killed vault back at its own path (the undo log is signed for that path).
fn put_back_vault(env: &TestEnv, killed: &Path) {
    std::fs::remove_dir_all(env.vault()).unwrap();
    std::fs::rename(killed, env.vault()).unwrap();
}

/// Edits `target` by hand (appends a line in place or through a new file and a rename, or makes
/// it when the kill left none), runs the next command, and checks that the edit survives, that
/// everything else is as before or as after the operation, and that any bytes the roll-back did
/// not put back are in `.history/` with a warning naming that copy.
fn later_edit_survives(
    env: &TestEnv,
    op: &str,
    n: usize,
    target: &str,
    before: &BTreeMap<String, String>,
    after: &BTreeMap<String, String>,
    sweep: &mut Sweep,
) {
    let path = env.vault().join(target);
    let edited = match std::fs::read_to_string(&path) {
        Ok(text) => format!("{text}\nA later edit at step {n}.\n"),
        Err(_) => format!("A file made by hand at step {n}.\n"),
    };
    if n.is_multiple_of(2) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &edited).unwrap(); // in place, as `>>` or some editors do
    } else {
        let tmp = env.root.join("edited.tmp");
        std::fs::write(&tmp, &edited).unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::rename(&tmp, &path).unwrap(); // a new file renamed over it, as most editors do
    }
    let out = env.run(["list"]).success();
    sweep.edits += 1;
    let files = env.contents();
    let holding: Vec<&String> = files
        .iter()
        .filter(|(p, b)| !p.starts_with('.') && !p.starts_with("state/") && *b == edited.as_bytes())
        .map(|(p, _)| p)
        .collect();
    assert!(
        !holding.is_empty(),
        "{op}: killed at step {n}, the later edit of {target} is lost:\n{out}"
    );
    // Everything else is before or after: drop the edited file, the files holding the edit
    // and the roll-back's copies from the comparison.
    let mut dropped: Vec<String> = holding.iter().map(|p| redact_ids(p)).collect();
    dropped.push(target.to_owned());
    let copies: Vec<(String, String)> = state(env)
        .into_iter()
        .filter(|(p, _)| p.starts_with(".history/") && p.ends_with("_rollback.md"))
        .collect();
    let without = |m: &BTreeMap<String, String>| -> BTreeMap<String, String> {
        m.iter()
            .filter(|(k, _)| !dropped.contains(k) && !copies.iter().any(|(c, _)| c == *k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    let (b, a, now) = (without(before), without(after), without(&state(env)));
    assert!(
        now == b || now == a,
        "{op}: killed at step {n} and {target} edited, the rest is neither before nor after:\n{}\n{out}",
        diff(&b, &a, &now)
    );
    for (copy, text) in &copies {
        assert!(
            before.values().chain(after.values()).any(|v| v == text),
            "{op} step {n}: {copy} holds bytes memlane never had"
        );
        let file = copy.rsplit('/').next().unwrap();
        assert!(out.stderr.contains(file), "{op} step {n}: no warning names {copy}:\n{out}");
    }
    sweep.copies += copies.len();
    assert_eq!(duplicate_ids(env), Vec::<String>::new(), "{op} step {n}, {target} edited");
    assert!(
        !env.vault().join("state/intents").read_dir().is_ok_and(|mut d| d.next().is_some()),
        "{op} step {n}: the intent record is gone after the next command"
    );
}

fn diff(
    before: &BTreeMap<String, String>,
    after: &BTreeMap<String, String>,
    now: &BTreeMap<String, String>,
) -> String {
    let mut out = String::new();
    for k in before.keys().chain(after.keys()).chain(now.keys()) {
        let (b, a, n) = (before.get(k), after.get(k), now.get(k));
        if n != b || n != a {
            out.push_str(&format!(
                "{k}: before={} after={} now={}\n",
                b.is_some(),
                a.is_some(),
                if n == b {
                    "=before"
                } else if n == a {
                    "=after"
                } else if n.is_some() {
                    "other"
                } else {
                    "absent"
                }
            ));
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// duplicate ids, failures midway, temp files, file modes

#[test]
fn two_files_with_one_id_never_share_a_history() {
    let env = TestEnv::with_vault("basic");
    env.run(["add", "dupa", "first text of a"]).success();
    env.run(["update", "dupa", "second text of a"]).success();
    std::fs::copy(env.vault().join("dupa.md"), env.vault().join("dupb.md")).unwrap();
    env.run(["update", "dupb", "b changes"]).code(2);
    let before = env.contents();
    let out = env.run(["restore", "dupb", "--version", "1"]).code(2);
    assert!(
        out.stderr.contains("`dupb` and `dupa` have the same id") && out.stderr.contains("dupa.md"),
        "{out}"
    );
    env.run(["history", "dupa"]).code(2);
    assert_eq!(env.contents(), before, "nothing was written");
    let doctor = env.run(["doctor", "--json"]).success().json();
    let dup: Vec<_> = doctor["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == "duplicate_id")
        .collect();
    assert_eq!(dup.len(), 1, "{doctor:#}");
    assert_eq!(dup[0]["memories"], serde_json::json!(["dupa", "dupb"]));
    let text = env.run(["doctor"]).success();
    assert!(!text.stdout.contains("no problems found"), "{text}");
}

#[test]
fn a_merge_that_fails_midway_changes_nothing_and_says_why_in_words() {
    let env = TestEnv::with_vault("links");
    env.run(["list"]).success();
    let before = state(&env);
    let mut cmd = env.command();
    cmd.args(["merge", "auth-v1", "auth-v2", "--into", "auth-sessions"])
        .env("MEMLANE_FAILPOINT", "delete.rename=enospc");
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("the disk is full"), "{stderr}");
    assert!(stderr.contains("auth-v1.md") && !stderr.contains(".tmp"), "{stderr}");
    assert!(!stderr.contains("os error"), "{stderr}");
    assert_eq!(state(&env), before, "every file is back as it was");
}

#[test]
fn temp_files_of_killed_writers_are_reported_and_removed_but_never_a_live_writers() {
    let env = TestEnv::with_vault("basic");
    env.run(["list"]).success();
    // pid 0 is never a writer; this test's own pid is alive and its file is fresh.
    env.write(".deploy-notes.md.0.a1b2c3d4e5f6.tmp", "half a file");
    env.write("state/.usage.json.0.a1b2c3d4e5f6.tmp", "{");
    let live = format!(".standup.md.{}.0123456789ab.tmp", std::process::id());
    env.write(&live, "being written");
    let doctor = env.run(["doctor", "--json"]).success().json();
    let temps =
        doctor["problems"].as_array().unwrap().iter().filter(|p| p["kind"] == "temp_file").count();
    assert_eq!(temps, 2, "{doctor:#}");
    // The next writer removes the stale state temp file; maintain removes the rest.
    env.run(["update", "standup", "--add-tag", "x"]).success();
    assert!(!env.exists("state/.usage.json.0.a1b2c3d4e5f6.tmp"));
    env.run(["maintain"]).success();
    assert!(!env.exists(".deploy-notes.md.0.a1b2c3d4e5f6.tmp"));
    assert!(env.exists(&live), "a live writer's temp file is kept");
}

#[test]
fn init_ignores_temp_files_in_git() {
    let env = TestEnv::empty();
    env.run(["init"]).success();
    let ignore = std::fs::read_to_string(env.vault().join(".gitignore")).unwrap();
    assert!(ignore.lines().any(|l| l == ".*.tmp"), "{ignore}");
}

#[cfg(unix)]
#[test]
fn a_memorys_file_mode_survives_updates_and_history() {
    use std::os::unix::fs::PermissionsExt as _;
    let env = TestEnv::with_vault("basic");
    let path = env.vault().join("standup.md");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    env.run(["update", "standup", "new text"]).success();
    env.run(["append", "standup", "more"]).success();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600);
    let hist = env.run(["history", "standup", "--json"]).success().json();
    for v in hist["versions"].as_array().unwrap() {
        let p = v["file_path"].as_str().unwrap().replace("[ROOT]", &env.root.display().to_string());
        assert_eq!(mode(Path::new(&p)), 0o600, "{p}");
    }
}

// ---------------------------------------------------------------------------------------------
// reading where writing fails (simulated with the failpoint hook: tests run as root, which
// ignores file modes)

#[test]
fn add_on_a_full_disk_at_the_usage_step_reports_the_memory_it_wrote() {
    let env = TestEnv::with_vault("basic");
    let mut cmd = env.command();
    cmd.args(["add", "written", "a memory whose usage state cannot be saved", "--force"])
        .env("MEMLANE_FAILPOINT", "usage.write=enospc");
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(env.exists("written.md"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("written"));
    assert!(
        stderr.contains("the disk is full") && stderr.contains("written was added"),
        "{stderr}"
    );
}

#[test]
fn show_and_search_answer_when_nothing_can_be_written() {
    let env = TestEnv::with_vault("search");
    env.run(["list"]).success();
    env.write("fresh.md", "a memory about the cache warmup written by hand\n");
    for args in [&["show", "cache-v1"][..], &["search", "cache"][..]] {
        let mut cmd = env.command();
        cmd.args(args).env("MEMLANE_FAILPOINT", "temp.create=erofs,usage.write=erofs");
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(stdout.contains("cache"), "{stdout}");
        if args[0] == "search" {
            // A real answer: the memory written by hand since the last index is found.
            assert!(stdout.contains("fresh"), "{stdout}");
        }
        // One warning, in words.
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("the vault cannot be written (the file system is read-only)")
                && !stderr.contains("os error"),
            "{stderr}"
        );
    }
}
