"""Selective reconsolidation on a persistent memory: the Python API.

```python
from jtms.memory.memory import Memory

with Memory.create("jtms.db") as memory:          # or Memory.open("jtms.db")
    memory.add_evidence("obs1", text="assay A shows X")
    memory.add_claim("c1", [["obs1"]], text="mechanism M")
    result = memory.audit(["obs1"], reason="assay contaminated", reviewer="ana")
    result.retired            # frozenset({'obs1', 'c1'})
    memory.reinstate(result.audit_id)
```

The in-memory state is a :class:`jtms.engine.incremental.SupportState` (the least fixpoint with
audited nodes blocked, plus well-founded support pointers). An audit plans the change on
the support region of its roots only (:meth:`SupportState.plan_retract`, which re-derives
that region with :func:`theory.semantics.fixpoint.rederive`), writes it (the status changes *and* the
new support pointers) in one transaction, and applies it to the in-memory state.

Across processes (any backend of :mod:`jtms.store`):

- **One snapshot per read.** Every public read runs inside one read transaction of the store
  (:meth:`Memory.snapshot` groups several reads into one); a commit by another process during
  it is not seen, so a read never mixes two states.
- **Latest state per write.** A write takes the store's write lock first, then brings the
  in-memory state up to the latest committed event, then plans: concurrent writers are
  serialised and each plans on what the others committed.
- **Catch-up in O(changes).** A warm process that finds newer events applies what they wrote
  (new nodes and justifications, status revisions, support pointers, audits and
  reinstatements) to its state; it never reloads. The stored pointers make every process hold
  exactly the state the writers held.
- **Open in O(read).** A checkpoint (:mod:`jtms.memory.checkpoint`: flags, pointers and ranks at an
  event) plus the log tail after it rebuild the state without computing a fixpoint. Writers
  refresh the checkpoint when the tail grows past an eighth of the memory; while no node or
  justification was added since the stored full one, the refresh stores the state alone.

Test seam: ``Memory.test_hook`` (None by default) is called with the name of each point where
another process can commit between two of this memory's reads or writes: ``"read"`` (before a
read snapshot starts), ``"write"`` (before the write lock is taken), ``"load"`` (inside a
snapshot, after the latest event id was read and before the rows are: a commit here must not
be seen) and ``"commit"`` (inside a write, after its rows, before COMMIT: another writer can
only wait here). Tests commit from a second connection in the hook to interleave
deterministically.
"""

from __future__ import annotations

import hashlib
import heapq
import sys
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from itertools import chain, repeat
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jtms.engine.incremental import GraphRows, GrowingIndex, Plan, SupportState, pointer_rows
from jtms.memory import checkpoint, cursors
from jtms.memory.batches import Batch, read_batch, refused_self_justified, self_justified
from jtms.memory.documents import check_calculation, check_texts, node_extras
from jtms.memory.limits import (
    MAX_ANTECEDENTS,
    MAX_BUDGET,
    MAX_EVENT,
    MAX_EXPRESSION,
    MAX_IDEMPOTENCY_KEY,
    MAX_JUSTIFICATIONS,
    MAX_NUMBER_TEXT,
    MAX_QUERY,
    MAX_REASON,
    MAX_REVIEWER,
    MAX_SEARCH_LIMIT,
    MAX_SOURCE,
    MAX_TEXT,
    MAX_WAIT,
    check_choice,
    check_flag,
    check_ids,
    check_int,
    check_seconds,
    check_text,
    check_valid_until,
    event_time,
    show_int,
    utc_time,
)
from jtms.memory.results import AuditResult, Change, Explanation, PurgeResult, Step
from jtms.memory.search import DEFAULT_SEARCH_LIMIT, SearchHit, SearchPage, query_words
from jtms.memory.stored import (
    check_events,
    check_justifications,
    check_nogoods,
    check_numbered,
    check_revisions,
    revision_columns,
    root_numbers,
    support_columns,
)
from jtms.store import check_location, create_store, open_store, upgrade_store
from jtms.store.protocol import (
    ACTIVE,
    INACTIVE,
    TABLES,
    Checkpoint,
    JustificationRow,
    NewNode,
    NodeRow,
    NogoodRow,
    RevisionRow,
    Store,
    WithdrawalRow,
    corrupt_row,
    shown,
)
from jtms.store.settings import busy_timeout as busy_timeout_setting
from jtms.store.settings import durability as durability_setting
from theory.io.graphfile import graph_rows, parse_graph, paused_gc
from theory.model.errors import InputError
from theory.model.ids import check_id
from theory.model.structure import Kind, Nogood, SupportStructure
from theory.semantics.fixpoint import active_numbers
from theory.semantics.revision import downstream_numbers

if TYPE_CHECKING:  # pragma: no cover
    from jtms.memory.context import Context
    from theory.semantics.diagnosis import DiagnosisReport

CHECKPOINT_MIN_ROWS = 4096  # refresh the checkpoint when the log tail since it holds more
# status and pointer rows than this and than 1/8 of the nodes
GROWN_STATE_BLOB = 8  # a refresh stores the state alone while the index has grown by at most
# 1/8 of the nodes and of the justifications the full blob holds; past that, a full blob


EXPIRED = "expired"
"""The reason of the audit that records evidence past its ``valid_until``."""
EXPIRY_REVIEWER = "jtms-expiry"
"""The reviewer of that audit."""


def _expiring(document: Mapping[str, Any], source: str) -> dict[str, str]:
    """Evidence id -> its ``valid_until`` (as stored), for the nodes of a graph document
    that carry one; on a claim it is an InputError naming the node."""
    found: dict[str, str] = {}
    for node in document.get("nodes", ()):
        if isinstance(node, Mapping) and node.get("valid_until") is not None:
            if node.get("kind") != "evidence":
                raise InputError("only evidence expires", source=source, node=str(node.get("id")))
            try:
                found[node["id"]] = check_valid_until(node["valid_until"])
            except InputError as error:
                raise InputError(str(error), source=source, node=str(node["id"])) from None
    return found


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


@dataclass
class _Loaded:
    index: GrowingIndex
    state: SupportState
    seen_event: int
    audits: dict[int, list[int]] = field(default_factory=dict)  # open audits -> root numbers
    tail: int = 0  # status and pointer rows written since the checkpoint
    # the stored full checkpoint this state's index matches: (event, nodes, justifications);
    # while the index has not grown, a new checkpoint stores only the state over it
    full_checkpoint: tuple[int, int, int] | None = None
    nogoods: dict[str, NogoodRow] = field(default_factory=dict)  # in creation order
    nogood_nodes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    nogood_active: dict[str, bool] = field(default_factory=dict)  # a contradiction now?
    nogoods_of: dict[int, list[str]] = field(default_factory=dict)  # node -> nogoods naming it
    next_due: str | None = None  # the earliest valid_until of evidence not yet expired
    erased: dict[int, int] | None = None  # purged node -> its purge (None: read it again)

    def add_nogoods(self, rows: Iterable[NogoodRow]) -> None:
        """Register stored nogoods; their status is derived from the state (all nodes active)."""
        active = self.state.active
        for row in rows:
            numbers = tuple(self.index.number[n] for n in row.nodes)
            self.nogoods[row.id] = row
            self.nogood_nodes[row.id] = numbers
            self.nogood_active[row.id] = all(active[n] for n in numbers)
            for n in numbers:
                self.nogoods_of.setdefault(n, []).append(row.id)

    def refresh_nogoods(self) -> None:
        """Re-derive every nogood's status from the state (after catching up)."""
        active = self.state.active
        for g, numbers in self.nogood_nodes.items():
            self.nogood_active[g] = all(active[n] for n in numbers)

    def nogood_changes(self, nodes: Iterable[int]) -> dict[str, bool]:
        """Nogoods naming one of ``nodes`` whose status differs from the state now (updated)."""
        if not self.nogoods_of:  # no nogood: nothing to look up for each changed node
            return {}
        active = self.state.active
        changed: dict[str, bool] = {}
        for g in sorted({g for n in nodes for g in self.nogoods_of.get(n, ())}):
            now = all(active[n] for n in self.nogood_nodes[g])
            if now != self.nogood_active[g]:
                self.nogood_active[g] = changed[g] = now
        return changed


def _clean_id(value: Any, what: str) -> str:
    return check_id(value, what)  # the one rule for ids (theory.model.ids)


def _location(path: Any) -> str:
    return check_location(path)  # the one rule for locations (jtms.store)


def _root_ids(roots: Any, what: str = "roots") -> list[str]:
    """An audit's roots: one id or a non-empty list of ids (:func:`check_ids`)."""
    return check_ids([roots] if isinstance(roots, str) else roots, what, allow_empty=False)


def _optional_event(value: Any, what: str) -> int | None:
    return None if value is None else check_int(value, what, -MAX_EVENT, MAX_EVENT)


def _moment(moment: Any) -> Any:
    """An event id, an ISO time (a string) or a datetime, checked for type and size."""
    if isinstance(moment, str):
        return check_text(moment, "as_of", MAX_NUMBER_TEXT)
    if isinstance(moment, (int, datetime)) and not isinstance(moment, bool):
        return moment
    raise InputError(f"as_of must be an event id or an ISO time, got {type(moment).__name__}")


def _new_nodes(
    first: int,
    ordered: Sequence[str],
    n_evidence: int,
    texts: Mapping[str, str],
    extras: Mapping[str, Mapping[str, Any]],
    author: str | None,
    event: int,
    statuses: Sequence[str],
) -> list[NewNode]:
    """The rows of an import's nodes ``first``, ``first + 1``, ... (``ordered``: evidence
    first), with their texts, and authors and calculations from ``extras`` (else ``author``
    and none)."""
    count = len(ordered)
    if extras:
        none: dict[str, Any] = {}
        found = [extras.get(node_id, none) for node_id in ordered]
        authors: Iterable[str | None] = [extra.get("author", author) for extra in found]
        calculations: Iterable[str | None] = [extra.get("expression") for extra in found]
        values: Iterable[str | None] = [extra.get("value") for extra in found]
    else:
        authors, calculations, values = repeat(author), repeat(None), repeat(None)
    return list(  # columns zipped into rows in C (an import has 100,000s)
        map(
            NewNode._make,
            zip(
                range(first, first + count),
                ordered,
                chain(repeat("evidence", n_evidence), repeat("claim", count - n_evidence)),
                map(texts.get, ordered, repeat("")) if texts else repeat(""),
                authors,
                calculations,
                values,
                repeat(event),
                statuses,
            ),
        )
    )


