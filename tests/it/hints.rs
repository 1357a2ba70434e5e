//! Errors say what went wrong in the library's words and how to fix it in each front end's: the
//! command line names `memlane …` commands and flags, the MCP server names tools and parameters.
//! The message itself never carries the hint.

use serde_json::{Value, json};

use crate::common::TestEnv;
use crate::mcp::Client;

/// The `--json` error object of a failed command, with its exit code checked.
fn json_error(env: &TestEnv, args: &[&str], code: i32) -> (Value, String) {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = env.run(&all).code(code);
    let v: Value = serde_json::from_str(out.stdout.trim())
        .unwrap_or_else(|e| panic!("{args:?}: stdout is not one JSON object ({e}):\n{out}"));
    (v["error"].clone(), out.stderr)
}

/// Checks that `args` fail as bad input (exit code 2, kind `invalid`) with this message and hint.
#[track_caller]
fn assert_invalid(env: &TestEnv, args: &[&str], message: &str, hint: &str) -> String {
    let (e, stderr) = json_error(env, args, 2);
    assert_eq!(e, json!({"kind": "invalid", "message": message, "hint": hint}), "{args:?}");
    stderr
}

/// A tool error's `{kind, message, hint}` and its text.
fn tool_error(c: &mut Client, tool: &str, args: Value) -> (Value, String) {
    let r = c.call(tool, args);
    assert_eq!(r["isError"], json!(true), "{tool} should have failed: {r}");
    let text = r["content"][0]["text"].as_str().unwrap_or_default().to_owned();
    (r["structuredContent"]["error"].clone(), text)
}

#[test]
fn a_size_past_the_limits_gets_a_command_line_hint() {
    let env = TestEnv::with_vault("basic");
    let stderr = assert_invalid(
        &env,
        &["search", "deploy", "--limit", "1000000000"],
        "--limit must be between 1 and 1000 (got 1000000000)",
        "ask for fewer; memlane refuses sizes past 1000",
    );
    assert!(
        stderr.contains(
            "error: --limit must be between 1 and 1000 (got 1000000000)\n  hint: ask for fewer"
        ),
        "{stderr}"
    );
    assert_invalid(
        &env,
        &["related", "deploy-notes", "--depth", "0"],
        "--depth must be between 1 and 32 (got 0)",
        "ask for at least 1",
    );
}

#[test]
fn a_size_past_the_limits_gets_a_hint_in_tool_words() {
    let env = TestEnv::with_vault("basic");
    let mut c = Client::start(&env);
    c.initialize();
    let (e, text) =
        tool_error(&mut c, "search_memories", json!({"query": "deploy", "limit": 1_000_000_000}));
    assert_eq!(e["kind"], "invalid", "{e}");
    assert_eq!(e["message"], "limit must be between 1 and 1000 (got 1000000000)", "{e}");
    let hint = e["hint"].as_str().unwrap();
    assert!(hint.contains("at most 1000") && hint.contains("parameter"), "{hint}");
    assert!(!hint.contains("memlane "), "an MCP hint names no shell command: {hint}");
    assert!(text.ends_with(&format!("\nhint: {hint}")), "{text}");
    let (e, _) =
        tool_error(&mut c, "get_related_memories", json!({"name": "deploy-notes", "depth": 0}));
    assert_eq!(e["message"], "depth must be between 1 and 32 (got 0)", "{e}");
    assert!(e["hint"].as_str().unwrap().starts_with("pass at least 1"), "{e}");
}

