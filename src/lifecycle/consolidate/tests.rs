use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use super::*;
use crate::config::Config;
use crate::index::embed::BuiltinEmbedder;
use crate::vault::{AddRequest, Clock};

const NOW: &str = "2026-03-01T10:00:00Z";

fn ts(s: &str) -> Timestamp {
    s.parse().unwrap()
}

fn vault_at(now: &str) -> (tempfile::TempDir, Vault) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join(".memories");
    crate::vault::init(&root, "").unwrap();
    let vault = Vault::open(&root, Config::default(), Clock::pinned(ts(now))).unwrap();
    (tmp, vault)
}

fn add(vault: &Vault, name: &str, ty: &str, tags: &[&str], content: &str) -> Memory {
    let n = MemoryName::parse(name).unwrap();
    let req = AddRequest {
        content: content.to_owned(),
        memory_type: Some(ty.to_owned()),
        tags: tags.iter().map(|t| (*t).to_owned()).collect(),
    };
    vault.add(&n, &req).unwrap();
    vault.load(&n).unwrap()
}

fn load(vault: &Vault, name: &str) -> Memory {
    vault.load(&MemoryName::parse(name).unwrap()).unwrap()
}

fn exists(vault: &Vault, name: &str) -> bool {
    vault.path_of(&MemoryName::parse(name).unwrap()).is_file()
}

fn index(vault: &Vault) -> Indexes {
    let mut idx = Indexes::open(vault, Arc::new(BuiltinEmbedder::new())).unwrap();
    idx.reconcile(vault).unwrap();
    idx
}

/// Every file of the vault except the derived and per-user folders.
fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| {
            let rel = e.path().strip_prefix(root).ok()?.to_string_lossy().replace('\\', "/");
            if rel.starts_with("indices/") || rel.starts_with("state/") {
                return None;
            }
            Some((rel, std::fs::read(e.path()).ok()?))
        })
        .collect()
}

fn field(m: &Memory, key: &str) -> Option<Value> {
    m.doc.mapping().unwrap().get(key).cloned()
}

fn strings(v: Option<Value>) -> Vec<String> {
    match v {
        Some(Value::Sequence(items)) => {
            items.iter().filter_map(|i| i.as_str().map(str::to_owned)).collect()
        }
        _ => Vec::new(),
    }
}

// -- merge --------------------------------------------------------------------------------

#[test]
fn merge_writes_target_trashes_sources_and_relinks() {
    let (_tmp, vault) = vault_at(NOW);
    let a = add(&vault, "auth-a", "journal", &["auth", "jwt"], "Use short-lived JWTs.\n");
    let b = add(
        &vault,
        "auth-b",
        "decision",
        &["refactor", "auth"],
        "Rotate keys monthly. See [[memory:auth-a]].\n",
    );
    add(&vault, "notes", "fact", &[], "Background: [[memory:auth-a]] and [[auth-b]].\n");
    let target = MemoryName::parse("auth").unwrap();

    let out = merge(&vault, &[&a, &b], &target, None, false).unwrap();

    assert_eq!(out.target.status, WriteStatus::Created);
    assert_eq!(out.memory_type, "decision", "decision (1.5) outweighs journal (1.0)");
    assert_eq!(out.tags, ["auth", "jwt", "refactor"]);
    let merged = load(&vault, "auth");
    assert_eq!(merged.memory_type, "decision");
    assert_eq!(merged.meta.tags, ["auth", "jwt", "refactor"]);
    assert_eq!(strings(field(&merged, "consolidated_from")), ["auth-a", "auth-b"]);
    assert_eq!(merged.created_at, ts(NOW));
    assert_eq!(
        merged.content(),
        "## auth-a\n\nUse short-lived JWTs.\n\n## auth-b\n\nRotate keys monthly. See [[memory:auth]].\n"
    );

    // Sources are in the trash, naming their successor; their old versions are in history.
    assert!(!exists(&vault, "auth-a") && !exists(&vault, "auth-b"));
    assert!(out.sources.iter().all(|s| s.status == WriteStatus::Deleted));
    assert_eq!(vault.trash_list().unwrap().len(), 2);
    assert_eq!(vault.successor_of("auth-a").as_deref(), Some("auth"));
    assert_eq!(vault.successor_of("auth-b").as_deref(), Some("auth"));
    let history = vault.history(&a).unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(std::fs::read_to_string(&history[0].path).unwrap(), a.raw);

    // Links elsewhere now point to the target, with history.
    let notes = load(&vault, "notes");
    assert_eq!(notes.content(), "Background: [[memory:auth]] and [[auth]].\n");
    assert_eq!(out.relinked.len(), 1);
    assert_eq!(out.relinked[0].name, "notes");
    // One rewrite per source that it linked to; the first history version is the original.
    let history = vault.history(&notes).unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(out.relinked[0].history_version, Some(1));
    assert!(std::fs::read_to_string(&history[0].path).unwrap().contains("[[memory:auth-a]]"));
}

