//! Search quality as a user meets it: natural questions find their memory first with a
//! meaningful score, questions about nothing in the vault find nothing, and the ranking stages
//! added for real memory (question words, thread context, times named in the query, a
//! threshold on relevance) each do what a user would notice. Built-in embedder, real binary.

use crate::common::TestEnv;

fn hits(env: &TestEnv, args: &[&str]) -> Vec<serde_json::Value> {
    let mut a = vec!["search", "--json", "--explain"];
    a.extend_from_slice(args);
    env.run(a).success().json()["results"].as_array().unwrap().clone()
}

fn names(hits: &[serde_json::Value]) -> Vec<&str> {
    hits.iter().map(|h| h["name"].as_str().unwrap()).collect()
}

/// Questions a team would ask of the README's example vault, and the memory that answers each.
const NATURAL_QUESTIONS: &[(&str, &str)] = &[
    ("which database do we use", "db/postgres-choice"),
    ("why did we pick postgres", "db/postgres-choice"),
    ("why not dynamodb?", "db/postgres-choice"),
    ("how long do access tokens last", "auth/jwt-rotation"),
    ("when do refresh tokens rotate", "auth/jwt-rotation"),
    ("how are JWTs signed", "auth/jwt-rotation"),
    ("what checks the token signature", "auth/jwt-rotation"),
    ("where does the web client keep the refresh token", "auth/session-cookies"),
    ("are sessions stateless?", "auth/session-cookies"),
    ("how do we run database migrations", "db/migrations"),
    ("where do schema migrations live", "db/migrations"),
    ("can migrations run twice in parallel", "db/migrations"),
    ("what does CI run for a release", "ops/deploy"),
    ("when does staging get deployed", "ops/deploy"),
    ("how are releases tagged", "ops/deploy"),
    ("why were the integration tests flaky", "ops/flaky-tests"),
    ("how did we fix the flaky tests", "ops/flaky-tests"),
    ("what naming style do we use in Python", "team-preferences"),
    ("how big should pull requests be", "team-preferences"),
    ("how long are rendered pages cached", "cache-v2"),
    ("what is our cache strategy", "cache-v2"),
];

