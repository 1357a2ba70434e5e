//! The memory file model: YAML frontmatter plus a Markdown body, kept byte-exact.
//!
//! The frontmatter is held as the original text, cut into one segment per top-level key, so a
//! rewrite replaces only the keys that changed: unknown keys, comments, key order and the author's
//! formatting of every other key survive, and `git diff` shows only what memlane changed. Values
//! are read with `serde_yaml_ng` (the maintained fork of the archived `serde_yaml`); see the README
//! for why the frontmatter split is our own and not `gray_matter`.
//!
//! Writing is strict (every value is emitted by [`yaml_scalar`] and friends and re-parsed), reading
//! is lenient ([`Meta::from_mapping`] turns bad values into warnings and defaults).

use jiff::Timestamp;
use serde_yaml_ng::{Mapping, Value};

use super::time::{format_timestamp, parse_timestamp};

/// The canonical order of the keys memlane writes. New keys are inserted after the nearest key
/// that precedes them in this list, so files keep a stable, readable order.
pub const KEY_ORDER: &[&str] = &[
    "id",
    "type",
    "status",
    "tags",
    "created_at",
    "updated_at",
    "pinned",
    "happens_at",
    "expires_at",
    "superseded_by",
    "consolidated_from",
    "links",
    "had_private_content",
];

/// The statuses a memory can have.
pub const STATUSES: &[&str] = &["active", "archived"];

/// The largest frontmatter memlane parses, in bytes (the text between the `---` lines). A file
/// with more is skipped with a warning: nothing memlane writes comes near it, and it keeps the
/// YAML parser's work bounded.
pub const MAX_FRONTMATTER_BYTES: usize = 256 * 1024;

/// The deepest nesting of flow collections (`[` and `{`) memlane parses in frontmatter. The YAML
/// parser's work grows with the square of this depth (160,000 `[` took 81 s), so a deeper file is
/// refused before parsing, in time linear in its size. Counted over every bracket that is not
/// closed yet, quoted or not (an overestimate, never an underestimate).
pub const MAX_FRONTMATTER_DEPTH: usize = 64;

/// Why frontmatter could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrontmatterError {
    /// The YAML does not parse.
    #[error("broken YAML in the frontmatter: {0}")]
    Yaml(String),
    /// The YAML parses but is not a `key: value` mapping.
    #[error("the frontmatter is not a `key: value` mapping")]
    NotAMapping,
    /// An opening `---` has no closing `---`.
    #[error("the frontmatter starts with `---` but has no closing `---` line")]
    Unclosed,
    /// A rewrite of some keys would have changed others (a layout memlane does not understand).
    #[error("memlane cannot change this frontmatter without also changing other keys ({0})")]
    UnsafeEdit(String),
    /// The frontmatter is larger than [`MAX_FRONTMATTER_BYTES`].
    #[error(
        "the frontmatter is {bytes} bytes, over the {max} byte limit",
        max = MAX_FRONTMATTER_BYTES
    )]
    TooLarge {
        /// The frontmatter's size.
        bytes: usize,
    },
    /// Flow collections nest deeper than [`MAX_FRONTMATTER_DEPTH`].
    #[error(
        "the frontmatter nests `[`/`{{` more than {max} deep",
        max = MAX_FRONTMATTER_DEPTH
    )]
    TooDeep,
}

impl FrontmatterError {
    /// Whether the frontmatter is past memlane's parsing limits (the file is skipped, not read
    /// with defaults).
    pub fn is_over_limit(&self) -> bool {
        matches!(self, FrontmatterError::TooLarge { .. } | FrontmatterError::TooDeep)
    }
}

