"""The documented limits on what a memory accepts, and the one check of each kind of value.

Every entry point (the ``Memory`` methods, the CLI, the MCP server's input schemas) takes its
limits from here, so that a value one of them accepts is accepted by all of them, and a value
one of them refuses is refused by all of them with the same one-line message
(:class:`~theory.model.errors.InputError` naming the argument and the limit). Ids follow
:func:`theory.model.ids.check_id` (at most :data:`theory.model.ids.MAX_ID_LENGTH` characters).

Text is stored as given, so it must be valid Unicode that every backend can hold: no NUL
(PostgreSQL refuses it, SQLite would keep it, and then the memory could not move between
them) and no lone surrogates (they cannot be written as UTF-8).

>>> check_text("assay A shows X", "text", MAX_TEXT)
'assay A shows X'
>>> check_text("a\\x00b", "reason", MAX_REASON)
Traceback (most recent call last):
...
theory.model.errors.InputError: reason contains a NUL character
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterable
from datetime import datetime, timezone
from itertools import islice
from typing import Any

from theory.model.errors import InputError
from theory.model.ids import MAX_ID_LENGTH, all_ids, check_id, text_problem

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
MAX_QUERY_WORDS = 32
"""Words of one ``search`` query (more are refused: each is a prefix term of the index)."""
MAX_SEARCH_LIMIT = 1_000
"""Hits of one ``search`` page (the default is 50)."""
MAX_EXPRESSION = 2_000
"""Characters of a recorded calculation's ``expression`` or ``value``."""
MAX_IDS = 10_000
"""Ids in one list argument (an audit's roots, a nogood's nodes, a ``state`` query)."""
MAX_JUSTIFICATIONS = 1_000
"""Alternative justifications of one claim in one write (``add_claim``, a batch)."""
MAX_ANTECEDENTS = 1_000
"""Antecedents of one justification."""
MAX_IDEMPOTENCY_KEY = 200
"""Characters of an ``idempotency_key``."""
MAX_BATCH = 20_000
"""Items of each list of one batch (``add_batch``: nodes, justifications, nogoods)."""

MAX_BUSY_TIMEOUT = 2_147_483
"""Seconds a write may wait for the write lock (``busy_timeout``, ``JTMS_BUSY_TIMEOUT``): both
backends count it in 32-bit milliseconds (SQLite's ``busy_timeout``, PostgreSQL's
``lock_timeout``), so about 24.8 days."""
MAX_TIME_LIMIT = 86_400
"""Seconds one recorded calculation may run (``jtms review --time-limit``)."""
MAX_BUDGET = 1_000_000_000
"""Tokens of a working context's ``budget``."""
MAX_EVENT = (1 << 63) - 1
"""The largest event (or audit) id: SQL integers are 64-bit."""
MAX_WAIT = 86_400
"""Seconds one ``wait_for_change`` may block."""
MAX_VALID_UNTIL = 64
"""Characters of an evidence item's ``valid_until`` (an ISO time)."""
MAX_NUMBER_TEXT = 100
"""Characters of a number given as text (a flag, an environment variable): a longer one is
refused before it is converted (Python refuses integers past 4,300 digits with a traceback)."""

LIMITS: dict[str, int] = {
    "id": MAX_ID_LENGTH,
    "text": MAX_TEXT,
    "source": MAX_SOURCE,
    "reviewer": MAX_REVIEWER,
    "reason": MAX_REASON,
    "query": MAX_QUERY,
    "query_words": MAX_QUERY_WORDS,
    "search_limit": MAX_SEARCH_LIMIT,
    "expression": MAX_EXPRESSION,
    "ids": MAX_IDS,
    "justifications": MAX_JUSTIFICATIONS,
    "antecedents": MAX_ANTECEDENTS,
    "idempotency_key": MAX_IDEMPOTENCY_KEY,
    "batch": MAX_BATCH,
    "busy_timeout": MAX_BUSY_TIMEOUT,
    "time_limit": MAX_TIME_LIMIT,
    "budget": MAX_BUDGET,
    "event": MAX_EVENT,
    "wait": MAX_WAIT,
}
"""Every limit by the name the documentation and the MCP schemas use."""


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


