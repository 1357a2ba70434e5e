//! The key-by-key merge, with git's own text merge for the body.

use proptest::prelude::*;

use super::merge::{Decision, decide, merge_structured};
use super::*;
use crate::model::Document;

fn git_text(base: &str, ours: &str, theirs: &str) -> Result<(String, usize), GitError> {
    git_merge_text(base, ours, theirs, &Labels::default(), &std::env::temp_dir())
}

fn merge(base: &str, ours: &str, theirs: &str) -> MergedFile {
    merge_memory(MergeInput { base, ours, theirs }, &git_text).unwrap()
}

fn yaml(text: &str) -> serde_yaml_ng::Mapping {
    Document::parse(text).mapping().unwrap()
}

const BASE: &str = "---\nid: a1B2c3D4e5F\ntype: decision\nstatus: active\ntags: [infra]  # team tags\ncreated_at: 2026-01-10T10:00:00Z\nupdated_at: 2026-01-10T10:00:00Z\nowner: ana\n---\n\n# Queue\n\nWe use a Postgres-backed job queue.\n\nWorkers poll every second.\n";

#[test]
fn a_tag_on_one_side_and_an_append_on_the_other_merge_cleanly() {
    let ours = BASE
        .replace("tags: [infra]  # team tags", "tags: [infra, backend]  # team tags")
        .replace("updated_at: 2026-01-10T10:00:00Z", "updated_at: 2026-01-11T09:00:00Z");
    let theirs = BASE
        .replace("updated_at: 2026-01-10T10:00:00Z", "updated_at: 2026-01-12T08:00:00Z")
        + "\nRetries back off exponentially.\n";
    let m = merge(BASE, &ours, &theirs);
    assert!(m.is_clean(), "{m:?}");
    let map = yaml(&m.text);
    assert_eq!(
        map["tags"],
        serde_yaml_ng::from_str::<serde_yaml_ng::Value>("[infra, backend]").unwrap()
    );
    assert_eq!(map["updated_at"].as_str(), Some("2026-01-12T08:00:00Z"), "the later one");
    assert!(m.text.contains("Retries back off exponentially."), "{}", m.text);
    // Untouched keys keep their bytes, comment included.
    assert!(m.text.contains("tags: [infra, backend]  # team tags\n"), "{}", m.text);
    assert!(m.text.starts_with("---\nid: a1B2c3D4e5F\ntype: decision\n"), "{}", m.text);
}

#[test]
fn tags_merge_as_a_set_and_removals_stay_removed() {
    let base = BASE.replace("tags: [infra]", "tags: [infra, queue, old]");
    let ours = base.replace("tags: [infra, queue, old]", "tags: [infra, queue, ops]");
    let theirs = base.replace("tags: [infra, queue, old]", "tags: [queue, old, backend]");
    let m = merge(&base, &ours, &theirs);
    assert!(m.is_clean(), "{m:?}");
    let tags: Vec<String> = crate::model::frontmatter::read_tags(&yaml(&m.text)["tags"]).unwrap();
    assert_eq!(tags, ["queue", "ops", "backend"], "`infra` removed by theirs, `old` by ours");
}

#[test]
fn a_scalar_key_comes_from_the_side_that_changed_it_and_both_changed_is_a_key_conflict() {
    let ours = BASE.replace("status: active", "status: archived");
    let theirs = BASE.replace("owner: ana", "owner: ben");
    let m = merge(BASE, &ours, &theirs);
    assert!(m.is_clean(), "{m:?}");
    let map = yaml(&m.text);
    assert_eq!((map["status"].as_str(), map["owner"].as_str()), (Some("archived"), Some("ben")));

    let theirs =
        BASE.replace("status: active", "status: superseded").replace("owner: ana", "owner: ben");
    let m = merge(BASE, &ours, &theirs);
    assert!(!m.is_clean());
    assert_eq!(m.key_conflicts.len(), 1, "{m:?}");
    assert_eq!(m.key_conflicts[0].key, "status");
    assert_eq!(m.text_conflicts, 0);
    let map = yaml(&m.text);
    assert_eq!(map["status"].as_str(), Some("archived"), "ours is kept");
    assert_eq!(map["owner"].as_str(), Some("ben"), "the other key still merges");
    let recorded = &map[CONFLICTS_KEY][0];
    assert_eq!(recorded["key"].as_str(), Some("status"));
    assert_eq!(recorded["ours"].as_str(), Some("archived"));
    assert_eq!(recorded["theirs"].as_str(), Some("superseded"));
    assert!(crate::model::conflict::conflict_line(&m.text).is_none(), "no markers: {}", m.text);
}

