"""The SQLite backend of :class:`jtms.store.protocol.Store` (the embedded default).

Everything that is history is append-only and the database enforces it (triggers): events,
nodes, justifications, revisions and supports are never updated or deleted. Only the
``checkpoints`` table (derived data: a cache of the incremental state) is replaced.

Transactions: the database runs in WAL mode, so a reader's snapshot (``BEGIN`` ... first
``SELECT``) never blocks a writer and never sees a later commit; a writer takes the write lock
with ``BEGIN IMMEDIATE`` before it reads anything, so writers are serialised and each reads
the latest state. ``durability="full"`` (default) syncs every commit, ``"normal"`` survives a
crash of the process but not of the machine.

Faults are refused before anything is written, each as one :class:`InputError` line: a
missing folder or file, a folder, an empty file, a file that is not SQLite, an SQLite file
that is not a jtms memory (checked by reading only: the journal mode of a foreign file is
never switched), another schema version (which one, and what to do), a corrupt file, a
read-only file or folder (reads still work; a write is refused before it starts), the write
lock held by another process past the busy timeout (how long it waited), and two ``init`` of
one path at once (one wins; the others say "already exists").
"""

from __future__ import annotations

import errno
import json
import os
import re
import sqlite3
import sys
import time
from array import array
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from itertools import repeat, starmap
from operator import itemgetter
from pathlib import Path
from typing import Any

from jtms.store.protocol import (
    EVENT_KINDS,
    STATUSES,
    TABLES,
    Checkpoint,
    CorruptMemory,
    EventRow,
    HistoryRow,
    JustificationRow,
    NewNode,
    NodeRow,
    NogoodRow,
    RevisionRow,
    SupportRow,
    WithdrawalRow,
    corrupt_row,
    newer_version,
    shown,
    shown_version,
)
from jtms.store.settings import BUSY_TIMEOUT_S
from jtms.store.settings import busy_timeout as busy_timeout_setting
from jtms.store.settings import durability as durability_setting
from theory.model.errors import InputError

SCHEMA_VERSION = 4
UPGRADABLE = ("1", "2", "3")  # versions `jtms upgrade` brings to SCHEMA_VERSION
# indexes earlier releases created that no statement reads: every row written kept them up to
# date, at a page per row for rows of scattered nodes (a commit wrote its pages to the WAL).
# New memories lack them; `jtms upgrade` drops them from an older file.
RETIRED_INDEXES = ("supports_by_node", "revisions_by_node")
# revisions written since the last bulk write of node_revisions, at most (see add_revisions)
NODE_REVISIONS_PENDING = 32_768
_INDEXED = "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'revisions_indexed'"
# the seqs of node ? (bound twice): bulk-written ones, then those written since, by seq
_SEQS_OF_NODE = (
    "SELECT seq FROM node_revisions WHERE node = ? UNION ALL "
    f"SELECT seq FROM revisions WHERE seq > ({_INDEXED}) AND node = ?"
)
# the last revision of each node that has one
_LATEST_SEQS = (
    "SELECT max(seq) FROM (SELECT node, seq FROM node_revisions UNION ALL "
    f"SELECT node, seq FROM revisions WHERE seq > ({_INDEXED})) GROUP BY node"
)
APPLICATION = "jtms-memory"


def new_secret() -> str:
    """A memory's random secret (meta ``secret``): 32 bytes from the system's CSPRNG, as hex.
    The MCP server signs its cursors with it (:mod:`jtms.views.pages`), so no client can
    forge one and no other memory accepts one."""
    import secrets

    return secrets.token_hex(32)


# pages in the WAL before a commit copies them into the file (SQLite's default is 1,000). An
# audit rewrites the same index pages as the audits before it (the revisions by node), and
# one copy writes each page once however many commits changed it: at 10,000 (a WAL of up to
# 40 MB) the copies cost an audit of 200 evidence on 100k claims about 4 ms less a commit.
WAL_AUTOCHECKPOINT = 10_000

SCHEMA = """
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- Every write is one event: an import, an addition, an audit or a reinstatement.
CREATE TABLE events (
    id     INTEGER PRIMARY KEY,
    kind   TEXT NOT NULL CHECK (kind IN ('init', 'import', 'add-evidence', 'add-claim',
                                         'add-justification', 'audit', 'reinstate',
                                         'add-nogood')),
    time   TEXT NOT NULL,
    actor  TEXT,                 -- reviewer of an audit, author of an addition
    reason TEXT,
    roots  TEXT,                 -- audit: JSON list of the audited node ids
    target INTEGER REFERENCES events (id),   -- reinstate: the audit it undoes
    source TEXT,                 -- import: the file
    CHECK ((kind = 'audit') = (roots IS NOT NULL)),
    CHECK ((kind = 'reinstate') = (target IS NOT NULL))
);
CREATE UNIQUE INDEX events_one_reinstatement ON events (target) WHERE kind = 'reinstate';

CREATE TABLE nodes (
    num        INTEGER PRIMARY KEY,           -- dense node number (0, 1, ...)
    id         TEXT NOT NULL UNIQUE,
    kind       TEXT NOT NULL CHECK (kind IN ('evidence', 'claim')),
    text       TEXT NOT NULL DEFAULT '',
    author     TEXT,
    expression TEXT,                          -- evidence: an executed calculation ...
    value      TEXT,                          -- ... and the value it gave
    event      INTEGER NOT NULL REFERENCES events (id),
    status     TEXT NOT NULL CHECK (status IN ('active', 'inactive'))   -- at creation
);

CREATE TABLE justifications (
    num         INTEGER PRIMARY KEY,
    claim       INTEGER NOT NULL REFERENCES nodes (num),
    antecedents TEXT NOT NULL,                -- space-separated node numbers, sorted
    event       INTEGER NOT NULL REFERENCES events (id)
);

-- One row per change of a node's status, written by the event that caused it.
CREATE TABLE revisions (
    seq    INTEGER PRIMARY KEY,
    node   INTEGER NOT NULL REFERENCES nodes (num),
    status TEXT NOT NULL CHECK (status IN ('active', 'inactive')),
    event  INTEGER NOT NULL REFERENCES events (id)
);
CREATE INDEX revisions_by_event ON revisions (event);

-- The revisions of each node (history): derived from revisions, written in bulk. An audit
-- changes the status of nodes scattered over the memory: indexed row by row, each of its
-- rows dirtied a page of its own. Rows up to meta's 'revisions_indexed' (a seq) are here;
-- later ones are read from revisions by their seq (at most NODE_REVISIONS_PENDING).
CREATE TABLE node_revisions (
    node INTEGER NOT NULL,
    seq  INTEGER NOT NULL,
    PRIMARY KEY (node, seq)
) WITHOUT ROWID;

-- The support pointers one write assigned (creation, reactivation, a switch to another
-- justification) as one row: pointer k (sequence number first_seq + k) is node k of nodes,
-- justification k and rank k, each array little-endian 64-bit integers. They are read by
-- event (catch-up, opening), never by node; the rows of `supports` come from them.
CREATE TABLE support_batches (
    first_seq      INTEGER PRIMARY KEY,
    event          INTEGER NOT NULL REFERENCES events (id),
    count          INTEGER NOT NULL CHECK (count > 0),
    nodes          BLOB NOT NULL CHECK (length(nodes) = 8 * count),
    justifications BLOB NOT NULL CHECK (length(justifications) = 8 * count),
    ranks          BLOB NOT NULL CHECK (length(ranks) = 8 * count)
);
CREATE INDEX support_batches_by_event ON support_batches (event);
CREATE INDEX nodes_by_event ON nodes (event);

-- Nodes that must not all be active together; they change no status by themselves.
CREATE TABLE nogoods (
    id     TEXT PRIMARY KEY,                  -- distinct from every node id
    nodes  TEXT NOT NULL,                     -- JSON list of the node ids, sorted
    text   TEXT NOT NULL DEFAULT '',
    author TEXT,
    event  INTEGER NOT NULL REFERENCES events (id),
    status TEXT NOT NULL CHECK (status IN ('active', 'inactive'))   -- a contradiction then?
);

-- One row per change of whether a nogood is a contradiction, written by the event causing it.
CREATE TABLE nogood_revisions (
    seq    INTEGER PRIMARY KEY,
    nogood TEXT NOT NULL REFERENCES nogoods (id),
    status TEXT NOT NULL CHECK (status IN ('active', 'inactive')),
    event  INTEGER NOT NULL REFERENCES events (id)
);
CREATE INDEX nogood_revisions_by_nogood ON nogood_revisions (nogood, seq);

-- Derived data (a cache of the incremental state at one event), replaced now and then.
CREATE TABLE checkpoints (
    event INTEGER PRIMARY KEY REFERENCES events (id),
    data  BLOB NOT NULL
);

-- The idempotency key of a write (written in the event's transaction): a repeat of the
-- same call with the same key returns the first one's result and writes nothing.
CREATE TABLE idempotency_keys (
    key     TEXT PRIMARY KEY,
    request TEXT NOT NULL,                    -- a digest of the call (tool and arguments)
    event   INTEGER NOT NULL REFERENCES events (id)
) WITHOUT ROWID;
"""

