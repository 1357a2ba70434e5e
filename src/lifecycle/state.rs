//! The usage state of a vault (`.memories/state/usage.bin` and `usage.journal`) and its locking.
//!
//! Per memory id (ids survive renames, names do not): temperature, access counters and the
//! cold-notification flags ([`MemoryUsage`]); vault-wide: the activity days ([`ActivityDays`]).
//! The files are derived, per-user and git-ignored. Missing files are an empty state; a corrupt or
//! unreadable base is reported ([`StateReset`]) and replaced by an empty state on the next write:
//! it costs usage history, never a memory.
//!
//! **Two files.** `usage.bin` (the base) holds one fixed-width record per memory, sorted by id,
//! behind a JSON header line (format, count, checksum, activity days, and which journal it already
//! holds). `usage.journal` holds what changed since, one checksummed record per change (a
//! memory's new usage, a memory forgotten, an activity day). A command reads the base in one go,
//! checks it (checksum, length, order) and decodes only the records it asks for (a search: its
//! candidates, by binary search), and replays the journal over it. Recording the uses of a
//! search appends their new values to the journal; it never rewrites the base. The journal
//! records values, not uses, so replaying it never depends on the configuration of the day.
//!
//! **Folding.** When the journal outgrows an eighth of the base (at least 64 KiB, at most
//! 1 MiB), or `maintain` runs, the writer folds it: it writes a new base holding everything
//! (temp file, fsync, rename), whose header names the journal's generation and the length it
//! holds, then replaces the journal with an empty one of the next generation. A reader applies a
//! journal of the base's generation only past that length, one of a later generation whole, and
//! one of an earlier generation not at all; so a crash between the two steps neither applies a
//! change twice nor loses one. A journal record cut short by a crash (its length past the end, or
//! its checksum wrong) ends the journal there; the next writer drops it before appending.
//!
//! **Locking.** Readers need no lock (the base is replaced atomically, the journal only grows
//! until it is replaced, and a reader reads the journal before the base). Writers serialise on an
//! OS lock on `state/usage.lock` ([`UsageStore::update`] holds it around the whole
//! read-modify-append), so two processes warming memories at the same time lose no increments.
//! The lock file is never removed; the OS releases the lock when its holder exits, even on a
//! crash.
//!
//! **Upgrade.** Before, the state was one JSON file, `state/usage.json` ([`USAGE_FILE`]). A vault
//! with that file and no base reads it whole, and its first write saves the base and removes the
//! JSON file. When both are there (a write stopped between the two steps), the base is the truth
//! and the next write removes the JSON file.
//!
//! All instants are Unix seconds (UTC).

use std::collections::BTreeMap;
use std::fmt;
use std::fs::File;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::LifecycleError;
use super::clock::{ActivityDays, age_days};
use super::importance::ImportanceInputs;
use super::usage_file::{Base, Change, Folded, JOURNAL_HEADER, Journal, journal_header};
use crate::config::{ClockKind, LifecycleConfig};
use crate::error::{IoResultExt, PathError};

pub use super::usage_file::{BASE_FILE, JOURNAL_FILE};

/// The folder under the vault root that holds per-user derived state.
pub const STATE_DIR: &str = "state";
/// The usage state file of memlane before the base and journal (JSON), inside [`STATE_DIR`]:
/// read when there is no base, removed by the first write.
pub const USAGE_FILE: &str = "usage.json";
/// The lock file writers hold, inside [`STATE_DIR`].
pub const LOCK_FILE: &str = "usage.lock";
/// The format version of [`USAGE_FILE`].
const LEGACY_VERSION: u32 = 1;
/// The journal is folded into the base past this many bytes at least, ...
const JOURNAL_MIN: u64 = 64 << 10;
/// ... past an eighth of the base, and past this many bytes at most.
const JOURNAL_MAX: u64 = 1 << 20;

/// What the state knows about one memory.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MemoryUsage {
    /// The temperature as of `updated_at`, in [0, 1]; read the current value with
    /// [`UsageState::temperature`], which applies the cooling since then.
    pub temperature: f64,
    /// When `temperature` was last computed (Unix seconds).
    pub updated_at: i64,
    /// Reads and search hits so far.
    #[serde(default)]
    pub access_count: u64,
    /// The last read or search hit (Unix seconds).
    #[serde(default)]
    pub last_access: Option<i64>,
    /// When the state first saw this memory (Unix seconds).
    pub first_seen: i64,
    /// The number of activity days up to and including the day of the last access; today's
    /// count minus this is the activity days since the access (MIRA's counter).
    #[serde(default)]
    pub activity_days_at_last_access: Option<u64>,
    /// Announced as cold and not re-armed since (hysteresis).
    #[serde(default)]
    pub announced_cold: bool,
    /// The last cold announcement (Unix seconds).
    #[serde(default)]
    pub last_announced: Option<i64>,
}

impl MemoryUsage {
    /// A memory seen for the first time at `now`, at the start temperature.
    pub(super) fn new(now: i64, cfg: &LifecycleConfig) -> MemoryUsage {
        MemoryUsage {
            temperature: clamp_unit(cfg.temperature_start),
            updated_at: now,
            access_count: 0,
            last_access: None,
            first_seen: now,
            activity_days_at_last_access: None,
            announced_cold: false,
            last_announced: None,
        }
    }

    /// Repairs what a hand edit could break: a temperature outside [0, 1] (JSON has no NaN).
    fn sanitize(&mut self) {
        self.temperature = clamp_unit(self.temperature);
    }
}

/// All usage state of a vault: one [`MemoryUsage`] per memory id and the activity days.
///
/// The records of the base file stay encoded until asked for ([`get`](Self::get) decodes one);
/// the changes since (the journal's and this process's) are held decoded beside them. Methods
/// that change temperatures live next to the temperature rules (`temperature.rs`); the ones
/// here are bookkeeping.
#[derive(Debug, Clone, Default)]
pub struct UsageState {
    pub(super) activity_days: ActivityDays,
    /// The base file's records, as read.
    base: Option<Arc<Base>>,
    /// Memories set (`Some`) or forgotten (`None`) since `base`.
    overlay: BTreeMap<String, Option<MemoryUsage>>,
}

