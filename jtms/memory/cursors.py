"""The opaque cursors of paged results: which tool's result, as of which event, from which
offset, for which arguments (a digest). :mod:`jtms.views.pages` pages results with them and
signs what the MCP server hands out; ``Memory.search`` pages its hits with them (it sits below
the views, so the codec lives here, once).

>>> decode(encode(Cursor("search", event=7, offset=50)), "search").offset
50
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from theory.model.errors import InputError

PREFIX = "jc1."
MAX_CURSOR = 400
"""The longest cursor text a call may carry (a signed one is about 110 characters)."""
NOT_A_CURSOR = (
    "cursor: not a cursor of this memory's results (pass the `cursor` a "
    "result gave, unchanged, with the same other arguments)"
)


@dataclass(frozen=True)
class Cursor:
    """Where the next page starts: ``tool``'s result as of ``event``, from ``offset``."""

    tool: str
    event: int
    offset: int
    digest: str = ""


def digest(arguments: Mapping[str, Any]) -> str:
    """A short digest of a call's arguments (canonical JSON), to tie a cursor to its call."""
    text = json.dumps(
        arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def encode(cursor: Cursor) -> str:
    data = json.dumps(
        [cursor.tool, cursor.event, cursor.offset, cursor.digest], separators=(",", ":")
    ).encode()
    return PREFIX + base64.urlsafe_b64encode(data).decode().rstrip("=")


def decode(text: Any, tool: str | None = None, call_digest: str | None = None) -> Cursor:
    """The cursor ``text`` names; refused (one line) when it is not one this module wrote,
    belongs to another tool than ``tool``, or to a call with other arguments."""
    bad = InputError(NOT_A_CURSOR)
    if not isinstance(text, str) or not text.startswith(PREFIX) or len(text) > MAX_CURSOR:
        raise bad
    body = text[len(PREFIX) :]
    try:
        fields = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (binascii.Error, ValueError):
        raise bad from None
    if (
        not isinstance(fields, list)
        or len(fields) != 4
        or not isinstance(fields[0], str)
        or not all(isinstance(f, int) and not isinstance(f, bool) and f >= 0 for f in fields[1:3])
        or not isinstance(fields[3], str)
    ):
        raise bad
    cursor = Cursor(fields[0], fields[1], fields[2], fields[3])
    if tool is not None and cursor.tool != tool:
        raise InputError(
            f"cursor: it is a cursor of `{cursor.tool}`, not of `{tool}` "
            f"(pass it to `{cursor.tool}` with the same other arguments)"
        )
    if call_digest is not None and cursor.digest != call_digest:
        raise InputError(
            f"cursor: it belongs to a `{tool}` call with other arguments "
            f"(repeat that call's arguments with its cursor)"
        )
    return cursor


__all__ = ["MAX_CURSOR", "NOT_A_CURSOR", "PREFIX", "Cursor", "decode", "digest", "encode"]