# Rows of one insert of nodes from which the index is written by one statement after it (a
# row trigger cost an import of 100k nodes with texts about 7 s, one statement about 1 s)
BULK_INDEX_ROWS = 1_000

# What later versions added without a new schema version: each memory gets it when it is
# created, and an older memory when it is first opened writable (SqliteStore._add_features).
# The search index (FTS5 over the nodes' ids and texts, porter stemming, kept by a trigger in
# the transaction of every insert) and the erasure records of purges (docs/design.md section 2).
FEATURES = """
CREATE TABLE IF NOT EXISTS expiries (
    node  INTEGER PRIMARY KEY REFERENCES nodes (num),   -- evidence with a valid_until
    until TEXT NOT NULL,                                -- that time, ISO 8601 in UTC
    event INTEGER NOT NULL REFERENCES events (id)       -- the event that added it
);
CREATE TABLE IF NOT EXISTS erasures (
    node  INTEGER PRIMARY KEY REFERENCES nodes (num),   -- the erased node
    event INTEGER NOT NULL REFERENCES events (id)       -- its purge: an audit (who, when, why)
);
CREATE VIRTUAL TABLE IF NOT EXISTS node_search USING fts5(
    id, text, content = 'nodes', content_rowid = 'num', tokenize = 'porter unicode61'
);
CREATE TRIGGER IF NOT EXISTS node_search_insert AFTER INSERT ON nodes
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'indexing_in_bulk') BEGIN
    INSERT INTO node_search (rowid, id, text) VALUES (new.num, new.id, new.text);
END;
"""

# the columns of a node (and of its creating event) a purge may rewrite: to '' or NULL, only
# for a node with an erasure record (the one sanctioned path that rewrites history)
_PURGED_NODE = (
    "NEW.num = OLD.num AND NEW.id = OLD.id AND NEW.kind = OLD.kind AND NEW.event = OLD.event "
    "AND NEW.status = OLD.status AND NEW.text = '' AND NEW.author IS NULL "
    "AND NEW.expression IS NULL AND NEW.value IS NULL "
    "AND EXISTS (SELECT 1 FROM erasures WHERE node = OLD.num)"
)
_PURGED_EVENT = (
    "NEW.id = OLD.id AND NEW.kind = OLD.kind AND NEW.time = OLD.time "
    "AND NEW.reason IS OLD.reason AND NEW.roots IS OLD.roots AND NEW.target IS OLD.target "
    "AND NEW.source IS OLD.source AND NEW.actor IS NULL AND OLD.kind IN "
    "('add-evidence', 'add-claim') AND EXISTS (SELECT 1 FROM erasures r JOIN nodes n "
    "ON n.num = r.node WHERE n.event = OLD.id)"
)
_SANCTIONED = {("nodes", "UPDATE"): _PURGED_NODE, ("events", "UPDATE"): _PURGED_EVENT}

IMMUTABLE_TABLES = (
    "expiries",
    "erasures",
    "events",
    "nodes",
    "justifications",
    "revisions",
    "support_batches",
    "nogoods",
    "nogood_revisions",
    "idempotency_keys",
)


def _triggers(tables: Sequence[str] = IMMUTABLE_TABLES) -> str:
    """The triggers refusing UPDATE and DELETE on ``tables``; an UPDATE of a node's content
    (and of its creating event's actor) passes only as a purge does it (:data:`_SANCTIONED`)."""
    statements = []
    for table in tables:
        for action in ("UPDATE", "DELETE"):
            allowed = _SANCTIONED.get((table, action))
            when = f"WHEN NOT ({allowed}) " if allowed else ""
            statements.append(
                f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} {when}"
                f"BEGIN SELECT RAISE(ABORT, '{table} are immutable (append-only memory)'); END;"
            )
    return "\n".join(statements)


def _split(script: str) -> list[str]:
    """Statements of a script (triggers contain ';' inside BEGIN ... END)."""
    statements, current = [], ""
    for line in script.splitlines():
        stripped = line.split("--", 1)[0].rstrip()
        if not stripped:
            continue
        current += stripped + "\n"
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    if current.strip():
        statements.append(current.strip())
    return statements


def _int64_bytes(values: Sequence[int]) -> bytes:
    """The values as little-endian 64-bit integers (a column of support_batches)."""
    packed = array("q", values)
    if sys.byteorder != "little":
        packed.byteswap()
    return packed.tobytes()


def _int64s(data: bytes) -> "array[int]":
    """A column of support_batches read back."""
    values = array("q")
    values.frombytes(data)
    if sys.byteorder != "little":
        values.byteswap()
    return values


# What a reader accepts in a column: SQLite stores any value in any column (a text that looks
# like no number stays text in an INTEGER column, a blob stays a blob in a TEXT one), and the
# triggers that keep rows append-only can be dropped. Each reader checks the columns it returns
# in one pass in C (the set of the types, or of the values, of a column) and names the first
# bad row only when there is one.
_INT: frozenset[type] = frozenset((int,))
_TEXT: frozenset[type] = frozenset((str,))
_OPTIONAL_TEXT: frozenset[type] = frozenset((str, type(None)))
_KINDS = ("evidence", "claim")
_WHAT = {_INT: "an integer", _TEXT: "text", _OPTIONAL_TEXT: "text"}


def _check_types(
    location: str,
    table: str,
    rows: Sequence[Sequence[Any]],
    column: int,
    name: str,
    kinds: frozenset[type],
) -> None:
    """Refuse ``rows`` (of ``table``, keyed by their first item) whose ``column`` holds a value
    whose type is not among ``kinds`` (:class:`CorruptMemory` naming the first such row)."""
    if set(map(type, map(itemgetter(column), rows))) <= kinds:
        return
    row = next(r for r in rows if type(r[column]) not in kinds)
    raise corrupt_row(location, table, row[0], f"{name} {shown(row[column])} is not {_WHAT[kinds]}")


def _check_values(
    location: str,
    table: str,
    rows: Sequence[Sequence[Any]],
    column: int,
    name: str,
    allowed: Iterable[Any],
) -> None:
    """Refuse ``rows`` whose ``column`` holds a value outside ``allowed`` (a status, a kind)."""
    allowed = set(allowed)
    if set(map(itemgetter(column), rows)) <= allowed:
        return
    row = next(r for r in rows if r[column] not in allowed)
    raise corrupt_row(
        location,
        table,
        row[0],
        f"{name} {shown(row[column])} is not one of {', '.join(sorted(allowed))}",
    )


