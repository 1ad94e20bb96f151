"""Connecting to a PostgreSQL server, and turning its errors into one line of bad input."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict

from jtms.store.postgres import arrays
from jtms.store.postgres.location import parse_location
from theory.model.errors import InputError

CONNECT_TIMEOUT_S = 10


def one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text.removeprefix("connection failed: ") or type(error).__name__


def connect(conninfo: str, shown: str) -> psycopg.Connection[Any]:
    """A connection to ``conninfo``: its parameters go to libpq as written; jtms only adds
    ``connect_timeout`` (:data:`CONNECT_TIMEOUT_S`) and ``application_name`` where the URL
    does not give them, so a bad value in the URL is refused, never overridden."""
    try:
        given = conninfo_to_dict(conninfo)
    except psycopg.Error as error:
        raise InputError(f"not a PostgreSQL URL ({one_line(error)})", source=shown) from None
    defaults: dict[str, Any] = {
        key: value
        for key, value in (("connect_timeout", CONNECT_TIMEOUT_S), ("application_name", "jtms"))
        if key not in given
    }
    try:
        connection = psycopg.connect(conninfo, autocommit=True, **defaults)
    except psycopg.Error as error:
        raise InputError(f"cannot connect to PostgreSQL: {one_line(error)}", source=shown) from None
    arrays.register(connection)
    return connection


def server_problem(conninfo: str) -> str:
    """Why the server at ``conninfo`` cannot be used ("" when a connection works)."""
    try:
        location = parse_location(conninfo)
        connect(location.conninfo, location.shown).close()
    except InputError as error:
        return str(error)
    return ""


def fault(
    error: psycopg.Error, shown: str, waited: float | None = None, timeout: float | None = None
) -> InputError:
    """One line for a database error (the CLI turns it into exit 2)."""
    if isinstance(error, psycopg.errors.LockNotAvailable):
        return InputError(
            f"the memory is locked by another writer: waited {waited or 0:.1f} s "
            f"(busy timeout {timeout or 0:g} s; set JTMS_BUSY_TIMEOUT to wait "
            f"longer); nothing written",
            source=shown,
        )
    if isinstance(error, (psycopg.OperationalError, psycopg.InterfaceError)):
        return InputError(
            f"lost the connection to PostgreSQL ({one_line(error)}); the "
            f"transaction was rolled back, nothing written",
            source=shown,
        )
    return InputError(f"database error ({one_line(error)}); nothing written", source=shown)


def has_meta(connection: psycopg.Connection[Any], schema: str) -> bool:
    row = connection.execute("SELECT to_regclass(%s)", (f'"{schema}".meta',)).fetchone()
    return row is not None and row[0] is not None


__all__ = ["CONNECT_TIMEOUT_S", "connect", "fault", "has_meta", "one_line", "server_problem"]
