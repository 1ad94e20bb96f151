"""Incremental exact revision: a mutable support state with well-founded support pointers.

This module adds *incrementality* to :mod:`theory.semantics.fixpoint`, never a second semantics. The
state is the least fixpoint of the justifications with the blocked (audited) nodes forced
inactive, plus, for every active claim, a support pointer: the justification that derived
it. Pointers follow a derivation order, so they form a well-founded (acyclic) graph, as in
Doyle's JTMS.

- Retraction (an audit blocks roots R): the *support region* Z is R plus every active claim
  whose pointer passes, transitively, through R; every active node outside Z is unaffected.
  Claims that lost a pointer antecedent switch to another justification resting outside Z
  (or on claims that already switched) when they have one; the others go out, and only their
  dependents are examined further. The out claims are then re-derived from outside support
  by :func:`theory.semantics.fixpoint.rederive` (a loop never keeps itself alive). The rest of the
  memory is never visited.
- Extension (unblocking roots, adding nodes or justifications): the fixpoint only grows;
  the region is the inactive, unblocked nodes reachable from the seeds through inactive
  nodes, again re-derived by :func:`rederive`.

Both operations are *planned* first (no mutation of the state) and *applied* afterwards,
so a caller can persist a plan before it changes the in-memory state, and a dry run is a
plan that is never applied.

:class:`GrowingIndex` is a mutable adjacency with the attribute names of
:class:`theory.model.index.SupportIndex`; the functions of :mod:`theory.semantics.fixpoint` and
:mod:`theory.semantics.revision` accept it.
"""

from __future__ import annotations

import time
from array import array
from collections import Counter
from collections.abc import (
    Container,
    Iterable,
    Iterator,
    Mapping,
    MutableMapping,
    MutableSequence,
    Sequence,
)
from dataclasses import dataclass, field
from itertools import chain, compress, repeat
from typing import Any, TypeVar, cast

from jtms.engine.id_table import IdTable
from theory.model.graphalgo import strongly_connected_components
from theory.model.index import (
    all_arrays,
    array_view,
    distinct_sorted,
    first_occurrences,
    gathered_rows,
    stable_order,
)
from theory.model.structure import GraphRows, SupportStructure, justification_rows
from theory.semantics.fixpoint import active_numbers, flat_justification_rows, rederive

T = TypeVar("T")

NO_SUPPORT = -1
NO_RANK = 1 << 62

Ints = MutableSequence[int]  # a list, or an array("i") / array("q") read from a checkpoint


class Adjacency(Sequence[Sequence[int]]):
    """Node -> a list of numbers: a frozen base in compressed-row form (``offsets``, ``flat``:
    the items of node ``n`` are ``flat[offsets[n]:offsets[n + 1]]``) plus appended items.

    A memory opened from a checkpoint gets its adjacency as two flat lists (no per-node
    Python lists are built); what is added afterwards goes to small per-node lists. Reading
    ``adjacency[n]`` returns a list that the caller must not modify (use :meth:`add`).
    """

    __slots__ = ("_offsets", "_flat", "_base", "_extra", "_tail")

    def __init__(self, offsets: Ints | None = None, flat: Ints | None = None) -> None:
        self._offsets: Ints = offsets if offsets is not None else [0]
        self._flat: Ints = flat if flat is not None else []
        self._base = len(self._offsets) - 1
        self._extra: dict[int, list[int]] = {}  # base node -> items added later
        self._tail: list[list[int]] = []  # nodes added after the base

    def __len__(self) -> int:
        return self._base + len(self._tail)

    def __getitem__(self, n: int) -> Sequence[int]:  # type: ignore[override]
        base = self._base
        if n >= base:
            return self._tail[n - base]
        offsets = self._offsets
        items = self._flat[offsets[n] : offsets[n + 1]]
        if self._extra:
            extra = self._extra.get(n)
            if extra:
                return [*items, *extra]
        return items

    def many(self, nodes: list[int]) -> Iterator[Sequence[int]]:
        """``self[n]`` for each of ``nodes``, without a Python call per node when the
        adjacency is all compressed base or all appended lists (the common cases: a memory
        opened from a checkpoint, or built in this process)."""
        if not self._extra and not self._tail:
            offsets = self._offsets
            return map(
                self._flat.__getitem__,
                map(
                    slice,
                    map(offsets.__getitem__, nodes),
                    map(offsets.__getitem__, map((1).__add__, nodes)),
                ),
            )
        if not self._base and not self._extra:
            return map(self._tail.__getitem__, nodes)
        return map(self.__getitem__, nodes)

    def add(self, n: int, item: int) -> None:
        if n >= self._base:
            self._tail[n - self._base].append(item)
        else:
            self._extra.setdefault(n, []).append(item)

    def add_unique(self, n: int, item: int) -> None:
        """Add ``item`` to node ``n`` unless it is there already."""
        if n >= self._base:
            items = self._tail[n - self._base]
            if item not in items:
                items.append(item)
        elif item not in self[n]:
            self._extra.setdefault(n, []).append(item)

    def add_nodes(self, count: int) -> None:
        self._tail.extend([] for _ in range(count))

    def rows(self) -> tuple[Ints, Ints] | None:
        """(offsets, flat) when every node is in the compressed base (nothing added one by
        one since it): hot loops slice these instead of calling ``self[n]``; else None.
        The caller must not modify them."""
        if self._tail or self._extra:
            return None
        return self._offsets, self._flat

    def loose(self) -> bool:
        """Whether items were added one by one since the compressed base (:meth:`rows` is
        None until :meth:`compact`)."""
        return bool(self._extra or self._tail)

    def compact(self) -> None:
        """Fold the items added one by one into the compressed base, as ``array("i")`` rows
        (every node keeps its items in the same order: base items, then added ones), so the
        hot loops read flat rows again (:meth:`rows`). O(items) in array operations."""
        import numpy as np

        if not self.loose() and all_arrays(self._offsets, self._flat):
            return

        def numbers(values: Ints, dtype: Any) -> Any:
            return array_view(values) if isinstance(values, array) else np.asarray(values, dtype)

        base, extra = self._base, self._extra
        base_offsets = numbers(self._offsets, np.int64).astype(np.int64)
        base_flat = numbers(self._flat, np.int32)
        # offsets: each base node's start moves by the items added to the nodes before it
        moved = np.zeros(base + 1, dtype=np.int64)
        ordered = sorted(extra)
        for n in ordered:
            moved[n + 1] += len(extra[n])
        offsets = np.empty(len(self) + 1, dtype=np.int64)
        offsets[: base + 1] = base_offsets + np.cumsum(moved)
        tail_lengths = np.fromiter(map(len, self._tail), np.int64, len(self._tail))
        offsets[base + 1 :] = offsets[base] + np.cumsum(tail_lengths)
        # items: the base in runs between the nodes with added items, copied as blocks
        flat = np.empty(int(offsets[-1]), dtype=np.int32)
        at = first = 0
        for n in ordered:
            run = base_flat[base_offsets[first] : base_offsets[n + 1]]
            flat[at : at + len(run)] = run
            at += len(run)
            items = extra[n]
            flat[at : at + len(items)] = items
            at += len(items)
            first = n + 1
        run = base_flat[base_offsets[first] : base_offsets[base]]
        flat[at : at + len(run)] = run
        at += len(run)
        if self._tail:
            flat[at:] = list(chain.from_iterable(self._tail))
        del base_flat  # a view of the old base: released before that array is replaced
        self._offsets, self._flat = array("i"), array("i")
        self._offsets.frombytes(offsets.astype(np.int32).tobytes())
        self._flat.frombytes(flat.tobytes())
        self._base = len(self._offsets) - 1
        self._extra, self._tail = {}, []

    def add_rows(self, offsets: list[int], flat: list[int]) -> None:
        """Append nodes whose items are ``flat[offsets[k]:offsets[k + 1]]`` (compressed rows,
        ``offsets[0] == 0``): they join the compressed base when no node was appended one by
        one since it (a bulk import into a new or just opened memory), else one list each."""
        if self._tail:
            self._tail.extend([flat[a:b] for a, b in zip(offsets, offsets[1:])])
            return
        shift = len(self._flat)
        self._flat.extend(flat)
        self._offsets.extend([k + shift for k in offsets[1:]] if shift else offsets[1:])
        self._base += len(offsets) - 1

    def compressed(self) -> tuple[Ints, Ints]:
        """(offsets, flat) of every node, for a checkpoint: the base itself when nothing was
        added since it (the caller must not modify it), else the base copied in blocks, and
        only the nodes with added items and the added nodes visited one by one."""
        base_offsets, base_flat = self._offsets, self._flat
        if not self._extra and not self._tail:
            return base_offsets, base_flat
        offsets = list(base_offsets)
        flat: list[int] = []
        last, shift = 0, 0
        for n in sorted(self._extra):  # base nodes with items added later
            extra = self._extra[n]
            flat.extend(base_flat[base_offsets[last] : base_offsets[n + 1]])
            flat.extend(extra)
            if shift:
                offsets[last + 1 : n + 1] = [k + shift for k in base_offsets[last + 1 : n + 1]]
            shift += len(extra)
            last = n + 1
            offsets[last] = base_offsets[last] + shift
        flat.extend(base_flat[base_offsets[last] :])
        if shift:
            offsets[last + 1 :] = [k + shift for k in base_offsets[last + 1 :]]
        for items in self._tail:
            flat.extend(items)
            offsets.append(len(flat))
        return offsets, flat


