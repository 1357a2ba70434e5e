//! Crash and fault points for tests.
//!
//! Every file-system step of a write calls [`step`] with a name. In debug builds (the builds
//! the tests run), the `MEMLANE_FAILPOINT` environment variable can make a step abort the
//! process (`std::process::abort`, as a `kill -9` would stop it) or fail with an IO error; in
//! release builds [`step`] compiles to nothing.
//!
//! `MEMLANE_FAILPOINT` is a comma-separated list of:
//!
//! - `NAME`: abort at the first step named `NAME`;
//! - `NAME:N`: abort at the `N`th step named `NAME` (1-based);
//! - `*:N`: abort at the `N`th step of any name (the crash-point sweep counts up `N` until the
//!   command finishes);
//! - `NAME=ERROR`: every step named `NAME` fails with `ERROR`: `enospc` (disk full), `erofs`
//!   (read-only file system), `eacces` (permission denied) or `eio`. `NAME` may end in `*` to
//!   match every step it starts;
//! - `NAME@PATH`: every step named `NAME` waits until the file `PATH` exists (a test holds a
//!   process at a step, looks at what it does meanwhile, then lets it go on).
//!
//! With `MEMLANE_FAILPOINT_TRACE` set, each step is printed to stderr (`failpoint N NAME`).

/// Marks a file-system step named `name` (see the module docs). Always `Ok` in release builds.
#[inline]
pub fn step(name: &'static str) -> std::io::Result<()> {
    #[cfg(debug_assertions)]
    {
        imp::step(name)
    }
    #[cfg(not(debug_assertions))]
    {
        let _ = name;
        Ok(())
    }
}

#[cfg(debug_assertions)]
mod imp {
    use std::collections::HashMap;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Mutex, OnceLock};

    enum Spec {
        Abort { name: String, nth: usize },
        Fail { name: String, errno: i32 },
        Hold { name: String, until: std::path::PathBuf },
    }

    fn specs() -> &'static [Spec] {
        static SPECS: OnceLock<Vec<Spec>> = OnceLock::new();
        SPECS.get_or_init(|| {
            let Ok(raw) = std::env::var("MEMLANE_FAILPOINT") else { return Vec::new() };
            raw.split(',')
                .filter(|s| !s.trim().is_empty())
                .filter_map(|s| {
                    let s = s.trim();
                    if let Some((name, until)) = s.split_once('@') {
                        return Some(Spec::Hold { name: name.to_owned(), until: until.into() });
                    }
                    if let Some((name, err)) = s.split_once('=') {
                        let errno = match err {
                            "enospc" => 28,
                            "erofs" => 30,
                            "eacces" => 13,
                            _ => 5,
                        };
                        return Some(Spec::Fail { name: name.to_owned(), errno });
                    }
                    let (name, nth) = match s.rsplit_once(':') {
                        Some((n, k)) => (n, k.parse().ok()?),
                        None => (s, 1),
                    };
                    Some(Spec::Abort { name: name.to_owned(), nth })
                })
                .collect()
        })
    }

    fn matches(pattern: &str, name: &str) -> bool {
        match pattern.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => pattern == name,
        }
    }

    pub(super) fn step(name: &'static str) -> std::io::Result<()> {
        static TOTAL: AtomicUsize = AtomicUsize::new(0);
        static BY_NAME: OnceLock<Mutex<HashMap<&'static str, usize>>> = OnceLock::new();
        let specs = specs();
        let trace = std::env::var_os("MEMLANE_FAILPOINT_TRACE").is_some();
        if specs.is_empty() && !trace {
            return Ok(());
        }
        let total = TOTAL.fetch_add(1, Ordering::SeqCst) + 1;
        let this = {
            let mut counts =
                BY_NAME.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
            let c = counts.entry(name).or_insert(0);
            *c += 1;
            *c
        };
        if trace {
            #[allow(clippy::print_stderr)]
            {
                eprintln!("failpoint {total} {name}");
            }
        }
        for spec in specs {
            match spec {
                Spec::Abort { name: n, nth } => {
                    let hit = if n == "*" { total == *nth } else { n == name && this == *nth };
                    if hit {
                        std::process::abort();
                    }
                }
                Spec::Fail { name: n, errno } if matches(n, name) => {
                    return Err(std::io::Error::from_raw_os_error(*errno));
                }
                Spec::Fail { .. } => {}
                Spec::Hold { name: n, until } if n == name => {
                    while !until.exists() {
                        std::thread::sleep(std::time::Duration::from_millis(10));
                    }
                }
                Spec::Hold { .. } => {}
            }
        }
        Ok(())
    }
}