def check_ids(
    values: Any, what: str, limit: int = MAX_IDS, *, allow_empty: bool = True
) -> list[str]:
    """A list of ids (any iterable of strings but a string itself), each checked."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise InputError(f"{what} must be a list of ids, got {type(values).__name__}")
    items = list(islice(values, limit + 1 if limit < sys.maxsize else None))
    head = items[:limit]
    # all strings and all ids at once (theory.model.ids.all_ids: one pass in C for ASCII ids, an
    # audit's 200); otherwise id by id, which names the first bad one
    if not (all(type(value) is str for value in head) and all_ids(head)):
        for value in head:
            check_id(value, f"{what} id")
    if len(items) > limit:
        raise InputError(f"{what} holds more than {limit} ids (at most {limit})")
    if not items and not allow_empty:
        raise InputError(f"{what} is empty (name at least one id)")
    return items


def check_int(value: Any, what: str, minimum: int | None = None, maximum: int | None = None) -> int:
    """An integer (not a bool, not a string) within the given range."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{what} must be an integer, got {type(value).__name__}")
    if minimum is not None and value < minimum:
        raise InputError(f"{what} must be at least {minimum}, got {show_int(value)}")
    if maximum is not None and value > maximum:
        raise InputError(f"{what} must be at most {maximum}, got {show_int(value)}")
    return value


