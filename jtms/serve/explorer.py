"""The memory explorer: server-rendered pages on the app of ``jtms serve --http``.

``/`` searches nodes by id or text; ``/node?id=ID`` shows a node's status, its certificate drawn
down to evidence (SVG, by derivation rank), its other justifications, what depends on it and,
for an inactive node, the audit that keeps it out and its broken justifications; ``/preview``
is a dry-run audit with a button to run it; ``/audits`` is the audit timeline with reinstate;
``/events`` is the timeline of every event, each one a link to the memory as of it.

As of a past event (``as_of=N`` on ``/``, ``/node``, ``/audits`` and ``/events``) the pages
read a view made by :meth:`Memory.as_of` (the state right after event N), carry a banner with
a link back to now, and offer no write: the preview, audit and reinstate are refused.

Everything is read and written through :class:`jtms.memory.memory.Memory` (under the
server's lock), every user-supplied string is HTML-escaped, no asset comes from elsewhere
(the stylesheet is served by the app), and every request passes the same Host/Origin checks
as ``/mcp`` (a cross-site form post is refused) and the same bearer token or its cookie.
"""

from __future__ import annotations

import hmac
import json
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlencode

import jinja2
from markupsafe import Markup
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response

from jtms.memory.limits import is_digits
from jtms.memory.memory import Memory
from jtms.serve.http import TOKEN_COOKIE
from jtms.serve.tools import MemoryAccess
from jtms.views import drawing, payloads
from theory.model.errors import InputError
from theory.model.ids import split_ids
from theory.semantics.conflicts import conflict_sets

SEARCH_LIMIT = 50
EVENT_LIMIT = 100
VIEWS_KEPT = 4  # views of the past kept loaded (each holds the state at its event)
LIST_LIMIT = 20  # ids shown per cell of the event timeline
CONFLICTS_SHOWN = 10  # conflict sets listed on a nogood's page
STYLESHEET = Path(__file__).with_name("explorer.css")
STATIC = Path(__file__).with_name("static")
# the files under static/ the app serves (nothing else there is reachable), by media type:
# ELK (elkjs, vendored unchanged from the npm registry) and its licence, and the page's script
STATIC_FILES = {
    "elk.bundled.js": "text/javascript",
    "explorer.js": "text/javascript",
    "elk.LICENSE.md": "text/plain; charset=utf-8",
}
DRAWING_SCRIPTS = ("/static/elk.bundled.js", "/static/explorer.js")

Endpoint = Callable[[Request], Awaitable[Response]]


@dataclass(frozen=True)
class Moment:
    """What a page shows: the memory now (``event`` None) or as of ``event`` (at ``time``)."""

    event: int | None = None
    time: str = ""

    @property
    def suffix(self) -> str:
        """The query parameter to carry on links (``&as_of=N``; nothing for now)."""
        return "" if self.event is None else f"&as_of={self.event}"

    @property
    def query(self) -> str:
        return "" if self.event is None else f"?as_of={self.event}"


NOW = Moment()

TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=False,
)
"""The pages' templates (``templates/``): every value is HTML-escaped unless it is markup the
templates made themselves."""
TEMPLATES.filters["quote"] = lambda value: quote(str(value), safe="")
TEMPLATES.globals["all_false"] = lambda ids: dict.fromkeys(ids, False)

HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


def render(name: str, **context: Any) -> Markup:
    """The template ``name`` filled with ``context`` (a page, or a fragment of one)."""
    return Markup(TEMPLATES.get_template(name).render(**context))


def page(
    template: str,
    title: str,
    status: int = 200,
    moment: Moment = NOW,
    now: str = "/",
    scripts: tuple[str, ...] = (),
    **context: Any,
) -> HTMLResponse:
    """A whole page from ``template`` (which extends ``base.html``); as of a past event, with
    its banner and a link to ``now`` (the same page without ``as_of``). ``scripts``: the app's
    own scripts the page loads (deferred)."""
    html = render(
        template,
        title=title,
        moment=moment,
        now=now,
        scripts=scripts,
        list_limit=LIST_LIMIT,
        **context,
    )
    return HTMLResponse(str(html), status_code=status, headers=HEADERS)