def _antecedent_numbers(location: str, rows: Sequence[Sequence[Any]]) -> list[JustificationRow]:
    """The (num, claim, antecedents, event) rows of justifications with their antecedents
    parsed (space-separated node numbers), or :class:`CorruptMemory` naming the first row that
    holds something else; the ranges are checked by ``Memory``, which knows the nodes."""
    try:
        return [
            JustificationRow(num, claim, tuple(map(int, antecedents.split())), event)
            for num, claim, antecedents, event in rows
        ]
    except ValueError:
        num, _, antecedents, _ = next(row for row in rows if not _numbers(row[2]))
        raise corrupt_row(
            location,
            "justifications",
            num,
            f"antecedents {shown(antecedents)} are not space-separated node numbers",
        ) from None


def _numbers(text: str) -> bool:
    """Whether ``text`` reads as space-separated integers."""
    try:
        tuple(map(int, text.split()))
    except ValueError:
        return False
    return True


def _fault(
    error: sqlite3.Error, location: str, waited: float | None = None, timeout: float | None = None
) -> InputError:
    """One line for a database error (the CLI turns it into exit 2)."""
    text = str(error)
    if "locked" in text or "busy" in text:
        return InputError(
            f"the memory is locked by another writer: waited {waited or 0:.1f} s "
            f"(busy timeout {timeout or 0:g} s; set JTMS_BUSY_TIMEOUT to wait "
            f"longer); nothing written",
            source=location,
        )
    if "readonly" in text or "read-only" in text:
        return InputError(
            "read-only memory (the file or its folder is not writable); nothing written",
            source=location,
        )
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return CorruptMemory(f"corrupt memory ({text}); nothing written", source=location)
    name = getattr(error, "sqlite_errorname", "")
    return InputError(
        f"database error ({text}{', ' + name if name else ''}); nothing written", source=location
    )


def _check_folder(path: Path) -> None:
    folder = path.parent
    if not folder.exists():
        raise InputError(f"folder {str(folder)!r} does not exist", source=str(path))
    if not folder.is_dir():
        raise InputError(f"{str(folder)!r} is not a folder", source=str(path))


def _check_links(location: str) -> None:
    """Refuse a path that cannot be followed (a symbolic-link loop, a name too long) with
    what is wrong, rather than "no memory here"."""
    try:
        os.stat(location)
    except FileNotFoundError:
        return
    except OSError as error:
        problem = (
            "a symbolic link loop"
            if error.errno == errno.ELOOP
            else error.strerror or type(error).__name__
        )
        raise InputError(f"cannot open the memory: {problem}", source=location) from None


class _Installed(InputError):
    """``init`` found the schema written by another ``init`` of the same path that got the
    write lock first (even into the empty file this one created: it must not be removed)."""


