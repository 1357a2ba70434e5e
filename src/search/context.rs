//! Thread context (`search.context_weight`): memories written one after another in one folder —
//! the turns of a conversation, the notes of one session — share a topic, so a memory whose
//! neighbours match the query is more likely to be the answer than an isolated one with the same
//! score of its own.
//!
//! A *thread* is a run of memories of one folder ordered by creation time (then by name in
//! natural order, so `turn-2` comes before `turn-10`), broken wherever two consecutive memories
//! were created more than `search.context_gap_minutes` apart. A memory's *neighbours* are the
//! `search.context_span` memories on each side of it in its thread.
//!
//! A *reply* (`search.reply_weight`) is a line of a transcript that follows, in its thread, a
//! line of another speaker that asks something: what the question matched, its reply answers.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use crate::index::manifest::{EntryRef, Manifest};

/// A memory takes context from its neighbours only when it has some evidence of its own: a
/// query term (coverage) or a vector similarity above the embedder's noise floor. Context ranks
/// memories that match among themselves, it never turns an unrelated note written beside the
/// answer (evidence exactly 0) into a result. Any bar above 0 costs recall on LoCoMo, where
/// the answer is often a short reply ("Pepper.") whose only evidence is weak: 0.1 cost 2.3
/// points of Recall@10, 0.05 cost 1.3.
pub fn has_own_evidence(evidence: f64) -> bool {
    evidence > 0.0
}

/// A run of more than this many memories of one folder created in the same second is a bulk
/// import (files copied in, a migration), not a thread: its order says nothing about topic, so
/// its memories take no context (a conversation's turns stamped with their session's time run
/// to a few dozen). On SciFact, 5,183 abstracts with one timestamp, context otherwise lent
/// scores between unrelated neighbours by file name.
pub const MAX_TIED: usize = 256;

/// Fewest memories in the vault for which a one-command search finds its candidates' thread
/// neighbours folder by folder on every core (below it, the scan is well under a millisecond).
const PARALLEL_FOLDERS_MIN_MEMORIES: usize = 20_000;

/// The file part of a memory name (`db/postgres` → `postgres`).
fn file(name: &str) -> &str {
    name.rfind('/').map_or(name, |i| &name[i + 1..])
}

/// The folder part of a memory name (`db/postgres` → `db`, `note` → ``).
fn folder(name: &str) -> &str {
    name.rfind('/').map_or("", |i| &name[..i])
}

/// Compares names with digit runs compared as numbers: `turn-2` < `turn-10`.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    // Equal numbers written with more zeros (`t02` after `t2`) decide only when all else ties.
    let mut zeros = Ordering::Equal;
    loop {
        match (a.first(), b.first()) {
            (None, None) => return zeros,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let da = a.iter().take_while(|c| c.is_ascii_digit()).count();
                let db = b.iter().take_while(|c| c.is_ascii_digit()).count();
                let (na, nb) = (trim_zeros(&a[..da]), trim_zeros(&b[..db]));
                let ord = na.len().cmp(&nb.len()).then_with(|| na.cmp(nb));
                if ord != Ordering::Equal {
                    return ord;
                }
                zeros = zeros.then(da.cmp(&db));
                (a, b) = (&a[da..], &b[db..]);
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(y);
                }
                (a, b) = (&a[1..], &b[1..]);
            }
        }
    }
}

fn trim_zeros(digits: &[u8]) -> &[u8] {
    let zeros = digits.iter().take_while(|c| **c == b'0').count();
    &digits[zeros.min(digits.len().saturating_sub(1))..]
}

