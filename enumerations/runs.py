"""Whole runs: every n up to a bound, and the measured n = 7 slice with its cost estimate."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from enumerations.executor import ShardExecutor
from enumerations.flat import (
    MAX_COUNTEREXAMPLES,
    Counterexample,
    FlatTally,
    SurvivalRule,
    exact_survival,
    flat_shard,
    influence_survival,
    plan_shards,
    shard_count_rows,
)
from enumerations.monotone import DEDEKIND, block_bounds

# progress(label, done, total): units are functions checked
Progress = Callable[[str, int, int], None]


def run_flat(
    max_n: int,
    executor: ShardExecutor,
    *,
    min_n: int = 0,
    exact: SurvivalRule = exact_survival,
    influence: SurvivalRule = influence_survival,
    shards_per_worker: int = 4,
    progress: Progress | None = None,
    limit: int = MAX_COUNTEREXAMPLES,
) -> list[FlatTally]:
    """Exhaustive tallies for n = min_n .. max_n (max_n <= 6); ``seconds`` is wall-clock."""
    if not 0 <= min_n <= max_n <= 6:
        raise ValueError("exhaustive runs cover 0 <= n <= 6 (n = 7 runs as a slice)")
    results = []
    for n in range(min_n, max_n + 1):
        if executor.kind == "serial":
            # one process: balance is irrelevant, a few pieces only move the progress bar
            rows = shard_count_rows(n)
            shards = block_bounds(rows, -(-rows // 8)) if n >= 6 else [(0, rows)]
        else:
            shards = plan_shards(n, executor.workers * shards_per_worker)
        began = time.perf_counter()
        total = FlatTally(n=n)
        for part in executor.map(
            flat_shard, [(n, a, b, exact, influence, limit) for a, b in shards]
        ):
            total.merge(part, limit)
            if progress:
                progress(f"n = {n}", total.monotone_functions, DEDEKIND[n])
        total.seconds = time.perf_counter() - began
        results.append(total)
    return results


@dataclass
class SliceReport:
    """A random sample of the n = 7 shards (one shard = one ``f1`` row of the D(6) list)."""

    rows_total: int
    rows_run: int
    seed: int
    workers: int
    tally: FlatTally
    shard_seconds: list[float] = field(default_factory=list)  # wall-clock per shard
    shard_cpu_seconds: list[float] = field(default_factory=list)  # CPU time per shard
    shard_amortized_seconds: list[float] = field(default_factory=list)  # build charged pro rata
    wall_seconds: float = 0.0

    @property
    def core_seconds(self) -> float:
        """CPU seconds of the shards: the cost of the work itself. On a shared machine the
        wall-clock per shard is inflated by other jobs; it is reported next to it."""
        return sum(self.shard_cpu_seconds)

    @property
    def shard_wall_seconds(self) -> float:
        return sum(self.shard_seconds)

    @property
    def estimated_core_hours_wall(self) -> float:
        """The same estimate from wall-clock per shard (an upper bound under contention)."""
        return self.shard_wall_seconds / max(1, self.rows_run) * self.rows_total / 3600

    @property
    def mean_row_seconds(self) -> float:
        """Mean CPU seconds per sampled row, the candidate build of its ``b1`` charged pro
        rata to the rows that share it (as in a full run over contiguous row ranges)."""
        return sum(self.shard_amortized_seconds) / max(1, self.rows_run)

    @property
    def estimated_core_hours(self) -> float:
        """Mean amortised CPU seconds per sampled row times the number of rows (an unbiased
        estimate of the core-hours of a full run)."""
        return self.mean_row_seconds * self.rows_total / 3600

    @property
    def estimated_core_hours_unshared(self) -> float:
        """The same without sharing the candidate build (each row builds its own): what
        shards of scattered single rows would cost."""
        return self.core_seconds / max(1, self.rows_run) * self.rows_total / 3600

    @property
    def estimated_core_hours_stderr(self) -> float:
        """Standard error of :attr:`estimated_core_hours` (sample standard deviation of the
        per-shard CPU seconds / sqrt(shards), scaled; sampling without replacement from 7.8e6
        rows makes the finite-population correction negligible)."""
        k = len(self.shard_cpu_seconds)
        if k < 2:
            return float("nan")
        return statistics.stdev(self.shard_amortized_seconds) / k**0.5 * self.rows_total / 3600

    @property
    def functions_per_core_second(self) -> float:
        return self.tally.monotone_functions / self.core_seconds if self.core_seconds else 0.0

    @property
    def estimated_core_hours_by_rate(self) -> float:
        """D(7) divided by the sampled per-function rate (a second, cruder estimate)."""
        rate = (
            self.tally.monotone_functions / sum(self.shard_amortized_seconds)
            if sum(self.shard_amortized_seconds)
            else 0.0
        )
        return DEDEKIND[7] / rate / 3600 if rate else float("inf")

    @property
    def sampled_dedekind_estimate(self) -> float:
        """Mean functions per sampled row times the rows: how representative the slice is
        (D(7) = 2,414,682,040,998)."""
        return self.tally.monotone_functions / max(1, self.rows_run) * self.rows_total

    def to_dict(self) -> dict:
        return {
            "n": 7,
            "rows_total": self.rows_total,
            "rows_run": self.rows_run,
            "seed": self.seed,
            "workers": self.workers,
            "functions_checked": self.tally.monotone_functions,
            "unique_minimal": self.tally.unique_minimal,
            "influence_exact": self.tally.influence_exact,
            "theorem_holds": self.tally.theorem_holds,
            "mismatches": self.tally.mismatches,
            "counterexamples": [c.to_dict() for c in self.tally.counterexamples],
            "wall_seconds": round(self.wall_seconds, 3),
            "core_seconds": round(self.core_seconds, 3),
            "shard_wall_seconds": round(self.shard_wall_seconds, 3),
            "median_row_cpu_seconds": round(statistics.median(self.shard_cpu_seconds), 6)
            if self.shard_cpu_seconds
            else None,
            "mean_row_cpu_seconds": round(self.mean_row_seconds, 6),
            "functions_per_core_second": round(self.functions_per_core_second),
            "estimated_core_hours": round(self.estimated_core_hours, 2),
            "estimated_core_hours_stderr": round(self.estimated_core_hours_stderr, 2)
            if len(self.shard_cpu_seconds) >= 2
            else None,
            "estimated_core_hours_by_rate": round(self.estimated_core_hours_by_rate, 2),
            "estimated_core_hours_wall": round(self.estimated_core_hours_wall, 2),
            "estimated_core_hours_unshared": round(self.estimated_core_hours_unshared, 2),
            "sampled_dedekind_estimate": round(self.sampled_dedekind_estimate),
            "dedekind_7": DEDEKIND[7],
        }


def run_n7_slice(
    rows: int,
    executor: ShardExecutor,
    *,
    seed: int = 7,
    exact: SurvivalRule = exact_survival,
    influence: SurvivalRule = influence_survival,
    progress: Progress | None = None,
    limit: int = MAX_COUNTEREXAMPLES,
) -> SliceReport:
    """Check ``rows`` n = 7 shards drawn uniformly (seeded, without replacement).

    Per-shard CPU and wall seconds are measured inside the worker and exclude the one-time construction
    of the D(6) list in each worker process (about a second, amortised over millions of
    shards in a full run).
    """
    total_rows = shard_count_rows(7)
    rng = np.random.default_rng(seed)
    picked = sorted(
        int(r) for r in rng.choice(total_rows, size=min(rows, total_rows), replace=False)
    )
    report = SliceReport(total_rows, len(picked), seed, executor.workers, FlatTally(n=7))
    began = time.perf_counter()
    for part in executor.map(flat_shard, [(7, r, r + 1, exact, influence, limit) for r in picked]):
        report.tally.merge(part, limit)
        report.shard_seconds.append(part.seconds)
        report.shard_cpu_seconds.append(part.cpu_seconds)
        report.shard_amortized_seconds.append(part.amortized_cpu_seconds)
        if progress:
            progress("n = 7 slice", len(report.shard_seconds), len(picked))
    report.wall_seconds = time.perf_counter() - began
    return report


__all__ = ["Counterexample", "Progress", "SliceReport", "run_flat", "run_n7_slice"]
