//! The committed references under `docs/reference/` document every command, flag, config key,
//! MCP tool, result field and error kind the code declares, and every local link in the
//! repository's Markdown leads somewhere. A command or flag without help text, a key without
//! documentation, or a page that is older than the code fails here with what to do.
//!
//! `tests/it/generated.rs` also compares the generated pages byte for byte; these tests say
//! *which* entry is missing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clap::CommandFactory as _;
use serde_json::Value;

use super::Cli;
use super::commands::generate::reference;
use super::json_output;

const REGENERATE: &str = "run `cargo run -- generate docs --out-dir .` and commit";

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Every visible command, `memlane trash list` style, with the command itself.
fn commands() -> Vec<(String, clap::Command)> {
    fn walk(cmd: &clap::Command, prefix: &str, out: &mut Vec<(String, clap::Command)>) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set() && s.get_name() != "help") {
            let name = format!("{prefix} {}", sub.get_name());
            out.push((name.clone(), sub.clone()));
            walk(sub, &name, out);
        }
    }
    let mut root = Cli::command();
    root.build();
    let mut out = vec![("memlane".to_owned(), root.clone())];
    walk(&root, "memlane", &mut out);
    out
}

#[test]
fn every_command_and_flag_has_help_text() {
    let mut problems = Vec::new();
    for (name, cmd) in commands() {
        if cmd.get_about().is_none_or(|a| a.to_string().trim().is_empty()) {
            problems.push(format!("`{name}` has no about text (a `///` line on its Args struct)"));
        }
        for arg in cmd.get_arguments().filter(|a| reference::documented_arg(a)) {
            if arg.get_help().is_none_or(|h| h.to_string().trim().is_empty()) {
                problems.push(format!("`{name}` argument `{}` has no help text", arg.get_id()));
            }
        }
    }
    assert!(problems.is_empty(), "undocumented CLI entries:\n  {}", problems.join("\n  "));
}

#[test]
fn cli_reference_lists_every_command_and_flag() {
    let page = read("docs/reference/cli.md");
    let mut problems = Vec::new();
    for (name, cmd) in commands().into_iter().skip(1) {
        let Some(section) = page.split(&format!("\n## {name}\n")).nth(1) else {
            problems.push(format!("`{name}` has no section"));
            continue;
        };
        let section = section.split("\n## ").next().unwrap_or(section);
        for arg in
            cmd.get_arguments().filter(|a| reference::documented_arg(a) && !a.is_global_set())
        {
            let found = match (arg.get_long(), arg.get_short()) {
                (Some(l), _) => section.contains(&format!("--{l}")),
                (None, Some(s)) => section.contains(&format!("-{s}")),
                (None, None) => {
                    let value = arg.get_value_names().and_then(|v| v.first().cloned());
                    let value = value.map_or_else(|| arg.get_id().to_string(), |v| v.to_string());
                    section.contains(&format!("<{value}>"))
                }
            };
            if !found {
                problems.push(format!("`{name}` argument `{}` is missing", arg.get_id()));
            }
        }
    }
    let global = page.split("\n## Global options\n").nth(1).expect("a Global options section");
    for arg in Cli::command().get_arguments().filter(|a| a.is_global_set() && !a.is_hide_set()) {
        let long = arg.get_long().map(|l| format!("--{l}")).unwrap_or_default();
        if !global.split("\n## ").next().unwrap_or_default().contains(&long) {
            problems.push(format!("global flag `{long}` is missing"));
        }
    }
    assert!(
        problems.is_empty(),
        "docs/reference/cli.md is stale ({REGENERATE}):\n  {}",
        problems.join("\n  ")
    );
    assert_eq!(page, reference::cli(), "docs/reference/cli.md is stale: {REGENERATE}");
}