#[test]
fn merge_archive_keeps_sources_archived() {
    let (_tmp, vault) = vault_at(NOW);
    let a = add(&vault, "a", "plan", &["x"], "Plan A text.\n");
    let b = add(&vault, "b", "plan", &["y"], "Plan B text.\n");
    let c = add(&vault, "c", "journal", &[], "Refers to [[memory:b]].\n");
    let target = MemoryName::parse("ab").unwrap();
    let out = merge(&vault, &[&a, &b], &target, Some("# A and B\n\nBoth plans."), true).unwrap();
    assert_eq!(out.memory_type, "plan", "a tie goes to the first source");
    assert_eq!(load(&vault, "ab").content(), "# A and B\n\nBoth plans.\n");
    for name in ["a", "b"] {
        let m = load(&vault, name);
        assert_eq!(m.status, "archived");
        assert_eq!(m.meta.superseded_by.as_deref(), Some("ab"));
        assert_eq!(vault.history(&m).unwrap().len(), 1);
    }
    assert!(out.sources.iter().all(|s| s.status == WriteStatus::Updated));
    assert!(vault.trash_list().unwrap().is_empty());
    assert_eq!(load(&vault, "c").content(), "Refers to [[memory:ab]].\n");
    assert_eq!(vault.history(&c).unwrap().len(), 1);
}

#[test]
fn merge_refusals_change_nothing() {
    let (_tmp, vault) = vault_at(NOW);
    let a = add(&vault, "a", "fact", &[], "Alpha.\n");
    let b = add(&vault, "b", "fact", &[], "Beta.\n");
    add(&vault, "taken", "fact", &[], "Taken.\n");
    let before = snapshot(vault.root());
    let t = |s: &str| MemoryName::parse(s).unwrap();

    assert!(matches!(merge(&vault, &[&a, &b], &t("taken"), None, false), Err(Error::Exists(_))));
    assert!(matches!(
        merge(&vault, &[&a], &t("new"), None, false),
        Err(Error::TooFewSources { given: 1, .. })
    ));
    assert!(matches!(merge(&vault, &[&a, &a], &t("new"), None, false), Err(Error::ListedTwice(_))));
    let mut ghost = b.clone();
    ghost.name = t("gone");
    ghost.path = vault.path_of(&ghost.name);
    assert!(matches!(
        merge(&vault, &[&a, &ghost], &t("new"), None, false),
        Err(Error::NotFound { .. })
    ));
    let emptied = merge(&vault, &[&a, &b], &t("new"), Some("<private>x</private>"), false);
    assert!(matches!(emptied, Err(Error::EmptyAfterRedaction { .. })));
    // A source edited since it was read.
    std::fs::write(vault.path_of(&b.name), format!("{}more\n", b.raw)).unwrap();
    let changed = snapshot(vault.root());
    assert!(matches!(
        merge(&vault, &[&a, &b], &t("new"), None, false),
        Err(Error::ChangedOnDisk { doing: "merging", .. })
    ));
    assert_eq!(snapshot(vault.root()), changed);
    std::fs::write(vault.path_of(&b.name), &b.raw).unwrap();
    assert_eq!(snapshot(vault.root()), before);
}

#[test]
fn merge_redacts_and_keeps_outgoing_links() {
    let (_tmp, vault) = vault_at(NOW);
    add(&vault, "lib", "fact", &[], "A library.\n");
    let a = add(&vault, "a", "fact", &[], "Alpha.\n");
    let b = add(&vault, "b", "fact", &[], "Beta.\n");
    let a = vault
        .add_frontmatter_link(&a, "depends_on", "memory:lib")
        .map(|_| load(&vault, "a"))
        .unwrap();
    let a = vault
        .add_frontmatter_link(&a, "related_to", "memory:b")
        .map(|_| load(&vault, "a"))
        .unwrap();
    let b = vault.set_pinned(&b, true).map(|_| load(&vault, "b")).unwrap();
    // A hand edit with a private block: redacted in the merged memory.
    std::fs::write(&b.path, b.raw.replace("Beta.", "Beta <private>secret plan</private>."))
        .unwrap();
    let b = load(&vault, "b");
    let out = merge(&vault, &[&a, &b], &MemoryName::parse("ab").unwrap(), None, false).unwrap();
    assert!(out.target.had_private_content);
    let merged = load(&vault, "ab");
    assert!(merged.content().contains("Beta [redacted]."));
    assert!(!merged.raw.contains("secret plan"));
    assert!(merged.meta.pinned);
    let links = field(&merged, "links").unwrap();
    let Value::Sequence(items) = links else { panic!("links: {links:?}") };
    assert_eq!(items.len(), 1, "the link between the sources is dropped: {items:?}");
    assert_eq!(link_item_target(&items[0]).as_deref(), Some("lib"));
}

