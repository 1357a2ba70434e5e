//! No `<private>` content or credential reaches disk through memlane (the exact redaction rules
//! are unit-tested in `src/privacy/tests/`, one test per PRIVACY_CASES.md row and per secret kind).

use crate::common::TestEnv;

const LEAKS: &[&str] =
    &["sk-live-secret", "hunter2", "AKIAIOSFODNN7EXAMPLE", "ghp_", "BEGIN RSA", "p4ssw0rd"];

fn assert_no_leak(env: &TestEnv) {
    for (file, bytes) in env.contents() {
        let text = String::from_utf8_lossy(&bytes);
        for leak in LEAKS {
            assert!(!text.contains(leak), "{leak} reached {file}:\n{text}");
        }
    }
}

#[test]
fn private_blocks_and_secrets_never_reach_disk() {
    let env = TestEnv::with_vault("basic");
    let content = "Deploy notes <private>the root password is hunter2</private> for staging.\n\
        AWS key AKIAIOSFODNN7EXAMPLE and token ghp_abcdefghijklmnopqrstuvwxyz0123456789.\n\
        DATABASE_URL=postgres://app:p4ssw0rd@db.internal:5432/app\n\
        -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\n";
    let out = env.run(["add", "creds", content, "--json"]).success().json();
    assert_eq!(out["status"], "created");
    assert_eq!(out["had_private_content"], true);
    assert_eq!(out["private_blocks"], 1);
    let kinds: Vec<&str> =
        out["secrets"].as_array().unwrap().iter().map(|s| s["kind"].as_str().unwrap()).collect();
    assert!(kinds.len() >= 4, "{kinds:?}");
    let text = env.read("creds.md");
    assert!(text.contains("had_private_content: true\n"), "{text}");
    assert!(text.contains("Deploy notes [redacted] for staging."), "{text}");
    assert!(text.contains("«redacted:"), "{text}");
    assert_no_leak(&env);

    // Through update, append and update --raw too.
    env.run(["update", "creds", "now <private>sk-live-secret</private>"]).success();
    env.run(["append", "creds", "and password=hunter2"]).success();
    env.run_stdin(
        ["update", "creds", "--raw"],
        "---\ntype: fact\nnote: <private>hunter2</private>\n---\n\nAKIAIOSFODNN7EXAMPLE\n",
    )
    .success();
    // History holds earlier versions — those were redacted too.
    assert_no_leak(&env);
}

/// Found by fuzzing: a block whose closing tag only appears once the key inside it
/// is scrubbed used to reach disk with its words, while `show` hid it.
#[test]
fn a_block_revealed_by_scrubbing_never_reaches_disk() {
    let env = TestEnv::with_vault("basic");
    let content = "Plan <private<private>-----BEGIN PRIVATE KEY-----\n<private-----END PRIVATE KEY----- \
        acme merger codename </private> ships.";
    let out = env.run(["add", "plan", content, "--json"]).success().json();
    assert_eq!(out["had_private_content"], true, "{out}");
    let text = env.read("plan.md");
    assert!(text.contains("Plan [redacted] ships."), "{text}");
    assert!(!text.contains("acme merger codename"), "{text}");
}

#[test]
fn content_empty_after_redaction_is_skipped_and_nothing_is_written() {
    let env = TestEnv::with_vault("basic");
    let before = env.contents();
    let out = env.run(["add", "only-private", "<private>everything</private>"]).success();
    assert_eq!(
        out.stdout,
        "skipped only-private: the content is empty after redaction\n  redacted: 1 private block\n"
    );
    let json =
        env.run(["add", "only-private", "  <private>x</private>\n", "--json"]).success().json();
    assert_eq!(json["status"], "skipped");
    assert_eq!(env.contents(), before);

    let out = env.run(["update", "deploy-notes", "<private>all of it</private>"]).success();
    assert!(out.stdout.starts_with("skipped deploy-notes"), "{out}");
    assert_eq!(env.contents(), before);
}

