//! The per-user key that signs memlane's undo log, and HMAC-SHA256.
//!
//! An interrupted operation's undo log (`state/intents/`, see the `intent` module) is replayed
//! only when it carries a valid HMAC made with this key. The key is 32 random bytes in the
//! user's data dir (`$XDG_DATA_HOME/memlane/intent.key` on Linux), created once, exclusively,
//! with mode 0600, and never inside a vault: a repository cannot hold it, so a repository cannot
//! forge an undo log that memlane would replay.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use sha2::{Digest as _, Sha256};

/// The key file's name in the user's data dir.
pub(crate) const KEY_FILE: &str = "intent.key";

const KEY_LEN: usize = 32;

/// The key that signs and checks undo logs in this process.
#[derive(Clone)]
pub(crate) struct Key {
    bytes: [u8; KEY_LEN],
    /// Why the user's key could not be used, when this process signs with a key of its own (an
    /// undo log it leaves can then not be replayed by another process).
    pub(crate) problem: Option<String>,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Key").field("problem", &self.problem).finish_non_exhaustive()
    }
}

impl Key {
    /// The HMAC of `parts` under this key; each part is length-prefixed, so the boundaries
    /// between parts are signed too.
    pub(crate) fn sign(&self, parts: &[&[u8]]) -> [u8; 32] {
        let mut framed = Vec::new();
        for p in parts {
            framed.extend_from_slice(&(p.len() as u64).to_le_bytes());
            framed.extend_from_slice(p);
        }
        hmac_sha256(&self.bytes, &framed)
    }

    /// Whether `mac` (hex) is the HMAC of `parts`, compared in constant time.
    pub(crate) fn verify(&self, parts: &[&[u8]], mac: &str) -> bool {
        let want = hex(&self.sign(parts));
        want.len() == mac.len()
            && want.bytes().zip(mac.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    }
}

/// This process's key: the user's (loaded, or created on first use), or, when that cannot be
/// read or created, a random key of this process's own with the reason in [`Key::problem`].
pub(crate) fn key() -> &'static Key {
    static KEY: OnceLock<Key> = OnceLock::new();
    KEY.get_or_init(|| {
        // Unit tests never touch the user's data dir.
        #[cfg(test)]
        let loaded: Result<[u8; KEY_LEN], String> = Err("a unit test".to_owned());
        #[cfg(not(test))]
        let loaded = match key_path() {
            Some(path) => load_or_create(&path),
            None => Err("no user data folder is known (set HOME or XDG_DATA_HOME)".to_owned()),
        };
        match loaded {
            Ok(bytes) => Key { bytes, problem: None },
            Err(problem) => {
                let mut bytes = [0u8; KEY_LEN];
                let _ = getrandom::fill(&mut bytes);
                Key { bytes, problem: Some(problem) }
            }
        }
    })
}

/// Where the user's key lives: `<data dir>/memlane/intent.key`.
pub(crate) fn key_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "memlane").map(|d| d.data_dir().join(KEY_FILE))
}

