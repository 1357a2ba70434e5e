//! How to fix a library error, said in the MCP tools' words, and the tool error an agent gets.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::json;

use crate::Error;
use crate::index::store::IndexError;

/// The hint for `e`, in tool names, if there is one.
pub(crate) fn hint(e: &Error) -> Option<String> {
    Some(match e {
        Error::Model { .. } => "the server's embedding model cannot be loaded; fix it with `memlane model import DIR` on the command line, or set `[embedding] model = \"builtin\"`".into(),
        Error::Embed(_) => "the server's embedding model failed to embed; fix it with `memlane model import DIR` on the command line, or set `[embedding] model = \"builtin\"`; memories not indexed yet are indexed once it works".into(),
        Error::NotFound { suggestions, .. } => crate::error::did_you_mean(suggestions).unwrap_or_else(|| "search_memories or memory_tree shows the memories there are".into()),
        Error::Exists(name) => format!("choose another name, or use update_memory on `{name}`"),
        Error::UnknownType { ty, .. } => format!("use one of the known types, or add [types.{ty}] to .memories/config.toml"),
        Error::NoSuchVersion { available, .. } if *available > 0 => "memory_history lists the versions".into(),
        Error::NotInTrash(_) => "list_trash shows the entries".into(),
        Error::Duplicate { existing, .. } => format!("use update_memory or append_memory on `{existing}`, remember (updates it in place), or pass force: true to create it anyway"),
        Error::NoSuchLink { .. } => "links written in the body as [[…]] are removed by updating the body".into(),
        Error::BadTime { .. } => "use e.g. 2026-01-10 or 2026-01-10T10:00:00Z".into(),
        Error::BadDuration { .. } => "use e.g. 30m, 12h, 7d, 2w".into(),
        Error::EmptyWindow { .. } => "swap the two ends of the window".into(),
        Error::MergeConflict { .. } => "the file holds git conflict markers; a person must resolve the merge (remove the `<<<<<<<`, `=======` and `>>>>>>>` lines) before it can be read".into(),
        Error::PiecesExist { .. } => "update those memories instead, or delete them first to split again".into(),
        Error::RestoreTaken(_) => "restore it under another name with as_name".into(),
        Error::CannotRewrite { .. } => "a person must make this change by editing the file".into(),
        Error::PathOutsideVault { .. } => "name a memory by its name, or give a path to a file inside the vault".into(),
        Error::EmptyAfterRedaction { .. } => "give the text in summary_content".into(),
        Error::NoContent { .. } => "send the text in content".into(),
        Error::LimitExceeded { min, value, .. } if value < min => format!("pass at least {min}, or leave the parameter out for the default"),
        Error::LimitExceeded { max, .. } => format!("ask for fewer: pass a smaller value (at most {max}), or leave the parameter out for the default"),
        Error::TooManyNames { max, .. } => format!("split the names over several read_memories calls of at most {max}"),
        Error::Exclusive { .. } => "pass only one of the two parameters".into(),
        Error::RenameWithVersion => "call restore_memory with version to bring back an old version in place, or with as_name (no version) to restore a deleted memory under a new name".into(),
        Error::NotUtf8(_) => "the file is not Markdown text; a person must convert it or move it out of the vault".into(),
        Error::VaultLocked { .. } => "call the tool again once it is done".into(),
        Error::ChangedOnDisk { .. } => "the file was edited meanwhile; call the tool again (read_memory shows the new version)".into(),
        Error::IdChanged { from, .. } => format!("keep `id: {from}` in the new file or remove the line"),
        Error::NameCollision { existing, accents_only: true, .. } => format!("use read_memory / update_memory on the existing `{existing}`, or choose another name"),
        Error::SameId { .. } => "one file is a copy of the other; a person must remove the `id:` line from the copy: it then gets its own id".into(),
        Error::TooFewSections { .. } => "pass the pieces yourself in pieces (two or more, each with content)".into(),
        Error::TooFewPieces { .. } => "pass two or more pieces".into(),
        Error::EmptyPiece { .. } => "give that piece content that is not all private text".into(),
        Error::TooFewSources { .. } => "pass two or more names in source_files".into(),
        Error::ListedTwice(_) => "name each memory once in source_files".into(),
        Error::Index(e) => match e.as_ref() {
            IndexError::LockTimeout(_) => "wait for it to finish (a reindex of a large vault can take a while) and call the tool again".into(),
            IndexError::Unreadable(_) => "delete that folder and restart the server: it rebuilds the indices from the memory files; if this persists, please report it".into(),
            _ => return None,
        },
        _ => return e.neutral_hint(),
    })
}

/// The whole cause chain of `e`, one sentence after another (`a: b: c`), in words
/// ([`crate::error::chain_text`]).
pub(crate) fn chain(e: &Error) -> String {
    crate::error::chain_text(e)
}

/// A failed tool call: the message with its whole cause chain and the hint as text, and
/// `{"error": {"kind", "message", "hint"}}` as structured content.
pub(crate) fn tool_error(e: &Error) -> CallToolResult {
    let message = chain(e);
    let hint = hint(e);
    let text = match &hint {
        Some(h) => format!("{message}\nhint: {h}"),
        None => message.clone(),
    };
    let mut r = CallToolResult::error(vec![ContentBlock::text(text)]);
    r.structured_content =
        Some(json!({ "error": { "kind": e.kind().as_str(), "message": message, "hint": hint } }));
    r
}
