//! The line-level guard between stdin and rmcp: every request gets a reply a client can match.
//!
//! rmcp's stdio transport drops what it cannot read: a line over its 16 MiB limit, a line that is
//! not JSON, and for well-formed JSON of the wrong shape (`"jsonrpc": "1.0"`, an object as `id`,
//! an `id` past `i64`, `params` as an array, a batch) it answers `Invalid Request` with a `null`
//! id the client cannot match to what it sent. So `memlane mcp` reads stdin itself, one line at
//! a time and never more than [`MAX_LINE_BYTES`] of it, checks each line ([`check_line`]),
//! answers the bad ones directly with a JSON-RPC error carrying the request's id wherever it can
//! be read, and forwards the good ones to rmcp through an in-memory pipe. rmcp's output and
//! these replies are written to stdout whole lines at a time, so stdout stays pure JSON-RPC.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// The longest line (one JSON-RPC message, with its newline) `memlane mcp` reads: the limit of
/// rmcp's stdio transport. A longer line is discarded as it is read (never held whole) and
/// answered with an error.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// How much of an over-long line is kept to find its `id` in.
const ID_PREFIX_BYTES: usize = 64 * 1024;

/// JSON-RPC error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

/// What to do with one line from the client.
#[derive(Debug, PartialEq)]
pub(crate) enum Verdict {
    /// A well-formed message: hand it to rmcp.
    Forward,
    /// Answer this instead (an error response, or an array of them for a batch).
    Reply(Value),
    /// Answer this line instead (an error response whose `id` is the request's own text: a
    /// number that does not fit in 64 bits is echoed exactly as sent).
    ReplyText(String),
    /// Nothing to answer (a blank line, a malformed notification); the reason is logged.
    Ignore(String),
}

fn error(id: Value, code: i64, message: impl Into<String>) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message.into() } })
}

/// The longest method name an error message repeats; longer ones are cut (no MCP method comes
/// near it, and a client's megabyte of text is not sent back to it).
const METHOD_SHOWN: usize = 64;

/// JSON-RPC's "method not found".
const METHOD_NOT_FOUND: i64 = -32601;

/// A method name as error messages show it: cut to [`METHOD_SHOWN`] bytes.
fn shown_method(m: &str) -> String {
    if m.len() <= METHOD_SHOWN {
        return m.to_owned();
    }
    let mut end = METHOD_SHOWN;
    while !m.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &m[..end], m.len())
}

/// An error response with the request's `id` as the client wrote it (`raw`, valid JSON).
fn error_with_raw_id(raw: &str, code: i64, message: impl Into<String>) -> String {
    let reply = error(Value::Null, code, message).to_string();
    reply.replacen(r#""id":null"#, &format!(r#""id":{raw}"#), 1)
}

/// The id to answer with: the request's own when it is a string or a number, else `null`.
fn reply_id(id: Option<&Value>) -> Value {
    match id {
        Some(v @ (Value::String(_) | Value::Number(_))) => v.clone(),
        _ => Value::Null,
    }
}

/// Why an `id` is unusable (rmcp takes a string or an integer that fits in 64 signed bits).
fn bad_id(id: &Value) -> Option<&'static str> {
    match id {
        Value::String(_) => None,
        Value::Number(n) if n.as_i64().is_some() => None,
        Value::Number(_) => {
            Some("`id` must be a string or an integer from -2^63 to 2^63-1; this number is not")
        }
        Value::Null => Some("`id` must not be null (send a notification without an `id` instead)"),
        _ => Some("`id` must be a string or an integer"),
    }
}