#[cfg_attr(test, allow(dead_code))]
fn load_or_create(path: &Path) -> Result<[u8; KEY_LEN], String> {
    match read_key(path) {
        Ok(k) => return Ok(k),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("{}: {e}", path.display())),
    }
    create_key(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    read_key(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn read_key(path: &Path) -> std::io::Result<[u8; KEY_LEN]> {
    let meta = std::fs::symlink_metadata(path)?;
    let bad = |what: &str| std::io::Error::other(what.to_owned());
    if !meta.file_type().is_file() {
        return Err(bad("it is not a plain file (delete it; memlane makes a new one)"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        if meta.mode() & 0o077 != 0 {
            return Err(bad("other users can read it (run `chmod 600` on it, or delete it)"));
        }
        if current_uid().is_some_and(|me| me != meta.uid()) {
            return Err(bad("it belongs to another user (delete it; memlane makes a new one)"));
        }
    }
    let bytes = std::fs::read(path)?;
    bytes.try_into().map_err(|_| bad("it is damaged (delete it; memlane makes a new one)"))
}

/// Creates the key file exclusively: a private temp file with the whole key, then a hard link
/// to the key's name (which fails when another process made the key first: theirs is kept).
fn create_key(path: &Path) -> std::io::Result<()> {
    use std::io::Write as _;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut key = [0u8; KEY_LEN];
    getrandom::fill(&mut key).map_err(|e| std::io::Error::other(e.to_string()))?;
    let mut rnd = [0u8; 6];
    let _ = getrandom::fill(&mut rnd);
    let tmp = dir.join(format!(".{KEY_FILE}.{}.{}.tmp", std::process::id(), hex(&rnd)));
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        opts.mode(0o600);
    }
    let written = opts.open(&tmp).and_then(|mut f| {
        f.write_all(&key)?;
        f.sync_all()
    });
    let linked = written.and_then(|()| match std::fs::hard_link(&tmp, path) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        other => other,
    });
    let _ = std::fs::remove_file(&tmp);
    linked
}

/// The user this process runs as (Unix): the owner of `/proc/self` where there is one (Linux),
/// else the owner of the user's key file.
#[cfg(unix)]
pub(crate) fn current_uid() -> Option<u32> {
    use std::os::unix::fs::MetadataExt as _;
    if let Ok(meta) = std::fs::metadata("/proc/self") {
        return Some(meta.uid());
    }
    key_path().and_then(|p| std::fs::symlink_metadata(p).ok()).map(|m| m.uid())
}

/// HMAC-SHA256 (RFC 2104) of `data` under `key`.
pub(crate) fn hmac_sha256(key: &[u8], data: &[u8]) -> [u8; 32] {
    const BLOCK: usize = 64;
    let mut k0 = [0u8; BLOCK];
    if key.len() > BLOCK {
        k0[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        k0[..key.len()].copy_from_slice(key);
    }
    let mut ipad = [0x36u8; BLOCK];
    let mut opad = [0x5cu8; BLOCK];
    for i in 0..BLOCK {
        ipad[i] ^= k0[i];
        opad[i] ^= k0[i];
    }
    let mut inner = Sha256::new();
    inner.update(ipad);
    inner.update(data);
    let inner = inner.finalize();
    let mut outer = Sha256::new();
    outer.update(opad);
    outer.update(inner);
    let mut out = [0u8; 32];
    out.copy_from_slice(&outer.finalize());
    out
}

/// The SHA-256 of `bytes`, in hex.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

pub(crate) use crate::disk::hex;

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    /// RFC 4231, test cases 1-4, 6 and 7 (case 5 checks a truncated output).
    #[test]
    fn hmac_sha256_matches_rfc_4231() {
        let long_key = vec![0xaau8; 131];
        let key4: Vec<u8> = (1u8..=25).collect();
        let cases: [(&[u8], &[u8], &str); 6] = [
            (
                &[0x0b; 20],
                b"Hi There",
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
            ),
            (
                b"Jefe",
                b"what do ya want for nothing?",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            ),
            (
                &[0xaa; 20],
                &[0xdd; 50],
                "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
            ),
            (
                &key4,
                &[0xcd; 50],
                "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
            ),
            (
                &long_key,
                b"Test Using Larger Than Block-Size Key - Hash Key First",
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            ),
            (
                &long_key,
                b"This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.",
                "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
            ),
        ];
        for (key, data, want) in cases {
            assert_eq!(hmac_sha256(key, data).to_vec(), unhex(want), "{want}");
        }
    }

    #[test]
    fn a_signature_checks_every_part_and_its_boundaries() {
        let key = Key { bytes: [7; KEY_LEN], problem: None };
        let mac = hex(&key.sign(&[b"vault", b"entry"]));
        assert!(key.verify(&[b"vault", b"entry"], &mac));
        assert!(!key.verify(&[b"vaulte", b"ntry"], &mac), "a boundary moved");
        assert!(!key.verify(&[b"vault", b"entrY"], &mac));
        let other = Key { bytes: [8; KEY_LEN], problem: None };
        assert!(!other.verify(&[b"vault", b"entry"], &mac), "another user's key");
        assert!(!key.verify(&[b"vault", b"entry"], &mac[..10]));
    }

    #[test]
    fn a_key_is_created_once_private_and_read_back() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("memlane").join(KEY_FILE);
        let first = load_or_create(&path).unwrap();
        assert_eq!(load_or_create(&path).unwrap(), first, "the same key on the next use");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
            let err = load_or_create(&path).unwrap_err();
            assert!(err.contains("other users can read it"), "{err}");
        }
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temp file is left");
    }
}
