"""Which strings can be node ids: exactly those the command line can name.

The CLI names several ids in one argument, comma-separated (``--invalidate a,b``), and strips
spaces around each; a terminal cannot show control characters. So an id is a non-empty
string of at most :data:`MAX_ID_LENGTH` characters, without surrounding whitespace and without
control or format characters or lone surrogates, whose commas all lie inside parentheses.

Commas inside parentheses do not separate (:func:`split_ids`): a Datalog atom as clingo prints
it, ``path(1,2)``, is one id, and ``--audit 'path(1,2),edge(2,3)'`` names two. A pair of
parentheses groups only when it is matched (an ``(`` with no ``)`` after it is an ordinary
character), and inside parentheses a double-quoted string (with backslash escapes, as clingo
writes ``p("a)b")``) is read whole. Lists of ids without commas split exactly as before,
except where an ``(`` in one id is closed by a ``)`` in a later one (``a(,b)``). Every entry point (graph files, ``jtms add-evidence`` / ``add-claim``, the
Python API, the MCP server) refuses other ids with the same message, through
:func:`check_id`.

>>> check_id("obs1")
'obs1'
>>> id_problem("a,b")
'contains a comma outside parentheses (the CLI separates ids with commas)'
>>> id_problem("path(1,2)") is None
True
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any

from theory.model.errors import InputError

SEPARATOR = ","
MAX_ID_LENGTH = 256
"""The longest id, in characters: one rule for graph files, ``jtms add-*``, the Python API and
the MCP server, so that every stored id can be named again on a command line."""


def id_problem(value: Any) -> str | None:
    """Why ``value`` cannot be an id (None when it can)."""
    if not isinstance(value, str):
        return f"must be a string, got {type(value).__name__}"
    if not value:
        return "is empty"
    if len(value) > MAX_ID_LENGTH:
        return f"is {len(value)} characters long (at most {MAX_ID_LENGTH})"
    if SEPARATOR in value and split_ids(value) != [value]:
        return "contains a comma outside parentheses (the CLI separates ids with commas)"
    if value != value.strip():
        return (
            "has surrounding whitespace (ids are written without surrounding spaces: "
            "the CLI strips them)"
        )
    if value.isascii():  # the common case, without a category lookup per character:
        if not value.isprintable():  # in ASCII, exactly the control characters (Cc)
            return "contains a control character"
    elif any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs") for ch in value):
        return "contains a control character or a lone surrogate (not valid UTF-8)"
    return None


def _group_end(text: str, start: int) -> int:
    """The index just past the ``)`` matching the ``(`` at ``start``, or -1 when none does.
    Nested groups are matched the same way; a double-quoted string inside is read whole."""
    depth, i, n = 0, start, len(text)
    while i < n:
        ch = text[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        elif ch == '"':
            close = _string_end(text, i)
            if close < 0:
                return -1
            i = close
            continue
        i += 1
    return -1


def _string_end(text: str, start: int) -> int:
    """The index just past the closing quote of the string opened at ``start`` (-1: none)."""
    i, n = start + 1, len(text)
    while i < n:
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    return -1


def split_ids(text: str) -> list[str]:
    """The items of an id list ``ID[,ID...]``, each stripped of surrounding spaces: a comma
    separates unless it lies inside a matched pair of parentheses (see the module docstring).

    >>> split_ids("a, b,c")
    ['a', 'b', 'c']
    >>> split_ids('path(1,2),edge(2,3), p("x),y")')
    ['path(1,2)', 'edge(2,3)', 'p("x),y")']
    >>> split_ids("a(,b")
    ['a(', 'b']
    """
    if "(" not in text:  # the common case: today's lists
        return [item.strip() for item in text.split(SEPARATOR)]
    items: list[str] = []
    begin, i, n = 0, 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "(":
            end = _group_end(text, i)
            if end > 0:
                i = end
                continue
        elif ch == SEPARATOR:
            items.append(text[begin:i].strip())
            begin = i + 1
        i += 1
    items.append(text[begin:].strip())
    return items


def all_ids(values: Sequence[str]) -> bool:
    """Whether every string of ``values`` can be an id (:func:`id_problem` is None for each).

    ASCII ids are checked all at once, joined by the comma that none of them may contain: the
    joined text is printable (no control character), has one comma per gap (no id holds one),
    no space beside a comma or at either end (no surrounding whitespace: in printable ASCII
    that is the space alone), and the lengths are within bounds. Anything else is checked id by
    id, so the answer is always :func:`id_problem`'s.

    >>> all_ids(["e1", "c 2"]), all_ids(["e1", " c2"]), all_ids(["a,b"])
    (True, False, False)
    """
    joined = SEPARATOR.join(values)
    if (
        joined.isascii()
        and joined.isprintable()
        and joined.count(SEPARATOR) == len(values) - 1
        and not joined.startswith(" ")
        and not joined.endswith(" ")
        and ", " not in joined
        and " ," not in joined
        and 0 < min(map(len, values)) <= max(map(len, values)) <= MAX_ID_LENGTH
    ):
        return True
    return all(id_problem(value) is None for value in values)


def _shown(value: Any) -> str:
    """A short description of a value that is not a string (never fails: ``repr`` of an
    integer past 4,300 digits raises, and a huge list would flood the message)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"<an integer of {value.bit_length()} bits>"
    try:
        text = repr(value)
    except Exception:  # a hostile __repr__
        return f"<{type(value).__name__}>"
    return text if len(text) <= 80 else text[:77] + "..."


def text_problem(value: str, limit: int) -> str | None:
    """Why the string ``value`` cannot be stored as text of at most ``limit`` characters: the
    one rule of every backend (no NUL, which PostgreSQL refuses; valid UTF-8)."""
    if len(value) > limit:
        return f"is {len(value)} characters long (at most {limit})"
    if "\x00" in value:
        return "contains a NUL character"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid UTF-8 (it contains a lone surrogate)"
    return None


def check_id(value: Any, what: str = "id", source: str | None = None) -> str:
    """``value`` when it can be an id, else :class:`InputError` naming the problem."""
    problem = id_problem(value)
    if problem is not None:
        raise InputError(
            f"{what} {problem}",
            source=source,
            node=value if isinstance(value, str) else _shown(value),
        )
    return value
