"""Canonical order of ids and of families of id sets: the order every JSON output uses
(docs/design.md section 4: sorted ids, sorted lists).

>>> from theory.model.canonical import sorted_sets
>>> sorted_sets([{"b", "a"}, {"c"}])
[['c'], ['a', 'b']]
"""

from __future__ import annotations

from collections.abc import Iterable


def sorted_ids(ids: Iterable[str]) -> list[str]:
    """Ids as a sorted list."""
    return sorted(ids)


def sorted_sets(sets: Iterable[Iterable[str]]) -> list[list[str]]:
    """A family of id sets as sorted lists, the family itself sorted (by size, then ids)."""
    return sorted((sorted(s) for s in sets), key=lambda s: (len(s), s))


def smallest_first(sets: Iterable[frozenset[str]]) -> list[frozenset[str]]:
    """A family of id sets, kept as sets, in the order of :func:`sorted_sets` (by size, then
    ids): which of them a capped listing keeps.

    >>> [sorted(s) for s in smallest_first([frozenset("ab"), frozenset("c")])]
    [['c'], ['a', 'b']]
    """
    return sorted(sets, key=lambda s: (len(s), sorted(s)))


__all__ = ["smallest_first", "sorted_ids", "sorted_sets"]
