"""The counting boundary (``theory.safety.counting``) on memories of many small support loops.

Run:  python -m benchmarks.bench_counting --groups N --out FILE   (writes the graph document)
      python -m benchmarks.bench_counting --groups N --db PATH    (imports it into a memory)

Each of N groups is ``a <- e; a <- b; b <- a; c <- b, f; d <- e, f`` (evidence e, f): a and b
are a 2-claim loop, c is behind it, d behind none. Counting keeps a, b and c after an audit
of e (exact retires them): 3N counting-unsafe claims, N safe by the corollary, 4N claims in
all, N regions of one loop each (packed into shared solvers). Time the check with
``/usr/bin/time -v python3 -m jtms check --db PATH --summary --json`` (verdicts) or
``jtms check FILE --json`` (witnesses too).
"""

from __future__ import annotations

import argparse
import json
from typing import Any


def document(groups: int) -> dict[str, Any]:
    """The graph document of ``groups`` groups (see the module docstring)."""
    nodes: list[dict[str, str]] = []
    justifications: list[dict[str, Any]] = []
    for i in range(groups):
        e, f, a, b, c, d = (f"{x}{i}" for x in "efabcd")
        nodes += [{"id": e, "kind": "evidence"}, {"id": f, "kind": "evidence"}]
        nodes += [{"id": x, "kind": "claim"} for x in (a, b, c, d)]
        justifications += [
            {"claim": a, "antecedents": [e]},
            {"claim": a, "antecedents": [b]},
            {"claim": b, "antecedents": [a]},
            {"claim": c, "antecedents": [b, f]},
            {"claim": d, "antecedents": [e, f]},
        ]
    return {"nodes": nodes, "justifications": justifications}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=1000)
    parser.add_argument("--out", help="write the graph document here")
    parser.add_argument("--db", help="import the graph into a new memory here")
    args = parser.parse_args()
    graph = document(args.groups)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            json.dump(graph, handle)
    if args.db:
        from jtms.memory.memory import Memory

        with Memory.create(args.db) as memory:
            memory.import_graph(graph, source="bench_counting")


if __name__ == "__main__":
    main()
