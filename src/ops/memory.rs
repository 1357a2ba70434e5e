//! Operations on one memory: create, remember, read, update, append, delete, move, pin.

use crate::Error;
use crate::lifecycle::UsageStore;
use crate::model::MemoryName;
use crate::vault::{AddRequest, Memory, UpdateRequest, WriteOutcome, WriteStatus};

use super::wire::{Moved, RememberAction, Remembered, Written, written};
use super::{Session, write};

/// A new memory.
#[derive(Debug, Clone, Default)]
pub struct CreateRequest {
    /// Its name.
    pub name: String,
    /// Its content (Markdown); redacted before anything is written.
    pub content: String,
    /// Its type (default: the vault's `default_type`).
    pub memory_type: Option<String>,
    /// Its tags.
    pub tags: Vec<String>,
    /// Write it even when an existing memory is nearly the same.
    pub force: bool,
}

/// Creates a memory: checks the type, refuses a near-duplicate of an existing memory (unless
/// `force`), writes the file (redacted), and starts the memory's usage clock.
///
/// The duplicate check compares the content as it will be written: `find_duplicate` redacts it
/// first, so a secret never decides (or leaks through) a similarity.
pub fn create<S: Session>(s: &S, req: CreateRequest) -> crate::Result<Written> {
    let vault = s.vault();
    let name = vault.name_for(&req.name)?;
    if let Some(t) = &req.memory_type {
        vault.check_type(t)?;
    }
    // Content that redaction empties is skipped by the write; no index is needed to say so.
    let scrub = vault.config.privacy.scrub_secrets;
    if !req.force
        && !vault.is_taken(&name)
        && !crate::privacy::sanitize(&req.content, scrub).is_empty()
    {
        let threshold = vault.config.lifecycle.dedup_threshold;
        s.will_embed(None);
        let dup = s.with_indexes(&|idx| {
            Ok(crate::lifecycle::consolidate::find_duplicate(vault, idx, &req.content, threshold)?)
        })?;
        if let Some((existing, similarity)) = dup {
            return Err(Error::Duplicate { existing, similarity });
        }
    }
    let add = AddRequest { content: req.content, memory_type: req.memory_type, tags: req.tags };
    let outcome = write(s, || vault.add(&name, &add))?;
    if outcome.status == WriteStatus::Created {
        observe_new(s, &outcome, "added");
    }
    Ok(outcome.into())
}

/// Starts the usage clock of a memory just written. The memory exists: a usage state that
/// cannot be written (a full disk) is a warning, never a failure.
pub(crate) fn observe_new<S: Session>(s: &S, outcome: &WriteOutcome, verb: &str) {
    if let Err(e) = s.observe(&outcome.id) {
        s.warn(format!(
            "{} was {verb}, but the usage state could not be updated: {e}",
            outcome.name
        ));
    }
}

/// Stores `content` where it belongs: updates the existing memory it is nearly the same as
/// (`lifecycle.remember_update_threshold`), or creates one named after its first words.
pub fn remember<S: Session>(
    s: &S,
    content: String,
    memory_type: Option<String>,
) -> crate::Result<Remembered> {
    let vault = s.vault();
    if content.trim().is_empty() {
        return Err(Error::NoContent { what: "remember" });
    }
    if let Some(t) = &memory_type {
        vault.check_type(t)?;
    }
    let threshold = vault.config.lifecycle.remember_update_threshold;
    let dup = s.with_indexes(&|idx| {
        Ok(crate::lifecycle::consolidate::find_duplicate(vault, idx, &content, threshold)?)
    })?;
    if let Some((existing, similarity)) = dup {
        let m = vault.resolve(&existing)?;
        let req = UpdateRequest {
            content: Some(content),
            memory_type,
            action: "update",
            ..Default::default()
        };
        let outcome = write(s, || vault.update(&m, &req))?;
        record_use(s, &[(m.id.to_string(), m.meta.pinned)])?;
        return Ok(Remembered {
            outcome: outcome.into(),
            action: RememberAction::Updated,
            similarity: Some(super::wire::score(f64::from(similarity))),
        });
    }
    let name = generated_name(vault, &content)?;
    let add = AddRequest { content, memory_type, tags: Vec::new() };
    let outcome = write(s, || vault.add(&name, &add))?;
    if outcome.status == WriteStatus::Created {
        observe_new(s, &outcome, "added");
    }
    Ok(Remembered { outcome: outcome.into(), action: RememberAction::Created, similarity: None })
}

