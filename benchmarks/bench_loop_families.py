"""Minimal justifications on the loop families (benchmarks/loop_families.py) against clingo.

Run:  python -m benchmarks.bench_loop_families [--count 12] [--seed 0] [--timeout 10] [--json]
      (also ``python -m benchmarks.bench_justifications --families``)

For every family, ``--count`` members with parameters drawn per seed, and the two regression
files of tests/cases: each goal claim is asked of ``minimal_justifications`` by the default
(``auto``) with the compiled kernels loaded and warm (``compiled=True``), by the default
without them (``compiled=False``: the path of a one-shot command on a small graph, so its
portfolio gets no compiled arm although this process has loaded the kernels), and of
clingo's domRec enumeration (benchmarks/peers.py), each in a forked child with a deadline
(``--timeout`` seconds: a stall is a timeout, not a hung benchmark), CPU seconds of the
child's call. Before that call the child asks the same method about a small looped graph
that no run uses (:data:`CHILD_WARMUP`), untimed: a forked child's first touch of each page
of the parent's memory (code, caches, the method's objects) is a copy-on-write fault, which
a process that runs the method does not pay per query: timed, they cost a median 1.2 ms a
goal for clingo and 0.8 ms for ``auto`` (seed 0), more than most goals take.
``--cold-child`` skips it.
Per family: the median and the largest ratio to clingo, the goals over 10x
clingo, those over 1 s where clingo took under 50 ms, timeouts, and whether every answer
equals clingo's.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import time
from collections.abc import Callable
from typing import Any

from benchmarks.loop_families import FAMILIES, Member, case_files, members
from benchmarks.peers import clingo_minimal_justifications
from theory.justifications import minimal_justifications
from theory.structure import SupportStructure

METHODS: dict[str, Callable[[SupportStructure, str], frozenset[frozenset[str]]]] = {
    "auto": lambda g, c: minimal_justifications(g, c, compiled=True),
    "interpreted": lambda g, c: minimal_justifications(g, c, compiled=False),
    # the compiled default with every search arm over python-sat's CaDiCaL instead of the
    # built-in solver (theory/cdcl.py): the comparison behind docs/solver.md's choice
    "cadical": lambda g, c: minimal_justifications(g, c, compiled=True, solver="cadical195"),
    "clingo": clingo_minimal_justifications,
}


CHILD_WARMUP = SupportStructure.build(
    ["w1", "w2", "w3"],
    ["x", "y", "z"],
    [("x", ["y"]), ("y", ["x"]), ("x", ["w1"]), ("y", ["w2", "z"]), ("z", ["x"]), ("z", ["w3"])],
)
"""The untimed first query of every child (support loops; x has two minimal justifications)."""


def _child(
    connection: Any, method: str, structure: SupportStructure, claim: str, warmup: bool = True
) -> None:
    if method == "interpreted":
        # the path of a one-shot command, which has not loaded the compiled kernels: the
        # parent has (for the other methods), so without this the interpreted portfolio
        # would also get its compiled arm (theory.justifications.enumerate_minimal)
        import theory.justifications

        theory.justifications.kernels_loaded = lambda: False  # type: ignore[assignment]
    if warmup:
        METHODS[method](CHILD_WARMUP, "x")
    started = time.process_time()
    found = METHODS[method](structure, claim)
    seconds = time.process_time() - started
    connection.send((seconds, sorted(sorted(s) for s in found)))


def timed_child(
    method: str, structure: SupportStructure, claim: str, timeout: float, warmup: bool = True
) -> tuple[float | None, Any]:
    """CPU seconds and answer of one method in a forked child, or (None, None) past ``timeout``
    (the deadline counts the warm-up query too)."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(send, method, structure, claim, warmup))
    process.start()
    send.close()
    if receive.poll(timeout):
        result = receive.recv()
        process.join()
        return result
    process.kill()
    process.join()
    return None, None


def warm() -> None:
    """Load and compile the kernels (the children inherit them)."""
    tiny = SupportStructure.build(
        ["e", "f"], ["a", "b"], [("a", ["b"]), ("b", ["a"]), ("a", ["e"]), ("b", ["e", "f"])]
    )
    for method in ("labels", "sat"):
        minimal_justifications(tiny, "a", method=method, compiled=True)
    minimal_justifications(tiny, "a", compiled=False)
    # the search itself over each solver (the labels answer the tiny graph first, so the
    # default calls above never reach the python-sat arm's kernels: its first goal paid them)
    for solver in ("builtin", "cadical195"):
        minimal_justifications(tiny, "a", method="sat", compiled=True, solver=solver)
        for family in ("back_edges", "dense"):  # draws no benchmark run uses
            looped, goals, _ = members(family, 1, seed=12345)[0]
            for goal in goals:
                minimal_justifications(looped, goal, method="sat", compiled=True, solver=solver)
    clingo_minimal_justifications(tiny, "a")


