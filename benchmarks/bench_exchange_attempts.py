"""The compiled search's exchange attempts per model (:data:`theory.solver.cdcl.ATTEMPTS`) against
its time, per loop family and held-out shape.

    python -m benchmarks.bench_exchange_attempts [--attempts 0,16,64] [--seed 61]
        [--held-out-seed 62] [--scale 1] [--json]

After each true model the exchange step of the compiled search (:mod:`theory.solver.exchange`) may
look for more justifications without the solver, up to ``attempts`` tries (and
:data:`~theory.solver.exchange.PATIENCE` failed tries in a row); the solver then learns all it found
at once. For every goal of 3 members of each loop family (``--seed``), 2 members of each
held-out shape (``--held-out-seed``, ``--scale``) and the case files, the search
(:func:`theory.solver.cdcl.search`, run to the end) is timed in process, best of 3, with each number
of attempts, and the answers compared. Printed: each group's total milliseconds per setting.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from typing import Any

from benchmarks.loop_families import FAMILIES, HELD_OUT, Member, case_files, members
from theory.model.index import index_of
from theory.solver.cdcl import search
from theory.solver.cone_cnf import PREMISE, cone_cnf
from theory.solver.cone_kernel import ConeOracle
from theory.solver.exchange import Exchange


def _best_of(
    cnf: Any, oracle: ConeOracle, ids: Sequence[str], attempts: int, repeats: int = 3
) -> tuple[float, Any]:
    best, found = float("inf"), None
    for _ in range(repeats):
        exchange = Exchange(oracle, attempts=attempts)
        started = time.perf_counter()
        search(cnf, exchange)
        best = min(best, time.perf_counter() - started)
        found = exchange.named(ids)
    return best, found


def totals(groups: dict[str, list[Member]], settings: list[int]) -> dict[str, dict[int, float]]:
    """Per group, per number of attempts: total seconds of the search over its goals."""
    out: dict[str, dict[int, float]] = {}
    for name, drawn in groups.items():
        spent = dict.fromkeys(settings, 0.0)
        for structure, goals, _ in drawn:
            index = index_of(structure)
            for claim in goals:
                oracle = ConeOracle(index, index.number[claim])
                cnf = cone_cnf(oracle)
                first, last = oracle.shape[2][0], oracle.shape[2][1]
                if (cnf.body[first:last] == PREMISE).any():
                    continue  # a premise: answered without a search
                answers = set()
                for attempts in settings:
                    seconds, found = _best_of(cnf, oracle, index.ids, attempts)
                    spent[attempts] += seconds
                    answers.add(found)
                assert len(answers) == 1, (name, claim)  # every setting finds the same sets
        out[name] = spent
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--attempts", default="0,16,64", help="settings to compare")
    parser.add_argument("--seed", type=int, default=61, help="the families' draw")
    parser.add_argument("--held-out-seed", type=int, default=62, help="the held-out draw")
    parser.add_argument("--scale", type=int, default=1, help="the held-out shapes' scale")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    settings = [int(a) for a in args.attempts.split(",") if a]
    if not settings or min(settings) < 0 or args.scale < 1:
        parser.error("--attempts needs numbers of at least 0, --scale at least 1")
    from benchmarks.bench_loop_families import warm

    warm()  # the kernels loaded and compiled before anything is timed
    groups: dict[str, list[Member]] = {"case files": case_files()}
    groups.update((f, members(f, 3, args.seed)) for f in FAMILIES)
    groups.update((f, members(f, 2, args.held_out_seed, args.scale)) for f in HELD_OUT)
    found = totals(groups, settings)
    if args.json:
        print(json.dumps({g: {str(k): v for k, v in row.items()} for g, row in found.items()}))
        return
    print("total ms of the compiled search, best of 3 per goal, by exchange attempts per model")
    print(f"  {'group':14s}" + "".join(f"{a:>10d}" for a in settings))
    for group, row in found.items():
        print(f"  {group:14s}" + "".join(f"{1e3 * row[a]:10.1f}" for a in settings))


if __name__ == "__main__":
    main()
