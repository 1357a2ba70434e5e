use serde_yaml_ng::Value;

use super::*;

fn no_memories(_: &str) -> bool {
    false
}

fn memories(names: &'static [&'static str]) -> impl Fn(&str) -> bool {
    move |n: &str| names.contains(&n)
}

fn links(body: &str) -> Vec<Link> {
    extract_links(body, &memories(&["auth-v1", "auth-v2", "jwt-impl", "auth-plan", "notes/x"]))
}

fn mem(s: &str) -> LinkTarget {
    LinkTarget::Memory(s.to_owned())
}

fn ghost(s: &str) -> LinkTarget {
    LinkTarget::Ghost(s.to_owned())
}

/// (target, alias, heading) of a link.
type Shape = (LinkTarget, Option<String>, Option<String>);

fn shapes(body: &str) -> Vec<Shape> {
    links(body).into_iter().map(|l| (l.target, l.alias, l.heading)).collect()
}

fn types(body: &str) -> Vec<String> {
    links(body).iter().map(|l| l.edge_type.to_string()).collect()
}

fn opt(s: &str) -> Option<String> {
    Some(s.to_owned())
}

#[test]
fn link_forms() {
    let cases: &[(&str, &str, Vec<Shape>)] = &[
        ("bare ghost", "see [[src/auth.py]] now", vec![(ghost("src/auth.py"), None, None)]),
        ("bare memory", "see [[auth-v1]]", vec![(mem("auth-v1"), None, None)]),
        ("alias", "[[auth-v1|the old plan]]", vec![(mem("auth-v1"), opt("the old plan"), None)]),
        ("heading", "[[auth-v1#Risks]]", vec![(mem("auth-v1"), None, opt("Risks"))]),
        (
            "heading and alias",
            "[[docs/guide.md#Setup|setup]]",
            vec![(ghost("docs/guide.md"), opt("setup"), opt("Setup"))],
        ),
        ("memory prefix", "[[memory:auth-v1]]", vec![(mem("auth-v1"), None, None)]),
        ("memory prefix of an unknown memory", "[[memory:nope]]", vec![(mem("nope"), None, None)]),
        ("memory prefix with .md", "[[memory:auth-v1.md]]", vec![(mem("auth-v1"), None, None)]),
        ("memory prefix any case", "[[Memory:auth-v1]]", vec![(mem("auth-v1"), None, None)]),
        (
            "memory prefix, heading and alias",
            "[[memory:auth-v2#Goals|v2]]",
            vec![(mem("auth-v2"), opt("v2"), opt("Goals"))],
        ),
        ("memory in a folder", "[[notes/x]]", vec![(mem("notes/x"), None, None)]),
        ("bare memory with .md", "[[auth-plan.md]]", vec![(mem("auth-plan"), None, None)]),
        (
            "spaces inside are trimmed",
            "[[  auth-v1 | v1 ]]",
            vec![(mem("auth-v1"), opt("v1"), None)],
        ),
        ("empty alias and heading", "[[auth-v1#|]]", vec![(mem("auth-v1"), None, None)]),
        ("table pipe escape", "| [[auth-v1\\|v1]] |", vec![(mem("auth-v1"), opt("v1"), None)]),
        ("embed", "![[diagram.png]]", vec![(ghost("diagram.png"), None, None)]),
        ("unicode target", "[[日本/メモ.md]]", vec![(ghost("日本/メモ.md"), None, None)]),
        (
            "double backslash is not an escape",
            "\\\\[[auth-v1]]",
            vec![(mem("auth-v1"), None, None)],
        ),
        ("nested single brackets are kept", "[[a [b] c]]", vec![(ghost("a [b] c"), None, None)]),
        ("inner [[ restarts the link", "[[a [[b]] c]]", vec![(ghost("b"), None, None)]),
        ("triple brackets", "[[[x]]]", vec![(ghost("x"), None, None)]),
        (
            "several links to one target",
            "[[auth-v1]] and again [[auth-v1]]",
            vec![(mem("auth-v1"), None, None), (mem("auth-v1"), None, None)],
        ),
        ("unmatched backtick is text", "a ` b [[auth-v1]]", vec![(mem("auth-v1"), None, None)]),
        (
            "code span ends before the link",
            "`code` [[auth-v1]] `more`",
            vec![(mem("auth-v1"), None, None)],
        ),
        (
            "escaped backtick opens no span",
            "\\`x [[auth-v1]] `y`",
            vec![(mem("auth-v1"), None, None)],
        ),
        (
            "inline triple backticks are a span, not a fence",
            "```[[a]]``` [[auth-v1]]",
            vec![(mem("auth-v1"), None, None)],
        ),
        (
            "after a closed fence",
            "```\n[[a]]\n```\n[[auth-v1]]",
            vec![(mem("auth-v1"), None, None)],
        ),
        (
            "code span does not cross a blank line",
            "`open\n\n[[auth-v1]] `x`",
            vec![(mem("auth-v1"), None, None)],
        ),
    ];
    for (name, body, want) in cases {
        assert_eq!(&shapes(body), want, "case: {name}");
    }
}

