//! The digest an agent reads at the start of a session (`memlane context`, the session-start
//! hook, the MCP `session_context` prompt).
//!
//! Within a token budget, one line per memory (name, type, age, first sentence), in this order:
//! the pinned memories; the memories linked to the files changed in the working tree (`git
//! status`); the best matches of an optional task text; then the hottest memories by
//! temperature. The agent reads a memory in full with `read_memory` when it needs it.
//!
//! Nothing in the digest is private: summaries come from the redacted content. Building it reads
//! the manifest, the usage state and, when changed files are link targets, the small index of the
//! links per target beside the link graph (the graph itself only when that index is missing or
//! stale); it reads only the files of the memories it shows, so it stays fast at 10k memories.
//! It does not warm what it lists: a digest is not a use, and warming it would keep the hottest
//! memories hot for ever.

use std::collections::HashSet;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::index::chunk::estimate_tokens;
use crate::index::graph::LinkGraph;
use crate::model::MemoryName;
use crate::model::links::normalize_target;
use crate::model::time::format_timestamp;

use super::Session;
use super::wire::{ContextDigest, ContextItem, level};

/// The budget of `memlane context` without `--budget`, in estimated tokens.
pub const DEFAULT_BUDGET: usize = 400;

/// How long each `git` call may take before the digest goes on without it.
pub const GIT_TIMEOUT: Duration = Duration::from_millis(800);

/// Changed files looked up in the link graph, at most.
const MAX_CHANGED_FILES: usize = 50;

/// Changed files named in the digest's header line, at most.
const SHOWN_CHANGED_FILES: usize = 5;

/// Search results considered for the task text.
const TASK_RESULTS: usize = 8;

/// Hottest memories considered.
const HOT_CANDIDATES: usize = 30;

/// Longest summary, in characters.
const MAX_SUMMARY_CHARS: usize = 160;

/// What the digest is for.
#[derive(Debug, Clone, Default)]
pub struct ContextRequest {
    /// The most estimated tokens the digest may take.
    pub budget: usize,
    /// A task text: its best matches are listed after the memories of the changed files.
    pub task: Option<String>,
    /// The working tree whose branch and changed files are looked at (default: the current
    /// directory). Not a git repository, or no `git`: that part is skipped.
    pub workdir: Option<PathBuf>,
}

/// Why a memory is in the digest: the sections, in the order they are filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Pinned,
    ChangedFiles,
    Task,
    Hot,
}

impl Section {
    fn as_str(self) -> &'static str {
        match self {
            Section::Pinned => "pinned",
            Section::ChangedFiles => "changed_files",
            Section::Task => "task",
            Section::Hot => "hot",
        }
    }

    fn heading(self) -> &'static str {
        match self {
            Section::Pinned => "Pinned:",
            Section::ChangedFiles => "Linked to the files you changed:",
            Section::Task => "Relevant to the task:",
            Section::Hot => "Recently used:",
        }
    }
}

/// A memory picked for the digest, before its file is read.
struct Candidate {
    name: String,
    section: Section,
    /// The changed file that links to it.
    reason: Option<String>,
    memory_type: String,
    updated: i64,
    pinned: bool,
    temperature: f64,
}

/// The branch and changed files of a working tree, per `git status`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WorkTree {
    /// The current branch (none when detached or unknown).
    pub branch: Option<String>,
    /// Changed, added and untracked files, relative to the repository's top.
    pub changed: Vec<String>,
}

