"""The explorer page of `jtms serve --http` (a real server subprocess): what it shows matches the
memory, user text is never markup, the same token and Host/Origin checks as /mcp, the drawing's
cap with "show more", and `jtms explain/export --format dot|mermaid`."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser

import pytest

from jtms.memory.memory import Memory
from tests.serve_helpers import REPO, http_server, jtms, new_memory

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

TOKEN = "explorer-token-0123456789abcdef"
HOSTILE = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(2)>',
    "</svg><b>x</b>",
    "&amp; & <i>",
    "' onmouseover='alert(3)",
]


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(
            urllib.request.Request(url, headers=headers or {}), timeout=30
        ) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()


def post(
    url: str, fields: dict[str, str] | list[tuple[str, str]], headers: dict[str, str] | None = None
) -> tuple[int, str]:
    data = urllib.parse.urlencode(fields).encode()
    request = urllib.request.Request(url, data=data, method="POST", headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()


class Markup(HTMLParser):
    """Every element and attribute of a page (to prove user text never became markup)."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes.extend(attrs)
        if tag == "script":
            self.scripts.append(attrs)

    def reset(self) -> None:
        super().reset()
        self.scripts: list[list[tuple[str, str | None]]] = []

    def foreign(self) -> set[str]:
        """Elements no page of the explorer makes: any script but the app's own two (ELK and
        the drawing's) and the drawing's JSON data block, or an img, b or i element."""
        ours = (
            [("defer", None), ("src", "/static/elk.bundled.js")],
            [("defer", None), ("src", "/static/explorer.js")],
            [("type", "application/json"), ("id", "drawing-data")],
        )
        found = {"img", "b", "i"} & set(self.tags)
        return found | {"script" for attrs in self.scripts if attrs not in ours}


@contextmanager
def explorer(db: str, *options: str) -> Iterator[str]:
    """``jtms serve --http`` on ``db``: the explorer's base address."""
    with http_server(db, *options) as (url, _):
        yield url.removesuffix("/mcp")


def sampled(tmp_path) -> str:
    """A new memory holding :func:`sample`."""
    db = new_memory(tmp_path / "m.db")
    sample(db)
    return db


def sample(db: str) -> None:
    with Memory.open(db) as memory:
        memory.add_evidence("assay", text="assay A shows X")
        memory.add_evidence("paper", text="Smith 2021 reports X")
        memory.add_claim("x", [["assay"], ["paper"]], text="X holds")
        memory.add_claim("plan", [["x", "assay"]], text="order reagent R")
        memory.add_claim("later", [["plan"]])


def test_pages_show_the_memory(tmp_path):
    db = sampled(tmp_path)
    with explorer(db) as base:
        status, body = get(base + "/?q=reagent")
        assert status == 200 and 'href="/node?id=plan"' in body and "1 node(s) match" in body
        status, body = get(base + "/node?id=plan")
        assert status == 200
        assert set(re.findall(r'data-id="([^"]+)"', body)) == {
            "plan",
            "x",
            "assay",
        }  # x <- assay: its certificate
        assert 'href="/node?id=later"' in body  # what depends on it
        # preview, then run the audit from the form, as the browser would
        status, body = get(base + "/preview?ids=assay")
        assert "retire 3" in body and "keep 1" in body  # assay, plan, later; x stays
        status, _ = post(
            base + "/audit", [("ids", "assay"), ("reason", "contaminated"), ("reviewer", "ana")]
        )
        assert status == 200
        with Memory.open(db) as memory:
            audit_id = max(memory.open_audits())
            assert not memory.is_active("plan") and memory.is_active("x")
        status, body = get(base + "/node?id=plan")
        assert "why inactive" in body and f"#audit-{audit_id}" in body
        assert "broken by" in body and 'class="inactive" href="/node?id=assay"' in body
        _, body = get(base + "/node?id=later")  # drawn down to the invalidated evidence
        assert set(re.findall(r'data-id="([^"]+)"', body)) == {"later", "plan", "x", "assay"}
        assert re.search(r'class="node evidence inactive invalidated" data-id="assay"', body)
        assert (
            'class=invalidated>invalidated evidence it rests on: <a class="inactive" href="/node?id=assay">assay</a>'
            in body
        )
        status, body = get(base + "/node?id=x")
        assert "other intact justifications" in body
        status, body = get(base + "/audits")
        assert f'id="audit-{audit_id}"' in body and "contaminated" in body and "reinstate" in body
        status, _ = post(base + "/reinstate", {"audit_id": str(audit_id)})
        assert status == 200
        with Memory.open(db) as memory:
            assert memory.is_active("plan") and not memory.open_audits()
        assert get(base + "/node?id=ghost")[0] == 400
        css_status, css = get(base + "/static/explorer.css")
        assert css_status == 200 and "svg.drawing" in css
        # the drawing's scripts, served by the app itself: ELK as vendored, its licence, ours
        static = REPO / "jtms" / "serve" / "static"
        for name, media in (
            ("elk.bundled.js", "text/javascript"),
            ("explorer.js", "text/javascript"),
            ("elk.LICENSE.md", "text/plain"),
        ):
            with urllib.request.urlopen(base + "/static/" + name, timeout=30) as response:
                assert response.headers["content-type"].startswith(media), name
                assert response.read() == (static / name).read_bytes(), name
        assert "Eclipse Public License - v 2.0" in (static / "elk.LICENSE.md").read_text()
        assert get(base + "/static/../explorer.py")[0] == 404
        assert get(base + "/static/main.js")[0] == 404


