//! Unit tests of redaction: the `<private>` cases and `sanitize` here, the secret scrubber and
//! the properties in the submodules.

mod properties;
mod secrets;

use std::time::{Duration, Instant};

use super::*;

// Fake credentials with the right shapes. None of them is real.
const GITHUB: &str = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d";
const GITHUB_PAT: &str =
    "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";
const GITLAB: &str = "glpat-Y40uvSwMFLZDe1f8rESQ";
const STRIPE: &str = "sk_live_edUStPKR0CsTy4Qwb8DwkNhF";
const STRIPE_WEBHOOK: &str = "whsec_dnXsiVpzz63FfkCzJr4i0B3JrTAwR4y9";
const OPENAI: &str = "sk-proj-ojfljoQoaF1LlqsajAIxNKu8iS2G8NPRVdD53X83RZJzzzzg";
const OPENAI_LEGACY: &str = "sk-EOzdmenCkhvMdgaKjIg8xNbe3nNyjOq9wMxEhh2FDEEtfjgV";
const ANTHROPIC: &str = "sk-ant-api03-RH9ucAUsdMlHUvTCQCyEZDz_TddJ8HyS5SUkCnD8zRA9a9SkpXz9w3QlY7Zkuvqdt7s8Stqcbnr3yBdGBLEPH1qhT61qtAA";
const GOOGLE: &str = "AIzac4xatws8phP9nhFyJfm5di4PzJ59FHz5r1p";
const NPM: &str = "npm_zCueQpBenQtYh5Xj8TPQxjq4i9DoV8gz4FkQ";
const PYPI: &str =
    "pypi-AgEIcHlwaS5vcmcCu3ZR1zTOlUcR64cXQLioDnkHIfxIq2HZt_PlJhx2jIclHkCiHp6bR1IqfEo";
const HUGGINGFACE: &str = "hf_kqdlm7tOtHWnsCGRlrwZbqcabUGJmGEp7C";
const SENDGRID: &str = "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";
const TWILIO: &str = "SKaf4941d4072014b3ce107f80e222f828";
const DIGITALOCEAN: &str =
    "dop_v1_767efc2f91624a8940f1f836f99eee3692f09e2e8c662248b483b7ffc050fec9";
const SLACK: &str = "xoxb-265651505561-3044516691564-2drgd1QsO7jprBGumXxY9B4b";
const SLACK_WEBHOOK: &str =
    "https://hooks.slack.com/services/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";
const AZURE_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
const JWT: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
const AWS_ACCESS: &str = "AKIAIOSFODNN7EXAMPLE";
const AWS_SECRET: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const GIT_SHA: &str = "f7eaed46725a2a7b860dcd6c8a1f8b46287cced9";
const UUID: &str = "123e4567-e89b-12d3-a456-426614174000";
const PNG_PREFIX: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

// -- helpers ----------------------------------------------------------------------------

/// Scrub `input` and check the exact output and that exactly `count` secrets of `kind`
/// (and nothing else) were found.
#[track_caller]
fn assert_scrubbed(input: &str, expected: &str, kind: &str, count: usize) {
    let (text, findings) = scrub_secrets(input);
    assert_eq!(text, expected, "input: {input:?}");
    let found: Vec<(&str, usize)> = findings.iter().map(|f| (f.kind, f.count)).collect();
    assert_eq!(found, vec![(kind, count)], "input: {input:?}");
    // Markers are never scrubbed again: sanitizing twice is the same as once.
    assert_eq!(scrub_secrets(&text), (text.clone(), vec![]), "rescrub of {text:?}");
}

#[track_caller]
fn assert_caught(input: &str, expected: &str, kind: &str) {
    assert_scrubbed(input, expected, kind, 1);
}

/// Scrubbing leaves `input` exactly as it was and reports nothing.
#[track_caller]
fn assert_kept(input: &str) {
    let (text, findings) = scrub_secrets(input);
    assert_eq!(text, input, "should be unchanged");
    assert!(findings.is_empty(), "no findings expected for {input:?}, got {findings:?}");
}