#[test]
fn not_links() {
    let cases: &[(&str, &str)] = &[
        ("escaped", "\\[[auth-v1]]"),
        ("empty", "[[]]"),
        ("blank", "[[ ]]"),
        ("unclosed", "[[auth-v1"),
        ("closed on the next line", "[[auth-v1\n]]"),
        ("heading only", "[[#Risks]]"),
        ("alias only", "[[|x]]"),
        ("memory prefix only", "[[memory:]]"),
        ("single brackets", "[auth-v1]"),
        ("dot only", "[[./]]"),
        ("fenced backticks", "```\n[[auth-v1]]\n```"),
        ("fenced tildes", "~~~md\n[[auth-v1]]\n~~~"),
        ("fence with info string", "```rust title=\"x\"\n[[auth-v1]]\n```"),
        ("indented fence", "- item\n    ```\n    [[auth-v1]]\n    ```"),
        ("fence in a quote", "> ```\n> [[auth-v1]]\n> ```"),
        ("unclosed fence runs to the end", "text\n```\n[[auth-v1]]\n\nmore [[x]]"),
        ("longer fence is not closed by a shorter one", "````\n```\n[[auth-v1]]\n````"),
        ("tilde fence not closed by backticks", "~~~\n```\n[[auth-v1]]\n"),
        ("inline code", "use `[[auth-v1]]` literally"),
        ("double-backtick code span", "``a ` [[auth-v1]] b``"),
        ("code span over a soft line break", "`a\n[[auth-v1]]`"),
        ("code span cuts the link", "[[auth `v1]] x`"),
    ];
    for (name, body) in cases {
        assert_eq!(links(body), vec![], "case: {name}");
    }
}

#[test]
fn span_and_raw() {
    let body = "Intro — [[src/auth.py|auth]] and [[memory:auth-v1]].";
    let ls = links(body);
    assert_eq!(ls.len(), 2);
    for l in &ls {
        assert_eq!(&body[l.start..l.end], format!("[[{}]]", l.raw));
    }
    assert_eq!(ls[0].raw, "src/auth.py|auth");
    assert_eq!(ls[1].raw, "memory:auth-v1");
    assert!(ls.iter().all(|l| l.origin == LinkOrigin::Keyword));
}

#[test]
fn normalize_target_table() {
    let cases = [
        ("src/auth.py", "src/auth.py"),
        ("./src/auth.py", "src/auth.py"),
        ("././src/auth.py", "src/auth.py"),
        ("./src//auth.py", "src/auth.py"),
        ("src///auth.py", "src/auth.py"),
        (".\\src\\auth.py", "src/auth.py"),
        ("src/./auth.py", "src/auth.py"),
        ("  src/auth.py \t", "src/auth.py"),
        ("docs/guide.md", "docs/guide.md"),
        ("./docs//guide.md", "docs/guide.md"),
        ("/etc/hosts", "/etc/hosts"),
        ("//etc//hosts", "/etc/hosts"),
        ("../up/file.rs", "../up/file.rs"),
        ("src/", "src"),
        ("Src/Auth.PY", "Src/Auth.PY"),
        ("My Notes/a b.md", "My Notes/a b.md"),
        ("./", ""),
        ("", ""),
    ];
    for (input, want) in cases {
        assert_eq!(normalize_target(input), want, "input: {input:?}");
    }
}

#[test]
fn ghosts_meet() {
    let targets: Vec<LinkTarget> =
        links("[[./src//auth.py]] [[src/auth.py]] [[.\\src\\auth.py]] [[ src/auth.py ]]")
            .into_iter()
            .map(|l| l.target)
            .collect();
    assert_eq!(targets, vec![ghost("src/auth.py"); 4]);
    assert_eq!(targets[0].key(), "ghost:src/auth.py");
}

#[test]
fn resolution_asks_for_the_stem() {
    let asked = std::cell::RefCell::new(Vec::new());
    let is_memory = |n: &str| {
        asked.borrow_mut().push(n.to_owned());
        n == "auth/plan"
    };
    let ls = extract_links("[[./auth//plan.md]] [[docs/x.md]]", &is_memory);
    assert_eq!(ls[0].target, mem("auth/plan"));
    assert_eq!(ls[1].target, ghost("docs/x.md"));
    assert_eq!(*asked.borrow(), vec!["auth/plan".to_owned(), "docs/x".to_owned()]);
    assert_eq!(resolve_target("  ", &no_memories), None);
    assert_eq!(resolve_target("memory: x.md ", &no_memories), Some(mem("x")));
}

