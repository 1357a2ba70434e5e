//! Writing YAML values the way memlane writes them: unambiguous for YAML 1.1 and 1.2 readers.

use serde_yaml_ng::{Mapping, Value};

use crate::model::time::parse_timestamp;

/// Renders one `key: value` entry as memlane writes it, ending in a newline.
pub fn render_entry(key: &str, value: &Value) -> String {
    let k = yaml_scalar(key);
    match value {
        Value::Sequence(items) if items.iter().all(is_flow_scalar) => {
            let inner: Vec<String> = items.iter().map(yaml_inline).collect();
            format!("{k}: [{}]\n", inner.join(", "))
        }
        Value::Sequence(items)
            if items
                .iter()
                .all(|i| matches!(i, Value::Mapping(m) if m.values().all(is_flow_scalar))) =>
        {
            let mut out = format!("{k}:\n");
            for item in items {
                out.push_str("  - ");
                out.push_str(&yaml_inline(item));
                out.push('\n');
            }
            out
        }
        v if is_flow_scalar(v) => format!("{k}: {}\n", yaml_inline(v)),
        other => {
            let mut m = Mapping::new();
            m.insert(Value::String(key.to_owned()), other.clone());
            serde_yaml_ng::to_string(&m).unwrap_or_else(|_| format!("{k}: null\n"))
        }
    }
}

fn is_flow_scalar(v: &Value) -> bool {
    matches!(v, Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_))
}

/// A value in flow style: scalars, `[a, b]`, `{ k: v }`.
pub(super) fn yaml_inline(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => yaml_scalar(s),
        Value::Sequence(items) => {
            format!("[{}]", items.iter().map(yaml_inline).collect::<Vec<_>>().join(", "))
        }
        Value::Mapping(m) => {
            let inner: Vec<String> =
                m.iter().map(|(k, v)| format!("{}: {}", yaml_inline(k), yaml_inline(v))).collect();
            format!("{{ {} }}", inner.join(", "))
        }
        Value::Tagged(t) => yaml_inline(&t.value),
    }
}

const AMBIGUOUS: &[&str] =
    &["y", "n", "yes", "no", "on", "off", "true", "false", "null", "~", "nan", "inf"];

/// A string as a YAML scalar: plain when that is unambiguous for YAML 1.1 and 1.2 readers
/// (`no`, `on`, `0123`, `1e3` are quoted), double-quoted with escapes otherwise.
pub fn yaml_scalar(s: &str) -> String {
    if is_plain_safe(s) {
        s.to_owned()
    } else {
        let mut out = String::with_capacity(s.len() + 2);
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                // U+2028 and U+2029 are line breaks to YAML: raw, a reader folds them (and the
                // spaces around them) like a newline.
                c if c.is_control() || matches!(c, '\u{feff}' | '\u{2028}' | '\u{2029}') => {
                    out.push_str(&format!("\\u{:04x}", c as u32));
                }
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }
}

fn looks_like_timestamp(s: &str) -> bool {
    // 2026-01-10 or 2026-01-10T10:00:00Z / with offset: written plain, read back as strings.
    let b = s.as_bytes();
    b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..10].iter().all(u8::is_ascii_digit)
        && (b.len() == 10 || (b[10] == b'T' && parse_timestamp(s).is_some() && !s.contains(' ')))
}

fn is_plain_safe(s: &str) -> bool {
    if s.is_empty() || s.trim() != s {
        return false;
    }
    if looks_like_timestamp(s) {
        return true;
    }
    let first = s.chars().next().expect("non-empty");
    if first.is_ascii_digit() {
        // Ids like `3kTqZ9pLx2A`: plain when clearly not a number in any YAML version.
        let lower = s.to_ascii_lowercase();
        let numberish = lower.starts_with("0x")
            || lower.starts_with("0o")
            || lower.starts_with("0b")
            || lower.bytes().all(|b| b.is_ascii_digit() || b == b'e');
        return s.bytes().all(|b| b.is_ascii_alphanumeric()) && !numberish && reads_back(s);
    }
    if !(first.is_alphabetic() || first == '_') {
        return false;
    }
    if AMBIGUOUS.contains(&s.to_ascii_lowercase().as_str()) {
        return false;
    }
    if s.contains("  ") {
        return false;
    }
    s.chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '/' | '+' | '-' | ' ' | '(' | ')'))
        && reads_back(s)
}

/// The final guard: a plain scalar must read back as the same string.
fn reads_back(s: &str) -> bool {
    matches!(serde_yaml_ng::from_str::<Value>(s), Ok(Value::String(back)) if back == s)
}
