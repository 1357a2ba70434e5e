//! `memlane context` and `memlane hook`: the digest an agent starts a session with, in a real git
//! repository with a changed file, and the hooks fed the event JSON Claude Code sends.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::common::{CommandOutput, TestEnv};

/// A project `root/proj` that is a git repository (branch `feature/login`) with a vault made by
/// `memlane init`, a pinned memory, a memory linked to `src/auth.py`, one linked to a file that
/// does not change, and a few others; `src/auth.py` is committed, then modified.
struct Project {
    env: TestEnv,
    dir: PathBuf,
}

impl Project {
    fn new() -> Project {
        let env = TestEnv::empty();
        let dir = env.root.join("proj");
        std::fs::create_dir_all(dir.join("src")).unwrap();
        let p = Project { env, dir };
        p.git(&["init", "-q", "-b", "feature/login"]);
        p.run(&["init"]).success();
        std::fs::write(p.dir.join("src/auth.py"), "def login(): pass\n").unwrap();
        std::fs::write(p.dir.join("src/billing.py"), "def bill(): pass\n").unwrap();
        p.git(&["add", "-A"]);
        p.git(&["commit", "-q", "-m", "start"]);
        p.add("release-train", "decision", "Releases are cut from main every Friday at noon.");
        p.run(&["pin", "release-train"]).success();
        p.add(
            "session-store",
            "decision",
            "Sessions live in Redis since v2; the login code is in [[src/auth.py]].",
        );
        p.add("billing-rounding", "bug_fix", "Invoices round half up; see [[src/billing.py]].");
        p.add("makefile-tabs", "preference", "The user wants tabs, never spaces, in the Makefile.");
        p.add("ci-runner", "fact", "CI runs on two cores; keep the test suite under ten minutes.");
        std::fs::write(p.dir.join("src/auth.py"), "def login(): return True\n").unwrap();
        p
    }

    fn add(&self, name: &str, ty: &str, text: &str) {
        self.run(&["add", name, text, "--type", ty]).success();
    }

    /// memlane in the project folder, finding `.memories/` as a user would (no MEMLANE_VAULT).
    fn command(&self) -> Command {
        let mut cmd = self.env.command();
        cmd.env_remove("MEMLANE_VAULT").current_dir(&self.dir);
        cmd
    }

    fn run(&self, args: &[&str]) -> CommandOutput {
        output(self.command().args(args).output().unwrap())
    }

    /// A hook run the way Claude Code runs it: `event` on stdin, from `cwd`.
    fn hook(
        &self,
        cwd: &Path,
        args: &[&str],
        event: &Value,
        vars: &[(&str, &str)],
    ) -> CommandOutput {
        use std::io::Write as _;
        let mut cmd = self.command();
        cmd.current_dir(cwd)
            .envs(vars.iter().copied())
            .arg("hook")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        child.stdin.take().unwrap().write_all(event.to_string().as_bytes()).unwrap();
        output(child.wait_with_output().unwrap())
    }

    fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
            .args(["-c", "commit.gpgsign=false"])
            .args(args)
            .current_dir(&self.dir)
            .env("HOME", self.env.root.join("home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The event JSON Claude Code sends a `SessionStart` hook.
    fn session_start_event(&self) -> Value {
        json!({
            "session_id": "9f1c2d3e-0000-4000-8000-000000000001",
            "transcript_path": self.env.root.join("home/.claude/projects/proj/9f1c.jsonl"),
            "cwd": self.dir,
            "permission_mode": "default",
            "hook_event_name": "SessionStart",
            "source": "startup",
        })
    }

    /// The event JSON Claude Code sends a `Stop` hook.
    fn stop_event(&self, session: &str, active: bool) -> Value {
        json!({
            "session_id": session,
            "transcript_path": self.env.root.join("home/.claude/projects/proj/s.jsonl"),
            "cwd": self.dir,
            "permission_mode": "default",
            "hook_event_name": "Stop",
            "stop_hook_active": active,
        })
    }
}

fn output(out: std::process::Output) -> CommandOutput {
    CommandOutput {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// Estimated tokens as memlane counts them: characters / 4, rounded up.
fn tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// The line of memory `name` in a digest, and its position.
fn line_of<'a>(text: &'a str, name: &str) -> Option<(usize, &'a str)> {
    text.lines().enumerate().find(|(_, l)| l.starts_with(&format!("- {name} (")))
}

#[test]
fn context_lists_pinned_first_then_the_memories_of_the_changed_files() {
    let p = Project::new();
    let out = p.run(&["context"]).success();
    let text = &out.stdout;
    assert!(text.contains("Branch: feature/login"), "{text}");
    assert!(text.contains("changed: src/auth.py"), "{text}");
    let (pinned, line) = line_of(text, "release-train").unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("(decision, today): Releases are cut from main"), "{line}");
    let (linked, line) = line_of(text, "session-store").unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("→ src/auth.py"), "{line}");
    assert!(pinned < linked, "pinned first:\n{text}");
    // Every other memory is listed after them, once, by temperature.
    for name in ["billing-rounding", "makefile-tabs", "ci-runner"] {
        let (at, _) = line_of(text, name).unwrap_or_else(|| panic!("{name} missing:\n{text}"));
        assert!(at > linked, "{name} after the linked memories:\n{text}");
        assert_eq!(text.matches(&format!("- {name} (")).count(), 1, "{text}");
    }
    // billing.py did not change: its memory is not listed as linked to a changed file.
    let (_, billing) = line_of(text, "billing-rounding").unwrap();
    assert!(!billing.contains('→'), "{billing}");
    assert!(tokens(text) <= 400, "{} tokens:\n{text}", tokens(text));

    // A task's best match comes before the merely hot ones.
    let out = p.run(&["context", "--for", "makefile indentation tabs"]).success();
    let (task, _) = line_of(&out.stdout, "makefile-tabs").unwrap();
    let (ci, _) = line_of(&out.stdout, "ci-runner").unwrap();
    assert!(out.stdout.contains("Relevant to the task:"), "{}", out.stdout);
    assert!(task < ci, "{}", out.stdout);
}

#[test]
fn context_keeps_to_the_budget() {
    let p = Project::new();
    for budget in [30, 60, 90] {
        let out = p.run(&["context", "--json", "--budget", &budget.to_string()]).success();
        let v = out.json();
        let text = v["text"].as_str().unwrap();
        assert!(tokens(text) <= budget, "budget {budget}: {} tokens:\n{text}", tokens(text));
        assert!(v["tokens"].as_u64().unwrap() as usize <= budget, "{v}");
        assert!(v["omitted"].as_u64().unwrap() > 0, "budget {budget} leaves some out: {v}");
        // Whatever fits, the pinned memory goes first.
        if let Some(first) = v["memories"].as_array().unwrap().first() {
            assert_eq!(first["name"], "release-train", "{v}");
        }
    }
    let out = p.run(&["context", "--budget", "0"]).code(2);
    assert!(out.stderr.contains("--budget"), "{}", out.stderr);
}

#[test]
fn context_json_shape() {
    let p = Project::new();
    let v = p.run(&["context", "--json"]).success().json();
    for key in ["budget", "tokens", "branch", "changed_files", "total", "shown", "omitted", "text"]
    {
        assert!(v.get(key).is_some(), "no {key}: {v}");
    }
    assert_eq!(v["budget"], 400);
    assert_eq!(v["branch"], "feature/login");
    assert_eq!(v["changed_files"], json!(["src/auth.py"]));
    assert_eq!(v["total"], 5);
    let items = v["memories"].as_array().unwrap();
    assert_eq!(v["shown"].as_u64().unwrap() as usize, items.len());
    let linked = items.iter().find(|m| m["name"] == "session-store").unwrap();
    assert_eq!(linked["section"], "changed_files", "{linked}");
    assert_eq!(linked["target_document"], "src/auth.py", "{linked}");
    assert_eq!(linked["memory_id"], "memory:session-store");
    assert_eq!(linked["type"], "decision");
    assert_eq!(linked["age"], "today");
    for key in ["id", "updated_at", "pinned", "temperature", "summary", "tokens"] {
        assert!(linked.get(key).is_some(), "no {key}: {linked}");
    }
    assert_eq!(items[0]["section"], "pinned");
    assert!(items.iter().any(|m| m["section"] == "hot"), "{v}");
}

#[test]
fn context_shows_nothing_private() {
    let p = Project::new();
    p.add(
        "deploy-creds",
        "fact",
        "Deploy with key AKIAIOSFODNN7EXAMPLE and password <private>hunter2</private> today.",
    );
    // A hand-written file is never rewritten: its secrets must be redacted when shown.
    std::fs::write(
        p.dir.join(".memories/hand-written.md"),
        "---\ntype: fact\npinned: true\n---\n\nThe token is ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d for CI.\n",
    )
    .unwrap();
    for args in [&["context"][..], &["context", "--json"][..]] {
        let out = p.run(args).success();
        assert!(out.stdout.contains("hand-written"), "{}", out.stdout);
        assert!(out.stdout.contains("deploy-creds"), "{}", out.stdout);
        for secret in ["AKIAIOSFODNN7EXAMPLE", "hunter2", "ghp_u8jz"] {
            assert!(!out.stdout.contains(secret), "{secret} leaked:\n{}", out.stdout);
        }
    }
}

#[test]
fn context_outside_git_skips_the_work_tree() {
    let env = TestEnv::with_vault("links");
    let out = env.run(["context", "--json"]).success();
    let v = out.json();
    assert_eq!(v["branch"], Value::Null, "{v}");
    assert_eq!(v["changed_files"], json!([]), "{v}");
    assert_eq!(v["shown"], 6, "{v}");
}

#[test]
fn session_start_hook_prints_the_digest_for_the_events_folder() {
    let p = Project::new();
    // Claude Code runs the hook from anywhere; the event's `cwd` is the project.
    let elsewhere = p.env.root.join("home");
    let vars = [("MEMLANE_HOOKS__SESSION_START_BUDGET", "120")];
    let out = p.hook(&elsewhere, &["session-start"], &p.session_start_event(), &vars);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = &out.stdout;
    assert!(line_of(text, "release-train").is_some(), "the pinned memory:\n{text}");
    let (_, linked) = line_of(text, "session-store").unwrap_or_else(|| panic!("{text}"));
    assert!(linked.contains("→ src/auth.py"), "the memory of the changed file: {linked}");
    assert!(tokens(text) <= 120, "{} tokens over the budget of 120:\n{text}", tokens(text));
    // Plain text, read by the agent as context: no JSON.
    assert!(!text.trim_start().starts_with('{'), "{text}");
}

/// The memories a digest lists as linked to a changed file, in order.
fn linked_names(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with("- ") && l.contains(" → "))
        .filter_map(|l| l[2..].split(" (").next().map(str::to_owned))
        .collect()
}

