"""The explorer page of `jtms serve --http` (a real server subprocess): what it shows matches the
memory, user text is never markup, the same token and Host/Origin checks as /mcp, the drawing's
cap with "show more", and `jtms explain/export --format dot|mermaid`."""

from __future__ import annotations

import re
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser

import pytest

from jtms.reconsolidation import Memory
from tests.serve_helpers import http_server, jtms, new_memory

pytestmark = pytest.mark.timeout(180)

TOKEN = "explorer-token-0123456789abcdef"
HOSTILE = ['<script>alert(1)</script>', '"><img src=x onerror=alert(2)>', "</svg><b>x</b>",
           "&amp; & <i>", "' onmouseover='alert(3)"]


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}),
                                    timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()


def post(url: str, fields: dict[str, str] | list[tuple[str, str]],
         headers: dict[str, str] | None = None) -> tuple[int, str]:
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


def sample(db: str) -> None:
    with Memory.open(db) as memory:
        memory.add_evidence("assay", text="assay A shows X")
        memory.add_evidence("paper", text="Smith 2021 reports X")
        memory.add_claim("x", [["assay"], ["paper"]], text="X holds")
        memory.add_claim("plan", [["x", "assay"]], text="order reagent R")
        memory.add_claim("later", [["plan"]])


def test_pages_show_the_memory(tmp_path):
    db = new_memory(tmp_path / "m.db")
    sample(db)
    with http_server(db) as (url, _):
        base = url.removesuffix("/mcp")
        status, body = get(base + "/?q=reagent")
        assert status == 200 and 'href="/node?id=plan"' in body and "1 node(s) match" in body
        status, body = get(base + "/node?id=plan")
        assert status == 200
        assert set(re.findall(r'data-id="([^"]+)"', body)) == {"plan", "x", "assay"}  # x <- assay: its certificate
        assert 'href="/node?id=later"' in body  # what depends on it
        # preview, then run the audit from the form, as the browser would
        status, body = get(base + "/preview?ids=assay")
        assert "retire 3" in body and "keep 1" in body  # assay, plan, later; x stays
        status, _ = post(base + "/audit", [("ids", "assay"), ("reason", "contaminated"),
                                           ("reviewer", "ana")])
        assert status == 200
        with Memory.open(db) as memory:
            audit_id = max(memory.open_audits())
            assert not memory.is_active("plan") and memory.is_active("x")
        status, body = get(base + "/node?id=plan")
        assert "why inactive" in body and f"#audit-{audit_id}" in body
        assert "broken by" in body and 'class="inactive" href="/node?id=assay"' in body
        _, body = get(base + "/node?id=later")  # drawn down to the invalidated evidence
        assert set(re.findall(r'data-id="([^"]+)"', body)) == {"later", "plan", "x", "assay", "paper"}
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


def test_user_text_is_never_markup(tmp_path):
    db = new_memory(tmp_path / "m.db")
    with Memory.open(db) as memory:
        for k, text in enumerate(HOSTILE):
            memory.add_evidence(text, text=text)
            memory.add_claim(f"c{k}{text}", [[text]], text=text)
        memory.audit([HOSTILE[0]], reason=HOSTILE[1], reviewer=HOSTILE[2])
    with http_server(db) as (url, _):
        base = url.removesuffix("/mcp")
        pages = ["/?q=" + urllib.parse.quote("<"), "/audits",
                 "/preview?ids=" + urllib.parse.quote(",".join(HOSTILE[1:]))]
        pages += ["/node?id=" + urllib.parse.quote(i) for t in HOSTILE for i in (t, f"c{HOSTILE.index(t)}{t}")]
        pages += ["/node?id=" + urllib.parse.quote(HOSTILE[0]) + "&limit=1"]
        for path in pages:
            status, body = get(base + path)
            assert status == 200, path
            for text in HOSTILE:
                assert text not in body, (path, text)
            parsed = Markup()
            parsed.feed(body)
            assert not {"script", "img", "b", "i"} & set(parsed.tags), path
            assert not [name for name, _ in parsed.attributes if name.startswith("on")], path
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in get(base + "/audits")[1]


def test_same_token_and_origin_checks_as_mcp(tmp_path):
    db = new_memory(tmp_path / "m.db")
    sample(db)
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    with http_server(db, "--token-file", str(token_file)) as (url, _):
        base = url.removesuffix("/mcp")
        assert get(base + "/")[0] == 401
        assert get(base + "/node?id=x", {"Cookie": "jtms_token=wrong"})[0] == 401
        assert post(base + "/audit", {"ids": "assay", "reason": "r"})[0] == 401
        assert get(base + "/login")[0] == 200
        assert post(base + "/login", {"token": "wrong"})[0] == 401
        cookie = {"Cookie": f"jtms_token={TOKEN}"}
        assert get(base + "/", cookie)[0] == 200
        assert get(base + "/", {"Authorization": f"Bearer {TOKEN}"})[0] == 200
        # a cross-site form post (the browser sends the other site's Origin) is refused
        assert post(base + "/audit", {"ids": "assay", "reason": "r"},
                    {**cookie, "Origin": "http://evil.example"})[0] == 403
        assert get(base + "/", {**cookie, "Host": "evil.example"})[0] == 421
    with Memory.open(db) as memory:
        assert not memory.open_audits()
    with http_server(db, "--read-only") as (url, _):
        base = url.removesuffix("/mcp")
        assert "run this audit" not in get(base + "/preview?ids=assay")[1]
        assert post(base + "/audit", {"ids": "assay", "reason": "r"})[0] == 403
    with Memory.open(db) as memory:
        assert not memory.open_audits()


def test_drawing_is_capped_with_show_more(tmp_path):
    db = new_memory(tmp_path / "m.db")
    with Memory.open(db) as memory:
        memory.import_graph({
            "nodes": [{"id": "e", "kind": "evidence"}]
            + [{"id": f"c{k:03d}", "kind": "claim"} for k in range(300)],
            "justifications": [{"claim": "c000", "antecedents": ["e"]}]
            + [{"claim": f"c{k:03d}", "antecedents": [f"c{k - 1:03d}"]} for k in range(1, 300)]})
    with http_server(db) as (url, _):
        base = url.removesuffix("/mcp")
        _, body = get(base + "/node?id=c299")
        drawn = re.findall(r'data-id="([^"]+)"', body)
        assert len(drawn) == 200 and "show more" in body and "101 node(s) not drawn" in body
        more = re.search(r'href="(/node\?id=c299&amp;limit=\d+)"', body)
        assert more is not None
        _, body = get(base + more.group(1).replace("&amp;", "&"))
        assert len(re.findall(r'data-id="([^"]+)"', body)) == 301 and "show more" not in body


def test_explain_format_dot_and_mermaid(tmp_path):
    db = new_memory(tmp_path / "m.db")
    sample(db)
    dot = jtms("explain", "plan", "--db", db, "--format", "dot").stdout
    assert dot.startswith("digraph memory {") and dot.count("shape=point") == 2
    assert '"assay\\nassay A shows X"' in dot
    mermaid = jtms("explain", "plan", "--db", db, "--format", "mermaid").stdout
    assert mermaid.startswith("flowchart BT") and mermaid.count("(( ))") == 2
    result = jtms("explain", "plan", "--db", db, "--format", "png", check=False)
    assert result.returncode == 2


def test_export_format_dot_and_mermaid(tmp_path):
    db = new_memory(tmp_path / "m.db")
    sample(db)
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
