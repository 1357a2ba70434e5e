//! The byte-exact document: the frontmatter cut into one text segment per top-level key, the
//! body, and the edits made since parsing (checked by re-parsing before a write).

use serde_yaml_ng::{Mapping, Value};

use super::emit::{render_entry, yaml_inline};
use super::{FrontmatterError, KEY_ORDER, check_limits};

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Segment {
    key: Option<String>,
    pub(super) text: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RawFrontmatter {
    open: String,
    pub(super) segments: Vec<Segment>,
    close: String,
}

/// A memory file: optional frontmatter and a body, rendered back byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    bom: bool,
    pub(super) fm: Option<RawFrontmatter>,
    unclosed: bool,
    newline: &'static str,
    body: String,
    /// The frontmatter text as parsed, to check edits against ([`Document::verify_edits`]).
    parsed_yaml: Option<String>,
    /// The keys set (`Some`) or removed (`None`) since parsing, in order.
    edits: Vec<(String, Option<Value>)>,
    /// Whether the whole frontmatter was replaced ([`Document::replace_mapping`]).
    replaced: bool,
}

fn split_lines_inclusive(s: &str) -> Vec<&str> {
    s.split_inclusive('\n').collect()
}

fn is_delimiter(line: &str, ends: &[&str]) -> bool {
    let l = line.trim_end_matches(['\n', '\r']).trim_end_matches([' ', '\t']);
    ends.contains(&l)
}

/// The top-level key a line starts, if it starts one.
fn top_level_key(line: &str) -> Option<String> {
    let first = line.chars().next()?;
    if first.is_whitespace() || matches!(first, '#' | '-' | '?' | '[' | '{' | '&' | '*' | '!') {
        return if first == '-' && !line.starts_with("- ") && !line.trim_end().eq("-") {
            key_of(line)
        } else {
            None
        };
    }
    key_of(line)
}

fn key_of(line: &str) -> Option<String> {
    let line = line.trim_end_matches(['\n', '\r']);
    if let Some(rest) = line.strip_prefix('"').or_else(|| line.strip_prefix('\'')) {
        let quote = line.as_bytes()[0] as char;
        let end = rest.find(quote)?;
        let after = &rest[end + 1..];
        return (after.starts_with(':')).then(|| rest[..end].to_owned());
    }
    let mut prev = ' ';
    for (i, c) in line.char_indices() {
        if c == ':' {
            let next = line[i + 1..].chars().next();
            if next.is_none_or(|n| n == ' ' || n == '\t') {
                return Some(line[..i].trim_end().to_owned());
            }
        }
        if c == '#' && prev == ' ' {
            return None;
        }
        prev = c;
    }
    None
}

/// What the YAML scanner knows at the end of a line: whether a construct that spans lines is
/// still open (a quoted scalar, a flow collection) or a block scalar's lines follow.
///
/// This is deliberately small: it only has to tell where each top-level key's text ends, and
/// every rewrite is checked by re-parsing ([`Document::verify_edits`]), so a case it gets wrong
/// is refused, never written.
#[derive(Debug, Default)]
struct LineScanner {
    /// Inside a quoted scalar opened by this quote character.
    quote: Option<char>,
    /// Depth of open flow collections (`[` / `{`).
    flow: usize,
    /// Inside a block scalar (`|` / `>`) whose header line had this indentation: lines indented
    /// deeper (and blank lines) are its text.
    block: Option<usize>,
}

impl LineScanner {
    /// Whether the next line continues a quoted scalar or flow collection from earlier lines.
    fn open(&self) -> bool {
        self.quote.is_some() || self.flow > 0
    }

    /// Whether `line` is text of the block scalar that is open (never scanned for syntax).
    fn in_block_scalar(&self, line: &str) -> bool {
        let Some(parent) = self.block else { return false };
        let content = line.trim_end_matches(['\n', '\r']);
        content.trim().is_empty() || indentation(content) > parent
    }

