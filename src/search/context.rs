//! Thread context (`search.context_weight`): memories written one after another in one folder —
//! the turns of a conversation, the notes of one session — share a topic, so a memory whose
//! neighbours match the query is more likely to be the answer than an isolated one with the same
//! score of its own.
//!
//! A *thread* is a run of memories of one folder ordered by creation time (then by name in
//! natural order, so `turn-2` comes before `turn-10`), broken wherever two consecutive memories
//! were created more than `search.context_gap_minutes` apart. A memory's *neighbours* are the
//! `search.context_span` memories on each side of it in its thread.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use crate::index::manifest::Manifest;

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

/// The thread neighbours of each of `names` (at most `span` on each side), among all memories
/// of the manifest. Only the folders of `names` are ordered, so the cost is that of sorting
/// those folders' memories once per query.
pub fn neighbours<'m>(
    manifest: &'m Manifest,
    names: &[&str],
    span: usize,
    gap_seconds: i64,
) -> HashMap<String, Vec<&'m str>> {
    let mut out: HashMap<String, Vec<&str>> = HashMap::new();
    if span == 0 || names.is_empty() {
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
    let mut by_folder: HashMap<&str, Vec<(i64, &'m str)>> = HashMap::new();
    for (name, entry) in manifest.iter() {
        let f = folder(name);
        let created = entry.created();
        if near_a_candidate(created) && folders.contains(f) {
            by_folder.entry(f).or_default().push((created, name));
        }
    }
    let wanted: HashSet<&str> = names.iter().copied().collect();
    for (_, mut list) in by_folder {
        list.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| natural_cmp(a.1, b.1)));
        for (i, &(created, name)) in list.iter().enumerate() {
            if !wanted.contains(name) {
                continue;
            }
            // A bulk import (many files stamped with one second) has no order to learn from.
            let tied_from = list[..i].iter().rev().take_while(|(c, _)| *c == created).count();
            let tied_to = list[i + 1..].iter().take_while(|(c, _)| *c == created).count();
            if tied_from + tied_to + 1 > MAX_TIED {
                continue;
            }
            let mut near = Vec::new();
            // Backwards, then forwards, stopping at a thread break.
            let mut prev = created;
            for &(c, n) in list[..i].iter().rev().take(span) {
                if prev - c > gap_seconds {
                    break;
                }
                near.push(n);
                prev = c;
            }
            let mut prev = created;
            for &(c, n) in list[i + 1..].iter().take(span) {
                if c - prev > gap_seconds {
                    break;
                }
                near.push(n);
                prev = c;
            }
            out.insert(name.to_owned(), near);
        }
    }
    out
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

    fn manifest(items: &[(&str, i64)]) -> Manifest {
        let mut m = Manifest::default();
        for (name, created) in items {
            let e = Entry { created: *created, ..Entry::default() };
            m.insert((*name).to_owned(), e);
        }
        m
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
        let n = neighbours(&m, &["chat/turn-2", "chat/turn-11"], 2, 3600);
        let mut two = n["chat/turn-2"].clone();
        two.sort_unstable();
        assert_eq!(two, ["chat/turn-1", "chat/turn-10", "chat/turn-11"]);
        // `chat/later` is past the gap; `other/` is another folder.
        let mut eleven = n["chat/turn-11"].clone();
        eleven.sort_unstable();
        assert_eq!(eleven, ["chat/turn-10", "chat/turn-2"]);
        assert!(neighbours(&m, &["chat/turn-2"], 0, 3600).is_empty());
        // A bulk import stamped with one second is no thread.
        let bulk: Vec<(String, i64)> = (0..=MAX_TIED).map(|i| (format!("doc-{i}"), 7)).collect();
        let refs: Vec<(&str, i64)> = bulk.iter().map(|(n, c)| (n.as_str(), *c)).collect();
        let m = manifest(&refs);
        assert!(neighbours(&m, &["doc-3"], 2, 3600).is_empty());
    }
}
