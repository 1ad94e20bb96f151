"""The memory as an MCP server: tools and resources over one :class:`Memory`.

A thin layer: every tool calls public ``Memory`` methods and returns the same payload as the
matching CLI command's ``--json`` (built by :mod:`jtms.views.payloads`), as structured content with
an output schema. It has no semantics of its own.

```python
from jtms.memory.memory import Memory
from jtms.serve.tools import MemoryAccess, build_server

server = build_server(MemoryAccess(Memory.open("jtms.db")))   # an MCPServer
server.run("stdio")
```

Calls are serialised: one lock guards the memory (writes serialised, every read sees one
state), and each call runs on a worker thread so the event loop keeps serving. Before each
call the memory catches up on what other processes (a CLI, another server) committed.
After a write, subscribers of ``memory://context`` and of the changed ``memory://node/{id}``
resources are notified (``subscriptions/listen``); while someone listens, writes committed by
other processes are found within ``WATCH_SECONDS`` and notified the same way.

Each tool is a module-level function registered by :func:`tool` in :data:`TOOLS`, the one
registry :func:`build_server` walks; it takes the server's :class:`Served` first. Each result
is the payload built once by :mod:`jtms.views.payloads`, sent as structured content with its
compact JSON as the text copy (``context``: its rendered text, what a model reads); the
published output schemas name every key and its type and describe list items rather than
have a client check each one (:func:`published_schema`).
"""

from __future__ import annotations

import asyncio
import difflib
import inspect
import json
import re
import secrets
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar, cast

import anyio.lowlevel
import anyio.to_thread
import pydantic_core
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.resources import ResourceSecurity
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp.server.subscriptions import ResourceUpdated, ServerEvent
from mcp_types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import ConfigDict, Field, ValidationError
from typing_extensions import NotRequired, TypedDict

from jtms.memory import limits
from jtms.memory.memory import Memory, RepeatedCall
from jtms.memory.search import DEFAULT_SEARCH_LIMIT
from jtms.serve import longreads
from jtms.serve.longreads import ViewCache, Worker, paged
from jtms.views import pages, payloads
from theory.model.errors import InputError
from theory.model.ids import MAX_ID_LENGTH

T = TypeVar("T")

MAX_BATCH = limits.MAX_BATCH  # items of each list of one add_batch
MAX_IDS = limits.MAX_IDS  # longest id list one call may carry (audit roots, antecedents, ...)
MAX_TEXT = limits.MAX_TEXT  # longest text
CONTEXT_BUDGET = 2_000  # tokens of the memory://context resource
MAX_CONTEXT_BUDGET = 20_000  # tokens of one `context` call (about 270 KB of result)
REVIEWER = longreads.REVIEWER  # the reviewer name `jtms review` uses
WATCH_SECONDS = 0.5  # while someone listens: how often to look for other processes' writes
RESULT_BYTES = 400_000  # JSON of one result at most: with its text copy (escaped) under
# the SDK client's default 1 MiB server-sent-event limit

NodeId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_ID_LENGTH,
        description="a node id",
    ),
]
IdList = Annotated[list[NodeId], Field(max_length=MAX_IDS, description="node ids")]


NodeText = Annotated[
    str,
    Field(
        max_length=limits.MAX_TEXT,
        description="what the node says",
    ),
]
Source = Annotated[
    str | None,
    Field(
        max_length=limits.MAX_SOURCE,
        description="where it came from: a tool, a person, a URL",
    ),
]
Expression = Annotated[
    str | None,
    Field(
        max_length=limits.MAX_EXPRESSION,
        description='a calculation it executed, in sympy syntax ("2*21"), with `value`',
    ),
]
Value = Annotated[
    str | None,
    Field(
        max_length=limits.MAX_EXPRESSION,
        description='the value `expression` gave ("42")',
    ),
]
ValidUntil = Annotated[
    str | None,
    Field(
        max_length=limits.MAX_VALID_UNTIL,
        description=(
            'an ISO time from which it counts as audited ("expired"), e.g. "2027-01-01T00:00:00Z"'
        ),
    ),
]
Reason = Annotated[
    str,
    Field(
        min_length=1,
        max_length=limits.MAX_REASON,
        description="why they are wrong",
    ),
]
Reviewer = Annotated[
    str | None,
    Field(
        max_length=limits.MAX_REVIEWER,
        description="who decided",
    ),
]
Query = Annotated[
    str | None,
    Field(
        max_length=limits.MAX_QUERY,
        description="words the context should be relevant to",
    ),
]


class BatchNode(TypedDict):
    """A node of a batch (the graph file's shape)."""

    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    id: NodeId
    kind: Literal["evidence", "claim"]
    text: NotRequired[NodeText]
    author: NotRequired[Source]
    expression: NotRequired[Expression]
    value: NotRequired[Value]
    valid_until: NotRequired[ValidUntil]  # evidence only


class BatchJustification(TypedDict):
    """``claim <- antecedents`` (the graph file's shape); ``[]`` makes a premise."""

    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    claim: NodeId
    antecedents: Annotated[list[NodeId], Field(max_length=limits.MAX_ANTECEDENTS)]


class BatchNogood(TypedDict):
    """Ids that must not all be active together (the graph file's shape)."""

    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    id: NodeId
    nodes: Annotated[list[NodeId], Field(min_length=1, max_length=MAX_IDS)]
    text: NotRequired[NodeText]


DryRun = Annotated[bool, Field(description="true: only preview, write nothing")]


Limit = Annotated[
    int,
    Field(
        ge=1,
        le=pages.MAX_LIMIT,
        description="items per list in the result (`counts`: full lengths)",
    ),
]
Cursor = Annotated[
    str | None,
    Field(
        max_length=400,
        description="the previous page's `cursor` (same other arguments)",
    ),
]
IdempotencyKey = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=limits.MAX_IDEMPOTENCY_KEY,
        description="a unique name of this write (a UUID): a retry returns the first result",
    ),
]

INSTRUCTIONS = """\
A persistent memory of evidence and the claims derived from it, with justification-aware
revision. Record evidence (add_evidence) and claims with their justifications (add_claim: each
justification is a list of ids that together support the claim; several justifications are
alternatives). When a piece of evidence (or a claim) turns out to be wrong, audit it: the
memory retires exactly the claims left with no intact justification and keeps the ones that
still have another one. Preview with audit(dry_run=true). Reinstating an audit undoes it.
Read what is active with state, why with explain, what changed with history, and a compact
working context with context. Record contradictions with add_nogood; diagnose says which
evidence to audit to resolve them. Write many nodes at once with add_batch. Long lists come
in pages of `limit` items: `counts` gives each list's length, `cursor` the next page (pass it
back to the same reading tool with the same other arguments, or to `page` for a write's
result). Give every write an `idempotency_key` (e.g. a UUID) so a retry, even after a lost
response or a restart, returns the first result and cannot write twice."""


def _readable(doc: str | None) -> str:
    """A tool's docstring as its description: the common indentation removed."""
    return inspect.cleandoc(doc or "")


