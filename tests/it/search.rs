//! Search through the real binary on real indices (tantivy + usearch on disk, built-in embedder).

use crate::common::TestEnv;

fn names(env: &TestEnv, args: &[&str]) -> Vec<String> {
    let mut a = vec!["search", "--json"];
    a.extend_from_slice(args);
    let out = env.run(a).success();
    out.json()["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn finds_the_right_memory_first() {
    let env = TestEnv::with_vault("search");
    assert_eq!(names(&env, &["JWT refresh token rotation"])[0], "auth/jwt-rotation");
    assert_eq!(names(&env, &["why postgres instead of dynamodb"])[0], "db/postgres-choice");
    assert_eq!(names(&env, &["flaky integration tests redis"])[0], "ops/flaky-tests");
    insta::assert_snapshot!(
        "search_human",
        env.run(["search", "JWT refresh token rotation", "-n", "3"]).success()
    );
}

#[test]
fn json_results_carry_ragdocs_fields_and_a_snippet() {
    let env = TestEnv::with_vault("search");
    let out =
        env.run(["search", "refresh token cookie", "--json", "-n", "2"]).success().json()["results"].clone();
    let hit = &out[0];
    for key in [
        "memory_id",
        "score",
        "content",
        "type",
        "status",
        "tags",
        "file_path",
        "header_path",
        "snippet",
        "name",
        "id",
    ] {
        assert!(hit.get(key).is_some(), "hit lacks {key}: {hit}");
    }
    assert!(hit["memory_id"].as_str().unwrap().starts_with("memory:"));
    let score = hit["score"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&score), "{score}");
    assert!(hit.get("explain").is_none(), "explain only with --explain");
    let names: Vec<&str> =
        out.as_array().unwrap().iter().map(|h| h["name"].as_str().unwrap()).collect();
    let unique: std::collections::HashSet<&&str> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "one result per memory: {names:?}");
}

#[test]
fn a_query_about_nothing_in_the_vault_returns_nothing() {
    let env = TestEnv::with_vault("search");
    for q in ["quantum chromodynamics lattice gluon", "recipe for banana bread", "zzzz qqqq xxxx"] {
        let out = env.run(["search", q, "--json"]).success();
        assert_eq!(out.json()["results"], serde_json::json!([]), "{q}: {out}");
    }
    let out = env.run(["search", "banana bread"]).success();
    assert!(out.stdout.is_empty(), "{out}");
    assert!(out.stderr.starts_with("no memory "), "{out}");
}

#[test]
fn a_memory_matching_the_whole_query_outranks_a_partial_match() {
    let env = TestEnv::with_vault("search");
    let out = env
        .run(["search", "cache rendered pages redis", "--json", "--explain"])
        .success()
        .json()["results"]
        .clone();
    assert_eq!(out[0]["name"], "cache-v2", "{out:#}");
    let first = out[0]["explain"]["coverage"].as_f64().unwrap();
    let partial = out.as_array().unwrap().iter().find(|h| h["name"] == "cache-v1").unwrap();
    assert!(partial["explain"]["coverage"].as_f64().unwrap() < first);
}

#[test]
fn code_identifiers_are_found_whole_and_in_parts() {
    let env = TestEnv::with_vault("search");
    for q in ["src/auth.py", "auth.py"] {
        assert_eq!(names(&env, &[q])[0], "auth/jwt-rotation", "{q}");
    }
    for q in ["apply_pending_migrations", "migrate_runner", "pending migrations"] {
        assert_eq!(names(&env, &[q])[0], "db/migrations", "{q}");
    }
    for q in ["snake_case", "camelCase", "camel case"] {
        assert_eq!(names(&env, &[q])[0], "team-preferences", "{q}");
    }
    for q in ["npm ci", "v1.2"] {
        assert_eq!(names(&env, &[q])[0], "ops/deploy", "{q}");
    }
}

#[test]
fn hostile_queries_never_fail() {
    let env = TestEnv::with_vault("search");
    let long = "token ".repeat(3000);
    for q in [
        "\"",
        "\"unbalanced",
        "-",
        "+foo -bar",
        "a:b",
        "[",
        "(",
        "*",
        "AND OR NOT",
        "\\",
        "title:jwt",
        "🙂",
        "'",
        "{}",
        long.as_str(),
    ] {
        env.run(["search", q]).success();
    }
    let out = env.run(["search", ""]).success();
    assert!(out.stdout.is_empty());
}

