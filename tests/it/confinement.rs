//! A cloned repository cannot make memlane read or write outside its vault through a symbolic
//! link: memlane's own folders (`.trash`, `.history`, `indices`, `state`) that are links are
//! refused by every command and reported by `doctor`, a replayed operation record cannot write
//! through a linked folder, and an `indices` that is a plain file is replaced.

#![cfg(unix)]

use std::path::{Path, PathBuf};

use crate::common::TestEnv;

/// Every file under `dir` (following nothing), with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out: Vec<(PathBuf, Vec<u8>)> = walkdir(dir)
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    out.sort();
    out
}

fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else { return out };
    for e in rd {
        let e = e.unwrap();
        let t = e.file_type().unwrap();
        if t.is_dir() {
            out.extend(walkdir(&e.path()));
        } else if t.is_file() {
            out.push(e.path());
        }
    }
    out
}

/// The memory files of the `basic` fixture, with their bytes.
fn memories(env: &TestEnv) -> Vec<(PathBuf, Vec<u8>)> {
    ["deploy-notes.md", "standup.md", "auth/jwt-plan.md", "auth/session-store.md"]
        .iter()
        .map(|f| (PathBuf::from(f), std::fs::read(env.vault().join(f)).unwrap_or_default()))
        .collect()
}

#[test]
fn every_command_refuses_a_linked_internal_folder_and_writes_nothing_through_it() {
    for folder in [".trash", ".history", "indices", "state"] {
        let env = TestEnv::with_vault("basic");
        let outside = env.root.join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("keep.txt"), "someone else's file\n").unwrap();
        let link = env.vault().join(folder);
        if link.is_dir() {
            std::fs::remove_dir_all(&link).unwrap();
        }
        // Relative, as git stores it.
        std::os::unix::fs::symlink("../outside", &link).unwrap();
        let outside_before = snapshot(&outside);
        let memories_before = memories(&env);

        let commands: &[&[&str]] = &[
            &["add", "fresh", "new memory text"],
            &["update", "deploy-notes", "replaced body"],
            &["rm", "standup"],
            &["mv", "deploy-notes", "moved-notes"],
            &["merge", "deploy-notes", "standup", "--into", "merged"],
            &["reindex"],
            &["search", "deploy"],
            &["list"],
            &["mcp"],
        ];
        for args in commands {
            let out = env.run(*args);
            assert_eq!(out.code, 2, "{folder}: {args:?}: {out}");
            assert!(
                out.stderr.contains(&format!("`vault/{folder}` is a symbolic link")),
                "{folder}: {args:?}: the error names the folder: {out}"
            );
            assert!(
                out.stderr.contains(&format!("rm [ROOT]/vault/{folder}")),
                "{folder}: {args:?}: the hint says how to fix it: {out}"
            );
        }
        assert_eq!(snapshot(&outside), outside_before, "{folder}: nothing written outside");
        assert_eq!(memories(&env), memories_before, "{folder}: no memory changed");

        let out = env.run(["doctor"]).success();
        assert!(out.stdout.contains(&format!("`vault/{folder}` is a symbolic link")), "{out}");
        assert!(out.stdout.contains("hint: remove the link"), "{out}");
        let out = env.run(["doctor", "--json"]).success();
        let problems = out.json()["problems"].as_array().unwrap().clone();
        assert_eq!(problems.len(), 1, "{out}");
        assert_eq!(problems[0]["kind"], "unsafe_folder");
        assert_eq!(problems[0]["folder"], format!("vault/{folder}"));
        assert_eq!(snapshot(&outside), outside_before, "{folder}: doctor wrote nothing outside");

        // Once the link is gone, the vault works again.
        std::fs::remove_file(&link).unwrap();
        env.run(["add", "fresh", "new memory text"]).success();
    }
}

#[test]
fn an_internal_folder_that_is_a_file_is_refused() {
    let env = TestEnv::with_vault("basic");
    std::fs::remove_dir_all(env.vault().join(".history")).unwrap();
    std::fs::write(env.vault().join(".history"), "not a folder\n").unwrap();
    let out = env.run(["update", "deploy-notes", "replaced body"]).code(2);
    assert!(out.stderr.contains("`vault/.history` is not a folder"), "{out}");
    assert!(out.stderr.contains("hint: move it out of the way"), "{out}");
    assert_eq!(env.read(".history"), "not a folder\n");
}