#[test]
fn hand_written_private_blocks_are_not_shown() {
    let env = TestEnv::with_vault("basic");
    env.write(
        "hand.md",
        "---\ntype: fact\n---\n\nvisible <private>hidden-by-hand</private> text\n",
    );
    let out = env.run(["show", "hand"]).success();
    assert!(out.stdout.contains("visible [redacted] text"), "{out}");
    assert!(!out.stdout.contains("hidden-by-hand"));
    let json = env.run(["show", "hand", "--json"]).success().json();
    assert!(!json["content"].as_str().unwrap().contains("hidden-by-hand"));
    // --raw is the file as the user wrote it, on the user's own disk.
    assert!(env.run(["show", "hand", "--raw"]).success().stdout.contains("hidden-by-hand"));
    // The file itself is never rewritten by reading.
    assert!(env.read("hand.md").contains("hidden-by-hand"));
}

// -- metadata -------------------------------------------------------------

/// Planted in tags, frontmatter values and names; none may reach a file name, a file (indices
/// and manifest included), or any output.
const META_LEAKS: &[&str] = &[
    "zirconcodename",
    "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d",
    "AKIAIOSFODNN7EXAMPLE",
    "u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d",
    "hunter2",
];

/// The vault's files without the derived indices and usage state (commands refresh those).
pub(crate) fn memory_files(env: &TestEnv) -> Vec<(String, Vec<u8>)> {
    let mut files = env.contents();
    files.retain(|(f, _)| !f.starts_with("indices/") && !f.starts_with("state/"));
    files
}

#[track_caller]
fn assert_no_meta_leak(env: &TestEnv, what: &str, text: &str) {
    for leak in META_LEAKS {
        assert!(!text.contains(leak), "{leak} leaked through {what}:\n{text}");
    }
    for (file, bytes) in env.contents() {
        let body = String::from_utf8_lossy(&bytes);
        for leak in META_LEAKS {
            assert!(!file.contains(leak), "{leak} reached a file name: {file}");
            assert!(!body.contains(leak), "{leak} reached {file} (after {what}):\n{body}");
        }
    }
}

#[test]
fn secrets_in_tags_never_reach_disk_index_or_output() {
    let env = TestEnv::with_vault("basic");
    let out = env
        .run([
            "add",
            "launch",
            "Launch checklist for the billing service.",
            "--tag",
            "deploy",
            "--tag",
            "<private>zirconcodename</private>",
            "--tag",
            "key_ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d",
            "--json",
        ])
        .success();
    let json = out.json();
    assert_eq!(json["status"], "created", "{out}");
    assert_eq!(json["tags_dropped"], 2, "{out}");
    assert_eq!(json["had_private_content"], true, "{out}");
    assert_no_meta_leak(&env, "add --tag", &out.stdout);
    let file = env.read("launch.md");
    assert!(file.contains("tags: [deploy]"), "{file}");
    assert!(file.contains("had_private_content: true"), "{file}");

    let out = env
        .run(["update", "launch", "--add-tag", "AKIAIOSFODNN7EXAMPLE", "--add-tag", "billing"])
        .success();
    assert!(out.stdout.contains("1 tag dropped"), "{out}");
    assert!(env.read("launch.md").contains("tags: [deploy, billing]"));
    assert_no_meta_leak(&env, "update --add-tag", &out.stdout);

    // Replacing the whole file keeps a private tag out too (dropped, not `[redacted]`).
    env.run_stdin(
        ["update", "launch", "--raw"],
        "---\ntype: fact\ntags: [ops, \"<private>zirconcodename</private>\"]\n---\n\nLaunch checklist.\n",
    )
    .success();
    assert!(env.read("launch.md").contains("tags: [ops]"), "{}", env.read("launch.md"));

    for args in [
        vec!["show", "launch", "--json"],
        vec!["list", "--json"],
        vec!["search", "launch checklist billing", "--json"],
        vec!["doctor", "--json"],
    ] {
        let out = env.run(&args).success();
        assert_no_meta_leak(&env, &args.join(" "), &format!("{}{}", out.stdout, out.stderr));
    }
}