// -- split --------------------------------------------------------------------------------

const SECTIONED: &str = "# Auth overview\n\nWhy this exists.\n\n## Goals\n\nShort-lived tokens.\n\n```sh\n## not a heading\n```\n\n## Risks & Mitigations\n\nKey leaks.\n### Detail\n\nRotate.\n";

#[test]
fn sections_pick_the_first_repeated_level() {
    let s = sections_of(SECTIONED);
    assert_eq!(s.intro, Some("# Auth overview\n\nWhy this exists."));
    let heads: Vec<&str> = s.sections.iter().map(|(h, _)| h.as_str()).collect();
    assert_eq!(heads, ["Goals", "Risks & Mitigations"]);
    assert!(s.sections[0].1.contains("## not a heading"));
    assert!(s.sections[1].1.ends_with("Rotate."));
    let only_title = sections_of("# T\n\n## A\n\nx\n\n## B\n\ny\n");
    assert_eq!(only_title.intro, None);
    assert_eq!(sections_of("# One\n\ntext\n").sections.len(), 0);
    assert_eq!(slug("Risks & Mitigations"), "risks-mitigations");
    assert_eq!(slug("  Été 2026!  "), "été-2026");
    assert_eq!(slug("!!!"), "");
}

#[test]
fn split_by_sections_keeps_original() {
    let (_tmp, vault) = vault_at(NOW);
    let m = add(&vault, "auth", "decision", &["auth"], SECTIONED);
    let out = split(&vault, &m, false).unwrap();
    let names: Vec<&str> = out.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["auth/intro", "auth/goals", "auth/risks-mitigations"]);
    assert!(out.iter().all(|o| o.status == WriteStatus::Created));
    let goals = load(&vault, "auth/goals");
    assert_eq!(goals.memory_type, "decision");
    assert_eq!(goals.meta.tags, ["auth"]);
    assert!(goals.content().starts_with("## Goals\n\nShort-lived tokens."));
    assert_eq!(field(&goals, "split_from"), Some(str_value("auth")));
    let Some(Value::Sequence(links)) = field(&goals, "links") else { panic!() };
    assert_eq!(link_item_target(&links[0]).as_deref(), Some("auth"));
    assert_eq!(load(&vault, "auth").raw, m.raw, "the original stays untouched");
}

#[test]
fn split_replace_trashes_and_redirects_to_the_first_piece() {
    let (_tmp, vault) = vault_at(NOW);
    let m = add(&vault, "plan", "plan", &[], "## Phase one\n\nBuild.\n\n## Phase one\n\nShip.\n");
    add(&vault, "other", "fact", &[], "See [[memory:plan]].\n");
    // `plan/phase-one` is taken by the first piece, so the second falls back to `plan-2`.
    let out = split(&vault, &m, true).unwrap();
    let names: Vec<(&str, WriteStatus)> = out.iter().map(|o| (o.name.as_str(), o.status)).collect();
    assert_eq!(
        names,
        [
            ("plan/phase-one", WriteStatus::Created),
            ("plan-2", WriteStatus::Created),
            ("plan", WriteStatus::Deleted),
            ("other", WriteStatus::Updated),
        ]
    );
    assert!(!exists(&vault, "plan"));
    assert_eq!(vault.successor_of("plan").as_deref(), Some("plan/phase-one"));
    assert_eq!(load(&vault, "other").content(), "See [[memory:plan/phase-one]].\n");
    assert_eq!(field(&load(&vault, "plan-2"), "links"), None);
}

