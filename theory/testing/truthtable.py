"""Flat support functions as truth tables over n evidence items: one home for the helpers
that the enumerations and the proofs' countermodels share.

A truth table is an int: bit ``x`` is f(X) for the evidence set X whose members are the set
bits of ``x`` (item ``i`` is named ``e{i+1}``). The *independent* encodings (the numpy word
kernel in :mod:`enumerations.flat`, the CNF and z3 encodings in :mod:`proofs`) deliberately
do not use these helpers: each computes minimal points its own way, so they cross-check.

>>> from theory.testing.truthtable import minimal_points, point_names
>>> f = 0b1110            # f(X) = e1 OR e2 over two items: true on {e1}, {e2}, {e1, e2}
>>> [point_names(x) for x in minimal_points(f, 2)]
[['e1'], ['e2']]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from theory.model.structure import SupportStructure

CLAIM = "c"
"""The one claim of a flat structure."""


def item_name(i: int) -> str:
    """The name of evidence item ``i`` in reports: ``e1``, ``e2``, ..."""
    return f"e{i + 1}"


def point_names(point: int) -> list[str]:
    """The evidence names of the set bits of ``point``."""
    return [item_name(i) for i in range(point.bit_length()) if point >> i & 1]


def as_table(values: Sequence[bool]) -> int:
    """A list of truth values (index = evidence set) as a truth-table int."""
    return sum(1 << x for x, value in enumerate(values) if value)


def minimal_points(table: int, n: int) -> list[int]:
    """The minimal true sets of f, in increasing order of their bitmask."""
    return [
        x
        for x in range(1 << n)
        if table >> x & 1 and not any(table >> (x & ~(1 << i)) & 1 for i in range(n) if x >> i & 1)
    ]


def is_monotone(table: int, n: int) -> bool:
    """Adding an item never turns f from true to false."""
    return all(
        not table >> x & 1 or table >> (x | 1 << i) & 1 for x in range(1 << n) for i in range(n)
    )


def essential_items(points: Iterable[int], n: int) -> set[int]:
    """The items that lie in some minimal point."""
    return {i for x in points for i in range(n) if x >> i & 1}


def flat_structure(
    points: Iterable[int], n: int, extra: Iterable[Iterable[int]] = ()
) -> SupportStructure:
    """The one-claim memory graph ``c <- p`` for each minimal point (plus ``extra``
    justifications, as item-number sets) over evidence ``e1..en``."""
    justifications = [(CLAIM, point_names(x)) for x in points]
    justifications += [(CLAIM, [item_name(i) for i in sorted(items)]) for items in extra]
    return SupportStructure.build([item_name(i) for i in range(n)], [CLAIM], justifications)


__all__ = [
    "CLAIM",
    "as_table",
    "essential_items",
    "flat_structure",
    "is_monotone",
    "item_name",
    "minimal_points",
    "point_names",
]
