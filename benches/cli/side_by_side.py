#!/usr/bin/env python3
"""`reindex`, fresh `search`, `list` and `add` of two binaries on the same 10k vault, side by side.

    python3 benches/cli/side_by_side.py OLD_BIN NEW_BIN [--n 10000] [--rounds 3]

Generates one vault of N memories (as `minilm_practice.py` does, built-in embedder), copies it
for each binary (binaries of different versions must not share indices), then interleaves the
two binaries run by run so that both see the same machine state: `reindex` (full, fresh
process), fresh-process `search` (7 queries a round, `--no-touch`), `list` (every memory, read
and printed as JSON; 3 a round) and `add` of a new memory.
Prints p50, min and max per binary and the ratio NEW/OLD of the p50s, with the load average.
"""

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from minilm_practice import WORDS, generate  # noqa: E402

QUERIES = ["auth token rotation", "postgres migration rollback", "redis cache latency",
           "deploy pipeline incident", "vector embedding ranking", "backup restore plan",
           "kubernetes node cluster"]


def model_env():
    """`MEMLANE_EMBEDDING__MODEL` from the caller's environment, when set: the benchmarks then run
    with that sentence model (a copied `--vault` must have been indexed with it)."""
    m = os.environ.get("MEMLANE_EMBEDDING__MODEL")
    return {"MEMLANE_EMBEDDING__MODEL": m} if m else {}


def env(home: Path):
    return {**model_env(), "PATH": os.environ["PATH"], "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
            "XDG_CONFIG_HOME": str(home / "config"), "MEMLANE_VAULT": str(home / "vault"),
            "MEMLANE_NOW": "2026-01-10T10:00:00Z", "RAYON_NUM_THREADS": "2"}


def timed(bin_, home, *args):
    t = time.perf_counter()
    out = subprocess.run([bin_, *args], env=env(home), capture_output=True, text=True)
    dt = (time.perf_counter() - t) * 1e3
    if out.returncode:
        sys.exit(f"{bin_} {args}: {out.stderr}")
    return dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="memlane-sbs-"))
    generate(tmp / "src", args.n)
    homes = {}
    for label in ("old", "new"):
        homes[label] = tmp / label
        shutil.copytree(tmp / "src", homes[label] / "vault")
    bins = {"old": args.old, "new": args.new}
    print(f"load before: {os.getloadavg()[0]:.2f}")
    times = {(k, what): [] for k in bins for what in ("reindex", "search", "list", "add")}
    for r in range(2):
        for k in bins:
            times[(k, "reindex")].append(timed(bins[k], homes[k], "reindex"))
    for k in bins:
        timed(bins[k], homes[k], "search", "warm up", "--no-touch")
    rng = random.Random(3)
    for r in range(args.rounds):
        for q in QUERIES:
            for k in bins:
                times[(k, "search")].append(
                    timed(bins[k], homes[k], "search", q, "--json", "--no-touch"))
        for i in range(3):
            for k in bins:
                times[(k, "list")].append(
                    timed(bins[k], homes[k], "list", "--json", "--status", "all"))
        for i in range(3):
            text = f"# Fresh note {r}-{i}\n\n" + " ".join(rng.sample(WORDS, 20)) + f" zebra{r}{i}."
            for k in bins:
                times[(k, "add")].append(
                    timed(bins[k], homes[k], "add", f"fresh/new-{r}-{i}", text))
    print(f"load after: {os.getloadavg()[0]:.2f}")
    for what in ("reindex", "search", "list", "add"):
        p50 = {}
        for k in bins:
            xs = times[(k, what)]
            p50[k] = statistics.median(xs)
            print(f"{what:8} {k}: n={len(xs)} p50 {p50[k]:.1f} ms, min {min(xs):.1f}, "
                  f"max {max(xs):.1f}")
        print(f"{what:8} new/old p50: {p50['new'] / p50['old']:.2f}")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