class Antecedents(Sequence[tuple[int, ...]]):
    """Justification -> its sorted antecedent numbers, in compressed-row form that grows by
    appending: the antecedents of ``j`` are ``flat[offsets[j]:offsets[j + 1]]``.

    No per-justification object is kept (a memory of a million claims holds two int lists,
    not millions of tuples); reading ``antecedents[j]`` builds a tuple, and the hot loops of
    :class:`SupportState` slice ``flat`` directly.
    """

    __slots__ = ("offsets", "flat")

    def __init__(self, offsets: Ints | None = None, flat: Ints | None = None) -> None:
        self.offsets: Ints = offsets if offsets is not None else [0]
        self.flat: Ints = flat if flat is not None else []

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, j: int) -> tuple[int, ...]:  # type: ignore[override]
        offsets = self.offsets
        return tuple(self.flat[offsets[j] : offsets[j + 1]])

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        flat, offsets = self.flat, self.offsets
        for j in range(len(offsets) - 1):
            yield tuple(flat[offsets[j] : offsets[j + 1]])

    def lengths(self) -> list[int]:
        """The number of antecedents of every justification."""
        offsets = self.offsets
        return [b - a for a, b in zip(offsets, offsets[1:])]

    def append(self, antecedents: Sequence[int]) -> None:
        self.flat.extend(antecedents)
        self.offsets.append(len(self.flat))

    def compressed(self) -> tuple[Ints, Ints]:
        """(offsets, flat) of every justification (the arrays themselves, not copies)."""
        return self.offsets, self.flat