def audit_id_of(db: str) -> int:
    with Memory.open(db) as memory:
        (audit_id,) = memory.open_audits()
    return audit_id


def test_user_text_is_never_markup(tmp_path):
    db = new_memory(tmp_path / "m.db")
    with Memory.open(db) as memory:
        for k, text in enumerate(HOSTILE):
            memory.add_evidence(text, text=text)
            memory.add_claim(f"c{k}{text}", [[text]], text=text)
        memory.audit([HOSTILE[0]], reason=HOSTILE[1], reviewer=HOSTILE[2])
        memory.import_graph(
            {
                "nodes": [{"id": "imported", "kind": "evidence", "text": HOSTILE[3]}],
                "justifications": [],
            },
            source=HOSTILE[4],
        )  # shown on /events
        for k, text in enumerate(HOSTILE):  # nogoods: their pages and the timeline's links
            memory.add_nogood(f"n{k}{text}", [text, f"c{k}{text}"], text=text)
    with explorer(db) as base:
        pages = [
            "/?q=" + urllib.parse.quote("<"),
            "/audits",
            "/nogoods",
            f"/audits?changed={audit_id_of(db)}",
        ]
        pages += ["/preview?ids=" + urllib.parse.quote(",".join(HOSTILE[1:]))]
        pages += [
            "/node?id=" + urllib.parse.quote(i)
            for t in HOSTILE
            for i in (t, f"c{HOSTILE.index(t)}{t}")
        ]
        pages += ["/node?id=" + urllib.parse.quote(HOSTILE[0]) + "&limit=1"]
        # the same as of the audit and of the event before it, and the event timeline
        with Memory.open(db) as memory:
            (audit_id,) = memory.open_audits()
        past = [
            f"{p}{'&' if '?' in p else '?'}as_of={k}"
            for p in pages
            for k in (audit_id - 1, audit_id)
        ]
        refused = [p for p in past if p.startswith("/preview")]  # a 400 page: read-only
        pages += [p for p in past if p not in refused]
        pages += ["/nogood?id=" + urllib.parse.quote(f"n{k}{t}") for k, t in enumerate(HOSTILE)]
        pages += ["/events", f"/events?as_of={audit_id}", "/events?limit=1"]
        for path in pages + refused:
            status, body = get(base + path)
            assert status == (400 if path in refused else 200), path
            for text in HOSTILE:
                assert text not in body, (path, text)
            parsed = Markup()
            parsed.feed(body)
            assert not parsed.foreign(), path
            assert not [name for name, _ in parsed.attributes if name.startswith("on")], path
        for k, text in enumerate(HOSTILE):  # the drawing's JSON block carries the ids intact
            _, body = get(base + "/node?id=" + urllib.parse.quote(f"c{k}{text}"))
            block = re.search(
                r'<script type="application/json" id="drawing-data">(.*?)</script>', body, re.S
            )
            assert block is not None
            described = json.loads(block.group(1))
            assert {n["id"] for n in described["nodes"]} == {text, f"c{k}{text}"}
            assert described["focus"] == f"c{k}{text}"
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in get(base + "/audits")[1]
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in get(base + "/events")[1]
        for raw in HOSTILE:  # a hostile as_of: a 400 page that shows it as text
            status, body = get(base + "/?as_of=" + urllib.parse.quote(raw))
            assert status == 400 and raw not in body, raw
            parsed = Markup()
            parsed.feed(body)
            assert not parsed.foreign()
            assert not [name for name, _ in parsed.attributes if name.startswith("on")]