class SubscriberBus:
    """The ``subscriptions/listen`` fan-out (the SDK's in-memory bus), counting its listeners
    so a write with nobody listening publishes nothing. ``on_first`` runs (on the event loop)
    when a listener arrives while none was listening: it starts the watcher of other
    processes' writes, which stops when the last one leaves."""

    def __init__(self, on_first: Callable[[], None] | None = None) -> None:
        self._listeners: dict[object, Callable[[ServerEvent], None]] = {}
        self.on_first = on_first

    @property
    def listening(self) -> bool:
        return bool(self._listeners)

    async def publish(self, event: ServerEvent) -> None:
        for listener in list(self._listeners.values()):
            listener(event)
        await anyio.lowlevel.checkpoint()

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        token = object()
        first = not self._listeners
        self._listeners[token] = listener
        if first and self.on_first is not None:
            self.on_first()

        def unsubscribe() -> None:
            self._listeners.pop(token, None)

        return unsubscribe


_EXPECTED = {
    "bool_type": "true or false",
    "int_type": "an integer",
    "string_type": "a string",
    "list_type": "an array",
    "float_type": "a number",
    "dict_type": "an object",
}  # pydantic's type errors (strict mode), as a model reads the JSON type it should send


def _json_kind(value: Any) -> str:
    """The JSON type of an argument's value, in words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number with a fraction or exponent"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def _where(loc: Iterable[Any]) -> str:
    """An error's location as a model reads it: ``justifications[0][1]``."""
    parts = list(loc) or ["arguments"]
    where = str(parts[0])
    for part in parts[1:]:
        where += f"[{part}]" if isinstance(part, int) else f".{part}"
    return where


def _problem(where: str, error: Mapping[str, Any]) -> str:
    """One pydantic validation error as a model reads it: the argument, what was wrong, the
    limit."""
    ctx = error.get("ctx") or {}
    kind = error.get("type", "")
    given = error.get("input")
    if kind == "string_too_long":
        return f"{where}: {len(given) if isinstance(given, str) else 'too many'} characters, at most {ctx.get('max_length')}"
    if kind == "too_long":
        return f"{where}: {ctx.get('actual_length', 'too many')} items, at most {ctx.get('max_length')}"
    if kind == "missing":
        return f"{where}: missing (a required argument)"
    return f"{where}: {error.get('msg', 'invalid')}"


def problems(errors: Iterable[Mapping[str, Any]]) -> str:
    """The one line of a call's validation errors, one problem per argument (or list item).

    A union's branches each report an error (``as_of`` given a list: not an integer, not
    a string); they are one problem: what the value should have been, and what it was. A
    value of the right type that breaks a limit is that limit, without the other branches'
    type errors. (The tools take no nested objects, so a location's text parts past the
    argument's name are a union's branch tags, and are left out.)

    >>> problems([{"type": "bool_type", "loc": ("dry_run",), "input": "no", "msg": ""}])
    'dry_run: expected true or false, got a string'
    """
    found: dict[str, list[Mapping[str, Any]]] = {}
    for error in errors:
        loc = [p for k, p in enumerate(error.get("loc") or ()) if k == 0 or isinstance(p, int)]
        found.setdefault(_where(loc), []).append(error)
    lines: list[str] = []
    for where, said in found.items():
        other = [e for e in said if e.get("type") not in _EXPECTED]
        if other:
            lines.extend(_problem(where, e) for e in other)
            continue
        wanted = " or ".join(dict.fromkeys(_EXPECTED[e["type"]] for e in said))
        lines.append(f"{where}: expected {wanted}, got {_json_kind(said[0].get('input'))}")
    return "; ".join(lines)


class MemoryServer(MCPServer):  # type: ignore[type-arg]
    """An :class:`MCPServer` whose argument errors are one-line tool errors, and whose tools
    refuse unknown arguments (a misspelt ``dry_run`` must not run a real audit)."""

    access: "MemoryAccess"
    arguments: dict[str, tuple[str, ...]]  # tool name -> its argument names
    read_only: bool = False  # the writing tools are left out, and a call of one refused

    async def run_stdio_async(self) -> None:
        """The SDK's stdio transport and server loop (what ``MCPServer.run_stdio_async``
        runs), with every line answered: a line the transport cannot parse (a lone
        surrogate escape, a 5,000-digit integer, deep nesting) gets a JSON-RPC error with
        the request's id where it can be read, instead of no response
        (:class:`jtms.serve.stdio.AnsweringReadStream`)."""
        from mcp.server.stdio import stdio_server

        from jtms.serve.stdio import AnsweringReadStream

        lowlevel = self._lowlevel_server
        async with stdio_server() as (read_stream, write_stream):
            await lowlevel.run(
                AnsweringReadStream(read_stream, write_stream),
                write_stream,
                lowlevel.create_initialization_options(),
            )

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Any = None
    ) -> CallToolResult | InputRequiredResult:
        if getattr(self, "read_only", False) and name in WRITING_TOOLS:
            raise ToolError(
                f"Error executing tool {name}: this server is read-only (jtms serve "
                f"--read-only): {name} writes, so it is refused; nothing was written"
            )
        known = getattr(self, "arguments", {}).get(name)
        if known is not None and isinstance(arguments, dict):
            unknown = sorted(set(arguments) - set(known))
            if unknown:
                raise ToolError(
                    f"Error executing tool {name}: {unknown_arguments(name, unknown, known)}"
                )
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            cause = error.__cause__
            if isinstance(cause, ValidationError):
                said = problems(cause.errors())
                raise ToolError(f"Error executing tool {name}: bad arguments: {said}") from None
            raise


class StrictArguments(FuncMetadata):
    """A tool's argument metadata with the SDK's two leniencies off, so an argument of the
    wrong JSON type is refused (``bad arguments: NAME: ...``) before anything runs:

    - no pre-parsing of JSON inside a string (the SDK reads ``'["e2"]'`` as a list and
      ``"null"`` as null, for clients that send lists as strings);
    - pydantic's strict mode (its lax mode reads ``"no"``, ``"off"``, ``0`` as false, so
      ``audit(dry_run="no")`` ran a real audit, and ``true``, ``"5"``, ``5.0`` as integers).

    Booleans are then only true/false, integers only JSON integers, lists only arrays and
    strings only strings, as the published input schema says."""

    def pre_parse_json(self, data: dict[str, Any]) -> dict[str, Any]:
        return data


def strict_arguments(metadata: FuncMetadata) -> StrictArguments:
    """``metadata`` with its argument model validated in strict mode and no JSON
    pre-parsing (:class:`StrictArguments`); the output schema and model are kept."""

    class Strict(metadata.arg_model):  # type: ignore[name-defined,misc]
        model_config = ConfigDict(strict=True)

    Strict.__name__ = Strict.__qualname__ = metadata.arg_model.__name__
    return StrictArguments(
        arg_model=cast(type[ArgModelBase], Strict),
        output_schema=metadata.output_schema,
        output_model=metadata.output_model,
        wrap_output=metadata.wrap_output,
    )