#[test]
fn a_planted_intent_through_a_linked_folder_writes_and_deletes_nothing_outside() {
    let env = TestEnv::with_vault("basic");
    let hooks = env.root.join("hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    std::fs::write(hooks.join("victim"), "precious\n").unwrap();
    std::os::unix::fs::symlink("../hooks", env.vault().join("h")).unwrap();
    let planted = env.vault().join("state/intents/mv-1-x");
    std::fs::create_dir_all(&planted).unwrap();
    std::fs::write(
        planted.join("000001.json"),
        r##"[{"path":"h/post-checkout","text":"#!/bin/sh\necho pwned\n","mode":493},{"path":"h/victim","text":null}]"##,
    )
    .unwrap();
    let before = snapshot(&hooks);
    let memories_before = memories(&env);
    // Every command that opens the vault, and a writing one that takes the vault's lock.
    for args in [&["list"][..], &["doctor"], &["mcp"], &["add", "fresh", "text"]] {
        let _ = env.run(args);
        assert_eq!(snapshot(&hooks), before, "{args:?}: nothing written or deleted outside");
        assert!(!hooks.join("post-checkout").exists(), "{args:?}");
    }
    assert_eq!(memories(&env), memories_before);
}

#[test]
fn an_indices_file_is_moved_aside_by_reindex_and_by_search() {
    for args in [&["reindex"][..], &["search", "deploy", "--json"]] {
        let env = TestEnv::with_vault("basic");
        std::fs::write(env.vault().join("indices"), "a stray file\n").unwrap();
        let out = env.run(args).success();
        assert!(out.stderr.contains("was a file, not a folder"), "{args:?}: {out}");
        assert!(env.vault().join("indices").is_dir(), "{args:?}: the indices were built");
        let aside: Vec<_> = std::fs::read_dir(env.vault().join(".trash"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("indices_"))
            .collect();
        assert_eq!(aside.len(), 1, "{args:?}: the file is kept in the trash");
        assert_eq!(std::fs::read_to_string(&aside[0]).unwrap(), "a stray file\n");
        if args[0] == "search" {
            let hits = out.json();
            assert!(hits.to_string().contains("deploy-notes"), "{args:?}: search answers: {out}");
        }
    }
}

#[test]
fn a_link_inside_the_indices_is_removed_never_followed() {
    let env = TestEnv::with_vault("basic");
    env.run(["reindex"]).success();
    let outside = env.root.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("keep.txt"), "someone else's file\n").unwrap();
    let graph = env.vault().join("indices/graph");
    std::fs::remove_dir_all(&graph).unwrap();
    std::os::unix::fs::symlink("../../outside", &graph).unwrap();
    let before = snapshot(&outside);
    env.run(["add", "fresh", "links [[deploy-notes]]"]).success();
    env.run(["reindex"]).success();
    let out = env.run(["search", "deploy", "--json"]).success();
    assert!(out.stdout.contains("deploy-notes"), "{out}");
    assert_eq!(snapshot(&outside), before, "nothing written outside");
    assert!(graph.is_dir() && !graph.is_symlink(), "the graph folder is a real folder again");
}

/// memlane run in `dir` with no `--vault` and no `MEMLANE_VAULT`: it finds the vault by walking up.
fn run_in(env: &TestEnv, dir: &Path, args: &[&str]) -> std::process::Output {
    let mut cmd = env.command();
    cmd.env_remove("MEMLANE_VAULT").current_dir(dir).args(args);
    cmd.output().unwrap()
}

#[test]
fn a_discovered_vault_that_links_out_of_its_project_is_refused() {
    let env = TestEnv::with_vault("basic");
    let before = snapshot(&env.vault());
    // A cloned project whose `.memories` leads to a folder of the user's outside it.
    let project = env.root.join("project");
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::os::unix::fs::symlink("../vault", project.join(".memories")).unwrap();
    for args in [&["list"][..], &["add", "planted", "written where it must not be"], &["doctor"]] {
        let out = run_in(&env, &project.join("src"), args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("is a symbolic link to"), "{args:?}: {stderr}");
        assert!(stderr.contains("--vault"), "the hint says how to use it on purpose: {stderr}");
    }
    assert!(snapshot(&env.vault()) == before, "nothing was written into the linked folder");
    assert!(!env.vault().join("planted.md").exists());

    // The user's own choice is followed: `--vault` names the folder.
    let vault = env.vault();
    let out = run_in(&env, &project, &["--vault", vault.to_str().unwrap(), "list"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    // A link that stays inside the project is followed.
    let inside = env.root.join("inside");
    std::fs::create_dir_all(&inside).unwrap();
    std::fs::rename(env.vault(), inside.join("notes-vault")).unwrap();
    std::os::unix::fs::symlink("notes-vault", inside.join(".memories")).unwrap();
    let out = run_in(&env, &inside, &["list", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!String::from_utf8_lossy(&out.stdout).trim().is_empty());
}