/// A byte string whose plain order is [`natural_cmp`]'s order of the names it
/// is made from, so that sorting many names compares bytes instead of reading digit runs again
/// at every comparison. A digit run becomes `0`, the length of its number without leading
/// zeros (two bytes) and that number's digits; after the name come a 0 byte and the length of
/// each run as written, the tie-break `natural_cmp` takes last. (A `0` byte stands for a run
/// because any digit compares with a non-digit the way the run's first digit would; the 0
/// byte after the name sorts before any byte of a longer name, which a file name never holds.)
pub fn natural_key(name: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(name.len() + 8);
    let mut rest = name.as_bytes();
    let mut written: Vec<u16> = Vec::new();
    while let Some(&c) = rest.first() {
        if c.is_ascii_digit() {
            let n = rest.iter().take_while(|c| c.is_ascii_digit()).count();
            let number = trim_zeros(&rest[..n]);
            out.push(b'0');
            out.extend_from_slice(&clamp16(number.len()).to_be_bytes());
            out.extend_from_slice(number);
            written.push(clamp16(n));
            rest = &rest[n..];
        } else {
            out.push(c);
            rest = &rest[1..];
        }
    }
    out.push(0);
    for n in written {
        out.extend_from_slice(&n.to_be_bytes());
    }
    out
}

fn clamp16(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// Sorts `items` in thread order, by `created` then by the `file` name in natural order
/// ([`file_order`]), with each name's [`natural_key`] made once.
fn sort_in_thread_order<T>(
    items: &mut [T],
    created: impl Fn(&T) -> i64,
    file: impl Fn(&T) -> &str,
) {
    items.sort_by_cached_key(|item| (created(item), natural_key(file(item))));
}

/// The thread neighbours of one memory: the ones before it, then the ones after it, each side
/// nearest first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Near {
    /// The neighbours, those before the memory first.
    pub names: Vec<String>,
    /// How many of `names` come before the memory.
    pub before: usize,
}

impl Near {
    /// The memory right after it in its thread, if any (within the gap).
    pub fn next(&self) -> Option<&str> {
        self.names.get(self.before).map(String::as_str)
    }
}

/// Whether a chunk's text asks something: it holds a question mark. In a transcript a line
/// that asks what the query asks is answered by the next line.
pub fn asks(text: &str) -> bool {
    text.contains('?')
}

/// The thread neighbours of each of `names` (at most `span` on each side), among all memories
/// of the manifest. A one-command process orders only the memories of the names' folders that
/// were created near one of them, once per query; a long-lived process asks the manifest for
/// every folder in thread order (`Threads`, kept until the next change) and finds each name in
/// it with a binary search.
pub fn neighbours<'m>(
    manifest: &'m Manifest,
    names: &[&str],
    span: usize,
    gap_seconds: i64,
) -> HashMap<String, Near> {
    let mut out = HashMap::new();
    if span == 0 || names.is_empty() {
        return out;
    }
    if let Some(threads) = manifest.derived(Threads::of) {
        for name in names {
            let Some(list) = threads.0.get(folder(name)) else { continue };
            let Some(created) = manifest.get_ref(name).map(|e| e.created()) else { continue };
            let at = list.partition_point(|(c, n)| thread_order((*c, n), (created, name)).is_lt());
            if list.get(at).is_some_and(|(_, n)| **n == **name)
                && let Some(near) = walk(list, at, span, gap_seconds)
            {
                out.insert((*name).to_owned(), near);
            }
        }
        return out;
    }
    let folders: HashSet<&str> = names.iter().map(|n| folder(n)).collect();
    // Only memories created within `span` gaps of a candidate can be its neighbours: the
    // candidates' reach as merged intervals, so a large vault sorts only what is near them.
    let reach = gap_seconds.saturating_mul(span as i64);
    let mut reaches: Vec<(i64, i64)> = names
        .iter()
        .filter_map(|n| manifest.get(n))
        .map(|e| (e.created.saturating_sub(reach), e.created.saturating_add(reach)))
        .collect();
    reaches.sort_unstable();
    let mut merged: Vec<(i64, i64)> = Vec::with_capacity(reaches.len());
    for (from, to) in reaches {
        match merged.last_mut() {
            Some(last) if from <= last.1 => last.1 = last.1.max(to),
            _ => merged.push((from, to)),
        }
    }
    let near_a_candidate = |t: i64| {
        let i = merged.partition_point(|(from, _)| *from <= t);
        i > 0 && t <= merged[i - 1].1
    };
    let wanted: HashSet<&str> = names.iter().copied().collect();
    // One folder's neighbours: its memories near a candidate, in thread order, walked from
    // each candidate. (created, name, file name): the file name is cut once.
    let of_folder = |f: &&str| -> Vec<(String, Near)> {
        let f: &str = f;
        let mut list: Vec<(i64, &'m str, &'m str)> = Vec::new();
        let mut look = |name: &'m str, entry: EntryRef<'m>| {
            let created = entry.created();
            if near_a_candidate(created) {
                let file = if f.is_empty() { name } else { &name[f.len() + 1..] };
                list.push((created, name, file));
            }
        };
        if f.is_empty() {
            // Memories at the top level are spread among all the others by name.
            for (name, entry) in manifest.iter() {
                if !name.contains('/') {
                    look(name, entry);
                }
            }
        } else {
            // The memories of a folder (and of its subfolders) are one run of the manifest,
            // which is sorted by name.
            let start = format!("{f}/");
            for (name, entry) in manifest.iter_after(Some(&start)) {
                let Some(rest) = name.strip_prefix(&start) else { break };
                // Its subfolders' memories are in the run too: not of this folder.
                if !rest.as_bytes().contains(&b'/') {
                    look(name, entry);
                }
            }
        }
        sort_in_thread_order(&mut list, |e| e.0, |e| e.2);
        let list: Vec<(i64, &str)> = list.into_iter().map(|(c, n, _)| (c, n)).collect();
        let mut found = Vec::new();
        for (i, &(_, name)) in list.iter().enumerate() {
            if wanted.contains(name)
                && let Some(near) = walk(&list, i, span, gap_seconds)
            {
                found.push((name.to_owned(), near));
            }
        }
        found
    };
    // A large vault's folders are shared out between the cores (each folder's run is read,
    // sorted and walked on its own).
    let mut folders: Vec<&str> = folders.into_iter().collect();
    folders.sort_unstable();
    let min = if manifest.len() >= PARALLEL_FOLDERS_MIN_MEMORIES { 2 } else { usize::MAX };
    for found in crate::par::map_in_order(&folders, min, of_folder) {
        out.extend(found);
    }
    out
}

