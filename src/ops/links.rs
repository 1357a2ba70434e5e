//! Operations on links: add and remove a frontmatter link.

use crate::Error;
use crate::model::links::{EdgeType, normalize_target};
use crate::vault::WriteOutcome;

use super::{Session, write};

/// What a link points at.
#[derive(Debug, Clone)]
pub enum LinkTarget {
    /// Another memory, by any name a user types.
    Memory(String),
    /// A document of the project (a path, normalised).
    Document(String),
}

/// The canonical name of an edge type (`related_to`, `supersedes` …).
pub fn edge_type(t: &str) -> crate::Result<String> {
    EdgeType::canonical(t).map_err(|e| Error::UnknownEdgeType(e.to_string()))
}

/// Adds a typed link from `from` to `to` in `from`'s frontmatter (once: an existing link of
/// that type to that target is kept as it is). A memory cannot link to itself.
pub fn link<S: Session>(
    s: &S,
    from: &str,
    to: &LinkTarget,
    edge: &str,
) -> crate::Result<WriteOutcome> {
    let vault = s.vault();
    let from = vault.resolve(from)?;
    let ty = edge_type(edge)?;
    let target = match to {
        LinkTarget::Document(d) => normalize_target(d),
        LinkTarget::Memory(n) => {
            let to = vault.resolve(n)?;
            if to.name == from.name {
                return Err(Error::SelfLink(from.name.to_string()));
            }
            format!("memory:{}", to.name)
        }
    };
    write(s, || vault.add_frontmatter_link(&from, &ty, &target))
}

/// Removes `from`'s frontmatter links to `to` (of `edge` only, when given). Removing nothing
/// is an error: the link may be in the body, where only an edit removes it.
pub fn unlink<S: Session>(
    s: &S,
    from: &str,
    to: &str,
    edge: Option<&str>,
) -> crate::Result<WriteOutcome> {
    let vault = s.vault();
    let from = vault.resolve(from)?;
    let ty = edge.map(edge_type).transpose()?;
    let (out, removed) = write(s, || vault.remove_frontmatter_links(&from, to, ty.as_deref()))?;
    if removed == 0 {
        return Err(Error::NoSuchLink {
            from: from.name.to_string(),
            to: to.to_owned(),
            edge_type: ty,
        });
    }
    Ok(out)
}