def test_same_token_and_origin_checks_as_mcp(tmp_path):
    db = sampled(tmp_path)
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    with explorer(db, "--token-file", str(token_file)) as base:
        assert get(base + "/")[0] == 401
        assert get(base + "/node?id=x", {"Cookie": "jtms_token=wrong"})[0] == 401
        assert post(base + "/audit", {"ids": "assay", "reason": "r"})[0] == 401
        assert get(base + "/login")[0] == 200
        assert post(base + "/login", {"token": "wrong"})[0] == 401
        cookie = {"Cookie": f"jtms_token={TOKEN}"}
        assert get(base + "/", cookie)[0] == 200
        assert get(base + "/", {"Authorization": f"Bearer {TOKEN}"})[0] == 200
        # a cross-site form post (the browser sends the other site's Origin) is refused
        assert (
            post(
                base + "/audit",
                {"ids": "assay", "reason": "r"},
                {**cookie, "Origin": "http://evil.example"},
            )[0]
            == 403
        )
        assert get(base + "/", {**cookie, "Host": "evil.example"})[0] == 421
    with Memory.open(db) as memory:
        assert not memory.open_audits()
    with explorer(db, "--read-only") as base:
        assert "run this audit" not in get(base + "/preview?ids=assay")[1]
        assert post(base + "/audit", {"ids": "assay", "reason": "r"})[0] == 403
    with Memory.open(db) as memory:
        assert not memory.open_audits()


def test_drawing_is_capped_with_show_more(tmp_path):
    db = new_memory(tmp_path / "m.db")
    with Memory.open(db) as memory:
        memory.import_graph(
            {
                "nodes": [{"id": "e", "kind": "evidence"}]
                + [{"id": f"c{k:03d}", "kind": "claim"} for k in range(300)],
                "justifications": [{"claim": "c000", "antecedents": ["e"]}]
                + [{"claim": f"c{k:03d}", "antecedents": [f"c{k - 1:03d}"]} for k in range(1, 300)],
            }
        )
    with explorer(db) as base:
        _, body = get(base + "/node?id=c299")
        drawn = re.findall(r'data-id="([^"]+)"', body)
        assert len(drawn) == 40 and "show more" in body and "261 node(s) not drawn" in body
        data = json.loads(re.search(r'id="drawing-data">(.*?)</script>', body).group(1))
        collapsed = [n for n in data["nodes"] if n["collapsed"]]
        assert [(n["id"], n["collapsed"]) for n in collapsed] == [("c260", 1)]
        _, expanded = get(base + collapsed[0]["expand_href"])
        assert len(re.findall(r'data-id="([^"]+)"', expanded)) == 41
        more = re.search(r'href="(/node\?id=c299&amp;limit=\d+)"', body)
        assert more is not None
        _, body = get(base + more.group(1).replace("&amp;", "&"))
        assert len(re.findall(r'data-id="([^"]+)"', body)) == 80
        _, body = get(base + "/node?id=c299&limit=400")
        assert len(re.findall(r'data-id="([^"]+)"', body)) == 301 and "show more" not in body


def test_explain_format_dot_and_mermaid(tmp_path):
    db = sampled(tmp_path)
    dot = jtms("explain", "plan", "--db", db, "--format", "dot").stdout
    assert dot.startswith("digraph memory {") and dot.count("shape=point") == 2
    assert '"assay\\nassay A shows X"' in dot
    mermaid = jtms("explain", "plan", "--db", db, "--format", "mermaid").stdout
    assert mermaid.startswith("flowchart BT") and mermaid.count("(( ))") == 2
    result = jtms("explain", "plan", "--db", db, "--format", "png", check=False)
    assert result.returncode == 2


def test_export_format_dot_and_mermaid(tmp_path):
    db = sampled(tmp_path)
    with Memory.open(db) as memory:
        memory.audit(["assay"], reason="r")
    dot = jtms("export", "--db", db, "--format", "dot").stdout
    assert dot.startswith("digraph memory {") and dot.count("shape=point") == 4
    assert len(re.findall(r"shape=(?:box|ellipse), style=dashed", dot)) == 3  # assay, plan, later
    target = tmp_path / "m.mmd"
    jtms("export", "--db", db, "--format", "mermaid", "-o", str(target))
    mermaid = target.read_text()
    assert mermaid.startswith("flowchart BT") and mermaid.count("class n") == 3
    assert jtms("export", "--db", db, "--format", "svg", check=False).returncode == 2


