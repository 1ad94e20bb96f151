"""The reviewer on a batch: ordinary calculations, and hostile ones beside a real discrepancy.

1. ``--calculations N`` ordinary recorded calculations (arithmetic, units, statistics), one in
   ten recorded wrong: wall time of ``review`` and the worker processes it started (a pool:
   a few, not N).
2. The hostile batch of issue 13 (``factorial(10000)``, ``10**10000``, ``99999**9999``,
   ``10**4000*10**4000``, ``exp(10**10000)``, ``exp(exp(exp(10)))``, ...), written into the
   store behind the API's back as a foreign writer could (``add-evidence`` refuses them), next
   to ``6*7`` recorded as 41: every hostile one is refused with its reason, the 41 is still
   withdrawn, and the review takes seconds (before: a traceback, or more than 150 s).

    nice -n 19 python3 -m benchmarks.bench_review --calculations 1000
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

from jtms.calc.reviewer import review
from jtms.calc.sandbox import Sandbox
from jtms.memory.memory import Memory
from jtms.store.sqlite import plant_foreign_evidence

HOSTILE = [
    "factorial(10000)",
    "10**10000",
    "99999**9999",
    "10**4000*10**4000",
    "exp(10**10000)",
    "exp(exp(exp(10)))",
    "9**9**9",
    "sin(10**1000)",
    "__import__('os').system('true')",
    "(1 + 10**-3000)**(10**3000)",
]


def ordinary(k: int, rng: random.Random) -> tuple[str, str]:
    a, b = rng.randint(2, 999), rng.randint(2, 99)
    kind = k % 4
    if kind == 0:
        expression, value = f"{a}*{b} + {b}", str(a * b + b)
    elif kind == 1:
        expression, value = f"{a}/{b}", f"{a / b:.6f}"
    elif kind == 2:
        expression, value = f"{a}*km/({b}*hour)", f"{a / b / 3.6:.4f}*m/s"
    else:
        expression, value = f"mean([{a}, {b}, {a + b}])", f"{(2 * a + 2 * b) / 3:.5f}"
    if k % 10 == 9:
        value = value.replace("1", "2", 1) if "1" in value else value + "1"
    return expression, value


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the reviewer's workers)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def measure(calculations: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    started_workers = []
    original_spawn = Sandbox._spawn

    def counting_spawn(self: Sandbox) -> Any:
        started_workers.append(1)
        return original_spawn(self)

    Sandbox._spawn = counting_spawn  # type: ignore[method-assign]
    result: dict[str, Any] = {}
    try:
        with tempfile.TemporaryDirectory() as folder:
            db = Path(folder) / "m.db"
            with Memory.create(db, durability="off") as memory:
                nodes = [
                    {"id": f"k{k}", "kind": "evidence", "expression": e, "value": v}
                    for k, (e, v) in enumerate(ordinary(k, rng) for k in range(calculations))
                ]
                memory.import_graph({"nodes": nodes, "justifications": []})
                started, cpu = time.perf_counter(), _cpu()
                report = review(memory, dry_run=True)
                result["ordinary"] = {
                    "calculations": calculations,
                    "seconds": round(time.perf_counter() - started, 3),
                    "cpu_seconds": round(_cpu() - cpu, 3),
                    "workers_started": len(started_workers),
                    "discrepancies": len(report.discrepancies),
                    "refused": len(report.refused),
                }
            hostile_db = Path(folder) / "hostile.db"
            with Memory.create(hostile_db, durability="off") as memory:
                memory.add_evidence("wrong", expression="6*7", value="41")
                memory.add_claim("answer", [["wrong"]])
            plant_foreign_evidence(
                hostile_db, [(f"h{k}", text, "1") for k, text in enumerate(HOSTILE)]
            )
            with Memory.open(hostile_db) as memory:
                started, cpu = time.perf_counter(), _cpu()
                report = review(memory)
                result["hostile"] = {
                    "hostile": len(HOSTILE),
                    "seconds": round(time.perf_counter() - started, 3),
                    "cpu_seconds": round(_cpu() - cpu, 3),
                    "refused": len(report.refused),
                    "discrepancies": [d.id for d in report.discrepancies],
                    "retired": sorted(report.audit.retired) if report.audit else [],
                    "reasons": sorted({r.problem for r in report.refused})[:3],
                }
    finally:
        Sandbox._spawn = original_spawn  # type: ignore[method-assign]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calculations", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.calculations, args.seed), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