// -- <private> acceptance cases -----------------------------

#[track_caller]
fn check_case(case: u32, input: &str, output: &str, had_private_content: bool) {
    let (text, blocks) = redact_private(input);
    assert_eq!(text, output, "case {case}: redact_private({input:?})");
    assert_eq!(blocks > 0, had_private_content, "case {case}: block count {blocks}");
    for scrub in [false, true] {
        let s = sanitize(input, scrub);
        assert_eq!(s.text, output, "case {case}: sanitize(scrub={scrub})");
        assert_eq!(
            s.had_private_content, had_private_content,
            "case {case}: had_private_content (scrub={scrub})"
        );
        assert_eq!(s.private_blocks, blocks, "case {case}: private_blocks");
        assert!(s.secrets.is_empty(), "case {case}: no secrets outside blocks");
    }
}

#[test]
fn case_01_simple_block() {
    check_case(1, "foo <private>sk-123</private> bar", "foo [redacted] bar", true);
}

#[test]
fn case_02_multi_line_block() {
    check_case(
        2,
        "before\n<private>\n  multi\n  line\n  secret\n</private>\nafter",
        "before\n[redacted]\nafter",
        true,
    );
}

#[test]
fn case_03_two_blocks() {
    check_case(
        3,
        "a <private>1</private> b <private>2</private> c",
        "a [redacted] b [redacted] c",
        true,
    );
    assert_eq!(redact_private("a <private>1</private> b <private>2</private> c").1, 2);
}

#[test]
fn case_04_nested_blocks_collapse() {
    check_case(
        4,
        "keep <private>outer <private>inner</private> tail</private> done",
        "keep [redacted] done",
        true,
    );
    assert_eq!(redact_private("keep <private>a <private>b</private> c</private> d").1, 1);
}

#[test]
fn case_05_unclosed_is_literal() {
    let input = "use <private> data and more text";
    check_case(5, input, input, false);
}

#[test]
fn case_06_unbalanced_redacts_to_end() {
    check_case(
        6,
        "head <private>unterminated text <private>nope</private>",
        "head [redacted]",
        true,
    );
}

#[test]
fn case_07_case_insensitive() {
    check_case(7, "x <PRIVATE>secret</Private> y", "x [redacted] y", true);
}

#[test]
fn case_08_attributes() {
    check_case(8, "k <private data-owner=\"josh\">secret</private> v", "k [redacted] v", true);
}

#[test]
fn case_09_empty() {
    check_case(9, "", "", false);
}

#[test]
fn case_10_no_tags() {
    let input = "no tags here just text";
    check_case(10, input, input, false);
}

#[test]
fn case_11_trailing_unclosed_is_literal() {
    check_case(11, "a <private>x</private> b <private> c", "a [redacted] b <private> c", true);
}

#[test]
fn case_12_closing_tag_without_bracket() {
    let input = "x <private>y</private";
    check_case(12, input, input, false);
}

#[test]
fn case_13_unbalanced_whole_text() {
    check_case(13, "<private><private>a</private>", "[redacted]", true);
}

#[test]
fn case_14_stray_closing_tag() {
    let input = "</private> a";
    check_case(14, input, input, false);
}

#[test]
fn case_15_longer_tag_name() {
    let input = "<privateer>x</privateer>";
    check_case(15, input, input, false);
}

#[test]
fn case_16_space_before_closing_bracket() {
    check_case(16, "x <private>y</private > z", "x [redacted] z", true);
}

// -- <private> beyond the table -----------------------------------------------------------

#[test]
fn mnestra_seed_privacy_examples() {
    // The examples of the original design write-ups.
    assert_eq!(
        redact_private("<private>outer <private>inner</private> tail</private>").0,
        "[redacted]"
    );
    assert_eq!(
        redact_private("<PRIVATE>a</PRIVATE> <Private>b</Private>").0,
        "[redacted] [redacted]"
    );
    assert_eq!(redact_private("use <private> data …").0, "use <private> data …");
}

