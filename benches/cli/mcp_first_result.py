#!/usr/bin/env python3
"""From spawning `memlane mcp` to its first `search_memories` result, two binaries side by side.

    python3 benches/cli/mcp_first_result.py OLD_BIN NEW_BIN --vault VAULT [--rounds 5]

VAULT is an indexed vault; it is copied once for each binary (each binary upgrades its own copy's
formats, in a fresh-process `search` before the first round). Each round starts one server per
binary, alternating which goes first, and times from the spawn to the first search result (the
`initialize` handshake included), then closes it: what an agent waits for at the start of a
session. Prints p50 and max per binary, the ratio NEW/OLD, and the load average.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from mcp_side_by_side import Bare  # noqa: E402
from side_by_side import QUERIES, env  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--vault", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="memlane-first-"))
    try:
        bins = {"old": os.path.abspath(a.old), "new": os.path.abspath(a.new)}
        for k, b in bins.items():
            shutil.copytree(a.vault, tmp / k / "vault", symlinks=True)
            subprocess.run([b, "search", "warm up", "--no-touch"], env=env(tmp / k),
                           check=True, capture_output=True)
        times = {k: [] for k in bins}
        load = os.getloadavg()
        for r in range(a.rounds):
            for k in (["old", "new"] if r % 2 == 0 else ["new", "old"]):
                t = time.perf_counter()
                server = Bare(bins[k], tmp / k)
                server.call("tools/call", {"name": "search_memories",
                                           "arguments": {"query": QUERIES[r % len(QUERIES)]}})
                times[k].append((time.perf_counter() - t) * 1000)
                server.p.stdin.close()
                server.p.wait()
        print(f"spawn to first search_memories result, {a.rounds} rounds, "
              f"load {load[0]:.2f} {load[1]:.2f}")
        for k in bins:
            print(f"  {k}: p50 {statistics.median(times[k]):.0f} ms  max {max(times[k]):.0f} ms"
                  f"  ({bins[k]})")
        print(f"  new/old: p50 {statistics.median(times['new']) / statistics.median(times['old']):.2f}")
        print(f"  load after: {os.getloadavg()[0]:.2f}", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