def unknown_arguments(tool: str, unknown: Iterable[str], known: Iterable[str]) -> str:
    """The one-line refusal of unknown argument names, each with the closest valid one.

    >>> unknown_arguments("audit", ["dryrun"], ["invalidate", "reason", "dry_run"])
    "unknown argument 'dryrun' (did you mean 'dry_run'?); audit takes: invalidate, reason, dry_run; nothing was done"
    """
    names = list(known)
    parts = []
    for key in unknown:
        close = difflib.get_close_matches(str(key), names, n=1, cutoff=0.5)
        shown = repr(str(key)[:60])
        parts.append(
            f"unknown argument {shown}" + (f" (did you mean {close[0]!r}?)" if close else "")
        )
    return (
        f"{'; '.join(parts)}; {tool} takes: {', '.join(names) or 'no arguments'}; nothing was done"
    )


class MemoryAccess:
    """One open memory, used by one call at a time (on a worker thread), and the long reads
    (``check``, ``diagnose``, ``context``, the review's re-execution) beside it, so they
    never hold the writers' lock.

    ``worker``: the memory's location (a file or a URL, with its password); the long reads
    then run in a worker process with its own connection (:class:`longreads.Worker`), so
    the serving process's interpreter is never busy with them (``jtms serve`` does this).
    Without it they run on a thread of this process on a second connection that ``reader``
    opens (by default the same file); without either (``:memory:``) they take the one lock
    like every other call.
    """

    def __init__(
        self,
        memory: Memory,
        reader: Callable[[], Memory] | None = None,
        worker: str | None = None,
    ):
        self.memory = memory
        self._lock = threading.Lock()
        self._open_reader = reader if reader is not None else self._same_location(memory)
        self._reader: Memory | None = None
        self._reader_lock = threading.Lock()
        self._views = ViewCache()
        in_memory = memory.path == ":memory:"  # another process cannot open it
        self._worker = Worker(worker) if worker is not None and not in_memory else None
        self._secret: str | None = None
        #: whether a memory created before memories had a secret gets one written on first
        #: use (:meth:`Memory.secret`); ``build_server(read_only=True)`` writes nothing
        self.create_secret = True

    @staticmethod
    def _same_location(memory: Memory) -> Callable[[], Memory] | None:
        path = memory.path
        if path == ":memory:" or "://" in path:  # a URL's shown form may lack its password
            return None
        return lambda: Memory.open(path)

    def run(self, work: Callable[[Memory], T], error: type[Exception] = ToolError) -> T:
        """``work(memory)`` under the lock; bad input and database faults become ``error``
        carrying the one-line message."""
        with self._lock:
            return self._guarded(work, self.memory, error)

    def read(self, work: Callable[[Memory], T], error: type[Exception] = ToolError) -> T:
        """``work(reader)`` on the second connection, under its own lock only (writes and
        short reads go on meanwhile); the one lock when there is no second connection."""
        if self._open_reader is None:
            return self.run(work, error)
        with self._reader_lock:
            if self._reader is None:
                try:
                    self._reader = self._open_reader()
                except InputError:
                    self._open_reader = None
                    return self.run(work, error)
            return self._guarded(work, self._reader, error)

    def _guarded(self, work: Callable[[Memory], T], memory: Memory, error: type[Exception]) -> T:
        ok, found = longreads.guarded(lambda: work(memory))
        if not ok:
            raise error(found)
        return cast(T, found)

    def view(self, memory: Memory, event: int) -> Memory:
        """``memory`` as of ``event`` (:meth:`Memory.as_of`), kept for the next pages (the
        caller holds ``memory``'s lock)."""
        return self._views.view(memory, event)

    def secret(self) -> str:
        """The secret this server signs its cursors with: the memory's
        (:meth:`Memory.secret`), so they survive a restart and every server of the memory
        reads them; for a memory that has none and is not written here (read-only), a
        random one of this process, whose cursors then end with it."""
        if self._secret is None:
            found = self.run(lambda memory: memory.secret(create=self.create_secret))
            self._secret = found if found is not None else secrets.token_hex(32)
        return self._secret

    async def unsigned(self, cursor: str) -> str:
        """A call's ``cursor`` without its signature, refused (a tool error) unless this
        memory signed it: an edited event or offset, another memory's cursor."""
        secret = await anyio.to_thread.run_sync(self.secret)
        try:
            return pages.verified(cursor, secret)
        except InputError as problem:
            raise ToolError(str(problem)) from None

    async def signed(self, payload: Mapping[str, Any]) -> Mapping[str, Any]:
        """``payload`` with its ``cursor`` (if any) signed with the memory's secret."""
        cursor = payload.get("cursor")
        if not isinstance(cursor, str):
            return payload
        secret = await anyio.to_thread.run_sync(self.secret)
        return {**payload, "cursor": pages.sign(cursor, secret)}

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()
        with self._reader_lock:
            if self._reader is not None:
                self._reader.close()
                self._reader = None

    async def __call__(self, work: Callable[[Memory], T], error: type[Exception] = ToolError) -> T:
        """:meth:`run` on a worker thread."""
        return await anyio.to_thread.run_sync(self.run, work, error)

    async def reading(self, work: Callable[[Memory], T], error: type[Exception] = ToolError) -> T:
        """:meth:`read` on a worker thread."""
        return await anyio.to_thread.run_sync(self.read, work, error)

    async def long_read(
        self, name: str, arguments: dict[str, Any], error: type[Exception] = ToolError
    ) -> Any:
        """The long read ``name`` (:data:`longreads.READS`) with ``arguments``: in the worker
        process when there is one, else as :meth:`reading`. The same function either way,
        so the same result, pages and cursors."""
        if self._worker is None:
            read = longreads.READS[name]
            return await self.reading(lambda memory: read(memory, self, **arguments), error)
        ok, found = await self._worker.call(name, arguments)
        if not ok:
            raise error(found)
        return found


def once(
    tool: str,
    arguments: Mapping[str, Any],
    key: str | None,
    work: Callable[[Memory], T],
    replay: Callable[[Memory, int], T],
) -> Callable[[Memory], T]:
    """``work`` made idempotent under ``key``: the first call writes and stores the key with
    its event (:meth:`Memory.keyed`); a repeat with the same key and arguments returns
    ``replay(memory, event)`` (the first call's result, rebuilt as of its event) and writes
    nothing; the same key with other arguments is refused. No key: ``work`` itself."""
    if key is None:
        return work
    request = pages.digest({"tool": tool, **arguments})

    def keyed(memory: Memory) -> T:
        found = memory.idempotency_key(key)
        if found is not None:
            event, first = found
            if first != request:
                raise InputError(
                    f"idempotency_key {key!r} was already used by another call "
                    f"(event {event}); use a new key for a new call"
                )
            return replay(memory, event)
        try:
            with memory.keyed(key, request):
                return work(memory)
        except RepeatedCall as repeated:  # another process wrote it while this one waited
            return replay(memory, repeated.event)

    return keyed


