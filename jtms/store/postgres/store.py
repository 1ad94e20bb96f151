"""The PostgreSQL store of one memory: :class:`PostgresStore` (see :mod:`jtms.store.postgres`)."""

from __future__ import annotations

import json
import time
import weakref
from array import array
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime, timezone
from importlib import resources
from itertools import chain, repeat
from typing import Any

import psycopg
from psycopg import sql

from jtms.store.postgres.arrays import BigIntArray, IntArray
from jtms.store.postgres.connection import connect, fault, has_meta, one_line
from jtms.store.postgres.location import PostgresLocation, parse_location
from jtms.store.protocol import (
    TABLES,
    Checkpoint,
    EventRow,
    HistoryRow,
    JustificationRow,
    NewNode,
    NodeRow,
    NogoodRow,
    RevisionRow,
    SupportRow,
    WithdrawalRow,
    newer_version,
    shown_version,
)
from jtms.store.settings import busy_timeout as busy_timeout_setting
from jtms.store.settings import durability as durability_setting

# one stored model: the same application tag, schema version and busy-timeout rule
from jtms.store.sqlite import APPLICATION, new_secret
from theory.model.errors import InputError

JTMS_LOCK_CLASS = 0x6A746D73  # "jtms": the first key of every memory's advisory lock
IMMUTABLE_TABLES = (
    "expiries",
    "erasures",
    "events",
    "nodes",
    "justifications",
    "revision_batches",
    "support_batches",
    "nogoods",
    "nogood_revisions",
    "idempotency_keys",
)
PURGEABLE = ("nodes", "events")  # a purge may empty content here (refuse_unless_purge)
INDEX_NODES = sql.SQL(
    "CREATE TRIGGER nodes_search AFTER INSERT ON nodes REFERENCING NEW TABLE AS new_rows "
    "FOR EACH STATEMENT EXECUTE FUNCTION index_nodes()"
).format()
"""The trigger that indexes every inserted node for search (``schema.sql``'s features)."""
BATCH_ROWS = 10_000  # revisions or support pointers per stored batch row (an import writes more)
BATCHED_VIEWS = {"revisions": "insert_revision_row", "supports": "insert_support_row"}
"""The per-row views over the batch tables, and the function a row inserted into each runs."""
POSTGRES_SCHEMA_VERSION = 4
PER_ROW_VERSION = 3  # the per-row layout, before batches (`jtms upgrade` converts it)
"""The layout of a PostgreSQL memory: version 3 (SQLite's) with revisions and supports stored
in batches (``schema.sql``); a version-3 memory is brought to it by ``jtms upgrade``."""

SCHEMA = resources.files("jtms.store.postgres").joinpath("schema.sql").read_text(encoding="utf-8")
"""The tables and functions of one memory (``schema.sql`` beside this module)."""


def _append_only(table: str) -> sql.Composed:
    """The trigger refusing UPDATE and DELETE on ``table`` (on nodes and events: all but a
    purge's, ``refuse_unless_purge``)."""
    return sql.SQL(
        "CREATE TRIGGER {name} BEFORE UPDATE OR DELETE ON {table} "
        "FOR EACH ROW EXECUTE FUNCTION {function}()"
    ).format(
        name=sql.Identifier(f"{table}_append_only"),
        table=sql.Identifier(table),
        function=sql.Identifier("refuse_unless_purge" if table in PURGEABLE else "refuse_change"),
    )


def _triggers(schema: str, only: Sequence[str] | None = None) -> list[sql.Composed]:
    """The triggers of a memory's tables and views (``only``: of these tables and views)."""
    statements: list[sql.Composed] = []
    for table in IMMUTABLE_TABLES:
        if only is not None and table not in only:
            continue
        statements.append(_append_only(table))
        statements.append(
            sql.SQL(
                "CREATE TRIGGER {name} BEFORE TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION refuse_change()"
            ).format(name=sql.Identifier(f"{table}_no_truncate"), table=sql.Identifier(table))
        )
        statements.append(
            sql.SQL(
                "CREATE TRIGGER {name} AFTER INSERT ON {table} REFERENCING NEW TABLE AS new_rows "
                "FOR EACH STATEMENT EXECUTE FUNCTION check_references()"
            ).format(name=sql.Identifier(f"{table}_references"), table=sql.Identifier(table))
        )
    if only is None or "nodes" in only:
        statements.append(INDEX_NODES)
    for view, function in BATCHED_VIEWS.items():
        if only is not None and view not in only:
            continue
        statements.append(
            sql.SQL(
                "CREATE TRIGGER {name} INSTEAD OF UPDATE OR DELETE ON {view} "
                "FOR EACH ROW EXECUTE FUNCTION refuse_change()"
            ).format(name=sql.Identifier(f"{view}_append_only"), view=sql.Identifier(view))
        )
        statements.append(
            sql.SQL(
                "CREATE TRIGGER {name} INSTEAD OF INSERT ON {view} "
                "FOR EACH ROW EXECUTE FUNCTION {function}()"
            ).format(
                name=sql.Identifier(f"{view}_insert"),
                view=sql.Identifier(view),
                function=sql.Identifier(function),
            )
        )
    if only is not None and "events" not in only:
        return statements
    statements.append(
        sql.SQL(
            "CREATE TRIGGER events_notify AFTER INSERT ON events REFERENCING NEW TABLE AS new_rows "
            "FOR EACH STATEMENT EXECUTE FUNCTION notify_events({channel})"
        ).format(channel=sql.Literal(schema))
    )
    return statements


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _compressed_checkpoints(connection: psycopg.Connection[Any], schema: str) -> bool:
    """Whether the memory in ``schema`` stores its checkpoints with PostgreSQL's default
    storage (compressed), not ``EXTERNAL`` as ``schema.sql`` now makes them."""
    row = connection.execute(
        "SELECT a.attstorage FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
        "JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = %s AND c.relname = 'checkpoints' AND a.attname = 'data'",
        (schema,),
    ).fetchone()
    return row is not None and str(row[0]) != "e"


