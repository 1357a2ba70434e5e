//! The front ends reach the vault, its indices and its usage state only through `ops`: neither
//! `src/cli` nor `src/mcp` names a store type or calls a vault write. A rule that lives in ops
//! then holds for every front end, and a new front end gets it by calling ops.
//!
//! Nor do they write files: a command that creates a vault, sets up a client, installs a model
//! or merges a file calls the ops function that does it. Two front-end files are let off, each
//! for a reason of its own ([`WRITES_ALLOWED`]).

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
const INDEX_CALLS: &[&str] =
    &[".with_indexes(", ".read_indexes(", ".manifest()", ".keyword()", ".vector()"];

/// File-system writes (std's and memlane's own), matched as text.
const FS_WRITES: &[&str] = &[
    "fs::write",
    "File::create",
    "OpenOptions",
    "DirBuilder",
    "create_dir",
    "fs::rename",
    "fs::copy",
    "remove_file",
    "remove_dir",
    "set_permissions",
    "hard_link",
    "symlink",
    "atomic_write",
    "append_synced",
];

/// Library functions that write on the user's behalf (a vault, git's config, a client's files,
/// a model, a merged file): ops calls them, a front end calls ops.
const LIBRARY_WRITES: &[&str] = &[
    "vault::init",
    "merge_driver_setup",
    "import_model",
    "clear_default_pointer",
    "hub::pull",
    "merge_memory",
    "git_merge_text",
    "setup::plan",
];

/// Front-end files that may write, and why: `generate` writes the command line's own
/// completions, man pages and references (no vault is involved); `edit` hands the user's editor
/// a private temporary copy and saves the result through `ops::memory::edit`.
const WRITES_ALLOWED: &[&str] = &["src/cli/commands/generate", "src/cli/commands/edit.rs"];

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

/// What the front-end files `files` (under `root`) do that only ops may do, one line each.
fn findings(root: &Path, files: &[PathBuf]) -> Vec<String> {
    let mut found = Vec::new();
    for f in files {
        let rel = f.strip_prefix(root).unwrap_or(f).display().to_string().replace('\\', "/");
        let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let may_write = WRITES_ALLOWED.iter().any(|a| rel.starts_with(a));
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
            if may_write {
                continue;
            }
            for w in FS_WRITES {
                if line.contains(w) {
                    found.push(format!("{rel}:{n}: writes files itself (`{w}`): {}", line.trim()));
                }
            }
            for w in LIBRARY_WRITES {
                if names(line, w) {
                    found.push(format!("{rel}:{n}: calls the writer `{w}`: {}", line.trim()));
                }
            }
        }
    }
    found
}

#[test]
fn the_front_ends_reach_stores_only_through_ops() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src/cli"), &mut files);
    rust_files(&root.join("src/mcp"), &mut files);
    assert!(files.len() > 40, "the front ends' files were not found under {}", root.display());
    let found = findings(root, &files);
    assert!(
        found.is_empty(),
        "the front ends (src/cli, src/mcp) must call an ops function instead:\n{}",
        found.join("\n")
    );
}

#[test]
fn a_front_end_file_that_writes_is_caught_except_where_allowed() {
    let root = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let p = root.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    };
    let files = [
        write("src/cli/commands/init.rs", "fn run() {\n    std::fs::create_dir_all(&dir)?;\n}\n"),
        write("src/cli/commands/config.rs", "    memlane::disk::atomic_write(&p, b\"x\")?;\n"),
        write(
            "src/cli/commands/setup.rs",
            "    let done = merge_driver_setup(&v, a, true, &p)?;\n",
        ),
        write("src/mcp/tools.rs", "    let f = std::fs::OpenOptions::new();\n"),
        write("src/cli/commands/model.rs", "    // std::fs::write in a comment is no write\n"),
        write("src/cli/commands/generate/man.rs", "    std::fs::write(&out, page)?;\n"),
        write("src/cli/commands/edit.rs", "    let mut options = std::fs::OpenOptions::new();\n"),
    ];
    let found = findings(root.path(), &files);
    let at = |rel: &str| found.iter().filter(|f| f.starts_with(rel)).count();
    assert_eq!(
        at("src/cli/commands/init.rs:2: writes files itself (`create_dir`)"),
        1,
        "{found:#?}"
    );
    assert_eq!(at("src/cli/commands/config.rs:1: writes files itself (`atomic_write`)"), 1);
    assert_eq!(at("src/cli/commands/setup.rs:1: calls the writer `merge_driver_setup`"), 1);
    assert_eq!(at("src/mcp/tools.rs:1: writes files itself (`OpenOptions`)"), 1);
    assert_eq!(found.len(), 4, "comments, generate and edit are let off: {found:#?}");
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
