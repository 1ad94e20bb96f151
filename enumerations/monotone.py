"""Every monotone Boolean function of n variables, as truth tables packed in 64-bit words.

Bit conventions (used by the whole package):

- A point (a set of evidence items) ``R ⊆ {0..n-1}`` is the integer with bit ``i`` set for
  ``i ∈ R``; evidence item ``i`` is named ``e{i+1}`` in reports.
- The truth table of ``f`` has bit ``R`` equal to ``f(R)``. It needs ``2**n`` bits: for
  ``n <= 6`` one ``uint64`` word (bits at and above ``2**n`` are zero), for ``n = 7`` two
  words (word ``w`` holds the points ``64*w .. 64*w + 63``). A batch of tables is a tuple of
  ``words(n)`` contiguous uint64 arrays, one per word.

Generation: an n-variable monotone function is a pair ``(f0, f1)`` of (n-1)-variable ones,
``f0 = f|x_{n-1}=0``, ``f1 = f|x_{n-1}=1``, with ``f0 <= f1`` pointwise (``f0 & ~f1 == 0``);
its table is ``f0 | f1 << 2**(n-1)``. The pairs are produced in blocks of ``f1`` (a contiguous
range of indices into the sorted (n-1)-variable list): that is also the shard unit of the
parallel and distributed runs.
"""

from __future__ import annotations

import threading
from functools import lru_cache

import numpy as np

U64 = np.uint64
ALL_ONES = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
WORD_VARIABLES = 6  # variables addressed inside one 64-bit word
MAX_N = 7  # largest n the kernels support (two words per table)

# Dedekind numbers, OEIS A000372 (the number of monotone Boolean functions of n variables).
DEDEKIND = (2, 3, 6, 20, 168, 7581, 7828354, 2414682040998, 56130437228687557907788)