impl PartialEq for UsageState {
    fn eq(&self, other: &Self) -> bool {
        self.activity_days == other.activity_days && self.iter().eq(other.iter())
    }
}

impl UsageState {
    /// An empty state.
    pub fn new() -> UsageState {
        UsageState::default()
    }

    /// Records the UTC date of `now` as an activity day; returns whether it was new. Every
    /// command that reads or writes the vault calls this once (warming also does).
    pub fn touch_day(&mut self, now: Timestamp) -> bool {
        self.activity_days.insert(now)
    }

    /// The days on which the vault was used.
    pub fn activity_days(&self) -> &ActivityDays {
        &self.activity_days
    }

    /// What is known about memory `id`: one record decoded (or none, when it changed since the
    /// base was written).
    pub fn get(&self, id: &str) -> Option<MemoryUsage> {
        match self.overlay.get(id) {
            Some(changed) => *changed,
            None => self.base_get(id),
        }
    }

    fn base_get(&self, id: &str) -> Option<MemoryUsage> {
        let base = self.base.as_deref()?;
        base.find(id).map(|i| base.usage(i))
    }

    /// Every tracked memory, by id, in id order (decodes every record: for whole-vault views).
    pub fn iter(&self) -> impl Iterator<Item = (&str, MemoryUsage)> {
        let base = self.base.as_deref();
        let mut from_base = (0..base.map_or(0, Base::len)).map(move |i| {
            let b = base.expect("records only with a base");
            (b.id(i), i)
        });
        let mut changed = self.overlay.iter();
        let (mut b, mut c) = (from_base.next(), changed.next());
        std::iter::from_fn(move || {
            loop {
                let take_base = match (b, c) {
                    (None, None) => return None,
                    (Some(_), None) => true,
                    (None, Some(_)) => false,
                    (Some((bid, _)), Some((cid, _))) => bid < cid.as_str(),
                };
                if take_base {
                    let (id, i) = b.expect("checked above");
                    b = from_base.next();
                    return Some((id, base.expect("records only with a base").usage(i)));
                }
                let (id, value) = c.expect("checked above");
                if b.is_some_and(|(bid, _)| bid == id.as_str()) {
                    b = from_base.next();
                }
                c = changed.next();
                if let Some(u) = value {
                    return Some((id.as_str(), *u));
                }
            }
        })
    }

    /// The number of tracked memories.
    pub fn len(&self) -> usize {
        let mut n = self.base.as_deref().map_or(0, Base::len);
        for (id, value) in &self.overlay {
            match (self.base_get(id).is_some(), value.is_some()) {
                (false, true) => n += 1,
                (true, false) => n -= 1,
                _ => {}
            }
        }
        n
    }

    /// Whether no memory is tracked.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Starts tracking `id` at the start temperature, cooling from `now`, unless it is tracked
    /// already; returns whether it was new. Call it when a memory is created; the cold check
    /// observes every memory it is given, so a memory that is never read still goes cold.
    pub fn observe(&mut self, id: &str, now: Timestamp, cfg: &LifecycleConfig) -> bool {
        if self.get(id).is_some() {
            return false;
        }
        self.overlay.insert(id.to_owned(), Some(MemoryUsage::new(now.as_second(), cfg)));
        true
    }

    /// The entry of `id`, created at `now` if missing.
    pub(super) fn entry(
        &mut self,
        id: &str,
        now: Timestamp,
        cfg: &LifecycleConfig,
    ) -> &mut MemoryUsage {
        let current = match self.overlay.get(id) {
            Some(Some(_)) => None,
            Some(None) => Some(MemoryUsage::new(now.as_second(), cfg)),
            None => {
                Some(self.base_get(id).unwrap_or_else(|| MemoryUsage::new(now.as_second(), cfg)))
            }
        };
        let slot = self.overlay.entry(id.to_owned()).or_default();
        if let Some(start) = current {
            *slot = Some(start);
        }
        slot.as_mut().expect("set just above")
    }

    /// Stops tracking `id` (for memories gone for good, e.g. after `trash empty`).
    pub fn forget(&mut self, id: &str) -> Option<MemoryUsage> {
        let was = self.get(id)?;
        self.overlay.insert(id.to_owned(), None);
        Some(was)
    }

    /// Keeps only the memories for which `keep(id)` is true; returns how many were dropped.
    /// `maintain` uses it to drop the usage of memories that no longer exist, in the vault or
    /// its trash.
    pub fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) -> usize {
        let drop: Vec<String> =
            self.iter().filter(|(id, _)| !keep(id)).map(|(id, _)| id.to_owned()).collect();
        for id in &drop {
            self.overlay.insert(id.clone(), None);
        }
        drop.len()
    }

    /// The usage-derived part of the importance inputs of memory `id`, created at `created_at`,
    /// on `clock`. The caller fills in links, mentions and event/expiry distances with
    /// struct-update syntax.
    ///
    /// A memory never accessed counts its age as the time since its last access (MIRA). With the
    /// activity clock, the days since the access come from `activity_days_at_last_access` when
    /// it is recorded.
    pub fn importance_inputs(
        &self,
        id: &str,
        created_at: Timestamp,
        now: Timestamp,
        clock: ClockKind,
    ) -> ImportanceInputs {
        let days = &self.activity_days;
        let age = age_days(clock, created_at, now, days);
        let usage = self.get(id);
        let since_access = match usage {
            Some(MemoryUsage { activity_days_at_last_access: Some(at), .. })
                if clock == ClockKind::Activity =>
            {
                days.count_through(now).saturating_sub(at) as f64
            }
            Some(MemoryUsage { last_access: Some(last), .. }) => {
                match Timestamp::from_second(last) {
                    Ok(last) => age_days(clock, last, now, days),
                    Err(_) => age,
                }
            }
            _ => age,
        };
        ImportanceInputs {
            access_count: usage.map_or(0, |u| u.access_count),
            days_since_last_access: since_access,
            age_days: age,
            activity_days_since_access: since_access,
            ..ImportanceInputs::default()
        }
    }

    /// What changed from `before` (this state as it was read) to now: the journal records
    /// that bring the files from one to the other, or `None` when only a whole new base can
    /// (an activity day dropped).
    fn changes_since(&self, before: &UsageState) -> Option<Vec<Change>> {
        let mut out = Vec::new();
        for day in self.activity_days.iter() {
            if !before.activity_days.contains(day) {
                out.push(Change::Day(day));
            }
        }
        if self.activity_days.len() != before.activity_days.len() + out.len() {
            return None;
        }
        for (id, value) in &self.overlay {
            let was = match before.overlay.get(id) {
                Some(v) => *v,
                None => before.base_get(id),
            };
            if *value != was {
                out.push(match value {
                    Some(u) => Change::Set(id.clone(), *u),
                    None => Change::Forget(id.clone()),
                });
            }
        }
        Some(out)
    }

    /// Applies one journal record.
    fn apply(&mut self, change: Change) {
        match change {
            Change::Set(id, mut u) => {
                u.sanitize();
                self.overlay.insert(id, Some(u));
            }
            Change::Forget(id) => {
                self.overlay.insert(id, None);
            }
            Change::Day(d) => {
                self.activity_days.insert_date(d);
            }
        }
    }
}