#[test]
fn split_refusals_write_nothing() {
    let (_tmp, vault) = vault_at(NOW);
    let one = add(&vault, "one", "fact", &[], "# Only\n\nOne section.\n");
    let two = add(&vault, "two", "fact", &[], "## A\n\nx\n\n## !!!\n\ny\n");
    add(&vault, "two/a", "fact", &[], "Taken.\n");
    add(&vault, "two-2", "fact", &[], "Taken too.\n");
    let before = snapshot(vault.root());
    let err = split(&vault, &one, false).unwrap_err();
    assert!(err.to_string().contains("at least two"), "{err}");
    // Both pieces' names exist (the second, headed `!!!`, is `two-2`): both are named, and
    // no `two-1` copy is made.
    let err = split(&vault, &two, false).unwrap_err();
    assert!(
        matches!(&err, Error::PiecesExist { pieces, .. } if pieces == &["two/a", "two-2"]),
        "{err}"
    );
    assert_eq!(snapshot(vault.root()), before);
}

#[cfg(unix)]
#[test]
fn split_rolls_back_pieces_when_a_later_write_fails() {
    let (tmp, vault) = vault_at(NOW);
    let m = add(&vault, "two", "fact", &[], "## !!!\n\nx\n\n## B\n\ny\n");
    // `two/` leads out of the vault: the second piece is refused after the first was written.
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, vault.root().join("two")).unwrap();
    let before = snapshot(vault.root());
    let err = split(&vault, &m, false).unwrap_err();
    assert!(matches!(err, Error::OutsideVault(_)), "{err}");
    assert!(!exists(&vault, "two-1"), "the first piece was removed again");
    assert_eq!(snapshot(vault.root()), before);
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
}

// -- dedup ----------------------------------------------------------------------------------

#[test]
fn find_duplicate_identical_copy_and_unrelated_text() {
    let (_tmp, vault) = vault_at(NOW);
    let text = "We pool database connections with pgbouncer in transaction mode; the pool size is 20 per service and idle connections close after five minutes.";
    add(&vault, "db-pooling", "decision", &[], text);
    add(&vault, "coffee", "fact", &[], "The office coffee machine needs descaling every month.");
    let idx = index(&vault);
    let (name, sim) = find_duplicate(&vault, &idx, text, 0.95).unwrap().expect("a duplicate");
    assert_eq!(name, "db-pooling");
    assert!(sim >= 0.95, "{sim}");
    let edited = text.replace("20", "25").replace("five", "ten");
    let (name, sim) =
        find_duplicate(&vault, &idx, &edited, 0.85).unwrap().expect("a near duplicate");
    assert_eq!(name, "db-pooling");
    assert!((0.85..1.0).contains(&sim), "{sim}");
    let unrelated = "Quarterly budget review for the marketing team, travel costs included.";
    assert_eq!(find_duplicate(&vault, &idx, unrelated, 0.95).unwrap(), None);
    assert_eq!(find_duplicate(&vault, &idx, "", 0.95).unwrap(), None);
}

// -- suggest merges -------------------------------------------------------------------------

const UNRELATED: &[&str] = &[
    "The office coffee machine needs descaling every month; buy the citric acid tablets.",
    "Office plants get watered on Mondays and Thursdays by whoever arrives first.",
    "Documentation uses the Inter font at 16px with a 1.6 line height for body text.",
    "Structured logging: every log line is JSON with timestamp, level, target and span fields.",
    "Rate limiting on the public API allows 100 requests per minute per token, bursting to 200.",
    "Thumbnails are cached at the CDN edge for a week; originals stay in cold storage.",
    "New hires get a laptop, a buddy, and a reading list covering architecture and on-call.",
    "GraphQL schema naming: types are PascalCase, fields camelCase, enums SCREAMING_SNAKE.",
    "Translations live in Fluent files; German and Japanese are reviewed by native speakers.",
    "Dark mode palette: background slate-900, text slate-100, accent amber-400.",
    "Accessibility audit found missing alt text and low contrast on the settings page.",
    "S3 lifecycle rule moves objects to Glacier after ninety days and expires them after seven years.",
    "Kubernetes pods for the worker get a 512Mi memory request and a 1Gi limit.",
    "Retro: standups ran long, so we moved blockers discussion to a separate thread.",
    "Customers asked for fuzzy matching in search and a way to save filters.",
    "Mobile push notifications are batched hourly to avoid waking people at night.",
    "Nightly cron job dumps Postgres at 02:00 UTC and uploads the archive to offsite storage.",
    "Our error budget is 0.1% monthly; two incidents in March consumed most of it.",
    "Public API versions are date-based in the URL path; old versions live for eighteen months.",
    "Feature flags older than two releases get removed in the cleanup sprint.",
    "Rust compile times dropped after splitting the monolith crate and enabling sccache.",
    "Personal data is deleted thirty days after account closure per the retention policy.",
    "Transactional email templates are MJML compiled at build time with inline CSS.",
    "Password reset links expire after fifteen minutes and can be used once.",
    "The pricing page experiment tests annual billing shown first against monthly first.",
];

