//! What a user typed, resolved to a memory (a name, an id, a path to the file), and `list`'s
//! filters.

use std::path::{Path, PathBuf};

use jiff::Timestamp;

use super::read::{Memory, ScanProblem};
use crate::error::Error;
use crate::model::name::suggest;
use crate::model::{MemoryId, MemoryName};
use crate::vault::Vault;

/// `path` with `.` and `..` parts resolved without touching the disk.
fn lexical_normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

impl Vault {
    /// Resolves what a user typed to a memory: a name (`auth/jwt-plan`, `auth/jwt-plan.md`,
    /// `memory:auth/jwt-plan`), an id, or a path to the file (`.memories/auth/jwt-plan.md`,
    /// `./.memories/x.md`, an absolute path; relative paths from the current directory).
    ///
    /// A path that leads outside the vault is an error that says so.
    pub fn resolve(&self, input: &str) -> crate::Result<Memory> {
        let as_name = MemoryName::parse(input);
        if let Ok(name) = &as_name
            && self.is_memory_file(name)
        {
            return self.load(name);
        }
        let names = self.names()?;
        if let Some(id) = MemoryId::parse(input) {
            for name in &names {
                if let Ok(m) = self.load(name)
                    && m.id == id
                {
                    return Ok(m);
                }
            }
        }
        match self.name_of_path(input) {
            Some(Ok(name)) => {
                if self.is_memory_file(&name) {
                    return self.load(&name);
                }
                return Err(Error::NotFound {
                    name: input.to_owned(),
                    suggestions: suggest(name.as_str(), names.iter().map(MemoryName::as_str)),
                });
            }
            Some(Err(e)) if as_name.is_err() => return Err(e),
            _ => {}
        }
        if let Err(e) = as_name
            && MemoryId::parse(input).is_none()
        {
            return Err(e.into());
        }
        Err(Error::NotFound {
            name: input.to_owned(),
            suggestions: suggest(input, names.iter().map(MemoryName::as_str)),
        })
    }

    /// Resolves several inputs (as [`Vault::resolve`]), each memory once however many times it
    /// is named (`rm a a.md memory:a` removes `a` once), in the order first named.
    pub fn resolve_all<S: AsRef<str>>(&self, inputs: &[S]) -> crate::Result<Vec<Memory>> {
        let mut out: Vec<Memory> = Vec::with_capacity(inputs.len());
        for input in inputs {
            let m = self.resolve(input.as_ref())?;
            if !out.iter().any(|o| o.name == m.name) {
                out.push(m);
            }
        }
        Ok(out)
    }

    /// The name for a memory that may not exist yet (`add`, `mv`'s target): a name as typed
    /// (`auth/jwt-plan`, `auth/jwt-plan.md`, `memory:…`), or else a path to the file inside the
    /// vault (`.memories/auth/jwt-plan.md`, an absolute path). Anything else is refused with
    /// the name's error (`../x` contains `..`), as a new name must be one.
    pub fn name_for(&self, input: &str) -> crate::Result<MemoryName> {
        match MemoryName::parse(input) {
            Ok(name) => Ok(name),
            Err(e) => match self.name_of_path(input) {
                Some(Ok(name)) => Ok(name),
                _ => Err(e.into()),
            },
        }
    }

    /// The memory name of a file path (absolute, or relative to the current directory):
    /// `None` when `input` does not lead to a `.md` path (so it is no path a user would
    /// type for a memory); an error when it leads outside the vault or to a file no name can
    /// reach (inside `.trash/`, a hidden file …).
    fn name_of_path(&self, input: &str) -> Option<crate::Result<MemoryName>> {
        let input = input.strip_prefix("memory:").unwrap_or(input);
        let looks_like_path = input.ends_with(".md")
            || input.starts_with(['.', '/', '~'])
            || std::path::Path::new(input).is_absolute();
        if !looks_like_path || input.is_empty() {
            return None;
        }
        let typed = std::path::Path::new(input);
        let abs = if typed.is_absolute() {
            typed.to_path_buf()
        } else {
            std::env::current_dir().ok()?.join(typed)
        };
        let abs = lexical_normal(&abs);
        let abs = if abs.extension().is_some_and(|e| e == "md") {
            abs
        } else {
            let mut with_md = abs.into_os_string();
            with_md.push(".md");
            PathBuf::from(with_md)
        };
        // The vault as given, as resolved, and the file's folder resolved (a symlinked checkout).
        let root = lexical_normal(&std::path::absolute(self.root()).unwrap_or_default());
        let resolved_dir = abs
            .parent()
            .and_then(|d| d.canonicalize().ok())
            .zip(abs.file_name())
            .map(|(d, f)| d.join(f));
        let rel = [Some(&abs), resolved_dir.as_ref()].into_iter().flatten().find_map(|p| {
            p.strip_prefix(&root).ok().or_else(|| p.strip_prefix(&self.canonical_root).ok())
        });
        let Some(rel) = rel else {
            return Some(Err(Error::PathOutsideVault {
                input: input.to_owned(),
                vault: self.root().to_owned(),
            }));
        };
        let rel: Vec<String> =
            rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        Some(MemoryName::from_file_path(rel.join("/")).map_err(Error::from))
    }

    /// Lists memories matching `filter`, sorted.
    pub fn list(&self, filter: &ListFilter) -> crate::Result<(Vec<Memory>, Vec<ScanProblem>)> {
        let (mut all, problems) = self.scan()?;
        all.retain(|m| filter.matches(m));
        match filter.sort {
            ListSort::Created => {
                all.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(a.name.cmp(&b.name)));
            }
            ListSort::Updated => {
                all.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(a.name.cmp(&b.name)));
            }
            ListSort::Name => all.sort_by(|a, b| a.name.cmp(&b.name)),
        }
        if filter.reverse {
            all.reverse();
        }
        if let Some(limit) = filter.limit {
            all.truncate(limit);
        }
        Ok((all, problems))
    }
}

/// How `list` orders memories.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ListSort {
    /// Newest `created_at` first.
    #[default]
    Created,
    /// Most recently updated first.
    Updated,
    /// By name.
    Name,
}

/// Filters for `list`.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    /// Keep these types (any of them); empty keeps all.
    pub types: Vec<String>,
    /// Keep memories with any of these tags; empty keeps all.
    pub tags: Vec<String>,
    /// Keep these statuses; empty keeps `active` only.
    pub statuses: Vec<String>,
    /// Created at or after.
    pub after: Option<Timestamp>,
    /// Created before.
    pub before: Option<Timestamp>,
    /// Sort order.
    pub sort: ListSort,
    /// Reverse the order.
    pub reverse: bool,
    /// At most this many.
    pub limit: Option<usize>,
}

impl ListFilter {
    /// Whether a memory passes the filter.
    pub fn matches(&self, m: &Memory) -> bool {
        let status_ok = if self.statuses.is_empty() {
            m.status == "active"
        } else {
            self.statuses.iter().any(|s| s == "all" || *s == m.status)
        };
        status_ok
            && (self.types.is_empty() || self.types.contains(&m.memory_type))
            && (self.tags.is_empty() || m.meta.tags.iter().any(|t| self.tags.contains(t)))
            && self.after.is_none_or(|a| m.created_at >= a)
            && self.before.is_none_or(|b| m.created_at < b)
    }
}
