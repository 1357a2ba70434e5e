//! Bounded fuzzing of every parser that reads what users and agents write:
//! frontmatter (parse/render round trip), wikilinks, chunking, redaction, search queries and
//! times. Each target is a proptest property named `fuzz_<target>_…`; it runs proptest's 256
//! random cases (a few seconds in a debug build) in every test run, and
//! `PROPTEST_CASES=1000000 cargo test --lib fuzz_frontmatter` runs a longer session of one target.
//! TESTING.md lists the targets, what each checks, and the long sessions run so far.

use proptest::prelude::*;

use crate::config::Config;
use crate::index::chunk::{ChunkOptions, chunk_markdown};
use crate::index::store::Indexes;
use crate::model::MemoryName;
use crate::model::frontmatter::{Document, list_value, str_value};
use crate::model::links::{LinkTarget, extract_entities, extract_links, rewrite_memory_links};
use crate::model::time::{
    format_compact, format_timestamp, parse_compact, parse_duration_secs, parse_timestamp,
};
use crate::privacy::{redact_json, redact_tags, sanitize};
use crate::search::{SearchQuery, Signals, search};
use crate::vault::{AddRequest, Clock, Vault};
use serde_yaml_ng::Value;

/// Query text: mostly words with query syntax mixed in (quotes, operators, field prefixes,
/// brackets, wildcards), plus any Unicode.
fn query_text() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::collection::vec(
            prop_oneof![
                Just("deploy".to_owned()),
                Just("staging".to_owned()),
                Just("\"".to_owned()),
                Just("\"deploy staging\"".to_owned()),
                Just("+".to_owned()),
                Just("-".to_owned()),
                Just("*".to_owned()),
                Just("title:".to_owned()),
                Just("tags:deploy".to_owned()),
                Just("(".to_owned()),
                Just(")".to_owned()),
                Just("[".to_owned()),
                Just("AND".to_owned()),
                Just("OR".to_owned()),
                Just("NOT".to_owned()),
                Just("~2".to_owned()),
                Just("^3".to_owned()),
                Just("\\".to_owned()),
                Just("é".to_owned()),
                Just("日本".to_owned()),
                "\\PC{0,6}",
            ],
            0..12,
        )
        .prop_map(|words| words.join(" ")),
        "\\PC{0,60}",
        ".{0,40}",
    ]
}

fn fixture() -> (tempfile::TempDir, Vault, Indexes) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join(".memories");
    crate::vault::init(&root, "").unwrap();
    let mut config = Config::default();
    config.embedding.model = "builtin".into();
    let vault =
        Vault::open(&root, config, Clock::pinned("2026-01-10T10:00:00Z".parse().unwrap())).unwrap();
    for (name, text) in [
        ("deploy-notes", "Deploys run `npm ci` then `make release`; staging is staging.example."),
        ("auth/jwt", "# JWT\n\nTokens expire after 15 minutes; refresh tokens after 7 days."),
        ("cafe", "Le café du coin ouvre à 7 h. 日本語のメモ。"),
    ] {
        let req =
            AddRequest { content: text.into(), memory_type: None, tags: vec!["deploy".into()] };
        vault.add(&MemoryName::parse(name).unwrap(), &req).unwrap();
    }
    let embedder = crate::index::select::embedder_for(&vault.config).unwrap();
    let mut idx = Indexes::open(&vault, embedder).unwrap();
    idx.reconcile(&vault).unwrap();
    (tmp, vault, idx)
}

