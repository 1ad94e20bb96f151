"""`jtms check --summary` reads each claim's verdict in time independent of the memory's size.

:class:`theory.safety.check.SafetyCounts` keeps the safe claims' critical evidence as one
flat array sorted by claim. A memory of many small support loops (``benchmarks.bench_counting``)
has a few critical items per claim, so looking a claim's items up by a search that converts
the whole array on every call made printing the summary quadratic in the memory (a million
claims did not finish in 15 minutes). These tests read a fixed number of claims out of
memories of very different sizes and ask that the cost per claim not grow with the size.
"""

from __future__ import annotations

import resource
from typing import Any

import numpy as np

from theory.safety.check import SafetyCounts


def _counts(nodes: int, wanted: list[int], per_claim: int = 2) -> SafetyCounts:
    """Every node a safe, active claim whose critical evidence is ``per_claim`` items
    (bits ``n % 7`` onwards), as :func:`count_verdicts` hands them over: sorted by claim."""
    claim_of = np.repeat(np.arange(nodes, dtype=np.int32), per_claim)
    bits = (claim_of.astype(np.int64) + np.tile(np.arange(per_claim), nodes)) % 7
    return SafetyCounts(
        _Ids(),
        np.asarray(wanted, dtype=np.int64),
        np.ones(nodes, dtype=np.uint8),
        np.zeros(nodes, dtype=np.int64),
        np.zeros((nodes, 0), dtype=np.int32),
        np.zeros(nodes, dtype=np.int32),
        claim_of,
        bits,
        [f"e{k}" for k in range(7)],
    )


class _Ids:
    """Node ids without a list of them (``c<n>``)."""

    def __getitem__(self, n: Any) -> str:
        return f"c{n}"


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _reading(nodes: int, sample: int = 2000) -> float:
    """CPU seconds to build the summaries of ``sample`` claims spread over ``nodes``."""
    counts = _counts(nodes, list(range(0, nodes, nodes // sample))[:sample])
    start = _cpu()
    read = sum(1 for _ in counts.claims())
    spent = _cpu() - start
    assert read == sample
    return spent


def test_critical_sets_read_back_per_claim() -> None:
    """Each claim gets exactly its own critical items, the first and last node included,
    and a claim with none (unsafe, so dropped) gets an empty set."""
    claim_of = np.asarray([0, 0, 2, 4, 4, 4], dtype=np.int32)
    bits = np.asarray([1, 0, 2, 0, 1, 2], dtype=np.int64)
    count = np.asarray([0, 0, 0, 3, 0], dtype=np.int64)
    counts = SafetyCounts(
        ["c0", "c1", "c2", "c3", "c4"],
        np.arange(5, dtype=np.int64),
        np.asarray([1, 1, 1, 1, 1], dtype=np.uint8),
        count,
        np.zeros((5, 1), dtype=np.int32),
        np.asarray([0, 0, 0, 1, 0], dtype=np.int32),
        claim_of,
        bits,
        ["a", "b", "c"],
    )
    got = {s.id: (s.violation_count, s.minimal_justifications) for s in counts.claims()}
    assert got == {
        "c0": (0, frozenset([frozenset({"a", "b"})])),
        "c1": (0, frozenset([frozenset()])),
        "c2": (0, frozenset([frozenset({"c"})])),
        "c3": (3, frozenset()),
        "c4": (0, frozenset([frozenset({"a", "b", "c"})])),
    }


def test_reading_a_claim_does_not_grow_with_the_memory() -> None:
    """2,000 claims read out of 4,000 nodes and out of 400,000: the cost per claim stays
    put (a search converting the 400,000-entry array per claim spends seconds here)."""
    small = min(_reading(4000) for _ in range(3))
    large = min(_reading(400_000) for _ in range(2))
    assert large < 3 * small + 0.05, (small, large)
