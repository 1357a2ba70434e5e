//! Where a write may go: names inside the vault, no case-folded collisions, one memory per id.

use std::path::{Path, PathBuf};

use crate::error::{Error, IoResultExt};
use crate::model::name::{RESERVED_DIRS, fold_name, nfc};
use crate::model::{MemoryId, MemoryName};
use crate::privacy::sanitize;
use crate::vault::{Memory, Vault};

impl Vault {
    /// The real file a write to `path` lands in, refusing anything that resolves outside the vault.
    pub(super) fn write_target(&self, path: &Path) -> crate::Result<PathBuf> {
        let meta = self.fs.stat(path);
        if meta.as_ref().is_ok_and(|m| m.is_some_and(|s| s.kind == crate::disk::Kind::Symlink)) {
            let real = path.canonicalize().map_err(|_| Error::OutsideVault(path.to_owned()))?;
            if !real.starts_with(&self.canonical_root) {
                return Err(Error::OutsideVault(path.to_owned()));
            }
            return Ok(real);
        }
        // Check the deepest existing folder above the file (stat-ed beneath the vault handle; a
        // link or a path through one is resolved by the check below).
        let mut dir = path.parent();
        while let Some(d) = dir {
            if !matches!(self.fs.stat(d), Ok(None)) {
                let real = d.canonicalize().at("resolve", d)?;
                if !real.starts_with(&self.canonical_root) {
                    return Err(Error::OutsideVault(path.to_owned()));
                }
                break;
            }
            dir = d.parent();
        }
        Ok(path.to_owned())
    }

    /// Refuses `name` for a new memory (create, rename to, restore as) when it would leak or be
    /// lost:
    ///
    /// - redaction would change it: the name becomes a file name, which no redaction reaches;
    /// - it differs from an existing memory or folder only in letter case or Unicode form
    ///   (`Note`/`note`, NFC/NFD `Café`): macOS and Windows file systems treat such names as
    ///   one, so one of the pair is lost on checkout (see [`crate::model::name::fold_name`]).
    ///
    /// `except` is the memory being renamed, which may collide with its own new spelling.
    pub fn check_new_name(
        &self,
        name: &MemoryName,
        except: Option<&MemoryName>,
    ) -> crate::Result<()> {
        let clean = sanitize(name.as_str(), self.config.privacy.scrub_secrets);
        if clean.had_private_content {
            return Err(Error::PrivateName { redacted: clean.text });
        }
        let Some(existing) = self.colliding_name(name, except)? else { return Ok(()) };
        if let Some(dir) = existing.strip_suffix('/').filter(|d| RESERVED_DIRS.contains(d)) {
            return Err(Error::ReservedFolder {
                name: name.to_string(),
                dir: dir.to_owned(),
                first: name.as_str().split('/').next().unwrap_or_default().to_owned(),
            });
        }
        Err(Error::NameCollision {
            name: name.to_string(),
            folder: existing.ends_with('/'),
            // Same letters, composed differently (NFC `é` against NFD `e` + accent).
            accents_only: nfc(&existing) == nfc(name.as_str()),
            existing,
        })
    }

    /// The existing memory (`name`) or folder (`name/`) that `name` collides with, if any: the
    /// same after [`fold_name`], spelled differently. Reads one folder per part of the name.
    pub(super) fn colliding_name(
        &self,
        name: &MemoryName,
        except: Option<&MemoryName>,
    ) -> crate::Result<Option<String>> {
        let except = except.map(MemoryName::rel_path);
        let parts: Vec<&str> = name.as_str().split('/').collect();
        if parts.len() > 1 {
            let first = fold_name(parts[0]);
            if let Some(dir) = RESERVED_DIRS.iter().find(|d| fold_name(d) == first) {
                return Ok(Some(format!("{dir}/")));
            }
        }
        let mut dir = PathBuf::new();
        let mut prefix = String::new();
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            let wanted = if last { format!("{part}.md") } else { (*part).to_owned() };
            let folded = fold_name(&wanted);
            // Listed beneath the vault's handle: a folder that is a link (or under one) holds
            // nothing a new name collides with, and a write there is refused on its own.
            let entries = match self.fs.read_dir(&dir) {
                Ok(entries) => entries,
                Err(e) if e.source.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(_) if self.fs.kind(&dir) != Some(crate::disk::Kind::Dir) => return Ok(None),
                Err(e) => return Err(e.into()),
            };
            let mut exact = false;
            for entry in entries {
                let Some(f) = entry.name.to_str() else { continue };
                let rel = format!("{prefix}{f}");
                if f == wanted {
                    exact = true;
                } else if fold_name(f) == folded && !(last && except.as_ref() == Some(&rel)) {
                    return Ok(Some(match rel.strip_suffix(".md") {
                        Some(n) if last => n.to_owned(),
                        _ => format!("{rel}/"),
                    }));
                }
            }
            if !exact {
                return Ok(None);
            }
            dir.push(part);
            prefix.push_str(part);
            prefix.push('/');
        }
        Ok(None)
    }

    /// Whether memory `name` exists and carries `id` in its frontmatter.
    pub(super) fn has_id(&self, name: &MemoryName, id: &MemoryId) -> bool {
        self.load(name).is_ok_and(|o| o.id_persisted && o.id == *id)
    }

    pub(super) fn duplicate_id(&self, m: &Memory, other: &MemoryName) -> Error {
        Error::SameId {
            name: m.name.to_string(),
            other: other.to_string(),
            id: m.id.to_string(),
            path: m.path.clone(),
            other_path: self.path_of(other),
        }
    }

    /// Refuses an id-based operation (history, restore) on a memory whose id another file in the
    /// vault also carries. Reads every file that mentions the id.
    pub(super) fn check_unique_id(&self, m: &Memory) -> crate::Result<()> {
        if !m.id_persisted {
            return Ok(());
        }
        for name in self.names()? {
            if name == m.name {
                continue;
            }
            let Some(raw) = self.read_memory(&name).ok().and_then(|b| String::from_utf8(b).ok())
            else {
                continue;
            };
            if raw.contains(m.id.as_str()) && self.has_id(&name, &m.id) {
                return Err(self.duplicate_id(m, &name));
            }
        }
        Ok(())
    }
}
