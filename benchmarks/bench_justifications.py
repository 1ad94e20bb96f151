"""Minimal-justification enumeration: the SAT core vs the label algebra, clingo and sympy.

Run:  python -m benchmarks.bench_justifications [--sympy-timeout 60] [--json]
      python -m benchmarks.bench_justifications --loops [--json]   # support loops vs clingo
      python -m benchmarks.bench_justifications --held-out [--json]   # other layered graphs vs clingo
      python -m benchmarks.bench_justifications --sweep 60 [--seed 1]   # random graphs of that family
      python -m benchmarks.bench_justifications --families [--count 12]   # six loop families vs clingo

``--loops`` runs the support-loop cases (layered graphs with back-edges, long cycles,
nested strongly connected components): the default method (``auto``), the SAT core with
the default encoding (completion + loop formulas) in one search (``method="sat"``, on
CaDiCaL through python-sat), the same search over Glucose, the solver loop of a few calls per justification (the enumerator's iterator), the
unrolled-circuit oracle where it is affordable, and clingo, side by side in one run, plus ``jtms supports`` end to end on the
long cycles (wall and CPU seconds of the child process). A second table says what the
default did: the time of its label attempt and whether it answered, then the one search's
solver models, exchange attempts and the sets they found, decisions and conflicts per model.

Every method runs on the
same generated structures in one process (sympy in a child
process with a timeout), results are checked equal, and times are reported as ratios to
the SAT enumerator.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import time

from rich.console import Console
from rich.table import Table

from benchmarks.generate import cycle, layered, layered_cyclic, nested_loops
from benchmarks.peers import clingo_minimal_justifications, sympy_minimal_justifications
from theory.model.index import index_of
from theory.model.structure import SupportStructure
from theory.solver.justifications import JustificationEnumerator, minimal_justifications, search
from theory.solver.label_kernel import labels
from theory.solver.options import DEFAULTS
from theory.testing.reference import evidence_ancestors

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
    process = multiprocessing.get_context("fork").Process(
        target=_sympy_child, args=(structure, claim, queue)
    )
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
    """Result and median CPU seconds of this process (``time.process_time``: clingo runs
    in-process too, so the ratios do not depend on the machine's load). With more than one
    repeat, one untimed call first: whichever method runs first on a case would otherwise
    pay for the caches the previous case's methods left cold."""
    times, result = [], None
    if repeats > 1:
        function()
    for _ in range(repeats):
        started = time.process_time()
        result = function()
        times.append(time.process_time() - started)
    return result, statistics.median(times)


def warm() -> None:
    """One untimed query of each method (the solvers' first use) before anything is timed."""
    tiny = SupportStructure.build(
        ["e", "f"], ["a", "b"], [("a", ["b"]), ("b", ["a"]), ("a", ["e"]), ("b", ["e", "f"])]
    )
    for method in ("labels", "sat"):
        minimal_justifications(tiny, "a", method=method)


def run(sympy_timeout: float, repeats: int, with_absorption: bool = True):
    cases = [(f"layered{p[:4]}", layered(*p), "root") for p in LAYERED]
    if with_absorption:
        cases.append(("absorption k=14", absorption(14), "root"))
    rows = []
    for name, structure, claim in cases:
        reference, sat = timed(
            lambda: minimal_justifications(structure, claim, method="sat"), repeats
        )
        row = {
            "case": name,
            "evidence_in_cone": len(evidence_ancestors(structure, claim)),
            "minimal_justifications": len(reference),
            "sat": sat,
        }
        labels, row["labels"] = timed(
            lambda: minimal_justifications(structure, claim, method="labels"),
            repeats,
        )
        auto, row["auto"] = timed(
            lambda: minimal_justifications(structure, claim, method="auto"), repeats
        )
        oracle, row["clingo"] = timed(
            lambda: clingo_minimal_justifications(structure, claim), repeats
        )
        row["auto_over_clingo"] = row["auto"] / row["clingo"]
        symbolic, row["sympy"] = sympy_with_timeout(structure, claim, sympy_timeout)
        row["agree"] = (
            labels == reference
            and auto == reference
            and oracle == reference
            and (symbolic is None or symbolic == reference)
        )
        rows.append(row)
    return rows


# (evidence, layers, width, seed, back-edge probability): 8-12 layers of 12-18 claims,
# 1-3 alternatives of 1-3 antecedents, 36-48 evidence
LAYERED_CYCLIC = [
    (36, 8, 12, 0, 0.05),
    (36, 8, 12, 1, 0.1),
    (40, 10, 15, 0, 0.1),
    (44, 11, 16, 2, 0.1),
    (48, 12, 18, 1, 0.1),
    (48, 12, 18, 3, 0.05),
]
# the same family with other seeds and shapes (``--held-out``)
LAYERED_HELD_OUT = [
    (44, 11, 16, 4, 0.1),
    (48, 12, 18, 5, 0.08),
    (40, 10, 15, 3, 0.05),
    (48, 12, 18, 7, 0.1),
    (46, 12, 16, 9, 0.12),
    (42, 9, 14, 11, 0.1),
    (48, 12, 18, 13, 0.1),
    (50, 12, 18, 2, 0.1),
]
CYCLES = [2_500, 10_000, 100_000]
NESTED = [(2, 8), (3, 4), (3, 5)]
UNROLLED_LIMIT = 3_000  # claims in the cone: the oracle unrolls k rounds of k


def loop_cases() -> list[tuple[str, SupportStructure, str]]:
    cases = [
        (f"layered_cyclic{p}", layered_cyclic(*p[:4], back_edges=p[4]), "root")
        for p in LAYERED_CYCLIC
    ]
    cases += [(f"cycle k={k:,}", cycle(k), "c0") for k in CYCLES]
    cases += [(f"nested{p}", nested_loops(*p), "c0") for p in NESTED]
    return cases


def run_loops(repeats: int, oracle_limit: int = UNROLLED_LIMIT) -> list[dict]:
    rows = []
    for name, structure, claim in loop_cases():
        big = len(structure.claims) > 20_000
        times = 1 if big else repeats
        row: dict = {
            "case": name,
            "claims": len(structure.claims),
            "evidence_in_cone": len(evidence_ancestors(structure, claim)),
        }
        default, row["default"] = timed(lambda: minimal_justifications(structure, claim), times)
        sat, row["sat"] = timed(
            lambda: minimal_justifications(structure, claim, method="sat"), times
        )
        index = index_of(structure)
        target = [index.number[claim]]
        # the same search over Glucose instead of CaDiCaL
        cadical, row["sat_cadical"] = timed(lambda: search(index, target[0], "glucose4"), times)
        loop, row["solver_loop"] = timed(
            lambda: frozenset(JustificationEnumerator.for_claim(structure, claim)), times
        )
        oracle, row["clingo"] = timed(
            lambda: clingo_minimal_justifications(structure, claim), times
        )
        unrolled = None
        if len(structure.claims) <= oracle_limit:
            unrolled, row["unrolled"] = timed(
                lambda: minimal_justifications(structure, claim, method="sat", encoding="unrolled"),
                times,
            )
        else:
            row["unrolled"] = None
        row["minimal_justifications"] = len(default)
        # what the default did: the label attempt within its budget, then the one search's
        # counts (solver models, exchange attempts and the sets they found)
        tried, row["labels_tried"] = timed(
            lambda: labels(index, target, max_work=DEFAULTS.label_work), times
        )
        row["labels_answered"] = bool(tried.status[0] == 0)
        stats: dict[str, int] = {}
        search(index, target[0], stats=stats)
        row.update(
            {
                k: stats[k]
                for k in ("models", "exchange_attempts", "exchange_found", "decisions", "conflicts")
            }
        )
        row["agree"] = default == sat == cadical == loop == oracle and (
            unrolled is None or unrolled == default
        )
        row["default_over_clingo"] = row["default"] / row["clingo"]
        rows.append(row)
    return rows


def run_held_out(repeats: int) -> list[dict]:
    """The default, the one search over Glucose and clingo on :data:`LAYERED_HELD_OUT`."""
    rows = []
    for p in LAYERED_HELD_OUT:
        structure = layered_cyclic(*p[:4], back_edges=p[4])
        index = index_of(structure)
        target = index.number["root"]
        row: dict = {
            "case": f"layered_cyclic{p}",
            "evidence_in_cone": len(evidence_ancestors(structure, "root")),
        }
        default, row["default"] = timed(lambda: minimal_justifications(structure, "root"), repeats)
        cadical, row["sat_cadical"] = timed(lambda: search(index, target, "glucose4"), repeats)
        oracle, row["clingo"] = timed(
            lambda: clingo_minimal_justifications(structure, "root"), repeats
        )
        row["minimal_justifications"] = len(default)
        row["agree"] = default == cadical == oracle
        row["default_over_clingo"] = row["default"] / row["clingo"]
        row["cadical_over_clingo"] = row["sat_cadical"] / row["clingo"]
        rows.append(row)
    return rows


def sweep_parameters(count: int, seed: int) -> list[tuple[int, int, int, int, float]]:
    """``count`` layered graphs drawn at random from the family of :data:`LAYERED_CYCLIC` (36-48
    evidence, 8-12 layers of 12-18 claims, 1-3 alternatives of 1-3 antecedents; back-edge
    probability 0.05-0.15), as ``layered_cyclic`` parameters; ``seed`` fixes the draw."""
    import random

    rng = random.Random(seed)
    drawn = []
    for _ in range(count):
        layers, width, evidence = rng.randint(8, 12), rng.randint(12, 18), rng.randint(36, 48)
        drawn.append(
            (
                evidence,
                layers,
                width,
                rng.randint(100, 10**6),
                rng.choice([0.05, 0.08, 0.1, 0.12, 0.15]),
            )
        )
    return drawn


def run_sweep(count: int, seed: int, repeats: int) -> list[dict]:
    """The default against clingo on :func:`sweep_parameters` graphs (sets compared)."""
    rows = []
    for i, p in enumerate(sweep_parameters(count, seed)):
        structure = layered_cyclic(*p[:4], back_edges=p[4])
        default, seconds = timed(lambda: minimal_justifications(structure, "root"), repeats)
        oracle, clingo_seconds = timed(
            lambda: clingo_minimal_justifications(structure, "root"), repeats
        )
        rows.append(
            {
                "case": f"layered_cyclic{p}",
                "minimal_justifications": len(default),
                "default": seconds,
                "clingo": clingo_seconds,
                "default_over_clingo": seconds / clingo_seconds,
                "agree": default == oracle,
            }
        )
        print(f"\r{i + 1}/{count} graphs", end="", flush=True, file=sys.stderr)
    print(file=sys.stderr)
    return rows


def print_sweep(rows: list[dict], shown: int = 10) -> None:
    table = Table(
        title=f"Random layered graphs with back-edges: the {min(shown, len(rows))} slowest against clingo "
        f"of {len(rows)}, CPU seconds"
    )
    for column in ["case", "#min", "default (auto)", "clingo domRec", "default / clingo", "agree"]:
        table.add_column(column)
    worst = sorted(rows, key=lambda r: -r["default_over_clingo"])[:shown]
    for r in worst:
        table.add_row(
            r["case"],
            str(r["minimal_justifications"]),
            f"{r['default']:.4f}",
            f"{r['clingo']:.4f}",
            f"{r['default_over_clingo']:.2f}x",
            str(r["agree"]),
        )
    Console(width=200).print(table)
    ratios = sorted(r["default_over_clingo"] for r in rows)
    over = sum(x > 0.5 for x in ratios)
    print(
        f"default / clingo over {len(rows)} graphs: max {ratios[-1]:.2f}x, median {statistics.median(ratios):.2f}x, "
        f"mean {statistics.mean(ratios):.2f}x, {over} above 0.5x; all sets agree: "
        f"{all(r['agree'] for r in rows)}; load average at the end:",
        " ".join(f"{x:.1f}" for x in os.getloadavg()),
    )


def print_held_out(rows: list[dict]) -> None:
    table = Table(
        title="Held-out layered graphs with back-edges: CPU seconds, one run, same process"
    )
    for column in [
        "case",
        "evidence",
        "#min",
        "default (auto)",
        "one search, Glucose",
        "clingo domRec",
        "default / clingo",
        "Glucose / clingo",
        "agree",
    ]:
        table.add_column(column)
    for r in rows:
        table.add_row(
            r["case"],
            str(r["evidence_in_cone"]),
            str(r["minimal_justifications"]),
            f"{r['default']:.4f}",
            f"{r['sat_cadical']:.4f}",
            f"{r['clingo']:.4f}",
            f"{r['default_over_clingo']:.2f}x",
            f"{r['cadical_over_clingo']:.2f}x",
            str(r["agree"]),
        )
    Console(width=200).print(table)
    ratios = [r["default_over_clingo"] for r in rows]
    print(
        f"default / clingo: max {max(ratios):.2f}x, mean {statistics.mean(ratios):.2f}x; load average at the end:",
        " ".join(f"{x:.1f}" for x in os.getloadavg()),
    )


def cli_supports(k: int) -> dict:
    """``jtms supports`` on a k-claim cycle, end to end in a child process."""
    import resource
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    from theory.io.graphfile import save_graph

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"cycle{k}.json"
        save_graph(cycle(k), path)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "jtms", "supports", str(path), "--claim", "c0", "--json"],
            capture_output=True,
            text=True,
            env=os.environ.copy(),
        )
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    found = json.loads(done.stdout)["minimal_justifications"] if done.returncode == 0 else None
    return {
        "claims": k,
        "wall": wall,
        "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        "minimal_justifications": found,
        "exit": done.returncode,
    }