def _justifications(value: Any) -> list[list[str]]:
    """A claim's justifications: a list (at most :data:`MAX_JUSTIFICATIONS`) of lists of
    antecedent ids (each at most :data:`MAX_ANTECEDENTS`; an empty one makes a premise)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise InputError(
            f"justifications must be a list of antecedent lists, got {type(value).__name__}"
        )
    result = []
    for k, antecedents in enumerate(value):
        if k == MAX_JUSTIFICATIONS:
            raise InputError(
                f"justifications holds more than {MAX_JUSTIFICATIONS} "
                f"justifications (at most {MAX_JUSTIFICATIONS})"
            )
        result.append(check_ids(antecedents, f"justifications[{k}]", MAX_ANTECEDENTS))
    return result


WorkResult = tuple[int, Plan | None, Any]


def _check_idempotency_key(key: Any) -> str:
    """``key`` when it is a text of 1 to ``MAX_IDEMPOTENCY_KEY`` characters."""
    text = check_text(key, "idempotency_key", MAX_IDEMPOTENCY_KEY)
    if not text:
        raise InputError(
            "idempotency_key is empty (give a key of 1 to "
            f"{MAX_IDEMPOTENCY_KEY} characters, or none)"
        )
    return text


def _check_request(request: Any, outcomes: Any) -> tuple[str, frozenset[str]]:
    """A keyed call's digest and its other outcomes' digests: texts of at most
    ``MAX_IDEMPOTENCY_KEY`` characters each (a collection of them for ``outcomes``)."""
    request = check_text(request, "request", MAX_IDEMPOTENCY_KEY)
    if isinstance(outcomes, (str, bytes)) or not isinstance(outcomes, Collection):
        raise InputError(
            f"outcomes must be a collection of request digests, got {type(outcomes).__name__}"
        )
    return request, frozenset(check_text(o, "outcomes", MAX_IDEMPOTENCY_KEY) for o in outcomes)


class RepeatedCall(Exception):
    """A write under an idempotency key that an earlier write already used
    (:meth:`Memory.keyed`): nothing was written; ``event`` is the first write's event and
    ``request`` the digest it was stored with (one of the call's outcomes)."""

    def __init__(self, key: str, event: int, request: str = ""):
        super().__init__(f"idempotency_key {key!r}: already written by event {event}")
        self.key = key
        self.event = event
        self.request = request


class Memory:
    """A persistent memory of evidence and claims with exact, incremental revision."""

    def __init__(self, backend: Store, path: str):
        self._store = backend
        self.path = path
        self._loaded: _Loaded | None = None
        self._depth = 0  # > 0 inside a snapshot or a write
        #: how many times this memory built its state from the store (checkpoint + log) rather
        #: than catching up from the log: 1 after the first read, unchanged by other processes'
        #: writes (and after a failed write, one more)
        self.loads = 0
        self._pinned: int | None = None  # a read-only view as of this event (Memory.as_of)
        self._owns_store = True
        self._origin: Memory | None = None  # a view's memory (its store's owner)
        self._closed = False
        self._no_expiry = False  # expiries cannot be recorded here (read-only)
        self._keyed_block: str | None = None  # the key of the keyed() block running
        self._keyed: tuple[str, str, frozenset[str]] | None = (
            None  # (key, request, its other outcomes) of the next write (Memory.keyed)
        )
        #: the test seam (see the module docstring): called with "read", "write", "load", "commit"
        self.test_hook: Callable[[str], None] | None = None
        # older test hook: called inside a write, after its rows, before COMMIT
        self._before_commit: Callable[[], None] | None = None

    # --- opening ------------------------------------------------------------------------------
    @classmethod
    def create(
        cls, path: str | Path, durability: str = "full", busy_timeout: float | None = None
    ) -> "Memory":
        """A new, empty memory (``path``: a file, ``:memory:``, or a backend URL)."""
        path = _location(path)
        store = create_store(
            path, durability_setting(durability), busy_timeout_setting(busy_timeout)
        )
        return cls(store, store.location)

    @classmethod
    def open(
        cls, path: str | Path, durability: str = "full", busy_timeout: float | None = None
    ) -> "Memory":
        """An existing memory. ``busy_timeout``: seconds a write waits for the write lock
        (default ``JTMS_BUSY_TIMEOUT`` or 60)."""
        path = _location(path)
        store = open_store(path, durability_setting(durability), busy_timeout_setting(busy_timeout))
        return cls(store, store.location)

    @classmethod
    def upgrade(cls, path: str | Path) -> bool:
        """Bring a memory of an older schema version to this one, in one transaction.

        PostgreSQL: version 3 stored a row per revision and per support pointer; version 4
        stores the rows of one write as one batch (same sequence numbers). SQLite: version 1
        kept no support pointers: the state at the last event is derived once and
        its pointers are stored with that event. Version 2 kept no idempotency keys (a new,
        empty table). Version 3 indexed the revisions by node row by row; version 4 writes
        them to ``node_revisions`` in bulk. A PostgreSQL memory whose checkpoints are stored
        compressed (made before they were stored uncompressed) gets them uncompressed.
        Returns False when there was nothing to do.
        """
        backend = upgrade_store(_location(path))
        try:
            if not backend.needs_upgrade:
                return False
            with backend.write():
                last = backend.last_event()
                had_supports = backend.schema_version >= 2
                backend.upgrade_schema()
                if had_supports:
                    return True
                index = GrowingIndex()
                index.extend(
                    [(r.id, r.evidence) for r in backend.nodes()],
                    ((j.claim, j.antecedents) for j in backend.justifications()),
                    canonical=True,
                )
                blocks: dict[int, int] = {}
                for audit in backend.open_audits():
                    for n in index.numbers(audit.roots or ()):
                        blocks[n] = blocks.get(n, 0) + 1
                state = SupportState(index, blocks)  # the one full derivation, at the upgrade
                backend.add_supports(
                    last,
                    (
                        (c, state.support[c], state.rank[c])
                        for c in range(index.size)
                        if state.active[c] and not index.is_evidence[c]
                    ),
                )
            return True
        finally:
            backend.close()

    def close(self) -> None:
        """Close the memory's connection; every later call is an :class:`InputError` ("the
        memory is closed"), on either backend. Closing twice is harmless."""
        if self._owns_store and not self._closed:
            self._store.close()
        self._closed = True

    def _check_open(self) -> None:
        """Refuse a call on a closed memory (or a view of one) with one line, rather than
        the driver's error (SQLite) or a connection that quietly keeps serving (PostgreSQL)."""
        if self._closed or (self._origin is not None and self._origin._closed):
            raise InputError("the memory is closed (open it again)", source=self.path)

    # --- the past ---------------------------------------------------------------------------------
    def event_at(self, moment: "int | str | datetime") -> int:
        """The event a moment names: an event id, or the latest event at or before an ISO
        time (``2026-12-01T08:30:00+00:00``; a time without a zone is UTC)."""
        moment = _moment(moment)
        with self.snapshot():
            last = self._loaded_now().seen_event
            if isinstance(moment, int) and not isinstance(moment, bool):
                if not 1 <= moment <= last:
                    raise InputError(
                        f"no event {show_int(moment)} (events are 1 to {last})", source=self.path
                    )
                return moment
            if isinstance(moment, str):
                text = moment
                try:
                    moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
                except ValueError:
                    raise InputError(
                        f"expected an event id or an ISO time, got {text[:40]!r}", source=self.path
                    ) from None
            if not isinstance(moment, datetime):
                raise InputError(
                    f"expected an event id or an ISO time, got {moment!r}", source=self.path
                )
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=timezone.utc)
            found = 0
            for event in self._store.events(0, last):
                if self._event_time(event.id, event.time) <= moment:
                    found = event.id
            if not found:
                raise InputError(
                    f"the memory did not exist yet at {moment.isoformat()}", source=self.path
                )
            return found

    def _event_time(self, event: int, when: str) -> datetime:
        """The time an event was written (stored as ISO text with its zone: the one reading,
        :func:`jtms.memory.limits.event_time`); a damaged one is a corrupt row."""
        moment = event_time(when) if isinstance(when, str) else None
        if moment is None:
            raise corrupt_row(self.path, "events", event, f"time {shown(when)} is not an ISO time")
        return moment

    def as_of(self, moment: "int | str | datetime") -> "Memory":
        """A read-only view of the memory as it was at an event (id or ISO time).

        >>> past = memory.as_of(7)                      # doctest: +SKIP
        >>> past.explain("c1").certificate              # the derivation that held at event 7

        The state as of event k is exactly the state after event k (docs/design.md section 2:
        what existed at k with the audits in force at k, and the support pointers the writers
        stored), so ``explain`` shows the certificate that held then. Writing through a view
        is an error; it shares this memory's connection (close this one, not the view).
        """
        event = self.event_at(_moment(moment))
        view = Memory(self._store, self.path)
        view._pinned = event
        view._owns_store = False
        view._origin = self if self._origin is None else self._origin
        return view

    @property
    def as_of_event(self) -> int | None:
        """The event of a view made by :meth:`as_of` (None for the live memory)."""
        return self._pinned

    def _until(self, event: int) -> bool:
        return self._pinned is None or event <= self._pinned

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def set_durability(self, durability: str) -> None:
        """``full`` (sync every commit), ``normal`` (survive a process crash) or ``off``."""
        setting = durability_setting(durability)
        self._check_open()
        self._store.set_durability(setting)

    # --- snapshots, loading and catching up -------------------------------------------------------
    def _point(self, name: str) -> None:
        if self.test_hook is not None:
            self.test_hook(name)

    @contextmanager
    def snapshot(self) -> Iterator["Memory"]:
        """Group reads into one consistent snapshot of the store.

        >>> with memory.snapshot():                     # doctest: +SKIP
        ...     active, texts = memory.active_ids(), memory.texts()

        Every read method already runs in a snapshot of its own; inside this block they all
        share one (and one in-memory state). Writing (or :meth:`wait_for_change`) inside it
        is a ``RuntimeError``: a misuse of the API, not bad input.
        """
        if self._depth:
            yield self
            return
        self._check_open()
        if self._expiry_due(self._loaded):
            self._expire_now()
        self._point("read")
        for attempt in range(2):
            with self._store.read():
                self._depth += 1
                try:
                    loaded = self._sync()
                    if attempt or not self._expiry_due(loaded):
                        yield self
                        return
                finally:
                    self._depth -= 1
            self._expire_now()  # found due while loading: record it, then read again

    def _sync(self) -> _Loaded:
        """The in-memory state at the latest event of the current transaction."""
        try:
            last = self._store.last_event() if self._pinned is None else self._pinned
            loaded = self._loaded
            if loaded is None or last < loaded.seen_event:
                self._point("load")
                self.loads += 1
                loaded = self._loaded = self._load(last)
                if self._pinned is not None:
                    self._expire_view(loaded)
                loaded.next_due = self._next_due(loaded)
            elif last != loaded.seen_event:
                self._point("load")
                size = loaded.index.size
                self._catch_up(loaded, last)
                if loaded.index.size != size:  # an expiry comes only with a new node
                    loaded.next_due = self._next_due(loaded)
            return loaded
        except BaseException:
            self._loaded = None
            raise

    def _loaded_now(self) -> _Loaded:
        assert self._loaded is not None and self._depth, "only inside a snapshot"
        return self._loaded

    def _load(self, last: int, use_checkpoint: bool = True) -> _Loaded:
        """The state at event ``last``: the checkpoint (index and state) and the log after it,
        or, without a usable checkpoint, every row and the whole log."""
        store = self._store
        saved = store.checkpoint() if use_checkpoint else None
        if saved is not None and saved.event > last:
            saved = None
        restored, full = None, None
        if saved is not None:
            base = checkpoint.base_of(saved.data)  # a state blob: its index is in another
            below = store.checkpoint(base) if base is not None else None
            restored = checkpoint.decode(
                saved.data, saved.event, below.data if below else None, self._extend_to
            )
            full = saved.event if base is None else base
        if restored is not None and saved is not None and full is not None:
            index = restored.index
            loaded = _Loaded(index, restored.state, saved.event, restored.audits)
            loaded.full_checkpoint = (full, restored.base_nodes, restored.base_justifications)
        else:
            index = GrowingIndex()
            empty = SupportState.restore(index, {}, bytearray(), [], [])
            loaded = _Loaded(index, empty, 0, {})
        rows, justifications = self._rows_after(index)
        if rows and rows[-1].event > last:  # a view of the past: what existed at ``last``
            rows = [r for r in rows if r.event <= last]
        if justifications and justifications[-1].event > last:
            justifications = [j for j in justifications if j.event <= last]
        self._extend_index(index, rows, justifications)
        self._replay(loaded, last, rows)
        nogoods = [r for r in store.nogoods() if r.event <= last]
        check_nogoods(self.path, nogoods, index)
        loaded.add_nogoods(nogoods)
        return loaded

    def _rows_after(self, index: GrowingIndex) -> tuple[list[NodeRow], list[JustificationRow]]:
        """The nodes and justifications stored after those ``index`` holds, numbered on from
        its own and in the order of their events (a corrupt memory is refused here:
        :func:`jtms.memory.stored.check_numbered`)."""
        store = self._store
        newest = store.last_event()
        rows = store.nodes(index.size)
        check_numbered(self.path, "nodes", rows, index.size, newest)
        justifications = store.justifications(len(index.just_claim))
        check_numbered(self.path, "justifications", justifications, len(index.just_claim), newest)
        return rows, justifications

    def _extend_index(
        self, index: GrowingIndex, rows: list[NodeRow], justifications: list[JustificationRow]
    ) -> None:
        """Append ``rows`` (:meth:`_rows_after`, maybe a prefix) and ``justifications`` to
        ``index``, once every claim and antecedent is known to be one of its nodes then."""
        evidence = index.is_evidence
        if rows and justifications:
            evidence = evidence + bytes(map(attrgetter("evidence"), rows))
        claims, antecedents = check_justifications(self.path, justifications, evidence)
        index.extend(
            list(zip(map(attrgetter("id"), rows), map(attrgetter("evidence"), rows))),
            zip(claims, antecedents),
            canonical=True,
        )

    def _extend_to(self, index: GrowingIndex, nodes: int, justifications: int) -> None:
        """Append to ``index`` the stored nodes and justifications numbered below ``nodes``
        and ``justifications`` that it lacks (:data:`checkpoint.Extend`: a state blob over
        an index grown since its full blob)."""
        rows, added = self._rows_after(index)
        self._extend_index(
            index, rows[: nodes - index.size], added[: justifications - len(index.just_claim)]
        )

    def _catch_up(self, loaded: _Loaded, last: int) -> None:
        """Apply what the events after ``loaded.seen_event`` wrote (O(changes))."""
        store = self._store
        index = loaded.index
        rows, justifications = self._rows_after(index)
        self._extend_index(index, rows, justifications)
        nogoods = store.nogoods(after=loaded.seen_event)
        self._replay(loaded, last, rows)
        check_nogoods(self.path, nogoods, index)
        loaded.refresh_nogoods()
        loaded.add_nogoods(nogoods)

    def _replay(self, loaded: _Loaded, last: int, new_rows: list[NodeRow]) -> None:
        """Events ``(loaded.seen_event, last]`` applied as one plan of recorded changes."""
        store, after = self._store, loaded.seen_event
        state, index = loaded.state, loaded.index
        state.grow()
        # columns, not a row object per revision and pointer (the tail since the checkpoint
        # holds up to an eighth of the memory: what a cold command reads besides it)
        final = {r.num: r.status == ACTIVE for r in new_rows}
        revised, now_active = revision_columns(
            self.path,
            lambda: store.revision_columns(after, last),
            index.size,
            lambda: store.revisions(after, last),
        )
        final.update(zip(revised, map(bool, now_active)))
        nodes, justifications, pointer_ranks = support_columns(
            self.path,
            lambda: store.support_columns(after, last),
            index,
            lambda: store.supports(after, last),
        )
        pointers = dict(zip(nodes, zip(justifications, pointer_ranks)))
        blocked: list[int] = []
        unblocked: list[int] = []
        events = store.events(after, last)
        check_events(self.path, events, after, last)
        if any(event.kind == "audit" for event in events):
            loaded.erased = None  # a purge is an audit
        for event in events:
            if event.kind == "audit" and event.roots is not None:
                numbers = root_numbers(self.path, event, index)
                loaded.audits[event.id] = numbers
                blocked.extend(numbers)
            elif event.kind == "reinstate" and event.target is not None:
                unblocked.extend(loaded.audits.pop(event.target, []))
        active = state.active
        supports = {n: j for n, (j, _) in pointers.items() if final.get(n, bool(active[n]))}
        ranks = {n: r for n, (_, r) in pointers.items() if n in supports}
        state.apply(
            Plan(
                blocked=tuple(blocked),
                unblocked=tuple(unblocked),
                deactivated=tuple(n for n, on in final.items() if not on and active[n]),
                activated=tuple(n for n, on in final.items() if on and not active[n]),
                supports=supports,
                ranks=ranks,
            )
        )
        loaded.seen_event = last
        loaded.tail += len(revised) + len(pointers)

    def checkpoint(self) -> int:
        """Save the current state as the store's checkpoint now; returns its event id.

        Writers do this on their own when the log tail grows; opening then reads the
        checkpoint and the tail instead of replaying the whole log.
        """

        def work(loaded: _Loaded) -> WorkResult:
            self._save_checkpoint(loaded)
            return loaded.seen_event, None, loaded.seen_event

        return int(self._write(work, new_event=False))

    @property
    def checkpoint_event(self) -> int | None:
        """The event of the store's checkpoint (None: opening replays the whole log)."""
        with self.snapshot():
            saved = self._store.checkpoint()
            return saved.event if saved is not None else None

    def _save_checkpoint(self, loaded: _Loaded) -> None:
        event, index = loaded.seen_event, loaded.index
        full = loaded.full_checkpoint
        count = len(index.just_claim)
        if (
            full is not None
            and full[0] < event
            and full[1] <= index.size <= full[1] + full[1] // GROWN_STATE_BLOB
            and full[2] <= count <= full[2] + full[2] // GROWN_STATE_BLOB
        ):
            # the index is the one the stored full blob holds, or that one and a few nodes
            # and justifications since (opening reads those from the store): store the state
            # alone (an audit's refresh writes about a tenth of the bytes), unless that blob
            # is gone
            data = checkpoint.encode_state(loaded.state, loaded.audits, event, full[0])
            if self._store.put_checkpoint(Checkpoint(event, data), keep=full[0]):
                loaded.tail = 0
                return
        try:
            data = checkpoint.encode(loaded.state, loaded.audits, event)
        except ValueError:  # an id this format cannot hold: opening replays the log instead
            return
        self._store.put_checkpoint(Checkpoint(event, data))
        loaded.full_checkpoint = (event, index.size, len(index.just_claim))
        loaded.tail = 0

    def _write(
        self,
        work: Callable[[_Loaded], WorkResult],
        new_event: bool = True,
        finish: Callable[[Any], Any] | None = None,
        expire: bool | None = None,
    ) -> Any:
        """Run ``work`` in one write transaction on the latest state.

        ``work`` returns (event id, plan, result); the plan's pointers are stored with the
        event and the plan is applied to the in-memory state before COMMIT (a failure drops
        the in-memory state: it is reloaded lazily). ``finish(result)``, when given, runs
        last before COMMIT and its value is returned: work that needs no database (naming
        what changed) done while a server still runs the statements sent. ``expire`` (by
        default for a write that makes an event): first record the expiry of evidence
        past its ``valid_until`` (:meth:`_record_expiries`), in the same transaction.
        """
        self._check_open()
        if self._pinned is not None:
            raise InputError(f"a view as of event {self._pinned} is read-only", source=self.path)
        if self._depth:
            raise RuntimeError("a write cannot run inside Memory.snapshot()")
        if expire is None:
            expire = new_event
        self._point("write")
        try:
            with self._store.write():
                self._depth += 1
                try:
                    loaded = self._sync()
                    keyed = self._keyed if new_event else None
                    if keyed is not None:
                        self._check_key(*keyed)
                    if expire:
                        self._record_expiries(loaded)
                    event, plan, value = work(loaded)
                    if keyed is not None:
                        self._store.add_idempotency_key(keyed[0], keyed[1], event)
                        self._keyed = None
                    if plan is not None:
                        self._apply(loaded, event, plan)
                    loaded.seen_event = event
                    if new_event and loaded.tail > max(CHECKPOINT_MIN_ROWS, loaded.index.size // 8):
                        self._save_checkpoint(loaded)
                    if finish is not None:
                        value = finish(value)
                    self._point("commit")
                    if self._before_commit is not None:
                        self._before_commit()
                finally:
                    self._depth -= 1
        except RepeatedCall:
            raise  # refused before anything changed: the in-memory state is intact
        except BaseException:
            self._loaded = None  # the in-memory state may be half-changed: reload lazily
            raise
        return value

    def _apply(self, loaded: _Loaded, event: int, plan: Plan) -> None:
        """Inside a write: store ``plan``'s support pointers and nogood changes with
        ``event`` and apply it to the in-memory state."""
        # in node order: the rows' index by node then grows at its end, not at random pages
        # (a 1M-claim import: 10.0 -> 7.0 s)
        self._store.add_supports(event, pointer_rows(plan))
        loaded.state.apply(plan)
        loaded.tail += len(plan.supports) + len(plan.deactivated) + len(plan.activated)
        changed = loaded.nogood_changes((*plan.deactivated, *plan.activated))
        for status in (ACTIVE, INACTIVE):
            self._store.add_nogood_revisions(
                event, status, [g for g, on in changed.items() if on == (status == ACTIVE)]
            )

    def _erased(self, loaded: _Loaded) -> dict[int, int]:
        """Purged node -> the audit that erased it (all of them, also those after a view's
        event), read once per state: only an audit can add one."""
        if loaded.erased is None:
            loaded.erased = self._store.erasures()
        return loaded.erased

    # --- expiry -------------------------------------------------------------------------------
    def _record_expiries(self, loaded: _Loaded) -> None:
        """Inside a write: the evidence whose ``valid_until`` has passed and that no
        "expired" audit names yet, audited now (one audit event, reason "expired", by
        :data:`EXPIRY_REVIEWER`): the same audit path as :meth:`audit`."""
        if loaded.next_due is None or loaded.next_due > _now():
            return
        due = self._store.due_expiries(_now(), loaded.seen_event)
        if not due:
            loaded.next_due = self._next_due(loaded)  # another process recorded them
            return
        ids = [loaded.index.ids[n] for n in due]
        event = self._event("audit", actor=EXPIRY_REVIEWER, reason=EXPIRED, roots=ids)
        plan = loaded.state.plan_retract(due)
        self._store.add_revisions(event, INACTIVE, plan.deactivated)
        loaded.audits[event] = list(due)
        self._apply(loaded, event, plan)
        loaded.seen_event = event
        loaded.next_due = self._next_due(loaded)

    def _expiry_due(self, loaded: _Loaded | None) -> bool:
        """Whether this live, writable memory holds evidence past its ``valid_until`` that
        is not recorded as expired yet (the first read or write after that time records
        it: :meth:`_expire_now`)."""
        return (
            loaded is not None
            and loaded.next_due is not None
            and self._pinned is None
            and not self._no_expiry
            and loaded.next_due <= _now()
        )

    def _expire_now(self) -> None:
        """Record the expiries that are due in a write of their own (before a read); a
        memory that cannot be written (a read-only file or role) is read as it is."""
        try:
            self._write(lambda loaded: (loaded.seen_event, None, None), False, None, True)
        except InputError:
            self._no_expiry = True

    def _next_due(self, loaded: _Loaded) -> str | None:
        """The earliest ``valid_until`` of evidence not yet expired (None: none is)."""
        if self._pinned is not None:
            return None
        return self._store.next_expiry(loaded.seen_event)

    def _expire_view(self, loaded: _Loaded) -> None:
        """A view of the past (as of event k): the evidence whose ``valid_until`` had passed
        at k's time but that no "expired" audit up to k names counts as audited in it
        (in memory only: nothing is written)."""
        row = self._store.event(loaded.seen_event)
        if row is None:
            return
        moment = self._event_time(row.id, row.time).astimezone(timezone.utc)
        due = self._store.due_expiries(utc_time(moment), loaded.seen_event)
        if due:
            loaded.state.apply(loaded.state.plan_retract(due))

    # --- idempotency keys ---------------------------------------------------------------------
    def _check_key(self, key: str, request: str, outcomes: Collection[str] = ()) -> None:
        found = self._store.idempotency_key(key)
        if found is None:
            return
        event, first = found
        if first != request and first not in outcomes:
            raise InputError(
                f"idempotency_key {key!r} was already used by another call "
                f"(event {event}); use a new key for a new call"
            )
        raise RepeatedCall(key, event, first)

    def keep_key(self, key: str, request: str, event: int, outcomes: Collection[str] = ()) -> None:
        """Store ``key`` for a call that needed no write (a review that found nothing to
        audit), with ``event``, the event its result was read as of: a repeat then returns
        that result rebuilt as of ``event`` and a later retry writes nothing, as for a key
        stored by a write (:meth:`keyed`). Nothing but the key is written (no event).
        :class:`RepeatedCall` when the key is stored already with ``request`` or one of
        ``outcomes`` (the same call's other digests), :class:`InputError` when another
        call used it."""
        _check_idempotency_key(key)
        request, digests = _check_request(request, outcomes)
        outcomes = digests
        if isinstance(event, bool) or not isinstance(event, int):
            raise InputError(f"event must be an integer, got {type(event).__name__}")

        def work(loaded: _Loaded) -> WorkResult:
            self._check_key(key, request, outcomes)
            if not 1 <= event <= loaded.seen_event:
                raise InputError(
                    f"no event {show_int(event)} (events are 1 to {loaded.seen_event})"
                )
            self._store.add_idempotency_key(key, request, event)
            return loaded.seen_event, None, None

        self._write(work, new_event=False)

    def idempotency_key(self, key: str) -> tuple[int, str] | None:
        """The event that a write made under ``key`` (:meth:`keyed`) and the digest of its
        request, or None when no write used that key (in a view of the past: by then)."""
        key = _check_idempotency_key(key)
        with self.snapshot():
            found = self._store.idempotency_key(key)
            return found if found is not None and self._until(found[0]) else None

    @contextmanager
    def keyed(self, key: str, request: str, outcomes: Collection[str] = ()) -> Iterator["Memory"]:
        """The first write inside this block stores ``key`` with its event, in its
        transaction; when ``key`` is stored already (by any process, before or while this
        one waited for the write lock) that write raises :class:`RepeatedCall` (with the
        event and the digest stored) and writes nothing, or :class:`InputError` when the
        key's first write had another ``request`` (a digest of the call: the tool and its
        arguments) and none of ``outcomes`` (digests of the same call's other outcomes,
        e.g. a review that wrote nothing: :meth:`keep_key`).

        >>> with memory.keyed("k-17", digest):        # doctest: +SKIP
        ...     memory.add_evidence("e1")
        """
        _check_idempotency_key(key)
        request, digests = _check_request(request, outcomes)
        if self._keyed_block is not None:  # the inner key would replace the outer one's
            raise InputError(
                f"keyed blocks do not nest (inside the block of {self._keyed_block!r})",
                source=self.path,
            )
        self._keyed, self._keyed_block = (key, request, digests), key
        try:
            yield self
        finally:
            self._keyed, self._keyed_block = None, None

    def secret(self, create: bool = True) -> str | None:
        """This memory's random secret (a meta row, 64 hex digits, written when the memory
        was created), with which the MCP server signs the cursors it hands out: no client can
        forge or edit one, and another memory refuses it. A memory created before memories
        had one gets it now, in a write of its own that adds no event (readers never see a
        change), when ``create`` and the memory can be written; else None (a view of the
        past, a read-only file or role)."""
        with self.snapshot():
            found = self._store.secret()
        if found is not None or not create or self._pinned is not None or self._depth:
            return found
        try:
            with self._store.write():  # no event and no state: nothing to catch up on
                self._store.add_secret()
                return self._store.secret()
        except InputError:  # read-only: the caller keeps a secret of its own
            return None

    def _event(self, kind: str, **fields: Any) -> int:
        return self._store.append_event(kind, _now(), **fields)

    # --- reading ----------------------------------------------------------------------------
    @property
    def state(self) -> SupportState:
        """The incremental state (read-only use) at the latest event."""
        with self.snapshot():
            return self._loaded_now().state

    @property
    def last_event(self) -> int:
        """The id of the latest event this memory has applied (after syncing)."""
        with self.snapshot():
            return self._loaded_now().seen_event

    def wait_for_change(self, after: int | None = None, timeout: float = 60.0) -> int:
        """Block until a write newer than event ``after`` (default: the latest this memory has
        applied) is committed by anyone, or ``timeout`` seconds pass; returns the latest event
        id then, with the in-memory state caught up to it (from the log, O(changes)).

        PostgreSQL pushes a notification at every commit (``LISTEN``/``NOTIFY``): waiting costs
        no queries. SQLite has no notifications, so there this checks the last event id every
        50 ms.

        >>> newest = memory.wait_for_change(timeout=30)       # doctest: +SKIP
        """
        after = _optional_event(after, "after")
        timeout = check_seconds(timeout, "timeout", MAX_WAIT)
        if self._depth:
            raise RuntimeError("wait_for_change cannot run inside Memory.snapshot()")
        seen = self.last_event if after is None else after
        deadline = time.monotonic() + max(0.0, timeout)
        waiter = getattr(self._store, "wait_for_change", None)
        if callable(waiter):
            waiter(seen, timeout)
        else:
            while self.last_event <= seen and time.monotonic() < deadline:
                time.sleep(min(0.05, max(0.0, deadline - time.monotonic())))
        return self.last_event

    def __contains__(self, node_id: object) -> bool:
        if not isinstance(node_id, str):
            return False
        with self.snapshot():
            return node_id in self._loaded_now().index.number

    def _number(self, node_id: str, loaded: _Loaded) -> int:
        number = loaded.index.number.get(node_id) if isinstance(node_id, str) else None
        if number is None:
            raise InputError("unknown id", source=self.path, node=str(node_id))
        return number

    def is_active(self, node_id: str) -> bool:
        """Whether a node is active (for a nogood id: whether it is a contradiction now)."""
        node_id = check_id(node_id, "node_id")
        with self.snapshot():
            loaded = self._loaded_now()
            if node_id in loaded.nogoods:
                return loaded.nogood_active[node_id]
            return bool(loaded.state.active[self._number(node_id, loaded)])

    def active_ids(self) -> frozenset[str]:
        with self.snapshot():
            loaded = self._loaded_now()
            return loaded.index.names(n for n, flag in enumerate(loaded.state.active) if flag)

    def blocked_ids(self) -> frozenset[str]:
        with self.snapshot():
            loaded = self._loaded_now()
            return loaded.index.names(loaded.state.blocks)

    def open_audits(self) -> dict[int, tuple[str, ...]]:
        """Audits in force (not reinstated): audit id -> its roots."""
        with self.snapshot():
            loaded = self._loaded_now()
            ids = loaded.index.ids
            return {a: tuple(ids[n] for n in roots) for a, roots in loaded.audits.items()}

    def structure(self) -> SupportStructure:
        """The whole stored graph (every node, justification and nogood) as a support structure."""
        with self.snapshot():
            index = self._loaded_now().index
            texts = self._store.texts()
            if self._pinned is not None:
                texts = {i: texts[i] for i in index.ids}
            return index.structure(texts).with_nogoods(self.nogoods())

    def nogoods(self) -> tuple[Nogood, ...]:
        """The stored nogoods, in creation order."""
        with self.snapshot():
            return tuple(
                Nogood(r.id, frozenset(r.nodes), r.text)
                for r in self._loaded_now().nogoods.values()
            )

    def diagnose(self, limit: int | None = None) -> "DiagnosisReport":
        """Contradictions (active nogoods, with the audits in force) and their ``limit``
        cheapest diagnoses (:func:`theory.semantics.diagnosis.diagnose`); nothing is written."""
        from theory.semantics.diagnosis import diagnose

        if limit is not None:
            limit = check_int(limit, "limit", 0, sys.maxsize)

        with self.snapshot():
            return diagnose(self.structure(), self.blocked_ids(), limit)

    def texts(self) -> dict[str, str]:
        """Node id -> its text (in a view of the past, the nodes that existed then)."""
        with self.snapshot():
            texts = self._store.texts()
            if self._pinned is not None:
                texts = {i: texts[i] for i in self._loaded_now().index.ids}
            return texts

    def creation_events(self) -> dict[str, int]:
        """Node id -> the event that created it (in a view of the past, up to its event)."""
        with self.snapshot():
            created = self._store.creation_events()
            if self._pinned is not None:
                created = {i: e for i, e in created.items() if e <= self._pinned}
            return created

    def events(self, after: int = 0, until: int | None = None) -> list[dict[str, Any]]:
        """The events ``(after, until]`` (``until`` defaults to the latest, and in a view of
        the past cannot pass its event), oldest first: ``id``, ``kind``, ``time``, ``actor``,
        ``reason``, ``roots`` (an audit's ids), ``target`` (the audit a reinstatement undoes),
        ``source`` (an import's file), and what each changed: ``created`` (the nodes and
        nogoods it added), ``activated`` and ``deactivated`` (the nodes whose status it
        changed), each sorted.

        >>> [(e["id"], e["kind"]) for e in memory.events(after=5, until=7)]   # doctest: +SKIP
        [(6, 'add-claim'), (7, 'audit')]
        """
        after = check_int(after, "after", -MAX_EVENT, MAX_EVENT)
        until = _optional_event(until, "until")
        with self.snapshot():
            loaded = self._loaded_now()
            last = loaded.seen_event if until is None else min(until, loaded.seen_event)
            after = max(0, after)
            if last <= after:
                return []
            ids = loaded.index.ids
            changes: dict[int, dict[str, list[str]]] = {}

            def change(event: int, what: str, node_id: str) -> None:
                changes.setdefault(event, {}).setdefault(what, []).append(node_id)

            for node_id, created in self._store.creation_events().items():
                if after < created <= last:
                    change(created, "created", node_id)
            for nogood in loaded.nogoods.values():
                if after < nogood.event <= last:
                    change(nogood.event, "created", nogood.id)
            revisions = self._store.revisions(after, last)
            check_revisions(self.path, revisions, len(ids))
            for revision in revisions:
                change(
                    revision.event,
                    "activated" if revision.status == ACTIVE else "deactivated",
                    ids[revision.node],
                )
            result = []
            for event in self._store.events(after, last):
                found = changes.get(event.id, {})
                result.append(
                    {
                        "id": event.id,
                        "kind": event.kind,
                        "time": event.time,
                        "actor": event.actor,
                        "reason": event.reason,
                        "roots": list(event.roots) if event.roots is not None else None,
                        "target": event.target,
                        "source": event.source,
                        **{
                            what: sorted(found.get(what, ()))
                            for what in ("created", "activated", "deactivated")
                        },
                    }
                )
            return result

    def calculations(self) -> list[tuple[str, str, str]]:
        """(id, expression, recorded value) of every evidence that records a calculation (in
        a view of the past: of the evidence that existed then)."""
        with self.snapshot():
            rows = self._store.calculations()
            if self._pinned is None:
                return rows
            known = self._loaded_now().index.number
            return [row for row in rows if row[0] in known]

    def table(self, name: str) -> list[dict[str, Any]]:
        """Every stored row of ``events``, ``nodes``, ``justifications``, ``revisions`` or
        ``supports``, in primary-key order (for export and for byte-level comparisons)."""
        name = check_choice(name, "table", TABLES)
        with self.snapshot():
            return self._store.rows(name)

    def node(self, node_id: str) -> dict[str, Any]:
        """The stored record of a node or a nogood (id, kind, text, author, ...)."""
        node_id = check_id(node_id, "node_id")
        with self.snapshot():
            nogood = self._loaded_now().nogoods.get(node_id)
            if nogood is not None:
                created = self._store.event(nogood.event)
                return {
                    "id": nogood.id,
                    "kind": "nogood",
                    "text": nogood.text,
                    "author": nogood.author,
                    "nodes": list(nogood.nodes),
                    "created": created.time if created else None,
                }
            num = self._number(node_id, self._loaded_now())
            record = self._store.node_record(node_id)
            if record is None:  # the node's row names an event that is not there
                raise corrupt_row(
                    self.path, "nodes", num, "its event is not an event of this memory"
                )
            return record

    # --- adding -----------------------------------------------------------------------------
    def _check_new(self, loaded: _Loaded, node_id: str) -> str:
        node_id = _clean_id(node_id, "id")
        if node_id in loaded.index.number or node_id in loaded.nogoods:
            raise InputError("duplicate id (already in the memory)", source=self.path, node=node_id)
        return node_id

    def _antecedents(
        self, loaded: _Loaded, claim: str, antecedents: Any, pending: Mapping[str, int] = {}
    ) -> list[int]:
        if isinstance(antecedents, str) or not isinstance(antecedents, Iterable):
            raise InputError("a justification is a list of antecedent ids", node=claim)
        numbers = []
        for a in antecedents:
            number = loaded.index.number.get(a) if isinstance(a, str) else None
            if number is None:
                number = pending.get(a) if isinstance(a, str) else None
            if number is None:
                raise InputError(
                    f"unknown antecedent {a!r} in a justification of {claim!r}",
                    source=self.path,
                    node=str(a),
                )
            numbers.append(number)
        return numbers

    def add_evidence(
        self,
        node_id: str,
        text: str = "",
        author: str | None = None,
        expression: str | None = None,
        value: str | None = None,
        valid_until: "str | datetime | None" = None,
    ) -> Change:
        """Add one evidence node (active: nothing can have audited a new id). With
        ``valid_until`` (an ISO time, without a zone UTC, or a datetime) it counts as
        audited from then on: the first read or write after that time records an audit
        with reason "expired", and a view as of a later event counts it as audited."""
        started = time.perf_counter()
        node_id = check_id(node_id, "node_id")
        text = check_text(text, "text", MAX_TEXT)
        author = check_text(author, "author", MAX_SOURCE, optional=True)
        expression = check_text(expression, "expression", MAX_EXPRESSION, optional=True)
        value = check_text(value, "value", MAX_EXPRESSION, optional=True)
        if (expression is None) != (value is None):
            raise InputError("a calculation needs both an expression and its value", node=node_id)
        if expression is not None:
            check_calculation(node_id, expression, value, self.path)
        until = None if valid_until is None else check_valid_until(valid_until)

        def work(loaded: _Loaded) -> WorkResult:
            nid = self._check_new(loaded, node_id)
            event = self._event("add-evidence", actor=author)
            num = loaded.index.size
            self._store.add_nodes(
                [NewNode(num, nid, "evidence", text, author, expression, value, event, ACTIVE)]
            )
            if until is not None:
                self._store.add_expiry(num, until, event)
                loaded.next_due = min(filter(None, (loaded.next_due, until)))
            loaded.index.add_node(nid, True)
            plan = loaded.state.plan_extend(seeds=[num])
            return event, plan, Change(event, frozenset([nid]), 0.0, 1)

        change = self._write(work)
        return replace(change, seconds=time.perf_counter() - started)

    def add_claim(
        self,
        node_id: str,
        justifications: Sequence[Sequence[str]],
        text: str = "",
        author: str | None = None,
    ) -> Change:
        """Add a claim with its justifications (lists of antecedent ids; [] makes a premise)."""
        started = time.perf_counter()
        node_id = check_id(node_id, "node_id")
        justifications = _justifications(justifications)
        if self_justified(node_id, justifications):
            raise InputError(refused_self_justified(node_id), source=self.path, node=node_id)
        text = check_text(text, "text", MAX_TEXT)
        author = check_text(author, "author", MAX_SOURCE, optional=True)

        def work(loaded: _Loaded) -> WorkResult:
            nid = self._check_new(loaded, node_id)
            if isinstance(justifications, (str, bytes)) or not isinstance(justifications, Sequence):
                raise InputError("justifications must be a list of antecedent lists", node=nid)
            num = loaded.index.size
            resolved = [self._antecedents(loaded, nid, ants, {nid: num}) for ants in justifications]
            event = self._event("add-claim", actor=author)
            loaded.index.add_node(nid, False)
            for ants in resolved:
                if loaded.index.find_justification(num, ants) is None:
                    loaded.index.add_justification(num, ants)
            plan = loaded.state.plan_extend(seeds=[num])
            status = ACTIVE if plan.activated else INACTIVE
            self._store.add_nodes(
                [NewNode(num, nid, "claim", text, author, None, None, event, status)]
            )
            self._insert_justifications(loaded.index, loaded.index.justs_of[num], event)
            return event, plan, Change(event, loaded.index.names(plan.activated), 0.0, 1)

        change = self._write(work)
        return replace(change, seconds=time.perf_counter() - started)

    def add_justification(
        self, claim: str, antecedents: Sequence[str], author: str | None = None
    ) -> Change:
        """Add a justification to an existing claim (may activate it and its consequences)."""
        started = time.perf_counter()
        claim = check_id(claim, "claim")
        antecedents = check_ids(antecedents, "antecedents", MAX_ANTECEDENTS)
        author = check_text(author, "author", MAX_SOURCE, optional=True)

        def work(loaded: _Loaded) -> WorkResult:
            num = loaded.index.number.get(claim) if isinstance(claim, str) else None
            if num is None:
                raise InputError("unknown claim", source=self.path, node=str(claim))
            if loaded.index.is_evidence[num]:
                raise InputError(
                    "evidence cannot have a justification", source=self.path, node=claim
                )
            ants = self._antecedents(loaded, claim, antecedents)
            if loaded.index.find_justification(num, ants) is not None:
                raise InputError("this justification is already recorded", node=claim)
            event = self._event("add-justification", actor=author)
            j = loaded.index.add_justification(num, ants)
            self._insert_justifications(loaded.index, [j], event)
            plan = loaded.state.plan_extend(seeds=[num])
            self._store.add_revisions(event, ACTIVE, plan.activated)
            return event, plan, Change(event, loaded.index.names(plan.activated), 0.0, 0)

        change = self._write(work)
        return replace(change, seconds=time.perf_counter() - started)

    def add_nogood(
        self, nogood_id: str, nodes: Sequence[str], text: str = "", author: str | None = None
    ) -> Change:
        """Record that ``nodes`` must not all be active together (a nogood, with an id of its
        own). It changes no status; ``is_active(nogood_id)`` and ``history(nogood_id)`` say
        when it is a contradiction, and :meth:`diagnose` what evidence to withdraw.

        >>> memory.add_nogood("n1", ["effective", "inert"], text="cannot both hold")  # doctest: +SKIP
        """
        started = time.perf_counter()
        nogood_id = check_id(nogood_id, "nogood_id")
        nodes = check_ids(nodes, "nodes")  # empty: refused below, "needs at least one node"
        text = check_text(text, "text", MAX_TEXT)
        author = check_text(author, "author", MAX_SOURCE, optional=True)

        def work(loaded: _Loaded) -> WorkResult:
            nid = self._check_new(loaded, nogood_id)
            if isinstance(nodes, (str, bytes)) or not isinstance(nodes, Iterable):
                raise InputError("a nogood's nodes are a list of ids", source=self.path, node=nid)
            members = sorted(set(nodes))
            if not members:
                raise InputError("a nogood needs at least one node", source=self.path, node=nid)
            numbers = [self._number(n, loaded) for n in members]
            if not isinstance(text, str):
                raise InputError("'text' must be a string", source=self.path, node=nid)
            event = self._event("add-nogood", actor=author)
            active = all(loaded.state.active[n] for n in numbers)
            row = NogoodRow(
                nid, tuple(members), text, author, event, ACTIVE if active else INACTIVE
            )
            self._store.add_nogoods([row])
            loaded.add_nogoods([row])
            return event, None, Change(event, frozenset(), 0.0, 1)

        change = self._write(work)
        return replace(change, seconds=time.perf_counter() - started)

    def _insert_justifications(
        self, index: GrowingIndex, numbers: Iterable[int], event: int
    ) -> None:
        self._store.add_justifications(
            JustificationRow(j, index.just_claim[j], index.just_antecedents[j], event)
            for j in numbers
        )

    def import_graph(
        self,
        graph: SupportStructure | Mapping[str, Any],
        source: str = "<graph>",
        author: str | None = None,
    ) -> Change:
        """Add a whole graph (a structure, or a decoded graph document) in one transaction.

        The graph must be self-contained (validated by :func:`theory.io.graphfile.parse_graph`)
        and share no id with the memory. Graph documents may give evidence a calculation:
        ``{"id": "e1", "kind": "evidence", "expression": "2*3", "value": "6"}``.
        """
        source = check_text(source, "source", MAX_SOURCE)
        author = check_text(author, "author", MAX_SOURCE, optional=True)
        if not isinstance(graph, (SupportStructure, Mapping)):
            raise InputError(
                f"graph must be a support structure or a graph document (a "
                f"mapping), got {type(graph).__name__}",
                source=source,
            )
        with paused_gc():  # hundreds of thousands of small rows and tuples, none cyclic
            return self._import_graph(graph, source, author)

    def _import_graph(
        self, graph: SupportStructure | Mapping[str, Any], source: str, author: str | None
    ) -> Change:
        started = time.perf_counter()
        extras: dict[str, dict[str, Any]] = {}
        expiring: dict[str, str] = {}  # evidence id -> its valid_until
        nogoods: tuple[Nogood, ...] = ()
        if isinstance(graph, SupportStructure):
            for node_id in [*graph.nodes, *(g.id for g in graph.nogoods)]:
                check_id(node_id, "id", source)
            rows, nogoods = GraphRows.of(graph), graph.nogoods
        else:
            read = graph_rows(graph)  # a plain valid document, straight into numbered rows
            if read is None:  # anything else: the full reader says what is wrong
                structure = parse_graph(graph, source=source)
                read, nogoods = GraphRows.of(structure), structure.nogoods
            rows = read
            extras = node_extras(graph, None, source)
            expiring = _expiring(graph, source)
        check_texts(rows.texts.items(), nogoods, source)

        def work(loaded: _Loaded) -> WorkResult:
            index = loaded.index
            number = index.numbering()  # a dict: an import looks up every id it brings
            clashes = [
                node_id
                for node_id in (*rows.ids, *(g.id for g in nogoods))
                if node_id in number or node_id in loaded.nogoods
            ]
            if clashes:
                raise InputError(
                    "duplicate id (already in the memory)", source=source, node=min(clashes)
                )
            event = self._event("import", actor=author, source=source)
            first_node, first_just = index.size, len(index.just_claim)
            ordered, n_evidence = rows.ids, rows.evidence
            claims, offsets, flat = rows.claims, rows.offsets, rows.flat
            if first_node:  # rows are numbered from 0; this graph's nodes follow the memory's
                claims = [c + first_node for c in claims]
                flat = [a + first_node for a in flat]
            index.extend_rows(rows, claims, offsets, flat)
            # the graph is self-contained: nothing stored changes status; the new nodes are
            # derived among themselves (a region of exactly the new graph)
            plan = loaded.state.plan_import(first_node, first_just)
            count = len(ordered)
            statuses = [INACTIVE] * count
            for num in plan.activated:
                statuses[num - first_node] = ACTIVE
            texts = rows.texts
            if not texts and not extras and author is None:
                # a plain document (ids and kinds only): columns, no row objects
                self._store.add_node_rows(first_node, ordered, n_evidence, statuses, event)
            else:
                self._store.add_nodes(
                    _new_nodes(
                        first_node, ordered, n_evidence, texts, extras, author, event, statuses
                    )
                )
            self._store.add_justification_rows(first_just, claims, offsets, flat, event)
            if expiring:
                position = {node_id: k for k, node_id in enumerate(ordered)}
                self._store.add_expiries(
                    (
                        (first_node + position[node_id], until)
                        for node_id, until in expiring.items()
                    ),
                    event,
                )
                loaded.next_due = min(filter(None, (loaded.next_due, *expiring.values())))
            activated = index.names(plan.activated)
            nogood_rows = [
                NogoodRow(
                    g.id,
                    tuple(sorted(g.nodes)),
                    g.text,
                    author,
                    event,
                    ACTIVE if g.nodes <= activated else INACTIVE,
                )
                for g in sorted(nogoods, key=lambda g: g.id)
            ]
            self._store.add_nogoods(nogood_rows)
            loaded.add_nogoods(nogood_rows)
            loaded.nogood_active.update((g.id, g.status == ACTIVE) for g in nogood_rows)
            return event, plan, Change(event, activated, 0.0, len(ordered))

        change = self._write(work)
        return replace(change, seconds=time.perf_counter() - started)

    def add_batch(
        self,
        nodes: Sequence[Mapping[str, Any]],
        justifications: Sequence[Mapping[str, Any]] = (),
        nogoods: Sequence[Mapping[str, Any]] = (),
        author: str | None = None,
        idempotency_key: str | None = None,
    ) -> Change:
        """Write a batch in the graph file's shape in one transaction: new evidence and
        claims (``nodes``; evidence may carry ``valid_until``, as :meth:`add_evidence`),
        justifications of new or stored claims, and nogoods; antecedents and a nogood's nodes
        may be new or stored.

        The batch is checked whole before anything is written
        (:func:`jtms.memory.batches.read_batch`, then the ids against the memory): one bad
        item and nothing is written, the :class:`InputError` naming the item and why. With
        ``idempotency_key`` a repeat of the same batch writes nothing and returns the first
        write's result (its ``seconds`` 0); the key with another batch is refused. The
        result's ``activated`` holds the new nodes that are active and the stored ones the
        batch activated; ``added`` counts the nodes and nogoods created.

        >>> memory.add_batch([{"id": "e9", "kind": "evidence"}, {"id": "c9", "kind": "claim"}],
        ...                  [{"claim": "c9", "antecedents": ["e9"]}])  # doctest: +SKIP
        """
        with paused_gc():  # thousands of small rows and tuples, none cyclic (as an import)
            return self._add_batch(nodes, justifications, nogoods, author, idempotency_key)

    def _add_batch(
        self,
        nodes: Any,
        justifications: Any,
        nogoods: Any,
        author: Any,
        idempotency_key: str | None,
    ) -> Change:
        started = time.perf_counter()
        batch = read_batch(nodes, justifications, nogoods, self.path)
        author = check_text(author, "author", MAX_SOURCE, optional=True)
        if idempotency_key is None:
            change = self._write(lambda loaded: self._batch_work(loaded, batch, author))
            return replace(change, seconds=time.perf_counter() - started)
        request = batch.digest  # the batch and its author name the request
        if author is not None:
            request = hashlib.sha256(f"{batch.digest}\0{author}".encode()).hexdigest()
        try:
            with self.keyed(idempotency_key, request):
                change = self._write(lambda loaded: self._batch_work(loaded, batch, author))
        except RepeatedCall as repeated:
            return self._batch_replay(repeated.event)
        return replace(change, seconds=time.perf_counter() - started)

    def _batch_replay(self, event: int) -> Change:
        """The result of the batch written as ``event``, rebuilt as of that event."""
        past = self.as_of(event)
        (row,) = past.events(after=event - 1, until=event)
        created = row["created"]
        active = {n for n in created if n in past and past.is_active(n)}
        return Change(event, frozenset(active | set(row["activated"])), 0.0, len(created))

    def _batch_work(self, loaded: _Loaded, batch: Batch, author: str | None) -> WorkResult:
        index = loaded.index
        number = index.number
        for k, node in enumerate(batch.nodes):
            if node.id in number or node.id in loaded.nogoods:
                raise InputError(
                    f"nodes[{k}]: duplicate id (already in the memory)",
                    source=self.path,
                    node=node.id,
                )
        for k, nogood in enumerate(batch.nogoods):
            if nogood.id in number or nogood.id in loaded.nogoods:
                raise InputError(
                    f"nogoods[{k}]: duplicate id (already in the memory)",
                    source=self.path,
                    node=nogood.id,
                )
        first = index.size
        pending = {node.id: first + k for k, node in enumerate(batch.nodes)}
        new_evidence = {node.id for node in batch.nodes if node.evidence}

        def known(name: str) -> int | None:
            found = pending.get(name)
            return found if found is not None else number.get(name)

        resolved: list[tuple[int, list[int]]] = []
        seen: set[tuple[int, tuple[int, ...]]] = set()
        for k, (claim, antecedents) in enumerate(batch.justifications):
            where = f"justifications[{k}] (claim {claim!r})"
            num = known(claim)
            if num is None:
                raise InputError(
                    f"{where}: unknown claim {claim!r} (neither in this batch nor in the memory)",
                    source=self.path,
                    node=claim,
                )
            if claim not in pending and index.is_evidence[num]:
                raise InputError(
                    f"{where}: {claim!r} is evidence, which has no justification",
                    source=self.path,
                    node=claim,
                )
            ants = []
            for a in antecedents:
                found = known(a)
                if found is None:
                    raise InputError(
                        f"{where}: unknown antecedent {a!r} (neither in this batch nor in "
                        f"the memory)",
                        source=self.path,
                        node=a,
                    )
                ants.append(found)
            key = (num, tuple(sorted(set(ants))))
            if key in seen:
                continue  # the same justification twice in one batch: recorded once
            seen.add(key)
            if num < first and index.find_justification(num, ants) is not None:
                raise InputError(
                    f"{where}: this justification is already recorded",
                    source=self.path,
                    node=claim,
                )
            resolved.append((num, ants))
        for k, nogood in enumerate(batch.nogoods):
            for member in nogood.nodes:
                if known(member) is None:
                    raise InputError(
                        f"nogoods[{k}] ({nogood.id!r}): unknown node {member!r} (neither in "
                        f"this batch nor in the memory)",
                        source=self.path,
                        node=member,
                    )
        event = self._event("import", actor=author, source="add_batch")
        for node in batch.nodes:
            index.add_node(node.id, node.id in new_evidence)
        new_justs = [index.add_justification(num, ants) for num, ants in resolved]
        seeds = list(range(first, index.size))
        seeds.extend(sorted({num for num, _ in resolved if num < first}))
        plan = loaded.state.plan_extend(seeds=seeds)
        activated = set(plan.activated)
        self._store.add_nodes(
            NewNode(
                first + k,
                node.id,
                "evidence" if node.evidence else "claim",
                node.text,
                node.author if node.author is not None else author,
                node.expression,
                node.value,
                event,
                ACTIVE if first + k in activated else INACTIVE,
            )
            for k, node in enumerate(batch.nodes)
        )
        expiring = [(first + k, n.valid_until) for k, n in enumerate(batch.nodes) if n.valid_until]
        if expiring:
            self._store.add_expiries(expiring, event)
            loaded.next_due = min(filter(None, (loaded.next_due, *(u for _, u in expiring))))
        self._insert_justifications(index, new_justs, event)
        self._store.add_revisions(event, ACTIVE, sorted(n for n in activated if n < first))
        state = loaded.state.active

        def on(name: str) -> bool:
            num = known(name)
            return num is not None and (num in activated or (num < len(state) and bool(state[num])))

        nogood_rows = [
            NogoodRow(
                g.id,
                g.nodes,
                g.text,
                author,
                event,
                ACTIVE if all(on(n) for n in g.nodes) else INACTIVE,
            )
            for g in batch.nogoods
        ]
        self._store.add_nogoods(nogood_rows)
        loaded.add_nogoods(nogood_rows)
        loaded.nogood_active.update((g.id, g.status == ACTIVE) for g in nogood_rows)
        added = len(batch.nodes) + len(batch.nogoods)
        return event, plan, Change(event, index.names(plan.activated), 0.0, added)

    # --- audits -------------------------------------------------------------------------------
    def _roots(self, loaded: _Loaded, roots: Iterable[str]) -> tuple[tuple[str, ...], list[int]]:
        if isinstance(roots, str):
            roots = [roots]
        ids = tuple(dict.fromkeys(roots))
        if not ids:
            raise InputError("an audit needs at least one id to invalidate", source=self.path)
        numbers = []
        for root in ids:
            number = loaded.index.number.get(root) if isinstance(root, str) else None
            if number is None:
                raise InputError(
                    "unknown id: no node of this memory has it (an audit "
                    "invalidates existing nodes)",
                    source=self.path,
                    node=str(root),
                )
            numbers.append(number)
        return ids, numbers

    def preview(self, roots: Iterable[str]) -> AuditResult:
        """Dry run of :meth:`audit`: what it would retire; nothing is written."""
        started = time.perf_counter()
        roots = _root_ids(roots)
        with self.snapshot():
            loaded = self._loaded_now()
            ids, numbers = self._roots(loaded, roots)
            plan = loaded.state.plan_retract(numbers)
            return self._result(None, ids, plan, loaded, started, "", None)

    def audit(self, roots: Iterable[str], reason: str, reviewer: str | None = None) -> AuditResult:
        """Invalidate ``roots`` (evidence or claims) in one transaction; returns what retired."""
        started = time.perf_counter()
        roots = _root_ids(roots)
        reason = check_text(reason, "reason", MAX_REASON)
        reviewer = check_text(reviewer, "reviewer", MAX_REVIEWER, optional=True)
        if not reason.strip():
            raise InputError("an audit needs a reason", source=self.path)

        def work(loaded: _Loaded) -> WorkResult:
            ids, numbers = self._roots(loaded, roots)
            # the event first: a server (PostgreSQL) stores it while the plan is made
            event = self._event("audit", actor=reviewer, reason=reason, roots=list(ids))
            plan = loaded.state.plan_retract(numbers)
            self._store.add_revisions(event, INACTIVE, plan.deactivated)
            loaded.audits[event] = numbers
            return event, plan, (event, ids, plan, loaded)

        def named(value: tuple[int, tuple[str, ...], Plan, _Loaded]) -> Any:
            event, ids, plan, loaded = value
            return event, ids, plan, loaded, loaded.index.names(plan.deactivated)

        event, ids, plan, loaded, retired = self._write(work, finish=named)
        return self._result(event, ids, plan, loaded, started, reason, reviewer, retired)

    def _result(
        self,
        audit_id: int | None,
        ids: tuple[str, ...],
        plan: Plan,
        loaded: _Loaded,
        started: float,
        reason: str,
        reviewer: str | None,
        retired: frozenset[str] | None = None,
    ) -> AuditResult:
        index = loaded.index
        return AuditResult(
            audit_id,
            ids,
            index.names(plan.deactivated) if retired is None else retired,
            plan.region,
            time.perf_counter() - started,
            reason,
            reviewer,
            plan.rederived,
            index.ids,
        )

    def kept(
        self, roots: Iterable[str], retired: Iterable[str] | None = None
    ) -> list[tuple[str, tuple[str, ...]]]:
        """Downstream claims of ``roots`` that are active now, each with its intact
        justification (its support pointer), sorted.

        ``retired``: what an audit of ``roots`` retires, for a dry run (:meth:`preview`'s
        ``retired``; the state is still the one before the audit). Those claims are left out,
        and a claim whose support pointer the audit breaks gets its first justification (by
        sorted antecedents) none of whose antecedents it retires: all of them active now and
        untouched, so it is the one intact after the audit. After a real audit, passing its
        ``retired`` changes nothing (retired claims are inactive, pointers avoid them).
        """
        return self.kept_page(roots, retired)[1]

    def kept_page(
        self,
        roots: Iterable[str],
        retired: Iterable[str] | None = None,
        offset: int = 0,
        limit: int | None = None,
    ) -> tuple[int, list[tuple[str, tuple[str, ...]]]]:
        """How many claims :meth:`kept` lists, and its rows ``[offset, offset + limit)``.

        Only the rows of the page are named with their justification (a table of 50 rows
        after an audit that keeps 75,000 claims names 50), so a reader of one page pays for
        the downstream walk and that page, not for the whole list.
        """
        roots = _root_ids(roots)
        if retired is not None:
            retired = check_ids(retired, "retired", sys.maxsize)
        offset = check_int(offset, "offset")
        if limit is not None:
            limit = check_int(limit, "limit", 0)
        with self.snapshot():
            loaded = self._loaded_now()
            _, numbers = self._roots(loaded, roots)
            index, state = loaded.index, loaded.state
            ids, antecedents, is_evidence = index.ids, index.just_antecedents, index.is_evidence
            active, support = state.active, state.support
            gone = {index.number[i] for i in retired if i in index.number} if retired else set()
            claims = [
                n
                for n in downstream_numbers(index, numbers)
                if active[n] and not is_evidence[n] and n not in gone
            ]
            name = ids.__getitem__
            if limit is None or offset < 0 or limit < 0:
                ordered = sorted(claims, key=name)
            else:  # the first offset + limit only (ids are unique: compared as they are)
                number = index.number
                smallest = heapq.nsmallest(offset + limit, map(name, claims))
                ordered = [number[i] for i in smallest]
            page = ordered[offset:] if limit is None else ordered[offset : offset + limit]
            # each row a slice of the flat antecedents (a page of every kept claim can hold
            # most of the memory: no tuple built per justification)
            offsets, flat = antecedents.offsets, antecedents.flat
            result = []
            for n in page:
                j = support[n]
                row = flat[offsets[j] : offsets[j + 1]]
                if gone and not gone.isdisjoint(row):
                    j = self._surviving(loaded, n, gone)
                    row = flat[offsets[j] : offsets[j + 1]]
                names = [ids[a] for a in row]
                if len(names) > 1:
                    names.sort()
                result.append((ids[n], tuple(names)))
            return len(claims), result

    def _surviving(self, loaded: _Loaded, claim: int, gone: set[int]) -> int:
        """The first justification of ``claim`` (by sorted antecedent ids) whose antecedents
        are all active now and none of them in ``gone``."""
        index, active = loaded.index, loaded.state.active
        ids, antecedents = index.ids, index.just_antecedents
        for j in sorted(
            index.justs_of[claim], key=lambda j: sorted(ids[a] for a in antecedents[j])
        ):
            if all(active[a] and a not in gone for a in antecedents[j]):
                return j
        raise InputError(
            f"{ids[claim]!r} is not retired but no justification of it survives: "
            "retired must be what an audit of these roots retires",
            source=self.path,
        )

    def reinstate(
        self, audit_id: int, reason: str | None = None, reviewer: str | None = None
    ) -> Change:
        """Undo an audit: its roots are unblocked and the fixpoint recomputed from them."""
        started = time.perf_counter()
        audit_id = check_int(audit_id, "audit_id")
        if not 0 < audit_id <= MAX_EVENT:  # SQL integers; others name no audit
            raise InputError(f"audit {show_int(audit_id)}: no such audit", source=self.path)
        reason = check_text(reason, "reason", MAX_REASON, optional=True)
        reviewer = check_text(reviewer, "reviewer", MAX_REVIEWER, optional=True)

        def work(loaded: _Loaded) -> WorkResult:
            if not isinstance(audit_id, int) or isinstance(audit_id, bool):
                raise InputError(f"audit id must be an integer, got {audit_id!r}", source=self.path)
            numbers = loaded.audits.get(audit_id)
            if numbers is None:
                in_range = 0 < audit_id < 1 << 63  # SQL integers; others name no audit
                row = self._store.event(audit_id) if in_range else None
                problem = (
                    "no such audit"
                    if row is None or row.kind != "audit"
                    else "this audit was already reinstated"
                )
                raise InputError(f"audit {audit_id}: {problem}", source=self.path)
            if audit_id in self._erased(loaded).values():
                raise InputError(
                    f"audit {audit_id} is a purge: erased content cannot be reinstated",
                    source=self.path,
                )
            event = self._event("reinstate", actor=reviewer, reason=reason, target=audit_id)
            plan = loaded.state.plan_extend(unblock=numbers)
            self._store.add_revisions(event, ACTIVE, plan.activated)
            del loaded.audits[audit_id]
            return event, plan, Change(event, loaded.index.names(plan.activated), 0.0)

        change = self._write(work)
        return replace(change, seconds=time.perf_counter() - started)

    # --- retrieval --------------------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        active_only: bool = True,
        limit: int | None = DEFAULT_SEARCH_LIMIT,
        cursor: str | None = None,
    ) -> SearchPage:
        """Nodes whose id or text holds every word of ``query`` (a word of the same stem, or
        one it begins: "vaccine" finds "vaccines"), ranked by the database's own full-text
        engine (:meth:`jtms.store.protocol.Store.search`), best first; with
        ``active_only`` (the default) the active ones only. Each hit has its status and, for
        an active claim, its current certificate. At most ``limit`` hits a page; the
        page's ``cursor`` (pass it back with the same query and ``active_only``) gives the
        next, read as of the first page's event.

        >>> [hit.id for hit in memory.search("malaria vaccine").hits]   # doctest: +SKIP
        ['c_malaria_vaccines', 'obs_trial_7']
        """
        words = query_words(query)
        active_only = check_flag(active_only, "active_only")
        if limit is not None:
            limit = check_int(limit, "limit", 1, MAX_SEARCH_LIMIT)
        call_digest = cursors.digest({"query": query, "active_only": active_only})
        if cursor is None:
            return self._search(query, words, active_only, limit, 0, call_digest)
        found = cursors.decode(cursor, "search", call_digest)
        if self._pinned is not None and found.event != self._pinned:
            raise InputError(cursors.NOT_A_CURSOR)
        view = self if self._pinned is not None else self.as_of(found.event)
        return view._search(query, words, active_only, limit, found.offset, call_digest)

    def _search(
        self,
        query: str,
        words: list[str],
        active_only: bool,
        limit: int | None,
        offset: int,
        call_digest: str,
    ) -> SearchPage:
        with self.snapshot():
            loaded = self._loaded_now()
            index, state = loaded.index, loaded.state
            size, active = index.size, state.active
            matches = [
                (num, score)
                for num, score in self._store.search(words)
                if num < size and (active[num] or not active_only)
            ]
            page = matches[offset:] if limit is None else matches[offset : offset + limit]
            texts = self._store.texts_of([num for num, _ in page]) if page else {}
            erased = self._erased(loaded) if page else {}
            ids = index.ids
            hits = []
            for num, score in page:
                certificate = None
                if active[num] and not index.is_evidence[num]:
                    certificate = tuple(
                        Step(ids[c], tuple(sorted(ids[a] for a in index.just_antecedents[j])))
                        for c, j in state.certificate(num)
                    )
                purge = erased.get(num)
                hits.append(
                    SearchHit(
                        ids[num],
                        Kind.EVIDENCE.value if index.is_evidence[num] else Kind.CLAIM.value,
                        bool(active[num]),
                        texts.get(num, ""),
                        float(f"{score:.6g}"),
                        certificate,
                        purge if purge is not None and self._until(purge) else None,
                    )
                )
            event = loaded.seen_event
            following = offset + len(page)
            cursor = (
                cursors.encode(cursors.Cursor("search", event, following, call_digest))
                if following < len(matches)
                else None
            )
            return SearchPage(query, active_only, tuple(hits), len(matches), event, cursor)

    def search_scores(self, query: str) -> dict[str, float]:
        """Every node (any status) the search for ``query`` finds, id -> its score (higher
        is better; :meth:`search` ranks by it): what ``context(query)`` ranks claims by. A
        query without words finds nothing."""
        query = check_text(query, "query", MAX_QUERY)
        try:
            words = query_words(query, cut=True)
        except InputError:  # no words
            return {}
        with self.snapshot():
            loaded = self._loaded_now()
            ids, size = loaded.index.ids, loaded.index.size
            return {ids[n]: score for n, score in self._store.search(words) if n < size}

    # --- forgetting -------------------------------------------------------------------------------
    def purge(self, node_id: str, reason: str, reviewer: str | None = None) -> PurgeResult:
        """Erase a node's content (text, source, expression, value) from the memory and its
        history, for an erasure request, and retire it as an audit does: one audit event
        (who, when, why: ``reviewer``, its time, ``reason``) whose plan withdraws exactly
        what loses all support, and the erasure record naming that audit, never the
        content. The audit cannot be reinstated. After the commit the database's files
        are scrubbed of old copies (:meth:`jtms.store.protocol.Store.scrub`; ``scrubbed``
        says whether that finished)."""
        started = time.perf_counter()
        node_id = check_id(node_id, "node_id")
        reason = check_text(reason, "reason", MAX_REASON)
        reviewer = check_text(reviewer, "reviewer", MAX_REVIEWER, optional=True)
        if not reason.strip():
            raise InputError("a purge needs a reason", source=self.path)

        def work(loaded: _Loaded) -> WorkResult:
            ids, numbers = self._roots(loaded, [node_id])
            earlier = self._erased(loaded).get(numbers[0])
            if earlier is not None:
                raise InputError(
                    f"already purged (by event {earlier})", source=self.path, node=node_id
                )
            event = self._event("audit", actor=reviewer, reason=reason, roots=list(ids))
            plan = loaded.state.plan_retract(numbers)
            self._store.add_revisions(event, INACTIVE, plan.deactivated)
            loaded.audits[event] = numbers
            self._store.purge(numbers[0], event)
            loaded.erased = None
            return event, plan, (event, ids, plan, loaded)

        def named(value: tuple[int, tuple[str, ...], Plan, _Loaded]) -> Any:
            event, ids, plan, loaded = value
            return event, ids, plan, loaded, loaded.index.names(plan.deactivated)

        event, ids, plan, loaded, retired = self._write(work, finish=named)
        audit = self._result(event, ids, plan, loaded, started, reason, reviewer, retired)
        scrubbed = self._store.scrub()
        return PurgeResult(node_id, audit, scrubbed)

    def erasures(self) -> dict[str, int]:
        """Purged node id -> the audit event that erased its content (in a view of the
        past: the purges made by then)."""
        with self.snapshot():
            ids = self._loaded_now().index.ids
            return {
                ids[num]: event
                for num, event in self._erased(self._loaded_now()).items()
                if self._until(event) and num < len(ids)
            }

    # --- history and explanations -------------------------------------------------------------
    def history(self, node_id: str) -> list[dict[str, Any]]:
        """Every status of a node, oldest first: its creation, then each revision. For a
        nogood: its creation, then each change of whether it is a contradiction."""
        node_id = check_id(node_id, "node_id")
        with self.snapshot():
            loaded = self._loaded_now()
            if node_id in loaded.nogoods:
                rows = self._store.nogood_history(node_id)
            else:
                rows = self._store.history(self._number(node_id, loaded))
            return [
                {
                    "seq": r.seq,
                    "status": r.status,
                    "event": r.event,
                    "kind": r.kind,
                    "time": r.time,
                    "actor": r.actor,
                    "reason": r.reason,
                }
                for r in rows
                if self._until(r.event)
            ]

    def justified_claim(self, event: int) -> str:
        """The claim whose justification the add-justification ``event`` added."""
        with self.snapshot():
            loaded = self._loaded_now()
            for row in self._store.justifications(0):
                if row.event == event:
                    if type(row.claim) is not int or not 0 <= row.claim < loaded.index.size:
                        raise corrupt_row(
                            self.path,
                            "justifications",
                            row.num,
                            f"claim {shown(row.claim)} is not a claim of this memory",
                        )
                    return loaded.index.ids[row.claim]
            raise InputError(f"event {event} added no justification", source=self.path)

    def audits_naming(self, node_id: str) -> list[int]:
        """Every audit (reinstated or not) whose roots include ``node_id`` (none for a nogood)."""
        node_id = check_id(node_id, "node_id")
        with self.snapshot():
            if node_id in self._loaded_now().nogoods:
                return []
            self._number(node_id, self._loaded_now())
            return [a for a in self._store.audits_naming(node_id) if self._until(a)]

    def explain(self, node_id: str, as_of: "int | str | None" = None) -> Explanation:
        """Why a node is active (a certificate down to evidence) or why it is not; with
        ``as_of`` (an event id or ISO time), as it was then (:meth:`as_of`)."""
        node_id = check_id(node_id, "node_id")
        if as_of is not None:
            return self.as_of(as_of).explain(node_id)
        with self.snapshot():
            loaded = self._loaded_now()
            if self._pinned is not None and node_id not in loaded.index.number:
                self._not_yet(node_id)
            num = self._number(node_id, loaded)
            index, state = loaded.index, loaded.state
            kind = Kind.EVIDENCE.value if index.is_evidence[num] else Kind.CLAIM.value
            record = self._store.node_record(node_id)
            text = record["text"] if record else ""
            erased_by = self._erased(loaded).get(num)
            if erased_by is not None and not self._until(erased_by):
                erased_by = None  # a view of the past before the purge (its text is gone)
            ids = index.ids
            blocked_by = tuple(sorted(a for a, roots in loaded.audits.items() if num in roots))
            if state.active[num]:
                steps = tuple(
                    Step(ids[c], tuple(sorted(ids[a] for a in index.just_antecedents[j])))
                    for c, j in state.certificate(num)
                )
                evidence = sorted(
                    {a for s in steps for a in s.antecedents if index.is_evidence[index.number[a]]}
                )
                if kind == Kind.EVIDENCE.value:
                    evidence = [node_id]
                return Explanation(
                    node_id,
                    kind,
                    True,
                    text,
                    steps,
                    tuple(evidence),
                    blocked_by,
                    erased_by=erased_by,
                )
            if self._pinned is None:
                withdrawn = self._store.last_deactivation(num)
            else:
                withdrawn = max(
                    (
                        r.event
                        for r in self._store.history(num)
                        if r.seq and r.status == INACTIVE and r.event <= self._pinned
                    ),
                    default=None,
                )
            broken = tuple(
                (
                    tuple(sorted(ids[a] for a in index.just_antecedents[j])),
                    tuple(sorted(ids[a] for a in index.just_antecedents[j] if not state.active[a])),
                )
                for j in index.justs_of[num]
            )
            return Explanation(
                node_id,
                kind,
                False,
                text,
                (),
                (),
                blocked_by,
                withdrawn,
                broken,
                self._kept_out_by(loaded, num),
                erased_by,
            )

    def _not_yet(self, node_id: str) -> None:
        """In a view of the past: refuse ``node_id`` saying it did not exist yet, when a
        later event created it (else it is unknown, said by the caller)."""
        created = self._store.node_creation(node_id)
        if created is None:
            return
        event, when = created
        raise InputError(
            f"did not exist yet as of event {self._pinned}: event {event} created it "
            f"later ({when})",
            source=self.path,
            node=node_id,
        )

    def _kept_out_by(self, loaded: _Loaded, num: int) -> tuple[int, ...]:
        """Open audits with a root among the blocked nodes that keep ``num`` out now."""
        roots = loaded.state.blocking_roots(num)
        return tuple(
            sorted(a for a, numbers in loaded.audits.items() if not roots.isdisjoint(numbers))
        )

    def _all_kept_out(self, loaded: _Loaded) -> dict[int, tuple[int, ...]]:
        """:meth:`_kept_out_by` of every inactive node at once (one pass over the inactive
        part: :meth:`jtms.engine.incremental.SupportState.blocking_labels`)."""
        by_root: dict[int, set[int]] = {}
        for audit, numbers in loaded.audits.items():
            for n in numbers:
                by_root.setdefault(n, set()).add(audit)
        labels = {n: frozenset(audits) for n, audits in by_root.items()}
        return {
            n: tuple(sorted(audits)) for n, audits in loaded.state.blocking_labels(labels).items()
        }

    def withdrawn(self, limit: int | None = None) -> list[dict[str, Any]]:
        """Inactive nodes that were once active, latest withdrawal first, with the audits that
        keep them out now (``audits``; ``audit``, ``reason`` and ``reviewer`` are the first of
        them) or, when no open audit does, the event that withdrew them. At most ``limit``."""
        if limit is not None:
            limit = check_int(limit, "limit", 0, sys.maxsize)
        with self.snapshot():
            loaded = self._loaded_now()
            active, number = loaded.state.active, loaded.index.number
            result: list[dict[str, Any]] = []
            reasons: dict[int, tuple[str | None, str | None, str]] = {}
            kept_out = self._all_kept_out(loaded)
            for r in self._withdrawals(loaded):
                if limit is not None and len(result) >= limit:
                    break
                num = number[r.node]
                if active[num]:
                    continue
                audits = kept_out.get(num, ())
                item = {
                    "id": r.node,
                    "audit": r.event,
                    "reason": r.reason,
                    "reviewer": r.actor,
                    "time": r.time,
                    "audits": list(audits),
                }
                if audits:
                    first = audits[0]
                    if first not in reasons:
                        row = self._store.event(first)
                        assert row is not None
                        reasons[first] = (row.reason, row.actor, row.time)
                    item["audit"] = first
                    item["reason"], item["reviewer"], item["time"] = reasons[first]
                result.append(item)
            return result

    def _withdrawals(self, loaded: _Loaded) -> list[WithdrawalRow]:
        if self._pinned is None:
            return self._store.withdrawals()
        latest: dict[int, RevisionRow] = {}
        for revision in self._store.revisions(0, self._pinned):
            latest[revision.node] = revision
        events = {e.id: e for e in self._store.events(0, self._pinned)}
        ids = loaded.index.ids
        return [
            WithdrawalRow(
                ids[r.node],
                r.event,
                events[r.event].kind,
                events[r.event].reason,
                events[r.event].actor,
                events[r.event].time,
            )
            for r in sorted(latest.values(), key=lambda r: -r.seq)
            if r.status == INACTIVE
        ]

    def context(self, budget: int, query: str | None = None) -> "Context":
        """The working context under ``budget`` tokens (:func:`jtms.memory.context.compile_context`)."""
        from jtms.memory.context import compile_context

        budget = check_int(budget, "budget", 0, MAX_BUDGET)
        query = check_text(query, "query", MAX_QUERY, optional=True)

        with self.snapshot():
            return compile_context(self, budget, query)

    # --- integrity ------------------------------------------------------------------------------
    def integrity_problems(self) -> list[str]:
        """Empty when the store is sound: the backend's checks, stored status = theory's
        fixpoint, stored support pointers sound, and this process's state = the store's."""
        with self.snapshot():
            problems = self._store.problems()
            warm = self._loaded_now()
            replayed = self._load(warm.seen_event, use_checkpoint=False)
            index, state = replayed.index, replayed.state
            expected = active_numbers(index, blocked=list(state.blocks))  # type: ignore[arg-type]
            stored = self._store.stored_status()
            for n in range(index.size):
                if (stored.get(n) == ACTIVE) != bool(expected[n]):
                    problems.append(
                        f"node {index.ids[n]!r}: stored status {stored.get(n)} differs "
                        f"from the least fixpoint"
                    )
            problems.extend(state.verify())
            for g, numbers in warm.nogood_nodes.items():
                stored_g = self._store.nogood_history(g)[-1].status == ACTIVE
                if stored_g != all(expected[n] for n in numbers):
                    problems.append(f"nogood {g!r}: stored status differs from its nodes' status")
            saved = self._store.checkpoint()
            if saved is not None and saved.event <= warm.seen_event:
                restored = self._load(warm.seen_event)
                if (
                    restored.state.active != state.active
                    or restored.state.support != state.support
                    or restored.audits != replayed.audits
                    or restored.index.ids != index.ids
                    or list(restored.index.just_antecedents) != list(index.just_antecedents)
                    or not restored.index.numbering_agrees()
                ):
                    problems.append(
                        f"the checkpoint at event {saved.event} plus the log differs "
                        f"from the log replayed"
                    )
            if (
                warm.state.active != state.active
                or warm.state.support != state.support
                or warm.audits != replayed.audits
            ):
                problems.append("this process's state differs from the stored one")
            return problems


