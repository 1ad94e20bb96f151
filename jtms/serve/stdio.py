"""``jtms serve`` over stdin/stdout: the SDK's stdio transport, with an answer for every line.

The SDK's stdio reader parses each line with pydantic's JSON parser and, when that fails,
passes the exception on, where the server only logs it: a line holding a lone surrogate
escape (``"\\ud800"``), an integer of 5,000 digits or arrays nested 5,000 deep got no
response at all, and the client waited forever. :class:`AnsweringReadStream` sits between
the transport and the server: such an item is answered at once with a JSON-RPC error
(``-32700`` parse error, or ``-32600`` invalid request for JSON that is not a JSON-RPC
message) carrying the request's ``id`` when the line's top-level ``id`` can still be read
(:func:`request_id`), else ``id: null`` as JSON-RPC says; then the next line is read.

>>> request_id('{"jsonrpc":"2.0","id":7,"params":{"a":' + "[" * 5000 + "]" * 5000 + "}}")
7
>>> request_id('{"method":"x","params":{"id":1},"id":"k-2"}')
'k-2'
>>> request_id('{"id":' + "9" * 5000 + "}") is None
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import TracebackType
from typing import Any

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError

MAX_ID_DIGITS = 19  # a numeric id longer than this is not recovered (int64 and below)


def _string_end(text: str, start: int) -> int:
    """The index just past the JSON string that starts (with its quote) at ``start``, or -1
    when it does not end."""
    k = start + 1
    while k < len(text):
        if text[k] == "\\":
            k += 2
            continue
        if text[k] == '"':
            return k + 1
        k += 1
    return -1


def _skip_space(text: str, k: int) -> int:
    while k < len(text) and text[k] in " \t\r\n":
        k += 1
    return k


def _id_value(text: str, k: int) -> int | str | None:
    """The JSON-RPC id written at ``text[k:]``: a string, or an integer of at most
    :data:`MAX_ID_DIGITS` digits; None for anything else."""
    if k < len(text) and text[k] == '"':
        end = _string_end(text, k)
        try:
            value = json.loads(text[k:end]) if end > 0 else None
        except ValueError:
            return None
        if not isinstance(value, str):
            return None
        try:
            value.encode("utf-8")  # a lone surrogate could not be written back
        except UnicodeEncodeError:
            return None
        return value
    end = k + (k < len(text) and text[k] == "-")
    while end < len(text) and "0" <= text[end] <= "9":
        end += 1
    digits = text[k:end].lstrip("-")
    if not digits or len(digits) > MAX_ID_DIGITS:
        return None
    return int(text[k:end])


def request_id(text: str) -> int | str | None:
    """The top-level ``"id"`` of a JSON-RPC message that does not parse, read by a scan that
    follows strings and nesting only, so what made the parser fail elsewhere in the line
    (deep nesting, a huge number, a bad escape) does not hide it; None when the line has no
    readable top-level id (or is not an object)."""
    k = _skip_space(text, 0)
    if not text.startswith("{", k):
        return None
    depth, k = 0, k
    while k < len(text):
        char = text[k]
        if char == '"':
            end = _string_end(text, k)
            if end < 0:
                return None
            after = _skip_space(text, end)
            if depth == 1 and text[k:end] == '"id"' and text.startswith(":", after):
                return _id_value(text, _skip_space(text, after + 1))
            k = end
            continue
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth == 0:
                return None
        k += 1
    return None


def _line_of(problem: Exception) -> tuple[str | None, Any]:
    """The line a transport could not read (the input of pydantic's first error) and the
    parsed message when the JSON itself was read (a message of the wrong shape)."""
    if not isinstance(problem, ValidationError):
        return None, None
    for error in problem.errors():
        given = error.get("input")
        if error.get("type") == "json_invalid" and isinstance(given, str):
            return given, None
        if isinstance(given, Mapping):
            return None, given
    return None, None


def error_for(problem: Exception) -> JSONRPCError | None:
    """The JSON-RPC error that answers a line the transport could not read: ``-32700``
    (not JSON this server can read) or ``-32600`` (JSON, not a JSON-RPC message), with the
    request's id when it can be recovered; None for a blank line (nothing to answer)."""
    line, message = _line_of(problem)
    if line is not None and not line.strip():
        return None
    if line is not None or message is None:
        said = str(problem).splitlines()
        reason = next((s.strip() for s in said[1:] if s.strip()), "not JSON")
        reason = reason.split(" [type=")[0][:200]
        request = request_id(line) if line is not None else None
        return JSONRPCError(
            jsonrpc="2.0",
            id=request,
            error=ErrorData(
                code=PARSE_ERROR,
                message=(
                    f"Parse error: the line is not JSON this server can read ({reason}): "
                    "lone surrogate escapes, integers of more than 4,300 digits and nesting "
                    "deeper than the parser's limit are refused; nothing was done"
                ),
            ),
        )
    found = message.get("id")
    request = found if isinstance(found, str | int) and not isinstance(found, bool) else None
    return JSONRPCError(
        jsonrpc="2.0",
        id=request,
        error=ErrorData(
            code=INVALID_REQUEST,
            message="Invalid Request: not a JSON-RPC 2.0 message; nothing was done",
        ),
    )


class AnsweringReadStream:
    """The transport's read stream as the server reads it, less the items the transport
    could not parse: each of those is answered on ``write_stream`` (:func:`error_for`) and
    the next item read. Everything else (``last_context`` included) passes through."""

    def __init__(self, read_stream: Any, write_stream: Any) -> None:
        self._read = read_stream
        self._write = write_stream

    @property
    def last_context(self) -> Any:
        return getattr(self._read, "last_context", None)

    async def receive(self) -> Any:
        while True:
            item = await self._read.receive()
            if not isinstance(item, Exception):
                return item
            answer = error_for(item)
            if answer is not None:
                await self._write.send(SessionMessage(answer))

    def __aiter__(self) -> AnsweringReadStream:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._read.aclose()

    async def __aenter__(self) -> AnsweringReadStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None


__all__ = ["MAX_ID_DIGITS", "AnsweringReadStream", "error_for", "request_id"]
