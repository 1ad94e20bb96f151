"""Minimal justifications on the loop families (benchmarks/loop_families.py) against clingo.

Run:  python -m benchmarks.bench_loop_families [--count 12] [--seed 0] [--timeout 10] [--json]
      python -m benchmarks.bench_loop_families --families held-out [--scale 3]
      python -m benchmarks.bench_loop_families --fresh [--baseline /work/main] [--seed 31]
      (also ``python -m benchmarks.bench_justifications --families``)

For every family, ``--count`` members with parameters drawn per seed, and the two regression
files of tests/cases: each goal claim is asked of ``minimal_justifications`` by the default
(``auto``: ``minimal_justifications(g, c)``, nothing else named, so the same script measures
any revision of the core), by the SAT search alone (``sat``), over Glucose (``glucose``) or
with its lazy arm alone (``lazy``),
and of clingo's domRec enumeration (benchmarks/peers.py). The figure is CPU seconds of the
call.

``--fresh`` asks every goal of every method in a new Python process, its first call timed:
what a user's script or a one-shot command gets (a core that compiled or loaded anything on
first use pays it there). The import of the core is not in the call; the process reports it
separately (``import_seconds`` in ``--json``).
``--families held-out`` asks the same of the twelve shapes of
:data:`benchmarks.loop_families.HELD_OUT` instead, which no constant of the core was chosen
on (``--scale`` multiplies their sizes).

Each method runs in its own long-lived worker process (:class:`Worker`), as a program that
asks many questions does. Every goal is sent as a graph document and read into a new
structure before the clock starts, so no goal finds an index or a cache an earlier goal
built: it pays for everything about its graph, as a command reading the file does. A goal
past ``--timeout`` seconds is a timeout: its worker is killed and a new one takes over.

``--fork-per-goal`` instead forks a child from this process for every goal. A child's first
writes to each page it shares with its parent are copy-on-write faults that no running
program pays per query, and they cost the method that allocates more Python objects more
(docs/benchmarks.md gives both harnesses' figures). Before the timed query each forked child
asks the same method about a small looped graph that no run uses (:data:`CHILD_WARMUP`),
untimed, which removes part of those faults; ``--cold-child`` skips it.

Per family: the median and the largest ratio to clingo, the goals over 10x
clingo, those over 1 s where clingo took under 50 ms, timeouts, and whether every answer
equals clingo's.
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing
import statistics
import time
from collections.abc import Callable
from typing import Any, cast

from benchmarks.loop_families import FAMILIES, HELD_OUT, Member, case_files, members
from benchmarks.peers import clingo_minimal_justifications
from theory.io.graphfile import graph_to_dict, parse_graph
from theory.model.structure import SupportStructure
from theory.solver.justifications import minimal_justifications
from theory.solver.options import SolverOptions

LAZY_ONLY = SolverOptions(ranked_entry=1 << 62)
"""Options under which the ranked arm starts only after more work than any query does."""

METHODS: dict[str, Callable[[SupportStructure, str], frozenset[frozenset[str]]]] = {
    "auto": lambda g, c: minimal_justifications(g, c),
    "sat": lambda g, c: minimal_justifications(g, c, method="sat"),
    "glucose": lambda g, c: minimal_justifications(g, c, method="sat", solver="glucose4"),
    # the lazy arm alone: the SAT search whose ranked arm never gets a turn
    "lazy": lambda g, c: minimal_justifications(g, c, method="sat", options=LAZY_ONLY),
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


def _serve(connection: Any, method: str) -> None:
    """A :class:`Worker`'s loop: answer (graph document, claim, repeat) with (CPU seconds,
    answer) until it receives None; the seconds are the median of ``repeat`` queries, each
    on the document read afresh."""
    # the objects inherited from the parent (its graphs, its caches) are out of this process's
    # collections: a full collection would walk, and copy page by page, the parent's heap in
    # the middle of some goal
    gc.freeze()
    METHODS[method](CHILD_WARMUP, "x")
    while True:
        request = connection.recv()
        if request is None:
            return
        document, claim, repeat = request
        times = []
        for _ in range(repeat):
            structure = parse_graph(document)  # a new structure: no index of an earlier query
            started = time.process_time()
            found = METHODS[method](structure, claim)
            times.append(time.process_time() - started)
        connection.send((statistics.median(times), sorted(sorted(s) for s in found)))


class Worker:
    """One method answering goals in a long-lived process of its own, with a deadline per
    goal: past it the process is killed and a new one started for the next goal.

    >>> with Worker("clingo") as clingo:                      # doctest: +SKIP
    ...     seconds, answer = clingo.ask(graph_to_dict(structure), "c0", timeout=10.0)
    """

    def __init__(self, method: str) -> None:
        if method not in METHODS:
            raise ValueError(f"unknown method {method!r}; one of {', '.join(METHODS)}")
        self.method = method
        self._start()

    def _start(self) -> None:
        context = multiprocessing.get_context("fork")
        self._connection, theirs = context.Pipe()
        self._process = context.Process(target=_serve, args=(theirs, self.method), daemon=True)
        self._process.start()
        theirs.close()

    def ask(
        self, document: dict[str, Any], claim: str, timeout: float, repeat: int = 1
    ) -> tuple[float | None, Any]:
        """CPU seconds (the median of ``repeat`` queries) and answer (sorted lists of ids)
        for ``claim`` of the graph ``document``, or (None, None) past ``timeout`` seconds of
        waiting for each query."""
        self._connection.send((document, claim, repeat))
        if self._connection.poll(timeout * repeat):
            return cast("tuple[float, Any]", self._connection.recv())
        self._process.kill()
        self._process.join()
        self._connection.close()
        self._start()
        return None, None

    def close(self) -> None:
        if self._process.is_alive():
            try:
                self._connection.send(None)
            except OSError:
                pass
            self._process.join(5)
            if self._process.is_alive():
                self._process.kill()
                self._process.join()
        self._connection.close()

    def __enter__(self) -> "Worker":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def warm() -> None:
    """One untimed query of each method in this process (the workers inherit what it
    loaded): what a long-running program has done before the goals it is timed on."""
    for method in METHODS:
        METHODS[method](CHILD_WARMUP, "x")


FRESH_CHILD = """
import json, sys, time
started = time.perf_counter()
from theory.io.graphfile import parse_graph
from theory.solver.justifications import minimal_justifications
from theory.solver.options import SolverOptions
imported = time.perf_counter() - started
method, claim, document = json.loads(sys.stdin.read())
if method == "clingo":
    from benchmarks.peers import clingo_minimal_justifications as answer