#[test]
fn session_start_hook_follows_links_added_and_removed() {
    let p = Project::new();
    let event = p.session_start_event();
    // Answered from the index of the links per file with the graph's journal replayed on it,
    // not from the whole graph.
    let digest = || {
        let out = p.hook(&p.dir, &["session-start"], &event, &[("MEMLANE_LOG", "debug")]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(!out.stderr.contains("no fresh index of the links per target"), "{}", out.stderr);
        out.stdout
    };
    assert_eq!(linked_names(&digest()), ["session-store"]);

    // A memory added a moment ago, by memlane or by hand, is listed by the next session start.
    p.add("auth-timeout", "fact", "Logins time out after ten minutes; see [[src/auth.py]].");
    std::fs::write(
        p.dir.join(".memories/hand-linked.md"),
        "---\ntype: fact\n---\n\nThe login form posts to [[src/auth.py]] over HTTPS only.\n",
    )
    .unwrap();
    let text = digest();
    let mut got = linked_names(&text);
    got.sort();
    assert_eq!(got, ["auth-timeout", "hand-linked", "session-store"], "{text}");
    let (_, line) = line_of(&text, "hand-linked").unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("→ src/auth.py"), "{line}");

    // A link removed, a memory removed: no longer listed as linked.
    p.run(&["update", "session-store", "Sessions live in Redis since v2."]).success();
    p.run(&["rm", "auth-timeout"]).success();
    let text = digest();
    assert_eq!(linked_names(&text), ["hand-linked"], "{text}");
    let (_, line) = line_of(&text, "session-store").unwrap_or_else(|| panic!("{text}"));
    assert!(!line.contains('→'), "no longer linked: {line}");
    assert!(line_of(&text, "auth-timeout").is_none(), "{text}");

    // After a rebuild (the whole graph written again) the answer is the same.
    p.run(&["reindex", "-q"]).success();
    assert_eq!(digest(), text);
    // A link added back to a file that already had one.
    p.run(&["update", "session-store", "Sessions live in Redis; login is in [[src/auth.py]]."])
        .success();
    let text = digest();
    let mut got = linked_names(&text);
    got.sort();
    assert_eq!(got, ["hand-linked", "session-store"], "{text}");
}