class PostgresStore:
    """One memory (a schema) in a PostgreSQL database. See :mod:`jtms.store.protocol`."""

    def __init__(
        self,
        connection: psycopg.Connection[Any],
        place: PostgresLocation,
        lock_key: int,
        busy_timeout: float,
    ):
        self._db = connection
        self._place = place
        self.location = place.shown
        self.memory = place.memory
        self.busy_timeout = busy_timeout
        self._lock_key = lock_key
        self._listener: psycopg.Connection[Any] | None = None
        self._depth = 0
        self._durability = "full"
        self._last_event: int | None = None  # the newest event id when this transaction began
        # a write's statements, sent unawaited (pipeline mode), while it is entered
        self._pipeline: AbstractContextManager[psycopg.Pipeline] | None = None
        self.schema_version = POSTGRES_SCHEMA_VERSION
        # checkpoints stored compressed (a memory made before their storage was EXTERNAL);
        # read only when opened for an upgrade
        self._compressed_checkpoints = False
        #: how writers are serialised: "lock" (the advisory lock; always used by jtms) or
        #: "serializable" (SERIALIZABLE transactions, no lock: a concurrent writer fails with
        #: "could not serialize" and must retry; only benchmarks/bench_postgres.py sets it)
        self.serialise = "lock"

    # --- opening ------------------------------------------------------------------------------
    @classmethod
    def _attach(
        cls,
        location: str,
        durability: str,
        busy_timeout: float | None,
        create: bool,
        init_time: str | None = None,
        upgrading: bool = False,
    ) -> "PostgresStore":
        durability_setting(durability)
        timeout = busy_timeout_setting(busy_timeout)
        place = parse_location(location)
        connection = connect(place.conninfo, place.shown)
        try:
            if create:
                cls._install(connection, place, init_time or _now())
            key, version = cls._check(connection, place, upgrading)
            cls._add_features(connection, place.schema, key)
        except psycopg.Error as error:
            connection.close()
            raise fault(error, place.shown) from None
        except BaseException:
            connection.close()
            raise
        store = cls(connection, place, key, timeout)
        store.schema_version = version
        if upgrading:
            store._compressed_checkpoints = _compressed_checkpoints(connection, place.schema)
        store.set_durability(durability)
        return store

    @classmethod
    def create(
        cls,
        location: str,
        durability: str = "full",
        busy_timeout: float | None = None,
        init_time: str | None = None,
    ) -> "PostgresStore":
        """A new, empty memory (a new schema); "already exists" if the name is taken.

        ``init_time`` dates its init event (``jtms import-memory`` keeps the exported one).
        """
        return cls._attach(location, durability, busy_timeout, create=True, init_time=init_time)

    @classmethod
    def open(
        cls,
        location: str,
        durability: str = "full",
        busy_timeout: float | None = None,
        upgrading: bool = False,
    ) -> "PostgresStore":
        """An existing memory of this database; anything else is refused, nothing written.

        ``upgrading``: also accept a memory of the previous layout (for :meth:`upgrade_schema`).
        """
        return cls._attach(location, durability, busy_timeout, create=False, upgrading=upgrading)

    @staticmethod
    def _install(
        connection: psycopg.Connection[Any], place: PostgresLocation, init_time: str
    ) -> None:
        schema = sql.Identifier(place.schema)
        try:
            with connection.transaction():
                connection.execute(sql.SQL("CREATE SCHEMA {}").format(schema))
                connection.execute(sql.SQL("SET LOCAL search_path TO {}").format(schema))
                connection.execute(SCHEMA)
                for statement in _triggers(place.schema):
                    connection.execute(statement)
                connection.execute(
                    "INSERT INTO meta (key, value) VALUES (%s, %s), (%s, %s), (%s, %s)",
                    (
                        "application",
                        APPLICATION,
                        "schema_version",
                        str(POSTGRES_SCHEMA_VERSION),
                        "secret",
                        new_secret(),
                    ),
                )
                connection.execute(
                    "INSERT INTO events (id, kind, time) VALUES (1, 'init', %s)", (init_time,)
                )
        except (psycopg.errors.DuplicateSchema, psycopg.errors.UniqueViolation):
            # a concurrent CREATE SCHEMA of the same name loses on the catalog's unique index
            raise InputError(
                f"memory {place.memory!r} already exists in this database "
                f"(use another ?memory=NAME)",
                source=place.shown,
            ) from None
        except psycopg.errors.InsufficientPrivilege as error:
            raise InputError(
                f"cannot create memory {place.memory!r}: {one_line(error)}", source=place.shown
            ) from None

    @staticmethod
    def _check(
        connection: psycopg.Connection[Any], place: PostgresLocation, upgrading: bool = False
    ) -> tuple[int, int]:
        """The memory's lock key and schema version, after checking that the schema is a jtms
        memory we read (``upgrading``: or one ``jtms upgrade`` brings to this version)."""
        row = connection.execute(
            "SELECT oid::bigint FROM pg_namespace WHERE nspname = %s", (place.schema,)
        ).fetchone()
        if row is None:
            raise InputError(
                f"no memory {place.memory!r} in this database (create it with "
                f"`jtms init --db {place.shown}`; `jtms memories --db "
                f"{place.database}` lists them)",
                source=place.shown,
            )
        meta = (
            connection.execute(
                sql.SQL(
                    "SELECT key, value FROM {}.meta WHERE key IN ('application', 'schema_version')"
                ).format(sql.Identifier(place.schema))
            ).fetchall()
            if has_meta(connection, place.schema)
            else []
        )
        values = dict(meta)
        if values.get("application") != APPLICATION:
            raise InputError(f"schema {place.schema!r} is not a jtms memory", source=place.shown)
        version = values.get("schema_version")
        upgradable = version == str(PER_ROW_VERSION)
        if version != str(POSTGRES_SCHEMA_VERSION) and not (upgrading and upgradable):
            if upgradable:
                advice = f"run `jtms upgrade --db {place.shown}`"
            elif newer_version(version, POSTGRES_SCHEMA_VERSION):
                advice = "written by a newer jtms: upgrade jtms-revision"
            else:
                advice = (
                    "export it with the jtms that wrote it (`jtms export`), then import it "
                    "into a new memory"
                )
            raise InputError(
                f"schema version {shown_version(version)}, this jtms reads version "
                f"{POSTGRES_SCHEMA_VERSION}: "
                f"{advice}",
                source=place.shown,
            )
        oid = int(row[0])
        return (oid - (1 << 32) if oid >= (1 << 31) else oid), int(version or 0)

    @staticmethod
    def _add_features(connection: psycopg.Connection[Any], schema: str, key: int) -> None:
        """Give a memory created before them the search index and the erasure records
        (``schema.sql``'s features section, with the triggers that index new nodes and let
        a purge empty content), under the memory's write lock, in one transaction that adds
        no event; the index is built from the stored nodes. A role that may not create them
        leaves the memory as it is (searching it then says so)."""
        if _has_features(connection, schema):
            return
        try:
            with connection.transaction():
                connection.execute(
                    sql.SQL("SET LOCAL search_path TO {}").format(sql.Identifier(schema))
                )
                connection.execute(
                    "SELECT pg_advisory_xact_lock(%s, %s)", (JTMS_LOCK_CLASS, int(key))
                )
                if _has_features(connection, schema):  # another process added them meanwhile
                    return
                indexed = connection.execute(
                    "SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                    "WHERE n.nspname = %s AND c.relname = 'node_search'",
                    (schema,),
                ).fetchone()
                connection.execute(_schema_section("features"))
                for table in ("expiries", "erasures", *PURGEABLE):
                    for trigger in ("append_only", "no_truncate", "references"):
                        connection.execute(
                            sql.SQL("DROP TRIGGER IF EXISTS {} ON {}").format(
                                sql.Identifier(f"{table}_{trigger}"), sql.Identifier(table)
                            )
                        )
                connection.execute("DROP TRIGGER IF EXISTS nodes_search ON nodes")
                for statement in (
                    *_triggers(schema, ("expiries", "erasures")),
                    *[
                        statement
                        for statement in _triggers(schema, PURGEABLE)
                        if "events_notify" not in statement.as_string(connection)
                    ],
                ):
                    connection.execute(statement)
                if not indexed:
                    connection.execute(
                        "INSERT INTO node_search (num, document) "
                        "SELECT num, search_document(id, text) FROM nodes"
                    )
        except psycopg.errors.InsufficientPrivilege:
            return

    @property
    def needs_upgrade(self) -> bool:
        """True for a memory of the previous layout, or one whose checkpoints are stored
        compressed (opened with ``upgrading=True``)."""
        return self.schema_version != POSTGRES_SCHEMA_VERSION or self._compressed_checkpoints

    def upgrade_schema(self) -> None:
        """Inside :meth:`write`: bring a memory of the per-row layout (version 3) to batches,
        and store checkpoints uncompressed.

        The rows of each run of consecutive sequence numbers of one event (and status) become
        one batch, so every revision and support keeps its sequence number. A checkpoint is a
        blob of megabytes that a writer replaces every few thousand rows; PostgreSQL's
        default storage compresses it (pglz), which took about ten times as long as storing
        it (``schema.sql`` says ``STORAGE EXTERNAL`` for new memories). Stored checkpoints
        stay as they are; the next one is written uncompressed."""
        if not self.needs_upgrade:
            return
        self._unpipe()  # schema.sql's sections are scripts of many statements
        if self.schema_version != POSTGRES_SCHEMA_VERSION:
            self._batches_of_rows()
        if self._compressed_checkpoints:
            self._db.execute("ALTER TABLE checkpoints ALTER COLUMN data SET STORAGE EXTERNAL")
            self._compressed_checkpoints = False

    def _batches_of_rows(self) -> None:
        """The per-row layout (version 3) to batches (:meth:`upgrade_schema`)."""
        db = self._db
        for table in ("revisions", "supports"):
            for trigger in (f"{table}_append_only", f"{table}_no_truncate", f"{table}_references"):
                db.execute(
                    sql.SQL("DROP TRIGGER IF EXISTS {} ON {}").format(
                        sql.Identifier(trigger), sql.Identifier(table)
                    )
                )
            db.execute(
                sql.SQL("ALTER TABLE {} RENAME TO {}").format(
                    sql.Identifier(table), sql.Identifier(f"old_{table}")
                )
            )
            for index in (f"{table}_by_event", f"{table}_by_node"):
                db.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(sql.Identifier(index)))
        db.execute(_schema_section("batches"))
        # the reference checks of batches, and the views' triggers' functions
        db.execute(
            _schema_section("checks").replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION")
        )
        db.execute(
            "INSERT INTO revision_batches (first_seq, status, event, nodes) "
            "SELECT min(seq), status, event, array_agg(node ORDER BY seq) FROM "
            "(SELECT *, seq - row_number() OVER (PARTITION BY event, status ORDER BY seq) AS run "
            " FROM old_revisions) r GROUP BY event, status, run ORDER BY 1"
        )
        db.execute(
            "INSERT INTO support_batches (first_seq, event, nodes, justifications, ranks) "
            "SELECT min(seq), event, array_agg(node ORDER BY seq), "
            "array_agg(justification ORDER BY seq), array_agg(rank ORDER BY seq) FROM "
            "(SELECT *, seq - row_number() OVER (PARTITION BY event ORDER BY seq) AS run "
            " FROM old_supports) s GROUP BY event, run ORDER BY 1"
        )
        db.execute("DROP TABLE old_revisions, old_supports")
        batched = ("revision_batches", "support_batches", *BATCHED_VIEWS)
        for statement in _triggers(self._place.schema, batched):
            db.execute(statement)
        db.execute(
            "UPDATE meta SET value = %s WHERE key = 'schema_version'",
            (str(POSTGRES_SCHEMA_VERSION),),
        )
        self.schema_version = POSTGRES_SCHEMA_VERSION

    @property
    def backend_pid(self) -> int:
        """The server process of this store's connection (tests end it to simulate a crash)."""
        return int(self._db.info.backend_pid)

    def close(self) -> None:
        for connection in (self._db, self._listener):
            if connection is not None and not connection.closed:
                connection.close()
        self._listener = None

    def set_durability(self, durability: str) -> None:
        durability_setting(durability)
        self._durability = durability
        with self._faults():
            self._session(self._db)

    def _session(self, connection: psycopg.Connection[Any]) -> None:
        """The settings of this store's sessions: the memory's schema, the durability."""
        value = "on" if self._durability == "full" else "off"
        connection.execute(
            sql.SQL("SET search_path TO {}; SET synchronous_commit TO {}").format(
                sql.Identifier(self._place.schema), sql.SQL(value)
            )
        )

    def _begin(self, statement: str) -> None:
        """Start a transaction with ``statement`` (which ends by reading the newest event id:
        kept for :meth:`last_event`, one round trip fewer per read and write); if the server
        ended this idle session (a restart, an administrator's ``pg_terminate_backend``), open
        a new one and start it there: nothing was in flight, so nothing is lost, and the caller
        catches up by event id as usual."""
        try:
            self._last_event = _last_result(self._db.execute(statement))
            return
        except psycopg.OperationalError:
            if not (self._db.closed or self._db.broken):
                raise
        connection = connect(self._place.conninfo, self._place.shown)
        try:
            self._session(connection)
            self._last_event = _last_result(connection.execute(statement))
        except BaseException:
            connection.close()
            raise
        self._db.close()
        self._db = connection

    @contextmanager
    def _faults(self) -> Iterator[None]:
        try:
            yield
        except psycopg.Error as error:
            raise fault(error, self.location) from None

    # --- transactions -------------------------------------------------------------------------
    @contextmanager
    def read(self) -> Iterator[None]:
        if self._depth:  # inside write() or read(): already one snapshot
            yield
            return
        with self._faults():
            self._begin(f"BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; {NEWEST_EVENT}")
        self._depth += 1
        try:
            yield
        except psycopg.Error as error:
            raise fault(error, self.location) from None
        finally:
            self._depth -= 1
            self._end("ROLLBACK")

    @contextmanager
    def write(self) -> Iterator[None]:
        if self._depth:
            raise RuntimeError("a write cannot start inside another transaction")
        started = time.monotonic()
        timeout_ms = max(1, int(self.busy_timeout * 1000))
        try:
            if self.serialise == "serializable":
                self._begin(f"BEGIN ISOLATION LEVEL SERIALIZABLE; {NEWEST_EVENT}")
            else:
                # one round trip: each statement after the lock has its own snapshot (READ
                # COMMITTED), so the newest event id is read after the lock is granted
                self._begin(
                    f"BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = {timeout_ms}; "
                    f"SELECT pg_advisory_xact_lock({JTMS_LOCK_CLASS}, {int(self._lock_key)}); "
                    f"{NEWEST_EVENT}"
                )
        except psycopg.Error as error:
            self._end("ROLLBACK")
            raise fault(
                error, self.location, time.monotonic() - started, self.busy_timeout
            ) from None
        self._depth += 1
        try:
            self._pipe()
            yield
            self._depth -= 1
            self._db.execute("COMMIT")
            self._unpipe()
        except psycopg.Error as error:
            self._depth = 0
            self._unpipe(failed=True)
            self._end("ROLLBACK")
            raise fault(error, self.location) from None
        except BaseException:
            self._depth = 0
            self._unpipe(failed=True)
            self._end("ROLLBACK")
            raise

    def _pipe(self) -> None:
        """Send a write's statements in pipeline mode: each goes to the server at once and runs
        there while this process goes on (planning, applying the plan to its state); their
        results are awaited together with COMMIT's, one round trip for the whole write. A
        statement whose result is read (a query) or a COPY waits as before."""
        if self._pipeline is None:
            pipeline = self._db.pipeline()
            pipeline.__enter__()
            self._pipeline = pipeline

    def _unpipe(self, failed: bool = False) -> None:
        """Await every statement sent (raising the first error) and leave pipeline mode; after
        a failure, leave it quietly (the caller rolls back)."""
        pipeline, self._pipeline = self._pipeline, None
        if pipeline is None:
            return
        if failed:
            error = psycopg.OperationalError("the write failed")
            pipeline.__exit__(type(error), error, None)
        else:
            pipeline.__exit__(None, None, None)

    def _end(self, statement: str) -> None:
        """End the transaction if the connection still has one (a lost one has none)."""
        db = self._db
        if db.closed or db.broken:
            return
        if db.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            try:
                db.execute(statement)
            except psycopg.Error:
                pass

    # --- the event log ------------------------------------------------------------------------
    def _rows(
        self, query: str | sql.Composable, params: Sequence[Any] = ()
    ) -> list[tuple[Any, ...]]:
        return self._db.execute(query, params).fetchall()  # type: ignore[arg-type]

    def last_event(self) -> int:
        if self._last_event is not None and self._depth:  # read when the transaction began
            return self._last_event
        return int(self._rows(NEWEST_EVENT)[0][0])

    _EVENT_COLUMNS = "id, kind, time, actor, reason, roots, target, source"

    @staticmethod
    def _event_row(row: tuple[Any, ...]) -> EventRow:
        event_id, kind, when, actor, reason, roots, target, source = row
        return EventRow(
            int(event_id),
            kind,
            when,
            actor,
            reason,
            tuple(roots) if roots is not None else None,
            int(target) if target is not None else None,
            source,
        )

    def events(self, after: int, upto: int) -> list[EventRow]:
        return [
            self._event_row(r)
            for r in self._rows(
                f"SELECT {self._EVENT_COLUMNS} FROM events WHERE id > %s AND id <= %s ORDER BY id",
                (after, upto),
            )
        ]

    def event(self, event_id: int) -> EventRow | None:
        if not -(1 << 63) <= event_id < (1 << 63):
            return None
        rows = self._rows(f"SELECT {self._EVENT_COLUMNS} FROM events WHERE id = %s", (event_id,))
        return self._event_row(rows[0]) if rows else None

    def open_audits(self) -> list[EventRow]:
        return [
            self._event_row(r)
            for r in self._rows(
                f"SELECT {self._EVENT_COLUMNS} FROM events a WHERE kind = 'audit' AND NOT EXISTS "
                "(SELECT 1 FROM events r WHERE r.kind = 'reinstate' AND r.target = a.id) ORDER BY id"
            )
        ]

    def nodes(self, first: int = 0) -> list[NodeRow]:
        return [
            NodeRow(num, node_id, kind == "evidence", int(event), status)
            for num, node_id, kind, event, status in self._rows(
                "SELECT num, id, kind, event, status FROM nodes WHERE num >= %s ORDER BY num",
                (first,),
            )
        ]

    def justifications(self, first: int = 0) -> list[JustificationRow]:
        return [
            JustificationRow(num, claim, tuple(antecedents), int(event))
            for num, claim, antecedents, event in self._rows(
                "SELECT num, claim, antecedents, event FROM justifications WHERE num >= %s "
                "ORDER BY num",
                (first,),
            )
        ]

    def revisions(self, after: int, upto: int) -> list[RevisionRow]:
        return [
            RevisionRow(int(seq), node, status, int(event))
            for seq, node, status, event in self._rows(
                "SELECT seq, node, status, event FROM revisions WHERE event > %s "
                "AND event <= %s ORDER BY seq",
                (after, upto),
            )
        ]

    def supports(self, after: int, upto: int) -> list[SupportRow]:
        return [
            SupportRow(int(seq), node, j, rank, int(event))
            for seq, node, j, rank, event in self._rows(
                "SELECT seq, node, justification, rank, event FROM supports WHERE event > %s "
                "AND event <= %s ORDER BY seq",
                (after, upto),
            )
        ]

    def revision_columns(self, after: int, upto: int) -> tuple[array[int], bytes]:
        # the batches themselves in binary, not the view's row per revision (5,000 revisions:
        # about 20 -> 3 ms, a cold command's replay of the audits since the checkpoint)
        cursor = self._db.cursor(binary=True)
        nodes, active = array("q"), bytearray()
        for status, batch in cursor.execute(
            "SELECT status = 'active', nodes FROM revision_batches WHERE event > %s "
            "AND event <= %s ORDER BY first_seq",
            (after, upto),
        ):
            nodes.extend(batch)
            active.extend(repeat(status, len(batch)))
        return nodes, bytes(active)

    def support_columns(self, after: int, upto: int) -> tuple[array[int], array[int], array[int]]:
        cursor = self._db.cursor(binary=True)
        columns: tuple[array[int], array[int], array[int]] = (array("q"), array("q"), array("q"))
        for batch in cursor.execute(
            "SELECT nodes, justifications, ranks FROM support_batches WHERE event > %s "
            "AND event <= %s ORDER BY first_seq",
            (after, upto),
        ):
            for column, values in zip(columns, batch):
                column.extend(values)
        return columns

    def checkpoint(self, event: int | None = None) -> Checkpoint | None:
        # in binary: the blob comes as its bytes, not as hex text to decode (11.8 MB at 100k
        # claims: about 90 -> 20 ms, most of a cold command's time after its imports)
        cursor = self._db.cursor(binary=True)
        if event is None:
            rows = cursor.execute(
                "SELECT event, data FROM checkpoints ORDER BY event DESC LIMIT 1"
            ).fetchall()
        else:
            rows = cursor.execute(
                "SELECT event, data FROM checkpoints WHERE event = %s", (event,)
            ).fetchall()
        return Checkpoint(int(rows[0][0]), bytes(rows[0][1])) if rows else None

    def nogoods(self, after: int = 0) -> list[NogoodRow]:
        return [
            NogoodRow(nogood_id, tuple(nodes), text, author, int(event), status)
            for nogood_id, nodes, text, author, event, status in self._rows(
                "SELECT id, nodes, text, author, event, status FROM nogoods WHERE event > %s "
                "ORDER BY event, ord",
                (after,),
            )
        ]

    # --- reads for people ---------------------------------------------------------------------
    def texts(self) -> dict[str, str]:
        return dict(self._rows("SELECT id, text FROM nodes"))  # type: ignore[arg-type]

    def creation_events(self) -> dict[str, int]:
        return {node_id: int(event) for node_id, event in self._rows("SELECT id, event FROM nodes")}

    def node_creation(self, node_id: str) -> tuple[int, str] | None:
        rows = self._rows(
            "SELECT n.event, e.time FROM nodes n JOIN events e ON e.id = n.event WHERE n.id = %s",
            (node_id,),
        )
        return (int(rows[0][0]), str(rows[0][1])) if rows else None

    def node_record(self, node_id: str) -> dict[str, Any] | None:
        rows = self._rows(
            "SELECT n.id, n.kind, n.text, n.author, n.expression, n.value, e.time "
            "FROM nodes n JOIN events e ON e.id = n.event WHERE n.id = %s",
            (node_id,),
        )
        keys = ("id", "kind", "text", "author", "expression", "value", "created")
        return dict(zip(keys, rows[0])) if rows else None

    def calculations(self) -> list[tuple[str, str, str]]:
        return [
            (a, b, c)
            for a, b, c in self._rows(
                "SELECT id, expression, value FROM nodes WHERE kind = 'evidence' "
                "AND expression IS NOT NULL ORDER BY num"
            )
        ]

    def history(self, num: int) -> list[HistoryRow]:
        rows = [
            HistoryRow(0, status, int(event), kind, when, actor, reason)
            for status, event, kind, when, actor, reason in self._rows(
                "SELECT n.status, e.id, e.kind, e.time, e.actor, e.reason FROM nodes n "
                "JOIN events e ON e.id = n.event WHERE n.num = %s",
                (num,),
            )
        ]
        rows += [
            HistoryRow(int(seq), status, int(event), kind, when, actor, reason)
            for seq, status, event, kind, when, actor, reason in self._rows(
                "SELECT b.first_seq + t.ord - 1, b.status, e.id, e.kind, e.time, e.actor, "
                "e.reason FROM revision_batches b JOIN events e ON e.id = b.event, "
                "unnest(b.nodes) WITH ORDINALITY AS t(node, ord) "
                "WHERE b.nodes @> ARRAY[%s]::integer[] AND t.node = %s ORDER BY 1",
                (num, num),
            )
        ]
        return rows

    def nogood_history(self, nogood_id: str) -> list[HistoryRow]:
        rows = [
            HistoryRow(0, status, int(event), kind, when, actor, reason)
            for status, event, kind, when, actor, reason in self._rows(
                "SELECT g.status, e.id, e.kind, e.time, e.actor, e.reason FROM nogoods g "
                "JOIN events e ON e.id = g.event WHERE g.id = %s",
                (nogood_id,),
            )
        ]
        rows += [
            HistoryRow(int(seq), status, int(event), kind, when, actor, reason)
            for seq, status, event, kind, when, actor, reason in self._rows(
                "SELECT r.seq, r.status, e.id, e.kind, e.time, e.actor, e.reason "
                "FROM nogood_revisions r JOIN events e ON e.id = r.event "
                "WHERE r.nogood = %s ORDER BY r.seq",
                (nogood_id,),
            )
        ]
        return rows

    def audits_naming(self, node_id: str) -> list[int]:
        return [
            int(row[0])
            for row in self._rows(
                "SELECT id FROM events WHERE kind = 'audit' AND %s = ANY (roots) ORDER BY id",
                (node_id,),
            )
        ]

    def last_deactivation(self, num: int) -> int | None:
        rows = self._rows(
            "SELECT b.event FROM revision_batches b WHERE b.nodes @> ARRAY[%s]::integer[] "
            "AND b.status = 'inactive' ORDER BY b.first_seq DESC LIMIT 1",
            (num,),
        )
        return int(rows[0][0]) if rows else None

    def withdrawals(self) -> list[WithdrawalRow]:
        return [
            WithdrawalRow(node, int(event), kind, reason, actor, when)
            for node, event, kind, reason, actor, when in self._rows(
                "SELECT n.id, r.event, e.kind, e.reason, e.actor, e.time FROM "
                "(SELECT DISTINCT ON (node) seq, node, status, event FROM revisions "
                " ORDER BY node, seq DESC) r "
                "JOIN nodes n ON n.num = r.node JOIN events e ON e.id = r.event "
                "WHERE r.status = 'inactive' ORDER BY r.seq DESC"
            )
        ]

    def stored_status(self) -> dict[int, str]:
        status: dict[int, str] = dict(self._rows("SELECT num, status FROM nodes"))  # type: ignore[arg-type]
        for node, value in self._rows(
            "SELECT DISTINCT ON (node) node, status FROM revisions ORDER BY node, seq DESC"
        ):
            status[node] = value
        return status

    def rows(self, table: str) -> list[dict[str, Any]]:
        """Every row of ``table`` in primary-key order, with the SQLite backend's values
        (``roots`` as a JSON list, ``antecedents`` as space-separated numbers), so that an
        export does not depend on the backend."""
        if table not in TABLES:
            raise InputError(f"unknown table {table!r} (one of {', '.join(TABLES)})")
        if table in ("expiries", "erasures") and not _has_features(self._db, self._place.schema):
            return []  # a memory made before them, read where they cannot be added
        cursor = self._db.execute(
            sql.SQL("SELECT * FROM {} ORDER BY 1").format(sql.Identifier(table))
        )
        names = [d.name for d in cursor.description or ()]
        result = []
        for row in cursor:
            record = dict(zip(names, row))
            if table == "events" and record["roots"] is not None:
                record["roots"] = _json_list(record["roots"])
            if table == "nogoods":
                record["nodes"] = _json_list(record["nodes"])
                del record["ord"]
            if table == "justifications":
                record["antecedents"] = " ".join(map(str, record["antecedents"]))
            result.append(record)
        return result

    def problems(self) -> list[str]:
        """References, dense numbering and the presence of the append-only triggers."""
        checks = [
            (
                "node numbers are not dense",
                "SELECT count(*) FROM nodes HAVING count(*) > 0 AND max(num) <> count(*) - 1",
            ),
            (
                "justification numbers are not dense",
                "SELECT count(*) FROM justifications HAVING count(*) > 0 AND max(num) <> count(*) - 1",
            ),
            (
                "a justification refers to a missing node",
                "SELECT j.num FROM justifications j WHERE NOT EXISTS "
                "(SELECT 1 FROM nodes n WHERE n.num = j.claim) OR EXISTS (SELECT 1 FROM "
                "unnest(j.antecedents) a WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE n.num = a))",
            ),
            (
                "a revision refers to a missing node or event",
                "SELECT r.seq FROM revisions r WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE "
                "n.num = r.node) OR NOT EXISTS (SELECT 1 FROM events e WHERE e.id = r.event)",
            ),
            (
                "a support refers to a missing justification or event",
                "SELECT s.seq FROM supports s WHERE NOT EXISTS (SELECT 1 FROM justifications j "
                "WHERE j.num = s.justification) OR NOT EXISTS (SELECT 1 FROM events e WHERE "
                "e.id = s.event)",
            ),
            *(
                (
                    f"{what} sequence numbers are not dense",
                    f"SELECT 1 FROM (SELECT first_seq, lag(first_seq + cardinality(nodes), 1, "
                    f"1::bigint) OVER (ORDER BY first_seq) AS prev FROM {table}) b "
                    f"WHERE b.prev <> b.first_seq LIMIT 1",
                )
                for what, table in (
                    ("revision", "revision_batches"),
                    ("support", "support_batches"),
                )
            ),
            (
                "a node refers to a missing event",
                "SELECT n.num FROM nodes n WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.id = n.event)",
            ),
        ]
        problems = [f"postgres integrity: {what}" for what, query in checks if self._rows(query)]
        enabled = {
            name
            for (name,) in self._rows(
                "SELECT t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                "WHERE c.relnamespace = %s::regnamespace AND t.tgenabled <> 'D'",
                (self._place.schema,),
            )
        }
        for table in IMMUTABLE_TABLES:
            for trigger in (f"{table}_append_only", f"{table}_no_truncate", f"{table}_references"):
                if trigger not in enabled:
                    problems.append(f"postgres integrity: trigger {trigger} is missing or disabled")
        for view in BATCHED_VIEWS:
            for trigger in (f"{view}_append_only", f"{view}_insert"):
                if trigger not in enabled:
                    problems.append(f"postgres integrity: trigger {trigger} is missing or disabled")
        return problems

    # --- search and erasures ---------------------------------------------------------------------
    def search(self, words: Sequence[str]) -> list[tuple[int, float]]:
        """(node number, score) of every node whose id or text holds each of ``words`` (a
        word, a word of the same stem, or one they begin), best first (``ts_rank`` of the
        GIN-indexed documents, the id weighted above the text; ties by number). The words
        go through ``websearch_to_tsquery`` (English stemming, stop words dropped), each
        lexeme then made a prefix."""
        if not _has_features(self._db, self._place.schema):
            raise InputError(
                "this memory has no search index yet: open it once with a role that may "
                "create tables (any jtms command) to build it",
                source=self.location,
            )
        return [(int(num), float(score)) for num, score in self._rows(_SEARCH, (" ".join(words),))]

    def texts_of(self, nums: Sequence[int]) -> dict[int, str]:
        """Node number -> its text, for the nodes ``nums`` (a page of hits)."""
        rows = self._rows(
            "SELECT num, text FROM nodes WHERE num = ANY(%s)", (IntArray([int(n) for n in nums]),)
        )
        return {int(num): str(text) for num, text in rows}

    def add_expiry(self, num: int, until: str, event: int) -> None:
        """Inside :meth:`write`: evidence ``num`` (added by ``event``) counts as audited
        from ``until`` on."""
        self._db.execute(
            "INSERT INTO expiries (node, until, event) VALUES (%s, %s, %s)", (num, until, event)
        )

    def add_expiries(self, rows: Iterable[tuple[int, str]], event: int) -> None:
        tail = f"\t{int(event)}\n"
        lines = "".join(f"{int(num)}\t{_copy_text(until)}{tail}" for num, until in rows)
        self._copy("COPY expiries (node, until, event) FROM STDIN", lines)

    def expiries(self) -> dict[int, str]:
        """Evidence number -> its ``valid_until`` (ISO 8601, UTC)."""
        if not _has_features(self._db, self._place.schema):
            return {}
        return {int(n): str(u) for n, u in self._rows("SELECT node, until FROM expiries")}

    def due_expiries(self, now: str, upto: int) -> list[int]:
        """Evidence numbers whose ``valid_until`` is at or before ``now`` and that no audit
        with reason "expired" among events up to ``upto`` names yet, by number."""
        if not _has_features(self._db, self._place.schema):
            return []
        return [
            int(num)
            for (num,) in self._rows(
                "SELECT x.node FROM expiries x JOIN nodes n ON n.num = x.node "
                "WHERE x.until <= %s AND n.event <= %s AND NOT EXISTS (SELECT 1 FROM events e "
                "WHERE e.kind = 'audit' AND e.reason = 'expired' AND e.id <= %s "
                "AND n.id = ANY(e.roots)) ORDER BY x.node",
                (now, upto, upto),
            )
        ]

    def next_expiry(self, upto: int) -> str | None:
        """The earliest ``valid_until`` of evidence (existing at event ``upto``) that no
        audit with reason "expired" up to ``upto`` names yet; None when there is none."""
        if not _has_features(self._db, self._place.schema):
            return None
        found = self._rows(
            "SELECT min(x.until) FROM expiries x JOIN nodes n ON n.num = x.node "
            "WHERE n.event <= %s AND NOT EXISTS (SELECT 1 FROM events e WHERE e.kind = 'audit' "
            "AND e.reason = 'expired' AND e.id <= %s AND n.id = ANY(e.roots))",
            (upto, upto),
        )[0][0]
        return None if found is None else str(found)

    def erasures(self) -> dict[int, int]:
        """Node number -> the event (an audit) that purged its content."""
        if not _has_features(self._db, self._place.schema):
            return {}
        return {int(n): int(e) for n, e in self._rows("SELECT node, event FROM erasures")}

    def add_erasure(self, num: int, event: int) -> None:
        """Inside :meth:`write`: the erasure record alone (see the protocol)."""
        self._db.execute("INSERT INTO erasures (node, event) VALUES (%s, %s)", (num, event))

    def purge(self, num: int, event: int) -> None:
        """Inside :meth:`write`: erase node ``num``'s text, author, expression and value (and
        the author its creating event kept as actor) for the purge ``event``; the erasure
        record first, which is what lets ``refuse_unless_purge`` pass these updates. Its
        search document keeps the id alone. The old row versions stay in the relation
        files until :meth:`scrub` vacuums them."""
        self._db.execute("INSERT INTO erasures (node, event) VALUES (%s, %s)", (num, event))
        self._db.execute(
            "UPDATE nodes SET text = '', author = NULL, expression = NULL, value = NULL "
            "WHERE num = %s",
            (num,),
        )
        self._db.execute(
            "UPDATE node_search SET document = search_document(n.id, '') FROM nodes n "
            "WHERE n.num = %s AND node_search.num = n.num",
            (num,),
        )
        self._db.execute(
            "UPDATE events SET actor = NULL WHERE id = (SELECT event FROM nodes WHERE num = %s) "
            "AND actor IS NOT NULL AND kind IN ('add-evidence', 'add-claim')",
            (num,),
        )

    def scrub(self) -> bool:
        """After a purge's commit: ``VACUUM`` the tables a purge rewrites (nodes, events, the
        search index, with their TOAST and indexes) and rebuild the search index, so no page
        of their relation files keeps the erased content. (The server's write-ahead log keeps it until its segments
        are recycled: that is the server's, not the memory's.) True when it ran."""
        if self._depth:
            raise RuntimeError("scrub runs after the purge's transaction, not inside one")
        with self._faults():
            autocommit = self._db.autocommit
            self._db.autocommit = True
            try:
                for table in ("nodes", "events", "node_search"):
                    self._db.execute(sql.SQL("VACUUM {}").format(sql.Identifier(table)))
                # a GIN index keeps a lexeme as a key after its last row is gone: rebuilt
                self._db.execute("REINDEX INDEX node_search_documents")
            finally:
                self._db.autocommit = autocommit
        return True

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
        listed = list(roots) if roots is not None else None
        values = (kind, time, actor, reason, listed, target, source)
        if self.serialise == "lock" and self._last_event is not None:
            # the advisory lock is held and the newest id was read after it was granted: the
            # next id is known here, so the insert is sent without waiting for its answer
            event = self._last_event + 1
            self._db.execute(
                "INSERT INTO events (id, kind, time, actor, reason, roots, target, source) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                (event, *values),
            )
            self._last_event = event
            return event
        self._last_event = None  # this transaction adds one
        rows = self._rows(
            "INSERT INTO events (id, kind, time, actor, reason, roots, target, source) "
            "SELECT coalesce(max(id), 0) + 1, %s, %s, %s, %s, %s, %s, %s FROM events RETURNING id",
            values,
        )
        return int(rows[0][0])

    def add_nodes(self, nodes: Iterable[NewNode]) -> None:
        lines = "".join(
            "\t".join(
                (
                    str(n.num),
                    _copy_text(n.id),
                    n.kind,
                    _copy_text(n.text),
                    _copy_text(n.author),
                    _copy_text(n.expression),
                    _copy_text(n.value),
                    str(n.event),
                    n.status,
                )
            )
            + "\n"
            for n in nodes
        )
        self._copy(
            _COPY_NODES,
            lines,
        )

    def add_node_rows(
        self, first: int, ids: Sequence[str], evidence: int, statuses: Sequence[str], event: int
    ) -> None:
        after = f"\t\t\\N\t\\N\t\\N\t{int(event)}\t"  # text '', no author or calculation
        kinds = chain(repeat("evidence", evidence), repeat("claim", len(ids) - evidence))
        lines = "".join(
            f"{num}\t{_copy_text(node_id)}\t{kind}{after}{status}\n"
            for num, node_id, kind, status in zip(
                range(first, first + len(ids)), ids, kinds, statuses
            )
        )
        self._copy(
            _COPY_NODES,
            lines,
        )

    def add_justification_rows(
        self,
        first: int,
        claims: Sequence[int],
        offsets: Sequence[int],
        flat: Sequence[int],
        event: int,
    ) -> None:
        tail = f"}}\t{event}\n"
        lines = "".join(
            f"{first + k}\t{claim}\t{{" + ",".join(map(str, flat[a:b])) + tail
            for k, (claim, a, b) in enumerate(zip(claims, offsets, offsets[1:]))
        )
        self._copy("COPY justifications (num, claim, antecedents, event) FROM STDIN", lines)

    def add_justifications(self, justifications: Iterable[JustificationRow]) -> None:
        lines = "".join(
            f"{j.num}\t{j.claim}\t{{{','.join(map(str, j.antecedents))}}}\t{j.event}\n"
            for j in justifications
        )
        self._copy("COPY justifications (num, claim, antecedents, event) FROM STDIN", lines)

    def add_revisions(self, event: int, status: str, nodes: Iterable[int]) -> None:
        numbers = list(nodes)
        for start in range(0, len(numbers), BATCH_ROWS):
            self._db.execute(
                "INSERT INTO revision_batches (first_seq, status, event, nodes) "
                "SELECT coalesce((SELECT first_seq + cardinality(nodes) FROM revision_batches "
                "ORDER BY first_seq DESC LIMIT 1), 1), %s, %s, %s",
                (status, event, IntArray(numbers[start : start + BATCH_ROWS])),
            )

    def add_supports(self, event: int, pointers: Iterable[tuple[int, int, int]]) -> None:
        triples = list(pointers)
        for start in range(0, len(triples), BATCH_ROWS):
            nodes, justifications, ranks = zip(*triples[start : start + BATCH_ROWS])
            self._db.execute(
                "INSERT INTO support_batches (first_seq, event, nodes, justifications, ranks) "
                "SELECT coalesce((SELECT first_seq + cardinality(nodes) FROM support_batches "
                "ORDER BY first_seq DESC LIMIT 1), 1), %s, %s, %s, %s",
                (event, IntArray(nodes), IntArray(justifications), BigIntArray(ranks)),
            )

    def add_nogoods(self, nogoods: Iterable[NogoodRow]) -> None:
        rows = [(g.id, list(g.nodes), g.text, g.author, g.event, g.status) for g in nogoods]
        if rows:
            base = int(self._rows("SELECT coalesce(max(ord), 0) + 1 FROM nogoods")[0][0])
            self._db.cursor().executemany(
                "INSERT INTO nogoods (id, nodes, text, author, event, status, ord) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                [row + (base + k,) for k, row in enumerate(rows)],
            )

    def add_nogood_revisions(self, event: int, status: str, nogoods: Iterable[str]) -> None:
        names = list(nogoods)
        if names:
            self._db.execute(
                "INSERT INTO nogood_revisions (seq, nogood, status, event) "
                "SELECT base.seq + t.ord, t.nogood, %s, %s "
                "FROM (SELECT coalesce(max(seq), 0) AS seq FROM nogood_revisions) base, "
                "unnest(%s::text[]) WITH ORDINALITY AS t(nogood, ord)",
                (status, event, names),
            )

    def put_checkpoint(self, checkpoint: Checkpoint, keep: int | None = None) -> bool:
        if keep is None:
            self._db.execute("DELETE FROM checkpoints")
        elif self._rows("SELECT 1 FROM checkpoints WHERE event = %s", (keep,)):
            self._db.execute("DELETE FROM checkpoints WHERE event <> %s", (keep,))
        else:
            return False
        self._db.execute(
            "INSERT INTO checkpoints (event, data) VALUES (%s, %s)",
            (checkpoint.event, checkpoint.data),
        )
        return True

    def idempotency_key(self, key: str) -> tuple[int, str] | None:
        rows = self._rows("SELECT event, request FROM idempotency_keys WHERE key = %s", (key,))
        return (int(rows[0][0]), str(rows[0][1])) if rows else None

    def add_idempotency_key(self, key: str, request: str, event: int) -> None:
        self._db.execute(
            "INSERT INTO idempotency_keys (key, request, event) VALUES (%s, %s, %s)",
            (key, request, event),
        )

    def secret(self) -> str | None:
        rows = self._rows("SELECT value FROM meta WHERE key = 'secret'")
        return str(rows[0][0]) if rows else None

    def add_secret(self) -> None:
        self._db.execute(
            "INSERT INTO meta (key, value) VALUES ('secret', %s) ON CONFLICT (key) DO NOTHING",
            (new_secret(),),
        )

    def _copy(self, statement: str, data: str) -> None:
        if data:
            piped = self._pipeline is not None
            self._unpipe()  # COPY cannot run in pipeline mode
            with self._db.cursor().copy(statement) as copy:  # type: ignore[arg-type]
                copy.write(data)
            if piped:
                self._pipe()

    # --- notifications ------------------------------------------------------------------------
    def wait_for_change(self, after: int, timeout: float) -> int:
        """Block until an event newer than ``after`` is committed (by anyone), or ``timeout``
        seconds pass; returns the newest event id known then (``after`` if none came).

        The first call starts listening on a second connection (``LISTEN jtms_NAME``); the
        server pushes a notification at every commit of this memory, so waiting costs no
        queries. The last event is read once after ``LISTEN`` so that a commit between the
        caller's read and the listen is not missed.
        """
        deadline = time.monotonic() + max(0.0, timeout)
        with self._faults():
            listener = self._listener
            if listener is None or listener.closed or listener.broken:
                if listener is not None:
                    listener.close()
                listener = connect(self._place.conninfo, self._place.shown)
                listener.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self._place.schema)))
                self._listener = listener
                row = listener.execute(
                    sql.SQL("SELECT coalesce(max(id), 0) FROM {}.events").format(
                        sql.Identifier(self._place.schema)
                    )
                ).fetchone()
                assert row is not None  # an aggregate has one row
                newest = int(row[0])
                if newest > after:
                    return newest
            newest = after
            while True:
                remaining = deadline - time.monotonic()
                for notice in listener.notifies(timeout=max(0.0, remaining), stop_after=1):
                    newest = max(newest, int(notice.payload))
                if newest > after or time.monotonic() >= deadline:
                    return newest