/// The usage state files were corrupt or unreadable and the state starts empty (or without the
/// journal's changes). A warning for the user, not an error: memories are untouched, only usage
/// history is lost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateReset {
    /// The state file.
    pub path: PathBuf,
    /// What was wrong with it.
    pub problem: String,
}

impl fmt::Display for StateReset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "usage state {} was reset ({}); temperatures and access counts start over, memories are unaffected",
            self.path.display(),
            self.problem
        )
    }
}

/// The on-disk shape of [`USAGE_FILE`].
#[derive(Deserialize)]
struct LegacyDisk {
    version: u32,
    #[serde(default)]
    activity_days: ActivityDays,
    #[serde(default)]
    memories: BTreeMap<String, MemoryUsage>,
}

/// How the state as read relates to its files: what the next write must do.
#[derive(Debug, Clone, Default)]
struct DiskState {
    /// The size of the base file (0 without one).
    base_len: u64,
    /// The journal the base holds.
    folded: Folded,
    /// The journal that was replayed, if any: its generation and where its whole records end.
    journal: Option<(u64, u64)>,
    /// The journal file had bytes past its whole records (a torn tail), or was not one to
    /// append to: the next append rewrites it.
    journal_rewrite: bool,
    /// The base was missing with a JSON file there, damaged or unreadable: the next write writes
    /// a whole new base.
    rewrite: bool,
    /// A [`USAGE_FILE`] is (or may be) there: the next write removes it.
    legacy: bool,
}

/// The usage state of one vault, loaded from and saved to `state/usage.bin` and
/// `state/usage.journal`.
#[derive(Debug, Clone)]
pub struct UsageStore {
    root: PathBuf,
    state: UsageState,
}

impl UsageStore {
    /// The base file of the vault at `vault_root` (the `.memories` folder).
    pub fn file_path(vault_root: &Path) -> PathBuf {
        vault_root.join(STATE_DIR).join(BASE_FILE)
    }

    /// The journal file of the vault at `vault_root`.
    pub fn journal_path(vault_root: &Path) -> PathBuf {
        vault_root.join(STATE_DIR).join(JOURNAL_FILE)
    }

    /// The state files of the vault at `vault_root` whose (mtime, size) tell a long-lived
    /// session that another process wrote the state: the base, the journal and [`USAGE_FILE`].
    pub fn file_paths(vault_root: &Path) -> [PathBuf; 3] {
        let dir = vault_root.join(STATE_DIR);
        [dir.join(BASE_FILE), dir.join(JOURNAL_FILE), dir.join(USAGE_FILE)]
    }

    /// Loads the usage state of the vault at `vault_root` without locking (see the module docs).
    ///
    /// Missing files are an empty state. A corrupt or unreadable file gives an empty state and a
    /// [`StateReset`] to show the user; the next write replaces the file. Use
    /// [`UsageStore::update`] instead when changes must not race with other processes.
    pub fn open(vault_root: &Path) -> Result<(UsageStore, Option<StateReset>), LifecycleError> {
        let (state, _, reset) = load(vault_root);
        Ok((UsageStore { root: vault_root.to_owned(), state }, reset))
    }

    /// Reads, changes and saves the state of the vault at `vault_root` under the state lock, so
    /// that concurrent updates from several processes all count. Returns what `change`
    /// returned, and the reset warning if a file was corrupt. Nothing is written when `change`
    /// left the state as it was; otherwise what changed is appended to the journal (or, past its
    /// limit, folded with it into a new base).
    pub fn update<R>(
        vault_root: &Path,
        change: impl FnOnce(&mut UsageState) -> R,
    ) -> Result<(R, Option<StateReset>), LifecycleError> {
        Self::update_then(vault_root, change, || ()).map(|(r, (), reset)| (r, reset))
    }

    /// [`UsageStore::update`], then `after` while the state lock is still held (nobody else
    /// can have written since): what it returned too.
    pub fn update_then<R, A>(
        vault_root: &Path,
        change: impl FnOnce(&mut UsageState) -> R,
        after: impl FnOnce() -> A,
    ) -> Result<(R, A, Option<StateReset>), LifecycleError> {
        let _lock = StateLock::acquire(vault_root)?;
        let (mut state, disk, reset) = load(vault_root);
        let before = state.clone();
        let out = change(&mut state);
        let changes = state.changes_since(&before);
        let fs = vault_fs(vault_root)?;
        match changes {
            Some(changes) if !disk.rewrite => {
                if !changes.is_empty() {
                    append(&fs, vault_root, &state, &disk, &changes)?;
                } else if disk.legacy {
                    remove_legacy(&fs, vault_root)?;
                }
            }
            _ => fold(&fs, vault_root, &state, &disk)?,
        }
        Ok((out, after(), reset))
    }

