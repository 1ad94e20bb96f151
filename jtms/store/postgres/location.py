"""PostgreSQL memory locations: ``postgresql://USER[:PASSWORD]@HOST:PORT/DBNAME?memory=NAME``.

``memory`` names one memory (one schema ``jtms_NAME``) of the database; every other part of the
URL goes to libpq.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote_plus, urlsplit, urlunsplit

from theory.model.errors import InputError

DEFAULT_MEMORY = "default"
SCHEMA_PREFIX = "jtms_"
MEMORY_NAME = re.compile(r"[A-Za-z0-9_]{1,50}")


@dataclass(frozen=True)
class PostgresLocation:
    """A server, a database and one memory in it."""

    conninfo: str  # the URL without ``memory`` (libpq reads the rest)
    memory: str
    shown: str  # the URL as written, password hidden (for messages)

    @property
    def schema(self) -> str:
        return SCHEMA_PREFIX + self.memory

    @property
    def database(self) -> str:
        """``postgresql://USER@HOST:PORT/DBNAME`` (password hidden): the server part."""
        return self.shown.split("?", 1)[0]


def parse_location(location: str) -> PostgresLocation:
    """Split ``postgresql://...?memory=NAME``; a bad memory name is bad input.

    >>> parse_location("postgresql://ana:pw@db:5432/team?memory=lab_1").shown
    'postgresql://ana:***@db:5432/team?memory=lab_1'
    """
    shown = hide_password(location)
    try:
        parts = urlsplit(location)
        query = parse_qsl(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
    except ValueError as error:
        raise InputError(f"not a PostgreSQL URL ({error})", source=shown) from None
    names = [value for key, value in query if key == "memory"]
    if len(names) > 1:
        raise InputError("give ?memory=NAME at most once", source=shown)
    memory = names[0] if names else DEFAULT_MEMORY
    if not MEMORY_NAME.fullmatch(memory):
        raise InputError(
            f"memory name {memory[:60]!r}: use 1-50 letters, digits or '_'", source=shown
        )
    if "\x00" in location:
        raise InputError("the URL contains a NUL character", source=shown.replace("\x00", ""))
    return PostgresLocation(without_memory(location), memory, shown)


def without_memory(location: str) -> str:
    """The URL exactly as written, less its ``memory`` parameter: the rest goes to libpq
    unchanged (``postgresql:///db?host=/var/run/postgresql`` keeps its ``//``, every other
    parameter keeps its spelling and order).

    >>> without_memory("postgresql:///test?host=/var/run/postgresql&memory=lab&user=ana")
    'postgresql:///test?host=/var/run/postgresql&user=ana'
    """
    head, mark, tail = location.partition("?")
    if not mark:
        return location
    query, hash_mark, fragment = tail.partition("#")
    kept = [item for item in query.split("&") if unquote_plus(item.partition("=")[0]) != "memory"]
    rest = "&".join(kept)
    return head + ("?" + rest if rest else "") + hash_mark + fragment


def hide_password(location: str) -> str:
    """The URL with its password (if any) replaced by ``***``."""
    try:
        parts = urlsplit(location)
        password = parts.password
    except ValueError:
        return location
    if not password:
        return location
    user, _, host = parts.netloc.rpartition("@")
    user = user.split(":", 1)[0]
    return urlunsplit((parts.scheme, f"{user}:***@{host}", parts.path, parts.query, parts.fragment))


__all__ = [
    "DEFAULT_MEMORY",
    "MEMORY_NAME",
    "SCHEMA_PREFIX",
    "PostgresLocation",
    "hide_password",
    "parse_location",
    "without_memory",
]
