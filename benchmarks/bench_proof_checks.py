"""The long versions of the proof-faithfulness checks (the tests run short ones):

- ``quantities``: both bounded encodings against theory on every quantity, on *every*
  active monotone function for n <= --exhaustive-max-n (default 5: 7,580 functions), samples
  above it up to the certified n;
- ``parts``: body, negated assertion and decoded models of every statement (mutants
  included) with --count samples per n;
- ``symmetry``: the emitted lex-leader constraints of every proved statement on --count
  sampled orbits per n.

One JSON object per line (check, n, ok, failing, CPU seconds); exit 1 if any check fails.

    python benchmarks/bench_proof_checks.py --checks quantities --max-n 5
    python benchmarks/bench_proof_checks.py --checks parts,symmetry --min-n 6 --max-n 9 --count 60
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from proofs.faithfulness import CERTIFIED_MAX_N, check_parts  # noqa: E402
from proofs.quantities import check_quantities  # noqa: E402
from proofs.statements import PROVED, STATEMENTS  # noqa: E402
from proofs.symmetry_check import check_emitted  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--checks", default="quantities,parts,symmetry")
    parser.add_argument("--min-n", type=int, default=1)
    parser.add_argument("--max-n", type=int, default=CERTIFIED_MAX_N)
    parser.add_argument("--exhaustive-max-n", type=int, default=5)
    parser.add_argument("--count", type=int, default=40, help="samples per n and statement")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    ok = True
    for n in range(args.min_n, args.max_n + 1):
        for check in args.checks.split(","):
            cpu = time.process_time()
            if check == "quantities":
                results = [
                    c
                    for s in PROVED
                    for c in check_quantities(
                        s.name,
                        n,
                        exhaustive=n <= args.exhaustive_max_n,
                        count=args.count,
                        seed=args.seed,
                    )
                ]
                checked = sum(c.checked for c in results)
            elif check == "parts":
                results = [
                    c
                    for name in STATEMENTS
                    for c in check_parts(name, n, count=args.count, seed=args.seed)
                ]
                checked = sum(c.checked for c in results)
            elif check == "symmetry":
                results = (
                    [check_emitted(s.name, n, count=args.count, seed=args.seed) for s in PROVED]
                    if n >= 2
                    else []
                )
                checked = sum(c.samples for c in results)
            else:
                raise SystemExit(f"unknown check {check!r}")
            bad = [repr(c) for c in results if not c.ok]
            ok = ok and not bad
            print(
                json.dumps(
                    {
                        "check": check,
                        "n": n,
                        "ok": not bad,
                        "checked": checked,
                        "exhaustive": check == "quantities" and n <= args.exhaustive_max_n,
                        "failing": bad,
                        "cpu_seconds": round(time.process_time() - cpu, 2),
                    }
                ),
                flush=True,
            )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
