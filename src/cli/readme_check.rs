//! The README's command table and "Global flags" line list the same commands and flags as the
//! clap definitions: a command or flag added, renamed or removed in one must be in the other.

use std::collections::{BTreeMap, BTreeSet};

use clap::CommandFactory as _;

use super::Cli;

const README: &str = include_str!("../../README.md");

/// Every flag of `cmd` itself (not the globals), as the names a reader may type: `--long` and
/// `-s`. Each entry is one argument's names.
fn flags(cmd: &clap::Command) -> Vec<Vec<String>> {
    cmd.get_arguments()
        .filter(|a| !a.is_positional() && !a.is_hide_set() && !a.is_global_set())
        .map(|a| {
            let mut names: Vec<String> =
                a.get_long().map(|l| format!("--{l}")).into_iter().collect();
            names.extend(a.get_short().map(|s| format!("-{s}")));
            names
        })
        .collect()
}

/// Every visible leaf command (`search`, `trash list`, `model import`) with its flags.
fn clap_commands() -> BTreeMap<String, Vec<Vec<String>>> {
    fn walk(cmd: &clap::Command, prefix: &str, out: &mut BTreeMap<String, Vec<Vec<String>>>) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            let path = format!("{prefix}{}", sub.get_name()).trim().to_owned();
            if sub.has_subcommands() {
                walk(sub, &format!("{path} "), out);
            } else {
                out.insert(path, flags(sub));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&Cli::command(), "", &mut out);
    out
}

/// The command table under `## Commands`: command → the flags its row mentions (`--long` or
/// `-s`). A first cell may hold several commands (`` `pin NAME` / `unpin NAME` ``).
fn readme_commands() -> BTreeMap<String, BTreeSet<String>> {
    let section = README.split("\n## Commands\n").nth(1).expect("README has ## Commands");
    let section = section.split("\n## ").next().unwrap_or(section);
    let mut out = BTreeMap::new();
    let rows = section.lines().filter(|l| l.starts_with("| `"));
    for row in rows {
        let first = row.trim_start_matches('|').split(" | ").next().unwrap_or_default();
        // Each backticked span is one command line, except a visible alias: `(alias `read`)`.
        let parts: Vec<&str> = first.split('`').collect();
        for (i, span) in parts.iter().enumerate().skip(1).step_by(2) {
            if parts[i - 1].ends_with("alias ") {
                let aliased = Cli::command()
                    .get_subcommands()
                    .any(|c| c.get_visible_aliases().any(|a| a == *span));
                assert!(aliased, "the README's table gives `{span}` as an alias; clap does not");
                continue;
            }
            let words: Vec<&str> = span.split_whitespace().collect();
            let path: Vec<&str> = words
                .iter()
                .take_while(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
                .take(2)
                .copied()
                .collect();
            let flags: BTreeSet<String> = words
                .iter()
                .flat_map(|w| w.split(['[', ']', '|', '…', '\\']))
                .filter(|w| w.starts_with('-') && w.len() > 1)
                .map(|w| w.split('=').next().unwrap_or(w).to_owned())
                .collect();
            let entry: &mut BTreeSet<String> = out.entry(path.join(" ")).or_default();
            entry.extend(flags);
        }
    }
    // `trash list` and `model import` start with a word that is a command group.
    out.retain(|k, _| !k.is_empty());
    out
}

#[test]
fn readme_command_table_matches_the_clap_definitions() {
    let clap = clap_commands();
    let mut readme = readme_commands();
    // A row's second word is an argument, not a subcommand, unless the first is a group.
    let groups: BTreeSet<&str> =
        clap.keys().filter_map(|k| k.split_once(' ').map(|(g, _)| g)).collect();
    readme = readme
        .into_iter()
        .map(|(k, v)| match k.split_once(' ') {
            Some((first, _)) if !groups.contains(first) => (first.to_owned(), v),
            _ => (k, v),
        })
        .fold(BTreeMap::new(), |mut acc, (k, v)| {
            acc.entry(k).or_insert_with(BTreeSet::new).extend(v);
            acc
        });
    let mut problems = Vec::new();
    for name in clap.keys().filter(|k| *k != "help" && !readme.contains_key(*k)) {
        problems.push(format!("`{name}` is a command but has no row in the README's table"));
    }
    for name in readme.keys().filter(|k| !clap.contains_key(*k)) {
        problems.push(format!("the README's table lists `{name}`, which is no command"));
    }
    for (name, args) in &clap {
        let Some(documented) = readme.get(name) else { continue };
        for names in args {
            if !names.iter().any(|n| documented.contains(n)) {
                problems.push(format!("`{name} {}` is not in the README's table", names.join("/")));
            }
        }
        for flag in documented {
            if !args.iter().flatten().any(|n| n == flag) {
                problems.push(format!(
                    "the README's table gives `{name} {flag}`, which clap does not know"
                ));
            }
        }
    }
    // The global flags are listed above the table.
    let globals = README
        .split("\nGlobal flags:")
        .nth(1)
        .and_then(|s| s.split("\n\n").next())
        .expect("README lists the global flags");
    for arg in Cli::command().get_arguments().filter(|a| a.is_global_set() && !a.is_hide_set()) {
        let long = arg.get_long().map(|l| format!("--{l}"));
        let short = arg.get_short().map(|s| format!("-{s}"));
        if !long
            .iter()
            .chain(short.iter())
            .any(|n| globals.contains(&format!("`{n}")) || globals.contains(&format!("/{n}")))
        {
            problems.push(format!(
                "the global flag {} is not in the README's \"Global flags\"",
                long.or(short).unwrap_or_default()
            ));
        }
    }
    assert!(problems.is_empty(), "README and CLI disagree:\n  {}", problems.join("\n  "));
}
