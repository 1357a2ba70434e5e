//! The command line: argument definitions, global flags, dispatch and exit codes.
//!
//! Only this tree uses clap and anyhow. Library errors reach here typed; `main` prints them as
//! `memlane: error: …` on stderr and maps them to exit codes (0 ok, 1 failure, 2 usage/bad input).

mod args;
mod commands;
mod complete;
mod error;
mod hints;
#[cfg(any(debug_assertions, test))]
mod json_check;
mod json_output;
mod output;
#[cfg(test)]
mod reference_check;
mod session;

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand, ValueEnum};
use memlane::config::{ConfigInputs, LoadedConfig, StorageStrategy};
use memlane::vault::{Clock, Location, Vault};

use output::Out;

/// Long-term, project-local memory for AI agents and the people beside them
///
/// Memories are Markdown files with YAML frontmatter in `.memories/`, committed with your
/// project. Run `memlane init` to create a vault, then `memlane add`.
#[derive(Debug, Parser)]
#[command(
    name = "memlane",
    version,
    max_term_width = 100,
    after_long_help = "Exit status: 0 success; 2 bad input or something not found (kinds not_found, exists, duplicate, conflict, invalid, refused, config, usage); 1 a failure of the machine (kinds io, model, internal). With --json, a failure also prints {\"error\": {\"kind\", \"message\", \"hint\"}} on stdout."
)]
pub(crate) struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

/// Flags every command takes.
#[derive(Debug, clap::Args)]
pub(crate) struct GlobalArgs {
    /// The vault: a `.memories` folder, or a folder containing one
    #[arg(long, global = true, env = "MEMLANE_VAULT", value_name = "PATH")]
    vault: Option<PathBuf>,
    /// Print results as JSON (the editor-plugin API; shapes in docs/reference/json.md)
    #[arg(long, global = true)]
    json: bool,
    /// Print no warnings or progress
    #[arg(short, long, global = true)]
    quiet: bool,
    /// Log more to stderr (-v info, -vv debug, -vvv trace); MEMLANE_LOG overrides
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    /// When to use colour
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    color: ColorChoice,
    /// Pin "now" to this instant (ISO-8601), for reproducible timestamps and ages
    #[arg(long, global = true, env = "MEMLANE_NOW", value_name = "TIME")]
    now: Option<String>,
    /// Set a config value for this run, e.g. `-c default_type=fact` (repeatable)
    #[arg(short = 'c', long = "config", global = true, value_name = "KEY=VALUE")]
    config_overrides: Vec<String>,
}

/// When to use colour.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum ColorChoice {
    /// Colour on a terminal, unless NO_COLOR is set
    Auto,
    /// Always
    Always,
    /// Never
    Never,
}

impl ColorChoice {
    /// Whether to colour a stream that is (or is not) a terminal: `auto` colours a terminal
    /// unless `NO_COLOR` is set to something (<https://no-color.org>).
    fn enabled(self, terminal: bool) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    Init(commands::init::InitArgs),
    Add(commands::add::AddArgs),
    #[command(visible_alias = "read")]
    Show(commands::show::ShowArgs),
    Edit(commands::edit::EditArgs),
    Update(commands::update::UpdateArgs),
    Append(commands::append::AppendArgs),
    #[command(visible_alias = "delete")]
    Rm(commands::rm::RmArgs),
    Mv(commands::mv::MvArgs),
    List(commands::list::ListArgs),
    Search(commands::search::SearchArgs),
    Context(commands::context::ContextArgs),
    Reindex(commands::reindex::ReindexArgs),
    Linked(commands::linked::LinkedArgs),
    Relationships(commands::relationships::RelationshipsArgs),
    Related(commands::related::RelatedArgs),
    Link(commands::link::LinkArgs),
    Unlink(commands::unlink::UnlinkArgs),
    Doctor(commands::doctor::DoctorArgs),
    Pin(commands::pin::PinArgs),
    /// Unpin a memory: it cools normally again and can become cold
    Unpin(commands::pin::PinArgs),
    Cold(commands::cold::ColdArgs),
    Tree(commands::tree::TreeArgs),
    Summarize(commands::summarize::SummarizeArgs),
    Merge(commands::merge::MergeArgs),
    SuggestMerges(commands::suggest_merges::SuggestMergesArgs),
    Split(commands::split::SplitArgs),
    Maintain(commands::maintain::MaintainArgs),
    Model(commands::model::ModelArgs),
    Trash(commands::trash::TrashArgs),
    History(commands::history::HistoryArgs),
    Restore(commands::restore::RestoreArgs),
    Config(commands::config::ConfigArgs),
    Watch(commands::watch::WatchArgs),
    Mcp(commands::mcp::McpArgs),
    MergeFile(commands::merge_file::MergeFileArgs),
    Setup(commands::setup::SetupArgs),
    Hook(commands::hook::HookArgs),
    Completions(commands::generate::CompletionsArgs),
    #[command(hide = true)]
    Generate(commands::generate::GenerateArgs),
}

