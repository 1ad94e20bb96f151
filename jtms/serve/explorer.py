"""The memory explorer: server-rendered pages on the app of ``jtms serve --http``.

``/`` searches nodes by id or text; ``/node?id=ID`` shows a node's status, its certificate drawn
down to evidence (SVG, by derivation rank), its other justifications, what depends on it and,
for an inactive node, the audit that keeps it out and its broken justifications; ``/preview``
is a dry-run audit with a button to run it; ``/audits`` is the audit timeline with reinstate.

Everything is read and written through :class:`jtms.reconsolidation.Memory` (under the
server's lock), every user-supplied string is HTML-escaped, no asset comes from elsewhere
(the stylesheet is served by the app), and every request passes the same Host/Origin checks
as ``/mcp`` (a cross-site form post is refused) and the same bearer token or its cookie.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, Iterable
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote

from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from theory.errors import InputError

from jtms import drawing, payloads
from jtms.reconsolidation import Memory
from jtms.serve.http import TOKEN_COOKIE
from jtms.serve.tools import MemoryAccess

SEARCH_LIMIT = 50
STYLESHEET = Path(__file__).with_name("explorer.css")

Endpoint = Callable[[Request], Awaitable[Response]]


def h(value: Any) -> str:
    """``value`` as HTML text (never markup)."""
    return escape(str(value), quote=True)


def node_link(node_id: str, active: bool | None = None) -> str:
    css = "" if active is None else f' class="{"active" if active else "inactive"}"'
    return f'<a{css} href="/node?id={quote(node_id, safe="")}">{h(node_id)}</a>'


def id_list(ids: Iterable[str], statuses: dict[str, bool] | None = None) -> str:
    items = [node_link(i, None if statuses is None else statuses.get(i)) for i in ids]
    return ", ".join(items) if items else "<em>none</em>"


def page(title: str, body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>{h(title)} · jtms explorer</title>"
        '<link rel=stylesheet href="/static/explorer.css"></head><body>'
        '<nav><a href="/">search</a> <a href="/preview">impact preview</a> '
        '<a href="/audits">audit timeline</a></nav>'
        f"<main><h1>{h(title)}</h1>{body}</main></body></html>", status_code=status,
        headers={"Content-Security-Policy": "default-src 'self'; style-src 'self'",
                 "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin"})


def status_badge(active: bool) -> str:
    return f'<span class="badge {"active" if active else "inactive"}">' \
           f'{"active" if active else "inactive"}</span>'


class Explorer:
    """The explorer's endpoints over one memory (``routes()`` for :func:`build_app`)."""

    def __init__(self, access: MemoryAccess, security: TransportSecuritySettings,
                 read_only: bool = False, token: str | None = None):
        self.access = access
        self.security = TransportSecurityMiddleware(security)
        self.read_only = read_only
        self.token = token

    def routes(self) -> list[tuple[str, list[str], Endpoint]]:
        return [("/", ["GET"], self.guarded(self.search)),
                ("/node", ["GET"], self.guarded(self.node)),
                ("/preview", ["GET"], self.guarded(self.preview)),
                ("/audit", ["POST"], self.guarded(self.audit)),
                ("/audits", ["GET"], self.guarded(self.audits)),
                ("/reinstate", ["POST"], self.guarded(self.reinstate)),
                ("/login", ["GET", "POST"], self.guarded(self.login)),
                ("/static/explorer.css", ["GET"], self.stylesheet)]

    open_paths = ("/login", "/static/explorer.css")

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

    # --- pages ---------------------------------------------------------------------------------
    async def stylesheet(self, request: Request) -> Response:
        return Response(STYLESHEET.read_text(encoding="utf-8"), media_type="text/css")

    async def login(self, request: Request) -> Response:
        if self.token is None:
            return RedirectResponse("/", status_code=303)
        if request.method == "POST":
            supplied = (await form(request)).get("token", "")
            if hmac.compare_digest(supplied.encode(), self.token.encode()):
                response = RedirectResponse("/", status_code=303)
                response.set_cookie(TOKEN_COOKIE, self.token, httponly=True, samesite="strict")
                return response
            return page("log in", '<p class="error">wrong token</p>' + LOGIN_FORM, 401)
        return page("log in", LOGIN_FORM)

    async def search(self, request: Request) -> Response:
        query = request.query_params.get("q", "").strip()
        limit = bounded(request.query_params.get("limit"), SEARCH_LIMIT)

        def work(memory: Memory) -> str:
            active = memory.active_ids()
            texts = memory.texts()
            needle = query.casefold()
            hits = sorted(i for i, t in texts.items()
                          if needle in i.casefold() or needle in t.casefold()) if query else []
            rows = "".join(
                f"<tr><td>{node_link(i, i in active)}</td><td>{status_badge(i in active)}</td>"
                f"<td>{h(texts[i][:200])}</td></tr>" for i in hits[:limit])
            more = (f'<p><a class="more" href="/?q={quote(query)}&amp;limit={limit * 4}">show more'
                    f" ({len(hits) - limit} not shown)</a></p>" if len(hits) > limit else "")
            found = (f"<p>{len(hits)} node(s) match <q>{h(query)}</q></p>"
                     f"<table class=hits><tr><th>id</th><th>status</th><th>text</th></tr>{rows}"
                     f"</table>{more}") if query else ""
            return (f"<p>{len(texts)} nodes, {len(active)} active, "
                    f"{len(memory.open_audits())} audit(s) in force.</p>"
                    '<form method=get action="/" class=search><input name=q type=search '
                    f'placeholder="id or text" value="{h(query)}" autofocus> '
                    "<button>search</button></form>" + found)
        return page("memory explorer", await self.read(work))

    async def node(self, request: Request) -> Response:
        node_id = request.query_params.get("id", "")
        limit = bounded(request.query_params.get("limit"), drawing.CAP)

        def work(memory: Memory) -> str:
            explanation = memory.explain(node_id)
            record = memory.node(node_id)
            state = memory.state
            index = state.index
            number = index.number[node_id]
            statuses = {i: bool(state.active[index.number[i]])
                        for i in [index.ids[c] for c in index.consumers[number]]}
            drawn = drawing.certificate_drawing(memory, node_id, cap=limit)
            parts = [f'<p class=status>{h(explanation.kind)} {status_badge(explanation.active)}'
                     f"</p><p class=text>{h(explanation.text) or '<em>no text</em>'}</p>"]
            details = [("created", record.get("created")), ("author", record.get("author")),
                       ("expression", record.get("expression")), ("value", record.get("value"))]
            parts.append("<dl>" + "".join(f"<dt>{h(k)}</dt><dd>{h(v)}</dd>"
                                          for k, v in details if v) + "</dl>")
            if explanation.active and explanation.kind == "claim":
                parts.append("<h2>certificate</h2><p>rests on evidence "
                             f"{id_list(explanation.evidence)}</p><ol class=certificate>" + "".join(
                                 f"<li>{node_link(s.claim)} ⇐ "
                                 f"{' ∧ '.join(node_link(a) for a in s.antecedents) or 'premise'}"
                                 "</li>" for s in explanation.certificate) + "</ol>")
            if not explanation.active:
                parts.append("<h2>why inactive</h2><ul class=why>")
                for audit in explanation.blocked_by:
                    parts.append(f'<li>invalidated itself by <a href="/audits#audit-{audit}">'
                                 f"audit {audit}</a></li>")
                if explanation.withdrawn_by is not None:
                    parts.append(f'<li>withdrawn by <a href="/audits#audit-{explanation.withdrawn_by}">'
                                 f"event {explanation.withdrawn_by}</a></li>")
                for ants, inactive in explanation.broken:
                    parts.append(f"<li class=broken>justification {' ∧ '.join(map(h, ants)) or 'premise'}"
                                 f" broken by {id_list(inactive, {i: False for i in inactive})}</li>")
                if explanation.kind == "claim" and not explanation.broken:
                    parts.append("<li>it has no justification</li>")
                parts.append("</ul>")
            justs = [j for j in drawn.justifications if j.claim == node_id]
            others = [j for j in justs if j.intact and not j.support]
            if explanation.kind == "claim":
                parts.append("<h2>other intact justifications</h2><ul class=others>" + "".join(
                    f"<li>{' ∧ '.join(node_link(a) for a in j.antecedents) or 'premise'}</li>"
                    for j in others) + "</ul>" if others else
                    "<h2>other intact justifications</h2><p><em>none</em></p>")
            parts.append(f"<h2>drawing</h2><div class=drawing>"
                         f"{drawing.to_svg(drawn, link='/node?id=')}</div>")
            if drawn.left_out:
                parts.append(f'<p><a class=more href="/node?id={quote(node_id, safe="")}'
                             f'&amp;limit={limit * 2}">show more ({drawn.left_out} node(s) not '
                             "drawn)</a></p>")
            parts.append(f"<h2>depends on it</h2><p class=dependents>"
                         f"{id_list(sorted(statuses), statuses)}</p>")
            if not self.read_only:
                parts.append(f'<p><a href="/preview?ids={quote(node_id, safe="")}">'
                             "preview an audit of this node</a></p>")
            history = payloads.history_payload(memory, node_id)
            parts.append("<h2>history</h2><table class=history><tr><th>event</th><th>kind</th>"
                         "<th>time</th><th>status</th><th>by</th><th>reason</th></tr>" + "".join(
                             f"<tr><td>{h(r['event'])}</td><td>{h(r['kind'])}</td>"
                             f"<td>{h(r['time'])}</td><td>{h(r['status'])}</td>"
                             f"<td>{h(r['actor'] or '')}</td><td>{h(r['reason'] or '')}</td></tr>"
                             for r in history["revisions"]) + "</table>")
            return "".join(parts)
        return page(f"node {node_id}", await self.read(work))

    async def preview(self, request: Request) -> Response:
        raw = request.query_params.get("ids", "")
        ids = [i.strip() for i in raw.replace("\n", ",").split(",") if i.strip()]
        form_html = ('<form method=get action="/preview" class=preview><label>ids to invalidate '
                     f'(comma separated) <input name=ids value="{h(", ".join(ids))}"></label> '
                     "<button>preview</button></form>")
        if not ids:
            return page("impact preview", form_html)

        def work(memory: Memory) -> str:
            result = payloads.audit_payload(memory, ids, memory.preview(ids), dry_run=True)
            body = [form_html, f"<h2>an audit of {id_list(result['audit'])} would</h2>",
                    f"<p>retire {len(result['retired'])}: <span class=retired>"
                    f"{id_list(result['retired'], {i: False for i in result['retired']})}</span></p>",
                    f"<p>keep {len(result['kept'])} downstream:</p><ul class=kept>" + "".join(
                        f"<li>{node_link(k['id'], True)} on "
                        f"{' ∧ '.join(node_link(a) for a in k['surviving_justification']) or 'premise'}"
                        "</li>" for k in result["kept"]) + "</ul>"]
            if not self.read_only:
                hidden = "".join(f'<input type=hidden name=ids value="{h(i)}">' for i in ids)
                body.append('<form method=post action="/audit" class=run>' + hidden +
                            '<label>reason <input name=reason required></label> '
                            "<label>reviewer <input name=reviewer></label> "
                            "<button>run this audit</button></form>")
            return "".join(body)
        return page("impact preview", await self.read(work))

    async def audit(self, request: Request) -> Response:
        if self.read_only:
            return page("read-only", "<p>this server is read-only</p>", 403)
        fields = await form_lists(request)
        ids = fields.get("ids", [])
        reason = (fields.get("reason") or [""])[0]
        reviewer = (fields.get("reviewer") or [""])[0] or None

        def work(memory: Memory) -> int:
            audit_id = memory.audit(ids, reason=reason, reviewer=reviewer).audit_id
            assert audit_id is not None
            return audit_id
        audit_id = await self.access(work, InputError)
        return RedirectResponse(f"/audits#audit-{audit_id}", status_code=303)

    async def reinstate(self, request: Request) -> Response:
        if self.read_only:
            return page("read-only", "<p>this server is read-only</p>", 403)
        raw = (await form(request)).get("audit_id", "")
        if not raw.isdigit():
            raise InputError(f"audit id must be an integer, got {raw!r}")
        await self.access(lambda memory: memory.reinstate(int(raw)), InputError)
        return RedirectResponse(f"/audits#audit-{raw}", status_code=303)

    async def audits(self, request: Request) -> Response:
        limit = bounded(request.query_params.get("limit"), 200)

        def work(memory: Memory) -> str:
            events = memory.table("events")
            in_force = memory.open_audits()
            undone = {e["target"]: e for e in events if e["kind"] == "reinstate"}
            audits = [e for e in events if e["kind"] == "audit"][::-1]
            rows = []
            for event in audits[:limit]:
                number = event["id"]
                roots = json.loads(event["roots"])
                if number in in_force:
                    state = "in force"
                    if not self.read_only:
                        state += ('<form method=post action="/reinstate" class=reinstate>'
                                  f'<input type=hidden name=audit_id value="{number}">'
                                  "<button>reinstate</button></form>")
                else:
                    state = f"reinstated by event {h(undone[number]['id'])}" if number in undone \
                        else "reinstated"
                rows.append(f'<tr id="audit-{number}"><td>{number}</td><td>{h(event["time"])}</td>'
                            f"<td>{h(event['actor'] or '')}</td><td>{h(event['reason'] or '')}</td>"
                            f"<td>{id_list(roots)}</td><td>{state}</td></tr>")
            more = (f'<p><a class=more href="/audits?limit={limit * 4}">show more</a></p>'
                    if len(audits) > limit else "")
            return ("<table class=timeline><tr><th>audit</th><th>time</th><th>reviewer</th>"
                    "<th>reason</th><th>invalidated</th><th>status</th></tr>" + "".join(rows) +
                    "</table>" + more) if audits else "<p>no audit yet</p>"
        return page("audit timeline", await self.read(work))


LOGIN_FORM = ('<form method=post action="/login"><label>token <input name=token type=password '
              "autofocus></label> <button>log in</button></form>")


def bounded(raw: str | None, default: int) -> int:
    if raw is None or not raw.isdigit():
        return default
    return max(1, min(int(raw), 100_000))


async def form_lists(request: Request) -> dict[str, list[str]]:
    """An urlencoded form body (the explorer's forms), at most 1 MiB."""
    body = await request.body()
    if len(body) > 1 << 20:
        raise InputError("form too large")
    return parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)


async def form(request: Request) -> dict[str, str]:
    return {k: v[0] for k, v in (await form_lists(request)).items()}
