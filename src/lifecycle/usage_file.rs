//! The bytes of the usage state's two files, `state/usage.bin` (the base) and
//! `state/usage.journal` (the changes since); see the module docs of `state.rs` for the rules
//! that tie them together.
//!
//! The base is a JSON header line followed by one fixed-width record per memory, sorted by id.
//! A record is [`FIELDS`] bytes of numbers (little-endian: temperature as f64 bits,
//! `updated_at`, `access_count`, `last_access`, `first_seen`, `activity_days_at_last_access`,
//! `last_announced`, then one byte of flags: 1 has `last_access`, 2 has
//! `activity_days_at_last_access`, 4 `announced_cold`, 8 has `last_announced`), the id's length
//! (u16) and the id (UTF-8), padded with zeros to the header's `id_width`. The header's
//! `checksum` is an xxh3 of everything after the header line.
//!
//! The journal is [`JOURNAL_MAGIC`] and its generation (u64), then records: the payload's length
//! (u32), the low 32 bits of its xxh3 (u32), and the payload: a kind byte ([`K_SET`]: the
//! memory's [`FIELDS`] and its id; [`K_FORGET`]: the id; [`K_DAY`]: an activity day,
//! `YYYY-MM-DD`). A record whose length runs past the end or whose checksum does not match ends
//! the journal there: it is a write that a crash cut short.

use jiff::civil::Date;
use serde::{Deserialize, Serialize};

use super::clock::ActivityDays;
use super::state::MemoryUsage;

/// The base file, inside the state folder.
pub const BASE_FILE: &str = "usage.bin";
/// The journal file, inside the state folder.
pub const JOURNAL_FILE: &str = "usage.journal";
/// The base format this build writes and reads.
const BASE_FORMAT: u32 = 2;
/// The first bytes of a journal (the format is in them).
pub(super) const JOURNAL_MAGIC: &[u8; 8] = b"mlusej1\n";
/// The journal's magic and generation.
pub(super) const JOURNAL_HEADER: usize = 16;
/// A journal payload longer than this is not one memlane wrote.
const MAX_PAYLOAD: usize = 1 << 16;

/// Bytes of numbers in a record.
pub(super) const FIELDS: usize = 57;
const R_TEMP: usize = 0;
const R_UPDATED: usize = 8;
const R_COUNT: usize = 16;
const R_LAST: usize = 24;
const R_FIRST: usize = 32;
const R_DAYS: usize = 40;
const R_ANNOUNCED: usize = 48;
const R_FLAGS: usize = 56;
const R_ID_LEN: usize = FIELDS;
const R_ID: usize = FIELDS + 2;
const FL_LAST: u8 = 1;
const FL_DAYS: u8 = 2;
const FL_COLD: u8 = 4;
const FL_ANNOUNCED: u8 = 8;

/// Journal record kinds.
pub(super) const K_SET: u8 = 1;
pub(super) const K_FORGET: u8 = 2;
pub(super) const K_DAY: u8 = 3;

/// Which journal a base already holds: every record of generation `generation` up to byte
/// `length` is in it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Folded {
    pub generation: u64,
    pub length: u64,
}

#[derive(Serialize, Deserialize)]
struct Header {
    format: u32,
    entries: usize,
    id_width: usize,
    /// xxh3 of everything after the header line, in hex.
    checksum: String,
    #[serde(default)]
    activity_days: ActivityDays,
    journal: Folded,
}

fn encode_fields(u: &MemoryUsage, out: &mut Vec<u8>) {
    let mut flags = 0;
    let mut opt = |v: Option<i64>, flag: u8| match v {
        Some(v) => {
            flags |= flag;
            v
        }
        None => 0,
    };
    let last = opt(u.last_access, FL_LAST);
    let days = opt(u.activity_days_at_last_access.map(|d| d as i64), FL_DAYS);
    let announced = opt(u.last_announced, FL_ANNOUNCED);
    if u.announced_cold {
        flags |= FL_COLD;
    }
    out.extend_from_slice(&u.temperature.to_bits().to_le_bytes());
    out.extend_from_slice(&u.updated_at.to_le_bytes());
    out.extend_from_slice(&u.access_count.to_le_bytes());
    out.extend_from_slice(&last.to_le_bytes());
    out.extend_from_slice(&u.first_seen.to_le_bytes());
    out.extend_from_slice(&days.to_le_bytes());
    out.extend_from_slice(&announced.to_le_bytes());
    out.push(flags);
}