    /// Scans one line, updating the state for the next.
    fn feed(&mut self, line: &str) {
        if self.in_block_scalar(line) {
            return;
        }
        self.block = None;
        let content = line.trim_end_matches(['\n', '\r']);
        let indent = indentation(content);
        let chars: Vec<char> = content.chars().collect();
        // Whether a node may start here (line start, after `key: `, `- `, `[`, `,` …): only there
        // do quotes, brackets and block indicators mean syntax rather than plain text.
        let mut node_start = true;
        let mut after_space = true;
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let next = chars.get(i + 1).copied();
            if let Some(q) = self.quote {
                if q == '"' && c == '\\' {
                    i += 2;
                    continue;
                }
                if c == q {
                    if q == '\'' && next == Some('\'') {
                        i += 2;
                        continue;
                    }
                    self.quote = None;
                    node_start = false;
                    after_space = false;
                }
                i += 1;
                continue;
            }
            let ends_token = |n: Option<char>, flow: usize| {
                n.is_none_or(|n| n == ' ' || n == '\t' || (flow > 0 && ",[]{}".contains(n)))
            };
            match c {
                ' ' | '\t' => {
                    after_space = true;
                    i += 1;
                    continue;
                }
                '#' if after_space => break,
                '"' | '\'' if node_start => self.quote = Some(c),
                '[' | '{' if node_start || self.flow > 0 => {
                    self.flow += 1;
                    node_start = true;
                }
                ']' | '}' if self.flow > 0 => {
                    self.flow -= 1;
                    node_start = false;
                }
                ',' if self.flow > 0 => node_start = true,
                ':' if ends_token(next, self.flow) => node_start = true,
                '-' | '?' if node_start && self.flow == 0 && ends_token(next, 0) => {}
                '|' | '>' if node_start && self.flow == 0 => {
                    self.block = Some(indent);
                    break;
                }
                '&' | '!' if node_start => {
                    // An anchor or tag: the node itself follows after the space.
                    while i < chars.len() && !matches!(chars[i], ' ' | '\t') {
                        i += 1;
                    }
                    continue;
                }
                _ => node_start = false,
            }
            after_space = false;
            i += 1;
        }
    }
}

fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Whether a line belongs to the entry above it by its shape: indented, or a `- ` item.
fn continues_entry(line: &str) -> bool {
    !line.trim().is_empty()
        && (line.starts_with([' ', '\t']) || line.starts_with("- ") || line.trim_end() == "-")
}

fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

fn segment(yaml: &str) -> Vec<Segment> {
    let lines = split_lines_inclusive(yaml);
    let mut segs: Vec<Segment> = Vec::new();
    let mut scan = LineScanner::default();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let key =
            if scan.open() || scan.in_block_scalar(line) { None } else { top_level_key(line) };
        let Some(key) = key else {
            match segs.last_mut() {
                Some(s) if s.key.is_none() => s.text.push_str(line),
                _ => segs.push(Segment { key: None, text: line.to_owned() }),
            }
            scan.feed(line);
            i += 1;
            continue;
        };
        let mut text = line.to_owned();
        scan.feed(line);
        i += 1;
        // The entry goes on while a quoted scalar, flow collection or block scalar is open, over
        // indented lines and `- ` items, and over blank and comment lines that more of them follow.
        while i < lines.len() {
            let l = lines[i];
            if scan.open() || scan.in_block_scalar(l) || continues_entry(l) {
                text.push_str(l);
                scan.feed(l);
                i += 1;
                continue;
            }
            if is_blank_or_comment(l) {
                let mut j = i;
                while j < lines.len() && is_blank_or_comment(lines[j]) {
                    j += 1;
                }
                if j < lines.len() && continues_entry(lines[j]) {
                    for l in &lines[i..j] {
                        text.push_str(l);
                        scan.feed(l);
                    }
                    i = j;
                    continue;
                }
            }
            break;
        }
        segs.push(Segment { key: Some(key), text });
    }
    segs
}