#[test]
fn two_ids_are_a_conflict_and_created_at_keeps_the_earlier() {
    let ours = BASE.replace("created_at: 2026-01-10T10:00:00Z", "created_at: 2026-01-09T10:00:00Z");
    let theirs = BASE.replace("id: a1B2c3D4e5F", "id: zzzzzzzzzzz");
    let m = merge(BASE, &ours, &theirs);
    assert_eq!(m.key_conflicts.iter().map(|c| c.key.as_str()).collect::<Vec<_>>(), ["id"]);
    let map = yaml(&m.text);
    assert_eq!(map["id"].as_str(), Some("a1B2c3D4e5F"));
    assert_eq!(map["created_at"].as_str(), Some("2026-01-09T10:00:00Z"));
    assert_eq!(
        decide("id", None, None, Some(&"x".into())),
        Decision::Theirs,
        "a missing id is filled"
    );
}

#[test]
fn typed_links_merge_as_a_set() {
    let base =
        BASE.replace("owner: ana\n", "links:\n  - { type: depends_on, target: memory:db }\n");
    let ours = base.replace("links:\n", "links:\n  - { type: extends, target: memory:api }\n");
    let theirs = base.replace(
        "  - { type: depends_on, target: memory:db }\n",
        "  - { type: related_to, target: memory:ops }\n",
    );
    let m = merge(&base, &ours, &theirs);
    assert!(m.is_clean(), "{m:?}");
    let links = yaml(&m.text)["links"].as_sequence().unwrap().clone();
    let targets: Vec<&str> = links.iter().map(|l| l["target"].as_str().unwrap()).collect();
    assert_eq!(targets, ["memory:api", "memory:ops"], "{}", m.text);
}

#[test]
fn a_body_conflict_leaves_markers_in_the_body_only() {
    let ours = BASE
        .replace("every second", "every 5 seconds")
        .replace("tags: [infra]", "tags: [infra, a]");
    let theirs = BASE
        .replace("every second", "every 10 seconds")
        .replace("tags: [infra]", "tags: [infra, b]");
    let m = merge(BASE, &ours, &theirs);
    assert_eq!(m.text_conflicts, 1, "{m:?}");
    let doc = Document::parse(&m.text);
    assert!(doc.mapping().is_ok(), "the frontmatter is whole: {}", m.text);
    assert!(!doc.yaml().contains("<<<<<<<"));
    assert!(doc.body().contains("<<<<<<< ours\n") && doc.body().contains(">>>>>>> theirs\n"));
    let line = crate::model::conflict::conflict_line(&m.text).unwrap();
    assert!(line > 10, "after the frontmatter: line {line}");
}

#[test]
fn a_side_without_frontmatter_is_merged_as_text() {
    let m = merge("one\nx\ny\ntwo\n", "one\nx\ny\nTWO\n", "ONE\nx\ny\ntwo\n");
    assert!(m.is_clean() && m.as_text, "{m:?}");
    assert_eq!(m.text, "ONE\nx\ny\nTWO\n");
}

#[test]
fn a_key_one_side_removed_is_removed() {
    let ours = BASE.replace("owner: ana\n", "");
    let theirs = BASE.replace("Workers poll", "Two workers poll");
    let m = merge(BASE, &ours, &theirs);
    assert!(m.is_clean());
    assert!(!m.text.contains("owner:") && m.text.contains("Two workers"), "{}", m.text);
}

/// A small memory file: some known and unknown keys in varied layouts, and a body.
fn memory_file() -> impl Strategy<Value = String> {
    let entry = prop_oneof![
        Just("id: a1B2c3D4e5F\n".to_owned()),
        Just("type: decision\n".to_owned()),
        Just("status: archived  # old\n".to_owned()),
        Just("tags: [a, b]\n".to_owned()),
        Just("tags: a, b, c\n".to_owned()),
        Just("tags:\n  - x\n  # note\n  - y\n".to_owned()),
        Just("created_at: 2026-01-10T10:00:00Z\n".to_owned()),
        Just("updated_at: '2026-02-10'\n".to_owned()),
        Just("pinned: true\n".to_owned()),
        Just("links:\n  - { type: extends, target: memory:x }\n".to_owned()),
        Just("# a comment\n".to_owned()),
        Just("owner: \"ana\"\n".to_owned()),
        Just("notes: |\n  one\n  two\n".to_owned()),
        "[a-z]{1,6}: [a-z0-9 ]{0,8}\n",
    ];
    let body = proptest::collection::vec(
        prop_oneof![
            Just("# Title\n".to_owned()),
            Just("\n".to_owned()),
            Just("=======\n".to_owned()),
            Just("- item\n".to_owned()),
            "[a-zA-Z .]{0,20}\n",
        ],
        0..8,
    );
    (proptest::collection::vec(entry, 0..6), body, any::<bool>()).prop_map(|(keys, body, crlf)| {
        let text = format!("---\n{}---\n\n{}", keys.concat(), body.concat());
        if crlf { text.replace('\n', "\r\n") } else { text }
    })
}