/// The usage in the first [`FIELDS`] bytes of `b` (a temperature outside [0, 1] clamped).
fn decode_fields(b: &[u8]) -> MemoryUsage {
    let word = |at: usize| {
        let mut w = [0; 8];
        w.copy_from_slice(&b[at..at + 8]);
        w
    };
    let i = |at: usize| i64::from_le_bytes(word(at));
    let flags = b[R_FLAGS];
    let temperature = f64::from_bits(u64::from_le_bytes(word(R_TEMP)));
    MemoryUsage {
        temperature: if temperature.is_nan() { 0.0 } else { temperature.clamp(0.0, 1.0) },
        updated_at: i(R_UPDATED),
        access_count: u64::from_le_bytes(word(R_COUNT)),
        last_access: (flags & FL_LAST != 0).then(|| i(R_LAST)),
        first_seen: i(R_FIRST),
        activity_days_at_last_access: (flags & FL_DAYS != 0)
            .then(|| u64::from_le_bytes(word(R_DAYS))),
        announced_cold: flags & FL_COLD != 0,
        last_announced: (flags & FL_ANNOUNCED != 0).then(|| i(R_ANNOUNCED)),
    }
}

/// The records of a base file, checked and kept as read; a record is decoded when asked for.
pub struct Base {
    bytes: Vec<u8>,
    /// Where the records start.
    start: usize,
    n: usize,
    /// Bytes per record.
    width: usize,
}

impl std::fmt::Debug for Base {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Base").field("records", &self.n).finish()
    }
}

impl Base {
    /// The records, activity days and folded journal of a base file's `bytes`; what is wrong
    /// with them when they are not a base of this format, the checksum does not match, or a
    /// record is out of bounds or order.
    pub(super) fn parse(bytes: Vec<u8>) -> Result<(Base, ActivityDays, Folded), String> {
        let newline =
            bytes.iter().position(|b| *b == b'\n').ok_or("it has no header line".to_owned())?;
        let header: Header = serde_json::from_slice(&bytes[..newline])
            .map_err(|e| format!("its header is not valid: {e}"))?;
        if header.format != BASE_FORMAT {
            return Err(format!(
                "format {} is not {BASE_FORMAT}, the one this memlane reads",
                header.format
            ));
        }
        let start = newline + 1;
        let width = header.id_width.checked_add(R_ID).ok_or("bad id width")?;
        let end = header.entries.checked_mul(width).and_then(|l| l.checked_add(start));
        if end != Some(bytes.len()) {
            return Err("its length does not match its header (cut short?)".to_owned());
        }
        let sum = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes[start..]));
        if sum != header.checksum {
            return Err("its checksum does not match".to_owned());
        }
        let base = Base { bytes, start, n: header.entries, width };
        let mut previous: Option<&str> = None;
        for i in 0..base.n {
            let id = base.raw_id(i).ok_or("a record's id is out of bounds")?;
            let id = std::str::from_utf8(id).map_err(|_| "a record's id is not UTF-8")?;
            if previous.is_some_and(|p| p >= id) {
                return Err("its records are out of order".to_owned());
            }
            previous = Some(id);
        }
        Ok((base, header.activity_days, header.journal))
    }

    /// The bytes of a base file holding `entries` (sorted by id, unique), `days` and `folded`.
    pub(super) fn encode(
        entries: &[(&str, MemoryUsage)],
        days: &ActivityDays,
        folded: Folded,
    ) -> Vec<u8> {
        let id_width = entries.iter().map(|(id, _)| id.len()).max().unwrap_or(0);
        let mut records = Vec::with_capacity(entries.len() * (R_ID + id_width));
        for (id, u) in entries {
            encode_fields(u, &mut records);
            records.extend_from_slice(&(id.len() as u16).to_le_bytes());
            records.extend_from_slice(id.as_bytes());
            records.resize(records.len() + id_width - id.len(), 0);
        }
        let header = Header {
            format: BASE_FORMAT,
            entries: entries.len(),
            id_width,
            checksum: format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&records)),
            activity_days: days.clone(),
            journal: folded,
        };
        let mut out = serde_json::to_vec(&header).expect("a header always serialises");
        out.push(b'\n');
        out.extend_from_slice(&records);
        out
    }

    /// The number of records.
    pub(super) fn len(&self) -> usize {
        self.n
    }

    fn record(&self, i: usize) -> &[u8] {
        let at = self.start + i * self.width;
        &self.bytes[at..at + self.width]
    }

    fn raw_id(&self, i: usize) -> Option<&[u8]> {
        let r = self.record(i);
        let len = u16::from_le_bytes([r[R_ID_LEN], r[R_ID_LEN + 1]]) as usize;
        r.get(R_ID..R_ID + len)
    }

    /// The id of record `i` (checked when the file was read).
    pub(super) fn id(&self, i: usize) -> &str {
        self.raw_id(i).and_then(|b| std::str::from_utf8(b).ok()).unwrap_or("")
    }

    /// Record `i`, decoded.
    pub(super) fn usage(&self, i: usize) -> MemoryUsage {
        decode_fields(self.record(i))
    }

    /// The position of `id`'s record: a binary search.
    pub(super) fn find(&self, id: &str) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.id(mid).cmp(id) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }
}