/// What every command gets: parsed global flags and the output channel.
pub(crate) struct Ctx {
    global: GlobalArgs,
    pub out: Out,
    env: Vec<(String, String)>,
}

impl Ctx {
    fn clock(&self) -> anyhow::Result<Clock> {
        match &self.global.now {
            None => Ok(Clock::system()),
            Some(s) => memlane::model::time::parse_timestamp(s)
                .map(Clock::pinned)
                .ok_or_else(|| error::CliError::BadNow(s.clone()).into()),
        }
    }

    fn config_flags(&self) -> anyhow::Result<Vec<(String, toml::Value, String)>> {
        let mut flags: Vec<(String, toml::Value, String)> = Vec::new();
        // MEMLANE_MODEL is a shorthand for `embedding.model`, above the config files.
        if let Some((_, v)) = self.env.iter().find(|(k, _)| k.eq_ignore_ascii_case("MEMLANE_MODEL"))
        {
            flags.push((
                "embedding.model".into(),
                toml::Value::String(v.clone()),
                "MEMLANE_MODEL".into(),
            ));
        }
        let rest: anyhow::Result<Vec<(String, toml::Value, String)>> = self
            .global
            .config_overrides
            .iter()
            .map(|kv| {
                let (k, v) =
                    kv.split_once('=').ok_or_else(|| error::CliError::NotKeyValue(kv.clone()))?;
                let value = toml::from_str::<toml::Table>(&format!("v = {v}"))
                    .ok()
                    .and_then(|mut t| t.remove("v"))
                    .unwrap_or_else(|| toml::Value::String(v.to_owned()));
                Ok((k.trim().to_owned(), value, format!("-c {}", k.trim())))
            })
            .collect();
        flags.extend(rest?);
        Ok(flags)
    }

    /// Loads the layered config; `vault_file` adds the vault's own layer.
    pub fn load_config(
        &self,
        vault_file: Option<&std::path::Path>,
    ) -> anyhow::Result<LoadedConfig> {
        let loaded = self.with_config_inputs(|inputs| {
            LoadedConfig::load(&ConfigInputs { vault_file, ..*inputs })
        })?;
        Ok(loaded.map_err(memlane::Error::from)?)
    }

    /// Runs `f` with the configuration layers this process has (the user file, the
    /// environment, the flags), without a vault file.
    pub fn with_config_inputs<R>(
        &self,
        f: impl FnOnce(&ConfigInputs<'_>) -> R,
    ) -> anyhow::Result<R> {
        let explicit = std::env::var_os("MEMLANE_CONFIG").map(PathBuf::from);
        let user_file = explicit.clone().or_else(memlane::config::default_user_config_path);
        let flags = self.config_flags()?;
        let inputs = ConfigInputs {
            user_file: user_file.as_deref(),
            user_file_required: explicit.is_some(),
            vault_file: None,
            env: &self.env,
            flags: &flags,
        };
        Ok(f(&inputs))
    }

    /// Where the vault is, per `--vault`, `MEMLANE_VAULT`, and `storage_strategy`.
    pub fn location(&self) -> anyhow::Result<Location> {
        if let Some(v) = &self.global.vault {
            let cwd = std::env::current_dir().context("cannot read the current directory")?;
            return Ok(Location::Explicit(cwd.join(v)));
        }
        let cfg = self.load_config(None)?;
        Ok(match cfg.config.storage_strategy {
            StorageStrategy::User => Location::User,
            StorageStrategy::Project => Location::Discover(
                std::env::current_dir().context("cannot read the current directory")?,
            ),
        })
    }

    /// Finds and opens the vault with its full config.
    pub fn open_vault(&self) -> anyhow::Result<Vault> {
        let root = memlane::vault::locate(&self.location()?)?;
        let cfg = self.load_config(Some(&root.join("config.toml")))?;
        Ok(Vault::open(&root, cfg.config, self.clock()?)?)
    }

    /// Reads stdin when it is not a terminal.
    pub fn read_stdin(&self) -> anyhow::Result<Option<String>> {
        let stdin = std::io::stdin();
        if stdin.is_terminal() {
            return Ok(None);
        }
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdin.lock(), &mut s)
            .context("cannot read standard input")?;
        Ok(Some(s))
    }
}

