//! The front ends reach the vault, its indices and its usage state only through `ops`: neither
//! `src/cli` nor `src/mcp` names a store type or calls a vault write. A rule that lives in ops
//! then holds for every front end, and a new front end gets it by calling ops.

use std::path::{Path, PathBuf};

/// Names of what ops encapsulates: the usage state and its views, the lifecycle jobs, the
/// index stores, the graph, and the library's internal result types that ops turns into wire
/// types.
const STORE_TYPES: &[&str] = &[
    "UsageStore",
    "UsageState",
    "lifecycle::views",
    "lifecycle::consolidate",
    "ImportanceSource",
    "MaintainReport",
    "MergeOutcome",
    "WriteOutcome",
    "HistoryEntry",
    "TrashEntry",
    "Indexes",
    "KeywordIndex",
    "VectorIndex",
    "LinkGraph",
    "GraphStats",
    "EdgeData",
    "Manifest",
    "index::graph",
    "index::keyword",
    "index::vector",
];

/// The vault's writes (and the reads whose results ops reshapes), called on a vault.
const VAULT_CALLS: &[&str] = &[
    "update",
    "add",
    "append",
    "delete",
    "rename",
    "set_pinned",
    "add_frontmatter_link",
    "remove_frontmatter_links",
    "rewrite_links",
    "all_or_nothing",
    "trash_empty",
    "trash_restore",
    "restore_version",
    "history",
    "trash_list",
    "scan",
    "list",
];

/// Calls that hand a front end the indices themselves (a closure given `&Indexes`) or their
/// contents.
const INDEX_CALLS: &[&str] = &[".with_indexes(", ".manifest()", ".keyword()", ".vector()"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.expect("a directory entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file: comment lines left out (a doc comment may name what it explains).
fn code(text: &str) -> Vec<(usize, &str)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
        .map(|(i, l)| (i + 1, l))
        .collect()
}

/// Whether `line` has `name` as a whole identifier (or path).
fn names(line: &str, name: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    line.match_indices(name).any(|(i, _)| {
        let before = line[..i].chars().next_back();
        let after = line[i + name.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

#[test]
fn the_front_ends_reach_stores_only_through_ops() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src/cli"), &mut files);
    rust_files(&root.join("src/mcp"), &mut files);
    assert!(files.len() > 40, "the front ends' files were not found under {}", root.display());
    let mut found = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(root).unwrap_or(f).display().to_string();
        let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{rel}: {e}"));
        for (n, line) in code(&text) {
            for t in STORE_TYPES {
                if names(line, t) {
                    found.push(format!("{rel}:{n}: names `{t}`: {}", line.trim()));
                }
            }
            for c in INDEX_CALLS {
                if line.contains(c) {
                    found.push(format!(
                        "{rel}:{n}: reaches into the indices (`{c}`): {}",
                        line.trim()
                    ));
                }
            }
            for m in VAULT_CALLS {
                for receiver in ["vault.", "vault().", "vault()?."] {
                    if line.contains(&format!("{receiver}{m}(")) {
                        found.push(format!("{rel}:{n}: calls the vault's `{m}`: {}", line.trim()));
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "the front ends (src/cli, src/mcp) must call an ops function instead:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_sees_what_it_looks_for() {
    assert!(names("let s: UsageStore = x;", "UsageStore"));
    assert!(!names("let s = MyUsageStoreish;", "UsageStore"));
    assert!(names("use memlane::lifecycle::views;", "lifecycle::views"));
    assert!(names("fn with_indexes(f: &dyn Fn(&Indexes))", "Indexes"));
    assert!(names("use memlane::index::store::{IndexError, Indexes};", "Indexes"));
    assert!(!names("fn with_indexes(&self)", "Indexes"));
    assert!(STORE_TYPES.contains(&"Indexes"), "the index handle is banned in every front-end file");
    assert!(code("// UsageStore\nlet a = 1;").iter().all(|(_, l)| !l.contains("UsageStore")));
}
