"""Before/after measurements of two optimisations, side by side in one run.

Run:  python -m benchmarks.bench_ablation [--claims 100000] [--json]

1. Minimal-justification enumeration with the solver's phases preferring absent evidence
   (models are usually minimal already) against default phases, on layered graphs.
2. Parsing and validating a memory graph with the cyclic garbage collector paused (as
   the code does) against left running. (Pausing it while checking showed no gain in
   this benchmark, 58.1 s against 60.0 s, so the checker leaves it running.)
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time

from rich.console import Console
from rich.table import Table

from benchmarks.generate import layered, memory
from theory.io.graphfile import graph_to_dict, parse_graph
from theory.solver.formula import compile_support
from theory.solver.justifications import JustificationEnumerator

LAYERED = [
    (30, 2, 12, 1, (2, 3), (2, 3)),
    (45, 2, 12, 0, (2, 3), (2, 3)),
    (45, 2, 16, 0, (2, 4), (2, 3)),
]


def _median_seconds(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def phases(repeats: int) -> list[dict]:
    rows = []
    for parameters in LAYERED:
        compiled = compile_support(layered(*parameters), ["root"])
        root = compiled.root("root")
        count = len(list(JustificationEnumerator(compiled.circuit, root)))
        on = _median_seconds(lambda: list(JustificationEnumerator(compiled.circuit, root)), repeats)
        off = _median_seconds(
            lambda: list(JustificationEnumerator(compiled.circuit, root, prefer_absent=False)),
            repeats,
        )
        rows.append(
            {
                "what": f"enumerate layered{parameters[:4]} ({count} justifications)",
                "before": off,
                "after": on,
            }
        )
    return rows


def garbage_collector(claims: int, repeats: int) -> list[dict]:
    structure = memory(claims, seed=1)
    document = graph_to_dict(structure)

    def unpaused_parse() -> None:
        gc.enable()
        parse_graph(document, pause_gc=False)

    def paused_parse() -> None:
        parse_graph(document)

    return [
        {
            "what": f"parse + validate {claims} claims",
            "before": _median_seconds(unpaused_parse, repeats),
            "after": _median_seconds(paused_parse, repeats),
        },
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--claims", type=int, default=100000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = phases(args.repeats) + garbage_collector(args.claims, args.repeats)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    table = Table(title="Optimisations: seconds before and after (median)")
    for column in ("measurement", "before", "after", "speed-up"):
        table.add_column(column)
    for row in rows:
        table.add_row(
            row["what"],
            f"{row['before']:.3f}",
            f"{row['after']:.3f}",
            f"{row['before'] / row['after']:.1f}x",
        )
    Console(width=160).print(table)


if __name__ == "__main__":
    main()
