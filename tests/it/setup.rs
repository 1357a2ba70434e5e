//! `memlane setup <client>`: the files each client documents, merged into existing ones,
//! idempotent, shown by `--dry-run`, taken out by `--remove`; and each client's own check
//! (`claude mcp list`, `gemini mcp list`, `codex mcp list`) on what `setup` wrote, when the
//! client is installed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::{CommandOutput, TestEnv};

const CLIENTS: [&str; 5] = ["claude-code", "cursor", "vscode", "gemini", "codex"];

/// A project folder `root/proj` with a vault (`.memories/`) and, when `git`, a git work tree.
struct Project {
    env: TestEnv,
    dir: PathBuf,
}

impl Project {
    fn new(git: bool) -> Project {
        let env = TestEnv::empty();
        let dir = env.root.join("proj");
        std::fs::create_dir_all(&dir).unwrap();
        if git {
            let ok = std::process::Command::new("git")
                .args(["init", "-q"])
                .current_dir(&dir)
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "git init failed");
        }
        let p = Project { env, dir };
        p.memlane(["init"]).success();
        p
    }

    /// `memlane ARGS` run in the project, the vault found from there (no MEMLANE_VAULT).
    fn memlane<I: IntoIterator<Item = S>, S: AsRef<std::ffi::OsStr>>(
        &self,
        args: I,
    ) -> CommandOutput {
        let mut cmd = self.env.command();
        cmd.env_remove("MEMLANE_VAULT").current_dir(&self.dir).args(args);
        let out = cmd.output().unwrap();
        CommandOutput {
            stdout: String::from_utf8_lossy(&out.stdout)
                .replace(&self.env.root.display().to_string(), "[ROOT]"),
            stderr: String::from_utf8_lossy(&out.stderr)
                .replace(&self.env.root.display().to_string(), "[ROOT]"),
            code: out.status.code().unwrap_or(-1),
        }
    }

    fn setup(&self, args: &[&str]) -> CommandOutput {
        self.memlane(std::iter::once("setup").chain(args.iter().copied()))
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.dir.join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    /// Every file and folder of the project outside `.memories/` and `.git/`, with its bytes
    /// (a folder as `None`).
    fn snapshot(&self) -> BTreeMap<String, Option<Vec<u8>>> {
        fn walk(dir: &Path, base: &Path, out: &mut BTreeMap<String, Option<Vec<u8>>>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let e = e.unwrap();
                let rel = e.path().strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/");
                if rel == ".memories" || rel == ".git" {
                    continue;
                }
                if e.file_type().unwrap().is_dir() {
                    out.insert(format!("{rel}/"), None);
                    walk(&e.path(), base, out);
                } else {
                    out.insert(rel, Some(std::fs::read(e.path()).unwrap()));
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(&self.dir, &self.dir, &mut out);
        out
    }
}

fn docs_page(client: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/agents").join(format!("{client}.md"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}

#[test]
fn setup_without_a_client_lists_every_client_and_the_files_it_writes() {
    let p = Project::new(false);
    let out = p.setup(&[]).success();
    for (client, file) in [
        ("claude-code", ".mcp.json"),
        ("claude-code", ".claude/settings.json"),
        ("claude-code", ".claude/settings.local.json"),
        ("cursor", ".cursor/mcp.json"),
        ("vscode", ".vscode/mcp.json"),
        ("gemini", ".gemini/settings.json"),
        ("codex", ".codex/config.toml"),
    ] {
        assert!(out.stdout.contains(client) && out.stdout.contains(file), "{out}");
    }
    let listed = p.setup(&["--json"]).success().json();
    let names: Vec<&str> =
        listed.as_array().unwrap().iter().map(|c| c["client"].as_str().unwrap()).collect();
    assert_eq!(names, CLIENTS);
    assert_eq!(listed[4]["files"][0]["path"], ".codex/config.toml");
    assert!(p.snapshot().is_empty(), "listing wrote files: {:?}", p.snapshot().keys());
}

/// Each client's files, in the format its documentation gives, are exactly the snippets on its
/// page in `docs/agents/` (so the page cannot drift from what `setup` writes).
#[test]
fn every_client_writes_the_documented_format_shown_on_its_docs_page() {
    for client in CLIENTS {
        let p = Project::new(true);
        let out = p.setup(&["--json", client]).success().json();
        let page = docs_page(client);
        assert!(page.contains("https://"), "{client}: the page cites no documentation");
        let files: Vec<String> = out["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                assert_eq!(f["action"], "create", "{client}: {f}");
                f["path"].as_str().unwrap().to_owned()
            })
            .collect();
        for rel in &files {
            let text = p.read(rel);
            let lang = match rel.rsplit('.').next() {
                Some("json") => "json",
                Some("toml") => "toml",
                _ => "gitignore",
            };
            assert!(
                page.contains(&format!("`{rel}`:\n\n```{lang}\n{text}```")),
                "docs/agents/{client}.md does not show {rel} as setup writes it:\n{text}"
            );
        }
        match client {
            "claude-code" => {
                assert_eq!(
                    files,
                    [
                        ".mcp.json",
                        ".claude/settings.json",
                        ".claude/settings.local.json",
                        ".gitignore"
                    ]
                );
                let mcp = json(&p.read(".mcp.json"));
                assert_eq!(mcp["mcpServers"]["memlane"]["command"], "memlane");
                assert_eq!(mcp["mcpServers"]["memlane"]["args"], serde_json::json!(["mcp"]));
                let settings = json(&p.read(".claude/settings.json"));
                assert_eq!(
                    settings["hooks"]["SessionStart"][0]["hooks"][0],
                    serde_json::json!({"type": "command", "command": "memlane hook session-start"})
                );
                assert_eq!(
                    settings["hooks"]["Stop"][0]["hooks"][0]["command"],
                    "memlane hook stop"
                );
                let local = json(&p.read(".claude/settings.local.json"));
                assert_eq!(local["enabledMcpjsonServers"], serde_json::json!(["memlane"]));
            }
            "cursor" => {
                let v = json(&p.read(".cursor/mcp.json"));
                assert_eq!(v["mcpServers"]["memlane"]["command"], "memlane");
                assert_eq!(v["mcpServers"]["memlane"]["args"][0], "mcp");
            }
            "vscode" => {
                let v = json(&p.read(".vscode/mcp.json"));
                assert_eq!(v["servers"]["memlane"]["type"], "stdio");
                assert!(v.get("mcpServers").is_none());
            }
            "gemini" => {
                let v = json(&p.read(".gemini/settings.json"));
                assert_eq!(v["mcpServers"]["memlane"]["args"], serde_json::json!(["mcp"]));
            }
            "codex" => {
                let v: toml::Table = p.read(".codex/config.toml").parse().unwrap();
                assert_eq!(v["mcp_servers"]["memlane"]["command"].as_str(), Some("memlane"));
                assert_eq!(v["mcp_servers"]["memlane"]["args"][0].as_str(), Some("mcp"));
            }
            _ => unreachable!(),
        }
    }
}

/// The files each client has before `setup` in [`setup_merges_…`]: other entries, other keys.
fn existing_files(client: &str) -> Vec<(&'static str, &'static str)> {
    match client {
        "claude-code" => vec![
            (
                ".mcp.json",
                "{\n  \"mcpServers\": {\n    \"github\": {\n      \"command\": \"npx\",\n      \"args\": [\n        \"-y\",\n        \"@modelcontextprotocol/server-github\"\n      ]\n    }\n  }\n}\n",
            ),
            (
                ".claude/settings.json",
                "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(cargo test:*)\"\n    ]\n  },\n  \"hooks\": {\n    \"SessionStart\": [\n      {\n        \"matcher\": \"startup\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"echo hello\"\n          }\n        ]\n      }\n    ]\n  }\n}\n",
            ),
            (
                ".claude/settings.local.json",
                "{\n    \"enabledMcpjsonServers\": [\n        \"github\"\n    ],\n    \"model\": \"opus\"\n}",
            ),
            (".gitignore", "target/\n*.log\n"),
        ],
        "cursor" => vec![(
            ".cursor/mcp.json",
            "{\n\t\"mcpServers\": {\n\t\t\"docs\": {\n\t\t\t\"url\": \"https://example.com/mcp\"\n\t\t}\n\t}\n}\n",
        )],
        "vscode" => vec![(
            ".vscode/mcp.json",
            "{\n  \"inputs\": [\n    {\n      \"type\": \"promptString\",\n      \"id\": \"key\",\n      \"password\": true\n    }\n  ],\n  \"servers\": {\n    \"other\": {\n      \"type\": \"stdio\",\n      \"command\": \"other\"\n    }\n  }\n}\n",
        )],
        "gemini" => vec![(
            ".gemini/settings.json",
            "{\n  \"theme\": \"GitHub\",\n  \"mcpServers\": {\n    \"other\": {\n      \"command\": \"other\",\n      \"trust\": false\n    }\n  }\n}\n",
        )],
        "codex" => vec![(
            ".codex/config.toml",
            "# my settings\nmodel = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"docs-server\" # keep this comment\nargs = [ \"--port\",  \"0\" ]\n\n[tui]\nnotifications = true\n",
        )],
        _ => unreachable!(),
    }
}

#[test]
fn setup_merges_into_existing_files_and_remove_restores_them_byte_for_byte() {
    for client in CLIENTS {
        let p = Project::new(true);
        for (rel, text) in existing_files(client) {
            p.write(rel, text);
        }
        let before = p.snapshot();
        p.setup(&[client]).success();
        for (rel, text) in existing_files(client) {
            let now = p.read(rel);
            assert_ne!(now, text, "{client}: {rel} did not change");
            match rel {
                ".codex/config.toml" => {
                    // Every line of the file is still there, in order, before memlane's table.
                    assert!(now.starts_with(text), "{now}");
                    let v: toml::Table = now.parse().unwrap();
                    assert_eq!(v["mcp_servers"]["docs"]["command"].as_str(), Some("docs-server"));
                    assert_eq!(v["mcp_servers"]["memlane"]["command"].as_str(), Some("memlane"));
                }
                ".gitignore" => assert!(now.starts_with(text), "{now}"),
                _ => {
                    // Every key of the old file keeps its value, except the ones memlane adds to.
                    let (old, new) = (json(text), json(&now));
                    for (k, v) in old.as_object().unwrap() {
                        if !["mcpServers", "servers", "hooks", "enabledMcpjsonServers"]
                            .contains(&k.as_str())
                        {
                            assert_eq!(&new[k], v, "{client}: {rel} lost {k}");
                        }
                    }
                    let indent: String = text
                        .lines()
                        .nth(1)
                        .unwrap()
                        .chars()
                        .take_while(|c| c.is_whitespace())
                        .collect();
                    assert!(
                        now.lines().nth(1).unwrap().starts_with(&indent),
                        "{client}: indentation changed:\n{now}"
                    );
                    assert_eq!(now.ends_with('\n'), text.ends_with('\n'), "{client}: {rel}");
                }
            }
        }
        match client {
            "claude-code" => {
                let mcp = json(&p.read(".mcp.json"));
                let names: Vec<&String> = mcp["mcpServers"].as_object().unwrap().keys().collect();
                assert_eq!(names, ["github", "memlane"]);
                let s = json(&p.read(".claude/settings.json"));
                assert_eq!(s["hooks"]["SessionStart"][0]["hooks"][0]["command"], "echo hello");
                assert_eq!(
                    s["hooks"]["SessionStart"][1]["hooks"][0]["command"],
                    "memlane hook session-start"
                );
                let local = json(&p.read(".claude/settings.local.json"));
                assert_eq!(
                    local["enabledMcpjsonServers"],
                    serde_json::json!(["github", "memlane"])
                );
            }
            "vscode" => {
                let v = json(&p.read(".vscode/mcp.json"));
                assert_eq!(v["inputs"][0]["id"], "key");
                assert_eq!(v["servers"]["other"]["command"], "other");
            }
            _ => {}
        }
        p.setup(&["--remove", client]).success();
        assert_eq!(p.snapshot(), before, "{client}: --remove did not restore the files");
    }
}

#[test]
fn a_hand_laid_out_file_keeps_its_layout_through_setup_and_remove() {
    let p = Project::new(false);
    let text = "{\n  // no comments in JSON\n}\n";
    p.write(".cursor/mcp.json", text);
    p.setup(&["cursor"]).code(2);
    let text = "{\n  \"mcpServers\": {\n    \"gh\":   { \"command\": \"npx\", \"args\": [\"-y\", \"gh\"] }\n  },\n  \"other\": [1, 2, 3]\n}\n";
    p.write(".cursor/mcp.json", text);
    p.setup(&["cursor"]).success();
    let now = p.read(".cursor/mcp.json");
    assert!(now.contains("    \"gh\":   { \"command\": \"npx\", \"args\": [\"-y\", \"gh\"] },\n    \"memlane\": {\n"), "{now}");
    assert!(now.ends_with("  },\n  \"other\": [1, 2, 3]\n}\n"), "{now}");
    p.setup(&["cursor"]).success();
    assert_eq!(p.read(".cursor/mcp.json"), now);
    p.setup(&["cursor", "--remove"]).success();
    assert_eq!(p.read(".cursor/mcp.json"), text);
}

#[test]
fn a_second_run_changes_no_byte_and_remove_deletes_what_it_created() {
    for client in CLIENTS {
        let p = Project::new(true);
        let empty = p.snapshot();
        let first = p.setup(&[client]).success();
        assert!(first.stdout.contains("created"), "{first}");
        let after_first = p.snapshot();
        let second = p.setup(&[client]).success();
        assert_eq!(p.snapshot(), after_first, "{client}: the second run changed files");
        assert!(second.stdout.lines().all(|l| l.starts_with("unchanged")), "{client}: {second}");
        let again = p.setup(&["--json", client]).success().json();
        assert_eq!(again["changed"], false, "{client}: {again}");
        // Removing twice is the same as once; files and folders it created are gone.
        p.setup(&["--remove", client]).success();
        p.setup(&["--remove", client]).success();
        assert_eq!(p.snapshot(), empty, "{client}: --remove left files behind");
    }
}

#[test]
fn dry_run_prints_a_unified_diff_and_changes_nothing() {
    let p = Project::new(true);
    for (rel, text) in existing_files("claude-code") {
        p.write(rel, text);
    }
    let before = p.snapshot();
    let out = p.setup(&["claude-code", "--dry-run"]).success();
    assert_eq!(p.snapshot(), before, "--dry-run wrote files");
    assert!(out.stdout.contains("--- a/.mcp.json\n+++ b/.mcp.json\n@@ "), "{out}");
    assert!(out.stdout.contains("+    \"memlane\": {\n"), "{out}");
    assert!(out.stdout.contains("+            \"command\": \"memlane hook stop\""), "{out}");
    assert!(out.stdout.contains(" \"@modelcontextprotocol/server-github\"\n"), "context: {out}");
    assert!(out.stderr.contains("nothing was written"), "{out}");
    // The JSON form carries the same diffs.
    let v = p.setup(&["codex", "--dry-run", "--json"]).success().json();
    assert_eq!(v["dry_run"], true);
    assert_eq!(v["files"][0]["action"], "create");
    assert!(v["files"][0]["diff"].as_str().unwrap().contains("+[mcp_servers.memlane]\n"), "{v}");
    assert_eq!(p.snapshot(), before);
    // A dry run of a removal shows the lines that would go.
    p.setup(&["gemini"]).success();
    let out = p.setup(&["gemini", "--remove", "--dry-run"]).success();
    assert!(out.stdout.contains("--- a/.gemini/settings.json\n+++ /dev/null\n"), "{out}");
    assert!(p.dir.join(".gemini/settings.json").exists());
}

#[test]
fn the_approval_is_for_this_user_only_and_stays_out_of_git() {
    let p = Project::new(true);
    p.setup(&["claude-code"]).success();
    for shared in [".mcp.json", ".claude/settings.json"] {
        assert!(!p.read(shared).contains("enabledMcpjsonServers"), "{shared} approves the server");
        assert!(!p.read(shared).contains("enableAllProjectMcpServers"), "{shared}");
    }
    let git = |args: &[&str]| {
        std::process::Command::new("git").args(args).current_dir(&p.dir).output().unwrap()
    };
    assert!(git(&["check-ignore", "-q", ".claude/settings.local.json"]).status.success());
    let status = String::from_utf8(git(&["status", "--porcelain", "-uall"]).stdout).unwrap();
    assert!(status.contains(".mcp.json") && status.contains(".claude/settings.json"), "{status}");
    assert!(!status.contains("settings.local.json"), "{status}");
    // A project that ignores the file already gets no .gitignore line.
    let q = Project::new(true);
    q.write(".gitignore", ".claude/\n");
    q.setup(&["claude-code"]).success();
    assert_eq!(q.read(".gitignore"), ".claude/\n");
}

#[test]
fn no_approval_is_written_into_a_settings_file_git_tracks() {
    let p = Project::new(true);
    p.write(".claude/settings.local.json", "{\n  \"model\": \"opus\"\n}\n");
    let add = std::process::Command::new("git")
        .args(["add", ".claude/settings.local.json"])
        .current_dir(&p.dir)
        .status()
        .unwrap();
    assert!(add.success());
    let out = p.setup(&["claude-code"]).success();
    assert!(out.stderr.contains("is tracked by git"), "{out}");
    assert_eq!(p.read(".claude/settings.local.json"), "{\n  \"model\": \"opus\"\n}\n");
    assert!(p.dir.join(".mcp.json").is_file());
    let v = p.setup(&["--json", "claude-code"]).success().json();
    assert!(v["warnings"][0].as_str().unwrap().contains("not approved"), "{v}");
}

#[test]
fn an_unknown_client_is_a_usage_error_that_lists_the_known_ones() {
    let p = Project::new(false);
    let out = p.setup(&["emacs"]).code(2);
    for client in CLIENTS {
        assert!(out.stderr.contains(client), "{out}");
    }
    assert!(p.snapshot().is_empty());
    let out = p.setup(&["--json", "emacs"]).code(2);
    assert_eq!(out.json()["error"]["kind"], "usage");
}

#[test]
fn a_config_file_that_does_not_parse_is_named_with_its_line_and_nothing_changes() {
    let p = Project::new(true);
    // Valid for Claude Code's other files, broken in the third: nothing at all is written.
    p.write(".mcp.json", "{\n  \"mcpServers\": {}\n}\n");
    p.write(".claude/settings.local.json", "{\n  \"model\": \"opus\",\n}\n");
    let before = p.snapshot();
    let out = p.setup(&["claude-code"]).code(2);
    assert!(out.stderr.contains(".claude/settings.local.json is not valid JSON (line 3"), "{out}");
    assert!(out.stderr.contains("nothing was changed"), "{out}");
    assert!(out.stderr.contains("hint:"), "{out}");
    assert_eq!(p.snapshot(), before);
    let v = p.setup(&["--json", "claude-code"]).code(2).json();
    assert_eq!(v["error"]["kind"], "invalid");

    p.write(".codex/config.toml", "model = \"o3\"\n[mcp_servers\n");
    let before = p.snapshot();
    let out = p.setup(&["codex"]).code(2);
    assert!(out.stderr.contains(".codex/config.toml is not valid TOML (line 2"), "{out}");
    assert_eq!(p.snapshot(), before);
    // --remove reads the file too, and changes nothing either.
    p.setup(&["codex", "--remove"]).code(2);
    assert_eq!(p.snapshot(), before);
}

#[test]
fn keys_of_the_wrong_kind_are_refused_and_nothing_changes() {
    let p = Project::new(false);
    for (client, rel, text, key) in [
        ("cursor", ".cursor/mcp.json", "{\"mcpServers\": [\"memlane\"]}\n", "mcpServers"),
        ("vscode", ".vscode/mcp.json", "[]\n", "the top level"),
        ("claude-code", ".claude/settings.json", "{\"hooks\": {\"Stop\": {}}}\n", "hooks.Stop"),
        ("codex", ".codex/config.toml", "mcp_servers = 1\n", "mcp_servers"),
        (
            "codex",
            ".codex/config.toml",
            "mcp_servers = { memlane = { command = \"old\" } }\n",
            "memlane's entry",
        ),
    ] {
        p.write(rel, text);
        let before = p.snapshot();
        let out = p.setup(&[client]).code(2);
        assert!(out.stderr.contains(key) && out.stderr.contains(rel), "{client}: {out}");
        assert_eq!(p.snapshot(), before, "{client}");
        std::fs::remove_file(p.dir.join(rel)).unwrap();
    }
}

#[test]
fn a_changed_memlane_entry_is_set_back_and_command_is_written_as_given() {
    let p = Project::new(false);
    p.write(
        ".codex/config.toml",
        "[mcp_servers.memlane]\ncommand = \"old-memlane\"\nargs = [\"serve\"]\n\n[tui]\nx = 1\n",
    );
    p.setup(&["codex", "--command", "/opt/memlane/bin/memlane"]).success();
    assert_eq!(
        p.read(".codex/config.toml"),
        "[mcp_servers.memlane]\ncommand = \"/opt/memlane/bin/memlane\"\nargs = [\"mcp\"]\n\n[tui]\nx = 1\n"
    );
    p.setup(&["claude-code", "--command", "/My Tools/memlane"]).success();
    let s = json(&p.read(".claude/settings.json"));
    assert_eq!(s["hooks"]["Stop"][0]["hooks"][0]["command"], "'/My Tools/memlane' hook stop");
    assert_eq!(json(&p.read(".mcp.json"))["mcpServers"]["memlane"]["command"], "/My Tools/memlane");
    // The same command removes what it wrote.
    p.setup(&["claude-code", "--remove", "--command", "/My Tools/memlane"]).success();
    assert!(!p.dir.join(".claude/settings.json").exists());
}

#[cfg(unix)]
#[test]
fn a_config_file_that_is_a_symbolic_link_stays_one() {
    let p = Project::new(false);
    p.write("dotfiles/cursor-mcp.json", "{\n  \"mcpServers\": {}\n}\n");
    std::fs::create_dir_all(p.dir.join(".cursor")).unwrap();
    std::os::unix::fs::symlink("../dotfiles/cursor-mcp.json", p.dir.join(".cursor/mcp.json"))
        .unwrap();
    p.setup(&["cursor"]).success();
    let meta = std::fs::symlink_metadata(p.dir.join(".cursor/mcp.json")).unwrap();
    assert!(meta.file_type().is_symlink());
    let v = json(&p.read("dotfiles/cursor-mcp.json"));
    assert_eq!(v["mcpServers"]["memlane"]["command"], "memlane");
}

#[test]
fn setup_in_a_subfolder_writes_next_to_the_vault() {
    let p = Project::new(false);
    std::fs::create_dir_all(p.dir.join("src/deep")).unwrap();
    let mut cmd = p.env.command();
    cmd.env_remove("MEMLANE_VAULT").current_dir(p.dir.join("src/deep")).args(["setup", "gemini"]);
    assert!(cmd.status().unwrap().success());
    assert!(p.dir.join(".gemini/settings.json").is_file());
    assert!(!p.dir.join("src/deep/.gemini").exists());
}

#[test]
fn setup_outside_a_vault_says_to_run_init() {
    let env = TestEnv::empty();
    let mut cmd = env.command();
    cmd.env_remove("MEMLANE_VAULT").current_dir(&env.root).args(["setup", "cursor"]);
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("memlane init"), "{stderr}");
    assert!(!env.root.join(".cursor").exists());
}

// --- The clients' own checks -------------------------------------------------------------

/// The client's executable: `$MEMLANE_TEST_CLIENTS_DIR/node_modules/.bin/<name>` (an
/// `npm install --prefix DIR` of the clients), `$MEMLANE_TEST_CLIENTS_DIR/<name>`, or on PATH.
fn find_client(name: &str) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("MEMLANE_TEST_CLIENTS_DIR").map(PathBuf::from) {
        for p in [dir.join("node_modules/.bin").join(name), dir.join(name)] {
            if p.is_file() {
                return Some(p);
            }
        }
    }
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths).map(|d| d.join(name)).find(|p| p.is_file())
}

