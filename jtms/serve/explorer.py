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
from collections.abc import Awaitable, Callable, Collection, Iterable
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlencode

from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response

from jtms.memory.limits import is_digits
from jtms.memory.memory import Memory
from jtms.serve.http import TOKEN_COOKIE
from jtms.serve.tools import MemoryAccess
from jtms.views import drawing, payloads
from theory.model.errors import InputError
from theory.model.structure import Nogood
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


def h(value: Any) -> str:
    """``value`` as HTML text (never markup)."""
    return escape(str(value), quote=True)


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


def node_link(node_id: str, active: bool | None = None, moment: Moment = NOW) -> str:
    css = "" if active is None else f' class="{"active" if active else "inactive"}"'
    href = h(f"/node?id={quote(node_id, safe='')}{moment.suffix}")
    return f'<a{css} href="{href}">{h(node_id)}</a>'


def nogood_link(nogood_id: str, active: bool | None = None, moment: Moment = NOW) -> str:
    """A link to a nogood's own page (``contradiction`` styled when it is active)."""
    css = "" if active is None else f' class="{"contradiction" if active else "resolved"}"'
    href = h(f"/nogood?id={quote(nogood_id, safe='')}{moment.suffix}")
    return f'<a{css} href="{href}">{h(nogood_id)}</a>'


def id_list(
    ids: Iterable[str],
    statuses: dict[str, bool] | None = None,
    moment: Moment = NOW,
    limit: int | None = None,
    nogoods: Collection[str] = (),
) -> str:
    """Links to ``ids`` (at most ``limit``, then "and N more"): a node's page, or for an id
    in ``nogoods`` the nogood's page."""
    ids = list(ids)
    shown = ids if limit is None else ids[:limit]
    items = [
        (nogood_link if i in nogoods else node_link)(
            i, None if statuses is None else statuses.get(i), moment
        )
        for i in shown
    ]
    if len(shown) < len(ids):
        items.append(f"<em>and {len(ids) - len(shown)} more</em>")
    return ", ".join(items) if items else "<em>none</em>"


def audit_link(audit_id: int, text: str, moment: Moment = NOW) -> str:
    return f'<a href="/audits{moment.query}#audit-{audit_id}">{h(text)}</a>'


def json_script(element_id: str, data: Any) -> str:
    """``data`` as a JSON data block (``<script type="application/json">``, never run) for the
    page's own script; ``<``, ``>``, ``&`` and ``'`` are JSON escapes, so no text in it can
    close the element or read as markup."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("'", "\\u0027")):
        text = text.replace(raw, escaped)
    return f'<script type="application/json" id="{h(element_id)}">{text}</script>'


def page(
    title: str,
    body: str,
    status: int = 200,
    moment: Moment = NOW,
    now: str = "/",
    scripts: tuple[str, ...] = (),
) -> HTMLResponse:
    """A whole page; as of a past event, with its banner and a link to ``now`` (the same
    page without ``as_of``). ``scripts``: the app's own scripts the page loads (deferred)."""
    if moment.event is None:
        nav = (
            '<a href="/">search</a> <a href="/preview">impact preview</a> '
            '<a href="/audits">audit timeline</a> <a href="/events">event timeline</a> '
            '<a href="/nogoods">nogoods</a>'
        )
        banner = ""
    else:
        nav = (
            f'<a href="/{moment.query}">search</a> <a href="/audits{moment.query}">audit '
            f'timeline</a> <a href="/events{moment.query}">event timeline</a> '
            f'<a href="/nogoods{moment.query}">nogoods</a>'
        )
        when = f" ({h(moment.time)})" if moment.time else ""
        banner = (
            f"<p class=asof role=status>as of event {moment.event}{when} — read-only "
            f'<a class=now href="{h(now)}">back to now</a></p>'
        )
    return HTMLResponse(
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>{h(title)} · jtms explorer</title>"
        '<link rel=stylesheet href="/static/explorer.css">'
        + "".join(f'<script defer src="{h(src)}"></script>' for src in scripts)
        + "</head><body>"
        f"<nav>{nav}</nav>{banner}"
        f"<main><h1>{h(title)}</h1>{body}</main></body></html>",
        status_code=status,
        headers={
            "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'",
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "same-origin",
        },
    )


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


