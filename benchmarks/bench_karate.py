"""`jtms check` on the transitive closure of an undirected graph, grounded by clingo.

Run:  python -m benchmarks.bench_karate [--graph karate|lesmis] [--nodes N] [--time-limit S]
      [--out FILE] [--json]

The program ``path(X,Y) :- edge(X,Y). path(X,Y) :- path(X,Z), edge(Z,Y).`` over networkx's
``karate_club_graph`` (every edge both ways) is grounded by clingo's Python API into a graph
document: each ``edge`` fact is evidence, each ground ``path`` atom a claim, each ground
rule instance a justification. With all 34 members that is 156 evidence and 1,156 claims,
one support loop per source (``path(X,_)``). ``--nodes N`` keeps the first N members (the
test's smaller slice). The check runs in this process (:func:`theory.safety.check.stream_check`,
every claim's certificates), timed in wall and CPU seconds, within ``--time-limit`` if given
(as ``jtms check --time-limit``); ``--out`` writes the graph document (for ``jtms check FILE``).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

PROGRAM = "path(X,Y) :- edge(X,Y). path(X,Y) :- path(X,Z), edge(Z,Y)."


def edges(graph: str = "karate", nodes: int | None = None) -> list[tuple[int, int]]:
    """The graph's edges, both ways, among its first ``nodes`` members (None: all)."""
    import networkx as nx

    g = nx.karate_club_graph() if graph == "karate" else nx.les_miserables_graph()
    g = nx.convert_node_labels_to_integers(g)
    keep = set(range(nodes if nodes is not None else g.number_of_nodes()))
    pairs = [(u, v) for u, v in g.edges() if u in keep and v in keep and u != v]
    return sorted(set(pairs) | {(v, u) for u, v in pairs})


def ground_closure(pairs: list[tuple[int, int]]) -> dict[str, Any]:
    """The graph document of the transitive closure of ``pairs``, from clingo's ground rules."""
    import clingo

    control = clingo.Control(["--warn=none"])
    rules: list[tuple[list[int], list[int]]] = []
    symbols: dict[int, str] = {}

    class Observer:
        def rule(self, choice: bool, head: list[int], body: list[int]) -> None:
            rules.append((list(head), list(body)))

        def output_atom(self, symbol: clingo.Symbol, atom: int) -> None:
            symbols[atom] = str(symbol).replace("(", "_").replace(")", "").replace(",", "_")

    control.register_observer(Observer())  # type: ignore[arg-type]
    control.add("base", [], f"#external edge(X,Y) : e(X,Y).\n{PROGRAM}")
    control.add("base", [], "".join(f"e({u},{v})." for u, v in pairs))
    control.ground([("base", [])])
    evidence = sorted({f"edge_{u}_{v}" for u, v in pairs})
    claims: set[str] = set()
    justifications = []
    for head, body in rules:
        if len(head) != 1 or head[0] not in symbols or not symbols[head[0]].startswith("path_"):
            continue
        claim = symbols[head[0]]
        claims.add(claim)
        justifications.append({"claim": claim, "antecedents": sorted(symbols[b] for b in body)})
    nodes = [{"id": e, "kind": "evidence"} for e in evidence]
    nodes += [{"id": c, "kind": "claim"} for c in sorted(claims)]
    return {"nodes": nodes, "justifications": justifications}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", choices=["karate", "lesmis"], default="karate")
    parser.add_argument("--nodes", type=int, default=None)
    parser.add_argument("--time-limit", type=float, default=None)
    parser.add_argument("--out", default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from theory.io.graphfile import parse_graph
    from theory.safety.check import stream_check

    document = ground_closure(edges(args.graph, args.nodes))
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(document, handle)
    structure = parse_graph(document)
    started, cpu = time.perf_counter(), time.process_time()
    deadline = None if args.time_limit is None else time.monotonic() + args.time_limit
    run = stream_check(structure, max_listed=64, deadline=deadline)
    kinds: dict[str, int] = {}
    checked = classified = 0
    for claim in run:
        checked += 1
        classified += claim.kinds_complete and not claim.influence_safe
        for violation in claim.violations:
            kinds[str(violation.kind)] = kinds.get(str(violation.kind), 0) + 1
    row = {
        "graph": args.graph,
        "evidence": len(structure.evidence),
        "claims": len(structure.claims),
        "justifications": len(structure.justifications),
        "checked": checked,
        "unsafe": run.unsafe,
        "unsafe_with_every_kind": classified,
        "undecided_claims": run.undecided[0],
        "kinds": kinds,
        "seconds": round(time.perf_counter() - started, 2),
        "cpu_seconds": round(time.process_time() - cpu, 2),
    }
    print(json.dumps(row) if args.json else row)


if __name__ == "__main__":
    main()