#[test]
fn hand_written_metadata_is_redacted_in_every_output_and_merge() {
    let env = TestEnv::with_vault("basic");
    // An unknown type is quoted in a warning: redacted too.
    env.write(
        "typed.md",
        "---\ntype: zircon<private>zirconcodename</private>\n---\n\nA memory of an odd type.\n",
    );
    env.write(
        "hand.md",
        "---\ntype: fact\ntags: [ops, \"<private>zirconcodename</private>\", key_ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d]\nowner: \"password=hunter2\"\nnested: {note: \"<private>zirconcodename</private>\", list: [AKIAIOSFODNN7EXAMPLE]}\n---\n\nRotate the ops pager schedule every Monday.\n",
    );
    let before = env.read("hand.md");
    let mut seen = String::new();
    for args in [
        vec!["show", "hand", "--json"],
        vec!["show", "hand"],
        vec!["list", "--json"],
        vec!["list"],
        vec!["search", "ops pager schedule", "--json"],
        vec!["doctor"],
    ] {
        let out = env.run(&args).success();
        seen.push_str(&out.stdout);
        // Warnings quote values (`unknown type: …`); they are redacted too.
        seen.push_str(&out.stderr);
        assert!(!out.stdout.is_empty(), "{args:?}");
    }
    // The file itself is the user's and is never rewritten by reading.
    assert_eq!(env.read("hand.md"), before);
    let typed = env.run(["show", "typed", "--json"]).success();
    assert!(typed.stderr.contains("unknown `type: zircon[redacted]`"), "{typed}");
    seen.push_str(&format!("{typed}"));
    // Only the hand-written files may hold the planted values.
    let typed_before = env.read("typed.md");
    std::fs::remove_file(env.vault().join("hand.md")).unwrap();
    std::fs::remove_file(env.vault().join("typed.md")).unwrap();
    assert_no_meta_leak(&env, "show/list/search/doctor", &seen);
    env.write("hand.md", &before);

    let json = env.run(["show", "hand", "--json"]).success().json();
    assert_eq!(json["tags"], serde_json::json!(["ops"]), "{json}");
    assert_eq!(json["frontmatter"]["tags"], serde_json::json!(["ops"]), "{json}");
    assert_eq!(json["frontmatter"]["nested"]["note"], "[redacted]", "{json}");
    assert_eq!(json["frontmatter"]["owner"], "password=«redacted:password-assignment»", "{json}");

    // A merge unites the sources' tags: the redacted ones.
    let out = env.run(["merge", "hand", "standup", "--into", "rituals", "--json"]).success();
    assert!(env.read("rituals.md").contains("tags: [ops]"), "{}", env.read("rituals.md"));
    // The sources went to the trash (and their history) as the user wrote them; only the new
    // memory is memlane's.
    std::fs::remove_dir_all(env.vault().join(".trash")).unwrap();
    std::fs::remove_dir_all(env.vault().join(".history")).unwrap();
    assert_no_meta_leak(&env, "merge", &out.stdout);
    env.write("typed.md", &typed_before);
}

#[test]
fn a_name_holding_a_secret_is_refused_without_echoing_it() {
    let env = TestEnv::with_vault("basic");
    let before = memory_files(&env);
    let out = env.run(["add", "key_ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d", "text"]).code(2);
    assert!(out.stderr.contains("holds private text or a credential"), "{out}");
    let out2 = env.run(["mv", "deploy-notes", "AKIAIOSFODNN7EXAMPLE"]).code(2);
    assert!(out2.stderr.contains("holds private text or a credential"), "{out2}");
    let out3 = env.run(["add", "a<private>zirconcodename</private>", "text"]).code(2);
    assert!(out3.stderr.contains("invalid memory name"), "{out3}");
    assert_eq!(memory_files(&env), before);
    assert_no_meta_leak(&env, "refused names", &format!("{out}{out2}{out3}"));
}

#[test]
fn argument_errors_never_echo_content() {
    let env = TestEnv::with_vault("basic");
    let before = env.contents();
    for args in [
        vec!["add", "--bogus", "my zirconcodename text"],
        vec!["add", "note", "content", "more zirconcodename text"],
        vec!["add", "note", "content", "hunter2"],
        vec!["remember the zirconcodename password"],
        vec!["list", "--status", "zirconcodename hunter2"],
        vec!["search", "--limit", "zirconcodename", "x"],
        vec!["add", "note", "--bogus=zirconcodename", "x"],
    ] {
        let out = env.run(&args).code(2);
        assert!(out.stderr.starts_with("error: "), "{args:?}: {out}");
        assert!(out.stderr.contains("Usage:") || out.stderr.contains("--help"), "{out}");
        assert_no_meta_leak(&env, &format!("{args:?}"), &format!("{}{}", out.stdout, out.stderr));
    }
    // What is not content is still named, so the error says what to fix.
    let out = env.run(["add", "--bogus", "x"]).code(2);
    assert!(out.stderr.contains("'--bogus'"), "{out}");
    let out = env.run(["search", "--limit", "12ab", "x"]).code(2);
    assert!(out.stderr.contains("for '--limit <LIMIT>': invalid digit"), "{out}");
    let out = env.run(["list", "--status", "zirconcodename"]).code(2);
    assert!(out.stderr.contains("[possible values: active, archived, all]"), "{out}");
    assert_eq!(env.contents(), before);
}