def message(title: str, text: str, status: int, css: str = "error", **context: Any) -> HTMLResponse:
    """A page with one line (an error, a refusal), optionally a link or the login form."""
    return page(
        "message.html",
        title,
        status,
        message=text,
        css=css,
        link=context.pop("link", ""),
        link_text=context.pop("link_text", ""),
        login=context.pop("login", False),
        back=context.pop("back", "/"),
    )


@dataclass(frozen=True)
class Body:
    """What a page's reader returns: its template and the values it is filled with."""

    template: str
    context: dict[str, Any]


def as_of_param(request: Request) -> int | None:
    """The ``as_of`` query parameter: None when absent or empty, else an event id (its range
    is checked by :meth:`Memory.as_of`); anything else is bad input."""
    raw = request.query_params.get("as_of")
    if raw is None or not raw.strip():
        return None
    text = raw.strip()
    if re.fullmatch(r"-[0-9]+", text):
        raise InputError(f"as_of must be an event id (1 or more), got {text[:40]!r}")
    if not re.fullmatch(r"[0-9]+", text):
        raise InputError(f"as_of must be an event id (an integer), got {text[:40]!r}")
    if len(text) > 30:
        raise InputError(f"as_of {text[:30]}…: no such event")
    return int(text)


def without_as_of(request: Request) -> str:
    """The requested page, now (its query without ``as_of``)."""
    rest = [(k, v) for k, v in request.query_params.multi_items() if k != "as_of"]
    return request.url.path + (f"?{urlencode(rest)}" if rest else "")