DRY_RUN_KEY = (
    "idempotency_key: a dry run writes nothing, so it takes no key (give the key to the "
    "real call); nothing was written"
)
REVIEW_AUDITED = pages.digest({"tool": "review"})  # the key of a review that audited
REVIEW_UNCHANGED = pages.digest({"tool": "review", "audited": False})  # ... that found nothing


def first_review(key: str) -> Callable[[Memory], tuple[int, bool] | None]:
    """The work that finds the review stored under ``key``: ``(event, audited)``, None when
    the key is new; refused when another call used it."""

    def work(memory: Memory) -> tuple[int, bool] | None:
        found = memory.idempotency_key(key)
        if found is None:
            return None
        event, request = found
        if request not in (REVIEW_AUDITED, REVIEW_UNCHANGED):
            raise InputError(
                f"idempotency_key {key!r} was already used by another call "
                f"(event {event}); use a new key for a new call"
            )
        return event, request == REVIEW_AUDITED

    return work


def review_write(planned: Any, key: str | None) -> Callable[[Memory], tuple[int, bool] | None]:
    """The work that audits the discrepancies a review's ``planned`` re-execution found
    (``planned.audit`` is then that audit) and stores ``key`` with it; when there are none,
    the key alone, with the event the plan read (:meth:`Memory.keep_key`), so a retry
    later cannot audit what this review did not. ``(event, audited)`` of the first review
    when another process stored ``key`` meanwhile (nothing written), else None."""
    from jtms.calc.reviewer import audit_discrepancies

    def work(memory: Memory) -> tuple[int, bool] | None:
        try:
            if planned.discrepancies and key is None:
                audit_discrepancies(memory, planned, REVIEWER)
            elif planned.discrepancies and key is not None:
                with memory.keyed(key, REVIEW_AUDITED, (REVIEW_UNCHANGED,)):
                    audit_discrepancies(memory, planned, REVIEWER)
            elif key is not None:
                event = planned.event or memory.last_event
                memory.keep_key(key, REVIEW_UNCHANGED, event, (REVIEW_AUDITED,))
        except RepeatedCall as repeated:
            planned.audit = None
            return repeated.event, repeated.request == REVIEW_AUDITED
        return None

    return work


def event_moment(as_of: int | str | None) -> int | str | None:
    """``explain``'s ``as_of`` as ``Memory.event_at`` reads it: a string of ASCII digits is
    an event id; any other string is an ISO time (or refused there with the one-line
    message). "²" and "٣" pass ``str.isdigit``, so they are not read as event ids.

    >>> event_moment(" 12 "), event_moment("１２"), event_moment("2026-01-02")
    (12, '１２', '2026-01-02')
    """
    if isinstance(as_of, str) and limits.is_digits(as_of.strip()):
        return int(as_of.strip())
    return as_of


def structured(payload: Mapping[str, Any], text: str | None = None) -> CallToolResult:
    """A tool result: ``payload`` as structured content, and as its content block ``text``
    (the rendered context, what a model reads) or else the payload's compact JSON once (for
    clients that read only ``content``).

    The payload is built by :mod:`jtms.views.payloads` (typed, the CLI's ``--json``), so it is not
    validated again against its own output model: on a large audit that check and the
    SDK's re-dump of the validated copy cost more than the audit itself (docs/serve.md).
    A result over ``RESULT_BYTES`` is a tool error saying to ask for a smaller page (and,
    for a write, where its committed result can be read), never a message the client's
    transport cannot take.
    """
    dumped = pydantic_core.to_json(payload).decode()
    if len(dumped) > RESULT_BYTES:
        event = (
            payload.get("audit_id")
            if payload.get("audit_id") is not None
            else payload.get("event_id")
        )
        done = (
            f"; the write is committed as event {event}: `page` with event_id={event} and a "
            f"smaller `limit` reads its result"
            if isinstance(event, int)
            else ""
        )
        raise ToolError(
            f"the result is {len(dumped)} bytes of JSON, over this server's limit of "
            f"{RESULT_BYTES} (with its text copy it must fit the client's 1 MiB "
            f"event limit): ask again with a smaller `limit`{done}"
        )
    shown = text if text is not None else dumped
    return CallToolResult(
        content=[TextContent(type="text", text=shown)], structured_content=dict(payload)
    )


