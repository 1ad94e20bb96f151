"""The memories of a PostgreSQL database as a whole: list them, drop them (``jtms memories``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import psycopg
from psycopg import sql

from jtms.store.postgres.connection import connect, fault
from jtms.store.postgres.location import MEMORY_NAME, SCHEMA_PREFIX, parse_location
from jtms.store.sqlite import APPLICATION


@dataclass(frozen=True)
class MemoryInfo:
    """One memory of a database, for ``jtms memories``."""

    name: str
    location: str
    events: int
    nodes: int
    last_write: str | None


def list_memories(location: str) -> list[MemoryInfo]:
    """The jtms memories of the database at ``location`` (its ``?memory=`` is ignored), by name."""
    place = parse_location(location)
    connection = connect(place.conninfo, place.shown)
    try:
        schemas = [
            name
            for (name,) in connection.execute(
                "SELECT n.nspname FROM pg_namespace n JOIN pg_class c ON c.relnamespace = n.oid "
                "WHERE c.relname = 'meta' AND c.relkind = 'r' AND starts_with(n.nspname, %s) "
                "ORDER BY n.nspname",
                (SCHEMA_PREFIX,),
            )
        ]
        result = []
        for schema in schemas:
            name = schema[len(SCHEMA_PREFIX) :]
            if not MEMORY_NAME.fullmatch(name):
                continue
            ident = sql.Identifier(schema)
            with connection.transaction():
                connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                app = connection.execute(
                    sql.SQL("SELECT value FROM {}.meta WHERE key = 'application'").format(ident)
                ).fetchone()
                if app is None or app[0] != APPLICATION:
                    continue
                events, last = connection.execute(
                    sql.SQL("SELECT count(*), max(time) FROM {}.events").format(ident)
                ).fetchone() or (0, None)
                nodes = connection.execute(
                    sql.SQL("SELECT count(*) FROM {}.nodes").format(ident)
                ).fetchone()
            result.append(
                MemoryInfo(
                    name,
                    f"{place.database}?memory={name}",
                    int(events),
                    int(nodes[0]) if nodes else 0,
                    last,
                )
            )
        return result
    except psycopg.Error as error:
        raise fault(error, place.shown) from None
    finally:
        connection.close()


def drop_memory(location: str) -> bool:
    """Remove a whole memory (its schema) for good; True if it existed.

    For tests and administrators only: no command calls it (a memory's history is append-only,
    but the memory as a whole can be deleted by whoever owns the database).
    """
    return bool(drop_memories([location]))


def drop_memories(locations: Sequence[str]) -> int:
    """:func:`drop_memory` for several memories (one connection per database); how many existed."""
    places = [parse_location(location) for location in locations]
    dropped = 0
    for conninfo in dict.fromkeys(place.conninfo for place in places):
        group = [place for place in places if place.conninfo == conninfo]
        connection = connect(conninfo, group[0].shown)
        try:
            for place in group:
                exists = (
                    connection.execute(
                        "SELECT 1 FROM pg_namespace WHERE nspname = %s", (place.schema,)
                    ).fetchone()
                    is not None
                )
                connection.execute(
                    sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(place.schema))
                )
                dropped += exists
        except psycopg.Error as error:
            raise fault(error, group[0].shown) from None
        finally:
            connection.close()
    return dropped


__all__ = ["MemoryInfo", "drop_memories", "drop_memory", "list_memories"]