def load_structure(db_path: str | Path) -> SupportStructure:
    """The stored memory as it stands now, for ``jtms check --db``.

    Audited (invalidated) nodes that are still blocked are removed, with every justification
    that uses them; claims they were the only support of stay, unjustified or with broken
    justifications, so they are inactive. The least fixpoint of the result is exactly the
    memory's current active state, and its claims are checked for influence safety.
    """
    with Memory.open(db_path) as memory, memory.snapshot():
        state = memory.state
        index, blocked = state.index, state.blocks
        texts = memory.texts()
    ids = index.ids
    evidence = [ids[n] for n in range(index.size) if index.is_evidence[n] and n not in blocked]
    claims = [ids[n] for n in range(index.size) if not index.is_evidence[n]]
    pairs = []
    for j, claim in enumerate(index.just_claim):
        ants = index.just_antecedents[j]
        if claim in blocked or any(a in blocked for a in ants):
            continue
        pairs.append((ids[claim], [ids[a] for a in ants]))
    return SupportStructure.build(evidence, claims, pairs, texts=texts)


def load_memory(db_path: str | Path) -> tuple[SupportStructure, frozenset[str]]:
    """The whole stored graph and the ids currently blocked by audits in force."""
    with Memory.open(db_path) as memory, memory.snapshot():
        return memory.structure(), memory.blocked_ids()


__all__ = ["Memory", "load_memory", "load_structure"]