impl Document {
    /// Splits a file into frontmatter and body. Never fails: problems show up in [`Document::mapping`].
    pub fn parse(text: &str) -> Document {
        let (bom, text) = match text.strip_prefix('\u{feff}') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let lines = split_lines_inclusive(text);
        let opens = lines.first().is_some_and(|l| is_delimiter(l, &["---"]) && l.ends_with('\n'));
        if opens {
            let close_idx = lines.iter().skip(1).position(|l| is_delimiter(l, &["---", "..."]));
            if let Some(ci) = close_idx.map(|i| i + 1) {
                let yaml: String = lines[1..ci].concat();
                let body: String = lines[ci + 1..].concat();
                let segments = segment(&yaml);
                return Document {
                    bom,
                    fm: Some(RawFrontmatter {
                        open: lines[0].to_owned(),
                        segments,
                        close: lines[ci].to_owned(),
                    }),
                    unclosed: false,
                    newline,
                    body,
                    parsed_yaml: Some(yaml),
                    edits: Vec::new(),
                    replaced: false,
                };
            }
            return Document::plain(bom, true, newline, text);
        }
        Document::plain(bom, false, newline, text)
    }

    fn plain(bom: bool, unclosed: bool, newline: &'static str, text: &str) -> Document {
        Document {
            bom,
            fm: None,
            unclosed,
            newline,
            body: text.to_owned(),
            parsed_yaml: None,
            edits: Vec::new(),
            replaced: false,
        }
    }

    /// A new document with empty frontmatter and the given content.
    pub fn new(content: &str) -> Document {
        let mut doc = Document {
            bom: false,
            fm: Some(RawFrontmatter {
                open: "---\n".into(),
                segments: Vec::new(),
                close: "---\n".into(),
            }),
            unclosed: false,
            newline: "\n",
            body: String::new(),
            parsed_yaml: None,
            edits: Vec::new(),
            replaced: false,
        };
        doc.set_content(content);
        doc
    }