    /// Folds the journal into a new base under the state lock, when there is a journal with
    /// changes (or a file to upgrade or replace): what `maintain` does, so that the next
    /// commands replay nothing.
    pub fn fold(vault_root: &Path) -> Result<Option<StateReset>, LifecycleError> {
        let _lock = StateLock::acquire(vault_root)?;
        let (state, disk, reset) = load(vault_root);
        let pending = disk.journal.is_some_and(|(g, end)| {
            end > if g == disk.folded.generation {
                disk.folded.length
            } else {
                JOURNAL_HEADER as u64
            }
        });
        if pending || disk.rewrite || disk.journal_rewrite {
            fold(&vault_fs(vault_root)?, vault_root, &state, &disk)?;
        } else if disk.legacy {
            remove_legacy(&vault_fs(vault_root)?, vault_root)?;
        }
        Ok(reset)
    }

    /// Saves this state as a whole new base, replacing whatever the files hold (last writer
    /// wins; use [`UsageStore::update`] for read-modify-write). Holds the state lock while
    /// writing.
    pub fn save(&self) -> Result<(), LifecycleError> {
        let _lock = StateLock::acquire(&self.root)?;
        let (_, disk, _) = load(&self.root);
        fold(&vault_fs(&self.root)?, &self.root, &self.state, &disk)
    }

    /// The base file.
    pub fn path(&self) -> PathBuf {
        UsageStore::file_path(&self.root)
    }

    /// The loaded state.
    pub fn state(&self) -> &UsageState {
        &self.state
    }

    /// The loaded state, to change before [`UsageStore::save`].
    pub fn state_mut(&mut self) -> &mut UsageState {
        &mut self.state
    }

    /// The loaded state, without the store.
    pub fn into_state(self) -> UsageState {
        self.state
    }
}

/// A handle on the vault root: the state folder and its files are reached beneath it, never
/// through a link.
fn vault_fs(vault_root: &Path) -> Result<crate::disk::Confined, PathError> {
    let root = if vault_root.as_os_str().is_empty() { Path::new(".") } else { vault_root };
    crate::disk::Confined::open_canonical(root, root.to_owned())
}

/// The bytes of `path` beneath the vault root; `None` when there is no such file.
fn read_file(
    fs: &Result<crate::disk::Confined, PathError>,
    path: &Path,
) -> Result<Option<Vec<u8>>, String> {
    let fs = match fs {
        Ok(fs) => fs,
        Err(e) if e.source.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read it: {e}")),
    };
    match fs.read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.source.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read it: {e}")),
    }
}

/// Reads the state files of the vault at `root` (the journal first, then the base: see the
/// module docs): the state, how it relates to the files, and a reset warning when a file could
/// not be used.
fn load(root: &Path) -> (UsageState, DiskState, Option<StateReset>) {
    let fs = vault_fs(root);
    let base_path = UsageStore::file_path(root);
    let journal_path = UsageStore::journal_path(root);
    let mut reset = None;
    let mut problem = |path: &Path, problem: String| {
        tracing::warn!(path = %path.display(), %problem, "usage state reset");
        reset.get_or_insert(StateReset { path: path.to_owned(), problem });
    };
    let mut disk = DiskState::default();
    let journal = match read_file(&fs, &journal_path) {
        Ok(bytes) => bytes,
        Err(p) => {
            problem(&journal_path, p);
            disk.journal_rewrite = true;
            None
        }
    };
    let mut state = UsageState::default();
    match read_file(&fs, &base_path) {
        Ok(Some(bytes)) => {
            disk.base_len = bytes.len() as u64;
            match Base::parse(bytes) {
                Ok((base, days, folded)) => {
                    state.base = Some(Arc::new(base));
                    state.activity_days = days;
                    disk.folded = folded;
                }
                Err(p) => {
                    problem(&base_path, format!("not valid usage state: {p}"));
                    disk.rewrite = true;
                }
            }
            // A JSON file beside a base was left by a write that stopped before removing it.
            disk.legacy = fs.as_ref().is_ok_and(|fs| {
                fs.stat(&root.join(STATE_DIR).join(USAGE_FILE)).ok().flatten().is_some()
            });
        }
        Ok(None) => read_legacy(&fs, root, &mut state, &mut disk, &mut problem),
        Err(p) => {
            problem(&base_path, p);
            disk.rewrite = true;
        }
    }
    if let Some(bytes) = journal {
        match Journal::parse(&bytes) {
            Some(j) => {
                let from = if j.generation == disk.folded.generation {
                    // Shorter than what the base holds of it: not the journal the base folded
                    // (nothing of it to apply, nothing to append after).
                    (j.valid_len >= disk.folded.length).then_some(disk.folded.length)
                } else if j.generation > disk.folded.generation {
                    Some(0)
                } else {
                    // Older than the base: every change of it is in the base already.
                    None
                };
                match from {
                    Some(from) => {
                        for (at, change) in j.changes {
                            if at >= from {
                                state.apply(change);
                            }
                        }
                        disk.journal = Some((j.generation, j.valid_len));
                        disk.journal_rewrite = j.valid_len != j.len;
                    }
                    None => disk.journal_rewrite = true,
                }
            }
            // Not a journal memlane writes (or its header cut short): nothing of it is used.
            None => disk.journal_rewrite = true,
        }
    }
    (state, disk, reset)
}

/// Reads [`USAGE_FILE`], the state of a memlane before the base and journal, into `state`.
fn read_legacy(
    fs: &Result<crate::disk::Confined, PathError>,
    root: &Path,
    state: &mut UsageState,
    disk: &mut DiskState,
    problem: &mut impl FnMut(&Path, String),
) {
    let path = root.join(STATE_DIR).join(USAGE_FILE);
    let bytes = match read_file(fs, &path) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return,
        Err(p) => {
            problem(&path, p);
            disk.rewrite = true;
            disk.legacy = true;
            return;
        }
    };
    disk.rewrite = true;
    disk.legacy = true;
    let legacy: LegacyDisk = match serde_json::from_slice(&bytes) {
        Ok(legacy) => legacy,
        Err(e) => return problem(&path, format!("not valid usage state: {e}")),
    };
    if legacy.version != LEGACY_VERSION {
        return problem(
            &path,
            format!(
                "format version {} is not {LEGACY_VERSION}, the one this memlane reads",
                legacy.version
            ),
        );
    }
    state.activity_days = legacy.activity_days;
    state.overlay = legacy
        .memories
        .into_iter()
        .map(|(id, mut u)| {
            u.sanitize();
            (id, Some(u))
        })
        .collect();
}