def run(
    count: int, seed: int, timeout: float, methods: list[str], warmup: bool = True
) -> list[dict]:
    rows = []
    groups: list[tuple[str, list[Member]]] = [
        (name, members(name, count, seed)) for name in FAMILIES
    ]
    groups.append(("case files", case_files()))
    for family, drawn in groups:
        for structure, goals, description in drawn:
            for claim in goals:
                row: dict = {"family": family, "graph": description, "claim": claim}
                clingo_seconds, expected = timed_child("clingo", structure, claim, timeout, warmup)
                row["clingo"] = clingo_seconds
                row["sets"] = None if expected is None else len(expected)
                for method in methods:
                    seconds, answer = timed_child(method, structure, claim, timeout, warmup)
                    row[method] = seconds
                    row[f"{method}_agrees"] = (
                        None if answer is None or expected is None else answer == expected
                    )
                rows.append(row)
    return rows


def summary(rows: list[dict], methods: list[str]) -> list[dict]:
    out = []
    for family in dict.fromkeys(r["family"] for r in rows):
        mine = [r for r in rows if r["family"] == family]
        for method in methods:
            ratios = [
                r[method] / max(r["clingo"], 1e-4)
                for r in mine
                if r[method] is not None and r["clingo"] is not None
            ]
            out.append(
                {
                    "family": family,
                    "method": method,
                    "goals": len(mine),
                    "median": statistics.median(ratios) if ratios else None,
                    "max": max(ratios) if ratios else None,
                    "over_10x": sum(x > 10 for x in ratios),
                    "over_1s_fast_clingo": sum(
                        1
                        for r in mine
                        if r[method] is not None
                        and r["clingo"] is not None
                        and r["clingo"] < 0.05
                        and r[method] > 1.0
                    ),
                    "timeouts": sum(r[method] is None for r in mine),
                    "total": sum(r[method] for r in mine if r[method] is not None),
                    "clingo_total": sum(r["clingo"] for r in mine if r["clingo"] is not None),
                    "all_agree": all(r[f"{method}_agrees"] for r in mine if r[method] is not None),
                }
            )
    return out


def print_summary(table: list[dict], timeout: float) -> None:
    from rich.console import Console
    from rich.table import Table

    view = Table(
        title=f"Loop families: CPU seconds against clingo domRec (timeout {timeout:g} s per goal)"
    )
    for column in [
        "family",
        "method",
        "goals",
        "median / clingo",
        "max / clingo",
        ">10x",
        ">1 s (clingo <50 ms)",
        "timeouts",
        "total / clingo total",
        "agree",
    ]:
        view.add_column(column)
    for r in table:
        view.add_row(
            r["family"],
            r["method"],
            str(r["goals"]),
            "-" if r["median"] is None else f"{r['median']:.2f}x",
            "-" if r["max"] is None else f"{r['max']:.2f}x",
            str(r["over_10x"]),
            str(r["over_1s_fast_clingo"]),
            str(r["timeouts"]),
            f"{r['total'] / max(r['clingo_total'], 1e-9):.2f}x",
            str(r["all_agree"]),
        )
    Console(width=200).print(view)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--count", type=int, default=12, help="members per family (default 12)")
    parser.add_argument("--seed", type=int, default=0, help="the draw (default 0)")
    parser.add_argument(
        "--timeout", type=float, default=10.0, help="seconds per goal and method (default 10)"
    )
    parser.add_argument(
        "--methods",
        default="auto,interpreted",
        help="comma-separated, of: auto, interpreted, cadical (auto over python-sat's CaDiCaL)",
    )
    parser.add_argument(
        "--cold-child",
        action="store_true",
        help="time each child's first query (copy-on-write faults of the fork included)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    methods = [m for m in args.methods.split(",") if m]
    if args.count < 1 or any(m not in METHODS or m == "clingo" for m in methods):
        parser.error("--count needs at least 1, --methods names of auto, interpreted, cadical")
    warm()
    rows = run(args.count, args.seed, args.timeout, methods, warmup=not args.cold_child)
    table = summary(rows, methods)
    if args.json:
        print(json.dumps({"summary": table, "goals": rows}, indent=2))
    else:
        print_summary(table, args.timeout)


if __name__ == "__main__":
    main()
