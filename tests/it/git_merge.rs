//! Team memory through git: `memlane init` registers `memlane merge-file` as git's merge driver
//! for memory files, and real `git merge`s of branches that changed one memory merge its
//! frontmatter key by key; a real conflict stays in the body, where every command still reads it.

use std::process::Command;

use crate::common::CommandOutput;
use crate::vault_git::Repo;

const T0: &str = "2026-01-10T10:00:00Z";
const T1: &str = "2026-01-11T09:00:00Z";
const T2: &str = "2026-01-12T08:00:00Z";

impl Repo {
    /// memlane at a pinned time.
    fn run_at(&self, now: &str, args: &[&str]) -> CommandOutput {
        let mut cmd = self.env.command();
        cmd.env_remove("MEMLANE_VAULT").env("MEMLANE_NOW", now).current_dir(&self.dir).args(args);
        let out = cmd.output().unwrap();
        CommandOutput {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code().unwrap_or(-1),
        }
    }

    /// `git merge NAME`: its exit code and output.
    fn merge(&self, branch: &str) -> (i32, String) {
        let out = Command::new("git")
            .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
            .args(["-c", "commit.gpgsign=false", "-c", "core.autocrlf=false"])
            .args(["merge", "--no-edit", branch])
            .current_dir(&self.dir)
            .env("HOME", self.env.root.join("home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.code().unwrap_or(-1), text)
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.memory_file(rel)).unwrap()
    }
}

/// The frontmatter (between the `---` lines) and the body of a memory file.
fn split(text: &str) -> (&str, &str) {
    let rest = text.strip_prefix("---\n").expect("frontmatter");
    let end = rest.find("\n---\n").expect("closed frontmatter");
    (&rest[..end + 1], &rest[end + 5..])
}

fn doctor_conflicts(repo: &Repo) -> Vec<serde_json::Value> {
    let doctor = repo.run(&["doctor", "--json"]).success().json();
    doctor["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == "merge_conflict")
        .cloned()
        .collect()
}

#[test]
fn init_registers_the_merge_driver_once() {
    let repo = Repo::new();
    let attributes = std::fs::read_to_string(repo.dir.join(".gitattributes")).unwrap();
    assert!(attributes.lines().any(|l| l == ".memories/**/*.md merge=memlane"), "{attributes}");
    let driver = repo.git(&["config", "--local", "--get", "merge.memlane.driver"]);
    assert!(driver.trim_end().ends_with("merge-file %O %A %B %P"), "{driver}");
    assert!(repo.git(&["check-attr", "merge", ".memories/a/b.md"]).contains("merge: memlane"));
    assert!(repo.git(&["check-attr", "merge", ".memories/top.md"]).contains("merge: memlane"));

    // Twice changes nothing, and says so.
    let config = std::fs::read_to_string(repo.dir.join(".git/config")).unwrap();
    let again = repo.run(&["init"]).success();
    assert!(again.stdout.contains("vault already exists"), "{again}");
    assert_eq!(std::fs::read_to_string(repo.dir.join(".gitattributes")).unwrap(), attributes);
    assert_eq!(std::fs::read_to_string(repo.dir.join(".git/config")).unwrap(), config);

    // An existing vault gets the driver from `init` too (a colleague's fresh clone has no local
    // config), and a vault in a sub folder gets a rule for its own place.
    repo.git(&["config", "--local", "--remove-section", "merge.memlane"]);
    let kinds = |repo: &Repo| -> Vec<String> {
        let doctor = repo.run(&["doctor", "--json"]).success().json();
        doctor["problems"].as_array().unwrap().iter().map(|p| p["kind"].to_string()).collect()
    };
    assert!(kinds(&repo).contains(&"\"merge_driver\"".to_owned()), "doctor notices");
    let json = repo.run(&["init", "--json"]).success().json();
    let changes = json["merge_driver"]["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 2, "name and driver, not the rule again: {json}");
    assert!(
        repo.git(&["config", "--local", "--get", "merge.memlane.driver"]).contains("merge-file")
    );
    assert_eq!(kinds(&repo), Vec::<String>::new(), "no problems left");
    std::fs::create_dir_all(repo.dir.join("docs")).unwrap();
    repo.run(&["init", "docs"]).success();
    let attributes = std::fs::read_to_string(repo.dir.join(".gitattributes")).unwrap();
    assert!(
        attributes.lines().any(|l| l == "docs/.memories/**/*.md merge=memlane"),
        "{attributes}"
    );
}

#[test]
fn a_tag_on_one_branch_and_an_append_on_the_other_merge_cleanly() {
    let repo = Repo::new();
    repo.run_at(
        T0,
        &["add", "decisions/queue", "We use a Postgres-backed job queue.", "--tag", "infra"],
    )
    .success();
    repo.commit_all("queue");
    repo.git(&["checkout", "-q", "-b", "other"]);
    repo.run_at(T2, &["update", "decisions/queue", "--add-tag", "backend"]).success();
    repo.run_at(T2, &["add", "notes/deploy", "Deploys go out on Tuesdays."]).success();
    repo.commit_all("backend tag, deploy note");
    repo.git(&["checkout", "-q", "main"]);
    repo.run_at(T1, &["append", "decisions/queue", "Retries back off exponentially."]).success();
    repo.commit_all("append");

    let (code, out) = repo.merge("other");
    assert_eq!(code, 0, "{out}");
    let text = repo.read("decisions/queue.md");
    assert!(!text.contains("<<<<<<<"), "{text}");
    let shown = repo.run(&["show", "decisions/queue", "--json", "--no-touch"]).success();
    assert!(!shown.stderr.contains("conflict"), "{shown}");
    let shown = shown.json();
    assert_eq!(shown["tags"], serde_json::json!(["infra", "backend"]), "{text}");
    assert_eq!(shown["updated_at"], T2, "the later one: {text}");
    assert_eq!(shown["created_at"], T0);
    let content = shown["content"].as_str().unwrap();
    assert!(content.contains("Postgres-backed") && content.contains("exponentially"), "{text}");

    // The next command indexes what the merge brought, like any other change.
    let hits = repo.run(&["search", "retries back off exponentially", "--json"]).success().json();
    assert_eq!(hits["results"][0]["name"], "decisions/queue", "{hits}");
    let hits = repo.run(&["search", "deploys Tuesdays", "--json"]).success().json();
    assert_eq!(hits["results"][0]["name"], "notes/deploy", "{hits}");
    assert_eq!(repo.status(), Vec::<String>::new(), "the merge commit holds it all");
}

#[test]
fn the_same_body_line_on_both_branches_conflicts_in_the_body_only() {
    let repo = Repo::new();
    repo.run_at(T0, &["add", "decisions/queue", "Workers poll every second.", "--tag", "infra"])
        .success();
    repo.run_at(T0, &["add", "notes/other", "Something else entirely about caching."]).success();
    repo.commit_all("queue");
    repo.git(&["checkout", "-q", "-b", "other"]);
    repo.run_at(
        T2,
        &["update", "decisions/queue", "Workers poll every 10 seconds.", "--add-tag", "ops"],
    )
    .success();
    repo.commit_all("10 s");
    repo.git(&["checkout", "-q", "main"]);
    repo.run_at(T1, &["update", "decisions/queue", "Workers poll every 5 seconds."]).success();
    repo.commit_all("5 s");

    let (code, out) = repo.merge("other");
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("CONFLICT") && out.contains(".memories/decisions/queue.md"), "{out}");
    let text = repo.read("decisions/queue.md");
    let (frontmatter, body) = split(&text);
    assert!(!frontmatter.contains("<<<<<<<") && !frontmatter.contains(">>>>>>>"), "{text}");
    assert!(frontmatter.contains("tags: [infra, ops]"), "the tag still merged: {text}");
    assert!(frontmatter.contains(&format!("updated_at: {T2}")), "{text}");
    assert!(body.contains("<<<<<<< ours\nWorkers poll every 5 seconds.\n=======\nWorkers poll every 10 seconds.\n>>>>>>> theirs\n"), "{text}");

    // Every command still reads it, and names it as conflicted.
    let show = repo.run(&["show", "decisions/queue", "--no-touch"]).success();
    assert!(
        show.stdout.contains("every 5 seconds") && show.stdout.contains("every 10 seconds"),
        "{show}"
    );
    assert!(show.stderr.contains("unresolved merge conflict in the body"), "{show}");
    let list = repo.run(&["list", "--json"]).success();
    let listed = list.json();
    let names: Vec<&str> =
        listed.as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"decisions/queue") && names.contains(&"notes/other"), "{list}");
    assert!(
        list.stderr.contains("decisions/queue: unresolved merge conflict in the body"),
        "{list}"
    );
    let hits = repo.run(&["search", "workers poll", "--json"]).success();
    assert_eq!(hits.json()["results"][0]["name"], "decisions/queue", "{hits}");
    let conflicts = doctor_conflicts(&repo);
    assert_eq!(conflicts.len(), 1, "{conflicts:?}");
    assert_eq!(conflicts[0]["memory"], "decisions/queue");
    assert!(conflicts[0]["hint"].as_str().unwrap().contains("git add"), "{conflicts:?}");
    let doctor = repo.run(&["doctor"]).success();
    assert!(
        doctor.stdout.contains("decisions/queue: unresolved merge conflict in the body"),
        "{doctor}"
    );

