//! `memlane setup`: connect an agent client to this vault's MCP server.

use anyhow::Context as _;
use clap::ValueEnum;
use memlane::setup::{self, Client, FileAction, SetupRequest};

use crate::cli::Ctx;

/// Connect an agent client to this vault's MCP server
///
/// Writes the project's configuration that makes the client start `memlane mcp` for this
/// vault, in the format the client documents, next to the vault's `.memories/`: Claude Code
/// (`.mcp.json`, the SessionStart and Stop hooks in `.claude/settings.json`, and your approval
/// of the server in the uncommitted `.claude/settings.local.json`), Cursor (`.cursor/mcp.json`),
/// VS Code (`.vscode/mcp.json`), Gemini CLI (`.gemini/settings.json`) and Codex
/// (`.codex/config.toml`). Other entries in those files are kept; a second run changes nothing.
/// `setup git` registers memlane's merge driver for memory files in this clone (the
/// `.gitattributes` rule and the `merge.memlane` entries of the repository's local git config),
/// as `init` does in a git work tree. Without a client, lists the clients and the files each
/// writes.
#[derive(Debug, clap::Args)]
pub(crate) struct SetupArgs {
    /// The client to connect
    #[arg(value_enum)]
    client: Option<ClientArg>,
    /// Print a unified diff of each file that would change, and change nothing
    #[arg(long)]
    dry_run: bool,
    /// Take memlane's entries out again (a file left empty is deleted)
    #[arg(long)]
    remove: bool,
    /// The command the client runs (default `memlane`, found on PATH); a path here is written
    /// into files that are shared with everyone who clones the project
    #[arg(long, value_name = "PATH")]
    command: Option<String>,
}

/// The clients on the command line (the library's [`Client`]).
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum ClientArg {
    /// Claude Code: .mcp.json, hooks in .claude/settings.json, approval in .claude/settings.local.json
    #[value(alias = "claude")]
    ClaudeCode,
    /// Cursor: .cursor/mcp.json
    Cursor,
    /// VS Code: .vscode/mcp.json
    Vscode,
    /// Gemini CLI: .gemini/settings.json
    Gemini,
    /// Codex: .codex/config.toml
    Codex,
    /// git: memlane's merge driver for memory files (.gitattributes, the local git config)
    Git,
}

impl ClientArg {
    /// The agent client, or `None` for `git` (not an agent client: its own set-up).
    fn client(self) -> Option<Client> {
        Some(match self {
            ClientArg::ClaudeCode => Client::ClaudeCode,
            ClientArg::Cursor => Client::Cursor,
            ClientArg::Vscode => Client::Vscode,
            ClientArg::Gemini => Client::Gemini,
            ClientArg::Codex => Client::Codex,
            ClientArg::Git => return None,
        })
    }
}

/// Whether `command` runs without a path and is on PATH (or has a path that exists).
fn command_found(command: &str) -> bool {
    let p = std::path::Path::new(command);
    if p.components().count() > 1 {
        return p.is_file();
    }
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|d| {
            d.join(command).is_file()
                || (cfg!(windows) && d.join(format!("{command}.exe")).is_file())
        })
    })
}