def published_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The output schema a tool publishes: every result key with its type (and ``required``),
    each list described rather than checked item by item, and nothing else (no titles, no
    prose: the tool's description says what the result means).

    A client validates every structured result against this schema (the SDK's client runs
    ``jsonschema`` on each one); with an ``items`` schema that costs about 20 microseconds
    per item, seconds for an audit listing 50,000 kept claims. So a top-level list publishes
    ``type: array`` and, in its ``description``, what its items are (an object's keys):
    the check then costs O(keys), not O(ids).
    """
    schema = lean_schema(schema, descriptions=False)
    for prop in schema.get("properties", {}).values():
        for branch in (prop, *prop.get("anyOf", ())):
            if branch.get("type") != "array" or "items" not in branch:
                continue
            items = branch.pop("items")
            prop["description"] = f"each item: {_item_text(items, schema.get('$defs', {}))}"
    used = set(re.findall(r"\$defs\.(\w+)|#/\$defs/(\w+)", json.dumps(schema)))
    names = {name for pair in used for name in pair if name}
    if "$defs" in schema:
        schema["$defs"] = {k: v for k, v in schema["$defs"].items() if k in names}
        if not schema["$defs"]:
            del schema["$defs"]
    return schema


def lean_schema(schema: Any, descriptions: bool = True) -> Any:
    """``schema`` without what a model does not need: pydantic's ``title`` of every schema
    (the property's name again), and with ``descriptions`` false every ``description``.
    A property or definition that happens to be named ``title`` is kept."""
    if isinstance(schema, list):
        return [lean_schema(item, descriptions) for item in schema]
    if not isinstance(schema, dict):
        return schema
    lean: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" or (key == "description" and not descriptions):
            continue
        if key in ("properties", "$defs") and isinstance(value, dict):
            lean[key] = {name: lean_schema(sub, descriptions) for name, sub in value.items()}
        else:
            lean[key] = lean_schema(value, descriptions)
    return lean


def _item_text(items: dict[str, Any], definitions: Mapping[str, Any]) -> str:
    """What a list's items are, in a few words: ``a string``, or an object's keys."""
    if items == {"type": "string"}:
        return "a string"
    ref = items.get("$ref", "")
    found = definitions.get(ref.rsplit("/", 1)[-1]) if ref.startswith("#/$defs/") else None
    if isinstance(found, Mapping) and "properties" in found:
        return "an object {" + ", ".join(found["properties"]) + "}"
    return f"JSON Schema {json.dumps(items, separators=(',', ':'), sort_keys=True)}"


def node_uri(node_id: str) -> str:
    from urllib.parse import quote

    return f"memory://node/{quote(node_id, safe='')}"


READING = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
WRITING = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


class Served:
    """What a tool function reads and writes through: the memory's ``access`` and the
    notifications of ``subscriptions/listen`` (``bus``), one per server built by
    :func:`build_server`."""

    def __init__(self, access: MemoryAccess) -> None:
        self.access = access
        self.bus = SubscriberBus(on_first=self.start_watching)
        self._own_events: set[int] = set()  # this server's writes: published when made
        self._watcher: list[asyncio.Task[None]] = []

    def since(self, memory: Memory, event: int) -> Memory:
        """``memory`` as of ``event``, kept for the next pages (:meth:`MemoryAccess.view`)."""
        return self.access.view(memory, event)

    async def changed(self, ids: Iterable[str], event: int | None = None) -> None:
        """Tell the listeners that the context and the nodes ``ids`` changed (by this
        server's write ``event``, which the watcher then does not announce again)."""
        if not self.bus.listening:
            return
        if event is not None:
            self._own_events.add(event)
        await self.bus.publish(ResourceUpdated(uri="memory://context"))
        for node_id in sorted(set(ids)):
            await self.bus.publish(ResourceUpdated(uri=node_uri(node_id)))

    async def watch(self) -> None:
        """While someone listens: every WATCH_SECONDS, ``Memory.wait_for_change(timeout=0)``
        (one look at the latest event id; O(changes) catch-up when there are some), and for
        the events another process committed meanwhile (``Memory.events``: what each
        created, activated and deactivated), the same notifications as for our own writes."""
        access, bus, own_events = self.access, self.bus, self._own_events
        seen = await access(lambda memory: memory.last_event)
        while bus.listening:
            await anyio.sleep(WATCH_SECONDS)
            after = seen
            newest = await access(lambda memory: memory.wait_for_change(after=after, timeout=0))
            if newest <= seen or not bus.listening:
                continue
            events = await access(lambda memory: memory.events(after=after, until=newest))
            ids: set[str] = set()
            foreign = False
            for event in events:
                if event["id"] in own_events:
                    continue
                foreign = True
                for what in ("created", "activated", "deactivated"):
                    ids.update(event.get(what) or ())
            own_events.difference_update([e for e in own_events if e <= newest])
            seen = newest
            if foreign:
                await self.changed(ids)

    def start_watching(self) -> None:
        if not any(not task.done() for task in self._watcher):
            self._watcher[:] = [asyncio.get_running_loop().create_task(self.watch())]


ToolFunction = Callable[..., Awaitable[Any]]


@dataclass(frozen=True)
class ToolSpec:
    """One MCP tool: ``fn(served, **arguments)`` (its name, docstring and the rest of its
    signature are the tool's name, description and input schema), its annotations, and
    an output schema to publish instead of the one its return type gives."""

    fn: ToolFunction
    annotations: ToolAnnotations
    output: dict[str, Any] | None = None
    content: Callable[[Mapping[str, Any]], str] | None = None

    @property
    def name(self) -> str:
        return self.fn.__name__

    @property
    def writes(self) -> bool:
        return not self.annotations.read_only_hint


TOOLS: list[ToolSpec] = []
"""The registry: every tool of the server, in the order ``tools/list`` shows them."""
WRITING_TOOLS: set[str] = set()
"""The names of the tools that write (a read-only server refuses them by name)."""


def tool(
    annotations: ToolAnnotations,
    output: dict[str, Any] | None = None,
    content: Callable[[Mapping[str, Any]], str] | None = None,
) -> Callable[[ToolFunction], ToolFunction]:
    """Register the module-level function below as a tool (:data:`TOOLS`); ``content``: its
    content block from its result (by default the result's JSON)."""

    def register(fn: ToolFunction) -> ToolFunction:
        assert all(spec.name != fn.__name__ for spec in TOOLS), fn.__name__
        TOOLS.append(ToolSpec(fn, annotations, output, content))
        if not annotations.read_only_hint:
            WRITING_TOOLS.add(fn.__name__)
        return fn

    return register


def bound_tool(spec: ToolSpec, served: Served) -> Tool:
    """The SDK's :class:`Tool` for ``spec`` on one server: its function with ``served``
    bound (the signature the SDK reads is the function's less that first argument), its
    cursors verified and signed, its result sent as :func:`structured`, its arguments
    strict (:func:`strict_arguments`) and closed (no unknown keys)."""
    fn = spec.fn
    signature = inspect.signature(fn, eval_str=True)
    parameters = list(signature.parameters.values())[1:]  # less `served`
    access = served.access

    async def call(**arguments: Any) -> CallToolResult:
        if isinstance(arguments.get("cursor"), str):  # signed by this memory only
            arguments["cursor"] = await access.unsigned(arguments["cursor"])
        payload = await access.signed(await fn(served, **arguments))
        return structured(payload, None if spec.content is None else spec.content(payload))

    call.__name__ = call.__qualname__ = fn.__name__
    call.__doc__ = fn.__doc__
    call.__module__ = fn.__module__
    call.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    entry = Tool.from_function(
        call,
        annotations=spec.annotations,
        structured_output=True,
        description=_readable(fn.__doc__),
    )
    entry.parameters = lean_schema(entry.parameters)
    if "$defs" in entry.parameters:  # the items of add_batch's lists: their keys and types
        entry.parameters["$defs"] = lean_schema(entry.parameters["$defs"], descriptions=False)
    entry.parameters["additionalProperties"] = False  # and MemoryServer refuses them
    metadata = entry.fn_metadata
    assert metadata.output_schema is not None, fn.__name__
    metadata.output_schema = spec.output or published_schema(metadata.output_schema)
    metadata.output_model = None  # the result comes built (structured): published only
    entry.fn_metadata = strict_arguments(metadata)
    return entry


# --- writing tools -------------------------------------------------------------------------
@tool(WRITING)
async def add_evidence(
    served: Served,
    id: Annotated[
        NodeId,
        Field(
            description=(
                f"the new evidence's id, unique in the memory (1 to {MAX_ID_LENGTH} characters)"
            )
        ),
    ],
    text: NodeText = "",
    source: Source = None,
    expression: Expression = None,
    value: Value = None,
    idempotency_key: IdempotencyKey = None,
    valid_until: ValidUntil = None,
) -> payloads.NodeAdded:
    """Record one piece of evidence (an observation, a document, an executed calculation).

    A calculation gives `expression` and the `value` it produced; `review` re-executes it."""

    def work(memory: Memory) -> payloads.NodeAdded:
        change = memory.add_evidence(
            id,
            text=text,
            author=source,
            expression=expression,
            value=value,
            valid_until=valid_until,
        )
        return payloads.node_added(change, id)

    def replay(memory: Memory, event: int) -> payloads.NodeAdded:
        return {"event_id": event, "id": id, "active": served.since(memory, event).is_active(id)}

    arguments = {
        "id": id,
        "text": text,
        "source": source,
        "expression": expression,
        "value": value,
        **({"valid_until": valid_until} if valid_until is not None else {}),
    }
    result = await served.access(once("add_evidence", arguments, idempotency_key, work, replay))
    await served.changed([id], result["event_id"])
    return result


@tool(WRITING)
async def add_claim(
    served: Served,
    id: Annotated[
        NodeId,
        Field(
            description=(
                f"the new claim's id, unique in the memory (1 to {MAX_ID_LENGTH} characters)"
            )
        ),
    ],
    justifications: Annotated[
        list[Annotated[list[NodeId], Field(max_length=limits.MAX_ANTECEDENTS)]],
        Field(
            max_length=limits.MAX_JUSTIFICATIONS,
            description=(
                f"the claim's alternative justifications (at most "
                f"{limits.MAX_JUSTIFICATIONS}), each a list of existing ids "
                f"(at most {limits.MAX_ANTECEDENTS}) that together support it; "
                f"[[]] makes a premise"
            ),
        ),
    ],
    text: NodeText = "",
    idempotency_key: IdempotencyKey = None,
) -> payloads.NodeAdded:
    """Record a claim with its justifications.

    Each justification is a list of ids that TOGETHER support the claim (AND); several are
    alternatives (OR): the claim stays active while one is intact. `[[]]` makes a premise.
    Record every independent reason: an audit then keeps the claim when one is withdrawn."""

    def work(memory: Memory) -> payloads.NodeAdded:
        return payloads.node_added(memory.add_claim(id, justifications, text=text), id)

    def replay(memory: Memory, event: int) -> payloads.NodeAdded:
        return {"event_id": event, "id": id, "active": served.since(memory, event).is_active(id)}

    arguments = {"id": id, "justifications": justifications, "text": text}
    result = await served.access(once("add_claim", arguments, idempotency_key, work, replay))
    await served.changed([id], result["event_id"])
    return result


@tool(WRITING)
async def add_justification(
    served: Served,
    claim: Annotated[NodeId, Field(description="an existing claim's id")],
    antecedents: Annotated[
        list[NodeId],
        Field(
            max_length=limits.MAX_ANTECEDENTS,
            description=(
                f"existing ids (at most {limits.MAX_ANTECEDENTS}) that together support the claim"
            ),
        ),
    ],
    limit: Limit = pages.DEFAULT_LIMIT,
    idempotency_key: IdempotencyKey = None,
) -> payloads.JustificationAdded:
    """Add one justification to an existing claim; `activated` lists what it re-activated."""

    def work(memory: Memory) -> payloads.JustificationAdded:
        return payloads.justification_added(
            memory.add_justification(claim, antecedents), claim, limit
        )

    def replay(memory: Memory, event: int) -> payloads.JustificationAdded:
        return cast(payloads.JustificationAdded, payloads.event_page(memory, event, 0, limit))

    arguments = {"claim": claim, "antecedents": antecedents}
    result = await served.access(
        once("add_justification", arguments, idempotency_key, work, replay)
    )
    await served.changed([claim, *result["activated"]], result["event_id"])
    return result


@tool(READING)
async def search(
    served: Served,
    query: Annotated[
        str,
        Field(
            min_length=1,
            max_length=limits.MAX_QUERY,
            description=f"words of node ids and texts ({limits.MAX_QUERY_WORDS} at most)",
        ),
    ],
    active_only: Annotated[bool, Field(description="false: inactive nodes too")] = True,
    limit: Annotated[
        int, Field(ge=1, le=limits.MAX_SEARCH_LIMIT, description="hits in this page")
    ] = DEFAULT_SEARCH_LIMIT,
    cursor: Cursor = None,
) -> payloads.SearchPayload:
    """Find nodes by the words of their ids and texts, ranked by the database's full-text
    search ("vaccine" finds "vaccines"). Each hit has its `status` and, for an active claim,
    its `certificate` (why it holds now), so you can cite it."""

    def work(memory: Memory) -> payloads.SearchPayload:
        page = memory.search(query, active_only=active_only, limit=limit, cursor=cursor)
        return payloads.search_payload(page)

    return await served.access(work)


@tool(ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False))
async def purge(
    served: Served,
    id: Annotated[NodeId, Field(description="the node whose content to erase")],
    reason: Annotated[
        str,
        Field(
            min_length=1,
            max_length=limits.MAX_REASON,
            description="why, for the record (e.g. an erasure request)",
        ),
    ],
    reviewer: Reviewer = None,
    limit: Limit = pages.DEFAULT_LIMIT,
    idempotency_key: IdempotencyKey = None,
) -> payloads.PurgePayload:
    """Erase a node's text, source, expression and value from the memory and its history, and
    retire it as `audit` does (`retired`, `kept`). The erasure record keeps who, when and why,
    never the content; it cannot be reinstated."""

    def work(memory: Memory) -> payloads.PurgePayload:
        return payloads.purge_payload(
            memory, memory.purge(id, reason=reason, reviewer=reviewer), limit
        )

    def replay(memory: Memory, event: int) -> payloads.PurgePayload:
        page = dict(payloads.event_page(memory, event, 0, limit))
        return cast(payloads.PurgePayload, {**page, "purged": id, "scrubbed": True})

    arguments = {"id": id, "reason": reason, "reviewer": reviewer}
    result = await served.access(once("purge", arguments, idempotency_key, work, replay))
    await served.changed(result["retired"], result["audit_id"])
    return result


@tool(WRITING)
async def audit(
    served: Served,
    invalidate: Annotated[
        IdList,
        Field(
            min_length=1,
            description=(f"the evidence or claim ids found wrong (1 to {MAX_IDS})"),
        ),
    ],
    reason: Reason,
    reviewer: Reviewer = None,
    dry_run: DryRun = False,
    limit: Limit = pages.DEFAULT_LIMIT,
    cursor: Cursor = None,
    idempotency_key: IdempotencyKey = None,
) -> payloads.AuditPayload:
    """Invalidate evidence or claims found wrong; withdraw exactly what loses all support.

    `retired`: no longer active. `kept`: downstream claims still active, each with its
    `surviving_justification` (do not retract those). `dry_run`: a preview (next page: this call
    with `cursor`). A real audit's `audit_id` undoes it with `reinstate`; its next pages: `page`."""
    arguments = {"invalidate": invalidate, "reason": reason, "reviewer": reviewer}

    def preview(memory: Memory) -> payloads.AuditPayload:
        view, offset, call_digest = paged(
            served.access, memory, "audit", {**arguments, "dry_run": True}, cursor
        )
        with view.snapshot():  # the preview and its kept claims read one state
            event = view.as_of_event or view.last_event
            result = view.preview(invalidate)
            return payloads.audit_payload(
                view, invalidate, result, True, limit, offset, event, call_digest
            )

    def work(memory: Memory) -> payloads.AuditPayload:
        result = memory.audit(invalidate, reason=reason, reviewer=reviewer)
        return payloads.audit_payload(memory, invalidate, result, False, limit)

    def replay(memory: Memory, event: int) -> payloads.AuditPayload:
        return cast(payloads.AuditPayload, payloads.event_page(memory, event, 0, limit))

    if dry_run:
        if idempotency_key is not None:
            raise ToolError(DRY_RUN_KEY)
        return await served.access(preview)
    if cursor is not None:
        raise ToolError(
            "cursor: a real audit's next pages come from the `page` tool "
            "(pass it the cursor there); nothing was written"
        )
    result = await served.access(once("audit", arguments, idempotency_key, work, replay))
    await served.changed(result["retired"], result["audit_id"])
    return result


@tool(WRITING)
async def add_nogood(
    served: Served,
    id: Annotated[
        NodeId, Field(description=("the new nogood's id, unique among nodes and nogoods"))
    ],
    nodes: Annotated[
        IdList,
        Field(
            min_length=1,
            description=(
                f"the claim or evidence ids that must not all hold together (1 to {MAX_IDS})"
            ),
        ),
    ],
    limit: Limit = pages.DEFAULT_LIMIT,
    idempotency_key: IdempotencyKey = None,
) -> payloads.NogoodAdded:
    """Record that `nodes` must not all be active together; `active`: they all hold now.
    Then `diagnose` says which evidence to audit."""

    def work(memory: Memory) -> payloads.NogoodAdded:
        change = memory.add_nogood(id, nodes)
        return payloads.nogood_added(change, id, nodes, memory.is_active(id), limit)

    def replay(memory: Memory, event: int) -> payloads.NogoodAdded:
        return cast(payloads.NogoodAdded, payloads.event_page(memory, event, 0, limit))

    result = await served.access(
        once("add_nogood", {"id": id, "nodes": nodes}, idempotency_key, work, replay)
    )
    await served.changed([id], result["event_id"])
    return result


@tool(WRITING)
async def add_batch(
    served: Served,
    nodes: Annotated[
        list[BatchNode],
        Field(
            max_length=MAX_BATCH,
            description=(
                f"new evidence and claims: {{id, kind, text?, valid_until?}} (at most {MAX_BATCH})"
            ),
        ),
    ],
    justifications: Annotated[
        list[BatchJustification],
        Field(
            max_length=MAX_BATCH,
            description=(
                f"{{claim, antecedents}} of new or stored claims; antecedents new or stored "
                f"(at most {MAX_BATCH})"
            ),
        ),
    ] = [],  # noqa: B006 - the SDK copies the default into each call's arguments model
    nogoods: Annotated[
        list[BatchNogood],
        Field(max_length=MAX_BATCH, description=f"{{id, nodes}} (at most {MAX_BATCH})"),
    ] = [],  # noqa: B006
    limit: Limit = pages.DEFAULT_LIMIT,
    idempotency_key: IdempotencyKey = None,
) -> payloads.BatchAdded:
    """Write many nodes, justifications and nogoods in one transaction (a graph file's
    shape); antecedents may be new or stored. Checked whole first: one bad item and nothing is
    written, the error naming it. `inactive`: new nodes not active; `activated`: stored nodes
    it activated."""

    def work(memory: Memory) -> payloads.BatchAdded:
        change = memory.add_batch(
            cast(Any, nodes),
            cast(Any, justifications),
            cast(Any, nogoods),
            idempotency_key=idempotency_key,
        )
        return cast(payloads.BatchAdded, payloads.event_page(memory, change.event_id, 0, limit))

    result = await served.access(work)
    if served.bus.listening:
        created = [node["id"] for node in nodes] + list(result["activated"])
        await served.changed(created, result["event_id"])
    return result


@tool(WRITING)
async def reinstate(
    served: Served,
    audit_id: Annotated[int, Field(ge=1, description=("the `audit_id` an audit returned"))],
    limit: Limit = pages.DEFAULT_LIMIT,
    idempotency_key: IdempotencyKey = None,
) -> payloads.ReinstatePayload:
    """Undo an audit: what it withdrew is active again (`reactivated`)."""

    def work(memory: Memory) -> payloads.ReinstatePayload:
        return payloads.reinstate_payload(audit_id, memory.reinstate(audit_id), limit)

    def replay(memory: Memory, event: int) -> payloads.ReinstatePayload:
        return cast(payloads.ReinstatePayload, payloads.event_page(memory, event, 0, limit))

    result = await served.access(
        once("reinstate", {"audit_id": audit_id}, idempotency_key, work, replay)
    )
    await served.changed(result["reactivated"], result["event_id"])
    return result


@tool(WRITING)
async def review(
    served: Served,
    dry_run: DryRun = False,
    limit: Limit = pages.DEFAULT_LIMIT,
    idempotency_key: IdempotencyKey = None,
) -> payloads.ReviewPayload:
    """Re-execute every recorded calculation; audit those whose result disagrees
    (`discrepancies`, `audit_id`, `retired`) unless `dry_run`. `refused`: calculations not
    safe to re-execute. Also lists `contradictions` and a `proposed_diagnosis`."""
    if dry_run and idempotency_key is not None:
        raise ToolError(DRY_RUN_KEY)
    first = None if idempotency_key is None else await served.access(first_review(idempotency_key))
    if first is None:
        planned = await served.access.long_read("review_plan", {})
        if not dry_run:
            first = await served.access(review_write(planned, idempotency_key))
    if first is not None:  # a repeat: the first review's result, rebuilt
        return await review_replay(served, *first, limit)
    found = await served.access.long_read("review_contradictions", {})
    payload = payloads.review_payload(planned, found, limit, longreads.PAGE_BYTES)
    if payload["audit_id"] is not None:
        await served.changed(payload["retired"], payload["audit_id"])
    return payload


async def review_replay(
    served: Served, event: int, audited: bool, limit: int
) -> payloads.ReviewPayload:
    """The result of the review that stored its key with ``event``, rebuilt: its plan
    re-executed as of the event it read (the one before its audit, or ``event`` when
    it audited nothing), the contradictions as of ``event``, its audit's first page."""
    planned = await served.access.long_read(
        "review_plan", {"as_of": event - 1 if audited else event}
    )
    found = await served.access.long_read("review_contradictions", {"as_of": event})
    payload = payloads.review_payload(planned, found, limit, longreads.PAGE_BYTES)
    if audited:
        page = await served.access(lambda memory: payloads.event_page(memory, event, 0, limit))
        payload["audit_id"], payload["retired"] = event, page["retired"]
        payload["cursor"] = page["cursor"]
        payload["counts"]["retired"] = page["counts"]["retired"]
    return payload


# --- reading tools -------------------------------------------------------------------------
@tool(READING)
async def state(
    served: Served,
    ids: Annotated[
        IdList | None,
        Field(
            description=(
                f"the node or nogood ids to look up (at most {MAX_IDS}); omit for every node"
            )
        ),
    ] = None,
    limit: Limit = pages.DEFAULT_LIMIT,
    cursor: Cursor = None,
) -> payloads.StatePayload:
    """Which of `ids` (every node when omitted) are active and which inactive."""

    def work(memory: Memory) -> payloads.StatePayload:
        view, offset, call_digest = paged(served.access, memory, "state", {"ids": ids}, cursor)
        return payloads.state_payload(view, ids, limit, offset, call_digest)

    return await served.access(work)


@tool(READING)
async def explain(
    served: Served,
    id: Annotated[NodeId, Field(description="the node to explain")],
    as_of: Annotated[
        int | Annotated[str, Field(max_length=64)] | None,
        Field(
            description=(
                "a past event id (an `event_id` or `audit_id` a tool returned), or an "
                "ISO time of at most 64 characters (the latest event at or before it); "
                "omit for now"
            )
        ),
    ] = None,
    limit: Limit = pages.DEFAULT_LIMIT,
    cursor: Cursor = None,
) -> payloads.ExplainPayload:
    """Why a node is active (`certificate`: steps down to `evidence`) or not
    (`blocked_by`, `withdrawn_by`, `kept_out_by`, `broken_justifications`). `as_of`: as it was
    then; before the node existed, it says so."""
    moment = event_moment(as_of)

    def work(memory: Memory) -> payloads.ExplainPayload:
        arguments = {"id": id, "as_of": as_of}
        base = memory if moment is None else served.since(memory, memory.event_at(moment))
        view, offset, call_digest = paged(served.access, base, "explain", arguments, cursor)
        return payloads.explain_payload(view, id, limit, offset, call_digest)

    return await served.access(work)


@tool(READING)
async def history(
    served: Served,
    id: Annotated[NodeId, Field(description="the node or nogood whose history to read")],
    limit: Limit = pages.DEFAULT_LIMIT,
    cursor: Cursor = None,
) -> payloads.HistoryPayload:
    """Every status a node has had, oldest first, with who and why; and the audits naming it."""

    def work(memory: Memory) -> payloads.HistoryPayload:
        view, offset, call_digest = paged(served.access, memory, "history", {"id": id}, cursor)
        return payloads.history_payload(view, id, limit, offset, call_digest)

    return await served.access(work)


@tool(READING, content=lambda payload: payload["text"])
async def context(
    served: Served,
    budget: Annotated[
        int,
        Field(
            ge=0,
            le=MAX_CONTEXT_BUDGET,
            description=(f"the most tokens the context may take (0 to {MAX_CONTEXT_BUDGET})"),
        ),
    ],
    query: Query = None,
) -> payloads.ContextPayload:
    """The active memory as a working context of at most `budget` tokens, claims relevant to
    `query` first, and recently withdrawn claims to stop relying on. The text is the content;
    the claims, evidence and counts are the structured result."""
    return cast(
        payloads.ContextPayload,
        await served.access.long_read("context", {"budget": budget, "query": query}),
    )


@tool(READING)
async def diagnose(
    served: Served, limit: Limit = pages.DEFAULT_LIMIT, cursor: Cursor = None
) -> payloads.DiagnosePayload:
    """The contradictions (nogoods whose nodes all hold), their conflict sets, and the
    cheapest diagnoses: minimal evidence sets to `invalidate` (pass one to `audit`, `dry_run`
    first), each with what it `retires` and `keeps`. Writes nothing."""
    return cast(
        payloads.DiagnosePayload,
        await served.access.long_read("diagnose", {"limit": limit, "cursor": cursor}),
    )


@tool(READING)
async def check(
    served: Served, limit: Limit = pages.DEFAULT_LIMIT, cursor: Cursor = None
) -> payloads.CheckPayload:
    """Influence-safety of every claim: unsafe when retracting everything downstream of
    some evidence would wrongly retire it (another justification survives); each violation
    names its one-item witness audit. Counting-safety too (`counting_safe`): unsafe when
    Datalog's Counting would keep it after an audit that exact revision retires it for
    (`counting_witness`: that audit and the support loop that keeps it)."""

    return cast(
        payloads.CheckPayload,
        await served.access.long_read("check", {"limit": limit, "cursor": cursor}),
    )


@tool(
    READING,
    output={
        "type": "object",
        "additionalProperties": True,
        "description": (
            "the result of the write that made the event, as that writing tool returns it: "
            "audit (audit_id, audit, retired, kept, counts, cursor), reinstate "
            "(reactivated), add_justification (activated) or add_nogood (nodes)"
        ),
    },
)
async def page(
    served: Served,
    cursor: Annotated[
        str | None,
        Field(
            max_length=400,
            description=(
                "the `cursor` of a write's result (audit, reinstate, add_justification, add_nogood, review)"
            ),
        ),
    ] = None,
    event_id: Annotated[
        int | None,
        Field(
            ge=1,
            description=(
                "instead of a cursor: an event id (an `audit_id`, an `event_id`) whose "
                "result to read from its first page"
            ),
        ),
    ] = None,
    limit: Limit = pages.DEFAULT_LIMIT,
) -> dict[str, Any]:
    """The next page of a write's result (`cursor`), or its first page at any later time
    (`event_id`, e.g. an `audit_id`)."""
    if (cursor is None) == (event_id is None):
        raise ToolError("page: give either `cursor` or `event_id`")

    def work(memory: Memory) -> dict[str, Any]:
        if cursor is not None:
            found = pages.decode(cursor, "event", "")
            return payloads.event_page(memory, found.event, found.offset, limit)
        assert event_id is not None
        memory.event_at(event_id)  # "no event N" for one that does not exist
        return payloads.event_page(memory, event_id, 0, limit)

    return await served.access(work)


def build_server(access: MemoryAccess, read_only: bool = False) -> MemoryServer:
    """The MCP server of the memory behind ``access``: every tool of :data:`TOOLS`
    (``read_only``: only the reading ones) and the two resources."""
    access.create_secret = not read_only
    served = Served(access)
    tools = [bound_tool(spec, served) for spec in TOOLS if not (read_only and spec.writes)]
    bus = served.bus
    server = MemoryServer(
        "jtms",
        instructions=INSTRUCTIONS,
        subscriptions=bus,  # type: ignore[arg-type]
        log_level="WARNING",
        tools=tools,
    )
    server.read_only = read_only
    server.arguments = {
        entry.name: tuple(entry.parameters.get("properties", {})) for entry in tools
    }

    # --- resources -----------------------------------------------------------------------------
    @server.resource(
        "memory://node/{id}",
        name="node",
        mime_type="application/json",
        security=ResourceSecurity(exempt_params={"id"}),
        description="A node's status, text, and its certificate (active) or why it "
        "is inactive: the keys of the explain tool plus `status`.",
    )
    async def node_resource(id: str) -> str:
        def work(memory: Memory) -> str:
            payload: dict[str, Any] = dict(
                payloads.explain_payload(memory, id, pages.DEFAULT_LIMIT)
            )
            payload["status"] = "active" if payload["active"] else "inactive"
            return json.dumps(payload, sort_keys=True)

        return await access(work, ResourceError)

    @server.resource(
        "memory://context",
        name="context",
        mime_type="text/plain",
        description=f"The current working context at {CONTEXT_BUDGET} tokens.",
    )
    async def context_resource() -> str:
        return cast(
            str,
            await access.long_read("context_text", {"budget": CONTEXT_BUDGET}, ResourceError),
        )

    server.access = access  # the explorer page reads and writes through the same lock
    return server