/// One change in the journal.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Change {
    /// The memory's usage is now this.
    Set(String, MemoryUsage),
    /// The memory is no longer tracked.
    Forget(String),
    /// The day is an activity day.
    Day(Date),
}

impl Change {
    /// Appends this change's journal record to `out`.
    pub(super) fn encode(&self, out: &mut Vec<u8>) {
        let mut payload = Vec::with_capacity(1 + FIELDS + 16);
        match self {
            Change::Set(id, u) => {
                payload.push(K_SET);
                encode_fields(u, &mut payload);
                payload.extend_from_slice(id.as_bytes());
            }
            Change::Forget(id) => {
                payload.push(K_FORGET);
                payload.extend_from_slice(id.as_bytes());
            }
            Change::Day(d) => {
                payload.push(K_DAY);
                payload.extend_from_slice(d.to_string().as_bytes());
            }
        }
        out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        out.extend_from_slice(&(xxhash_rust::xxh3::xxh3_64(&payload) as u32).to_le_bytes());
        out.extend_from_slice(&payload);
    }

    fn decode(payload: &[u8]) -> Option<Change> {
        let (&kind, rest) = payload.split_first()?;
        match kind {
            K_SET if rest.len() >= FIELDS => {
                let id = std::str::from_utf8(&rest[FIELDS..]).ok()?;
                Some(Change::Set(id.to_owned(), decode_fields(rest)))
            }
            K_FORGET => Some(Change::Forget(std::str::from_utf8(rest).ok()?.to_owned())),
            K_DAY => Some(Change::Day(std::str::from_utf8(rest).ok()?.parse().ok()?)),
            _ => None,
        }
    }
}

/// The journal header for `generation`.
pub(super) fn journal_header(generation: u64) -> Vec<u8> {
    let mut out = JOURNAL_MAGIC.to_vec();
    out.extend_from_slice(&generation.to_le_bytes());
    out
}

/// A journal as read.
#[derive(Debug)]
pub(super) struct Journal {
    pub generation: u64,
    /// Each whole record: where it starts, and the change.
    pub changes: Vec<(u64, Change)>,
    /// Where the whole records end (a torn tail, if any, starts there).
    pub valid_len: u64,
    /// The bytes read.
    pub len: u64,
}

