#!/usr/bin/env python3
"""Files a `memlane mcp` server opens per search when nothing changed, two binaries side by side.

    python3 benches/cli/mcp_opens.py OLD_BIN NEW_BIN --vault VAULT [--searches 300] [--settle 10]

VAULT is an indexed vault; it is copied once for each binary. Each server runs under `strace`
(open, openat, openat2, creat, by every thread); after 20 warm-up searches, SEARCHES
`search_memories` calls (after SETTLE seconds, for the watcher's first pass) are made back to back (the 7 queries of `side_by_side.py` in turn), and
the opens made between the first and the last answer are counted. Prints, per binary, the opens
per search, what was opened most, and the load average. The usage hits of the searches are
written once a second (the state lock and journal), which is counted too.
"""

import argparse
import asyncio
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from mcp_side_by_side import Bare  # noqa: E402
from side_by_side import QUERIES, env  # noqa: E402

OPEN = re.compile(r'^\d+\s+(\d+\.\d+)\s+(open|openat|openat2|creat)\((?:\w+, )?"([^"]*)"')


def run(bin_, home, searches, settle):
    log = home / "strace.log"
    wrapper = home / "server.sh"
    wrapper.write_text("#!/bin/sh\nexec strace -f -ttt -e trace=open,openat,openat2,creat "
                       f"-o {log} {bin_} \"$@\"\n")
    wrapper.chmod(0o755)
    c = Bare(str(wrapper), home)
    for i in range(20):
        asyncio.run(c.search(QUERIES[i % len(QUERIES)]))
    # The watcher's first pass (it hashes every memory file) is over before the count starts.
    time.sleep(settle)
    t0 = time.time()
    for i in range(searches):
        asyncio.run(c.search(QUERIES[i % len(QUERIES)]))
    t1 = time.time()
    asyncio.run(c.close())
    names = collections.Counter()
    for line in log.read_text().splitlines():
        m = OPEN.match(line)
        if m and t0 <= float(m.group(1)) <= t1:
            names[m.group(3)] += 1
    return sum(names.values()), names, t1 - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--vault", required=True)
    ap.add_argument("--searches", type=int, default=300)
    ap.add_argument("--settle", type=float, default=10,
                    help="seconds to wait after the warm-up, for the watcher's first pass")
    a = ap.parse_args()
    if not shutil.which("strace"):
        sys.exit("strace is needed (apt install strace)")
    tmp = Path(tempfile.mkdtemp(prefix="memlane-opens-"))
    try:
        print(f"load before: {os.getloadavg()[0]:.2f}")
        for k, b in (("old", a.old), ("new", a.new)):
            shutil.copytree(a.vault, tmp / k / "vault", symlinks=True)
            b = os.path.abspath(b)
            subprocess.run([b, "search", "warm up", "--no-touch"], env=env(tmp / k),
                           capture_output=True, check=True)
            total, names, secs = run(b, tmp / k, a.searches, a.settle)
            top = ", ".join(f"{n} ×{c}" for n, c in names.most_common(5))
            print(f"{k}: {total} opens in {a.searches} searches ({secs:.1f} s): "
                  f"{total / a.searches:.2f} per search; most: {top or 'none'}")
        print(f"load after: {os.getloadavg()[0]:.2f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
