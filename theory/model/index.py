"""Integer-indexed adjacency of a support structure, built once and cached.

Algorithms over large graphs (fixpoints, reachability, the safety checker) run on these
flat lists instead of string-keyed dicts.
"""

from __future__ import annotations

import gc
import weakref
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from operator import attrgetter
from typing import Any, Protocol

from theory.model.structure import SupportStructure


class IndexView(Protocol):
    """What the shared graph algorithms (fixpoint, reachability, components) read.

    Two classes provide it: :class:`SupportIndex`, frozen and cached per structure, and
    :class:`jtms.engine.incremental.GrowingIndex`, which a persistent memory appends to. Nodes
    are numbered evidence first; justification ``j`` concludes ``just_claim[j]`` from
    ``just_antecedents[j]``.
    """

    @property
    def ids(self) -> Sequence[str]: ...
    @property
    def number(self) -> Mapping[str, int]: ...
    @property
    def is_evidence(self) -> Sequence[int]: ...
    @property
    def just_claim(self) -> Sequence[int]: ...
    @property
    def just_antecedents(self) -> Sequence[tuple[int, ...]]: ...
    @property
    def justs_of(self) -> Sequence[Sequence[int]]: ...
    @property
    def watchers(self) -> Sequence[Sequence[int]]: ...
    @property
    def consumers(self) -> Sequence[Sequence[int]]: ...
    @property
    def size(self) -> int: ...

    def numbers(self, ids: Iterable[str]) -> list[int]: ...

    def names(self, numbers: Iterable[int]) -> frozenset[str]: ...


@dataclass(frozen=True, eq=False)
class SupportIndex:
    ids: tuple[str, ...]  # node number -> id (evidence first, then claims; sorted)
    number: dict[str, int]  # id -> node number
    is_evidence: bytes  # 1 for evidence
    just_claim: tuple[int, ...]  # justification number -> claim number
    just_antecedents: tuple[tuple[int, ...], ...]
    justs_of: tuple[tuple[int, ...], ...]  # node -> justifications concluding it

    # The two reverse views are built on first use: a query that only follows
    # justifications downward from a goal (the labels, the solver's cone) never reads them,
    # and they are a third of the index's cost.
    @cached_property
    def watchers(self) -> tuple[tuple[int, ...], ...]:
        """Node -> the justifications it is an antecedent of, in justification order."""
        watchers: list[list[int]] = [[] for _ in range(len(self.ids))]
        for j, antecedents in enumerate(self.just_antecedents):
            for a in antecedents:
                watchers[a].append(j)
        return tuple(map(tuple, watchers))

    @cached_property
    def consumers(self) -> tuple[tuple[int, ...], ...]:
        """Node -> the claims it is an antecedent of (deduplicated, ascending)."""
        claim = self.just_claim
        return tuple(tuple(sorted({claim[j] for j in ws})) if ws else () for ws in self.watchers)

    @property
    def size(self) -> int:
        return len(self.ids)

    def numbers(self, ids: Iterable[str]) -> list[int]:
        return [self.number[i] for i in ids]

    def names(self, numbers: Iterable[int]) -> frozenset[str]:
        ids = self.ids
        return frozenset(ids[n] for n in numbers)

    def names_of_bits(self, bits: int) -> frozenset[str]:
        """The ids of an evidence bitset (bit i = node number i; evidence are numbered first)."""
        ids = self.ids
        result = []
        while bits:
            low = bits & -bits
            result.append(ids[low.bit_length() - 1])
            bits ^= low
        return frozenset(result)


_CACHE: "weakref.WeakKeyDictionary[SupportStructure, SupportIndex]" = weakref.WeakKeyDictionary()


def index_of(structure: SupportStructure) -> SupportIndex:
    """The (cached) integer index of ``structure``."""
    cached = _CACHE.get(structure)
    if cached is None:
        with paused_gc():
            cached = _build(structure)
        _CACHE[structure] = cached
    return cached


def _build(structure: SupportStructure) -> SupportIndex:
    evidence = tuple(sorted(structure.evidence))
    ids = evidence + tuple(sorted(structure.claims))
    number = {node_id: n for n, node_id in enumerate(ids)}
    size = len(ids)
    is_evidence = b"\x01" * len(evidence) + bytes(size - len(evidence))  # evidence first
    justifications = structure.justifications
    get = number.__getitem__
    just_claim = tuple(map(get, map(attrgetter("claim"), justifications)))
    just_antecedents = tuple(
        [
            tuple(sorted(map(get, ants))) if len(ants) > 1 else tuple(map(get, ants))
            for ants in map(attrgetter("antecedents"), justifications)
        ]
    )
    justs_of: list[list[int]] = [[] for _ in range(size)]
    for j, claim in enumerate(just_claim):
        justs_of[claim].append(j)
    return SupportIndex(
        ids=ids,
        number=number,
        is_evidence=is_evidence,
        just_claim=just_claim,
        just_antecedents=just_antecedents,
        justs_of=tuple(map(tuple, justs_of)),
    )


