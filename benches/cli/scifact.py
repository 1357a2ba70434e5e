#!/usr/bin/env python3
"""BEIR SciFact through the memlane CLI, as a user runs it. Standard library only.

Usage: scifact.py MEMLANE_BIN [--data DIR] [--keep DIR] [-- extra global args]
Example: scifact.py target/release/memlane -- -c search.score_threshold=0

One vault, one memory per abstract (`.memories/<corpus-id>.md`, type fact, created_at
2026-01-01, body `# title` and the abstract), `memlane reindex`, then one
`memlane search QUERY --limit 10 --json --no-touch` per test query with "now" pinned
(MEMLANE_NOW) to the creation time. Prints nDCG@10 and Recall@10 against the test qrels, and the
median query latency (whole process). The data is CC BY-NC: evaluation only, never shipped.
"""
import json, math, os, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    args = sys.argv[1:]
    extra = []
    if '--' in args:
        extra = args[args.index('--') + 1:]
        args = args[:args.index('--')]
    if not args:
        sys.exit(__doc__)
    binary = os.path.abspath(args[0])
    opt = {a: args[i + 1] for i, a in enumerate(args[:-1]) if a.startswith('--')}
    bench_data = os.environ.get('MEMLANE_BENCH_DATA')
    data = opt.get('--data') or (bench_data and os.path.join(bench_data, 'scifact'))
    if not data:
        sys.exit('give --data DIR or set MEMLANE_BENCH_DATA (BEIR SciFact; see BENCHMARKS.md)')
    keep = opt.get('--keep')
    vault = keep or tempfile.mkdtemp(prefix='scifact-cli-')
    qrels = {}
    with open(os.path.join(data, 'qrels', 'test.tsv')) as f:
        for line in f:
            parts = line.strip().split('\t')
            if len(parts) == 3 and parts[2].isdigit() and int(parts[2]) > 0:
                qrels.setdefault(parts[0], set()).add(parts[1])
    queries = {}
    with open(os.path.join(data, 'queries.jsonl')) as f:
        for line in f:
            q = json.loads(line)
            if q['_id'] in qrels:
                queries[q['_id']] = q['text']
    t_index = 0.0
    if not os.path.isdir(os.path.join(vault, '.memories')):
        os.makedirs(vault, exist_ok=True)
        subprocess.run([binary, 'init'], cwd=vault, check=True, capture_output=True)
        with open(os.path.join(data, 'corpus.jsonl')) as f:
            for line in f:
                d = json.loads(line)
                with open(os.path.join(vault, '.memories', d['_id'] + '.md'), 'w') as out:
                    out.write('---\ntype: fact\ncreated_at: 2026-01-01T00:00:00Z\n---\n'
                              f"# {d['title']}\n\n{d['text']}\n")
        t0 = time.time()
        subprocess.run([binary] + extra + ['reindex'], cwd=vault, check=True, capture_output=True)
        t_index = time.time() - t0
    env = dict(os.environ, MEMLANE_NOW='2026-01-01T00:00:00Z')
    ndcg = recall = 0.0
    lat, errors = [], 0
    for qid, text in sorted(queries.items()):
        t0 = time.time()
        r = subprocess.run([binary] + extra + ['search', text, '--limit', '10', '--json', '--no-touch'],
                           cwd=vault, capture_output=True, text=True, env=env)
        lat.append(time.time() - t0)
        ids = []
        try:
            out = json.loads(r.stdout)
            for h in out.get('results', []) if isinstance(out, dict) else out:
                ids.append(str(h['name']).split('/')[-1])
        except ValueError:
            errors += 1
        gold = qrels[qid]
        dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(ids[:10]) if d in gold)
        ideal = sum(1 / math.log2(i + 2) for i in range(min(len(gold), 10)))
        ndcg += dcg / ideal
        recall += len(gold & set(ids[:10])) / len(gold)
    if not keep:
        shutil.rmtree(vault, ignore_errors=True)
    n = len(queries)
    lat.sort()
    print(f"scifact-cli: nDCG@10 {ndcg / n:.4f} R@10 {recall / n:.4f} n={n} errors={errors} "
          f"reindex={t_index:.1f}s query_p50={1000 * lat[len(lat) // 2]:.0f}ms")


if __name__ == '__main__':
    main()
