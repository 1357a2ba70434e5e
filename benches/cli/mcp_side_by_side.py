#!/usr/bin/env python3
"""In-server `search_memories` of two binaries on the same vault, side by side.

    python3 benches/cli/mcp_side_by_side.py OLD_BIN NEW_BIN [--n 10000 | --vault DIR] [--rounds 3]
        [--calls 100] [--sdk] [--title-case]

Generates one vault of N memories (as `minilm_practice.py` does, built-in embedder), or takes an
indexed vault (`--vault`, which saves the two rebuilds of a 100k vault), copies it
for each binary, indexes each copy, then starts one `memlane mcp` per binary and interleaves
them round by round (CALLS searches on one server, then CALLS on the other, alternating which
goes first), so both see the same machine state. The client is a bare JSON-RPC client over
stdio, or with `--sdk` the official Python MCP SDK's `ClientSession` (which validates every
structured result against the tool's output schema, as agents' clients do). Prints p50 and p95
per binary, the ratio NEW/OLD, the server CPU time per 100 searches (from /proc), and the load
average. `--title-case` capitalises every query word (queries that name people, places and
things run the stages that look for names).
"""

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from minilm_practice import generate  # noqa: E402
from side_by_side import QUERIES, env  # noqa: E402


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, in seconds (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Bare:
    """A line-delimited JSON-RPC client of one `memlane mcp` (also used by `write_tail.py`)."""

    def __init__(self, bin_: str, home: Path, server_env=None, stderr=subprocess.DEVNULL):
        self.p = subprocess.Popen([bin_, "mcp"], env=server_env or env(home),
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                  text=True)
        self.pid, self.n = self.p.pid, 0
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "bench", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()

    def call(self, method, params):
        self.n += 1
        self.send({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError(f"the server ended (exit {self.p.wait()})")
            msg = json.loads(line)
            if msg.get("id") == self.n:
                if "error" in msg or msg.get("result", {}).get("isError"):
                    raise RuntimeError(f"{method} {params}: {msg}")
                return msg["result"]

    async def search(self, query):
        r = self.call("tools/call", {"name": "search_memories",
                                     "arguments": {"query": query, "limit": 10}})
        if r.get("isError"):
            raise RuntimeError(r)

    async def close(self):
        self.p.stdin.close()
        self.p.wait()


class Sdk:
    """The official Python MCP SDK's client of one `memlane mcp`."""

    @classmethod
    async def start(cls, bin_: str, home: Path):
        from contextlib import AsyncExitStack

        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client
        self = cls()
        self.stack = AsyncExitStack()
        params = StdioServerParameters(command=bin_, args=["mcp"], env=env(home))
        read, write = await self.stack.enter_async_context(stdio_client(params))
        self.session = await self.stack.enter_async_context(ClientSession(read, write))
        await self.session.initialize()
        self.pid = None
        return self

    async def search(self, query):
        r = await self.session.call_tool("search_memories", {"query": query, "limit": 10})
        if getattr(r, "is_error", None) or getattr(r, "isError", None):
            raise RuntimeError(r)

    async def close(self):
        await self.stack.aclose()


def server_pid(bin_: str, home: Path):
    """The pid of the `memlane mcp` started with HOME = `home` (the SDK does not expose it)."""
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().split(b"\0")
            envb = (d / "environ").read_bytes()
        except OSError:
            continue
        if cmd[:2] == [bin_.encode(), b"mcp"] and f"HOME={home}".encode() in envb.split(b"\0"):
            return int(d.name)
    return None


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--vault", help="an indexed vault to copy for each binary instead of "
                    "generating one (both binaries must read its indices: same format)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--sdk", action="store_true")
    ap.add_argument("--title-case", action="store_true")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="memlane-mcp-sbs-"))
    try:
        if a.vault:
            src = Path(a.vault)
            a.n = sum(1 for _ in src.rglob("*.md"))
        else:
            src = tmp / "src"
            generate(src, a.n)
        bins = {"old": os.path.abspath(a.old), "new": os.path.abspath(a.new)}
        servers = {}
        for k, b in bins.items():
            home = tmp / k
            shutil.copytree(src, home / "vault", symlinks=True)
            if not a.vault:
                subprocess.run([b, "reindex"], env=env(home), check=True, capture_output=True)
            if a.sdk:
                servers[k] = await Sdk.start(b, home)
                servers[k].pid = server_pid(b, home)
            else:
                servers[k] = Bare(b, home)
        for s in servers.values():  # warm up: indices opened, caches filled
            for q in QUERIES:
                await s.search(q)
        times = {k: [] for k in bins}
        cpu = {k: 0.0 for k in bins}
        load = os.getloadavg()
        for r in range(a.rounds):
            order = ["old", "new"] if r % 2 == 0 else ["new", "old"]
            for k in order:
                s = servers[k]
                c0 = cpu_seconds(s.pid) if s.pid else 0.0
                for i in range(a.calls):
                    q = QUERIES[i % len(QUERIES)] + f" {i % 13}"
                    q = q.title() if a.title_case else q
                    t = time.perf_counter()
                    await s.search(q)
                    times[k].append((time.perf_counter() - t) * 1000)
                cpu[k] += (cpu_seconds(s.pid) - c0) if s.pid else 0.0
        client = "Python MCP SDK" if a.sdk else "bare JSON-RPC"
        print(f"in-server search_memories, {a.n} memories, {client} client, "
              f"{a.rounds} rounds x {a.calls} calls, load {load[0]:.2f} {load[1]:.2f}")
        p = {}
        for k in bins:
            xs = sorted(times[k])
            p[k] = (statistics.median(xs), xs[int(len(xs) * 0.95) - 1])
            per100 = cpu[k] / (a.rounds * a.calls) * 100
            print(f"  {k}: p50 {p[k][0]:.2f} ms  p95 {p[k][1]:.2f} ms  "
                  f"server CPU {per100:.2f} s per 100  ({bins[k]})")
        print(f"  new/old: p50 {p['new'][0] / p['old'][0]:.2f}  p95 {p['new'][1] / p['old'][1]:.2f}"
              f"  CPU {cpu['new'] / cpu['old']:.2f}" if cpu['old'] else "")
        print(f"  load after: {os.getloadavg()[0]:.2f}", flush=True)
        # Last started, first closed (the SDK's task groups must unwind in that order).
        for s in reversed(list(servers.values())):
            await s.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


async def run():
    try:
        await main()
    except Exception:
        # The SDK's task groups would hang the event loop's shutdown: report and leave.
        import traceback
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)


if __name__ == "__main__":
    asyncio.run(run())