// -- over MCP ------------------------------------------------------------------------------------

#[test]
fn mcp_never_puts_private_text_or_keys_in_names_tags_or_responses() {
    use serde_json::json;
    let env = TestEnv::with_vault("basic");
    let mut c = crate::mcp::Client::start(&env);
    c.initialize();
    let mut seen = String::new();

    // See: #14 — this used to become `private-zirconcodename-private-deploy….md`.
    let r = c.ok(
        "remember",
        json!({"content": "<private>zirconcodename merger</private> deploy the billing service on Tuesdays"}),
    );
    assert_eq!(r["action"], "created", "{r}");
    assert_eq!(r["name"], "deploy-the-billing-service-on-tuesdays", "{r}");
    seen.push_str(&r.to_string());
    let r = c.ok(
        "remember",
        json!({"content": "AKIAIOSFODNN7EXAMPLE opens the reporting bucket for finance exports"}),
    );
    assert_eq!(r["name"], "opens-the-reporting-bucket-for-finance", "{r}");
    seen.push_str(&r.to_string());

    let r = c.ok(
        "create_memory",
        json!({
            "name": "pager",
            "content": "The pager rotation changes on Mondays.",
            "tags": ["ops", "<private>zirconcodename</private>", "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"],
        }),
    );
    assert_eq!(r["tags_dropped"], 2, "{r}");
    seen.push_str(&r.to_string());
    for (tool, args) in [
        ("read_memory", json!({"name": "pager"})),
        ("search_memories", json!({"query": "pager rotation mondays"})),
        ("search_memories", json!({"query": "billing service tuesdays"})),
    ] {
        let r = c.ok(tool, args);
        seen.push_str(&r.to_string());
    }
    let read = c.ok("read_memory", json!({"name": "pager"}));
    assert_eq!(read["tags"], json!(["ops"]), "{read}");
    let err = c.err(
        "create_memory",
        json!({"name": "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d", "content": "x y z"}),
    );
    seen.push_str(&err);
    drop(c);
    assert_no_meta_leak(&env, "MCP", &seen);
}

// -- names, link targets and keyed values derived from hand-written files -----------------------

/// Every file under the vault except `skip` (the user's own bytes), with the first of `leaks`
/// found in it (compared without letter case: a slug lowercases what it takes).
fn leaked_in(env: &TestEnv, skip: &[&str], leaks: &[&str]) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for (file, bytes) in env.contents() {
        if skip.iter().any(|s| file == *s || file.starts_with(&format!("{s}/"))) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes).to_lowercase();
        if let Some(leak) = leaks.iter().find(|l| text.contains(&l.to_lowercase())) {
            found.push((file, (*leak).to_owned()));
        }
    }
    found
}

#[test]
fn split_never_names_a_piece_after_a_secret_heading() {
    let env = TestEnv::with_vault("basic");
    env.write(
        "keys.md",
        "---\ntype: fact\n---\n\n# Key AKIAIOSFODNN7EXAMPLE usage\n\nUse it for the reporting bucket.\n\n\
         # <private>zirconcodename</private> launch\n\nThe launch is on Friday.\n\n\
         # Rotation\n\nRotate every month.\n",
    );
    let out = env.run(["split", "keys", "--json"]).success();
    assert!(!out.stdout.contains("zirconcodename"), "{out}");
    assert!(!out.stdout.to_lowercase().contains("akiaiosfodnn7example"), "{out}");
    let names: Vec<String> = env.files().into_iter().filter(|f| f.starts_with("keys/")).collect();
    assert_eq!(names, ["keys/key-usage.md", "keys/launch.md", "keys/rotation.md"], "{out}");
    // The pieces are cut from the redacted body.
    let launch = env.read("keys/launch.md");
    assert!(launch.contains("# [redacted] launch"), "{launch}");
    assert!(launch.contains("had_private_content: true"), "{launch}");

    // Names reach the manifest, the graph, the hints and every listing: none holds the secret.
    let mut seen = String::new();
    for args in [
        vec!["list", "--json"],
        vec!["tree"],
        vec!["search", "reporting bucket", "--json"],
        vec!["relationships", "keys/key-usage", "--json"],
        vec!["doctor"],
    ] {
        let out = env.run(&args).success();
        seen.push_str(&format!("{out}"));
    }
    let hint = env.run(["show", "keys/akia"]).code(2);
    seen.push_str(&format!("{hint}"));
    let hint = env.run(["show", "keys/zirconcodenam"]).code(2);
    seen.push_str(&format!("{hint}"));
    assert!(!seen.to_lowercase().contains("akiaiosfodnn7example"), "{seen}");
    assert!(!seen.contains("zirconcodename"), "{seen}");
    // On disk: only the original (the user's file) holds them, nowhere in `indices/` or `state/`.
    let leaks = leaked_in(&env, &["keys.md"], &["AKIAIOSFODNN7EXAMPLE", "zirconcodename"]);
    assert!(leaks.is_empty(), "{leaks:?}");
    assert!(env.files().iter().any(|f| f.starts_with("indices/")), "the indices exist");
}

