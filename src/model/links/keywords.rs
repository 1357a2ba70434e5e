//! Relationship keywords and document verbs that type a link from its sentence.

use std::sync::LazyLock;

use regex::Regex;

use super::edge::EdgeType;

pub(super) const REL_TYPES: [EdgeType; 8] = [
    EdgeType::Supersedes,
    EdgeType::DependsOn,
    EdgeType::Contradicts,
    EdgeType::Extends,
    EdgeType::Causes,
    EdgeType::InstanceOf,
    EdgeType::InvalidatedBy,
    EdgeType::MotivatedBy,
];

/// Phrases matched first and then ignored: reversed-direction passives and modal verbs.
pub(super) const NEUTRAL_PHRASES: &str = r"(?:superseded|replaced|deprecated|obsoleted|updated|required|needed|extended)\s+by|deprecated\s+in\s+favou?r\s+of|need(?:s|ed)?\s+to|requir(?:e|es|ed)\s+to";

pub(super) const REL_PHRASES: [&str; 8] = [
    r"supersed(?:e|es|ed|ing)|replac(?:e|es|ed|ing)|obsolet(?:es|ed|ing)|deprecat(?:e|es|ed|ing)|updates",
    r"depend(?:s|ed|ing)?\s+on|dependent\s+on|requir(?:e|es|ed|ing)|need(?:s|ed|ing)?|build(?:s|ing)?\s+on|built\s+on|rel(?:y|ies|ied|ying)\s+on",
    r"contradict(?:s|ed|ing)?|conflict(?:s|ed|ing)?\s+with|in\s+conflict\s+with|disagree(?:s|d|ing)?\s+with|challenge(?:s|d)",
    r"extend(?:s|ed|ing)?|elaborat(?:e|es|ed|ing)(?:\s+on)?|expand(?:s|ed|ing)?\s+on",
    r"caus(?:es|ed|ing)|lead(?:s|ing)?\s+to|led\s+to|result(?:s|ed|ing)?\s+in",
    r"instances?\s+of|examples?\s+of|is\s+an\s+example",
    r"invalidated\s+by|disprov(?:ed|en)\s+by|refuted\s+by|debunked\s+by",
    r"because\s+of|motivated\s+by|in\s+order\s+to",
];

pub(super) const GHOST_TYPES: [EdgeType; 3] =
    [EdgeType::Refactors, EdgeType::Plans, EdgeType::Debugs];

pub(super) const GHOST_PHRASES: [&str; 3] = [
    r"refactor(?:s|ed|ings?)?",
    r"plans?\s+(?:to|for)|planned|planning|plans",
    r"debug(?:s|ged|ging)?|investigat(?:e|es|ed|ing)|troubleshoot(?:s|ed|ing)?|fix(?:ed|es|ing)?\s+(?:a\s+|the\s+)?bugs?\s+in|bugs?\s+in",
];

/// A keyword matcher: `(?i)\b(?:(neutral)|(type 0)|(type 1)…)\b`.
pub(super) struct Keywords {
    pub(super) re: Regex,
    /// Groups before type 0's (the whole match, and the neutral group if any).
    pub(super) skip: usize,
}

impl Keywords {
    pub(super) fn new(neutral: Option<&str>, phrases: &[&str]) -> Keywords {
        let alternatives: Vec<String> =
            neutral.into_iter().chain(phrases.iter().copied()).map(|p| format!("({p})")).collect();
        let pattern = format!(r"(?i)\b(?:{})\b", alternatives.join("|"));
        let re = Regex::new(&pattern).expect("keyword patterns are valid regexes");
        Keywords { re, skip: 1 + usize::from(neutral.is_some()) }
    }

    /// Matches (start, end, type index), in order, neutral phrases dropped.
    pub(super) fn matches(&self, text: &str) -> Vec<(usize, usize, usize)> {
        self.re
            .captures_iter(text)
            .filter_map(|caps| {
                let whole = caps.get(0)?;
                let k = (self.skip..caps.len()).find(|&g| caps.get(g).is_some())?;
                Some((whole.start(), whole.end(), k - self.skip))
            })
            .collect()
    }
}

pub(super) static REL_KEYWORDS: LazyLock<Keywords> =
    LazyLock::new(|| Keywords::new(Some(NEUTRAL_PHRASES), &REL_PHRASES));
pub(super) static GHOST_KEYWORDS: LazyLock<Keywords> =
    LazyLock::new(|| Keywords::new(None, &GHOST_PHRASES));

/// The type index of the keyword nearest to the link `[s, e)` within `sentence`; ties go to the
/// lower index (higher precedence).
pub(super) fn nearest(
    matches: &[(usize, usize, usize)],
    s: usize,
    e: usize,
    sentence: (usize, usize),
) -> Option<usize> {
    let idx = matches.partition_point(|m| m.0 < e);
    let right = matches.get(idx).filter(|m| m.1 <= sentence.1).map(|m| (m.0 - e, m.2));
    let left = idx
        .checked_sub(1)
        .and_then(|i| matches.get(i))
        .filter(|m| m.0 >= sentence.0 && m.1 <= s)
        .map(|m| (s - m.1, m.2));
    match (left, right) {
        (Some(l), Some(r)) => Some(if (l.0, l.1) <= (r.0, r.1) { l.1 } else { r.1 }),
        (l, r) => l.or(r).map(|m| m.1),
    }
}