    /// The file's bytes, exactly as parsed plus any changes made.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if self.bom {
            out.push('\u{feff}');
        }
        if let Some(fm) = &self.fm {
            out.push_str(&fm.open);
            for s in &fm.segments {
                out.push_str(&s.text);
            }
            let last = fm.segments.last().map(|s| s.text.as_str()).unwrap_or("");
            if !last.is_empty() && !last.ends_with('\n') {
                out.push_str(self.newline);
            }
            out.push_str(&fm.close);
            if !fm.close.ends_with('\n') {
                out.push_str(self.newline);
            }
        }
        out.push_str(&self.body);
        out
    }

    /// Whether the file has a frontmatter block.
    pub fn has_frontmatter(&self) -> bool {
        self.fm.is_some()
    }

    /// The frontmatter YAML text (without delimiters).
    pub fn yaml(&self) -> String {
        self.fm
            .as_ref()
            .map(|fm| fm.segments.iter().map(|s| s.text.as_str()).collect())
            .unwrap_or_default()
    }

    /// The frontmatter as a mapping (empty when the file has none).
    pub fn mapping(&self) -> Result<Mapping, FrontmatterError> {
        if self.unclosed {
            return Err(FrontmatterError::Unclosed);
        }
        yaml_mapping(&self.yaml())
    }

    /// The memory's content: the body without the one blank line that separates it from the
    /// frontmatter.
    pub fn content(&self) -> &str {
        if self.fm.is_some() {
            self.body
                .strip_prefix("\r\n")
                .or_else(|| self.body.strip_prefix('\n'))
                .unwrap_or(&self.body)
        } else {
            &self.body
        }
    }

    /// Replaces the content; a non-empty content always ends with a newline on disk.
    pub fn set_content(&mut self, content: &str) {
        let mut body = String::new();
        if self.fm.is_some() {
            body.push_str(self.newline);
        }
        body.push_str(content);
        if !content.is_empty() && !content.ends_with('\n') {
            body.push_str(self.newline);
        }
        self.body = body;
    }

    /// Gives a file without frontmatter an empty frontmatter block (its content is kept).
    pub fn ensure_frontmatter(&mut self) {
        if self.fm.is_none() {
            let content = std::mem::take(&mut self.body);
            let nl = self.newline;
            self.fm = Some(RawFrontmatter {
                open: format!("---{nl}"),
                segments: Vec::new(),
                close: format!("---{nl}"),
            });
            self.unclosed = false;
            self.body = format!("{nl}{content}");
        }
    }

    /// Sets a top-level key, replacing only its own lines (or inserting it in canonical order).
    pub fn set(&mut self, key: &str, value: &Value) {
        let mut text = render_entry(key, value);
        if self.newline == "\r\n" {
            text = text.replace('\n', "\r\n");
        }
        self.set_entry_text(key, value, text);
    }

    /// The raw body: everything after the closing `---` line (the whole file without
    /// frontmatter), separating blank line included.
    pub fn body(&self) -> &str {
        &self.body
    }

    /// Replaces the raw body (see [`Document::body`]) as is.
    pub fn set_body(&mut self, body: &str) {
        self.body = body.to_owned();
    }

    /// The lines of a top-level key exactly as written, when the frontmatter has it.
    pub fn entry_text(&self, key: &str) -> Option<&str> {
        let fm = self.fm.as_ref()?;
        fm.segments.iter().find(|s| s.key.as_deref() == Some(key)).map(|s| s.text.as_str())
    }

    /// Gives `key` the lines `other` has for it, byte for byte (newlines adapted to this file),
    /// or removes it when `other` has none. Checked like any edit by [`Document::verify_edits`].
    pub fn copy_entry_from(&mut self, other: &Document, key: &str) {
        let Some(text) = other.entry_text(key) else {
            self.remove(key);
            return;
        };
        let value = other.mapping().ok().and_then(|m| m.get(key).cloned()).unwrap_or(Value::Null);
        let mut text = text.replace("\r\n", "\n");
        if !text.ends_with('\n') {
            text.push('\n');
        }
        if self.newline == "\r\n" {
            text = text.replace('\n', "\r\n");
        }
        self.set_entry_text(key, &value, text);
    }

    /// Puts `text` (one whole `key: value` entry, ending in a newline) in place of `key`'s lines
    /// or inserts it in canonical order; `value` is what it reads as.
    fn set_entry_text(&mut self, key: &str, value: &Value, text: String) {
        self.ensure_frontmatter();
        self.edits.push((key.to_owned(), Some(value.clone())));
        let nl = self.newline;
        let fm = self.fm.as_mut().expect("ensured above");
        if let Some(seg) = fm.segments.iter_mut().find(|s| s.key.as_deref() == Some(key)) {
            // Keep a trailing comment-free layout: the segment may have ended without a newline.
            seg.text = text;
            return;
        }
        if let Some(last) = fm.segments.last_mut()
            && !last.text.ends_with('\n')
        {
            last.text.push_str(nl);
        }
        let rank = |k: &str| KEY_ORDER.iter().position(|o| *o == k);
        let pos = match rank(key) {
            Some(r) => {
                // After the last segment whose key ranks before ours, else before the first key.
                let after = fm
                    .segments
                    .iter()
                    .rposition(|s| s.key.as_deref().and_then(rank).is_some_and(|sr| sr < r));
                match after {
                    Some(i) => i + 1,
                    None => fm
                        .segments
                        .iter()
                        .position(|s| s.key.is_some())
                        .unwrap_or(fm.segments.len()),
                }
            }
            None => fm.segments.len(),
        };
        fm.segments.insert(pos, Segment { key: Some(key.to_owned()), text });
    }

    /// Removes a top-level key and its lines; returns whether it was there.
    pub fn remove(&mut self, key: &str) -> bool {
        let Some(fm) = self.fm.as_mut() else { return false };
        self.edits.push((key.to_owned(), None));
        let before = fm.segments.len();
        fm.segments.retain(|s| s.key.as_deref() != Some(key));
        before != fm.segments.len()
    }

    /// Replaces the whole frontmatter by a freshly rendered mapping (used when the original
    /// layout cannot be edited segment by segment; comments are lost then).
    pub fn replace_mapping(&mut self, map: &Mapping) {
        self.ensure_frontmatter();
        self.replaced = true;
        let fm = self.fm.as_mut().expect("ensured above");
        fm.segments.clear();
        for (k, v) in map {
            let key = match k {
                Value::String(s) => s.clone(),
                other => yaml_inline(other),
            };
            fm.segments.push(Segment { key: Some(key.clone()), text: render_entry(&key, v) });
        }
        if self.newline == "\r\n" {
            for s in &mut fm.segments {
                s.text = s.text.replace('\n', "\r\n");
            }
        }
    }
}

