//! `TestEnv`: a temp dir with a copy of a fixture vault and a `memlane` runner whose output is
//! normalised (temp paths → `[ROOT]`, random ids → `[ID]`) for snapshots.

#![allow(dead_code)]

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

/// Every test runs with this pinned "now" so timestamps are reproducible.
pub const NOW: &str = "2026-01-10T10:00:00Z";

pub struct TestEnv {
    _tmp: TempDir,
    pub root: PathBuf,
    now: Option<String>,
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    let fixed = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_767_225_600); // 2026-01-01
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
            let f = std::fs::File::options().write(true).open(&dest).unwrap();
            f.set_modified(fixed).unwrap();
        }
    }
}

impl TestEnv {
    /// An environment with no vault yet (`root/vault` does not exist).
    pub fn empty() -> TestEnv {
        let tmp = tempfile::Builder::new().prefix("memlane-test").tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("home/tmp")).unwrap();
        TestEnv { _tmp: tmp, root, now: Some(NOW.to_owned()) }
    }

    /// An environment whose `root/vault` is a copy of `fixtures/vaults/<name>`.
    pub fn with_vault(name: &str) -> TestEnv {
        let env = TestEnv::empty();
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vaults").join(name);
        copy_dir(&src, &env.vault());
        env
    }

    pub fn vault(&self) -> PathBuf {
        self.root.join("vault")
    }

    /// Changes the pinned clock for later runs.
    pub fn set_now(&mut self, now: &str) {
        self.now = Some(now.to_owned());
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.vault().join(rel))
            .unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    pub fn write(&self, rel: &str, text: &str) {
        let p = self.vault().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.vault().join(rel).exists()
    }

    /// Every file under the vault (relative paths, sorted), for "nothing was written" checks.
    pub fn files(&self) -> Vec<String> {
        let mut out = Vec::new();
        fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
            let Ok(rd) = std::fs::read_dir(dir) else { return };
            for e in rd {
                let e = e.unwrap();
                if e.file_type().unwrap().is_dir() {
                    walk(&e.path(), base, out);
                } else {
                    out.push(
                        e.path().strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/"),
                    );
                }
            }
        }
        walk(&self.vault(), &self.vault(), &mut out);
        out.sort();
        out
    }

    /// A snapshot of every file's bytes under the vault.
    pub fn contents(&self) -> Vec<(String, Vec<u8>)> {
        self.files()
            .into_iter()
            .map(|f| {
                let b = std::fs::read(self.vault().join(&f)).unwrap();
                (f, b)
            })
            .collect()
    }

    pub fn command(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin!("memlane"));
        cmd.env_clear()
            // Temporary files (an `edit` that fails keeps the user's text there) stay in the
            // test's folder, never in the machine's /tmp.
            .env("TMPDIR", self.root.join("home/tmp"))
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.root.join("home"))
            .env("XDG_CONFIG_HOME", self.root.join("home/.config"))
            .env("XDG_DATA_HOME", self.root.join("home/.local/share"))
            .env("NO_COLOR", "1")
            .env("COLUMNS", "100")
            .env("MEMLANE_VAULT", self.vault())
            .current_dir(&self.root);
        if let Some(now) = &self.now {
            cmd.env("MEMLANE_NOW", now);
        }
        cmd
    }

    #[must_use = "snapshot the output or call .success()"]
    pub fn run<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(&self, args: I) -> CommandOutput {
        let mut cmd = self.command();
        cmd.args(args);
        CommandOutput::new(cmd.output().unwrap(), &self.root)
    }

    /// Like [`run`](Self::run), with extra environment variables.
    #[must_use = "snapshot the output or call .success()"]
    pub fn run_with_env<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(
        &self,
        vars: &[(&str, &str)],
        args: I,
    ) -> CommandOutput {
        let mut cmd = self.command();
        cmd.envs(vars.iter().copied()).args(args);
        CommandOutput::new(cmd.output().unwrap(), &self.root)
    }

    /// Like [`run`](Self::run) (with debug logs), its check of the memory files held for 1.5 s
    /// while the indices open: a search has answered on the indices as they were by then, and
    /// that answer stands only when the check finds nothing changed.
    #[must_use = "snapshot the output or call .success()"]
    pub fn run_with_the_check_held(&self, args: &[&str]) -> CommandOutput {
        let go = self.root.join("go");
        let hold = format!("vault.walk@{}", go.display());
        let child = self
            .command()
            .envs([("MEMLANE_FAILPOINT", hold.as_str()), ("MEMLANE_LOG", "memlane=debug")])
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1500));
        std::fs::write(&go, "").unwrap();
        let out = CommandOutput::new(child.wait_with_output().unwrap(), &self.root);
        std::fs::remove_file(&go).unwrap();
        out
    }

    #[must_use = "snapshot the output or call .success()"]
    pub fn run_stdin<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(
        &self,
        args: I,
        input: &str,
    ) -> CommandOutput {
        use std::io::Write as _;
        let mut cmd = self.command();
        cmd.args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        CommandOutput::new(child.wait_with_output().unwrap(), &self.root)
    }
}

pub struct CommandOutput {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

fn normalize(s: &str, root: &Path) -> String {
    s.replace(&root.display().to_string(), "[ROOT]")
}

/// Sets the mtime of the file at `path` (an edit that keeps it, as `cp -p` or `rsync -t` do).
pub fn set_mtime(path: &Path, mtime: std::time::SystemTime) {
    std::fs::File::options().write(true).open(path).unwrap().set_modified(mtime).unwrap();
}

/// Replaces the random ids memlane generated by `[ID]` (for snapshots).
pub fn redact_ids(s: &str) -> String {
    // Random 11-char base62 ids that memlane generated (fixture ids are kept: they are known).
    let re = regex::Regex::new(r"\b[0-9A-Za-z]{11}\b").unwrap();
    re.replace_all(s, |c: &regex::Captures| {
        let id = &c[0];
        let known = ["3kTqZ9pLx2A", "7Hb2QmXr9Lp", "Q9vX2kLm4Tz", "Zz9Yy8Xx7Ww"];
        let looks_random =
            id.chars().any(|c| c.is_ascii_digit()) && id.chars().any(|c| c.is_ascii_uppercase());
        if known.contains(&id) || !looks_random { id.to_owned() } else { "[ID]".to_owned() }
    })
    .into_owned()
}

impl CommandOutput {
    fn new(out: std::process::Output, root: &Path) -> CommandOutput {
        CommandOutput {
            stdout: normalize(&String::from_utf8_lossy(&out.stdout), root),
            stderr: normalize(&String::from_utf8_lossy(&out.stderr), root),
            code: out.status.code().unwrap_or(-1),
        }
    }

    #[track_caller]
    pub fn success(self) -> CommandOutput {
        assert_eq!(self.code, 0, "command failed:\n{self}");
        self
    }

    #[track_caller]
    pub fn code(self, code: i32) -> CommandOutput {
        assert_eq!(self.code, code, "unexpected exit code:\n{self}");
        self
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{self}"))
    }
}

impl fmt::Display for CommandOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&redact_ids(&self.stdout))?;
        if !self.stderr.is_empty() {
            write!(f, "----- stderr -----\n{}", redact_ids(&self.stderr))?;
        }
        if self.code != 0 {
            writeln!(f, "[exit status: {}]", self.code)?;
        }
        Ok(())
    }
}