#[test]
fn config_reference_lists_every_key() {
    let page = read("docs/reference/config.md");
    let mut problems = Vec::new();
    for key in memlane::config::key_reference() {
        if key.doc.iter().all(|l| l.trim().is_empty()) {
            problems.push(format!(
                "`{}` has no documentation: add `///` lines to its declaration in src/config/settings.rs",
                key.key
            ));
        }
        if !page.contains(&format!("### `{}`", key.key)) || !page.contains(&key.env) {
            problems.push(format!("`{}` ({}) is missing", key.key, key.env));
        }
    }
    for (name, _) in memlane::config::builtin_type_profiles() {
        if !page.contains(&format!("| `{name}` |")) {
            problems.push(format!("the built-in type `{name}` is missing"));
        }
    }
    assert!(
        problems.is_empty(),
        "docs/reference/config.md is stale ({REGENERATE}):\n  {}",
        problems.join("\n  ")
    );
    assert_eq!(page, reference::config(), "docs/reference/config.md is stale: {REGENERATE}");
}

/// Calls `visit(path, name, property)` for every property of an object schema and of the
/// objects inside it (by `$ref`, items and variants); `path` is where the property sits
/// (`.problems`).
fn walk_properties(
    root: &Value,
    schema: &Value,
    at: &str,
    depth: usize,
    visit: &mut dyn FnMut(&str, &str, &Value),
) {
    if depth > 8 {
        return;
    }
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => r
            .trim_start_matches("#/")
            .split('/')
            .try_fold(root, |at, part| at.get(part))
            .unwrap_or(schema),
        None => schema,
    };
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, prop) in props {
            visit(at, name, prop);
            walk_properties(root, prop, &format!("{at}.{name}"), depth + 1, visit);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(inner @ Value::Object(_)) = schema.get(key) {
            walk_properties(root, inner, at, depth + 1, visit);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for inner in schema.get(key).and_then(Value::as_array).into_iter().flatten() {
            walk_properties(root, inner, at, depth + 1, visit);
        }
    }
}

/// The field names of an object schema and of the objects inside it, each once.
fn schema_fields(schema: &Value, out: &mut BTreeSet<String>) {
    walk_properties(schema, schema, "", 0, &mut |_, name, _| {
        out.insert(name.to_owned());
    });
}

#[test]
fn mcp_reference_lists_every_tool_parameter_and_result_field() {
    let page = read("docs/reference/mcp.md");
    let catalogue = memlane::mcp::catalogue();
    let mut problems = Vec::new();
    for tool in &catalogue.tools {
        let name = tool.name.as_ref();
        let Some(section) = page.split(&format!("\n### {name}\n")).nth(1) else {
            problems.push(format!("the tool `{name}` has no section"));
            continue;
        };
        let section = section.split("\n### ").next().unwrap_or(section);
        if tool.description.as_ref().is_none_or(|d| d.trim().is_empty()) {
            problems.push(format!("the tool `{name}` has no description"));
        }
        let mut names = BTreeSet::new();
        schema_fields(&Value::Object((*tool.input_schema).clone()), &mut names);
        if let Some(output) = &tool.output_schema {
            schema_fields(&Value::Object((**output).clone()), &mut names);
        } else {
            problems.push(format!("the tool `{name}` has no outputSchema"));
        }
        for field in names {
            if !section.contains(&format!("`{field}` (")) {
                problems.push(format!("`{name}`: the field `{field}` is missing"));
            }
        }
    }
    for prompt in &catalogue.prompts {
        if !page.contains(&format!("\n### {}\n", prompt.name)) {
            problems.push(format!("the prompt `{}` is missing", prompt.name));
        }
    }
    assert!(
        problems.is_empty(),
        "docs/reference/mcp.md is stale ({REGENERATE}):\n  {}",
        problems.join("\n  ")
    );
    assert_eq!(page, reference::mcp(), "docs/reference/mcp.md is stale: {REGENERATE}");
}

#[test]
fn error_reference_lists_every_kind_and_exit_code() {
    let page = read("docs/reference/errors.md");
    for kind in reference::error_kinds() {
        let (_, code) = reference::kind_entry(kind);
        let row = format!("| `{}` |", kind.as_str());
        assert!(
            page.contains(&row),
            "docs/reference/errors.md lacks `{}`: {REGENERATE}",
            kind.as_str()
        );
        assert!(
            page.lines().any(|l| l.starts_with(&row) && l.ends_with(&format!("| {code} |"))),
            "docs/reference/errors.md gives `{}` a wrong exit code: {REGENERATE}",
            kind.as_str()
        );
    }
    assert_eq!(page, reference::errors(), "docs/reference/errors.md is stale: {REGENERATE}");
}