def check_seconds(value: Any, what: str, maximum: float, *, positive: bool = False) -> float:
    """A finite number of seconds (an int or a float, not a bool) in ``[0, maximum]`` (in
    ``(0, maximum]`` when ``positive``), as a float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{what} must be a number of seconds, got {type(value).__name__}")
    shown = int(maximum) if float(maximum).is_integer() else maximum
    if isinstance(value, int):
        if value > maximum or value < 0:
            raise InputError(f"{what} must be between 0 and {shown} seconds, got {show_int(value)}")
        value = float(value)
    if not math.isfinite(value) or not 0 <= value <= maximum:
        raise InputError(f"{what} must be between 0 and {shown} seconds, got {value!r}")
    if positive and value == 0:
        raise InputError(f"{what} must be more than 0 seconds, got 0")
    return value


_DIGITS = re.compile(r"[0-9]+")  # ASCII only: no re.ASCII needed for an explicit class
_WHOLE = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(
    r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)", re.IGNORECASE
)


def is_digits(text: str) -> bool:
    """Whether ``text`` is one or more ASCII decimal digits: ``str.isdigit`` is also true of
    "²", "①" and "٣", which ``int`` refuses (a crash) or reads as another script's digit.

    >>> is_digits("42"), is_digits("²"), is_digits("٣"), is_digits("")
    (True, False, False, False)
    """
    return _DIGITS.fullmatch(text) is not None


def ascii_int(text: str) -> int | None:
    """The whole number ``text`` writes in ASCII decimal digits (an optional sign, at most
    :data:`MAX_NUMBER_TEXT` characters), else None. ``int`` alone would also read other
    scripts' digits ("١٢" is 12), underscores and surrounding spaces.

    >>> ascii_int("-12"), ascii_int("１２"), ascii_int("1_000"), ascii_int(" 7")
    (-12, None, None, None)
    """
    if len(text) > MAX_NUMBER_TEXT or _WHOLE.fullmatch(text) is None:
        return None
    return int(text)


def ascii_float(text: str) -> float | None:
    """The number ``text`` writes in ASCII (digits, a point, an exponent; ``inf`` and ``nan``
    for the callers to refuse by name), at most :data:`MAX_NUMBER_TEXT` characters, else
    None: ``float`` alone also reads "٣" as 3 and "1_0" as 10.

    >>> ascii_float("2.5e1"), ascii_float("٣"), ascii_float("1_0")
    (25.0, None, None)
    """
    if len(text) > MAX_NUMBER_TEXT or _NUMBER.fullmatch(text) is None:
        return None
    return float(text)


def parse_seconds(text: str, what: str, maximum: float, *, positive: bool = False) -> float:
    """A number of seconds written as text (a flag, an environment variable), checked as
    :func:`check_seconds` does: ``inf``, ``nan``, ``1e300`` and ``-1`` are refused."""
    if len(text) > MAX_NUMBER_TEXT:
        raise InputError(f"{what} must be a number of seconds, got {len(text)} characters")
    value = ascii_float(text.strip())
    if value is None:
        raise InputError(f"{what} must be a number of seconds, got {text[:40]!r}")
    return check_seconds(value, what, maximum, positive=positive)


def parse_int(text: str, what: str, minimum: int | None = None, maximum: int | None = None) -> int:
    """A whole number written as text in ASCII digits (:func:`ascii_int`; surrounding
    spaces ignored), checked as :func:`check_int` does; a number of more than
    :data:`MAX_NUMBER_TEXT` characters is refused before it is converted."""
    stripped = text.strip()
    if len(stripped) > MAX_NUMBER_TEXT:
        raise InputError(
            f"{what} must be a whole number of at most {MAX_NUMBER_TEXT} "
            f"characters, got {len(stripped)}"
        )
    value = ascii_int(stripped)
    if value is None:
        raise InputError(f"{what} must be a whole number, got {text[:40]!r}")
    return check_int(value, what, minimum, maximum)


def check_choice(value: Any, what: str, choices: Iterable[str]) -> str:
    """``value`` when it is one of the strings ``choices``."""
    options = tuple(choices)
    if not isinstance(value, str) or value not in options:
        shown = repr(value)[:40] if isinstance(value, str) else type(value).__name__
        raise InputError(f"{what} must be one of {', '.join(options)}, got {shown}")
    return value


def check_flag(value: Any, what: str) -> bool:
    """``value`` when it is a bool (not 0/1, not a string)."""
    if not isinstance(value, bool):
        raise InputError(f"{what} must be true or false, got {type(value).__name__}")
    return value


def utc_time(moment: datetime) -> str:
    """A moment as the memory stores times: ISO 8601 in UTC, to the millisecond (so texts
    compare as the times do).

    >>> utc_time(datetime(2027, 1, 1, 1, tzinfo=timezone.utc))
    '2027-01-01T01:00:00.000+00:00'
    """
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds")


def check_valid_until(value: Any, what: str = "valid_until") -> str:
    """An evidence item's ``valid_until`` as stored: an ISO time (a time without a zone is
    UTC) or a datetime, in UTC to the millisecond (:func:`utc_time`). Anything else, or a
    time past year 1 or 9999 once in UTC, is a one-line InputError naming ``what``: every
    entry point that takes an expiry (``add_evidence``, a batch, a graph file) checks it here.

    >>> check_valid_until("2027-01-01T00:00:00Z")
    '2027-01-01T00:00:00.000+00:00'
    >>> check_valid_until("9999-12-31T23:59:59-05:00", "nodes[0] ('e1'): valid_until")
    Traceback (most recent call last):
    ...
    theory.model.errors.InputError: nodes[0] ('e1'): valid_until: '9999-12-31T23:59:59-05:00' is out of range
    """
    moment = value
    if isinstance(value, str):
        text = check_text(value, what, MAX_VALID_UNTIL)
        try:
            moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
        except ValueError:
            raise InputError(f"{what}: expected an ISO time, got {text[:40]!r}") from None
    if not isinstance(moment, datetime):
        raise InputError(f"{what}: expected an ISO time, got {type(value).__name__}")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    try:
        return utc_time(moment)
    except (OverflowError, ValueError):  # past year 1 or 9999 once in UTC
        raise InputError(f"{what}: {str(value)[:40]!r} is out of range") from None


def event_time(value: str) -> datetime | None:
    """The moment an event's stored ``time`` names, or None when it names none.

    Every backend writes an ISO 8601 time with a UTC offset (``datetime.isoformat`` of an
    aware time: ``2026-12-01T08:30:00.000+00:00``). ``Memory.event_at`` (``--as-of``)
    compares moments with what this returns, so a time without an offset or not ISO at all
    cannot be compared: ``jtms import-memory`` refuses an export holding one.

    >>> event_time("2026-12-01T08:30:00.000+00:00").year, event_time("yesterday")
    (2026, None)
    >>> event_time("2026-12-01T08:30:00") is None  # no UTC offset: not comparable
    True
    """
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.utcoffset() is not None else None


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


__all__ = [
    "LIMITS",
    "MAX_ANTECEDENTS",
    "MAX_BUDGET",
    "MAX_BUSY_TIMEOUT",
    "MAX_EVENT",
    "MAX_EXPRESSION",
    "MAX_IDEMPOTENCY_KEY",
    "MAX_IDS",
    "MAX_ID_LENGTH",
    "MAX_JUSTIFICATIONS",
    "MAX_NUMBER_TEXT",
    "MAX_QUERY",
    "MAX_QUERY_WORDS",
    "MAX_SEARCH_LIMIT",
    "MAX_REASON",
    "MAX_REVIEWER",
    "MAX_SOURCE",
    "MAX_TEXT",
    "MAX_TIME_LIMIT",
    "MAX_VALID_UNTIL",
    "MAX_WAIT",
    "ascii_float",
    "ascii_int",
    "check_choice",
    "check_flag",
    "check_ids",
    "check_int",
    "check_seconds",
    "check_text",
    "check_valid_until",
    "event_time",
    "is_digits",
    "parse_int",
    "parse_seconds",
    "show_int",
    "text_problem",
    "utc_time",
]
