//! The usage state file `.memories/state/usage.json` and its locking.
//!
//! Per memory id (ids survive renames, names do not): temperature, access counters and the
//! cold-notification flags ([`MemoryUsage`]); vault-wide: the activity days ([`ActivityDays`]).
//! The file is derived, per-user and git-ignored. A missing file is an empty state; a corrupt or
//! unreadable one is reported ([`StateReset`]) and replaced by an empty state on the next save:
//! it costs usage history, never a memory.
//!
//! Writes are atomic (temp file, fsync, rename), so a reader never sees half a file and needs no
//! lock. Writers serialise on an OS lock on `state/usage.lock` ([`UsageStore::update`] holds it
//! around the whole read-modify-write), so two processes warming memories at the same time lose
//! no increments. The lock file is never removed; the OS releases the lock when its holder
//! exits, even on a crash.
//!
//! Format (`version` 1; unknown fields are ignored, missing ones take their defaults):
//!
//! ```json
//! { "version": 1,
//!   "activity_days": ["2026-01-10", "2026-01-12"],
//!   "memories": { "3kTqZ9pLx2A": { "temperature": 0.65, "updated_at": 1768212600,
//!     "access_count": 1, "last_access": 1768212600, "first_seen": 1768039200,
//!     "activity_days_at_last_access": 2, "announced_cold": false, "last_announced": null } } }
//! ```
//!
//! All instants are Unix seconds (UTC).

use std::collections::BTreeMap;
use std::fmt;
use std::fs::File;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::LifecycleError;
use super::clock::{ActivityDays, age_days};
use super::importance::ImportanceInputs;
use crate::config::{ClockKind, LifecycleConfig};
use crate::error::{IoResultExt, PathError};

/// The folder under the vault root that holds per-user derived state.
pub const STATE_DIR: &str = "state";
/// The usage state file, inside [`STATE_DIR`].
pub const USAGE_FILE: &str = "usage.json";
/// The lock file writers hold, inside [`STATE_DIR`].
pub const LOCK_FILE: &str = "usage.lock";
/// The format version this build writes and reads.
const FORMAT_VERSION: u32 = 1;