def print_loops(rows: list[dict], cli: list[dict]) -> None:
    table = Table(title="Support loops: CPU seconds (default / clingo), one run, same process")
    for column in [
        "case",
        "claims",
        "evidence",
        "#min",
        "default (auto)",
        "SAT one search",
        "one search, Glucose",
        "SAT solver loop",
        "unrolled oracle",
        "clingo domRec",
        "default / clingo",
        "agree",
    ]:
        table.add_column(column)
    for r in rows:
        table.add_row(
            r["case"],
            f"{r['claims']:,}",
            str(r["evidence_in_cone"]),
            str(r["minimal_justifications"]),
            f"{r['default']:.4f}",
            f"{r['sat']:.4f}",
            f"{r['sat_cadical']:.4f}",
            f"{r['solver_loop']:.4f}",
            "-" if r["unrolled"] is None else f"{r['unrolled']:.4f}",
            f"{r['clingo']:.4f}",
            f"{r['default_over_clingo']:.2f}x",
            str(r["agree"]),
        )
    Console(width=200).print(table)
    table = Table(title="What the default did: the label attempt, then the one search's counts")
    for column in [
        "case",
        "labels tried (s)",
        "labels answered",
        "solver models",
        "models / justification",
        "exchange attempts",
        "exchange found",
        "solver decisions / model",
        "solver conflicts / model",
    ]:
        table.add_column(column)
    for r in rows:
        models = max(r["models"], 1)
        table.add_row(
            r["case"],
            f"{r['labels_tried']:.5f}",
            str(r["labels_answered"]),
            str(r["models"]),
            f"{r['models'] / max(r['minimal_justifications'], 1):.2f}",
            str(r["exchange_attempts"]),
            str(r["exchange_found"]),
            f"{r['decisions'] / models:.0f}",
            f"{r['conflicts'] / models:.1f}",
        )
    Console(width=200).print(table)
    print("load average at the end:", " ".join(f"{x:.1f}" for x in os.getloadavg()))
    if cli:
        table = Table(title="jtms supports GRAPH --claim c0 on a cycle (child process)")
        for column in ["claims", "wall s", "CPU s", "minimal justifications", "exit"]:
            table.add_column(column)
        for r in cli:
            table.add_row(
                f"{r['claims']:,}",
                f"{r['wall']:.2f}",
                f"{r['cpu']:.2f}",
                str(r["minimal_justifications"]),
                str(r["exit"]),
            )
        Console(width=200).print(table)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--loops",
        action="store_true",
        help="the support-loop cases against clingo (and jtms supports on long cycles)",
    )
    parser.add_argument(
        "--held-out",
        action="store_true",
        help="eight more layered graphs with back-edges (other seeds and shapes), against clingo",
    )
    parser.add_argument(
        "--sweep",
        type=int,
        metavar="COUNT",
        default=None,
        help="COUNT random layered graphs with back-edges of the --loops family (36-48 evidence, "
        "8-12 layers of 12-18 claims), against clingo: the slowest ten and the spread",
    )
    parser.add_argument(
        "--seed", type=int, default=1, help="the --sweep and --families draw (default 1)"
    )
    parser.add_argument("--sympy-timeout", type=float, default=60.0)
    parser.add_argument(
        "--repeats", type=int, default=3, help="median over this many runs (not sympy)"
    )
    parser.add_argument("--no-absorption", action="store_true", help="skip the label blow-up case")
    parser.add_argument(
        "--oracle-limit",
        type=int,
        default=UNROLLED_LIMIT,
        help="run the unrolled oracle on loop cases of at most this many claims "
        f"(default {UNROLLED_LIMIT}; it took 499 s on the 2,500-claim cycle)",
    )
    parser.add_argument(
        "--families",
        action="store_true",
        help="the six loop families and the case files against clingo "
        "(benchmarks/bench_loop_families.py; --count, --timeout)",
    )
    parser.add_argument("--count", type=int, default=12, help="--families: members per family")
    parser.add_argument(
        "--timeout", type=float, default=10.0, help="--families: seconds per goal and method"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.families:
        from benchmarks import bench_loop_families

        bench_loop_families.main(
            ["--count", str(args.count), "--seed", str(args.seed), "--timeout", str(args.timeout)]
            + (["--json"] if args.json else [])
        )
        return
    warm()
    if args.sweep is not None:
        if args.sweep < 1 or args.repeats < 1:
            parser.error("--sweep COUNT and --repeats need at least 1")
        rows = run_sweep(args.sweep, args.seed, args.repeats)
        if args.json:
            print(json.dumps(rows, indent=2))
        else:
            print_sweep(rows)
        return
    if args.held_out:
        rows = run_held_out(args.repeats)
        if args.json:
            print(json.dumps(rows, indent=2))
        else:
            print_held_out(rows)
        return
    if args.loops:
        rows = run_loops(args.repeats, args.oracle_limit)
        cli = [cli_supports(k) for k in CYCLES]
        if args.json:
            print(json.dumps({"cases": rows, "cli_supports": cli}, indent=2))
        else:
            print_loops(rows, cli)
        return
    rows = run(args.sympy_timeout, args.repeats, not args.no_absorption)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    table = Table(
        title="Minimal justifications: CPU seconds (ratio to SAT; sympy: wall, child process)"
    )
    for column in [
        "case",
        "evidence",
        "#min",
        "SAT",
        "labels",
        "auto",
        "clingo domRec",
        "sympy dnf",
        "auto / clingo",
        "agree",
    ]:
        table.add_column(column)

    def cell(value, base):
        if value is None:
            return f">{args.sympy_timeout:g} (timeout)"
        return f"{value:.4f} ({value / base:.2f}x)"

    for r in rows:
        table.add_row(
            r["case"],
            str(r["evidence_in_cone"]),
            str(r["minimal_justifications"]),
            f"{r['sat']:.4f}",
            cell(r["labels"], r["sat"]),
            cell(r["auto"], r["sat"]),
            cell(r["clingo"], r["sat"]),
            cell(r["sympy"], r["sat"]),
            f"{r['auto_over_clingo']:.2f}x",
            str(r["agree"]),
        )
    Console(width=200).print(table)
    print("load average at the end:", " ".join(f"{x:.1f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
