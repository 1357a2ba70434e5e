//! Editing a client's JSON config file: read it, change memlane's keys in the parsed tree, and
//! write it back in the file's own indentation.
//!
//! A file is parsed with `serde_json` (its `preserve_order` keeps the keys in the file's order)
//! and only written when memlane's keys actually change, so a run that has nothing to do leaves
//! every byte alone. The server entry is spliced into the text ([`JsonFile::splice_member`]),
//! so every other line keeps its layout, however it is laid out. Other edits re-render the file
//! in its indentation: a file written by a tool (two- or four-space or tab indentation, one
//! value per line, as `JSON.stringify(v, null, 2)` and VS Code write) renders back byte for
//! byte, so `setup` followed by `setup --remove` restores it exactly.

use std::path::Path;

use serde_json::{Map, Value};

use super::SetupError;

/// A parsed JSON config file and how it was laid out.
#[derive(Debug, Clone)]
pub(crate) struct JsonFile {
    /// The top-level object (empty for a file that does not exist yet).
    pub root: Map<String, Value>,
    /// One level of indentation (`"  "`, `"    "`, `"\t"`).
    indent: String,
    /// Whether the file ended in a newline (a new file does).
    trailing_newline: bool,
    /// Whether its lines end in `\r\n`.
    crlf: bool,
}

impl JsonFile {
    /// Parses `text` (the file at `path`, for errors); `None` is a file that does not exist.
    pub fn parse(path: &Path, text: Option<&str>) -> Result<JsonFile, SetupError> {
        let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
            return Ok(JsonFile {
                root: Map::new(),
                indent: "  ".into(),
                trailing_newline: true,
                crlf: false,
            });
        };
        let value: Value = serde_json::from_str(text).map_err(|e| SetupError::Parse {
            path: path.to_owned(),
            format: "JSON",
            line: e.line(),
            column: e.column(),
            problem: strip_position(&e.to_string()),
        })?;
        let Value::Object(root) = value else {
            return Err(SetupError::Shape {
                path: path.to_owned(),
                key: "the top level".into(),
                expected: "an object",
            });
        };
        Ok(JsonFile {
            root,
            indent: detect_indent(text),
            trailing_newline: text.ends_with('\n'),
            crlf: text.contains("\r\n"),
        })
    }

    /// The file's text for the current tree, in its indentation.
    pub fn render(&self) -> String {
        use serde::Serialize as _;
        let mut out = Vec::new();
        let fmt = serde_json::ser::PrettyFormatter::with_indent(self.indent.as_bytes());
        let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
        // A map of strings and JSON values always serialises.
        let _ = self.root.serialize(&mut ser);
        let mut s = String::from_utf8(out).unwrap_or_default();
        if self.trailing_newline {
            s.push('\n');
        }
        // JSON strings hold no raw line breaks, so every `\n` here ends a line.
        if self.crlf { s.replace('\n', "\r\n") } else { s }
    }
}

/// `serde_json`'s message without its own ` at line L column C` (the error says where).
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_owned(),
        None => msg.to_owned(),
    }
}

/// The indentation of the first indented line (one level, as the top level's members sit one
/// level deep); two spaces when nothing is indented.
fn detect_indent(text: &str) -> String {
    text.lines()
        .skip(1)
        .find_map(|l| {
            let ws: String = l.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
            (!ws.is_empty() && ws.len() < l.len()).then_some(ws)
        })
        .map(|ws| if ws.starts_with('\t') { "\t".to_owned() } else { ws })
        .unwrap_or_else(|| "  ".into())
}

/// The object under `key` in `map`, created empty when missing; an error when `key` holds
/// something else.
pub(crate) fn object_mut<'a>(
    map: &'a mut Map<String, Value>,
    key: &str,
    path: &Path,
    shown: &str,
) -> Result<&'a mut Map<String, Value>, SetupError> {
    let v = map.entry(key.to_owned()).or_insert_with(|| Value::Object(Map::new()));
    match v {
        Value::Object(m) => Ok(m),
        _ => Err(SetupError::Shape {
            path: path.to_owned(),
            key: shown.into(),
            expected: "an object",
        }),
    }
}