class GrowingIndex:
    """Integer adjacency that can grow (nodes and justifications are appended, never removed)."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        # a dict, or (opened from a checkpoint) an IdTable until lookups are many
        self.number: MutableMapping[str, int] = {}
        self.id_table: IdTable | None = None  # the checkpoint's, when opened from one
        self.is_evidence = bytearray()
        self.just_claim: Ints = []
        self.just_antecedents = Antecedents()
        self.justs_of = Adjacency()
        self.watchers = Adjacency()
        self.consumers = Adjacency()  # node -> the claims it is an antecedent of
        self.compaction_cost = 0.0  # seconds the last compact() took (none yet: 0)

    @classmethod
    def from_compressed(
        cls,
        ids: list[str],
        is_evidence: bytearray,
        just_claim: Ints,
        antecedents: tuple[Ints, Ints],
        justs_of: tuple[Ints, Ints],
        watchers: tuple[Ints, Ints],
        consumers: tuple[Ints, Ints],
        id_table: tuple[Ints, Ints] | None = None,
    ) -> "GrowingIndex":
        """An index from compressed rows (a checkpoint): O(nodes) C-level work, no per-node
        lists. ``id_table``: the (offsets, slots) of :func:`jtms.engine.id_table.table_arrays` for
        ``ids``, which number the ids without a dict of all of them
        (:class:`jtms.engine.id_table.IdTable`); without it, the dict is built here."""
        index = cls()
        index.ids = ids
        if id_table is None:
            index.number = dict(zip(ids, range(len(ids))))
        else:
            index.id_table = IdTable(ids, *id_table, on_built=index._hold_numbers)
            index.number = index.id_table
        index.is_evidence = is_evidence
        index.just_claim = just_claim
        index.just_antecedents = Antecedents(*antecedents)
        index.justs_of = Adjacency(*justs_of)
        index.watchers = Adjacency(*watchers)
        index.consumers = Adjacency(*consumers)
        return index

    def _hold_numbers(self, numbers: dict[str, int]) -> None:
        """The id table built its dict: hold that from now on (no lookup through the table)."""
        self.number = numbers

    def numbering_agrees(self) -> bool:
        """Whether the id table this index was opened with (if any, and whether or not it
        has built its dict since) is the one the ids give."""
        return self.id_table is None or self.id_table.agrees()

    def numbering(self) -> dict[str, int]:
        """The numbers of every id as a dict, for a caller about to look up many (an import
        into an opened memory): builds it from the id table if it is not yet."""
        if isinstance(self.number, IdTable):
            self.number = self.number.built()
        return cast("dict[str, int]", self.number)

    @property
    def size(self) -> int:
        return len(self.ids)

    def numbers(self, ids: Iterable[str]) -> list[int]:
        return [self.number[i] for i in ids]

    def flat_rows(self) -> tuple[Any, ...] | None:
        """The justification, watcher and antecedent rows (offsets, items) and the claim of
        each justification, when all are flat arrays (a memory opened from a checkpoint or
        built by an import, or compacted since); else None."""
        rows, watchers = flat_justification_rows(self), self.watchers.rows()
        if rows is None or watchers is None or not all_arrays(*watchers, self.just_claim):
            return None
        j_offsets, j_flat, a_offsets, a_flat = rows
        return (j_offsets, j_flat), watchers, (a_offsets, a_flat), self.just_claim

    def loose(self) -> bool:
        """Whether the planners' flat rows are missing (:meth:`flat_rows` is None: nodes or
        justifications were added one by one to an open memory) until :meth:`compact`."""
        return self.flat_rows() is None

    def compact(self) -> None:
        """Bring every row back to flat ``array("i")`` form (:meth:`Adjacency.compact`; the
        claims and antecedents of justifications as arrays too), recording in
        :attr:`compaction_cost` the seconds it took. The rows mean the same after."""
        started = time.perf_counter()
        for adjacency in (self.justs_of, self.watchers, self.consumers):
            adjacency.compact()
        if not isinstance(self.just_claim, array):
            self.just_claim = array("i", self.just_claim)
        antecedents = self.just_antecedents
        if not all_arrays(antecedents.offsets, antecedents.flat):
            antecedents.offsets = array("i", antecedents.offsets)
            antecedents.flat = array("i", antecedents.flat)
        self.compaction_cost = time.perf_counter() - started

    def names(self, numbers: Iterable[int]) -> frozenset[str]:
        return frozenset(map(self.ids.__getitem__, numbers))

    def add_node(self, node_id: str, evidence: bool) -> int:
        n = len(self.ids)
        self.ids.append(node_id)
        self.number[node_id] = n
        self.is_evidence.append(1 if evidence else 0)
        self.justs_of.add_nodes(1)
        self.watchers.add_nodes(1)
        self.consumers.add_nodes(1)
        return n

    def extend(
        self,
        nodes: Sequence[tuple[str, bool]],
        justifications: Iterable[tuple[int, Iterable[int]]],
        canonical: bool = False,
    ) -> None:
        """Append many nodes, then many (claim, antecedents) justifications (bulk import).

        ``canonical``: the antecedents are already sorted tuples without repeats.
        """
        first = len(self.ids)
        ids, number = self.ids, self.number
        for offset, (node_id, _) in enumerate(nodes):
            ids.append(node_id)
            number[node_id] = first + offset
        self.is_evidence.extend(1 if evidence else 0 for _, evidence in nodes)
        self.justs_of.add_nodes(len(nodes))
        self.watchers.add_nodes(len(nodes))
        self.consumers.add_nodes(len(nodes))
        just_claim, just_antecedents = self.just_claim, self.just_antecedents
        add_just, add_watch, add_consumer = (
            self.justs_of.add,
            self.watchers.add,
            self.consumers.add_unique,
        )
        j = len(just_claim)
        for claim, antecedents in justifications:
            ants = tuple(antecedents) if canonical else tuple(sorted(set(antecedents)))
            just_claim.append(claim)
            just_antecedents.append(ants)
            add_just(claim, j)
            for a in ants:
                add_watch(a, j)
                add_consumer(a, claim)
            j += 1

    def extend_rows(
        self,
        nodes: Sequence[tuple[str, bool]] | GraphRows,
        claims: Sequence[int],
        offsets: Sequence[int],
        flat: Sequence[int],
    ) -> None:
        """Append a self-contained graph: ``nodes``, then justification ``k`` of claim
        ``claims[k]`` with antecedents ``flat[offsets[k]:offsets[k + 1]]`` (sorted, distinct,
        ``offsets[0] == 0``), every claim and antecedent among the new nodes (a bulk import).
        ``nodes`` is (id, is evidence) per node, or the :class:`GraphRows` the rows come
        from (its ids, its evidence first, and into an empty index its numbering).

        The same index as :meth:`extend` gives (adjacency in justification order, consumers
        in first-use order), grouped with numpy instead of item by item.
        """
        import numpy as np

        first, count = len(self.ids), len(nodes.ids if isinstance(nodes, GraphRows) else nodes)
        j0 = len(self.just_claim)
        claim = np.asarray(claims, dtype=np.int64) - first
        ants = np.asarray(flat, dtype=np.int64) - first
        offs = np.asarray(offsets, dtype=np.int64)
        if len(claim) and (claim.min() < 0 or claim.max() >= count):
            raise ValueError("a justification's claim is not among the new nodes")
        if len(ants) and (ants.min() < 0 or ants.max() >= count):
            raise ValueError("an antecedent is not among the new nodes")
        if isinstance(nodes, GraphRows):
            new_ids = nodes.ids
            flags = b"\x01" * nodes.evidence + b"\x00" * (count - nodes.evidence)
            numbered = nodes.number if not first and not self.number else None
        else:
            new_ids = [node_id for node_id, _ in nodes]
            flags = bytes([1 if evidence else 0 for _, evidence in nodes])
            numbered = None
        self.ids.extend(new_ids)
        if numbered is not None:
            self.number = dict(numbered)  # a copy of the reader's table, not hashed again
        else:
            self.number.update(zip(new_ids, range(first, first + count)))
        self.is_evidence.extend(flags)
        # into an empty index (a new memory's import, GrowingIndex.of): flat int arrays, as a
        # memory opened from a checkpoint holds them (no Python int object per item)
        empty = not first and not j0 and count < 1 << 31 and len(ants) < 1 << 31
        flat_ints = _int_array if empty else _int_list
        if empty:
            self.just_claim = flat_ints(claim)
            self.just_antecedents = Antecedents(flat_ints(offs), flat_ints(ants))
        else:
            self.just_claim.extend((claim + first).tolist())
            antecedents = self.just_antecedents
            base = len(antecedents.flat)
            antecedents.flat.extend((ants + first).tolist())
            antecedents.offsets.extend((offs[1:] + base).tolist())

        def grouped(keys: Any, values: Any) -> tuple[Ints, Ints]:
            order = stable_order(keys, count)  # within a node: in the given order
            starts = np.zeros(count + 1, dtype=np.int64)
            np.cumsum(np.bincount(keys, minlength=count), out=starts[1:])
            return flat_ints(starts), flat_ints(values[order])

        def add(adjacency: Adjacency, rows: tuple[Ints, Ints]) -> Adjacency:
            if empty:
                return Adjacency(*rows)
            adjacency.add_rows(*rows)  # type: ignore[arg-type]
            return adjacency

        just = np.arange(j0, j0 + len(claim), dtype=np.int64)
        self.justs_of = add(self.justs_of, grouped(claim, just))
        of_antecedent = np.repeat(just, np.diff(offs))
        self.watchers = add(self.watchers, grouped(ants, of_antecedent))
        # consumers: each (antecedent, claim) pair once, in the order of its first use
        width = max(1, count)
        pair = ants * width + np.repeat(claim, np.diff(offs))
        unique = pair[first_occurrences(pair, width * width)]  # in order of first use
        unique = unique[stable_order(unique // width, width)]
        self.consumers = add(self.consumers, grouped(unique // width, unique % width + first))

    def add_justification(self, claim: int, antecedents: Iterable[int]) -> int:
        j = len(self.just_claim)
        ants = tuple(sorted(set(antecedents)))
        self.just_claim.append(claim)
        self.just_antecedents.append(ants)
        self.justs_of.add(claim, j)
        for a in ants:
            self.watchers.add(a, j)
            self.consumers.add_unique(a, claim)
        return j

    def find_justification(self, claim: int, antecedents: Iterable[int]) -> int | None:
        key = tuple(sorted(set(antecedents)))
        for j in self.justs_of[claim]:
            if self.just_antecedents[j] == key:
                return j
        return None

    @classmethod
    def of(cls, structure: SupportStructure) -> "GrowingIndex":
        """The index of a structure (evidence first, then claims, each sorted by id)."""
        index = cls()
        rows = GraphRows.of(structure)
        index.extend_rows(rows, rows.claims, rows.offsets, rows.flat)
        return index

    def structure(self, texts: dict[str, str] | None = None) -> SupportStructure:
        """The indexed graph as an immutable :class:`SupportStructure`."""
        ids = self.ids
        evidence = [ids[n] for n in range(self.size) if self.is_evidence[n]]
        claims = [ids[n] for n in range(self.size) if not self.is_evidence[n]]
        pairs = [
            (ids[c], [ids[a] for a in ants])
            for c, ants in zip(self.just_claim, self.just_antecedents)
        ]
        return SupportStructure.build(evidence, claims, pairs, texts=texts)


def _derivation_pointers(
    index: GrowingIndex, flags: Sequence[int], sources: Sequence[int], first: int, first_just: int
) -> tuple[dict[int, int], dict[int, int]]:
    """Support pointers and ranks of the claims flagged in ``flags`` that the justifications
    numbered from ``first_just`` derive from ``sources`` (flagged evidence, rank 0).

    Breadth-first counter propagation, each claim taking the first of its justifications to
    complete: the queue is in rank order, so a claim's rank is one above that of the last
    antecedent to complete, the least a derivation gives it. Every justification from
    ``first_just`` must use only nodes numbered from ``first`` (the whole index, or a
    self-contained graph appended to it): watchers below ``first`` are not read.
    """
    just_claim = index.just_claim
    offsets = index.just_antecedents.offsets
    watchers = index.watchers
    rows = watchers.rows()
    if (
        rows is not None and isinstance(flags, bytearray) and all_arrays(*rows, just_claim, offsets)
    ):  # flat arrays (an import into a new memory): a level at a time in numpy
        arrays = cast("tuple[array, array]", rows)
        return _derivation_pointers_of_arrays(
            arrays, cast(array, just_claim), cast(array, offsets), flags, sources, first_just
        )
    missing = [b - a for a, b in zip(offsets[first_just:], offsets[first_just + 1 :])]
    supports: dict[int, int] = {}
    ranks: dict[int, int] = dict.fromkeys(sources, 0)
    queue: list[int] = list(sources)
    for k, count in enumerate(missing):  # justifications without antecedents
        c = just_claim[first_just + k]
        if count == 0 and flags[c] and c not in supports:
            supports[c], ranks[c] = first_just + k, 1
            queue.append(c)
    k = 0
    while k < len(queue):
        n = queue[k]
        k += 1
        above = ranks[n] + 1
        for j in watchers[n] if rows is None else rows[1][rows[0][n] : rows[0][n + 1]]:
            left = missing[j - first_just] - 1
            missing[j - first_just] = left
            if left == 0:
                c = just_claim[j]
                if flags[c] and c not in supports:
                    supports[c], ranks[c] = j, above
                    queue.append(c)
    for n in sources:
        del ranks[n]
    return supports, ranks


APPLY_IN_ARRAYS_FROM = 256
"""Nodes and pointers of a plan from which :meth:`SupportState.apply` assigns them as arrays
(an audit's hundreds) rather than one by one."""

SMALL_LEVEL = 64
"""Nodes of one rank below which :func:`_derivation_pointers_of_arrays` counts item by item
(a deep, narrow graph: a chain) rather than in array operations."""


def _derivation_pointers_of_arrays(
    watchers: tuple[array, array],
    just_claim: array,
    offsets: array,
    flags: bytearray,
    sources: Sequence[int],
    first_just: int,
) -> tuple[dict[int, int], dict[int, int]]:
    """:func:`_derivation_pointers` over flat arrays, a rank at a time: the same pointers and
    ranks, in the same order.

    The queue of the breadth-first derivation holds the nodes of one rank after those of the
    rank below, so a whole rank is processed at once: its nodes' watcher slots in queue
    order, each justification's count going down by its slots there. One completes where its
    last slot lies; each claim takes the completed justification whose last slot comes first
    (the one the item-by-item queue would meet first), and the claims enter the next rank in
    that order. The counters are an ``array("q")`` and the pointer flags a ``bytearray``, read
    by numpy in place, so that a small rank (a chain's) is counted item by item at list
    speed instead of paying for array operations.
    """
    import numpy as np

    w_offsets, w_flat = watchers
    w_offs, w_items, claim_of = map(array_view, (w_offsets, w_flat, just_claim))
    antecedent_counts = np.diff(array_view(offsets)[first_just:]).astype(np.int64)
    missing = array("q", antecedent_counts.tobytes())
    left_np = np.frombuffer(missing, dtype=np.int64)
    has = bytearray(len(flags))  # claims given a pointer
    has_np, flag_np = np.frombuffer(has, dtype=np.uint8), np.frombuffer(flags, dtype=np.uint8)

    def first_per_claim(justs: Any) -> tuple[Any, Any]:
        """Of completed justifications in completion order, each eligible claim's first."""
        claims = claim_of[justs].astype(np.int64)
        eligible = (flag_np[claims] != 0) & (has_np[claims] == 0)
        claims, justs = claims[eligible], justs[eligible]
        first = first_occurrences(claims, len(flags))
        return claims[first], justs[first]

    empty = np.flatnonzero(antecedent_counts == 0) + first_just  # justifications without
    claims, justs = first_per_claim(empty)  # antecedents: rank 1, first in its queue
    has_np[claims] = 1
    next_claims: list[int] = claims.tolist()
    next_justs: list[int] = justs.tolist()
    got_claims: list[int] = []
    got_justs: list[int] = []
    got_ranks: list[int] = []
    level, rank = list(sources), 0
    while True:
        if len(level) < SMALL_LEVEL:
            for n in level:
                for j in w_flat[w_offsets[n] : w_offsets[n + 1]]:
                    k = j - first_just
                    left = missing[k] - 1
                    missing[k] = left
                    if left == 0:
                        c = just_claim[j]
                        if flags[c] and not has[c]:
                            has[c] = 1
                            next_claims.append(c)
                            next_justs.append(j)
        else:
            slots, _ = gathered_rows(w_offs, w_items, np.asarray(level, dtype=np.int64))
            if slots.size:
                order = stable_order(slots, len(just_claim))  # a justification's in order
                ordered = slots[order]
                last = np.flatnonzero(np.append(ordered[1:] != ordered[:-1], True))
                counts = np.diff(np.append(-1, last))
                justs = ordered[last].astype(np.int64)
                local = justs - first_just
                completed = left_np[local] == counts
                left_np[local] -= counts
                by_slot = np.argsort(order[last][completed])  # distinct slots
                claims, justs = first_per_claim(justs[completed][by_slot])
                has_np[claims] = 1
                next_claims += claims.tolist()
                next_justs += justs.tolist()
        if not next_claims:
            break
        rank += 1
        got_claims += next_claims
        got_justs += next_justs
        got_ranks += [rank] * len(next_claims)
        level, next_claims, next_justs = next_claims, [], []
    supports = dict(zip(got_claims, got_justs))
    ranks = dict(zip(got_claims, got_ranks))
    return supports, ranks


class PointerMap(Mapping[int, int]):
    """claim -> value held as two integer arrays, as the compiled planner returns them
    (:mod:`jtms.engine.retract_kernel`): a plan's pointers or ranks. Applying and storing a plan
    read the arrays; a dict is built only for a reader that asks item by item.

    >>> import numpy as np
    >>> pointers = PointerMap(np.array([7, 3]), np.array([70, 30]))
    >>> len(pointers), pointers[3], list(pointers), pointers == {3: 30, 7: 70}
    (2, 30, [7, 3], True)
    """

    __slots__ = ("keys_array", "values_array", "_items")

    def __init__(self, keys: Any, values: Any) -> None:
        self.keys_array = keys
        self.values_array = values
        self._items: dict[int, int] | None = None

    def _dict(self) -> dict[int, int]:
        if self._items is None:
            self._items = dict(zip(self.keys_array.tolist(), self.values_array.tolist()))
        return self._items

    def __getitem__(self, claim: int) -> int:
        return self._dict()[claim]

    def __iter__(self) -> Iterator[int]:
        return iter(self.keys_array.tolist())  # distinct claims: the dict's order

    def __len__(self) -> int:
        return len(self.keys_array)

    def __repr__(self) -> str:
        return repr(self._dict())


@dataclass
class Plan:
    """A planned change of the state: what becomes inactive, what becomes active, new pointers."""

    blocked: tuple[int, ...] = ()  # roots whose block count goes up (audit)
    unblocked: tuple[int, ...] = ()  # roots whose block count goes down (reinstate)
    region: int = 0  # size of the region the operation examined
    visited: int = 0  # claims re-examined (retraction: lost a pointer)
    deactivated: tuple[int, ...] = ()  # active before, inactive after (retired)
    activated: tuple[int, ...] = ()  # inactive before, active after
    # claim -> its new support pointer; claim -> its new rank (a dict, or a PointerMap)
    supports: Mapping[int, int] = field(default_factory=dict)
    ranks: Mapping[int, int] = field(default_factory=dict)

    @property
    def rederived(self) -> tuple[int, ...]:
        """Claims of the region that lost their pointer but stayed active (a new pointer)."""
        if not self.activated:  # a retraction: every new pointer is on a claim that stays active
            return tuple(self.supports)
        activated = set(self.activated)
        return tuple(c for c in self.supports if c not in activated)


class SupportState:
    """The least fixpoint under a blocked set, with support pointers, kept incrementally."""

    def __init__(self, index: GrowingIndex, blocks: dict[int, int] | None = None):
        self.index = index
        self.blocks: dict[int, int] = {n: k for n, k in (blocks or {}).items() if k > 0}
        self.active = bytearray(index.size)
        self.support: array[int] = array("q", [NO_SUPPORT]) * index.size
        self.rank: array[int] = array("q", [NO_RANK]) * index.size
        self._derive_all()

    @classmethod
    def restore(
        cls,
        index: GrowingIndex,
        blocks: dict[int, int],
        active: bytearray,
        support: Sequence[int],
        rank: Sequence[int],
        pointer: bytes | None = None,
    ) -> "SupportState":
        """A state from saved flags, pointers and ranks (no fixpoint is computed).

        The arrays may be shorter than the index (nodes added since are inactive). The
        caller vouches for them (they were saved from a state; :meth:`verify` checks them).
        """
        state = cls.__new__(cls)
        state.index = index
        state.blocks = {n: k for n, k in blocks.items() if k > 0}
        state.active = bytearray(active)
        state.support = array("q", support)
        state.rank = array("q", rank)
        state.pointer = (
            bytearray(pointer) if pointer is not None else state._pointer_flags(state.support)
        )
        state.grow()
        return state

    def _derive_all(self) -> None:
        """The fixpoint from :func:`active_numbers` (theory decides), then pointers for it.

        The pointers come from a breadth-first derivation over the active nodes
        (:func:`_derivation_pointers`), each claim taking the first justification to complete,
        so its rank is the least a derivation gives it: small derivations keep audit regions
        small.
        """
        index = self.index
        flags = active_numbers(index, blocked=list(self.blocks))
        sources = [n for n in range(index.size) if flags[n] and index.is_evidence[n]]
        supports, ranks = _derivation_pointers(index, flags, sources, 0, 0)
        rank, support = self.rank, self.support
        for n in sources:
            rank[n] = 0
        for c, j in supports.items():
            support[c] = j
            rank[c] = ranks[c]
        self.active = bytearray(flags)
        if len(sources) + len(supports) != sum(flags):  # pragma: no cover - a derivation
            raise AssertionError("support pointers do not cover the least fixpoint")
        self.pointer = self._pointer_flags(support)

    def _pointer_flags(self, support: Sequence[int]) -> bytearray:
        """One byte per justification: 1 when it is its claim's support pointer."""
        flags = bytearray(len(self.index.just_claim))
        if isinstance(support, array):  # a checkpoint's pointers: one array assignment
            pointers = array_view(support)
            array_view(flags)[pointers[pointers != NO_SUPPORT]] = 1
            return flags
        for j in support:
            if j != NO_SUPPORT:
                flags[j] = 1
        return flags

    def dependents_of(self, n: int) -> list[int]:
        """The claims whose support pointer has ``n`` as an antecedent: the watchers of ``n``
        (the justifications using it) flagged in :attr:`pointer`."""
        pointer, just_claim = self.pointer, self.index.just_claim
        return [just_claim[j] for j in self.index.watchers[n] if pointer[j]]

    def grow(self) -> None:
        """Make room for nodes and justifications appended to the index since the last call
        (inactive, no pointer)."""
        added = len(self.index.just_claim) - len(self.pointer)
        if added > 0:
            self.pointer.extend(bytes(added))
        missing = self.index.size - len(self.active)
        if missing > 0:
            self.active.extend(bytes(missing))
            self.support.extend([NO_SUPPORT] * missing)
            self.rank.extend([NO_RANK] * missing)

    def certificate(self, n: int) -> list[tuple[int, int]]:
        """The pointer derivation of an active node: (claim, justification) pairs, down to evidence.

        Each claim appears once, after the claims its justification uses (a well-founded
        derivation). Empty for evidence and for inactive nodes.
        """
        steps = self.certificate_beyond(n, frozenset())
        assert steps is not None
        return steps

    def certificate_beyond(
        self, n: int, known: Container[int], limit: int | None = None
    ) -> list[tuple[int, int]] | None:
        """The steps of :meth:`certificate` whose claims are not in ``known``, or None when
        there are more than ``limit`` of them (the walk stops there: its cost is bounded by
        ``limit``, not by the certificate's size).

        ``known`` must be closed under certificates (each known claim's certificate is
        known), as in a working context that takes claims only with their certificates; the
        walk does not enter it.
        """
        if not self.active[n] or self.index.is_evidence[n] or n in known:
            return []
        order: list[tuple[int, int]] = []
        seen = {n}
        stack: list[tuple[int, bool]] = [(n, False)]
        support = self.support
        ants = self.index.just_antecedents
        is_evidence = self.index.is_evidence
        while stack:
            c, expanded = stack.pop()
            j = support[c]
            if expanded:
                order.append((c, j))
                continue
            if limit is not None and len(seen) > limit:
                return None
            stack.append((c, True))
            for a in ants[j]:
                if not is_evidence[a] and a not in seen and a not in known:
                    seen.add(a)
                    stack.append((a, False))
        return order

    def blocking_roots(self, n: int) -> frozenset[int]:
        """The blocked nodes that keep the inactive node ``n`` out now.

        They are the blocked nodes of the inactive part of ``n``'s ancestry (``n`` included;
        the search stops at active nodes, which are not the reason), provided that lifting
        their blocks makes ``n`` active again (re-derived from the active rest with
        :func:`theory.semantics.fixpoint.rederive`). Empty for an active node and for one that would
        stay inactive with no block at all (it has no well-founded support).
        """
        if self.active[n]:
            return frozenset()
        index, active, blocks = self.index, self.active, self.blocks
        justs_of, just_antecedents = index.justs_of, index.just_antecedents
        upstream = [n]
        seen = {n}
        k = 0
        while k < len(upstream):
            c = upstream[k]
            k += 1
            for j in justs_of[c]:
                for a in just_antecedents[j]:
                    if a not in seen and not active[a]:
                        seen.add(a)
                        upstream.append(a)
        blocked = frozenset(a for a in upstream if a in blocks)
        if not blocked:
            return blocked
        flags = bytearray(active)
        for a in upstream:
            if index.is_evidence[a]:
                flags[a] = 1
        rederive(index, flags, [a for a in upstream if not index.is_evidence[a]])
        return blocked if flags[n] else frozenset()

    def blocking_labels(self, labels: Mapping[int, frozenset[T]]) -> dict[int, frozenset[T]]:
        """:meth:`blocking_roots` of every inactive node at once, each root read as its
        ``labels`` (for instance the open audits that block it; a blocked node missing from
        ``labels`` has none): the union of the labels of ``blocking_roots(n)`` for each
        inactive ``n`` whose roots carry one.

        Linear in the inactive part and its justifications (plus the unions of labels), where
        calling :meth:`blocking_roots` for each inactive node is quadratic on a long chain.
        The roots of ``n`` are the blocked nodes from which ``n`` is reached through inactive
        nodes, kept only when lifting every block re-derives ``n``: one re-derivation of the
        whole inactive part decides that for every node (each node's outcome depends on its
        ancestry alone), and the labels flow along the components of the inactive part in
        topological order.
        """
        index, active, blocks = self.index, self.active, self.blocks
        inactive = [n for n in range(index.size) if not active[n]]
        if not inactive or not blocks:
            return {}
        flags = bytearray(active)
        is_evidence = index.is_evidence
        for a in inactive:
            if is_evidence[a]:
                flags[a] = 1
        rederive(index, flags, [a for a in inactive if not is_evidence[a]])
        justs_of, just_antecedents = index.justs_of, index.just_antecedents
        empty: frozenset[T] = frozenset()
        reached: dict[int, frozenset[T]] = {}
        result: dict[int, frozenset[T]] = {}
        for component in strongly_connected_components(index, inactive):
            inside = set(component)
            parts: dict[int, frozenset[T]] = {}
            for c in component:
                own = labels.get(c, empty) if c in blocks else empty
                if own:
                    parts[id(own)] = own
                for j in justs_of[c]:
                    for a in just_antecedents[j]:
                        if a not in inside:
                            upstream = reached.get(a)
                            if upstream:
                                parts[id(upstream)] = upstream
            if not parts:
                continue
            union = next(iter(parts.values())) if len(parts) == 1 else empty.union(*parts.values())
            for c in component:
                reached[c] = union
                if flags[c]:
                    result[c] = union
        return result

    # --- planning ---------------------------------------------------------------------------
    def _supports_in_order(
        self, after: bytearray, derived: Sequence[int], moved: Mapping[int, int] | None = None
    ) -> tuple[dict[int, int], dict[int, int]]:
        """A pointer for each derived claim, consistent with the derivation order of ``derived``
        (``moved``: the new ranks of other claims the same plan changes)."""
        position = {c: i for i, c in enumerate(derived)}
        index = self.index
        rank = self.rank
        moved_rank = (moved or {}).get
        justs_of, is_evidence = index.justs_of, index.is_evidence
        offsets, flat = index.just_antecedents.offsets, index.just_antecedents.flat
        new_rank: dict[int, int] = {}
        result: dict[int, int] = {}
        for i, c in enumerate(derived):
            best, best_rank = NO_SUPPORT, NO_RANK
            for j in justs_of[c]:
                level = 1
                for a in flat[offsets[j] : offsets[j + 1]]:
                    p = position.get(a, -1)
                    if not after[a] or p >= i:
                        break
                    if p >= 0:
                        below = 1 + new_rank[a]
                    elif is_evidence[a]:  # rank 0, also when active only from this plan on
                        below = 1
                    else:
                        below = 1 + moved_rank(a, rank[a])
                    if below > level:
                        level = below
                else:
                    if level < best_rank or best == NO_SUPPORT:
                        best, best_rank = j, level
            if best == NO_SUPPORT:  # pragma: no cover - rederive's order guarantees one
                raise AssertionError(f"no well-founded justification for node {c}")
            result[c] = best
            new_rank[c] = best_rank
        return result, new_rank

    def support_region(self, roots: Iterable[int]) -> list[int]:
        """``roots`` plus every active claim whose support pointer passes through them.

        A breadth-first walk over pointer dependents (:meth:`dependents_of`), one level at a
        time: the watchers of a level, those flagged in :attr:`pointer`, their claims not
        seen yet. The cost is the region and the justifications using its nodes, never the
        rest of the memory. On the flat arrays of a memory opened from a checkpoint a level
        is a few numpy operations (:func:`_region_of_arrays`); otherwise C-level iteration
        over the adjacency lists. Both give the same nodes.
        """
        index = self.index
        rows = index.watchers.rows()
        if rows is not None and all_arrays(*rows, index.just_claim):
            return _region_of_arrays(roots, rows[0], rows[1], index.just_claim, self.pointer)
        return self.region_walk(roots)

    def region_walk(self, roots: Iterable[int]) -> list[int]:
        """:meth:`support_region` over the adjacency lists, whatever their storage."""
        index = self.index
        watchers, claim_of, flagged = index.watchers, index.just_claim.__getitem__, self.pointer
        region = list(dict.fromkeys(roots))
        seen = set(region)
        level = region
        while level:
            using = list(chain.from_iterable(watchers.many(level)))
            claims = set(map(claim_of, compress(using, map(flagged.__getitem__, using))))
            claims -= seen
            seen |= claims
            level = list(claims)
            region += level
        return region

    def plan_retract(self, roots: Iterable[int]) -> Plan:
        """Block ``roots`` (evidence or claims): the retired nodes and the new pointers.

        ``Z`` is the support region (:meth:`support_region`): every active claim whose pointer
        derivation passes through a root. An active node outside ``Z`` is unaffected: its
        whole pointer derivation avoids the roots. Phase 1 visits the claims whose pointer
        lost an antecedent, a rank at a time, lowest first (supports before their users). Such
        a claim *switches* to another justification whose antecedents are all outside ``Z``
        or switched at a lower rank, which is a well-founded derivation (by induction on the
        order of switching), and then its dependents are left alone; otherwise it goes *out*
        and its pointer dependents are visited. Phase 2 re-derives the out claims from
        outside support as :func:`theory.semantics.fixpoint.rederive` does (so a loop of out
        claims is never kept), and gives each a pointer consistent with its derivation order.

        The plan is made in one call of the compiled planner (:mod:`jtms.engine.retract_kernel`)
        over the index's flat rows: an index that gained rows one by one is compacted first
        (:meth:`GrowingIndex.compact`, O(items) in array operations). The work is sized by
        ``Z`` and the justifications of its nodes, plus a few flat buffers of the memory's size.
        """
        from jtms.engine import retract_kernel

        roots = tuple(dict.fromkeys(roots))
        self.grow()
        index = self.index
        rows = index.flat_rows()
        if rows is None:  # rows added one by one: flat again, for this plan and the next
            index.compact()
            rows = index.flat_rows()
            assert rows is not None, "a compacted index has flat rows"
        retired, claims, pointers, ranks, size, visited = retract_kernel.plan_retract(
            roots, self.active, self.support, self.rank, self.pointer,
            index.is_evidence, *rows,
        )  # fmt: skip
        return Plan(
            blocked=roots,
            region=size,
            visited=visited,
            deactivated=retired,
            supports=PointerMap(claims, pointers),
            ranks=PointerMap(claims, ranks),
        )

    def plan_extend(self, seeds: Iterable[int] = (), unblock: Iterable[int] = ()) -> Plan:
        """Unblock ``unblock`` (one block each) and re-derive from ``seeds``; the fixpoint grows.

        ``seeds`` are nodes that may have become derivable (new claims, claims with a new
        justification). The region is every inactive, unblocked node reachable from the seeds
        and the unblocked nodes through inactive nodes.
        """
        self.grow()
        index = self.index
        unblock = tuple(unblock)
        counts = Counter(unblock)
        released = {n for n, k in counts.items() if self.blocks.get(n, 0) - k <= 0}

        def blocked_after(n: int) -> bool:
            return n in self.blocks and n not in released

        after = bytearray(self.active)
        base: list[int] = []
        region: list[int] = []
        seen: set[int] = set()
        for n in list(seeds) + sorted(released):
            if n in seen or after[n] or blocked_after(n):
                continue
            seen.add(n)
            if index.is_evidence[n]:
                after[n] = 1
                base.append(n)
            else:
                region.append(n)
        frontier = base + region
        watchers, just_claim = index.watchers, index.just_claim
        k = 0
        while k < len(frontier):
            n = frontier[k]
            k += 1
            for j in watchers[n]:
                c = just_claim[j]
                if c not in seen and not after[c] and not blocked_after(c):
                    seen.add(c)
                    region.append(c)
                    frontier.append(c)
        derived = rederive(index, after, region)
        supports, ranks = self._supports_in_order(after, derived)
        return Plan(
            unblocked=unblock,
            region=len(base) + len(region),
            visited=len(region),
            activated=tuple(base) + tuple(derived),
            supports=supports,
            ranks=ranks,
        )

    def plan_import(self, first: int, first_just: int) -> Plan:
        """:meth:`plan_extend` for the nodes numbered from ``first`` and the justifications
        from ``first_just`` when they are a self-contained graph appended to the index (no
        justification of theirs uses an older node): the region is exactly the new nodes.

        The fixpoint comes from :func:`rederive` as in every plan; the pointers from
        :func:`_derivation_pointers` over the new justifications, as :meth:`_derive_all`
        takes them over the whole index.
        """
        self.grow()
        index = self.index
        size = index.size
        blocks = self.blocks
        is_evidence = index.is_evidence
        after = bytearray(self.active)
        base = [n for n in range(first, size) if is_evidence[n] and n not in blocks]
        for n in base:
            after[n] = 1
        region = [n for n in range(first, size) if not is_evidence[n] and n not in blocks]
        derived = rederive(index, after, region)
        supports, ranks = _derivation_pointers(index, after, base, first, first_just)
        if len(supports) != len(derived):  # pragma: no cover - the fixpoint is a derivation
            raise AssertionError("support pointers do not cover the imported fixpoint")
        return Plan(
            region=size - first,
            visited=len(region),
            activated=tuple(base) + tuple(derived),
            supports=supports,
            ranks=ranks,
        )

    # --- applying ---------------------------------------------------------------------------
    def apply(self, plan: Plan) -> None:
        """Make the plan's changes: block counts, flags, pointers (and their flags) and ranks:
        O(plan), no per-node structure to update."""
        self.grow()
        blocks = self.blocks
        for n in plan.blocked:
            blocks[n] = blocks.get(n, 0) + 1
        for n in plan.unblocked:
            left = blocks.get(n, 0) - 1
            if left > 0:
                blocks[n] = left
            else:
                blocks.pop(n, None)
        active, support, rank, pointer = self.active, self.support, self.rank, self.pointer
        if len(plan.deactivated) + len(plan.supports) >= APPLY_IN_ARRAYS_FROM and all_arrays(
            support, rank
        ):
            self._apply_in_arrays(plan)
            return
        for n in plan.deactivated:
            active[n] = 0
            old = support[n]
            if old != NO_SUPPORT:
                pointer[old] = 0
                support[n] = NO_SUPPORT
            rank[n] = NO_RANK
        is_evidence = self.index.is_evidence
        for n in plan.activated:
            active[n] = 1
            if is_evidence[n]:
                rank[n] = 0
        for c, j in plan.supports.items():
            old = support[c]
            if old != NO_SUPPORT:
                pointer[old] = 0
            pointer[j] = 1
            support[c] = j
        for c, r in plan.ranks.items():
            rank[c] = r

    def _apply_in_arrays(self, plan: Plan) -> None:
        """:meth:`apply`'s flags, pointers and ranks as array assignments (a plan of
        hundreds of nodes: an audit's), in the loop's order: each node and each claim
        appears once in its part of a plan, and a claim's pointers are its own
        justifications, so the assignments do not interfere."""
        import numpy as np

        active, support, rank, pointer = map(
            array_view, (self.active, self.support, self.rank, self.pointer)
        )
        out = np.array(plan.deactivated, dtype=np.int64)
        if len(out):
            active[out] = 0
            old = support[out]
            pointer[old[old != NO_SUPPORT]] = 0
            support[out] = NO_SUPPORT
            rank[out] = NO_RANK
        came = np.array(plan.activated, dtype=np.int64)
        if len(came):
            active[came] = 1
            evidence = came[np.frombuffer(self.index.is_evidence, dtype=np.uint8)[came] != 0]
            rank[evidence] = 0
        if plan.supports:
            claims, justs = _columns(plan.supports)
            old = support[claims]
            pointer[old[old != NO_SUPPORT]] = 0
            pointer[justs] = 1
            support[claims] = justs
        if plan.ranks:
            claims, ranks = _columns(plan.ranks)
            rank[claims] = ranks

    # --- checking ---------------------------------------------------------------------------
    def verify(self) -> list[str]:
        """Problems with the state (empty when it equals the fixpoint and pointers are sound)."""
        problems: list[str] = []
        index = self.index
        expected = active_numbers(index, blocked=list(self.blocks))
        if bytes(expected) != bytes(self.active[: index.size]):
            wrong = [index.ids[n] for n in range(index.size) if expected[n] != self.active[n]]
            problems.append(f"active state differs from the least fixpoint on {sorted(wrong)[:10]}")
        # pointers: an active claim's pointer is intact and the pointer graph is acyclic
        depth: dict[int, int] = {}
        for n in range(index.size):
            if not self.active[n] or index.is_evidence[n]:
                continue
            j = self.support[n]
            if j == NO_SUPPORT or index.just_claim[j] != n:
                problems.append(f"active claim {index.ids[n]!r} has no valid support pointer")
                continue
            if not all(self.active[a] for a in index.just_antecedents[j]):
                problems.append(f"support pointer of {index.ids[n]!r} is not intact")
        if bytes(self.pointer) != bytes(self._pointer_flags(self.support)):
            problems.append("pointer flags differ from the support pointers")
        if not problems:
            for n in range(index.size):
                if self.active[n] and not index.is_evidence[n] and n not in depth:
                    if not self._acyclic_from(n, depth):
                        problems.append(f"support pointers of {index.ids[n]!r} form a loop")
                        break
        return problems

    def _acyclic_from(self, start: int, depth: dict[int, int]) -> bool:
        index = self.index
        on_path: set[int] = set()
        stack: list[tuple[int, bool]] = [(start, False)]
        while stack:
            n, done = stack.pop()
            if done:
                on_path.discard(n)
                depth[n] = 1
                continue
            if n in depth:
                continue
            if n in on_path:
                return False
            on_path.add(n)
            stack.append((n, True))
            for a in index.just_antecedents[self.support[n]]:
                if not index.is_evidence[a]:
                    if a in on_path:
                        return False
                    if a not in depth:
                        stack.append((a, False))
        return True


def state_of(structure: SupportStructure, blocked: Iterable[str] = ()) -> SupportState:
    """The support state of an immutable structure with ``blocked`` ids forced inactive."""
    index = GrowingIndex.of(structure)
    blocks: dict[int, int] = {}
    for node_id in structure.require(blocked):
        blocks[index.number[node_id]] = 1
    return SupportState(index, blocks)


def _columns(pairs: Mapping[int, int]) -> tuple[Any, Any]:
    """The keys and values of a plan's mapping as two int64 arrays, in its order."""
    import numpy as np

    if isinstance(pairs, PointerMap):
        return pairs.keys_array, pairs.values_array
    return (
        np.fromiter(pairs.keys(), np.int64, len(pairs)),
        np.fromiter(pairs.values(), np.int64, len(pairs)),
    )


def pointer_rows(plan: Plan) -> Iterator[tuple[int, int, int]]:
    """(claim, pointer, rank) of each new pointer of ``plan``, in claim order (the rows a
    store writes: its index by node then grows at its end, not at random pages); a claim
    the plan gives no rank has :data:`NO_RANK`."""
    supports, ranks = plan.supports, plan.ranks
    if (
        isinstance(supports, PointerMap)
        and isinstance(ranks, PointerMap)
        and ranks.keys_array is supports.keys_array
    ):
        order = supports.keys_array.argsort(kind="stable")
        return zip(
            supports.keys_array[order].tolist(),
            supports.values_array[order].tolist(),
            ranks.values_array[order].tolist(),
        )
    claims = sorted(supports)
    return zip(claims, map(supports.__getitem__, claims), map(ranks.get, claims, repeat(NO_RANK)))


def _int_array(values: Any) -> "array[int]":
    """A numpy integer array as a flat ``array("i")`` (one copy of its bytes)."""
    import numpy as np

    result = array("i")
    result.frombytes(np.ascontiguousarray(values, dtype=np.int32).tobytes())
    return result


def _int_list(values: Any) -> list[int]:
    """A numpy integer array as a list of Python ints."""
    return values.tolist()  # type: ignore[no-any-return]


def _region_of_arrays(
    roots: Iterable[int], offsets: Ints, flat: Ints, just_claim: Ints, pointer: bytearray
) -> list[int]:
    """:meth:`SupportState.support_region` over compressed watcher rows (``offsets``,
    ``flat``), the claim of each justification and the pointer flags: per level, the watcher
    slices of its nodes gathered in one index array, the flagged ones' claims, minus those
    seen. The arrays are read in place (no copy); the seen mask is one byte per node."""
    import numpy as np

    offs, items, claim, flagged = map(array_view, (offsets, flat, just_claim, pointer))
    region = list(dict.fromkeys(roots))
    level = np.array(region, dtype=np.int64)
    seen = np.zeros(len(offs) - 1, dtype=bool)
    seen[level] = True
    while level.size:
        using, _ = gathered_rows(offs, items, level)
        if not using.size:
            break
        claims = claim[using[flagged[using] != 0]]
        level = distinct_sorted(claims[~seen[claims]])
        seen[level] = True
        region += level.tolist()
    return region


__all__ = [
    "GraphRows",
    "GrowingIndex",
    "NO_SUPPORT",
    "Plan",
    "PointerMap",
    "SupportState",
    "justification_rows",
    "state_of",
]