#[test]
fn natural_questions_find_their_memory_first_in_the_related_band_or_better() {
    let env = TestEnv::with_vault("search");
    let mut failures = Vec::new();
    for (question, want) in NATURAL_QUESTIONS {
        let h = hits(&env, &[question, "--no-touch"]);
        let (first, score) = h.first().map_or(("<nothing>", 0.0), |h| {
            (h["name"].as_str().unwrap(), h["score"].as_f64().unwrap())
        });
        if first != *want || score < 0.3 {
            failures.push(format!("{question:?}: {first} at {score:.2} (want {want} ≥ 0.30)"));
        }
    }
    assert!(NATURAL_QUESTIONS.len() >= 20);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Questions in two parts about the example vault, each part answered by its own memory.
const TWO_PART_QUESTIONS: &[(&str, [&str; 2])] = &[
    ("which database and which cache do we use", ["db/postgres-choice", "cache-v2"]),
    (
        "how did we fix the flaky tests and how do we deploy releases",
        ["ops/flaky-tests", "ops/deploy"],
    ),
    ("how are JWTs signed and where do migrations live", ["auth/jwt-rotation", "db/migrations"]),
    ("postgres and jwt", ["db/postgres-choice", "auth/jwt-rotation"]),
];

#[test]
fn a_question_in_two_parts_finds_a_memory_for_each_part() {
    let env = TestEnv::with_vault("search");
    let mut failures = Vec::new();
    for (question, want) in TWO_PART_QUESTIONS {
        let h = hits(&env, &[question, "--no-touch"]);
        let top: Vec<(&str, f64)> = h
            .iter()
            .take(2)
            .map(|h| (h["name"].as_str().unwrap(), h["score"].as_f64().unwrap()))
            .collect();
        let found = |name: &str| top.iter().any(|(n, s)| *n == name && *s >= 0.3);
        if !want.iter().all(|w| found(w)) {
            failures.push(format!("{question:?}: first two {top:?} (want {want:?}, each ≥ 0.30)"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // A part about nothing in the vault adds nothing: the other part's memory comes first,
    // and nothing else reaches the related band.
    let h = hits(&env, &["how are JWTs signed and who won the 1998 world cup", "--no-touch"]);
    assert_eq!(names(&h).first(), Some(&"auth/jwt-rotation"), "{:?}", names(&h));
    assert!(h[0]["score"].as_f64().unwrap() >= 0.3, "{:?}", h[0]["score"]);
    assert!(h[1..].iter().all(|h| h["score"].as_f64().unwrap() < 0.3), "{:?}", names(&h));
}

/// Questions about nothing in any fixture vault.
const OFF_TOPIC: &[&str] = &[
    "how do I bake sourdough bread",
    "what is the capital of Australia",
    "best hiking trails in the Alps",
    "who won the football world cup",
    "how to tune a guitar",
    "recipe for banana bread",
    "quantum chromodynamics lattice gluon",
    "what's the weather like in Paris",
    "how many moons does Jupiter have",
    "tips for growing tomatoes",
    "symptoms of the flu",
    "history of the Roman empire",
    "how to knit a scarf",
    "which wine goes with fish",
    "train times from London to Edinburgh",
    "how do whales sleep",
    "the plot of Hamlet",
    "chess openings for beginners",
    "how to change a car tyre",
    "what do parrots eat",
    "yoga poses for back pain",
    "price of gold today",
    "learn Spanish vocabulary",
    "origami crane instructions",
    "zzzz qqqq xxxx",
];

#[test]
fn questions_about_nothing_in_the_vault_find_nothing_in_any_fixture_vault() {
    assert!(OFF_TOPIC.len() >= 20);
    for vault in ["search", "basic", "links", "semantic", "edge", "long"] {
        let env = TestEnv::with_vault(vault);
        for q in OFF_TOPIC {
            let h = hits(&env, &[q, "--no-touch"]);
            let found: Vec<String> = h
                .iter()
                .map(|h| {
                    format!("{} {:.2}", h["name"].as_str().unwrap(), h["score"].as_f64().unwrap())
                })
                .collect();
            assert!(found.is_empty(), "{vault}: {q:?} found {found:?}");
        }
    }
}

/// A small project vault whose memories each use one form of a word: an abbreviation, a long
/// form, or a sub-word.
fn vocabulary_vault() -> TestEnv {
    let env = TestEnv::empty();
    env.run(["init"]).success();
    let memory = |name: &str, text: &str| {
        env.write(&format!("{name}.md"), &format!("---\ntype: decision\n---\n{text}\n"));
    };
    memory("auth-refactor", "# Auth refactor\n\nSplit the login handler out of the session store.");
    memory("staging-cluster", "# Staging cluster\n\nThe staging k8s cluster runs three nodes.");
    memory(
        "kube-upgrade",
        "# Kubernetes upgrade\n\nThe cluster moved to Kubernetes 1.30 in March.",
    );
    memory("database", "# Database choice\n\nWe run Postgresql 16 with logical replication.");
    memory("lunch", "# Lunch\n\nLunch is at noon on the terrace.");
    env
}

#[test]
fn a_query_finds_the_memory_that_uses_another_form_of_its_word() {
    let env = vocabulary_vault();
    let first = |q: &str| -> (String, f64, Vec<String>) {
        let h = hits(&env, &[q, "--no-touch"]);
        let h = h.first().unwrap_or_else(|| panic!("{q:?} found nothing"));
        let expanded = h["explain"]["expanded_terms"]
            .as_array()
            .map(|a| a.iter().map(|t| t.as_str().unwrap().to_owned()).collect())
            .unwrap_or_default();
        (h["name"].as_str().unwrap().to_owned(), h["score"].as_f64().unwrap(), expanded)
    };
    // A sub-word of the vault, and abbreviations both ways, at a useful score; --explain says
    // which expansion matched.
    let (name, score, expanded) = first("authentication");
    assert_eq!(name, "auth-refactor");
    assert!(score >= 0.3, "authentication → {name} at {score:.2}");
    assert_eq!(expanded, ["authent→auth"]);
    for (q, want) in [("postgres", "database"), ("pg", "database"), ("db", "database")] {
        let (name, score, _) = first(q);
        assert_eq!(name, want, "{q}");
        assert!(score >= 0.3, "{q} → {name} at {score:.2}");
    }
    // `k8s` finds the memory about Kubernetes after the one that says k8s, and `kubernetes` the
    // one that only says k8s after the one about Kubernetes.
    for (q, exact, expanded) in [
        ("k8s", "staging-cluster", "kube-upgrade"),
        ("kubernetes", "kube-upgrade", "staging-cluster"),
    ] {
        let h = hits(&env, &[q, "--no-touch"]);
        assert_eq!(names(&h), [exact, expanded], "{q}");
        assert!(h[1]["score"].as_f64().unwrap() >= 0.3, "{q}: {h:?}");
        assert!(h[0]["explain"].get("expanded_terms").is_none(), "{q}: exact match expanded");
    }
    // The text output names the expansion.
    let text = env.run(["search", "authentication", "--explain", "--no-touch"]).success().stdout;
    assert!(text.contains("expanded: authent→auth"), "{text}");
    // Turned off, a term matches only itself.
    let off = hits(&env, &["authentication", "--no-touch", "-c", "search.expand_terms=false"]);
    assert!(off.is_empty(), "{off:?}");
    let off = hits(&env, &["authentication", "--no-touch", "-c", "search.expansion_weight=0"]);
    assert!(off.is_empty(), "{off:?}");
}

#[test]
fn expansion_finds_nothing_for_questions_about_nothing_in_the_vault() {
    let env = vocabulary_vault();
    for q in OFF_TOPIC {
        let h = hits(&env, &[q, "--no-touch"]);
        assert!(h.is_empty(), "{q:?} found {:?}", names(&h));
    }
}

#[test]
fn a_short_query_term_does_not_flood_the_results() {
    let env = TestEnv::empty();
    env.run(["init"]).success();
    // Many memories whose words start like short query terms.
    let words = [
        "golang", "gopher", "goal", "gold", "goods", "google", "gossip", "gothic", "gown", "gourd",
        "inbox", "index", "inner", "input", "insight", "install", "intent", "invoice", "island",
        "item", "ajax", "alpha", "amber", "anchor", "apple", "arrow", "atlas", "audit", "avatar",
        "axis",
    ];
    for w in words {
        env.write(&format!("{w}.md"), &format!("---\ntype: note\n---\nThe {w} ticket is open.\n"));
    }
    env.write("service.md", "---\ntype: note\n---\nThe billing service is written in Go.\n");
    let h = hits(&env, &["go", "--no-touch", "-n", "50"]);
    assert_eq!(names(&h), ["service"]);
    for q in ["a", "in", "i", "gol", "ind"] {
        let h = hits(&env, &[q, "--no-touch", "-n", "50"]);
        assert!(h.is_empty(), "{q:?} found {:?}", names(&h));
    }
}

#[test]
fn question_words_carry_no_evidence() {
    let env = TestEnv::with_vault("search");
    // "which", "do", "we" are in no memory of this vault's kind of text: left out, the query's
    // coverage is that of "database" and "use" alone.
    let h = hits(&env, &["which database do we use", "--no-touch", "-n", "1"]);
    // Counted in full (this vault's short memories would scale them down to nothing).
    let as_typed = hits(
        &env,
        &[
            "which database do we use",
            "--no-touch",
            "-n",
            "1",
            "-c",
            "search.question_weight=1",
            "-c",
            "search.question_chunk_terms=1",
        ],
    );
    let coverage = |h: &[serde_json::Value]| h[0]["explain"]["coverage"].as_f64().unwrap();
    assert_eq!(names(&h), ["db/postgres-choice"]);
    assert!(coverage(&h) > coverage(&as_typed), "{h:?}\n{as_typed:?}");
    // The calibration counts a question's other words only, so weighing question words in
    // never lowers the best result's score.
    assert!(h[0]["score"].as_f64().unwrap() >= as_typed[0]["score"].as_f64().unwrap());
}

/// A conversation: one memory per turn, all written in one sitting; and an unrelated remark of
/// the same speaker weeks later.
fn conversation(env: &TestEnv) {
    let turn = |n: u32, text: &str| {
        env.write(
            &format!("chat/turn-{n}.md"),
            &format!("---\ntype: journal\ncreated_at: 2025-06-01T18:00:00Z\n---\n{text}\n"),
        );
    };
    turn(1, "Alice: I finally adopted a dog from the animal shelter last weekend!");
    turn(2, "Bob: That is wonderful news. What did you call her?");
    turn(3, "Alice: Pepper. She sleeps all day and steals socks.");
    turn(4, "Bob: Ha, typical. Our cat ignores everyone.");
    turn(10, "Bob: Are you coming to the climbing gym on Thursday?");
    env.write(
        "chat/turn-11.md",
        "---\ntype: journal\ncreated_at: 2025-07-20T09:00:00Z\n---\nAlice: Pepper grinder broke again, \
         ordering a new one.\n",
    );
}

#[test]
fn a_turn_of_the_conversation_that_matches_the_question_lends_context_to_its_neighbours() {
    let env = TestEnv::empty();
    env.run(["init"]).success();
    conversation(&env);
    let q = "what is the name of the dog Alice adopted from the shelter, pepper?";
    let h = hits(&env, &[q, "--no-touch", "-n", "10"]);
    let pos = |h: &[serde_json::Value], n: &str| names(h).iter().position(|x| *x == n);
    // turn-3 ("Pepper. She …") and turn-11 ("Pepper grinder …") match the question alike on
    // their own; turn-3 sits next to the turn about adopting a dog from the shelter.
    let (three, eleven) = (pos(&h, "chat/turn-3").unwrap(), pos(&h, "chat/turn-11").unwrap());
    assert!(three < eleven, "{:?}", names(&h));
    assert!(h[three]["explain"]["context_bonus"].as_f64().unwrap() > 0.0);
    assert_eq!(h[eleven]["explain"]["context_bonus"].as_f64().unwrap(), 0.0, "weeks later");
    // Off, the context adds nothing.
    let off = hits(&env, &[q, "--no-touch", "-n", "10", "-c", "search.context_weight=0"]);
    assert!(off.iter().all(|h| h["explain"]["context_bonus"].as_f64().unwrap() == 0.0));
}

#[test]
fn the_reply_to_a_question_that_matches_is_found_though_it_shares_no_word_with_it() {
    let env = TestEnv::empty();
    env.run(["init"]).success();
    let line = |name: &str, day: u32, minute: u32, text: &str| {
        env.write(
            &format!("{name}.md"),
            &format!(
                "---\ntype: journal\ncreated_at: 2025-06-{day:02}T18:{minute:02}:00Z\n---\n{text}\n"
            ),
        );
    };
    line("chat/turn-1", 1, 0, "Melanie: A truck hit our car on the road trip last weekend.");
    line("chat/turn-2", 1, 1, "Caroline: Oh no! How did the kids handle the accident?");
    line("chat/turn-3", 1, 2, "Melanie: They were scared at first, but we reassured them.");
    line("chat/turn-4", 1, 3, "Caroline: I'm glad everyone is safe.");
    // Weeks later, Melanie's words match the question better than her answer does.
    line("chat/turn-40", 28, 0, "Melanie: The kids love the garden.");
    // A question and the next line by the same speaker: no reply.
    line("chat/turn-41", 28, 1, "Melanie: Did the kids like the drive, you ask?");
    line("chat/turn-42", 28, 2, "Melanie: The twins slept the whole way.");
    // Notes of one session, not lines of a transcript: the note after a question is no reply.
    line("notes/museum", 10, 0, "Open question: did the kids like the museum?");
    line("notes/menu", 10, 1, "Lunch menu for Melanie's visit: soup and bread.");

    let q = "How did Melanie's kids handle the accident?";
    let h = hits(&env, &[q, "--no-touch", "-n", "20"]);
    let pos = |h: &[serde_json::Value], n: &str| names(h).iter().position(|x| *x == n);
    let ex = |h: &[serde_json::Value], n: &str, key: &str| {
        h[pos(h, n).unwrap()]["explain"][key].as_f64().unwrap()
    };
    // Melanie's answer follows Caroline's question, which matched word for word.
    let (answer, chores) = (pos(&h, "chat/turn-3").unwrap(), pos(&h, "chat/turn-40").unwrap());
    assert!(answer < chores, "{:?}", names(&h));
    assert!(ex(&h, "chat/turn-3", "reply_to") > 0.0);
    let (bonus, question) =
        (ex(&h, "chat/turn-3", "context_bonus"), ex(&h, "chat/turn-3", "reply_to"));
    assert!(
        (bonus - 0.6 * question).abs() < 1e-3,
        "the reply's share of its question's score: {bonus} {question}"
    );
    // Both match "Melanie", and each follows a line that asks something.
    assert_eq!(ex(&h, "chat/turn-42", "reply_to"), 0.0, "the same speaker goes on");
    assert_eq!(ex(&h, "notes/menu", "reply_to"), 0.0, "a note is no line of a transcript");
    // Off, the answer's own words leave it below the line that shares them.
    let off = hits(&env, &[q, "--no-touch", "-n", "20", "-c", "search.reply_weight=0"]);
    assert!(
        pos(&off, "chat/turn-3").unwrap() > pos(&off, "chat/turn-40").unwrap(),
        "{:?}",
        names(&off)
    );
    assert!(off.iter().all(|h| h["explain"]["reply_to"].as_f64().unwrap() == 0.0));
}

#[test]
fn the_reply_to_a_question_that_matches_is_found_though_neither_list_retrieved_it() {
    let env = TestEnv::empty();
    env.run(["init"]).success();
    let line = |name: &str, minute: u32, text: &str| {
        env.write(
            &format!("{name}.md"),
            &format!(
                "---\ntype: journal\ncreated_at: 2025-06-01T18:{minute:02}:00Z\n---\n{text}\n"
            ),
        );
    };
    line("chat/turn-1", 0, "Melanie: A truck hit our car on the road trip last weekend.");
    line("chat/turn-2", 1, "Caroline: Oh no! How did the kids handle the accident?");
    line("chat/turn-3", 2, "Melanie: They were scared at first, but we reassured them.");
    for i in 0..40 {
        env.write(
            &format!("garden/note-{i}.md"),
            &format!("---\ntype: journal\ncreated_at: 2025-03-{:02}T09:00:00Z\n---\nWatered the tomato bed {i} and tied up the vines.\n", i % 28 + 1),
        );
    }
    // Lists of two chunks each: the answer shares no word with the question, and is not among
    // the two chunks nearest to it either.
    let q = "How did the kids handle the accident?";
    let args = [q, "--no-touch", "-n", "2", "-c", "search.min_candidates=1"];
    let args = [&args[..], &["-c", "search.candidate_factor=1", "-c", "search.score_threshold=0"]]
        .concat();
    let h = hits(&env, &args);
    assert_eq!(names(&h), ["chat/turn-2", "chat/turn-3"], "the question, then its answer");
    let answer = &h[1]["explain"];
    assert!(answer["bm25_rank"].is_null() && answer["vector_rank"].is_null(), "{answer}");
    assert!(answer["reply_to"].as_f64().unwrap() > 0.0, "{answer}");
    // Off, nothing brings it in.
    let off = hits(&env, &[&args[..], &["-c", "search.reply_weight=0"]].concat());
    assert!(!names(&off).contains(&"chat/turn-3"), "{:?}", names(&off));
}

#[test]
fn a_question_about_a_person_prefers_what_that_person_said() {
    let env = TestEnv::empty();
    env.run(["init"]).success();
    let turn = |n: u32, text: &str| {
        env.write(
            &format!("chat/turn-{n}.md"),
            &format!("---\ntype: journal\ncreated_at: 2025-06-0{n}T18:00:00Z\n---\n{text}\n"),
        );
    };
    // Bob greets Alice by name in a short turn; Alice says what she did in a longer one.
    turn(1, "Bob: Alice, how was your weekend?");
    turn(3, "Alice: I spent the weekend rock climbing at the quarry with my sister.");
    turn(5, "Bob: Our cat ignores everyone.");
    let q = "What does Alice do on weekends?";
    let h = hits(&env, &[q, "--no-touch"]);
    assert_eq!(names(&h), ["chat/turn-3", "chat/turn-1"], "Alice's own turn first");
    let factor = |h: &serde_json::Value| h["explain"]["subject_factor"].as_f64().unwrap();
    assert!(factor(&h[0]) > 1.0, "{h:?}");
    assert_eq!(factor(&h[1]), 1.0, "a turn that only names Alice is not hers");
    // Off, the shorter turn that greets her wins on its words alone.
    let off = hits(&env, &[q, "--no-touch", "-c", "search.subject_weight=0"]);
    assert_eq!(names(&off), ["chat/turn-1", "chat/turn-3"]);
    assert!(off.iter().all(|h| factor(h) == 1.0));
    // A question that names nobody leaves the order to the rest of the ranking.
    let nobody = hits(&env, &["what happened at the quarry", "--no-touch"]);
    assert!(nobody.iter().all(|h| factor(h) == 1.0));
}

#[test]
fn a_time_named_in_the_question_prefers_memories_written_then() {
    let mut env = TestEnv::empty();
    env.set_now("2025-09-01T12:00:00Z");
    env.run(["init"]).success();
    for (name, when) in [("deploy-march", "2025-03-12"), ("deploy-july", "2025-07-08")] {
        env.write(
            &format!("{name}.md"),
            &format!(
                "---\ntype: bug_fix\ncreated_at: {when}T10:00:00Z\n---\nThe deploy failed: the \
                 migration locked the orders table.\n"
            ),
        );
    }
    for (q, first) in [
        ("why did the deploy fail in March 2025", "deploy-march"),
        ("why did the deploy fail last March", "deploy-march"),
        ("why did the deploy fail on 8 July, 2025", "deploy-july"),
    ] {
        let h = hits(&env, &[q, "--no-touch"]);
        assert_eq!(names(&h)[0], first, "{q}");
        assert_eq!(h[0]["explain"]["time_closeness"].as_f64().unwrap(), 1.0, "{q}");
        assert!(h[1]["explain"]["time_factor"].as_f64().unwrap() < 1.0, "{q}");
    }
    // A question that names no time leaves the order to the rest of the ranking.
    let h = hits(&env, &["why did the deploy fail", "--no-touch"]);
    assert!(h.iter().all(|h| h["explain"]["time_factor"].as_f64().unwrap() == 1.0));
}

#[test]
fn an_old_cold_memory_that_matches_is_never_hidden_by_the_threshold() {
    let env = TestEnv::empty();
    env.run(["init"]).success();
    // A journal entry from years ago: its type decay (half-life 30 days) and temperature bring
    // its final score far down, but it is still the answer.
    env.write(
        "old-note.md",
        "---\ntype: journal\ncreated_at: 2019-03-01T10:00:00Z\n---\nThe staging VPN uses \
         WireGuard on port 51820.\n",
    );
    let h = hits(
        &env,
        &["which port does the staging VPN use", "--no-touch", "-c", "lifecycle.clock=calendar"],
    );
    assert_eq!(names(&h), ["old-note"]);
    let ex = &h[0]["explain"];
    assert!(ex["type_decay"].as_f64().unwrap() < 0.05, "{ex}");
    assert!(ex["calibrated"].as_f64().unwrap() >= 0.1, "{ex}");
    assert!(h[0]["score"].as_f64().unwrap() < 0.1, "ordered by the lifecycle, not hidden: {ex}");
}

#[test]
fn explain_says_how_the_query_was_read() {
    let env = TestEnv::with_vault("search");
    let out = env
        .run(["search", "which database did we pick in June 2025?", "--explain", "--no-touch"])
        .success();
    let first = out.stdout.lines().next().unwrap();
    assert!(first.starts_with("query: terms databas"), "{out}");
    assert!(first.contains("question words which, did, we"), "{out}");
    assert!(first.contains("names the time 2025-06-01T00:00:00Z to 2025-07-01T00:00:00Z"), "{out}");
    assert!(out.stdout.contains("db/postgres-choice"), "{out}");
}

/// The search of the `long` fixture vault: a long chat whose sections each run to a hundred words
/// or more (which reverse proxy, setting it up, backups), and two long notes that share some of
/// the words of a request about it.
fn long_search(env: &TestEnv, args: &[&str]) -> serde_json::Value {
    let mut a = vec!["search", "--json", "--explain", "--no-touch"];
    a.extend_from_slice(args);
    env.run(a).success().json()
}

#[test]
fn a_request_about_a_long_memory_finds_the_section_that_answers_it() {
    let env = TestEnv::with_vault("long");
    let q = "Can you remind me how I set up the reverse proxy?";
    let out = long_search(&env, &[q]);
    let first = &out["results"][0];
    assert_eq!(first["name"], "chats/home-server", "{out:#}");
    // The section shown is the one that answers, not the one that repeats "reverse proxy" most.
    let section = first["header_path"].as_str().unwrap();
    assert!(section.ends_with("Setting it up"), "{section}");
    assert!(first["explain"]["lexical_chunk"].as_u64().unwrap() > 0, "{first:#}");
    // The vault's chunks are long, so the request's own words (how, I, up) count.
    let text = env.run(["search", q, "--explain", "--no-touch"]).success();
    let reading = text.stdout.lines().next().unwrap();
    assert!(
        reading.contains("question words can, you, me, how, i, up") && reading.contains("(×0.30)"),
        "{reading}"
    );
    // The note that only shares "set up" and "remind me" comes after it.
    let names: Vec<&str> =
        out["results"].as_array().unwrap().iter().map(|h| h["name"].as_str().unwrap()).collect();
    let garden = names.iter().position(|n| *n == "notes/garden");
    assert!(garden.is_none_or(|g| g > 0), "{names:?}");

    // Question words left out but each memory measured on its best retrieved section: the
    // chat still comes first, with the section that answers.
    let sections =
        long_search(&env, &[q, "-c", "search.lexical_chunks=8", "-c", "search.question_weight=0"]);
    let first = &sections["results"][0];
    assert_eq!(first["name"], "chats/home-server", "{sections:#}");
    assert!(first["header_path"].as_str().unwrap().ends_with("Setting it up"), "{first:#}");

    // A memory measured by its best BM25 chunk alone, question words left out: the note about
    // the garden comes first, and the chat shows its section about choosing the proxy.
    let old =
        long_search(&env, &[q, "-c", "search.lexical_chunks=1", "-c", "search.question_weight=0"]);
    let first = &old["results"][0];
    assert_eq!(first["name"], "notes/garden", "{old:#}");
    let chat = old["results"].as_array().unwrap().iter().find(|h| h["name"] == "chats/home-server");
    assert!(chat.unwrap()["header_path"].as_str().unwrap().ends_with("Which reverse proxy"));
}

#[test]
fn question_words_count_only_where_chunks_are_long() {
    // One line per memory, a conversation: question words weigh nothing.
    let env = TestEnv::empty();
    env.run(["init"]).success();
    conversation(&env);
    let reading = |env: &TestEnv| {
        let out = env.run(["search", "what did Alice call her dog?", "--explain", "--no-touch"]);
        out.success().stdout.lines().next().unwrap().to_owned()
    };
    let short = reading(&env);
    assert!(short.contains("question words what, did") && short.contains("(×0.00)"), "{short}");
    // In the long fixture vault the same question words count.
    let long = reading(&TestEnv::with_vault("long"));
    assert!(long.contains("question words what, did") && long.contains("(×0.30)"), "{long}");
}

/// A conversation whose answer to a two-part question sits in two turns weeks apart: one names
/// the plan in the question's words, the other only what became of it, with the story's own
/// names (the brother, Denver); and three turns of the same speaker that share the question's
/// commonest word.
fn trip_conversation(env: &TestEnv, speakers: bool) {
    let turn = |n: u32, when: &str, text: &str| {
        let text = if speakers { text } else { text.split_once(": ").unwrap().1 };
        env.write(
            &format!("chat/t{n:02}.md"),
            &format!("---\ntype: journal\ncreated_at: {when}\n---\n{text}\n"),
        );
    };
    turn(
        1,
        "2025-03-02T18:00:00Z",
        "Tom: My brother and I are heading to Denver for a climbing trip.",
    );
    turn(2, "2025-03-02T18:01:00Z", "Maya: Denver has great gyms, you two will love it.");
    turn(3, "2025-04-11T09:00:00Z", "Tom: The road trip playlist is finally done.");
    turn(4, "2025-04-19T09:01:00Z", "Tom: Our team trip to the science museum was fun.");
    turn(5, "2025-05-20T20:00:00Z", "Tom: The trip is off, my brother broke his wrist in Denver.");
    turn(
        6,
        "2025-05-22T20:01:00Z",
        "Maya: Work has been busy, the quarterly report is due Friday.",
    );
    turn(7, "2025-06-15T08:00:00Z", "Tom: Thinking about a trip to the coast next summer.");
    turn(8, "2025-06-18T08:01:00Z", "Maya: The budget review keeps moving.");
}

#[test]
fn a_question_whose_answer_is_spread_finds_the_turn_that_shares_the_story() {
    let env = TestEnv::empty();
    env.run(["init"]).success();
    trip_conversation(&env, true);
    let q = "What happened on the climbing trip Tom planned?";
    let h = hits(&env, &[q, "--no-touch", "-n", "5"]);
    let feedback = |h: &serde_json::Value| h["explain"]["feedback"].as_f64().unwrap();
    // The plan first, and what became of it next: it shares the brother and Denver with the plan,
    // where the other trips share only "trip" and "Tom" with the question.
    assert_eq!(names(&h)[..2], ["chat/t01", "chat/t05"], "{:?}", names(&h));
    assert!(feedback(&h[1]) > 0.5, "{h:?}");
    for other in &h[2..] {
        assert_eq!(feedback(other), 0.0, "{other}");
    }
    // Off, the turn about the wrist is one more turn with the question's two commonest words.
    let off = hits(&env, &[q, "--no-touch", "-n", "5", "-c", "search.feedback_weight=0"]);
    let at = names(&off).iter().position(|n| *n == "chat/t05").unwrap();
    assert!(at > 1, "{:?}", names(&off));
    assert!(off.iter().all(|h| feedback(h) == 0.0));
    // A question about nothing in the conversation still finds nothing.
    assert!(hits(&env, &["kubernetes ingress certificate renewal", "--no-touch"]).is_empty());
}

#[test]
fn feedback_weighs_only_on_short_lines_of_a_transcript() {
    let no_feedback = |env: &TestEnv, q: &str| {
        let h = hits(env, &[q, "--no-touch"]);
        assert!(!h.is_empty(), "{q}");
        assert!(h.iter().all(|h| h["explain"]["feedback"].as_f64().unwrap() == 0.0), "{h:?}");
    };
    // In the long fixture vault, whose sections run to a hundred words, each section holds its
    // own evidence and the words of the best ones lead away from the question.
    no_feedback(&TestEnv::with_vault("long"), "can you remind me how I set up the reverse proxy?");
    // Short notes that each stand on their own (the same lines without their speakers): the
    // words of the best notes would lead to their look-alikes.
    let env = TestEnv::empty();
    env.run(["init"]).success();
    trip_conversation(&env, false);
    no_feedback(&env, "What happened on the climbing trip my brother planned?");
}