/// The array under `key` in `map`, created empty when missing; an error when `key` holds
/// something else.
pub(crate) fn array_mut<'a>(
    map: &'a mut Map<String, Value>,
    key: &str,
    path: &Path,
    shown: &str,
) -> Result<&'a mut Vec<Value>, SetupError> {
    let v = map.entry(key.to_owned()).or_insert_with(|| Value::Array(Vec::new()));
    match v {
        Value::Array(a) => Ok(a),
        _ => Err(SetupError::Shape {
            path: path.to_owned(),
            key: shown.into(),
            expected: "an array",
        }),
    }
}

/// Checks that `key`, when present, holds an object (before a removal walks into it).
pub(crate) fn check_object(
    map: &Map<String, Value>,
    key: &str,
    path: &Path,
    shown: &str,
) -> Result<(), SetupError> {
    match map.get(key) {
        None | Some(Value::Object(_)) => Ok(()),
        Some(_) => Err(SetupError::Shape {
            path: path.to_owned(),
            key: shown.into(),
            expected: "an object",
        }),
    }
}

/// Removes `key` from `map` when it holds an empty object or array (after memlane's entry left
/// it), keeping the order of the rest.
pub(crate) fn drop_if_empty(map: &mut Map<String, Value>, key: &str) {
    let empty = match map.get(key) {
        Some(Value::Object(m)) => m.is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        _ => false,
    };
    if empty {
        map.shift_remove(key);
    }
}

