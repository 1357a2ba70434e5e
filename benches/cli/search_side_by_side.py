#!/usr/bin/env python3
"""Fresh-process `memlane search` of two (or more) binaries, side by side.

    python3 benches/cli/search_side_by_side.py BIN:HOME [BIN:HOME ...] [--rounds 5]

HOME is a folder holding `vault/` and `data/` as `minilm_practice.py` leaves them (each binary on
its own copy: binaries of different versions must not share a vault's indices). For each round
and each of the 7 queries of `minilm_practice.py`, every binary runs `search QUERY --json
--no-touch` once, one after the other, so that both see the same machine state. Prints p50, p75,
p90, min and max of the wall time per binary. With one BIN:HOME it times that binary alone.
"""

import argparse
import os
import subprocess
import time

QUERIES = ["auth token rotation", "postgres migration rollback", "redis cache latency",
           "deploy pipeline incident", "vector embedding ranking", "backup restore plan",
           "kubernetes node cluster"]


def env(home):
    return {"PATH": os.environ["PATH"], "HOME": home, "XDG_DATA_HOME": home + "/data",
            "XDG_CONFIG_HOME": home + "/config", "MEMLANE_VAULT": home + "/vault",
            "MEMLANE_NOW": "2026-01-10T10:00:00Z", "RAYON_NUM_THREADS": "2"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pairs", nargs="+", help="BIN:HOME")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    pairs = [p.split(":", 1) for p in args.pairs]
    times = {b: [] for b, _ in pairs}
    for b, h in pairs:
        subprocess.run([b, "search", "warm up", "--json", "--no-touch"], capture_output=True,
                       env=env(h), check=True)
    for _ in range(args.rounds):
        for q in QUERIES:
            for b, h in pairs:
                t = time.perf_counter()
                subprocess.run([b, "search", q, "--json", "--no-touch"], capture_output=True,
                               env=env(h), check=True)
                times[b].append((time.perf_counter() - t) * 1e3)
    for b, xs in times.items():
        xs.sort()
        n = len(xs)
        print(f"{b}: search n={n} p50 {xs[n // 2]:.1f} p75 {xs[int(n * .75)]:.1f} "
              f"p90 {xs[int(n * .9)]:.1f} min {xs[0]:.1f} max {xs[-1]:.1f} ms")


if __name__ == "__main__":
    main()