#[test]
fn filters_apply_inside_retrieval() {
    let env = TestEnv::with_vault("search");
    // The best match overall is a fact; with --type decision and -n 1 the decision still comes
    // back (threshold 0: only the filter decides, not how weak the match is).
    assert_eq!(
        names(
            &env,
            &[
                "database migrations",
                "--type",
                "decision",
                "-n",
                "1",
                "-c",
                "search.score_threshold=0"
            ]
        ),
        ["db/postgres-choice"]
    );
    assert_eq!(names(&env, &["tests", "--tag", "ci", "-n", "1"]), ["ops/flaky-tests"]);
    let recent = names(&env, &["deploy", "--since", "7d"]);
    assert_eq!(recent, ["ops/deploy"]);
    assert!(names(&env, &["deploy", "--before", "2025-01-01"]).is_empty());
    let out = env.run(["search", "x", "--after", "2026-01-05", "--before", "2026-01-01"]).code(2);
    assert!(out.stderr.contains("is not before"), "{out}");
    // Archived memories only when asked.
    assert!(!names(&env, &["varnish page cache"]).contains(&"old-plan".to_owned()));
    assert!(
        names(&env, &["varnish page cache", "--include-archived"]).contains(&"old-plan".to_owned())
    );
    assert_eq!(names(&env, &["varnish", "--status", "archived"]), ["old-plan"]);
    let out = env.run(["search", "x", "--type", "nope"]).code(2);
    assert!(out.stderr.contains("unknown memory type"), "{out}");
}

#[test]
fn superseded_memories_rank_below_their_successor_and_name_it() {
    let env = TestEnv::with_vault("search");
    let out = env
        .run(["search", "cache strategy memcached five minutes", "--json", "--explain"])
        .success()
        .json()["results"]
        .clone();
    let pos = |n: &str| out.as_array().unwrap().iter().position(|h| h["name"] == n).unwrap();
    assert!(pos("cache-v2") < pos("cache-v1"), "{out:#}");
    let v1 = &out[pos("cache-v1")];
    assert_eq!(v1["superseded_by"], "cache-v2");
    assert_eq!(v1["explain"]["supersession_factor"], 0.5);
    let human = env.run(["search", "memcached cache strategy"]).success();
    assert!(human.stdout.contains("superseded by cache-v2"), "{human}");
}

#[test]
fn expired_memories_fade_then_leave() {
    let mut env = TestEnv::with_vault("search");
    // Expired 2025-12-31; with a 5-day fade it is gone by 2026-01-10.
    assert!(!names(&env, &["holiday deploy freeze"]).contains(&"freeze-notice".to_owned()));
    env.set_now("2026-01-02T00:00:00Z");
    let out = env.run(["search", "holiday deploy freeze", "--json", "--explain"]).success().json()
        ["results"]
        .clone();
    let hit = out
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "freeze-notice")
        .expect("still fading");
    let fade = hit["explain"]["expiry_factor"].as_f64().unwrap();
    assert!((fade - 0.6).abs() < 1e-6, "{fade}");
}

#[test]
fn explain_prints_every_stage() {
    let env = TestEnv::with_vault("search");
    let out = env.run(["search", "JWT rotation", "--explain", "-n", "1"]).success();
    for stage in [
        "query: terms",
        "retrieve:",
        "bm25 rank",
        "vector rank",
        "fuse: lexical",
        "thread context",
        "time ×",
        "fused",
        "rrf",
        "evidence",
        "gate",
        "calibrated",
        "type: weight",
        "decay",
        "recency",
        "temperature",
        "superseded",
        "expiry",
    ] {
        assert!(out.stdout.contains(stage), "missing {stage}:\n{out}");
    }
}

#[test]
fn budget_and_limit() {
    let env = TestEnv::with_vault("search");
    assert_eq!(names(&env, &["cache", "-n", "1"]).len(), 1);
    let one = names(&env, &["cache", "--budget", "1"]);
    assert_eq!(one.len(), 1, "a budget always returns at least one result");
    let more = names(&env, &["cache", "--budget", "2000"]);
    assert!(more.len() > 1, "{more:?}");
    env.run(["search", "cache", "--budget", "0"]).code(2);
}

#[test]
fn profiles_and_intents() {
    let env = TestEnv::with_vault("search");
    for p in ["balanced", "ragdocs", "mnestra", "remindb", "mira"] {
        let hits = names(&env, &["JWT refresh token rotation", "--profile", p]);
        assert_eq!(hits.first().map(String::as_str), Some("auth/jwt-rotation"), "profile {p}");
    }
    for i in ["general", "recall", "exact", "explore"] {
        let hits = names(&env, &["JWT refresh token rotation", "--intent", i]);
        assert_eq!(hits.first().map(String::as_str), Some("auth/jwt-rotation"), "intent {i}");
    }
    // Any other word is refused with the list, which comes from the enum's one declaration.
    let out = env.run(["search", "x", "--profile", "fast"]).code(2);
    assert!(out.stderr.contains("--profile"), "{out}");
    assert!(
        out.stderr.contains("[possible values: balanced, ragdocs, mnestra, remindb, mira]"),
        "{out}"
    );
    let out = env.run(["search", "x", "--intent", "vibes"]).code(2);
    assert!(out.stderr.contains("[possible values: general, recall, exact, explore]"), "{out}");
    assert!(!out.stderr.contains("vibes"), "what was typed is not repeated: {out}");
}