proptest! {
    #[test]
    fn fuzz_any_query_searches_without_panic_and_with_sane_results(
        text in query_text(),
        limit in 1usize..=crate::limits::MAX_RESULTS,
        budget in proptest::option::of(1usize..=crate::limits::MAX_BUDGET_TOKENS),
    ) {
        thread_local! {
            static FIXTURE: (tempfile::TempDir, Vault, Indexes) = fixture();
        }
        FIXTURE.with(|(_tmp, vault, idx)| {
            let mut q = SearchQuery::new(text.clone());
            q.limit = Some(limit);
            q.budget = budget;
            // An error is fine (said in words); a panic or nonsense is not.
            if let Ok(r) = search(vault, idx, &q, &Signals::neutral()) {
                assert!(budget.is_some() || r.hits.len() <= limit, "{text:?}: {} hits", r.hits.len());
                assert!(r.hits.len() <= 3, "{text:?}: more hits than memories");
                for w in r.hits.windows(2) {
                    assert!(w[0].score >= w[1].score, "{text:?}: not sorted");
                }
                for h in &r.hits {
                    assert!((0.0..=1.0).contains(&h.score), "{text:?}: score {}", h.score);
                }
            }
        });
    }

    #[test]
    fn fuzz_time_parsing_never_panics_and_round_trips(s in "\\PC{0,40}") {
        if let Some(ts) = parse_timestamp(&s) {
            // What memlane writes reads back as the same second.
            let again = parse_timestamp(&format_timestamp(ts)).unwrap();
            prop_assert_eq!(again.as_second(), ts.as_second());
        }
        let _ = parse_compact(&s);
        if let Some(secs) = parse_duration_secs(&s) {
            prop_assert!(secs >= 0, "{:?} -> {}", s, secs);
        }
    }

    #[test]
    fn fuzz_time_shaped_input_never_panics(
        y in -20_000i64..20_000,
        mo in 0u32..14,
        d in 0u32..33,
        h in 0u32..26,
        mi in 0u32..62,
        sec in 0u32..62,
        tail in prop_oneof![Just(String::new()), Just("Z".to_owned()), "[+-][0-9]{2}:[0-9]{2}", "\\.[0-9]{1,12}Z"],
        n in any::<i64>(),
        unit in prop_oneof![Just("s"), Just("m"), Just("h"), Just("d"), Just("w"), Just("y"), Just("")],
    ) {
        let iso = format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{sec:02}{tail}");
        // File-name stamps are written for "now": four-digit years round-trip.
        if let Some(ts) = parse_timestamp(&iso).filter(|_| (1000..=9999).contains(&y)) {
            // To the millisecond, floored like the civil time it shows (also before 1970).
            let floored = i64::try_from(ts.as_nanosecond().div_euclid(1_000_000)).unwrap();
            prop_assert_eq!(parse_compact(&format_compact(ts)).map(|t| t.as_millisecond()), Some(floored));
        }
        let _ = parse_timestamp(&format!("{y:04}-{mo:02}-{d:02}"));
        let dur = format!("{n}{unit}");
        if let Some(secs) = parse_duration_secs(&dur) {
            // A duration that parses can always be taken from now (saturating at the start of time).
            let now: jiff::Timestamp = "2026-01-10T10:00:00Z".parse().unwrap();
            let _ = now.checked_sub(jiff::SignedDuration::from_secs(secs));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Frontmatter: parse any bytes without panic; render then parse gives the same mapping.

/// Lines that look like frontmatter: keys, YAML syntax of every kind, delimiters, comments.
fn yaml_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("title: Plan".to_owned()),
        Just("tags: [a, b]".to_owned()),
        Just("tags: [a,".to_owned()),
        Just("  b]".to_owned()),
        Just("tags:".to_owned()),
        Just("  - x".to_owned()),
        Just("- y".to_owned()),
        Just("description: \"multi".to_owned()),
        Just("status: draft\"".to_owned()),
        Just("notes: |".to_owned()),
        Just("notes: >-".to_owned()),
        Just("  block text".to_owned()),
        Just("custom: {a: 1, b: [2, 3]}".to_owned()),
        Just("anchor: &a x".to_owned()),
        Just("alias: *a".to_owned()),
        Just("<<: {m: 1}".to_owned()),
        Just("? complex".to_owned()),
        Just(": value".to_owned()),
        Just("1: number key".to_owned()),
        Just("null: ~".to_owned()),
        Just("tagged: !custom x".to_owned()),
        Just("float: .nan".to_owned()),
        Just("'quoted key': 'it''s'".to_owned()),
        Just("# comment".to_owned()),
        Just("---".to_owned()),
        Just("...".to_owned()),
        Just("".to_owned()),
        Just("\t".to_owned()),
        Just("[[[[".to_owned()),
        Just("{{{{".to_owned()),
        "[a-z_]{1,8}: \\PC{0,12}",
        "\\PC{0,16}",
    ]
}

/// A whole file: frontmatter-shaped text (`\n` or `\r\n`, maybe a BOM, maybe unclosed), any
/// bytes (decoded lossily: the real read path refuses invalid UTF-8 before parsing), or any text.
fn memory_file() -> impl Strategy<Value = String> {
    let shaped = (
        any::<bool>(),
        any::<bool>(),
        proptest::collection::vec(yaml_line(), 0..12),
        prop_oneof![Just("---"), Just("..."), Just("--- "), Just("")],
        "\\PC{0,60}",
    )
        .prop_map(|(bom, crlf, lines, close, body)| {
            let nl = if crlf { "\r\n" } else { "\n" };
            let mut out = String::new();
            if bom {
                out.push('\u{feff}');
            }
            out.push_str("---");
            out.push_str(nl);
            for l in lines {
                out.push_str(&l);
                out.push_str(nl);
            }
            out.push_str(close);
            out.push_str(nl);
            out.push_str(&body);
            out
        });
    prop_oneof![
        6 => shaped,
        2 => proptest::collection::vec(any::<u8>(), 0..200)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        2 => "(---\r?\n)?\\PC{0,120}",
    ]
}

/// Whether `v` holds a float NaN (NaN != NaN, so such a mapping cannot compare equal to itself).
fn has_nan(v: &Value) -> bool {
    match v {
        Value::Number(n) => n.as_f64().is_some_and(f64::is_nan),
        Value::Sequence(s) => s.iter().any(has_nan),
        Value::Mapping(m) => m.iter().any(|(k, v)| has_nan(k) || has_nan(v)),
        Value::Tagged(t) => has_nan(&t.value),
        _ => false,
    }
}

proptest! {
    #[test]
    fn fuzz_frontmatter_parse_render_round_trip(text in memory_file()) {
        let doc = Document::parse(&text);
        // Parsing never changes a byte: what is not edited is written back exactly.
        prop_assert_eq!(doc.render(), text.clone());
        let Ok(map) = doc.mapping() else { return Ok(()) };
        // The string-keyed mapping memlane renders reads back as the same mapping.
        let map: serde_yaml_ng::Mapping = map.into_iter().filter(|(k, v)| k.is_string() && !has_nan(v)).collect();
        let mut fresh = Document::parse(&text);
        fresh.replace_mapping(&map);
        let out = fresh.render();
        let back = Document::parse(&out);
        prop_assert_eq!(back.render(), out.clone());
        let again = back.mapping();
        prop_assert!(again.is_ok(), "{:?}\n{}", again, out);
        prop_assert_eq!(again.unwrap(), map, "rendered:\n{}", out);
        prop_assert_eq!(back.content(), doc.content());
    }

    #[test]
    fn fuzz_frontmatter_edits_never_change_untouched_text(
        text in memory_file(),
        key in proptest::sample::select(&["status", "tags", "title", "updated_at", "description", "custom", "1"][..]),
        value in prop_oneof!["\\PC{0,20}".prop_map(|s| str_value(&s)), proptest::collection::vec("\\PC{0,8}", 0..3).prop_map(|v| list_value(&v))],
        remove: bool,
    ) {
        let original = Document::parse(&text);
        let before = original.mapping();
        let mut doc = original.clone();
        if remove { doc.remove(key); } else { doc.set(key, &value); }
        // An edit is either verified safe or refused; a verified one changed only its key.
        if doc.verify_edits().is_ok() && let Ok(before) = before {
            let out = doc.render();
            let after = Document::parse(&out).mapping();
            prop_assert!(after.is_ok(), "{:?}\n{}", after, out);
            let after = after.unwrap();
            for (k, v) in &before {
                if k.as_str() != Some(key) && !has_nan(v) {
                    prop_assert_eq!(after.get(k), Some(v), "key {:?} in\n{}", k, out);
                }
            }
            let want = if remove { None } else { Some(&value) };
            prop_assert_eq!(after.get(key), want, "rendered:\n{}", out);
            let reread = Document::parse(&out);
            prop_assert_eq!(reread.content(), original.content());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Wikilinks: no panic, spans inside the text, rewriting is complete and idempotent.

/// Markdown with link syntax of every kind mixed in: links, aliases, headings, embeds, escapes,
/// code spans and fences, stray brackets, keywords that type links.
fn link_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("[[".to_owned()),
            Just("]]".to_owned()),
            Just("[".to_owned()),
            Just("]".to_owned()),
            Just("|".to_owned()),
            Just("\\|".to_owned()),
            Just("#".to_owned()),
            Just("!".to_owned()),
            Just("\\".to_owned()),
            Just("`".to_owned()),
            Just("```\n".to_owned()),
            Just("~~~\n".to_owned()),
            Just("> ".to_owned()),
            Just("\n".to_owned()),
            Just("\n\n".to_owned()),
            Just("[[auth/jwt]]".to_owned()),
            Just("[[memory:deploy-notes|the notes]]".to_owned()),
            Just("[[./cafe.md#Menu]]".to_owned()),
            Just("[[Auth/JWT.md]]".to_owned()),
            Just("memory:".to_owned()),
            Just("[text](url)".to_owned()),
            Just(" depends on ".to_owned()),
            Just(" superseded by ".to_owned()),
            Just(" e.g. ".to_owned()),
            Just(". ".to_owned()),
            Just("- ".to_owned()),
            Just("| a | b |\n".to_owned()),
            Just("Café ".to_owned()),
            Just("e\u{301}".to_owned()),
            Just("🙂".to_owned()),
            "[a-zA-Z/ .-]{0,10}",
            "\\PC{0,6}",
        ],
        0..24,
    )
    .prop_map(|p| p.concat())
}

const MEMORIES: &[&str] = &["auth/jwt", "deploy-notes", "cafe", "auth"];

proptest! {
    #[test]
    fn fuzz_links_parse_within_the_text(body in link_text()) {
        let is_memory = |n: &str| MEMORIES.contains(&n);
        let links = extract_links(&body, &is_memory);
        let mut last_end = 0;
        for l in &links {
            prop_assert!(l.start >= last_end && l.start < l.end && l.end <= body.len(), "{:?} in {:?}", (l.start, l.end), body);
            prop_assert!(body.is_char_boundary(l.start) && body.is_char_boundary(l.end));
            let span = &body[l.start..l.end];
            prop_assert!(span.starts_with("[[") && span.ends_with("]]"), "{:?}", span);
            prop_assert_eq!(&body[l.start + 2..l.end - 2], l.raw.as_str());
            prop_assert!(!l.target.name().is_empty());
            prop_assert!(l.context.chars().count() <= 200, "context {:?}", l.context);
            last_end = l.end;
        }
        let _ = extract_entities(&body, &["deploy".to_owned(), "Café".to_owned()]);
    }

    #[test]
    fn fuzz_link_rewrite_is_complete_and_idempotent(
        body in link_text(),
        from in proptest::sample::select(MEMORIES),
        to in proptest::sample::select(&["auth/token", "notes", "x/y/z", "cafe"][..]),
    ) {
        if from == to {
            return Ok(());
        }
        let known = |n: &str| MEMORIES.contains(&n) || n == to;
        let before = extract_links(&body, &known);
        let Some(out) = rewrite_memory_links(&body, from, to) else {
            // Nothing changed: no link named `from` (or it already said so).
            prop_assert!(before.iter().all(|l| l.target != LinkTarget::Memory(from.to_owned())), "{:?}", body);
            return Ok(());
        };
        // After a rename `from` no longer exists: no link may still point at it.
        let gone = |n: &str| n != from && known(n);
        let after = extract_links(&out, &gone);
        prop_assert_eq!(after.len(), before.len(), "{:?} -> {:?}", body, out);
        for (a, b) in after.iter().zip(&before) {
            prop_assert!(a.target != LinkTarget::Memory(from.to_owned()), "{:?} -> {:?}", body, out);
            if b.target == LinkTarget::Memory(from.to_owned()) {
                prop_assert_eq!(&a.target, &LinkTarget::Memory(to.to_owned()), "{:?} -> {:?}", body, out);
            } else {
                prop_assert_eq!(&a.target, &b.target, "{:?} -> {:?}", body, out);
            }
            prop_assert_eq!(&a.alias, &b.alias);
            prop_assert_eq!(&a.heading, &b.heading);
        }
        prop_assert_eq!(rewrite_memory_links(&out, from, to), None, "second rewrite of {:?}", out);
    }
}

// ---------------------------------------------------------------------------------------------
// Chunking: no panic, every chunk is a slice of the body, chunks cover all its non-whitespace.

fn markdown() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("# Title\n".to_owned()),
            Just("## Sub ##\n".to_owned()),
            Just("###### deep\n".to_owned()),
            Just("#######not\n".to_owned()),
            Just("#\n".to_owned()),
            Just("   # indented\n".to_owned()),
            Just("    # code\n".to_owned()),
            Just("```\n".to_owned()),
            Just("~~~~\n".to_owned()),
            Just("\n\n".to_owned()),
            Just("\r\n".to_owned()),
            Just(". ".to_owned()),
            Just("? ".to_owned()),
            Just(" ".to_owned()),
            Just("\t".to_owned()),
            Just("\u{a0}".to_owned()),
            Just("\u{3000}".to_owned()),
            Just("日本語の文章。".to_owned()),
            Just("e\u{301}🙂".to_owned()),
            "[a-z]{1,12}",
            "[a-zA-Z0-9 .,!?\n]{0,80}",
            "\\PC{0,20}",
            "x{60,200}",
        ],
        0..30,
    )
    .prop_map(|p| p.concat())
}

