#!/usr/bin/env python3
"""The memory of a `memlane mcp` server of two binaries on one indexed vault, side by side.

    python3 benches/cli/mcp_rss.py OLD_BIN NEW_BIN --vault VAULT [--searches 20]

VAULT is a vault indexed by OLD_BIN; it is copied once for each binary (a binary that upgrades
the indices' formats does it on its own copy, in a fresh-process `search` before the server
starts). Each server answers SEARCHES `search_memories` calls (the queries of
`side_by_side.py`), then its resident memory (VmRSS) and peak (VmHWM) are read from /proc.
The servers run one after the other. Prints both and the ratio NEW/OLD, with the load average.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from mcp_side_by_side import Bare  # noqa: E402
from open_side_by_side import env  # noqa: E402
from side_by_side import QUERIES  # noqa: E402


def status_kb(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--vault", required=True, type=Path)
    ap.add_argument("--searches", type=int, default=20)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="memlane-rss-"))
    print(f"load before: {os.getloadavg()[0]:.2f}")
    found = {}
    for k, bin_ in (("old", args.old), ("new", args.new)):
        home, vault = tmp / k, tmp / k / "vault"
        shutil.copytree(args.vault, vault, symlinks=True)
        server_env = env(home, vault)
        del server_env["MEMLANE_LOG"]
        subprocess.run([bin_, "search", "warm up", "--no-touch"], env=server_env, check=True,
                       capture_output=True)
        server = Bare(bin_, home, server_env=server_env)
        for i in range(args.searches):
            server.call("tools/call", {"name": "search_memories",
                                       "arguments": {"query": QUERIES[i % len(QUERIES)],
                                                     "limit": 10}})
        found[k] = (status_kb(server.pid, "VmRSS"), status_kb(server.pid, "VmHWM"))
        server.p.stdin.close()
        server.p.wait()
        shutil.rmtree(home)
    print(f"load after: {os.getloadavg()[0]:.2f}")
    for i, label in enumerate(("VmRSS", "VmHWM")):
        o, n = found["old"][i] / 1024, found["new"][i] / 1024
        print(f"{label}: old {o:.0f} MB, new {n:.0f} MB, new/old {n / o:.2f}")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
