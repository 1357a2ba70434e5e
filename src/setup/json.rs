//! Editing a client's JSON config file: read it, change memlane's keys in the parsed tree, and
//! write it back in the file's own indentation.
//!
//! A file is parsed with `serde_json` (its `preserve_order` keeps the keys in the file's order)
//! and only re-rendered when memlane's keys actually change, so a run that has nothing to do
//! leaves every byte alone, however the file is laid out. A file written by a tool (two- or
//! four-space or tab indentation, one value per line, as `JSON.stringify(v, null, 2)` and
//! VS Code write) renders back byte for byte, so `setup` followed by `setup --remove` restores
//! it exactly. A hand-aligned file is re-rendered in that canonical layout on its first change.

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
    fn a_parse_error_names_the_line_and_column() {
        let err = JsonFile::parse(Path::new("f.json"), Some("{\n  \"a\": 1,\n}\n")).unwrap_err();
        let SetupError::Parse { line, .. } = &err else { panic!("{err:?}") };
        assert_eq!(*line, 3);
        assert!(err.to_string().contains("f.json"), "{err}");
    }
}
