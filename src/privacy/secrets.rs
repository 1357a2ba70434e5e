//! The secret scrubber: the kinds, their rules and [`scrub_secrets`].

use std::borrow::Cow;

use super::*;

/// Every kind the scrubber knows, sorted. Each has at least one rule in [`RULES`].
pub(super) const KINDS: &[&str] = &[
    "anthropic-key",
    "aws-access-key",
    "aws-secret-key",
    "azure-storage-key",
    "basic-auth",
    "bearer-token",
    "connection-string",
    "digitalocean-token",
    "gcp-private-key-id",
    "github-token",
    "gitlab-token",
    "google-api-key",
    "huggingface-token",
    "jwt",
    "npm-token",
    "openai-key",
    "password-assignment",
    "password-flag",
    "password-prose",
    "private-key",
    "pypi-token",
    "sendgrid-key",
    "slack-token",
    "slack-webhook",
    "stripe-key",
    "twilio-key",
];

/// Every secret kind the scrubber knows, sorted, for docs and `memlane doctor`.
#[must_use]
pub fn secret_kinds() -> &'static [&'static str] {
    KINDS
}

/// One pattern for one kind of secret.
///
/// The part replaced is the first capture group that took part in the match, or the whole match
/// when the pattern has no groups; patterns put everything they keep (keys, separators, a
/// trailing boundary character) outside capture groups. `accept` sees that part and can veto
/// the replacement (placeholders, prose); `around`, when set, sees the whole text and the part's
/// byte range and can veto it by what surrounds it.
pub(super) struct Rule {
    pub(super) kind: &'static str,
    pub(super) regex: Regex,
    pub(super) accept: fn(&str) -> bool,
    pub(super) around: Option<fn(&str, usize, usize) -> bool>,
}

impl Rule {
    pub(super) fn new(kind: &'static str, pattern: &str, accept: fn(&str) -> bool) -> Self {
        let regex = Regex::new(pattern).unwrap_or_else(|e| panic!("bad {kind} pattern: {e}"));
        Rule { kind, regex, accept, around: None }
    }

    /// A token-shaped rule: the token must not be glued to an ASCII letter or digit on either
    /// side (`disk-…` is not an `sk-…` key), but `_`, `-` and punctuation may touch it, so
    /// `key_ghp_…` and `foo_sk-…` are caught. A regex `\b` cannot say this: `_` is a word
    /// character.
    ///
    /// The character before is part of the regex (a non-capturing `\A` or non-alphanumeric), so
    /// the search itself finds the first unglued start: checking it afterwards would let a
    /// rejected match hide a real token that overlaps it (`aeyJ_eyJ….eyJ….sig`). The character
    /// after is checked by `around`; `pattern` must have no capture groups.
    pub(super) fn token(kind: &'static str, pattern: &str, accept: fn(&str) -> bool) -> Self {
        let bounded = format!(r"(?:\A|[^A-Za-z0-9])({pattern})");
        Rule { around: Some(not_glued_after), ..Rule::new(kind, &bounded, accept) }
    }

    pub(super) fn with_around(self, around: fn(&str, usize, usize) -> bool) -> Self {
        Rule { around: Some(around), ..self }
    }

    /// Replace every accepted match, returning the new text and the count (`None` if none).
    pub(super) fn apply(&self, text: &str) -> Option<(String, usize)> {
        let mut out = String::new();
        let mut last = 0;
        let mut count = 0;
        // Without capture groups the cheaper `find_iter` gives the same answer.
        let targets: Box<dyn Iterator<Item = regex::Match<'_>> + '_> =
            if self.regex.captures_len() == 1 {
                Box::new(self.regex.find_iter(text))
            } else {
                Box::new(self.regex.captures_iter(text).filter_map(|caps| {
                    let whole = caps.get(0)?;
                    Some(caps.iter().skip(1).flatten().next().unwrap_or(whole))
                }))
            };
        for target in targets {
            if !(self.accept)(target.as_str())
                || self.around.is_some_and(|f| !f(text, target.start(), target.end()))
            {
                continue;
            }
            out.push_str(&text[last..target.start()]);
            out.push_str("«redacted:");
            out.push_str(self.kind);
            out.push('»');
            last = target.end();
            count += 1;
        }
        if count == 0 {
            return None;
        }
        out.push_str(&text[last..]);
        Some((out, count))
    }
}

/// The characters just before and just after `text[start..end]`.
pub(super) fn neighbours(text: &str, start: usize, end: usize) -> (Option<char>, Option<char>) {
    (text[..start].chars().next_back(), text[end..].chars().next())
}

