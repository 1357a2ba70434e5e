//! `memlane setup`: the project files that connect an agent client to `memlane mcp`.
//!
//! Each [`Client`] names the files it writes, in the format that client documents (the pages
//! are in [`Client::docs`] and under `docs/agents/`). [`plan`] reads those files and computes
//! their new text without writing anything; [`SetupPlan::apply`] writes what changed, each file
//! atomically. Every edit touches memlane's own keys only:
//!
//! - the server entry `memlane` (command `memlane mcp`, or the `command` given);
//! - Claude Code's `SessionStart` and `Stop` hooks ([`HOOK_SESSION_START`], [`HOOK_STOP`]);
//! - the approval of the server for this user, only in a file that is never committed (Claude
//!   Code's `.claude/settings.local.json`, `enabledMcpjsonServers`), and the `.gitignore` line
//!   that keeps that file out of git when nothing ignores it yet.
//!
//! A second run changes no byte; a removal takes memlane's keys out again, and a file that is
//! then empty is deleted (with its folder, when that is empty too). A config file that does not
//! parse, or whose keys hold something memlane does not expect, stops the whole run before
//! anything is written.
//!
//! Adding a target (such as registering memlane's git merge driver) means a variant in
//! [`Client`] with its files in [`Client::files`] and its edits in [`plan`] (a [`FileChange`]
//! per file, so `--dry-run`, `--remove` and `--json` work unchanged), and a value of the CLI's
//! client argument (`src/cli/commands/setup.rs`), which maps each name to a [`Client`].

mod json;
mod toml_text;

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};

use crate::error::{IoResultExt as _, PathError};

/// The name of memlane's server entry in every client's config.
pub const SERVER_NAME: &str = "memlane";

/// The command a client runs when none is given: `memlane`, found on the `PATH` of whoever
/// opens the project, so the committed files hold no path of one machine.
pub const DEFAULT_COMMAND: &str = "memlane";

/// The arguments of Claude Code's `SessionStart` hook (after the command).
pub const HOOK_SESSION_START: &str = "hook session-start";

/// The arguments of Claude Code's `Stop` hook (after the command).
pub const HOOK_STOP: &str = "hook stop";

/// The `.gitignore` lines that keep Claude Code's per-user settings (where the approval is)
/// out of git.
const GITIGNORE_BLOCK: &str =
    "# Claude Code's per-user settings (approvals) stay out of git\n.claude/settings.local.json\n";

/// An agent client `memlane setup` connects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Client {
    /// Claude Code: `.mcp.json`, hooks in `.claude/settings.json`, the approval in
    /// `.claude/settings.local.json`.
    ClaudeCode,
    /// Cursor: `.cursor/mcp.json`.
    Cursor,
    /// VS Code (Copilot agent mode): `.vscode/mcp.json`.
    Vscode,
    /// Gemini CLI: `.gemini/settings.json`.
    Gemini,
    /// OpenAI Codex: `.codex/config.toml`.
    Codex,
}

/// A file a client's set-up writes, and why.
#[derive(Debug, Clone, Copy, Serialize, schemars::JsonSchema)]
pub struct ClientFile {
    /// The path, relative to the project folder.
    pub path: &'static str,
    /// What memlane keeps in it.
    pub purpose: &'static str,
    /// Whether the file is meant to be committed (shared with everyone who clones).
    pub shared: bool,
}

impl Client {
    /// Every client, in the order `setup` lists them.
    pub const ALL: [Client; 5] =
        [Client::ClaudeCode, Client::Cursor, Client::Vscode, Client::Gemini, Client::Codex];