/// Builds the digest: see the module documentation.
pub fn context<S: Session>(s: &S, req: &ContextRequest) -> crate::Result<ContextDigest> {
    let vault = s.vault();
    let workdir = match &req.workdir {
        Some(d) => d.clone(),
        None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    };
    let tree = work_tree(&workdir, vault.root()).unwrap_or_default();
    if let Some(task) = &req.task {
        s.will_embed(Some(task));
    }
    let now = vault.clock.now();
    let cfg = &vault.config.lifecycle;
    let (candidates, total) = s.with_usage(&|state| {
        s.with_indexes(&|idx| {
            // Entries are decoded only for the memories looked at.
            let manifest = idx.manifest();
            let temperature = |name: &str| {
                manifest.get(name).map_or(0.0, |e| state.temperature(&e.id, e.pinned, now, cfg))
            };
            let candidate = |name: &str, section: Section, reason: Option<String>| {
                manifest.get(name).map(|e| Candidate {
                    name: name.to_owned(),
                    section,
                    reason,
                    memory_type: e.memory_type.clone(),
                    updated: e.updated,
                    pinned: e.pinned,
                    temperature: temperature(name),
                })
            };
            let active =
                |name: &str| manifest.get_ref(name).is_some_and(|e| e.status() == "active");
            let mut out: Vec<Candidate> = Vec::new();
            let mut seen: HashSet<String> = HashSet::new();
            // Pinned, most recently changed first.
            let mut pinned: Vec<(&str, i64)> = manifest
                .iter()
                .filter(|(_, e)| e.pinned() && e.status() == "active")
                .map(|(n, e)| (n, e.updated()))
                .collect();
            pinned.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
            for (name, _) in pinned {
                push(&mut out, &mut seen, candidate(name, Section::Pinned, None));
            }
            // Linked to the changed files, most confident link first.
            // The graph is large (8 MB at 10k memories): only the changed files that are link
            // targets, per the graph's list of them (which may list a target that is gone, never
            // miss one), are looked up, in the small per-target index of the links beside the
            // graph; the graph is loaded only when that index is missing or stale.
            let gdir = idx.dir().join("graph");
            let listed =
                if idx.is_in_memory() { None } else { crate::index::graph::read_ghosts(&gdir) };
            let targets: Vec<(&String, String)> = tree
                .changed
                .iter()
                .take(MAX_CHANGED_FILES)
                .map(|f| (f, format!("ghost:{}", normalize_target(f))))
                .filter(|(_, g)| listed.as_ref().is_none_or(|l| l.contains(g)))
                .collect();
            if !targets.is_empty() {
                let ghosts: Vec<&str> = targets.iter().map(|(_, g)| g.as_str()).collect();
                let sidecar = if idx.is_in_memory() || idx.graph_if_loaded().is_some() {
                    None
                } else {
                    LinkGraph::ghost_backlinks(&gdir, &ghosts)
                };
                if sidecar.is_none() && !idx.is_in_memory() && idx.graph_if_loaded().is_none() {
                    tracing::debug!("no fresh index of the links per target; loading the graph");
                }
                for (file, ghost) in targets {
                    // The index lists each memory once, at its most confident link to the file;
                    // the graph may list it more than once, and only its first (best) one counts.
                    let mut links: Vec<(String, f32)> = match &sidecar {
                        Some(found) => found
                            .get(&ghost)
                            .map(|m| m.iter().map(|(k, c)| (k.clone(), *c)).collect())
                            .unwrap_or_default(),
                        None => idx
                            .graph()
                            .memories_linking_to(&ghost)
                            .into_iter()
                            .map(|(k, d)| (k, d.confidence))
                            .collect(),
                    };
                    links.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
                    for (key, _) in links {
                        let Some(name) = key.strip_prefix("memory:") else { continue };
                        if active(name) {
                            let c = candidate(name, Section::ChangedFiles, Some(file.clone()));
                            push(&mut out, &mut seen, c);
                        }
                    }
                }
            }
            // The task's best matches.
            if let Some(task) = req.task.as_deref().filter(|t| !t.trim().is_empty()) {
                let mut q = crate::search::SearchQuery::new(task);
                q.limit = Some(TASK_RESULTS);
                let signals = crate::search::Signals::from_usage(vault, idx, state);
                for hit in crate::search::search(vault, idx, &q, &signals)?.hits {
                    push(&mut out, &mut seen, candidate(&hit.name, Section::Task, None));
                }
            }
            // The hottest of the rest (not superseded), most recently changed first on a tie.
            let mut hot: Vec<(f64, i64, &str)> = manifest
                .iter()
                .filter(|(n, e)| e.status() == "active" && !e.is_superseded() && !seen.contains(*n))
                .map(|(n, e)| (state.temperature(e.id(), e.pinned(), now, cfg), e.updated(), n))
                .collect();
            let k = HOT_CANDIDATES.min(hot.len());
            if k > 0 && k < hot.len() {
                hot.select_nth_unstable_by(k - 1, hot_order);
                hot.truncate(k);
            }
            hot.sort_by(hot_order);
            for (_, _, name) in hot {
                push(&mut out, &mut seen, candidate(name, Section::Hot, None));
            }
            let total = manifest.iter().filter(|(_, e)| e.status() == "active").count();
            Ok((out, total))
        })
    })?;
    Ok(fill(s, req.budget, &tree, candidates, total, now))
}

/// Adds `c` unless a section before listed it.
fn push(out: &mut Vec<Candidate>, seen: &mut HashSet<String>, c: Option<Candidate>) {
    if let Some(c) = c
        && seen.insert(c.name.clone())
    {
        out.push(c);
    }
}

fn hot_order(a: &(f64, i64, &str), b: &(f64, i64, &str)) -> std::cmp::Ordering {
    b.0.total_cmp(&a.0).then_with(|| b.1.cmp(&a.1)).then_with(|| a.2.cmp(b.2))
}

