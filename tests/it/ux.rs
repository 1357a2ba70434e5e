//! What people at a terminal meet: colour and shell completion.

use crate::common::TestEnv;

/// Asks the binary for completions the way the shell hooks do (`COMPLETE=<shell>`), with the
/// cursor on the last word of `line`.
fn complete(
    env: &TestEnv,
    shell: &str,
    line: &[&str],
    cwd: Option<&std::path::Path>,
) -> Vec<String> {
    let mut cmd = env.command();
    cmd.env("COMPLETE", shell)
        .env("_CLAP_COMPLETE_INDEX", (line.len() - 1).to_string())
        .env("_CLAP_COMPLETE_COMP_TYPE", "9")
        .env("_CLAP_COMPLETE_SPACE", "true")
        .env("_CLAP_IFS", "\n")
        .arg("--")
        .args(line);
    if let Some(dir) = cwd {
        cmd.env_remove("MEMLANE_VAULT").current_dir(dir);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .split(['\n', '\u{0b}'])
        .map(|s| s.split(['\t', ':']).next().unwrap_or_default().trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

#[test]
fn completion_offers_memory_names_types_tags_intents_and_profiles() {
    let env = TestEnv::with_vault("basic");
    for shell in ["bash", "zsh", "fish"] {
        let names = complete(&env, shell, &["memlane", "show", "auth/"], None);
        assert_eq!(names, ["auth/jwt-plan", "auth/session-store"], "{shell}");
        let names = complete(&env, shell, &["memlane", "rm", "deploy-notes", "st"], None);
        assert_eq!(names, ["standup"], "{shell}: every name of rm completes");
        let types = complete(&env, shell, &["memlane", "list", "--type", "de"], None);
        assert_eq!(types, ["decision"], "{shell}");
        let tags = complete(&env, shell, &["memlane", "search", "q", "--tag", "re"], None);
        assert_eq!(tags, ["refactor"], "{shell}: tags come from the memories");
        let intents = complete(&env, shell, &["memlane", "search", "q", "--intent", "ex"], None);
        assert_eq!(intents, ["exact", "explore"], "{shell}");
        let profiles = complete(&env, shell, &["memlane", "search", "q", "--profile", "m"], None);
        // Fixed words come in the order they are documented in (`--help`), not sorted.
        assert_eq!(profiles, ["mnestra", "mira"], "{shell}");
    }
    // The vault is found from the folder the shell is in, as every command finds it.
    let project = env.root.join("project");
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::rename(env.vault(), project.join(".memories")).unwrap();
    let names = complete(&env, "bash", &["memlane", "show", "dep"], Some(&project.join("src")));
    assert_eq!(names, ["deploy-notes"]);
    // Outside any vault, nothing is offered and nothing is printed as an error.
    let names = complete(&env, "bash", &["memlane", "show", "dep"], Some(&env.root));
    assert!(names.is_empty(), "{names:?}");
}

#[test]
fn the_completion_hook_prints_for_each_shell_and_registers_in_bash() {
    let env = TestEnv::with_vault("basic");
    for shell in ["bash", "zsh", "fish"] {
        let out = env.command().env("COMPLETE", shell).output().unwrap();
        let hook = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && hook.contains("memlane"), "{shell}: {hook}");
    }
    if std::process::Command::new("bash").arg("--version").output().is_err() {
        eprintln!("skipped the bash half: no bash on PATH");
        return;
    }
    let bin = assert_cmd::cargo::cargo_bin!("memlane");
    let script = format!("source <(COMPLETE=bash '{}'); complete -p memlane", bin.display());
    let out = std::process::Command::new("bash").arg("-c").arg(&script).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("complete") && said.contains("memlane"),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn colour_follows_the_flag_no_color_and_the_terminal() {
    let env = TestEnv::with_vault("basic");
    let esc = "\u{1b}[";
    // Forced on: names, types, tags and scores are coloured, and the layout is the same.
    let plain = env.run(["--color", "never", "list"]).success().stdout;
    let coloured =
        env.command().env_remove("NO_COLOR").args(["--color", "always", "list"]).output().unwrap();
    let coloured = String::from_utf8_lossy(&coloured.stdout).into_owned();
    assert!(coloured.contains(&format!("{esc}1;35mauth/jwt-plan{esc}0m")), "{coloured}");
    assert!(coloured.contains(&format!("{esc}36mdecision{esc}0m")), "{coloured}");
    let stripped = regex::Regex::new("\u{1b}\\[[0-9;]*m").unwrap().replace_all(&coloured, "");
    assert_eq!(stripped, plain, "colour changes nothing but colour");
    for args in [
        vec!["--color", "always", "show", "auth/jwt-plan", "--no-touch"],
        vec!["--color", "always", "search", "jwt tokens", "--no-touch"],
        vec!["--color", "always", "tree"],
    ] {
        let out = env.command().args(&args).output().unwrap();
        assert!(String::from_utf8_lossy(&out.stdout).contains(esc), "{args:?}");
    }
    // Piped (as here), `auto` colours nothing, with or without NO_COLOR; `never` never does;
    // JSON is never coloured.
    for (args, no_color) in [
        (vec!["list"], None),
        (vec!["--color", "auto", "list"], Some("1")),
        (vec!["--color", "never", "list"], None),
        (vec!["--color", "always", "--json", "list"], None),
    ] {
        let mut cmd = env.command();
        cmd.env_remove("NO_COLOR").args(&args);
        if let Some(v) = no_color {
            cmd.env("NO_COLOR", v);
        }
        let out = cmd.output().unwrap();
        assert!(!String::from_utf8_lossy(&out.stdout).contains(esc), "{args:?}");
    }
}
