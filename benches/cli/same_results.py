#!/usr/bin/env python3
"""Do two memlane binaries answer every query identically? Standard library only.

    python3 benches/cli/same_results.py OLD_BIN NEW_BIN [--data DIR] [--scifact-docs 600]
                                        [--queries 120] [--keep DIR]

Meant for refactors that must not change behaviour: run it with the binary before and after
the change (both debug or both release, built-in embedder). Prints the first differences and
exits 1 when any output differs, else prints `identical` and exits 0.

Two vaults of real text, each copied once per binary (binaries of different versions must not
share indices):
- `locomo`: conversation conv-26 of LoCoMo (`DIR/locomo-dev/locomo-dev.json`), one memory per
  dialog turn (type journal, created at the session's date, tags), "now" pinned after the last
  session; its questions are the queries (many name times: "when did ...").
- `scifact`: the first `--scifact-docs` abstracts of BEIR SciFact (`DIR/scifact/corpus.jsonl`),
  one memory per abstract, a third of them typed `decision` or `preference` and tagged, some
  superseded or expiring; the test claims are the queries.

`DIR` is `--data`, else `$MEMLANE_BENCH_DATA`; the data is for evaluation only and is never
copied into the repository. Every query runs as `search QUERY --json --explain --no-touch
--limit 20` under the configured profile; the first `--queries` of each vault also under every
other profile (`--profile`), with `-c search.profile=mira`, with `--intent recall`/`explore`,
with filters (`--type`, `--tag`, `--after`), with `--budget 400`, as text with `--explain`, and
without `--no-touch` (so the usage state, temperatures and importance, moves between queries:
both binaries see the same sequence). Then the vaults change on disk between commands: memories
added, edited (body and frontmatter), deleted and renamed, and `search` (which reconciles
first), `list --json`, `context --json --for` and `linked` run again after each change. Outputs
are compared with the vault's path and `reindex`'s timing masked; the indices' manifests
(`manifest.bin`, or `manifest.tsv` before format 8, as the same lines) are compared too, without
file modification times. Every command runs pinned to
one CPU (`taskset -c 0`, or the CPU `$SAME_RESULTS_CPU` names): with several, the keyword
index's writer indexes on several threads and BM25 ties rank differently from run to run even
with one binary.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path

LOCOMO_EVIDENCE = re.compile(r'D\s*:?\s*(\d+)\s*:\s*(\d+)')
CPU = os.environ.get("SAME_RESULTS_CPU", "0")
PROFILES = ["balanced", "ragdocs", "mnestra", "remindb", "mira"]


def locomo(data: Path):
    """(files, queries, now) of conversation conv-26: one memory per dialog turn."""
    sample = next(s for s in json.load(open(data / "locomo-dev" / "locomo-dev.json"))
                  if s["sample_id"] == "conv-26")
    conv, files, last = sample["conversation"], {}, None
    sessions = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k))
    for n in sessions:
        when = datetime.strptime(conv[f"session_{n}_date_time"].strip(), "%I:%M %p on %d %B, %Y")
        last = max(last, when) if last else when
        for t in conv[f"session_{n}"]:
            text = f"{t['speaker']}: {t['text']}"
            if t.get("blip_caption"):
                text += f" [shares {t['blip_caption']}]"
            name = "conv-26." + t["dia_id"].replace(":", ".")
            files[name] = (f"---\ntype: journal\ncreated_at: {when.isoformat()}Z\n"
                           f"tags: [locomo, session-{n}]\n---\n{text}\n")
    queries = [q["question"] for q in sample["qa"] if q.get("category") in (1, 2, 3, 4)]
    return files, queries, last.isoformat() + "Z"


def scifact(data: Path, n: int):
    """(files, queries, now): the first n abstracts, with varied types, tags and lifecycles."""
    files, names = {}, []
    with open(data / "scifact" / "corpus.jsonl") as f:
        for i, line in enumerate(f):
            if i >= n:
                break
            d = json.loads(line)
            kind = ("fact", "decision", "preference")[i % 3]
            day = 1 + i % 28
            extra = ""
            if i % 17 == 5 and names:
                extra += f"superseded_by: {names[-1]}\n"
            if i % 23 == 7:
                extra += "expires_at: 2026-02-10T00:00:00Z\n"
            name = f"{('papers', 'notes', 'claims')[i % 3]}/s{d['_id']}"
            names.append(name)
            files[name] = (f"---\ntype: {kind}\ncreated_at: 2026-01-{day:02d}T09:00:00Z\n"
                           f"tags: [t{i % 5}]\n{extra}---\n# {d['title']}\n\n{d['text']}\n")
    queries = []
    with open(data / "scifact" / "queries.jsonl") as f:
        for line in f:
            queries.append(json.loads(line)["text"])
    return files, queries[:300], "2026-02-15T12:00:00Z"


class Runner:
    def __init__(self, binary, home: Path, now):
        self.binary, self.home, self.now = os.path.abspath(binary), home, now

    def env(self):
        h = self.home
        return {"PATH": os.environ["PATH"], "HOME": str(h), "XDG_DATA_HOME": str(h / "data"),
                "XDG_CONFIG_HOME": str(h / "config"), "MEMLANE_NOW": self.now,
                "MEMLANE_VAULT": str(h / "vault"), "NO_COLOR": "1", "RAYON_NUM_THREADS": "2"}

    def run(self, *args):
        # One CPU: the keyword index's writer then runs one indexing thread, and documents land
        # in segments in the same order every time (several threads race, and BM25 ties between
        # segments would rank differently from run to run, even with one binary).
        r = subprocess.run(["taskset", "-c", CPU, self.binary, *args], env=self.env(),
                           capture_output=True, text=True, cwd=self.home / "vault")
        out = f"rc={r.returncode}\n{r.stdout}\n--stderr--\n{r.stderr}"
        out = re.sub(r"\bin \d+\.\d+ s\b", "in _ s", out)  # `reindex` prints its wall time
        return out.replace(str(self.home), "$HOME").replace(self.binary, "$BIN")


def write(vault: Path, files):
    for name, text in files.items():
        p = vault / ".memories" / f"{name}.md"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def searches(queries, sample):
    """Each command line a query runs as."""
    base = ["--json", "--explain", "--no-touch", "--limit", "20"]
    for q in queries:
        yield ["search", q, *base]
    for q in queries[:sample]:
        for p in PROFILES:
            yield ["search", q, "--profile", p, *base]
        yield ["-c", "search.profile=mira", "search", q, *base]
        for intent in ("recall", "explore"):
            yield ["search", q, "--intent", intent, *base]
        yield ["search", q, "--type", "decision", "--type", "journal", *base]
        yield ["search", q, "--tag", "t1", "--tag", "session-3", *base]
        yield ["search", q, "--after", "2023-06-01", "--before", "2026-01-15", *base]
        yield ["search", q, "--explain", "--no-touch"]  # the text rendering
        yield ["search", q, "--budget", "400", "--json", "--explain", "--no-touch"]
        yield ["search", q, "--json", "--explain", "--limit", "10"]  # warms the results
        yield ["search", q, "--profile", "mira", "--json", "--explain", "--limit", "10"]


def changes(vault: Path, rnd: int):
    """Adds, edits, deletes and renames some memories (the same in every copy)."""
    mem = vault / ".memories"
    files = sorted(p for p in mem.rglob("*.md") if "indices" not in p.parts)
    for k, p in enumerate(files[rnd::41][:6]):
        text = p.read_text()
        if k % 3 == 0:
            p.write_text(text + f"\nEdited in round {rnd}: caching and memory retention.\n")
        elif k % 3 == 1:
            p.write_text(text.replace("---\n", f"---\nimportance: 0.{k + 3}\n", 1))
        else:
            p.write_text(text.replace("tags: [", "tags: [edited, ", 1))
    for p in files[rnd + 7::53][:3]:
        p.unlink()
    for p in files[rnd + 11::61][:3]:
        if p.exists():
            p.rename(p.with_name(f"renamed-{rnd}-{p.name}"))
    (mem / f"fresh-{rnd}.md").write_text(
        f"---\ntype: decision\ncreated_at: 2026-01-0{rnd + 2}T08:00:00Z\ntags: [t1]\n---\n"
        f"# New note {rnd}\n\nWe decided to keep the memory retention at thirty days; "
        f"see [[src/cache.rs]] for the caching code.\n")


def tsv_escape(s: str) -> str:
    return (s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
            .replace("\r", "\\r").replace("\x1f", "\\u"))


def manifest_rows(indices: Path):
    """The manifest's header (a dict) and its entries as tab-separated lines of
    `manifest.tsv`'s layout, from `manifest.bin` (format 8 on: a JSON header line, fixed-width
    records, their text) or from `manifest.tsv` (before), the journal not applied."""
    tsv = indices / "manifest.tsv"
    if tsv.exists():
        head, *rows = tsv.read_text().splitlines()
        return json.loads(head), rows
    data = (indices / "manifest.bin").read_bytes()
    nl = data.index(b"\n")
    head = json.loads(data[:nl])
    start, n = nl + 1, head["entries"]
    text = data[start + 112 * n:]
    rows = []
    for i in range(n):
        r = data[start + 112 * i:start + 112 * (i + 1)]
        at = int.from_bytes(r[0:4], "little")
        fields = []
        for f in range(9):
            ln = int.from_bytes(r[4 + 4 * f:8 + 4 * f], "little")
            fields.append(text[at:at + ln].decode())
            at += ln
        name, hash_, id_, title, type_, status, tags, superseded, warnings = fields
        num = lambda o, w, signed=True: int.from_bytes(r[o:o + w], "little", signed=signed)  # noqa: E731
        flags = num(68, 4, False)
        rows.append("\t".join([
            tsv_escape(name), str(num(40, 8, False)), str(num(48, 16)), tsv_escape(hash_),
            tsv_escape(id_), str(num(64, 4, False)), tsv_escape(title), tsv_escape(type_),
            tsv_escape(status), tags, str(num(72, 8)), str(num(80, 8)), str(flags & 1),
            tsv_escape(superseded), str(num(88, 8)) if flags & 2 else "",
            str(num(96, 8)) if flags & 4 else "", warnings, f"{num(104, 8, False):x}"]))
    return head, rows


def manifest(vault: Path):
    """The indices' manifest without what differs between copies and formats: the files'
    modification times (third column), the index generation's random `base`, the format and the
    layout (`manifest.bin` and `manifest.tsv` give the same lines)."""
    head, rows = manifest_rows(vault / ".memories" / "indices")
    head = {k: v for k, v in head.items() if k not in ("base", "format", "text")}
    rows = ["\t".join(c if i != 2 else "_" for i, c in enumerate(r.split("\t"))) for r in rows]
    return "\n".join([json.dumps(head, sort_keys=True), *rows])


def same_json(a, b):
    """Whether the runs `a` and `b` (`Runner.run`'s text) have the same exit code and stderr and
    print the same JSON document, keys in any order."""
    def parts(run):
        head, _, rest = run.partition("\n")
        out, _, err = rest.rpartition("\n--stderr--\n")
        return head, out, err
    (ha, oa, ea), (hb, ob, eb) = parts(a), parts(b)
    try:
        return ha == hb and ea == eb and json.loads(oa) == json.loads(ob)
    except ValueError:
        return False


def compare(label, a, b, diffs, reordered):
    if a != b:
        if same_json(a, b):
            reordered.append(label)
        else:
            diffs.append((label, a, b))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--data", default=os.environ.get("MEMLANE_BENCH_DATA"))
    ap.add_argument("--scifact-docs", type=int, default=600)
    ap.add_argument("--queries", type=int, default=120, help="queries run every way, per vault")
    ap.add_argument("--keep", help="leave the vaults in this folder")
    args = ap.parse_args()
    if not args.data:
        sys.exit("name the evaluation data: --data DIR or MEMLANE_BENCH_DATA")
    data = Path(args.data)
    work = Path(args.keep or tempfile.mkdtemp(prefix="memlane-same-"))
    diffs, reordered, runs = [], [], 0
    for vname, (files, queries, now) in (("locomo", locomo(data)),
                                         ("scifact", scifact(data, args.scifact_docs))):
        runners = []
        for label, binary in (("old", args.old), ("new", args.new)):
            home = work / vname / label
            (home / "vault").mkdir(parents=True, exist_ok=True)
            r = Runner(binary, home, now)
            r.run("init")
            write(home / "vault", files)
            runners.append(r)
        for cmd in [["reindex"], *searches(queries, args.queries)]:
            a, b = (r.run(*cmd) for r in runners)
            compare(f"{vname}: {' '.join(cmd)}", a, b, diffs, reordered)
            runs += 1
        for rnd in range(3):
            for r in runners:
                changes(r.home / "vault", rnd)
            after = [["search", q, "--json", "--explain", "--no-touch"]
                     for q in queries[rnd::9][:12]]
            after += [["list", "--json"], ["context", "--json", "--for", queries[rnd]],
                      ["linked", "src/cache.rs", "memory retention", "--json"]]
            for cmd in after:
                a, b = (r.run(*cmd) for r in runners)
                compare(f"{vname} round {rnd}: {' '.join(cmd)}", a, b, diffs, reordered)
                runs += 1
        a, b = (manifest(r.home / "vault") for r in runners)
        compare(f"{vname}: indices/manifest.tsv", a, b, diffs, reordered)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{runs} commands per binary")
    if reordered:
        print(f"{len(reordered)} JSON outputs hold the same keys and values in another order")
    for label, a, b in diffs[:5]:
        print(f"DIFFERS: {label}")
        al, bl = a.splitlines(), b.splitlines()
        for i, (x, y) in enumerate(zip(al, bl)):
            if x != y:
                print(f"  line {i}: old {x!r}\n  line {i}: new {y!r}")
                break
        else:
            print(f"  old {len(al)} lines, new {len(bl)} lines")
    for label, _, _ in diffs[5:]:
        print(f"DIFFERS: {label}")
    if diffs:
        sys.exit(f"{len(diffs)} outputs differ")
    print("identical")


if __name__ == "__main__":
    main()
