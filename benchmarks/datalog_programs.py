"""Datalog programs on real data nobody here made, and a large synthetic one, for
``jtms ... --from datalog`` (docs/importing.md, docs/benchmarks.md).

Run:
  python -m benchmarks.datalog_programs write OUTDIR      # the networkx programs (.lp files)
  python -m benchmarks.datalog_programs compare OUTDIR    # every single-fact audit, per rule
  python -m benchmarks.datalog_programs big FILE --edges 1000000   # a 1M-instance program

The datasets are the graphs networkx ships (Zachary's karate club, Les Misérables, the
Florentine families, Davis's Southern Women), each edge a fact ``edge(U,V)`` in both
directions (the graphs are undirected), under three standard recursive programs:
transitive closure (``tc``), reachability from a source (``reach``), and same generation
over the DAG that orients each edge from the larger node number to the smaller (``sg``).
``edge`` facts are the evidence (``--evidence edge``); ``node`` and ``source`` facts are
premises. ``compare`` reads each file as ``jtms --from datalog`` does and, for every edge
fact ``e``, compares what ``counting``, ``influence`` and ``exact`` retire for the audit
``{e}`` (the functions ``jtms revise --rule`` runs), counting the audits where they differ
and the claims they get wrong (``*_unsafe_claims``: the claims some single-fact audit gets
wrong; for influence that is exactly ``jtms check``'s unsafe claims, since a claim is
influence-safe iff exact revision of each single evidence ancestor retires it). Nothing
generated is committed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

PROGRAMS = {
    "tc": "path(X,Y) :- edge(X,Y).\npath(X,Z) :- path(X,Y), edge(Y,Z).\n",
    "reach": "reach(X) :- source(X).\nreach(Y) :- reach(X), edge(X,Y).\n",
    "sg": (
        "sg(X,X) :- node(X).\nsg(X,Y) :- up(X,U), sg(U,V), up(Y,V).\nup(X,Y) :- edge(X,Y), X > Y.\n"
    ),
}

DATASETS = ("karate_club_graph", "florentine_families_graph", "les_miserables_graph",
            "davis_southern_women_graph")  # fmt: skip

SOURCES = {  # the source of `reach`: the node the dataset is about
    "karate_club_graph": 0,  # Mr. Hi, the instructor
    "florentine_families_graph": "Medici",
    "les_miserables_graph": "Valjean",
    "davis_southern_women_graph": "Evelyn Jefferson",
}


def _term(value: Any) -> str:
    """A node as a clingo term: a number, or a quoted string."""
    if isinstance(value, int):
        return str(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def facts(dataset: str) -> str:
    """The dataset's nodes and edges (both directions) as facts."""
    import networkx

    graph = getattr(networkx, dataset)()
    lines = [f"node({_term(n)})." for n in graph.nodes]
    for u, v in graph.edges:
        lines.append(f"edge({_term(u)},{_term(v)}). edge({_term(v)},{_term(u)}).")
    lines.append(f"source({_term(SOURCES[dataset])}).")
    return "\n".join(lines) + "\n"


def write(outdir: Path) -> list[Path]:
    outdir.mkdir(parents=True, exist_ok=True)
    written = []
    for dataset in DATASETS:
        data = facts(dataset)
        for name, rules in PROGRAMS.items():
            path = outdir / f"{dataset.removesuffix('_graph')}.{name}.lp"
            path.write_text(f"% {name} over networkx.{dataset}()\n" + data + rules, "utf-8")
            written.append(path)
    return written


def compare(path: Path) -> dict[str, Any]:
    """Every single-edge audit of ``path`` under counting, influence and exact."""
    from jtms.interchange.datalog import read_datalog
    from theory.model.index import index_of
    from theory.semantics.fixpoint import base_active
    from theory.semantics.revision import (
        counting_retired_numbers,
        downstream_numbers,
        exact_retired_numbers,
    )

    started = time.perf_counter()
    structure = read_datalog(path, evidence=["edge"]).structure
    index, active = index_of(structure), base_active(structure)
    audits = sorted(structure.evidence)
    counting_wrong = influence_wrong = 0
    counting_claims = influence_claims = 0
    influence_unsafe: set[int] = set()
    counting_unsafe: set[int] = set()
    example: dict[str, Any] | None = None
    for fact in audits:
        (number,) = index.numbers([fact])
        exact = exact_retired_numbers(index, active, [number])
        counted = counting_retired_numbers(index, active, [number])
        influenced = {n for n in downstream_numbers(index, [number]) if active[n]}
        assert counted <= exact <= influenced, fact  # the ordering, on real programs
        influence_unsafe |= influenced - exact
        counting_unsafe |= exact - counted
        if counted != exact:
            counting_wrong += 1
            counting_claims += len(exact - counted)
            if example is None or len(exact - counted) < example["kept_by_counting"]:
                example = {"audit": fact, "kept_by_counting": len(exact - counted),
                           "claims": sorted(index.names(exact - counted))[:3]}  # fmt: skip
        if influenced != exact:
            influence_wrong += 1
            influence_claims += len(influenced - exact)
    return {
        "file": path.name,
        "evidence": len(audits),
        "claims": len(structure.claims),
        "justifications": len(structure.justifications),
        "counting_wrong_audits": counting_wrong,
        "counting_kept_claims": counting_claims,
        "influence_wrong_audits": influence_wrong,
        "influence_retired_claims": influence_claims,
        "influence_unsafe_claims": len(influence_unsafe),
        "counting_unsafe_claims": len(counting_unsafe),
        "smallest_counting_example": example,
        "seconds": round(time.perf_counter() - started, 2),
    }


def big(path: Path, edges: int, seed: int) -> None:
    """A reachability program of ``edges`` random edges over ``edges // 10`` nodes, with
    ``edges // 10_000`` sources: about ``edges`` ground instances of the recursive rule."""
    rng = random.Random(seed)
    nodes = max(2, edges // 10)
    with path.open("w", encoding="utf-8") as out:
        out.write(f"% reachability, {edges} random edges over {nodes} nodes, seed {seed}\n")
        for _ in range(edges):
            out.write(f"edge({rng.randrange(nodes)},{rng.randrange(nodes)}).\n")
        for k in range(max(1, edges // 10_000)):
            out.write(f"source({k}).\n")
        out.write(PROGRAMS["reach"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("write")
    p.add_argument("outdir", type=Path)
    p = sub.add_parser("compare")
    p.add_argument("outdir", type=Path)
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("big")
    p.add_argument("file", type=Path)
    p.add_argument("--edges", type=int, default=1_000_000)
    p.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.command == "write":
        for path in write(args.outdir):
            print(path)
    elif args.command == "compare":
        rows = [compare(path) for path in sorted(args.outdir.glob("*.lp"))]
        if args.json:
            json.dump(rows, sys.stdout, indent=1)
            print()
        else:
            keys = [k for k in rows[0] if k != "smallest_counting_example"]
            print("| " + " | ".join(keys) + " | smallest counting example |")
            print("|" + "---|" * (len(keys) + 1))
            for row in rows:
                ex = row["smallest_counting_example"]
                shown = "-" if ex is None else f"{ex['audit']}: keeps {ex['claims']}"
                print("| " + " | ".join(str(row[k]) for k in keys) + f" | {shown} |")
    else:
        big(args.file, args.edges, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
