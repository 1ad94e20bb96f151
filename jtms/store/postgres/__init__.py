"""The PostgreSQL backend of :class:`jtms.store.protocol.Store`: one memory shared by many agents.

Modules: ``location`` (the URL), ``connection`` (connecting, faults as one line), ``schema.sql``
(the tables), ``store`` (:class:`PostgresStore`), ``admin`` (the memories of a database).

A location is ``postgresql://USER[:PASSWORD]@HOST:PORT/DBNAME?memory=NAME`` (docs/design.md section
4; ``memory`` defaults to ``default``; every other query parameter goes to libpq, e.g.
``sslmode=require``). One database holds many memories: each is its own PostgreSQL schema
``jtms_NAME`` with the same tables as the SQLite backend, and a connection only ever names
that schema (its ``search_path``), so no read or write crosses memories. Revisions and support
pointers are stored one row of arrays per write (``revision_batches``, ``support_batches``:
an audit revises hundreds of nodes, and a row each was most of its time on the server); the
views ``revisions`` and ``supports`` give SQLite's rows (docs/postgres.md, "How the log is laid
out").

```python
from jtms.store import create_store, open_store

store = create_store("postgresql://postgres@127.0.0.1:5432/test?memory=team")  # doctest: +SKIP
with store.read():                                                             # doctest: +SKIP
    store.last_event()      # 1: the init event
```

The guarantees are the database's own:

- **Append-only.** Triggers refuse ``UPDATE``, ``DELETE`` and ``TRUNCATE`` on events, nodes,
  justifications and the batches, and ``UPDATE`` and ``DELETE`` on the views (only the derived
  ``checkpoints`` are replaced).
  References (a justification's claim, a revision's node, every row's event) are checked by
  statement-level triggers on the inserted rows, so a bulk ``COPY`` is checked in one join
  rather than row by row (nothing referenced can ever be deleted, so checking inserts is
  enough).
- **One transaction per write, writers serialised.** :meth:`PostgresStore.write` begins a
  ``READ COMMITTED`` transaction and first takes a transaction-level advisory lock on the
  memory (``pg_advisory_xact_lock(JTMS_LOCK_CLASS, schema oid)``): writers to one memory queue,
  writers to other memories never wait, and every statement after the lock sees every commit
  before it. Event ids, revision and support sequence numbers are ``max + 1`` under that lock,
  so they are dense and equal to a serial replay's. (Serialisable transactions instead make
  concurrent writers fail and retry; ``benchmarks/bench_postgres.py --serialise`` measures both.)
- **One snapshot per read.** :meth:`PostgresStore.read` is ``REPEATABLE READ READ ONLY``.
- **Notifications.** A statement trigger on ``events`` sends ``NOTIFY jtms_NAME, '<last id>'``
  at commit; :meth:`PostgresStore.wait_for_change` blocks on ``LISTEN`` (no polling) and
  returns the newest event id, from which the caller catches up through the event log.

Every fault (server down, wrong password, missing database, missing memory, connection lost,
lock not granted in time) is one :class:`theory.model.errors.InputError` line; an interrupted write
rolls back (PostgreSQL aborts a transaction whose connection dies).
"""

from jtms.store.postgres.admin import MemoryInfo, drop_memories, drop_memory, list_memories
from jtms.store.postgres.connection import server_problem
from jtms.store.postgres.location import (
    DEFAULT_MEMORY,
    PostgresLocation,
    hide_password,
    parse_location,
)
from jtms.store.postgres.store import PostgresStore

__all__ = [
    "DEFAULT_MEMORY",
    "MemoryInfo",
    "PostgresLocation",
    "PostgresStore",
    "drop_memories",
    "drop_memory",
    "hide_password",
    "list_memories",
    "parse_location",
    "server_problem",
]