    // Resolved with memlane itself: the memory keeps its id, and nothing is conflicted.
    let id = repo.run(&["show", "decisions/queue", "--json"]).success().json()["id"].clone();
    repo.run(&["update", "decisions/queue", "Workers poll every 10 seconds."]).success();
    assert_eq!(repo.run(&["show", "decisions/queue", "--json"]).success().json()["id"], id);
    assert!(doctor_conflicts(&repo).is_empty());
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-edit"]);
    assert_eq!(repo.status(), Vec::<String>::new());
}

#[test]
fn removed_tags_stay_removed_and_a_status_both_sides_set_is_a_key_conflict() {
    let repo = Repo::new();
    repo.run_at(T0, &["add", "decisions/queue", "We use a job queue.", "--tag", "infra,queue,old"])
        .success();
    // A person wrote this file without a status.
    let file = repo.memory_file("decisions/queue.md");
    let text = repo.read("decisions/queue.md");
    std::fs::write(&file, text.replace("status: active\n", "")).unwrap();
    repo.commit_all("queue");
    repo.git(&["checkout", "-q", "-b", "other"]);
    repo.run_at(T1, &["update", "decisions/queue", "--remove-tag", "old", "--status", "archived"])
        .success();
    repo.commit_all("archived");
    repo.git(&["checkout", "-q", "main"]);
    let text = repo.read("decisions/queue.md");
    std::fs::write(
        &file,
        text.replace("tags: [infra, queue, old]", "status: active\ntags: [queue, old, ops]"),
    )
    .unwrap();
    repo.commit_all("active, ops");

    let (code, out) = repo.merge("other");
    assert_ne!(code, 0, "a key conflict stops the merge: {out}");
    let text = repo.read("decisions/queue.md");
    assert!(!text.contains("<<<<<<<"), "no markers anywhere: {text}");
    let shown = repo.run(&["show", "decisions/queue", "--json", "--no-touch"]).success();
    assert!(shown.stderr.contains("unresolved merge conflict in the frontmatter"), "{shown}");
    let shown = shown.json();
    assert_eq!(
        shown["tags"],
        serde_json::json!(["queue", "ops"]),
        "`infra` and `old` stay removed: {text}"
    );
    assert_eq!(shown["status"], "active", "ours is kept: {text}");
    assert!(
        text.contains("merge_conflicts:\n  - { key: status, ours: active, theirs: archived }\n"),
        "{text}"
    );
    let conflicts = doctor_conflicts(&repo);
    assert_eq!(conflicts.len(), 1, "{conflicts:?}");
    assert!(conflicts[0]["message"].as_str().unwrap().contains("`status`"), "{conflicts:?}");
    assert!(conflicts[0]["hint"].as_str().unwrap().contains("merge_conflicts"), "{conflicts:?}");

    // Resolved as the hint says.
    let resolved = text
        .replace("status: active\n", "status: archived\n")
        .replace("merge_conflicts:\n  - { key: status, ours: active, theirs: archived }\n", "");
    std::fs::write(&file, resolved).unwrap();
    assert!(doctor_conflicts(&repo).is_empty());
    let shown = repo.run(&["show", "decisions/queue", "--json", "--no-touch"]).success().json();
    assert_eq!(shown["status"], "archived");
}