/// Runs a client's check in the project, with `memlane` (this build) first on PATH and the
/// test's HOME; fails after two minutes rather than hanging.
fn client_check(p: &Project, exe: &Path, args: &[&str], vars: &[(&str, PathBuf)]) -> String {
    let bin = PathBuf::from(assert_cmd::cargo::cargo_bin!("memlane"));
    let mut path = vec![bin.parent().unwrap().to_owned(), exe.parent().unwrap().to_owned()];
    path.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    let home = p.env.root.join("home");
    let mut cmd = std::process::Command::new(exe);
    cmd.args(args)
        .current_dir(&p.dir)
        .env_clear()
        .env("PATH", std::env::join_paths(path).unwrap())
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("NO_COLOR", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("{} {} did not finish in two minutes", exe.display(), args.join(" "));
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    eprintln!("{} {}:\n{text}", exe.display(), args.join(" "));
    text
}

fn skip(name: &str, package: &str) {
    eprintln!(
        "skipped: `{name}` is not installed (npm install --prefix DIR {package}, then set MEMLANE_TEST_CLIENTS_DIR=DIR or put it on PATH)"
    );
}

#[test]
fn claude_code_reports_memlane_connected() {
    let Some(exe) = find_client("claude") else {
        return skip("claude", "@anthropic-ai/claude-code");
    };
    let p = Project::new(true);
    p.setup(&["claude-code"]).success();
    let out = client_check(&p, &exe, &["mcp", "list"], &[]);
    let line = out.lines().find(|l| l.starts_with("memlane:")).unwrap_or_default();
    assert!(line.contains("memlane mcp") && line.contains("Connected"), "{out}");
}

#[test]
fn gemini_cli_connects_to_memlane_in_a_trusted_folder() {
    let Some(exe) = find_client("gemini") else {
        return skip("gemini", "@google/gemini-cli");
    };
    let p = Project::new(true);
    p.setup(&["gemini"]).success();
    let before_trust = client_check(&p, &exe, &["mcp", "list"], &[]);
    assert!(before_trust.contains("memlane: memlane mcp"), "{before_trust}");
    // Trusting the folder is the user's step in Gemini CLI; `setup` leaves it to them.
    let gemini_home = p.env.root.join("home/.gemini");
    std::fs::create_dir_all(&gemini_home).unwrap();
    std::fs::write(
        gemini_home.join("trustedFolders.json"),
        serde_json::json!({ p.dir.display().to_string(): "TRUST_FOLDER" }).to_string(),
    )
    .unwrap();
    let out = client_check(&p, &exe, &["mcp", "list"], &[]);
    let line = out.lines().find(|l| l.contains("memlane: memlane mcp")).unwrap_or_default();
    assert!(line.contains("Connected"), "{out}");
}

#[test]
fn codex_lists_memlane_from_the_projects_config() {
    let Some(exe) = find_client("codex") else {
        return skip("codex", "@openai/codex");
    };
    let p = Project::new(true);
    p.setup(&["codex"]).success();
    // Trusting the project is the user's step in Codex; `setup` leaves it to them.
    let codex_home = p.env.root.join("home/.codex");
    std::fs::create_dir_all(&codex_home).unwrap();
    std::fs::write(
        codex_home.join("config.toml"),
        format!("[projects.{:?}]\ntrust_level = \"trusted\"\n", p.dir.display().to_string()),
    )
    .unwrap();
    let out = client_check(&p, &exe, &["mcp", "list"], &[("CODEX_HOME", codex_home)]);
    let line = out.lines().find(|l| l.starts_with("memlane ")).unwrap_or_default();
    let cols: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(cols.get(1..3), Some(&["memlane", "mcp"][..]), "{out}");
    assert!(cols.contains(&"enabled"), "{out}");
}