#[test]
fn text_between_blocks_is_kept_byte_for_byte() {
    let input = "é🙂 \r\n\t<private>x</private>  \u{0}\u{feff} <private>y</private>\r\n";
    let (text, blocks) = redact_private(input);
    assert_eq!(text, "é🙂 \r\n\t[redacted]  \u{0}\u{feff} [redacted]\r\n");
    assert_eq!(blocks, 2);
}

#[test]
fn word_boundary_is_unicode_aware() {
    for input in ["<privateé>x</private>", "<private_x>x</private>", "<private2>x</private>"] {
        assert_eq!(redact_private(input), (input.to_owned(), 0), "{input}");
    }
    // Any non-word character ends the name: a hyphen, a newline, a slash.
    assert_eq!(redact_private("<private-x>a</private>").0, "[redacted]");
    assert_eq!(redact_private("<private\nnote=1>a</private>").0, "[redacted]");
    assert_eq!(redact_private("<private/>a</private>").0, "[redacted]");
}

#[test]
fn closing_tag_allows_only_whitespace_before_bracket() {
    assert_eq!(redact_private("<private>a</private\t\n >").0, "[redacted]");
    let input = "<private>a</private x>";
    assert_eq!(redact_private(input), (input.to_owned(), 0));
    let input = "<private>a</ private>";
    assert_eq!(redact_private(input), (input.to_owned(), 0));
}

#[test]
fn opening_tag_ends_at_first_bracket() {
    // The opening tag swallows up to the first `>`, as `[^>]*` does.
    assert_eq!(redact_private("a <private x=\"1>2\">s</private> b").0, "a [redacted] b");
    // A `<private` with no `>` after it is not a tag at all.
    let input = "a <private and </private but nothing closes";
    assert_eq!(redact_private(input), (input.to_owned(), 0));
}

#[test]
fn stray_closing_tags_around_blocks_are_literal() {
    assert_eq!(
        redact_private("</private> <private>a</private> </private>").0,
        "</private> [redacted] </private>"
    );
}

#[test]
fn block_then_unbalanced_block() {
    assert_eq!(
        redact_private("a <private>1</private> b <private>2 <private>3</private> c").0,
        "a [redacted] b [redacted]"
    );
}

// -- sanitize / Sanitized ----------------------------------------------------------------

/// Found by `fuzz_redaction_removes_planted_secrets_and_is_idempotent`: the
/// second `<private` reads up to the `</private>`'s `>` as its own opening tag, so nothing
/// closed and the text was kept, until scrubbing the key left a block that `show` hides.
#[test]
fn a_block_that_closes_only_after_scrubbing_is_redacted() {
    let input = "<private<private>-----BEGIN PRIVATE KEY-----\n<private-----END PRIVATE KEY----- \
        acme merger </private> after";
    let once = sanitize(input, true);
    assert_eq!(once.text, "[redacted] after");
    assert_eq!(once.private_blocks, 1);
    assert_eq!(once.secrets, vec![SecretFinding { kind: "private-key", count: 1 }]);
    assert_eq!(sanitize(&once.text, true).text, once.text);
    // Without scrubbing the tags never balance: the text is literal, as the rules say.
    assert_eq!(sanitize(input, false).text, input);
}

#[test]
fn sanitize_runs_private_first_then_secrets() {
    let input = format!("<private>token={GITHUB}</private> and {GITHUB}");
    let s = sanitize(&input, true);
    assert_eq!(s.text, "[redacted] and «redacted:github-token»");
    assert_eq!(s.private_blocks, 1);
    assert_eq!(s.secrets, vec![SecretFinding { kind: "github-token", count: 1 }]);
    assert!(s.had_private_content);
}

