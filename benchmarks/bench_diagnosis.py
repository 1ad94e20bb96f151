"""Diagnosis benchmark: 10 nogoods over a 10k-claim memory, and conflict-set enumeration
side by side with clingo, in one run.

    python -m benchmarks.bench_diagnosis                       # 10k claims, 10 nogoods
    python -m benchmarks.bench_diagnosis --back-edges 0.05     # with support cycles
    python -m benchmarks.bench_diagnosis --claims 1000 --nogoods 3 --repeats 1

Graph: :func:`benchmarks.generate.memory` (2 evidence per 10 claims, 1-3 justifications of
1-3 antecedents, derivation depth <= 4, optional back-edges). Nogoods: pairs of distinct
active claims drawn at random (seeded), so every nogood is a contradiction.

Measured (medians over ``--repeats`` runs):

- ``diagnose``: :func:`theory.semantics.diagnosis.diagnose` on the graph: every nogood's conflict sets
  and the ``--max-diagnoses`` cheapest diagnoses with their dry-run impact. The issue's
  budget is 2 s at 10k claims.
- ``memory``: the same through a stored SQLite memory, ``Memory.open`` + ``Memory.diagnose``
  (reads the graph and the nogoods back, audits in force), cold process state.
- conflict sets per nogood: the SAT core (:func:`theory.semantics.conflicts.conflict_sets`) against
  clingo (:func:`jtms.fuzz.clingo_oracle.clingo_conflict_sets`: the oracle's program, the
  evidence off-atoms a choice, subset-minimal by ``domRec``, grounding included), both given
  the nogood's support cone only (its nodes' ancestors: the same answer, and clingo would
  otherwise ground all 10k claims per nogood); the two must return identical families
  (checked every run). The ratio is clingo / SAT.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.generate import memory as memory_graph  # noqa: E402
from jtms.fuzz.clingo_oracle import clingo_conflict_sets  # noqa: E402
from jtms.memory.memory import Memory  # noqa: E402
from theory.model.graphalgo import ancestor_numbers  # noqa: E402
from theory.model.index import index_of  # noqa: E402
from theory.model.structure import Nogood, SupportStructure  # noqa: E402
from theory.semantics.conflicts import conflict_sets  # noqa: E402
from theory.semantics.diagnosis import diagnose  # noqa: E402
from theory.semantics.fixpoint import active_state  # noqa: E402

BUDGET_S = 2.0


def with_nogoods(structure: SupportStructure, count: int, seed: int) -> SupportStructure:
    """``count`` nogoods ``n0..``, each a pair of distinct active claims (seeded)."""
    rng = random.Random(seed)
    active = sorted(c for c in active_state(structure) if c in structure.claims)
    pairs: set[frozenset[str]] = set()
    while len(pairs) < count:
        pairs.add(frozenset(rng.sample(active, 2)))
    ordered = sorted(pairs, key=sorted)
    return structure.with_nogoods(Nogood(f"n{k}", pair) for k, pair in enumerate(ordered))


def support_cone(structure: SupportStructure, nodes: frozenset[str]) -> SupportStructure:
    """The nodes ``nodes`` depend on, with their justifications (same support functions)."""
    index = index_of(structure)
    cone = {index.ids[n] for n in ancestor_numbers(index, index.numbers(nodes))}
    return SupportStructure.build(
        sorted(cone & structure.evidence),
        sorted(cone & structure.claims),
        [j for j in structure.justifications if j.claim in cone],
    )


def median_time(work: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def run(
    claims: int, nogoods: int, back_edges: float, seed: int, repeats: int, max_diagnoses: int
) -> dict[str, Any]:
    structure = with_nogoods(memory_graph(claims, seed=seed, back_edges=back_edges), nogoods, seed)
    limit = max_diagnoses or None
    seconds, report = median_time(lambda: diagnose(structure, limit=limit), repeats)
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "bench.db"
        with Memory.create(db, durability="off") as stored:
            stored.import_graph(structure)

        def from_memory() -> Any:
            with Memory.open(db) as opened:
                return opened.diagnose(limit)

        memory_seconds, stored_report = median_time(from_memory, repeats)
    if stored_report.to_dict() != report.to_dict():
        raise SystemExit("the stored memory diagnosed differently from the graph (a bug)")
    rows = []
    cones = [support_cone(structure, nogood.nodes) for nogood in structure.nogoods]
    if cones:  # warm up both engines (imports, first solver) outside the timings
        first = structure.nogoods[0].nodes
        conflict_sets(cones[0], first), clingo_conflict_sets(cones[0], first)
    for nogood, cone in zip(structure.nogoods, cones):
        sat_s, sat = median_time(lambda: conflict_sets(cone, nogood.nodes), repeats)
        clingo_s, oracle = median_time(lambda: clingo_conflict_sets(cone, nogood.nodes), repeats)
        if sat != oracle:
            raise SystemExit(f"{nogood.id}: SAT and clingo conflict sets differ (a bug)")
        rows.append(
            {
                "nogood": nogood.id,
                "nodes": sorted(nogood.nodes),
                "conflicts": len(sat),
                "cone": len(cone),
                "sat_s": sat_s,
                "clingo_s": clingo_s,
            }
        )
    return {
        "claims": claims,
        "evidence": len(structure.evidence),
        "nogoods": nogoods,
        "back_edges": back_edges,
        "seed": seed,
        "repeats": repeats,
        "diagnose_s": seconds,
        "memory_diagnose_s": memory_seconds,
        "conflict_sets": sum(len(c.conflicts) for c in report.contradictions),
        "diagnoses": len(report.diagnoses),
        "cheapest": {
            "invalidate": len(report.diagnoses[0].invalidate),
            "retired_claims": report.diagnoses[0].retired_claims,
        }
        if report.diagnoses
        else None,
        "within_budget": seconds <= BUDGET_S and memory_seconds <= BUDGET_S,
        "enumeration": rows,
        "sat_total_s": sum(r["sat_s"] for r in rows),
        "clingo_total_s": sum(r["clingo_s"] for r in rows),
    }


def print_table(result: dict[str, Any]) -> None:
    r = result
    print(
        f"{r['claims']:,} claims, {r['evidence']:,} evidence, {r['nogoods']} nogoods "
        f"(back-edges {r['back_edges']}), seed {r['seed']}, median of {r['repeats']}"
    )
    cheapest = r["cheapest"]
    print(
        f"diagnose: {r['diagnose_s']:.3f} s ({r['conflict_sets']} conflict sets, {r['diagnoses']} "
        f"diagnoses listed; cheapest invalidates {cheapest['invalidate'] if cheapest else '-'} "
        f"evidence, retires {cheapest['retired_claims'] if cheapest else '-'} claims)"
    )
    print(
        f"Memory.open + Memory.diagnose (SQLite): {r['memory_diagnose_s']:.3f} s; budget "
        f"{BUDGET_S:g} s: {'met' if r['within_budget'] else 'MISSED'}"
    )
    print()
    print("| nogood | cone (nodes) | conflict sets | SAT | clingo | clingo / SAT |")
    print("|---|---|---|---|---|---|")
    for row in r["enumeration"]:
        print(
            f"| {row['nogood']} {{{', '.join(row['nodes'])}}} | {row['cone']} | {row['conflicts']} | "
            f"{row['sat_s'] * 1000:.2f} ms | {row['clingo_s'] * 1000:.2f} ms | "
            f"{row['clingo_s'] / row['sat_s']:.1f}x |"
        )
    print(
        f"| total | | {sum(x['conflicts'] for x in r['enumeration'])} | {r['sat_total_s'] * 1000:.1f} ms | "
        f"{r['clingo_total_s'] * 1000:.1f} ms | {r['clingo_total_s'] / r['sat_total_s']:.1f}x |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--claims", type=int, default=10_000)
    parser.add_argument("--nogoods", type=int, default=10)
    parser.add_argument("--back-edges", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-diagnoses", type=int, default=10, help="0 = all")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(
        args.claims, args.nogoods, args.back_edges, args.seed, args.repeats, args.max_diagnoses
    )
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_table(result)
    raise SystemExit(0 if result["within_budget"] else 1)


if __name__ == "__main__":
    main()