const POOLING: &str = "Database connection pooling: we run pgbouncer in transaction mode in front of Postgres. Each service gets a pool of 20 server connections; idle clients are closed after five minutes. Prepared statements are disabled because transaction pooling breaks them.";
const RELEASE: &str = "Release checklist: bump the version in Cargo.toml, update the changelog, tag the commit, wait for the CI artefacts, publish the crate, and announce the release in the team channel.";
const FLAKY: &str = "# Flaky payment test\n\nThe refund integration test in the payment module fails about once in fifty runs. The cause is a race between the webhook handler and the ledger writer; the test asserts before the ledger commit lands. Fix: poll the ledger with a timeout instead of sleeping.";

fn planted_vault() -> (tempfile::TempDir, Vault, Vec<Vec<&'static str>>) {
    let (tmp, vault) = vault_at(NOW);
    for (i, text) in UNRELATED.iter().enumerate() {
        add(&vault, &format!("note-{i:02}"), "fact", &[], text);
    }
    add(&vault, "db/pooling", "decision", &["db"], POOLING);
    add(
        &vault,
        "db/pooling-notes",
        "journal",
        &["db", "postgres"],
        &POOLING.replace("20 server connections", "25 server connections"),
    );
    add(
        &vault,
        "db/pgbouncer",
        "decision",
        &["db"],
        &format!(
            "{} We revisit the pool size after the load test.",
            POOLING.replace("five minutes", "ten minutes")
        ),
    );
    add(&vault, "release", "plan", &["release"], RELEASE);
    add(&vault, "release-copy", "plan", &["release"], RELEASE);
    add(&vault, "ci/flaky-payment", "bug_fix", &["ci"], FLAKY);
    add(
        &vault,
        "ci/flaky-refund",
        "bug_fix",
        &["ci"],
        &FLAKY.replace("once in fifty runs", "once in forty runs").replace("Fix:", "Fix it:"),
    );
    let planted = vec![
        vec!["db/pgbouncer", "db/pooling", "db/pooling-notes"],
        vec!["release", "release-copy"],
        vec!["ci/flaky-payment", "ci/flaky-refund"],
    ];
    (tmp, vault, planted)
}

fn member_names(c: &MergeCluster) -> Vec<&str> {
    c.members.iter().map(|m| m.name.as_str()).collect()
}

#[test]
fn suggest_merges_finds_every_planted_cluster_and_nothing_else() {
    let (_tmp, vault, planted) = planted_vault();
    let idx = index(&vault);
    let clusters = suggest_merges(&vault, &idx, 0.85, None, 50).unwrap();
    let mut found: Vec<Vec<&str>> = clusters.iter().map(member_names).collect();
    found.sort();
    let mut want = planted.clone();
    want.sort();
    assert_eq!(found, want, "{clusters:#?}");

    // The exact copy scores 1 and comes first; every score is at or above the threshold.
    assert_eq!(member_names(&clusters[0]), ["release", "release-copy"]);
    assert_eq!(clusters[0].score, 1.0);
    assert!(clusters[0].reason.contains("identical content"), "{}", clusters[0].reason);
    assert!(clusters.iter().all(|c| c.score >= 0.85));
    let db = clusters.iter().find(|c| c.members.len() == 3).unwrap();
    assert!(
        db.reason.starts_with("3 memories, mean similarity 0.9")
            && db.reason.contains("shared tags: db")
            && db.reason.contains("types decision, journal"),
        "{}",
        db.reason
    );
    assert!(db.members.iter().all(|m| m.preview.chars().count() <= PREVIEW_CHARS));
    assert!(db.members[0].preview.ends_with('…'));

    // Type filter and limit.
    let bugs = suggest_merges(&vault, &idx, 0.85, Some("bug_fix"), 5).unwrap();
    assert_eq!(bugs.len(), 1);
    assert_eq!(member_names(&bugs[0]), ["ci/flaky-payment", "ci/flaky-refund"]);
    let decisions = suggest_merges(&vault, &idx, 0.85, Some("decision"), 5).unwrap();
    assert_eq!(member_names(&decisions[0]), ["db/pgbouncer", "db/pooling"]);
    assert_eq!(suggest_merges(&vault, &idx, 0.85, None, 1).unwrap().len(), 1);
    assert!(suggest_merges(&vault, &idx, 0.85, None, 0).unwrap().is_empty());
}

