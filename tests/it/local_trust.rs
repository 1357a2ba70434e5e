//! What another local user, the user's own environment or a hostile MCP client can do to one
//! memlane run: a planted `memlane-edit-<pid>` folder, unknown `MEMLANE_*` variables, a
//! read-only vault's errors, and malformed JSON-RPC. Through the real binary and the real MCP
//! server.

use std::io::Write as _;
use std::path::Path;
use std::process::Stdio;

use serde_json::{Value, json};

use crate::common::TestEnv;
use crate::mcp::Client;

/// The next message that answers a request (skipping notifications).
fn next_answer(c: &mut Client) -> Value {
    loop {
        let v = c.next_message();
        if v.get("id").is_some() {
            return v;
        }
    }
}

/// The next line that answers a request, as the server wrote it.
fn next_raw(c: &mut Client) -> String {
    loop {
        let line = c
            .lines
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("an answer within 60 s");
        if serde_json::from_str::<Value>(&line).is_ok_and(|v| v.get("id").is_some()) {
            return line;
        }
    }
}

/// Whether the tests run as root (who ignores file modes).
fn running_as_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

#[cfg(unix)]
fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// The editor: notes the folder of the file it is given (and that folder's mode), then edits it.
#[cfg(unix)]
fn editor_script(env: &TestEnv, edit: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    let log = env.root.join("editor.log");
    let script = env.root.join("editor.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nd=$(dirname \"$1\")\nstat -c '%a %n' \"$d\" >> '{}'\n[ -L \"$1\" ] && echo symlink >> '{}'\n{edit} \"$1\"\n",
            log.display(),
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

#[cfg(unix)]
#[test]
fn edit_never_uses_a_planted_folder_or_symlink_in_the_temp_folder() {
    let env = TestEnv::with_vault("basic");
    let tmp = env.root.join("home/tmp");
    // What another user of the machine planted under the predictable names `edit` used:
    // folders holding a symlink to a file of the user's, and symlinks to a folder of theirs.
    let victim = env.root.join("victim");
    std::fs::create_dir_all(victim.join("dir")).unwrap();
    std::fs::write(victim.join("target.md"), "the user's own file\n").unwrap();
    let last_pid: u32 = std::fs::read_to_string("/proc/sys/kernel/ns_last_pid")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(1);
    let planted: Vec<String> =
        (last_pid + 1..last_pid + 2_000).map(|pid| format!("memlane-edit-{pid}")).collect();
    for (k, name) in planted.iter().enumerate() {
        let path = tmp.join(name);
        if k % 2 == 0 {
            std::fs::create_dir(&path).unwrap();
            std::os::unix::fs::symlink(victim.join("target.md"), path.join("deploy-notes.md"))
                .unwrap();
        } else {
            std::os::unix::fs::symlink(victim.join("dir"), &path).unwrap();
        }
    }

    let script = editor_script(&env, "sed -i 's/Deploys run/Deployments run/'");
    let mut cmd = env.command();
    cmd.env("EDITOR", &script).args(["edit", "deploy-notes"]);
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(env.read("deploy-notes.md").contains("Deployments run"), "the edit was saved");

    // The plants are untouched, and nothing was written through them.
    assert_eq!(std::fs::read_to_string(victim.join("target.md")).unwrap(), "the user's own file\n");
    assert_eq!(std::fs::read_dir(victim.join("dir")).unwrap().count(), 0);
    for (k, name) in planted.iter().enumerate() {
        let path = tmp.join(name);
        let meta = std::fs::symlink_metadata(&path).unwrap();
        assert_eq!(meta.file_type().is_symlink(), k % 2 == 1, "{name}");
    }
    // The editor was given a file in a new folder of the user's alone, not a symlink.
    let log = std::fs::read_to_string(env.root.join("editor.log")).unwrap();
    let (mode, dir) = log.trim().split_once(' ').unwrap();
    assert_eq!(mode, "700", "{log}");
    assert!(!log.contains("symlink"), "{log}");
    let name = Path::new(dir).file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("memlane-edit-") && !planted.contains(&name), "{log}");
    assert_eq!(Path::new(dir).parent().unwrap(), tmp, "{log}");
    assert!(!Path::new(dir).exists(), "a saved edit leaves no folder behind");
}

#[cfg(unix)]
#[test]
fn a_failed_edit_is_kept_in_the_private_folder_and_the_message_says_where() {
    let env = TestEnv::with_vault("basic");
    let before = env.contents();
    let script = editor_script(&env, "sed -i 's/^tags: .*/tags: [oops/'");
    let mut cmd = env.command();
    cmd.env("VISUAL", &script).args(["edit", "deploy-notes"]);
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let kept = err
        .split("it is kept in ")
        .nth(1)
        .and_then(|rest| rest.split(".md").next())
        .map(|p| format!("{p}.md"))
        .unwrap_or_else(|| panic!("the message says where the edit is: {err}"));
    let kept = Path::new(&kept);
    assert!(std::fs::read_to_string(kept).unwrap().contains("tags: [oops"), "{err}");
    assert_eq!(mode_of(kept.parent().unwrap()), 0o700);
    assert_eq!(mode_of(kept), 0o600);
    assert_eq!(env.contents(), before, "the vault is unchanged");
}

#[test]
fn an_unknown_memlane_variable_is_warned_about_once_and_ignored() {
    let env = TestEnv::with_vault("basic");
    let plain = env.run(["list", "--json"]).success();
    let out = env.run_with_env(&[("MEMLANE_BIN", "/x")], ["list", "--json"]).success();
    assert_eq!(out.stdout, plain.stdout);
    let warnings: Vec<&str> = out.stderr.lines().filter(|l| l.contains("MEMLANE_BIN")).collect();
    assert_eq!(warnings.len(), 1, "{}", out.stderr);
    assert!(warnings[0].starts_with("memlane: warning: ignoring"), "{}", out.stderr);

    // A known variable with a bad value still stops the command, naming it.
    let out = env.run_with_env(&[("MEMLANE_SEARCH__LIMIT", "many")], ["list"]).code(2);
    assert!(out.stderr.contains("MEMLANE_SEARCH__LIMIT"), "{out}");
}

#[test]
fn under_mcp_the_unknown_variable_warning_goes_to_stderr_only() {
    let env = TestEnv::with_vault("basic");
    let mut cmd = env.command();
    cmd.env("MEMLANE_BIN", "/x")
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for msg in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "memlane-test", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ] {
        writeln!(stdin, "{msg}").unwrap();
    }
    // Let the server answer before the end of input closes it.
    let lines = std::io::BufRead::lines(std::io::BufReader::new(child.stdout.take().unwrap()));
    let mut answers = Vec::new();
    for line in lines {
        let line = line.unwrap();
        let v: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout carries JSON-RPC only ({e}): {line}"));
        let done = v["id"] == json!(2);
        answers.push(v);
        if done {
            break;
        }
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(answers.iter().any(|v| v["result"]["tools"].is_array()), "{answers:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let warnings = stderr.lines().filter(|l| l.contains("MEMLANE_BIN")).count();
    assert_eq!(warnings, 1, "{stderr}");
}

#[test]
fn maintain_on_a_read_only_vault_says_what_is_wrong_in_words() {
    let env = TestEnv::with_vault("basic");
    env.run(["reindex", "-q"]).success();
    let out = if running_as_root() {
        // Root ignores file modes: a read-only bind mount instead, where one can be made.
        if let Some(why) = crate::read_only::no_read_only_mount(&env) {
            eprintln!("skipped: {why}");
            return;
        }
        crate::read_only::read_only(&env, &["maintain"]).output().unwrap()
    } else {
        let chmod = |mode: &str| {
            let ok = std::process::Command::new("chmod")
                .args(["-R", mode])
                .arg(env.vault())
                .status()
                .unwrap()
                .success();
            assert!(ok);
        };
        chmod("a-w");
        let out = env.command().arg("maintain").output().unwrap();
        chmod("u+w");
        out
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    for debug in ["Os {", "kind:", "Error(", "IoError", "code: ", "{ "] {
        assert!(!stderr.contains(debug), "Rust debug text `{debug}` in: {stderr}");
        assert!(!stdout.contains(debug), "Rust debug text `{debug}` in: {stdout}");
    }
    if !out.status.success() {
        assert!(stderr.contains("read-only") || stderr.contains("permission denied"), "{stderr}");
    }
}

#[test]
fn mcp_answers_lone_surrogates_odd_ids_bad_arguments_and_huge_methods_properly() {
    let env = TestEnv::with_vault("basic");
    let mut c = Client::start(&env);
    c.initialize();
    let code = |v: &Value| v["error"]["code"].as_i64().unwrap_or_else(|| panic!("{v}"));

    // A lone UTF-16 surrogate in the arguments: invalid params, answered to the request's id.
    c.send_raw(
        br#"{"jsonrpc":"2.0","id":201,"method":"tools/call","params":{"name":"remember","arguments":{"content":"x \ud800 y"}}}"#,
    );
    let a = next_answer(&mut c);
    assert_eq!((a["id"].clone(), code(&a)), (json!(201), -32602), "{a}");
    assert!(a["error"]["message"].as_str().unwrap().contains("surrogate"), "{a}");

    // An object as id cannot be answered to (JSON-RPC: the id is then null); a number past 64
    // bits is a valid JSON-RPC id memlane does not take, echoed exactly as written.
    c.send_raw(br#"{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}"#);
    let a = next_answer(&mut c);
    assert_eq!((a["id"].clone(), code(&a)), (Value::Null, -32600), "{a}");
    c.send_raw(br#"{"jsonrpc":"2.0","id":184467440737095516170,"method":"tools/list"}"#);
    let raw = next_raw(&mut c);
    assert!(raw.contains(r#""id":184467440737095516170"#), "{raw}");
    assert!(raw.contains("-32600"), "{raw}");

    // `tools/call` without usable `arguments`: invalid params saying what to send.
    for (id, params) in [
        (202, json!({"name": "search_memories"})),
        (203, json!({"name": "search_memories", "arguments": null})),
        (204, json!({"name": "search_memories", "arguments": "{\"query\": \"deploy\"}"})),
    ] {
        c.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}));
        let a = next_answer(&mut c);
        assert_eq!((a["id"].clone(), code(&a)), (json!(id), -32602), "{a}");
        assert!(a["error"]["message"].as_str().unwrap().contains("an object"), "{a}");
    }

    // A megabyte of method name is not sent back.
    let long =
        format!(r#"{{"jsonrpc":"2.0","id":205,"method":"{}","params":{{}}}}"#, "m".repeat(1 << 20));
    c.send_raw(long.as_bytes());
    let raw = next_raw(&mut c);
    let a: Value = serde_json::from_str(&raw).unwrap();
    assert_eq!((a["id"].clone(), code(&a)), (json!(205), -32601), "{a}");
    assert!(raw.len() < 1_000, "the reply is {} bytes", raw.len());

    // And the server still serves.
    let found = c.ok("search_memories", json!({"query": "staging host deploys"}));
    assert_eq!(found["results"][0]["name"], "deploy-notes", "{found}");
}

// -- every read of the vault goes through its confined handle ----------------------------------

/// Every file under `dir` with its bytes (links as their target path), to compare before and
/// after.
#[cfg(unix)]
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<_> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| !e.file_type().is_dir())
        .map(|e| {
            let bytes = if e.file_type().is_symlink() {
                std::fs::read_link(e.path()).unwrap().into_os_string().into_encoded_bytes()
            } else {
                std::fs::read(e.path()).unwrap()
            };
            (e.path().display().to_string(), bytes)
        })
        .collect();
    out.sort();
    out
}

#[cfg(unix)]
#[test]
fn links_to_outside_index_files_are_never_read_and_are_removed_with_a_warning() {
    const MARKER: &str = "wombatledger";
    let env = TestEnv::with_vault("basic");
    env.run(["add", "linking", "see [[deploy-notes]] and [[nowhere-yet]]"]).success();
    env.run(["reindex"]).success();
    let indices = env.vault().join("indices");
    // Outside files shaped like memlane's own, each naming the marker: a manifest (the real one
    // with a memory renamed), a graph sidecar and a supersedes list.
    let outside = env.root.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let mut manifest = memlane::index::manifest::Manifest::load(&indices).unwrap();
    let names: Vec<String> =
        manifest.iter().map(|(n, _)| n.to_owned()).filter(|n| n.contains("standup")).collect();
    assert!(!names.is_empty());
    for name in names {
        let entry = manifest.remove(&name).unwrap();
        manifest.insert(name.replace("standup", MARKER), entry);
    }
    manifest.save_whole(&outside).unwrap();
    std::fs::write(
        outside.join("backlinks.json"),
        format!(r#"{{"format":1,"graph":"0:0:0","targets":{{"ghost:nowhere-yet":[["memory:{MARKER}",1.0]]}}}}"#),
    )
    .unwrap();
    std::fs::write(outside.join("supersedes.tsv"), format!("deploy-notes\t{MARKER}")).unwrap();
    let before = tree(&outside);
    for (link, target) in [
        ("manifest.bin", "manifest.bin"),
        ("graph/backlinks.json", "backlinks.json"),
        ("graph/supersedes.tsv", "supersedes.tsv"),
    ] {
        let _ = std::fs::remove_file(indices.join(link));
        std::os::unix::fs::symlink(outside.join(target), indices.join(link)).unwrap();
    }
    let search = env.run(["search", "standup deploy", "--json"]).success();
    assert!(!search.stdout.contains(MARKER), "{search}");
    for link in ["manifest.bin", "backlinks.json", "supersedes.tsv"] {
        assert!(
            search.stderr.contains(link)
                && search.stderr.contains(
                    "was a symbolic link; memlane never follows links in its indices and removed it"
                ),
            "{link}: {search}"
        );
    }
    assert!(search.stdout.contains("standup"), "the real manifest is rebuilt: {search}");
    for args in [&["list", "--json"][..], &["links", "nowhere-yet", "--json"], &["doctor"]] {
        let out = env.run(args);
        assert!(!format!("{out}").contains(MARKER), "{args:?}: {out}");
    }
    assert_eq!(tree(&outside), before, "nothing outside was changed");
    for entry in walkdir::WalkDir::new(&indices) {
        let entry = entry.unwrap();
        assert!(!entry.file_type().is_symlink(), "{}", entry.path().display());
        if entry.file_type().is_file() {
            let text = String::from_utf8_lossy(&std::fs::read(entry.path()).unwrap()).into_owned();
            assert!(!text.contains(MARKER), "{}", entry.path().display());
        }
    }
}

#[cfg(unix)]
#[test]
fn the_name_collision_check_never_lists_a_folder_outside_through_a_link() {
    let env = TestEnv::with_vault("basic");
    let outside = env.root.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("Payroll-Secrets.md"), "someone else's file\n").unwrap();
    std::os::unix::fs::symlink(&outside, env.vault().join("shared")).unwrap();
    let before = tree(&outside);
    // A name that differs only in case from the outside file: checking it for a collision
    // would list the folder outside (and name the file in the error) if the link were followed.
    let out = env.run(["add", "shared/payroll-secrets", "x"]).code(2);
    assert!(out.stderr.contains("outside the vault"), "{out}");
    assert!(!out.stderr.contains("Payroll-Secrets"), "{out}");
    assert_eq!(tree(&outside), before);
}

#[cfg(unix)]
#[test]
fn a_memory_linked_inside_the_vault_is_read_and_one_linked_out_is_not() {
    let env = TestEnv::with_vault("basic");
    let outside = env.root.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.md"), "---\ntype: fact\n---\n\nkoalafirmware\n").unwrap();
    std::os::unix::fs::symlink(outside.join("secret.md"), env.vault().join("leak.md")).unwrap();
    std::os::unix::fs::symlink("deploy-notes.md", env.vault().join("alias.md")).unwrap();
    std::os::unix::fs::symlink("auth", env.vault().join("auth-link")).unwrap();
    let list = env.run(["list", "--json"]).success();
    let json = list.json();
    let names: Vec<&str> =
        json.as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"alias") && !names.contains(&"leak"), "{names:?}");
    assert!(!names.iter().any(|n| n.starts_with("auth-link")), "a linked folder is never walked");
    assert!(
        list.stderr.contains(
            "`leak.md` is a symbolic link that resolves outside the vault's memories; not read"
        ),
        "{list}"
    );
    let shown = env.run(["show", "alias"]).success();
    assert!(shown.stdout.contains("Deploys run `npm ci` then `make release`"), "{shown}");
    let out = env.run(["show", "leak"]).code(2);
    assert!(out.stderr.contains("symbolic link that resolves outside"), "{out}");
    env.run(["reindex"]).success();
    let found = env.run(["search", "koalafirmware", "--json"]).success();
    assert!(!found.stdout.contains("koalafirmware"), "{found}");
}

#[cfg(unix)]
#[test]
fn a_vault_config_that_links_to_a_file_outside_is_never_read() {
    const MARKER: &str = "platypuspassphrase";
    let env = TestEnv::with_vault("basic");
    let outside = env.root.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    // Not TOML: a parse error would quote its first line.
    std::fs::write(outside.join("id_key"), format!("-----BEGIN KEY {MARKER}-----\n")).unwrap();
    let config = env.vault().join("config.toml");
    let _ = std::fs::remove_file(&config);
    std::os::unix::fs::symlink(outside.join("id_key"), &config).unwrap();
    for args in [&["list"][..], &["search", "deploy"], &["doctor"]] {
        let out = env.run(args);
        let all = format!("{out}");
        assert!(!all.contains(MARKER), "{args:?}: {out}");
        assert!(all.contains("symbolic link"), "{args:?}: the link is named: {out}");
    }
}