#[test]
fn the_same_name_added_on_both_branches_is_an_id_conflict() {
    let repo = Repo::new();
    repo.commit_all("vault");
    repo.git(&["checkout", "-q", "-b", "other"]);
    repo.run_at(T1, &["add", "decisions/queue", "Theirs: a Redis queue."]).success();
    repo.commit_all("theirs");
    repo.git(&["checkout", "-q", "main"]);
    repo.run_at(T0, &["add", "decisions/queue", "Ours: a Postgres queue."]).success();
    repo.commit_all("ours");
    let ours_id = repo.run(&["show", "decisions/queue", "--json"]).success().json()["id"].clone();

    let (code, out) = repo.merge("other");
    assert_ne!(code, 0, "{out}");
    let text = repo.read("decisions/queue.md");
    let (frontmatter, body) = split(&text);
    assert!(frontmatter.contains("merge_conflicts:\n  - { key: id, ours: "), "{text}");
    assert!(
        body.contains("<<<<<<< ours") && body.contains("Redis") && body.contains("Postgres"),
        "{text}"
    );
    let shown = repo.run(&["show", "decisions/queue", "--json", "--no-touch"]).success().json();
    assert_eq!(shown["id"], ours_id, "ours is kept");
    let conflicts = doctor_conflicts(&repo);
    assert_eq!(conflicts.len(), 2, "the body and the id: {conflicts:?}");
}