#[test]
fn suggest_merges_skips_archived_memories() {
    let (_tmp, vault, _) = planted_vault();
    let copy = load(&vault, "release-copy");
    vault.archive(&copy, None, "archive").unwrap();
    let idx = index(&vault);
    let clusters = suggest_merges(&vault, &idx, 0.85, None, 50).unwrap();
    assert!(clusters.iter().all(|c| !member_names(c).contains(&"release")), "{clusters:#?}");
}

#[test]
fn complete_linkage_does_not_chain() {
    // a·b = b·c = 0.707, a·c = 0.
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let m = Matrix { dim: 2, data: vec![1.0, 0.0, h, h, 0.0, 1.0] };
    let pairs = candidate_pairs(&m, 0.7);
    assert_eq!(pairs.len(), 2);
    let clusters = complete_linkage(&m, &pairs, 0.7);
    assert_eq!(clusters.len(), 1);
    assert_eq!(clusters[0].len(), 2, "{clusters:?}");
    // Two tight pairs that are all mutually close do join.
    let m = Matrix { dim: 2, data: vec![1.0, 0.0, 0.99, 0.141, 0.98, 0.199, 0.97, 0.243] };
    let clusters = complete_linkage(&m, &candidate_pairs(&m, 0.9), 0.9);
    assert_eq!(clusters, [vec![0, 1, 2, 3]]);
}

#[test]
fn candidate_pairs_match_a_naive_scan() {
    // Blocks and tiles must not lose or double pairs: 300 rows cross several row blocks.
    let mut seed = 7u64;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % 1000) as f32 / 1000.0
    };
    let dim = 4;
    let mut data = Vec::new();
    for _ in 0..300 {
        data.extend(normalized((0..dim).map(|_| rnd()).collect()).unwrap());
    }
    let m = Matrix { dim, data };
    let threshold = 0.995;
    let mut naive = 0;
    for i in 0..m.len() {
        for j in i + 1..m.len() {
            naive += usize::from(dot(m.row(i), m.row(j)) >= threshold);
        }
    }
    let pairs = candidate_pairs(&m, threshold);
    let per_row_cap_hit =
        (0..m.len()).any(|i| pairs.iter().filter(|p| p.0 == i).count() == MAX_NEIGHBOURS);
    assert!(per_row_cap_hit || pairs.len() == naive, "{} vs {naive}", pairs.len());
    assert!(pairs.iter().all(|p| p.0 < p.1 && p.2 >= threshold));
    assert!(pairs.windows(2).all(|w| w[0].2 >= w[1].2));
}

#[test]
fn suggest_merges_does_not_chain_memories() {
    let (_tmp, vault) = vault_at(NOW);
    let x = "Kubernetes pods for the ingestion worker request 512Mi memory with a 1Gi limit and restart on OOM kills.";
    let y = "Quarterly budget review covers marketing travel, conference sponsorships and the new design agency retainer.";
    add(&vault, "a", "fact", &[], x);
    add(&vault, "b", "fact", &[], &format!("{x} {y}"));
    add(&vault, "c", "fact", &[], y);
    let idx = index(&vault);
    let vec_of =
        |n: &str| memory_vector(&vault, &idx, n, &idx.manifest().entries()[n]).unwrap().unwrap();
    let (a, b, c) = (vec_of("a"), vec_of("b"), vec_of("c"));
    let (ab, bc, ac) = (cosine(&a, &b), cosine(&b, &c), cosine(&a, &c));
    let threshold = ab.min(bc) - 0.01;
    assert!(ac < threshold, "a~b {ab}, b~c {bc}, a~c {ac}");
    let clusters = suggest_merges(&vault, &idx, f64::from(threshold), None, 10).unwrap();
    assert_eq!(clusters.len(), 1, "{clusters:#?}");
    assert_eq!(clusters[0].members.len(), 2, "{clusters:#?}");
}

// -- maintain -------------------------------------------------------------------------------

