"""The documented limits on what a memory accepts, and the one check of each kind of value.

Every entry point (the ``Memory`` methods, the CLI, the MCP server's input schemas) takes its
limits from here, so that a value one of them accepts is accepted by all of them, and a value
one of them refuses is refused by all of them with the same one-line message
(:class:`~theory.errors.InputError` naming the argument and the limit). Ids follow
:func:`theory.ids.check_id` (at most :data:`theory.ids.MAX_ID_LENGTH` characters).

Text is stored as given, so it must be valid Unicode that every backend can hold: no NUL
(PostgreSQL refuses it, SQLite would keep it, and then the memory could not move between
them) and no lone surrogates (they cannot be written as UTF-8).

>>> check_text("assay A shows X", "text", MAX_TEXT)
'assay A shows X'
>>> check_text("a\\x00b", "reason", MAX_REASON)
Traceback (most recent call last):
...
theory.errors.InputError: reason contains a NUL character
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from theory.errors import InputError
from theory.ids import MAX_ID_LENGTH, check_id

MAX_TEXT = 20_000
"""Characters of a node's or a nogood's ``text``."""
MAX_SOURCE = 2_000
"""Characters of an evidence item's ``source`` / ``author``."""
MAX_REVIEWER = 200
"""Characters of an audit's ``reviewer``."""
MAX_REASON = 2_000
"""Characters of an audit's or a reinstatement's ``reason``."""
MAX_QUERY = 1_000
"""Characters of a context ``query``."""
MAX_EXPRESSION = 2_000
"""Characters of a recorded calculation's ``expression`` or ``value``."""
MAX_IDS = 10_000
"""Ids in one list argument (an audit's roots, a nogood's nodes, a ``state`` query)."""
MAX_JUSTIFICATIONS = 1_000
"""Alternative justifications in one ``add_claim``."""
MAX_ANTECEDENTS = 1_000
"""Antecedents of one justification."""
MAX_IDEMPOTENCY_KEY = 200
"""Characters of an ``idempotency_key``."""

LIMITS: dict[str, int] = {
    "id": MAX_ID_LENGTH,
    "text": MAX_TEXT,
    "source": MAX_SOURCE,
    "reviewer": MAX_REVIEWER,
    "reason": MAX_REASON,
    "query": MAX_QUERY,
    "expression": MAX_EXPRESSION,
    "ids": MAX_IDS,
    "justifications": MAX_JUSTIFICATIONS,
    "antecedents": MAX_ANTECEDENTS,
    "idempotency_key": MAX_IDEMPOTENCY_KEY,
}
"""Every limit by the name the documentation and the MCP schemas use."""


def text_problem(value: str, limit: int) -> str | None:
    """Why the string ``value`` cannot be stored as text of at most ``limit`` characters."""
    if len(value) > limit:
        return f"is {len(value)} characters long (at most {limit})"
    if "\x00" in value:
        return "contains a NUL character"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid UTF-8 (it contains a lone surrogate)"
    return None


def check_text(value: Any, what: str, limit: int, *, optional: bool = False) -> Any:
    """``value`` when it is a string that can be stored (or None, when ``optional``)."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise InputError(f"{what} must be a string, got {type(value).__name__}")
    problem = text_problem(value, limit)
    if problem is not None:
        raise InputError(f"{what} {problem}")
    return value


def check_ids(values: Any, what: str, limit: int = MAX_IDS, *, allow_empty: bool = True
              ) -> list[str]:
    """A list of ids (any iterable of strings but a string itself), each checked."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise InputError(f"{what} must be a list of ids, got {type(values).__name__}")
    items: list[str] = []
    for value in values:
        if len(items) == limit:
            raise InputError(f"{what} holds more than {limit} ids (at most {limit})")
        items.append(check_id(value, f"{what} id"))
    if not items and not allow_empty:
        raise InputError(f"{what} is empty (name at least one id)")
    return items


def check_int(value: Any, what: str, minimum: int | None = None,
              maximum: int | None = None) -> int:
    """An integer (not a bool, not a string) within the given range."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{what} must be an integer, got {type(value).__name__}")
    if minimum is not None and value < minimum:
        raise InputError(f"{what} must be at least {minimum}, got {show_int(value)}")
    if maximum is not None and value > maximum:
        raise InputError(f"{what} must be at most {maximum}, got {show_int(value)}")
    return value


def show_int(value: int) -> str:
    """``value`` in decimal, or a description when it is past Python's digit limit.

    >>> show_int(10 ** 5000)
    'a number of 5001 digits'
    """
    if value.bit_length() <= 13_000:  # well under the 4,300-digit limit of int -> str
        return str(value)
    digits = int(value.bit_length() * 0.30102999566398120) + 1
    probe = 10 ** (digits - 1)
    if abs(value) < probe:
        digits -= 1
    return f"a number of {digits} digits"


__all__ = ["LIMITS", "MAX_ANTECEDENTS", "MAX_EXPRESSION", "MAX_IDEMPOTENCY_KEY", "MAX_IDS",
           "MAX_ID_LENGTH", "MAX_JUSTIFICATIONS", "MAX_QUERY", "MAX_REASON", "MAX_REVIEWER",
           "MAX_SOURCE", "MAX_TEXT", "check_ids", "check_int", "check_text", "show_int", "text_problem"]
