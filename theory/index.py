"""Integer-indexed adjacency of a support structure, built once and cached.

Algorithms over large graphs (fixpoints, reachability, the safety checker) run on these
flat lists instead of string-keyed dicts.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from theory.structure import SupportStructure


class IndexView(Protocol):
    """What the shared graph algorithms (fixpoint, reachability, components) read.

    Two classes provide it: :class:`SupportIndex`, frozen and cached per structure, and
    :class:`theory.incremental.GrowingIndex`, which a persistent memory appends to. Nodes
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
    watchers: tuple[tuple[int, ...], ...]  # node -> justifications it is an antecedent of
    consumers: tuple[tuple[int, ...], ...]  # node -> claims it is an antecedent of (deduplicated)

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
        from theory.graphfile import paused_gc

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
    just_claim: list[int] = []
    just_antecedents: list[tuple[int, ...]] = []
    justs_of: list[list[int]] = [[] for _ in range(size)]
    watchers: list[list[int]] = [[] for _ in range(size)]
    consumers: list[set[int]] = [set() for _ in range(size)]
    for j, justification in enumerate(structure.justifications):
        claim = number[justification.claim]
        antecedents = tuple(sorted([number[a] for a in justification.antecedents]))
        just_claim.append(claim)
        just_antecedents.append(antecedents)
        justs_of[claim].append(j)
        for a in antecedents:
            watchers[a].append(j)
            consumers[a].add(claim)
    return SupportIndex(
        ids=ids,
        number=number,
        is_evidence=is_evidence,
        just_claim=tuple(just_claim),
        just_antecedents=tuple(just_antecedents),
        justs_of=tuple(tuple(js) for js in justs_of),
        watchers=tuple(tuple(ws) for ws in watchers),
        consumers=tuple(tuple(sorted(cs)) for cs in consumers),
    )