/// A name from the first words of `content`: slugified, at most six words, unique in the vault
/// (also by letter case and Unicode form, see [`crate::vault::Vault::check_new_name`]).
///
/// The words come from the content *after* redaction, markers left out: a file name is metadata
/// no redaction reaches, so `<private>acme merger</private> deploy …` gives `deploy-…`, never
/// `private-acme-merger-…`, and a key in the first words never becomes part of a file name.
pub fn generated_name(vault: &crate::vault::Vault, content: &str) -> crate::Result<MemoryName> {
    let clean = crate::privacy::sanitize(content, vault.config.privacy.scrub_secrets);
    let words: Vec<String> = crate::privacy::strip_markers(&clean.text)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_lowercase())
        .filter(|w| !w.is_empty())
        .take(6)
        .collect();
    let base = if words.is_empty() { "memory".to_owned() } else { words.join("-") };
    for n in 1..10_000 {
        let candidate = if n == 1 { base.clone() } else { format!("{base}-{n}") };
        let name = MemoryName::parse(&candidate)?;
        if vault.is_taken(&name) {
            continue;
        }
        match vault.check_new_name(&name, None) {
            Ok(()) => return Ok(name),
            // Another number cannot take a secret out of the words: refuse, as a typed name is.
            Err(e @ Error::PrivateName { .. }) => return Err(e),
            Err(_) => {}
        }
    }
    Err(Error::NoFreeName(base))
}

/// Records that memories were just used (read, found, reported): `(id, pinned)` each. The one
/// rule for every front end: a use warms a memory; nothing used records nothing.
pub(crate) fn record_use<S: Session + ?Sized>(s: &S, used: &[(String, bool)]) -> crate::Result<()> {
    if used.is_empty() {
        return Ok(());
    }
    s.warm(used)
}

/// Replaces memory `m`'s whole file with `edited` (the file as a person edited it, frontmatter
/// and body), checked and redacted like any write; the old version goes to history. Text the
/// same as the file writes nothing (`unchanged`).
pub fn edit<S: Session>(s: &S, m: &Memory, edited: String) -> crate::Result<Written> {
    if edited == m.raw {
        let mut out = WriteOutcome::new(WriteStatus::Unchanged, &m.name, &m.id);
        out.path = Some(m.path.clone());
        return Ok(out.into());
    }
    let req =
        UpdateRequest { content: Some(edited), raw: true, action: "edit", ..Default::default() };
    Ok(write(s, || s.vault().update(m, &req))?.into())
}

/// Reads a memory's file exactly as it is on disk (`show --raw`); `touch` counts the read as a
/// use.
pub fn read_raw<S: Session>(
    s: &S,
    name: &str,
    touch: bool,
) -> crate::Result<super::wire::RawMemory> {
    let m = read(s, name, touch)?;
    Ok(super::wire::RawMemory {
        memory_id: format!("memory:{}", m.name),
        name: m.name.to_string(),
        id: m.id.to_string(),
        file_path: m.path.display().to_string(),
        warnings: m.warnings.iter().map(|w| w.message.clone()).collect(),
        raw: m.raw,
    })
}

/// Reads a memory; `touch` counts the read as a use (warming it).
pub fn read<S: Session>(s: &S, name: &str, touch: bool) -> crate::Result<Memory> {
    let m = s.vault().resolve(name)?;
    if touch {
        record_use(s, &[(m.id.to_string(), m.meta.pinned)])?;
    }
    Ok(m)
}

/// Changes a memory's content or metadata (the old version goes to history).
pub fn update<S: Session>(s: &S, name: &str, req: &UpdateRequest) -> crate::Result<Written> {
    let vault = s.vault();
    let m = vault.resolve(name)?;
    if req.content.is_none()
        && req.memory_type.is_none()
        && req.tags.is_none()
        && req.add_tags.is_empty()
        && req.remove_tags.is_empty()
        && req.status.is_none()
    {
        return Err(Error::NoContent { what: "update" });
    }
    if req.raw && req.content.is_none() {
        return Err(Error::RawWithoutContent);
    }
    Ok(write(s, || vault.update(&m, req))?.into())
}

/// Adds `text` to the end of a memory, after a blank line.
pub fn append<S: Session>(s: &S, name: &str, text: &str) -> crate::Result<Written> {
    let vault = s.vault();
    let m = vault.resolve(name)?;
    Ok(write(s, || vault.append(&m, text))?.into())
}