/// Every command a user can run has its `--json` output declared in
/// [`crate::cli::json_output`], and every declaration names a command that exists.
#[test]
fn every_command_declares_its_json_output() {
    let outputs = json_output::outputs();
    let mut problems = Vec::new();
    let runnable: Vec<String> = commands()
        .into_iter()
        .skip(1)
        .filter(|(_, cmd)| !cmd.has_subcommands())
        .map(|(name, _)| name.trim_start_matches("memlane ").to_owned())
        .collect();
    for name in &runnable {
        if !outputs.iter().any(|o| o.command == name) {
            problems.push(format!(
                "`memlane {name}` has no entry: declare the type its `--json` prints in src/cli/json_output.rs"
            ));
        }
    }
    for o in &outputs {
        if !runnable.iter().any(|n| n == o.command) {
            problems.push(format!("`{}` is declared but is no command", o.command));
        }
        if o.form.is_some() != o.schema.is_some() {
            problems.push(format!("`{}` declares a form without a schema", o.command));
        }
        if o.form.is_none() && o.note.trim().is_empty() {
            problems
                .push(format!("`{}` prints no JSON and does not say what it prints", o.command));
        }
    }
    let mut headings: Vec<String> = outputs.iter().map(reference::json_heading).collect();
    headings.sort();
    let before = headings.len();
    headings.dedup();
    if headings.len() != before {
        problems.push("two entries share a command and case".to_owned());
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The properties of a schema (and of the objects inside it) that have no description: a field
/// a reader cannot know the meaning of. A constant (an enum's tag) is described by its variant.
fn undescribed(schema: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    walk_properties(schema, schema, "", 0, &mut |at, name, prop| {
        let text = prop.get("description").and_then(Value::as_str).unwrap_or_default();
        if text.trim().is_empty() && prop.get("const").is_none() {
            out.insert(format!("{at}.{name}").trim_start_matches('.').to_owned());
        }
    });
    out
}

/// The generated `--json` page has a section for every declared output that lists every field
/// of its type (or links to the section that does), and every field has a description: a
/// field added to a wire type without a `///` line fails here.
#[test]
fn json_reference_lists_every_command_and_described_field() {
    let page = read("docs/reference/json.md");
    let mut problems = Vec::new();
    let section = |heading: &str| -> Option<String> {
        let s = page.split(&format!("\n## {heading}\n")).nth(1)?;
        Some(s.split("\n## ").next().unwrap_or(s).to_owned())
    };
    for o in json_output::outputs() {
        let heading = reference::json_heading(&o);
        let Some(mut text) = section(&heading) else {
            problems.push(format!("`{heading}` has no section"));
            continue;
        };
        let Some(schema) = o.schema.map(|s| s()) else { continue };
        // A shape described in another section is linked from this one.
        let link = text.lines().find(|l| l.starts_with("Prints ") && l.ends_with(" describes."));
        if let Some(linked) = link.and_then(|l| l.split("](#").nth(1)) {
            let target = linked.split(')').next().unwrap_or_default();
            let to = json_output::outputs()
                .into_iter()
                .map(|p| reference::json_heading(&p))
                .find(|h| reference::anchor(h) == target);
            text = to.and_then(|h| section(&h)).unwrap_or_default();
        }
        let mut names = BTreeSet::new();
        schema_fields(&schema, &mut names);
        for field in names {
            if !text.contains(&format!("`{field}` (")) {
                problems.push(format!("`{heading}`: the field `{field}` is missing"));
            }
        }
        for field in undescribed(&schema) {
            problems.push(format!(
                "`{heading}`: the field `{field}` has no description: add a `///` line to it"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "docs/reference/json.md is stale or incomplete ({REGENERATE}):\n  {}",
        problems.join("\n  ")
    );
    assert_eq!(page, reference::json(), "docs/reference/json.md is stale: {REGENERATE}");
}

/// The Markdown files of the repository a reader follows links through.
/// The files under `dir` whose extension is one of `exts`.
fn files_under(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, exts, out);
        } else if path.extension().is_some_and(|e| exts.iter().any(|x| e == *x)) {
            out.push(path);
        }
    }
}

fn markdown_files() -> Vec<PathBuf> {
    let top = ["README.md", "CONTRIBUTING.md", "TESTING.md", "BENCHMARKS.md", "CHANGELOG.md"];
    let mut out: Vec<PathBuf> =
        top.iter().map(|f| repo().join(f)).filter(|p| p.is_file()).collect();
    files_under(&repo().join("docs"), &["md"], &mut out);
    out.sort();
    out
}

fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        // Inline code (between backticks) holds no links.
        let prose: String =
            line.split('`').enumerate().filter(|(i, _)| i % 2 == 0).map(|(_, p)| p).collect();
        let mut rest = prose.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_owned());
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn local_links_in_the_docs_resolve() {
    let mut problems = Vec::new();
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let dir = file.parent().unwrap();
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") || target.starts_with('#') {
                continue;
            }
            let path = target.split('#').next().unwrap_or_default();
            let rel = file.strip_prefix(repo()).unwrap_or(&file).display().to_string();
            match dir.join(path).canonicalize() {
                Err(_) => problems.push(format!("{rel}: `{target}` does not exist")),
                Ok(p) if !p.starts_with(repo().canonicalize().unwrap()) => {
                    problems.push(format!("{rel}: `{target}` is outside the repository"));
                }
                Ok(_) => {}
            }
        }
    }
    assert!(problems.is_empty(), "broken links:\n  {}", problems.join("\n  "));
}

