#!/usr/bin/env python3
"""Paraphrase questions: does search find a note when the question says it in other words?

    python3 benches/cli/paraphrase.py BIN [BIN ...] [--n 1500] [--queries 200]
        [--model DIR] [-c KEY=VALUE ...] [--home DIR]

Generates N project notes, each about one (component, problem, fix) triple written with one
set of words, and questions about a note that name the same three things with other words
("the login service kept timing out; we raised the pool size" against "what did we do when
sign-in requests hung? did we grow the connection limit?"). Every other note shares at most
two of the three with the question, so only a note that matches all of them is right. Prints,
per binary (and per embedder, built-in and, with --model, the sentence model), Recall@1, @5
and @10 and MRR of `memlane search` through the CLI, and the same for a control set asked
with the note's own words.

Written for this project: the notes and questions are generated from the word lists below, no
dataset is used. A paraphrase check measures what a model adds over words: the built-in
embedder only sees shared words and sub-words.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# (words in notes, words in questions): the same thing said two ways.
COMPONENTS = [
    ("login service", "sign-in backend"), ("billing worker", "payment job"),
    ("search cluster", "query engine nodes"), ("image uploader", "photo ingestion"),
    ("email sender", "mail dispatcher"), ("mobile app", "phone client"),
    ("admin dashboard", "back-office console"), ("cache layer", "memoization tier"),
    ("message queue", "event broker"), ("reporting pipeline", "analytics jobs"),
    ("checkout page", "purchase flow"), ("audit log", "activity trail"),
    ("feature flags", "rollout toggles"), ("CI runners", "build machines"),
    ("DNS records", "domain name entries"), ("backup job", "nightly snapshot task"),
    ("websocket gateway", "realtime connection server"), ("PDF exporter", "document renderer"),
    ("recommendation model", "suggestion algorithm"), ("user database", "account datastore"),
    ("rate limiter", "request throttle"), ("session store", "login state storage"),
    ("translation files", "localisation strings"), ("video transcoder", "media converter"),
    ("notification service", "push alert system"), ("inventory sync", "stock level updater"),
    ("cron scheduler", "timed task runner"), ("API gateway", "front door proxy"),
    ("password reset flow", "credential recovery process"), ("load balancer", "traffic spreader"),
]
PROBLEMS = [
    ("kept timing out", "hung and never answered"), ("ran out of memory", "exhausted its RAM"),
    ("leaked credentials in logs", "exposed secrets in its output"),
    ("returned stale data", "served outdated results"), ("crashed on startup", "died while booting"),
    ("was very slow at peak hours", "lagged badly during busy periods"),
    ("dropped messages", "lost events"), ("sent duplicate emails", "mailed people twice"),
    ("filled the disk", "used up all the storage"), ("had a race condition", "broke under concurrent access"),
    ("showed the wrong currency", "displayed incorrect money units"),
    ("failed certificate checks", "rejected the TLS handshake"),
    ("spiked the CPU", "pegged the processors"), ("corrupted uploaded files", "mangled incoming attachments"),
    ("ignored the user's language", "disregarded the chosen locale"),
    ("double charged customers", "billed clients two times"),
    ("locked accounts by mistake", "wrongly blocked users from signing in"),
    ("missed scheduled runs", "skipped its planned executions"),
    ("broke after the upgrade", "stopped working once we updated it"),
    ("produced huge bills from the cloud provider", "made our hosting costs explode"),
]
FIXES = [
    ("raised the connection pool size", "grew the connection limit"),
    ("added a retry with backoff", "made it try again with increasing delays"),
    ("rolled back to the previous release", "reverted to the earlier version"),
    ("moved the secrets into the vault", "put the keys into the secret manager"),
    ("added an index on the hot column", "made the frequently queried field indexed"),
    ("split it into two smaller services", "broke it up into a pair of components"),
    ("put a cache in front of it", "added a memoization layer before it"),
    ("set a hard timeout of five seconds", "capped waiting at 5s"),
    ("pinned the library version", "froze the dependency at a fixed release"),
    ("wrote a migration to clean the rows", "ran a schema change that repaired the records"),
    ("added an alert on the error rate", "set up paging when failures climb"),
    ("switched to UTC everywhere", "standardised all timestamps on universal time"),
    ("enabled idempotency keys", "made repeated requests safe to replay"),
    ("doubled the instance size", "moved to machines twice as big"),
    ("turned on compression", "made the payloads gzip encoded"),
    ("added a circuit breaker", "made it stop calling the failing dependency for a while"),
    ("rotated every API token", "replaced all the access keys"),
    ("added a lock around the update", "serialised the writes with a mutex"),
]
FILLER = [
    "The team discussed it in the weekly review.", "A follow-up ticket tracks the cleanup.",
    "It was noticed by the on-call engineer.", "Customers reported it through support.",
    "The postmortem is linked from the runbook.", "Nobody has seen it again since then.",
    "We should revisit this next quarter.", "Staging showed the same behaviour first.",
]
NOTE_FORMS = [
    "# {C} {p}\n\nThe {c} {p}. We {f} and it has been fine since.\n\n{x} {y}\n",
    "# Incident: {c}\n\nLast week the {c} {p}. After some digging we {f}.\n\n{x}\n",
    "# Decision about the {c}\n\n{x} The {c} {p}, so we {f}. {y}\n",
]
QUESTION_FORMS = [
    "what did we do when the {c} {p}?",
    "how was it fixed after the {c} {p}",
    "the {c} {p}: did we {f}?",
    "remind me how we handled the {c} that {p}",
]


def generate(n: int, seed: int = 11):
    rng = random.Random(seed)
    triples = [(c, p, f) for c in range(len(COMPONENTS)) for p in range(len(PROBLEMS))
               for f in range(len(FIXES))]
    rng.shuffle(triples)
    notes = triples[:n]
    return rng, notes


def note_text(rng, t):
    c, p, f = (COMPONENTS[t[0]][0], PROBLEMS[t[1]][0], FIXES[t[2]][0])
    x, y = rng.sample(FILLER, 2)
    return rng.choice(NOTE_FORMS).format(C=c[0].upper() + c[1:], c=c, p=p, f=f, x=x, y=y)


def question(rng, t, side):
    c, p, f = (COMPONENTS[t[0]][side], PROBLEMS[t[1]][side], FIXES[t[2]][side])
    return rng.choice(QUESTION_FORMS).format(c=c, p=p, f=f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bins", nargs="+")
    ap.add_argument("--n", type=int, default=1500)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--model", help="a sentence-model folder: also measured with it")
    ap.add_argument("-c", dest="config", action="append", default=[],
                    help="KEY=VALUE passed to every search")
    ap.add_argument("--home", help="keep the generated vaults here")
    args = ap.parse_args()
    rng, notes = generate(args.n)
    asked = rng.sample(range(len(notes)), min(args.queries, len(notes)))
    sets = {"paraphrase": [(question(rng, notes[i], 1), i) for i in asked],
            "same words": [(question(rng, notes[i], 0), i) for i in asked]}
    base = Path(args.home) if args.home else Path(tempfile.mkdtemp(prefix="memlane-para-"))
    embedders = [("built-in", None)] + ([("model", args.model)] if args.model else [])
    for b, bin_ in enumerate(args.bins):
        for label, model in embedders:
            home = base / f"{b}-{label}"
            shutil.rmtree(home, ignore_errors=True)
            vault = home / "vault"
            vault.mkdir(parents=True)
            nrng = random.Random(5)
            for i, t in enumerate(notes):
                day = 1 + i % 28
                (vault / f"note-{i:05d}.md").write_text(
                    f"---\ntype: decision\ncreated_at: 2025-03-{day:02d}T{i % 24:02d}:00:00Z\n---\n\n"
                    + note_text(nrng, t))
            env = {"PATH": os.environ["PATH"], "HOME": str(home),
                   "XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "config"),
                   "MEMLANE_VAULT": str(vault), "MEMLANE_NOW": "2026-01-10T10:00:00Z"}

            def run(*a):
                out = subprocess.run([bin_, *a], env=env, capture_output=True, text=True)
                if out.returncode:
                    sys.exit(f"{bin_} {a}: {out.stderr}")
                return out.stdout

            extra = [x for kv in args.config for x in ("-c", kv)]
            if model:
                run("model", "import", model)
                extra += ["-c", "embedding.model=" + model]
            run(*extra, "reindex")
            for name, qs in sets.items():
                ranks = []
                for q, i in qs:
                    res = json.loads(run(*extra, "search", q, "--json", "--no-touch", "-n", "10"))
                    hits = res["results"] if isinstance(res, dict) else res
                    names = [h.get("name") or h.get("memory_id") for h in hits]
                    want = f"note-{i:05d}"
                    ranks.append(names.index(want) + 1 if want in names else None)
                k = len(ranks)
                r = lambda n: 100 * sum(1 for x in ranks if x and x <= n) / k
                mrr = 100 * sum(1 / x for x in ranks if x) / k
                print(f"{Path(bin_).name:>22} {label:>8} {name:>10}: R@1 {r(1):5.1f}  "
                      f"R@5 {r(5):5.1f}  R@10 {r(10):5.1f}  MRR {mrr:5.1f}  (n={k})", flush=True)


if __name__ == "__main__":
    main()