/// Moves memories to the trash, all or nothing: one unknown name deletes nothing, and a
/// failure (or a kill) midway leaves every memory in place. A memory named twice (by name and
/// by id, or by two spellings) is deleted once.
pub fn delete<S: Session>(s: &S, names: &[String]) -> crate::Result<Vec<Written>> {
    let vault = s.vault();
    let memories = vault.resolve_all(names)?;
    let deleted = write(s, || {
        vault.all_or_nothing("rm", || {
            memories.iter().map(|m| vault.delete(m)).collect::<crate::Result<Vec<_>>>()
        })
    })?;
    Ok(written(deleted))
}

/// Renames a memory (its id stays); links to the old name follow it, in the same
/// all-or-nothing operation.
pub fn rename<S: Session>(s: &S, from: &str, to: &str) -> crate::Result<Moved> {
    let vault = s.vault();
    let m = vault.resolve(from)?;
    let to = vault.name_for(to)?;
    let (moved, relinked) = write(s, || {
        vault.all_or_nothing("mv", || {
            let moved = vault.rename(&m, &to)?;
            Ok((moved, vault.rewrite_links(&m.name, &to)?))
        })
    })?;
    Ok(Moved { moved: moved.into(), relinked: written(relinked) })
}

/// Pins or unpins a memory. Its cooling is settled first: frozen (or restarted) at the
/// temperature reached so far, counting usage the session has buffered.
pub fn set_pinned<S: Session>(s: &S, name: &str, pinned: bool) -> crate::Result<Written> {
    let vault = s.vault();
    let m = vault.resolve(name)?;
    let (now, cfg) = (vault.clock.now(), vault.config.lifecycle.clone());
    s.flush_usage()?;
    let (_, reset) = UsageStore::update(vault.root(), |state| {
        state.settle(m.id.as_str(), m.meta.pinned, now, &cfg)
    })?;
    if let Some(r) = reset {
        s.warn(r.to_string());
    }
    Ok(write(s, || vault.set_pinned(&m, pinned))?.into())
}

/// The most memories one `mark_used` reports.
pub const MAX_USED: usize = 100;

/// Records that an agent used memories: each is warmed (a read, as `read_memory` counts), and,
/// when `context_for` names the memory they were context for (a decision they led to, a
/// session summary), each gets MIRA's `was_context_for` link to it, written to its
/// frontmatter. All or nothing: one unknown name records nothing. A memory named twice counts
/// once; `context_for` itself is not linked to itself.
pub fn mark_used<S: Session>(
    s: &S,
    names: &[String],
    context_for: Option<&str>,
) -> crate::Result<super::wire::MarkedUsed> {
    use super::wire::{MarkedUsed, UsedMemory};
    let vault = s.vault();
    if names.is_empty() {
        return Err(Error::NoContent { what: "mark_used" });
    }
    if names.len() > MAX_USED {
        return Err(Error::TooManyNames { given: names.len(), max: MAX_USED });
    }
    let mut memories = vault.resolve_all(names)?;
    let mut seen = std::collections::HashSet::new();
    memories.retain(|m| seen.insert(m.name.to_string()));
    let target = context_for.map(|t| vault.resolve(t)).transpose()?;
    let ty = crate::model::links::EdgeType::canonical("was_context_for")
        .map_err(Error::UnknownEdgeType)?;
    let linked = match &target {
        Some(t) => {
            let to = format!("memory:{}", t.name);
            let sources: Vec<&Memory> = memories.iter().filter(|m| m.name != t.name).collect();
            write(s, || {
                vault.all_or_nothing("mark-used", || {
                    sources
                        .iter()
                        .map(|m| vault.add_frontmatter_link(m, &ty, &to))
                        .collect::<crate::Result<Vec<_>>>()
                })
            })?
        }
        None => Vec::new(),
    };
    let used: Vec<(String, bool)> =
        memories.iter().map(|m| (m.id.to_string(), m.meta.pinned)).collect();
    record_use(s, &used)?;
    Ok(MarkedUsed {
        used: memories
            .iter()
            .map(|m| UsedMemory {
                memory_id: format!("memory:{}", m.name),
                name: m.name.to_string(),
                id: m.id.to_string(),
            })
            .collect(),
        context_for: target.map(|t| format!("memory:{}", t.name)),
        linked: written(linked),
    })
}
