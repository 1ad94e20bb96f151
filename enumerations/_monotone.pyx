# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled per-function kernel of :mod:`enumerations.compiled`, built ahead of time (C in
``monotone_kernel.h``, one instance per instruction set, the best the CPU has chosen at
import): the rows of n = k + 2 checked one function at a time, and the functions per row."""

from libc.stdint cimport int16_t, int32_t, int64_t, uint32_t

cdef extern from "monotone_kernel.h":
    int mk_level() nogil
    int64_t mk_rows(
        int level, int k, int64_t start, int64_t stop, const uint32_t* tables,
        const uint32_t* minimal, const int64_t* down_off, const int32_t* down_idx,
        const uint32_t* down_tab, const uint32_t* down_min, const int16_t* meet, int64_t count,
        const int32_t* row_b0, const int32_t* row_b1, int64_t* counts, int64_t* bad,
        int64_t bad_rows,
    ) nogil
    void mk_row_sizes(
        int64_t start, int64_t stop, const int64_t* down_off, const int32_t* down_idx,
        const int16_t* meet, int64_t count, const int32_t* row_b0, const int32_t* row_b1,
        int64_t* out,
    ) nogil

cdef int LEVEL = mk_level()
INSTRUCTIONS = ("baseline", "avx2", "avx512")[LEVEL]
"""The instance the kernel runs here: avx512 (with VPOPCNTDQ), avx2 or baseline."""


def rows_kernel(
    int k,
    int64_t start,
    int64_t stop,
    const uint32_t[::1] tables,
    const uint32_t[::1] minimal,
    const int64_t[::1] down_off,
    const int32_t[::1] down_idx,
    const uint32_t[::1] down_tab,
    const uint32_t[::1] down_min,
    const int16_t[:, ::1] meet,
    const int32_t[::1] row_b0,
    const int32_t[::1] row_b1,
    int64_t[::1] counts,
    int64_t[:, ::1] bad,
) -> int:
    """Rows [start, stop) of n = k + 2 (0 <= k <= 5): ``counts[0..4]`` += functions, active,
    unique & active, agree & active, mismatches; ``bad[j]`` = (row, index into ``down_tab``,
    index of a1) of the first mismatches. Returns how many were recorded. Runs without the
    GIL, so threads check shards in parallel."""
    if not 0 <= k <= 5 or bad.shape[1] != 3 or counts.shape[0] < 5:
        raise ValueError("rows_kernel: k in 0..5, bad of 3 columns, 5 counts")
    cdef int64_t recorded
    cdef int64_t* bad_ptr = &bad[0, 0] if bad.shape[0] else NULL
    with nogil:
        recorded = mk_rows(
            LEVEL, k, start, stop, &tables[0], &minimal[0], &down_off[0], &down_idx[0],
            &down_tab[0], &down_min[0], &meet[0, 0], meet.shape[1], &row_b0[0], &row_b1[0],
            &counts[0], bad_ptr, bad.shape[0],
        )
    return recorded


def row_sizes(
    int64_t start,
    int64_t stop,
    const int64_t[::1] down_off,
    const int32_t[::1] down_idx,
    const int16_t[:, ::1] meet,
    const int32_t[::1] row_b0,
    const int32_t[::1] row_b1,
    int64_t[::1] out,
) -> None:
    """Functions per row of [start, stop) into ``out`` (the outer loops only)."""
    if stop <= start:
        return
    with nogil:
        mk_row_sizes(
            start, stop, &down_off[0], &down_idx[0], &meet[0, 0], meet.shape[1], &row_b0[0],
            &row_b1[0], &out[0],
        )
