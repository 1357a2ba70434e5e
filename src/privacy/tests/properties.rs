//! Properties: nothing planted survives, and the redaction is idempotent.

use proptest::prelude::*;

use super::super::*;
use super::secrets::UNSIGNED_JWT;
use super::{AWS_ACCESS, GITHUB, JWT, NPM, OPENAI, SLACK, STRIPE};

/// Can never come out of [`text`]: it has capitals, the surrounding text has none.
const PLANTED: &str = "PLANTEDq7Zx9";

/// Text that stresses both scanners: tag pieces, key words, separators, code-ish runs.
fn text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("<private>"),
        Just("</private>"),
        Just("<private"),
        Just("</private"),
        Just(">"),
        Just("password"),
        Just("password: "),
        Just(" is "),
        Just("token="),
        Just("--password "),
        Just("mysql -p"),
        Just("postgres://u:"),
        Just("@db/"),
        Just("Authorization: Basic "),
        Just("-----BEGIN RSA PRIVATE KEY-----"),
        Just("-----END RSA PRIVATE KEY-----"),
        Just("eyJ"),
        Just("«redacted:jwt»"),
        Just("[redacted]"),
        Just("\"'`"),
        Just("é🙂"),
    ]
    .prop_map(str::to_owned);
    let run = "[a-z0-9 \n\t=:_./@+-]{0,12}";
    proptest::collection::vec(prop_oneof![piece, run.prop_map(String::from)], 0..10)
        .prop_map(|parts| parts.concat())
}

/// Characters that may touch a token without being part of it.
fn separator() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![" ", "\n", "_", "(", "\"", "'", "=", ",", ": ", "/", "\t"])
}

proptest! {
    // 1000 cases unless `PROPTEST_CASES` asks for a longer session (TESTING.md).
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(1000),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn a_planted_private_block_is_always_removed(
        before in text(),
        after in text(),
        scrub: bool,
    ) {
        let input = format!("{before}<private>{PLANTED}</private>{after}");
        let s = sanitize(&input, scrub);
        prop_assert!(!s.text.contains(PLANTED), "{:?} -> {:?}", input, s.text);
        prop_assert!(s.had_private_content);
    }

    #[test]
    fn a_planted_token_is_always_removed(
        before in text(),
        after in text(),
        left in separator(),
        right in separator(),
        token in prop::sample::select(vec![GITHUB, AWS_ACCESS, OPENAI, JWT, UNSIGNED_JWT, NPM, SLACK, STRIPE]),
    ) {
        let input = format!("{before}{left}{token}{right}{after}");
        let s = sanitize(&input, true);
        // A JWT's header alone already leaks nothing; check its distinctive payload.
        let probe = token.split('.').nth(1).filter(|p| !p.is_empty()).unwrap_or(token);
        prop_assert!(!s.text.contains(probe), "{:?} -> {:?}", input, s.text);
        prop_assert!(s.had_private_content);
    }

    #[test]
    fn redaction_is_idempotent(input in text(), scrub: bool) {
        let once = sanitize(&input, scrub).text;
        let twice = sanitize(&once, scrub);
        prop_assert_eq!(&twice.text, &once, "input {:?}", input);
    }
}
