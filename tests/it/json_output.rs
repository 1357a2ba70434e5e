//! What the commands really print with `--json` is what `docs/reference/json.md` says: the
//! output of the real binary on small vaults, checked against the JSON Schema of the type each
//! command declares (`memlane generate schemas`, the declaration the page is generated from).
//! Every key printed must be documented, every required key present, every value of the
//! documented type.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::common::TestEnv;

// The checker the debug build runs on every `--json` output, shared with the binary.
#[path = "../../src/cli/json_check.rs"]
mod json_check;

/// One declared output: its form (`object`, `array`, `lines`) and the schema of one value.
struct Declared {
    form: String,
    schema: Value,
}

/// The declarations, by heading (`trash list`, `show --raw`).
fn declared() -> BTreeMap<String, Declared> {
    let env = TestEnv::empty();
    let out = env.run(["generate", "schemas"]).success().json();
    let mut map = BTreeMap::new();
    for o in out["outputs"].as_array().expect("an `outputs` array") {
        let (Some(form), Some(schema)) = (o["form"].as_str(), o.get("schema")) else { continue };
        let command = o["command"].as_str().unwrap();
        let heading = match o["case"].as_str() {
            Some(case) => format!("{command} {case}"),
            None => command.to_owned(),
        };
        map.insert(heading, Declared { form: form.to_owned(), schema: schema.clone() });
    }
    map
}

/// Checks the stdout of `memlane <args>` against the declaration `heading`; returns how many
/// values were checked.
fn check_output(declared: &BTreeMap<String, Declared>, heading: &str, stdout: &str) -> usize {
    let d = declared
        .get(heading)
        .unwrap_or_else(|| panic!("`{heading}` has no declared `--json` output"));
    let values: Vec<Value> = match d.form.as_str() {
        "lines" => stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect(),
        "array" => {
            let v: Value = serde_json::from_str(stdout).unwrap();
            v.as_array().unwrap_or_else(|| panic!("`{heading}` printed no array: {v}")).clone()
        }
        _ => vec![serde_json::from_str(stdout).unwrap()],
    };
    let mut problems = Vec::new();
    for v in &values {
        problems.extend(json_check::mismatches(&d.schema, v, heading));
    }
    assert!(
        problems.is_empty(),
        "`memlane {heading} --json` does not match the type declared in src/cli/json_output.rs \
         (document the field on its type, then `cargo run -- generate docs --out-dir .`):\n  {}\n{stdout}",
        problems.join("\n  ")
    );
    values.len()
}

/// Runs `memlane <args> --json`, checks what it prints against the declaration `heading`, and
/// returns it.
fn run_checked(
    env: &TestEnv,
    declared: &BTreeMap<String, Declared>,
    heading: &str,
    args: &[&str],
) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let out = env.run(&all).success();
    assert!(check_output(declared, heading, &out.stdout) > 0, "{heading}: nothing printed");
    out.json()
}

/// The memory commands, on the basic vault: reads, writes, the trash and the history.
#[test]
fn memory_commands_print_their_declared_json() {
    let declared = declared();
    let env = TestEnv::with_vault("basic");
    let run = |heading: &str, args: &[&str]| run_checked(&env, &declared, heading, args);
    run("reindex", &["reindex"]);
    run("add", &["add", "notes/cache", "API cache entries live ten minutes.", "--tag", "api"]);
    run("update", &["update", "notes/cache", "API cache entries live five minutes."]);
    run("append", &["append", "notes/cache", "They are dropped on each deploy."]);
    run("show", &["show", "notes/cache"]);
    run("show --raw", &["show", "notes/cache", "--raw"]);
    run("list", &["list"]);
    run("list", &["list", "--sort", "temperature"]);
    let listed = run("list", &["list", "--sort", "importance"]);
    assert!(listed[0].get("importance").is_some(), "{listed}");
    run("search", &["search", "session store"]);
    let explained = run("search", &["search", "session store", "--explain"]);
    assert!(explained["results"][0].get("explain").is_some(), "{explained}");
    // A threshold nothing passes: the candidates below it are listed, with their stages.
    let below = run(
        "search",
        &["search", "session store", "--explain", "-c", "search.score_threshold=1.0"],
    );
    assert!(!below["below_threshold"].as_array().unwrap().is_empty(), "{below}");
    run("context", &["context"]);
    run("hook session-start", &["hook", "session-start"]);
    run("tree", &["tree"]);
    run("cold", &["cold"]);
    run("pin", &["pin", "notes/cache"]);
    run("unpin", &["unpin", "notes/cache"]);
    run("history", &["history", "notes/cache"]);
    run("restore", &["restore", "notes/cache", "--version", "1"]);
    run("mv", &["mv", "notes/cache", "notes/api-cache"]);
    run("doctor", &["doctor"]);
    run("maintain", &["maintain"]);
    run("suggest-merges", &["suggest-merges"]);
    let removed = run("rm", &["rm", "notes/api-cache"]);
    assert_eq!(removed[0]["status"], "deleted", "{removed}");
    let trash = run("trash list", &["trash", "list"]);
    let entry = trash["entries"][0]["entry"].as_str().unwrap().to_owned();
    run("trash restore", &["trash", "restore", &entry]);
    run("rm", &["rm", "notes/api-cache"]);
    run("trash empty", &["trash", "empty"]);
    run("config", &["config"]);
}

/// The graph commands, on the vault whose memories link to each other and to documents.
#[test]
fn graph_commands_print_their_declared_json() {
    let declared = declared();
    let env = TestEnv::with_vault("links");
    let run = |heading: &str, args: &[&str]| run_checked(&env, &declared, heading, args);
    let linked = run("linked", &["linked", "src/auth.py"]);
    assert!(!linked["results"].as_array().unwrap().is_empty(), "{linked}");
    let rel = run("relationships", &["relationships", "auth-v2"]);
    assert!(!rel["outgoing"].as_array().unwrap().is_empty(), "{rel}");
    run("related", &["related", "auth-v2", "--depth", "2"]);
    run("link", &["link", "onboarding", "key-rotation"]);
    run("unlink", &["unlink", "onboarding", "key-rotation"]);
    let expanded = run("search", &["search", "auth", "--expand", "2"]);
    let results = expanded["results"].as_array().unwrap();
    assert!(results.iter().any(|r| r.get("expanded_from").is_some()), "{expanded}");
    run(
        "add",
        &["add", "guide", "# Guide\n\n## Setup\n\nRun make.\n\n## Deploy\n\nRun make deploy.\n"],
    );
    run("split", &["split", "guide"]);
    run("merge", &["merge", "auth-v1", "auth-v2", "--into", "auth-history"]);
    run("summarize", &["summarize", "auth-history", "--content", "Sessions live in Redis."]);
}

/// The commands around the vault: `init`, `setup`, `completions`, `model list`.
#[test]
fn setup_commands_print_their_declared_json() {
    let declared = declared();
    let env = TestEnv::empty();
    let run = |heading: &str, args: &[&str]| run_checked(&env, &declared, heading, args);
    run("init", &["init"]);
    run("setup", &["setup"]);
    run("setup CLIENT", &["setup", "claude-code", "--dry-run"]);
    run("setup git", &["setup", "git", "--dry-run"]);
    run("completions", &["completions", "bash"]);
    run("model list", &["model", "list"]);
}