#[test]
fn edge_types_from_keywords() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "ragdocs supersedes example",
            "This plan [[memory:auth-v1]] supersedes the previous approach.",
            &["supersedes"],
        ),
        ("replaces", "[[memory:auth-v2]] replaces the session design.", &["supersedes"]),
        ("replaced (past)", "We replaced [[memory:auth-v1]] last week.", &["supersedes"]),
        ("replacing", "Replacing [[memory:auth-v1]] with tokens.", &["supersedes"]),
        ("obsoletes", "It obsoletes [[memory:auth-v1]].", &["supersedes"]),
        ("deprecates", "This deprecates [[memory:auth-v1]].", &["supersedes"]),
        ("updates", "This updates [[memory:auth-v1]] with new numbers.", &["supersedes"]),
        ("uppercase keyword", "THIS SUPERSEDES [[memory:auth-v1]].", &["supersedes"]),
        (
            "ragdocs depends_on example (both links)",
            "The implementation [[memory:jwt-impl]] depends on [[memory:auth-plan]].",
            &["depends_on", "depends_on"],
        ),
        ("depend on", "Both depend on [[memory:auth-plan]].", &["depends_on"]),
        ("requires", "Login requires [[memory:jwt-impl]].", &["depends_on"]),
        ("required", "Token refresh is required for [[memory:jwt-impl]].", &["depends_on"]),
        ("needs", "The CLI needs [[memory:jwt-impl]] first.", &["depends_on"]),
        ("builds on", "This builds on [[memory:auth-plan]].", &["depends_on"]),
        ("relies on", "It relies on [[memory:auth-plan]].", &["depends_on"]),
        (
            "contradicts (ragdocs)",
            "Our new strategy [[memory:auth-v2]] contradicts [[memory:auth-v1]].",
            &["contradicts", "contradicts"],
        ),
        ("conflicts with", "This conflicts with [[memory:auth-v1]].", &["contradicts"]),
        ("disagrees with", "Bob disagrees with [[memory:auth-v1]].", &["contradicts"]),
        ("challenges", "The benchmark challenges [[memory:auth-v1]].", &["contradicts"]),
        ("extends", "This extends [[memory:auth-plan]] to mobile.", &["extends"]),
        ("elaborates on", "Here I elaborate on [[memory:auth-plan]].", &["extends"]),
        ("expands on", "It expands on [[memory:auth-plan]].", &["extends"]),
        ("causes", "The cache bug causes [[memory:auth-v1]] to fail.", &["causes"]),
        ("caused by", "The outage was caused by [[memory:jwt-impl]].", &["causes"]),
        ("leads to", "Skipping it leads to [[memory:auth-v1]].", &["causes"]),
        ("results in", "That results in [[memory:auth-v1]].", &["causes"]),
        ("instance of", "This is an instance of [[memory:auth-plan]].", &["instance_of"]),
        ("example of", "A good example of [[memory:auth-plan]].", &["instance_of"]),
        ("is an example", "[[memory:auth-v1]] is an example.", &["instance_of"]),
        ("invalidated by", "The idea was invalidated by [[memory:jwt-impl]].", &["invalidated_by"]),
        ("disproved by", "Disproved by [[memory:jwt-impl]].", &["invalidated_by"]),
        ("refuted by", "It was refuted by [[memory:jwt-impl]].", &["invalidated_by"]),
        ("because of", "We switched because of [[memory:jwt-impl]].", &["motivated_by"]),
        ("motivated by", "Motivated by [[memory:jwt-impl]].", &["motivated_by"]),
        ("in order to", "In order to ship, see [[memory:jwt-impl]].", &["motivated_by"]),
        ("no keyword: memory", "See [[memory:auth-v1]] for details.", &["related_to"]),
        ("no keyword: ghost", "See [[docs/guide.md]] for details.", &["mentions"]),
    ];
    for (name, body, want) in cases {
        assert_eq!(types(body), *want, "case: {name}");
    }
}

