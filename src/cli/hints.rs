//! How to fix a library error, said in the command line's words.
//!
//! The library says what went wrong ([`memlane::Error`]); this file says what to type next.
//! The MCP server has its own hints, in tool names (`src/mcp/hints.rs`).

use memlane::Error;

/// The hint for `e`, if there is one.
pub(crate) fn hint(e: &Error) -> Option<String> {
    Some(match e {
        Error::Model { .. } => "fix or re-import it with `memlane model import DIR`, or set `[embedding] model = \"builtin\"`".into(),
        Error::Embed(_) => "the model loaded but cannot embed; if its files changed, re-import it with `memlane model import DIR`, or set `[embedding] model = \"builtin\"`; what is not indexed yet is indexed by the next command once it works".into(),
        Error::NoVault(_) => "run `memlane init` to create `.memories/` here, or pass `--vault PATH` / set MEMLANE_VAULT".into(),
        Error::VaultMissing(_) => "run `memlane init` with the same --vault / MEMLANE_VAULT to create it".into(),
        Error::NotFound { suggestions, .. } => memlane::error::did_you_mean(suggestions).unwrap_or_else(|| "`memlane list` shows every memory".into()),
        Error::Exists(name) => format!("choose another name, or use `memlane update {name}` to change it"),
        Error::UnknownType { ty, .. } => format!("add it under [types.{ty}] in .memories/config.toml"),
        Error::Frontmatter { .. } => "fix the YAML between the `---` lines".into(),
        Error::OverLimit { .. } => "shorten its frontmatter (between the `---` lines) or move the file out of the vault".into(),
        Error::LinkOutsideVault(_) => "memlane never reads outside `.memories/`; copy the file into the vault if you want it as a memory (`memlane doctor` lists such links)".into(),
        Error::NoSuchVersion { name, available, .. } if *available > 0 => format!("`memlane history {name}` lists them"),
        Error::NotInTrash(_) => "`memlane trash list` shows the entries".into(),
        Error::Duplicate { existing, .. } => format!("`memlane append {existing} …` or `memlane update {existing} …` to change it, or `--force` to add it anyway"),
        Error::NoContent { what: "summarize" } => "give the shorter text that should replace it: `--content TEXT`, `--file PATH`, or pipe it in".into(),
        Error::NoContent { .. } => "pass it as an argument, with `--file PATH`, or on standard input".into(),
        Error::RawWithoutContent => "with `--raw`, pass the whole file (frontmatter included) as CONTENT, with `--file PATH`, or on standard input".into(),
        Error::NoSuchLink { from, .. } => format!("links written in the body as [[…]] are removed by editing the body (`memlane edit {from}`)"),
        Error::BadTime { field, .. } => format!("use e.g. 2026-01-10 or 2026-01-10T10:00:00Z for --{field}"),
        Error::BadDuration { field, .. } => format!("use e.g. 30m, 12h, 7d, 2w for --{field}"),
        Error::EmptyWindow { .. } => "swap --after and --before".into(),
        Error::UnknownEdgeType(_) => "`memlane link --help` lists the link types".into(),
        Error::MergeConflict { .. } => "edit the file to keep the right lines and remove the `<<<<<<<`, `=======` and `>>>>>>>` markers, then `git add` it".into(),
        Error::PiecesExist { pieces, .. } => format!("edit those memories, or remove them first (`memlane rm {}`) to split again", pieces.join(" ")),
        Error::RestoreTaken(_) => "restore under another name with `--as NEW`".into(),
        Error::CannotRewrite { name, .. } => format!("make the change by hand with `memlane edit {name}`"),
        Error::PathOutsideVault { .. } => "name a memory by its name (`memlane list` shows them), or give a path to a file inside the vault".into(),
        Error::EmptyAfterRedaction { .. } => "give the text with `--content`".into(),
        _ => return None,
    })
}