    /// The name on the command line (`claude-code`).
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::Cursor => "cursor",
            Client::Vscode => "vscode",
            Client::Gemini => "gemini",
            Client::Codex => "codex",
        }
    }

    /// The client's own name (`Claude Code`).
    pub fn title(self) -> &'static str {
        match self {
            Client::ClaudeCode => "Claude Code",
            Client::Cursor => "Cursor",
            Client::Vscode => "VS Code",
            Client::Gemini => "Gemini CLI",
            Client::Codex => "Codex",
        }
    }

    /// The client named `name` (as [`Client::name`] spells it).
    pub fn from_name(name: &str) -> Option<Client> {
        Client::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The client's documentation of the files and keys `setup` writes.
    pub fn docs(self) -> &'static [&'static str] {
        match self {
            Client::ClaudeCode => &[
                "https://code.claude.com/docs/en/mcp",
                "https://code.claude.com/docs/en/hooks",
                "https://code.claude.com/docs/en/settings",
            ],
            Client::Cursor => &["https://cursor.com/docs/mcp"],
            Client::Vscode => {
                &["https://code.visualstudio.com/docs/copilot/reference/mcp-configuration"]
            }
            Client::Gemini => &[
                "https://geminicli.com/docs/tools/mcp-server/",
                "https://geminicli.com/docs/cli/configuration",
            ],
            Client::Codex => &["https://developers.openai.com/codex/mcp"],
        }
    }

    /// The files this client's set-up may write (`.gitignore` only when nothing ignores
    /// Claude Code's per-user settings yet).
    pub fn files(self) -> &'static [ClientFile] {
        match self {
            Client::ClaudeCode => &[
                ClientFile { path: ".mcp.json", purpose: "the server entry", shared: true },
                ClientFile {
                    path: ".claude/settings.json",
                    purpose: "the SessionStart and Stop hooks",
                    shared: true,
                },
                ClientFile {
                    path: ".claude/settings.local.json",
                    purpose: "your approval of the server (enabledMcpjsonServers)",
                    shared: false,
                },
                ClientFile {
                    path: ".gitignore",
                    purpose: "keeps .claude/settings.local.json out of git, when nothing does yet",
                    shared: true,
                },
            ],
            Client::Cursor => &[ClientFile {
                path: ".cursor/mcp.json",
                purpose: "the server entry",
                shared: true,
            }],
            Client::Vscode => &[ClientFile {
                path: ".vscode/mcp.json",
                purpose: "the server entry",
                shared: true,
            }],
            Client::Gemini => &[ClientFile {
                path: ".gemini/settings.json",
                purpose: "the server entry",
                shared: true,
            }],
            Client::Codex => &[ClientFile {
                path: ".codex/config.toml",
                purpose: "the server entry",
                shared: true,
            }],
        }
    }

    /// What the user still has to do in the client after `setup` (trust, approval).
    pub fn notes(self) -> &'static [&'static str] {
        match self {
            Client::ClaudeCode => &[
                "the server is approved for you only (in .claude/settings.local.json); Claude Code asks everyone who clones the project before it starts a project server",
            ],
            Client::Cursor => &[
                "Cursor asks before it runs a project's server: enable memlane under Settings → MCP",
            ],
            Client::Vscode => &[
                "VS Code asks you to trust the server the first time it starts (or use Start in .vscode/mcp.json)",
            ],
            Client::Gemini => &[
                "Gemini CLI starts a project's servers only in a trusted folder: trust the folder when it asks",
            ],
            Client::Codex => &[
                "Codex reads .codex/config.toml only in a trusted project: trust the project when it asks",
            ],
        }
    }
}

/// Why `setup` cannot edit a client's config file. Nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// A config file that does not parse.
    #[error(
        "{} is not valid {format} (line {line}, column {column}: {problem}); nothing was changed",
        .path.display()
    )]
    Parse {
        /// The file.
        path: PathBuf,
        /// `JSON` or `TOML`.
        format: &'static str,
        /// The 1-based line of the problem.
        line: usize,
        /// The 1-based column of the problem.
        column: usize,
        /// What the parser says.
        problem: String,
    },
    /// A key memlane edits that holds something of another kind.
    #[error("{key} in {} is not {expected}; nothing was changed", .path.display())]
    Shape {
        /// The file.
        path: PathBuf,
        /// The key, as a path (`mcpServers`, `hooks.SessionStart`).
        key: String,
        /// What memlane expects there (`an object`).
        expected: &'static str,
    },
    /// An entry written in a form `setup` does not edit (TOML inline tables or dotted keys).
    #[error(
        "memlane's entry in {} is written in a form setup does not edit ({what}); nothing was changed",
        .path.display()
    )]
    CannotEdit {
        /// The file.
        path: PathBuf,
        /// What `setup` would have had to change.
        what: &'static str,
    },
}