/// The next character is not an ASCII letter or digit.
pub(super) fn not_glued_after(text: &str, _start: usize, end: usize) -> bool {
    !text[end..].chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
}

/// The next character cannot continue a base64url key (`AIza…`, `SG.…`).
pub(super) fn key_ends(text: &str, _start: usize, end: usize) -> bool {
    !text[end..].chars().next().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

pub(super) fn always(_: &str) -> bool {
    true
}

/// Whether a value is obviously not a real secret: empty, a variable or template reference, an
/// angle-bracket hint, a mask such as `****`, an earlier marker, or a well-known stand-in word.
pub(super) fn is_placeholder(value: &str) -> bool {
    const PREFIXES: &[&str] = &["$", "%", "{", "<", "«", "[", "!"];
    const WORDS: &[&str] = &[
        "null",
        "none",
        "nil",
        "true",
        "false",
        "undefined",
        "redacted",
        "required",
        "optional",
        "string",
        "str",
        "value",
        "hidden",
        "masked",
        "placeholder",
    ];
    let v = value.trim();
    v.is_empty()
        || PREFIXES.iter().any(|p| v.starts_with(p))
        || v.chars().all(|c| matches!(c, '*' | 'x' | 'X' | '.' | '•' | '…' | '-' | '_' | '#' | '?'))
        || WORDS.iter().any(|w| v.eq_ignore_ascii_case(w))
        || v.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("your"))
}

pub(super) fn not_placeholder(value: &str) -> bool {
    !is_placeholder(value)
}

