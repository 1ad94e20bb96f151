"""Search latency at 100k claims on both backends (issue 58: p95 at most 20 ms for a
two-word query).

The memory: 2,000 evidence and N claims (each claim justified by one evidence and, for every
third, by the claim before it too), every text 8 words drawn from a vocabulary of 5,000
words with a Zipf-like skew (word k drawn with weight 1/(k+10)): a few words are common,
most are rare, as in notes. The queries: two words of one random claim's text (each query finds that claim at
least, and often many more through a common word). Each backend's memory is
built (``build_s``: the import, the index included), then a fresh process opens it and
runs the queries (the first call included, as a
new agent's would be), timing :meth:`Memory.search` with the default page of 50 hits and
active nodes only: the database's ranked matches, the status filter and each hit's text and
certificate.

    nice -n 19 python3 -m benchmarks.bench_search --claims 100000 --queries 300 \\
        --postgres postgresql://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from jtms.memory.memory import Memory

VOCABULARY = 5_000
WORDS_PER_TEXT = 8


def _word(k: int) -> str:
    """A made-up word for rank ``k`` (letters only, 5 to 9 of them, distinct per rank)."""
    letters = "bcdfghjklmnprstvz"
    vowels = "aeiou"
    out, n = [], k + 1
    while n:
        n, r = divmod(n, len(letters))
        out.append(letters[r] + vowels[(k + len(out)) % 5])
    return "".join(out) + "x"


def _weights() -> list[float]:
    """Cumulative weights of the vocabulary's ranks (``random.choices``' cum_weights)."""
    total, cumulative = 0.0, []
    for k in range(VOCABULARY):
        total += 1.0 / (k + 10)
        cumulative.append(total)
    return cumulative


def document(claims: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    words = [_word(k) for k in range(VOCABULARY)]
    weights = _weights()

    def text() -> str:
        return " ".join(rng.choices(words, cum_weights=weights, k=WORDS_PER_TEXT))

    evidence = 2_000
    nodes = [{"id": f"e{k}", "kind": "evidence", "text": text()} for k in range(evidence)]
    nodes += [{"id": f"c{k}", "kind": "claim", "text": text()} for k in range(claims)]
    justifications = [
        {"claim": f"c{k}", "antecedents": [f"e{rng.randrange(evidence)}"]} for k in range(claims)
    ]
    justifications += [
        {"claim": f"c{k}", "antecedents": [f"c{k - 1}", f"e{rng.randrange(evidence)}"]}
        for k in range(1, claims, 3)
    ]
    return {"nodes": nodes, "justifications": justifications}


def queries(count: int, seed: int, claims: int) -> list[str]:
    """Two words of the text of a random claim (so every query finds at least that one),
    the first word of the pair a common one as often as the texts hold one."""
    texts = [node["text"].split() for node in document(claims, seed)["nodes"][2_000:]]
    rng = random.Random(seed + 1)
    return [" ".join(rng.sample(texts[rng.randrange(claims)], 2)) for _ in range(count)]


def run_queries(location: str, count: int, seed: int, claims: int) -> dict[str, Any]:
    """In this (fresh) process: open the memory and time each query."""
    times, hits = [], []
    asked = queries(count, seed, claims)
    started = time.perf_counter()
    memory = Memory.open(location)
    opened = time.perf_counter() - started
    with memory:
        for query in asked:
            started = time.perf_counter()
            page = memory.search(query)
            times.append(time.perf_counter() - started)
            hits.append(page.count)
    ordered = sorted(times)
    return {
        "open_s": round(opened, 3),
        "queries": count,
        "first_ms": round(times[0] * 1000, 2),
        "p50_ms": round(statistics.median(times) * 1000, 2),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 2),
        "max_ms": round(ordered[-1] * 1000, 2),
        "hits_median": statistics.median(hits),
        "hits_max": max(hits),
        "no_hits": sum(1 for h in hits if h == 0),
    }


def measure(location: str, claims: int, count: int, seed: int) -> dict[str, Any]:
    graph = document(claims, seed)
    started = time.perf_counter()
    with Memory.create(location, durability="off") as memory:
        memory.import_graph(graph, source=f"search-{claims}")
    built = time.perf_counter() - started
    fresh = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.bench_search",
            "--run-queries",
            location,
            "--queries",
            str(count),
            "--seed",
            str(seed),
            "--claims",
            str(claims),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return {"claims": claims, "build_s": round(built, 2), **json.loads(fresh.stdout)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--claims", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=58)
    parser.add_argument("--postgres", default=None, metavar="URL", help="a PostgreSQL database")
    parser.add_argument("--run-queries", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run_queries:
        print(json.dumps(run_queries(args.run_queries, args.queries, args.seed, args.claims)))
        return
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        rows.append(
            {
                "backend": "sqlite",
                **measure(str(Path(folder) / "search.db"), args.claims, args.queries, args.seed),
            }
        )
    if args.postgres:
        from jtms.store.postgres import drop_memory

        location = f"{args.postgres}?memory=bench_search_{args.seed}"
        drop_memory(location)
        try:
            rows.append(
                {"backend": "postgres", **measure(location, args.claims, args.queries, args.seed)}
            )
        finally:
            drop_memory(location)
    print(json.dumps({"benchmark": "search", "seed": args.seed, "results": rows}, indent=1))


if __name__ == "__main__":
    main()
