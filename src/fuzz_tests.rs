//! Bounded fuzzing (issue 14, item 9) of what users type: search queries and times. Each
//! property runs proptest's 256 random cases (a few seconds in a debug build) in every test run;
//! `PROPTEST_CASES=100000 cargo test fuzz_` runs longer sessions.

use proptest::prelude::*;

use crate::config::Config;
use crate::index::store::Indexes;
use crate::model::MemoryName;
use crate::model::time::{
    format_compact, format_timestamp, parse_compact, parse_duration_secs, parse_timestamp,
};
use crate::search::{SearchQuery, search};
use crate::vault::{AddRequest, Clock, Vault};

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
            if let Ok(r) = search(vault, idx, &q) {
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
            prop_assert_eq!(parse_compact(&format_compact(ts)).map(|t| t.as_millisecond()), Some(ts.as_millisecond()));
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