/// Checks one object of a message; `None` when it is fine for rmcp.
fn check_object(map: &serde_json::Map<String, Value>, raw: Option<&str>) -> Option<Verdict> {
    let id = map.get("id");
    let is_request = id.is_some();
    let answer = |code: i64, msg: String| {
        if is_request {
            Verdict::Reply(error(reply_id(id), code, msg))
        } else {
            Verdict::Ignore(format!("ignored a malformed notification: {msg}"))
        }
    };
    if map.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        let got = map.get("jsonrpc").map_or_else(|| "nothing".to_owned(), Value::to_string);
        return Some(answer(
            INVALID_REQUEST,
            format!("`jsonrpc` must be \"2.0\" (got {got}); memlane speaks JSON-RPC 2.0"),
        ));
    }
    if let Some(why) = id.and_then(bad_id) {
        // A number is a valid JSON-RPC id even when memlane cannot take it: it is echoed exactly
        // as written (a number past 64 bits would come back rounded through a float). Any other
        // id is invalid, and JSON-RPC 2.0 answers an invalid request whose id cannot be
        // determined with `id: null`.
        if let (Some(Value::Number(_)), Some(raw)) = (id, raw) {
            return Some(Verdict::ReplyText(error_with_raw_id(raw, INVALID_REQUEST, why)));
        }
        return Some(Verdict::Reply(error(reply_id(id), INVALID_REQUEST, why)));
    }
    let method = match map.get("method") {
        None if !is_request => {
            return Some(Verdict::Reply(error(
                Value::Null,
                INVALID_REQUEST,
                "a message needs a `method` (a request or notification) or an `id` (a response)",
            )));
        }
        None => None,
        Some(Value::String(m)) => Some(m.as_str()),
        Some(_) => return Some(answer(INVALID_REQUEST, "`method` must be a string".into())),
    };
    if let Some(m) = method
        && m.len() > METHOD_SHOWN
    {
        return Some(answer(
            METHOD_NOT_FOUND,
            format!("method not found: `{}`; no MCP method has so long a name", shown_method(m)),
        ));
    }
    if method.is_some()
        && let Some(p) = map.get("params")
        && !p.is_object()
        && !p.is_null()
    {
        return Some(answer(
            INVALID_PARAMS,
            "`params` must be an object of named parameters (MCP does not take them by position)"
                .into(),
        ));
    }
    if method == Some("tools/call") {
        let params = map.get("params").and_then(Value::as_object);
        let what = |v: &Value| match v {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "a list",
            Value::Object(_) => "an object",
        };
        if !params.and_then(|p| p.get("name")).is_some_and(Value::is_string) {
            return Some(answer(
                INVALID_PARAMS,
                "`tools/call` needs `params.name`, the tool's name as a string (`tools/list` \
                 lists them)"
                    .into(),
            ));
        }
        let arguments = params.and_then(|p| p.get("arguments"));
        if !arguments.is_some_and(Value::is_object) {
            let got = arguments.map_or("nothing", what);
            return Some(answer(
                INVALID_PARAMS,
                format!(
                    "`tools/call` needs `params.arguments`, an object of the tool's named \
                     arguments (got {got}): send e.g. {{\"query\": \"deploy\"}}, or {{}} for a \
                     tool that takes none; `tools/list` gives each tool's input schema"
                ),
            ));
        }
    }
    None
}

/// Decides what to do with one line (without its newline).
pub(crate) fn check_line(line: &[u8]) -> Verdict {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Ignore("blank line".into());
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            if let Some(verdict) = lone_surrogates(line) {
                return verdict;
            }
            // Not JSON: JSON-RPC answers with `id: null` unless the id can be read, here from
            // the line's start as for an over-long line.
            return Verdict::Reply(error(
                id_from_prefix(line),
                PARSE_ERROR,
                format!(
                    "Parse error: the line is not JSON ({e}); send one JSON-RPC message per line"
                ),
            ));
        }
    };
    match value {
        Value::Object(map) => {
            let raw = id_span(line).and_then(|(a, b)| std::str::from_utf8(&line[a..b]).ok());
            if let Some(v) = check_object(&map, raw) {
                return v;
            }
            let id = map.get("id").cloned();
            let method = map.get("method").and_then(Value::as_str).map(shown_method);
            match serde_json::from_value::<rmcp::model::ClientJsonRpcMessage>(Value::Object(map)) {
                Ok(_) => Verdict::Forward,
                Err(e) => match id {
                    Some(id) => {
                        let (code, what) = match &method {
                            Some(m) => (INVALID_PARAMS, format!("invalid params for `{m}`")),
                            None => (INVALID_REQUEST, "invalid message".to_owned()),
                        };
                        Verdict::Reply(error(id, code, format!("{what}: {e}")))
                    }
                    None => Verdict::Ignore(format!("ignored a malformed notification: {e}")),
                },
            }
        }
        Value::Array(items) if items.is_empty() => {
            Verdict::Reply(error(Value::Null, INVALID_REQUEST, "an empty batch"))
        }
        Value::Array(items) => {
            // MCP (since 2025-06-18) has no batches: every request in it gets its own error.
            let replies: Vec<Value> = items
                .iter()
                .filter_map(|item| {
                    let id = item.get("id")?;
                    Some(error(
                        reply_id(Some(id)),
                        INVALID_REQUEST,
                        "batches are not supported; send one JSON-RPC message per line",
                    ))
                })
                .collect();
            if replies.is_empty() {
                Verdict::Ignore(
                    "ignored a batch of notifications (batches are not supported)".into(),
                )
            } else {
                Verdict::Reply(Value::Array(replies))
            }
        }
        _ => Verdict::Reply(error(
            Value::Null,
            INVALID_REQUEST,
            "a JSON-RPC message must be an object",
        )),
    }
}