/// Appends `changes` to the journal (rewriting it when it has a torn tail or is not one to
/// append to), or folds when that would take the journal past its limit.
fn append(
    fs: &crate::disk::Confined,
    root: &Path,
    state: &UsageState,
    disk: &DiskState,
    changes: &[Change],
) -> Result<(), LifecycleError> {
    let mut bytes = Vec::new();
    for c in changes {
        c.encode(&mut bytes);
    }
    let kept = disk.journal.map_or(JOURNAL_HEADER as u64, |(_, end)| end);
    let limit = (disk.base_len / 8).clamp(JOURNAL_MIN, JOURNAL_MAX);
    if kept + bytes.len() as u64 > limit {
        return fold(fs, root, state, disk);
    }
    let path = UsageStore::journal_path(root);
    crate::failpoint::step("usage.write").at("write", &path)?;
    crate::failpoint::step("usage.append").at("write", &path)?;
    match disk.journal {
        Some(_) if !disk.journal_rewrite => fs.append(&path, &bytes)?,
        Some((generation, end)) => {
            // Whole records kept, the torn tail dropped, the new ones after them.
            let old = fs.read(&path)?;
            let mut out = old.get(..end as usize).unwrap_or(&old).to_vec();
            if out.len() as u64 != end {
                return fold(fs, root, state, disk);
            }
            debug_assert_eq!(Journal::parse(&out).map(|j| j.generation), Some(generation));
            out.extend_from_slice(&bytes);
            fs.write(&path, &out)?;
        }
        None => {
            let mut out = journal_header(disk.folded.generation + 1);
            out.extend_from_slice(&bytes);
            fs.write(&path, &out)?;
        }
    }
    if disk.legacy {
        remove_legacy(fs, root)?;
    }
    Ok(())
}

/// Writes `state` as a new base that holds the journal as read, then starts the next journal
/// generation, then removes a [`USAGE_FILE`] (see the module docs for why this order is safe).
fn fold(
    fs: &crate::disk::Confined,
    root: &Path,
    state: &UsageState,
    disk: &DiskState,
) -> Result<(), LifecycleError> {
    let folded = match disk.journal {
        Some((generation, length)) => Folded { generation, length },
        None => disk.folded,
    };
    let entries: Vec<(&str, MemoryUsage)> = state.iter().collect();
    let bytes = Base::encode(&entries, &state.activity_days, folded);
    drop(entries);
    let base = UsageStore::file_path(root);
    fs.create_dir_all(&root.join(STATE_DIR))?;
    crate::failpoint::step("usage.write").at("write", &base)?;
    crate::failpoint::step("usage.fold.base").at("write", &base)?;
    fs.write(&base, &bytes)?;
    let journal = UsageStore::journal_path(root);
    crate::failpoint::step("usage.fold.journal").at("write", &journal)?;
    fs.write(&journal, &journal_header(folded.generation + 1))?;
    if disk.legacy {
        crate::failpoint::step("usage.fold.legacy")
            .at("remove", &root.join(STATE_DIR).join(USAGE_FILE))?;
        remove_legacy(fs, root)?;
    }
    Ok(())
}