# --- as of a past event -------------------------------------------------------------------------

# plan: created active (event 5), retired by the audit of assay (7), reinstated (8), kept out
# by the audit of x (10); x: switches to paper at 7, invalidated itself at 10
AS_OF_OPS: list[tuple[str, tuple]] = [
    ("evidence", ("assay", "assay A shows X")),
    ("evidence", ("paper", "Smith 2021 reports X")),
    ("claim", ("x", [["assay"], ["paper"]], "X holds")),
    ("claim", ("plan", [["x", "assay"]], "order reagent R")),
    ("claim", ("later", [["plan"]], "then ship it")),
    ("audit", (["assay"], "contaminated")),
    ("reinstate", (7,)),
    ("evidence", ("memo", "a memo")),
    ("audit", (["x"], "x is wrong")),
]


def replay(memory: Memory, ops: list[tuple[str, tuple]]) -> None:
    for kind, args in ops:
        if kind == "evidence":
            memory.add_evidence(args[0], text=args[1])
        elif kind == "claim":
            memory.add_claim(args[0], args[1], text=args[2])
        elif kind == "audit":
            memory.audit(args[0], reason=args[1], reviewer="ana")
        else:
            memory.reinstate(args[0])


def rebuilt(k: int) -> Memory:
    """A fresh memory from the first k events of AS_OF_OPS (event 1 is the init)."""
    memory = Memory.create(":memory:", durability="off")
    replay(memory, AS_OF_OPS[: k - 1])
    assert memory.last_event == k
    return memory


def linked(body: str, css: str) -> list[str]:
    """The node ids linked inside the first element of class ``css``."""
    found = re.search(rf"class={css}[ >].*?</(?:p|ul|ol|span)>", body, re.S)
    return [] if found is None else re.findall(r'href="/node\?id=([^"&]+)', found.group(0))


def node_portrait(body: str) -> dict:
    """What the node page shows, read back from its HTML."""
    why = re.search(r"<ul class=why>(.*?)</ul>", body, re.S)
    return {
        "active": re.search(r'<p class=status>\w+ <span class="badge (\w+)"', body).group(1)
        == "active",
        "drawn": set(re.findall(r'data-id="([^"]+)"', body)),
        "certificate": re.findall(
            r"<li><a href=\"/node\?id=([^\"&]+)[^\"]*\">",
            body.split("<ol class=certificate>")[1].split("</ol>")[0],
        )
        if "<ol class=certificate>" in body
        else [],
        "blocked_by": [
            int(a)
            for a in re.findall(
                r"class=blocked>invalidated itself by <a href=\"/audits[^#]*#audit-(\d+)", body
            )
        ],
        "kept_out_by": [
            int(a)
            for a in re.findall(
                r"class=kept-out>kept out by <a href=\"/audits[^#]*#audit-(\d+)", body
            )
        ],
        "withdrawn_by": [
            int(a)
            for a in re.findall(
                r"class=withdrawn>withdrawn by <a href=\"/audits[^#]*#audit-(\d+)", body
            )
        ],
        "broken": re.findall(r"<li class=broken>justification (.*?) broken by", why.group(1))
        if why
        else [],
        "dependents": linked(body, "dependents"),
        "history": len(re.findall(r"<tr><td><a title=\"this node as of event", body)),
    }


def expected_portrait(memory: Memory, node_id: str) -> dict:
    """The same, from a memory (the view as of k, or the memory rebuilt from k events)."""
    from jtms.views import drawing

    explanation = memory.explain(node_id)
    structure = memory.structure()
    kept_out = [a for a in explanation.kept_out_by if a not in explanation.blocked_by]
    return {
        "active": explanation.active,
        "drawn": set(drawing.focused_drawing(memory, node_id).nodes),
        "certificate": [s.claim for s in explanation.certificate],
        "blocked_by": list(explanation.blocked_by),
        "kept_out_by": kept_out,
        "withdrawn_by": [] if explanation.withdrawn_by is None else [explanation.withdrawn_by],
        "broken": [" ∧ ".join(ants) for ants, _ in explanation.broken],
        "dependents": sorted(
            {j.claim for j in structure.justifications if node_id in j.antecedents}
        ),
        "history": len(memory.history(node_id)),
    }