/// Thread order of two memories of one folder: by creation time, then by name in natural order
/// (the file names alone: the folder is the same).
fn thread_order(a: (i64, &str), b: (i64, &str)) -> Ordering {
    file_order((a.0, file(a.1)), (b.0, file(b.1)))
}

/// [`thread_order`] of two memories given by their creation time and file name (no folder).
fn file_order(a: (i64, &str), b: (i64, &str)) -> Ordering {
    a.0.cmp(&b.0).then_with(|| natural_cmp(a.1, b.1))
}

/// The neighbours of `list[i]` in `list` (one folder's memories in thread order, or at least
/// all of them within `span` gaps of it): up to `span` back, then up to `span` forward, each
/// side nearest first and stopping at a thread break. `None` for a memory of a bulk import.
fn walk<S: AsRef<str>>(list: &[(i64, S)], i: usize, span: usize, gap_seconds: i64) -> Option<Near> {
    let created = list[i].0;
    // A bulk import (many files stamped with one second) has no order to learn from.
    let tied_from = list[..i].iter().rev().take_while(|(c, _)| *c == created).count();
    let tied_to = list[i + 1..].iter().take_while(|(c, _)| *c == created).count();
    if tied_from + tied_to + 1 > MAX_TIED {
        return None;
    }
    let mut near = Vec::new();
    let mut prev = created;
    for (c, n) in list[..i].iter().rev().take(span) {
        if prev - c > gap_seconds {
            break;
        }
        near.push(n.as_ref().to_owned());
        prev = *c;
    }
    let before = near.len();
    let mut prev = created;
    for (c, n) in list[i + 1..].iter().take(span) {
        if c - prev > gap_seconds {
            break;
        }
        near.push(n.as_ref().to_owned());
        prev = *c;
    }
    Some(Near { names: near, before })
}

/// Every memory of the manifest by folder, in thread order: what [`neighbours`] searches in a
/// long-lived process (≈ 50 bytes a memory).
struct Threads(HashMap<Box<str>, Vec<(i64, Box<str>)>>);

