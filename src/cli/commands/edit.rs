//! `memlane edit`: a memory in `$VISUAL` / `$EDITOR`.

use anyhow::Context as _;
use memlane::Error;
use memlane::ops;

use crate::cli::Ctx;
use crate::cli::commands::content::print_outcome;
use crate::cli::session::CliSession;

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
    let s = CliSession::open(ctx)?;
    let m = ops::memory::read(&s, &args.name, false)?;
    let editor = std::env::var("VISUAL")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .or_else(|| std::env::var("EDITOR").ok().filter(|s| !s.trim().is_empty()))
        .unwrap_or_else(|| "vi".to_owned());
    // A fresh private folder: created exclusively under a random name (never one that already
    // exists, so nothing another user planted is reused), mode 0700, and the copy is created new
    // in it (never through a symlink).
    let dir = private_dir()?;
    let tmp = dir.path().join(format!("{}.md", m.name.file_stem()));
    write_new(&tmp, m.raw.as_bytes()).with_context(|| format!("cannot write {}", tmp.display()))?;
    // From here on, a failed edit keeps the folder (and the user's text in it).
    let dir = dir.keep();
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("memlane-edit")
        .arg(&tmp)
        .status()
        .map_err(|e| {
            let _ = std::fs::remove_dir_all(&dir);
            Error::Editor { editor: editor.clone(), problem: format!("could not start: {e}") }
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
    let edited = read_no_follow(&tmp).with_context(|| format!("cannot read {}", tmp.display()))?;
    match ops::memory::edit(&s, &m, edited) {
        Ok(o) => {
            let _ = std::fs::remove_dir_all(&dir);
            print_outcome(ctx, &o)
        }
        Err(e) => Err(anyhow::Error::new(e)
            .context(format!("your edit was not saved; it is kept in {}", tmp.display()))),
    }
}

/// A new folder `memlane-edit-<random>` in the temp folder, readable by its owner only: made
/// with `mkdir` under a fresh random name, which fails rather than reuse anything already there
/// (a folder or a symlink another user planted).
fn private_dir() -> anyhow::Result<PrivateDir> {
    let base = std::env::temp_dir();
    let mut last = None;
    for _ in 0..16 {
        let mut rnd = [0u8; 12];
        getrandom::fill(&mut rnd).map_err(|e| anyhow::anyhow!("no random numbers: {e}"))?;
        let name: String = rnd.iter().map(|b| format!("{b:02x}")).collect();
        let dir = base.join(format!("memlane-edit-{name}"));
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt as _;
            builder.mode(0o700);
        }
        match builder.create(&dir) {
            Ok(()) => return Ok(PrivateDir(Some(dir))),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => {
                return Err(anyhow::Error::new(e).context(format!(
                    "cannot create a private folder for the edit in {}",
                    base.display()
                )));
            }
        }
    }
    Err(anyhow::anyhow!(
        "cannot create a private folder for the edit in {}: {}",
        base.display(),
        last.map_or_else(String::new, |e| e.to_string())
    ))
}

/// The edit's folder: removed when dropped, unless [`keep`](Self::keep) was called.
struct PrivateDir(Option<std::path::PathBuf>);

impl PrivateDir {
    fn path(&self) -> &std::path::Path {
        self.0.as_deref().unwrap_or(std::path::Path::new(""))
    }

    /// Keeps the folder; its path.
    fn keep(mut self) -> std::path::PathBuf {
        self.0.take().unwrap_or_default()
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        if let Some(dir) = self.0.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// Creates `path` (which must not exist: a symlink or file planted there is refused), owner-only.
fn write_new(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Reads the edited copy; a symlink put in its place is not followed.
fn read_no_follow(path: &std::path::Path) -> std::io::Result<String> {
    if std::fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the edited copy was replaced by a symlink",
        ));
    }
    std::fs::read_to_string(path)
}