#[test]
fn edge_type_rules() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "substring is not a keyword",
            "The prerequisites are in [[memory:auth-v1]].",
            &["related_to"],
        ),
        ("requirements is not requires", "Requirements: [[memory:auth-v1]].", &["related_to"]),
        (
            "causes inside because is not causes",
            "Fine, because [[memory:auth-v1]].",
            &["related_to"],
        ),
        ("keyword inside the link text", "See [[memory:replaces-old|replaces]].", &["related_to"]),
        ("keyword in inline code", "Run `replaces` on [[memory:auth-v1]].", &["related_to"]),
        (
            "keyword in the previous sentence",
            "The new design replaces the old one. See [[memory:auth-v1]].",
            &["related_to"],
        ),
        (
            "keyword in the next sentence",
            "See [[memory:auth-v1]]. It depends on nothing.",
            &["related_to"],
        ),
        ("question mark ends a sentence", "Replaced? [[memory:auth-v1]] maybe.", &["related_to"]),
        (
            "closing quote then period",
            "He said \"it replaces it.\" Read [[memory:auth-v1]].",
            &["related_to"],
        ),
        (
            "e.g. does not end a sentence",
            "This replaces older notes, e.g. [[memory:auth-v1]].",
            &["supersedes"],
        ),
        (
            "i.e. does not end a sentence",
            "It replaces the last one, i.e. [[memory:auth-v1]].",
            &["supersedes"],
        ),
        (
            "vs. does not end a sentence",
            "Tokens replace cookies vs. [[memory:auth-v1]].",
            &["supersedes"],
        ),
        (
            "a dotted path does not end a sentence",
            "Editing src/auth.py replaces [[memory:auth-v1]].",
            &["supersedes"],
        ),
        (
            "a path at a sentence end does",
            "It replaces src/auth.py. Then [[memory:auth-v1]].",
            &["related_to"],
        ),
        ("version numbers do not split", "v1.2 replaces [[memory:auth-v1]].", &["supersedes"]),
        (
            "etc. before a capital ends a sentence",
            "Replaces tokens, keys, etc. The rest is in [[memory:auth-v1]].",
            &["related_to"],
        ),
        (
            "soft line break keeps the sentence",
            "[[memory:auth-v1]] is\nreplaced now.",
            &["supersedes"],
        ),
        ("blank line ends it", "It replaces the old one\n\n[[memory:auth-v1]]", &["related_to"]),
        (
            "list items are sentences",
            "- replaces the old one\n- [[memory:auth-v1]]",
            &["related_to"],
        ),
        ("numbered list items", "1. replaces it\n2. [[memory:auth-v1]]", &["related_to"]),
        ("heading is its own sentence", "## Replaces\n[[memory:auth-v1]] here", &["related_to"]),
        ("table rows are sentences", "| replaces |\n| [[memory:auth-v1]] |", &["related_to"]),
        ("fence between", "Replaces\n```\ncode\n```\n[[memory:auth-v1]]", &["related_to"]),
        (
            "nearest keyword wins",
            "[[memory:auth-v2]] replaces [[memory:auth-v1]], which depends on [[memory:jwt-impl]].",
            &["supersedes", "supersedes", "depends_on"],
        ),
        (
            "a tie goes to precedence",
            "It requires [[memory:auth-v1]] replaces it.",
            &["supersedes"],
        ),
        (
            "passive supersession is not supersedes",
            "This is superseded by [[memory:auth-v2]].",
            &["related_to"],
        ),
        ("replaced by", "It was replaced by [[memory:auth-v2]].", &["related_to"]),
        ("deprecated in favour of", "Deprecated in favour of [[memory:auth-v2]].", &["related_to"]),
        ("required by", "This is required by [[memory:jwt-impl]].", &["related_to"]),
        (
            "passive falls through to another keyword",
            "Replaced by [[memory:auth-v2]] because of cost.",
            &["motivated_by"],
        ),
        ("need to is modal", "We need to refactor [[src/auth.py]].", &["refactors"]),
    ];
    for (name, body, want) in cases {
        assert_eq!(types(body), *want, "case: {name}");
    }
}

#[test]
fn ghost_document_verbs() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "ragdocs example: refactor is nearer than plan to",
            "Plan to refactor [[src/auth.py]] to use JWT tokens.",
            &["refactors"],
        ),
        ("refactoring", "Refactoring [[src/db.rs]] today.", &["refactors"]),
        ("refactored", "I refactored [[src/db.rs]].", &["refactors"]),
        ("plans to", "The team plans to split [[docs/roadmap.md]].", &["plans"]),
        ("plan for", "Our plan for [[docs/roadmap.md]] is below.", &["plans"]),
        ("planned", "We planned [[docs/roadmap.md]] in May.", &["plans"]),
        ("debugging", "Debugging [[src/db.rs]] all day.", &["debugs"]),
        ("debugged", "I debugged [[src/db.rs]].", &["debugs"]),
        ("investigated", "We investigated [[src/db.rs]] for leaks.", &["debugs"]),
        ("fixed a bug in", "Fixed a bug in [[src/db.rs]].", &["debugs"]),
        ("bug in", "There is a bug in [[src/db.rs]].", &["debugs"]),
        ("no verb", "Look at [[src/db.rs]].", &["mentions"]),
        (
            "relationship keyword beats a verb",
            "Refactoring [[src/db.rs]] requires care.",
            &["depends_on"],
        ),
        ("document verbs do not type memories", "Refactor [[memory:auth-v1]].", &["related_to"]),
        ("verb in another sentence", "I refactored it. See [[src/db.rs]].", &["mentions"]),
        ("preplanned is not planned", "The preplanned [[src/db.rs]].", &["mentions"]),
    ];
    for (name, body, want) in cases {
        assert_eq!(types(body), *want, "case: {name}");
    }
}

