"""The compiled per-function kernel (C, built at install): every monotone function of n = 2..7 variables.

Same question as :mod:`enumerations.flat` (the numpy kernel, kept as the reference): for each
monotone f, do exact and influence revision agree on every audit, and is that the same as
f having exactly one minimal justification? Here every function is checked one at a time
in a compiled loop, over an order of magnitude faster than the numpy kernel at n = 7
(``python -m benchmarks.bench_kernel`` measures both), which makes the full n = 7 run
(2,414,682,040,998 functions) a matter of core-hours. A quarter has 2**k <= 32 bits,
so the loop works on uint32 (16 lanes per AVX-512 vector, where the CPU has it). The loops
are C (``enumerations/monotone_kernel.h``, wrapped by :mod:`enumerations._monotone`), compiled
once per instruction set when the package is installed; the best instance the CPU runs is
chosen at import.

**Quarters.** Write k = n - 2. A table of f is four *quarters*, each the table of a
k-variable function (2**k bits): ``f = (a0, a1, b0, b1)``, quarter ``q`` holding the points
whose variables k, k+1 are the bits of q. The row of f is its upper half ``g1 = (b0, b1)``,
an entry of the D(n-1) list (``monotone_tables(n - 1)``, so rows are numbered exactly as in
:class:`enumerations.monotone.SevenRows`), and its lower half is ``g0 = (a0, a1)``. f is
monotone iff ``g0 <= g1`` and both halves are, that is ``a0 <= a1 <= b1``, ``a0 <= b0``,
``b0 <= b1``; so for a row, ``a1`` runs over the D(k) functions below ``b1`` and ``a0`` over
those below the meet ``a1 & b0``, itself monotone. Precomputed *down-sets* (for each D(k)
function, the list of D(k) functions below it) and a *meet table* (index of ``x & y``)
generate exactly the functions of a row, none twice and with no rejected candidates.

**Per function**, with ``min(x)`` the minimal true points of a k-variable table
(precomputed per D(k) function), the minimal points of f are, quarter by quarter,
``min(a0)``, ``min(a1) & ~a0``, ``min(b0) & ~a0``, ``min(b1) & ~b0 & ~a1`` (a point is minimal
iff it is true and no point one item smaller is). From them: the count (unique iff 1), the
essential variables U (those in some minimal point), the influence survival word
``AND_{i in U} x_i`` and its equality with the table (exact survival). Tallies are those of
:class:`enumerations.flat.FlatTally`; a function where ``agree != unique`` is recorded and
described as a counterexample by the same code as the numpy kernel's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from enumerations.flat import (
    MAX_COUNTEREXAMPLES,
    Counterexample,
    FlatTally,
    describe_counterexample,
    minimal_points,
)
from enumerations.monotone import U64, monotone_tables

MIN_N, MAX_N = 2, 7
_BAD_SLOTS = 64  # counterexample candidates recorded per kernel call


@dataclass(frozen=True)
class QuarterTables:
    """Precomputed D(k) data for the n = k + 2 kernel (read-only arrays)."""

    n: int
    tables: np.ndarray  # uint32, the D(k) tables (2**k <= 32 bits each)
    minimal: np.ndarray  # uint32, minimal true points of each
    down_off: np.ndarray  # int64, D(k) + 1 offsets into the down-set lists
    down_idx: np.ndarray  # int32, concatenated down-sets (D(k) indices, ascending)
    down_tab: np.ndarray  # uint32, tables[down_idx]
    down_min: np.ndarray  # uint32, minimal[down_idx]
    meet: np.ndarray  # int16/int32 (D(k), D(k)): index of tables[x] & tables[y]
    row_b0: np.ndarray  # int32 per row of n: index of b0 in D(k)
    row_b1: np.ndarray  # int32 per row of n: index of b1 in D(k)

    @property
    def rows(self) -> int:
        """Rows of n: the D(n - 1) functions ``g1``."""
        return len(self.row_b0)


@lru_cache(maxsize=None)
def quarter_tables(n: int) -> QuarterTables:
    """Build (once per process) the down-sets, meet table and row map for n (2 <= n <= 7)."""
    if not MIN_N <= n <= MAX_N:
        raise ValueError(f"the compiled kernel covers {MIN_N} <= n <= {MAX_N}, got {n}")
    k = n - 2
    tables = monotone_tables(k).astype(U64)
    minimal = minimal_points((tables.copy(),), k)[0].copy()
    count = len(tables)
    # down-sets, in index order: exactly the grouping of D(k + 1) by its high half
    below = [np.flatnonzero((tables & ~tables[m]) == 0).astype(np.int32) for m in range(count)]
    down_off = np.zeros(count + 1, dtype=np.int64)
    down_off[1:] = np.cumsum([len(b) for b in below])
    down_idx = np.concatenate(below)
    order = np.argsort(tables, kind="stable")
    ordered = tables[order]
    meet = np.empty((count, count), dtype=np.int16 if count < 2**15 else np.int32)
    for x in range(count):
        values = tables[x] & tables
        position = np.searchsorted(ordered, values)
        if not np.array_equal(ordered[position], values):
            raise AssertionError("the meet of two monotone functions is not in D(k)")
        meet[x] = order[position]
    # rows of n are D(n - 1) = pairs (b0, b1), b0 <= b1, grouped by b1: the down-sets again
    row_b1 = np.repeat(np.arange(count, dtype=np.int32), np.diff(down_off))
    row_b0 = down_idx.copy()
    quarter = 1 << k
    upper = monotone_tables(n - 1)
    if not np.array_equal(tables[row_b0] | (tables[row_b1] << U64(quarter)), upper):
        raise AssertionError("row map disagrees with the D(n - 1) list")
    # a quarter has 2**k <= 32 bits: the kernel works on uint32, twice the SIMD lanes of uint64
    # and half the memory traffic of the down-set streams
    tables, minimal = tables.astype(np.uint32), minimal.astype(np.uint32)
    result = QuarterTables(
        n,
        tables,
        minimal,
        down_off,
        down_idx,
        tables[down_idx],
        minimal[down_idx],
        meet,
        row_b0,
        row_b1,
    )
    for array in (
        tables,
        minimal,
        down_off,
        down_idx,
        meet,
        row_b0,
        row_b1,
        result.down_tab,
        result.down_min,
    ):
        array.setflags(write=False)
    return result


def _kernel(k: int) -> tuple[Callable[..., int], Callable[..., None]]:
    """The compiled kernel for k = n - 2 (:mod:`enumerations._monotone`, built when the package
    is installed): the rows kernel and the row sizes, with k bound."""
    from functools import partial

    from enumerations import _monotone

    return partial(_monotone.rows_kernel, k), _monotone.row_sizes


def compiled_shard(n: int, start: int, stop: int, limit: int = MAX_COUNTEREXAMPLES) -> FlatTally:
    """Check every n-variable function whose row ``g1`` lies in ``[start, stop)`` (rows as in
    :func:`enumerations.flat.flat_shard`), with the compiled kernel.

    A pure function of its arguments, so it runs the same in-process, in a process pool or
    on a Dask worker. ``seconds`` / ``cpu_seconds`` exclude the one-time build of the tables
    (cached per process).
    """
    data = quarter_tables(n)
    if not 0 <= start <= stop <= data.rows:
        raise ValueError(f"rows must lie in [0, {data.rows}] for n = {n}, got {start}:{stop}")
    rows_kernel, _ = _kernel(n - 2)
    counts = np.zeros(5, dtype=np.int64)
    bad = np.zeros((_BAD_SLOTS, 3), dtype=np.int64)
    began, began_cpu = time.perf_counter(), time.thread_time()
    recorded = rows_kernel(
        start,
        stop,
        data.tables,
        data.minimal,
        data.down_off,
        data.down_idx,
        data.down_tab,
        data.down_min,
        data.meet,
        data.row_b0,
        data.row_b1,
        counts,
        bad,
    )
    result = FlatTally(
        n=n,
        monotone_functions=int(counts[0]),
        active=int(counts[1]),
        unique_minimal=int(counts[2]),
        influence_exact=int(counts[3]),
        mismatches=int(counts[4]),
        shards=1,
    )
    result.seconds = time.perf_counter() - began
    result.cpu_seconds = result.amortized_cpu_seconds = time.thread_time() - began_cpu
    for r, t, ia1 in bad[: min(recorded, limit)].tolist():
        result.counterexamples.append(_counterexample(data, r, t, ia1))
    return result


def function_table(data: QuarterTables, r: int, t: int, ia1: int) -> int:
    """The full truth table (an int of 2**n bits) of the function at row r, a1 = D(k)[ia1],
    a0 = down_tab[t]."""
    q = 1 << (data.n - 2)
    quarters = (
        int(data.down_tab[t]),
        int(data.tables[ia1]),
        int(data.tables[data.row_b0[r]]),
        int(data.tables[data.row_b1[r]]),
    )
    return sum(value << (q * i) for i, value in enumerate(quarters))


def _counterexample(data: QuarterTables, r: int, t: int, ia1: int) -> Counterexample:
    """Describe a mismatch with the numpy kernel's code (recomputed from the table)."""
    from enumerations.flat import influence_survival
    from enumerations.monotone import words

    n = data.n
    table = function_table(data, r, t, ia1)
    W = words(n)
    batch = tuple(
        np.array([(table >> (64 * w)) & 0xFFFF_FFFF_FFFF_FFFF], dtype=U64) for w in range(W)
    )
    minimal = minimal_points(batch, n)
    influence = influence_survival(batch, minimal, n)
    return describe_counterexample(n, 0, minimal, batch, influence)


def row_function_counts(n: int, start: int = 0, stop: int | None = None) -> np.ndarray:
    """Number of functions in each row of ``[start, stop)`` (int64), from the outer loops of
    the kernel only: cheap, used to cut shards at equal work and for progress and ETA."""
    data = quarter_tables(n)
    stop = data.rows if stop is None else stop
    _, row_sizes = _kernel(n - 2)
    out = np.zeros(stop - start, dtype=np.int64)
    row_sizes(start, stop, data.down_off, data.down_idx, data.meet, data.row_b0, data.row_b1, out)
    return out


__all__ = [
    "QuarterTables",
    "compiled_shard",
    "function_table",
    "quarter_tables",
    "row_function_counts",
]