fn init_logging(g: &GlobalArgs) {
    let default = match (g.quiet, g.verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, 2) => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("MEMLANE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let ansi = g.color.enabled(std::io::stderr().is_terminal());
    let fmt = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .with_thread_names(g.verbose >= 2);
    // At `-vv` and beyond each line carries the time since start: where a command's time goes.
    let _ = if g.verbose >= 2 {
        fmt.with_timer(tracing_subscriber::fmt::time::uptime()).try_init()
    } else {
        fmt.without_time().try_init()
    };
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The library error inside `err`, if there is one.
fn library_error(err: &anyhow::Error) -> Option<&memlane::Error> {
    err.chain().find_map(|e| e.downcast_ref::<memlane::Error>())
}

/// What kind of failure `err` is: the `kind` of a `--json` error and, through
/// [`memlane::ErrorKind::exit_code`], the exit code (see docs/reference/errors.md).
fn error_kind(err: &anyhow::Error) -> memlane::ErrorKind {
    use memlane::ErrorKind;
    if let Some(e) = library_error(err) {
        return e.kind();
    }
    if let Some(e) = err.chain().find_map(|e| e.downcast_ref::<error::CliError>()) {
        return e.kind();
    }
    if err.chain().any(|e| e.downcast_ref::<memlane::config::ConfigError>().is_some()) {
        return ErrorKind::Config;
    }
    if err.chain().any(|e| e.downcast_ref::<std::io::Error>().is_some()) {
        return ErrorKind::Io;
    }
    ErrorKind::Internal
}

/// `err` and its causes, `a: b: c`, with library errors in words ([`memlane::error::chain_text`]).
fn readable(err: &anyhow::Error) -> String {
    memlane::error::chain_text(err.as_ref())
}

/// Prints a failure: `memlane: error: …` and its hint on stderr; with `--json`, also one JSON
/// object `{"error": {"kind", "message", "hint"}}` on stdout, so a plugin reads every answer as
/// JSON.
fn report_error(ctx: &Ctx, err: &anyhow::Error) {
    use std::io::Write as _;
    let message = readable(err);
    let hint = hints::hint_for(err);
    if ctx.out.json {
        let v = serde_json::json!({
            "error": { "kind": error_kind(err).as_str(), "message": message, "hint": hint }
        });
        let _ = writeln!(std::io::stdout().lock(), "{v}");
    }
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "memlane: error: {message}");
    if let Some(h) = hint {
        let _ = writeln!(stderr, "  hint: {h}");
    }
}

/// A clap error that does not quote what was typed, where that may be memory content.
///
/// clap quotes the offending argument: `memlane add name text "more text"` would print the
/// extra text, `memlane "remember the password is …"` the whole sentence as an unknown
/// command, `--status "…"` the value. Errors go to terminals, logs and CI output, so content
/// never appears in them: an unexpected argument is named only when it is a flag (clap already
/// drops a flag's `=value`) that redaction leaves alone; values, positionals and unknown commands
/// become `…`. The usage line, the valid values and the suggestions (which come from memlane's own
/// definitions) still say what to do.
fn without_echo(mut e: clap::Error) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let flag = |s: &str| {
        s.starts_with('-')
            && s.chars().count() <= 40
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            && !memlane::privacy::sanitize(s, true).had_private_content
    };
    let hidden = || ContextValue::String("…".to_owned());
    let mut hid_arg = false;
    let named_flag =
        matches!(e.get(ContextKind::InvalidArg), Some(ContextValue::String(a)) if flag(a));
    match e.kind() {
        ErrorKind::UnknownArgument if !named_flag => {
            e.insert(ContextKind::InvalidArg, hidden());
            hid_arg = true;
        }
        ErrorKind::InvalidSubcommand => {
            e.insert(ContextKind::InvalidSubcommand, hidden());
            hid_arg = true;
        }
        _ => {}
    }
    if hid_arg {
        // This replaces clap's tip, which repeats the argument ("to pass '…' as a value …").
        let tip = "the argument is not repeated here, as it may be memory content; quote content as one argument, and put `--` before content that starts with `-`";
        e.insert(ContextKind::Suggested, ContextValue::StyledStrs(vec![tip.to_owned().into()]));
    }
    if e.get(ContextKind::InvalidValue).is_some() {
        e.insert(ContextKind::InvalidValue, hidden());
    }
    e
}