#[test]
fn confidence_follows_typing() {
    let ls = links(
        "[[memory:auth-v2]] replaces it. See [[memory:auth-v1]]. Refactor [[src/a.rs]]. [[b.rs]]",
    );
    let got: Vec<f32> = ls.iter().map(|l| l.confidence).collect();
    assert_eq!(got, vec![0.8, 0.5, 0.8, 0.5]);
}

#[test]
fn context_like_anchor_context() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "ragdocs example, short enough to keep whole",
            "Plan to refactor [[src/auth.py]] to use JWT tokens.\n\n## Goals",
            "Plan to refactor [[src/auth.py]] to use JWT tokens. ## Goals",
        ),
        ("whitespace collapsed", "a\n\n  b   [[x]]\tc\n", "a b [[x]] c"),
        (
            "cut at words with ellipses",
            "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor refactor [[src/auth.py]] to use JWT tokens and drop the session table, then measure everything again carefully.",
            "…adipiscing elit, sed do eiusmod tempor refactor [[src/auth.py]] to use JWT tokens and drop the session table,…",
        ),
        ("fenced code left out", "```\nsecret code\n```\nsee [[x]]", "see [[x]]"),
    ];
    for (name, body, want) in cases {
        let ls = links(body);
        assert_eq!(ls[0].context, *want, "case: {name}");
    }
    // Multi-byte text is cut on char boundaries.
    let body = format!("{}[[x]]{}", "é日🙂".repeat(40), "ü".repeat(80));
    let ctx = &links(&body)[0].context;
    assert!(ctx.starts_with('…') && ctx.ends_with('…') && ctx.contains("[[x]]"), "{ctx}");
    assert!(ctx.chars().count() <= 5 + 2 * CONTEXT_SIDE + 2, "{ctx}");
}

#[test]
fn edge_type_names() {
    for name in EdgeType::ALL_NAMED {
        let t: EdgeType = name.parse().unwrap();
        assert_eq!(t.as_str(), *name);
        assert_eq!(t.to_string(), *name);
        assert_eq!(t.kind(), *name);
        assert_eq!(serde_json::to_string(&t).unwrap(), format!("\"{name}\""));
        assert_eq!(serde_json::from_str::<EdgeType>(&format!("\"{name}\"")).unwrap(), t);
    }
    let cases = [
        ("DEPENDS_ON", EdgeType::DependsOn),
        ("depends-on", EdgeType::DependsOn),
        (" Instance-Of ", EdgeType::InstanceOf),
        ("SUPERSEDES", EdgeType::Supersedes),
        ("conflicts", EdgeType::Contradicts),
        ("was-context-for", EdgeType::WasContextFor),
        ("shares_entity:Redis Cluster", EdgeType::SharesEntity("Redis Cluster".into())),
        ("Shares-Entity: src/auth.py", EdgeType::SharesEntity("src/auth.py".into())),
    ];
    for (input, want) in cases {
        assert_eq!(input.parse::<EdgeType>().unwrap(), want, "input: {input}");
    }
    let e = EdgeType::SharesEntity("Redis Cluster".into());
    assert_eq!(e.as_str(), "shares_entity:Redis Cluster");
    assert_eq!(e.kind(), "shares_entity");
    assert_eq!(serde_json::to_string(&e).unwrap(), "\"shares_entity:Redis Cluster\"");
    for bad in ["", "foo", "shares_entity:", "shares_entity", "depends:on", "mentions:x"] {
        assert!(bad.parse::<EdgeType>().is_err(), "accepted {bad:?}");
    }
    let msg = "foo".parse::<EdgeType>().unwrap_err().to_string();
    assert!(
        msg.starts_with("unknown link type `foo` (expected one of: supersedes, depends_on"),
        "{msg}"
    );
    assert!(msg.contains("was_context_for, shares_entity:<name>)"), "{msg}");
}

#[test]
fn origins_and_targets() {
    for (o, s) in [
        (LinkOrigin::Keyword, "keyword"),
        (LinkOrigin::Frontmatter, "frontmatter"),
        (LinkOrigin::Agent, "agent"),
        (LinkOrigin::Entity, "entity"),
        (LinkOrigin::Context, "context"),
    ] {
        assert_eq!(o.as_str(), s);
        assert_eq!(s.parse::<LinkOrigin>().unwrap(), o);
        assert_eq!(serde_json::to_string(&o).unwrap(), format!("\"{s}\""));
    }
    assert!("nope".parse::<LinkOrigin>().is_err());
    assert_eq!(mem("a/b").key(), "memory:a/b");
    assert_eq!(LinkTarget::from_key("ghost:src/a.rs"), Some(ghost("src/a.rs")));
    assert_eq!(LinkTarget::from_key("memory:"), None);
    assert_eq!(LinkTarget::from_key("x"), None);
    let link = &links("This plan [[memory:auth-v1]] supersedes it.")[0];
    let json = serde_json::to_value(link).unwrap();
    assert_eq!(json["target"], "memory:auth-v1");
    assert_eq!(json["edge_type"], "supersedes");
    assert_eq!(json["origin"], "keyword");
    let back: Link = serde_json::from_value(json).unwrap();
    assert_eq!(&back, link);
}

