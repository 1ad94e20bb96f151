"""Checks on the rows a memory reads from its store, where they need the index.

The store's readers check what they parse (a column's type, a JSON list, a list of numbers:
:mod:`jtms.store`); what only the memory knows is checked here, as it turns the rows into
its index and state (:class:`jtms.memory.memory.Memory`): that nodes and justifications are
numbered densely in the order of their events, that every claim, antecedent, revised node
and support pointer names a node or justification there is, that the event ids have no
gaps, and that an audit's roots and a nogood's nodes are known ids. A row edited by hand
(with the memory's triggers dropped) then stops the command with one line naming the table,
the row and the problem (:class:`jtms.store.protocol.CorruptMemory`, exit 2), rather than an
``IndexError`` deep inside the state.

Each check is one pass in C over a column (``array("q", ...)``, then numpy's ``min``, ``max``
or ``diff`` on it), and the index is then extended from those columns rather than from the
rows, so opening a memory of 100,000 claims from its log costs what it did; only when a check
fails are the rows read again, in Python, to name the first bad one.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Sequence
from itertools import chain
from operator import attrgetter
from typing import Any

from jtms.engine.incremental import NO_RANK, GrowingIndex
from jtms.store.protocol import (
    EventRow,
    JustificationRow,
    NodeRow,
    NogoodRow,
    RevisionRow,
    SupportRow,
    corrupt_row,
    shown,
)
from theory.model.ids import id_problem


def _ints(values: Iterable[Any]) -> "array[int] | None":
    """``values`` as 64-bit integers, or None when one is not an integer (a NULL in an array
    of PostgreSQL, a nested array) or does not fit."""
    try:
        return array("q", values)
    except (TypeError, OverflowError):
        return None


def _within(values: "array[int] | None", low: int, high: int) -> bool:
    """Whether every value is an integer with ``low <= value < high``."""
    import numpy as np

    if values is None:
        return False
    view = np.frombuffer(values, np.int64)
    return not len(view) or (low <= int(view.min()) and int(view.max()) < high)


def _first_bad(rows: Sequence[Any], bad: Callable[[Any], bool]) -> Any:
    """The first row for which ``bad`` holds (the slow path, after a check failed)."""
    return next(row for row in rows if bad(row))


def _number(value: Any) -> bool:
    """Whether ``value`` is an integer (not a bool, a float or a numeric text)."""
    return type(value) is int


def check_numbered(
    location: str, table: str, rows: Sequence[NodeRow | JustificationRow], first: int, newest: int
) -> None:
    """Rows of ``nodes`` or ``justifications`` numbered ``first``, ``first + 1``, ... (the
    index's positions), each written by an event ``1..newest``, in the order of the events
    (a view of the past keeps a prefix of them)."""
    if not rows:
        return
    if rows[0].num != first or rows[-1].num != first + len(rows) - 1:  # unique and sorted
        k, row = next((k, r) for k, r in enumerate(rows) if r.num != first + k)
        raise corrupt_row(
            location, table, row.num, f"the numbers have a gap (there is no {first + k})"
        )
    events = _ints(map(attrgetter("event"), rows))
    if events is not None and _within(events, 1, newest + 1) and _ascending(events):
        return
    for before, row in zip([None, *rows], rows):
        if not _number(row.event) or not 1 <= row.event <= newest:
            problem = f"event {shown(row.event)} is not an event of this memory (1 to {newest})"
        elif before is not None and row.event < before.event:
            problem = f"event {row.event} comes before the event {before.event} of row {before.num}"
        else:
            continue
        raise corrupt_row(location, table, row.num, problem)


def _ascending(values: "array[int]") -> bool:
    """Whether ``values`` never decrease."""
    import numpy as np

    return not len(values) or bool((np.diff(np.frombuffer(values, np.int64)) >= 0).all())


def check_justifications(
    location: str, rows: Sequence[JustificationRow], is_evidence: bytes | bytearray
) -> "tuple[array[int], list[tuple[int, ...]]]":
    """The claims and the antecedents of ``rows``, once every claim is a claim among the
    ``len(is_evidence)`` nodes and every list of antecedents is node numbers, sorted, without
    repeats (what :meth:`GrowingIndex.extend` reads with ``canonical=True``). The caller
    extends the index from these columns rather than from the rows: the checks then cost
    about what they save."""
    size = len(is_evidence)
    claims = _ints(map(attrgetter("claim"), rows))
    if not _within(claims, 0, size) or _any_evidence(claims, is_evidence):
        row = _first_bad(
            rows, lambda r: not _number(r.claim) or not 0 <= r.claim < size or is_evidence[r.claim]
        )
        raise corrupt_row(
            location,
            "justifications",
            row.num,
            f"claim {shown(row.claim)} is not a claim of this memory",
        )
    antecedents = list(map(attrgetter("antecedents"), rows))
    flat = _ints(chain.from_iterable(antecedents))
    if claims is not None and _within(flat, 0, size) and _canonical(flat, antecedents):
        return claims, antecedents
    row = _first_bad(rows, lambda r: _antecedents_problem(r.antecedents, size) is not None)
    problem = _antecedents_problem(row.antecedents, size)
    raise corrupt_row(location, "justifications", row.num, f"antecedents {problem}")


def _any_evidence(claims: "array[int] | None", is_evidence: bytes | bytearray) -> bool:
    """Whether one of ``claims`` (numbers of nodes) is evidence."""
    import numpy as np

    if not claims:
        return False
    flags = np.frombuffer(is_evidence, np.uint8)
    return bool(flags[np.frombuffer(claims, np.int64)].any())


def _canonical(flat: "array[int] | None", antecedents: Sequence[Sequence[int]]) -> bool:
    """Whether each list of ``antecedents`` (``flat``: all of them, one after another) is
    strictly increasing: a value may only be at most the one before it where a list starts."""
    import numpy as np

    if flat is None or len(flat) < 2:
        return flat is not None
    values = np.frombuffer(flat, np.int64)
    falls = np.diff(values) <= 0  # falls[i]: the pair (i, i + 1)
    starts = np.cumsum(np.fromiter(map(len, antecedents), np.int64, len(antecedents)))[:-1]
    starts = starts[(starts > 0) & (starts < len(values))]
    falls[starts - 1] = False  # a new list may start lower
    return not falls.any()


def _antecedents_problem(antecedents: Sequence[Any], size: int) -> str | None:
    """What is wrong with one list of antecedents, or None."""
    for a in antecedents:
        if not _number(a) or not 0 <= a < size:
            return f"{shown(list(antecedents))}: {shown(a)} is not a node of this memory"
    if any(b <= a for a, b in zip(antecedents, antecedents[1:])):
        return f"{shown(list(antecedents))} are not sorted without repeats"
    return None


def check_revisions(location: str, revisions: Sequence[RevisionRow], size: int) -> None:
    """Every revision revises one of the ``size`` nodes."""
    if _within(_ints(map(attrgetter("node"), revisions)), 0, size):
        return
    row = _first_bad(revisions, lambda r: not _number(r.node) or not 0 <= r.node < size)
    raise corrupt_row(
        location, "revisions", row.seq, f"node {shown(row.node)} is not a node of this memory"
    )


def check_supports(
    location: str, pointers: Sequence[SupportRow], index: GrowingIndex
) -> "tuple[array[int], array[int], array[int]]":
    """Every support pointer names a node, a justification and a rank (zero to
    :data:`NO_RANK`). Whether the justification is one of the node's is for
    ``Memory.integrity_problems`` to report: the state holds such a pointer
    without failing, and the memory stays open to be examined. Returns the nodes, the
    justifications and the ranks, for the caller to read instead of the rows."""
    size, count = index.size, len(index.just_claim)
    nodes = _ints(map(attrgetter("node"), pointers))
    justifications = _ints(map(attrgetter("justification"), pointers))
    ranks = _ints(map(attrgetter("rank"), pointers))
    if (
        nodes is not None
        and justifications is not None
        and ranks is not None
        and _within(nodes, 0, size)
        and _within(justifications, 0, count)
        and _within(ranks, 0, NO_RANK + 1)
    ):
        return nodes, justifications, ranks
    row = _first_bad(pointers, lambda r: _pointer_problem(r, index) is not None)
    raise corrupt_row(location, "supports", row.seq, _pointer_problem(row, index) or "")


def revision_columns(
    location: str,
    columns: "Callable[[], tuple[array[int], bytes]]",
    size: int,
    rows: Callable[[], Sequence[RevisionRow]],
) -> "tuple[array[int], bytes]":
    """The columns ``columns`` reads (:meth:`jtms.store.protocol.Store.revision_columns`),
    checked as :func:`check_revisions` checks rows; ``rows`` reads the same revisions as
    rows, to name the first bad one, only when a value is out of range or no integer (a NULL
    in an array of PostgreSQL)."""
    try:
        nodes, active = columns()
    except (TypeError, OverflowError):
        check_revisions(location, rows(), size)
        raise  # no stored value is to blame
    if _within(nodes, 0, size):
        return nodes, active
    check_revisions(location, rows(), size)
    raise corrupt_row(location, "revisions", "?", "a revision of no node of this memory")


def support_columns(
    location: str,
    columns: "Callable[[], tuple[array[int], array[int], array[int]]]",
    index: GrowingIndex,
    rows: Callable[[], Sequence[SupportRow]],
) -> "tuple[array[int], array[int], array[int]]":
    """The columns ``columns`` reads (:meth:`jtms.store.protocol.Store.support_columns`),
    checked as :func:`check_supports` checks rows; ``rows`` reads the same pointers as rows,
    to name the first bad one, only when a value is out of range or no integer."""
    try:
        nodes, justifications, ranks = columns()
    except (TypeError, OverflowError):
        check_supports(location, rows(), index)
        raise  # no stored value is to blame
    if (
        _within(nodes, 0, index.size)
        and _within(justifications, 0, len(index.just_claim))
        and _within(ranks, 0, NO_RANK + 1)
    ):
        return nodes, justifications, ranks
    check_supports(location, rows(), index)
    raise corrupt_row(location, "supports", "?", "a pointer out of range")


def _pointer_problem(row: SupportRow, index: GrowingIndex) -> str | None:
    """What is wrong with one support pointer, or None."""
    if not _number(row.node) or not 0 <= row.node < index.size:
        return f"node {shown(row.node)} is not a node of this memory"
    if not _number(row.justification) or not 0 <= row.justification < len(index.just_claim):
        return f"justification {shown(row.justification)} is not a justification of this memory"
    if not _number(row.rank) or not 0 <= row.rank <= NO_RANK:
        return f"rank {shown(row.rank)} is not a derivation rank"
    return None


def check_events(location: str, events: Sequence[EventRow], after: int, last: int) -> None:
    """The events ``(after, last]`` are all there: the code reads "event k" as the k-th write
    (a view as of an event id, an audit's number), so the ids have no gaps."""
    if len(events) == last - after:  # ids are unique and in (after, last]: all there
        return
    expected = after + 1
    for event in events:
        if event.id != expected:
            break
        expected += 1
    else:
        raise corrupt_row(location, "events", expected, "missing (event ids have no gaps)")
    raise corrupt_row(
        location, "events", event.id, f"no event {expected} before it (event ids have no gaps)"
    )


def root_numbers(location: str, event: EventRow, index: GrowingIndex) -> list[int]:
    """The node numbers of an audit's roots (each must be a node of the index)."""
    number = index.number
    try:
        return [number[root] for root in event.roots or ()]
    except (KeyError, TypeError):
        root = next(r for r in event.roots or () if type(r) is not str or r not in number)
        raise corrupt_row(
            location, "events", event.id, f"root {shown(root)} is not a node of this memory"
        ) from None


def check_nogoods(location: str, nogoods: Sequence[NogoodRow], index: GrowingIndex) -> None:
    """Every nogood's id is not a node's, and its nodes are nodes of the index."""
    number = index.number
    for row in nogoods:
        if id_problem(row.id) is not None:
            problem = f"id {shown(row.id)} {id_problem(row.id)}"
        elif row.id in number:
            problem = f"id {shown(row.id)} is a node's"
        else:
            unknown = [n for n in row.nodes if type(n) is not str or n not in number]
            if not unknown:
                continue
            problem = f"node {shown(unknown[0])} is not a node of this memory"
        raise corrupt_row(location, "nogoods", row.id, problem)


__all__ = [
    "check_events",
    "check_justifications",
    "check_nogoods",
    "check_numbered",
    "check_revisions",
    "check_supports",
    "revision_columns",
    "support_columns",
    "root_numbers",
]