elif method == "sat":
    answer = lambda g, c: minimal_justifications(g, c, method="sat")
elif method == "glucose":
    answer = lambda g, c: minimal_justifications(g, c, method="sat", solver="glucose4")
else:
    answer = minimal_justifications
structure = parse_graph(document)
started = time.process_time()
found = answer(structure, claim)
seconds = time.process_time() - started
print(json.dumps([seconds, imported, sorted(sorted(s) for s in found)]))
"""
"""A fresh process's query; it names nothing but ``minimal_justifications`` and the graph
reader, so it runs against any revision of the core (``--baseline``)."""

BASELINE = "baseline"
"""The method name of ``--baseline PATH``: the default of the core at PATH, in fresh
processes."""


def fresh_child(
    method: str,
    document: dict[str, Any],
    claim: str,
    timeout: float,
    core: str | None = None,
) -> tuple[float | None, Any, float | None]:
    """CPU seconds and answer of ``method``'s first call in a new Python process, and the
    wall seconds its import of the core took; (None, None, None) past ``timeout``. ``core``:
    the directory of another revision of the core to import instead of this one."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = core or str(Path(__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": root}
    try:
        done = subprocess.run(
            [sys.executable, "-c", FRESH_CHILD],
            input=json.dumps(["auto" if method == BASELINE else method, claim, document]),
            capture_output=True,
            text=True,
            timeout=timeout + 30,  # the process's start and imports besides the call
            check=True,
            cwd=root,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return None, None, None
    seconds, imported, answer = json.loads(done.stdout.splitlines()[-1])
    if seconds > timeout:
        return None, None, imported
    return seconds, answer, imported


def run(
    count: int,
    seed: int,
    timeout: float,
    methods: list[str],
    warmup: bool = True,
    fork_per_goal: bool = False,
    held_out: bool = False,
    scale: int = 1,
    repeat: int = 1,
    fresh: bool = False,
    baseline: str | None = None,
) -> list[dict]:
    """One row per goal: each method's CPU seconds (None: past ``timeout``), the number of
    minimal sets, and whether each method's answer equals clingo's. In :class:`Worker`
    processes, or with ``fork_per_goal`` in a child forked for each goal (``warmup``: after
    an untimed query of :data:`CHILD_WARMUP`). The benchmark's families and the case files,
    or with ``held_out`` the shapes of :data:`~benchmarks.loop_families.HELD_OUT` at
    ``scale``. A worker times each goal ``repeat`` times (the median). With ``fresh``, each
    goal of each method in a new process, its first call (:func:`fresh_child`); the method
    :data:`BASELINE` is the default of the core at ``baseline``."""
    rows = []
    groups: list[tuple[str, list[Member]]] = [
        (name, members(name, count, seed, scale)) for name in (HELD_OUT if held_out else FAMILIES)
    ]
    if not held_out:
        groups.append(("case files", case_files()))
    per_process = fork_per_goal or fresh
    workers = {} if per_process else {m: Worker(m) for m in ["clingo", *methods]}
    imports: dict[str, list[float]] = {}

    def ask(method: str, structure: SupportStructure, document: Any, claim: str) -> Any:
        if fresh:
            core = baseline if method == BASELINE else None
            seconds, answer, imported = fresh_child(method, document, claim, timeout, core)
            if imported is not None:
                imports.setdefault(method, []).append(imported)
            return seconds, answer
        if fork_per_goal:
            return timed_child(method, structure, claim, timeout, warmup)
        return workers[method].ask(document, claim, timeout, repeat)

    try:
        for family, drawn in groups:
            for structure, goals, description in drawn:
                document = graph_to_dict(structure)
                for claim in goals:
                    row: dict = {"family": family, "graph": description, "claim": claim}
                    clingo_seconds, expected = ask("clingo", structure, document, claim)
                    row["clingo"] = clingo_seconds
                    row["sets"] = None if expected is None else len(expected)
                    for method in methods:
                        seconds, answer = ask(method, structure, document, claim)
                        row[method] = seconds
                        row[f"{method}_agrees"] = (
                            None if answer is None or expected is None else answer == expected
                        )
                    if fresh:
                        row["import_seconds"] = {m: imports[m][-1] for m in imports}
                    rows.append(row)
    finally:
        for worker in workers.values():
            worker.close()
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
        default="auto",
        help="comma-separated, of: auto, sat (the SAT search alone), glucose (it over Glucose), "
        "lazy (the search's lazy arm alone)",
    )
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="each goal of each method in a new Python process, its first call timed",
    )
    parser.add_argument(
        "--baseline",
        metavar="PATH",
        help="with --fresh: also the default of the core checked out at PATH (method "
        "'baseline'), e.g. --baseline /work/main",
    )
    parser.add_argument(
        "--fork-per-goal",
        action="store_true",
        help="a child forked for each goal instead of a worker process per method "
        "(copy-on-write faults of the fork included: see above)",
    )
    parser.add_argument(
        "--cold-child",
        action="store_true",
        help="with --fork-per-goal: time each child's first query, with no warm-up query",
    )
    parser.add_argument(
        "--families",
        choices=("benchmark", "held-out"),
        default="benchmark",
        help="the six families and the case files (default), or the twelve held-out shapes "
        "that no constant of the core was chosen on (benchmarks/loop_families.py: HELD_OUT)",
    )
    parser.add_argument(
        "--scale",
        type=int,
        default=1,
        help="with --families held-out: multiply the sizes of the graphs (default 1)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="time each goal this many times, each on its graph read afresh, and take the "
        "median (default 1; goals of a few milliseconds move by a tenth between runs)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    methods = [m for m in args.methods.split(",") if m]
    if args.count < 1 or any(m not in METHODS or m == "clingo" for m in methods):
        parser.error("--count needs at least 1, --methods names of auto, sat, glucose, lazy")
    if args.baseline is not None:
        if not args.fresh:
            parser.error("--baseline needs --fresh")
        methods.append(BASELINE)
    if not args.fresh:
        warm()
    if args.cold_child and not args.fork_per_goal:
        parser.error("--cold-child needs --fork-per-goal (a worker is warm by design)")
    if args.repeat < 1 or (args.repeat != 1 and args.fork_per_goal):
        parser.error("--repeat needs a value of at least 1, and the worker harness")
    if args.scale < 1 or (args.scale != 1 and args.families != "held-out"):
        parser.error("--scale needs --families held-out and a value of at least 1")
    rows = run(
        args.count,
        args.seed,
        args.timeout,
        methods,
        warmup=not args.cold_child,
        fork_per_goal=args.fork_per_goal,
        held_out=args.families == "held-out",
        scale=args.scale,
        repeat=args.repeat,
        fresh=args.fresh,
        baseline=args.baseline,
    )
    table = summary(rows, methods)
    if args.json:
        print(json.dumps({"summary": table, "goals": rows}, indent=2))
    else:
        print_summary(table, args.timeout)


if __name__ == "__main__":
    main()
