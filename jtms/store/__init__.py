"""Storage of a memory: one protocol (:mod:`jtms.store.protocol`), one module per backend.

``open_store`` and ``create_store`` pick the backend from the location: a file path (or
``:memory:``) is SQLite (:mod:`jtms.store.sqlite`); ``postgresql://...`` is PostgreSQL
(:mod:`jtms.store.postgres`, when installed). All SQL of the project lives in this package.

```python
from jtms.store import create_store

store = create_store(":memory:")
with store.read():
    store.last_event()      # 1: the init event
```
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from theory.errors import InputError

from jtms.store.protocol import StoreBackend, Checkpoint, EventRow, Store

if TYPE_CHECKING:  # pragma: no cover
    from jtms.store.sqlite import SqliteStore

POSTGRES_PREFIXES = ("postgresql://", "postgres://")


def _backend(location: str) -> StoreBackend:
    if location.startswith(POSTGRES_PREFIXES):
        try:
            from jtms.store.postgres import PostgresStore  # type: ignore[import-untyped,import-not-found,unused-ignore]
        except ImportError as error:
            raise InputError(f"PostgreSQL memories need the PostgreSQL backend ({error})",
                             source=location.split("?", 1)[0]) from None
        backend: StoreBackend = PostgresStore  # type: ignore[assignment,unused-ignore]
        return backend
    from jtms.store.sqlite import SqliteStore

    return SqliteStore


def open_store(location: str | Path, durability: str = "full",
               busy_timeout: float | None = None) -> Store:
    """An existing memory at ``location``; anything else is an :class:`InputError`."""
    location = str(location)
    return _backend(location).open(location, durability, busy_timeout)


def create_store(location: str | Path, durability: str = "full",
                 busy_timeout: float | None = None, init_time: str | None = None) -> Store:
    """A new, empty memory at ``location`` (refused with "already exists" if there is one).

    ``init_time`` dates its init event (default: now; ``jtms import-memory`` keeps the
    exported memory's)."""
    location = str(location)
    return _backend(location).create(location, durability, busy_timeout, init_time=init_time)


def upgrade_store(location: str | Path, durability: str = "full",
                  busy_timeout: float | None = None) -> "SqliteStore":
    """An SQLite memory of an older schema version, opened to be upgraded (``jtms upgrade``)."""
    location = str(location)
    if location.startswith(POSTGRES_PREFIXES):
        raise InputError("only SQLite memories have older schema versions to upgrade",
                         source=location.split("?", 1)[0])
    from jtms.store.sqlite import SqliteStore

    return SqliteStore.open(location, durability, busy_timeout, upgrading=True)


__all__ = ["Checkpoint", "EventRow", "Store", "create_store", "open_store", "upgrade_store"]