/// Lays the candidates out as lines until the budget is spent.
fn fill<S: Session>(
    s: &S,
    budget: usize,
    tree: &WorkTree,
    candidates: Vec<Candidate>,
    total: usize,
    now: jiff::Timestamp,
) -> ContextDigest {
    let vault = s.vault();
    let scrub = vault.config.privacy.scrub_secrets;
    let mut text = String::new();
    let mut used = 0;
    // Each piece's estimate is rounded up, so their sum bounds the whole text's.
    let add = |piece: &str, text: &mut String, used: &mut usize| -> bool {
        let t = estimate_tokens(piece);
        if *used + t > budget {
            return false;
        }
        text.push_str(piece);
        *used += t;
        true
    };
    let mut items: Vec<ContextItem> = Vec::new();
    let header = "Project memory (memlane). Read one in full with read_memory; record what you learn with remember.\n";
    let room = add(header, &mut text, &mut used);
    if room && (tree.branch.is_some() || !tree.changed.is_empty()) {
        add(&work_line(tree), &mut text, &mut used);
    }
    let mut section: Option<Section> = None;
    let mut considered = 0;
    for c in &candidates {
        if !room {
            break;
        }
        considered += 1;
        let Ok(name) = MemoryName::parse(&c.name) else { continue };
        // A file removed since the indices were read is left out.
        let Ok(m) = vault.load(&name) else { continue };
        let summary = first_sentence(&m.redacted_content(scrub));
        let age = age(now.as_second().saturating_sub(c.updated));
        let via = c.reason.as_deref().map(|f| format!(" → {f}")).unwrap_or_default();
        let line = if summary.is_empty() {
            format!("- {} ({}, {age}){via}\n", c.name, c.memory_type)
        } else {
            format!("- {} ({}, {age}){via}: {summary}\n", c.name, c.memory_type)
        };
        let heading = (section != Some(c.section)).then(|| format!("{}\n", c.section.heading()));
        let piece = format!("{}{line}", heading.as_deref().unwrap_or(""));
        if !add(&piece, &mut text, &mut used) {
            considered -= 1;
            break;
        }
        section = Some(c.section);
        items.push(ContextItem {
            memory_id: format!("memory:{}", c.name),
            name: c.name.clone(),
            id: m.id.to_string(),
            memory_type: c.memory_type.clone(),
            section: c.section.as_str(),
            target_document: c.reason.clone(),
            age,
            updated_at: jiff::Timestamp::from_second(c.updated)
                .map(format_timestamp)
                .unwrap_or_default(),
            pinned: c.pinned,
            temperature: level(c.temperature),
            summary,
            tokens: estimate_tokens(&line),
        });
    }
    if items.is_empty() && total == 0 {
        add("The vault has no memories yet.\n", &mut text, &mut used);
    }
    ContextDigest {
        budget,
        tokens: used,
        branch: tree.branch.clone(),
        changed_files: tree.changed.clone(),
        total,
        shown: items.len(),
        omitted: candidates.len().saturating_sub(considered),
        memories: items,
        text,
    }
}

/// `Branch: main; changed: a.rs, b.rs (+3 more)`.
fn work_line(tree: &WorkTree) -> String {
    let mut parts = Vec::new();
    if let Some(b) = &tree.branch {
        parts.push(format!("Branch: {b}"));
    }
    if !tree.changed.is_empty() {
        let shown: Vec<&str> =
            tree.changed.iter().take(SHOWN_CHANGED_FILES).map(String::as_str).collect();
        let more = tree.changed.len().saturating_sub(SHOWN_CHANGED_FILES);
        let more = if more > 0 { format!(" (+{more} more)") } else { String::new() };
        parts.push(format!("changed: {}{more}", shown.join(", ")));
    }
    format!("{}\n", parts.join("; "))
}

/// An age in words a reader takes in at a glance: `today`, `3d`, `5w`, `8mo`, `2y`.
pub fn age(seconds: i64) -> String {
    let days = seconds.max(0) / 86_400;
    match days {
        0 => "today".to_owned(),
        1..=13 => format!("{days}d"),
        14..=59 => format!("{}w", days / 7),
        60..=729 => format!("{}mo", days / 30),
        _ => format!("{}y", days / 365),
    }
}

