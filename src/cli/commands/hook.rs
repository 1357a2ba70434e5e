//! `memlane hook`: the commands an agent client runs at points of its session (Claude Code's
//! `SessionStart` and `Stop` hooks). They read the client's event JSON on stdin and never fail
//! the session: whatever goes wrong is one line, and the exit status is 0.

use std::io::Read as _;
use std::io::Write as _;
use std::time::Duration;

use crate::cli::Ctx;
use crate::cli::session::CliSession;
use memlane::ops::context::{self, ContextRequest};
use memlane::ops::hooks::{self, HookEvent};

/// Run by an agent client at a point of its session (reads the event JSON on stdin; always exits 0)
#[derive(Debug, clap::Args)]
pub(crate) struct HookArgs {
    #[command(subcommand)]
    event: HookCommand,
}

#[derive(Debug, clap::Subcommand)]
enum HookCommand {
    SessionStart(SessionStartArgs),
    Stop(StopArgs),
}

/// Print the session-start digest (`memlane context`) for the event's working directory
#[derive(Debug, clap::Args)]
struct SessionStartArgs {
    /// The most estimated tokens to print (default: `[hooks] session_start_budget`)
    #[arg(long, value_name = "N")]
    budget: Option<usize>,
}

/// Once per session, ask the agent to record what it learned (off with `[hooks] stop_reminder = false`)
#[derive(Debug, clap::Args)]
struct StopArgs {}

/// How long the hook waits for its event on stdin.
const STDIN_TIMEOUT: Duration = Duration::from_secs(2);

/// Reads the event from stdin: nothing (a terminal, or nothing within [`STDIN_TIMEOUT`]) or text
/// that is not JSON reads as an empty event.
fn read_event() -> HookEvent {
    use std::io::IsTerminal as _;
    if std::io::stdin().is_terminal() {
        return HookEvent::default();
    }
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut s = String::new();
        // An event is small; a client that never closes stdin is not waited for.
        let _ = std::io::stdin().lock().take(1 << 20).read_to_string(&mut s);
        let _ = tx.send(s);
    });
    rx.recv_timeout(STDIN_TIMEOUT).map(|s| HookEvent::parse(&s)).unwrap_or_default()
}

/// Works in the event's directory, unless `--vault` or `MEMLANE_VAULT` names the vault.
fn enter(ctx: &Ctx, event: &HookEvent) {
    if ctx.global.vault.is_some() {
        return;
    }
    if let Some(cwd) = &event.cwd
        && cwd.is_dir()
        && let Err(e) = std::env::set_current_dir(cwd)
    {
        ctx.out.warn(format!("cannot enter {}: {e}", cwd.display()));
    }
}

pub(crate) fn hook(ctx: &mut Ctx, args: &HookArgs) -> anyhow::Result<()> {
    let event = read_event();
    enter(ctx, &event);
    let ctx = &*ctx;
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &args.event {
        HookCommand::SessionStart(a) => session_start(ctx, a),
        HookCommand::Stop(_) => stop(ctx, &event),
    }));
    let failure = match run {
        Ok(Ok(())) => return Ok(()),
        Ok(Err(e)) => format!("{e:#}"),
        Err(_) => "an internal error (reported above)".to_owned(),
    };
    let line = format!("memlane: no project memory this time: {}", one_line(&failure));
    match args.event {
        // What a SessionStart hook prints is read by the agent: it learns why memory is missing.
        HookCommand::SessionStart(_) => {
            let _ = writeln!(std::io::stdout().lock(), "{line}");
        }
        // A Stop hook's stdout is read as a decision: the note goes to stderr.
        HookCommand::Stop(_) => {
            let _ = writeln!(std::io::stderr().lock(), "{line}");
        }
    }
    Ok(())
}

/// `text` on one line, at most 300 characters.
fn one_line(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() <= 300 {
        return joined;
    }
    let cut: String = joined.chars().take(299).collect();
    format!("{cut}…")
}

fn session_start(ctx: &Ctx, args: &SessionStartArgs) -> anyhow::Result<()> {
    let s = CliSession::open(ctx)?;
    let budget =
        args.budget.unwrap_or(memlane::ops::Session::vault(&s).config.hooks.session_start_budget);
    memlane::limits::check("--budget", budget, 1, memlane::limits::MAX_BUDGET_TOKENS)?;
    let req = ContextRequest { budget, task: None, workdir: None };
    let digest = context::context(&s, &req)?;
    if ctx.out.json {
        return ctx.out.json(&digest);
    }
    ctx.out.text(&digest.text)
}

fn stop(ctx: &Ctx, event: &HookEvent) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    if let Some(reason) = hooks::stop_reminder(&vault, event)? {
        let answer = serde_json::to_string(&hooks::stop_block(reason))?;
        ctx.out.line(answer)?;
    }
    Ok(())
}