fn yaml(s: &str) -> Value {
    serde_yaml_ng::from_str(s).unwrap()
}

/// A frontmatter link's target and type.
type Typed = (LinkTarget, String);

fn fm(s: &str) -> (Vec<Typed>, Vec<String>) {
    let (ls, warnings) = frontmatter_links(&yaml(s));
    for l in &ls {
        assert_eq!((l.origin, l.confidence, l.start, l.end), (LinkOrigin::Frontmatter, 1.0, 0, 0));
    }
    (ls.into_iter().map(|l| (l.target, l.edge_type.to_string())).collect(), warnings)
}

#[test]
fn frontmatter_links_table() {
    let t = |n: &str, ty: &str| (mem(n), ty.to_owned());
    let cases: &[(&str, &str, Vec<Typed>, usize)] = &[
        (
            "spec example",
            "- { type: depends_on, target: jwt-library-research }",
            vec![t("jwt-library-research", "depends_on")],
            0,
        ),
        (
            "memory prefix",
            "- { type: depends_on, target: memory:x }",
            vec![t("x", "depends_on")],
            0,
        ),
        (
            "block maps",
            "- type: supersedes\n  target: auth-v1.md\n",
            vec![t("auth-v1", "supersedes")],
            0,
        ),
        (
            "bare string",
            "- auth-v1\n- memory:auth-v2",
            vec![t("auth-v1", "related_to"), t("auth-v2", "related_to")],
            0,
        ),
        ("missing type", "- { target: auth-v1 }", vec![t("auth-v1", "related_to")], 0),
        (
            "type any case, conflicts",
            "- { type: Conflicts, target: a }",
            vec![t("a", "contradicts")],
            0,
        ),
        ("shorthand map", "- depends_on: jwt-research", vec![t("jwt-research", "depends_on")], 0),
        (
            "shares_entity",
            "- { type: 'shares_entity:Redis', target: a }",
            vec![t("a", "shares_entity:Redis")],
            0,
        ),
        ("single map", "{ type: extends, target: a }", vec![t("a", "extends")], 0),
        ("single string", "a", vec![t("a", "related_to")], 0),
        ("null", "~", vec![], 0),
        ("empty list", "[]", vec![], 0),
        (
            "whole frontmatter",
            "id: x\nlinks:\n  - { type: causes, target: b }\n",
            vec![t("b", "causes")],
            0,
        ),
        (
            "unknown type",
            "- { type: likes, target: a }\n- { type: extends, target: b }",
            vec![t("b", "extends")],
            1,
        ),
        ("missing target", "- { type: extends }", vec![], 1),
        ("empty target", "- { type: extends, target: '' }", vec![], 1),
        ("list target", "- { type: extends, target: [a, b] }", vec![], 1),
        ("non-string type", "- { type: 3, target: a }", vec![], 1),
        ("unknown key", "- { type: extends, taget: a, target: b }", vec![], 1),
        ("nested list", "- [a, b]", vec![], 1),
        ("boolean item", "- true", vec![], 1),
        ("not a list", "true", vec![], 1),
    ];
    for (name, src, want, n_warnings) in cases {
        let (got, warnings) = fm(src);
        assert_eq!(&got, want, "case: {name}");
        assert_eq!(warnings.len(), *n_warnings, "case: {name}: {warnings:?}");
    }
    let (_, w) = fm("- { type: likes, target: a }");
    assert!(w[0].starts_with("`links` entry 1: unknown link type `likes`"), "{w:?}");
    let (ls, _) = frontmatter_links(&yaml("- { type: extends, target: a, context: see the plan }"));
    assert_eq!(ls[0].context, "see the plan");
}

fn entities(body: &str) -> Vec<String> {
    extract_entities(body, &[])
}

#[test]
fn entities_from_prose_and_code() {
    let body = "\
Plan to refactor [[src/auth.py]] so `verify_token` uses the Redis Cluster.

We moved config to ./config//app.toml and Cargo.toml; see src\\db\\pool.rs:42 too.
The MAX_RETRIES constant and the getUser and HashMap helpers changed. Call reconcile() first.
Open Policy Agent now guards the API Gateway.

```rust
// load config/extra.yaml
let user_id = open(\"data/seed.json\");
```
";
    assert_eq!(
        entities(body),
        [
            "src/auth.py",
            "verify_token",
            "Redis Cluster",
            "config/app.toml",
            "Cargo.toml",
            "src/db/pool.rs",
            "MAX_RETRIES",
            "getUser",
            "HashMap",
            "reconcile",
            "Open Policy Agent",
            "API Gateway",
            "config/extra.yaml",
            "data/seed.json",
        ]
    );
}