proptest! {
    #[test]
    fn fuzz_chunking_covers_the_body(
        body in markdown(),
        max_chars in prop_oneof![Just(1_200usize), 0usize..400],
        overlap_chars in prop_oneof![Just(180usize), 0usize..300],
    ) {
        let opts = ChunkOptions { max_chars, overlap_chars };
        let chunks = chunk_markdown(&body, &opts);
        prop_assert!(!chunks.is_empty());
        let mut covered = vec![false; body.len()];
        let mut last_start = 0;
        for (i, c) in chunks.iter().enumerate() {
            prop_assert_eq!(c.ordinal, i);
            prop_assert!(c.start <= c.end && c.end <= body.len());
            prop_assert!(body.is_char_boundary(c.start) && body.is_char_boundary(c.end));
            prop_assert_eq!(c.text.as_str(), &body[c.start..c.end]);
            prop_assert_eq!(c.text.trim(), c.text.as_str(), "untrimmed chunk {}", i);
            prop_assert!(c.start >= last_start, "chunk {} goes backwards", i);
            prop_assert!(c.text.chars().count() <= max_chars.max(32), "chunk {} too long", i);
            last_start = c.start;
            covered[c.start..c.end].iter_mut().for_each(|b| *b = true);
        }
        for (i, ch) in body.char_indices() {
            prop_assert!(ch.is_whitespace() || covered[i], "{:?} at {} in no chunk of {:?}", ch, i, body);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Redaction: over any text (not only the shapes the unit properties in
// privacy/tests/properties.rs build), a planted `<private>` block and a planted token are always
// removed and redaction is idempotent.

/// Never produced by [`redaction_text`]'s runs: they have no digits next to capitals like this.
const PLANTED: &str = "PLANTEDq7Zx9";

fn redaction_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("<private>".to_owned()),
            Just("</private>".to_owned()),
            Just("<PRIVATE>".to_owned()),
            Just("</Private >".to_owned()),
            Just("<private note=\"x\">".to_owned()),
            Just("<private".to_owned()),
            Just("<privateer>".to_owned()),
            Just("<".to_owned()),
            Just(">".to_owned()),
            Just("password: ".to_owned()),
            Just("password is ".to_owned()),
            Just("--password ".to_owned()),
            Just("-p".to_owned()),
            Just("token=".to_owned()),
            Just("api_key=".to_owned()),
            Just("https://user:".to_owned()),
            Just("@host/".to_owned()),
            Just("Authorization: Bearer ".to_owned()),
            Just("-----BEGIN PRIVATE KEY-----\n".to_owned()),
            Just("-----END PRIVATE KEY-----".to_owned()),
            Just("eyJ".to_owned()),
            Just("AKIA".to_owned()),
            Just("ghp_".to_owned()),
            Just("[redacted]".to_owned()),
            Just("«redacted:jwt»".to_owned()),
            Just("`".to_owned()),
            "[a-z0-9 \n\t=:_./@+-]{0,16}",
            "\\PC{0,10}",
        ],
        0..16,
    )
    .prop_map(|p| p.concat())
}

/// Public documentation examples (AWS's and jwt.io's), not real credentials.
const TOKENS: &[&str] = &[
    "AKIAIOSFODNN7EXAMPLE",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
];

proptest! {
    #[test]
    fn fuzz_redaction_removes_planted_secrets_and_is_idempotent(
        before in redaction_text(),
        after in redaction_text(),
        open in proptest::sample::select(&["<private>", "<PRIVATE>", "<Private reason=\"hr\">", "<private\n>"][..]),
        close in proptest::sample::select(&["</private>", "</PRIVATE>", "</private >", "</private\t>"][..]),
        sep in proptest::sample::select(&[" ", "\n", "_", "(", "\"", "=", ": ", "/", "\t", ","][..]),
        token in proptest::sample::select(TOKENS),
        scrub: bool,
    ) {
        // A closed block never survives, whatever surrounds it (an opening tag that nothing ever
        // closes is literal text by design: a typo must not cost the rest of a memory).
        let input = format!("{before}{open}{PLANTED}{close}{after}");
        let s = sanitize(&input, scrub);
        prop_assert!(!s.text.contains(PLANTED), "{:?} -> {:?}", input, s.text);
        prop_assert!(s.had_private_content);
        prop_assert_eq!(&sanitize(&s.text, scrub).text, &s.text, "not idempotent on {:?}", input);

        // A token, glued to any separator, never survives scrubbing.
        let input = format!("{before}{sep}{token}{sep}{after}");
        let s = sanitize(&input, true);
        let probe = token.split('.').nth(1).unwrap_or(token);
        prop_assert!(!s.text.contains(probe), "{:?} -> {:?}", input, s.text);
        prop_assert_eq!(&sanitize(&s.text, true).text, &s.text, "not idempotent on {:?}", input);

        // Tags and JSON values go through the same redaction: nothing planted comes out.
        let tags = redact_tags(&[before.clone(), format!("{open}{PLANTED}{close}"), token.to_owned()], true);
        prop_assert!(tags.tags.iter().all(|t| !t.contains(PLANTED) && !t.contains(probe)), "{:?}", tags.tags);
        let mut json = serde_json::json!({ "k": [before, format!("{open}{PLANTED}{close}")], token: after });
        redact_json(&mut json, true);
        let shown = json.to_string();
        prop_assert!(!shown.contains(PLANTED) && !shown.contains(probe), "{}", shown);
        prop_assert!(!redact_json(&mut json, true), "second pass changed {}", shown);
    }

    #[test]
    fn fuzz_redaction_of_any_text_is_idempotent(input in redaction_text(), scrub: bool) {
        let once = sanitize(&input, scrub).text;
        prop_assert_eq!(&sanitize(&once, scrub).text, &once, "input {:?}", input);
    }
}
