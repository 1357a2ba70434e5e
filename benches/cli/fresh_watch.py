#!/usr/bin/env python3
"""Fresh-process `memlane search` with and without a live watcher, side by side with an older binary.

    python3 benches/cli/fresh_watch.py OLD_BIN NEW_BIN [--n 10000 | --vault PATH] [--rounds 5]

Builds (with `--n`, as `minilm_practice.py` does, built-in embedder) or copies (`--vault`, a
vault already indexed by OLD_BIN: the copy is made with `cp -a`, the original is only read) one
vault, copied once per binary (binaries of different versions must not share indices). Then, in
two phases, runs the 7 queries of `minilm_practice.py` per round (`search QUERY --json
--no-touch`), the binaries interleaved run by run so that they see the same machine state:

1. no watcher: OLD and NEW, each stat-ing every memory file;
2. `NEW watch` running on NEW's vault: OLD, NEW asking the watcher (the default), and NEW with
   `MEMLANE_WATCH__ASK_WAIT_MS=0` (never asks: the full check, with the watcher idle beside it).
   With `--both-watched`, `OLD watch` runs on OLD's vault too, so that OLD's figure is that of
   a search the watcher vouched for, as NEW's.

Prints p50 and p95 of the wall time per case and the ratios of the p50s to OLD's, with the load
average before and after. Each home gets its own TMPDIR, so the watcher's socket is private to
the run.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from side_by_side import model_env  # noqa: E402

QUERIES = ["auth token rotation", "postgres migration rollback", "redis cache latency",
           "deploy pipeline incident", "vector embedding ranking", "backup restore plan",
           "kubernetes node cluster"]


def env(home: Path, extra=None):
    e = {**model_env(), "PATH": os.environ["PATH"], "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
         "XDG_CONFIG_HOME": str(home / "config"), "MEMLANE_VAULT": str(home / "vault"),
         "TMPDIR": str(home / "tmp"), "MEMLANE_NOW": "2026-01-10T10:00:00Z",
         "RAYON_NUM_THREADS": "2"}
    e.update(extra or {})
    return e


def timed(bin_, home, args, extra=None):
    t = time.perf_counter()
    out = subprocess.run([bin_, *args], env=env(home, extra), capture_output=True, text=True)
    dt = (time.perf_counter() - t) * 1e3
    if out.returncode:
        sys.exit(f"{bin_} {args}: {out.stderr}")
    return dt


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))]


def report(title, times, base):
    print(f"\n{title}")
    b50 = pct(times[base], .5)
    for label, xs in times.items():
        p50, p95 = pct(xs, .5), pct(xs, .95)
        print(f"  {label:<28} n={len(xs):<3} p50 {p50:7.1f} ms  p95 {p95:7.1f} ms  "
              f"p50/{base} {p50 / b50:5.2f}")


def run_phase(cases, rounds):
    """cases: label -> (bin, home, extra env). Interleaved per query."""
    times = {label: [] for label in cases}
    for label, (b, h, extra) in cases.items():
        timed(b, h, ["search", "warm up", "--json", "--no-touch"], extra)
    for _ in range(rounds):
        for q in QUERIES:
            for label, (b, h, extra) in cases.items():
                times[label].append(timed(b, h, ["search", q, "--json", "--no-touch"], extra))
    return times


def wait_socket(home: Path, timeout=600):
    start = time.time()
    while time.time() - start < timeout:
        for d in (home / "tmp").glob("memlane-*"):
            if any(d.glob("*.sock")):
                return
        time.sleep(0.1)
    sys.exit("the watcher never listened")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--vault", help="an indexed vault to copy instead of generating one")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--keep", action="store_true", help="keep the temp folder")
    ap.add_argument("--both-watched", action="store_true",
                    help="in phase 2, run OLD's own watcher on OLD's vault as well")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="memlane-fresh-"))
    if args.vault:
        src = Path(args.vault)
    else:
        from minilm_practice import generate  # noqa: E402
        generate(tmp / "src", args.n)
        src = tmp / "src"
    homes = {"old": tmp / "old", "new": tmp / "new"}
    for h in homes.values():
        h.mkdir(parents=True)
        (h / "tmp").mkdir()
        subprocess.run(["cp", "-a", str(src), str(h / "vault")], check=True)
    old, new = args.old, args.new
    # Indexed (or brought up to date) by each binary before anything is timed.
    for label, b in (("old", old), ("new", new)):
        timed(b, homes[label], ["search", "warm up", "--json", "--no-touch"])
    n = sum(1 for _ in (homes["new"] / "vault").rglob("*.md"))
    print(f"{n} memories; load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    t1 = run_phase({"old": (old, homes["old"], None),
                    "new, no watcher": (new, homes["new"], None)}, args.rounds)
    report("phase 1: no watcher", t1, "old")

    watched = [("new", new)] + ([("old", old)] if args.both_watched else [])
    watchers = [subprocess.Popen([b, "watch"], env=env(homes[label]), stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True) for label, b in watched]
    try:
        for label, b in watched:
            wait_socket(homes[label])
            # The start pass hashes every file: wait until the watcher vouches.
            for _ in range(600):
                out = subprocess.run([b, "search", "warm up", "--json", "--no-touch"],
                                     env=env(homes[label], {"MEMLANE_LOG": "memlane=debug",
                                                            "MEMLANE_WATCH__ASK_WAIT_MS": "1000"}),
                                     capture_output=True, text=True)
                if "the watcher vouched for the indices" in out.stderr:
                    break
                time.sleep(1)
        old_label = "old, watcher vouches" if args.both_watched else "old"
        t2 = run_phase({old_label: (old, homes["old"], None),
                        "new, watcher vouches": (new, homes["new"], None),
                        "new, watcher, not asked": (new, homes["new"],
                                                    {"MEMLANE_WATCH__ASK_WAIT_MS": "0"})},
                       args.rounds)
        title = "phase 2: `watch` running on each binary's vault" if args.both_watched \
            else "phase 2: `new watch` running on new's vault"
        report(title, t2, old_label)
    finally:
        for watcher in watchers:
            watcher.kill()
            watcher.wait()
    print(f"\nload after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print(f"kept {tmp}")


if __name__ == "__main__":
    main()
