"""Minimal-justification enumeration: the SAT core vs the label algebra, clingo and sympy.

Run:  python -m benchmarks.bench_justifications [--sympy-timeout 60] [--json]

Every method runs on the same generated structures in one process (sympy in a child
process with a timeout), results are checked equal, and times are reported as ratios to
the SAT enumerator.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import time

from rich.console import Console
from rich.table import Table

from benchmarks.generate import layered
from benchmarks.peers import clingo_minimal_justifications, sympy_minimal_justifications
from theory.justifications import minimal_justifications
from theory.reference import evidence_ancestors
from theory.structure import SupportStructure

# (evidence, layers, width, seed, justifications per claim, antecedents per justification)
LAYERED = [
    (12, 2, 5, 1, (2, 3), (2, 3)),  # small enough for sympy to finish
    (30, 2, 12, 1, (2, 3), (2, 3)),
    (40, 3, 12, 0, (2, 3), (1, 3)),
    (45, 3, 12, 0, (2, 3), (1, 3)),
    (45, 3, 12, 1, (2, 3), (1, 3)),
    (60, 2, 12, 1, (2, 3), (2, 3)),
    (60, 3, 12, 1, (2, 3), (1, 3)),
]


def absorption(k: int) -> SupportStructure:
    """root = y OR (y AND X) where X has 2^k minimal justifications: intermediate blow-up."""
    evidence = ["y"] + [f"x{i}{side}" for i in range(k) for side in "ab"]
    claims = [f"k{i}" for i in range(k)] + ["X", "root"]
    pairs = [(f"k{i}", [f"x{i}{side}"]) for i in range(k) for side in "ab"]
    pairs += [("X", [f"k{i}" for i in range(k)]), ("root", ["y"]), ("root", ["y", "X"])]
    return SupportStructure.build(evidence, claims, pairs)


def _sympy_child(structure, claim, queue):
    queue.put(sorted(sorted(s) for s in sympy_minimal_justifications(structure, claim)))


def sympy_with_timeout(structure, claim, timeout):
    queue = multiprocessing.get_context("fork").Queue()
    process = multiprocessing.get_context("fork").Process(target=_sympy_child, args=(structure, claim, queue))
    started = time.perf_counter()
    process.start()
    process.join(timeout)
    if process.is_alive():
        process.terminate()
        process.join()
        return None, None
    elapsed = time.perf_counter() - started
    return frozenset(frozenset(s) for s in queue.get()), elapsed


def timed(function, repeats):
    times, result = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return result, statistics.median(times)


def run(sympy_timeout: float, repeats: int, with_absorption: bool = True):
    cases = [(f"layered{p[:4]}", layered(*p), "root") for p in LAYERED]
    if with_absorption:
        cases.append(("absorption k=14", absorption(14), "root"))
    rows = []
    for name, structure, claim in cases:
        reference, sat = timed(lambda: minimal_justifications(structure, claim, method="sat"), repeats)
        row = {"case": name, "evidence_in_cone": len(evidence_ancestors(structure, claim)),
               "minimal_justifications": len(reference), "sat": sat}
        labels, row["labels"] = timed(lambda: minimal_justifications(structure, claim, method="labels"), repeats)
        auto, row["auto"] = timed(lambda: minimal_justifications(structure, claim, method="auto"), repeats)
        oracle, row["clingo"] = timed(lambda: clingo_minimal_justifications(structure, claim), repeats)
        symbolic, row["sympy"] = sympy_with_timeout(structure, claim, sympy_timeout)
        row["agree"] = labels == reference and auto == reference and oracle == reference and (
            symbolic is None or symbolic == reference)
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sympy-timeout", type=float, default=60.0)
    parser.add_argument("--repeats", type=int, default=3, help="median over this many runs (not sympy)")
    parser.add_argument("--no-absorption", action="store_true", help="skip the label blow-up case")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = run(args.sympy_timeout, args.repeats, not args.no_absorption)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    table = Table(title="Minimal justifications: seconds (ratio to SAT)")
    for column in ["case", "evidence", "#min", "SAT", "labels", "auto", "clingo domRec", "sympy dnf", "agree"]:
        table.add_column(column)

    def cell(value, base):
        if value is None:
            return f">{args.sympy_timeout:g} (timeout)"
        return f"{value:.4f} ({value / base:.2f}x)"

    for r in rows:
        table.add_row(r["case"], str(r["evidence_in_cone"]), str(r["minimal_justifications"]), f"{r['sat']:.4f}",
                      cell(r["labels"], r["sat"]), cell(r["auto"], r["sat"]), cell(r["clingo"], r["sat"]),
                      cell(r["sympy"], r["sat"]), str(r["agree"]))
    Console(width=200).print(table)


if __name__ == "__main__":
    main()