/// The byte spans of an object's members in valid JSON text: `(key, key_start, value_start,
/// value_end)`, and the index of its closing `}`.
struct ObjectSpans {
    members: Vec<(String, usize, usize, usize)>,
    close: usize,
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// The index after the string that starts at `i` (a `"`).
fn string_end(b: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The index after the value that starts at `i`.
fn value_end(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => string_end(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = string_end(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                j += 1;
            }
            Some(j)
        }
    }
}

/// The members of the object that starts at `open` (a `{`).
fn object_spans(text: &str, open: usize) -> Option<ObjectSpans> {
    let b = text.as_bytes();
    let mut members = Vec::new();
    let mut i = skip_ws(b, open + 1);
    loop {
        match *b.get(i)? {
            b'}' => return Some(ObjectSpans { members, close: i }),
            b',' => i = skip_ws(b, i + 1),
            b'"' => {
                let key_end = string_end(b, i)?;
                let key: String = serde_json::from_str(&text[i..key_end]).ok()?;
                let colon = skip_ws(b, key_end);
                let vs = skip_ws(b, colon + 1);
                let ve = value_end(b, vs)?;
                members.push((key, i, vs, ve));
                i = skip_ws(b, ve);
            }
            _ => return None,
        }
    }
}

/// `value` rendered in `indent`, its lines after the first prefixed with `prefix`.
fn render_nested(value: &Value, indent: &str, prefix: &str) -> String {
    use serde::Serialize as _;
    let mut out = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
    let _ = value.serialize(&mut serde_json::Serializer::with_formatter(&mut out, fmt));
    String::from_utf8(out).unwrap_or_default().replace('\n', &format!("\n{prefix}"))
}

impl JsonFile {
    /// `text` (this file's text) with `container.name` set to `value` (or removed when `None`)
    /// by splicing the text, so that the rest keeps its exact layout; `None` when the edit is
    /// not one a splice does (a new or emptied `container`, a one-line object), or when the
    /// result does not parse to [`JsonFile::root`]: the caller then re-renders the file.
    pub fn splice_member(
        &self,
        text: &str,
        container: &str,
        name: &str,
        value: Option<&Value>,
    ) -> Option<String> {
        let b = text.as_bytes();
        let root = object_spans(text, skip_ws(b, 0))?;
        let &(_, _, cs, _) = root.members.iter().find(|m| m.0 == container)?;
        let obj = object_spans(text, cs)?;
        let pos = obj.members.iter().position(|m| m.0 == name);
        // The indentation of the container's members, from the line of its first one.
        let &(_, first_key, _, _) = obj.members.first()?;
        let line_start = text[..first_key].rfind('\n')? + 1;
        let prefix = &text[line_start..first_key];
        if !prefix.chars().all(|c| c == ' ' || c == '\t') {
            return None;
        }
        let nl = if self.crlf { "\r\n" } else { "\n" };
        let out = match (pos, value) {
            (Some(k), Some(v)) => {
                let (_, _, vs, ve) = obj.members[k];
                let rendered = render_nested(v, &self.indent, prefix).replace('\n', nl);
                format!("{}{rendered}{}", &text[..vs], &text[ve..])
            }
            (None, Some(v)) => {
                let &(_, _, _, last_end) = obj.members.last()?;
                if !text[last_end..obj.close].contains('\n') {
                    return None;
                }
                let key = serde_json::to_string(name).ok()?;
                let rendered = render_nested(v, &self.indent, prefix).replace('\n', nl);
                format!("{},{nl}{prefix}{key}: {rendered}{}", &text[..last_end], &text[last_end..])
            }
            (Some(k), None) if obj.members.len() > 1 => {
                let (from, to) = if k > 0 {
                    (obj.members[k - 1].3, obj.members[k].3)
                } else {
                    (obj.members[0].1, obj.members[1].1)
                };
                format!("{}{}", &text[..from], &text[to..])
            }
            _ => return None,
        };
        let parsed: Value = serde_json::from_str(&out).ok()?;
        let same =
            serde_json::to_string(&parsed).ok()? == serde_json::to_string(&self.root).ok()?;
        same.then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_written_file_renders_back_byte_for_byte() {
        for text in [
            "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}\n",
            "{\n    \"a\": {\n        \"x\": \"y\"\n    }\n}",
            "{\n\t\"a\": {\n\t\t\"x\": []\n\t}\n}\n",
            "{\r\n  \"a\": 1\r\n}\r\n",
        ] {
            let f = JsonFile::parse(Path::new("f.json"), Some(text)).unwrap();
            assert_eq!(f.render(), text);
        }
    }

    #[test]
    fn a_hand_laid_out_file_keeps_its_layout_when_an_entry_is_added_and_removed() {
        let text = "{\n  // \n}";
        assert!(JsonFile::parse(Path::new("f.json"), Some(text)).is_err());
        let text = "{\n  \"mcpServers\": {\n    \"gh\": { \"command\": \"npx\", \"args\": [\"-y\"] }\n  },\n  \"x\": [1, 2]\n}\n";
        let mut f = JsonFile::parse(Path::new("f.json"), Some(text)).unwrap();
        let entry = serde_json::json!({"command": "memlane", "args": ["mcp"]});
        let Value::Object(servers) = &mut f.root["mcpServers"] else { panic!() };
        servers.insert("memlane".into(), entry.clone());
        let added = f.splice_member(text, "mcpServers", "memlane", Some(&entry)).unwrap();
        assert_eq!(
            added,
            "{\n  \"mcpServers\": {\n    \"gh\": { \"command\": \"npx\", \"args\": [\"-y\"] },\n    \"memlane\": {\n      \"command\": \"memlane\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  },\n  \"x\": [1, 2]\n}\n"
        );
        let mut g = JsonFile::parse(Path::new("f.json"), Some(&added)).unwrap();
        let Value::Object(servers) = &mut g.root["mcpServers"] else { panic!() };
        servers.shift_remove("memlane");
        assert_eq!(g.splice_member(&added, "mcpServers", "memlane", None).unwrap(), text);
    }

    #[test]
    fn a_parse_error_names_the_line_and_column() {
        let err = JsonFile::parse(Path::new("f.json"), Some("{\n  \"a\": 1,\n}\n")).unwrap_err();
        let SetupError::Parse { line, .. } = &err else { panic!("{err:?}") };
        assert_eq!(*line, 3);
        assert!(err.to_string().contains("f.json"), "{err}");
    }
}
