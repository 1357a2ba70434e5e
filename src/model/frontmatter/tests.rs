use serde_yaml_ng::Value;

use super::*;
use crate::model::time::format_timestamp;

const HAND: &str = "---\n# a comment the author wrote\nid: 3kTqZ9pLx2A\ntype: decision   # why\ntags:\n  - auth\n  - refactor\ncustom_key: {nested: [1, 2]}\ncreated_at: 2026-01-10T10:00:00Z\n---\n\nBody with --- inside\n---\nand more\n";

#[test]
fn untouched_documents_render_byte_for_byte() {
    for text in [
        HAND,
        "",
        "no frontmatter at all\n",
        "---\n---\n",
        "---\nid: x\n---\nbody without blank line",
        "\u{feff}---\r\nid: x\r\ntype: fact\r\n---\r\n\r\nwindows\r\n",
        "---\nkey: |\n  block\n\n  scalar\nother: 1\n---\n",
        "---\nunclosed: true\nbody\n",
    ] {
        assert_eq!(Document::parse(text).render(), text, "{text:?}");
    }
}

#[test]
fn set_replaces_only_that_key_and_keeps_the_rest() {
    let mut doc = Document::parse(HAND);
    doc.set("type", &str_value("architecture"));
    doc.set("updated_at", &str_value("2026-01-12T08:30:00Z"));
    doc.set("tags", &list_value(&["auth".into(), "jwt".into()]));
    let out = doc.render();
    assert!(out.contains("# a comment the author wrote\n"));
    assert!(out.contains("custom_key: {nested: [1, 2]}\n"));
    assert!(out.contains("type: architecture\n"));
    assert!(out.contains("tags: [auth, jwt]\n"));
    // updated_at goes right after created_at, the canonical order.
    assert!(
        out.contains("created_at: 2026-01-10T10:00:00Z\nupdated_at: 2026-01-12T08:30:00Z\n---\n")
    );
    assert!(out.ends_with("\nBody with --- inside\n---\nand more\n"));
    let map = Document::parse(&out).mapping().unwrap();
    assert_eq!(map.get("type").unwrap().as_str(), Some("architecture"));
    let keys: Vec<&str> = map.keys().map(|k| k.as_str().unwrap()).collect();
    assert_eq!(keys, ["id", "type", "tags", "custom_key", "created_at", "updated_at"]);
}

#[test]
fn new_documents_have_canonical_order() {
    let mut doc = Document::new("hello");
    doc.set("tags", &list_value(&["b".into()]));
    doc.set("id", &str_value("3kTqZ9pLx2A"));
    doc.set("created_at", &str_value("2026-01-10T10:00:00Z"));
    doc.set("type", &str_value("fact"));
    doc.set("status", &str_value("active"));
    assert_eq!(
        doc.render(),
        "---\nid: 3kTqZ9pLx2A\ntype: fact\nstatus: active\ntags: [b]\ncreated_at: 2026-01-10T10:00:00Z\n---\n\nhello\n"
    );
    assert_eq!(doc.content(), "hello\n");
}

#[test]
fn ambiguous_scalars_are_quoted() {
    for (s, want) in [
        ("no", "\"no\""),
        ("On", "\"On\""),
        ("0123", "\"0123\""),
        ("1e3", "\"1e3\""),
        ("a: b", "\"a: b\""),
        ("#tag", "\"#tag\""),
        ("", "\"\""),
        ("line\nbreak", "\"line\\nbreak\""),
        ("auth", "auth"),
        ("v1.2", "v1.2"),
        ("src/auth.py", "src/auth.py"),
        ("2026-01-10", "2026-01-10"),
        ("3kTqZ9pLx2A", "3kTqZ9pLx2A"),
        ("0x1F", "\"0x1F\""),
        ("12e5", "\"12e5\""),
    ] {
        assert_eq!(yaml_scalar(s), want, "{s:?}");
        let back: Value = serde_yaml_ng::from_str(&yaml_scalar(s)).unwrap();
        assert_eq!(back, Value::String(s.to_owned()), "{s:?}");
    }
}

#[test]
fn lenient_meta_reads_hand_written_values() {
    let doc = Document::parse(
        "---\ntags: auth, refactor ,auth\ncreated_at: 2026-01-10\npinned: maybe\nstatus: weird\n---\nx\n",
    );
    let (meta, warnings) = Meta::from_mapping(&doc.mapping().unwrap());
    assert_eq!(meta.tags, ["auth", "refactor"]);
    assert_eq!(format_timestamp(meta.created_at.unwrap()), "2026-01-10T00:00:00Z");
    assert!(!meta.pinned);
    assert_eq!(meta.status, None);
    assert_eq!(warnings.len(), 2, "{warnings:?}");
}

#[test]
fn broken_yaml_is_an_error_not_a_panic() {
    let doc = Document::parse("---\ntags: [unclosed\n---\nbody\n");
    assert!(matches!(doc.mapping(), Err(FrontmatterError::Yaml(_))));
    assert_eq!(doc.content(), "body\n");
    let doc = Document::parse("---\n- a list\n---\n");
    assert_eq!(doc.mapping(), Err(FrontmatterError::NotAMapping));
    let doc = Document::parse("---\nno close\n");
    assert_eq!(doc.mapping(), Err(FrontmatterError::Unclosed));
}