#[test]
fn a_memory_renamed_on_a_branch_keeps_its_history_after_the_merge() {
    let repo = Repo::new();
    repo.run_at(T0, &["add", "queue", "First version."]).success();
    repo.run_at(T1, &["update", "queue", "Second version."]).success();
    repo.commit_all("queue");
    let before = repo.run(&["history", "queue", "--json"]).success().json();
    assert_eq!(before["versions"].as_array().unwrap().len(), 1, "{before}");
    repo.git(&["checkout", "-q", "-b", "other"]);
    std::fs::create_dir_all(repo.memory_file("decisions")).unwrap();
    repo.git(&["mv", ".memories/queue.md", ".memories/decisions/queue.md"]);
    repo.commit_all("rename");
    repo.git(&["checkout", "-q", "main"]);
    repo.run_at(T2, &["add", "notes/other", "Unrelated."]).success();
    repo.commit_all("other");

    let (code, out) = repo.merge("other");
    assert_eq!(code, 0, "{out}");
    let after = repo.run(&["history", "decisions/queue", "--json"]).success().json();
    // History is keyed by the memory's id, not its name: the versions are all still there.
    assert_eq!(after["id"], before["id"]);
    assert_eq!(after["versions"], before["versions"], "{after}");
    let old = repo.run(&["show", "decisions/queue", "--json", "--no-touch"]).success().json();
    assert_eq!(old["content"].as_str().unwrap().trim(), "Second version.");
    let hits = repo.run(&["search", "second version", "--json"]).success().json();
    assert_eq!(hits["results"][0]["name"], "decisions/queue", "{hits}");
}

