//! `memlane completions <shell>` and the hidden `memlane generate` that writes the committed
//! `completions/`, `man/` and `docs/reference/` files.

pub(crate) mod reference;

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::CommandFactory as _;
use clap_complete::Shell;

use crate::cli::{Cli, Ctx};

/// Print a shell completion script
#[derive(Debug, clap::Args)]
pub(crate) struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    shell: Shell,
}

/// Write completions, man pages and the reference docs (for maintainers)
#[derive(Debug, clap::Args)]
pub(crate) struct GenerateArgs {
    /// What to write: `docs` is `docs/reference/` (CLI, configuration, MCP, errors, `--json`);
    /// `schemas` prints the JSON Schema of every command's `--json` output on stdout instead
    #[arg(value_parser = ["all", "completions", "man", "docs", "schemas"], default_value = "all")]
    what: String,
    /// The folder that receives `completions/`, `man/` and `docs/reference/`
    #[arg(long, default_value = ".")]
    out_dir: PathBuf,
}

/// `completions --json`.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub(crate) struct Script<'a> {
    /// The shell.
    shell: String,
    /// The completion script, as `completions SHELL` prints it.
    script: &'a str,
}

const SHELLS: &[(Shell, &str)] = &[
    (Shell::Bash, "memlane.bash"),
    (Shell::Zsh, "_memlane"),
    (Shell::Fish, "memlane.fish"),
    (Shell::PowerShell, "_memlane.ps1"),
    (Shell::Elvish, "memlane.elv"),
];

pub(crate) fn completions(ctx: &mut Ctx, args: &CompletionsArgs) -> anyhow::Result<()> {
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "memlane", &mut buf);
    let script = String::from_utf8_lossy(&buf);
    if ctx.out.json {
        return ctx.out.json(&Script { shell: args.shell.to_string(), script: &script });
    }
    ctx.out.text(&script)
}

fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

pub(crate) fn run(ctx: &mut Ctx, args: &GenerateArgs) -> anyhow::Result<()> {
    if args.what == "schemas" {
        return ctx.out.json_exact(&json_schemas());
    }
    let mut written = Vec::new();
    let all = args.what == "all";
    if all || args.what == "completions" {
        let dir = args.out_dir.join("completions");
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        for (shell, file) in SHELLS {
            let mut buf = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "memlane", &mut buf);
            let path = dir.join(file);
            write(&path, &buf)?;
            written.push(path);
        }
    }
    if all || args.what == "man" {
        let dir = args.out_dir.join("man");
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let cmd = Cli::command();
        written.extend(man_pages(&cmd, "memlane", &dir)?);
    }
    if all || args.what == "docs" {
        let dir = args.out_dir.join(reference::DIR);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        for (file, text) in reference::pages() {
            let path = dir.join(file);
            write(&path, text.as_bytes())?;
            written.push(path);
        }
    }
    if ctx.out.json {
        return ctx.out.json(&written);
    }
    for p in written {
        ctx.out.line(p.display().to_string())?;
    }
    Ok(())
}

/// Every command's `--json` output ([`crate::cli::json_output`]) with the JSON Schema of one
/// value: `{"outputs": [{"command", "case", "form", "schema"}]}`.
fn json_schemas() -> serde_json::Value {
    let outputs: Vec<serde_json::Value> = crate::cli::json_output::outputs()
        .iter()
        .map(|o| {
            serde_json::json!({
                "command": o.command,
                "case": o.case,
                "form": o.form.map(|f| f.as_str()),
                "schema": o.schema.map(|s| s()),
            })
        })
        .collect();
    serde_json::json!({ "outputs": outputs })
}

/// One man page per (sub)command: `memlane.1`, `memlane-add.1`, `memlane-trash-list.1` …
fn man_pages(cmd: &clap::Command, name: &str, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let cmd = cmd.clone().name(name.to_owned()).bin_name(name.replace('-', " "));
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut buf)?;
    let path = dir.join(format!("{name}.1"));
    write(&path, &buf)?;
    out.push(path);
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set() && s.get_name() != "help") {
        out.extend(man_pages(sub, &format!("{name}-{}", sub.get_name()), dir)?);
    }
    Ok(out)
}
