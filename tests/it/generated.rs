//! The committed completions, man pages and reference docs match what the CLI generates.

use std::path::Path;

use crate::common::TestEnv;

fn read_dir_sorted(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap())
        })
        .collect();
    out.sort();
    out
}

#[test]
fn completions_and_man_pages_are_fresh() {
    let env = TestEnv::empty();
    let out_dir = env.root.join("gen");
    env.run(["generate", "all", "--out-dir", out_dir.to_str().unwrap()]).success();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for sub in ["completions", "man"] {
        let fresh = read_dir_sorted(&out_dir.join(sub));
        let committed = read_dir_sorted(&repo.join(sub));
        let names = |v: &[(String, Vec<u8>)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        assert_eq!(
            names(&committed),
            names(&fresh),
            "{sub}/ is stale: run `cargo run -- generate all --out-dir .` and commit"
        );
        for ((name, a), (_, b)) in committed.iter().zip(&fresh) {
            assert!(
                a == b,
                "{sub}/{name} is stale: run `cargo run -- generate all --out-dir .` and commit"
            );
        }
    }
    assert!(out_dir.join("man/memlane-trash-restore.1").is_file());
}

/// The references under `docs/reference/` (CLI, configuration, MCP, `--json`, errors) are what
/// `memlane generate docs` writes from this build.
#[test]
fn reference_docs_are_fresh() {
    let env = TestEnv::empty();
    let out_dir = env.root.join("gen");
    let out = env.run(["generate", "docs", "--out-dir", out_dir.to_str().unwrap()]).success();
    assert!(out.stdout.contains("cli.md"), "{}", out.stdout);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fresh = read_dir_sorted(&out_dir.join("docs/reference"));
    let names: Vec<&str> = fresh.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["cli.md", "config.md", "errors.md", "json.md", "mcp.md"]);
    for (name, bytes) in &fresh {
        let committed = std::fs::read(repo.join("docs/reference").join(name)).unwrap_or_default();
        assert!(
            &committed == bytes,
            "docs/reference/{name} is stale: run `cargo run -- generate docs --out-dir .` and commit"
        );
    }
    // Only `docs` was asked for.
    assert!(!out_dir.join("man").exists() && !out_dir.join("completions").exists());
}

#[test]
fn completions_print_for_every_shell() {
    let env = TestEnv::empty();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = env.run(["completions", shell]).success();
        assert!(out.stdout.contains("memlane"), "{shell}");
    }
}

#[test]
fn help_texts_describe_what_the_commands_do() {
    let env = TestEnv::empty();
    // `unpin` has its own text, not `pin`'s.
    let unpin = env.run(["unpin", "--help"]).success().stdout;
    assert!(unpin.starts_with("Unpin a memory: it cools normally again"), "{unpin}");
    assert!(!unpin.contains("Pin a memory"), "{unpin}");
    // Search fuses scores, not ranks (docs/internals/ranking.md, src/search/mod.rs), in --help
    // and the man page.
    let search = env.run(["search", "--help"]).success().stdout;
    assert!(search.contains("fuses the two scores as a weighted mean"), "{search}");
    assert!(search.contains("ranks are not fused"), "{search}");
    let man =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("man/memlane-search.1"))
            .unwrap();
    assert!(man.contains("fuses the two scores as a weighted mean"), "{man}");
    assert!(!man.contains("Fuses BM25 and vector similarity with weighted reciprocal"), "{man}");
}