#[test]
fn session_start_hook_answers_the_same_without_its_link_index() {
    let p = Project::new();
    p.add("auth-timeout", "fact", "Logins time out after ten minutes; see [[src/auth.py]].");
    let event = p.session_start_event();
    let digest = || {
        let out = p.hook(&p.dir, &["session-start"], &event, &[]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    let want = digest();
    let mut got = linked_names(&want);
    got.sort();
    assert_eq!(got, ["auth-timeout", "session-store"], "{want}");
    let sidecar = p.dir.join(".memories/indices/graph/backlinks.json");
    assert!(sidecar.is_file(), "the index of the links per file is written with the graph");
    let fallback = "no fresh index of the links per target";
    let logged = || {
        let out = p.hook(&p.dir, &["session-start"], &event, &[("MEMLANE_LOG", "debug")]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stderr
    };
    assert!(!logged().contains(fallback), "the index answers, the graph is not loaded");
    std::fs::remove_file(&sidecar).unwrap();
    assert_eq!(digest(), want, "a missing index: the graph answers");
    assert!(logged().contains(fallback), "the graph is loaded instead");
    for garbage in ["{\"format\":2,\"graph\":\"1:2:3\",\"targets\":{}}", "{not json", ""] {
        std::fs::write(&sidecar, garbage).unwrap();
        assert_eq!(digest(), want, "an index that is stale or corrupt ({garbage:?}): the graph");
    }
    // A stale index that names a memory since removed is not believed either.
    p.run(&["reindex", "-q"]).success();
    let fresh = std::fs::read(&sidecar).unwrap();
    p.run(&["rm", "auth-timeout"]).success();
    p.run(&["reindex", "-q"]).success();
    std::fs::write(&sidecar, &fresh).unwrap();
    assert_eq!(linked_names(&digest()), ["session-store"]);
}

#[test]
fn hooks_never_fail_a_session() {
    let p = Project::new();
    std::fs::write(p.dir.join(".memories/config.toml"), "default_type = [unclosed\n").unwrap();
    let out = p.hook(&p.dir, &["session-start"], &p.session_start_event(), &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.lines().count(), 1, "one line:\n{}", out.stdout);
    assert!(out.stdout.starts_with("memlane: "), "{}", out.stdout);
    assert!(out.stdout.contains("config.toml"), "says what is wrong: {}", out.stdout);
    // The stop hook prints no decision (its stdout is read as one) and exits 0.
    let out = p.hook(&p.dir, &["stop"], &p.stop_event("s1", false), &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "", "{}", out.stdout);
    assert_eq!(
        out.stderr.lines().filter(|l| l.starts_with("memlane: ")).count(),
        1,
        "{}",
        out.stderr
    );

    // No vault at all, and an event that is not JSON.
    let bare = p.env.root.join("bare");
    std::fs::create_dir_all(&bare).unwrap();
    let mut cmd = p.command();
    cmd.current_dir(&bare)
        .args(["hook", "session-start"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    let mut child = cmd.stderr(Stdio::piped()).spawn().unwrap();
    {
        use std::io::Write as _;
        child.stdin.take().unwrap().write_all(b"not json at all").unwrap();
    }
    let out = output(child.wait_with_output().unwrap());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.lines().count(), 1, "{}", out.stdout);
    assert!(out.stdout.contains("no memlane vault"), "{}", out.stdout);
}

#[test]
fn stop_hook_reminds_once_per_session_and_can_be_turned_off() {
    let p = Project::new();
    let remind = |session: &str, active: bool, vars: &[(&str, &str)]| {
        let out = p.hook(&p.dir, &["stop"], &p.stop_event(session, active), vars);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    let first = remind("session-a", false, &[]);
    let v: Value = serde_json::from_str(first.trim()).unwrap_or_else(|e| panic!("{e}: {first}"));
    assert_eq!(v["decision"], "block", "{v}");
    let reason = v["reason"].as_str().unwrap();
    assert!(reason.contains("remember") && reason.contains("decision"), "{reason}");
    // The same session again, and while the agent continues for the reminder: nothing.
    assert_eq!(remind("session-a", false, &[]), "");
    assert_eq!(remind("session-b", true, &[]), "");
    // Another session is reminded once too.
    assert!(remind("session-b", false, &[]).contains("\"block\""));
    // The state is per user, beside the usage state, never committed.
    let status = p.git(&["status", "--porcelain", "--untracked-files=all"]);
    assert!(!status.contains("state/"), "{status}");
    // Off with one key, from the environment or the vault's config.
    assert_eq!(remind("session-c", false, &[("MEMLANE_HOOKS__STOP_REMINDER", "false")]), "");
    let config = p.dir.join(".memories/config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.contains("\n[hooks]\n"), "init writes the [hooks] table:\n{text}");
    std::fs::write(&config, text.replacen("\n[hooks]\n", "\n[hooks]\nstop_reminder = false\n", 1))
        .unwrap();
    assert_eq!(remind("session-d", false, &[]), "");
}
