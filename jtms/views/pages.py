"""Pages of results that grow with the memory, and the opaque cursors that ask for the next.

A result with lists that can be as long as the memory (an audit's ``retired`` and ``kept``,
``state`` of every node, ``check``'s claims, ...) carries each list's full length
(``retired_count``, ...) and at most ``limit`` items of each, the items at positions
``[offset, offset + limit)``. When an item is left, ``cursor`` names the next page; else it is
None. Every page of one result reads the memory as of one event (the first page's), so the
pages fit together however the memory changes meanwhile.

A cursor is opaque to its reader: a base64url text of the tool it belongs to, the event it
reads as of, the next offset and a digest of the call's other arguments (a cursor passed to
another call is refused rather than read with the wrong arguments). What the MCP server
hands out is that text signed (:func:`sign`: HMAC-SHA256 with the memory's secret), and it
reads only cursors whose signature is the memory's (:func:`verified`): an edited offset or
event, or another memory's cursor, is refused with the same one-line message.

>>> cursor = encode(Cursor("state", event=7, offset=50, digest=digest({"ids": None})))
>>> decode(cursor, "state").offset
50
>>> window(list(range(10)), offset=4, limit=3)
[4, 5, 6]
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Sequence
from typing import Any, TypeVar

from jtms.memory.cursors import (
    MAX_CURSOR,
    NOT_A_CURSOR,
    PREFIX,
    Cursor,
    decode,
    digest,
    encode,
)
from theory.model.errors import InputError

T = TypeVar("T")

DEFAULT_LIMIT = 50
"""Items of each list in one page, unless the call says otherwise (sized for a model)."""
MAX_LIMIT = 1_000
"""The most items of each list one page may hold (a page stays far under 1 MiB)."""


def _signature(text: str, secret: str) -> str:
    mac = hmac.new(secret.encode(), text.encode("utf-8", "surrogatepass"), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()[:16]).decode().rstrip("=")


def sign(text: str, secret: str) -> str:
    """The cursor ``text`` (what :func:`encode` wrote) with its signature: ``TEXT.MAC``, the
    MAC an HMAC-SHA256 of the text (the tool, event, offset and digest it encodes) keyed by
    ``secret`` (the memory's, :meth:`jtms.memory.memory.Memory.secret`), cut to 128 bits.

    >>> signed = sign(encode(Cursor("state", 7, 50)), "s3cret")
    >>> verified(signed, "s3cret") == encode(Cursor("state", 7, 50))
    True
    """
    return f"{text}.{_signature(text, secret)}"


def verified(text: Any, secret: str) -> str:
    """The cursor ``text`` without its signature, when ``secret`` signed it (:func:`sign`);
    else refused with the one-line message of :func:`decode`: an unsigned cursor, one whose
    event, offset or other fields were edited, or one signed by another memory."""
    if not isinstance(text, str) or len(text) > MAX_CURSOR:
        raise InputError(NOT_A_CURSOR)
    body, dot, mac = text.rpartition(".")
    if not dot or not body.startswith(PREFIX):
        raise InputError(NOT_A_CURSOR)
    if not hmac.compare_digest(
        mac.encode("utf-8", "surrogatepass"), _signature(body, secret).encode()
    ):
        raise InputError(NOT_A_CURSOR)
    return body


def window(items: Sequence[T], offset: int, limit: int | None) -> list[T]:
    """``items[offset:offset + limit]`` (all from ``offset`` when ``limit`` is None)."""
    return list(items[offset:] if limit is None else items[offset : offset + limit])


def next_cursor(
    tool: str,
    event: int,
    offset: int,
    limit: int | None,
    lengths: Sequence[int],
    call_digest: str = "",
) -> str | None:
    """The cursor of the page after ``[offset, offset + limit)`` of lists of these
    ``lengths``, or None when that page reached the end of every list."""
    if limit is None or offset + limit >= max(lengths, default=0):
        return None
    return encode(Cursor(tool, event, offset + limit, call_digest))


__all__ = [
    "DEFAULT_LIMIT",
    "MAX_CURSOR",
    "MAX_LIMIT",
    "NOT_A_CURSOR",
    "Cursor",
    "decode",
    "digest",
    "encode",
    "next_cursor",
    "sign",
    "verified",
    "window",
]