#[test]
fn maintain_heals_expires_and_a_second_run_changes_nothing() {
    let (_tmp, vault) = vault_at(NOW);
    add(&vault, "new-plan", "plan", &[], "The new plan.\n");
    add(&vault, "lost", "fact", &[], "Links to [[memory:nowhere]].\n");
    let old = add(&vault, "old-plan", "plan", &[], "The old plan.\n");
    add(&vault, "notes", "journal", &[], "Follow [[memory:old-plan]].\n");
    let idx = index(&vault);
    // Trashed with a successor (as an older merge would have).
    vault.set_fields(&old, &[("superseded_by", Some(str_value("new-plan")))], "merge").unwrap();
    vault.delete(&old).unwrap();
    let expiring = add(&vault, "promo", "fact", &[], "Spring promo code.\n");
    let soon = add(&vault, "soon", "fact", &[], "Expires soon.\n");
    vault
        .set_fields(&expiring, &[("expires_at", Some(str_value("2026-02-20T00:00:00Z")))], "t")
        .unwrap();
    vault
        .set_fields(&soon, &[("expires_at", Some(str_value("2026-02-27T00:00:00Z")))], "t")
        .unwrap();
    drop(idx);
    let idx = index(&vault);

    let report = maintain(&vault, &idx, ts(NOW)).unwrap();
    assert_eq!(
        report.dead_links,
        [
            DeadLink { source: "lost".into(), target: "nowhere".into(), successor: None },
            DeadLink {
                source: "notes".into(),
                target: "old-plan".into(),
                successor: Some("new-plan".into())
            },
        ]
    );
    assert_eq!(report.healed.len(), 1);
    assert_eq!(load(&vault, "notes").content(), "Follow [[memory:new-plan]].\n");
    assert_eq!(report.graph.missing, 2);
    let expired: Vec<&str> = report.expired.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(expired, ["promo"], "`soon` is still inside its 5-day fade");
    let promo = load(&vault, "promo");
    assert_eq!(promo.status, "archived");
    assert_eq!(vault.history(&promo).unwrap().last().unwrap().action, "expire");
    assert!(report.changed());

    // Again, on the stale index and on a fresh one: nothing changes.
    let files = snapshot(vault.root());
    let again = maintain(&vault, &idx, ts(NOW)).unwrap();
    assert!(!again.changed(), "{again:#?}");
    let fresh = index(&vault);
    let again = maintain(&vault, &fresh, ts(NOW)).unwrap();
    assert!(!again.changed(), "{again:#?}");
    assert_eq!(again.dead_links.len(), 1);
    assert_eq!(snapshot(vault.root()), files);
}

#[test]
fn maintain_lists_cold_memories_split_candidates_and_suggestions() {
    let (_tmp, vault) = vault_at("2026-02-01T09:00:00Z");
    let mut long = String::new();
    for section in ["Background", "Design", "Rollout"] {
        long.push_str(&format!("## {section}\n\n"));
        for i in 0..60 {
            long.push_str(&format!("{section} detail number {i} explains one more point. "));
        }
        long.push_str("\n\n");
    }
    let big = add(&vault, "big", "architecture", &[], &long);
    add(&vault, "small", "fact", &[], "Short and unused.\n");
    add(&vault, "release", "plan", &[], RELEASE);
    add(&vault, "release-copy", "plan", &[], RELEASE);
    let cfg = vault.config.lifecycle.clone();
    UsageStore::update(vault.root(), |s| {
        for day in 2..=12 {
            let t = ts(&format!("2026-02-{day:02}T09:00:00Z"));
            s.warm(big.id.as_str(), false, t, &cfg);
        }
    })
    .unwrap();
    let idx = index(&vault);
    let report = maintain(&vault, &idx, ts(NOW)).unwrap();

    assert_eq!(report.split_candidates.len(), 1, "{report:#?}");
    let c = &report.split_candidates[0];
    assert_eq!((c.name.as_str(), c.access_count, c.sections), ("big", 11, 3));
    assert!(c.tokens > SPLIT_MIN_TOKENS && c.age_days >= SPLIT_MIN_AGE_DAYS, "{c:?}");
    let cold: Vec<&str> = report.cold.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(cold, ["big"], "unseen memories start warm");
    assert_eq!(report.merge_suggestions.len(), 1);
    assert_eq!(member_names(&report.merge_suggestions[0]), ["release", "release-copy"]);
    assert!(!report.changed());
}

// -- scale ----------------------------------------------------------------------------------

