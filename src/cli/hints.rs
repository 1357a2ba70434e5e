//! How to fix a library error, said in the command line's words.
//!
//! The library says what went wrong ([`memlane::Error`]); this file says what to type next.
//! The MCP server has its own hints, in tool names (`src/mcp/hints.rs`).

use memlane::Error;
use memlane::index::hub::{DEFAULT_MODEL, HubError};
use memlane::index::store::IndexError;

use super::error::CliError;

/// The hint for the first error in `err`'s chain that has one.
pub(crate) fn hint_for(err: &anyhow::Error) -> Option<String> {
    err.chain().find_map(|e| {
        if let Some(e) = e.downcast_ref::<Error>() {
            hint(e)
        } else if let Some(e) = e.downcast_ref::<CliError>() {
            cli_hint(e)
        } else if let Some(e) = e.downcast_ref::<HubError>() {
            hub_hint(e)
        } else {
            None
        }
    })
}

/// The hint for an error in the command line's own input.
fn cli_hint(e: &CliError) -> Option<String> {
    Some(match e {
        CliError::BadNow(_) => "use e.g. 2026-01-10T10:00:00Z or 2026-01-10".into(),
        CliError::NotKeyValue(_) => "e.g. `-c default_type=fact`".into(),
        CliError::BadDuration { .. } => "use e.g. 30d, 12h, 2w".into(),
        CliError::FileNotUtf8(_) | CliError::DebounceTooLong { .. } => return None,
    })
}

/// The hint for a failed `memlane model pull`.
fn hub_hint(e: &HubError) -> Option<String> {
    Some(match e {
        HubError::BadName(_) => format!("use a Hugging Face repository name such as `{DEFAULT_MODEL}` or `BAAI/bge-small-en-v1.5`, optionally with `@revision`"),
        HubError::Network { .. } => "check the network (or MEMLANE_HF_ENDPOINT / HF_ENDPOINT); run the same `memlane model pull` again to resume".into(),
        HubError::Status { status: 401 | 403, .. } => "the repository is private or gated; memlane pulls public models only (download it yourself and use `memlane model import DIR`)".into(),
        HubError::Status { status: 404, .. } => "check the model name and revision (names are `organisation/name`)".into(),
        HubError::Status { status: 429, .. } => "the hub is rate-limiting; try again later".into(),
        HubError::Status { .. } => "try again later; run the same `memlane model pull` to resume".into(),
        HubError::BadListing { .. } => "is MEMLANE_HF_ENDPOINT / HF_ENDPOINT a Hugging Face Hub?".into(),
        HubError::MissingFile { .. } => format!("pick a BERT sentence-transformer with safetensors weights, such as `{DEFAULT_MODEL}`"),
        HubError::Checksum { .. } => "run `memlane model pull` again; if it fails the same way, the mirror or a proxy is altering the file".into(),
        HubError::Busy(_) => "another `memlane model pull` holds it: wait for it to finish".into(),
        _ => return None,
    })
}

/// The hint for `e`, if there is one.
pub(crate) fn hint(e: &Error) -> Option<String> {
    Some(match e {
        Error::Model { source, .. } if matches!(**source, memlane::index::minilm::ModelError::Table { .. }) => "create the table with `memlane model distill --out FILE`, or set `[embedding] model = \"builtin\"`".into(),
        Error::Model { .. } => "fix or re-import it with `memlane model import DIR`, or set `[embedding] model = \"builtin\"`".into(),
        Error::Embed(_) => "the model loaded but cannot embed; if its files changed, re-import it with `memlane model import DIR`, or set `[embedding] model = \"builtin\"`; what is not indexed yet is indexed by the next command once it works".into(),
        Error::NoVault(_) => "run `memlane init` to create `.memories/` here, or pass `--vault PATH` / set MEMLANE_VAULT".into(),
        Error::VaultMissing(_) => "run `memlane init` with the same --vault / MEMLANE_VAULT to create it".into(),
        Error::NotFound { suggestions, .. } => memlane::error::did_you_mean(suggestions).unwrap_or_else(|| "`memlane list` shows every memory".into()),
        Error::Exists(name) => format!("choose another name, or use `memlane update {name}` to change it"),
        Error::UnknownType { ty, .. } => format!("add it under [types.{ty}] in .memories/config.toml"),
        Error::Frontmatter { .. } => "fix the YAML between the `---` lines".into(),
        Error::Setup(e) => setup_hint(e)?,
        Error::NoModelDir => "set HOME".into(),
        Error::Hub(h) => return hub_hint(h),
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
        Error::LimitExceeded { min, value, .. } if value < min => format!("ask for at least {min}"),
        Error::LimitExceeded { max, .. } => format!("ask for fewer; memlane refuses sizes past {max}"),
        Error::NoHomeVault => "set MEMLANE_VAULT (or pass --vault PATH)".into(),
        Error::NotUtf8(_) => "memories are Markdown files; convert it or move it out of the vault".into(),
        Error::ChangedOnDisk { .. } => "run the command again".into(),
        Error::VaultLocked { .. } => "run the command again once it is done".into(),
        Error::NameCollision { existing, folder, accents_only: true, .. } => format!("use `memlane show` / `update` on the existing {} `{existing}`, or choose another name", if *folder { "folder" } else { "memory" }),
        Error::SameId { .. } => "remove the `id:` line from the copy in an editor: it then gets its own id".into(),
        Error::TooFewSections { name, .. } => format!("mark the pieces with headings of one level (`## …`) with `memlane edit {name}`, or give the pieces yourself (the MCP tool split_memory takes them)"),
        Error::EmptyPiece { name, .. } => format!("that section holds only private text; edit it with `memlane edit {name}`, or keep the memory whole"),
        Error::TooFewSources { target, .. } => format!("name two or more memories to merge into `{target}`"),
        Error::Index(e) => match e.as_ref() {
            IndexError::LockTimeout(_) => "wait for it to finish (a reindex of a large vault can take a while) and run the command again".into(),
            IndexError::Unreadable(_) => "delete that folder and run `memlane reindex`; if this persists, please report it".into(),
            _ => return None,
        },
        _ => return e.neutral_hint(),
    })
}

/// How to get `memlane setup` past a config file it cannot edit.
fn setup_hint(e: &memlane::setup::SetupError) -> Option<String> {
    use memlane::setup::SetupError as S;
    Some(match e {
        S::Parse { format: "JSON", .. } => "fix the file (comments and trailing commas are not JSON) or move it away, then run `memlane setup` again".into(),
        S::Parse { .. } => "fix the file or move it away, then run `memlane setup` again".into(),
        S::Shape { key, expected, .. } => format!("make `{key}` {expected} (or remove it), then run `memlane setup` again"),
        S::CannotEdit { .. } => "write memlane's entry as a `[mcp_servers.memlane]` table, or delete it, then run `memlane setup` again".into(),
    })
}
