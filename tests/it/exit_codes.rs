//! The error reference's table of kinds and exit codes (docs/reference/errors.md, generated from
//! `memlane::ErrorKind::ALL`) is what the binary does: one failure of
//! every kind, run for real with `--json`, prints that kind and exits with that code, and the
//! table lists exactly the kinds the library declares.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::common::TestEnv;

/// Extra environment variables for one run.
type Env<'a> = &'a [(&'a str, &'a str)];

/// The error reference's table of `--json` error kinds: kind → (what happened, exit code).
fn documented_kinds() -> BTreeMap<String, (String, i32)> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/reference/errors.md"))
            .expect("docs/reference/errors.md");
    let mut rows = BTreeMap::new();
    let mut lines = readme.lines().skip_while(|l| *l != "| kind | what happened | exit code |");
    assert!(lines.next().is_some(), "the error reference has no table of kinds");
    for line in lines.skip(1).take_while(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let [kind, what, code] = cells[..] else { panic!("a row of three cells: {line}") };
        let code = code.parse().unwrap_or_else(|_| panic!("an exit code: {line}"));
        rows.insert(kind.trim_matches('`').to_owned(), (what.to_owned(), code));
    }
    rows
}

#[test]
fn the_documented_error_table_is_the_libraries_list_of_kinds() {
    let documented = documented_kinds();
    let declared: BTreeMap<String, (String, i32)> = memlane::ErrorKind::ALL
        .iter()
        .map(|k| (k.as_str().to_owned(), (k.description().to_owned(), i32::from(k.exit_code()))))
        .collect();
    assert_eq!(
        documented, declared,
        "the error reference's table and memlane::ErrorKind::ALL differ"
    );
}

#[test]
fn one_failure_of_every_kind_exits_with_its_documented_code() {
    let env = TestEnv::with_vault("basic");
    env.run(["add", "notes/cache", "The cache keeps rendered pages for an hour."]).success();
    // Unresolved git merge-conflict markers in the frontmatter.
    env.write(
        "clash.md",
        "---\n<<<<<<< ours\ntype: fact\n=======\ntype: plan\n>>>>>>> theirs\n---\nbody\n",
    );
    // A memory that is a symbolic link out of the vault.
    let outside = env.root.join("outside.md");
    std::fs::write(&outside, "---\ntype: fact\n---\nnot the vault's\n").unwrap();
    std::os::unix::fs::symlink(&outside, env.vault().join("leak.md")).unwrap();
    let missing = env.root.join("no-such-file.txt");
    let missing = missing.to_str().unwrap();
    let no_model = env.root.join("no-such-model");
    let no_model = format!("embedding.model={}", no_model.display());
    // Nothing listens on port 1: the download fails at once, without the network.
    let no_hub: &[(&str, &str)] = &[("MEMLANE_HF_ENDPOINT", "http://127.0.0.1:1")];

    let cases: Vec<(&str, Vec<&str>, Env)> = vec![
        ("not_found", vec!["show", "nope"], &[]),
        ("exists", vec!["add", "auth/jwt-plan", "again"], &[]),
        ("conflict", vec!["show", "clash"], &[]),
        (
            "duplicate",
            vec!["add", "notes/again", "The cache keeps rendered pages for an hour."],
            &[],
        ),
        ("invalid", vec!["list", "--since", "soon"], &[]),
        ("refused", vec!["show", "leak"], &[]),
        ("config", vec!["-c", "search.limit=0", "list"], &[]),
        ("usage", vec!["show"], &[]),
        ("io", vec!["add", "notes/from-file", "--file", missing], &[]),
        ("model", vec!["-c", &no_model, "search", "cache"], &[]),
        ("internal", vec!["model", "pull"], no_hub),
    ];
    let documented = documented_kinds();
    // Every documented kind is tried, once.
    let mut tried: Vec<&str> = cases.iter().map(|(kind, _, _)| *kind).collect();
    tried.sort_unstable();
    assert_eq!(tried, documented.keys().map(String::as_str).collect::<Vec<_>>());
    for (kind, args, envs) in cases {
        let (_, code) =
            documented.get(kind).unwrap_or_else(|| panic!("{kind} is not in the error reference"));
        let mut all = vec!["--json"];
        all.extend_from_slice(&args);
        let out = env.run_with_env(envs, &all);
        assert_eq!(
            out.code, *code,
            "{kind}: {args:?} exits {}, documented {code}:\n{out}",
            out.code
        );
        let v: Value = serde_json::from_str(out.stdout.trim())
            .unwrap_or_else(|e| panic!("{args:?}: stdout is not one JSON object ({e}):\n{out}"));
        assert_eq!(v["error"]["kind"], kind, "{args:?}: {v}");
        assert!(out.stderr.contains("memlane: error:") || kind == "usage", "{kind}: {out}");
    }
}
