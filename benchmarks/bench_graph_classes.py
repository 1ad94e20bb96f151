"""Benchmark of the graph classes: generated directly against the labelled walk, and
Burnside's count, per family; optionally the sampled cost estimate of checking them.

    python benchmarks/bench_graph_classes.py                       # 3/3/4, 3/3/5, 4/4/4
    python benchmarks/bench_graph_classes.py --families 3,3,4 --walk   # + the labelled walk
    python benchmarks/bench_graph_classes.py --families 4,4,4 --estimate 30   # 30 CPU-s sample

CPU seconds (``time.process_time``) next to wall-clock: the machine is shared. The numba
kernel is compiled (or loaded from its cache) before the first timing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from enumerations import burnside  # noqa: E402
from enumerations.graphparts import estimate_cost  # noqa: E402
from enumerations.graphs import GraphFamily, group_maps, iso_classes  # noqa: E402
from enumerations.orderly import class_sizes, levels  # noqa: E402


def _timed(function):  # type: ignore[no-untyped-def]
    began, began_cpu = time.perf_counter(), time.process_time()
    result = function()
    return result, time.process_time() - began_cpu, time.perf_counter() - began


def measure(family: GraphFamily, walk: bool, estimate: float) -> dict:
    E, C, J = family.evidence, family.claims, family.max_justifications
    counted, burnside_cpu, _ = _timed(lambda: burnside.class_counts_by_size(E, C, J))
    maps = group_maps(family)
    found, cpu, wall = _timed(lambda: levels(maps, J))
    generated = [len(rows) for rows, _ in found]
    labelled = sum(int(class_sizes(aut, maps.shape[0]).sum()) for _, aut in found)
    row = {
        "family": family.to_dict(),
        "group_order": int(maps.shape[0]),
        "labelled_count": family.labelled_count(),
        "classes": sum(generated),
        "classes_by_size": generated,
        "burnside_by_size": counted,
        "equal_to_burnside": generated == counted,
        "sizes_add_up": labelled == family.labelled_count(),
        "generation_cpu_seconds": round(cpu, 3),
        "generation_wall_seconds": round(wall, 3),
        "burnside_cpu_seconds": round(burnside_cpu, 3),
    }
    if walk:
        (reps, _, _), walk_cpu, walk_wall = _timed(lambda: iso_classes(family))
        row.update(
            walk_classes=len(reps),
            walk_cpu_seconds=round(walk_cpu, 3),
            walk_wall_seconds=round(walk_wall, 3),
        )
    if estimate:
        row["estimate"] = estimate_cost(family, budget_seconds=estimate).to_dict()
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--families",
        default="3,3,4;3,3,5;4,4,4",
        help="E,C,J families separated by ';' (default 3,3,4;3,3,5;4,4,4)",
    )
    parser.add_argument(
        "--walk",
        action="store_true",
        help="also time the labelled walk (enumerations.graphs.iso_classes; "
        "only families of at most 2e7 labelled graphs)",
    )
    parser.add_argument(
        "--estimate",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="also estimate the check's cost from a sample of SECONDS CPU",
    )
    parser.add_argument("--json", metavar="FILE", help="write the rows as JSON")
    args = parser.parse_args()
    levels(group_maps(GraphFamily(2, 2, 2)), 2)  # compile the kernel outside the timings
    rows = []
    print(f"load average {os.getloadavg()[0]:.1f}")
    for text in args.families.split(";"):
        family = GraphFamily(*(int(x) for x in text.split(",")))
        row = measure(family, args.walk and family.labelled_count() <= 20_000_000, args.estimate)
        rows.append(row)
        print(
            f"{text}: {row['classes']:,} classes (Burnside {sum(row['burnside_by_size']):,}, "
            f"equal per size: {row['equal_to_burnside']}), sizes add up to "
            f"{row['labelled_count']:,}: {row['sizes_add_up']}; generated in "
            f"{row['generation_cpu_seconds']} CPU-s ({row['generation_wall_seconds']} s wall)"
            + (
                f"; labelled walk {row['walk_cpu_seconds']} CPU-s ({row['walk_wall_seconds']} s "
                f"wall, {row['walk_classes']:,} classes)"
                if "walk_classes" in row
                else ""
            )
            + (
                f"; check estimated {row['estimate']['estimated_core_hours']} core-hours "
                f"({row['estimate']['sampled_classes']:,} classes timed)"
                if "estimate" in row
                else ""
            ),
            flush=True,
        )
    print(f"load average {os.getloadavg()[0]:.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