/// The `id` of a message from the first bytes of its line (for a line too long or too broken
/// to parse): the value of the top-level `"id"` key when it is a string or an integer, else
/// `null`.
pub(crate) fn id_from_prefix(prefix: &[u8]) -> Value {
    id_span(prefix)
        .and_then(|(start, stop)| serde_json::from_slice::<Value>(&prefix[start..stop]).ok())
        .filter(|v| bad_id(v).is_none())
        .unwrap_or(Value::Null)
}

/// Where the value of the top-level `"id"` key is in `prefix` (a string or a number), as
/// written.
fn id_span(prefix: &[u8]) -> Option<(usize, usize)> {
    let n = prefix.len();
    let skip_ws = |mut i: usize| {
        while i < n && prefix[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    // The end (one past the closing quote) of the string starting at `i`.
    let string_end = |i: usize| {
        let mut j = i + 1;
        while j < n {
            match prefix[j] {
                b'\\' => j += 2,
                b'"' => return Some(j + 1),
                _ => j += 1,
            }
        }
        None
    };
    let (mut i, mut depth) = (0usize, 0usize);
    while i < n {
        match prefix[i] {
            b'"' => {
                let end = string_end(i)?;
                let key = &prefix[i..end];
                let colon = skip_ws(end);
                if depth == 1 && key == b"\"id\"" && colon < n && prefix[colon] == b':' {
                    let start = skip_ws(colon + 1);
                    let stop = if prefix.get(start) == Some(&b'"') {
                        string_end(start)
                    } else {
                        let mut j = start;
                        while j < n
                            && (prefix[j].is_ascii_digit()
                                || matches!(prefix[j], b'-' | b'+' | b'.' | b'e' | b'E'))
                        {
                            j += 1;
                        }
                        (j > start && j < n).then_some(j)
                    };
                    return stop.map(|s| (start, s));
                }
                i = end;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// What a lone surrogate escape becomes while the message is read again to find its id.
const LONE_SURROGATE_MARK: &str = "\u{fffd}memlane-lone-surrogate";

/// The answer to a line that is JSON but for lone UTF-16 surrogate escapes (`"\ud800"` without
/// its pair): such a string is no Unicode text, so the line cannot be read as it stands. It is
/// read again with each lone escape marked, to answer with the request's id: invalid params
/// (-32602) when the mark is in `params`, invalid request (-32600) otherwise, and the id `null`
/// only when the id itself holds one. `None` when the line has no lone surrogate (or is broken
/// in other ways too: then it is a parse error).
fn lone_surrogates(line: &[u8]) -> Option<Verdict> {
    let marked = mark_lone_surrogates(line)?;
    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(&marked) else { return None };
    let holds_mark = |v: &Value| v.to_string().contains(LONE_SURROGATE_MARK);
    let Some(id) = map.get("id") else {
        return Some(Verdict::Ignore("ignored a notification with a lone surrogate".into()));
    };
    let id = if holds_mark(id) || bad_id(id).is_some() { Value::Null } else { id.clone() };
    let (code, place) = if map.get("params").is_some_and(holds_mark) {
        (INVALID_PARAMS, "a string in `params`")
    } else {
        (INVALID_REQUEST, "a string of the message")
    };
    Some(Verdict::Reply(error(
        id,
        code,
        format!(
            "{place} holds a lone UTF-16 surrogate (a \\uD800–\\uDFFF escape without its pair), \
             which is not Unicode text; send the character itself or its full surrogate pair"
        ),
    )))
}

/// `line` with every lone surrogate escape inside a string replaced by
/// [`LONE_SURROGATE_MARK`]; `None` when it has none.
fn mark_lone_surrogates(line: &[u8]) -> Option<Vec<u8>> {
    let hex = |b: &[u8]| -> Option<u16> {
        let s = std::str::from_utf8(b.get(..4)?).ok()?;
        u16::from_str_radix(s, 16).ok()
    };
    // The code unit of a `\uXXXX` escape at `i`.
    let unit = |i: usize| -> Option<u16> {
        (line.get(i) == Some(&b'\\') && line.get(i + 1) == Some(&b'u'))
            .then(|| hex(line.get(i + 2..)?))
            .flatten()
    };
    let mut out = Vec::with_capacity(line.len());
    let (mut i, mut in_string, mut found) = (0, false, false);
    while i < line.len() {
        let b = line[i];
        if !in_string {
            in_string = b == b'"';
            out.push(b);
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                in_string = false;
                out.push(b);
                i += 1;
            }
            b'\\' => match unit(i) {
                Some(0xD800..=0xDBFF) if matches!(unit(i + 6), Some(0xDC00..=0xDFFF)) => {
                    out.extend_from_slice(&line[i..i + 12]);
                    i += 12;
                }
                Some(0xD800..=0xDFFF) => {
                    out.extend_from_slice(LONE_SURROGATE_MARK.as_bytes());
                    found = true;
                    i += 6;
                }
                _ => {
                    out.extend_from_slice(&line[i..(i + 2).min(line.len())]);
                    i += 2;
                }
            },
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    found.then_some(out)
}

/// One line as read: whole, or too long (only its first bytes kept).
enum Line {
    Whole(Vec<u8>),
    TooLong(Vec<u8>),
}

/// Reads one `\n`-terminated line without ever holding more than [`MAX_LINE_BYTES`] of it;
/// `None` at the end of input (a last line without a newline still counts).
async fn read_line<R: AsyncBufRead + Unpin>(r: &mut R) -> std::io::Result<Option<Line>> {
    let mut buf: Vec<u8> = Vec::new();
    let mut too_long = false;
    let mut any = false;
    loop {
        let available = r.fill_buf().await?;
        if available.is_empty() {
            let line = if too_long { Line::TooLong(buf) } else { Line::Whole(buf) };
            return Ok(any.then_some(line));
        }
        any = true;
        let newline = available.iter().position(|b| *b == b'\n');
        let take = newline.map_or(available.len(), |i| i + 1);
        let content = &available[..newline.unwrap_or(take)];
        // The line with its newline must fit in MAX_LINE_BYTES (rmcp's own limit).
        if !too_long && buf.len() + content.len() >= MAX_LINE_BYTES {
            too_long = true;
            buf.truncate(ID_PREFIX_BYTES);
        }
        let room = if too_long { ID_PREFIX_BYTES.saturating_sub(buf.len()) } else { usize::MAX };
        buf.extend_from_slice(&content[..content.len().min(room)]);
        r.consume(take);
        if newline.is_some() {
            return Ok(Some(if too_long { Line::TooLong(buf) } else { Line::Whole(buf) }));
        }
    }
}

/// Writes one reply as a line, whole, under the stdout lock.
async fn write_line<W: AsyncWrite + Unpin>(out: &Mutex<W>, mut bytes: Vec<u8>) {
    bytes.push(b'\n');
    let mut w = out.lock().await;
    if let Err(e) = async {
        w.write_all(&bytes).await?;
        w.flush().await
    }
    .await
    {
        tracing::warn!("cannot write to stdout: {e}");
    }
}

/// Reads the client's lines from `input`, answers the bad ones on `out`, and writes the good
/// ones to `to_rmcp` (closed at the end of input, which ends the server).
pub(crate) async fn filter_input<R, W, F>(input: R, to_rmcp: F, out: Arc<Mutex<W>>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
    F: AsyncWrite + Unpin,
{
    let mut input = BufReader::with_capacity(64 * 1024, input);
    let mut to_rmcp = to_rmcp;
    loop {
        let line = match read_line(&mut input).await {
            Ok(Some(l)) => l,
            Ok(None) => break,
            Err(e) => {
                tracing::error!("cannot read stdin: {e}");
                break;
            }
        };
        let verdict = match &line {
            Line::Whole(l) => check_line(l.strip_suffix(b"\r").unwrap_or(l)),
            Line::TooLong(prefix) => Verdict::Reply(error(
                id_from_prefix(prefix),
                INVALID_REQUEST,
                format!(
                    "the message is longer than {} MiB; it was discarded",
                    MAX_LINE_BYTES / (1024 * 1024)
                ),
            )),
        };
        match verdict {
            Verdict::Forward => {
                let Line::Whole(mut l) = line else { continue };
                l.push(b'\n');
                if let Err(e) = to_rmcp.write_all(&l).await {
                    tracing::error!("cannot hand a message to the MCP server: {e}");
                    break;
                }
            }
            Verdict::Reply(v) => {
                tracing::warn!("answered a malformed message with an error");
                write_line(&out, v.to_string().into_bytes()).await;
            }
            Verdict::ReplyText(text) => {
                tracing::warn!("answered a malformed message with an error");
                write_line(&out, text.into_bytes()).await;
            }
            Verdict::Ignore(why) => tracing::debug!("{why}"),
        }
    }
    let _ = to_rmcp.shutdown().await;
}

/// Copies rmcp's output to `out`, one whole line at a time.
pub(crate) async fn copy_output<R, W>(from_rmcp: R, out: Arc<Mutex<W>>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut from = BufReader::with_capacity(64 * 1024, from_rmcp);
    loop {
        let mut line = Vec::new();
        match from.read_until(b'\n', &mut line).await {
            Ok(0) => break,
            Ok(_) => {
                if line.last() == Some(&b'\n') {
                    line.pop();
                }
                write_line(&out, line).await;
            }
            Err(e) => {
                tracing::error!("cannot read the MCP server's output: {e}");
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(line: &str) -> Value {
        match check_line(line.as_bytes()) {
            Verdict::Reply(v) => v,
            Verdict::ReplyText(t) => serde_json::from_str(&t).unwrap(),
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn good_messages_are_forwarded() {
        for l in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
        ] {
            assert_eq!(check_line(l.as_bytes()), Verdict::Forward, "{l}");
        }
    }

    #[test]
    fn bad_requests_get_an_error_with_their_id() {
        let r = reply(r#"{"jsonrpc":"1.0","id":7,"method":"tools/list"}"#);
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (Value::from(7), Value::from(-32600))
        );
        let r = reply(r#"{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}"#);
        assert_eq!(r["id"], Value::Null);
        let r = reply(r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"tools/list"}"#);
        assert_eq!(r["id"], Value::from(18446744073709551615u64));
        let r = reply(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":[1,2]}"#);
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (Value::from(4), Value::from(-32602))
        );
        let r = reply(
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
        );
        assert_eq!(r.as_array().map(Vec::len), Some(2));
        assert_eq!(r[1]["id"], Value::from(2));
        assert_eq!(reply("not json")["error"]["code"], Value::from(-32700));
    }

    #[test]
    fn ids_are_echoed_as_written_and_lone_surrogates_answered() {
        let line = r#"{"jsonrpc":"2.0","id":184467440737095516160,"method":"tools/list"}"#;
        let Verdict::ReplyText(t) = check_line(line.as_bytes()) else { panic!("{line}") };
        assert!(t.contains(r#""id":184467440737095516160,"#), "{t}");
        let r = reply(
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x","arguments":{"q":"\ud800"}}}"#,
        );
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (Value::from(9), Value::from(-32602))
        );
        let r = reply(r#"{"jsonrpc":"2.0","id":"\udc00","method":"ping"}"#);
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (Value::Null, Value::from(-32600))
        );
        // A proper pair is fine, and so is an escaped backslash before a `u`.
        let ok = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"q":"\ud83d\ude00 \\ud800"}}}"#;
        assert_eq!(check_line(ok.as_bytes()), Verdict::Forward);
        let r = reply(
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x","arguments":"{}"}}"#,
        );
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (Value::from(5), Value::from(-32602))
        );
        let long = format!(r#"{{"jsonrpc":"2.0","id":6,"method":"{}"}}"#, "m".repeat(100_000));
        let r = reply(&long);
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (Value::from(6), Value::from(-32601))
        );
        assert!(r.to_string().len() < 400, "{r}");
    }

    #[test]
    fn the_id_of_a_long_line_is_read_from_its_start() {
        assert_eq!(
            id_from_prefix(br#"{"jsonrpc":"2.0","id":42,"method":"x","params":{"#),
            Value::from(42)
        );
        assert_eq!(id_from_prefix(br#"{"params":{"id":1},"id":"k","#), Value::from("k"));
        assert_eq!(
            id_from_prefix(br#"{"jsonrpc":"2.0","method":"x","params":{"q":"aaaa"#),
            Value::Null
        );
    }
}