/// The first sentence of a memory's (redacted) content: headings, fences, comments and blank
/// lines skipped, the first paragraph cut at its first sentence end, at most
/// 160 characters. A memory that is only a heading gives the heading.
pub fn first_sentence(content: &str) -> String {
    let mut paragraph = String::new();
    let mut heading = None;
    let mut in_fence = false;
    for line in content.lines() {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            if !paragraph.is_empty() {
                break;
            }
            continue;
        }
        if in_fence || t.starts_with("<!--") {
            continue;
        }
        if t.is_empty() {
            if paragraph.is_empty() {
                continue;
            }
            break;
        }
        if let Some(h) = t.strip_prefix('#') {
            if paragraph.is_empty() {
                heading.get_or_insert_with(|| h.trim_start_matches('#').trim().to_owned());
                continue;
            }
            break;
        }
        let t = t.trim_start_matches(['-', '*', '+', '>']).trim_start();
        if !paragraph.is_empty() {
            paragraph.push(' ');
        }
        paragraph.push_str(t);
    }
    let text = if paragraph.is_empty() { heading.unwrap_or_default() } else { paragraph };
    // A link reads as its target: `see [[src/auth.py]]` → `see src/auth.py`.
    let text = text.replace("[[", "").replace("]]", "");
    let mut end = text.len();
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        if matches!(c, '.' | '!' | '?')
            && bytes.get(i + 1).is_none_or(|b| *b == b' ')
            && text[..i].chars().count() >= 12
        {
            end = i + 1;
            break;
        }
    }
    let sentence = text[..end].trim();
    if sentence.chars().count() <= MAX_SUMMARY_CHARS {
        return sentence.to_owned();
    }
    let cut: String = sentence.chars().take(MAX_SUMMARY_CHARS - 1).collect();
    format!("{}…", cut.trim_end())
}

/// The branch and changed files of the git working tree at `dir`, or `None` when `dir` is not
/// in one, `git` is missing or does not answer within [`GIT_TIMEOUT`]. Files of the vault
/// itself (`vault_root`) are left out: a new memory is not work on the project.
pub fn work_tree(dir: &Path, vault_root: &Path) -> Option<WorkTree> {
    let out = git(dir, &["status", "--porcelain=v1", "--branch", "-z"])?;
    let mut tree = WorkTree::default();
    let vault_dir = vault_root.file_name().and_then(|n| n.to_str()).unwrap_or(".memories");
    let mut tokens = out.split('\0').filter(|t| !t.is_empty());
    while let Some(tok) = tokens.next() {
        if let Some(b) = tok.strip_prefix("## ") {
            let b = b.strip_prefix("No commits yet on ").unwrap_or(b);
            let b = b.split("...").next().unwrap_or(b).split(' ').next().unwrap_or(b);
            if !b.is_empty() && b != "HEAD" {
                tree.branch = Some(b.to_owned());
            }
            continue;
        }
        if tok.len() < 4 {
            continue;
        }
        let (status, path) = tok.split_at(3);
        // A rename or copy is followed by the path it came from.
        if status.starts_with(['R', 'C']) {
            tokens.next();
        }
        if status.starts_with('!') {
            continue;
        }
        let first = path.split('/').next().unwrap_or(path);
        if first == vault_dir {
            continue;
        }
        tree.changed.push(path.to_owned());
    }
    Some(tree)
}

/// Runs `git -C dir args…` with [`GIT_TIMEOUT`]: its stdout, or `None` when it failed or took
/// too long (it is killed then).
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        // `git status` may refresh the index; a background look must not take its lock.
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdout = child.stdout.take()?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        let _ = tx.send(buf);
    });
    match rx.recv_timeout(GIT_TIMEOUT) {
        Ok(buf) => {
            let status = child.wait().ok()?;
            if !status.success() {
                return None;
            }
            String::from_utf8(buf).ok()
        }
        Err(_) => {
            tracing::debug!("git {} took too long; the digest goes on without it", args.join(" "));
            let _ = child.kill();
            let _ = child.wait();
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sentence_skips_headings_and_cuts_at_the_first_end() {
        assert_eq!(
            first_sentence("# Title\n\nSessions live in Redis. They expire after a day.\n"),
            "Sessions live in Redis."
        );
        assert_eq!(first_sentence("# Only a heading\n"), "Only a heading");
        assert_eq!(
            first_sentence("- use tabs in the Makefile\n- and more\n"),
            "use tabs in the Makefile and more"
        );
        assert_eq!(first_sentence("```\ncode.\n```\nAfter the code.\n"), "After the code.");
        let long = "word ".repeat(100);
        let s = first_sentence(&long);
        assert!(s.chars().count() <= MAX_SUMMARY_CHARS && s.ends_with('…'), "{s}");
        // `e.g.` early in a sentence does not end it.
        assert_eq!(first_sentence("Use e.g. Redis."), "Use e.g. Redis.");
    }

    #[test]
    fn ages_read_at_a_glance() {
        assert_eq!(age(0), "today");
        assert_eq!(age(3 * 86_400), "3d");
        assert_eq!(age(20 * 86_400), "2w");
        assert_eq!(age(100 * 86_400), "3mo");
        assert_eq!(age(800 * 86_400), "2y");
        assert_eq!(age(-5), "today");
    }
}
