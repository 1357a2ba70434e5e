//! The floor under a fresh command without a watcher: the system calls of the check of the
//! memory files alone, with nothing else in the process.
//!
//! `MEMLANE_FLOOR_VAULT=DIR cargo bench --bench stat_floor`, DIR a vault's memory folder (a
//! generated benchmark vault). Reads the root folder, then shares its folders out between as
//! many threads as the machine has cores (at most 4, as memlane does); each thread opens its
//! folders relative to the root, lists them and `fstatat`s every entry relative to its folder.
//! No names are checked, kept or sorted. Prints the p50 and p10 of 20 rounds, in milliseconds:
//! set it beside a fresh `memlane search` without a watcher (`benches/cli/fresh_watch.py`) to see
//! how much of that is the kernel's.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::time::Instant;

use rustix::fs::{AtFlags, CWD, Dir, Mode, OFlags, openat, statat};

/// One walk of `root`'s folders on `threads` threads: the number of entries stat-ed.
fn walk(root: &str, threads: usize) -> usize {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NOFOLLOW;
    let root = openat(CWD, root, flags, Mode::empty()).expect("open the vault folder");
    let folders: Vec<Vec<u8>> = Dir::read_from(&root)
        .expect("list the vault folder")
        .filter_map(|e| {
            let e = e.ok()?;
            let name = e.file_name().to_bytes();
            (e.file_type() == rustix::fs::FileType::Directory && !name.starts_with(b"."))
                .then(|| name.to_vec())
        })
        .filter(|n| n.as_slice() != b"indices" && n.as_slice() != b"state")
        .collect();
    std::thread::scope(|s| {
        let parts: Vec<_> = (0..threads)
            .map(|k| {
                let (root, folders) = (&root, &folders);
                s.spawn(move || {
                    let mut n = 0;
                    for name in folders.iter().skip(k).step_by(threads) {
                        let dir = openat(root, name.as_slice(), flags, Mode::empty())
                            .expect("open a folder");
                        for e in Dir::read_from(&dir).expect("list a folder") {
                            let e = e.expect("read a folder");
                            if e.file_name().to_bytes().starts_with(b".") {
                                continue;
                            }
                            let st = statat(&dir, e.file_name(), AtFlags::SYMLINK_NOFOLLOW)
                                .expect("stat a file");
                            std::hint::black_box(st.st_size);
                            n += 1;
                        }
                    }
                    n
                })
            })
            .collect();
        parts.into_iter().map(|h| h.join().expect("a walking thread")).sum()
    })
}

fn main() {
    let Ok(root) = std::env::var("MEMLANE_FLOOR_VAULT") else {
        eprintln!("stat_floor: set MEMLANE_FLOOR_VAULT to a vault's memory folder; skipped");
        return;
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from).clamp(1, 4);
    let files = walk(&root, threads);
    let mut ms: Vec<f64> = (0..20)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(walk(&root, threads));
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    println!(
        "stat floor: {files} files on {threads} threads: p50 {:.1} ms, p10 {:.1} ms (20 rounds)",
        ms[ms.len() / 2],
        ms[ms.len() / 10]
    );
}