class SqliteStore:
    """A memory in one SQLite file (or ``:memory:``). See :mod:`jtms.store.protocol`."""

    def __init__(
        self, connection: sqlite3.Connection, location: str, writable: bool, busy_timeout: float
    ):
        self._db = connection
        self.location = location
        self.writable = writable
        self.busy_timeout = busy_timeout
        self.schema_version = SCHEMA_VERSION
        self._retired: list[str] = []  # retired indexes present (read when upgrading)

    # --- opening ------------------------------------------------------------------------------
    @classmethod
    def _connect(
        cls, path: str, durability: str, busy_timeout: float, read_only: bool = False
    ) -> sqlite3.Connection:
        durability_setting(durability)
        if read_only:
            # without a WAL file every committed page is in the main file, and nobody can
            # start one (the file or its folder is read-only): read it as immutable, which
            # needs no -shm file either
            wal = Path(path + "-wal").exists()
            target, uri = (
                Path(path).resolve().as_uri() + ("?mode=ro" if wal else "?mode=ro&immutable=1"),
                True,
            )
        else:
            target, uri = path, False
        connection = sqlite3.connect(
            target, isolation_level=None, timeout=busy_timeout, check_same_thread=False, uri=uri
        )
        connection.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")  # per connection
        connection.execute(f"PRAGMA synchronous = {durability.upper()}")  # per connection
        connection.execute(f"PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT}")  # per connection
        return connection

    @classmethod
    def create(
        cls,
        location: str | Path,
        durability: str = "full",
        busy_timeout: float | None = None,
        init_time: str | None = None,
    ) -> "SqliteStore":
        """A new, empty memory at ``location`` (it must not exist, or be an empty file)."""
        timeout = busy_timeout_setting(busy_timeout)
        location = str(location)
        if location == ":memory:":
            store = cls(cls._connect(location, durability, timeout), location, True, timeout)
            store._install(init_time)
            return store
        path = Path(location)
        _check_links(location)
        _check_folder(path)
        created = False
        if path.is_dir():
            raise InputError("is a folder, not a memory file", source=location)
        if not path.exists():
            try:
                os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
                created = True
            except FileExistsError:
                raise InputError(
                    "already exists (remove it or use another --db)", source=location
                ) from None
            except OSError as error:
                raise InputError(
                    f"cannot create the memory: {error.strerror}", source=location
                ) from None
        elif path.stat().st_size > 0:
            raise InputError("already exists (remove it or use another --db)", source=location)
        if not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK):
            raise InputError(
                "read-only: cannot create a memory here (the file or its folder is not writable)",
                source=location,
            )
        try:
            store = cls(cls._connect(location, durability, timeout), location, True, timeout)
            store._install(init_time)
        except _Installed:
            raise  # another init filled the file this one created: it is theirs now, keep it
        except BaseException:
            if created:
                for suffix in ("", "-wal", "-shm", "-journal"):
                    try:
                        os.unlink(location + suffix)
                    except OSError:
                        pass
            raise
        return store

    def _install(self, init_time: str | None = None) -> None:
        db = self._db
        started = time.monotonic()
        try:
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise _fault(
                error, self.location, time.monotonic() - started, self.busy_timeout
            ) from None
        try:
            if db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                raise _Installed(
                    "already exists (remove it or use another --db)", source=self.location
                )
            for statement in _split(SCHEMA + FEATURES + _triggers()):
                db.execute(statement)
            db.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?)",
                [
                    ("application", APPLICATION),
                    ("schema_version", str(SCHEMA_VERSION)),
                    ("revisions_indexed", "0"),
                    ("secret", new_secret()),
                ],
            )
            db.execute("INSERT INTO events (kind, time) VALUES ('init', ?)", (init_time or _now(),))
            db.execute("COMMIT")
        except sqlite3.Error as error:
            db.execute("ROLLBACK") if db.in_transaction else None
            raise _fault(error, self.location) from None
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    @classmethod
    def open(
        cls,
        location: str | Path,
        durability: str = "full",
        busy_timeout: float | None = None,
        upgrading: bool = False,
    ) -> "SqliteStore":
        """An existing memory; every other file is refused before anything is written.

        ``upgrading``: also accept a memory of schema version 1 (for :meth:`upgrade_schema`).
        """
        timeout = busy_timeout_setting(busy_timeout)
        location = str(location)
        path = Path(location)
        _check_links(location)
        _check_folder(path)
        if not path.exists():
            raise InputError("no memory here (create one with `jtms init`)", source=location)
        if path.is_dir():
            raise InputError("is a folder, not a memory file", source=location)
        # never open the file with Python's open(): closing any descriptor of it drops this
        # process's POSIX locks, including those of other connections to the same memory
        try:
            size = path.stat().st_size
        except OSError as error:
            raise InputError(f"cannot read the memory: {error.strerror}", source=location) from None
        if size == 0:
            raise InputError(
                "empty file, not a jtms memory (remove it, then `jtms init`)", source=location
            )
        if not os.access(path, os.R_OK):
            raise InputError("cannot read the memory: permission denied", source=location)
        writable = os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)
        connection = None
        try:
            connection = cls._connect(location, durability, timeout, read_only=not writable)
            # reads only: a foreign file is refused before any statement that writes
            rows = dict(
                connection.execute(
                    "SELECT key, value FROM meta WHERE key IN ('application', 'schema_version')"
                )
            )
        except sqlite3.Error as error:
            if connection is not None:
                connection.close()
            text = str(error)
            if "not a database" in text:
                raise InputError(
                    "not a jtms memory (not an SQLite database)", source=location
                ) from None
            if "no such table" in text:
                raise InputError(
                    "not a jtms memory (an SQLite database without the jtms tables)",
                    source=location,
                ) from None
            if not writable and "unable to open" in text:
                raise InputError(
                    "read-only memory that cannot be read without writing its WAL "
                    "index (make its folder writable); nothing written",
                    source=location,
                ) from None
            raise _fault(error, location) from None
        if rows.get("application") != APPLICATION:
            connection.close()
            raise InputError(
                "not a jtms memory (an SQLite database of another application)", source=location
            )
        version = rows.get("schema_version")
        if version != str(SCHEMA_VERSION) and not (upgrading and version in UPGRADABLE):
            connection.close()
            if version in UPGRADABLE:
                advice = f"run `jtms upgrade --db {location}`"
            elif newer_version(version, SCHEMA_VERSION):
                advice = "written by a newer jtms: upgrade jtms-revision"
            else:
                advice = "not a version any jtms wrote; restore the memory from a backup"
            raise InputError(
                f"schema version {shown_version(version)}, this jtms reads version "
                f"{SCHEMA_VERSION}: {advice}",
                source=location,
            )
        store = cls(connection, location, writable, timeout)
        store.schema_version = int(version) if version else SCHEMA_VERSION
        try:
            store._add_features()
        except BaseException:
            connection.close()
            raise
        if upgrading:
            store._retired = [
                name
                for (name,) in connection.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'index' AND name IN "
                    f"({', '.join('?' * len(RETIRED_INDEXES))})",
                    RETIRED_INDEXES,
                )
            ]
        return store

    def _add_features(self) -> None:
        """Give a memory created before them the search index and the erasure records
        (:data:`FEATURES`, with the triggers that let a purge rewrite content), in one write
        of its own that adds no event; the index is built from the stored nodes. A read-only
        memory is left as it is (searching it says how to build the index)."""
        db = self._db
        if self._has_features() or not self.writable:
            return
        started = time.monotonic()
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise _fault(
                error, self.location, time.monotonic() - started, self.busy_timeout
            ) from None
        try:
            if not self._has_features():  # another process may have added them meanwhile
                indexed = self._db.execute(
                    "SELECT 1 FROM sqlite_master WHERE name = 'node_search'"
                ).fetchone()
                for statement in _split(FEATURES):
                    db.execute(statement)
                tables = ("expiries", "erasures", "events", "nodes")
                for table in tables:
                    for action in ("update", "delete"):
                        db.execute(f"DROP TRIGGER IF EXISTS {table}_no_{action}")
                for statement in _split(_triggers(tables)):
                    db.execute(statement)
                if not indexed:
                    db.execute("INSERT INTO node_search (node_search) VALUES ('rebuild')")
            db.execute("COMMIT")
        except sqlite3.Error as error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise _fault(error, self.location) from None
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def _has_features(self) -> bool:
        if getattr(self, "_features", False):  # once added, never removed
            return True
        found = self._db.execute(
            "SELECT count(*) FROM sqlite_master WHERE name IN ('erasures', 'node_search', "
            "'expiries')"
        ).fetchone()[0]
        self._features = bool(found == 3)
        return self._features

    @property
    def needs_upgrade(self) -> bool:
        """True for a memory of an older schema version, or one holding an index this
        version retired (opened with ``upgrading=True``)."""
        return self.schema_version != SCHEMA_VERSION or bool(self._retired)

    def upgrade_schema(self) -> None:
        """Inside :meth:`write`: bring a memory of an older version to this one (new tables
        only; from version 1 the caller then stores the support pointers of the current
        state)."""
        for name in self._retired:
            self._db.execute(f"DROP INDEX IF EXISTS {name}")
        self._retired = []
        if self.schema_version == SCHEMA_VERSION:
            return
        pattern = re.compile(r"CREATE (?:UNIQUE )?(?:TABLE|INDEX|TRIGGER) (\w+)")
        wanted = {}
        for statement in _split(SCHEMA + _triggers()):
            named = pattern.match(statement)
            assert named is not None, statement  # every statement of the schema creates one
            wanted[named.group(1)] = statement
        have = {name for (name,) in self._db.execute("SELECT name FROM sqlite_master")}
        for name, statement in wanted.items():
            if name not in have:
                self._db.execute(statement)
        self._index_revisions(rebuild=True)  # version 3 indexed them row by row
        if "supports" in have:  # versions 2 and 3: a row per pointer; now a row per write
            rows = self._db.execute(
                "SELECT event, node, justification, rank FROM supports ORDER BY seq"
            ).fetchall()
            start = 0
            for end in range(1, len(rows) + 1):
                if end == len(rows) or rows[end][0] != rows[start][0]:
                    self.add_supports(rows[start][0], (r[1:] for r in rows[start:end]))
                    start = end
            self._db.execute("DROP TABLE supports")  # its triggers and indexes with it
        self._db.execute(
            "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),)
        )
        self.schema_version = SCHEMA_VERSION

    def close(self) -> None:
        self._db.close()

    def set_durability(self, durability: str) -> None:
        durability_setting(durability)
        self._db.execute(f"PRAGMA synchronous = {durability.upper()}")

    # --- transactions -------------------------------------------------------------------------
    @contextmanager
    def read(self) -> Iterator[None]:
        db = self._db
        try:
            db.execute("BEGIN")
            db.execute("SELECT 1 FROM meta LIMIT 1").fetchall()  # the snapshot starts here
        except sqlite3.Error as error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise _fault(error, self.location) from None
        try:
            yield
        except sqlite3.Error as error:
            raise _fault(error, self.location) from None
        finally:
            if db.in_transaction:
                db.execute("ROLLBACK")  # nothing was written: end the snapshot

    @contextmanager
    def write(self) -> Iterator[None]:
        if not self.writable:
            raise InputError(
                "read-only memory (the file or its folder is not writable); nothing written",
                source=self.location,
            )
        db = self._db
        started = time.monotonic()
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise _fault(
                error, self.location, time.monotonic() - started, self.busy_timeout
            ) from None
        try:
            yield
            db.execute("COMMIT")
        except sqlite3.Error as error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise _fault(
                error, self.location, time.monotonic() - started, self.busy_timeout
            ) from None
        except BaseException:
            if db.in_transaction:  # a failed COMMIT may already have rolled back
                db.execute("ROLLBACK")
            raise

    # --- the event log ------------------------------------------------------------------------
    def last_event(self) -> int:
        return int(self._db.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()[0])

    def _event_row(self, row: tuple[Any, ...]) -> EventRow:
        """An event as stored, its columns checked (:meth:`_event_problem`)."""
        event_id, kind, when, actor, reason, roots, target, source = row
        listed = None
        if roots is not None:
            try:
                listed = json.loads(roots) if type(roots) is str else None
            except (ValueError, RecursionError):  # not JSON, or nested past Python's limit
                pass
        problem = self._event_problem(row, listed)
        if problem is not None:
            raise corrupt_row(self.location, "events", event_id, problem)
        return EventRow(
            event_id,
            kind,
            when,
            actor,
            reason,
            tuple(listed) if listed is not None else None,
            target,
            source,
        )

    @staticmethod
    def _event_problem(row: tuple[Any, ...], roots: Any) -> str | None:
        """What is wrong with an event row (``roots``: its roots parsed), or None."""
        _, kind, when, actor, reason, stored_roots, target, source = row
        if kind not in EVENT_KINDS:
            return f"kind {shown(kind)} is not an event kind"
        if type(when) is not str:
            return f"time {shown(when)} is not text"
        for name, value in (("actor", actor), ("reason", reason), ("source", source)):
            if value is not None and type(value) is not str:
                return f"{name} {shown(value)} is not text"
        if stored_roots is not None and (
            type(roots) is not list or not all(type(r) is str for r in roots)
        ):
            return f"roots {shown(stored_roots)} are not a JSON list of node ids"
        if target is not None and type(target) is not int:
            return f"target {shown(target)} is not an event id"
        return None

    _EVENT_COLUMNS = "id, kind, time, actor, reason, roots, target, source"

    def events(self, after: int, upto: int) -> list[EventRow]:
        return [
            self._event_row(r)
            for r in self._db.execute(
                f"SELECT {self._EVENT_COLUMNS} FROM events WHERE id > ? AND id <= ? ORDER BY id",
                (after, upto),
            )
        ]

    def event(self, event_id: int) -> EventRow | None:
        if not -(1 << 63) <= event_id < (1 << 63):
            return None
        row = self._db.execute(
            f"SELECT {self._EVENT_COLUMNS} FROM events WHERE id = ?", (event_id,)
        ).fetchone()
        return self._event_row(row) if row else None

    def open_audits(self) -> list[EventRow]:
        return [
            self._event_row(r)
            for r in self._db.execute(
                f"SELECT {self._EVENT_COLUMNS} FROM events WHERE kind = 'audit' AND id NOT IN "
                "(SELECT target FROM events WHERE kind = 'reinstate') ORDER BY id"
            )
        ]

    def nodes(self, first: int = 0) -> list[NodeRow]:
        rows = self._db.execute(
            "SELECT num, id, kind, event, status FROM nodes WHERE num >= ? ORDER BY num", (first,)
        ).fetchall()
        # the events (and the claims of justifications below) Memory reads as arrays of
        # 64-bit integers, which refuse any other type: checked there, not twice
        # (jtms.memory.stored.check_numbered); Memory.upgrade reads old memories only
        self._check_rows(
            "nodes", rows, ((1, "id", _TEXT),), ((2, "kind", _KINDS), (4, "status", STATUSES))
        )
        return [
            NodeRow(num, node_id, kind == "evidence", event, status)
            for num, node_id, kind, event, status in rows
        ]

    def justifications(self, first: int = 0) -> list[JustificationRow]:
        rows = self._db.execute(
            "SELECT num, claim, antecedents, event FROM justifications WHERE num >= ? ORDER BY num",
            (first,),
        ).fetchall()
        self._check_rows("justifications", rows, ((2, "antecedents", _TEXT),))
        return _antecedent_numbers(self.location, rows)

    def _revision_rows(self, after: int, upto: int) -> list[Any]:
        """The (seq, node, status, event) rows of events ``(after, upto]``, by seq, checked."""
        rows = self._db.execute(
            "SELECT seq, node, status, event FROM revisions WHERE event > ? AND event <= ? "
            "ORDER BY seq",
            (after, upto),
        ).fetchall()
        self._check_rows(
            "revisions", rows, ((1, "node", _INT), (3, "event", _INT)), ((2, "status", STATUSES),)
        )
        return rows

    def revisions(self, after: int, upto: int) -> list[RevisionRow]:
        return list(starmap(RevisionRow, self._revision_rows(after, upto)))

    def revision_columns(self, after: int, upto: int) -> tuple[array[int], bytes]:
        rows = self._revision_rows(after, upto)
        try:
            nodes = array("q", map(itemgetter(1), rows))
        except OverflowError:
            seq, node = next((r[0], r[1]) for r in rows if not -(1 << 63) <= r[1] < 1 << 63)
            raise corrupt_row(
                self.location, "revisions", seq, f"node {shown(node)} is not a node of this memory"
            ) from None
        return nodes, bytes(map("active".__eq__, map(itemgetter(2), rows)))

    def _check_rows(
        self,
        table: str,
        rows: Sequence[Sequence[Any]],
        types: Iterable[tuple[int, str, frozenset[type]]],
        values: Iterable[tuple[int, str, Iterable[Any]]] = (),
    ) -> None:
        """Refuse rows of ``table`` with a column of another type than ``types`` names, or
        with a value outside those ``values`` names (:class:`CorruptMemory`)."""
        for column, name, kinds in types:
            _check_types(self.location, table, rows, column, name, kinds)
        for column, name, allowed in values:
            _check_values(self.location, table, rows, column, name, allowed)

    def _support_batch(self, row: tuple[Any, ...]) -> "tuple[array[int], ...]":
        """The three arrays of a support_batches row, or :class:`CorruptMemory` when its
        columns are not an event id, a count and three blobs of ``count`` 64-bit integers."""
        first, event, count, *blobs = row
        if type(event) is not int:
            problem = f"event {shown(event)} is not an integer"
        elif type(count) is not int or count <= 0:
            problem = f"count {shown(count)} is not a positive integer"
        elif not all(type(b) is bytes and len(b) == 8 * count for b in blobs):
            problem = f"nodes, justifications and ranks are not {count} 64-bit integers each"
        else:
            return tuple(map(_int64s, blobs))
        raise corrupt_row(self.location, "support_batches", first, problem)

    def supports(self, after: int, upto: int) -> list[SupportRow]:
        rows: list[SupportRow] = []
        for row in self._db.execute(
            "SELECT first_seq, event, count, nodes, justifications, ranks FROM support_batches "
            "WHERE event > ? AND event <= ? ORDER BY first_seq",
            (after, upto),
        ):
            first, event, count = row[:3]
            nodes, justifications, ranks = self._support_batch(row)
            rows.extend(
                starmap(
                    SupportRow,
                    zip(range(first, first + count), nodes, justifications, ranks, repeat(event)),
                )
            )
        return rows

    def support_columns(self, after: int, upto: int) -> tuple[array[int], array[int], array[int]]:
        columns: tuple[array[int], array[int], array[int]] = (array("q"), array("q"), array("q"))
        for row in self._db.execute(
            "SELECT first_seq, event, count, nodes, justifications, ranks FROM support_batches "
            "WHERE event > ? AND event <= ? ORDER BY first_seq",
            (after, upto),
        ):
            for column, values in zip(columns, self._support_batch(row)):
                column.extend(values)
        return columns

    def checkpoint(self, event: int | None = None) -> Checkpoint | None:
        row = self._db.execute(
            "SELECT event, data FROM checkpoints ORDER BY event DESC LIMIT 1"
            if event is None
            else "SELECT event, data FROM checkpoints WHERE event = ?",
            () if event is None else (event,),
        ).fetchone()
        if row is None or type(row[0]) is not int or type(row[1]) is not bytes:
            # none, or derived data this code cannot read: the log serves (jtms.memory.checkpoint)
            return None
        return Checkpoint(row[0], row[1])

    def nogoods(self, after: int = 0) -> list[NogoodRow]:
        rows = self._db.execute(
            "SELECT id, nodes, text, author, event, status FROM nogoods WHERE event > ? "
            "ORDER BY event, rowid",
            (after,),
        ).fetchall()
        self._check_rows(
            "nogoods",
            rows,
            (
                (0, "id", _TEXT),
                (1, "nodes", _TEXT),
                (2, "text", _TEXT),
                (3, "author", _OPTIONAL_TEXT),
                (4, "event", _INT),
            ),
            ((5, "status", STATUSES),),
        )
        return [
            NogoodRow(nogood_id, self._nogood_nodes(nogood_id, nodes), text, author, event, status)
            for nogood_id, nodes, text, author, event, status in rows
        ]

    def _nogood_nodes(self, nogood_id: str, nodes: str) -> tuple[str, ...]:
        """A nogood's nodes column parsed: a JSON list of node ids, else :class:`CorruptMemory`."""
        try:
            listed = json.loads(nodes)
        except (ValueError, RecursionError):  # not JSON, or nested past Python's limit
            listed = None
        if type(listed) is not list or not all(type(n) is str for n in listed):
            raise corrupt_row(
                self.location,
                "nogoods",
                nogood_id,
                f"nodes {shown(nodes)} are not a JSON list of node ids",
            )
        return tuple(listed)

    # --- reads for people ---------------------------------------------------------------------
    def texts(self) -> dict[str, str]:
        rows = self._db.execute("SELECT num, id, text FROM nodes").fetchall()
        self._check_rows("nodes", rows, ((1, "id", _TEXT), (2, "text", _TEXT)))
        return dict(map(itemgetter(1, 2), rows))

    def creation_events(self) -> dict[str, int]:
        rows = self._db.execute("SELECT num, id, event FROM nodes").fetchall()
        self._check_rows("nodes", rows, ((1, "id", _TEXT), (2, "event", _INT)))
        return dict(map(itemgetter(1, 2), rows))

    def node_creation(self, node_id: str) -> tuple[int, str] | None:
        row = self._db.execute(
            "SELECT n.event, e.time FROM nodes n JOIN events e ON e.id = n.event WHERE n.id = ?",
            (node_id,),
        ).fetchone()
        if row is None:
            return None
        self._check_rows("nodes", [row], ((0, "event", _INT), (1, "the time of its event", _TEXT)))
        return int(row[0]), str(row[1])

    def node_record(self, node_id: str) -> dict[str, Any] | None:
        row = self._db.execute(
            "SELECT n.num, n.id, n.kind, n.text, n.author, n.expression, n.value, e.time "
            "FROM nodes n JOIN events e ON e.id = n.event WHERE n.id = ?",
            (node_id,),
        ).fetchone()
        if row is None:
            return None
        self._check_rows(
            "nodes",
            [row],
            (
                (3, "text", _TEXT),
                (4, "author", _OPTIONAL_TEXT),
                (5, "expression", _OPTIONAL_TEXT),
                (6, "value", _OPTIONAL_TEXT),
                (7, "the time of its event", _TEXT),
            ),
        )
        keys = ("id", "kind", "text", "author", "expression", "value", "created")
        return dict(zip(keys, row[1:]))

    def calculations(self) -> list[tuple[str, str, str]]:
        return [
            tuple(row)
            for row in self._db.execute(  # type: ignore[misc]
                "SELECT id, expression, value FROM nodes WHERE kind = 'evidence' "
                "AND expression IS NOT NULL ORDER BY num"
            )
        ]

    def history(self, num: int) -> list[HistoryRow]:
        rows = [
            (0, *row)
            for row in self._db.execute(
                "SELECT n.status, e.id, e.kind, e.time, e.actor, e.reason FROM nodes n "
                "JOIN events e ON e.id = n.event WHERE n.num = ?",
                (num,),
            )
        ]
        rows += self._db.execute(
            "SELECT r.seq, r.status, e.id, e.kind, e.time, e.actor, e.reason FROM revisions r "
            f"JOIN events e ON e.id = r.event WHERE r.seq IN ({_SEQS_OF_NODE}) ORDER BY r.seq",
            (num, num),
        ).fetchall()
        return self._history_rows(rows)

    def nogood_history(self, nogood_id: str) -> list[HistoryRow]:
        rows = [
            (0, *row)
            for row in self._db.execute(
                "SELECT g.status, e.id, e.kind, e.time, e.actor, e.reason FROM nogoods g "
                "JOIN events e ON e.id = g.event WHERE g.id = ?",
                (nogood_id,),
            )
        ]
        rows += self._db.execute(
            "SELECT r.seq, r.status, e.id, e.kind, e.time, e.actor, e.reason FROM nogood_revisions r "
            "JOIN events e ON e.id = r.event WHERE r.nogood = ? ORDER BY r.seq",
            (nogood_id,),
        ).fetchall()
        return self._history_rows(rows)

    def _history_rows(self, rows: list[tuple[Any, ...]]) -> list[HistoryRow]:
        """(seq, status, event, kind, time, actor, reason) rows as history, the columns of
        their events that a reader shows checked (:class:`CorruptMemory`)."""
        self._check_rows(
            "events",
            [row[2:] for row in rows],  # (id, kind, time, actor, reason), keyed by the id
            ((2, "time", _TEXT), (3, "actor", _OPTIONAL_TEXT), (4, "reason", _OPTIONAL_TEXT)),
        )
        return list(starmap(HistoryRow, rows))

    def audits_naming(self, node_id: str) -> list[int]:
        return [
            row[0]
            for row in self._db.execute(
                "SELECT e.id FROM events e, json_each(e.roots) r WHERE e.kind = 'audit' "
                "AND r.value = ? ORDER BY e.id",
                (node_id,),
            )
        ]

    def last_deactivation(self, num: int) -> int | None:
        row = self._db.execute(
            f"SELECT event FROM revisions WHERE seq IN ({_SEQS_OF_NODE}) AND status = 'inactive' "
            "ORDER BY seq DESC LIMIT 1",
            (num, num),
        ).fetchone()
        return int(row[0]) if row else None

    def withdrawals(self) -> list[WithdrawalRow]:
        return [
            WithdrawalRow(*row)
            for row in self._db.execute(
                "SELECT n.id, r.event, e.kind, e.reason, e.actor, e.time FROM revisions r "
                "JOIN nodes n ON n.num = r.node JOIN events e ON e.id = r.event "
                f"WHERE r.seq IN ({_LATEST_SEQS}) AND r.status = 'inactive' ORDER BY r.seq DESC"
            )
        ]

    def stored_status(self) -> dict[int, str]:
        status = dict(self._db.execute("SELECT num, status FROM nodes"))
        for node, value in self._db.execute(
            f"SELECT node, status FROM revisions WHERE seq IN ({_LATEST_SEQS})"
        ):
            status[node] = value
        return status

    def rows(self, table: str) -> list[dict[str, Any]]:
        if table not in TABLES:
            raise InputError(f"unknown table {table!r} (one of {', '.join(TABLES)})")
        if table in ("expiries", "erasures") and not self._has_features():
            return []  # a memory made before them, read where they cannot be added
        if table == "supports":  # stored as one row of arrays per write
            return [asdict(row) for row in self.supports(-1, self.last_event())]
        cursor = self._db.execute(f"SELECT * FROM {table} ORDER BY 1")
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor]

    def problems(self) -> list[str]:
        problems: list[str] = []
        result = [row[0] for row in self._db.execute("PRAGMA integrity_check")]
        if result != ["ok"]:
            problems.extend(f"sqlite integrity: {line}" for line in result)
        for table, rowid, parent, _ in self._db.execute("PRAGMA foreign_key_check"):
            problems.append(f"foreign key: {table} row {rowid} refers to a missing {parent}")
        if self.schema_version == SCHEMA_VERSION:
            differ = self._db.execute(
                "SELECT count(*) FROM (SELECT node, seq FROM node_revisions EXCEPT "
                f"SELECT node, seq FROM revisions WHERE seq <= ({_INDEXED})) UNION ALL "
                f"SELECT count(*) FROM (SELECT node, seq FROM revisions WHERE seq <= ({_INDEXED}) "
                "EXCEPT SELECT node, seq FROM node_revisions)"
            ).fetchall()
            if any(count for (count,) in differ):
                problems.append("node_revisions differs from the revisions it indexes")
            claim_of = dict(self._db.execute("SELECT num, claim FROM justifications"))
            expected = 1
            for row in self.supports(-1, self.last_event()):
                if row.seq != expected:
                    problems.append(f"support sequence numbers are not dense at {row.seq}")
                    break
                expected += 1
                if claim_of.get(row.justification) != row.node:
                    problems.append(
                        f"support {row.seq}: justification {row.justification} is not one of "
                        f"node {row.node}'s"
                    )
                    break
        return problems

    # --- search and erasures ---------------------------------------------------------------------
    def search(self, words: Sequence[str]) -> list[tuple[int, float]]:
        """(node number, score) of every node whose id or text holds each of ``words`` (a
        word, a word of the same stem, or one they begin), best first (FTS5's BM25, the id
        weighted twice the text; ties by number). ``words``: at least one, no quotes."""
        if not self._has_features():
            raise InputError(
                "this memory has no search index yet: open it once with write access "
                "(any jtms command) to build it",
                source=self.location,
            )
        match = " ".join('"' + word.replace('"', '""') + '"*' for word in words)
        return [
            (int(num), float(score))
            for num, score in self._db.execute(
                "SELECT rowid, -bm25(node_search, 2.0, 1.0) AS score FROM node_search "
                "WHERE node_search MATCH ? ORDER BY score DESC, rowid",
                (match,),
            )
        ]

    def texts_of(self, nums: Sequence[int]) -> dict[int, str]:
        """Node number -> its text, for the nodes ``nums`` (a page of hits)."""
        rows = self._db.execute(
            "SELECT num, text FROM nodes WHERE num IN (SELECT value FROM json_each(?))",
            (json.dumps([int(n) for n in nums]),),
        ).fetchall()
        self._check_rows("nodes", rows, ((1, "text", _TEXT),))
        return dict(rows)

    def add_expiry(self, num: int, until: str, event: int) -> None:
        """Inside :meth:`write`: evidence ``num`` (added by ``event``) counts as audited
        from ``until`` on."""
        self._db.execute(
            "INSERT INTO expiries (node, until, event) VALUES (?, ?, ?)", (num, until, event)
        )

    def add_expiries(self, rows: Iterable[tuple[int, str]], event: int) -> None:
        self._db.executemany(  # the event is an int: a literal, bound once
            f"INSERT INTO expiries (node, until, event) VALUES (?, ?, {int(event)})", rows
        )

    def expiries(self) -> dict[int, str]:
        """Evidence number -> its ``valid_until`` (ISO 8601, UTC)."""
        if not self._has_features():
            return {}
        return {int(n): str(u) for n, u in self._db.execute("SELECT node, until FROM expiries")}

    def due_expiries(self, now: str, upto: int) -> list[int]:
        """Evidence numbers whose ``valid_until`` is at or before ``now`` and that no audit
        with reason "expired" among events up to ``upto`` names yet, by number."""
        if not self._has_features():
            return []
        return [
            int(num)
            for (num,) in self._db.execute(
                "SELECT x.node FROM expiries x JOIN nodes n ON n.num = x.node "
                "WHERE x.until <= ? AND n.event <= ? AND NOT EXISTS (SELECT 1 FROM events e, "
                "json_each(e.roots) r WHERE e.kind = 'audit' AND e.reason = 'expired' "
                "AND e.id <= ? AND r.value = n.id) ORDER BY x.node",
                (now, upto, upto),
            )
        ]

    def next_expiry(self, upto: int) -> str | None:
        """The earliest ``valid_until`` of evidence (existing at event ``upto``) that no
        audit with reason "expired" up to ``upto`` names yet; None when there is none."""
        if not self._has_features():
            return None
        found = self._db.execute(
            "SELECT min(x.until) FROM expiries x JOIN nodes n ON n.num = x.node "
            "WHERE n.event <= ? AND NOT EXISTS (SELECT 1 FROM events e, json_each(e.roots) r "
            "WHERE e.kind = 'audit' AND e.reason = 'expired' AND e.id <= ? AND r.value = n.id)",
            (upto, upto),
        ).fetchone()[0]
        return None if found is None else str(found)

    def erasures(self) -> dict[int, int]:
        """Node number -> the event (an audit) that purged its content."""
        if not self._has_features():
            return {}
        return {int(n): int(e) for n, e in self._db.execute("SELECT node, event FROM erasures")}

    def add_erasure(self, num: int, event: int) -> None:
        """Inside :meth:`write`: the erasure record alone (see the protocol)."""
        self._db.execute("INSERT INTO erasures (node, event) VALUES (?, ?)", (num, event))

    def purge(self, num: int, event: int) -> None:
        """Inside :meth:`write`: erase node ``num``'s text, author, expression and value (and
        the author its creating event kept as actor) for the purge ``event``; the erasure
        record first, which is what lets the triggers pass these updates. The search index
        drops the node's words and is merged (no segment keeps them), and every page this
        frees is zeroed (``secure_delete``); :meth:`scrub` then removes old copies."""
        db = self._db
        db.execute("PRAGMA secure_delete = ON")
        db.execute("INSERT INTO erasures (node, event) VALUES (?, ?)", (num, event))
        node_id, text, created = db.execute(
            "SELECT id, text, event FROM nodes WHERE num = ?", (num,)
        ).fetchone()
        db.execute(
            "INSERT INTO node_search (node_search, rowid, id, text) VALUES ('delete', ?, ?, ?)",
            (num, node_id, text),
        )
        db.execute(
            "UPDATE nodes SET text = '', author = NULL, expression = NULL, value = NULL "
            "WHERE num = ?",
            (num,),
        )
        db.execute("INSERT INTO node_search (rowid, id, text) VALUES (?, ?, '')", (num, node_id))
        db.execute(
            "UPDATE events SET actor = NULL WHERE id = ? AND actor IS NOT NULL "
            "AND kind IN ('add-evidence', 'add-claim')",
            (created,),
        )
        db.execute("INSERT INTO node_search (node_search) VALUES ('optimize')")

    def scrub(self) -> bool:
        """After a purge's commit: rewrite the file without its free pages (``VACUUM``, which
        drops every stale copy of a page) and empty the WAL (a checkpoint that truncates it),
        so the erased content is in no byte of the memory's files. False when another
        connection's reader kept the WAL from being emptied (the next scrub finishes it)."""
        db = self._db
        try:
            db.execute("PRAGMA secure_delete = ON")
            db.execute("VACUUM")
            busy, _, _ = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.Error as error:
            raise _fault(error, self.location) from None
        return not busy

    # --- writes -------------------------------------------------------------------------------
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
        cursor = self._db.execute(
            "INSERT INTO events (kind, time, actor, reason, roots, target, source) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                kind,
                time,
                actor,
                reason,
                json.dumps(list(roots)) if roots is not None else None,
                target,
                source,
            ),
        )
        return int(cursor.lastrowid or 0)

    @contextmanager
    def _bulk_indexed(self, first: int, count: int) -> Iterator[None]:
        """Around an insert of ``count`` nodes numbered from ``first``: past
        :data:`BULK_INDEX_ROWS`, the trigger that indexes each row waits (a meta row, in
        this transaction only) and one statement indexes them all after the insert."""
        bulk = count > BULK_INDEX_ROWS and self._has_features()
        if bulk:
            self._db.execute("INSERT INTO meta (key, value) VALUES ('indexing_in_bulk', '1')")
        yield
        if bulk:
            self._db.execute(
                "INSERT INTO node_search (rowid, id, text) SELECT num, id, text FROM nodes "
                "WHERE num >= ? AND num < ?",
                (first, first + count),
            )
            self._db.execute("DELETE FROM meta WHERE key = 'indexing_in_bulk'")

    def add_nodes(self, nodes: Iterable[NewNode]) -> None:
        # binding is most of the cost of a row, so each node binds only the columns it uses:
        # four with no text, author or calculation (an import's nodes, mostly), six with a
        # text or an author, all nine with a calculation (or of another event)
        rows = nodes if isinstance(nodes, list) else list(nodes)
        if not rows:
            return
        first = min(n.num for n in rows)
        contiguous = max(n.num for n in rows) - first + 1 == len(rows)
        with self._bulk_indexed(first, len(rows) if contiguous else 0):
            self._insert_nodes(rows)

    def _insert_nodes(self, rows: list[NewNode]) -> None:
        """The rows of :meth:`add_nodes`."""
        event = int(rows[0].event)
        full = [n.event != event or n.expression is not None or n.value is not None for n in rows]
        noted = [bool(n.text) or n.author is not None for n in rows]
        self._insert_plain_nodes(
            event,
            [(n.num, n.id, n.kind, n.status) for n, f, t in zip(rows, full, noted) if not (f or t)],
        )
        self._db.executemany(
            "INSERT INTO nodes (num, id, kind, text, author, event, status) "
            f"VALUES (?, ?, ?, ?, ?, {event}, ?)",
            [
                (n.num, n.id, n.kind, n.text, n.author, n.status)
                for n, f, t in zip(rows, full, noted)
                if t and not f
            ],
        )
        self._db.executemany(
            "INSERT INTO nodes (num, id, kind, text, author, expression, value, event, status)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [n for n, f in zip(rows, full) if f],  # named tuples, in column order
        )

    def add_node_rows(
        self, first: int, ids: Sequence[str], evidence: int, statuses: Sequence[str], event: int
    ) -> None:
        # one statement whose rows SQLite reads from one JSON array of the ids, the kind from
        # the position and the status from a byte string (substr of a blob is by byte: O(1)):
        # 120,000 nodes in about half the time of binding each row from Python
        flags = bytes([status == "active" for status in statuses])
        if len(flags) != len(ids):
            raise ValueError("add_node_rows: one status per id")
        with self._bulk_indexed(first, len(ids)):
            self._db.execute(
                "INSERT INTO nodes (num, id, kind, event, status) "
                "SELECT ?1 + key, value, CASE WHEN key < ?2 THEN 'evidence' ELSE 'claim' END, "
                "?3, CASE substr(?4, key + 1, 1) WHEN x'01' THEN 'active' ELSE 'inactive' END "
                "FROM json_each(?5)",
                (first, evidence, event, flags, json.dumps(list(ids))),
            )

    def _insert_plain_nodes(self, event: int, rows: Iterable[tuple[int, str, str, str]]) -> None:
        """(num, id, kind, status) rows of nodes with no text, author or calculation."""
        self._db.executemany(  # the event is an int: a literal, bound once
            f"INSERT INTO nodes (num, id, kind, event, status) VALUES (?, ?, ?, {int(event)}, ?)",
            rows,
        )

    def add_justifications(self, justifications: Iterable[JustificationRow]) -> None:
        self._db.executemany(
            "INSERT INTO justifications (num, claim, antecedents, event) VALUES (?, ?, ?, ?)",
            ((j.num, j.claim, " ".join(map(str, j.antecedents)), j.event) for j in justifications),
        )

    def add_justification_rows(
        self,
        first: int,
        claims: Sequence[int],
        offsets: Sequence[int],
        flat: Sequence[int],
        event: int,
    ) -> None:
        # each number written once, then each row one join over a slice (an import: 100,000s)
        numbers = list(map(str, flat))
        texts = map(" ".join, map(numbers.__getitem__, map(slice, offsets, offsets[1:])))
        self._db.executemany(  # the event is an int: a literal, bound once
            "INSERT INTO justifications (num, claim, antecedents, event) "
            f"VALUES (?, ?, ?, {int(event)})",
            zip(range(first, first + len(claims)), claims, texts),
        )

    def add_revisions(self, event: int, status: str, nodes: Iterable[int]) -> None:
        # one statement whose rows SQLite reads from one JSON array: half the cost of binding
        # each row from Python (an audit writes hundreds)
        self._db.execute(
            "INSERT INTO revisions (node, status, event) SELECT value, ?, ? FROM json_each(?)",
            (status, event, json.dumps(list(nodes))),
        )
        pending = self._db.execute(
            f"SELECT coalesce(max(seq), 0) - ({_INDEXED}) FROM revisions"
        ).fetchone()[0]
        if pending > NODE_REVISIONS_PENDING:
            self._index_revisions()

    def _index_revisions(self, rebuild: bool = False) -> None:
        """Write the revisions after meta's 'revisions_indexed' into node_revisions, in node
        order (one pass over its pages for many audits), and move the mark to the last one.
        ``rebuild``: from nothing (the upgrade from a version that indexed row by row)."""
        db = self._db
        if rebuild:
            db.execute("DELETE FROM node_revisions")
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('revisions_indexed', '0')")
        last = db.execute("SELECT coalesce(max(seq), 0) FROM revisions").fetchone()[0]
        db.execute(
            "INSERT INTO node_revisions (node, seq) SELECT node, seq FROM revisions "
            f"WHERE seq > ({_INDEXED}) ORDER BY node, seq"
        )
        db.execute("UPDATE meta SET value = ? WHERE key = 'revisions_indexed'", (str(last),))

    def add_supports(self, event: int, pointers: Iterable[tuple[int, int, int]]) -> None:
        # one row of three arrays: an import's million pointers are one insert, an audit's
        # thousand do not cost a row (and its index entry) each
        columns = list(zip(*pointers))
        if not columns:
            return
        nodes, justifications, ranks = (_int64_bytes(c) for c in columns)
        self._db.execute(
            "INSERT INTO support_batches (first_seq, event, count, nodes, justifications, ranks) "
            "SELECT coalesce((SELECT first_seq + count FROM support_batches "
            "ORDER BY first_seq DESC LIMIT 1), 1), ?, ?, ?, ?, ?",
            (event, len(columns[0]), nodes, justifications, ranks),
        )

    def add_nogoods(self, nogoods: Iterable[NogoodRow]) -> None:
        self._db.executemany(
            "INSERT INTO nogoods (id, nodes, text, author, event, status) VALUES (?, ?, ?, ?, ?, ?)",
            (
                (g.id, json.dumps(list(g.nodes)), g.text, g.author, g.event, g.status)
                for g in nogoods
            ),
        )

    def add_nogood_revisions(self, event: int, status: str, nogoods: Iterable[str]) -> None:
        self._db.executemany(
            "INSERT INTO nogood_revisions (nogood, status, event) VALUES (?, ?, ?)",
            ((g, status, event) for g in nogoods),
        )

    def put_checkpoint(self, checkpoint: Checkpoint, keep: int | None = None) -> bool:
        if keep is None:
            self._db.execute("DELETE FROM checkpoints")
        elif self._db.execute("SELECT 1 FROM checkpoints WHERE event = ?", (keep,)).fetchone():
            self._db.execute("DELETE FROM checkpoints WHERE event <> ?", (keep,))
        else:
            return False
        self._db.execute(
            "INSERT INTO checkpoints (event, data) VALUES (?, ?)",
            (checkpoint.event, checkpoint.data),
        )
        return True

    def idempotency_key(self, key: str) -> tuple[int, str] | None:
        row = self._db.execute(
            "SELECT event, request FROM idempotency_keys WHERE key = ?", (key,)
        ).fetchone()
        return (int(row[0]), str(row[1])) if row else None

    def add_idempotency_key(self, key: str, request: str, event: int) -> None:
        self._db.execute(
            "INSERT INTO idempotency_keys (key, request, event) VALUES (?, ?, ?)",
            (key, request, event),
        )

    def secret(self) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'secret'").fetchone()
        return str(row[0]) if row else None

    def add_secret(self) -> None:
        self._db.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES ('secret', ?)", (new_secret(),)
        )


def _now() -> str:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def plant_foreign_evidence(path: str | Path, rows: Iterable[tuple[str, str, str]]) -> None:
    """Write evidence rows ``(id, expression, value)`` straight into a SQLite memory, behind
    ``Memory``'s back and its input checks: what a foreign writer could leave. Fault
    injection for the reviewer's tests and benchmark (it must refuse what it cannot
    evaluate safely); never called by the toolkit itself."""
    connection = sqlite3.connect(path)
    try:
        with connection:
            for node_id, expression, value in rows:
                connection.execute("INSERT INTO events (kind, time) VALUES ('add-evidence', 'now')")
                connection.execute(
                    "INSERT INTO nodes (num, id, kind, text, expression, value, event, status) "
                    "VALUES ((SELECT count(*) FROM nodes), ?, 'evidence', '', ?, ?, "
                    "(SELECT max(id) FROM events), 'active')",
                    (node_id, expression, value),
                )
    finally:
        connection.close()


__all__ = [
    "APPLICATION",
    "BUSY_TIMEOUT_S",
    "SCHEMA_VERSION",
    "SqliteStore",
    "new_secret",
    "plant_foreign_evidence",
]