/// Values of `key = value` assignments: also skip file paths, function calls and dotted code
/// references (`os.getenv(`, `settings.db.password`), which name a secret without holding it.
pub(super) fn assignment_value(value: &str) -> bool {
    let v = value.trim();
    let path = ["/", "~/", "./", "../"].iter().any(|p| v.starts_with(p));
    let call = v.contains('(');
    let dotted_ident = v.contains('.')
        && v.split('.').all(|part| {
            part.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
    !is_placeholder(v) && !path && !call && !dotted_ident
}

/// Random-looking: at least one digit and both letter cases. Real keys of 20+ random base62
/// characters almost always are; slugs and prose almost never.
pub(super) fn mixed_chars(value: &str) -> bool {
    value.bytes().any(|b| b.is_ascii_digit())
        && value.bytes().any(|b| b.is_ascii_uppercase())
        && value.bytes().any(|b| b.is_ascii_lowercase())
}

/// Bearer tokens: not a placeholder, and random-looking (a digit, or both letter cases).
pub(super) fn bearer_value(value: &str) -> bool {
    let digit = value.bytes().any(|b| b.is_ascii_digit());
    let mixed = value.bytes().any(|b| b.is_ascii_uppercase())
        && value.bytes().any(|b| b.is_ascii_lowercase());
    not_placeholder(value) && (digit || mixed)
}

/// A value named in prose (`the password is hunter2`, `password: Tr0ub4dor`): besides not being a
/// placeholder or a code reference, it must look like a password rather than an English word:
/// at least 6 characters with a digit, a symbol, or a capital after the first letter. So
/// "password: must be 8 characters" and "the password is required" stay.
pub(super) fn prose_value(value: &str) -> bool {
    let v = value.trim();
    let strong = v.bytes().any(|b| b.is_ascii_digit())
        || v.bytes().any(|b| !b.is_ascii_alphanumeric())
        || v.bytes().skip(1).any(|b| b.is_ascii_uppercase());
    assignment_value(v) && v.chars().count() >= 6 && strong && !v.eq_ignore_ascii_case("1password")
}

/// The base64 of `user:password` after `Authorization: Basic`: random-looking (a digit, or both
/// letter cases) and long enough to hold a credential, not a word such as `realm`.
pub(super) fn basic_value(value: &str) -> bool {
    value.len() >= 8 && bearer_value(value)
}

/// `Basic base64(user:pass)` is documentation, not a credential.
pub(super) fn not_a_call(text: &str, _start: usize, end: usize) -> bool {
    !text[end..].starts_with('(')
}

/// A URL password with a `/` in it (`postgres://app:pa/ss@db`): not when the part before the
/// first `/` is a port (`http://localhost:8080/a@b` is a path with an `@`).
pub(super) fn slash_password(value: &str) -> bool {
    let head = value.split('/').next().unwrap_or_default();
    !head.is_empty() && !head.bytes().all(|b| b.is_ascii_digit()) && not_placeholder(value)
}

/// A bare AWS secret access key: exactly 40 base64 characters (the run is maximal), random-looking
/// (8+ capitals, 8+ small letters, a digit, and a `/` or `+` or 3+ digits), not a path (no `/` at
/// either end). Git hashes (hex, one case), longer base64 blobs, identifiers and paths stay; a
/// real key escapes only when it happens to hold none of `/+` and fewer than 3 digits (about 1
/// in 30).
pub(super) fn bare_aws_secret(value: &str) -> bool {
    let count = |f: fn(&u8) -> bool| value.bytes().filter(f).count();
    let (upper, lower, digit) =
        (count(u8::is_ascii_uppercase), count(u8::is_ascii_lowercase), count(u8::is_ascii_digit));
    value.len() == 40
        && upper >= 8
        && lower >= 8
        && digit >= 1
        && (value.contains(['/', '+']) || digit >= 3)
        && !value.starts_with('/')
        && !value.ends_with('/')
        && !value.contains("//")
}

/// Around a bare AWS secret: not the tail of an identifier (`x_…`, `x-…`, `x.…`, `%…`) and not
/// the start of a longer value (`…=` padding, `…_x`, `…-x`, `….x`).
pub(super) fn bare_aws_around(text: &str, start: usize, end: usize) -> bool {
    let (before, after) = neighbours(text, start, end);
    let glue = |c: char| matches!(c, '_' | '-' | '.' | '%' | '\\' | '$' | '&');
    let dotted = text[end..].strip_prefix('.').and_then(|r| r.chars().next());
    !before.is_some_and(glue)
        && !after.is_some_and(|c| matches!(c, '=' | '_' | '-'))
        && !dotted.is_some_and(|c| c.is_ascii_alphanumeric())
        && !ends_a_pem_body(text, start)
}

/// Whether the line starting at `start` follows a full 64-character base64 line: the short last
/// line of a certificate or public key, not a secret on its own.
pub(super) fn ends_a_pem_body(text: &str, start: usize) -> bool {
    let Some(line_start) = text[..start].rfind('\n') else { return false };
    if !text[line_start + 1..start].trim().is_empty() {
        return false;
    }
    let before = text[..line_start].trim_end_matches('\r');
    let prev = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
    prev.len() == 64 && prev.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

/// Key names whose value is a credential. The key must end with one of these words (so
/// `password_hint` does not count); `pass` only as a whole segment (`DB_PASS`, not `bypass`).
/// `pwd` is left out on purpose: `PWD=/home/…` is in every environment dump.
pub(super) const SECRET_KEY: &str = r"(?:[A-Za-z0-9_.-]*?(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|auth[_-]?key)|(?:[A-Za-z0-9_.-]*[_.-])?pass)";

/// A quoted value (double quotes with escapes, single quotes) or a bare one. Bare values stop at
/// whitespace, quotes and the list separators `,;&`, and cannot start with `=` (that is `==`).
pub(super) const ASSIGNED_VALUE: &str =
    r#"(?:"((?:[^"\\\r\n]|\\.)*)"|'([^'\r\n]*)'|([^\s"'`=,;&][^\s"'`,;&]*))"#;

/// A value in prose or after a flag: quoted (its inside is replaced) or bare. Bare values stop at
/// whitespace and quotes, and a trailing sentence mark (`.,;:!?)]`) is not part of them.
pub(super) const PROSE_VALUE: &str =
    r#"(?:"([^"\r\n]+)"|'([^'\r\n]+)'|`([^`\r\n]+)`|([^\s"'`<>]*[^\s"'`<>.,;:!?)\]]))"#;

/// A value after a command-line flag: quoted, or bare (not starting with `-`, which is the next
/// flag or standard input).
pub(super) const FLAG_VALUE: &str = r#"(?:"([^"\r\n]*)"|'([^'\r\n]*)'|([^\s"'`\-][^\s"'`]*))"#;

/// All rules, in the order they run. Specific shapes run before generic ones so that a token
/// assigned to a key is reported as what it is (`token=ghp_…` is a `github-token`); later rules
/// skip values that are already markers.
pub(super) static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    let kv_eq = format!(r"(?i)\b{SECRET_KEY}[\x22']?[ \t]*(?:=>|:=|=)[ \t]*{ASSIGNED_VALUE}");
    let kv_json = format!(
        r#"(?i)\\?["']{SECRET_KEY}\\?["'][ \t]*:[ \t]*(?:"((?:[^"\\\r\n]|\\.)*)"|'([^'\r\n]*)'|\\"((?:[^"\\\r\n]|\\[^"\r\n])*)\\")"#
    );
    let kv_yaml = format!(
        r#"(?imR)^[ \t]*(?:-[ \t]+)?["']?{SECRET_KEY}["']?[ \t]*:[ \t]*(?:"((?:[^"\\\r\n]|\\.)*)"|'([^'\r\n]*)'|([^\s"'#|>][^\s]*))[ \t]*(?:#[^\r\n]*)?$"#
    );
    // `--password X`, `--db-token X`: the flag must end with the secret word (`--password-stdin`,
    // `--token-file PATH` and `--max-tokens N` are not secrets).
    let flag = format!(
        r#"(?i)(?:\A|[\s"'(=])--(?:[a-z0-9]+-)*(?:password|passwd|passphrase|token|api-?key|access-key|secret-key|client-secret|auth-token)[ \t]+{FLAG_VALUE}"#
    );
    // `mysql -uroot -phunter2`: the password glued to `-p`, only after a MySQL/MariaDB client on
    // the same line (elsewhere `-p` is a port, a path flag, `-pthread` …).
    let mysql_p = r#"\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlpump|mysqlsh|mariadb|mariadb-dump|mariadb-admin)\b[^\r\n]*?[ \t]-p(?:"([^"\r\n]+)"|'([^'\r\n]+)'|([^\s"'`\-][^\s"'`]*))"#;
    // `docker login -u me -p X`: `-p` is the password only for a registry login.
    let docker_p = format!(
        r"(?i)\b(?:docker|podman|nerdctl|buildah)[ \t]+login\b[^\r\n]*?[ \t]-p(?:[ \t]+|=){FLAG_VALUE}"
    );
    // `the root password is hunter2`, `DB password for staging: Tr0ub4dor`.
    let prose = format!(
        r"(?i)\b(?:password|passwd|passphrase)(?:[ \t]+[a-z]+){{0,3}}?(?:[ \t]*:|[ \t]+(?:is|was)(?:[ \t]+(?:now|still|set[ \t]+to))?)[ \t]+{PROSE_VALUE}"
    );
    vec![
        // Whole PEM/OpenSSH/PGP private key blocks; a missing END redacts to the end of the text.
        Rule::new(
            "private-key",
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
            always,
        ),
        // PuTTY `.ppk` files: from the header to the `Private-MAC`/`Private-Hash` line (or the end).
        Rule::new(
            "private-key",
            r"PuTTY-User-Key-File-[0-9]+:[ \t]*[A-Za-z0-9@.-]+(?s:.*?)(?:Private-(?:MAC|Hash):[^\r\n]*|\z)",
            always,
        ),
        Rule::new(
            "slack-webhook",
            r"https://hooks\.slack\.com/(?:services|workflows|triggers)/T[A-Za-z0-9]+/[A-Za-z0-9]+/[A-Za-z0-9/]{8,}",
            always,
        ),
        // `scheme://user:password@host`: only the password. The password runs to the last `@`
        // before the path, as URL parsers read it.
        Rule::new(
            "connection-string",
            r#"(?i)\b[a-z][a-z0-9+.-]*://[^\s:/?#@"'<>]*:([^\s/?#"'<>]+)@"#,
            not_placeholder,
        ),
        // The same with a raw `/` in the password (`app:pa/ss@db`), which URL parsers would read
        // as a path but people write anyway.
        Rule::new(
            "connection-string",
            r#"(?i)\b[a-z][a-z0-9+.-]*://[^\s:/?#@"'<>]*:([^\s/?#"'<>@]*/[^\s?#"'<>@]*)@[A-Za-z0-9\[]"#,
            slash_password,
        ),
        Rule::token("anthropic-key", r"sk-ant-[a-z]{2,8}[0-9]{2}-[A-Za-z0-9_-]{32,}", always),
        Rule::token("openai-key", r"sk-(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]{32,}", mixed_chars),
        Rule::token("aws-access-key", r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}", always),
        Rule::new(
            "aws-secret-key",
            r"(?i)\b(?:aws_?secret_?(?:access_?)?key|secret_?access_?key)[\x22']?[ \t]*(?:=>|:=|=|:)[ \t]*[\x22']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|\z)",
            always,
        ),
        Rule::token(
            "github-token",
            r"(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{50,})",
            always,
        ),
        Rule::token("gitlab-token", r"gl(?:pat|dt|rt|ptt|soat)-[A-Za-z0-9_-]{20,}", always),
        Rule::token(
            "slack-token",
            r"(?:xox[abposr]|xapp)-(?:[0-9]+-)+[0-9A-Za-z]{8,}(?:-[0-9A-Za-z]+)*",
            always,
        ),
        Rule::token(
            "stripe-key",
            r"(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})",
            always,
        ),
        Rule::token("google-api-key", r"AIza[0-9A-Za-z_-]{35}", always).with_around(key_ends),
        Rule::token("npm-token", r"npm_[A-Za-z0-9]{36}", always),
        Rule::token("pypi-token", r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}", always),
        Rule::token("huggingface-token", r"hf_[A-Za-z0-9]{34,}", always),
        Rule::token("sendgrid-key", r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}", always)
            .with_around(key_ends),
        Rule::token("twilio-key", r"SK[0-9a-f]{32}", always),
        Rule::token("digitalocean-token", r"do[por]_v1_[a-f0-9]{64}", always),
        Rule::new(
            "azure-storage-key",
            r"(?i)\b(?:AccountKey|SharedAccessKey)[ \t]*=[ \t]*([A-Za-z0-9+/]{40,}={0,2})",
            always,
        ),
        // Signed, or unsigned (`alg: none`): the third part is empty and the token ends in `.`.
        Rule::token(
            "jwt",
            r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.(?:[A-Za-z0-9_-]{8,})?",
            always,
        ),
        Rule::new(
            "basic-auth",
            r#"(?i)\b(?:proxy-)?authorization\\?["']?[ \t]*[:=][ \t]*\\?["']?basic[ \t]+([A-Za-z0-9+/_-]+={0,2})"#,
            basic_value,
        )
        .with_around(not_a_call),
        Rule::new("bearer-token", r"(?i)\bbearer[ \t]+([A-Za-z0-9._~+/-]{20,}=*)", bearer_value),
        // A GCP service-account key file's `private_key_id` (its `private_key` is a PEM block).
        Rule::new(
            "gcp-private-key-id",
            r#"(?i)\bprivate_key_id\\?["']?[ \t]*[:=][ \t]*\\?["']?([A-Za-z0-9]{16,})"#,
            always,
        ),
        Rule::new("password-assignment", &kv_json, assignment_value),
        Rule::new("password-assignment", &kv_yaml, assignment_value),
        Rule::new("password-assignment", &kv_eq, assignment_value),
        Rule::new("password-flag", &flag, assignment_value),
        Rule::new("password-flag", mysql_p, not_placeholder),
        Rule::new("password-flag", &docker_p, assignment_value),
        Rule::new("password-prose", &prose, prose_value),
        // Last: a bare 40-character AWS secret key with no label, once every other shape is gone.
        Rule::new("aws-secret-key", r"[A-Za-z0-9/+]{40,}", bare_aws_secret).with_around(bare_aws_around),
    ]
});

/// At most 14 ASCII letters, digits, `-`, `_`, `.` and `/`: no rule can match such a word. Every
/// shape needs a character outside that set (`=`, `:`, a space, `<`, a quote) or is longer (the
/// shortest token, a Slack `xoxb-1-` plus 8, is 15); `plain_words_match_no_rule` checks it.
pub(super) fn is_plain_word(s: &str) -> bool {
    s.len() <= 14
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/'))
}

/// Every rule's pattern in one set: whether any rule can match at all.
pub(super) static ANY_RULE: LazyLock<regex::RegexSet> = LazyLock::new(|| {
    regex::RegexSet::new(RULES.iter().map(|r| r.regex.as_str())).expect("the rules compile")
});

/// Replace well-known credential shapes with `«redacted:<kind>»`.
///
/// Returns the new text and one [`SecretFinding`] per kind found, sorted by kind. When nothing
/// matched, the text is the input unchanged and the list is empty.
#[must_use]
pub fn scrub_secrets(input: &str) -> (String, Vec<SecretFinding>) {
    // Metadata is scrubbed too (every tag of every memory read), so the common cases are cheap:
    // a short plain word cannot hold any shape, and one pass of all patterns at once answers
    // "nothing to find" without running each rule.
    if is_plain_word(input) || !ANY_RULE.is_match(input) {
        return (input.to_owned(), Vec::new());
    }
    let mut text = Cow::Borrowed(input);
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    // A replacement can change what another rule sees next to it (a neighbour that kept a token
    // from matching is now a marker), so passes repeat until nothing changes: scrubbing the
    // result again then finds nothing. Each pass only turns text into markers, which no rule
    // matches, so this ends; the bound is a guard.
    for _ in 0..4 {
        let mut changed = false;
        for rule in RULES.iter() {
            if let Some((next, count)) = rule.apply(&text) {
                text = Cow::Owned(next);
                *counts.entry(rule.kind).or_default() += count;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let findings = counts.into_iter().map(|(kind, count)| SecretFinding { kind, count }).collect();
    (text.into_owned(), findings)
}