proptest! {
    // Each case runs `git merge-file`: 64 cases unless PROPTEST_CASES asks for a longer session.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(64),
        ..ProptestConfig::default()
    })]

    /// Merging a file with itself, or with an unchanged base, returns it byte for byte: through
    /// the driver, and through the key-by-key merge itself (which the driver skips then).
    #[test]
    fn fuzz_merge_driver_identity(base in memory_file(), changed in memory_file()) {
        prop_assert_eq!(&merge(&base, &changed, &changed).text, &changed);
        prop_assert_eq!(&merge(&base, &changed, &base).text, &changed);
        prop_assert_eq!(&merge(&base, &base, &changed).text, &changed);
        if let Some(m) = merge_structured(MergeInput { base: &base, ours: &changed, theirs: &changed }, &git_text).unwrap() {
            prop_assert_eq!(&m.text, &changed);
            prop_assert!(m.is_clean());
        }
        let id = |t: &str| Document::parse(t).mapping().ok().and_then(|m| m.get("id").cloned());
        let same_id = id(&base) == id(&changed);
        if let Some(m) = merge_structured(MergeInput { base: &base, ours: &changed, theirs: &base }, &git_text).unwrap().filter(|_| same_id) {
            prop_assert_eq!(&m.text, &changed);
            prop_assert!(m.is_clean());
        }
    }

    /// Whatever the two sides did, a merge of readable files gives readable frontmatter.
    #[test]
    fn fuzz_merge_driver_keeps_frontmatter_valid(base in memory_file(), ours in memory_file(), theirs in memory_file()) {
        // The generator can repeat a key (`tags` twice): such a side is unreadable already, and
        // a merge that takes it whole (the other side unchanged) is right to keep it.
        let readable = |t: &str| Document::parse(t).mapping().is_ok();
        prop_assume!(readable(&base) && readable(&ours) && readable(&theirs));
        let m = merge(&base, &ours, &theirs);
        if !m.as_text {
            let doc = Document::parse(&m.text);
            prop_assert!(doc.mapping().is_ok(), "{}", m.text);
            prop_assert!(!doc.yaml().contains("<<<<<<<"), "{}", m.text);
        }
    }
}

#[test]
fn attribute_lines_and_driver_commands() {
    assert_eq!(attribute_line(".memories"), ".memories/**/*.md merge=memlane");
    assert_eq!(
        attribute_line("docs/my notes/.memories"),
        "\"docs/my notes/.memories/**/*.md\" merge=memlane"
    );
    assert_eq!(driver_command("memlane"), "memlane merge-file %O %A %B %P");
    assert_eq!(
        driver_command("/opt/my bin/memlane"),
        "'/opt/my bin/memlane' merge-file %O %A %B %P"
    );
}

#[test]
fn the_driver_setup_reports_applies_and_removes_its_changes() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("proj/notes/.memories");
    std::fs::create_dir_all(&vault).unwrap();
    let none = merge_driver_setup(&vault, DriverAction::Install, true, "memlane").unwrap();
    assert_eq!((none.work_tree, none.changes.len()), (None, 0), "outside a git work tree");

    let proj = dir.path().join("proj");
    let init = std::process::Command::new("git").args(["init", "-q"]).current_dir(&proj).status();
    assert!(init.unwrap().success());
    let attributes = proj.join(".gitattributes");
    std::fs::write(&attributes, "*.png binary").unwrap();
    let dry = merge_driver_setup(&vault, DriverAction::Install, false, "memlane").unwrap();
    assert!(!dry.applied);
    assert_eq!(dry.changes.len(), 3, "{:?}", dry.changes);
    assert_eq!(
        dry.changes[0],
        DriverChange::AddAttribute {
            file: std::fs::canonicalize(&proj).unwrap().join(".gitattributes"),
            line: "notes/.memories/**/*.md merge=memlane".into()
        }
    );
    assert_eq!(
        std::fs::read_to_string(&attributes).unwrap(),
        "*.png binary",
        "a dry run writes nothing"
    );

    let done = merge_driver_setup(&vault, DriverAction::Install, true, "memlane").unwrap();
    assert_eq!(done.changes, dry.changes);
    let text = std::fs::read_to_string(&attributes).unwrap();
    assert!(
        text.starts_with("*.png binary\n# memlane:")
            && text.ends_with("\nnotes/.memories/**/*.md merge=memlane\n"),
        "{text}"
    );
    let again = merge_driver_setup(&vault, DriverAction::Install, true, "memlane").unwrap();
    assert!(again.changes.is_empty(), "{:?}", again.changes);

    let removed = merge_driver_setup(&vault, DriverAction::Remove, true, "memlane").unwrap();
    assert_eq!(removed.changes.len(), 3, "{:?}", removed.changes);
    assert_eq!(std::fs::read_to_string(&attributes).unwrap(), "*.png binary\n");
    let config = std::fs::read_to_string(proj.join(".git/config")).unwrap();
    assert!(!config.contains("merge-file"), "{config}");
    let gone = merge_driver_setup(&vault, DriverAction::Remove, false, "memlane").unwrap();
    assert!(gone.changes.is_empty());
}