#[test]
fn values_spanning_lines_are_one_entry() {
    let text = "---\nid: 3kTqZ9pLx2A\ndescription: \"Migration plan.\nstatus: draft\nuntil the review\"\nstatus: active\ntags: [a,\nb]\nnote: |\n  status: x\n\n  \"open quote\nlast: 'it''s\nupdated_at: no'\n---\nbody\n";
    let before = Document::parse(text).mapping().unwrap();
    let mut doc = Document::parse(text);
    doc.set("status", &str_value("archived"));
    doc.set("tags", &list_value(&["a".into(), "c".into()]));
    doc.set("updated_at", &str_value("2026-02-01T00:00:00Z"));
    doc.verify_edits().unwrap();
    let out = doc.render();
    let after = Document::parse(&out).mapping().unwrap();
    assert_eq!(after.get("status").unwrap().as_str(), Some("archived"));
    for k in ["description", "note", "last", "id"] {
        assert_eq!(after.get(k), before.get(k), "{k} in\n{out}");
    }
    assert!(out.contains("description: \"Migration plan.\nstatus: draft\nuntil the review\"\n"));
    assert!(out.ends_with("---\nbody\n"));
}

#[test]
fn an_edit_that_would_change_another_key_is_refused() {
    // A layout the segmenter cannot follow: a plain scalar continued on a line that starts
    // with a quote. Whatever the segmenter decides, the check must catch a wrong cut.
    let mut doc = Document::parse("---\na: 1\nb: x\n---\n");
    doc.fm.as_mut().unwrap().segments[0].text = "a: 1\nb: y\n".into();
    doc.set("c", &str_value("new"));
    assert!(matches!(doc.verify_edits(), Err(FrontmatterError::UnsafeEdit(_))));
    let mut doc = Document::parse("---\na: 1\nb: x\n---\n");
    doc.set("a", &str_value("2"));
    doc.verify_edits().unwrap();
}

mod prop {
    use proptest::prelude::*;
    use serde_yaml_ng::Value;

    use super::super::*;

    /// Lines that look like YAML syntax, to put inside multi-line values.
    const TRICKY: &[&str] = &[
        "status: draft",
        "updated_at: 2020-01-01T00:00:00Z",
        "tags: [x,",
        "# not a comment",
        "- not an item",
        "[bracket",
        "{brace",
        "key: 'quote",
        "plain words here",
        "id: 3kTqZ9pLx2A",
        "a \"quoted\" bit",
        "it's",
    ];

    fn tricky() -> impl Strategy<Value = String> + Clone {
        proptest::sample::select(TRICKY).prop_map(str::to_owned)
    }

    fn double_quoted(lines: &[String]) -> String {
        let esc: Vec<String> =
            lines.iter().map(|l| l.replace('\\', "\\\\").replace('"', "\\\"")).collect();
        format!("\"{}\"", esc.join("\n"))
    }

    fn single_quoted(lines: &[String]) -> String {
        let esc: Vec<String> = lines.iter().map(|l| l.replace('\'', "''")).collect();
        format!("'{}'", esc.join("\n"))
    }

    /// One hand-written `key: value` entry (the text after `key:`), in one of many layouts.
    fn entry_value() -> impl Strategy<Value = String> {
        let lines = proptest::collection::vec(tricky(), 1..4);
        prop_oneof![
            Just(" plain value".to_owned()),
            Just(" value # a trailing comment".to_owned()),
            lines.clone().prop_map(|l: Vec<String>| format!(" {}", double_quoted(&l))),
            lines.clone().prop_map(|l: Vec<String>| format!(" {}", single_quoted(&l))),
            lines.clone().prop_map(|l| {
                let items: Vec<String> =
                    l.iter().map(|x| double_quoted(std::slice::from_ref(x))).collect();
                format!(" [{},\n  last]", items.join(",\n"))
            }),
            Just(" [a,\nb, \"c,\nd\"]".to_owned()),
            Just(" {x: 1,\ny: [2,\n3], z: 'w\nv'}".to_owned()),
            lines.clone().prop_map(|l| format!(" |\n  {}\n\n  {}", l.join("\n  "), l[0])),
            lines
                .clone()
                .prop_map(|l| format!(" >-\n    {}\n  # not a comment either", l.join("\n    "))),
            lines.clone().prop_map(|l| {
                let items: Vec<String> = l
                    .iter()
                    .map(|x| format!("  - {}", double_quoted(std::slice::from_ref(x))))
                    .collect();
                format!("\n{}", items.join("\n"))
            }),
            lines.prop_map(|l| format!("\n- {}\n- item", double_quoted(&l))),
            Just(" &anchor \"anchored\nvalue\"".to_owned()),
        ]
    }