/// What `setup` does with one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FileAction {
    /// The file does not exist and is created.
    Create,
    /// The file exists and changes.
    Update,
    /// The file held nothing but memlane's keys and is deleted.
    Delete,
    /// Nothing changes.
    Unchanged,
}

/// One file of a plan: its text before and after.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct FileChange {
    /// The path, relative to the project folder (`/`-separated).
    pub path: String,
    /// What happens to it.
    pub action: FileAction,
    /// What memlane keeps in it.
    pub purpose: &'static str,
    /// A unified diff of the change (empty when unchanged).
    pub diff: String,
    /// The text now (`None`: no file).
    #[serde(skip)]
    pub before: Option<String>,
    /// The text after (`None`: no file).
    #[serde(skip)]
    pub after: Option<String>,
}

/// What a `setup` run would do: computed by [`plan`], written by [`SetupPlan::apply`].
#[derive(Debug, Clone, Serialize)]
pub struct SetupPlan {
    /// The client.
    pub client: Client,
    /// The project folder the files are in.
    pub project: PathBuf,
    /// Whether this takes memlane's entries out.
    pub remove: bool,
    /// The command the entries run.
    pub command: String,
    /// Every file the client's set-up concerns, changed or not.
    pub files: Vec<FileChange>,
    /// What `setup` left out, and why.
    pub warnings: Vec<SetupWarning>,
}

/// Something `setup` deliberately did not write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SetupWarning {
    /// The per-user settings file that would hold the approval is tracked by git, so an
    /// approval there would reach everyone who clones the project: it is not written.
    #[error(
        "{path} is tracked by git, so an approval in it would reach everyone who clones the project; the server was not approved (untrack it with `git rm --cached {path}` and run setup again)"
    )]
    ApprovalFileTracked {
        /// The file, relative to the project.
        path: String,
    },
}

impl SetupPlan {
    /// Whether any file changes.
    pub fn changed(&self) -> bool {
        self.files.iter().any(|f| f.action != FileAction::Unchanged)
    }

