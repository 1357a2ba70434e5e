//! The vault in a real git repository: what `git status` shows after memlane writes, and a
//! memory file left with conflict markers by a real `git merge`. Also names typed as paths.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{CommandOutput, TestEnv};

/// A project folder `root/proj` that is a git repository with a vault created by `memlane init`.
pub(crate) struct Repo {
    pub(crate) env: TestEnv,
    pub(crate) dir: PathBuf,
}

impl Repo {
    pub(crate) fn new() -> Repo {
        let env = TestEnv::empty();
        let dir = env.root.join("proj");
        std::fs::create_dir_all(&dir).unwrap();
        let repo = Repo { env, dir };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.run(&["init"]).success();
        repo
    }

    /// memlane run in the project folder, finding `.memories/` as a user would (no MEMLANE_VAULT).
    pub(crate) fn run(&self, args: &[&str]) -> CommandOutput {
        self.run_in(&self.dir, args)
    }

    pub(crate) fn run_in(&self, cwd: &Path, args: &[&str]) -> CommandOutput {
        let mut cmd = self.env.command();
        cmd.env_remove("MEMLANE_VAULT").current_dir(cwd).args(args);
        let out = cmd.output().unwrap();
        CommandOutput {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code().unwrap_or(-1),
        }
    }

    pub(crate) fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
            .args(["-c", "commit.gpgsign=false", "-c", "core.autocrlf=false"])
            .args(args)
            .current_dir(&self.dir)
            .env("HOME", self.env.root.join("home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
    }

    /// `git status --porcelain`, every untracked file listed.
    pub(crate) fn status(&self) -> Vec<String> {
        self.git(&["status", "--porcelain", "--untracked-files=all"])
            .lines()
            .map(str::to_owned)
            .collect()
    }

    pub(crate) fn commit_all(&self, msg: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", msg]);
        assert_eq!(self.status(), Vec::<String>::new(), "everything committed");
    }

    pub(crate) fn memory_file(&self, rel: &str) -> PathBuf {
        self.dir.join(".memories").join(rel)
    }
}

#[test]
fn git_status_shows_only_memory_files_after_add_update_and_rm() {
    let repo = Repo::new();
    let gitignore = std::fs::read_to_string(repo.memory_file(".gitignore")).unwrap();
    for line in ["indices/", "state/", ".history/", ".trash/", "# !.history/"] {
        assert!(gitignore.lines().any(|l| l == line), "{line} in:\n{gitignore}");
    }
    // What init created that git should track: the .gitignore and config.toml, and the
    // `.gitattributes` rule that makes git merge memory files with memlane.
    assert_eq!(
        repo.status(),
        ["?? .gitattributes", "?? .memories/.gitignore", "?? .memories/config.toml"],
        "right after init"
    );
    repo.commit_all("vault");

    repo.run(&["add", "decisions/queue", "We use a Postgres-backed job queue."]).success();
    repo.run(&["add", "scratch", "A note to delete again."]).success();
    repo.run(&["search", "job queue"]).success();
    assert_eq!(repo.status(), ["?? .memories/decisions/queue.md", "?? .memories/scratch.md"]);
    repo.commit_all("two memories");

    // An edit leaves a history version and a delete a trash entry: neither shows in git.
    repo.run(&["update", "decisions/queue", "We use a Postgres-backed job queue (SKIP LOCKED)."])
        .success();
    repo.run(&["rm", "scratch"]).success();
    assert!(std::fs::read_dir(repo.memory_file(".history")).unwrap().count() > 0);
    assert!(std::fs::read_dir(repo.memory_file(".trash")).unwrap().count() > 0);
    assert!(repo.memory_file("indices").is_dir() && repo.memory_file("state").is_dir());
    assert_eq!(repo.status(), [" M .memories/decisions/queue.md", " D .memories/scratch.md"]);

    // A team that wants history shared re-includes it as the comment says.
    let shared = gitignore.replace("# !.history/", "!.history/");
    std::fs::write(repo.memory_file(".gitignore"), shared).unwrap();
    assert!(
        repo.status().iter().any(|l| l.starts_with("?? .memories/.history/")),
        "{:?}",
        repo.status()
    );
    // doctor is quiet about a .gitignore that names the folders, either way.
    let doctor = repo.run(&["doctor", "--json"]).success().json();
    assert!(doctor["problems"].as_array().unwrap().iter().all(|p| p["kind"] != "gitignore"));
}

#[test]
fn init_keeps_a_users_gitignore_and_doctor_suggests_the_missing_lines() {
    // The fixture vaults carry an older .gitignore (indices/ and state/ only).
    let env = TestEnv::with_vault("basic");
    let before = env.read(".gitignore");
    env.run(["init"]).success();
    assert_eq!(env.read(".gitignore"), before, "init never overwrites a user's .gitignore");
    let doctor = env.run(["doctor", "--json"]).success().json();
    let advice: Vec<&serde_json::Value> = doctor["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == "gitignore")
        .collect();
    assert_eq!(advice.len(), 1, "{doctor:#}");
    assert!(advice[0]["message"].as_str().unwrap().contains(".history/, .trash/"), "{advice:?}");
    assert!(advice[0]["hint"].as_str().unwrap().contains("`.history/`, `.trash/`"), "{advice:?}");
}

/// A memory whose frontmatter both branches changed, merged with `git merge` by a clone that
/// has not set up memlane's merge driver (git then merges the file as plain text).
fn conflicted_repo() -> Repo {
    let repo = Repo::new();
    repo.git(&["config", "--local", "--remove-section", "merge.memlane"]);
    repo.run(&["add", "decisions/queue", "We use a Postgres-backed job queue.", "--tag", "infra"])
        .success();
    repo.commit_all("queue");
    repo.git(&["checkout", "-q", "-b", "other"]);
    repo.run(&["update", "decisions/queue", "--tag", "backend"]).success();
    repo.commit_all("other tags");
    repo.git(&["checkout", "-q", "main"]);
    repo.run(&["update", "decisions/queue", "--tag", "ops"]).success();
    repo.commit_all("main tags");
    let merge = repo.git(&["merge", "other"]);
    assert!(merge.contains("CONFLICT"), "{merge}");
    let text = std::fs::read_to_string(repo.memory_file("decisions/queue.md")).unwrap();
    assert!(text.contains("<<<<<<<") && text.contains(">>>>>>>"), "{text}");
    repo
}

#[test]
fn a_memory_with_git_conflict_markers_is_reported_never_read_as_a_new_memory() {
    let repo = conflicted_repo();
    let what = "unresolved merge conflict in ";
    let file = repo.memory_file("decisions/queue.md").display().to_string();

    let show = repo.run(&["show", "decisions/queue"]);
    assert_eq!(show.code, 2, "{show}");
    assert!(show.stdout.is_empty(), "{show}");
    assert!(show.stderr.contains(&format!("{what}{file}")), "{show}");
    assert!(show.stderr.contains("hint:"), "{show}");
    // An editor plugin reads the same failure as JSON, of kind `conflict`.
    let json = repo.run(&["--json", "show", "decisions/queue"]);
    assert_eq!(json.code, 2, "{json}");
    let err: serde_json::Value = serde_json::from_str(json.stdout.trim()).unwrap();
    assert_eq!(err["error"]["kind"], "conflict", "{err}");

    // Listing and searching go on with the rest and say why the file is left out.
    let list = repo.run(&["list", "--json"]).success();
    assert_eq!(list.json().as_array().unwrap().len(), 0, "{list}");
    assert!(list.stderr.contains(what), "{list}");
    let search = repo.run(&["search", "job queue", "--json"]).success();
    assert!(search.stderr.contains(what), "{search}");

    // Writes refuse it rather than guess.
    let update = repo.run(&["update", "decisions/queue", "--tag", "x"]);
    assert_eq!(update.code, 2, "{update}");
    assert!(update.stderr.contains(what), "{update}");

    let doctor = repo.run(&["doctor", "--json"]).success().json();
    let conflicts: Vec<&serde_json::Value> = doctor["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == "merge_conflict")
        .collect();
    assert_eq!(conflicts.len(), 1, "{doctor:#}");
    assert!(conflicts[0]["message"].as_str().unwrap().contains(&file), "{doctor:#}");
    let text = repo.run(&["doctor"]).success();
    assert!(text.stdout.contains(what), "{text}");

    // Resolved (keep both tags): the same memory, with its own id, is back.
    let raw = std::fs::read_to_string(repo.memory_file("decisions/queue.md")).unwrap();
    let resolved: String = raw
        .lines()
        .filter(|l| !l.starts_with("<<<<<<<") && !l.starts_with(">>>>>>>") && *l != "=======")
        .filter(|l| !l.starts_with("tags:"))
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        .replacen("---\n", "---\ntags: [ops, backend]\n", 1);
    std::fs::write(repo.memory_file("decisions/queue.md"), resolved).unwrap();
    let shown = repo.run(&["show", "decisions/queue", "--json"]).success().json();
    let before = repo.git(&["show", "HEAD:.memories/decisions/queue.md"]);
    let id = shown["id"].as_str().unwrap();
    assert!(before.contains(&format!("id: {id}")), "the id is the memory's own: {id}\n{before}");
    assert_eq!(shown["tags"], serde_json::json!(["ops", "backend"]), "{shown}");
    let doctor = repo.run(&["doctor", "--json"]).success().json();
    assert!(doctor["problems"].as_array().unwrap().iter().all(|p| p["kind"] != "merge_conflict"));
}

#[test]
fn memories_can_be_named_by_their_file_path() {
    let repo = Repo::new();
    repo.run(&["add", "decisions/queue", "We use a Postgres-backed job queue."]).success();
    let abs = repo.memory_file("decisions/queue.md").display().to_string();
    for typed in [
        "decisions/queue",
        "decisions/queue.md",
        "memory:decisions/queue",
        ".memories/decisions/queue.md",
        "./.memories/decisions/queue.md",
        ".memories/decisions/queue",
        abs.as_str(),
    ] {
        let out = repo.run(&["show", typed, "--json", "--no-touch"]).success().json();
        assert_eq!(out["name"], "decisions/queue", "{typed}");
    }
    // Relative to the current directory, from a sub folder too.
    let sub = repo.dir.join("src");
    std::fs::create_dir_all(&sub).unwrap();
    let out = repo.run_in(&sub, &["show", "../.memories/decisions/queue.md", "--json"]);
    assert_eq!(out.success().json()["name"], "decisions/queue");
    let inside = repo.memory_file("decisions");
    let out = repo.run_in(&inside, &["show", "queue.md", "--json"]);
    assert_eq!(out.success().json()["name"], "decisions/queue");

    // Over MCP too (paths relative to the server's directory, the project).
    let mut cmd = repo.env.command();
    cmd.env_remove("MEMLANE_VAULT").current_dir(&repo.dir).arg("mcp");
    let mut c = crate::mcp::Client::spawn(cmd);
    c.initialize();
    for typed in [".memories/decisions/queue.md", abs.as_str()] {
        let m = c.ok("read_memory", serde_json::json!({ "name": typed }));
        assert_eq!(m["name"], "decisions/queue", "{typed}: {m}");
    }
    let text = c.err("read_memory", serde_json::json!({ "name": "./README.md" }));
    assert!(text.contains("outside the vault"), "{text}");
    drop(c);

    // A path outside the vault is a clear error; so is a missing file inside it.
    std::fs::write(repo.dir.join("README.md"), "# readme\n").unwrap();
    let out = repo.run(&["show", "./README.md"]);
    assert_eq!(out.code, 2, "{out}");
    assert!(out.stderr.contains("`./README.md` is outside the vault"), "{out}");
    let out = repo.run(&["show", ".memories/decisions/queu.md"]);
    assert_eq!(out.code, 2, "{out}");
    assert!(out.stderr.contains("did you mean `decisions/queue`"), "{out}");

    // Paths work for the commands that write too: add, mv, update, rm.
    repo.run(&["add", ".memories/notes/deploy.md", "Deploys go out on Tuesdays."]).success();
    assert!(repo.memory_file("notes/deploy.md").is_file());
    repo.run(&["mv", "./.memories/notes/deploy.md", ".memories/notes/release.md"]).success();
    assert!(repo.memory_file("notes/release.md").is_file());
    repo.run(&["update", ".memories/notes/release.md", "--tag", "ops"]).success();
    // A new name outside the vault is refused as a name.
    let out = repo.run(&["add", "../elsewhere.md", "x"]);
    assert_eq!(out.code, 2, "{out}");
    assert!(out.stderr.contains("invalid memory name: `../elsewhere.md` contains `..`"), "{out}");

    // The same memory named three ways in one rm is removed once, without an error.
    let out = repo
        .run(&[
            "rm",
            "notes/release",
            ".memories/notes/release.md",
            "memory:notes/release",
            "--json",
        ])
        .success()
        .json();
    assert_eq!(out.as_array().unwrap().len(), 1, "{out}");
    assert!(!repo.memory_file("notes/release.md").exists());
    let trash = repo.run(&["trash", "list", "--json"]).success().json();
    assert_eq!(trash["entries"].as_array().unwrap().len(), 1, "one trash entry: {trash}");
}