/// `cargo test --release --lib suggest_merges_10k -- --ignored --nocapture`
#[test]
#[ignore = "timing: builds and indexes a 10k-memory vault"]
fn suggest_merges_10k_timing() {
    use std::time::Instant;
    let (_tmp, vault) = vault_at(NOW);
    let syllables = [
        "ka", "lo", "mi", "ne", "tu", "ra", "si", "po", "de", "gu", "fe", "zi", "ba", "vo", "ch",
        "an", "or", "el", "is", "um",
    ];
    let vocab: Vec<String> = (0..4000)
        .map(|i: usize| {
            let mut w = String::new();
            let mut x = i * 7919 + 13;
            for _ in 0..3 + i % 3 {
                w.push_str(syllables[x % syllables.len()]);
                x /= syllables.len();
                x += i;
            }
            w
        })
        .collect();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let n = 10_000;
    let mut texts: Vec<String> = Vec::with_capacity(n);
    for i in 0..n {
        if i % 100 == 99 {
            // A near-copy of the previous memory: 100 planted pairs.
            texts.push(format!("{} extra", texts[i - 1]));
        } else {
            let words: Vec<&str> =
                (0..80).map(|_| vocab[(rnd() % vocab.len() as u64) as usize].as_str()).collect();
            texts.push(words.join(" "));
        }
    }
    let t = Instant::now();
    for (i, text) in texts.iter().enumerate() {
        let file = vault.root().join(format!("m{i:05}.md"));
        std::fs::write(file, format!("---\ntype: fact\n---\n{text}\n")).unwrap();
    }
    let t_write = t.elapsed();
    let t = Instant::now();
    let idx = index(&vault);
    let t_index = t.elapsed();
    let t = Instant::now();
    let clusters = suggest_merges(&vault, &idx, 0.85, None, 1_000).unwrap();
    let t_suggest = t.elapsed();
    let entries = idx.manifest().entries();
    let t = Instant::now();
    let mut data = Vec::new();
    for (name, entry) in entries {
        data.extend(memory_vector(&vault, &idx, name, entry).unwrap().unwrap());
    }
    let t_vectors = t.elapsed();
    let matrix = Matrix { dim: BuiltinEmbedder::DIM, data };
    let t = Instant::now();
    let pairs = candidate_pairs(&matrix, 0.85);
    let t_pairs = t.elapsed();
    let t = Instant::now();
    let dup = find_duplicate(&vault, &idx, &texts[5_000], 0.95).unwrap();
    let t_dup = t.elapsed();
    let report = format!(
        "10k memories: write {t_write:?}, index {t_index:?}, suggest_merges {t_suggest:?} ({} clusters; of which reading memory vectors {t_vectors:?}, all-pairs scan {t_pairs:?} for {} pairs), find_duplicate {t_dup:?}",
        clusters.len(),
        pairs.len()
    );
    tracing::info!("{report}");
    std::fs::write(std::env::temp_dir().join("memlane-consolidate-timing.txt"), &report).unwrap();
    assert_eq!(clusters.len(), 100, "{report}");
    assert!(clusters.iter().all(|c| c.members.len() == 2));
    assert_eq!(dup.map(|d| d.0), Some("m05000".to_owned()));
}

#[test]
fn forest_pairs_find_the_exact_scans_near_duplicates() {
    // 4,000 random directions plus 200 near-copies (a little noise: cosine ≈ 0.97–0.99).
    let mut seed = 11u64;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % 2001) as f32 / 1000.0 - 1.0
    };
    let dim = 48;
    let mut rows: Vec<Vec<f32>> = Vec::new();
    for _ in 0..4_000 {
        rows.push(normalized((0..dim).map(|_| rnd()).collect()).unwrap());
    }
    for k in 0..200 {
        let base = rows[k * 13].clone();
        rows.push(normalized(base.iter().map(|x| x + 0.03 * rnd()).collect()).unwrap());
    }
    let m = Matrix { dim, data: rows.concat() };
    let threshold = 0.9;
    let exact = candidate_pairs(&m, threshold);
    let forest = forest_pairs(&m, threshold);
    assert!(exact.len() >= 200, "the planted pairs are there: {}", exact.len());
    // Every pair the forest gives is a true pair, scored as the exact scan scores it.
    let truth: std::collections::HashMap<(usize, usize), f32> =
        exact.iter().map(|&(i, j, s)| ((i, j), s)).collect();
    for &(i, j, s) in &forest {
        assert!(i < j && s >= threshold);
        assert_eq!(truth.get(&(i, j)), Some(&s), "({i}, {j})");
    }
    assert!(forest.windows(2).all(|w| w[0].2 >= w[1].2), "most similar first");
    // And it finds the near-duplicates.
    let found: std::collections::HashSet<(usize, usize)> =
        forest.iter().map(|&(i, j, _)| (i, j)).collect();
    let missed = exact.iter().filter(|&&(i, j, _)| !found.contains(&(i, j))).count();
    assert_eq!(missed, 0, "{missed} of {} pairs missed", exact.len());
    // Deterministic.
    assert_eq!(forest_pairs(&m, threshold), forest);
}