#[test]
fn merge_file_by_hand_reports_as_json_and_merges_other_bytes_as_git_does() {
    let repo = Repo::new();
    let dir = repo.env.root.join("by-hand");
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, bytes: &[u8]| std::fs::write(dir.join(name), bytes).unwrap();
    let base = "---\nid: a1B2c3D4e5F\nstatus: active\n---\n\nbody\n";
    write("base.md", base.as_bytes());
    write("ours.md", base.replace("active", "archived").as_bytes());
    write("theirs.md", (base.to_owned() + "more\n").as_bytes());
    let p = |n: &str| dir.join(n).display().to_string();
    let out =
        repo.run(&["--json", "merge-file", &p("base.md"), &p("ours.md"), &p("theirs.md"), "x.md"]);
    let v = out.success().json();
    assert_eq!((v["file_path"].as_str(), v["clean"].as_bool()), (Some("x.md"), Some(true)), "{v}");
    let merged = std::fs::read_to_string(dir.join("ours.md")).unwrap();
    assert_eq!(merged, "---\nid: a1B2c3D4e5F\nstatus: archived\n---\n\nbody\nmore\n");

    // Bytes that are not UTF-8 are not a memory memlane reads: git's own text merge.
    write("base.bin", b"a\nb\nc\n\xff\n");
    write("ours.bin", b"A\nb\nc\n\xff\n");
    write("theirs.bin", b"a\nb\nC\n\xff\n");
    repo.run(&["merge-file", &p("base.bin"), &p("ours.bin"), &p("theirs.bin")]).success();
    assert_eq!(std::fs::read(dir.join("ours.bin")).unwrap(), b"A\nb\nC\n\xff\n");
    write("theirs.bin", b"X\nb\nc\n\xff\n");
    write("ours.bin", b"A\nb\nc\n\xff\n");
    let out = repo.run(&["merge-file", &p("base.bin"), &p("ours.bin"), &p("theirs.bin")]);
    assert_eq!(out.code, 1, "a conflict: {out}");
    let conflicted = std::fs::read(dir.join("ours.bin")).unwrap();
    assert!(
        conflicted.starts_with(b"<<<<<<< ours\nA\n=======\nX\n>>>>>>> theirs\n"),
        "{conflicted:?}"
    );
}

#[test]
fn setup_git_registers_the_driver_for_a_colleagues_clone_and_removes_it() {
    let repo = Repo::new();
    // A colleague's clone: the committed rule is there, the local config is not.
    repo.git(&["config", "--local", "--remove-section", "merge.memlane"]);
    let config = std::fs::read_to_string(repo.dir.join(".git/config")).unwrap();
    let attributes = std::fs::read_to_string(repo.dir.join(".gitattributes")).unwrap();

    // A dry run names the two config keys and writes nothing.
    let dry = repo.run(&["setup", "git", "--dry-run"]).success();
    assert!(dry.stdout.contains("would set merge.memlane.driver"), "{dry}");
    assert!(dry.stdout.contains("would set merge.memlane.name"), "{dry}");
    assert_eq!(std::fs::read_to_string(repo.dir.join(".git/config")).unwrap(), config);

    let json = repo.run(&["setup", "git", "--json"]).success().json();
    assert_eq!(json["changed"], true, "{json}");
    assert_eq!(json["changes"].as_array().unwrap().len(), 2, "{json}");
    let driver = repo.git(&["config", "--local", "--get", "merge.memlane.driver"]);
    assert!(driver.trim_end().ends_with("merge-file %O %A %B %P"), "{driver}");
    let problems = repo.run(&["doctor", "--json"]).success().json()["problems"].clone();
    assert!(
        !problems.as_array().unwrap().iter().any(|p| p["kind"] == "merge_driver"),
        "{problems}"
    );

    // Twice changes nothing; --remove takes the rule and the keys out again.
    let again = repo.run(&["setup", "git", "--json"]).success().json();
    assert_eq!(again["changed"], false, "{again}");
    assert_eq!(std::fs::read_to_string(repo.dir.join(".gitattributes")).unwrap(), attributes);
    repo.run(&["setup", "git", "--remove"]).success();
    let attributes = std::fs::read_to_string(repo.dir.join(".gitattributes")).unwrap_or_default();
    assert!(!attributes.contains("merge=memlane"), "{attributes}");
    let config = std::fs::read_to_string(repo.dir.join(".git/config")).unwrap();
    assert!(!config.contains("merge-file"), "{config}");
}