/// What the state knows about one memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
/// Methods that change temperatures live next to the temperature rules (`temperature.rs`); the
/// ones here are bookkeeping.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UsageState {
    pub(super) activity_days: ActivityDays,
    pub(super) memories: BTreeMap<String, MemoryUsage>,
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

    /// What is known about memory `id`.
    pub fn get(&self, id: &str) -> Option<&MemoryUsage> {
        self.memories.get(id)
    }

    /// Every tracked memory, by id.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &MemoryUsage)> {
        self.memories.iter().map(|(id, u)| (id.as_str(), u))
    }

    /// The number of tracked memories.
    pub fn len(&self) -> usize {
        self.memories.len()
    }

    /// Whether no memory is tracked.
    pub fn is_empty(&self) -> bool {
        self.memories.is_empty()
    }

    /// Starts tracking `id` at the start temperature, cooling from `now`, unless it is tracked
    /// already; returns whether it was new. Call it when a memory is created; the cold check
    /// observes every memory it is given, so a memory that is never read still goes cold.
    pub fn observe(&mut self, id: &str, now: Timestamp, cfg: &LifecycleConfig) -> bool {
        if self.memories.contains_key(id) {
            return false;
        }
        self.memories.insert(id.to_owned(), MemoryUsage::new(now.as_second(), cfg));
        true
    }

    /// The entry of `id`, created at `now` if missing.
    pub(super) fn entry(
        &mut self,
        id: &str,
        now: Timestamp,
        cfg: &LifecycleConfig,
    ) -> &mut MemoryUsage {
        self.memories.entry(id.to_owned()).or_insert_with(|| MemoryUsage::new(now.as_second(), cfg))
    }

    /// Stops tracking `id` (for memories gone for good, e.g. after `trash empty`).
    pub fn forget(&mut self, id: &str) -> Option<MemoryUsage> {
        self.memories.remove(id)
    }

    /// Keeps only the memories for which `keep(id)` is true; returns how many were dropped.
    /// `maintain` uses it to drop the usage of memories that no longer exist, in the vault or
    /// its trash.
    pub fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) -> usize {
        let before = self.memories.len();
        self.memories.retain(|id, _| keep(id));
        before - self.memories.len()
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
        let usage = self.memories.get(id);
        let since_access = match usage {
            Some(MemoryUsage { activity_days_at_last_access: Some(at), .. })
                if clock == ClockKind::Activity =>
            {
                days.count_through(now).saturating_sub(*at) as f64
            }
            Some(MemoryUsage { last_access: Some(last), .. }) => {
                match Timestamp::from_second(*last) {
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
}

/// The usage state file was corrupt or unreadable and the state starts empty. A warning for the
/// user, not an error: memories are untouched, only usage history is lost.
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

/// The on-disk shape of [`UsageState`].
#[derive(Serialize, Deserialize)]
struct Disk {
    version: u32,
    #[serde(default)]
    activity_days: ActivityDays,
    #[serde(default)]
    memories: BTreeMap<String, MemoryUsage>,
}

/// The usage state of one vault, loaded from and saved to `state/usage.json`.
#[derive(Debug, Clone)]
pub struct UsageStore {
    path: PathBuf,
    state: UsageState,
}

impl UsageStore {
    /// The usage file of the vault at `vault_root` (the `.memories` folder).
    pub fn file_path(vault_root: &Path) -> PathBuf {
        vault_root.join(STATE_DIR).join(USAGE_FILE)
    }

    /// Loads the usage state of the vault at `vault_root` without locking (writes are atomic).
    ///
    /// A missing file is an empty state. A corrupt or unreadable file gives an empty state and a
    /// [`StateReset`] to show the user; the next save replaces the file. Use
    /// [`UsageStore::update`] instead when changes must not race with other processes.
    pub fn open(vault_root: &Path) -> Result<(UsageStore, Option<StateReset>), LifecycleError> {
        let path = UsageStore::file_path(vault_root);
        let (state, _, reset) = read(&path);
        Ok((UsageStore { path, state }, reset))
    }

    /// Reads, changes and saves the state of the vault at `vault_root` under the state lock, so
    /// that concurrent updates from several processes all count. Returns what `change`
    /// returned, and the reset warning if the file was corrupt. The file is not rewritten when
    /// `change` left the state as it was.
    pub fn update<R>(
        vault_root: &Path,
        change: impl FnOnce(&mut UsageState) -> R,
    ) -> Result<(R, Option<StateReset>), LifecycleError> {
        let _lock = StateLock::acquire(vault_root)?;
        let path = UsageStore::file_path(vault_root);
        let (mut state, before, reset) = read(&path);
        let out = change(&mut state);
        let bytes = encode(&state, &path)?;
        if before.as_deref() != Some(bytes.as_slice()) {
            crate::failpoint::step("usage.write").at("write", &path)?;
            vault_fs(vault_root)?.write(&path, &bytes)?;
        }
        Ok((out, reset))
    }

    /// Saves this state atomically, replacing whatever the file holds (last writer wins; use
    /// [`UsageStore::update`] for read-modify-write). Holds the state lock while writing.
    pub fn save(&self) -> Result<(), LifecycleError> {
        let root = self.path.parent().and_then(Path::parent).unwrap_or(Path::new("."));
        let _lock = StateLock::acquire(root)?;
        vault_fs(root)?.write(&self.path, &encode(&self.state, &self.path)?)?;
        Ok(())
    }

    /// The state file.
    pub fn path(&self) -> &Path {
        &self.path
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

/// Reads the state file: the state, the bytes read (to skip rewriting an unchanged file) and a
/// reset warning when the file could not be used.
fn read(path: &Path) -> (UsageState, Option<Vec<u8>>, Option<StateReset>) {
    let reset = |problem: String| {
        tracing::warn!(path = %path.display(), %problem, "usage state reset");
        (UsageState::default(), None, Some(StateReset { path: path.to_owned(), problem }))
    };
    // Beneath the vault root: never through a link, at `state/` or at the file.
    let root = path.parent().and_then(Path::parent).unwrap_or(Path::new("."));
    let bytes = match vault_fs(root).and_then(|fs| fs.read(path)) {
        Ok(bytes) => bytes,
        Err(e) if e.source.kind() == ErrorKind::NotFound => {
            return (UsageState::default(), None, None);
        }
        Err(e) => return reset(format!("cannot read it: {e}")),
    };
    let disk: Disk = match serde_json::from_slice(&bytes) {
        Ok(disk) => disk,
        Err(e) => return reset(format!("not valid usage state: {e}")),
    };
    if disk.version != FORMAT_VERSION {
        return reset(format!(
            "format version {} is not {FORMAT_VERSION}, the one this memlane reads",
            disk.version
        ));
    }
    let mut memories = disk.memories;
    for usage in memories.values_mut() {
        usage.sanitize();
    }
    (UsageState { activity_days: disk.activity_days, memories }, Some(bytes), None)
}

fn encode(state: &UsageState, path: &Path) -> Result<Vec<u8>, LifecycleError> {
    #[derive(Serialize)]
    struct DiskRef<'a> {
        version: u32,
        activity_days: &'a ActivityDays,
        memories: &'a BTreeMap<String, MemoryUsage>,
    }
    let disk = DiskRef {
        version: FORMAT_VERSION,
        activity_days: &state.activity_days,
        memories: &state.memories,
    };
    let mut bytes = serde_json::to_vec_pretty(&disk)
        .map_err(|source| LifecycleError::Encode { path: path.to_owned(), source })?;
    bytes.push(b'\n');
    Ok(bytes)
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
        assert_eq!(store.path(), dir.path().join("state").join("usage.json"));
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
        let text = std::fs::read_to_string(store.path()).unwrap();
        assert!(text.contains("\"version\": 1"), "{text}");
        assert!(text.contains("\"2026-01-10\""), "{text}");
        assert!(text.contains("\"access_count\": 1"), "{text}");
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
            UsageStore::file_path(dir.path()),
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
    fn update_skips_the_write_when_nothing_changed() {
        use std::os::unix::fs::MetadataExt;

        let dir = vault();
        let file = UsageStore::file_path(dir.path());
        let inode = || std::fs::metadata(&file).unwrap().ino();
        let day = ts("2026-01-10T10:00:00Z");
        let (new_day, _) = UsageStore::update(dir.path(), |s| s.touch_day(day)).unwrap();
        assert!(new_day);
        let first = inode();
        // An atomic write renames a new file into place; no write keeps the inode.
        let (new_day, _) = UsageStore::update(dir.path(), |s| s.touch_day(day)).unwrap();
        assert!(!new_day);
        assert_eq!(inode(), first);
        UsageStore::update(dir.path(), |s| s.touch_day(ts("2026-01-11T10:00:00Z"))).unwrap();
        assert_ne!(inode(), first);
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