#[test]
fn entity_rules() {
    let cases: &[(&str, &str, &[&str])] = &[
        ("sentence-initial The", "The cache is cold.", &[]),
        ("I", "I think I fixed it.", &[]),
        ("sentence start with a starter", "Then Redis Cluster failed over.", &["Redis Cluster"]),
        ("sentence start needs three words", "Redis Cluster failed over.", &[]),
        ("three words at the start", "Open Policy Agent handles it.", &["Open Policy Agent"]),
        ("mid-sentence pair", "we run Redis Cluster here", &["Redis Cluster"]),
        ("starter dropped mid-sentence", "we chose The Open Policy Agent", &["Open Policy Agent"]),
        ("single capitalised word", "we use Redis here", &[]),
        ("five words are a title", "see Quick Brown Fox Jumps Over it", &[]),
        ("punctuation breaks a name", "we use Redis, Kafka and Postgres", &[]),
        ("all caps only", "a TODO FIXME note", &[]),
        ("acronym with a word", "behind the AWS Lambda layer", &["AWS Lambda"]),
        ("in a wikilink", "see [[Redis Cluster]] notes", &["Redis Cluster"]),
        ("possessive", "the Redis Cluster's leader", &["Redis Cluster"]),
        ("emphasis", "we use **Redis Cluster** now", &["Redis Cluster"]),
        ("heading lines are title case", "## Goals And Risks\ntext", &[]),
        ("after a list marker", "- Then Open Policy Agent", &["Open Policy Agent"]),
        ("url", "see https://github.com/foo/bar.rs and www.example.com/a.py", &[]),
        ("email", "mail ops@example.com now", &[]),
        ("version numbers", "bumped to v1.2.3 and 2.0.1 (1.2)", &[]),
        ("e.g.", "tools, e.g. ripgrep", &[]),
        ("fraction and/or", "1/2 of km/h and/or TCP/IP", &[]),
        ("plain lowercase words", "the cache is cold and slow", &[]),
        ("domain is not a file", "visit example.com today", &[]),
        ("snake_case", "set user_id and _private_fn", &["user_id", "_private_fn"]),
        ("underscore emphasis", "this is _very_ important", &[]),
        ("dunder", "call __init__ later", &[]),
        ("SCREAMING_CASE needs two parts", "set MAX_RETRIES not MAX", &["MAX_RETRIES"]),
        ("camelCase", "getUser and iPhone", &["getUser", "iPhone"]),
        ("PascalCase", "HashMap, GitHub, OAuth", &["HashMap", "GitHub", "OAuth"]),
        ("capitalised, not PascalCase", "say Hello World", &["Hello World"]),
        ("qualified path", "see Vault::open and std::fs", &["Vault::open", "std::fs"]),
        ("dotfile in a folder", "edit config/.env", &["config/.env"]),
        ("known file name", "the Makefile and Dockerfile", &["Makefile", "Dockerfile"]),
        ("bare file", "edit auth.py and notes.txt", &["auth.py", "notes.txt"]),
        (
            "inline code",
            "use `serde_yaml_ng` and `reconcile` and `Cargo.toml`",
            &["serde_yaml_ng", "reconcile", "Cargo.toml"],
        ),
        ("inline code path", "in `src/model`", &["src/model"]),
        ("inline code rejects", "`npm ci` `--json` `42` `true` `v1.2` `a`", &[]),
        ("fence identifiers are skipped", "```\nlet user_id = HashMap::new();\n```", &[]),
        ("link parts", "[[src/auth.py|the auth module]] and [[memory:auth-v1]]", &["src/auth.py"]),
        ("dedupe keeps first", "src/a.rs then ./src/a.rs and `src/a.rs`", &["src/a.rs"]),
        ("unicode capitalised", "we met Zoë Åberg there", &["Zoë Åberg"]),
    ];
    for (name, body, want) in cases {
        assert_eq!(entities(body), *want, "case: {name}");
    }
}

#[test]
fn entity_tags() {
    let tags = ["Auth".to_owned(), "#refactor".to_owned(), " ".to_owned(), "auth".to_owned()];
    assert_eq!(extract_entities("uses user_id", &tags), ["user_id", "tag:auth", "tag:refactor"]);
}