pub(crate) fn run(ctx: &mut Ctx, args: &SetupArgs) -> anyhow::Result<()> {
    let Some(arg) = args.client else {
        return list(ctx);
    };
    let vault = memlane::vault::locate(&ctx.location()?)?;
    let Some(client) = arg.client() else {
        return git(ctx, args, &vault);
    };
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let project = setup::project_dir(&vault, &cwd);
    let command = args.command.as_deref().unwrap_or(setup::DEFAULT_COMMAND);
    let plan =
        setup::plan(client, &SetupRequest { project: &project, command, remove: args.remove })?;
    if !args.dry_run {
        plan.apply()?;
    }
    for w in &plan.warnings {
        ctx.out.warn(w.to_string());
    }
    if ctx.out.json {
        /// `setup CLIENT --json`.
        #[derive(serde::Serialize)]
        struct SetUp<'a, C: serde::Serialize, F: serde::Serialize> {
            client: &'a C,
            project: &'a std::path::Path,
            command: &'a str,
            remove: bool,
            dry_run: bool,
            changed: bool,
            files: &'a F,
            warnings: Vec<String>,
        }
        return ctx.out.json(&SetUp {
            client: &plan.client,
            project: &plan.project,
            command: &plan.command,
            remove: plan.remove,
            dry_run: args.dry_run,
            changed: plan.changed(),
            files: &plan.files,
            warnings: plan.warnings.iter().map(ToString::to_string).collect(),
        });
    }
    if args.dry_run {
        for f in plan.files.iter().filter(|f| f.action != FileAction::Unchanged) {
            ctx.out.text(&f.diff)?;
        }
        ctx.out.note(if plan.changed() {
            "dry run: nothing was written"
        } else {
            "dry run: nothing would change"
        });
        return Ok(());
    }
    for f in &plan.files {
        let verb = match f.action {
            FileAction::Create => "created",
            FileAction::Update => "updated",
            FileAction::Delete => "deleted",
            FileAction::Unchanged => "unchanged",
        };
        ctx.out.line(format!("{verb:<9}  {}", f.path))?;
    }
    if !args.remove {
        if vault != project.join(".memories") {
            ctx.out.warn(format!(
                "the vault {} is not this project's .memories/, so `memlane mcp` started in {} finds it only where MEMLANE_VAULT is set (or with `storage_strategy = \"user\"`)",
                vault.display(),
                project.display()
            ));
        }
        for n in client.notes() {
            ctx.out.note(format!("note: {n}"));
        }
        if !command_found(command) {
            ctx.out.warn(format!(
                "`{command}` is not on PATH here, so {} cannot start it; install memlane (`cargo install --path .`) or pass --command",
                client.title()
            ));
        }
    }
    Ok(())
}

/// `setup git`: the merge driver's registration, as `init` makes it in a git work tree.
fn git(ctx: &mut Ctx, args: &SetupArgs, vault: &std::path::Path) -> anyhow::Result<()> {
    use memlane::gitmerge::{DriverAction, default_driver_program, merge_driver_setup};
    let action = if args.remove { DriverAction::Remove } else { DriverAction::Install };
    let program = args.command.clone().unwrap_or_else(default_driver_program);
    let done = merge_driver_setup(vault, action, !args.dry_run, &program)?;
    if ctx.out.json {
        /// `setup git --json`.
        #[derive(serde::Serialize)]
        struct GitSetUp<'a, C: serde::Serialize> {
            client: &'static str,
            work_tree: Option<&'a std::path::Path>,
            remove: bool,
            dry_run: bool,
            changed: bool,
            changes: &'a C,
        }
        return ctx.out.json(&GitSetUp {
            client: "git",
            work_tree: done.work_tree.as_deref(),
            remove: args.remove,
            dry_run: args.dry_run,
            changed: !done.changes.is_empty(),
            changes: &done.changes,
        });
    }
    if done.work_tree.is_none() {
        ctx.out.warn(format!(
            "{} is not inside a git work tree (or git is not installed): there is no merge driver to {}",
            vault.display(),
            if args.remove { "remove" } else { "register" }
        ));
        return Ok(());
    }
    for c in &done.changes {
        ctx.out.line(if args.dry_run { format!("would {c}") } else { c.to_string() })?;
    }
    ctx.out.note(match (done.changes.is_empty(), args.dry_run) {
        (true, _) => "nothing to change: the merge driver is already as asked",
        (false, true) => "dry run: nothing was written",
        (false, false) if args.remove => "the merge driver is removed from this clone",
        (false, false) => {
            "memory files now merge key by key; commit .gitattributes so colleagues get the rule (each clone runs `memlane setup git` or `memlane init` once)"
        }
    });
    Ok(())
}

fn list(ctx: &Ctx) -> anyhow::Result<()> {
    let clients = setup::clients();
    if ctx.out.json {
        return ctx.out.json(&clients);
    }
    let mut rows = Vec::new();
    for c in &clients {
        for (i, f) in c.files.iter().enumerate() {
            let name = if i == 0 { c.client.name().to_owned() } else { String::new() };
            rows.push(vec![name, f.path.to_owned(), f.purpose.to_owned()]);
        }
    }
    rows.push(vec![
        "git".to_owned(),
        ".gitattributes".to_owned(),
        "the rule that merges memory files with memlane's merge driver".to_owned(),
    ]);
    rows.push(vec![
        String::new(),
        ".git/config".to_owned(),
        "merge.memlane.name and merge.memlane.driver (this clone only)".to_owned(),
    ]);
    ctx.out.text(&ctx.out.table(&["client", "file", "what"], &rows, &[]))?;
    ctx.out.note("run `memlane setup <client>` in the project; `--dry-run` shows the diff first");
    Ok(())
}
