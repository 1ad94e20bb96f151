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

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jtms.store.protocol import Checkpoint, EventRow, Store, StoreBackend
from theory.model.errors import InputError
from theory.model.ids import text_problem

if TYPE_CHECKING:  # pragma: no cover
    from jtms.store.postgres import PostgresStore
    from jtms.store.sqlite import SqliteStore

POSTGRES_PREFIXES = ("postgresql://", "postgres://")


def _backend(location: str) -> StoreBackend:
    if location.startswith(POSTGRES_PREFIXES):
        try:
            from jtms.store.postgres import PostgresStore  # type: ignore[import-untyped,import-not-found,unused-ignore]
        except ImportError as error:
            raise InputError(
                f"PostgreSQL memories need the PostgreSQL backend ({error})",
                source=location.split("?", 1)[0],
            ) from None
        backend: StoreBackend = PostgresStore  # type: ignore[assignment,unused-ignore]
        return backend
    from jtms.store.sqlite import SqliteStore

    return SqliteStore


MAX_LOCATION = 4096
"""Characters of a memory's location (a file path or a URL)."""


def check_location(location: Any) -> str:
    """``location`` as a string when it can name a memory: a non-empty file path or URL (a
    string or a path), without NUL or lone surrogates, of at most :data:`MAX_LOCATION`
    characters; the one rule for both backends (a NUL is refused before either sees it)."""
    if isinstance(location, os.PathLike):
        location = os.fspath(location)
    if not isinstance(location, str):
        raise InputError(
            f"the memory's location must be a file path or a postgresql:// URL, "
            f"got {type(location).__name__}"
        )
    if not location.strip():
        raise InputError(
            "the memory's location is empty: name a file (SQLite) or a "
            "postgresql://USER@HOST:PORT/DBNAME?memory=NAME URL"
        )
    problem = text_problem(location, MAX_LOCATION)
    if problem is not None:
        raise InputError(f"the memory's location {problem}")
    return location


def database_files(location: str | Path) -> tuple[str, ...]:
    """The files that hold the memory at ``location``: an SQLite database and its ``-wal``,
    ``-shm`` and ``-journal`` files; none for a PostgreSQL URL (or ``:memory:``). Output that
    would replace one of them is refused (``jtms export -o``)."""
    location = os.fspath(location)
    if location.startswith(POSTGRES_PREFIXES) or location == ":memory:":
        return ()
    return tuple(location + suffix for suffix in ("", "-wal", "-shm", "-journal"))


def open_store(
    location: str | Path, durability: str = "full", busy_timeout: float | None = None
) -> Store:
    """An existing memory at ``location``; anything else is an :class:`InputError`."""
    location = check_location(location)
    return _backend(location).open(location, durability, busy_timeout)


def create_store(
    location: str | Path,
    durability: str = "full",
    busy_timeout: float | None = None,
    init_time: str | None = None,
) -> Store:
    """A new, empty memory at ``location`` (refused with "already exists" if there is one).

    ``init_time`` dates its init event (default: now; ``jtms import-memory`` keeps the
    exported memory's)."""
    location = check_location(location)
    return _backend(location).create(location, durability, busy_timeout, init_time=init_time)


def upgrade_store(
    location: str | Path, durability: str = "full", busy_timeout: float | None = None
) -> "SqliteStore | PostgresStore":
    """A memory of an older schema version, opened to be upgraded (``jtms upgrade``): an
    SQLite file of version 1, 2 or 3, or a PostgreSQL memory of the per-row layout (version 3)."""
    location = check_location(location)
    if location.startswith(POSTGRES_PREFIXES):
        from jtms.store.postgres import PostgresStore

        return PostgresStore.open(location, durability, busy_timeout, upgrading=True)
    from jtms.store.sqlite import SqliteStore

    return SqliteStore.open(location, durability, busy_timeout, upgrading=True)


__all__ = [
    "MAX_LOCATION",
    "Checkpoint",
    "EventRow",
    "Store",
    "check_location",
    "database_files",
    "create_store",
    "drop_store",
    "open_store",
    "upgrade_store",
]


def drop_store(location: str | Path) -> tuple[str, ...]:
    """Remove the whole memory at ``location`` for good: an SQLite file with its ``-wal``,
    ``-shm`` and ``-journal`` files, or a PostgreSQL memory's schema. It is opened first, so
    anything that is not a jtms memory is refused (:class:`InputError`) and left alone.
    Returns the files removed (none for PostgreSQL)."""
    location = check_location(location)
    open_store(location).close()
    if location.startswith(POSTGRES_PREFIXES):
        from jtms.store.postgres import drop_memory

        drop_memory(location)
        return ()
    removed = []
    for path in database_files(location):
        try:
            os.unlink(path)
        except FileNotFoundError:
            continue
        except OSError as error:
            raise InputError(
                f"cannot remove {path!r}: {error.strerror}; the memory may be partly removed",
                source=location,
            ) from None
        removed.append(path)
    return tuple(removed)