    /// Writes every changed file atomically; a file left empty by a removal is deleted, with its
    /// folder when that is then empty.
    pub fn apply(&self) -> crate::Result<()> {
        for f in &self.files {
            let path = self.project.join(&f.path);
            match (f.action, &f.after) {
                (FileAction::Create | FileAction::Update, Some(text)) => {
                    // A config file that is a symbolic link (kept in a dotfiles repository)
                    // stays one: the file it points to is written.
                    let is_link =
                        std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
                    let target = if is_link {
                        std::fs::canonicalize(&path).at("resolve", &path)?
                    } else {
                        path
                    };
                    crate::disk::atomic_write(&target, text.as_bytes())?;
                }
                (FileAction::Delete, _) => {
                    std::fs::remove_file(&path).at("remove", &path)?;
                    if let Some(dir) = path.parent()
                        && dir != self.project
                    {
                        // Only an empty folder goes; one with anything else in it stays.
                        let _ = std::fs::remove_dir(dir);
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// What a `setup` run is asked to do.
#[derive(Debug, Clone)]
pub struct SetupRequest<'a> {
    /// The project folder (where `.mcp.json`, `.cursor/` … go).
    pub project: &'a Path,
    /// The command the client runs ([`DEFAULT_COMMAND`] unless the user gave one).
    pub command: &'a str,
    /// Take memlane's entries out instead of writing them.
    pub remove: bool,
}

/// The project folder for the vault at `vault`: the folder that holds it when it is a
/// `.memories` folder (the entries then find it from there, as every command does), else `cwd`.
pub fn project_dir(vault: &Path, cwd: &Path) -> PathBuf {
    match (vault.file_name(), vault.parent()) {
        (Some(n), Some(parent)) if n == ".memories" => parent.to_owned(),
        _ => cwd.to_owned(),
    }
}

/// The server entry `client` writes for `command`.
pub fn server_entry(client: Client, command: &str) -> Value {
    match client {
        Client::ClaudeCode => json!({ "type": "stdio", "command": command, "args": ["mcp"] }),
        // Neither documents the working folder of a project's server, so the vault is named by
        // the folder the editor opened, which both expand in `args`.
        Client::Cursor => {
            json!({ "command": command, "args": ["mcp", "--vault", "${workspaceFolder}"] })
        }
        Client::Vscode => json!({
            "type": "stdio",
            "command": command,
            "args": ["mcp", "--vault", "${workspaceFolder}"]
        }),
        Client::Gemini => json!({ "command": command, "args": ["mcp"] }),
        Client::Codex => json!({ "command": command, "args": ["mcp"] }),
    }
}

/// The command line of a hook (`memlane hook session-start`): the command, quoted for the shell
/// when it needs it, and the hook's arguments.
pub fn hook_command(command: &str, hook: &str) -> String {
    let plain = !command.is_empty()
        && command.chars().all(|c| c.is_ascii_alphanumeric() || "_-./:@+=,".contains(c));
    if plain {
        format!("{command} {hook}")
    } else {
        format!("'{}' {hook}", command.replace('\'', r"'\''"))
    }
}

/// Codex's `[mcp_servers.memlane]` table for `command`.
pub fn codex_block(command: &str) -> String {
    let cmd = toml::Value::String(command.to_owned());
    format!("[mcp_servers.{SERVER_NAME}]\ncommand = {cmd}\nargs = [\"mcp\"]\n")
}

/// Reads `path` as text; `None` when it does not exist.
fn read_optional(path: &Path) -> crate::Result<Option<String>> {
    match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(s) => Ok(Some(s)),
            Err(_) => Err(crate::Error::NotUtf8(path.to_owned())),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(PathError { action: "read", path: path.to_owned(), source: e }.into()),
    }
}

/// Computes what `setup` does for `client`, writing nothing.
pub fn plan(client: Client, req: &SetupRequest<'_>) -> crate::Result<SetupPlan> {
    let mut files = Vec::new();
    let mut warnings = Vec::new();
    let entry = server_entry(client, req.command);
    match client {
        Client::ClaudeCode => {
            files.push(json_file(req, ".mcp.json", Some("mcpServers"), |f, path| {
                set_server(f, path, "mcpServers", &entry, req.remove)
            })?);
            let start = hook_command(req.command, HOOK_SESSION_START);
            let stop = hook_command(req.command, HOOK_STOP);
            files.push(json_file(req, ".claude/settings.json", None, |f, path| {
                set_hook(f, path, "SessionStart", &start, req.remove)?;
                set_hook(f, path, "Stop", &stop, req.remove)
            })?);
            const LOCAL: &str = ".claude/settings.local.json";
            if !req.remove && tracked_by_git(req.project, LOCAL) {
                warnings.push(SetupWarning::ApprovalFileTracked { path: LOCAL.into() });
            } else {
                files.push(json_file(req, LOCAL, None, |f, path| {
                    set_approval(f, path, req.remove)
                })?);
            }
            if let Some(change) = gitignore_change(req)? {
                files.push(change);
            }
        }
        Client::Cursor | Client::Gemini => {
            let rel = client.files()[0].path;
            files.push(json_file(req, rel, Some("mcpServers"), |f, path| {
                set_server(f, path, "mcpServers", &entry, req.remove)
            })?);
        }
        Client::Vscode => {
            files.push(json_file(req, ".vscode/mcp.json", Some("servers"), |f, path| {
                set_server(f, path, "servers", &entry, req.remove)
            })?);
        }
        Client::Codex => files.push(codex_file(req)?),
    }
    Ok(SetupPlan {
        client,
        project: req.project.to_owned(),
        remove: req.remove,
        command: req.command.to_owned(),
        files,
        warnings,
    })
}

/// Whether git tracks `rel` in the work tree at `project` (false without git or a work tree).
fn tracked_by_git(project: &Path, rel: &str) -> bool {
    std::process::Command::new("git")
        .args(["ls-files", "--error-unmatch", "--", rel])
        .current_dir(project)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The purpose of `rel` among the client files.
fn purpose_of(rel: &str) -> &'static str {
    Client::ALL.iter().flat_map(|c| c.files()).find(|f| f.path == rel).map_or("", |f| f.purpose)
}

/// A JSON file's change: `edit` changes the parsed tree; the file is re-rendered only when the
/// tree changed, and deleted when a removal leaves it empty.
fn json_file(
    req: &SetupRequest<'_>,
    rel: &str,
    splice: Option<&str>,
    edit: impl FnOnce(&mut json::JsonFile, &Path) -> Result<(), SetupError>,
) -> crate::Result<FileChange> {
    let path = req.project.join(rel);
    let before = read_optional(&path)?;
    let mut file = json::JsonFile::parse(&path, before.as_deref())?;
    let original = file.root.clone();
    edit(&mut file, &path)?;
    let after = if file.root == original && before.is_some() {
        before.clone()
    } else if file.root.is_empty() && (req.remove || before.is_none()) {
        None
    } else {
        // memlane's server entry is spliced into the text where it can be, so a hand-laid-out
        // file keeps its layout; anything else re-renders the file in its indentation.
        let spliced = splice.and_then(|container| {
            let text = before.as_deref()?;
            let value = file.root.get(container)?.get(SERVER_NAME);
            file.splice_member(text, container, SERVER_NAME, value)
        });
        Some(spliced.unwrap_or_else(|| file.render()))
    };
    Ok(change(rel, before, after))
}

/// The change from `before` to `after` with its diff.
fn change(rel: &str, before: Option<String>, after: Option<String>) -> FileChange {
    let action = match (&before, &after) {
        (None, None) => FileAction::Unchanged,
        (None, Some(_)) => FileAction::Create,
        (Some(_), None) => FileAction::Delete,
        (Some(a), Some(b)) if a == b => FileAction::Unchanged,
        (Some(_), Some(_)) => FileAction::Update,
    };
    let diff = if action == FileAction::Unchanged {
        String::new()
    } else {
        unified_diff(rel, before.as_deref(), after.as_deref())
    };
    FileChange { path: rel.to_owned(), action, purpose: purpose_of(rel), diff, before, after }
}

/// A unified diff (`--- a/…`, `+++ b/…`; `/dev/null` for a missing side).
pub fn unified_diff(rel: &str, before: Option<&str>, after: Option<&str>) -> String {
    let a = before.map_or_else(|| "/dev/null".to_owned(), |_| format!("a/{rel}"));
    let b = after.map_or_else(|| "/dev/null".to_owned(), |_| format!("b/{rel}"));
    similar::TextDiff::from_lines(before.unwrap_or(""), after.unwrap_or(""))
        .unified_diff()
        .context_radius(3)
        .header(&a, &b)
        .to_string()
}

/// Sets (or removes) `container.memlane`.
fn set_server(
    f: &mut json::JsonFile,
    path: &Path,
    container: &str,
    entry: &Value,
    remove: bool,
) -> Result<(), SetupError> {
    if remove {
        json::check_object(&f.root, container, path, container)?;
        if let Some(Value::Object(servers)) = f.root.get_mut(container) {
            servers.shift_remove(SERVER_NAME);
            json::drop_if_empty(&mut f.root, container);
        }
        return Ok(());
    }
    let servers = json::object_mut(&mut f.root, container, path, container)?;
    servers.insert(SERVER_NAME.to_owned(), entry.clone());
    Ok(())
}

/// Adds (or removes) the hook `command` under Claude Code's `hooks.<event>`.
fn set_hook(
    f: &mut json::JsonFile,
    path: &Path,
    event: &str,
    command: &str,
    remove: bool,
) -> Result<(), SetupError> {
    let shown = format!("hooks.{event}");
    let is_ours = |h: &Value| h.get("command").and_then(Value::as_str) == Some(command);
    let group_has_ours = |g: &Value| {
        g.get("hooks").and_then(Value::as_array).is_some_and(|hs| hs.iter().any(is_ours))
    };
    if remove {
        json::check_object(&f.root, "hooks", path, "hooks")?;
        let Some(Value::Object(hooks)) = f.root.get_mut("hooks") else { return Ok(()) };
        let Some(groups) = hooks.get_mut(event) else { return Ok(()) };
        let Value::Array(groups) = groups else {
            return Err(SetupError::Shape {
                path: path.to_owned(),
                key: shown,
                expected: "an array",
            });
        };
        for g in groups.iter_mut().filter(|g| group_has_ours(g)) {
            if let Some(Value::Array(hs)) = g.get_mut("hooks") {
                hs.retain(|h| !is_ours(h));
            }
        }
        groups.retain(|g| g.get("hooks").and_then(Value::as_array).is_none_or(|hs| !hs.is_empty()));
        json::drop_if_empty(hooks, event);
        json::drop_if_empty(&mut f.root, "hooks");
        return Ok(());
    }
    let hooks = json::object_mut(&mut f.root, "hooks", path, "hooks")?;
    let groups = json::array_mut(hooks, event, path, &shown)?;
    if !groups.iter().any(group_has_ours) {
        groups.push(json!({ "hooks": [{ "type": "command", "command": command }] }));
    }
    Ok(())
}

/// Adds (or removes) `memlane` in Claude Code's `enabledMcpjsonServers`.
fn set_approval(f: &mut json::JsonFile, path: &Path, remove: bool) -> Result<(), SetupError> {
    const KEY: &str = "enabledMcpjsonServers";
    let ours = |v: &Value| v.as_str() == Some(SERVER_NAME);
    if remove {
        match f.root.get_mut(KEY) {
            None => return Ok(()),
            Some(Value::Array(list)) => list.retain(|v| !ours(v)),
            Some(_) => {
                return Err(SetupError::Shape {
                    path: path.to_owned(),
                    key: KEY.into(),
                    expected: "an array",
                });
            }
        }
        json::drop_if_empty(&mut f.root, KEY);
        return Ok(());
    }
    let list = json::array_mut(&mut f.root, KEY, path, KEY)?;
    if !list.iter().any(ours) {
        list.push(Value::String(SERVER_NAME.to_owned()));
    }
    Ok(())
}

/// Codex's `.codex/config.toml` change, checked by parsing the result.
fn codex_file(req: &SetupRequest<'_>) -> crate::Result<FileChange> {
    const REL: &str = ".codex/config.toml";
    let name = format!("mcp_servers.{SERVER_NAME}");
    let path = req.project.join(REL);
    let before = read_optional(&path)?;
    let text = before.clone().unwrap_or_default();
    let doc = toml_text::parse(&path, &text)?;
    if doc.get("mcp_servers").is_some_and(|v| !v.is_table()) {
        return Err(
            SetupError::Shape { path, key: "mcp_servers".into(), expected: "a table" }.into()
        );
    }
    let block = codex_block(req.command);
    let wanted = toml_text::parse(&path, &block)?;
    let wanted_entry = toml_text::entry(&wanted, "mcp_servers", SERVER_NAME).cloned();
    let current = toml_text::entry(&doc, "mcp_servers", SERVER_NAME);
    let new_text = match (req.remove, current) {
        (true, None) => text.clone(),
        (false, Some(cur)) if Some(cur) == wanted_entry.as_ref() => text.clone(),
        (true, Some(_)) => toml_text::remove_block(&text, &name)
            .ok_or(SetupError::CannotEdit { path: path.clone(), what: "removing it" })?,
        (false, _) => toml_text::set_block(&text, &name, &block),
    };
    if new_text != text {
        // The rest of the document must be untouched and memlane's entry exactly as intended.
        let without = |mut d: toml::Table| {
            if let Some(toml::Value::Table(s)) = d.get_mut("mcp_servers") {
                s.remove(SERVER_NAME);
                if s.is_empty() {
                    d.remove("mcp_servers");
                }
            }
            d
        };
        let cannot = || SetupError::CannotEdit {
            path: path.clone(),
            what: if req.remove { "removing it" } else { "replacing it" },
        };
        let new_doc = toml_text::parse(&path, &new_text).map_err(|_| cannot())?;
        let entry_ok = if req.remove {
            toml_text::entry(&new_doc, "mcp_servers", SERVER_NAME).is_none()
        } else {
            toml_text::entry(&new_doc, "mcp_servers", SERVER_NAME) == wanted_entry.as_ref()
        };
        if !entry_ok || without(new_doc.clone()) != without(doc.clone()) {
            return Err(cannot().into());
        }
    }
    let after = if new_text.trim().is_empty() && (req.remove || before.is_none()) {
        None
    } else {
        Some(new_text)
    };
    let after = if after.as_deref() == before.as_deref() { before.clone() } else { after };
    Ok(change(REL, before, after))
}

/// The `.gitignore` change that keeps `.claude/settings.local.json` out of git: added when the
/// project is in a git work tree that does not ignore it yet; taken out again by a removal.
fn gitignore_change(req: &SetupRequest<'_>) -> crate::Result<Option<FileChange>> {
    const REL: &str = ".gitignore";
    let path = req.project.join(REL);
    let before = read_optional(&path)?;
    if req.remove {
        let Some(text) = before.as_deref().filter(|t| t.contains(GITIGNORE_BLOCK)) else {
            return Ok(None);
        };
        let mut after = text.replacen(GITIGNORE_BLOCK, "", 1);
        // The blank line `setup` put before its lines goes with them.
        if text.ends_with(&format!("\n\n{GITIGNORE_BLOCK}")) {
            after.pop();
        }
        let after = (!after.is_empty()).then_some(after);
        return Ok(Some(change(REL, before, after)));
    }
    if !local_settings_need_ignoring(req.project) {
        return Ok(None);
    }
    let mut after = before.clone().unwrap_or_default();
    if !after.is_empty() && !after.ends_with('\n') {
        after.push('\n');
    }
    if !after.is_empty() {
        after.push('\n');
    }
    after.push_str(GITIGNORE_BLOCK);
    Ok(Some(change(REL, before, Some(after))))
}

/// Whether `project` is in a git work tree that does not ignore `.claude/settings.local.json`
/// (Claude Code ignores it itself only when it creates the file; `setup` creates it). Without
/// git, or outside a work tree, there is nothing to ignore it from.
fn local_settings_need_ignoring(project: &Path) -> bool {
    let out = std::process::Command::new("git")
        .args(["check-ignore", "-q", "--", ".claude/settings.local.json"])
        .current_dir(project)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
    // 0: ignored; 1: not ignored; 128: not a work tree (or git failed).
    matches!(out.map(|s| s.code()), Ok(Some(1)))
}

/// Every client with the files it writes, for `memlane setup` without a client.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ClientInfo {
    /// The name on the command line.
    pub client: Client,
    /// The client's own name.
    pub title: &'static str,
    /// The files it writes.
    pub files: &'static [ClientFile],
    /// The client's documentation pages.
    pub docs: &'static [&'static str],
}

/// [`ClientInfo`] for every client.
pub fn clients() -> Vec<ClientInfo> {
    Client::ALL
        .into_iter()
        .map(|c| ClientInfo { client: c, title: c.title(), files: c.files(), docs: c.docs() })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_commands_quote_a_command_only_when_needed() {
        assert_eq!(hook_command("memlane", HOOK_STOP), "memlane hook stop");
        assert_eq!(hook_command("/opt/bin/memlane", HOOK_STOP), "/opt/bin/memlane hook stop");
        assert_eq!(hook_command("/My Tools/memlane", HOOK_STOP), "'/My Tools/memlane' hook stop");
    }

    #[test]
    fn a_vaults_project_is_the_folder_that_holds_memories() {
        let cwd = Path::new("/w/sub");
        assert_eq!(project_dir(Path::new("/w/.memories"), cwd), Path::new("/w"));
        assert_eq!(project_dir(Path::new("/data/vault"), cwd), cwd);
    }
}