#[test]
fn rewrite_table() {
    let cases: &[(&str, &str, Option<&str>)] = &[
        ("memory prefix", "see [[memory:old]].", Some("see [[memory:new]].")),
        ("alias kept", "[[memory:old|the plan]]", Some("[[memory:new|the plan]]")),
        ("heading kept", "[[memory:old#Goals]]", Some("[[memory:new#Goals]]")),
        ("heading and alias", "[[memory:old#G|x]]", Some("[[memory:new#G|x]]")),
        ("bare", "[[old]] and [[old|o]]", Some("[[new]] and [[new|o]]")),
        ("bare .md kept", "[[old.md]]", Some("[[new.md]]")),
        ("memory .md kept", "[[memory:old.md]]", Some("[[memory:new.md]]")),
        ("prefix case kept", "[[Memory: old ]]", Some("[[Memory: new ]]")),
        ("normalised bare", "[[./old]]", Some("[[new]]")),
        ("escaped table pipe", "| [[old\\|o]] |", Some("| [[new\\|o]] |")),
        (
            "code untouched",
            "`[[old]]`\n```\n[[memory:old]]\n```\n[[old]]",
            Some("`[[old]]`\n```\n[[memory:old]]\n```\n[[new]]"),
        ),
        ("other targets untouched", "[[older]] [[memory:old-2]] [[src/old]]", None),
        ("nothing to do", "no links", None),
        ("escaped link", "\\[[old]]", None),
    ];
    for (name, body, want) in cases {
        assert_eq!(rewrite_memory_links(body, "old", "new").as_deref(), *want, "case: {name}");
    }
    assert_eq!(
        rewrite_memory_links("[[memory:a/old]]", "memory:a/old.md", "b/new").as_deref(),
        Some("[[memory:b/new]]")
    );
    assert_eq!(rewrite_memory_links("[[old]]", "old", "old"), None);
    assert_eq!(rewrite_memory_links("[[old]]", "", "x"), None);
    let rewritten = rewrite_memory_links("[[memory:old]] replaces it", "old", "new").unwrap();
    assert_eq!(extract_links(&rewritten, &no_memories)[0].target, mem("new"));
}

/// A deterministic generator of awkward bodies.
fn generated(count: usize) -> Vec<String> {
    const PIECES: &[&str] = &[
        "[[",
        "]]",
        "[",
        "]",
        "`",
        "``",
        "```",
        "~~~",
        "|",
        "#",
        "\\",
        "memory:",
        "a",
        "src/auth.py",
        " ",
        "\n",
        "\n\n",
        "  ",
        "\t",
        ".",
        "!",
        "?",
        "é",
        "日本",
        "🙂",
        "\u{a0}",
        "\r\n",
        "depends on",
        "replaces",
        "Redis Cluster",
        "- ",
        "> ",
        "## ",
        "_",
        "x_y",
        "fooBar",
        "e.g.",
        "1. ",
        "::",
        "()",
        "/",
        "./",
        "*",
        "\"",
        "'s",
        "http://",
        "\u{1}",
        "refactor",
        "because of",
    ];
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|_| {
            let len = (next() % 40) as usize;
            (0..len).map(|_| PIECES[(next() % PIECES.len() as u64) as usize]).collect()
        })
        .collect()
}

#[test]
fn never_panics_on_generated_input() {
    let is_memory = |n: &str| n.len().is_multiple_of(2);
    for body in generated(4000) {
        for l in extract_links(&body, &is_memory) {
            let span = &body[l.start..l.end];
            assert!(span.starts_with("[[") && span.ends_with("]]"), "{body:?} {l:?}");
            assert_eq!(&span[2..span.len() - 2], l.raw, "{body:?}");
            assert!(!l.raw.contains('\n'), "{body:?}");
        }
        let _ = extract_entities(&body, &["t".to_owned()]);
        if let Some(out) = rewrite_memory_links(&body, "a", "b") {
            assert_ne!(out, body);
        }
        let _ = normalize_target(&body);
        let _ = frontmatter_links(&Value::String(body.clone()));
    }
}

#[test]
fn large_adversarial_inputs_finish() {
    // These would be quadratic with naive rescans; they must stay fast (no timing assert:
    // benchmarks measure speed, this only guards against a blow-up that hangs the suite).
    let n = 100_000;
    let bodies = [
        "[[".repeat(n),
        "[[a".repeat(n),
        "`".repeat(n),
        (1..2000).map(|k| "`".repeat(k)).collect::<Vec<_>>().join(" "),
        "\\".repeat(n) + "[[x]]",
        "a ".repeat(n) + "replaces [[memory:x]]",
        "[[x]] replaces ".repeat(n / 10),
        "```\n".repeat(n / 4),
        "Redis Cluster ".repeat(n / 10),
    ];
    for body in &bodies {
        let _ = extract_links(body, &no_memories);
        let _ = extract_entities(body, &[]);
        let _ = rewrite_memory_links(body, "x", "y");
        let _ = extract_entities(body, &[]);
        let _ = rewrite_memory_links(body, "x", "y");
    }
}
