"""The compiled n = 7 kernel against the numpy kernel on the same random rows, one run.

    python -m benchmarks.bench_kernel [--blocks 40] [--block-rows 50] [--seed 15] [--json]
                                      [--against CHECKOUT]

Draws ``--blocks`` random blocks of ``--block-rows`` consecutive n = 7 rows (seeded), checks
each with both kernels in this process, requires equal tallies, and reports functions per
CPU-second (``time.thread_time``, table building excluded) for each, and the full-run
estimate D(7) / compiled rate. ``--against CHECKOUT`` also runs the compiled kernel of
another checkout (its ``enumerations/compiled.py``, e.g. an older commit's) on the same
blocks, alternating with this one, and reports its rate and the ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from enumerations.compiled import compiled_shard, quarter_tables
from enumerations.flat import flat_shard
from enumerations.monotone import DEDEKIND

FIELDS = ("monotone_functions", "active", "unique_minimal", "influence_exact", "mismatches")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--blocks", type=int, default=40)
    parser.add_argument("--block-rows", type=int, default=50)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--against", default=None, help="another checkout to compare with")
    args = parser.parse_args()
    other = _other_kernel(args.against) if args.against else None
    rows = quarter_tables(7).rows
    compiled_shard(7, 0, 1)  # build the tables and compile outside the timings
    flat_shard(7, 0, 1)
    rng = np.random.default_rng(args.seed)
    starts = sorted(
        int(s) for s in rng.choice(rows - args.block_rows, size=args.blocks, replace=False)
    )
    functions, compiled_cpu, numpy_cpu, other_cpu, agree = 0, 0.0, 0.0, 0.0, True
    if other is not None:
        other(7, 0, 1)
    load_before = os.getloadavg()[0]
    for a in starts:
        b = a + args.block_rows
        began = time.thread_time()
        fast = compiled_shard(7, a, b)
        compiled_cpu += time.thread_time() - began
        if other is not None:
            began = time.thread_time()
            theirs = other(7, a, b)
            other_cpu += time.thread_time() - began
            agree &= all(getattr(fast, f) == getattr(theirs, f) for f in FIELDS)
        began = time.thread_time()
        slow = flat_shard(7, a, b)
        numpy_cpu += time.thread_time() - began
        agree &= all(getattr(fast, f) == getattr(slow, f) for f in FIELDS)
        functions += fast.monotone_functions
    result = {
        "rows": args.blocks * args.block_rows,
        "functions": functions,
        "tallies_equal": agree,
        "compiled_cpu_seconds": round(compiled_cpu, 3),
        "numpy_cpu_seconds": round(numpy_cpu, 3),
        "compiled_functions_per_cpu_second": round(functions / compiled_cpu),
        "numpy_functions_per_cpu_second": round(functions / numpy_cpu),
        "speed_up": round(numpy_cpu / compiled_cpu, 1),
        "full_run_core_hours_estimate": round(DEDEKIND[7] / (functions / compiled_cpu) / 3600, 2),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }
    if other is not None:
        result["against"] = args.against
        result["against_functions_per_cpu_second"] = round(functions / other_cpu)
        result["compiled_over_against"] = round(other_cpu / compiled_cpu, 2)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for key, value in result.items():
        print(f"{key:36} {value}")


def _other_kernel(checkout: str) -> Callable[..., Any]:
    """``compiled_shard`` of ``CHECKOUT/enumerations/compiled.py``, loaded beside this one (its
    imports resolve to this tree's modules, which it shares)."""
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(checkout) / "enumerations" / "compiled.py"
    spec = importlib.util.spec_from_file_location("bench_kernel_against", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"--against: no enumerations/compiled.py in {checkout}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module.compiled_shard  # type: ignore[no-any-return]


if __name__ == "__main__":
    main()