class Explorer:
    """The explorer's endpoints over one memory (``routes()`` for :func:`build_app`)."""

    def __init__(
        self,
        access: MemoryAccess,
        security: TransportSecuritySettings,
        read_only: bool = False,
        token: str | None = None,
    ):
        self.access = access
        self.security = TransportSecurityMiddleware(security)
        self.read_only = read_only
        self.token = token
        # views of the past (Memory.as_of) by event, most recently used last; used under the
        # access lock only. A view never changes: what happened up to its event is immutable.
        self._views: OrderedDict[int, tuple[Memory, Moment]] = OrderedDict()

    def routes(self) -> list[tuple[str, list[str], Endpoint]]:
        return [
            ("/", ["GET"], self.guarded(self.search)),
            ("/node", ["GET"], self.guarded(self.node)),
            ("/preview", ["GET"], self.guarded(self.preview)),
            ("/audit", ["POST"], self.guarded(self.audit)),
            ("/audits", ["GET"], self.guarded(self.audits)),
            ("/events", ["GET"], self.guarded(self.events)),
            ("/nogoods", ["GET"], self.guarded(self.nogoods)),
            ("/nogood", ["GET"], self.guarded(self.nogood)),
            ("/reinstate", ["POST"], self.guarded(self.reinstate)),
            ("/login", ["GET", "POST"], self.guarded(self.login)),
            ("/static/explorer.css", ["GET"], self.stylesheet),
            *[(f"/static/{name}", ["GET"], self.static) for name in STATIC_FILES],
        ]

    open_paths = ("/login", "/static/explorer.css")
    login_path = "/login"  # where a browser without the token is sent (BearerToken)

    def guarded(self, endpoint: Endpoint) -> Endpoint:
        """Host/Origin checks first (DNS rebinding, cross-site posts); bad input and
        database faults become a page with the one-line message (status 400)."""

        async def run(request: Request) -> Response:
            refused = await self.security.validate_request(request, is_post=False)
            if refused is not None:
                return refused
            try:
                return await endpoint(request)
            except InputError as error:
                return message("bad request", str(error), 400)

        return run

    async def read(self, work: Callable[[Memory], Any]) -> Any:
        return await self.access(work, InputError)

    def viewed(self, memory: Memory, event: int | None) -> tuple[Memory, Moment]:
        """The memory to read for a page: ``memory`` itself, or its view as of ``event``
        (:meth:`Memory.as_of`, which refuses an event that does not exist)."""
        if event is None:
            return memory, NOW
        kept = self._views.get(event)
        if kept is None:
            view = memory.as_of(event)
            times = [e["time"] for e in view.events(after=event - 1)]
            kept = (view, Moment(event, times[-1] if times else ""))
            self._views[event] = kept
            while len(self._views) > VIEWS_KEPT:
                self._views.popitem(last=False)
        self._views.move_to_end(event)
        return kept

    async def read_as_of(
        self,
        request: Request,
        title: str,
        work: Callable[[Memory, Moment], Body],
        scripts: tuple[str, ...] = (),
    ) -> Response:
        """A page read from the memory now or as of the request's ``as_of`` event."""
        event = as_of_param(request)
        moment = NOW

        def run(memory: Memory) -> Body:
            nonlocal moment
            view, moment = self.viewed(memory, event)
            return work(view, moment)

        body = await self.read(run)
        return page(
            body.template,
            title,
            moment=moment,
            now=without_as_of(request),
            scripts=scripts,
            **body.context,
        )

    @staticmethod
    def refuse_as_of(request: Request) -> Response | None:
        """Writes (and the preview of one) act on the memory now: with ``as_of``, refused."""
        if "as_of" not in request.query_params:
            return None
        return message(
            "read-only",
            "as of a past event the memory is read-only: previews, audits and "
            "reinstatements act on the memory now",
            400,
            link=without_as_of(request),
            link_text="go to now",
        )

    def refuse_write(self, request: Request) -> Response | None:
        """An audit or a reinstatement: refused on a read-only server (403) and as of a past
        event (400); None when it may run."""
        if self.read_only:
            return message("read-only", "this server is read-only", 403, css="")
        return self.refuse_as_of(request)

    # --- pages ---------------------------------------------------------------------------------
    async def stylesheet(self, request: Request) -> Response:
        return Response(STYLESHEET.read_text(encoding="utf-8"), media_type="text/css")

    async def static(self, request: Request) -> Response:
        """A vendored or own script (and ELK's licence) from ``static/``, cacheable for an hour."""
        name = request.url.path.removeprefix("/static/")
        return FileResponse(
            STATIC / name,
            media_type=STATIC_FILES[name],
            headers={"Cache-Control": "private, max-age=3600", "X-Content-Type-Options": "nosniff"},
        )

    async def login(self, request: Request) -> Response:
        """The token form; a right token sets the cookie and goes back to ``next`` (the page
        the browser was sent here from, a path on this server) or the search."""
        if request.method == "POST":
            fields = await form(request)
            back = local_path(fields.get("next"))
        else:
            fields, back = {}, local_path(request.query_params.get("next"))
        if self.token is None:
            return RedirectResponse(back, status_code=303)
        if request.method == "POST":
            supplied = fields.get("token", "")
            if hmac.compare_digest(supplied.encode(), self.token.encode()):
                response = RedirectResponse(back, status_code=303)
                response.set_cookie(TOKEN_COOKIE, self.token, httponly=True, samesite="strict")
                return response
            return message("log in", "wrong token", 401, login=True, back=back)
        return page(
            "message.html",
            "log in",
            message="",
            css="",
            link="",
            link_text="",
            login=True,
            back=back,
        )

    async def search(self, request: Request) -> Response:
        query = request.query_params.get("q", "").strip()
        limit = bounded(request.query_params.get("limit"), SEARCH_LIMIT)

        def work(memory: Memory, moment: Moment) -> Body:
            with memory.snapshot():
                active = memory.active_ids()
                texts = memory.texts()
                audits = len(memory.open_audits())
            needle = query.casefold()
            hits = (
                sorted(
                    i for i, t in texts.items() if needle in i.casefold() or needle in t.casefold()
                )
                if query
                else []
            )
            return Body(
                "search.html",
                {
                    "query": query,
                    "limit": limit,
                    "total": len(texts),
                    "active_count": len(active),
                    "audits": audits,
                    "hits": [{"id": i, "active": i in active, "text": texts[i]} for i in hits],
                },
            )

        return await self.read_as_of(request, "memory explorer", work)

    async def node(self, request: Request) -> Response:
        """A node's page; a nogood's id is sent to the nogood's page. ``limit``: the boxes
        drawn (default :data:`jtms.views.drawing.BOX_BUDGET`), ``expand``: ids whose
        collapsed neighbours are drawn too, ``certificate``: which certificate of an active
        claim is drawn."""
        node_id = request.query_params.get("id", "")
        limit = bounded(request.query_params.get("limit"), drawing.BOX_BUDGET)
        expand = [i for i in request.query_params.getlist("expand") if i][:200]
        certificate = bounded(request.query_params.get("certificate"), 0, low=0)
        if await self.access(
            lambda memory: node_id in {n.id for n in memory.nogoods()}, InputError
        ):
            return RedirectResponse(
                "/nogood?" + urlencode(request.query_params.multi_items()), status_code=303
            )

        def work(memory: Memory, moment: Moment) -> Body:
            with memory.snapshot():
                return self.node_body(memory, moment, node_id, limit, expand, certificate)

        return await self.read_as_of(request, f"node {node_id}", work, DRAWING_SCRIPTS)

    def node_body(
        self,
        memory: Memory,
        moment: Moment,
        node_id: str,
        limit: int,
        expand: list[str] | None = None,
        certificate: int = 0,
    ) -> Body:
        explanation = memory.explain(node_id)
        record = memory.node(node_id)
        state = memory.state
        index = state.index
        number = index.number[node_id]
        statuses = {
            i: bool(state.active[index.number[i]])
            for i in [index.ids[c] for c in index.consumers[number]]
        }
        expand = expand or []
        drawn = drawing.focused_drawing(
            memory, node_id, budget=limit, expand=expand, certificate=certificate
        )
        others = [
            j for j in drawing.justifications_of(memory, node_id) if j.intact and not j.support
        ]
        link = "/node?id="
        base = f"/node?id={quote(node_id, safe='')}&certificate={drawn.certificate}"
        base += "".join(f"&expand={quote(i, safe='')}" for i in expand)
        description = drawing.description(drawn, link=link, suffix=moment.suffix)
        for entry in description["nodes"]:
            if entry["collapsed"]:
                entry["expand_href"] = f"{base}&expand={quote(entry['id'], safe='')}{moment.suffix}"
        notes = {
            "certificate": "the certificate: why it is active, down to evidence",
            "why inactive": "why it is out: its broken justifications down to the "
            "invalidated nodes (highlighted)",
            "dependents": "what depends on it"
            + ("; highlighted: what an audit of it would retire" if explanation.active else ""),
        }
        named = [n.id for n in memory.nogoods() if node_id in n.nodes]
        retired = None
        if explanation.kind == "evidence" and explanation.active:
            retired = sorted(drawn.retired - {node_id})
        invalidated = [i for i in drawn.invalidated if i != node_id]
        return Body(
            "node.html",
            {
                "node_id": node_id,
                "e": explanation,
                "details": [
                    ("created", record.get("created")),
                    ("author", record.get("author")),
                    ("expression", record.get("expression")),
                    ("value", record.get("value")),
                ],
                "invalidated": invalidated,
                "invalidated_status": dict.fromkeys(invalidated, False),
                "others": others,
                "drawing_note": notes[drawn.question]
                + (
                    f"; {drawn.left_out} more node(s) collapsed behind the +N counts"
                    if drawn.left_out
                    else ""
                ),
                "certificates": drawn.certificates,
                "certificate": drawn.certificate,
                "svg": Markup(drawing.to_svg(drawn, link=link, suffix=moment.suffix)),
                "drawing_data": Markup(
                    '<script type="application/json" id="drawing-data">'
                    + str(jinja2.filters.htmlsafe_json_dumps(description))
                    + "</script>"
                ),
                "left_out": drawn.left_out,
                "limit": limit,
                "dependents": sorted(statuses),
                "dependent_status": statuses,
                "retired": retired,
                "named": named,
                "named_flags": {n: memory.is_active(n) for n in named},
                "can_write": not self.read_only and moment.event is None,
                "history": payloads.history_payload(memory, node_id)["revisions"],
            },
        )

    async def preview(self, request: Request) -> Response:
        """A dry-run audit: how many nodes it would retire and keep, and one page of each
        (``limit`` ids, default 50, from ``offset``), with "show more" (four times the page,
        as the search) and the next and previous pages."""
        refused = self.refuse_as_of(request)
        if refused is not None:
            return refused
        raw = request.query_params.get("ids", "")
        ids = [i for i in split_ids(raw.replace("\n", ",")) if i]  # path(1,2) is one id
        limit = bounded(request.query_params.get("limit"), SEARCH_LIMIT)
        offset = bounded(request.query_params.get("offset"), 0, low=0)
        if not ids:
            return page("preview.html", "impact preview", ids=[])

        def work(memory: Memory) -> dict[str, Any]:
            with memory.snapshot():
                result = memory.preview(ids)
                retired = sorted(result.retired)
                kept = memory.kept(ids, retired=result.retired)  # what stays intact after it
            window = slice(offset, offset + limit)
            total = max(len(retired), len(kept))
            return {
                "ids": ids,
                "roots": list(result.roots),
                "retired_count": len(retired),
                "kept_count": len(kept),
                "paging_note": paging_note(offset, limit, total),
                "retired_page": retired[window],
                "retired_left": len(retired) - min(len(retired), offset + limit),
                "kept_page": kept[window],
                "pager": pager("/preview", {"ids": ",".join(ids)}, offset, limit, total),
                "can_write": not self.read_only,
            }

        return page("preview.html", "impact preview", **(await self.read(work)))

    async def audit(self, request: Request) -> Response:
        refused = self.refuse_write(request)
        if refused is not None:
            return refused
        fields = await form_lists(request)
        ids = fields.get("ids", [])
        reason = (fields.get("reason") or [""])[0]
        reviewer = (fields.get("reviewer") or [""])[0] or None

        def work(memory: Memory) -> int:
            audit_id = memory.audit(ids, reason=reason, reviewer=reviewer).audit_id
            assert audit_id is not None
            return audit_id

        audit_id = await self.access(work, InputError)
        return RedirectResponse(f"/audits?changed={audit_id}#audit-{audit_id}", status_code=303)

    async def reinstate(self, request: Request) -> Response:
        refused = self.refuse_write(request)
        if refused is not None:
            return refused
        raw = (await form(request)).get("audit_id", "")
        if not is_digits(raw) or len(raw) > 30:
            raise InputError(f"audit id must be an integer, got {raw[:40]!r}")
        change = await self.access(lambda memory: memory.reinstate(int(raw)), InputError)
        return RedirectResponse(f"/audits?changed={change.event_id}#audit-{raw}", status_code=303)

    @staticmethod
    def changed(memory: Memory, raw: str | None) -> Markup:
        """What the audit or reinstatement ``raw`` (an event id: ``changed=N`` on the page the
        explorer sends a browser to after one) changed, read from its event: how many nodes
        it retired or reactivated and the first of them, for the top of the audit timeline."""
        if raw is None:
            return Markup("")
        if not is_digits(raw) or len(raw) > 30:
            raise InputError(f"changed must be an event id, got {raw[:40]!r}")
        number = int(raw)
        found = memory.events(after=number - 1, until=number) if number > 0 else []
        if not found or found[0]["id"] != number or found[0]["kind"] not in ("audit", "reinstate"):
            raise InputError(f"changed={number}: no audit or reinstatement with that event id")
        event = found[0]
        audit = event["kind"] == "audit"
        changes = event["deactivated"] if audit else event["activated"]
        return render(
            "changed.html",
            number=number,
            kind=event["kind"],
            roots=event["roots"] or [],
            target=event["target"],
            changes=changes,
            statuses=dict.fromkeys(changes, not audit),
            at=Moment(number, event["time"]),
            list_limit=LIST_LIMIT,
            event_limit=EVENT_LIMIT,
        )

    async def nogoods(self, request: Request) -> Response:
        """Every nogood, the active contradictions first (each table at most ``limit`` rows,
        default 50, with "show more"), each with its nodes and their status."""
        limit = bounded(request.query_params.get("limit"), SEARCH_LIMIT)

        def work(memory: Memory, moment: Moment) -> Body:
            with memory.snapshot():
                nogoods = memory.nogoods()
                flags = {n.id: memory.is_active(n.id) for n in nogoods}
                active = memory.active_ids()
            return Body(
                "nogoods.html",
                {
                    "limit": limit,
                    "total": len(nogoods),
                    "flags": flags,
                    "contradictions": [n for n in nogoods if flags[n.id]],
                    "resolved": [n for n in nogoods if not flags[n.id]],
                    "statuses_of": lambda ids: {i: i in active for i in ids},
                },
            )

        return await self.read_as_of(request, "nogoods", work)

    async def nogood(self, request: Request) -> Response:
        """One nogood: whether it is a contradiction, its nodes and their status; for an active
        one its first conflict sets (the minimal evidence sets that make all its nodes active,
        :func:`theory.semantics.conflicts.conflict_sets`); its history, each row a link to it
        as of then."""
        nogood_id = request.query_params.get("id", "")

        def work(memory: Memory, moment: Moment) -> Body:
            with memory.snapshot():
                found = {n.id: n for n in memory.nogoods()}.get(nogood_id)
                if found is None:
                    raise InputError(f"unknown nogood id {nogood_id[:80]!r}")
                is_active = memory.is_active(nogood_id)
                nodes = sorted(found.nodes)
                statuses = {i: memory.is_active(i) for i in nodes}
                conflicts = (
                    sorted(
                        sorted(c)
                        for c in conflict_sets(
                            memory.structure(), nodes, memory.blocked_ids(), CONFLICTS_SHOWN
                        )
                    )
                    if is_active
                    else []
                )
                history = memory.history(nogood_id)
            return Body(
                "nogood.html",
                {
                    "nogood_id": nogood_id,
                    "found": found,
                    "is_active": is_active,
                    "nodes": nodes,
                    "statuses": statuses,
                    "conflicts": conflicts,
                    "inactive": [i for i in nodes if not statuses[i]],
                    "history": history[-EVENT_LIMIT:],
                    "search_limit": SEARCH_LIMIT,
                    "conflicts_shown": CONFLICTS_SHOWN,
                },
            )

        return await self.read_as_of(request, f"nogood {nogood_id}", work)

    async def audits(self, request: Request) -> Response:
        limit = bounded(request.query_params.get("limit"), 200)
        changed = request.query_params.get("changed")

        def work(memory: Memory, moment: Moment) -> Body:
            summary = self.changed(memory, changed) if moment.event is None else Markup("")
            with memory.snapshot():
                # table() lists every stored event; a view's timeline stops at its event
                events = [
                    e
                    for e in memory.table("events")
                    if moment.event is None or e["id"] <= moment.event
                ]
                in_force = memory.open_audits()
            undone = {e["target"]: e for e in events if e["kind"] == "reinstate"}
            audits = [e for e in events if e["kind"] == "audit"][::-1]
            rows = [
                {
                    "number": e["id"],
                    "time": e["time"],
                    "actor": e["actor"],
                    "reason": e["reason"],
                    "roots": json.loads(e["roots"]),
                    "in_force": e["id"] in in_force,
                    "can_reinstate": not self.read_only and moment.event is None,
                    "undone_by": undone[e["id"]]["id"] if e["id"] in undone else None,
                }
                for e in audits[:limit]
            ]
            return Body(
                "audits.html",
                {"summary": summary, "rows": rows, "more": len(audits) > limit, "limit": limit},
            )

        return await self.read_as_of(request, "audit timeline", work)

    async def events(self, request: Request) -> Response:
        """Every event, latest first (as of an event: up to a few after it, it marked), each
        with what it changed and a link to the memory as of it."""
        limit = bounded(request.query_params.get("limit"), EVENT_LIMIT)

        def work(memory: Memory, moment: Moment) -> Body:
            if moment.event is not None:
                # the picked event's own view ends at it: the timeline reads the memory now
                now = self.access.memory
            else:
                now = memory
            with now.snapshot():
                last = now.last_event
                end = last if moment.event is None else min(last, moment.event + 10)
                events = now.events(after=max(0, end - limit), until=end)
                nogood_ids = {n.id for n in now.nogoods()}
            rows = []
            for event in reversed(events):
                number = event["id"]
                css = (
                    "current"
                    if number == moment.event
                    else "later"
                    if moment.event is not None and number > moment.event
                    else ""
                )
                rows.append({"event": event, "css": css, "at": Moment(number, event["time"])})
            return Body(
                "events.html",
                {
                    "rows": rows,
                    "last": last,
                    "limit": limit,
                    "earlier": end - limit > 0,
                    "nogood_ids": nogood_ids,
                },
            )

        return await self.read_as_of(request, "event timeline", work)


