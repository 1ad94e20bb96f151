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

Each result is the payload built once by :mod:`jtms.views.payloads`, sent as structured content
with its compact JSON as the text copy; the published output schemas name every key and its
type and describe list items rather than have a client check each one (:func:`published_schema`).
"""

from __future__ import annotations

import asyncio
import copy
import functools
import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Annotated, Any, TypeVar, cast

import anyio.lowlevel
import anyio.to_thread
import pydantic_core
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.resources import ResourceSecurity
from mcp.server.mcpserver.tools import Tool
from mcp.server.subscriptions import ResourceUpdated, ServerEvent
from mcp_types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from theory.errors import InputError

from jtms.views import payloads
from jtms.memory.memory import Memory

T = TypeVar("T")

MAX_IDS = 10_000            # longest id list one call may carry (audit roots, antecedents, ...)
MAX_TEXT = 100_000          # longest text
CONTEXT_BUDGET = 2_000      # tokens of the memory://context resource
REVIEWER = "jtms-review"    # the reviewer name `jtms review` uses
DIAGNOSES = 10              # diagnoses listed, as `jtms diagnose --max-diagnoses` by default
WATCH_SECONDS = 0.5         # while someone listens: how often to look for other processes' writes

NodeId = Annotated[str, Field(min_length=1, max_length=1_000, description="a node id")]
IdList = Annotated[list[NodeId], Field(max_length=MAX_IDS)]
Text = Annotated[str, Field(max_length=MAX_TEXT)]

INSTRUCTIONS = """\
A persistent memory of evidence and the claims derived from it, with justification-aware
revision. Record evidence (add_evidence) and claims with their justifications (add_claim: each
justification is a list of ids that together support the claim; several justifications are
alternatives). When a piece of evidence (or a claim) turns out to be wrong, audit it: the
memory retires exactly the claims left with no intact justification and keeps the ones that
still have another one. Preview with audit(dry_run=true). Reinstating an audit undoes it.
Read what is active with state, why with explain, what changed with history, and a compact
working context with context. Record contradictions with add_nogood; diagnose says which
evidence to audit to resolve them."""


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


class MemoryServer(MCPServer):  # type: ignore[type-arg]
    """An :class:`MCPServer` whose argument errors are one-line tool errors."""

    access: "MemoryAccess"

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Any = None) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            cause = error.__cause__
            if isinstance(cause, ValidationError):
                problems = "; ".join(
                    f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                    for e in cause.errors())
                raise ToolError(f"Error executing tool {name}: bad arguments: {problems}") from None
            raise


class MemoryAccess:
    """One open memory, used by one call at a time (on a worker thread)."""

    def __init__(self, memory: Memory):
        self.memory = memory
        self._lock = threading.Lock()

    def run(self, work: Callable[[Memory], T], error: type[Exception] = ToolError) -> T:
        """``work(memory)`` under the lock; bad input and database faults become ``error``
        carrying the one-line message."""
        with self._lock:
            try:
                return work(self.memory)
            except InputError as problem:
                raise error(str(problem)) from None
            except sqlite3.Error as problem:
                raise error(f"database error: {problem}") from None

    async def __call__(self, work: Callable[[Memory], T], error: type[Exception] = ToolError) -> T:
        """:meth:`run` on a worker thread."""
        return await anyio.to_thread.run_sync(self.run, work, error)


def structured(payload: Mapping[str, Any]) -> CallToolResult:
    """A tool result: ``payload`` as structured content, and its compact JSON text once as the
    text copy (for clients that read only ``content``).

    The payload is built by :mod:`jtms.views.payloads` (typed, the CLI's ``--json``), so it is not
    validated again against its own output model: on a large audit that check and the
    SDK's re-dump of the validated copy cost more than the audit itself (docs/serve.md).
    """
    text = pydantic_core.to_json(payload).decode()
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=dict(payload))


def published_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The output schema a tool publishes: every result key with its type (and ``required``),
    and each list described rather than checked item by item.

    A client validates every structured result against this schema (the SDK's client runs
    ``jsonschema`` on each one); with an ``items`` schema that costs about 20 microseconds
    per item, seconds for an audit listing 50,000 kept claims. So a top-level list publishes
    ``type: array`` and, in its ``description``, what its items are (object items keep their
    schema in ``$defs``): the check then costs O(keys), not O(ids).
    """
    schema = copy.deepcopy(schema)
    for prop in schema.get("properties", {}).values():
        for branch in (prop, *prop.get("anyOf", ())):
            if branch.get("type") != "array" or "items" not in branch:
                continue
            items = branch.pop("items")
            said = prop.get("description", "")
            prop["description"] = (f"{said} " if said else "") + f"A list; each item: {_item_text(items)}."
    return schema


def _item_text(items: dict[str, Any]) -> str:
    if items == {"type": "string"}:
        return "a string"
    ref = items.get("$ref", "")
    if ref.startswith("#/$defs/"):
        name = ref.rsplit("/", 1)[-1]
        return f"a {name} object (its schema: $defs.{name})"
    return f"JSON Schema {json.dumps(items, separators=(',', ':'), sort_keys=True)}"


def node_uri(node_id: str) -> str:
    from urllib.parse import quote
    return f"memory://node/{quote(node_id, safe='')}"


def build_server(access: MemoryAccess, read_only: bool = False) -> MemoryServer:
    """The MCP server of the memory behind ``access`` (``read_only``: only the reading tools)."""
    bus = SubscriberBus()
    tools: list[Tool] = []
    own_events: set[int] = set()        # this server's writes: published when made
    watcher: list[asyncio.Task[None]] = []
    reading = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
    writing = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

    async def changed(ids: Iterable[str], event: int | None = None) -> None:
        if not bus.listening:
            return
        if event is not None:
            own_events.add(event)
        await bus.publish(ResourceUpdated(uri="memory://context"))
        for node_id in sorted(set(ids)):
            await bus.publish(ResourceUpdated(uri=node_uri(node_id)))

    async def watch() -> None:
        """While someone listens: every WATCH_SECONDS, ``Memory.wait_for_change(timeout=0)``
        (one look at the latest event id; O(changes) catch-up when there are some), and for
        the events another process committed meanwhile (``Memory.events``: what each
        created, activated and deactivated), the same notifications as for our own writes."""
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
                await changed(ids)

    def start_watching() -> None:
        if not any(not task.done() for task in watcher):
            watcher[:] = [asyncio.get_running_loop().create_task(watch())]

    bus.on_first = start_watching

    def tool(annotations: ToolAnnotations) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            if read_only and not annotations.read_only_hint:
                return fn

            @functools.wraps(fn)  # the same name, description and signature (arguments, schema)
            async def call(**arguments: Any) -> CallToolResult:
                return structured(await fn(**arguments))

            entry = Tool.from_function(call, annotations=annotations, structured_output=True)
            metadata = entry.fn_metadata
            assert metadata.output_schema is not None, fn.__name__
            metadata.output_schema = published_schema(metadata.output_schema)
            metadata.output_model = None  # the result comes built (structured): published only
            tools.append(entry)
            return fn
        return register

    # --- writing tools -------------------------------------------------------------------------
    @tool(writing)
    async def add_evidence(id: NodeId, text: Text = "", source: str | None = None,
                           expression: str | None = None,
                           value: str | None = None) -> payloads.NodeAdded:
        """Record one piece of evidence (an observation, a document, an executed calculation).

        `source` says where it came from (a tool, a person, a URL). A calculation gives both
        `expression` (sympy syntax, e.g. "2*21") and the `value` it produced; `review` can
        re-execute it later. New evidence is active. Fails on an id already in the memory."""
        def work(memory: Memory) -> payloads.NodeAdded:
            change = memory.add_evidence(id, text=text, author=source, expression=expression,
                                         value=value)
            return payloads.node_added(change, id)
        result = await access(work)
        await changed([id], result["event_id"])
        return result

    @tool(writing)
    async def add_claim(id: NodeId,
                        justifications: Annotated[list[IdList], Field(max_length=MAX_IDS)],
                        text: Text = "") -> payloads.NodeAdded:
        """Record a claim you derived, with its justifications.

        Each justification is a list of existing evidence or claim ids that TOGETHER support
        the claim (AND); several justifications are independent alternatives (OR), and the
        claim stays active as long as one of them is intact. `[[]]` makes a premise (holds
        with no support). Record every independent reason you have: that is what lets an
        audit keep the claim when one reason is withdrawn. `active` in the result says
        whether the claim is supported now."""
        def work(memory: Memory) -> payloads.NodeAdded:
            return payloads.node_added(memory.add_claim(id, justifications, text=text), id)
        result = await access(work)
        await changed([id], result["event_id"])
        return result

    @tool(writing)
    async def add_justification(claim: NodeId, antecedents: IdList) -> payloads.JustificationAdded:
        """Add one more justification (ids that together support it) to an existing claim.

        It may re-activate the claim and what depends on it: `activated` lists them."""
        def work(memory: Memory) -> payloads.JustificationAdded:
            return payloads.justification_added(memory.add_justification(claim, antecedents), claim)
        result = await access(work)
        await changed([claim, *result["activated"]], result["event_id"])
        return result

    @tool(writing)
    async def audit(invalidate: Annotated[IdList, Field(min_length=1)], reason: Text,
                    reviewer: str | None = None, dry_run: bool = False) -> payloads.AuditPayload:
        """Invalidate evidence or claims found wrong, and withdraw exactly what loses all support.

        Use it when a source is discredited, a measurement contaminated, a calculation wrong.
        `retired` lists what is no longer active (the invalidated ids included): claims whose
        every justification used something invalidated. `kept` lists downstream claims that
        stay active, each with the `surviving_justification` that still holds: do not retract
        those. With `dry_run` nothing is written (a preview; `audit_id` is null). The
        `audit_id` of a real audit can be passed to `reinstate` to undo it."""
        def work(memory: Memory) -> payloads.AuditPayload:
            if dry_run:
                result = memory.preview(invalidate)
            else:
                result = memory.audit(invalidate, reason=reason, reviewer=reviewer)
            return payloads.audit_payload(memory, invalidate, result, dry_run)
        result = await access(work)
        if not dry_run:
            await changed(result["retired"], result["audit_id"])
        return result

    @tool(writing)
    async def add_nogood(id: NodeId, nodes: Annotated[IdList, Field(min_length=1)]) -> payloads.NogoodAdded:
        """Record a contradiction rule: the `nodes` (claims or evidence) must not all be active
        together. It changes no status; `active` says whether they all hold now (a live
        contradiction). Then call `diagnose` to learn which evidence to audit."""
        def work(memory: Memory) -> payloads.NogoodAdded:
            change = memory.add_nogood(id, nodes)
            return payloads.nogood_added(change, id, nodes, memory.is_active(id))
        result = await access(work)
        await changed([id], result["event_id"])
        return result

    @tool(writing)
    async def reinstate(audit_id: int) -> payloads.ReinstatePayload:
        """Undo an audit (by the `audit_id` that `audit` returned): its invalidated ids count
        again and everything they supported is active again (`reactivated`)."""
        def work(memory: Memory) -> payloads.ReinstatePayload:
            return payloads.reinstate_payload(audit_id, memory.reinstate(audit_id))
        result = await access(work)
        await changed(result["reactivated"], result["event_id"])
        return result

    @tool(writing)
    async def review(dry_run: bool = False) -> payloads.ReviewPayload:
        """Re-execute every recorded calculation (evidence with an expression and a value).

        Each one whose result disagrees with its recorded value is a discrepancy; all of them
        are invalidated in one audit (`audit_id`, `retired`) unless `dry_run`. `refused` lists
        calculations that cannot be re-executed safely (they are not audited). `contradictions`
        lists the active nogoods and `proposed_diagnosis` the cheapest evidence to withdraw."""
        from jtms.memory.contradictions import review_contradictions
        from jtms.calc.reviewer import review as run_review

        def work(memory: Memory) -> payloads.ReviewPayload:
            return payloads.review_payload(run_review(memory, reviewer=REVIEWER, dry_run=dry_run),
                                           review_contradictions(memory, reviewer=REVIEWER))
        result = await access(work)
        if result["audit_id"] is not None:
            await changed(result["retired"], result["audit_id"])
        return result

    # --- reading tools -------------------------------------------------------------------------
    @tool(reading)
    async def state(ids: IdList | None = None) -> payloads.StatePayload:
        """Which of `ids` (every node when omitted) are active and which inactive now."""
        return await access(lambda memory: payloads.state_payload(memory, ids))

    @tool(reading)
    async def explain(id: NodeId, as_of: Annotated[int | str | None, Field(
            description="a past event id, or an ISO time (the latest event at or before it)")]
            = None) -> payloads.ExplainPayload:
        """Why a node is active or not.

        Active: `certificate`, a derivation down to evidence (steps claim <- antecedents) and
        the `evidence` it rests on. Inactive: `blocked_by` (the audits that invalidated this
        node itself), `withdrawn_by` (the event that withdrew it), `kept_out_by` (the open
        audits that keep it out now) and `broken_justifications` (each justification with
        its inactive antecedents). `as_of` (an event id such as an `event_id` or `audit_id`
        a tool returned, or an ISO time) explains the node as it was then."""
        moment = int(as_of) if isinstance(as_of, str) and as_of.strip().isdigit() else as_of

        def work(memory: Memory) -> payloads.ExplainPayload:
            return cast(payloads.ExplainPayload, memory.explain(id, as_of=moment).as_dict())
        return await access(work)

    @tool(reading)
    async def history(id: NodeId) -> payloads.HistoryPayload:
        """Every status a node has had, oldest first (its creation, then each audit or
        reinstatement that changed it, with who and why), and the audits naming it."""
        return await access(lambda memory: payloads.history_payload(memory, id))

    @tool(reading)
    async def context(budget: Annotated[int, Field(ge=0, le=10_000_000)],
                      query: str | None = None) -> payloads.ContextPayload:
        """The active memory compiled into a working context of at most `budget` tokens
        (`text`, ready to read), preferring claims relevant to `query`; it also lists
        recently withdrawn claims so you stop relying on them."""
        return await access(
            lambda memory: cast(payloads.ContextPayload, memory.context(budget, query).as_dict()))

    @tool(reading)
    async def diagnose() -> payloads.DiagnosePayload:
        """The contradictions (nogoods whose nodes are all active) with their conflict sets
        (minimal evidence sets that make them hold), and the cheapest diagnoses: minimal sets
        of evidence to `invalidate` that leave no contradiction, each with what that audit
        `retires` and `keeps`. Nothing is written: pass a diagnosis's `invalidate` to `audit`
        (`dry_run` first). `undiagnosable` lists contradictions that hold without evidence.
        `applied` is always null here (the CLI's `--apply`)."""
        def work(memory: Memory) -> payloads.DiagnosePayload:
            payload = memory.diagnose(DIAGNOSES).to_dict()
            payload["applied"] = None
            return cast(payloads.DiagnosePayload, payload)
        return await access(work)

    @tool(reading)
    async def check() -> payloads.CheckPayload:
        """Influence-safety of every claim as the memory stands: a claim is unsafe when a
        naive 'retract everything downstream' rule would wrongly retire it (it has another
        intact justification). Each violation names a one-item witness audit."""
        import time

        from theory.safety import check_structure

        def work(memory: Memory) -> payloads.CheckPayload:
            started = time.perf_counter()  # the stored graph with the audits in force, as `jtms check --db`
            report = check_structure(memory.structure(), blocked=memory.blocked_ids())
            payload = report.to_dict()
            payload["seconds"] = round(time.perf_counter() - started, 6)
            return payload  # type: ignore[return-value]
        return await access(work)

    server = MemoryServer("jtms", instructions=INSTRUCTIONS, subscriptions=bus,  # type: ignore[arg-type]
                          log_level="WARNING", tools=tools)

    # --- resources -----------------------------------------------------------------------------
    @server.resource("memory://node/{id}", name="node", mime_type="application/json",
                     security=ResourceSecurity(exempt_params={"id"}),
                     description="A node's status, text, and its certificate (active) or why it "
                                 "is inactive: the keys of the explain tool plus `status`.")
    async def node_resource(id: str) -> str:
        import json

        def work(memory: Memory) -> str:
            payload = memory.explain(id).as_dict()
            payload["status"] = "active" if payload["active"] else "inactive"
            return json.dumps(payload, sort_keys=True)
        return await access(work, ResourceError)

    @server.resource("memory://context", name="context", mime_type="text/plain",
                     description=f"The current working context at {CONTEXT_BUDGET} tokens.")
    async def context_resource() -> str:
        from jtms.memory.context import render_text

        return await access(lambda memory: render_text(memory.context(CONTEXT_BUDGET)),
                            ResourceError)

    server.access = access  # the explorer page reads and writes through the same lock
    return server
