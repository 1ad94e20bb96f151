"""The check's violation kinds under a relevance budget, per claim, on an agent memory with a
large support loop: how long each claim takes and how many kinds its budget leaves
`undecided` (docs/how-it-works.md, docs/benchmarks.md "Kinds under a conflict budget").

Run:  python -m benchmarks.bench_relevance [--claims 1000] [--seed 7] [--back-edges 0.2]
          [--check c100 c300 c302] [--budgets 5000 20000 100000] [--json]

Each claim is checked alone (`check_structure(graph, [claim], relevance_budget=B)`) in one
process, after a warm-up that loads the compiled kernels, so the figure is the claim's own.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

from rich.console import Console
from rich.table import Table

from benchmarks.generate import memory
from theory.safety.check import UNDECIDED, check_structure


def measure(
    claims: int, seed: int, back_edges: float, checked: list[str], budgets: list[int]
) -> list[dict]:
    graph = memory(claims, seed=seed, back_edges=back_edges)
    # warm-up: the claims past the labels load the compiled kernels (numba), once
    check_structure(graph, [f"c{i}" for i in range(1, 7)], relevance_budget=10)
    rows = []
    for budget in budgets:
        for claim in checked:
            started = time.perf_counter()
            (report,) = check_structure(graph, [claim], relevance_budget=budget or None).claims
            seconds = time.perf_counter() - started
            kinds = Counter(v.kind for v in report.violations)
            rows.append(
                {
                    "budget": budget,
                    "claim": claim,
                    "seconds": round(seconds, 3),
                    "violations": len(report.violations),
                    "undecided": kinds.get(UNDECIDED, 0),
                    "kinds": dict(sorted(kinds.items(), key=lambda kv: str(kv[0]))),
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " "),
        epilog=__doc__.split("\n\n", 2)[2],
    )
    parser.add_argument(
        "--claims", type=int, default=1000, help="claims of benchmarks.generate.memory (1000)"
    )
    parser.add_argument("--seed", type=int, default=7, help="the generator's seed (7)")
    parser.add_argument(
        "--back-edges",
        type=float,
        default=0.2,
        help="chance that an antecedent is a later claim, making support loops (0.2)",
    )
    parser.add_argument(
        "--check",
        nargs="+",
        default=["c100", "c300", "c302"],
        metavar="CLAIM",
        help="claims to check, each alone (c100 c300 c302)",
    )
    parser.add_argument(
        "--budgets",
        nargs="+",
        type=int,
        default=[5000, 20000, 100000],
        metavar="CONFLICTS",
        help="relevance budgets per claim, 0 = no limit (5000 20000 100000)",
    )
    parser.add_argument("--json", action="store_true", help="rows as JSON, not a table")
    args = parser.parse_args()
    rows = measure(args.claims, args.seed, args.back_edges, args.check, args.budgets)
    if args.json:
        print(json.dumps({"args": vars(args), "rows": rows}, indent=1))
        return
    table = Table(
        title=f"memory({args.claims}, seed={args.seed}, back_edges={args.back_edges}): "
        "one claim's check under a relevance budget"
    )
    for column in ("budget", "claim", "seconds", "undecided / violations"):
        table.add_column(column)
    for row in rows:
        table.add_row(
            str(row["budget"] or "none"),
            row["claim"],
            f"{row['seconds']:.2f}",
            f"{row['undecided']} / {row['violations']}",
        )
    Console().print(table)


if __name__ == "__main__":
    main()