/// Removes [`USAGE_FILE`] (a link there included, never its target), if it is there.
fn remove_legacy(fs: &crate::disk::Confined, root: &Path) -> Result<(), PathError> {
    match fs.remove_file(&root.join(STATE_DIR).join(USAGE_FILE)) {
        Err(e) if e.source.kind() != ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

fn clamp_unit(x: f64) -> f64 {
    x.clamp(0.0, 1.0)
}

/// An exclusive OS lock on `state/usage.lock`, released on drop (and by the OS if the process
/// dies).
struct StateLock {
    _file: File,
}

impl StateLock {
    fn acquire(vault_root: &Path) -> Result<StateLock, PathError> {
        let fs = vault_fs(vault_root)?;
        fs.create_dir_all(Path::new(STATE_DIR))?;
        let path = vault_root.join(STATE_DIR).join(LOCK_FILE);
        let file = fs.open_lock_file(&path)?;
        match file.lock() {
            Ok(()) => {}
            // Some network file systems have no locks; a lost increment beats a failed command.
            Err(e) if e.kind() == ErrorKind::Unsupported => {
                tracing::warn!(path = %path.display(), "file locking unsupported; updating usage state unlocked");
            }
            Err(e) => return Err(e).at("lock", &path),
        }
        Ok(StateLock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    fn vault() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    /// `state/` swapped for a link to a folder outside (after the vault's checks): the usage
    /// state is neither read from there nor written there, and no lock file is created there.
    #[cfg(unix)]
    #[test]
    fn a_state_folder_swapped_for_a_link_is_never_followed() {
        let dir = vault();
        let outside = tempfile::tempdir().unwrap();
        let theirs = br#"{"version":1,"memories":{}}"#;
        std::fs::write(outside.path().join(USAGE_FILE), theirs).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join(STATE_DIR)).unwrap();
        let (store, _) = UsageStore::open(dir.path()).unwrap();
        assert!(store.state().is_empty(), "read through the link");
        let updated = UsageStore::update(dir.path(), |s| s.touch_day(Timestamp::UNIX_EPOCH));
        assert!(updated.is_err(), "the update went through the link");
        let mut names: Vec<String> = std::fs::read_dir(outside.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, [USAGE_FILE], "nothing written outside the vault");
        assert_eq!(std::fs::read(outside.path().join(USAGE_FILE)).unwrap(), theirs);
    }

    #[test]
    fn missing_file_is_empty_state_without_warning() {
        let dir = vault();
        let (store, reset) = UsageStore::open(dir.path()).unwrap();
        assert!(reset.is_none());
        assert!(store.state().is_empty());
        assert!(store.state().activity_days().is_empty());
        assert_eq!(store.path(), dir.path().join("state").join("usage.bin"));
        // Opening writes nothing.
        assert!(!dir.path().join("state").exists());
    }

    #[test]
    fn save_and_open_round_trip() {
        let dir = vault();
        let cfg = LifecycleConfig::default();
        let now = ts("2026-01-10T10:00:00Z");
        let (mut store, _) = UsageStore::open(dir.path()).unwrap();
        store.state_mut().touch_day(now);
        store.state_mut().warm("3kTqZ9pLx2A", false, now, &cfg);
        store.state_mut().observe("0000000000b", now, &cfg);
        store.save().unwrap();

        let (again, reset) = UsageStore::open(dir.path()).unwrap();
        assert!(reset.is_none());
        assert_eq!(again.state(), store.state());
        assert_eq!(again.state().get("3kTqZ9pLx2A").unwrap().access_count, 1);
        assert!(again.state().activity_days().contains("2026-01-10".parse().unwrap()));
        assert!(store.path().is_file());
    }

    #[test]
    fn corrupt_file_is_reported_and_replaced() {
        let dir = vault();
        let state = dir.path().join("state");
        std::fs::create_dir(&state).unwrap();
        let file = state.join("usage.json");
        let memory = dir.path().join("note.md");
        std::fs::write(&memory, "---\nid: 3kTqZ9pLx2A\n---\nbody\n").unwrap();
        for junk in
            ["{not json", "[]", r#"{"version": 99}"#, r#"{"version":1,"activity_days":["x"]}"#]
        {
            std::fs::write(&file, junk).unwrap();
            let (store, reset) = UsageStore::open(dir.path()).unwrap();
            let reset = reset.unwrap_or_else(|| panic!("no warning for {junk}"));
            assert_eq!(reset.path, file);
            assert!(reset.to_string().contains("memories are unaffected"), "{reset}");
            assert!(store.state().is_empty());
        }
        let cfg = LifecycleConfig::default();
        let now = ts("2026-01-10T10:00:00Z");
        let (t, reset) =
            UsageStore::update(dir.path(), |s| s.warm("3kTqZ9pLx2A", false, now, &cfg)).unwrap();
        assert!(reset.is_some());
        assert!((t - 0.65).abs() < 1e-12);
        let (store, reset) = UsageStore::open(dir.path()).unwrap();
        assert!(reset.is_none());
        assert_eq!(store.state().get("3kTqZ9pLx2A").unwrap().access_count, 1);
        // The memory itself was never touched.
        assert_eq!(std::fs::read_to_string(&memory).unwrap(), "---\nid: 3kTqZ9pLx2A\n---\nbody\n");
    }

    #[test]
    fn hand_edited_temperatures_are_clamped() {
        let dir = vault();
        std::fs::create_dir(dir.path().join("state")).unwrap();
        std::fs::write(
            dir.path().join(STATE_DIR).join(USAGE_FILE),
            r#"{"version":1,"memories":{"a":{"temperature":7.5,"updated_at":0,"first_seen":0},
                "b":{"temperature":-1,"updated_at":0,"first_seen":0,"extra":true}}}"#,
        )
        .unwrap();
        let (store, reset) = UsageStore::open(dir.path()).unwrap();
        assert!(reset.is_none());
        assert_eq!(store.state().get("a").unwrap().temperature, 1.0);
        assert_eq!(store.state().get("b").unwrap().temperature, 0.0);
    }

    #[cfg(unix)]
    #[test]
    fn update_appends_what_changed_and_skips_the_write_when_nothing_did() {
        use std::os::unix::fs::MetadataExt;

        let dir = vault();
        let cfg = LifecycleConfig::default();
        let journal = UsageStore::journal_path(dir.path());
        let stamp = || std::fs::metadata(&journal).map(|m| (m.ino(), m.len())).unwrap();
        let day = ts("2026-01-10T10:00:00Z");
        let (new_day, _) = UsageStore::update(dir.path(), |s| s.touch_day(day)).unwrap();
        assert!(new_day);
        let first = stamp();
        let (new_day, _) = UsageStore::update(dir.path(), |s| s.touch_day(day)).unwrap();
        assert!(!new_day);
        assert_eq!(stamp(), first, "nothing changed, nothing written");
        UsageStore::update(dir.path(), |s| s.warm("m", false, day, &cfg)).unwrap();
        let (ino, len) = stamp();
        assert_eq!(ino, first.0, "appended in place");
        assert!(len > first.1);
        assert!(!UsageStore::file_path(dir.path()).exists(), "no base rewritten for a use");
        // Folded: a base holds it all, the journal starts over, and nothing counts twice.
        UsageStore::fold(dir.path()).unwrap();
        assert!(UsageStore::file_path(dir.path()).is_file());
        let (store, _) = UsageStore::open(dir.path()).unwrap();
        assert_eq!(store.state().get("m").unwrap().access_count, 1);
        assert_eq!(store.state().activity_days().len(), 1);
    }

    /// A write that folds, stopped between writing the new base and starting the next journal
    /// (the old journal still there, whole): every change counts once.
    #[test]
    fn a_fold_stopped_before_the_journal_restarts_counts_nothing_twice() {
        let dir = vault();
        let cfg = LifecycleConfig::default();
        let now = ts("2026-01-10T10:00:00Z");
        for _ in 0..3 {
            UsageStore::update(dir.path(), |s| s.warm("m", false, now, &cfg)).unwrap();
        }
        let journal = UsageStore::journal_path(dir.path());
        let before = std::fs::read(&journal).unwrap();
        UsageStore::fold(dir.path()).unwrap();
        // As if the process had died right after writing the base.
        std::fs::write(&journal, &before).unwrap();
        let count = || {
            let (store, reset) = UsageStore::open(dir.path()).unwrap();
            assert!(reset.is_none());
            store.state().get("m").unwrap().access_count
        };
        assert_eq!(count(), 3);
        UsageStore::update(dir.path(), |s| s.warm("m", false, now, &cfg)).unwrap();
        assert_eq!(count(), 4);
        UsageStore::fold(dir.path()).unwrap();
        assert_eq!(count(), 4);
        // A journal of an older generation than the base is never applied.
        std::fs::write(&journal, &before).unwrap();
        assert_eq!(count(), 4);
        UsageStore::update(dir.path(), |s| s.warm("m", false, now, &cfg)).unwrap();
        assert_eq!(count(), 5);
    }

    /// A journal whose last record a crash cut short: the whole records count, the cut one does
    /// not, nothing is reported, and the next write drops the cut bytes before appending.
    #[test]
    fn a_torn_journal_tail_is_ignored_and_dropped_by_the_next_write() {
        let dir = vault();
        let cfg = LifecycleConfig::default();
        let now = ts("2026-01-10T10:00:00Z");
        UsageStore::update(dir.path(), |s| s.warm("a", false, now, &cfg)).unwrap();
        let journal = UsageStore::journal_path(dir.path());
        let whole = std::fs::read(&journal).unwrap();
        UsageStore::update(dir.path(), |s| s.warm("b", false, now, &cfg)).unwrap();
        let longer = std::fs::read(&journal).unwrap();
        for cut in whole.len()..longer.len() {
            std::fs::write(&journal, &longer[..cut]).unwrap();
            let (store, reset) = UsageStore::open(dir.path()).unwrap();
            assert!(reset.is_none(), "cut at {cut}");
            assert_eq!(store.state().get("a").unwrap().access_count, 1);
            assert!(store.state().get("b").is_none(), "half a record applied at {cut}");
        }
        UsageStore::update(dir.path(), |s| s.warm("a", false, now, &cfg)).unwrap();
        let (store, _) = UsageStore::open(dir.path()).unwrap();
        assert_eq!(store.state().get("a").unwrap().access_count, 2, "appended after the cut");
        assert!(store.state().get("b").is_none());
    }

    /// A vault with only `usage.json` reads the same; its first write saves the base and
    /// journal and removes the JSON file.
    #[test]
    fn a_usage_json_vault_reads_the_same_and_is_upgraded_by_its_first_write() {
        let dir = vault();
        let cfg = LifecycleConfig::default();
        let now = ts("2026-01-10T10:00:00Z");
        let mut old = UsageState::new();
        old.warm("a", false, now, &cfg);
        old.warm("a", true, now, &cfg);
        old.observe("b", now, &cfg);
        let json = dir.path().join(STATE_DIR).join(USAGE_FILE);
        std::fs::create_dir(dir.path().join(STATE_DIR)).unwrap();
        let memories: BTreeMap<&str, MemoryUsage> = old.iter().collect();
        let text = serde_json::json!({"version": 1, "activity_days": ["2026-01-10"], "memories": memories});
        std::fs::write(&json, text.to_string()).unwrap();
        let (store, reset) = UsageStore::open(dir.path()).unwrap();
        assert!(reset.is_none());
        assert_eq!(store.state(), &old);
        assert!(json.exists(), "reading writes nothing");
        UsageStore::update(dir.path(), |s| s.warm("b", false, now, &cfg)).unwrap();
        assert!(!json.exists(), "two truths");
        let (store, _) = UsageStore::open(dir.path()).unwrap();
        assert_eq!(store.state().get("a"), old.get("a"));
        assert_eq!(store.state().get("b").unwrap().access_count, 1);
        // A JSON file left beside the base (a write stopped before removing it) is not read,
        // and the next write removes it.
        std::fs::write(&json, text.to_string()).unwrap();
        let (again, _) = UsageStore::open(dir.path()).unwrap();
        assert_eq!(again.state(), store.state());
        UsageStore::update(dir.path(), |s| s.touch_day(ts("2026-01-11T00:00:00Z"))).unwrap();
        assert!(!json.exists());
    }

    #[test]
    fn a_damaged_base_is_reported_and_replaced() {
        let dir = vault();
        let cfg = LifecycleConfig::default();
        let now = ts("2026-01-10T10:00:00Z");
        UsageStore::update(dir.path(), |s| s.warm("a", false, now, &cfg)).unwrap();
        UsageStore::fold(dir.path()).unwrap();
        let base = UsageStore::file_path(dir.path());
        let mut bytes = std::fs::read(&base).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&base, &bytes).unwrap();
        let (store, reset) = UsageStore::open(dir.path()).unwrap();
        let reset = reset.expect("reported");
        assert_eq!(reset.path, base);
        assert!(reset.to_string().contains("checksum"), "{reset}");
        assert!(store.state().is_empty());
        let (_, reset) = UsageStore::update(dir.path(), |s| s.warm("b", false, now, &cfg)).unwrap();
        assert!(reset.is_some());
        let (store, reset) = UsageStore::open(dir.path()).unwrap();
        assert!(reset.is_none(), "replaced by the write");
        assert_eq!(store.state().iter().map(|(id, _)| id).collect::<Vec<_>>(), ["b"]);
    }

    /// The base and journal swapped for links to files outside: neither is read through the
    /// link nor written through it.
    #[cfg(unix)]
    #[test]
    fn usage_files_swapped_for_links_are_never_followed() {
        let dir = vault();
        let cfg = LifecycleConfig::default();
        let now = ts("2026-01-10T10:00:00Z");
        UsageStore::update(dir.path(), |s| s.warm("mine", false, now, &cfg)).unwrap();
        UsageStore::fold(dir.path()).unwrap();
        UsageStore::update(dir.path(), |s| s.warm("mine", false, now, &cfg)).unwrap();
        let outside = tempfile::tempdir().unwrap();
        let mut theirs = Vec::new();
        for path in [UsageStore::file_path(dir.path()), UsageStore::journal_path(dir.path())] {
            let target = outside.path().join(path.file_name().unwrap());
            std::fs::rename(&path, &target).unwrap();
            std::os::unix::fs::symlink(&target, &path).unwrap();
            theirs.push((target.clone(), std::fs::read(&target).unwrap()));
        }
        let (store, reset) = UsageStore::open(dir.path()).unwrap();
        assert!(store.state().get("mine").is_none(), "read through a link");
        assert!(reset.is_some());
        UsageStore::update(dir.path(), |s| s.warm("other", false, now, &cfg)).unwrap();
        for (target, bytes) in theirs {
            assert_eq!(std::fs::read(&target).unwrap(), bytes, "written through a link");
        }
        let (store, _) = UsageStore::open(dir.path()).unwrap();
        assert_eq!(store.state().get("other").unwrap().access_count, 1);
        assert!(!UsageStore::file_path(dir.path()).is_symlink());
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(32))]
        /// Whatever mix of base, journal and changes in this process, one record looked up
        /// equals the state decoded whole, and so does every count.
        #[test]
        fn a_lazy_lookup_equals_the_eager_entries(
            ops in proptest::collection::vec((0u8..4, 0usize..12, 0i64..200_000), 1..40),
            fold_at in proptest::collection::vec(0usize..40, 0..3),
        ) {
            let dir = vault();
            let cfg = LifecycleConfig::default();
            let mut eager: BTreeMap<String, MemoryUsage> = BTreeMap::new();
            let mut state = UsageState::new();
            for (i, (op, id, secs)) in ops.iter().enumerate() {
                let id = format!("id-{id:02}");
                let now = Timestamp::from_second(1_768_000_000 + secs).unwrap();
                UsageStore::update(dir.path(), |s| match op {
                    0 => { s.warm(&id, false, now, &cfg); }
                    1 => { s.observe(&id, now, &cfg); }
                    2 => { s.forget(&id); }
                    _ => { s.reset(&id, 0.1, now, &cfg); }
                }).unwrap();
                match op {
                    0 => { state.warm(&id, false, now, &cfg); }
                    1 => { state.observe(&id, now, &cfg); }
                    2 => { state.forget(&id); }
                    _ => { state.reset(&id, 0.1, now, &cfg); }
                }
                if fold_at.contains(&i) {
                    UsageStore::fold(dir.path()).unwrap();
                }
            }
            let (store, reset) = UsageStore::open(dir.path()).unwrap();
            proptest::prop_assert!(reset.is_none());
            let lazy = store.state();
            for (id, u) in state.iter() {
                eager.insert(id.to_owned(), u);
            }
            for n in 0..12 {
                let id = format!("id-{n:02}");
                proptest::prop_assert_eq!(lazy.get(&id), eager.get(&id).copied());
            }
            let all: BTreeMap<String, MemoryUsage> =
                lazy.iter().map(|(id, u)| (id.to_owned(), u)).collect();
            proptest::prop_assert_eq!(&all, &eager);
            proptest::prop_assert_eq!(lazy.len(), eager.len());
            proptest::prop_assert_eq!(lazy.activity_days(), state.activity_days());
        }
    }

    #[test]
    fn update_fails_with_the_path_when_the_vault_is_missing() {
        let dir = vault();
        let missing = dir.path().join("nope");
        let err = UsageStore::update(&missing, |s| s.len()).unwrap_err();
        let LifecycleError::Io(e) = &err else { panic!("{err:?}") };
        assert_eq!(e.path, missing, "the missing vault folder is named");
        assert!(!missing.exists());
    }

    #[test]
    fn concurrent_updates_lose_no_increments() {
        let dir = vault();
        let cfg = LifecycleConfig::default();
        let now = ts("2026-01-10T10:00:00Z");
        let (threads, rounds) = (8, 25);
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    for _ in 0..rounds {
                        // Each update opens its own lock file handle, like another process.
                        UsageStore::update(dir.path(), |s| s.warm("shared-memo", false, now, &cfg))
                            .unwrap();
                    }
                });
            }
        });
        let (store, reset) = UsageStore::open(dir.path()).unwrap();
        assert!(reset.is_none());
        let usage = store.state().get("shared-memo").unwrap();
        assert_eq!(usage.access_count, threads * rounds);
        assert_eq!(usage.temperature, 1.0);
    }

    #[test]
    fn importance_inputs_from_usage() {
        let cfg = LifecycleConfig::default();
        let mut state = UsageState::new();
        // Used on the 1st, 2nd, 5th and 6th; created on the 1st, read on the 2nd.
        for day in ["2026-01-01", "2026-01-05", "2026-01-06"] {
            state.touch_day(ts(&format!("{day}T08:00:00Z")));
        }
        state.warm("m", false, ts("2026-01-02T09:00:00Z"), &cfg);
        let created = ts("2026-01-01T12:00:00Z");
        let now = ts("2026-01-06T12:00:00Z");

        let activity = state.importance_inputs("m", created, now, ClockKind::Activity);
        assert_eq!(activity.access_count, 1);
        assert_eq!(activity.age_days, 3.0); // the 2nd, 5th, 6th
        assert_eq!(activity.days_since_last_access, 2.0); // the 5th, 6th
        assert_eq!(activity.activity_days_since_access, 2.0);
        assert_eq!(activity.inbound_links, 0);

        let calendar = state.importance_inputs("m", created, now, ClockKind::Calendar);
        assert_eq!(calendar.age_days, 5.0);
        assert!((calendar.days_since_last_access - (4.0 + 3.0 / 24.0)).abs() < 1e-9);

        // Never accessed: the time since access is the age.
        let unknown = state.importance_inputs("other", created, now, ClockKind::Activity);
        assert_eq!((unknown.access_count, unknown.days_since_last_access), (0, 3.0));
    }

    #[test]
    fn forget_and_retain() {
        let cfg = LifecycleConfig::default();
        let now = ts("2026-01-10T10:00:00Z");
        let mut state = UsageState::new();
        for id in ["a", "b", "c"] {
            assert!(state.observe(id, now, &cfg));
        }
        assert!(!state.observe("a", now, &cfg));
        assert!(state.forget("a").is_some());
        assert_eq!(state.retain(|id| id != "b"), 1);
        assert_eq!(state.iter().map(|(id, _)| id).collect::<Vec<_>>(), ["c"]);
    }
}