impl Document {
    /// Checks the keys set and removed since parsing against a fresh parse of the result: every
    /// key that was not touched must read back exactly as before, every key set must read back
    /// as set, every key removed must be gone, and no other key may appear. This is the guard
    /// that a rewrite never edits text it did not mean to (a value spanning lines that the
    /// segmenter misjudged). Files whose original frontmatter does not parse, and documents whose
    /// frontmatter was replaced as a whole, have nothing to compare against and pass.
    pub fn verify_edits(&self) -> Result<(), FrontmatterError> {
        if self.replaced || self.edits.is_empty() {
            return Ok(());
        }
        let before = match &self.parsed_yaml {
            None => Mapping::new(),
            Some(yaml) => match yaml_mapping(yaml) {
                Ok(m) => m,
                Err(_) => return Ok(()),
            },
        };
        let after = self.mapping().map_err(|e| FrontmatterError::UnsafeEdit(e.to_string()))?;
        let mut touched: Vec<(&str, Option<&Value>)> = Vec::new();
        for (k, v) in &self.edits {
            touched.retain(|(t, _)| *t != k.as_str());
            touched.push((k.as_str(), v.as_ref()));
        }
        let is_touched =
            |k: &Value| k.as_str().is_some_and(|k| touched.iter().any(|(t, _)| *t == k));
        // A key is quoted (never a value), redacted: a hand-written key may hold anything.
        let show = |k: &Value| {
            let key = k.as_str().map_or_else(|| yaml_inline(k), str::to_owned);
            crate::privacy::sanitize(&key, true).text
        };
        for (k, v) in &before {
            if is_touched(k) {
                continue;
            }
            match after.get(k) {
                Some(now) if now == v => {}
                Some(_) => {
                    return Err(FrontmatterError::UnsafeEdit(format!(
                        "`{}` would change",
                        show(k)
                    )));
                }
                None => {
                    return Err(FrontmatterError::UnsafeEdit(format!(
                        "`{}` would be lost",
                        show(k)
                    )));
                }
            }
        }
        for (k, want) in &touched {
            let got = after.get(*k);
            if got != *want {
                return Err(FrontmatterError::UnsafeEdit(format!(
                    "`{}` would not read back as written",
                    crate::privacy::sanitize(k, true).text
                )));
            }
        }
        if let Some(k) = after.keys().find(|k| !is_touched(k) && !before.contains_key(*k)) {
            return Err(FrontmatterError::UnsafeEdit(format!("a key `{}` would appear", show(k))));
        }
        Ok(())
    }
}

fn yaml_mapping(yaml: &str) -> Result<Mapping, FrontmatterError> {
    check_limits(yaml)?;
    if yaml.trim().is_empty()
        || yaml.lines().all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
    {
        return Ok(Mapping::new());
    }
    match serde_yaml_ng::from_str::<Value>(yaml) {
        Ok(Value::Mapping(m)) => Ok(m),
        Ok(Value::Null) => Ok(Mapping::new()),
        Ok(_) => Err(FrontmatterError::NotAMapping),
        Err(e) => Err(FrontmatterError::Yaml(e.to_string())),
    }
}