def test_pages_as_of_each_event_match_the_memory_then(tmp_path):
    db = new_memory(tmp_path / "m.db")
    with Memory.open(db) as memory:
        replay(memory, AS_OF_OPS)
        last = memory.last_event
        times = {e["id"]: e["time"] for e in memory.events()}
    assert last == 10
    with explorer(db) as base, Memory.open(db) as memory:
        seen_plan = []
        for k in range(1, last + 1):
            view = memory.as_of(k)
            again = rebuilt(k)
            status, body = get(base + f"/?q=a&as_of={k}")
            assert status == 200, body
            assert f"as of event {k} ({times[k]}) — read-only" in body
            assert '<a class=now href="/?q=a">back to now</a>' in body
            counts = (
                f"{len(again.texts())} nodes, {len(again.active_ids())} active, "
                f"{len(again.open_audits())} audit(s) in force."
            )
            assert counts in body and counts == (
                f"{len(view.texts())} nodes, {len(view.active_ids())}"
                f" active, {len(view.open_audits())} audit(s) in force."
            )
            hits = re.findall(
                r'<tr><td><a class="(\w+)" href="/node\?id=([^"&]+)&amp;as_of=(\d+)"', body
            )
            assert {(i, c == "active") for c, i, _ in hits} == {
                (i, i in again.active_ids()) for i, t in again.texts().items() if "a" in i + t
            }
            assert {int(e) for _, _, e in hits} <= {k}
            for node_id in ("assay", "x", "plan", "later", "memo"):
                status, body = get(base + f"/node?id={node_id}&as_of={k}")
                if node_id not in again:
                    assert status == 400 and "unknown id" in body, (k, node_id)
                    continue
                assert status == 200, (k, node_id, body)
                shown = node_portrait(body)
                assert (
                    shown == expected_portrait(again, node_id) == expected_portrait(view, node_id)
                ), (k, node_id)
                assert "preview an audit" not in body and "method=post" not in body
                assert f'<a class=now href="/node?id={node_id}">back to now</a>' in body
                if node_id == "plan":
                    seen_plan.append(shown["active"])
            again.close()
        # active when created (5), retired by the audit (7), reinstated (8), kept out again (10)
        assert seen_plan == [True, True, False, True, True, False]
        _, body = get(base + "/node?id=plan&as_of=10")
        assert node_portrait(body)["kept_out_by"] == [10]
        _, now = get(base + "/node?id=plan")
        assert "class=asof" not in now and "preview an audit" in now
        # the event timeline: every event, what it changed, a link to the memory as of it
        status, body = get(base + "/events")
        assert status == 200
        rows = re.findall(r'<tr id="event-(\d+)".*?</tr>', body, re.S)
        assert [int(r) for r in rows] == list(range(last, 0, -1))
        for event in memory.events():
            row = re.search(rf'<tr id="event-{event["id"]}".*?</tr>', body, re.S).group(0)
            assert f'href="/?as_of={event["id"]}"' in row and event["kind"] in row
            for key in ("created", "activated", "deactivated"):
                cell = re.search(rf'<span class="{key}">.*?</span>', row, re.S)
                listed = (
                    re.findall(r'href="/node\?id=([^"&]+)&amp;as_of=(\d+)"', cell.group(0))
                    if cell
                    else []
                )
                assert [i for i, _ in listed] == event[key] and {int(e) for _, e in listed} <= {
                    event["id"]
                }
        assert memory.events(after=6, until=7)[0]["deactivated"] == ["assay", "later", "plan"]
        _, body = get(base + "/events?as_of=7")
        assert '<tr id="event-7" class=current>' in body and '<tr id="event-8" class=later>' in body
        # the audit timeline as of 7: the audit in force there, no reinstate button
        _, body = get(base + "/audits?as_of=7")
        assert 'id="audit-7"' in body and "in force" in body and "audit-10" not in body
        assert "form" not in body.split("<main>")[1]
        _, body = get(base + "/audits?as_of=9")
        assert "reinstated by event 8" in body


BAD_AS_OF = [
    ("abc", "as_of must be an event id (an integer), got &#39;abc&#39;"),
    ("1.5", "an integer"),
    ("-1", "as_of must be an event id (1 or more)"),
    ("0", "no event 0 (events are 1 to 6)"),
    ("7", "no event 7 (events are 1 to 6)"),
    ("9" * 40, "no such event"),
    ("<b>1</b>", "&lt;b&gt;1&lt;/b&gt;"),
]