#[test]
fn a_name_that_differs_only_in_case_is_refused_with_the_existing_name_in_each_front_end() {
    let env = TestEnv::with_vault("basic");
    let (e, stderr) = json_error(&env, &["add", "Deploy-Notes", "Another text entirely."], 2);
    assert_eq!(e["kind"], "invalid", "{e}");
    let message = e["message"].as_str().unwrap();
    assert!(message.contains("only in letter case"), "{e}");
    assert!(!message.contains("hint"), "the message carries no hint: {message}");
    assert_eq!(e["hint"], "use `deploy-notes`, or choose another name", "{e}");
    assert!(stderr.contains("  hint: use `deploy-notes`"), "{stderr}");

    let mut c = Client::start(&env);
    c.initialize();
    let (e, _) = tool_error(
        &mut c,
        "create_memory",
        json!({"name": "Deploy-Notes", "content": "Another text entirely."}),
    );
    assert_eq!(e["kind"], "invalid", "{e}");
    assert_eq!(e["message"].as_str().unwrap(), message, "one message for both front ends");
    assert!(e["hint"].as_str().unwrap().contains("`deploy-notes`"), "{e}");
    assert!(!env.exists("Deploy-Notes.md"), "nothing was written");
}

#[test]
fn a_split_without_sections_says_how_in_each_front_end() {
    let env = TestEnv::with_vault("basic");
    env.run(["add", "one-part", "Just one paragraph, no headings at all."]).success();
    let (e, _) = json_error(&env, &["split", "one-part"], 2);
    assert_eq!(e["kind"], "invalid", "{e}");
    assert!(e["message"].as_str().unwrap().contains("a split needs at least two"), "{e}");
    let hint = e["hint"].as_str().unwrap();
    assert!(hint.contains("`memlane edit one-part`") && hint.contains("## …"), "{hint}");

    let mut c = Client::start(&env);
    c.initialize();
    let (e, _) = tool_error(&mut c, "split_memory", json!({"name": "one-part"}));
    assert_eq!(e["kind"], "invalid", "{e}");
    let hint = e["hint"].as_str().unwrap();
    assert!(hint.contains("pieces") && !hint.contains("memlane "), "{hint}");
}

#[test]
fn command_line_input_errors_keep_kind_exit_code_and_hint() {
    let env = TestEnv::with_vault("basic");
    assert_invalid(
        &env,
        &["trash", "empty", "--older-than", "soon"],
        "--older-than `soon` is not a duration",
        "use e.g. 30d, 12h, 2w",
    );
    assert_invalid(
        &env,
        &["-c", "default_type", "list"],
        "`-c default_type` is not KEY=VALUE",
        "e.g. `-c default_type=fact`",
    );
    let (e, _) = json_error(&env, &["--now", "yesterday", "list"], 2);
    assert_eq!(e["kind"], "invalid", "{e}");
    assert!(e["hint"].as_str().unwrap().contains("2026-01-10T10:00:00Z"), "{e}");
    // A bad model name is refused before anything is downloaded.
    let (e, _) = json_error(&env, &["model", "pull", "not a model"], 2);
    assert_eq!(e["kind"], "invalid", "{e}");
    assert_eq!(e["message"], "invalid model name `not a model`", "{e}");
    assert!(e["hint"].as_str().unwrap().contains("Hugging Face repository name"), "{e}");
}

#[test]
fn doctor_and_list_give_findings_with_their_hints_apart() {
    let env = TestEnv::with_vault("basic");
    env.write(".hidden.md", "dots\n");
    let doctor = env.run(["doctor", "--json"]).success().json();
    let problems = doctor["problems"].as_array().unwrap();
    let gitignore = problems.iter().find(|p| p["kind"] == "gitignore").expect("gitignore advice");
    assert!(!gitignore["message"].as_str().unwrap().contains("hint"), "{gitignore}");
    assert!(gitignore["hint"].as_str().unwrap().contains("`memlane init`"), "{gitignore}");
    let hidden = problems.iter().find(|p| p["kind"] == "unreachable").expect("hidden file");
    assert_eq!(hidden["hint"], "rename it without the leading `.` to make it one", "{hidden}");

    let text = env.run(["doctor"]).success();
    assert!(text.stdout.contains("\n    hint: add the lines `.history/`, `.trash/`"), "{text}");
    let list = env.run(["list"]).success();
    assert!(
        list.stderr.contains("it is not read\n  hint: rename it without the leading `.`"),
        "{list}"
    );
}
