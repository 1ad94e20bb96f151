"""The four revision rules of docs/design.md section 2, over audits of evidence and claims.

A rule maps (structure, audit) to the set of *retired* nodes: nodes active before the audit
and inactive after it. For every structure and audit,
``none ⊆ counting ⊆ exact ⊆ influence``, and ``counting = exact`` on graphs without support
loops.

- ``exact``: audited nodes are forced inactive and the least fixpoint is recomputed
  (justification-aware; the correct rule).
- ``influence``: the audited nodes and everything reachable from them along
  antecedent -> claim edges (over-revises claims with independent support).
- ``none``: only the audited nodes (under-revises stale consequences).
- ``counting``: Datalog's Counting algorithm: a claim is retired when none of its
  justifications has every antecedent still active, repeated until nothing changes (the
  greatest fixpoint below the state before the audit): a support loop whose outside support
  is gone keeps itself (under-revises on loops).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain
from typing import Any, Protocol

from theory.model.canonical import sorted_ids
from theory.model.errors import InputError, shorten
from theory.model.index import IndexView, SupportIndex, distinct_sorted, index_of
from theory.model.structure import SupportStructure
from theory.semantics.fixpoint import base_active, rederive


class RevisionRule(Protocol):
    """A revision rule: the retired node ids for an audit (a set of node ids)."""

    def __call__(self, structure: SupportStructure, audit: frozenset[str]) -> frozenset[str]: ...


@dataclass(frozen=True)
class Revision:
    """What ``rule`` retires for ``audit``, and what stays active after it."""

    rule: str
    audit: frozenset[str]
    retired: frozenset[str]
    active: frozenset[str]

    def to_dict(self) -> dict[str, Any]:
        """The payload of ``jtms revise --json``: ``rule``, ``audit``, ``retired``, ``active``."""
        return {
            "rule": self.rule,
            "audit": sorted_ids(self.audit),
            "retired": sorted_ids(self.retired),
            "active": sorted_ids(self.active),
        }


def downstream_numbers(index: IndexView, roots: Iterable[int]) -> set[int]:
    """``roots`` and every node reachable from them along antecedent -> claim edges.

    Breadth-first, a level at a time with set operations (C-level work per level, not a
    Python step per edge: the downstream of an audit can be most of a million-claim memory).
    """
    seen = set(roots)
    consumers = index.consumers
    rows = getattr(consumers, "rows", None)
    compressed = rows() if rows is not None else None
    if compressed is not None:
        offsets, flat = compressed
        if isinstance(offsets, array) and isinstance(flat, array):  # an opened memory's
            return _downstream_of_arrays(offsets, flat, seen)
    frontier = list(seen)
    many = getattr(consumers, "many", None)  # a growing index: rows without a call per node
    while frontier:
        rows = many(frontier) if many is not None else map(consumers.__getitem__, frontier)
        new = set(chain.from_iterable(rows))
        new -= seen
        seen |= new
        frontier = list(new)
    return seen


def _downstream_of_arrays(offsets: array[int], flat: array[int], roots: set[int]) -> set[int]:
    """:func:`downstream_numbers` over compressed rows held in ``array`` objects (read
    without a copy): each level gathered and filtered with numpy."""
    import numpy as np

    starts_of = np.frombuffer(offsets, dtype=np.dtype(offsets.typecode))
    items = np.frombuffer(flat, dtype=np.dtype(flat.typecode))
    seen = np.zeros(len(starts_of) - 1, dtype=bool)
    frontier = np.fromiter(roots, dtype=np.int64, count=len(roots))
    seen[frontier] = True
    while frontier.size:
        starts, ends = starts_of[frontier], starts_of[frontier + 1]
        lengths = (ends - starts).astype(np.int64)
        total = int(lengths.sum())
        if not total:
            break
        # positions of every row's items, concatenated: start of the row + offset within it
        begin = np.repeat(starts.astype(np.int64) - np.cumsum(lengths) + lengths, lengths)
        reached = items[begin + np.arange(total, dtype=np.int64)]
        reached = distinct_sorted(reached[~seen[reached]])
        seen[reached] = True
        frontier = reached
    return set(np.flatnonzero(seen).tolist())


def exact_retired_numbers(
    index: IndexView, active: bytes | bytearray, audit: Iterable[int]
) -> set[int]:
    """Exact revision on node numbers, bounded to the active downstream region of ``audit``.

    ``active`` is the state before the audit (a least fixpoint); it is not modified.
    """
    audit = set(audit)
    region = [n for n in downstream_numbers(index, audit) if active[n]]
    after = bytearray(active)
    for n in region:
        after[n] = 0
    rederive(index, after, [n for n in region if n not in audit])
    return {n for n in region if not after[n]}


def counting_retired_numbers(
    index: IndexView, active: bytes | bytearray, audit: Iterable[int]
) -> set[int]:
    """Datalog's Counting on node numbers: from ``active`` less ``audit``, retire every claim
    none of whose justifications has all its antecedents still active, cascading through the
    consumers of what was retired (the greatest fixpoint below ``active``).

    ``active`` is the state before the audit; it is not modified.
    """
    after = bytearray(active)
    retired = {n for n in audit if active[n]}
    for n in retired:
        after[n] = 0
    queue = list(retired)
    justs_of, antecedents = index.justs_of, index.just_antecedents
    while queue:
        node = queue.pop()
        for claim in index.consumers[node]:
            if not after[claim]:
                continue
            if not any(all(after[a] for a in antecedents[j]) for j in justs_of[claim]):
                after[claim] = 0
                retired.add(claim)
                queue.append(claim)
    return retired


def _before(structure: SupportStructure) -> tuple[SupportIndex, bytes]:
    return index_of(structure), base_active(structure)


def exact(structure: SupportStructure, audit: frozenset[str]) -> frozenset[str]:
    """Retire exactly the nodes left with no well-founded justification (the correct rule).

    Parameters
    ----------
    structure : SupportStructure
        The memory graph.
    audit : frozenset of str
        Node ids to invalidate (evidence or claims).

    Returns
    -------
    frozenset of str
        The nodes active before the audit and inactive after it (audited ones included).

    Examples
    --------
    >>> from theory import SupportStructure
    >>> g = SupportStructure.build(["a", "b"], ["c", "d"], [("c", ["a"]), ("c", ["b"]), ("d", ["c", "a"])])
    >>> sorted(exact(g, frozenset({"a"})))      # c keeps its support from b; d needed a
    ['a', 'd']
    """
    index, active = _before(structure)
    audit = structure.require(audit, what="audit id")
    return index.names(exact_retired_numbers(index, active, index.numbers(audit)))


def influence(structure: SupportStructure, audit: frozenset[str]) -> frozenset[str]:
    """Retire the audited nodes and everything downstream of them (over-revises).

    Examples
    --------
    >>> from theory import SupportStructure
    >>> g = SupportStructure.build(["a", "b"], ["c", "d"], [("c", ["a"]), ("c", ["b"]), ("d", ["c", "a"])])
    >>> sorted(influence(g, frozenset({"a"})))  # c is retired although b still supports it
    ['a', 'c', 'd']
    """
    index, active = _before(structure)
    audit = structure.require(audit, what="audit id")
    reached = downstream_numbers(index, index.numbers(audit))
    return index.names(n for n in reached if active[n])


def none(structure: SupportStructure, audit: frozenset[str]) -> frozenset[str]:
    """Retire only the audited nodes (no propagation: under-revises).

    Examples
    --------
    >>> from theory import SupportStructure
    >>> g = SupportStructure.build(["a", "b"], ["c", "d"], [("c", ["a"]), ("c", ["b"]), ("d", ["c", "a"])])
    >>> sorted(none(g, frozenset({"a"})))       # d stays although a, one of its antecedents, is gone
    ['a']
    """
    index, active = _before(structure)
    audit = structure.require(audit, what="audit id")
    return index.names(n for n in index.numbers(audit) if active[n])


def counting(structure: SupportStructure, audit: frozenset[str]) -> frozenset[str]:
    """Retire what Datalog's Counting algorithm retires: claims left with no justification
    whose antecedents are all still active, repeatedly (under-revises on support loops).

    A claim is kept while it has an intact justification, so a loop of claims whose outside
    support the audit removed keeps itself; without support loops it equals :func:`exact`.

    Examples
    --------
    >>> from theory import SupportStructure
    >>> g = SupportStructure.build(["a"], ["c", "d"], [("c", ["a"]), ("c", ["d"]), ("d", ["c"])])
    >>> sorted(counting(g, frozenset({"a"})))   # c and d keep each other's counts above zero
    ['a']
    >>> sorted(exact(g, frozenset({"a"})))
    ['a', 'c', 'd']
    """
    index, active = _before(structure)
    audit = structure.require(audit, what="audit id")
    return index.names(counting_retired_numbers(index, active, index.numbers(audit)))


RULES: dict[str, RevisionRule] = {
    "exact": exact,
    "influence": influence,
    "none": none,
    "counting": counting,
}


def checked_retired(
    structure: SupportStructure, retired: Iterable[object], rule: str
) -> frozenset[str]:
    """The ids a revision rule returned, checked: each a string naming a node of
    ``structure``. A user's rule that returns anything else is wrong in a way no comparison
    of retired sets describes, so it raises :class:`~theory.model.errors.InputError`
    starting with ``rule`` (who returned it) and naming the first such item (ids sorted).

    >>> from theory import SupportStructure
    >>> g = SupportStructure.build(["a"], ["c"], [("c", ["a"])])
    >>> checked_retired(g, ["a", "ghost"], "rule my_rule")
    Traceback (most recent call last):
    ...
    theory.model.errors.InputError: rule my_rule returned 'ghost', which is not a node of the graph
    """
    items = list(retired)
    strange = [item for item in items if not isinstance(item, str)]
    if strange:
        raise InputError(
            f"{rule} returned {len(strange)} item(s) that are not ids (strings), e.g. "
            f"{shorten(repr(strange[0]), 60)}"
        )
    ids = frozenset(str(item) for item in items)
    unknown = sorted(ids - structure.nodes.keys())
    if unknown:
        more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
        raise InputError(
            f"{rule} returned {shorten(repr(unknown[0]), 80)}, which is not a node of the "
            f"graph{more}"
        )
    return ids


def revise(
    structure: SupportStructure, audit: Iterable[str], rule: str | RevisionRule = "exact"
) -> Revision:
    """Apply a rule (by name or callable) and return the retired and the remaining active ids.

    Parameters
    ----------
    structure : SupportStructure
    audit : iterable of str
        Node ids to invalidate; unknown ids raise :class:`~theory.model.errors.InputError`.
    rule : {"exact", "influence", "none", "counting"} or RevisionRule
        A rule name, or any callable ``(structure, audit) -> retired ids`` (your own rule).

    Examples
    --------
    >>> from theory import SupportStructure
    >>> g = SupportStructure.build(["a", "b"], ["c"], [("c", ["a"]), ("c", ["b"])])
    >>> revise(g, ["a"], "influence").to_dict()
    {'rule': 'influence', 'audit': ['a'], 'retired': ['a', 'c'], 'active': ['b']}
    """
    name = rule if isinstance(rule, str) else getattr(rule, "__name__", "custom")
    if isinstance(rule, str) and rule not in RULES:
        raise InputError(f"unknown rule {rule!r} (choose from {', '.join(RULES)})")
    function = RULES[rule] if isinstance(rule, str) else rule
    audit_ids = structure.require(audit, what="audit id")
    retired = checked_retired(structure, function(structure, audit_ids), f"rule {name}")
    index, active = _before(structure)
    remaining = frozenset(index.ids[n] for n, flag in enumerate(active) if flag) - retired
    return Revision(name, audit_ids, retired, remaining)


def revise_in_force(
    structure: SupportStructure,
    in_force: Iterable[str],
    audit: Iterable[str],
    rule: str | RevisionRule = "exact",
) -> Revision:
    """What ``rule`` retires for ``audit`` in the graph as it stands while the audit
    ``in_force`` holds (exactly: :meth:`SupportStructure.under_audit`), as a stored memory
    stands after its audits. An id of ``in_force`` cannot be audited again.

    Examples
    --------
    >>> from theory import SupportStructure
    >>> g = SupportStructure.build(["a", "b"], ["c"], [("c", ["a"]), ("c", ["b"])])
    >>> revise_in_force(g, ["b"], ["a"], "exact").to_dict()   # with b gone, a is c's last support
    {'rule': 'exact', 'audit': ['a'], 'retired': ['a', 'c'], 'active': []}
    """
    blocked = structure.require(in_force, what="audit id")
    audit_ids = structure.require(audit, what="audit id")
    for node in sorted(audit_ids & blocked):
        raise InputError("is audited already (the audit in force names it)", node=node)
    return revise(structure.under_audit(blocked), audit_ids, rule)