def test_bad_as_of_is_a_clear_400(tmp_path):
    db = sampled(tmp_path)
    with explorer(db) as base:
        for raw, message in BAD_AS_OF:
            for path in ("/?q=x", "/node?id=x", "/audits?limit=5", "/events?limit=5"):
                status, body = get(base + path + "&as_of=" + urllib.parse.quote(raw))
                assert status == 400 and message in body, (raw, path, body)
                parsed = Markup()
                parsed.feed(body)
                assert "b" not in parsed.tags and "<b>" not in body
        assert get(base + "/?q=x&as_of=")[0] == 200  # an empty field: now


def test_writes_are_refused_as_of_an_event(tmp_path):
    db = sampled(tmp_path)
    with explorer(db) as base:
        status, body = get(base + "/preview?ids=assay&as_of=3")
        assert status == 400 and "read-only" in body and "retire" not in body
        assert post(base + "/audit?as_of=3", [("ids", "assay"), ("reason", "r")])[0] == 400
        with Memory.open(db) as memory:
            assert not memory.open_audits()
            audit_id = memory.audit(["assay"], reason="r").audit_id
        assert post(base + "/reinstate?as_of=3", {"audit_id": str(audit_id)})[0] == 400
        for path in (
            "/?as_of=3",
            "/node?id=x&as_of=4",
            f"/audits?as_of={audit_id}",
            f"/events?as_of={audit_id}",
        ):
            status, body = get(base + path)
            assert status == 200 and "read-only" in body
            assert "method=post" not in body and 'href="/preview' not in body, path
    with Memory.open(db) as memory:
        assert list(memory.open_audits()) == [audit_id]


# --- at scale: the preview paged, what an audit changed, nogoods, the login redirect ----------


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None


def raw(
    url: str, fields: dict[str, str] | None = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], str]:
    """One request, redirects not followed: status, headers, body."""
    data = None if fields is None else urllib.parse.urlencode(fields).encode()
    request = urllib.request.Request(
        url, data=data, headers=headers or {}, method="GET" if data is None else "POST"
    )
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as answer:
        return answer.code, dict(answer.headers), answer.read().decode()


def wide(tmp_path, retired: int, kept: int) -> str:
    """Evidence e and f; ``retired`` claims on e alone and ``kept`` claims on e or f (an audit
    of e retires e and the first, keeps the second on f)."""
    db = new_memory(tmp_path / "m.db")
    with Memory.open(db) as memory:
        memory.import_graph(
            {
                "nodes": [{"id": "e", "kind": "evidence"}, {"id": "f", "kind": "evidence"}]
                + [{"id": f"r{k:04d}", "kind": "claim"} for k in range(retired)]
                + [{"id": f"k{k:04d}", "kind": "claim"} for k in range(kept)],
                "justifications": [
                    {"claim": f"r{k:04d}", "antecedents": ["e"]} for k in range(retired)
                ]
                + [
                    {"claim": f"k{k:04d}", "antecedents": [a]}
                    for k in range(kept)
                    for a in ("e", "f")
                ],
            }
        )
    return db


def preview_page(body: str) -> tuple[list[str], list[str]]:
    """The retired and kept ids one preview page lists."""
    retired = re.search(r"<span class=retired>(.*?)</span>", body, re.S)
    kept = re.search(r"<ul class=kept>(.*?)</ul>", body, re.S)
    assert retired is not None and kept is not None
    return (
        re.findall(r'href="/node\?id=([^"&]+)"', retired.group(1)),
        re.findall(r'<li><a class="active" href="/node\?id=([^"&]+)"', kept.group(1)),
    )


