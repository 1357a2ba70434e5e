//! `setup`: the project files that connect an agent client to this vault's MCP server, and
//! memlane's merge driver in a git clone.

use std::path::Path;

use crate::gitmerge::{DriverAction, default_driver_program, merge_driver_setup};
use crate::setup::{self, Client, SetupRequest};

use super::wire::{ClientInfo, GitSetUp, SetUp};

/// Every client with the files it writes.
pub fn clients() -> Vec<ClientInfo> {
    setup::clients()
}

/// What `setup` is asked to do.
#[derive(Debug, Clone, Copy)]
pub struct SetupOptions<'a> {
    /// The command the client runs (`None`: [`setup::DEFAULT_COMMAND`], found on `PATH`; for
    /// `git`, [`default_driver_program`]).
    pub command: Option<&'a str>,
    /// Take memlane's entries out again.
    pub remove: bool,
    /// Compute the change (with diffs) and write nothing.
    pub dry_run: bool,
}

/// Writes (or, on a dry run, computes) `client`'s project configuration for the vault at
/// `vault`, in the project that holds it (else `cwd`): other entries in those files are kept,
/// and a second run changes nothing.
pub fn client(
    vault: &Path,
    cwd: &Path,
    client: Client,
    opts: SetupOptions<'_>,
) -> crate::Result<SetUp> {
    let project = setup::project_dir(vault, cwd);
    let command = opts.command.unwrap_or(setup::DEFAULT_COMMAND);
    let plan =
        setup::plan(client, &SetupRequest { project: &project, command, remove: opts.remove })?;
    if !opts.dry_run {
        plan.apply()?;
    }
    let vault_elsewhere =
        (!opts.remove && vault != project.join(".memories")).then(|| vault.to_owned());
    Ok(SetUp {
        changed: plan.changed(),
        client: plan.client,
        project: plan.project,
        command: plan.command,
        remove: plan.remove,
        dry_run: opts.dry_run,
        files: plan.files,
        warnings: plan.warnings.iter().map(ToString::to_string).collect(),
        vault_elsewhere,
        command_found: command_found(command),
    })
}

/// Registers memlane's merge driver for memory files in the git work tree that holds the vault
/// at `vault` (the `.gitattributes` rule and the `merge.memlane` entries of the repository's
/// local git config), as `init` does, or removes it.
pub fn git(vault: &Path, opts: SetupOptions<'_>) -> crate::Result<GitSetUp> {
    let action = if opts.remove { DriverAction::Remove } else { DriverAction::Install };
    let program = opts.command.map_or_else(default_driver_program, str::to_owned);
    let done = merge_driver_setup(vault, action, !opts.dry_run, &program)?;
    Ok(GitSetUp {
        client: "git",
        changed: !done.changes.is_empty(),
        work_tree: done.work_tree,
        remove: opts.remove,
        dry_run: opts.dry_run,
        changes: done.changes,
        vault: vault.to_owned(),
    })
}

/// Whether `command` runs without a path and is on `PATH` (or has a path that exists).
fn command_found(command: &str) -> bool {
    let p = Path::new(command);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dry_run_writes_nothing_and_the_real_run_writes_what_it_showed() {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path().join(".memories");
        std::fs::create_dir(&vault).unwrap();
        let opts = SetupOptions { command: None, remove: false, dry_run: true };
        let dry = client(&vault, dir.path(), Client::Cursor, opts).unwrap();
        assert!(dry.changed && dry.dry_run);
        assert!(!dir.path().join(".cursor/mcp.json").exists());
        assert_eq!(dry.vault_elsewhere, None);
        let done =
            client(&vault, dir.path(), Client::Cursor, SetupOptions { dry_run: false, ..opts })
                .unwrap();
        assert!(done.changed);
        let written = std::fs::read_to_string(dir.path().join(".cursor/mcp.json")).unwrap();
        assert!(written.contains("\"memlane\""), "{written}");
        let again =
            client(&vault, dir.path(), Client::Cursor, SetupOptions { dry_run: false, ..opts })
                .unwrap();
        assert!(!again.changed, "a second run changes nothing");
    }

    #[test]
    fn a_command_with_a_path_is_found_only_when_it_exists() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("memlane-here");
        assert!(!command_found(&exe.display().to_string()));
        std::fs::write(&exe, "").unwrap();
        assert!(command_found(&exe.display().to_string()));
    }
}
