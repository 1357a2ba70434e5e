#!/usr/bin/env python3
"""MCP `create_memory` latency of two binaries, side by side: the median and the tail.

    python3 benches/cli/write_tail.py OLD_BIN NEW_BIN [--n 10000] [--calls 300] [--rounds 2]
        [--searches 70] [--home DIR] [--log memlane=debug]

Generates one vault of N memories (as `minilm_practice.py` does, built-in embedder), copies it
for each binary (binaries of different versions must not share indices), indexes each copy with
a fresh `reindex`, then starts one `memlane mcp` per binary on its copy and interleaves the two
servers call by call (which one goes first alternates), so that both see the same machine state:
per round CALLS `create_memory` calls of a new memory each, then SEARCHES `search_memories`
calls (the 7 queries of `side_by_side.py` in turn). Prints, per binary, p50, p95, max and
p95/p50 of `create_memory` and of the in-server search, the ratios NEW/OLD, and the load
average before and after.

`--home DIR` keeps the generated vault in DIR/src and reuses it on the next run (generating
100k memories takes a while). `--log LEVEL` runs the servers with `MEMLANE_LOG=LEVEL` and keeps
their logs (the folder is printed): with `memlane=debug` every index write logs where its time
went (`reconcile wrote the indices`).
"""

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from mcp_side_by_side import Bare  # noqa: E402
from minilm_practice import WORDS, generate  # noqa: E402
from side_by_side import model_env  # noqa: E402

QUERIES = ["auth token rotation", "postgres migration rollback", "redis cache latency",
           "deploy pipeline incident", "vector embedding ranking", "backup restore plan",
           "kubernetes node cluster"]


def env(home: Path, log: str):
    return {**model_env(), "PATH": os.environ["PATH"], "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
            "XDG_CONFIG_HOME": str(home / "config"), "MEMLANE_VAULT": str(home / "vault"),
            "MEMLANE_NOW": "2026-01-10T10:00:00Z", "RAYON_NUM_THREADS": "2",
            "MEMLANE_LOG": log}


class Server(Bare):
    """One `memlane mcp` over stdio, its log kept in `log_file`."""

    def __init__(self, bin_, home: Path, log: str, log_file: Path):
        super().__init__(bin_, home, env(home, log), open(log_file, "w"))

    def timed_tool(self, name, arguments):
        t = time.perf_counter()
        self.call("tools/call", {"name": name, "arguments": arguments})
        return (time.perf_counter() - t) * 1e3

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * q))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--calls", type=int, default=300, help="create_memory calls per round")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--searches", type=int, default=70, help="search_memories calls per round")
    ap.add_argument("--home", help="keep (and reuse) the generated vault in HOME/src")
    ap.add_argument("--log", default="warn", help="MEMLANE_LOG of the servers; logs are kept")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="memlane-tail-"))
    src = Path(args.home) / "src" if args.home else tmp / "src"
    if not (src / "area00").exists():
        generate(src, args.n)
    bins = {"old": args.old, "new": args.new}
    homes = {}
    for k in bins:
        homes[k] = tmp / k
        shutil.copytree(src, homes[k] / "vault")
        t = time.perf_counter()
        subprocess.run([bins[k], "reindex", "-q"], env=env(homes[k], "warn"), check=True)
        print(f"reindex {k}: {time.perf_counter() - t:.1f} s")
    # The copies and the reindex leave hundreds of MB to write back; each index write's fsync
    # would wait for that (ext4 commits its journal with the other files' data), doubling the
    # median write and its spread. Measure writes, not the preparation's write-back.
    os.sync()
    servers = {k: Server(bins[k], homes[k], args.log, tmp / f"{k}.log") for k in bins}
    for s in servers.values():
        s.timed_tool("search_memories", {"query": "warm up"})
    loads = [os.getloadavg()[0]]
    print(f"load before: {loads[0]:.2f}")
    creates = {k: [] for k in bins}
    searches = {k: [] for k in bins}
    rng = random.Random(11)
    order = list(bins)
    for r in range(args.rounds):
        for i in range(args.calls):
            # Varied words: notes too alike are refused as near-duplicates.
            text = (f"# Probe {r}-{i}\n\n" + " ".join(rng.sample(WORDS, 24))
                    + f" okapi{r}x{i} canary{i * 7}.\n")
            order.reverse()
            for k in order:
                creates[k].append(servers[k].timed_tool(
                    "create_memory", {"name": f"probe/r{r}-n{i}", "content": text}))
        for i in range(args.searches):
            order.reverse()
            for k in order:
                searches[k].append(servers[k].timed_tool(
                    "search_memories", {"query": QUERIES[i % len(QUERIES)]}))
        loads.append(os.getloadavg()[0])
    for s in servers.values():
        s.close()
    print(f"load during: {min(loads):.2f}–{max(loads):.2f}")
    for what, times in (("create_memory", creates), ("search_memories", searches)):
        stats = {}
        for k in bins:
            xs = times[k]
            p50, p95 = pct(xs, 0.5), pct(xs, 0.95)
            stats[k] = (p50, p95, max(xs))
            print(f"{what:15} {k}: n={len(xs)} p50 {p50:.1f} ms, p95 {p95:.1f}, "
                  f"max {max(xs):.1f}, p95/p50 {p95 / p50:.2f}")
        o, n = stats["old"], stats["new"]
        print(f"{what:15} new/old: p50 {n[0] / o[0]:.2f}, p95 {n[1] / o[1]:.2f}, "
              f"max {n[2] / o[2]:.2f}")
    if args.log != "warn":
        print(f"server logs in {tmp} (old.log, new.log)")
        for k in bins:
            shutil.rmtree(homes[k])
    else:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
