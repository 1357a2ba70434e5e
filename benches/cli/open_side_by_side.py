#!/usr/bin/env python3
"""Fresh-process `search` of two binaries on one indexed vault, side by side: the whole command
and the manifest's share of opening the indices.

    python3 benches/cli/open_side_by_side.py OLD_BIN NEW_BIN --vault VAULT [--rounds 3]

VAULT is a vault indexed by OLD_BIN (`memlane reindex`); it is copied once for each binary, so
that a binary that upgrades the indices' formats does it on its own copy (its first command,
timed apart as "first"). Then the two binaries run interleaved, run by run, the queries of
`side_by_side.py` (`search --json --no-touch`, with `MEMLANE_LOG=memlane=debug`): each run's
wall time, CPU time (user + system) and the `manifest_ms` and `total_ms` of its "opened
indices" line. Prints p50, min and
max per binary, the ratios NEW/OLD of the p50s, and the load average before and after.
"""

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from side_by_side import QUERIES, model_env  # noqa: E402


def env(home: Path, vault: Path):
    return {**model_env(), "PATH": os.environ["PATH"], "HOME": str(home),
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_CONFIG_HOME": str(home / "config"), "XDG_CACHE_HOME": str(home / "cache"),
            "XDG_STATE_HOME": str(home / "state"), "MEMLANE_VAULT": str(vault),
            "MEMLANE_NOW": "2026-01-10T10:00:00Z", "RAYON_NUM_THREADS": "2",
            "MEMLANE_LOG": "memlane=debug", "NO_COLOR": "1"}


def run(bin_, home, vault, *args):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run([bin_, *args], env=env(home, vault), capture_output=True, text=True)
    dt = (time.perf_counter() - t) * 1e3
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1e3
    if out.returncode:
        sys.exit(f"{bin_} {args}: {out.stderr}")
    err = re.sub(r"\x1b\[[0-9;]*m", "", out.stderr)
    opened = re.search(r"opened indices manifest_ms=([\d.]+).*?total_ms=([\d.]+)", err)
    manifest, total = (float(opened[1]), float(opened[2])) if opened else (None, None)
    return dt, cpu, manifest, total


def summary(xs):
    return statistics.median(xs), min(xs), max(xs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--vault", required=True, type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="memlane-open-"))
    bins = {"old": args.old, "new": args.new}
    vaults = {}
    for k in bins:
        vaults[k] = tmp / k / "vault"
        shutil.copytree(args.vault, vaults[k], symlinks=True)
    print(f"load before: {os.getloadavg()[0]:.2f}")
    for k in bins:
        dt, _, manifest, _ = run(bins[k], tmp / k, vaults[k], "search", "warm up", "--no-touch")
        print(f"{k}: first command {dt:.0f} ms (manifest_ms {manifest})")
    rows = {(k, what): [] for k in bins for what in ("search", "cpu", "manifest", "open")}
    for _ in range(args.rounds):
        for q in QUERIES:
            for k in bins:
                dt, cpu, manifest, total = run(bins[k], tmp / k, vaults[k], "search", q,
                                               "--json", "--no-touch")
                rows[(k, "search")].append(dt)
                rows[(k, "cpu")].append(cpu)
                if manifest is not None:
                    rows[(k, "manifest")].append(manifest)
                    rows[(k, "open")].append(total)
    print(f"load after: {os.getloadavg()[0]:.2f}")
    print(f"{'':24} {'old p50':>9} {'new p50':>9} {'new/old':>8}   old min-max      new min-max")
    for what, label in (("search", "fresh search (wall)"), ("cpu", "fresh search (CPU)"),
                        ("manifest", "manifest_ms (open)"),
                        ("open", "total_ms (open)")):
        if not rows[("old", what)] or not rows[("new", what)]:
            continue
        o, n = summary(rows[("old", what)]), summary(rows[("new", what)])
        print(f"{label:24} {o[0]:9.1f} {n[0]:9.1f} {n[0] / o[0]:8.2f}   "
              f"{o[1]:6.1f}-{o[2]:<8.1f} {n[1]:6.1f}-{n[2]:.1f}")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