/// The command line's (sub)command names, `trash list`: what [`Out`] checks `--json` against.
/// Only debug builds check, so only they read the command line again.
fn command_path() -> String {
    if !cfg!(debug_assertions) {
        return String::new();
    }
    let Ok(matches) = <Cli as clap::CommandFactory>::command().try_get_matches() else {
        return String::new();
    };
    let mut names = Vec::new();
    let mut at = &matches;
    while let Some((name, sub)) = at.subcommand() {
        names.push(name.to_owned());
        at = sub;
    }
    names.join(" ")
}

/// Every `-c KEY=VALUE` of the command line, in order, given `parsed`, what clap kept. A global
/// argument given both before and after the subcommand keeps only the values after it (clap
/// propagates the subcommand's values up), so `memlane -c a=1 search q -c b=2` would silently
/// lose `a=1`. The arguments are read again for `-c`, `-cVALUE`, `-c=VALUE`, `--config VALUE`
/// and `--config=VALUE` up to a `--`; what clap kept must be the end of what is found, else
/// clap's reading stands.
fn every_config_flag(
    args: impl Iterator<Item = std::ffi::OsString>,
    parsed: Vec<String>,
) -> Vec<String> {
    let mut found = Vec::new();
    let mut args = args.map(|a| a.to_string_lossy().into_owned());
    while let Some(arg) = args.next() {
        if arg == "--" {
            break;
        }
        let value = if arg == "-c" || arg == "--config" {
            args.next()
        } else if let Some(v) = arg.strip_prefix("--config=") {
            Some(v.to_owned())
        } else {
            let short = arg.strip_prefix("-c").filter(|_| !arg.starts_with("--"));
            short.map(|v| v.strip_prefix('=').unwrap_or(v).to_owned())
        };
        found.extend(value);
    }
    if found.len() > parsed.len() && found.ends_with(&parsed) { found } else { parsed }
}

/// Runs the CLI and returns the process exit code.
pub(crate) fn main() -> ExitCode {
    // `COMPLETE=bash memlane` prints the shell's completion hook; the hook calls back here.
    clap_complete::CompleteEnv::with_factory(<Cli as clap::CommandFactory>::command).complete();
    let mut cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { memlane::ErrorKind::Usage.exit_code() } else { 0 };
            let e = without_echo(e);
            if e.use_stderr() && std::env::args_os().skip(1).any(|a| a == "--json") {
                // A plugin that asked for JSON gets JSON, even when the command line is wrong.
                let rendered = e.render().to_string();
                let message = rendered
                    .lines()
                    .take_while(|l| !l.starts_with("Usage:"))
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .collect::<Vec<_>>()
                    .join(" ");
                let message = message.strip_prefix("error: ").unwrap_or(&message);
                let v = serde_json::json!({
                    "error": { "kind": memlane::ErrorKind::Usage.as_str(), "message": message, "hint": "see `memlane --help`" }
                });
                use std::io::Write as _;
                let _ = writeln!(std::io::stdout().lock(), "{v}");
            }
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    cli.global.config_overrides = every_config_flag(
        std::env::args_os().skip(1),
        std::mem::take(&mut cli.global.config_overrides),
    );
    init_logging(&cli.global);
    let env: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| k.to_ascii_uppercase().starts_with("MEMLANE_"))
        .collect();
    let out = Out {
        json: cli.global.json,
        quiet: cli.global.quiet,
        color: !cli.global.json && cli.global.color.enabled(std::io::stdout().is_terminal()),
        unwritable_warned: Default::default(),
        command: command_path(),
    };
    // An unknown `MEMLANE_*` variable (a user's own `MEMLANE_BIN`, say) is ignored with one
    // warning, as cargo and git do with unknown variables of their prefix.
    for var in memlane::config::unknown_env_vars(&env) {
        out.warn(format!(
            "ignoring the environment variable {var}: it names no memlane setting (settings \
             are MEMLANE_<KEY>, nested keys joined with `__`, as `memlane config` lists them)"
        ));
    }
    let mut ctx = Ctx { global: cli.global, out, env };
    match run(&mut ctx, cli.command) {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            report_error(&ctx, &err);
            ExitCode::from(error_kind(&err).exit_code())
        }
    }
}