#[test]
fn results_are_reproducible_with_a_pinned_clock() {
    let env = TestEnv::with_vault("search");
    let a = env.run(["search", "deploy", "--json", "--explain", "--no-touch"]).success().stdout;
    let b = env.run(["search", "deploy", "--json", "--explain", "--no-touch"]).success().stdout;
    assert_eq!(a, b, "--no-touch searches change nothing");
    // A search that touches its results warms them: the next identical search scores them higher.
    let first =
        env.run(["search", "deploy", "--json", "-n", "1"]).success().json()["results"].clone();
    let second =
        env.run(["search", "deploy", "--json", "-n", "1"]).success().json()["results"].clone();
    assert!(second[0]["score"].as_f64().unwrap() > first[0]["score"].as_f64().unwrap());
}

#[test]
fn an_empty_answer_names_the_closest_memories_below_the_threshold() {
    let env = TestEnv::with_vault("search");
    let strict = ["-c", "search.score_threshold=0.95", "--no-touch"];
    let mut args = vec!["search", "production outage", "--json"];
    args.extend_from_slice(&strict);
    let out = env.run(&args).success().json();
    assert_eq!(out["results"], serde_json::json!([]), "{out:#}");
    let below = out["below_threshold"].as_array().unwrap();
    assert!(!below.is_empty() && below.len() <= 3, "{out:#}");
    assert_eq!(below[0]["name"], "db/postgres-choice", "{out:#}");
    let score = below[0]["score"].as_f64().unwrap();
    assert!(score > 0.0 && score < 0.95, "{out:#}");
    assert!(below[0].get("explain").is_none(), "explain only with --explain: {out:#}");

    // A person is told on stderr, with names and scores; stdout stays empty for scripts.
    let mut args = vec!["search", "production outage"];
    args.extend_from_slice(&strict);
    let human = env.run(&args).success();
    assert!(human.stdout.is_empty(), "{human}");
    let said =
        format!("no memory passed the threshold 0.95; closest: db/postgres-choice ({score:.2})");
    assert!(human.stderr.contains(&said), "{human}");
    assert!(human.stderr.contains("search.score_threshold"), "the hint names the knob: {human}");

    // --explain prints them with every stage.
    args.push("--explain");
    let explained = env.run(&args).success();
    assert!(explained.stdout.contains("below the threshold 0.95:"), "{explained}");
    assert!(explained.stdout.contains("1. db/postgres-choice"), "{explained}");
    assert!(explained.stdout.contains("calibrated"), "{explained}");

    // With results there is nothing below to explain.
    let out = env.run(["search", "production outage", "--json", "--no-touch"]).success().json();
    assert_eq!(out["results"][0]["name"], "db/postgres-choice", "{out:#}");
    assert_eq!(out["below_threshold"], serde_json::json!([]), "{out:#}");
}

#[test]
fn redaction_markers_never_match_a_query() {
    let env = TestEnv::with_vault("search");
    env.run([
        "add",
        "billing/signing",
        "The billing service signs its requests with AKIAY34FZKBOKMUTVV7A in production.",
    ])
    .success();
    env.write(
        "ops/pager.md",
        "# Pager\n\nThe pager rota is in the wiki. <private>Night number 555-0100</private>\n",
    );
    let stored = env.read("billing/signing.md");
    assert!(stored.contains("«redacted:aws-access-key»"), "{stored}");
    for q in ["redacted", "aws access key", "redacted aws access key", "«redacted:aws-access-key»"]
    {
        let out = env.run(["search", q, "--json", "--no-touch"]).success().json();
        let names: Vec<&str> = out["results"]
            .as_array()
            .unwrap()
            .iter()
            .chain(out["below_threshold"].as_array().unwrap())
            .filter_map(|h| h["name"].as_str())
            .collect();
        assert!(
            !names.contains(&"billing/signing") && !names.contains(&"ops/pager"),
            "{q}: {out:#}"
        );
    }
    // Their real words are found as ever.
    let out = env.run(["search", "billing signs requests", "--json", "--no-touch"]).success();
    assert_eq!(out.json()["results"][0]["name"], "billing/signing", "{out}");
    let out = env.run(["search", "pager rota wiki", "--json", "--no-touch"]).success();
    assert_eq!(out.json()["results"][0]["name"], "ops/pager", "{out}");
}