def test_preview_is_capped_and_paged(tmp_path):
    db = wide(tmp_path, retired=1200, kept=130)
    with Memory.open(db) as memory:
        result = memory.preview(["e"])
        expected_retired = sorted(result.retired)
        expected_kept = [claim for claim, _ in memory.kept(["e"], retired=result.retired)]
    assert len(expected_retired) == 1201 and len(expected_kept) == 130
    with explorer(db) as base:
        status, body = get(base + "/preview?ids=e")
        assert status == 200
        assert "retire <strong>1201</strong> node(s) and keep <strong>130</strong>" in body
        assert "(showing 1 to 50)" in body and "<em>and 1151 more</em>" in body
        assert len(body) < 40_000, len(body)  # 1,331 ids in all; a page of 50 of each
        seen_retired, seen_kept, pages = [], [], 0
        path = "/preview?ids=e"
        while path:
            status, body = get(base + path)
            assert status == 200
            retired, kept = preview_page(body)
            assert len(retired) == min(50, 1201 - len(seen_retired))
            assert len(kept) == max(0, min(50, 130 - len(seen_kept)))
            seen_retired += retired
            seen_kept += kept
            pages += 1
            following = re.search(r'<a class=next href="([^"]+)"', body)
            path = following.group(1).replace("&amp;", "&") if following else ""
        assert pages == 25 and seen_retired == expected_retired and seen_kept == expected_kept
        assert 'class=previous href="/preview?ids=e&amp;limit=50&amp;offset=1150"' in body
        # "show more", as the search: four times the page from the same place
        _, body = get(base + "/preview?ids=e")
        more = re.search(r'<a class=more href="([^"]+)">show more \(1151 not shown\)', body)
        assert more is not None
        _, body = get(base + more.group(1).replace("&amp;", "&"))
        retired, kept = preview_page(body)
        assert retired == expected_retired[:200] and kept == expected_kept
        # the form still runs the audit of the whole preview
        assert re.findall(r'<input type=hidden name=ids value="([^"]+)">', body) == ["e"]


def test_after_an_audit_and_a_reinstate_the_page_says_what_changed(tmp_path):
    db = wide(tmp_path, retired=60, kept=3)
    with explorer(db) as base:
        status, headers, _ = raw(base + "/audit", {"ids": "e", "reason": "bad batch"})
        assert status == 303
        with Memory.open(db) as memory:
            (audit_id,) = memory.open_audits()
            retired = memory.events(after=audit_id - 1, until=audit_id)[0]["deactivated"]
        assert headers["location"] == f"/audits?changed={audit_id}#audit-{audit_id}"
        assert len(retired) == 61
        _, body = get(base + headers["location"])
        changed = re.search(r"<p class=changed role=status[^>]*>(.*?)</p>", body, re.S)
        assert changed is not None
        text = changed.group(1)
        assert f"audit {audit_id} of" in text and "retired <strong>61</strong> node(s)" in text
        assert re.findall(r'href="/node\?id=([^"&]+)&amp;as_of=', text) == ["e"] + retired[:20]
        assert "<em>and 41 more</em>" in text
        status, headers, _ = raw(base + "/reinstate", {"audit_id": str(audit_id)})
        with Memory.open(db) as memory:
            event = memory.last_event
            activated = memory.events(after=event - 1)[0]["activated"]
        assert status == 303 and headers["location"] == f"/audits?changed={event}#audit-{audit_id}"
        _, body = get(base + headers["location"])
        changed = re.search(r"<p class=changed role=status[^>]*>(.*?)</p>", body, re.S)
        assert changed is not None
        assert (
            f'event {event} reinstated <a href="/audits#audit-{audit_id}">audit {audit_id}'
            "</a> and reactivated <strong>61</strong> node(s)"
        ) in changed.group(1)
        assert (
            re.findall(r'href="/node\?id=([^"&]+)&amp;as_of=', changed.group(1)) == activated[:20]
        )
        assert "class=changed" not in get(base + "/audits")[1]
        for bad in ("abc", "1", str(event + 5)):  # not an audit or reinstatement event
            status, body = get(base + f"/audits?changed={bad}")
            assert status == 400 and "changed" in body, bad


def nogood_memory(tmp_path) -> str:
    """The sample, a memo (audited), and two nogoods: n1 over x and plan (a contradiction:
    both active, on assay), n2 over later and memo (not one: memo is invalidated)."""
    db = sampled(tmp_path)
    with Memory.open(db) as memory:
        memory.add_evidence("memo", text="a memo")
        memory.add_nogood("n1", ["x", "plan"], text="x and the plan cannot both hold")
        memory.add_nogood("n2", ["later", "memo"])
        memory.audit(["memo"], reason="memo withdrawn")
    return db