/// Nothing in the repository points at a file outside it: the design it was built from is
/// in `docs/`, in its own words.
#[test]
fn nothing_cites_a_file_outside_the_repository() {
    let mut files = markdown_files();
    for dir in ["src", "tests", "benches"] {
        files_under(&repo().join(dir), &["rs", "py", "md"], &mut files);
    }
    // Spelled in two pieces, so that this file does not find itself.
    let outside = [concat!("../", "shared"), concat!("SPEC", " §"), concat!("SPEC", ".md")];
    let mut problems = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for needle in outside {
            if text.contains(needle) {
                let rel = file.strip_prefix(repo()).unwrap_or(&file).display().to_string();
                problems.push(format!("{rel} cites `{needle}`"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The README is a front page: it opens with the two set-up commands, shows how to connect an
/// agent near the top, names every client `memlane setup` knows, and stays short.
#[test]
fn readme_is_a_front_page() {
    let readme = read("README.md");
    assert!(
        readme.len() <= 16 * 1024,
        "README.md is {} bytes; keep it under 16 KB and move detail into docs/",
        readme.len()
    );
    let blocks: Vec<&str> = readme.split("```").skip(1).step_by(2).take(2).collect();
    assert_eq!(blocks.len(), 2, "README.md starts with two code blocks");
    assert!(blocks[0].contains("cargo run") && blocks[0].contains(" init"), "{}", blocks[0]);
    assert!(blocks[1].trim_start_matches("sh").trim().starts_with("cargo test"), "{}", blocks[1]);
    let connect = readme
        .lines()
        .position(|l| l.starts_with("## Connect your agent"))
        .expect("README.md has a `## Connect your agent` section");
    assert!(
        connect < 120,
        "`## Connect your agent` starts at line {}; keep it in the first 120",
        connect + 1
    );
    for client in ["claude-code", "cursor", "vscode", "gemini", "codex"] {
        assert!(
            readme.contains(&format!("memlane setup {client}")),
            "README.md lacks `memlane setup {client}`"
        );
        assert!(
            repo().join(format!("docs/agents/{client}.md")).is_file(),
            "docs/agents/{client}.md"
        );
    }
}