NEWEST_EVENT = "SELECT coalesce(max(id), 0) FROM events"


def _schema_section(name: str) -> str:
    """The statements of ``schema.sql`` between ``-- section: NAME`` and the next
    ``-- section: end``."""
    start = SCHEMA.index(f"-- section: {name}")
    return SCHEMA[start : SCHEMA.index("-- section: end", start)]


# a node's search: the words as websearch_to_tsquery reads them (English stems), each lexeme
# made a prefix ('vaccin' -> 'vaccin':*), matched on the GIN index and ranked by ts_rank
_SEARCH = (
    "WITH q AS (SELECT to_tsquery('simple', regexp_replace("
    "websearch_to_tsquery('english', %s)::text, '''([^'']+)''', '''\\1'':*', 'g')) AS query) "
    "SELECT s.num, ts_rank(s.document, q.query) AS score FROM node_search s, q "
    "WHERE s.document @@ q.query ORDER BY score DESC, s.num"
)


# connection -> the schemas known to have them (weak: a closed connection's id can be reused)
_FEATURED: "weakref.WeakKeyDictionary[psycopg.Connection[Any], set[str]]" = (
    weakref.WeakKeyDictionary()
)


def _has_features(connection: psycopg.Connection[Any], schema: str) -> bool:
    """Whether the memory in ``schema`` has the search index, the erasure records and the
    expiries (once seen on a connection, not asked again: they are never removed)."""
    if schema in _FEATURED.get(connection, ()):
        return True
    row = connection.execute(
        "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = %s AND c.relname IN ('erasures', 'node_search', 'expiries')",
        (schema,),
    ).fetchone()
    found = row is not None and int(row[0]) == 3
    if found:
        _FEATURED.setdefault(connection, set()).add(schema)
    return found


def _last_result(cursor: psycopg.Cursor[Any]) -> int:
    """The one value of the last statement that ``cursor`` ran (of several in one string)."""
    while cursor.nextset():
        pass
    return int(cursor.fetchone()[0])  # type: ignore[index]


def _json_list(values: Sequence[str]) -> str:
    """A list as the SQLite backend stores it (JSON text), for backend-independent rows."""
    return json.dumps(list(values))


_COPY_NODES = (
    "COPY nodes (num, id, kind, text, author, expression, value, event, status) FROM STDIN"
)
_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _copy_text(value: str | None) -> str:
    """A value in COPY's text format (``\\N`` is NULL)."""
    return "\\N" if value is None else value.translate(_COPY_ESCAPES)


__all__ = [
    "BATCH_ROWS",
    "IMMUTABLE_TABLES",
    "JTMS_LOCK_CLASS",
    "POSTGRES_SCHEMA_VERSION",
    "SCHEMA",
    "PostgresStore",
]