#[test]
fn private_first_protects_closing_tags_from_greedy_values() {
    // Why the order matters: scrubbing first would eat `</private>` as part of the value,
    // leaving an unclosed (literal) block.
    assert_eq!(
        scrub_secrets("password=hunter2</private> rest").0,
        "password=«redacted:password-assignment» rest"
    );
    let s = sanitize("<private>note password=hunter2</private> rest", true);
    assert_eq!(s.text, "[redacted] rest");
    assert!(s.secrets.is_empty());
}

#[test]
fn sanitize_without_scrub_keeps_secrets() {
    let input = format!("key {GITHUB}");
    let s = sanitize(&input, false);
    assert_eq!(s.text, input);
    assert!(!s.had_private_content);
    assert!(s.secrets.is_empty());
}

#[test]
fn secrets_alone_set_had_private_content() {
    let s = sanitize(&format!("key {AWS_ACCESS}"), true);
    assert_eq!(s.text, "key «redacted:aws-access-key»");
    assert!(s.had_private_content);
    assert_eq!(s.private_blocks, 0);
}

#[test]
fn clean_text_is_untouched() {
    let s = sanitize("just a note about Postgres", true);
    assert_eq!(
        s,
        Sanitized {
            text: "just a note about Postgres".into(),
            had_private_content: false,
            private_blocks: 0,
            secrets: vec![],
        }
    );
    assert!(!s.is_empty());
}

#[test]
fn is_empty_after_sanitizing() {
    assert!(sanitize("", true).is_empty());
    assert!(sanitize(" \n\t ", true).is_empty());
    assert!(sanitize("<private>all of it</private>", true).is_empty());
    assert!(sanitize("  <private>a</private>\n<private>b</private>  ", false).is_empty());
    assert!(sanitize(GITHUB, true).is_empty());
    assert!(sanitize(&format!("<private>x</private> {NPM}"), true).is_empty());
    assert!(!sanitize("<private>x</private> but this stays", true).is_empty());
    assert!(!sanitize(&format!("token {GITHUB} for CI"), true).is_empty());
    // Markers the author typed are content, not redactions.
    assert!(!sanitize("[redacted]", true).is_empty());
    assert!(!sanitize("«redacted:jwt»", true).is_empty());
}

#[test]
fn sanitized_serializes() {
    let s = sanitize(&format!("<private>a</private> {GITHUB} {GITHUB}"), true);
    let json = serde_json::to_value(&s).expect("serializes");
    assert_eq!(
        json,
        serde_json::json!({
            "text": "[redacted] «redacted:github-token» «redacted:github-token»",
            "had_private_content": true,
            "private_blocks": 1,
            "secrets": [{"kind": "github-token", "count": 2}],
        })
    );
}

// -- metadata helpers ------------------------------------------------------------------------

#[test]
fn strip_markers_leaves_only_words() {
    let s = sanitize(&format!("<private>acme</private> deploy {AWS_ACCESS} now"), true);
    assert_eq!(strip_markers(&s.text).split_whitespace().collect::<Vec<_>>(), ["deploy", "now"]);
}

#[test]
fn redact_tags_drops_every_tag_redaction_touches() {
    let tags: Vec<String> =
        ["deploy", "<private>acme</private>", GITHUB, "acme-<private>x</private>"]
            .iter()
            .map(|t| (*t).to_owned())
            .collect();
    let r = redact_tags(&tags, true);
    assert_eq!(r.tags, ["deploy"]);
    assert_eq!(r.dropped, 3);
    assert_eq!(r.private_blocks, 2);
    assert_eq!(r.secrets, vec![SecretFinding { kind: "github-token", count: 1 }]);
}

