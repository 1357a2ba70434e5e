//! `memlane edit`: a memory in `$VISUAL` / `$EDITOR`.

use anyhow::Context as _;
use memlane::Error;
use memlane::vault::{Memory, UpdateRequest, WriteOutcome, WriteStatus};

use crate::cli::Ctx;
use crate::cli::commands::content::print_outcome;

/// Open a memory in `$VISUAL` / `$EDITOR`
///
/// The file is edited in a temporary copy; when the editor exits with changes, they are checked,
/// redacted and written atomically, with the old version kept in history.
#[derive(Debug, clap::Args)]
pub(crate) struct EditArgs {
    /// The memory: its name, `name.md`, `memory:name`, or its id
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::cli::complete::memory_names))]
    name: String,
}

pub(crate) fn run(ctx: &mut Ctx, args: &EditArgs) -> anyhow::Result<()> {
    let vault = ctx.open_vault()?;
    let m = vault.resolve(&args.name)?;
    let editor = std::env::var("VISUAL")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .or_else(|| std::env::var("EDITOR").ok().filter(|s| !s.trim().is_empty()))
        .unwrap_or_else(|| "vi".to_owned());
    let dir = std::env::temp_dir().join(format!("memlane-edit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let tmp = dir.join(format!("{}.md", m.name.file_stem()));
    std::fs::write(&tmp, &m.raw).with_context(|| format!("cannot write {}", tmp.display()))?;
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("memlane-edit")
        .arg(&tmp)
        .status()
        .map_err(|e| Error::Editor {
            editor: editor.clone(),
            problem: format!("could not start: {e}"),
        })?;
    if !status.success() {
        return Err(Error::Editor {
            editor,
            problem: format!(
                "exited with {status}; nothing was changed (your edit is in {})",
                tmp.display()
            ),
        }
        .into());
    }
    let edited =
        std::fs::read_to_string(&tmp).with_context(|| format!("cannot read {}", tmp.display()))?;
    if edited == m.raw {
        let _ = std::fs::remove_dir_all(&dir);
        return print_outcome(ctx, &unchanged(&m));
    }
    let req =
        UpdateRequest { content: Some(edited), raw: true, action: "edit", ..Default::default() };
    match vault.update(&m, &req) {
        Ok(o) => {
            let _ = std::fs::remove_dir_all(&dir);
            print_outcome(ctx, &o)
        }
        Err(e) => Err(anyhow::Error::new(e)
            .context(format!("your edit was not saved; it is kept in {}", tmp.display()))),
    }
}

fn unchanged(m: &Memory) -> WriteOutcome {
    let mut out = WriteOutcome::new(WriteStatus::Unchanged, &m.name, &m.id);
    out.path = Some(m.path.clone());
    out
}