impl Journal {
    /// The journal in `bytes`; `None` when its header is not one memlane writes.
    pub(super) fn parse(bytes: &[u8]) -> Option<Journal> {
        if bytes.len() < JOURNAL_HEADER || &bytes[..8] != JOURNAL_MAGIC {
            return None;
        }
        let mut generation = [0; 8];
        generation.copy_from_slice(&bytes[8..16]);
        let mut at = JOURNAL_HEADER;
        let mut changes = Vec::new();
        while let Some(head) = bytes.get(at..at + 8) {
            let len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize;
            let sum = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
            if len > MAX_PAYLOAD {
                break;
            }
            let Some(payload) = bytes.get(at + 8..at + 8 + len) else { break };
            if xxhash_rust::xxh3::xxh3_64(payload) as u32 != sum {
                break;
            }
            let Some(change) = Change::decode(payload) else { break };
            changes.push((at as u64, change));
            at += 8 + len;
        }
        Some(Journal {
            generation: u64::from_le_bytes(generation),
            changes,
            valid_len: at as u64,
            len: bytes.len() as u64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(seed: u64) -> MemoryUsage {
        MemoryUsage {
            temperature: (seed % 100) as f64 / 100.0,
            updated_at: seed as i64 * 7 - 3,
            access_count: seed * 3,
            last_access: seed.is_multiple_of(2).then_some(seed as i64),
            first_seen: -(seed as i64),
            activity_days_at_last_access: seed.is_multiple_of(3).then_some(seed / 2),
            announced_cold: seed.is_multiple_of(5),
            last_announced: seed.is_multiple_of(7).then_some(seed as i64 * 11),
        }
    }

    #[test]
    fn a_base_round_trips_and_finds_every_id() {
        let ids = ["0abc", "3kTqZ9pLx2A", "a", "zz-long-id-é"];
        let entries: Vec<(&str, MemoryUsage)> =
            ids.iter().enumerate().map(|(i, id)| (*id, usage(i as u64 * 13 + 1))).collect();
        let mut days = ActivityDays::new();
        days.insert_date("2026-01-10".parse().unwrap());
        let folded = Folded { generation: 4, length: 99 };
        let (base, d, f) = Base::parse(Base::encode(&entries, &days, folded)).unwrap();
        assert_eq!((d, f), (days, folded));
        assert_eq!(base.len(), ids.len());
        for (i, (id, u)) in entries.iter().enumerate() {
            assert_eq!(base.find(id), Some(i));
            assert_eq!(base.usage(i), *u);
        }
        assert_eq!(base.find("b"), None);
    }

    #[test]
    fn a_damaged_base_says_what_is_wrong() {
        let entries = [("a", usage(1)), ("b", usage(2))];
        let good = Base::encode(&entries, &ActivityDays::new(), Folded::default());
        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() ^= 1;
        let cut = good[..good.len() - 1].to_vec();
        for (bad, what) in [(flipped, "checksum"), (cut, "length"), (b"{}".to_vec(), "header")] {
            let err = Base::parse(bad).unwrap_err();
            assert!(err.contains(what), "{err}");
        }
    }

    #[test]
    fn a_torn_journal_tail_is_left_out() {
        let mut bytes = journal_header(3);
        let changes = [
            Change::Set("a".into(), usage(4)),
            Change::Day("2026-01-11".parse().unwrap()),
            Change::Forget("b".into()),
        ];
        for c in &changes {
            c.encode(&mut bytes);
        }
        let whole = bytes.len() as u64;
        for cut in JOURNAL_HEADER..bytes.len() {
            let j = Journal::parse(&bytes[..cut]).unwrap();
            assert_eq!(j.generation, 3);
            assert!(j.valid_len <= cut as u64);
            let got: Vec<&Change> = j.changes.iter().map(|(_, c)| c).collect();
            assert_eq!(got, changes.iter().take(got.len()).collect::<Vec<_>>(), "cut at {cut}");
        }
        let j = Journal::parse(&bytes).unwrap();
        assert_eq!((j.changes.len(), j.valid_len), (3, whole));
        // A flipped byte in the last record ends the journal before it.
        let mut flipped = bytes.clone();
        *flipped.last_mut().unwrap() ^= 0x20;
        assert_eq!(Journal::parse(&flipped).unwrap().changes.len(), 2);
        assert!(Journal::parse(b"not a journal at all").is_none());
    }
}