#[test]
fn redact_json_reaches_nested_values_and_keys() {
    let mut v = serde_json::json!({
        "note": "<private>acme</private> merger",
        "list": ["ok", format!("token {GITHUB}")],
        "nested": {"<private>k</private>": 1, "plain": true},
    });
    assert!(redact_json(&mut v, true));
    assert_eq!(
        v,
        serde_json::json!({
            "note": "[redacted] merger",
            "list": ["ok", "token «redacted:github-token»"],
            "nested": {"[redacted]": 1, "plain": true},
        })
    );
    assert!(!redact_json(&mut v, true), "a second pass finds nothing");
}

#[test]
fn marker_ranges_cover_both_markers_in_order() {
    let text = "a «redacted:jwt» b [redacted] c";
    let ranges = marker_ranges(text);
    let shown: Vec<&str> = ranges.iter().map(|r| &text[r.clone()]).collect();
    assert_eq!(shown, ["«redacted:jwt»", "[redacted]"]);
    assert!(marker_ranges("no markers [here]").is_empty());
    assert!(holds_marker("x [redacted]") && !holds_marker("x [redact]"));
}

#[test]
fn secret_keys_are_recognised_by_name() {
    for key in [
        "password",
        "PASSWORD",
        "passwd",
        "pwd",
        "secret",
        "token",
        "api_key",
        "API-Key",
        "apikey",
        "access_key",
        "private-key",
        "client_secret",
        "auth",
        "credentials",
        "db_password",
        "db.pass",
        "github-token",
        "dbpassword",
        "slack_webhook_secret",
    ] {
        assert!(is_secret_key(key), "{key}");
    }
    for key in [
        "password_hint",
        "max_tokens",
        "author",
        "oauth",
        "bypass",
        "tokens_used",
        "keyword",
        "type",
    ] {
        assert!(!is_secret_key(key), "{key}");
    }
}

#[test]
fn redact_json_hides_every_value_under_a_secret_key() {
    let mut v = serde_json::json!({
        "password": "hunter2",
        "Api-Key": 12345,
        "db": {"db_password": "x1", "host": "db.internal"},
        "credentials": {"user": "ops", "list": ["a", "b"]},
        "secret": "${VAULT_SECRET}",
        "auth": true,
        "password_hint": "the usual",
    });
    let m = "«redacted:password-assignment»";
    assert!(redact_json(&mut v, true));
    assert_eq!(
        v,
        serde_json::json!({
            "password": m,
            "Api-Key": m,
            "db": {"db_password": m, "host": "db.internal"},
            "credentials": {"user": m, "list": [m, m]},
            "secret": "${VAULT_SECRET}",
            "auth": true,
            "password_hint": "the usual",
        })
    );
    assert!(!redact_json(&mut v, true), "a second pass finds nothing");
    let mut off = serde_json::json!({"password": "hunter2"});
    assert!(!redact_json(&mut off, false), "scrubbing off keeps keyed values");
}

#[test]
fn redact_secret_keys_yaml_counts_what_it_replaced() {
    let mut v: serde_yaml_ng::Value =
        serde_yaml_ng::from_str("auth: xyzzy\nlist:\n  - token: t0k\nnote: kept\n").unwrap();
    assert_eq!(redact_secret_keys_yaml(&mut v), 2);
    assert_eq!(v["auth"], serde_yaml_ng::Value::from("«redacted:password-assignment»"));
    assert_eq!(v["note"], serde_yaml_ng::Value::from("kept"));
    assert_eq!(redact_secret_keys_yaml(&mut v), 0, "idempotent");
}

// -- robustness ------------------------------------------------------------------------------

