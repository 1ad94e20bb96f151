"""The SQLite store of a memory: schema, connections, transactions, integrity.

Everything that is written is append-only and the database enforces it (triggers): nodes,
justifications, events (imports, additions, audits, reinstatements) and revisions (one row
per change of a node's status) are never updated or deleted. The current status of a node
is its latest revision, or its status at creation when it has none; the pre-audit state of
any node is therefore always queryable.

Writes take SQLite's write lock first (``BEGIN IMMEDIATE``), so two processes writing at
the same time are serialised, and a transaction is atomic (a crash leaves the store as it
was before the transaction). The store runs in WAL mode; ``durability="full"`` (default)
syncs every commit to disk, ``"normal"`` survives a crash of the process but not of the
machine.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from theory.errors import InputError

SCHEMA_VERSION = 1
APPLICATION = "jtms-memory"
BUSY_TIMEOUT_MS = 60_000

SCHEMA = """
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- Every write is one event: an import, an addition, an audit or a reinstatement.
CREATE TABLE events (
    id     INTEGER PRIMARY KEY,
    kind   TEXT NOT NULL CHECK (kind IN ('init', 'import', 'add-evidence', 'add-claim',
                                         'add-justification', 'audit', 'reinstate')),
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
CREATE INDEX revisions_by_node ON revisions (node, seq);
"""

IMMUTABLE_TABLES = ("events", "nodes", "justifications", "revisions")


def _triggers() -> str:
    statements = []
    for table in IMMUTABLE_TABLES:
        for action in ("UPDATE", "DELETE"):
            statements.append(
                f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, '{table} are immutable (append-only memory)'); END;"
            )
    return "\n".join(statements)


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def connect(path: str | Path, durability: str = "full") -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), WAL, busy timeout."""
    if durability not in ("full", "normal", "off"):
        raise InputError(f"unknown durability {durability!r} (full, normal or off)")
    connection = sqlite3.connect(str(path), isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000,
                                 check_same_thread=False)
    connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute(f"PRAGMA synchronous = {durability.upper()}")
    return connection


def create(path: str | Path, durability: str = "full") -> sqlite3.Connection:
    """Create a new, empty memory at ``path`` (it must not exist or be an empty file)."""
    path = Path(path)
    if path.exists() and path.stat().st_size > 0:
        raise InputError("already exists (remove it or use another --db)", source=str(path))
    connection = connect(path, durability)
    with transaction(connection):
        for statement in _split(SCHEMA + _triggers()):
            connection.execute(statement)
        connection.executemany("INSERT INTO meta (key, value) VALUES (?, ?)",
                               [("application", APPLICATION), ("schema_version", str(SCHEMA_VERSION))])
        connection.execute("INSERT INTO events (kind, time) VALUES ('init', ?)", (now(),))
    return connection


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


def open_existing(path: str | Path, durability: str = "full") -> sqlite3.Connection:
    """Open a memory created by :func:`create`; anything else is bad input."""
    path = Path(path)
    if not path.exists():
        raise InputError("no memory here (create one with `jtms init`)", source=str(path))
    try:
        connection = connect(path, durability)
        row = connection.execute("SELECT value FROM meta WHERE key = 'application'").fetchone()
        version = connection.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.DatabaseError as error:
        raise InputError(f"not a jtms memory ({error})", source=str(path)) from None
    if row is None or row[0] != APPLICATION:
        connection.close()
        raise InputError("not a jtms memory", source=str(path))
    if version is None or int(version[0]) != SCHEMA_VERSION:
        connection.close()
        raise InputError(f"unsupported schema version {version and version[0]}", source=str(path))
    return connection


@contextmanager
def transaction(connection: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction holding SQLite's write lock from its start (serialised writers)."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield connection
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:  # a failed COMMIT may already have rolled back
            connection.execute("ROLLBACK")
        raise


def last_event(connection: sqlite3.Connection) -> int:
    return connection.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()[0]


def blocked_roots(connection: sqlite3.Connection) -> list[tuple[int, list[str]]]:
    """(audit id, root ids) of every audit that has not been reinstated."""
    rows = connection.execute(
        "SELECT id, roots FROM events WHERE kind = 'audit' AND id NOT IN "
        "(SELECT target FROM events WHERE kind = 'reinstate') ORDER BY id"
    ).fetchall()
    return [(audit, json.loads(roots)) for audit, roots in rows]


def stored_status(connection: sqlite3.Connection) -> dict[int, str]:
    """Node number -> its current stored status (latest revision, else status at creation)."""
    status = dict(connection.execute("SELECT num, status FROM nodes"))
    for node, value in connection.execute(
        "SELECT node, status FROM revisions WHERE seq IN (SELECT max(seq) FROM revisions GROUP BY node)"
    ):
        status[node] = value
    return status


def sqlite_problems(connection: sqlite3.Connection) -> list[str]:
    """SQLite's own integrity and foreign-key checks, as a list of problems."""
    problems = []
    result = [row[0] for row in connection.execute("PRAGMA integrity_check")]
    if result != ["ok"]:
        problems.extend(f"sqlite integrity: {line}" for line in result)
    for table, rowid, parent, _ in connection.execute("PRAGMA foreign_key_check"):
        problems.append(f"foreign key: {table} row {rowid} refers to a missing {parent}")
    return problems
