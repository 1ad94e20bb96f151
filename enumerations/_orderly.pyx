# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The extension loop of :mod:`enumerations.orderly`, compiled ahead of time (Cython)."""

import numpy as np

from libc.stdint cimport int32_t, int64_t


def extend_rows(
    const int32_t[:, ::1] parents,
    const int32_t[:, ::1] maps,
    int32_t[:, ::1] out_rows,
    int64_t[::1] out_aut,
) -> int:
    """Every canonical extension of every (canonical, sorted) parent row by one candidate
    above its last: rows into ``out_rows``, automorphism counts into ``out_aut``; returns how
    many. A child is given up at the first permutation whose image of it is smaller."""
    cdef Py_ssize_t P = parents.shape[0], depth = parents.shape[1]
    cdef Py_ssize_t G = maps.shape[0], K = maps.shape[1]
    cdef Py_ssize_t m = depth + 1
    child_arr = np.empty(m, dtype=np.int32)
    image_arr = np.empty(m, dtype=np.int32)
    cdef int32_t[::1] child = child_arr, image = image_arr
    cdef Py_ssize_t count = 0, p, i, j, g, x, start
    cdef int64_t automorphisms
    cdef int32_t v
    cdef int order
    cdef bint canonical
    with nogil:
        for p in range(P):
            for i in range(depth):
                child[i] = parents[p, i]
            start = parents[p, depth - 1] + 1 if depth > 0 else 0
            for x in range(start, K):
                child[depth] = <int32_t>x
                automorphisms = 0
                canonical = True
                for g in range(G):
                    for i in range(m):  # image of the child, sorted by insertion
                        v = maps[g, child[i]]
                        j = i
                        while j > 0 and image[j - 1] > v:
                            image[j] = image[j - 1]
                            j -= 1
                        image[j] = v
                    order = 0
                    for i in range(m):
                        if image[i] != child[i]:
                            order = -1 if image[i] < child[i] else 1
                            break
                    if order < 0:
                        canonical = False
                        break
                    if order == 0:
                        automorphisms += 1
                if canonical:
                    for i in range(m):
                        out_rows[count, i] = child[i]
                    out_aut[count] = automorphisms
                    count += 1
    return count
