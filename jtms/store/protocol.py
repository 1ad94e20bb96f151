"""The storage protocol of a memory: what :class:`jtms.memory.memory.Memory` needs from a
database, and nothing more. One module per backend implements it (:mod:`jtms.store.sqlite`,
the embedded default; :mod:`jtms.store.postgres`, shared by many agents). All SQL lives in
those modules; ``Memory`` (and through it the CLI, the server, the reviewer, the context and
the studies) only calls the methods below.

The stored model (every backend keeps the same one):

- ``events``: one per write (``init``, ``import``, ``add-evidence``, ``add-claim``,
  ``add-justification``, ``audit``, ``reinstate``), with increasing integer ids. The event log
  is the source of truth; a process that has seen events up to ``k`` catches up by reading
  what events ``(k, last]`` wrote (:meth:`Store.events`, :meth:`Store.nodes`,
  :meth:`Store.justifications`, :meth:`Store.revisions`, :meth:`Store.supports`).
- ``nodes`` and ``justifications``: dense numbers ``0, 1, ...`` in creation order, each with
  the event that created it; a node carries its status at creation.
- ``revisions``: one row per change of a node's status (``active``/``inactive``), by event.
- ``supports``: one row per assignment of a support pointer (the justification an active
  claim rests on, and its derivation rank), by event: at creation, on (re)activation, and
  when an audit switches a claim to another justification. With the revisions they give the
  exact incremental state after every event, so no reader recomputes a fixpoint to open.
- ``nogoods``: sets of node ids that must not all be active together (docs/design.md section 2),
  each with its own id (distinct from every node id), the event that created it and whether
  it was a contradiction (all its nodes active) then; ``nogood_revisions``: one row per
  change of that, by event, like ``revisions`` for nodes. Nogoods change no node's status.
- ``checkpoints``: derived data, not history: an opaque blob (:class:`Checkpoint`) holding
  the whole incremental state at one event, written now and then by a writer so that opening
  reads one blob plus the log tail after it. A backend keeps at least the latest one.

Everything except checkpoints is append-only: a backend must refuse ``UPDATE`` and
``DELETE`` on it (triggers in SQLite and PostgreSQL).

Transactions are explicit and connection-agnostic (a backend owns its connection):

- :meth:`Store.read` is one read snapshot: every method called inside it sees the same
  committed state (SQLite: a deferred transaction in WAL mode; PostgreSQL: ``REPEATABLE READ
  READ ONLY``). Another process may commit meanwhile; the snapshot does not see it.
- :meth:`Store.write` takes the memory's write lock *first* (SQLite ``BEGIN IMMEDIATE``;
  PostgreSQL: a transaction-level advisory lock on the memory), so that everything read inside
  it is the latest committed state and nothing else can commit until it ends. Leaving it
  normally commits; an exception rolls back and propagates. Waiting for the lock longer than
  the busy timeout raises :class:`theory.model.errors.InputError` saying how long it waited.

Reads outside a transaction are not allowed (they could mix snapshots); backends may raise.
Every database fault (unreadable, corrupt, foreign, read-only, locked, wrong schema version)
surfaces as one :class:`theory.model.errors.InputError` with a one-line message; nothing is
changed by a failed call. A stored row that breaks the model above (a memory edited by hand
with its triggers dropped: an antecedent that is no node, roots that are not a JSON list of
known ids, an id stored as a blob, a gap in the event ids) is a :class:`CorruptMemory` naming
the table, the row and the problem: the readers check what they parse (types, JSON, numbers)
and ``Memory`` checks what needs the index (ranges, references, order) as it builds its state.

Example (any backend; ``Memory`` does this for you)::

    >>> from jtms.store import open_store                    # doctest: +SKIP
    >>> store = open_store("jtms.db")                        # doctest: +SKIP
    >>> with store.read():                                   # doctest: +SKIP
    ...     last = store.last_event()
    ...     new = store.events(after=0, upto=last)
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, runtime_checkable

from theory.model.errors import InputError, shorten

ACTIVE, INACTIVE = "active", "inactive"
STATUSES = frozenset((ACTIVE, INACTIVE))
EVENT_KINDS = (
    "init",
    "import",
    "add-evidence",
    "add-claim",
    "add-justification",
    "audit",
    "reinstate",
    "add-nogood",
)
TABLES = (
    "events",
    "nodes",
    "justifications",
    "revisions",
    "supports",
    "nogoods",
    "nogood_revisions",
    "expiries",
    "erasures",
)


class CorruptMemory(InputError):
    """A stored row that breaks the schema's invariants (see the module docstring). It is an
    :class:`InputError`, so the CLI says it in one line and exits 2; raised where the row is
    parsed, before a bad value can make Python fail somewhere later with a traceback."""


def shown(value: Any) -> str:
    """A stored value as a message shows it: its repr, cut (a row may hold megabytes)."""
    return shorten(repr(value))


def corrupt_row(location: str, table: str, row: Any, problem: str) -> CorruptMemory:
    """The error for row ``row`` (its key) of ``table`` in the memory at ``location``: one
    line in the style of the other faults of a database (``corrupt memory (...); nothing
    written``)."""
    return CorruptMemory(
        f"corrupt memory ({table} row {shown(row)}: {problem}); nothing written", source=location
    )


def shown_version(version: Any) -> str:
    """A stored schema version as a message shows it: the text itself when printable (at
    most 20 characters), else its repr (a line break in it must not break the message)."""
    if not version:
        return "missing"
    if isinstance(version, str) and version[:20].isprintable():
        return version[:20]
    return shorten(repr(version), 20)


def newer_version(version: Any, current: int) -> bool:
    """Whether a stored schema version is a number above ``current`` (a newer jtms wrote it)."""
    return (
        isinstance(version, str)
        and version.isascii()
        and version.isdigit()
        and len(version) < 20
        and int(version) > current
    )


@dataclass(frozen=True)
class EventRow:
    """One event of the log. ``roots``: the audited ids (audits only); ``target``: the audit a
    reinstatement undoes (reinstatements only); ``source``: the imported file (imports)."""

    id: int
    kind: str
    time: str
    actor: str | None = None
    reason: str | None = None
    roots: tuple[str, ...] | None = None
    target: int | None = None
    source: str | None = None


@dataclass(frozen=True)
class NodeRow:
    """A node as the incremental state needs it (number, id, kind, creating event, status then)."""

    num: int
    id: str
    evidence: bool
    event: int
    status: str


class NewNode(NamedTuple):
    """A node to insert (the writer chooses ``num``: the next dense number). A named tuple
    in the column order of ``nodes``, so a backend binds it as it is (bulk imports insert
    hundreds of thousands)."""

    num: int
    id: str
    kind: str  # "evidence" or "claim"
    text: str
    author: str | None
    expression: str | None
    value: str | None
    event: int
    status: str


@dataclass(frozen=True)
class JustificationRow:
    num: int
    claim: int
    antecedents: tuple[int, ...]  # sorted node numbers, no repeats
    event: int


@dataclass(frozen=True)
class RevisionRow:
    seq: int  # increasing: the order the changes were written in
    node: int
    status: str
    event: int


@dataclass(frozen=True)
class SupportRow:
    seq: int  # increasing: the order the pointers were written in
    node: int
    justification: int
    rank: int
    event: int


@dataclass(frozen=True)
class NogoodRow:
    """A nogood: ``nodes`` (sorted ids) must not all be active; ``status`` at creation is
    ``active`` when they all were (a contradiction)."""

    id: str
    nodes: tuple[str, ...]
    text: str
    author: str | None
    event: int
    status: str


@dataclass(frozen=True)
class HistoryRow:
    """A node's creation (``seq`` 0) or one revision of its status, with its event."""

    seq: int
    status: str
    event: int
    kind: str
    time: str
    actor: str | None
    reason: str | None


