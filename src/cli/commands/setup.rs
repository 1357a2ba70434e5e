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
/// Without a client, lists the clients and the files each writes.
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
}

impl From<ClientArg> for Client {
    fn from(c: ClientArg) -> Client {
        match c {
            ClientArg::ClaudeCode => Client::ClaudeCode,
            ClientArg::Cursor => Client::Cursor,
            ClientArg::Vscode => Client::Vscode,
            ClientArg::Gemini => Client::Gemini,
            ClientArg::Codex => Client::Codex,
        }
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
    let Some(client) = args.client.map(Client::from) else {
        return list(ctx);
    };
    let vault = memlane::vault::locate(&ctx.location()?)?;
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
        let v = serde_json::json!({
            "client": plan.client,
            "project": plan.project,
            "command": plan.command,
            "remove": plan.remove,
            "dry_run": args.dry_run,
            "changed": plan.changed(),
            "files": plan.files,
            "warnings": plan.warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
        });
        return ctx.out.json(&v);
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
    ctx.out.text(&ctx.out.table(&["client", "file", "what"], &rows, &[]))?;
    ctx.out.note("run `memlane setup <client>` in the project; `--dry-run` shows the diff first");
    Ok(())
}