def array_view(values: Any) -> Any:
    """A numpy view (no copy) of an ``array("i")``/``array("q")`` or a ``bytearray``
    (unsigned bytes): the flat rows of a compressed index, read in place."""
    import numpy as np

    if isinstance(values, bytearray):
        return np.frombuffer(values, dtype=np.uint8)
    kind = "i" if values.typecode.islower() else "u"
    return np.frombuffer(values, dtype=f"{kind}{values.itemsize}")


def gathered_rows(offsets: Any, flat: Any, rows: Any) -> tuple[Any, Any]:
    """The items of compressed rows ``rows`` (numpy: ``flat[offsets[r]:offsets[r + 1]]`` for
    each ``r`` in order, concatenated) and the length of each row, in a few array operations.

    >>> import numpy as np
    >>> items, lengths = gathered_rows(np.array([0, 2, 2, 5]), np.array([7, 8, 9, 10, 11]),
    ...                                np.array([2, 0, 1]))
    >>> items.tolist(), lengths.tolist()
    ([9, 10, 11, 7, 8], [3, 2, 0])
    """
    import numpy as np

    starts = offsets[rows].astype(np.int64)
    lengths = offsets[rows + 1] - starts
    ends = np.cumsum(lengths)
    total = int(ends[-1]) if len(ends) else 0
    return flat[np.arange(total) + np.repeat(starts - (ends - lengths), lengths)], lengths


def stable_order(keys: Any, bound: int) -> Any:
    """``numpy.argsort(keys, kind="stable")`` for integer keys in ``[0, bound)``: one plain
    sort of ``key * n + position`` (distinct values, so any sort is stable; numpy's plain
    integer sort is several times faster than its stable one), or the stable argsort when
    that product could overflow 64 bits.

    >>> import numpy as np
    >>> stable_order(np.array([2, 0, 2, 1, 0]), 3).tolist()
    [1, 4, 3, 0, 2]
    """
    import numpy as np

    count = len(keys)
    if count and bound * count < 1 << 62:
        return np.sort(keys.astype(np.int64) * count + np.arange(count)) % count
    if count and bound * count <= 1 << 64:  # the same in unsigned 64 bits (4M antecedents of
        # a million-claim import, keyed by antecedent and claim: 0.44 -> 0.25 s)
        wide = keys.astype(np.uint64) * np.uint64(count) + np.arange(count, dtype=np.uint64)
        return (np.sort(wide) % np.uint64(count)).astype(np.int64)
    return np.argsort(keys, kind="stable")


def first_occurrences(keys: Any, bound: int) -> Any:
    """The positions of the first occurrence of each distinct key (integers in
    ``[0, bound)``), in ascending order.

    >>> import numpy as np
    >>> first_occurrences(np.array([3, 1, 3, 0, 1]), 4).tolist()
    [0, 1, 3]
    """
    import numpy as np

    if not len(keys):
        return np.zeros(0, dtype=np.int64)
    if bound * len(keys) <= 1 << 64:  # stable_order's plain sort: the first of a run is first
        order = stable_order(keys, bound)
        ordered = keys[order]
        return np.sort(order[np.flatnonzero(np.append(True, ordered[1:] != ordered[:-1]))])
    # wider keys (an import's antecedent-claim pairs at a million claims): any sort, then the
    # least position of each run of equal keys, not numpy's stable argsort (4M keys: 0.49 ->
    # 0.19 s)
    order = np.argsort(keys)
    ordered = keys[order]
    starts = np.flatnonzero(np.append(True, ordered[1:] != ordered[:-1]))
    return np.sort(np.minimum.reduceat(order, starts))


def distinct_sorted(values: Any) -> Any:
    """The distinct values of an integer array, ascending: ``np.unique`` without its test for
    a masked array, whose first call imports ``numpy.ma`` (a noticeable part of a one-shot
    command's audit).

    >>> import numpy as np
    >>> distinct_sorted(np.array([3, 1, 3, 0, 1])).tolist()
    [0, 1, 3]
    """
    import numpy as np

    ordered = np.sort(values)
    if len(ordered) < 2:
        return ordered
    keep = np.empty(len(ordered), dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def all_arrays(*values: Any) -> bool:
    """Whether every value is a flat ``array`` (an index built by an import into a new memory,
    or opened from a checkpoint), which numpy can read in place."""
    return all(isinstance(value, array) for value in values)


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while building large acyclic containers.

    Building a 100k-claim graph allocates millions of small objects, and the collector's
    repeated passes over them would cost more than the building; nothing built here is
    cyclic.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