impl Threads {
    fn of(manifest: &Manifest) -> Threads {
        let mut by_folder: HashMap<Box<str>, Vec<(i64, Box<str>)>> = HashMap::new();
        for (name, entry) in manifest.iter() {
            let list = match by_folder.get_mut(folder(name)) {
                Some(list) => list,
                None => by_folder.entry(folder(name).into()).or_default(),
            };
            list.push((entry.created(), name.into()));
        }
        for list in by_folder.values_mut() {
            sort_in_thread_order(list, |e| e.0, |e| file(&e.1));
        }
        Threads(by_folder)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::manifest::Entry;

    #[test]
    fn natural_order_compares_numbers_as_numbers() {
        let mut names = vec!["t10", "t2", "t1", "a", "t02", "t2b"];
        names.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(names, ["a", "t1", "t2", "t02", "t2b", "t10"]);
        assert_eq!(natural_cmp("x", "x"), Ordering::Equal);
    }

    #[test]
    fn natural_keys_sort_names_as_natural_order_compares_them() {
        // Every pair of names of up to 4 characters drawn from digits (zero among them),
        // letters and punctuation, on both sides of the digits.
        const ALPHABET: [char; 7] = ['0', '1', '9', 'a', 'Z', '/', '.'];
        let mut names = vec![String::new()];
        let mut last = names.clone();
        for _ in 0..4 {
            last = last.iter().flat_map(|n| ALPHABET.map(|c| format!("{n}{c}"))).collect();
            names.extend(last.iter().cloned());
        }
        let keys: Vec<Vec<u8>> = names.iter().map(|n| natural_key(n)).collect();
        for (a, ka) in names.iter().zip(&keys) {
            for (b, kb) in names.iter().zip(&keys) {
                assert_eq!(ka.cmp(kb), natural_cmp(a, b), "{a:?} against {b:?}");
            }
        }
        // A sort by keys is the sort by comparisons, ties in time broken by the name.
        let mut items: Vec<(i64, &str)> =
            vec![(5, "t10"), (5, "t2"), (1, "t9"), (5, "t02"), (5, "t2b"), (1, "t10")];
        sort_in_thread_order(&mut items, |e| e.0, |e| e.1);
        assert_eq!(items, [(1, "t9"), (1, "t10"), (5, "t2"), (5, "t02"), (5, "t2b"), (5, "t10")]);
    }

    fn manifest(items: &[(&str, i64)]) -> Manifest {
        let mut m = Manifest::default();
        for (name, created) in items {
            let e = Entry { created: *created, ..Entry::default() };
            m.insert((*name).to_owned(), e);
        }
        m
    }

    /// Neighbours as a one-command process finds them (a scan) and as a long-lived one does
    /// (from the manifest's thread index, built on the second ask), checked to be the same.
    fn both_ways(
        m: &Manifest,
        names: &[&str],
        span: usize,
        gap: i64,
    ) -> HashMap<String, Vec<String>> {
        let scanned = neighbours(m, names, span, gap);
        let indexed = neighbours(m, names, span, gap);
        assert_eq!(scanned, indexed, "{names:?}");
        scanned
            .into_iter()
            .map(|(name, near)| {
                let mut v = near.names;
                v.sort_unstable();
                (name, v)
            })
            .collect()
    }

    #[test]
    fn neighbours_follow_time_then_name_within_a_folder_and_stop_at_gaps() {
        let m = manifest(&[
            ("chat/turn-1", 100),
            ("chat/turn-2", 100),
            ("chat/turn-10", 100),
            ("chat/turn-11", 160),
            ("chat/later", 100_000),
            ("other/turn-3", 100),
        ]);
        let n = both_ways(&m, &["chat/turn-2", "chat/turn-11"], 2, 3600);
        assert_eq!(n["chat/turn-2"], ["chat/turn-1", "chat/turn-10", "chat/turn-11"]);
        // `chat/later` is past the gap; `other/` is another folder.
        assert_eq!(n["chat/turn-11"], ["chat/turn-10", "chat/turn-2"]);
        assert!(both_ways(&m, &["chat/turn-2"], 0, 3600).is_empty());
        // A bulk import stamped with one second is no thread.
        let bulk: Vec<(String, i64)> = (0..=MAX_TIED).map(|i| (format!("doc-{i}"), 7)).collect();
        let refs: Vec<(&str, i64)> = bulk.iter().map(|(n, c)| (n.as_str(), *c)).collect();
        let m = manifest(&refs);
        assert!(both_ways(&m, &["doc-3"], 2, 3600).is_empty());
    }

    #[test]
    fn the_next_memory_is_the_one_right_after_within_the_gap() {
        let m = manifest(&[
            ("chat/turn-1", 100),
            ("chat/turn-2", 100),
            ("chat/turn-3", 160),
            ("chat/later", 100_000),
        ]);
        let n = neighbours(&m, &["chat/turn-1", "chat/turn-3", "chat/later"], 2, 3600);
        // Those before it first, nearest first.
        assert_eq!(n["chat/turn-3"].names, ["chat/turn-2", "chat/turn-1"]);
        assert_eq!(n["chat/turn-3"].before, 2);
        assert_eq!(n["chat/turn-1"].names, ["chat/turn-2", "chat/turn-3"]);
        assert_eq!(n["chat/turn-1"].next(), Some("chat/turn-2"));
        // The last before a gap, and the last of all, are followed by nothing.
        assert_eq!(n["chat/turn-3"].next(), None);
        assert!(n.get("chat/later").is_none_or(|near| near.next().is_none()));
        assert!(asks("Melanie: How did the kids take it?"));
        assert!(!asks("Melanie: They were scared, but they are fine."));
    }

    #[test]
    fn the_thread_index_is_dropped_when_a_memory_changes() {
        let mut m = manifest(&[("chat/a", 100), ("chat/b", 200), ("chat/c", 300)]);
        let n = both_ways(&m, &["chat/b"], 1, 3600);
        assert_eq!(n["chat/b"], ["chat/a", "chat/c"]);
        // A memory written between them is a neighbour at once, for both ways.
        m.insert("chat/a2".to_owned(), Entry { created: 150, ..Entry::default() });
        let n = both_ways(&m, &["chat/b"], 1, 3600);
        assert_eq!(n["chat/b"], ["chat/a2", "chat/c"]);
        m.remove("chat/c");
        assert_eq!(both_ways(&m, &["chat/b"], 1, 3600)["chat/b"], ["chat/a2"]);
    }

    proptest::proptest! {
        #[test]
        fn the_thread_index_finds_what_the_scan_finds(
            items in proptest::collection::btree_map(
                "(f[0-2]/(s/)?)?(t|turn-)[0-9]{1,3}",
                0i64..20,
                1..60,
            ),
            picks in proptest::collection::vec(0usize..60, 1..8),
            span in 1usize..4,
            gap in 0i64..6,
        ) {
            // Times in steps of 1000 s with ties, gaps of 0–5000 s.
            let items: Vec<(String, i64)> =
                items.into_iter().map(|(n, t)| (n, t * 1000)).collect();
            let refs: Vec<(&str, i64)> = items.iter().map(|(n, c)| (n.as_str(), *c)).collect();
            let m = manifest(&refs);
            let names: Vec<&str> = picks.iter().map(|i| refs[i % refs.len()].0).collect();
            both_ways(&m, &names, span, gap * 1000);
        }
    }

    /// A vault large enough that a one-command search shares its folders out between the
    /// cores finds what the thread index finds: folders, subfolders and the top level, with
    /// ties in time and numbered names.
    #[test]
    fn folders_shared_out_between_cores_find_what_the_thread_index_finds() {
        let items: Vec<(String, i64)> = (0..PARALLEL_FOLDERS_MIN_MEMORIES + 500)
            .map(|i| {
                let name = match i % 9 {
                    0 => format!("t{i}"),
                    1 => format!("f1/s/turn-{i}"),
                    k => format!("f{k}/turn-{}", i / 9),
                };
                (name, (i as i64 / 40) * 600)
            })
            .collect();
        let refs: Vec<(&str, i64)> = items.iter().map(|(n, c)| (n.as_str(), *c)).collect();
        let m = manifest(&refs);
        let names: Vec<&str> = refs.iter().step_by(997).map(|(n, _)| *n).collect();
        let n = both_ways(&m, &names, 2, 900);
        // Every candidate has neighbours: its own folder's memories written around it.
        assert_eq!(n.len(), names.len(), "{n:?}");
        let name = refs[997 * 3].0;
        assert!(n[name].iter().all(|other| folder(other) == folder(name)), "{:?}", n[name]);
    }
}
