"""What a unit of work costs in each arm of the interpreted portfolio, in CPU time.

    python -m benchmarks.bench_portfolio_units [--seed 777] [--count 3] [--goals 2] [--json]

The portfolio (:mod:`theory.portfolio`) advances the arm that has done the least work, so its
bound (a query costs about the number of arms times the best arm's work) holds in time only
if a unit of work costs about the same in every arm. For each goal of ``--count`` members of
every loop family (:mod:`benchmarks.loop_families`, drawn with ``--seed``; 777 is a draw no
other benchmark uses), :func:`theory.justifications.enumerate_minimal` runs with its costs
recorded, and each arm's seconds per unit of work is divided by the lazy solver loop's on the
same goal (arms under 2 ms of CPU on a goal are left out: too short to time). The label arm's
work is charged :data:`~theory.justifications.LABEL_UNIT` units per set formed, so its ratio
near 1 means the charge is calibrated; ``ratio x LABEL_UNIT`` is what a set formed costs in
lazy-loop steps. The ranked arm is charged :data:`~theory.justifications.ENTRY_PER_CLAUSE`
units per clause of its rankings before its first turn, for building them: the row
``ranked build`` times that build (the ranked solver loop's encoding and its python-sat
solver) per clause of :meth:`~theory.completion.SupportProgram.ranking_size`, over the lazy
loop's seconds per unit and over the charge, so near 1 is calibrated again.

``--long-cycle`` measures instead why solver loops that run alone balance CPU time rather
than work (:class:`theory.portfolio.Portfolio`): on the first member of the cycles family
at seed 777 (a 338-claim cyclic component), the solver loops alone (lazy and ranked, as
``minimal_justifications(method="sat", compiled=False)`` runs them), balanced by each way,
each in a forked child with a deadline (``--deadline`` seconds, default 60): CPU seconds and
each arm's work and CPU time when it finishes, or that it did not finish in time.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import time
from typing import Any

from benchmarks.loop_families import FAMILIES, members
from theory.completion import SupportProgram
from theory.index import index_of
from theory.justifications import (
    DEFAULT_SOLVER,
    ENTRY_PER_CLAUSE,
    LABEL_UNIT,
    JustificationEnumerator,
    enumerate_minimal,
)

SHORTEST = 0.002  # CPU seconds: an arm's time on a goal below this is not a measurement


def unit_costs(seed: int, count: int, goals: int) -> dict[str, list[float]]:
    """Per arm, its seconds per unit of work over the lazy loop's, one value per goal."""
    ratios: dict[str, list[float]] = {"labels": [], "ranked": [], "ranked build": []}
    for family in FAMILIES:
        for structure, claims, _ in members(family, count, seed=seed):
            index = index_of(structure)
            for claim in claims[:goals]:
                costs: dict[str, tuple[int, float]] = {}
                program = SupportProgram.of(index, index.number[claim])
                for _ in enumerate_minimal(program, DEFAULT_SOLVER, costs=costs):
                    pass
                work, seconds = costs.get("lazy", (0, 0.0))
                if seconds < SHORTEST or work <= 0:
                    continue
                per_lazy = seconds / work
                for arm in ("labels", "ranked"):
                    arm_work, arm_seconds = costs.get(arm, (0, 0.0))
                    if arm_seconds >= SHORTEST and arm_work > 0:
                        ratios[arm].append(arm_seconds / arm_work / per_lazy)
                if program.cyclic:
                    started = time.process_time()
                    built = JustificationEnumerator(program, solver=DEFAULT_SOLVER, ranked=True)
                    solver = built._solver()
                    seconds = time.process_time() - started
                    if solver is not None:
                        solver.delete()
                    clauses = program.ranking_size()
                    if seconds >= SHORTEST and clauses > 0:
                        per_clause = seconds / clauses / per_lazy
                        ratios["ranked build"].append(per_clause / ENTRY_PER_CLAUSE)
    return ratios


def _long_cycle_child(connection: Any, balance: str) -> None:
    structure, goals, _ = members("cycles", 1, seed=777)[0]
    index = index_of(structure)
    program = SupportProgram.of(index, index.number[goals[0]])
    costs: dict[str, tuple[int, float]] = {}
    started = time.process_time()
    found = list(enumerate_minimal(program, labels=False, balance=balance, costs=costs))
    connection.send((time.process_time() - started, len(found), costs))


def long_cycle(deadline: float) -> list[dict]:
    """Per balance: CPU seconds, sets found and each arm's (work, seconds), or None past
    ``deadline``."""
    rows = []
    context = multiprocessing.get_context("fork")
    for balance in ("time", "work"):
        receive, send = context.Pipe(duplex=False)
        child = context.Process(target=_long_cycle_child, args=(send, balance))
        child.start()
        send.close()
        row: dict = {"balance": balance, "seconds": None}
        if receive.poll(deadline):
            seconds, sets, costs = receive.recv()
            row.update(
                seconds=round(seconds, 2),
                sets=sets,
                arms={a: {"work": w, "seconds": round(c, 2)} for a, (w, c) in costs.items()},
            )
        child.kill()
        child.join()
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=777, help="the draw (default 777)")
    parser.add_argument("--count", type=int, default=3, help="members per family (default 3)")
    parser.add_argument("--goals", type=int, default=2, help="goals per member (default 2)")
    parser.add_argument(
        "--long-cycle",
        action="store_true",
        help="the solver loops alone on a long cycle, balanced by time and by work",
    )
    parser.add_argument(
        "--deadline", type=float, default=60.0, help="seconds per run of --long-cycle"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.long_cycle:
        found = long_cycle(args.deadline)
        if args.json:
            print(json.dumps(found))
            return
        for row in found:
            if row["seconds"] is None:
                print(f"  by {row['balance']}: no answer within {args.deadline:g} s")
                continue
            arms = ", ".join(
                f"{a} {v['work']:,} units in {v['seconds']:.2f} s" for a, v in row["arms"].items()
            )
            print(f"  by {row['balance']}: {row['sets']} sets in {row['seconds']:.2f} s ({arms})")
        return
    warmup, goals, _ = members("back_edges", 1, seed=12345)[0]  # imports and first calls
    program = SupportProgram.of(index_of(warmup), index_of(warmup).number[goals[0]])
    for _ in enumerate_minimal(program, DEFAULT_SOLVER):
        pass
    ratios = unit_costs(args.seed, args.count, args.goals)
    rows = []
    for arm, found in ratios.items():
        row: dict = {"arm": arm, "goals": len(found)}
        if len(found) >= 2:
            low, median, high = statistics.quantiles(found, n=4)
            row.update(median=round(median, 2), q1=round(low, 2), q3=round(high, 2))
        rows.append(row)
    if args.json:
        print(
            json.dumps(
                {
                    "seed": args.seed,
                    "label_unit": LABEL_UNIT,
                    "entry_per_clause": ENTRY_PER_CLAUSE,
                    "arms": rows,
                }
            )
        )
        return
    print(
        "seconds per unit of work over the lazy loop's"
        f" (LABEL_UNIT = {LABEL_UNIT}, ENTRY_PER_CLAUSE = {ENTRY_PER_CLAUSE})"
    )
    for row in rows:
        if "median" in row:
            print(
                f"  {row['arm']:12} {row['goals']:3} goals: median {row['median']:.2f}"
                f" (quartiles {row['q1']:.2f}-{row['q3']:.2f})"
            )
        else:
            print(f"  {row['arm']:12} {row['goals']:3} goals: too few to say")


if __name__ == "__main__":
    main()