#[test]
fn a_heading_that_is_all_secret_gives_a_numbered_piece() {
    let env = TestEnv::with_vault("basic");
    env.write(
        "pair.md",
        "---\ntype: fact\n---\n\n## ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d\n\nThe CI token.\n\n\
         ## <private>zirconcodename</private>\n\nThe codename.\n",
    );
    env.run(["split", "pair"]).success();
    let names: Vec<String> = env.files().into_iter().filter(|f| f.starts_with("pair")).collect();
    assert_eq!(names, ["pair-1.md", "pair-2.md", "pair.md"]);
    let leaks = leaked_in(&env, &["pair.md"], &["ghp_u8jz", "zirconcodename"]);
    assert!(leaks.is_empty(), "{leaks:?}");
}

const LINKER: &str = "---\ntype: fact\nlinks:\n\
  - { type: depends_on, target: AKIAIOSFODNN7EXAMPLE }\n\
  - { type: extends, target: \"notes/<private>zirconcodename</private>\" }\n\
  - ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d\n\
  - { type: related_to, target: standup, context: \"password=hunter2\" }\n\
---\n\nSee [[AKIAIOSFODNN7EXAMPLE]] and [[docs/<private>zirconcodename</private>.md]] and \
[[memory:deploy-notes]] for the rota. Not [[<private>zirconcodename</private>]] nor \
[[plan <private>zirconcodename</private>]].\n";

#[test]
fn secret_link_targets_never_reach_the_graph_ghosts_outputs_or_a_merge() {
    let env = TestEnv::with_vault("basic");
    env.write("linker.md", LINKER);
    let leaks = ["AKIAIOSFODNN7EXAMPLE", "zirconcodename", "ghp_u8jz", "hunter2"];
    let rel = env.run(["relationships", "linker", "--json"]).success();
    let json = rel.json();
    // The clean links stay: the typed one to standup (its context redacted) and the body's.
    let shown = json.to_string();
    assert!(shown.contains("deploy-notes") && shown.contains("standup"), "{json}");
    let mut seen = format!("{rel}");
    for args in [
        vec!["linked", "deploy-notes", "--json"],
        vec!["related", "linker", "--json"],
        vec!["relationships", "deploy-notes", "--json"],
        vec!["doctor"],
        vec!["reindex"],
        vec!["doctor", "--json"],
    ] {
        let out = env.run(&args).success();
        seen.push_str(&format!("{out}"));
    }
    for leak in leaks {
        assert!(!seen.contains(leak), "{leak} in an output: {seen}");
    }
    // graph.json, the ghost list, the manifest and the state hold none of them.
    let found = leaked_in(&env, &["linker.md"], &leaks);
    assert!(found.is_empty(), "{found:?}");
    // Nor a ghost made of a marker's pieces (`[[plan [redacted]]]` is no link).
    let graph: serde_json::Value =
        serde_json::from_str(&env.read("indices/graph/graph.json")).unwrap();
    let nodes: Vec<&str> =
        graph["nodes"].as_array().unwrap().iter().map(|n| n["key"].as_str().unwrap()).collect();
    assert!(!nodes.iter().any(|n| n.contains("redacted")), "{nodes:?}");
    assert!(nodes.contains(&"memory:deploy-notes"), "the clean links are there: {nodes:?}");
    let ghosts = env.read("indices/graph/ghosts.txt");
    assert!(!ghosts.contains("redacted"), "{ghosts}");

    // MCP gives the same answer.
    let mut c = crate::mcp::Client::start(&env);
    c.initialize();
    let r = c.ok("get_memory_relationships", serde_json::json!({"name": "linker"}));
    drop(c);
    for leak in leaks {
        assert!(!r.to_string().contains(leak), "{leak} over MCP: {r}");
    }

    // A merge copies the clean links only, and its body is redacted like every write.
    env.run(["merge", "linker", "deploy-notes", "--into", "united"]).success();
    let united = env.read("united.md");
    assert!(united.contains("target: standup"), "the clean link is kept:\n{united}");
    assert!(united.contains("«redacted:password-assignment»"), "its context redacted:\n{united}");
    for leak in leaks {
        assert!(!united.contains(leak), "{leak} copied into the merged file:\n{united}");
    }
    // The sources' own bytes are in the trash and history; nothing else memlane wrote holds them.
    let found = leaked_in(&env, &[".trash", ".history"], &leaks);
    assert!(found.is_empty(), "{found:?}");
}

