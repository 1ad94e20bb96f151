"""Benchmark of `jtms enumerate`: vectorised kernel vs the straightforward checks, executors,
the n = 7 slice and the graph enumeration, side by side in one run.

    python benchmarks/bench_enumerate.py                  # everything (a few minutes)
    python benchmarks/bench_enumerate.py --repeats 7 --slice-rows 300 --json bench.json
    python benchmarks/bench_enumerate.py --python-n6      # also the pure-Python n = 6 (about 4 CPU-minutes)

Timings are wall-clock on a shared machine: each figure is the median of --repeats runs
(min and max are printed too), and the load average is recorded next to them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from enumerations.executor import start_executor  # noqa: E402
from enumerations.flat import tally_n  # noqa: E402
from enumerations.graphs import GraphFamily, run_graphs  # noqa: E402
from enumerations.monotone import DEDEKIND, monotone_tables  # noqa: E402
from enumerations.reference import python_int_tally, reference_tally  # noqa: E402
from enumerations.runs import run_flat, run_n7_slice  # noqa: E402

CPU_RUNS: list[float] = []  # process CPU seconds of the last timed() call, per run


def timed(function, repeats):
    runs, result = [], None
    CPU_RUNS.clear()
    for _ in range(repeats):
        began, began_cpu = time.perf_counter(), time.process_time()
        result = function()
        runs.append(time.perf_counter() - began)
        CPU_RUNS.append(time.process_time() - began_cpu)
    return result, runs


def summary(runs, cpu=None):
    out = {"median": statistics.median(runs), "min": min(runs), "max": max(runs), "runs": runs}
    if cpu:
        out["cpu_median"] = statistics.median(cpu)
        out["cpu_runs"] = list(cpu)
    return out


def fresh(n):
    """n from nothing: clear the table caches so generating the functions is timed too."""
    monotone_tables.cache_clear()
    return tally_n(n)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--slice-rows", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--graphs", default="3,3,4", help="E,C,J of the graph family ('' to skip)")
    parser.add_argument("--python-n6", action="store_true", help="also time the pure-Python n = 6")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    out: dict = {"load_before": os.getloadavg(), "cpus": os.cpu_count()}

    print("flat universes (serial)")
    print(
        f"{'n':>2} {'functions':>10} {'vectorised s (median)':>22} {'python-int s':>13} "
        f"{'theory-rules s':>15} {'ratio int/vec':>14} {'ratio rules/vec':>16}"
    )
    flat = []
    for n in range(7):
        tally, runs = timed(lambda: fresh(n), args.repeats)
        row = {
            "n": n,
            "monotone_functions": tally.monotone_functions,
            "theorem_holds": tally.theorem_holds,
            "vectorised": summary(runs, CPU_RUNS),
        }
        assert tally.monotone_functions == DEDEKIND[n]
        if n <= 5 or args.python_n6:
            slow, slow_runs = timed(lambda: python_int_tally(n), 1 if n >= 5 else args.repeats)
            assert (slow.unique_minimal, slow.influence_exact, slow.theorem_holds) == (
                tally.unique_minimal,
                tally.influence_exact,
                tally.theorem_holds,
            )
            row["python_int"] = summary(slow_runs, CPU_RUNS)
        if n <= 5:
            ref, ref_runs = timed(lambda: reference_tally(n), 1 if n >= 5 else args.repeats)
            assert (ref.unique_minimal, ref.influence_exact, ref.theorem_holds) == (
                tally.unique_minimal,
                tally.influence_exact,
                tally.theorem_holds,
            )
            row["theory_rules"] = summary(ref_runs, CPU_RUNS)
        vec = row["vectorised"]["median"]
        pint = row.get("python_int", {}).get("median")
        rules = row.get("theory_rules", {}).get("median")
        print(
            f"{n:>2} {tally.monotone_functions:>10,} {vec:>22.5f} "
            f"{(f'{pint:.4f}' if pint else '-'):>13} {(f'{rules:.4f}' if rules else '-'):>15} "
            f"{(f'{pint / vec:,.3g}x' if pint else '-'):>14} {(f'{rules / vec:,.3g}x' if rules else '-'):>16}"
        )
        flat.append(row)
    out["flat"] = flat
    n6 = flat[6]["vectorised"]
    print(
        f"n = 6 exhaustive (generation included): median {n6['median']:.3f} s wall over "
        f"{args.repeats} runs (min {n6['min']:.3f}, max {n6['max']:.3f}); median CPU "
        f"{n6['cpu_median']:.3f} s; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
    )
    five = flat[5]
    for clock, key in (("wall", "median"), ("CPU", "cpu_median")):
        print(
            f"n = 5 ratios (medians, {clock}): python-int / vectorised "
            f"{five['python_int'][key] / five['vectorised'][key]:,.0f}x, theory rules / vectorised "
            f"{five['theory_rules'][key] / five['vectorised'][key]:,.0f}x"
        )

    print("\nengines, n = 0..6 (wall-clock, executor start-up excluded)")
    executors = {}
    for label, kind, workers in (
        ("serial", "serial", 1),
        ("processes x2", "processes", 2),
        ("dask local x2", "dask", 2),
    ):
        with start_executor(kind, workers) as executor:
            run_flat(4, executor)  # warm the workers (imports, small tables)
            _, runs = timed(lambda: run_flat(6, executor), max(1, args.repeats // 2))
        executors[label] = summary(runs)  # CPU of worker processes is not in process_time
        print(
            f"  {label:<14} median {statistics.median(runs):.3f} s  (runs {', '.join(f'{r:.3f}' for r in runs)})"
        )
    out["executors"] = executors

    print(f"\nn = 7 slice: {args.slice_rows} random shards (seed {args.seed}), serial")
    with start_executor() as executor:
        report = run_n7_slice(args.slice_rows, executor, seed=args.seed)
    s = report.to_dict()
    out["n7_slice"] = s
    print(
        f"  {s['functions_checked']:,} functions in {s['core_seconds']:.1f} CPU-s "
        f"({s['shard_wall_seconds']:.1f} s wall in the shards; {s['functions_per_core_second']:,} "
        f"functions/CPU-s), theorem holds: {s['theorem_holds']}"
    )
    print(
        f"  full n = 7 run: {s['estimated_core_hours']:,.1f} ± {s['estimated_core_hours_stderr']} (1 s.e.) core-hours "
        f"(mean CPU s/shard x {s['rows_total']:,} shards); by per-function rate "
        f"{s['estimated_core_hours_by_rate']:,.1f}; from wall-clock {s['estimated_core_hours_wall']:,.1f}; "
        f"D(7) extrapolated {s['sampled_dedekind_estimate']:.3e} vs {s['dedekind_7']:.3e}"
    )

    if args.graphs:
        e, c, j = (int(x) for x in args.graphs.split(","))
        family = GraphFamily(e, c, j)
        print(f"\nmemory graphs {family.to_dict()}")
        for label, kind, workers in (("serial", "serial", 1), ("processes x2", "processes", 2)):
            with start_executor(kind, workers) as executor:
                tally = run_graphs(family, executor)
            g = tally.to_dict()
            out.setdefault("graphs", {})[label] = g
            print(
                f"  {label:<14} {g['seconds']:.1f} s wall, {g['cpu_seconds']:.1f} CPU-s in shards, "
                f"{g['classes_seconds']:.1f} s building classes: {g['graphs']:,} graphs, {g['classes']:,} classes, "
                f"{g['active_claims']:,} active claims, {g['unsafe_claims']:,} unsafe "
                f"(alternative_support {g['alternative_support']:,}, redundant_influence "
                f"{g['redundant_influence']:,}, both {g['both_kinds']:,}); verdicts agree: {g['verdicts_agree']}"
            )
    out["load_after"] = os.getloadavg()
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