/// An independent reference for `redact_private`: tags found by a regex written straight
/// from the rule, then the rule applied naively.
fn reference_redact(input: &str) -> (String, usize) {
    let re = Regex::new(r"(?i)</private[\t\n\x0C\r ]*>|<private\b[^>]*>").expect("valid");
    let tags: Vec<(bool, usize, usize)> =
        re.find_iter(input).map(|m| (m.as_str().starts_with("</"), m.start(), m.end())).collect();
    let mut out = String::new();
    let (mut cursor, mut blocks, mut i) = (0, 0, 0);
    while i < tags.len() {
        let (is_close, start, _) = tags[i];
        if is_close {
            i += 1;
            continue;
        }
        if !tags[i + 1..].iter().any(|t| t.0) {
            break;
        }
        let mut depth = 0i64;
        let end = tags[i..].iter().enumerate().find_map(|(k, t)| {
            depth += if t.0 { -1 } else { 1 };
            (depth == 0).then_some((i + k, t.2))
        });
        out.push_str(&input[cursor..start]);
        out.push_str("[redacted]");
        blocks += 1;
        match end {
            Some((k, e)) => {
                cursor = e;
                i = k + 1;
            }
            None => {
                cursor = input.len();
                break;
            }
        }
    }
    out.push_str(&input[cursor..]);
    (out, blocks)
}

#[test]
fn random_inputs_never_panic_and_match_the_reference() {
    const FRAGMENTS: &[&str] = &[
        "<private",
        "<PRIVATE",
        "<Private",
        "</private",
        "</private >",
        "</private>",
        ">",
        "<",
        "/",
        "<privateer",
        " data-x=\"1\"",
        "sk-",
        "sk-ant-",
        "ghp_",
        "=",
        ":",
        "password",
        "token",
        "\"",
        "'",
        "é",
        "🙂",
        "\n",
        "\r\n",
        " ",
        "\t",
        "abc",
        "XYZ019",
        "-----BEGIN",
        " PRIVATE KEY-----",
        "-----END",
        "postgres://",
        "u:p@h",
        "«",
        "»",
        "[redacted]",
        "$",
        "_",
        "AKIA",
        "eyJ",
        ".",
    ];
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        // xorshift64*: deterministic, no dependency.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    for _ in 0..4000 {
        let len = (next() % 16) as usize;
        let input: String =
            (0..len).map(|_| FRAGMENTS[(next() % FRAGMENTS.len() as u64) as usize]).collect();

        let (text, blocks) = redact_private(&input);
        assert_eq!((text.clone(), blocks), reference_redact(&input), "input: {input:?}");
        if !input.to_ascii_lowercase().contains("private") {
            assert_eq!(text, input, "no tag, so nothing may change");
            assert_eq!(blocks, 0);
        }
        if blocks == 0 {
            assert_eq!(text, input);
        }

        let plain = sanitize(&input, false);
        assert_eq!(plain.text, text);
        let scrubbed = sanitize(&input, true);
        assert_eq!(scrubbed.private_blocks, blocks);
        assert_eq!(scrubbed.had_private_content, blocks > 0 || !scrubbed.secrets.is_empty());
        let _ = scrubbed.is_empty();
    }
}

#[test]
fn hostile_inputs_stay_linear() {
    let n = 100_000;
    let inputs = [
        "<private ".repeat(n),
        "<privatex".repeat(n),
        "<private>".repeat(n),
        format!("{}</private>", "<private>".repeat(n)),
        "</private>".repeat(n),
        "<private>a</private>".repeat(n / 2),
        "</private     ".repeat(n / 2),
        "<".repeat(n),
        "password=".repeat(n / 4),
        "-----BEGIN PRIVATE KEY-----".repeat(n / 10),
        "sk-a".repeat(n / 4),
        "postgres://u:".repeat(n / 10),
        "a@".repeat(n / 2),
        "é🙂".repeat(n / 2),
    ];
    let start = Instant::now();
    for input in &inputs {
        let s = sanitize(input, true);
        assert!(s.text.len() <= input.len() + 64, "output should not grow");
    }
    // Generous: quadratic behaviour on these sizes would take minutes.
    assert!(start.elapsed() < Duration::from_secs(60), "took {:?}", start.elapsed());
    assert_eq!(redact_private(&inputs[0]).1, 0);
    assert_eq!(redact_private(&inputs[3]).0, "[redacted]");
    assert_eq!(redact_private(&inputs[5]).1, n / 2);
}
