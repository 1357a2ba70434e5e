//! `memlane config` and the layered config as the CLI applies it.

use crate::common::TestEnv;

#[test]
fn config_shows_effective_values_and_their_sources() {
    let env = TestEnv::with_vault("basic");
    std::fs::write(
        env.vault().join("config.toml"),
        "default_type = \"fact\"\n[types.bug_fix]\nhalf_life_days = 60\n",
    )
    .unwrap();
    let user = env.root.join("user.toml");
    std::fs::write(&user, "[types.meeting]\nweight = 0.8\n").unwrap();
    let mut cmd = env.command();
    cmd.env("MEMLANE_CONFIG", &user).env("MEMLANE_PRIVACY__SCRUB_SECRETS", "false").args([
        "config",
        "-c",
        "types.plan.weight=2",
    ]);
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text =
        String::from_utf8_lossy(&out.stdout).replace(&env.root.display().to_string(), "[ROOT]");
    insta::assert_snapshot!("config_layers", text);

    // The vault layer's default_type is used by add.
    env.run(["add", "typed", "defaults to fact"]).success();
    assert!(env.read("typed.md").contains("type: fact\n"));
    // A user-defined type is accepted.
    let mut cmd = env.command();
    cmd.env("MEMLANE_CONFIG", &user).args(["add", "m", "standup notes", "--type", "meeting"]);
    assert!(cmd.status().unwrap().success());
}

#[test]
fn config_flags_before_and_after_the_subcommand_all_count() {
    let env = TestEnv::with_vault("basic");
    let out = env.run(["-c", "search.limit=3", "config", "-c", "default_type=fact"]).success();
    assert!(out.stdout.contains("limit = 3  # flag -c search.limit"), "{out}");
    assert!(out.stdout.contains("default_type = \"fact\"  # flag -c default_type"), "{out}");
    // The later of two values for one key wins, wherever each stands.
    let out = env.run(["-c", "search.limit=3", "config", "-c", "search.limit=4"]).success();
    assert!(out.stdout.contains("limit = 4  # flag -c search.limit"), "{out}");
}

#[test]
fn bad_config_names_file_key_and_allowed_values() {
    let env = TestEnv::with_vault("basic");
    std::fs::write(env.vault().join("config.toml"), "[types.bug_fix]\nhalflife = 3\n").unwrap();
    let out = env.run(["list"]).code(2);
    assert!(out.stderr.contains("unknown key `types.bug_fix.halflife`"), "{out}");
    assert!(out.stderr.contains("[ROOT]/vault/config.toml"), "{out}");
    assert!(out.stderr.contains("half_life_days"), "{out}");

    std::fs::write(env.vault().join("config.toml"), "storage_strategy = \"cloud\"\n").unwrap();
    let out = env.run(["list"]).code(2);
    assert!(
        out.stderr.contains("storage_strategy") && out.stderr.contains("\"project\" or \"user\""),
        "{out}"
    );

    std::fs::write(env.vault().join("config.toml"), "").unwrap();
    let mut cmd = env.command();
    cmd.env("MEMLANE_BOGUS", "1").arg("list");
    let out = cmd.output().unwrap();
    // An unknown variable is a warning naming it, not a failure (a known one with a bad value is).
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("warning: ignoring the environment variable MEMLANE_BOGUS")
    );

    let out = env.run(["list", "-c", "nonsense"]).code(2);
    assert!(out.stderr.contains("is not KEY=VALUE"), "{out}");
}

#[test]
fn the_config_written_by_init_loads_as_the_defaults() {
    let env = TestEnv::empty();
    env.run(["init"]).success();
    let json = env.run(["config", "--json"]).success().json();
    assert_eq!(json["config"]["default_type"], "journal");
    assert_eq!(json["sources"]["default_type"], "default");
    assert_eq!(json["config"]["types"]["decision"]["half_life_days"], 365.0);
}