def test_nogoods_and_contradictions_have_their_own_view(tmp_path):
    from theory.semantics.conflicts import conflict_sets

    db = nogood_memory(tmp_path)
    with Memory.open(db) as memory:
        assert memory.is_active("n1") and not memory.is_active("n2")
        conflicts = conflict_sets(memory.structure(), ["x", "plan"], memory.blocked_ids())
        events = memory.events()
    assert conflicts == {frozenset({"assay"})}
    with explorer(db) as base:
        status, body = get(base + "/nogoods")
        assert status == 200 and "2 nogood(s), 1 active contradiction(s)" in body
        active = body.split("<table class=contradictions>")[1].split("</table>")[0]
        resolved = body.split("<table class=resolved>")[1].split("</table>")[0]
        assert re.findall(r'href="/nogood\?id=(\w+)"', active) == ["n1"]
        assert re.findall(r'href="/nogood\?id=(\w+)"', resolved) == ["n2"]
        assert 'class="inactive" href="/node?id=memo"' in resolved
        status, body = get(base + "/nogood?id=n1")
        assert status == 200 and "active contradiction" in body
        assert re.findall(
            r'href="/node\?id=(\w+)"', body.split("<ul class=members>")[1].split("</ul>")[0]
        ) == ["plan", "x"]
        listed = body.split("<ul class=conflicts>")[1].split("</ul>")[0]
        assert re.findall(r"<li>(.*?)</li>", listed) == ['<a href="/node?id=assay">assay</a>']
        status, body = get(base + "/nogood?id=n2")
        assert status == 200 and "not a contradiction" in body and "conflicts" not in body
        assert re.findall(
            r'href="/node\?id=(\w+)"', body.split("<p class=why>")[1].split("</p>")[0]
        ) == ["memo"]
        assert get(base + "/nogood?id=ghost")[0] == 400
        _, body = get(base + "/node?id=x")  # a node says which nogoods name it
        assert re.findall(
            r'href="/nogood\?id=(\w+)"', body.split("<p class=nogoods>")[1].split("</p>")[0]
        ) == ["n1"]
        # the event timeline links each nogood it created to the nogood's page, as of then
        _, body = get(base + "/events")
        for event in events:
            if event["kind"] != "add-nogood":
                continue
            (created,) = event["created"]
            row = re.search(rf'<tr id="event-{event["id"]}".*?</tr>', body, re.S).group(0)
            href = f"/nogood?id={created}&amp;as_of={event['id']}"
            assert f'href="{href}"' in row, row
            status, page_body = get(base + href.replace("&amp;", "&"))
            assert status == 200 and f"as of event {event['id']}" in page_body
            assert f"nogood {created}" in page_body
        status, headers, _ = raw(base + "/node?id=n1&as_of=8")  # an old link to a nogood
        assert status == 303 and headers["location"] == "/nogood?id=n1&as_of=8"


def test_a_browser_without_the_cookie_is_sent_to_login(tmp_path):
    db = sampled(tmp_path)
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    html = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    with explorer(db, "--token-file", str(token_file)) as base:
        status, headers, _ = raw(base + "/node?id=x&limit=5", headers=html)
        assert status == 303
        assert headers["location"] == "/login?next=%2Fnode%3Fid%3Dx%26limit%3D5"
        status, headers, _ = raw(base + "/", headers={**html, "Cookie": "jtms_token=wrong"})
        assert status == 303 and headers["location"] == "/login?next=%2F"
        status, _, body = raw(base + headers["location"], headers=html)
        assert status == 200 and '<input type=hidden name=next value="/">' in body
        # not a browser's page request: the 401 that says to send the token
        assert raw(base + "/node?id=x")[0] == 401
        assert raw(base + "/mcp", headers=html)[0] == 401
        assert raw(base + "/audit", {"ids": "assay", "reason": "r"}, html)[0] == 401
        # logging in goes back to the page asked for; never to another site
        status, headers, _ = raw(base + "/login", {"token": TOKEN, "next": "/node?id=x&limit=5"})
        assert status == 303 and headers["location"] == "/node?id=x&limit=5"
        assert f"jtms_token={TOKEN}" in headers["set-cookie"]
        for elsewhere in ("//evil.example/x", "https://evil.example/", "/\\evil.example", "/login"):
            status, headers, _ = raw(base + "/login", {"token": TOKEN, "next": elsewhere})
            assert status == 303 and headers["location"] == "/", elsewhere
        status, _, body = raw(base + "/login", {"token": "wrong", "next": "/audits"})
        assert status == 401 and '<input type=hidden name=next value="/audits">' in body
    with Memory.open(db) as memory:
        assert not memory.open_audits()
    with explorer(db) as base:  # no token: nothing to log in to
        status, headers, _ = raw(base + "/node?id=x", headers=html)
        assert status == 200