const KEYED: &str = "---\ntype: fact\npassword: hunter2\nAPI-Key: zq81LmT0pQ\n\
db_password: \"s3cr3tvalue\"\nclient_secret: 90817263\nauth: xyzzyplugh\n\
credentials:\n  user: opsbot\n  pass: plughxyzzy\n\
services:\n  - name: billing\n    Token: tok3nvalue\n\
password_hint: the usual one\nmax_tokens: 500\nsecret: ${VAULT_SECRET}\n---\n\n\
The billing service talks to the ledger.\n";

const KEYED_VALUES: &[&str] =
    &["hunter2", "zq81LmT0pQ", "s3cr3tvalue", "90817263", "xyzzyplugh", "plughxyzzy", "tok3nvalue"];

#[test]
fn keyed_frontmatter_secrets_are_redacted_everywhere_but_show_raw() {
    let env = TestEnv::with_vault("basic");
    env.write("svc.md", KEYED);
    let json = env.run(["show", "svc", "--json"]).success().json();
    let fm = &json["frontmatter"];
    let marker = "«redacted:password-assignment»";
    for key in ["password", "API-Key", "db_password", "client_secret", "auth"] {
        assert_eq!(fm[key], marker, "{key}: {json}");
    }
    assert_eq!(fm["credentials"]["pass"], marker, "{json}");
    assert_eq!(fm["credentials"]["user"], marker, "everything under `credentials`: {json}");
    assert_eq!(fm["services"][0]["Token"], marker, "{json}");
    assert_eq!(fm["services"][0]["name"], "billing", "{json}");
    // Not secrets: a hint, a count, a placeholder.
    assert_eq!(fm["password_hint"], "the usual one", "{json}");
    assert_eq!(fm["max_tokens"], 500, "{json}");
    assert_eq!(fm["secret"], "${VAULT_SECRET}", "{json}");

    let mut seen = json.to_string();
    for args in [vec!["show", "svc"], vec!["list", "--json"], vec!["search", "ledger", "--json"]] {
        let out = env.run(&args).success();
        seen.push_str(&format!("{out}"));
    }
    let mut c = crate::mcp::Client::start(&env);
    c.initialize();
    let read = c.ok("read_memory", serde_json::json!({"name": "svc"}));
    assert_eq!(read["frontmatter"]["password"], marker, "{read}");
    seen.push_str(&read.to_string());
    let many = c.ok("read_memories", serde_json::json!({"names": ["svc", "standup"]}));
    assert_eq!(many["memories"][0]["frontmatter"]["db_password"], marker, "{many}");
    seen.push_str(&many.to_string());
    drop(c);
    for v in KEYED_VALUES {
        assert!(!seen.contains(v), "{v} shown: {seen}");
    }
    // `show --raw` is the one way to see the file as written.
    let raw = env.run(["show", "svc", "--raw"]).success();
    assert_eq!(raw.stdout, KEYED);
    let found = leaked_in(&env, &["svc.md"], KEYED_VALUES);
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn a_bad_status_or_id_in_a_file_is_never_quoted() {
    let env = TestEnv::with_vault("basic");
    env.write(
        "odd.md",
        "---\nid: zirconcodename-id\ntype: fact\nstatus: zirconcodename\n---\n\nAn odd memory.\n",
    );
    let list = env.run(["list"]).success();
    assert!(list.stderr.contains("odd: `status` is neither active nor archived"), "{list}");
    assert!(list.stderr.contains("odd: `id` is not an 11-character base62 id"), "{list}");
    let out = env.run(["update", "odd", "--add-tag", "ops"]).code(2);
    assert!(out.stderr.contains("odd") && out.stderr.contains("`status`"), "{out}");
    assert!(out.stderr.contains("active") && out.stderr.contains("archived"), "{out}");
    assert!(out.stderr.contains("nothing was written"), "{out}");
    let doctor = env.run(["doctor"]).success();
    for text in [format!("{list}"), format!("{out}"), format!("{doctor}")] {
        assert!(!text.contains("zirconcodename"), "{text}");
    }
}

#[test]
fn a_raw_update_writes_no_keyed_secret() {
    let env = TestEnv::with_vault("basic");
    env.run(["add", "svc", "The billing service."]).success();
    let out = env.run_stdin(["update", "svc", "--raw", "--json"], KEYED).success().json();
    assert_eq!(out["had_private_content"], true, "{out}");
    let text = env.read("svc.md");
    assert!(text.contains("auth: \"«redacted:password-assignment»\""), "{text}");
    assert!(text.contains("password_hint: the usual one"), "{text}");
    assert!(text.contains("The billing service talks to the ledger."), "{text}");
    let found = leaked_in(&env, &[], KEYED_VALUES);
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn a_split_piece_that_was_all_private_is_refused() {
    let env = TestEnv::with_vault("basic");
    env.write(
        "plan.md",
        "---\ntype: fact\n---\n\n<private>zirconcodename intro</private>\n\n## One\n\nFirst.\n\n\
         ## Two\n\nSecond.\n",
    );
    let before = memory_files(&env);
    let out = env.run(["split", "plan"]).code(2);
    assert!(out.stderr.contains("is empty after redaction; nothing was written"), "{out}");
    assert!(!out.stderr.contains("zirconcodename"), "{out}");
    assert_eq!(memory_files(&env), before);
}

#[test]
fn a_link_to_a_secret_document_is_refused() {
    let env = TestEnv::with_vault("basic");
    let before = memory_files(&env);
    let out = env.run(["link", "deploy-notes", "keys/AKIAIOSFODNN7EXAMPLE.txt", "--doc"]).code(2);
    assert!(out.stderr.contains("holds private text or a credential"), "{out}");
    assert!(!format!("{out}").contains("AKIAIOSFODNN7EXAMPLE"), "{out}");
    let json = env
        .run([
            "link",
            "deploy-notes",
            "docs/<private>zirconcodename</private>.md",
            "--doc",
            "--json",
        ])
        .code(2);
    assert!(!format!("{json}").contains("zirconcodename"), "{json}");
    assert_eq!(memory_files(&env), before);
    // A clean document is linked as before.
    env.run(["link", "deploy-notes", "docs/runbook.md", "--doc"]).success();
    assert!(env.read("deploy-notes.md").contains("docs/runbook.md"));
}

#[test]
fn mcp_split_names_no_piece_after_a_secret_heading() {
    let env = TestEnv::with_vault("basic");
    env.write(
        "keys.md",
        "---\ntype: fact\n---\n\n## Key AKIAIOSFODNN7EXAMPLE usage\n\nFor the bucket.\n\n\
         ## <private>zirconcodename</private> launch\n\nOn Friday.\n",
    );
    let mut c = crate::mcp::Client::start(&env);
    c.initialize();
    let r = c.ok("split_memory", serde_json::json!({"name": "keys"}));
    let hint = c.err("read_memory", serde_json::json!({"name": "keys/akiaiosfodnn"}));
    drop(c);
    let shown = format!("{r}{hint}").to_lowercase();
    assert!(
        !shown.contains("akiaiosfodnn7example") && !shown.contains("zirconcodename"),
        "{shown}"
    );
    let names: Vec<String> = env.files().into_iter().filter(|f| f.starts_with("keys/")).collect();
    assert_eq!(names, ["keys/key-usage.md", "keys/launch.md"], "{r}");
    let found = leaked_in(&env, &["keys.md"], &["AKIAIOSFODNN7EXAMPLE", "zirconcodename"]);
    assert!(found.is_empty(), "{found:?}");
}
