"""Scaling of the bounded proof of Theorem 1: z3 vs CaDiCaL, with and without symmetry
breaking, and DRUP certificate checking. One JSON object per line, flushed per instance,
so a long run can be stopped and still reported.

    python benchmarks/bench_proofs.py --solvers cadical,z3 --min-n 1 --max-n 11
    python benchmarks/bench_proofs.py --solvers cadical --min-n 12 --max-n 13 --symmetry both
    python benchmarks/bench_proofs.py --certify --min-n 1 --max-n 10 --symmetry both

The machine is shared (2 cores, other jobs running): read the seconds as +-50 %.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from proofs.bounded import solve  # noqa: E402
from proofs.certificate import certify  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--statement", default="boundary")
    parser.add_argument("--solvers", default="cadical,z3")
    parser.add_argument("--min-n", type=int, default=1)
    parser.add_argument("--max-n", type=int, default=10)
    parser.add_argument("--symmetry", choices=("off", "on", "both"), default="off")
    parser.add_argument("--certify", action="store_true", help="CaDiCaL + DRUP check instead")
    parser.add_argument("--checker", default="dratify")
    args = parser.parse_args()
    modes = {"off": [False], "on": [True], "both": [False, True]}[args.symmetry]
    for n in range(args.min_n, args.max_n + 1):
        for symmetry in modes:
            if args.certify:
                results = [certify(args.statement, n, args.checker, symmetry)]
            else:
                results = [solve(args.statement, n, s, symmetry) for s in args.solvers.split(",")]
            for r in results:
                row = {
                    "statement": r.statement,
                    "n": n,
                    "solver": r.solver,
                    "symmetry": symmetry,
                    "result": r.result,
                    "seconds": round(r.seconds, 3),
                    "cpu_seconds": None if r.cpu_seconds is None else round(r.cpu_seconds, 3),
                    **r.details,
                }
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