def status_badge(active: bool) -> str:
    return (
        f'<span class="badge {"active" if active else "inactive"}">'
        f"{'active' if active else 'inactive'}</span>"
    )


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
                return page("bad request", f'<p class="error">{h(error)}</p>', 400)

        return run

    async def read(self, work: Callable[[Memory], str]) -> str:
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
        work: Callable[[Memory, Moment], str],
        scripts: tuple[str, ...] = (),
    ) -> Response:
        """A page read from the memory now or as of the request's ``as_of`` event."""
        event = as_of_param(request)
        moment = NOW

        def run(memory: Memory) -> str:
            nonlocal moment
            view, moment = self.viewed(memory, event)
            return work(view, moment)

        body = await self.read(run)
        return page(title, body, moment=moment, now=without_as_of(request), scripts=scripts)

    @staticmethod
    def refuse_as_of(request: Request) -> Response | None:
        """Writes (and the preview of one) act on the memory now: with ``as_of``, refused."""
        if "as_of" not in request.query_params:
            return None
        return page(
            "read-only",
            "<p class=error>as of a past event the memory is read-only: "
            "previews, audits and reinstatements act on the memory now "
            f'(<a href="{h(without_as_of(request))}">go to now</a>)</p>',
            400,
        )

    def refuse_write(self, request: Request) -> Response | None:
        """An audit or a reinstatement: refused on a read-only server (403) and as of a past
        event (400); None when it may run."""
        if self.read_only:
            return page("read-only", "<p>this server is read-only</p>", 403)
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
            return page("log in", '<p class="error">wrong token</p>' + login_form(back), 401)
        return page("log in", login_form(back))

    async def search(self, request: Request) -> Response:
        query = request.query_params.get("q", "").strip()
        limit = bounded(request.query_params.get("limit"), SEARCH_LIMIT)

        def work(memory: Memory, moment: Moment) -> str:
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
            rows = "".join(
                f"<tr><td>{node_link(i, i in active, moment)}</td><td>{status_badge(i in active)}"
                f"</td><td>{h(texts[i][:200])}</td></tr>"
                for i in hits[:limit]
            )
            more = (
                f'<p><a class="more" href="/?q={quote(query)}&amp;limit={limit * 4}'
                f'{h(moment.suffix)}">show more ({len(hits) - limit} not shown)</a></p>'
                if len(hits) > limit
                else ""
            )
            found = (
                (
                    f"<p>{len(hits)} node(s) match <q>{h(query)}</q></p>"
                    f"<table class=hits><tr><th>id</th><th>status</th><th>text</th></tr>{rows}"
                    f"</table>{more}"
                )
                if query
                else ""
            )
            hidden = (
                ""
                if moment.event is None
                else f'<input type=hidden name=as_of value="{moment.event}">'
            )
            return (
                f"<p class=counts>{len(texts)} nodes, {len(active)} active, "
                f"{audits} audit(s) in force.</p>"
                '<form method=get action="/" class=search><input name=q type=search '
                f'placeholder="id or text" value="{h(query)}" autofocus> {hidden}'
                "<button>search</button></form>" + found
            )

        return await self.read_as_of(request, "memory explorer", work)

    async def node(self, request: Request) -> Response:
        """A node's page; a nogood's id is sent to the nogood's page."""
        node_id = request.query_params.get("id", "")
        limit = bounded(request.query_params.get("limit"), drawing.CAP)
        if await self.access(
            lambda memory: node_id in {n.id for n in memory.nogoods()}, InputError
        ):
            return RedirectResponse(
                "/nogood?" + urlencode(request.query_params.multi_items()), status_code=303
            )

        def work(memory: Memory, moment: Moment) -> str:
            with memory.snapshot():
                return self.node_body(memory, moment, node_id, limit)

        return await self.read_as_of(request, f"node {node_id}", work, DRAWING_SCRIPTS)

    def node_body(self, memory: Memory, moment: Moment, node_id: str, limit: int) -> str:
        explanation = memory.explain(node_id)
        record = memory.node(node_id)
        state = memory.state
        index = state.index
        number = index.number[node_id]
        statuses = {
            i: bool(state.active[index.number[i]])
            for i in [index.ids[c] for c in index.consumers[number]]
        }
        drawn = drawing.certificate_drawing(memory, node_id, cap=limit)
        link = lambda i: node_link(i, None, moment)  # noqa: E731
        shown_text = (
            f"<em>content erased (purge: audit {explanation.erased_by})</em>"
            if explanation.erased_by is not None
            else h(explanation.text) or "<em>no text</em>"
        )
        parts = [
            f"<p class=status>{h(explanation.kind)} {status_badge(explanation.active)}"
            f"</p><p class=text>{shown_text}</p>"
        ]
        details = [
            ("created", record.get("created")),
            ("author", record.get("author")),
            ("expression", record.get("expression")),
            ("value", record.get("value")),
        ]
        parts.append(
            "<dl>" + "".join(f"<dt>{h(k)}</dt><dd>{h(v)}</dd>" for k, v in details if v) + "</dl>"
        )
        if explanation.active and explanation.kind == "claim":
            parts.append(
                "<h2>certificate</h2><p>rests on evidence "
                f"{id_list(explanation.evidence, None, moment)}</p>"
                "<ol class=certificate>"
                + "".join(
                    f"<li>{link(s.claim)} ⇐ "
                    f"{' ∧ '.join(link(a) for a in s.antecedents) or 'premise'}"
                    "</li>"
                    for s in explanation.certificate
                )
                + "</ol>"
            )
        if not explanation.active:
            parts.append("<h2>why inactive</h2><ul class=why>")
            for audit in explanation.blocked_by:
                parts.append(
                    f"<li class=blocked>invalidated itself by "
                    f"{audit_link(audit, f'audit {audit}', moment)}</li>"
                )
            for audit in explanation.kept_out_by:
                if audit not in explanation.blocked_by:
                    parts.append(
                        f"<li class=kept-out>kept out by "
                        f"{audit_link(audit, f'audit {audit}', moment)}, which "
                        "invalidated what it rests on</li>"
                    )
            if explanation.withdrawn_by is not None:
                parts.append(
                    f"<li class=withdrawn>withdrawn by "
                    f"{audit_link(explanation.withdrawn_by, f'event {explanation.withdrawn_by}', moment)}"
                    "</li>"
                )
            for ants, inactive in explanation.broken:
                parts.append(
                    f"<li class=broken>justification {' ∧ '.join(map(h, ants)) or 'premise'}"
                    f" broken by {id_list(inactive, {i: False for i in inactive}, moment)}"
                    "</li>"
                )
            if explanation.kind == "claim" and not explanation.broken:
                parts.append("<li>it has no justification</li>")
            parts.append("</ul>")
        justs = [j for j in drawn.justifications if j.claim == node_id]
        others = [j for j in justs if j.intact and not j.support]
        if explanation.kind == "claim":
            parts.append(
                "<h2>other intact justifications</h2><ul class=others>"
                + "".join(
                    f"<li>{' ∧ '.join(link(a) for a in j.antecedents) or 'premise'}</li>"
                    for j in others
                )
                + "</ul>"
                if others
                else "<h2>other intact justifications</h2><p><em>none</em></p>"
            )
        parts.append(
            f"<h2>drawing</h2><div class=drawing>"
            f"{drawing.to_svg(drawn, link='/node?id=', suffix=moment.suffix)}</div>"
            + json_script(
                "drawing-data", drawing.description(drawn, link="/node?id=", suffix=moment.suffix)
            )
        )
        if drawn.left_out:
            parts.append(
                f'<p><a class=more href="/node?id={quote(node_id, safe="")}'
                f'&amp;limit={limit * 2}{h(moment.suffix)}">show more '
                f"({drawn.left_out} node(s) not drawn)</a></p>"
            )
        parts.append(
            f"<h2>depends on it</h2><p class=dependents>"
            f"{id_list(sorted(statuses), statuses, moment)}</p>"
        )
        named = [n.id for n in memory.nogoods() if node_id in n.nodes]
        if named:
            flags = {n: memory.is_active(n) for n in named}
            parts.append(
                "<h2>in nogoods</h2><p class=nogoods>"
                f"{id_list(named, flags, moment, LIST_LIMIT, named)}</p>"
            )
        if not self.read_only and moment.event is None:
            parts.append(
                f'<p><a href="/preview?ids={quote(node_id, safe="")}">'
                "preview an audit of this node</a></p>"
            )
        history = payloads.history_payload(memory, node_id)
        quoted = quote(node_id, safe="")
        parts.append(
            "<h2>history</h2><table class=history><tr><th>event</th><th>kind</th>"
            "<th>time</th><th>status</th><th>by</th><th>reason</th></tr>"
            + "".join(
                f'<tr><td><a title="this node as of event {h(r["event"])}" '
                f'href="/node?id={quoted}&amp;as_of={h(r["event"])}">{h(r["event"])}'
                f"</a></td><td>{h(r['kind'])}</td>"
                f"<td>{h(r['time'])}</td><td>{h(r['status'])}</td>"
                f"<td>{h(r['actor'] or '')}</td><td>{h(r['reason'] or '')}</td></tr>"
                for r in history["revisions"]
            )
            + "</table>"
        )
        return "".join(parts)

    async def preview(self, request: Request) -> Response:
        """A dry-run audit: how many nodes it would retire and keep, and one page of each
        (``limit`` ids, default 50, from ``offset``), with "show more" (four times the page,
        as the search) and the next and previous pages."""
        refused = self.refuse_as_of(request)
        if refused is not None:
            return refused
        raw = request.query_params.get("ids", "")
        ids = [i.strip() for i in raw.replace("\n", ",").split(",") if i.strip()]
        limit = bounded(request.query_params.get("limit"), SEARCH_LIMIT)
        offset = bounded(request.query_params.get("offset"), 0, low=0)
        form_html = (
            '<form method=get action="/preview" class=preview><label>ids to invalidate '
            f'(comma separated) <input name=ids value="{h(", ".join(ids))}"></label> '
            "<button>preview</button></form>"
        )
        if not ids:
            return page("impact preview", form_html)

        def work(memory: Memory) -> str:
            with memory.snapshot():
                result = memory.preview(ids)
                retired = sorted(result.retired)
                kept = memory.kept(ids, retired=result.retired)  # what stays intact after it
            window = slice(offset, offset + limit)
            shown_kept = kept[window]
            body = [
                form_html,
                f"<h2>an audit of {id_list(result.roots, None, NOW, LIST_LIMIT)} would</h2>",
                f"<p class=impact>retire <strong>{len(retired)}</strong> node(s) and keep "
                f"<strong>{len(kept)}</strong> downstream claim(s) on another justification"
                f"{paging_note(offset, limit, max(len(retired), len(kept)))}</p>",
                f"<p>retire {len(retired)}: <span class=retired>"
                f"{id_list(retired[window], dict.fromkeys(retired[window], False))}"
                f"{more_note(offset, limit, len(retired))}</span></p>",
                f"<p>keep {len(kept)} downstream:</p><ul class=kept>"
                + "".join(
                    f"<li>{node_link(claim, True)} on "
                    f"{' ∧ '.join(node_link(a) for a in ants) or 'premise'}</li>"
                    for claim, ants in shown_kept
                )
                + "</ul>"
                + ("" if shown_kept else "<p><em>none on this page</em></p>"),
                pager(
                    "/preview", {"ids": ",".join(ids)}, offset, limit, max(len(retired), len(kept))
                ),
            ]
            if not self.read_only:
                hidden = "".join(f'<input type=hidden name=ids value="{h(i)}">' for i in ids)
                body.append(
                    '<form method=post action="/audit" class=run>'
                    + hidden
                    + "<label>reason <input name=reason required></label> "
                    "<label>reviewer <input name=reviewer></label> "
                    "<button>run this audit</button></form>"
                )
            return "".join(body)

        return page("impact preview", await self.read(work))

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
    def changed(memory: Memory, raw: str | None) -> str:
        """What the audit or reinstatement ``raw`` (an event id: ``changed=N`` on the page the
        explorer sends a browser to after one) changed, read from its event: how many nodes
        it retired or reactivated and the first of them, for the top of the audit timeline."""
        if raw is None:
            return ""
        if not is_digits(raw) or len(raw) > 30:
            raise InputError(f"changed must be an event id, got {raw[:40]!r}")
        number = int(raw)
        found = memory.events(after=number - 1, until=number) if number > 0 else []
        if not found or found[0]["id"] != number or found[0]["kind"] not in ("audit", "reinstate"):
            raise InputError(f"changed={number}: no audit or reinstatement with that event id")
        event = found[0]
        at = Moment(number, event["time"])
        if event["kind"] == "audit":
            changes = event["deactivated"]
            what = (
                f"audit {number} of {id_list(event['roots'] or [], None, at, LIST_LIMIT)} "
                f"retired <strong>{len(changes)}</strong> node(s)"
            )
            statuses = dict.fromkeys(changes, False)
        else:
            changes = event["activated"]
            target = event["target"]
            what = (
                f"event {number} reinstated {audit_link(target, f'audit {target}')} and "
                f"reactivated <strong>{len(changes)}</strong> node(s)"
            )
            statuses = dict.fromkeys(changes, True)
        listed = f": {id_list(changes, statuses, at, LIST_LIMIT)}" if changes else ""
        return (
            f'<p class=changed role=status data-event="{number}">{what}{listed} '
            f'(<a href="/events?limit={EVENT_LIMIT}#event-{number}">in the event timeline</a>)'
            "</p>"
        )

    async def nogoods(self, request: Request) -> Response:
        """Every nogood, the active contradictions first (each table at most ``limit`` rows,
        default 50, with "show more"), each with its nodes and their status."""
        limit = bounded(request.query_params.get("limit"), SEARCH_LIMIT)

        def work(memory: Memory, moment: Moment) -> str:
            with memory.snapshot():
                nogoods = memory.nogoods()
                flags = {n.id: memory.is_active(n.id) for n in nogoods}
                active = memory.active_ids()
            contradictions = [n for n in nogoods if flags[n.id]]
            resolved = [n for n in nogoods if not flags[n.id]]

            def table(rows: list[Nogood], css: str) -> str:
                if not rows:
                    return "<p><em>none</em></p>"
                body = "".join(
                    f'<tr id="nogood-{h(n.id)}"><td>{nogood_link(n.id, flags[n.id], moment)}</td>'
                    f"<td>{id_list(sorted(n.nodes), {i: i in active for i in n.nodes}, moment, LIST_LIMIT)}"
                    f"</td><td>{h(n.text[:200])}</td></tr>"
                    for n in rows[:limit]
                )
                more = (
                    f'<p><a class=more href="/nogoods?limit={limit * 4}{h(moment.suffix)}">'
                    f"show more ({len(rows) - limit} not shown)</a></p>"
                    if len(rows) > limit
                    else ""
                )
                return (
                    f"<table class={css}><tr><th>nogood</th><th>nodes</th><th>text</th></tr>"
                    f"{body}</table>{more}"
                )

            return (
                f"<p class=counts>{len(nogoods)} nogood(s), {len(contradictions)} active "
                "contradiction(s) (every node of the nogood active).</p>"
                f"<h2>active contradictions</h2>{table(contradictions, 'contradictions')}"
                f"<h2>other nogoods (some node inactive)</h2>{table(resolved, 'resolved')}"
            )

        return await self.read_as_of(request, "nogoods", work)

    async def nogood(self, request: Request) -> Response:
        """One nogood: whether it is a contradiction, its nodes and their status; for an active
        one its first conflict sets (the minimal evidence sets that make all its nodes active,
        :func:`theory.semantics.conflicts.conflict_sets`); its history, each row a link to it as of then."""
        nogood_id = request.query_params.get("id", "")

        def work(memory: Memory, moment: Moment) -> str:
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
            status = (
                '<span class="badge inactive contradiction">active contradiction</span>'
                if is_active
                else '<span class="badge active">not a contradiction</span>'
            )
            parts = [
                f"<p class=status>nogood {status}</p>"
                f"<p class=text>{h(found.text) or '<em>no text</em>'}</p>",
                "<h2>nodes</h2><ul class=members>"
                + "".join(
                    f"<li>{node_link(i, statuses[i], moment)} {status_badge(statuses[i])}</li>"
                    for i in nodes[:SEARCH_LIMIT]
                )
                + "</ul>"
                + (
                    f"<p><em>and {len(nodes) - SEARCH_LIMIT} more</em></p>"
                    if len(nodes) > SEARCH_LIMIT
                    else ""
                ),
            ]
            if is_active:
                parts.append(
                    "<h2>conflict sets</h2><p>the evidence under which every node of it "
                    "is active; withdrawing one item of each resolves it</p>"
                    "<ul class=conflicts>"
                    + "".join(
                        f"<li>{id_list(c, None, moment, LIST_LIMIT) if c else 'no evidence: its nodes are premises'}</li>"
                        for c in conflicts
                    )
                    + "</ul>"
                    + (
                        f"<p><em>the first {CONFLICTS_SHOWN} shown</em></p>"
                        if len(conflicts) >= CONFLICTS_SHOWN
                        else ""
                    )
                )
            else:
                inactive = [i for i in nodes if not statuses[i]]
                parts.append(
                    f"<h2>why not a contradiction</h2><p class=why>inactive: "
                    f"{id_list(inactive, dict.fromkeys(inactive, False), moment, LIST_LIMIT)}</p>"
                )
            quoted = quote(nogood_id, safe="")
            parts.append(
                "<h2>history</h2><table class=history><tr><th>event</th><th>kind</th>"
                "<th>time</th><th>status</th><th>by</th><th>reason</th></tr>"
                + "".join(
                    f'<tr><td><a title="this nogood as of event {h(r["event"])}" '
                    f'href="/nogood?id={quoted}&amp;as_of={h(r["event"])}">'
                    f"{h(r['event'])}</a></td><td>{h(r['kind'])}</td>"
                    f"<td>{h(r['time'])}</td><td>{h(r['status'])}</td>"
                    f"<td>{h(r['actor'] or '')}</td><td>{h(r['reason'] or '')}</td></tr>"
                    for r in history[-EVENT_LIMIT:]
                )
                + "</table>"
            )
            return "".join(parts)

        return await self.read_as_of(request, f"nogood {nogood_id}", work)

    async def audits(self, request: Request) -> Response:
        limit = bounded(request.query_params.get("limit"), 200)
        changed = request.query_params.get("changed")

        def work(memory: Memory, moment: Moment) -> str:
            summary = self.changed(memory, changed) if moment.event is None else ""
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
            rows = []
            for event in audits[:limit]:
                number = event["id"]
                roots = json.loads(event["roots"])
                if number in in_force:
                    state = "in force"
                    if not self.read_only and moment.event is None:
                        state += (
                            '<form method=post action="/reinstate" class=reinstate>'
                            f'<input type=hidden name=audit_id value="{number}">'
                            "<button>reinstate</button></form>"
                        )
                else:
                    state = (
                        f"reinstated by event {h(undone[number]['id'])}"
                        if number in undone
                        else "reinstated"
                    )
                rows.append(
                    f'<tr id="audit-{number}"><td>{number}</td><td>{h(event["time"])}</td>'
                    f"<td>{h(event['actor'] or '')}</td><td>{h(event['reason'] or '')}</td>"
                    f"<td>{id_list(roots, None, moment, LIST_LIMIT)}</td><td>{state}</td></tr>"
                )
            more = (
                f'<p><a class=more href="/audits?limit={limit * 4}{h(moment.suffix)}">'
                "show more</a></p>"
                if len(audits) > limit
                else ""
            )
            return summary + (
                (
                    "<table class=timeline><tr><th>audit</th><th>time</th>"
                    "<th>reviewer</th><th>reason</th><th>invalidated</th>"
                    "<th>status</th></tr>" + "".join(rows) + "</table>" + more
                )
                if audits
                else "<p>no audit yet</p>"
            )

        return await self.read_as_of(request, "audit timeline", work)

    async def events(self, request: Request) -> Response:
        """Every event, latest first (as of an event: up to a few after it, it marked), each
        with what it changed and a link to the memory as of it."""
        limit = bounded(request.query_params.get("limit"), EVENT_LIMIT)

        def work(memory: Memory, moment: Moment) -> str:
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
                at = Moment(number, event["time"])
                what = []
                if event["roots"] is not None:
                    what.append(f"invalidated {id_list(event['roots'], None, at, LIST_LIMIT)}")
                if event["target"] is not None:
                    what.append(
                        f"reinstated {audit_link(event['target'], 'audit ' + str(event['target']), at)}"
                    )
                if event["source"]:
                    what.append(f"from <code>{h(event['source'])}</code>")
                for key, label in (
                    ("created", "added"),
                    ("activated", "activated"),
                    ("deactivated", "retired"),
                ):
                    if event[key]:
                        what.append(
                            f'<span class="{key}">{label} '
                            f"{id_list(event[key], None, at, LIST_LIMIT, nogood_ids)}"
                            "</span>"
                        )
                rows.append(
                    f'<tr id="event-{number}"{f" class={css}" if css else ""}>'
                    f'<td><a class=as-of href="/?as_of={number}">as of {number}</a></td>'
                    f"<td>{h(event['time'])}</td><td>{h(event['kind'])}</td>"
                    f"<td>{h(event['actor'] or '')}</td><td>{h(event['reason'] or '')}</td>"
                    f"<td>{'; '.join(what)}</td></tr>"
                )
            earlier = end - limit > 0
            more = (
                f'<p><a class=more href="/events?limit={limit * 4}{h(moment.suffix)}">'
                "show earlier events</a></p>"
                if earlier
                else ""
            )
            pick = (
                '<form method=get action="/" class=pick><label>the memory as of event '
                f"<input name=as_of type=number min=1 max={last} required></label> "
                "<button>show</button></form>"
            )
            table = (
                "<table class=events><tr><th>event</th><th>time</th><th>kind</th><th>by</th>"
                "<th>reason</th><th>what it changed</th></tr>" + "".join(rows) + "</table>"
            )
            return pick + (table if rows else "<p>no event yet</p>") + more

        return await self.read_as_of(request, "event timeline", work)