def words(n: int) -> int:
    """Number of 64-bit words in an n-variable truth table."""
    return max(1, (1 << n) // 64)


def valid_mask(n: int) -> np.uint64:
    """The bits of a word that are points of an n-variable table (all 64 for n >= 6)."""
    return ALL_ONES if n >= WORD_VARIABLES else U64((1 << (1 << n)) - 1)


@lru_cache(maxsize=None)
def variable_word(i: int) -> np.uint64:
    """For ``i < 6``: the word with bit ``r`` set iff point ``r`` contains variable ``i``."""
    if not 0 <= i < WORD_VARIABLES:
        raise ValueError(f"variable {i} is not addressed inside a word")
    return U64(sum(1 << r for r in range(64) if r >> i & 1))


def _check_n(n: int) -> None:
    if not 0 <= n <= MAX_N:
        raise ValueError(f"n must be between 0 and {MAX_N}, got {n}")


def pair_block(lower: np.ndarray, n: int, start: int, stop: int) -> tuple[np.ndarray, ...]:
    """Tables of every n-variable monotone function whose ``f1`` is ``lower[start:stop]``.

    ``lower`` is the 1-word table array of the (n-1)-variable functions (``n <= 7``).
    Returns a tuple of ``words(n)`` arrays, ordered by ``f1`` index then ``f0`` index.
    """
    if not 1 <= n <= MAX_N:
        raise ValueError(f"pair_block needs 1 <= n <= {MAX_N}, got {n}")
    flat = lower.reshape(-1)
    f1 = flat[start:stop]
    if n - 1 <= 5:
        return (_pairs_small(flat, n, start, stop),)
    ok = (flat[None, :] & ~f1[:, None]) == 0
    low = np.broadcast_to(flat, ok.shape)[ok]  # f0 of each pair, row by row
    per_row = np.count_nonzero(ok, axis=1)
    return (np.ascontiguousarray(low), np.repeat(f1, per_row))


class _PairBuffers:
    """Reused scratch for :func:`_pairs_small` (one per process and lower list)."""

    def __init__(self, flat: np.ndarray, rows: int):
        self.narrow = flat.astype(np.uint32)
        self.tiled = np.tile(flat, rows)  # f0 candidates, row after row
        self.work = np.empty((rows, len(flat)), dtype=np.uint32)
        self.ok = np.empty((rows, len(flat)), dtype=bool)
        self.out = np.empty(rows * len(flat), dtype=U64)


_LOCAL = threading.local()  # scratch is per thread: Dask runs shards in threads


def _pairs_small(flat: np.ndarray, n: int, start: int, stop: int) -> np.ndarray:
    """:func:`pair_block` for n <= 6 without per-block allocations (compare in 32 bits).

    The returned array is a view of a reused buffer: valid until the next call."""
    rows = stop - start
    key = len(flat)
    cache = getattr(_LOCAL, "buffers", None)
    if cache is None:
        cache = _LOCAL.buffers = {}
    buffers = cache.get(key)
    if buffers is None or buffers.ok.shape[0] < rows:
        buffers = cache[key] = _PairBuffers(flat, max(rows, default_block(len(flat))))
    work, ok = buffers.work[:rows], buffers.ok[:rows]
    narrow = buffers.narrow
    # f0 <= f1  <=>  f0 & ~f1 == 0
    np.bitwise_and(narrow[None, :], np.invert(narrow[start:stop])[:, None], out=work)
    np.equal(work, 0, out=ok)
    count = int(np.count_nonzero(ok))
    out = buffers.out[:count]
    np.compress(ok.reshape(-1), buffers.tiled[: rows * len(flat)], out=out)
    per_row = np.count_nonzero(ok, axis=1)
    shift = U64(1 << (n - 1))
    position = 0
    for r, size in enumerate(per_row.tolist()):  # OR in f1, one row slice at a time
        if size:
            segment = out[position : position + size]
            np.bitwise_or(segment, flat[start + r] << shift, out=segment)
            position += size
    return out


def block_bounds(total: int, block: int) -> list[tuple[int, int]]:
    return [(a, min(a + block, total)) for a in range(0, total, block)]


def default_block(lower_count: int) -> int:
    """Rows of ``f1`` per block so one block's comparison matrix stays cache-sized."""
    return max(1, min(64, (1 << 19) // max(1, lower_count)))


@lru_cache(maxsize=None)
def monotone_tables(n: int) -> np.ndarray:
    """All monotone functions of ``n <= 6`` variables as one uint64 array of ``D(n)`` tables,
    ordered by ``(f1 index, f0 index)`` recursively (cached; read-only)."""
    _check_n(n)
    if n > WORD_VARIABLES:
        raise ValueError(
            "n = 7 has 2.4e12 functions: enumerate it in shards (see enumerations.flat)"
        )
    if n == 0:
        tables = np.array([0, 1], dtype=U64)
    else:
        lower = monotone_tables(n - 1)
        block = default_block(len(lower))
        tables = np.concatenate(
            [pair_block(lower, n, a, b)[0].copy() for a, b in block_bounds(len(lower), block)]
        )
    tables.setflags(write=False)
    return tables


# --- n = 7: rows of the D(6) list, with candidates cut down by the structure of D(6) ------
class SevenRows:
    """Shard rows for n = 7: the 7-variable functions ``(g0, g1)`` with a fixed ``g1``.

    ``g1 = D6[r]`` is itself a pair ``(b0, b1)`` of 5-variable functions, and D(6) is stored
    grouped by its high half: group ``a1`` is ``D6[offsets[a1]:offsets[a1 + 1]]`` and holds
    ``(a0, a1)`` for every ``a0 <= a1``. ``g0 = (a0, a1) <= g1`` iff ``a1 <= b1`` and
    ``a0 <= b0``, so only the groups ``a1 <= b1`` are candidates (about 1.0e6 tables per row
    on average instead of all 7.8e6), filtered on their low halves in 32 bits. The
    candidates depend on ``b1`` only, so they are gathered once for the ``sizes[b1]``
    consecutive rows that share it.
    """

    def __init__(self) -> None:
        self.d5 = monotone_tables(5)
        self.d5_narrow = self.d5.astype(np.uint32)
        self.d6 = monotone_tables(6)
        self.low = (self.d6 & U64(0xFFFF_FFFF)).astype(np.uint32)
        sizes = np.array(
            [np.count_nonzero((self.d5_narrow & ~f) == 0) for f in self.d5_narrow], dtype=np.int64
        )
        self.offsets = np.concatenate([[0], np.cumsum(sizes)])
        self.sizes = sizes
        if self.offsets[-1] != len(self.d6):
            raise AssertionError("D(6) is not grouped by its high half")
        self._local = threading.local()

    def __len__(self) -> int:
        return len(self.d6)

    def high_of(self, r: int) -> int:
        """``b1``, the index of the high half of ``g1 = D6[r]`` (rows of one ``b1`` are the
        contiguous range ``offsets[b1] .. offsets[b1 + 1]``)."""
        return int(np.searchsorted(self.offsets, r, side="right")) - 1

    def candidates(self, b1: int) -> tuple[np.ndarray, np.ndarray]:
        """Tables and 32-bit low halves of the D(6) groups ``a1 <= b1``. Built once per ``b1``
        and shared by its ``sizes[b1]`` rows (the last one is cached)."""
        if self.cached_b1 == b1:
            return self._local.cached
        groups = np.flatnonzero((self.d5_narrow & ~self.d5_narrow[b1]) == 0)  # a1 <= b1
        lengths = self.sizes[groups]
        total = int(lengths.sum())
        starts = self.offsets[groups]
        # concatenated ranges [start, start + length) without a Python loop
        index = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
        index += np.arange(total, dtype=np.int64)
        self._local.b1, self._local.cached = b1, (self.d6[index], self.low[index])
        return self._local.cached

    @property
    def cached_b1(self) -> int | None:
        """The ``b1`` whose candidates this thread holds (the cache is per thread)."""
        return getattr(self._local, "b1", None)

    def forget(self) -> None:
        self._local.b1, self._local.cached = None, None

    def row(self, r: int) -> tuple[np.ndarray, np.ndarray]:
        """The tables (low word, high word) of every 7-variable function with ``g1 = D6[r]``."""
        g1 = self.d6[r]
        tables, low = self.candidates(self.high_of(r))
        b0 = np.uint32(int(g1) & 0xFFFF_FFFF)
        keep = (low & ~b0) == 0  # a0 <= b0
        chosen = tables[keep]
        return chosen, np.full(len(chosen), g1, dtype=U64)


@lru_cache(maxsize=1)
def seven_rows() -> SevenRows:
    return SevenRows()
