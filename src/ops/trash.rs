//! Bringing memories back: from the trash, or an earlier version from history.

use super::wire::Written;

use super::{Session, write};

/// Restores a deleted memory from the trash (`entry`: a trash entry or the name it had),
/// under `as_name` when given; its usage clock starts again, as for a new memory.
pub fn restore_deleted<S: Session>(
    s: &S,
    entry: &str,
    as_name: Option<&str>,
) -> crate::Result<Written> {
    let vault = s.vault();
    let found = vault.trash_find(entry)?;
    let as_name = as_name.map(|n| vault.name_for(n)).transpose()?;
    let outcome = write(s, || vault.trash_restore(&found, as_name.as_ref()))?;
    super::memory::observe_new(s, &outcome, "restored");
    Ok(outcome.into())
}

/// Restores history version `version` of an existing memory (the current one goes to history).
pub fn restore_version<S: Session>(s: &S, name: &str, version: usize) -> crate::Result<Written> {
    let vault = s.vault();
    let m = vault.resolve(name)?;
    Ok(write(s, || vault.restore_version(&m, version))?.into())
}