def login_form(back: str) -> str:
    return (
        '<form method=post action="/login"><label>token <input name=token type=password '
        f'autofocus></label> <input type=hidden name=next value="{h(back)}"> '
        "<button>log in</button></form>"
    )


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


def more_note(offset: int, limit: int, total: int) -> str:
    left = total - min(total, offset + limit)
    return f" <em>and {left} more</em>" if left > 0 else ""


def pager(path: str, params: dict[str, str], offset: int, limit: int, total: int) -> str:
    """Links to the previous and next pages and to "show more" (four times the page, from the
    same offset), as the search does; nothing when one page holds everything."""

    def link(css: str, text: str, start: int, size: int) -> str:
        query = urlencode({**params, "limit": size, "offset": start})
        return f'<a class={css} href="{h(path + "?" + query)}">{h(text)}</a>'

    links = []
    if offset > 0:
        links.append(link("previous", "previous page", max(0, offset - limit), limit))
    if offset + limit < total:
        links.append(link("next", "next page", offset + limit, limit))
        links.append(
            link("more", f"show more ({total - offset - limit} not shown)", offset, limit * 4)
        )
    return f"<p class=pager>{' '.join(links)}</p>" if links else ""


async def form_lists(request: Request) -> dict[str, list[str]]:
    """An urlencoded form body (the explorer's forms), at most 1 MiB."""
    body = await request.body()
    if len(body) > 1 << 20:
        raise InputError("form too large")
    return parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)


async def form(request: Request) -> dict[str, str]:
    return {k: v[0] for k, v in (await form_lists(request)).items()}