@dataclass(frozen=True)
class WithdrawalRow:
    """A node whose latest revision made it inactive, with that event."""

    node: str
    event: int
    kind: str
    reason: str | None
    actor: str | None
    time: str


@dataclass(frozen=True)
class Checkpoint:
    """The incremental state at ``event``, serialised by the caller (the backend stores bytes)."""

    event: int
    data: bytes


@runtime_checkable
class Store(Protocol):
    """A memory's database. See the module docstring for the model and the transactions."""

    location: str

    def close(self) -> None: ...

    def read(self) -> AbstractContextManager[None]:
        """One read snapshot for everything called inside."""
        ...

    def write(self) -> AbstractContextManager[None]:
        """One write transaction holding the write lock from its start (commit on success)."""
        ...

    def set_durability(self, durability: str) -> None:
        """``full`` (sync every commit), ``normal`` (survive a process crash) or ``off``."""
        ...

    # --- the event log (inside read() or write()) ----------------------------------------------
    def last_event(self) -> int:
        """The id of the latest committed event (the init event of a new memory: 1)."""
        ...

    def events(self, after: int, upto: int) -> list[EventRow]:
        """Events with ``after < id <= upto``, by id."""
        ...

    def event(self, event_id: int) -> EventRow | None: ...

    def open_audits(self) -> list[EventRow]:
        """Audit events that have not been reinstated, by id."""
        ...

    def nodes(self, first: int = 0) -> list[NodeRow]:
        """Nodes numbered ``first`` or higher, by number."""
        ...

    def justifications(self, first: int = 0) -> list[JustificationRow]:
        """Justifications numbered ``first`` or higher, by number."""
        ...

    def revisions(self, after: int, upto: int) -> list[RevisionRow]:
        """Revisions written by events ``after < event <= upto``, by seq."""
        ...

    def supports(self, after: int, upto: int) -> list[SupportRow]:
        """Support pointers written by events ``after < event <= upto``, by seq."""
        ...

    def revision_columns(self, after: int, upto: int) -> tuple[array[int], bytes]:
        """:meth:`revisions` as two columns, by seq: the revised nodes and, for each, 1 when
        it became active (0: inactive). Opening and catching up read these (no row object
        per revision); a row that is not a revision is refused as :meth:`revisions`
        refuses it."""
        ...

    def support_columns(self, after: int, upto: int) -> tuple[array[int], array[int], array[int]]:
        """:meth:`supports` as three columns, by seq: the nodes, their justifications and
        their ranks (a memory that is not hand-edited holds no other values)."""
        ...

    def checkpoint(self, event: int | None = None) -> Checkpoint | None:
        """The latest checkpoint (or the one of ``event``), or None."""
        ...

    def nogoods(self, after: int = 0) -> list[NogoodRow]:
        """Nogoods created by events after ``after``, in creation order."""
        ...

    # --- reads for people ----------------------------------------------------------------------
    def texts(self) -> dict[str, str]:
        """Node id -> its text."""
        ...

    def creation_events(self) -> dict[str, int]:
        """Node id -> the event that created it."""
        ...

    def node_creation(self, node_id: str) -> tuple[int, str] | None:
        """The event that created node ``node_id`` and that event's time; None when no
        node has that id (one row read, not :meth:`creation_events` of every node)."""
        ...

    def node_record(self, node_id: str) -> dict[str, Any] | None:
        """``id``, ``kind``, ``text``, ``author``, ``expression``, ``value``, ``created`` (time)."""
        ...

    def calculations(self) -> list[tuple[str, str, str]]:
        """(id, expression, recorded value) of every evidence with a calculation, by number."""
        ...

    def history(self, num: int) -> list[HistoryRow]:
        """The creation of node ``num``, then each revision, oldest first."""
        ...

    def nogood_history(self, nogood_id: str) -> list[HistoryRow]:
        """The creation of a nogood, then each change of whether it is a contradiction."""
        ...

    def audits_naming(self, node_id: str) -> list[int]:
        """Ids of the audit events whose roots include ``node_id``."""
        ...

    def last_deactivation(self, num: int) -> int | None:
        """The event of the latest revision that made node ``num`` inactive."""
        ...

    def withdrawals(self) -> list[WithdrawalRow]:
        """Nodes whose latest revision is ``inactive``, latest first."""
        ...

    def stored_status(self) -> dict[int, str]:
        """Node number -> its current status (latest revision, else status at creation)."""
        ...

    def rows(self, table: str) -> list[dict[str, Any]]:
        """Every stored row of one of :data:`TABLES`, in primary-key order (export, studies)."""
        ...

    def problems(self) -> list[str]:
        """The backend's own integrity checks (empty when sound)."""
        ...

    # --- search and erasures --------------------------------------------------------------------
    def search(self, words: Sequence[str]) -> list[tuple[int, float]]:
        """(node number, score) of every node whose id or text holds each of ``words`` (as a
        word, a word of the same stem, or the start of a word), best first by the database's
        own ranking, ties by number. The index is kept in the transaction of every insert."""
        ...

    def texts_of(self, nums: Sequence[int]) -> dict[int, str]:
        """Node number -> its text, for the nodes ``nums``."""
        ...

    def erasures(self) -> dict[int, int]:
        """Node number -> the event (an audit) whose purge erased its content."""
        ...

    def add_erasure(self, num: int, event: int) -> None:
        """Inside :meth:`write`: the erasure record alone (a memory imported from an export,
        whose node rows come with their content already erased)."""
        ...

    def add_expiry(self, num: int, until: str, event: int) -> None:
        """Inside :meth:`write`: evidence ``num`` (added by ``event``) counts as audited
        from ``until`` (ISO 8601 in UTC, to the millisecond) on."""
        ...

    def add_expiries(self, rows: Iterable[tuple[int, str]], event: int) -> None:
        """Inside :meth:`write`: :meth:`add_expiry` of every (evidence number, until) of
        ``rows``, all added by ``event``, in one statement (an import brings thousands)."""
        ...

    def expiries(self) -> dict[int, str]:
        """Evidence number -> its ``valid_until``."""
        ...

    def next_expiry(self, upto: int) -> str | None:
        """The earliest ``valid_until`` of evidence (existing at event ``upto``) that no
        audit with reason "expired" up to ``upto`` names yet; None when there is none."""
        ...

    def due_expiries(self, now: str, upto: int) -> list[int]:
        """Evidence (existing at event ``upto``) whose ``valid_until`` is at or before
        ``now`` and that no audit with reason "expired" up to ``upto`` names yet."""
        ...

    def purge(self, num: int, event: int) -> None:
        """Inside :meth:`write`: the erasure record of node ``num`` by the audit ``event``,
        then its text, author, expression and value emptied everywhere the memory keeps
        them (the node row, its creating event's actor, the search index): the one update
        the append-only triggers allow."""
        ...

    def scrub(self) -> bool:
        """After a purge's commit: remove the old copies of what it erased from the
        database's files (SQLite: VACUUM and a WAL checkpoint that truncates; PostgreSQL:
        VACUUM). False when another reader kept the WAL from being emptied."""
        ...

    # --- writes (inside write()) ----------------------------------------------------------------
    def append_event(
        self,
        kind: str,
        time: str,
        *,
        actor: str | None = None,
        reason: str | None = None,
        roots: Sequence[str] | None = None,
        target: int | None = None,
        source: str | None = None,
    ) -> int:
        """Append one event; returns its id (larger than every earlier one)."""
        ...

    def add_nodes(self, nodes: Iterable[NewNode]) -> None: ...

    def add_node_rows(
        self, first: int, ids: Sequence[str], evidence: int, statuses: Sequence[str], event: int
    ) -> None:
        """Nodes ``first``, ``first + 1``, ...: ids ``ids``, the first ``evidence`` of them
        evidence and the rest claims, with ``statuses``, no text, author or calculation (a
        bulk import of a plain document, no row objects)."""
        ...

    def add_justifications(self, justifications: Iterable[JustificationRow]) -> None: ...

    def add_justification_rows(
        self,
        first: int,
        claims: Sequence[int],
        offsets: Sequence[int],
        flat: Sequence[int],
        event: int,
    ) -> None:
        """Justifications ``first``, ``first + 1``, ...: claim ``claims[k]``, antecedents
        ``flat[offsets[k]:offsets[k + 1]]`` (compressed rows: a bulk import, no row objects)."""
        ...

    def add_revisions(self, event: int, status: str, nodes: Iterable[int]) -> None: ...

    def add_supports(self, event: int, pointers: Iterable[tuple[int, int, int]]) -> None:
        """(node, justification, rank) triples, in the order given."""
        ...

    def add_nogoods(self, nogoods: Iterable[NogoodRow]) -> None: ...

    def add_nogood_revisions(self, event: int, status: str, nogoods: Iterable[str]) -> None: ...

    def put_checkpoint(self, checkpoint: Checkpoint, keep: int | None = None) -> bool:
        """Store ``checkpoint`` and drop every other one but that of event ``keep`` (the full
        checkpoint a state-only one builds on). With ``keep`` given but not stored, store
        nothing and return False."""
        ...

    def idempotency_key(self, key: str) -> tuple[int, str] | None:
        """The event a write keyed ``key`` made and the digest of its request, if any."""
        ...

    def add_idempotency_key(self, key: str, request: str, event: int) -> None:
        """Inside :meth:`write`: ``key`` belongs to the write of ``event`` (a new key only)."""
        ...

    def secret(self) -> str | None:
        """The memory's random secret (meta ``secret``, written at creation), or None in a
        memory created before memories had one."""
        ...

    def add_secret(self) -> None:
        """Inside :meth:`write`: a new random secret for a memory that has none."""
        ...


class StoreBackend(Protocol):
    """A backend module's store class: how a memory is created and opened at a location."""

    def create(
        self,
        location: str,
        durability: str = "full",
        busy_timeout: float | None = None,
        init_time: str | None = None,
    ) -> Store:
        """A new, empty memory (InputError "already exists" if there is one)."""
        ...

    def open(
        self, location: str, durability: str = "full", busy_timeout: float | None = None
    ) -> Store:
        """An existing memory (InputError for anything else, before writing anything)."""
        ...


__all__ = [
    "ACTIVE",
    "StoreBackend",
    "Checkpoint",
    "CorruptMemory",
    "EVENT_KINDS",
    "EventRow",
    "HistoryRow",
    "INACTIVE",
    "JustificationRow",
    "NewNode",
    "NodeRow",
    "NogoodRow",
    "RevisionRow",
    "STATUSES",
    "Store",
    "SupportRow",
    "TABLES",
    "WithdrawalRow",
    "corrupt_row",
    "newer_version",
    "shown",
    "shown_version",
]
