"""What a unit of work costs in each arm of the interpreted portfolio, in CPU time.

    python -m benchmarks.bench_portfolio_units [--seed 777] [--count 3] [--goals 2] [--json]

The portfolio (:mod:`theory.solver.portfolio`) advances the arm that has done the least work, so its
bound (a query costs about the number of arms times the best arm's work) holds in time only
if a unit of work costs about the same in every arm. For each goal of ``--count`` members of
every loop family (:mod:`benchmarks.loop_families`, drawn with ``--seed``; 777 is a draw no
other benchmark uses), :func:`theory.solver.justifications.enumerate_minimal` runs with its costs
recorded, and each arm's seconds per unit of work is divided by the lazy solver loop's on the
same goal (arms under 2 ms of CPU on a goal are left out: too short to time). The label arm's
work is charged :data:`~theory.solver.justifications.LABEL_UNIT` units per set formed, so its ratio
near 1 means the charge is calibrated; ``ratio x LABEL_UNIT`` is what a set formed costs in
lazy-loop steps. The ranked arm is charged :data:`~theory.solver.justifications.ENTRY_PER_CLAUSE`
units per clause of its rankings before its first turn, for building them: the row
``ranked build`` times that build (the ranked solver loop's encoding and its python-sat
solver) per clause of :meth:`~theory.solver.completion.SupportProgram.ranking_size`, over the lazy
loop's seconds per unit and over the charge, so near 1 is calibrated again.

``--compiled`` measures the same for the compiled portfolio
(:func:`theory.solver.justifications._portfolio_search`), whose ranked arms are charged for building
their encoding :data:`~theory.solver.justifications.RANKED_WORK_PER_CLAUSE` units per clause of
the rankings: per goal of the loop families and of the held-out shapes, the compiled lazy
search's seconds per unit of work (decisions, and
:data:`~theory.solver.cdcl.CONFLICT_WORK` per conflict) when it runs to the end, and the ranked
encoding's build (:func:`theory.solver.cone_cnf.ranked_cone_cnf`) per clause of the rankings in
those units, against the charge.

``--long-cycle`` measures instead why solver loops that run alone balance CPU time rather
than work (:class:`theory.solver.portfolio.Portfolio`): on the first member of the cycles family
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
from theory.model.index import index_of
from theory.solver.completion import SupportProgram
from theory.solver.justifications import (
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


def compiled_unit_costs(seed: int, count: int, goals: int) -> dict[str, list[float]]:
    """Per goal: the compiled lazy search's microseconds per unit of work, and the ranked
    build's microseconds per clause of the rankings over that (cyclic cones only)."""
    from benchmarks.loop_families import HELD_OUT
    from theory.solver.cdcl import ATTEMPTS, CONFLICT_WORK, CONFLICTS, DECISIONS, search
    from theory.solver.cone_cnf import cone_cnf, ranked_cone_cnf
    from theory.solver.cone_kernel import ConeOracle
    from theory.solver.exchange import Exchange

    found: dict[str, list[float]] = {"lazy us per unit": [], "ranked build per clause": []}
    for family in [*FAMILIES, *HELD_OUT]:
        for structure, claims, _ in members(family, count, seed=seed):
            index = index_of(structure)
            for claim in claims[:goals]:
                root = index.number[claim]
                oracle = ConeOracle(index, root)
                cnf = cone_cnf(oracle)
                runs, seconds = 0, 0.0
                while seconds < SHORTEST and runs < 100:  # repeated: most goals take < 1 ms
                    started = time.process_time()
                    counts = search(cnf, Exchange(oracle, attempts=ATTEMPTS))
                    seconds += time.process_time() - started
                    runs += 1
                work = int(counts[DECISIONS] + CONFLICT_WORK * counts[CONFLICTS])
                if work <= 0:
                    continue
                per_unit = seconds / runs / work
                found["lazy us per unit"].append(per_unit * 1e6)
                program = SupportProgram.of(index, root)
                clauses = program.ranking_size()
                if not program.cyclic or clauses == 0:
                    continue
                runs, build = 0, 0.0
                while build < SHORTEST and runs < 100:
                    started = time.process_time()
                    ranked_cone_cnf(oracle, index, root)
                    build += time.process_time() - started
                    runs += 1
                found["ranked build per clause"].append(build / runs / clauses / per_unit)
    return found


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
    parser.add_argument(
        "--compiled",
        action="store_true",
        help="the compiled portfolio: its lazy search's unit and the ranked build per clause",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.compiled:
        from benchmarks.bench_loop_families import warm
        from theory.solver.justifications import RANKED_WORK_PER_CLAUSE

        warm()  # the kernels loaded and compiled before anything is timed

        table = []
        for name, measured in compiled_unit_costs(args.seed, args.count, args.goals).items():
            entry: dict = {"measure": name, "goals": len(measured)}
            if len(measured) >= 2:
                low, median, high = statistics.quantiles(measured, n=4)
                entry.update(
                    median=round(median, 3),
                    q1=round(low, 3),
                    q3=round(high, 3),
                    max=round(max(measured), 3),
                )
            table.append(entry)
        if args.json:
            print(json.dumps({"charge_per_clause": RANKED_WORK_PER_CLAUSE, "rows": table}))
            return
        print(f"charge per ranking clause: {RANKED_WORK_PER_CLAUSE:g} units")
        for entry in table:
            print("  " + ", ".join(f"{k} {v}" for k, v in entry.items()))
        return
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
    for arm, per_goal in ratios.items():
        line: dict = {"arm": arm, "goals": len(per_goal)}
        if len(per_goal) >= 2:
            low, middle, high = statistics.quantiles(per_goal, n=4)
            line.update(median=round(middle, 2), q1=round(low, 2), q3=round(high, 2))
        rows.append(line)
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