/// Checks `yaml` against [`MAX_FRONTMATTER_BYTES`] and [`MAX_FRONTMATTER_DEPTH`] in one linear
/// pass, before any YAML parser sees it.
pub fn check_limits(yaml: &str) -> Result<(), FrontmatterError> {
    if yaml.len() > MAX_FRONTMATTER_BYTES {
        return Err(FrontmatterError::TooLarge { bytes: yaml.len() });
    }
    let mut depth = 0usize;
    for b in yaml.bytes() {
        match b {
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_FRONTMATTER_DEPTH {
                    return Err(FrontmatterError::TooDeep);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Segment {
    key: Option<String>,
    text: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct RawFrontmatter {
    open: String,
    segments: Vec<Segment>,
    close: String,
}

/// A memory file: optional frontmatter and a body, rendered back byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    bom: bool,
    fm: Option<RawFrontmatter>,
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
        self.ensure_frontmatter();
        self.edits.push((key.to_owned(), Some(value.clone())));
        let nl = self.newline;
        let mut text = render_entry(key, value);
        if nl == "\r\n" {
            text = text.replace('\n', "\r\n");
        }
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
        let show = |k: &Value| k.as_str().map_or_else(|| yaml_inline(k), str::to_owned);
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
                    "`{k}` would not read back as written"
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
fn yaml_inline(v: &Value) -> String {
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
                c if c.is_control() || c == '\u{feff}' => {
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

/// The typed view of a memory's frontmatter, read leniently.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Meta {
    /// `id`, when present and well-formed.
    pub id: Option<String>,
    /// `type`, as written.
    pub memory_type: Option<String>,
    /// `status`, as written.
    pub status: Option<String>,
    /// `tags`, from a list or a comma string.
    pub tags: Vec<String>,
    /// `created_at`.
    pub created_at: Option<Timestamp>,
    /// `updated_at`.
    pub updated_at: Option<Timestamp>,
    /// `pinned`.
    pub pinned: bool,
    /// `happens_at`.
    pub happens_at: Option<Timestamp>,
    /// `expires_at`.
    pub expires_at: Option<Timestamp>,
    /// `superseded_by`.
    pub superseded_by: Option<String>,
    /// `had_private_content`.
    pub had_private_content: bool,
}

fn scalar_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Reads `tags` as written by hand: a list of scalars or a comma-separated string.
pub fn read_tags(v: &Value) -> Option<Vec<String>> {
    let raw: Vec<String> = match v {
        Value::Sequence(items) => items.iter().map(scalar_string).collect::<Option<Vec<_>>>()?,
        Value::String(s) => s.split(',').map(str::to_owned).collect(),
        Value::Null => Vec::new(),
        other => vec![scalar_string(other)?],
    };
    // A set beside the list: a hand-written file may hold thousands of tags.
    let mut seen = std::collections::HashSet::new();
    let mut tags: Vec<String> = Vec::new();
    for t in raw {
        let t = t.trim().to_owned();
        if !t.is_empty() && seen.insert(t.clone()) {
            tags.push(t);
        }
    }
    Some(tags)
}

impl Meta {
    /// Reads the known keys; a bad value becomes a warning and the key's default.
    pub fn from_mapping(map: &Mapping) -> (Meta, Vec<String>) {
        let mut meta = Meta::default();
        let mut warnings = Vec::new();
        let get = |k: &str| map.get(k).filter(|v| !v.is_null());
        let text = |k: &str, warnings: &mut Vec<String>| -> Option<String> {
            let v = get(k)?;
            let s = scalar_string(v);
            if s.is_none() {
                warnings.push(format!("`{k}` should be a single value; ignored"));
            }
            s
        };
        meta.id = text("id", &mut warnings);
        if let Some(id) = &meta.id
            && super::name::MemoryId::parse(id).is_none()
        {
            warnings.push(format!("`id: {id}` is not an 11-character base62 id; kept as written"));
        }
        meta.memory_type = text("type", &mut warnings);
        meta.status = text("status", &mut warnings);
        if let Some(st) = &meta.status
            && !STATUSES.contains(&st.as_str())
        {
            warnings.push(format!(
                "unknown `status: {st}` (expected active or archived); read as active"
            ));
            meta.status = None;
        }
        meta.superseded_by = text("superseded_by", &mut warnings);
        if let Some(v) = get("tags") {
            match read_tags(v) {
                Some(t) => meta.tags = t,
                None => warnings
                    .push("`tags` should be a list or a comma-separated string; ignored".into()),
            }
        }
        for (key, slot) in [
            ("created_at", &mut meta.created_at),
            ("updated_at", &mut meta.updated_at),
            ("happens_at", &mut meta.happens_at),
            ("expires_at", &mut meta.expires_at),
        ] {
            if let Some(v) = get(key) {
                match scalar_string(v).as_deref().and_then(parse_timestamp) {
                    Some(ts) => *slot = Some(ts),
                    None => warnings.push(format!(
                        "`{key}` is not an ISO-8601 date or timestamp (like 2026-01-10T10:00:00Z); ignored"
                    )),
                }
            }
        }
        for (key, slot) in
            [("pinned", &mut meta.pinned), ("had_private_content", &mut meta.had_private_content)]
        {
            match get(key) {
                None => {}
                Some(Value::Bool(b)) => *slot = *b,
                Some(_) => warnings.push(format!("`{key}` should be true or false; read as false")),
            }
        }
        (meta, warnings)
    }
}

/// A string value.
pub fn str_value(s: &str) -> Value {
    Value::String(s.to_owned())
}

/// A timestamp value as memlane writes it.
pub fn ts_value(ts: Timestamp) -> Value {
    Value::String(format_timestamp(ts))
}

/// A list of strings.
pub fn list_value(items: &[String]) -> Value {
    Value::Sequence(items.iter().map(|s| Value::String(s.clone())).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HAND: &str = "---\n# a comment the author wrote\nid: 3kTqZ9pLx2A\ntype: decision   # why\ntags:\n  - auth\n  - refactor\ncustom_key: {nested: [1, 2]}\ncreated_at: 2026-01-10T10:00:00Z\n---\n\nBody with --- inside\n---\nand more\n";

    #[test]
    fn untouched_documents_render_byte_for_byte() {
        for text in [
            HAND,
            "",
            "no frontmatter at all\n",
            "---\n---\n",
            "---\nid: x\n---\nbody without blank line",
            "\u{feff}---\r\nid: x\r\ntype: fact\r\n---\r\n\r\nwindows\r\n",
            "---\nkey: |\n  block\n\n  scalar\nother: 1\n---\n",
            "---\nunclosed: true\nbody\n",
        ] {
            assert_eq!(Document::parse(text).render(), text, "{text:?}");
        }
    }

    #[test]
    fn set_replaces_only_that_key_and_keeps_the_rest() {
        let mut doc = Document::parse(HAND);
        doc.set("type", &str_value("architecture"));
        doc.set("updated_at", &str_value("2026-01-12T08:30:00Z"));
        doc.set("tags", &list_value(&["auth".into(), "jwt".into()]));
        let out = doc.render();
        assert!(out.contains("# a comment the author wrote\n"));
        assert!(out.contains("custom_key: {nested: [1, 2]}\n"));
        assert!(out.contains("type: architecture\n"));
        assert!(out.contains("tags: [auth, jwt]\n"));
        // updated_at goes right after created_at, the canonical order.
        assert!(
            out.contains(
                "created_at: 2026-01-10T10:00:00Z\nupdated_at: 2026-01-12T08:30:00Z\n---\n"
            )
        );
        assert!(out.ends_with("\nBody with --- inside\n---\nand more\n"));
        let map = Document::parse(&out).mapping().unwrap();
        assert_eq!(map.get("type").unwrap().as_str(), Some("architecture"));
        let keys: Vec<&str> = map.keys().map(|k| k.as_str().unwrap()).collect();
        assert_eq!(keys, ["id", "type", "tags", "custom_key", "created_at", "updated_at"]);
    }

    #[test]
    fn new_documents_have_canonical_order() {
        let mut doc = Document::new("hello");
        doc.set("tags", &list_value(&["b".into()]));
        doc.set("id", &str_value("3kTqZ9pLx2A"));
        doc.set("created_at", &str_value("2026-01-10T10:00:00Z"));
        doc.set("type", &str_value("fact"));
        doc.set("status", &str_value("active"));
        assert_eq!(
            doc.render(),
            "---\nid: 3kTqZ9pLx2A\ntype: fact\nstatus: active\ntags: [b]\ncreated_at: 2026-01-10T10:00:00Z\n---\n\nhello\n"
        );
        assert_eq!(doc.content(), "hello\n");
    }

    #[test]
    fn ambiguous_scalars_are_quoted() {
        for (s, want) in [
            ("no", "\"no\""),
            ("On", "\"On\""),
            ("0123", "\"0123\""),
            ("1e3", "\"1e3\""),
            ("a: b", "\"a: b\""),
            ("#tag", "\"#tag\""),
            ("", "\"\""),
            ("line\nbreak", "\"line\\nbreak\""),
            ("auth", "auth"),
            ("v1.2", "v1.2"),
            ("src/auth.py", "src/auth.py"),
            ("2026-01-10", "2026-01-10"),
            ("3kTqZ9pLx2A", "3kTqZ9pLx2A"),
            ("0x1F", "\"0x1F\""),
            ("12e5", "\"12e5\""),
        ] {
            assert_eq!(yaml_scalar(s), want, "{s:?}");
            let back: Value = serde_yaml_ng::from_str(&yaml_scalar(s)).unwrap();
            assert_eq!(back, Value::String(s.to_owned()), "{s:?}");
        }
    }

    #[test]
    fn lenient_meta_reads_hand_written_values() {
        let doc = Document::parse(
            "---\ntags: auth, refactor ,auth\ncreated_at: 2026-01-10\npinned: maybe\nstatus: weird\n---\nx\n",
        );
        let (meta, warnings) = Meta::from_mapping(&doc.mapping().unwrap());
        assert_eq!(meta.tags, ["auth", "refactor"]);
        assert_eq!(format_timestamp(meta.created_at.unwrap()), "2026-01-10T00:00:00Z");
        assert!(!meta.pinned);
        assert_eq!(meta.status, None);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
    }

    #[test]
    fn broken_yaml_is_an_error_not_a_panic() {
        let doc = Document::parse("---\ntags: [unclosed\n---\nbody\n");
        assert!(matches!(doc.mapping(), Err(FrontmatterError::Yaml(_))));
        assert_eq!(doc.content(), "body\n");
        let doc = Document::parse("---\n- a list\n---\n");
        assert_eq!(doc.mapping(), Err(FrontmatterError::NotAMapping));
        let doc = Document::parse("---\nno close\n");
        assert_eq!(doc.mapping(), Err(FrontmatterError::Unclosed));
    }

    #[test]
    fn values_spanning_lines_are_one_entry() {
        let text = "---\nid: 3kTqZ9pLx2A\ndescription: \"Migration plan.\nstatus: draft\nuntil the review\"\nstatus: active\ntags: [a,\nb]\nnote: |\n  status: x\n\n  \"open quote\nlast: 'it''s\nupdated_at: no'\n---\nbody\n";
        let before = Document::parse(text).mapping().unwrap();
        let mut doc = Document::parse(text);
        doc.set("status", &str_value("archived"));
        doc.set("tags", &list_value(&["a".into(), "c".into()]));
        doc.set("updated_at", &str_value("2026-02-01T00:00:00Z"));
        doc.verify_edits().unwrap();
        let out = doc.render();
        let after = Document::parse(&out).mapping().unwrap();
        assert_eq!(after.get("status").unwrap().as_str(), Some("archived"));
        for k in ["description", "note", "last", "id"] {
            assert_eq!(after.get(k), before.get(k), "{k} in\n{out}");
        }
        assert!(
            out.contains("description: \"Migration plan.\nstatus: draft\nuntil the review\"\n")
        );
        assert!(out.ends_with("---\nbody\n"));
    }

    #[test]
    fn an_edit_that_would_change_another_key_is_refused() {
        // A layout the segmenter cannot follow: a plain scalar continued on a line that starts
        // with a quote. Whatever the segmenter decides, the check must catch a wrong cut.
        let mut doc = Document::parse("---\na: 1\nb: x\n---\n");
        doc.fm.as_mut().unwrap().segments[0].text = "a: 1\nb: y\n".into();
        doc.set("c", &str_value("new"));
        assert!(matches!(doc.verify_edits(), Err(FrontmatterError::UnsafeEdit(_))));
        let mut doc = Document::parse("---\na: 1\nb: x\n---\n");
        doc.set("a", &str_value("2"));
        doc.verify_edits().unwrap();
    }

    mod prop {
        use super::super::*;
        use proptest::prelude::*;

        /// Lines that look like YAML syntax, to put inside multi-line values.
        const TRICKY: &[&str] = &[
            "status: draft",
            "updated_at: 2020-01-01T00:00:00Z",
            "tags: [x,",
            "# not a comment",
            "- not an item",
            "[bracket",
            "{brace",
            "key: 'quote",
            "plain words here",
            "id: 3kTqZ9pLx2A",
            "a \"quoted\" bit",
            "it's",
        ];

        fn tricky() -> impl Strategy<Value = String> + Clone {
            proptest::sample::select(TRICKY).prop_map(str::to_owned)
        }

        fn double_quoted(lines: &[String]) -> String {
            let esc: Vec<String> =
                lines.iter().map(|l| l.replace('\\', "\\\\").replace('"', "\\\"")).collect();
            format!("\"{}\"", esc.join("\n"))
        }

        fn single_quoted(lines: &[String]) -> String {
            let esc: Vec<String> = lines.iter().map(|l| l.replace('\'', "''")).collect();
            format!("'{}'", esc.join("\n"))
        }

        /// One hand-written `key: value` entry (the text after `key:`), in one of many layouts.
        fn entry_value() -> impl Strategy<Value = String> {
            let lines = proptest::collection::vec(tricky(), 1..4);
            prop_oneof![
                Just(" plain value".to_owned()),
                Just(" value # a trailing comment".to_owned()),
                lines.clone().prop_map(|l: Vec<String>| format!(" {}", double_quoted(&l))),
                lines.clone().prop_map(|l: Vec<String>| format!(" {}", single_quoted(&l))),
                lines.clone().prop_map(|l| {
                    let items: Vec<String> =
                        l.iter().map(|x| double_quoted(std::slice::from_ref(x))).collect();
                    format!(" [{},\n  last]", items.join(",\n"))
                }),
                Just(" [a,\nb, \"c,\nd\"]".to_owned()),
                Just(" {x: 1,\ny: [2,\n3], z: 'w\nv'}".to_owned()),
                lines.clone().prop_map(|l| format!(" |\n  {}\n\n  {}", l.join("\n  "), l[0])),
                lines.clone().prop_map(|l| format!(
                    " >-\n    {}\n  # not a comment either",
                    l.join("\n    ")
                )),
                lines.clone().prop_map(|l| {
                    let items: Vec<String> = l
                        .iter()
                        .map(|x| format!("  - {}", double_quoted(std::slice::from_ref(x))))
                        .collect();
                    format!("\n{}", items.join("\n"))
                }),
                lines.prop_map(|l| format!("\n- {}\n- item", double_quoted(&l))),
                Just(" &anchor \"anchored\nvalue\"".to_owned()),
            ]
        }

        fn separator() -> impl Strategy<Value = &'static str> {
            proptest::sample::select(&["", "", "# a comment: with a colon\n", "\n", "# c\n\n"][..])
        }

        const KEYS: &[&str] = &[
            "description",
            "status",
            "notes",
            "tags",
            "title",
            "custom",
            "updated_at",
            "type",
            "a",
        ];

        fn frontmatter() -> impl Strategy<Value = String> {
            proptest::collection::vec((separator(), entry_value()), 1..KEYS.len()).prop_map(
                |entries| {
                    let mut out = String::new();
                    for (key, (sep, value)) in KEYS.iter().zip(entries) {
                        out.push_str(sep);
                        out.push_str(&format!("{key}:{value}\n"));
                    }
                    out
                },
            )
        }

        #[derive(Debug, Clone)]
        enum Edit {
            Set(&'static str, Value),
            Remove(&'static str),
        }

        fn edit() -> impl Strategy<Value = Edit> {
            let key = proptest::sample::select(KEYS);
            prop_oneof![
                (key.clone(), "[a-z ]{1,12}").prop_map(|(k, v)| Edit::Set(k, Value::String(v))),
                (key.clone(), proptest::collection::vec("[a-z]{1,6}", 0..3))
                    .prop_map(|(k, v)| Edit::Set(k, list_value(&v))),
                key.prop_map(Edit::Remove),
            ]
        }

        proptest! {
            #[test]
            fn edits_never_touch_other_keys_or_the_body(
                yaml in frontmatter(),
                edits in proptest::collection::vec(edit(), 1..4),
                body in "(\\PC{0,40}\n){0,3}(---\n)?\\PC{0,20}",
            ) {
                let text = format!("---\n{yaml}---\n{body}");
                let original = Document::parse(&text);
                prop_assert_eq!(original.render(), text.clone());
                let before = original.mapping();
                prop_assert!(before.is_ok(), "generated YAML must parse: {:?}\n{}", before, yaml);
                let before = before.unwrap();
                let mut doc = original.clone();
                let mut touched: Vec<&str> = Vec::new();
                for e in &edits {
                    match e {
                        Edit::Set(k, v) => { doc.set(k, v); touched.push(k); }
                        Edit::Remove(k) => { doc.remove(k); touched.push(k); }
                    }
                }
                prop_assert!(doc.verify_edits().is_ok(), "{:?}\n{}", doc.verify_edits(), doc.render());
                let out = doc.render();
                let back = Document::parse(&out);
                let after = back.mapping().unwrap();
                for (k, v) in &before {
                    let ks = k.as_str().unwrap();
                    if !touched.contains(&ks) {
                        prop_assert_eq!(after.get(k), Some(v), "key {} in\n{}", ks, out);
                    }
                }
                let mut last: Vec<(&str, Option<&Value>)> = Vec::new();
                for e in &edits {
                    let (k, v) = match e { Edit::Set(k, v) => (*k, Some(v)), Edit::Remove(k) => (*k, None) };
                    last.retain(|(x, _)| *x != k);
                    last.push((k, v));
                }
                for (k, v) in last {
                    prop_assert_eq!(after.get(k), v, "key {} in\n{}", k, out);
                }
                prop_assert_eq!(back.content(), original.content());
                let tail = format!("---\n{body}");
                prop_assert!(out.ends_with(&tail));
            }
        }

        fn key() -> impl Strategy<Value = String> {
            "[a-z][a-z0-9_]{0,10}"
        }

        fn value() -> impl Strategy<Value = Value> {
            let leaf = prop_oneof![
                any::<bool>().prop_map(Value::Bool),
                any::<i32>().prop_map(|n| Value::Number(n.into())),
                "\\PC{0,20}".prop_map(Value::String),
                "[ -~\n\t]{0,20}".prop_map(Value::String),
            ];
            prop_oneof![
                leaf.clone(),
                proptest::collection::vec(leaf.clone(), 0..4).prop_map(Value::Sequence),
                proptest::collection::vec(
                    proptest::collection::btree_map(key(), leaf, 1..3).prop_map(|m| {
                        Value::Mapping(m.into_iter().map(|(k, v)| (Value::String(k), v)).collect())
                    }),
                    1..3
                )
                .prop_map(Value::Sequence),
            ]
        }

        proptest! {
            #[test]
            fn set_then_parse_gives_the_same_values(
                entries in proptest::collection::btree_map(key(), value(), 0..8),
                body in "\\PC{0,80}",
            ) {
                let mut doc = Document::new(&body);
                for (k, v) in &entries {
                    doc.set(k, v);
                }
                let text = doc.render();
                let back = Document::parse(&text);
                prop_assert_eq!(back.render(), text.clone());
                let map = back.mapping().unwrap();
                prop_assert_eq!(map.len(), entries.len());
                for (k, v) in &entries {
                    prop_assert_eq!(map.get(k.as_str()), Some(v), "key {} in\n{}", k, text);
                }
                let want_body = if body.is_empty() || body.ends_with('\n') { body.clone() } else { format!("{body}\n") };
                prop_assert_eq!(back.content(), want_body.as_str());
            }

            #[test]
            fn any_text_round_trips(text in "(---\n)?\\PC{0,200}") {
                let doc = Document::parse(&text);
                prop_assert_eq!(doc.render(), text.clone());
                let _ = doc.mapping();
            }
        }
    }
}