    fn separator() -> impl Strategy<Value = &'static str> {
        proptest::sample::select(&["", "", "# a comment: with a colon\n", "\n", "# c\n\n"][..])
    }

    const KEYS: &[&str] =
        &["description", "status", "notes", "tags", "title", "custom", "updated_at", "type", "a"];

    fn frontmatter() -> impl Strategy<Value = String> {
        proptest::collection::vec((separator(), entry_value()), 1..KEYS.len()).prop_map(|entries| {
            let mut out = String::new();
            for (key, (sep, value)) in KEYS.iter().zip(entries) {
                out.push_str(sep);
                out.push_str(&format!("{key}:{value}\n"));
            }
            out
        })
    }

    #[derive(Debug, Clone)]
    enum Edit {
        Set(&'static str, Value),
        Remove(&'static str),
    }

    fn edit() -> impl Strategy<Value = Edit> {
        let key = proptest::sample::select(KEYS);
        prop_oneof![
            (key.clone(), "[a-z ]{1,12}").prop_map(|(k, v)| Edit::Set(k, Value::String(v))),
            (key.clone(), proptest::collection::vec("[a-z]{1,6}", 0..3))
                .prop_map(|(k, v)| Edit::Set(k, list_value(&v))),
            key.prop_map(Edit::Remove),
        ]
    }

    proptest! {
        #[test]
        fn edits_never_touch_other_keys_or_the_body(
            yaml in frontmatter(),
            edits in proptest::collection::vec(edit(), 1..4),
            body in "(\\PC{0,40}\n){0,3}(---\n)?\\PC{0,20}",
        ) {
            let text = format!("---\n{yaml}---\n{body}");
            let original = Document::parse(&text);
            prop_assert_eq!(original.render(), text.clone());
            let before = original.mapping();
            prop_assert!(before.is_ok(), "generated YAML must parse: {:?}\n{}", before, yaml);
            let before = before.unwrap();
            let mut doc = original.clone();
            let mut touched: Vec<&str> = Vec::new();
            for e in &edits {
                match e {
                    Edit::Set(k, v) => { doc.set(k, v); touched.push(k); }
                    Edit::Remove(k) => { doc.remove(k); touched.push(k); }
                }
            }
            prop_assert!(doc.verify_edits().is_ok(), "{:?}\n{}", doc.verify_edits(), doc.render());
            let out = doc.render();
            let back = Document::parse(&out);
            let after = back.mapping().unwrap();
            for (k, v) in &before {
                let ks = k.as_str().unwrap();
                if !touched.contains(&ks) {
                    prop_assert_eq!(after.get(k), Some(v), "key {} in\n{}", ks, out);
                }
            }
            let mut last: Vec<(&str, Option<&Value>)> = Vec::new();
            for e in &edits {
                let (k, v) = match e { Edit::Set(k, v) => (*k, Some(v)), Edit::Remove(k) => (*k, None) };
                last.retain(|(x, _)| *x != k);
                last.push((k, v));
            }
            for (k, v) in last {
                prop_assert_eq!(after.get(k), v, "key {} in\n{}", k, out);
            }
            prop_assert_eq!(back.content(), original.content());
            let tail = format!("---\n{body}");
            prop_assert!(out.ends_with(&tail));
        }
    }

    fn key() -> impl Strategy<Value = String> {
        "[a-z][a-z0-9_]{0,10}"
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            any::<bool>().prop_map(Value::Bool),
            any::<i32>().prop_map(|n| Value::Number(n.into())),
            "\\PC{0,20}".prop_map(Value::String),
            "[ -~\n\t]{0,20}".prop_map(Value::String),
        ];
        prop_oneof![
            leaf.clone(),
            proptest::collection::vec(leaf.clone(), 0..4).prop_map(Value::Sequence),
            proptest::collection::vec(
                proptest::collection::btree_map(key(), leaf, 1..3).prop_map(|m| {
                    Value::Mapping(m.into_iter().map(|(k, v)| (Value::String(k), v)).collect())
                }),
                1..3
            )
            .prop_map(Value::Sequence),
        ]
    }

    proptest! {
        #[test]
        fn set_then_parse_gives_the_same_values(
            entries in proptest::collection::btree_map(key(), value(), 0..8),
            body in "\\PC{0,80}",
        ) {
            let mut doc = Document::new(&body);
            for (k, v) in &entries {
                doc.set(k, v);
            }
            let text = doc.render();
            let back = Document::parse(&text);
            prop_assert_eq!(back.render(), text.clone());
            let map = back.mapping().unwrap();
            prop_assert_eq!(map.len(), entries.len());
            for (k, v) in &entries {
                prop_assert_eq!(map.get(k.as_str()), Some(v), "key {} in\n{}", k, text);
            }
            let want_body = if body.is_empty() || body.ends_with('\n') { body.clone() } else { format!("{body}\n") };
            prop_assert_eq!(back.content(), want_body.as_str());
        }

        #[test]
        fn any_text_round_trips(text in "(---\n)?\\PC{0,200}") {
            let doc = Document::parse(&text);
            prop_assert_eq!(doc.render(), text.clone());
            let _ = doc.mapping();
        }
    }
}
