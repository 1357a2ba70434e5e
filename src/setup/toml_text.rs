//! Editing a TOML config file (Codex's) as text: memlane's entry is one table,
//! `[mcp_servers.memlane]`, appended at the end, replaced where it stands, or cut out.
//!
//! The `toml` crate parses but does not keep a file's layout, so the edit is made on the text
//! and every other line stays as it was. Each edit is checked by parsing the result: the rest
//! of the document must be unchanged and memlane's entry exactly as intended, or nothing is
//! written (an entry written as inline tables or dotted keys is left for the user to edit).

use std::path::Path;

use super::SetupError;

/// The parsed document, or the file's parse error with its line and column.
pub(crate) fn parse(path: &Path, text: &str) -> Result<toml::Table, SetupError> {
    text.parse::<toml::Table>().map_err(|e| {
        let (line, column) = match e.span() {
            Some(span) => line_col(text, span.start),
            None => (1, 1),
        };
        SetupError::Parse {
            path: path.to_owned(),
            format: "TOML",
            line,
            column,
            problem: e.message().trim().to_owned(),
        }
    })
}

/// The 1-based line and column of byte `offset` in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// The entry `table.key` (a dotted path of plain keys) of a parsed document.
pub(crate) fn entry<'a>(doc: &'a toml::Table, table: &str, key: &str) -> Option<&'a toml::Value> {
    doc.get(table)?.as_table()?.get(key)
}

/// The header's dotted name without spaces or quotes (`[ mcp_servers."memlane" ]` →
/// `mcp_servers.memlane`), or `None` for a line that is not a table header.
fn header_name(line: &str) -> Option<String> {
    let t = line.trim();
    let inner = t.strip_prefix("[[").or_else(|| t.strip_prefix('['))?;
    let end = inner.find(']')?;
    Some(inner[..end].chars().filter(|c| !c.is_whitespace() && *c != '"' && *c != '\'').collect())
}

/// The byte range of the table `[name]` with its sub-tables: from its header to the end of its
/// last line that is neither blank nor a comment (comments before the next table belong to it).
fn block_span(text: &str, name: &str) -> Option<(usize, usize)> {
    let sub = format!("{name}.");
    let mut start = None;
    let mut end = 0;
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let line_end = pos + line.len();
        match header_name(line) {
            Some(h) if h == name || h.starts_with(&sub) => {
                if start.is_none() {
                    start = Some(pos);
                }
                end = line_end;
            }
            Some(_) if start.is_some() => break,
            _ => {
                let t = line.trim();
                if start.is_some() && !t.is_empty() && !t.starts_with('#') {
                    end = line_end;
                }
            }
        }
        pos = line_end;
    }
    start.map(|s| (s, end))
}

/// The line ending of `text`: `\r\n` when it uses them, else `\n`.
fn newline(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

/// `text` with the table `[name]` set to `block` (a whole table, ending in a newline): replaced
/// where it stands, or appended after a blank line; in the file's line endings.
pub(crate) fn set_block(text: &str, name: &str, block: &str) -> String {
    let nl = newline(text);
    let block = &block.replace('\n', nl);
    match block_span(text, name) {
        Some((s, e)) => {
            let mut out = String::with_capacity(text.len() + block.len());
            out.push_str(&text[..s]);
            out.push_str(block);
            out.push_str(&text[e..]);
            out
        }
        None => {
            let mut out = text.to_owned();
            if !out.is_empty() && !out.ends_with('\n') {
                out.push_str(nl);
            }
            if !out.trim().is_empty() {
                out.push_str(nl);
            }
            out.push_str(block);
            out
        }
    }
}

/// `text` without the table `[name]` (and the blank line that separated it), or `None` when
/// it is not written as a table.
pub(crate) fn remove_block(text: &str, name: &str) -> Option<String> {
    let (s, e) = block_span(text, name)?;
    let nl = newline(text);
    let mut before = text[..s].to_owned();
    let after = &text[e..];
    if before.ends_with(&nl.repeat(2)) && (after.is_empty() || after.starts_with(nl)) {
        before.truncate(before.len() - nl.len());
    }
    Some(before + after)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: &str = "[mcp_servers.memlane]\ncommand = \"memlane\"\nargs = [\"mcp\"]\n";

    #[test]
    fn append_then_remove_restores_the_file() {
        let text = "model = \"o3\"\n\n[mcp_servers.other]\ncommand = \"x\" # keep\n";
        let added = set_block(text, "mcp_servers.memlane", BLOCK);
        assert!(added.starts_with(text) && added.ends_with(BLOCK), "{added}");
        assert_eq!(remove_block(&added, "mcp_servers.memlane").unwrap(), text);
    }

    #[test]
    fn a_block_in_the_middle_is_replaced_in_place_with_its_subtables() {
        let text = "[mcp_servers.memlane]\ncommand = \"old\"\n[mcp_servers.memlane.env]\nA = \"1\"\n\n# next\n[tui]\nx = 1\n";
        let set = set_block(text, "mcp_servers.memlane", BLOCK);
        assert_eq!(set, format!("{BLOCK}\n# next\n[tui]\nx = 1\n"));
        assert_eq!(remove_block(&set, "mcp_servers.memlane").unwrap(), "\n# next\n[tui]\nx = 1\n");
    }

    #[test]
    fn a_file_with_crlf_line_endings_keeps_them() {
        let text = "model = \"o3\"\r\n";
        let added = set_block(text, "mcp_servers.memlane", BLOCK);
        assert_eq!(added, format!("{text}\r\n{}", BLOCK.replace('\n', "\r\n")));
        assert_eq!(remove_block(&added, "mcp_servers.memlane").unwrap(), text);
    }

    #[test]
    fn a_parse_error_names_the_line() {
        let err = parse(Path::new("c.toml"), "a = 1\nb = \n").unwrap_err();
        let SetupError::Parse { line, .. } = err else { panic!() };
        assert_eq!(line, 2);
    }
}
