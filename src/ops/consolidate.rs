//! Operations that reshape memories: merge, split, summarize, and merge suggestions.

use crate::Error;
use crate::lifecycle::consolidate::{self, MergeCluster, SplitPiece};
use crate::vault::Memory;

use super::wire::{Merged, Split, Written};

use super::{Session, write};

/// Merges `sources` (two or more) into a new memory `into`. `content` is the merged body
/// (default: each source under its name as a heading); a whole file with frontmatter, as
/// ragdocs clients send it, gives its body (the frontmatter is generated).
pub fn merge<S: Session>(
    s: &S,
    sources: &[String],
    into: &str,
    content: Option<String>,
    archive: bool,
) -> crate::Result<Merged> {
    let vault = s.vault();
    let sources = sources.iter().map(|n| vault.resolve(n)).collect::<crate::Result<Vec<_>>>()?;
    let refs: Vec<&Memory> = sources.iter().collect();
    let target = vault.name_for(into)?;
    let content = content.map(|c| {
        let doc = crate::model::frontmatter::Document::parse(&c);
        if doc.has_frontmatter() { doc.content().to_owned() } else { c }
    });
    Ok(write(s, || consolidate::merge(vault, &refs, &target, content.as_deref(), archive))?.into())
}

/// Splits a memory: into the `pieces` given (name, content), or one per top-level heading.
/// The original stays (linked from each piece) unless `replace`.
pub fn split<S: Session>(
    s: &S,
    name: &str,
    pieces: Option<Vec<(Option<String>, String)>>,
    replace: bool,
) -> crate::Result<Split> {
    let vault = s.vault();
    let m = vault.resolve(name)?;
    let outcomes = match pieces {
        None => write(s, || consolidate::split(vault, &m, replace))?,
        Some(pieces) => {
            let pieces = pieces
                .into_iter()
                .map(|(name, content)| {
                    Ok(SplitPiece {
                        name: name.as_deref().map(|n| vault.name_for(n)).transpose()?,
                        content,
                    })
                })
                .collect::<crate::Result<Vec<_>>>()?;
            write(s, || consolidate::split_into(vault, &m, &pieces, replace))?
        }
    };
    Ok(Split { split: m.name.to_string(), outcomes: super::wire::written(outcomes) })
}

/// Shrinks a memory in place with a shorter rewrite (same name, id and links; the old version
/// goes to history); its temperature restarts at `temperature` (default
/// `lifecycle.temperature_start`).
pub fn summarize<S: Session>(
    s: &S,
    name: &str,
    content: String,
    temperature: Option<f64>,
) -> crate::Result<Written> {
    let vault = s.vault();
    let m = vault.resolve(name)?;
    s.flush_usage()?;
    let (out, reset) =
        write(s, || crate::lifecycle::views::summarize(vault, &m, content, temperature))?;
    if let Some(r) = reset {
        s.warn(r.to_string());
    }
    Ok(out.into())
}

/// Clusters of near-duplicate memories at `threshold` (default `lifecycle.merge_threshold`),
/// of one type when given, at most `limit` (checked against [`crate::limits::MAX_CLUSTERS`] by
/// the front end).
pub fn suggest_merges<S: Session>(
    s: &S,
    threshold: Option<f64>,
    memory_type: Option<&str>,
    limit: usize,
) -> crate::Result<Vec<MergeCluster>> {
    let vault = s.vault();
    let threshold = threshold.unwrap_or(vault.config.lifecycle.merge_threshold);
    if !(0.0..=1.0).contains(&threshold) {
        return Err(Error::NotAFraction { what: "threshold", value: threshold });
    }
    if let Some(t) = memory_type {
        vault.check_type(t)?;
    }
    s.with_indexes(&|idx| {
        Ok(consolidate::suggest_merges(vault, idx, threshold, memory_type, limit)?)
    })
}
