//! Vault discovery, init, exit codes, help.

use crate::common::TestEnv;

#[test]
fn init_creates_the_vault_layout_and_is_idempotent() {
    let env = TestEnv::empty();
    let out = env.run(["init"]).success();
    insta::assert_snapshot!("init_output", out);
    for p in [".trash", ".history"] {
        assert!(env.vault().join(p).is_dir(), "{p} missing");
    }
    let gitignore = env.read(".gitignore");
    assert!(gitignore.lines().any(|l| l == "indices/"), "{gitignore}");
    assert!(gitignore.lines().any(|l| l == "state/"), "{gitignore}");
    let config = env.read("config.toml");
    assert!(config.contains("# default_type"), "config.toml should be commented:\n{config}");
    // Edit the config, run init again: nothing is overwritten.
    env.write("config.toml", "default_type = \"fact\"\n");
    let again = env.run(["init"]).success();
    assert!(again.stdout.contains("already exists"), "{again}");
    assert_eq!(env.read("config.toml"), "default_type = \"fact\"\n");
}

#[test]
fn init_in_the_current_directory_and_discovery_walks_up() {
    let env = TestEnv::empty();
    let project = env.root.join("project");
    std::fs::create_dir_all(project.join("src/deep")).unwrap();
    let mut cmd = env.command();
    cmd.env_remove("MEMLANE_VAULT").current_dir(&project).arg("init");
    assert!(cmd.status().unwrap().success());
    assert!(project.join(".memories/config.toml").is_file());

    let mut add = env.command();
    add.env_remove("MEMLANE_VAULT").current_dir(project.join("src/deep")).args([
        "add",
        "found-it",
        "walks up like git",
    ]);
    let out = add.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(project.join(".memories/found-it.md").is_file());
}

#[test]
fn no_vault_is_a_clear_error_with_exit_code_2() {
    let env = TestEnv::empty();
    let mut cmd = env.command();
    cmd.env_remove("MEMLANE_VAULT").args(["list"]);
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("memlane: error: no memlane vault found"), "{err}");
    assert!(err.contains("memlane init"), "{err}");
    assert!(out.stdout.is_empty());

    // An explicit vault path that does not exist says so too.
    let out = env.run(["list"]).code(2);
    assert!(out.stderr.contains("does not exist"), "{out}");
}

#[test]
fn user_storage_strategy_uses_the_platform_data_dir() {
    let env = TestEnv::empty();
    let mut init = env.command();
    init.env_remove("MEMLANE_VAULT").env("MEMLANE_STORAGE_STRATEGY", "user").arg("init");
    let out = init.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let data = env.root.join("home/.local/share/memlane/vault");
    assert!(data.join("config.toml").is_file(), "no user vault at {}", data.display());
    let mut add = env.command();
    add.env_remove("MEMLANE_VAULT").env("MEMLANE_STORAGE_STRATEGY", "user").args([
        "add",
        "shared",
        "per-user memory",
    ]);
    assert!(add.status().unwrap().success());
    assert!(data.join("shared.md").is_file());
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    let env = TestEnv::with_vault("basic");
    let out = env.run(["add"]).code(2);
    assert!(out.stderr.contains("NAME"), "{out}");
    env.run(["--help"]).success();
    let out = env.run(["frobnicate"]).code(2);
    assert!(out.stderr.contains("unrecognized subcommand"), "{out}");
}

#[test]
fn a_closed_pipe_exits_quietly() {
    let env = TestEnv::with_vault("basic");
    for i in 0..40 {
        env.run(["add", &format!("n{i:02}"), "filler memory", "--force"]).success();
    }
    let mut cmd = env.command();
    cmd.args(["list"]).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    drop(child.stdout.take()); // the reader goes away at once, like `| head -0`
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
}