fn run(ctx: &mut Ctx, command: Command) -> anyhow::Result<ExitCode> {
    use commands::*;
    match command {
        Command::MergeFile(a) => return merge_file::run(ctx, &a),
        Command::Init(a) => init::run(ctx, &a),
        Command::Add(a) => add::run(ctx, &a),
        Command::Show(a) => show::run(ctx, &a),
        Command::Edit(a) => edit::run(ctx, &a),
        Command::Update(a) => update::run(ctx, &a),
        Command::Append(a) => append::run(ctx, &a),
        Command::Rm(a) => rm::run(ctx, &a),
        Command::Mv(a) => mv::run(ctx, &a),
        Command::List(a) => list::run(ctx, &a),
        Command::Search(a) => search::search(ctx, &a),
        Command::Context(a) => context::context(ctx, &a),
        Command::Reindex(a) => reindex::reindex(ctx, &a),
        Command::Linked(a) => linked::linked(ctx, &a),
        Command::Relationships(a) => relationships::relationships(ctx, &a),
        Command::Related(a) => related::related(ctx, &a),
        Command::Link(a) => link::link(ctx, &a),
        Command::Unlink(a) => unlink::unlink(ctx, &a),
        Command::Doctor(a) => doctor::doctor(ctx, &a),
        Command::Pin(a) => pin::pin(ctx, &a),
        Command::Unpin(a) => pin::unpin(ctx, &a),
        Command::Cold(a) => cold::cold(ctx, &a),
        Command::Tree(a) => tree::tree(ctx, &a),
        Command::Summarize(a) => summarize::summarize(ctx, &a),
        Command::Merge(a) => merge::merge(ctx, &a),
        Command::SuggestMerges(a) => suggest_merges::suggest_merges(ctx, &a),
        Command::Split(a) => split::split(ctx, &a),
        Command::Maintain(a) => maintain::maintain(ctx, &a),
        Command::Model(a) => model::model(ctx, &a),
        Command::Trash(a) => trash::trash(ctx, &a),
        Command::History(a) => history::history(ctx, &a),
        Command::Restore(a) => restore::restore(ctx, &a),
        Command::Config(a) => config::run(ctx, &a),
        Command::Watch(a) => watch::run(ctx, &a),
        Command::Mcp(a) => mcp::run(ctx, &a),
        Command::Setup(a) => setup::run(ctx, &a),
        Command::Hook(a) => hook::hook(ctx, &a),
        Command::Completions(a) => generate::completions(ctx, &a),
        Command::Generate(a) => generate::run(ctx, &a),
    }?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory as _;

    #[test]
    fn verify_app() {
        super::Cli::command().debug_assert();
    }
}

#[cfg(test)]
mod config_flag_tests {
    use super::every_config_flag;

    fn flags(args: &[&str], parsed: &[&str]) -> Vec<String> {
        let args = args.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        every_config_flag(args.into_iter(), parsed.iter().map(|s| (*s).to_owned()).collect())
    }

    #[test]
    fn config_flags_before_and_after_the_subcommand_are_all_kept_in_order() {
        let args = ["-c", "a=1", "--config=b=2", "search", "q", "-cc=3", "--config", "d=4"];
        // What clap keeps: the values after the subcommand.
        assert_eq!(flags(&args, &["c=3", "d=4"]), ["a=1", "b=2", "c=3", "d=4"]);
        assert_eq!(flags(&["-c=a=1", "config"], &["a=1"]), ["a=1"]);
        // After `--` nothing is a flag; a reading that disagrees with clap's leaves clap's.
        assert_eq!(flags(&["-c", "a=1", "add", "n", "c=2", "--", "-c", "x=1"], &["a=1"]), ["a=1"]);
        assert_eq!(flags(&["-c", "a=1", "search", "-c", "b=2"], &["z=9"]), ["z=9"]);
    }
}