def local_path(raw: str | None) -> str:
    """``raw`` when it is a path on this server (``/...``, not ``//host`` nor a backslash
    trick, no control character, not the login page itself); else ``/``. A login never
    sends a browser elsewhere."""
    if (
        not raw
        or not raw.startswith("/")
        or raw.startswith("//")
        or "\\" in raw
        or any(ord(c) < 32 or ord(c) == 127 for c in raw)
        or len(raw) > 4096
        or raw.split("?")[0] == "/login"
    ):
        return "/"
    return raw


def bounded(raw: str | None, default: int, low: int = 1) -> int:
    """A count from the query (``limit``, ``offset``): ``default`` when absent or not a
    number, else clamped to ``low``..100,000."""
    if raw is None or not is_digits(raw):
        return default
    return max(low, min(int(raw[:12]), 100_000))


def paging_note(offset: int, limit: int, total: int) -> str:
    """ ", showing 51 to 100" when a page does not show everything."""
    if offset == 0 and total <= limit:
        return ""
    last = min(total, offset + limit)
    return f" (showing {offset + 1} to {last})" if offset < total else " (past the end)"


def pager(
    path: str, params: dict[str, str], offset: int, limit: int, total: int
) -> list[tuple[str, str, str]]:
    """(css class, text, href) of the links to the previous and next pages and to "show
    more" (four times the page, from the same offset), as the search does; none when one
    page holds everything."""

    def link(css: str, text: str, start: int, size: int) -> tuple[str, str, str]:
        return css, text, path + "?" + urlencode({**params, "limit": size, "offset": start})

    links = []
    if offset > 0:
        links.append(link("previous", "previous page", max(0, offset - limit), limit))
    if offset + limit < total:
        links.append(link("next", "next page", offset + limit, limit))
        links.append(
            link("more", f"show more ({total - offset - limit} not shown)", offset, limit * 4)
        )
    return links


async def form_lists(request: Request) -> dict[str, list[str]]:
    """An urlencoded form body (the explorer's forms), at most 1 MiB."""
    body = await request.body()
    if len(body) > 1 << 20:
        raise InputError("form too large")
    return parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)


async def form(request: Request) -> dict[str, str]:
    return {k: v[0] for k, v in (await form_lists(request)).items()}
