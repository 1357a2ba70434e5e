#!/usr/bin/env python3
"""Fresh-process `search` of two binaries on a vault where every memory has a usage record,
side by side: OLD keeps the usage state as one JSON file (`state/usage.json`, parsed whole to
rank and again, with a rewrite of the whole file, to record the hits); NEW keeps a base of
fixed-width records and a journal (`state/usage.bin`, `state/usage.journal`: it decodes the
records of its candidates and appends the hits).

    python3 benches/cli/usage_side_by_side.py OLD_BIN NEW_BIN --vault VAULT [--rounds 3]

VAULT is an indexed vault (never modified: it is copied once for each binary). The script
lists the memories' ids with OLD_BIN, writes a `usage.json` with one record per memory into
both copies (NEW upgrades it on its first write: the warm-up command, a `show`, times it),
then runs the queries
of `side_by_side.py` interleaved, binary by binary and run by run, twice: `search --json`
(ranks with the usage state and records the hits, what a user's search does) and
`search --json --no-touch` (ranks only). Prints p50, min and max of the wall and CPU time
(user + system) per binary, the ratios NEW/OLD of the p50s, the state files' sizes, and the
load average (`uptime`) before and after.
"""

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from side_by_side import QUERIES  # noqa: E402

NOW = 1768039200  # 2026-01-10T10:00:00Z


def env(home: Path, vault: Path):
    return {"PATH": os.environ["PATH"], "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
            "XDG_CONFIG_HOME": str(home / "config"), "XDG_CACHE_HOME": str(home / "cache"),
            "XDG_STATE_HOME": str(home / "state"), "MEMLANE_VAULT": str(vault),
            "MEMLANE_NOW": "2026-01-10T10:00:00Z", "RAYON_NUM_THREADS": "2", "NO_COLOR": "1"}


def run(bin_, home, vault, *args):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run([bin_, *args], env=env(home, vault), capture_output=True, text=True)
    dt = (time.perf_counter() - t) * 1e3
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1e3
    if out.returncode:
        sys.exit(f"{bin_} {args}: {out.stderr}")
    return dt, cpu, out.stdout


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def usage_json(ids):
    rng = random.Random(7)
    memories = {}
    for i in ids:
        seen = NOW - rng.randrange(86400, 200 * 86400)
        last = rng.randrange(seen, NOW)
        memories[i] = {"temperature": round(rng.random(), 6), "updated_at": last,
                       "access_count": rng.randrange(1, 40), "last_access": last,
                       "first_seen": seen, "activity_days_at_last_access": rng.randrange(1, 60),
                       "announced_cold": rng.random() < 0.1, "last_announced": None}
    days = [f"2025-12-{d:02}" for d in range(1, 32)] + ["2026-01-09"]
    return json.dumps({"version": 1, "activity_days": days, "memories": memories}, indent=2)


def state_sizes(vault: Path):
    state = vault / "state"
    return {p.name: p.stat().st_size for p in sorted(state.iterdir())
            if p.name.startswith("usage") and p.name != "usage.lock"}


def summary(xs):
    return statistics.median(xs), min(xs), max(xs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--vault", required=True, type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="memlane-usage-"))
    bins = {"old": args.old, "new": args.new}
    vaults = {}
    for k in bins:
        vaults[k] = tmp / k / "vault"
        shutil.copytree(args.vault, vaults[k], symlinks=True)
    _, _, listed = run(bins["old"], tmp / "old", vaults["old"], "list", "--json",
                       "--status", "all")
    listed = json.loads(listed)
    rows = listed["memories"] if isinstance(listed, dict) else listed
    ids = sorted({r["id"] for r in rows})
    state = usage_json(ids)
    for k in bins:
        for name in ("usage.json", "usage.bin", "usage.journal"):
            (vaults[k] / "state" / name).unlink(missing_ok=True)
        (vaults[k] / "state" / "usage.json").write_text(state)
    print(f"memories with a usage record: {len(ids)}; usage.json {len(state) / 1e6:.1f} MB")
    print(f"load before: {uptime()}")
    for k in bins:
        dt, _, _ = run(bins[k], tmp / k, vaults[k], "show", rows[0]["name"])
        print(f"{k}: first command {dt:.0f} ms; state files {state_sizes(vaults[k])}")
    times = {(k, what): [] for k in bins for what in ("touch", "touch-cpu", "read", "read-cpu")}
    for _ in range(args.rounds):
        for q in QUERIES:
            for mode, extra in (("touch", []), ("read", ["--no-touch"])):
                for k in bins:
                    dt, cpu, _ = run(bins[k], tmp / k, vaults[k], "search", q, "--json", *extra)
                    times[(k, mode)].append(dt)
                    times[(k, f"{mode}-cpu")].append(cpu)
    print(f"load after: {uptime()}")
    for k in bins:
        print(f"{k}: state files after {state_sizes(vaults[k])}")
    print(f"{'':34} {'old p50':>9} {'new p50':>9} {'new/old':>8}   old min-max      new min-max")
    for what, label in (("touch", "search, hits recorded (wall ms)"),
                        ("touch-cpu", "search, hits recorded (CPU ms)"),
                        ("read", "search --no-touch (wall ms)"),
                        ("read-cpu", "search --no-touch (CPU ms)")):
        o, n = summary(times[("old", what)]), summary(times[("new", what)])
        print(f"{label:34} {o[0]:9.1f} {n[0]:9.1f} {n[0] / o[0]:8.2f}   "
              f"{o[1]:6.1f}-{o[2]:<8.1f} {n[1]:6.1f}-{n[2]:.1f}")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
