//! `memlane setup`: connect an agent client to this vault's MCP server.

use anyhow::Context as _;
use clap::ValueEnum;
use memlane::ops::setup::SetupOptions;
use memlane::ops::wire::GitSetUp;
use memlane::setup::{Client, FileAction};

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

pub(crate) fn run(ctx: &mut Ctx, args: &SetupArgs) -> anyhow::Result<()> {
    let Some(arg) = args.client else {
        return list(ctx);
    };
    let vault = memlane::vault::locate(&ctx.location()?)?;
    let opts = SetupOptions {
        command: args.command.as_deref(),
        remove: args.remove,
        dry_run: args.dry_run,
    };
    let Some(client) = arg.client() else {
        let done = memlane::ops::setup::git(&vault, opts)?;
        return git(ctx, &done);
    };
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let done = memlane::ops::setup::client(&vault, &cwd, client, opts)?;
    for w in &done.warnings {
        ctx.out.warn(w.clone());
    }
    if ctx.out.json {
        return ctx.out.json(&done);
    }
    if done.dry_run {
        for f in done.files.iter().filter(|f| f.action != FileAction::Unchanged) {
            ctx.out.text(&f.diff)?;
        }
        ctx.out.note(if done.changed {
            "dry run: nothing was written"
        } else {
            "dry run: nothing would change"
        });
        return Ok(());
    }
    for f in &done.files {
        let verb = match f.action {
            FileAction::Create => "created",
            FileAction::Update => "updated",
            FileAction::Delete => "deleted",
            FileAction::Unchanged => "unchanged",
        };
        ctx.out.line(format!("{verb:<9}  {}", f.path))?;
    }
    if !done.remove {
        if let Some(vault) = &done.vault_elsewhere {
            ctx.out.warn(format!(
                "the vault {} is not this project's .memories/, so `memlane mcp` started in {} finds it only where MEMLANE_VAULT is set (or with `storage_strategy = \"user\"`)",
                vault.display(),
                done.project.display()
            ));
        }
        for n in client.notes() {
            ctx.out.note(format!("note: {n}"));
        }
        if !done.command_found {
            ctx.out.warn(format!(
                "`{}` is not on PATH here, so {} cannot start it; install memlane (`cargo install --path .`) or pass --command",
                done.command,
                client.title()
            ));
        }
    }
    Ok(())
}

/// `setup git`: the merge driver's registration, as `init` makes it in a git work tree.
fn git(ctx: &mut Ctx, done: &GitSetUp) -> anyhow::Result<()> {
    if ctx.out.json {
        return ctx.out.json(done);
    }
    if done.work_tree.is_none() {
        ctx.out.warn(format!(
            "{} is not inside a git work tree (or git is not installed): there is no merge driver to {}",
            done.vault.display(),
            if done.remove { "remove" } else { "register" }
        ));
        return Ok(());
    }
    for c in &done.changes {
        ctx.out.line(if done.dry_run { format!("would {c}") } else { c.to_string() })?;
    }
    ctx.out.note(match (done.changes.is_empty(), done.dry_run) {
        (true, _) => "nothing to change: the merge driver is already as asked",
        (false, true) => "dry run: nothing was written",
        (false, false) if done.remove => "the merge driver is removed from this clone",
        (false, false) => {
            "memory files now merge key by key; commit .gitattributes so colleagues get the rule (each clone runs `memlane setup git` or `memlane init` once)"
        }
    });
    Ok(())
}

fn list(ctx: &Ctx) -> anyhow::Result<()> {
    let clients = memlane::ops::setup::clients();
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
