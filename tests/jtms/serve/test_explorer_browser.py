"""The explorer in a real browser: Playwright driving Debian's chromium (installed by .ci/run;
no browser is downloaded) clicks through search, a node, an impact preview, the audit and a
reinstate, and the event timeline to the memory as of an earlier event, checking what the
page shows against the memory; and the certificate drawing laid out in the page by ELK at 15,
50 and 200 nodes, checked from the rendered SVG's geometry: no edge passes over a box other
than its own two ends, no two boxes overlap, each AND junction is a box of its own, the focus
node is in view, and pan, zoom and fit move the drawing. Screenshots are kept as test
artefacts in pytest's tmp directory (printed at the end), never committed."""

from __future__ import annotations

import os
import random
import re
import shutil
from collections import deque
from collections.abc import Iterator
from typing import Any

import pytest

from jtms.memory.memory import Memory
from jtms.views import drawing
from tests.serve_helpers import http_server, new_memory

pytestmark = [pytest.mark.timeout(120), pytest.mark.browser]


def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed (.ci/run installs Debian's chromium package)")
    pytest.skip("chromium is not installed")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One chromium for the module's tests (each opens its own page)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    path = chromium()
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=path, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            yield launched
        finally:
            launched.close()


def test_click_through_search_node_preview_audit_reinstate(tmp_path, browser):
    db = new_memory(tmp_path / "m.db")
    with Memory.open(db) as memory:
        memory.add_evidence("assay", text="assay A shows X")
        memory.add_evidence("paper", text="Smith 2021 reports X")
        memory.add_claim("x", [["assay"], ["paper"]], text="X holds")
        memory.add_claim("plan", [["x", "assay"]], text="order reagent R")
        memory.add_claim("later", [["plan"]], text="then ship it")
    shots = tmp_path / "screenshots"
    shots.mkdir()
    with http_server(db) as (url, _):
        base = url.removesuffix("/mcp")
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        try:
            page.set_default_timeout(30_000)
            page.goto(base + "/")
            page.fill("input[name=q]", "reagent")
            page.click("form.search button")
            page.screenshot(path=str(shots / "1-search.png"), full_page=True)
            assert page.locator("table.hits a").all_inner_texts() == ["plan"]

            page.click("table.hits a")
            assert page.locator("h1").inner_text() == "node plan"
            assert page.locator(".badge").first.inner_text() == "active"
            drawn = set(
                page.locator("svg.drawing g.node").evaluate_all(
                    "nodes => nodes.map(n => n.dataset.id)"
                )
            )
            with Memory.open(db) as memory:
                steps = memory.explain("plan").certificate
            assert drawn == {"plan"} | {s.claim for s in steps} | {
                a for s in steps for a in s.antecedents
            }
            page.screenshot(path=str(shots / "2-node.png"), full_page=True)

            page.click("text=preview an audit of this node")
            page.fill("input[name=ids]", "assay")
            page.click("form.preview button")
            retired = page.locator(".retired a").all_inner_texts()
            with Memory.open(db) as memory:
                assert sorted(retired) == sorted(memory.preview(["assay"]).retired)
            assert page.locator("ul.kept a").first.inner_text() == "x"
            page.screenshot(path=str(shots / "3-preview.png"), full_page=True)

            page.fill("form.run input[name=reason]", "assay contaminated")
            page.fill("form.run input[name=reviewer]", "ana")
            page.click("form.run button")
            page.wait_for_url("**/audits*")
            with Memory.open(db) as memory:
                (audit_id,) = memory.open_audits()
                assert memory.active_ids() == {"paper", "x"}
            row = page.locator(f"#audit-{audit_id}")
            assert "assay contaminated" in row.inner_text() and "in force" in row.inner_text()
            assert (
                page.locator("p.changed")
                .inner_text()
                .startswith(f"audit {audit_id} of assay retired 3 node(s): assay, later, plan")
            )
            page.screenshot(path=str(shots / "4-timeline.png"), full_page=True)

            page.goto(base + "/node?id=later")
            assert page.locator(".badge").first.inner_text() == "inactive"
            assert "broken by" in page.locator("ul.why").inner_text()
            page.screenshot(path=str(shots / "5-inactive.png"), full_page=True)

            # the event timeline: pick the event before the audit, see the memory as it was
            page.click("nav >> text=event timeline")
            with Memory.open(db) as memory:
                events = memory.events()
            assert page.locator("table.events tr[id]").evaluate_all(
                "rows => rows.map(r => r.id)"
            ) == [f"event-{e['id']}" for e in reversed(events)]
            page.screenshot(path=str(shots / "6-events.png"), full_page=True)
            before = audit_id - 1
            page.click(f"#event-{before} a.as-of")
            page.wait_for_url(f"**/?as_of={before}")
            banner = page.locator("p.asof").inner_text()
            assert banner.startswith(f"as of event {before} ({events[before - 1]['time']})")
            assert "read-only" in banner
            with Memory.open(db) as memory:
                past = memory.as_of(before)
                counts = (
                    f"{len(past.texts())} nodes, {len(past.active_ids())} active, "
                    f"{len(past.open_audits())} audit(s) in force."
                )
                steps = past.explain("later").certificate
            assert page.locator("p.counts").inner_text() == counts
            assert page.locator("nav >> text=impact preview").count() == 0
            page.fill("input[name=q]", "ship")
            page.click("form.search button")
            page.click("table.hits a")
            assert page.locator("h1").inner_text() == "node later"
            assert page.locator("p.asof").count() == 1
            assert page.locator(".badge").first.inner_text() == "active"  # inactive now
            drawn = set(
                page.locator("svg.drawing g.node").evaluate_all(
                    "nodes => nodes.map(n => n.dataset.id)"
                )
            )
            assert drawn == {"later"} | {s.claim for s in steps} | {
                a for s in steps for a in s.antecedents
            }
            assert [a.strip() for a in page.locator("ol.certificate li").all_inner_texts()] == [
                f"{s.claim} ⇐ {' ∧ '.join(s.antecedents)}" for s in steps
            ]
            assert page.locator("text=preview an audit of this node").count() == 0
            assert page.locator("form[method=post]").count() == 0
            page.screenshot(path=str(shots / "7-as-of.png"), full_page=True)
            page.click("p.asof a.now")
            assert page.locator("p.asof").count() == 0
            assert page.locator(".badge").first.inner_text() == "inactive"

            page.goto(base + "/audits")
            page.click(f"#audit-{audit_id} form.reinstate button")
            page.wait_for_url("**/audits*")
            assert "reinstated" in page.locator(f"#audit-{audit_id}").inner_text()
            assert (
                f"reinstated audit {audit_id} and reactivated 3 node(s): assay, later, plan"
                in page.locator("p.changed").inner_text()
            )
            with Memory.open(db) as memory:
                assert memory.is_active("later") and not memory.open_audits()
            page.screenshot(path=str(shots / "8-reinstated.png"), full_page=True)
        finally:
            page.close()
    assert len(list(shots.glob("*.png"))) == 8
    print(f"screenshots: {shots}")


def test_without_the_cookie_the_browser_logs_in_and_comes_back(tmp_path, browser):
    db = new_memory(tmp_path / "m.db")
    with Memory.open(db) as memory:
        memory.add_evidence("assay", text="assay A shows X")
        memory.add_claim("x", [["assay"]], text="X holds")
    token = "browser-token-0123456789abcdef"
    (tmp_path / "token").write_text(token)
    with http_server(db, "--token-file", str(tmp_path / "token")) as (url, _):
        base = url.removesuffix("/mcp")
        context = browser.new_context()
        try:
            page = context.new_page()
            page.goto(base + "/node?id=x")
            assert page.url == base + "/login?next=%2Fnode%3Fid%3Dx"
            page.fill("input[name=token]", "wrong")
            page.click("form button")
            assert page.locator("p.error").inner_text() == "wrong token"
            page.fill("input[name=token]", token)
            page.click("form button")
            page.wait_for_url(base + "/node?id=x")
            assert page.locator("h1").inner_text() == "node x"
            page.goto(base + "/audits")  # the cookie holds for the next page
            assert (
                page.url == base + "/audits" and page.locator("h1").inner_text() == "audit timeline"
            )
        finally:
            context.close()


# --- the drawing laid out by ELK ---------------------------------------------------------------

SIZES = (15, 50, 200)


def layered_graph(prefix: str, size: int, seed: int) -> tuple[dict[str, Any], list[str], str]:
    """A graph document of ``size`` nodes (a quarter evidence) in which every node is used by
    a later claim, each claim with 1 to 3 alternative justifications of 1 to 4 antecedents
    from the last few nodes (so ANDs, ORs and edges that skip layers); returns the document,
    its evidence and its top claim (which reaches every node)."""
    rng = random.Random(seed)
    evidence = [f"{prefix}e{k}" for k in range(max(3, size // 4))]
    nodes: list[dict[str, str]] = [{"id": e, "kind": "evidence"} for e in evidence]
    justifications = []
    earlier, unused = list(evidence), deque(evidence)
    claims = size - len(evidence)
    claim = ""
    for k in range(claims):
        claim = f"{prefix}c{k}"
        first = [unused.popleft() for _ in range(min(len(unused), 1))]
        if k == claims - 1:  # the top claim uses whatever no claim used yet
            first += list(unused)
            unused.clear()
        window = [n for n in earlier[-10:] if n not in first]
        alternatives = [first + rng.sample(window, min(len(window), rng.choice([0, 1, 1, 2])))]
        for _ in range(rng.choice([0, 1, 1, 2])):
            alternatives.append(rng.sample(window, min(len(window), rng.choice([1, 2, 2, 3]))))
        for antecedents in alternatives:
            if antecedents:
                justifications.append({"claim": claim, "antecedents": sorted(set(antecedents))})
        nodes.append({"id": claim, "kind": "claim"})
        earlier.append(claim)
        unused.append(claim)
    return {"nodes": nodes, "justifications": justifications}, evidence, claim


@pytest.fixture(scope="module")
def drawn_memory(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, dict[int, str], str]]:
    """A served memory of three graphs (a fifth more than each size, so the drawing of each
    top claim at ``limit=size`` is capped at exactly ``size`` nodes) with two thirds of their
    evidence audited (inactive claims are drawn with every justification); yields the
    explorer's base address, the top claim of each size and the memory's path."""
    db = new_memory(tmp_path_factory.mktemp("drawn") / "m.db")
    tops = {}
    with Memory.open(db) as memory:
        for size in SIZES:
            graph, evidence, top = layered_graph(f"g{size}", size + size // 5, size)
            memory.import_graph(graph)
            memory.audit([e for k, e in enumerate(evidence) if k % 3], reason="drawing test")
            tops[size] = top
    with http_server(db) as (url, _):
        yield url.removesuffix("/mcp"), tops, db


GEOMETRY = """svg => {
  const box = g => { const r = g.querySelector('rect');
    return {id: g.dataset.layoutId, node: g.dataset.id || null,
            junction: g.classList.contains('junction'), focus: g.classList.contains('focus'),
            x: +r.getAttribute('x'), y: +r.getAttribute('y'),
            w: +r.getAttribute('width'), h: +r.getAttribute('height')}; };
  return {boxes: [...svg.querySelectorAll('g.node, g.junction')].map(box),
          edges: [...svg.querySelectorAll('path.edge')].map(p => ({
            source: p.dataset.source, target: p.dataset.target, d: p.getAttribute('d'),
            into: p.classList.contains('into-claim') ? 'claim' : 'junction'}))};
}"""


Box = tuple[float, float, float, float]  # x, y, width, height


def polyline(d: str) -> list[tuple[float, float]]:
    """The points of an SVG path made of M and L commands (what the page draws edges with)."""
    assert re.fullmatch(r"(?:[ML] -?[\d.]+ -?[\d.]+ ?)+", d), d
    numbers = [float(n) for n in re.findall(r"-?[\d.]+", d)]
    return list(zip(numbers[::2], numbers[1::2]))


def crosses(a: tuple[float, float], b: tuple[float, float], box: Box, inset: float = 1.0) -> bool:
    """Whether the segment a-b passes through the inside of ``box`` (shrunk by ``inset``, so
    a segment along an edge's own clearance does not count): Liang-Barsky clipping."""
    x, y, w, h = box[0] + inset, box[1] + inset, box[2] - 2 * inset, box[3] - 2 * inset
    if w <= 0 or h <= 0:
        return False
    dx, dy = b[0] - a[0], b[1] - a[1]
    low, high = 0.0, 1.0
    for p, q in ((-dx, a[0] - x), (dx, x + w - a[0]), (-dy, a[1] - y), (dy, y + h - a[1])):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            low = max(low, t)
        else:
            high = min(high, t)
        if low > high:
            return False
    return True


def on_border(point: tuple[float, float], box: Box, slack: float = 1.5) -> bool:
    x, y, w, h = box
    px, py = point
    inside = x - slack <= px <= x + w + slack and y - slack <= py <= y + h + slack
    near = min(abs(px - x), abs(px - x - w), abs(py - y), abs(py - y - h)) <= slack
    return inside and near


def overlap(a: Box, b: Box) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def layout_problems(geometry: dict[str, Any]) -> list[str]:
    """Everything wrong with a drawn layout: an edge segment through a box that is neither of
    its ends, an edge that does not start and end on its own boxes, two boxes overlapping."""
    boxes = {b["id"]: (b["x"], b["y"], b["w"], b["h"]) for b in geometry["boxes"]}
    problems = []
    for edge in geometry["edges"]:
        points = polyline(edge["d"])
        ends = {edge["source"], edge["target"]}
        if not on_border(points[0], boxes[edge["source"]]):
            problems.append(f"edge {edge['source']}->{edge['target']} does not start on its source")
        if not on_border(points[-1], boxes[edge["target"]]):
            problems.append(f"edge {edge['source']}->{edge['target']} does not end on its target")
        for a, b in zip(points, points[1:]):
            left, right = min(a[0], b[0]), max(a[0], b[0])
            top, bottom = min(a[1], b[1]), max(a[1], b[1])
            for name, box in boxes.items():
                if (
                    box[0] > right
                    or box[0] + box[2] < left
                    or box[1] > bottom
                    or box[1] + box[3] < top
                ):
                    continue  # not even near: the clipping below would say the same
                if name not in ends and crosses(a, b, box):
                    problems.append(f"edge {edge['source']}->{edge['target']} passes over {name}")
    ordered = sorted(boxes.items(), key=lambda item: item[1][0])
    for k, (name, box) in enumerate(ordered):
        for other, second in ordered[k + 1 :]:
            if second[0] >= box[0] + box[2]:
                break
            if overlap(box, second):
                problems.append(f"boxes {name} and {other} overlap")
    return problems


def test_layout_geometry_checks_catch_crossings():
    """The geometry checks themselves, on hand-made layouts (so the browser tests below can
    fail): an edge through a third box, an edge from nowhere, two stacked boxes."""
    clean = {
        "boxes": [
            {"id": "a", "x": 0, "y": 100, "w": 50, "h": 20},
            {"id": "b", "x": 0, "y": 0, "w": 50, "h": 20},
            {"id": "c", "x": 100, "y": 50, "w": 50, "h": 20},
        ],
        "edges": [{"source": "a", "target": "b", "d": "M 25 100 L 25 20"}],
    }
    assert layout_problems(clean) == []
    through = {
        **clean,
        "edges": [{"source": "a", "target": "b", "d": "M 50 110 L 125 110 L 125 10 L 50 10"}],
    }
    assert layout_problems(through) == ["edge a->b passes over c"]
    astray = {**clean, "edges": [{"source": "a", "target": "b", "d": "M 80 100 L 80 20"}]}
    assert len(layout_problems(astray)) == 2
    stacked = {"boxes": [dict(b, x=0, y=0) for b in clean["boxes"]], "edges": []}
    assert len(layout_problems(stacked)) == 3


@pytest.mark.parametrize("size", SIZES)
def test_drawing_laid_out_by_elk_has_no_edge_over_a_box(size, drawn_memory, browser, tmp_path):
    base, tops, db = drawn_memory
    top = tops[size]
    with Memory.open(db) as memory:
        expected = drawing.focused_drawing(memory, top, budget=size)
    assert 3 <= len(expected.nodes) <= size
    ands = [j for j in expected.justifications if len(j.antecedents) >= 2]
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    try:
        page.set_default_timeout(20_000)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{base}/node?id={top}&limit={size}")
        page.wait_for_selector("div.drawing[data-ready=true] svg.drawing[data-layout=elk]")
        assert errors == []
        svg = page.locator("svg.drawing")
        geometry = svg.evaluate(GEOMETRY)
        page.screenshot(path=str(tmp_path / f"drawing-{size}.png"), full_page=True)

        # what is drawn: the server's drawing, each AND junction a box of its own
        nodes = [b for b in geometry["boxes"] if not b["junction"]]
        junctions = [b for b in geometry["boxes"] if b["junction"]]
        assert sorted(b["node"] for b in nodes) == sorted(expected.nodes)
        assert len(junctions) == len(ands) > 0
        into = {
            b["id"]: [e for e in geometry["edges"] if e["target"] == b["id"]] for b in junctions
        }
        out = {b["id"]: [e for e in geometry["edges"] if e["source"] == b["id"]] for b in junctions}
        assert sorted(len(into[b["id"]]) for b in junctions) == sorted(
            len(j.antecedents) for j in ands
        )
        assert all(len(out[b["id"]]) == 1 and out[b["id"]][0]["into"] == "claim" for b in junctions)
        assert all(b["w"] >= 8 and b["h"] >= 8 for b in junctions)
        assert sum(e["into"] == "claim" for e in geometry["edges"]) == len(expected.justifications)

        assert layout_problems(geometry) == []

        # the focus node is in view, readable, inside the drawing's frame
        frame = svg.bounding_box()
        focus = page.locator("svg.drawing g.node.focus rect").bounding_box()
        assert frame is not None and focus is not None
        assert page.locator("svg.drawing g.node.focus").get_attribute("data-id") == top
        assert (
            frame["x"] <= focus["x"] and focus["x"] + focus["width"] <= frame["x"] + frame["width"]
        )
        assert (
            frame["y"] <= focus["y"]
            and focus["y"] + focus["height"] <= frame["y"] + frame["height"]
        )
        assert focus["width"] >= 60, focus  # a scale of 0.4 or more: its label is readable

        # fit: every box inside the frame; zoom (button, wheel) and pan (drag) move the view
        page.click("div.drawing-tools button.drawing-fit")
        outside = svg.evaluate("""svg => { const f = svg.getBoundingClientRect();
            return [...svg.querySelectorAll('g.node rect, g.junction rect')].filter(r => {
              const b = r.getBoundingClientRect();
              return b.left < f.left - 0.5 || b.right > f.right + 0.5 ||
                     b.top < f.top - 0.5 || b.bottom > f.bottom + 0.5; }).length; }""")
        assert outside == 0
        fitted = float(svg.get_attribute("data-scale") or 0)
        page.click("div.drawing-tools button.drawing-zoom-in")
        assert float(svg.get_attribute("data-scale") or 0) == pytest.approx(
            min(4, fitted * 1.25), rel=1e-3
        )
        svg.scroll_into_view_if_needed()
        frame = svg.bounding_box()
        assert frame is not None
        page.mouse.move(frame["x"] + frame["width"] / 2, frame["y"] + frame["height"] / 2)
        page.mouse.wheel(0, 400)
        page.wait_for_function(
            "s => +s.dataset.scale < %r" % (fitted * 1.25), arg=svg.element_handle(), timeout=5_000
        )
        assert float(svg.get_attribute("data-scale") or 0) < fitted * 1.25
        before = page.locator("svg.drawing g.viewport").get_attribute("transform")
        page.mouse.down()
        page.mouse.move(
            frame["x"] + frame["width"] / 2 + 80, frame["y"] + frame["height"] / 2 + 30, steps=5
        )
        page.mouse.up()
        after = page.locator("svg.drawing g.viewport").get_attribute("transform")
        shift = [
            float(a) - float(b)
            for a, b in zip(
                re.findall(r"-?[\d.]+", after or "")[:2], re.findall(r"-?[\d.]+", before or "")[:2]
            )
        ]
        assert shift == [pytest.approx(80, abs=1), pytest.approx(30, abs=1)]
        assert page.url.endswith(f"limit={size}")  # the drag followed no node link
    finally:
        page.close()


def test_drawing_without_javascript_is_the_server_svg(drawn_memory, browser):
    """No JavaScript: the server's own SVG drawing of the same nodes stays on the page."""
    base, tops, db = drawn_memory
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{base}/node?id={tops[15]}&limit=15")
        assert page.locator("svg.drawing[data-layout=elk]").count() == 0
        drawn = page.locator("svg.drawing g.node").evaluate_all(
            "nodes => nodes.map(n => n.dataset.id)"
        )
        with Memory.open(db) as memory:
            assert sorted(drawn) == sorted(
                drawing.focused_drawing(memory, tops[15], budget=15).nodes
            )
    finally:
        context.close()


# --- legible at 15, 50 and 200 nodes ------------------------------------------------------------

LEGIBLE = """svg => {
  const scale = +svg.dataset.scale;
  const sizes = [...svg.querySelectorAll('g.node text')].map(
    t => parseFloat(getComputedStyle(t).fontSize) * scale);
  return {boxes: svg.querySelectorAll('g.node').length, smallest: Math.min(...sizes),
          texts: svg.querySelectorAll('g.node text.text').length,
          counts: [...svg.querySelectorAll('a.expand text')].map(t => t.textContent)};
}"""


@pytest.fixture(scope="module")
def legible_memory(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, dict[tuple[int, str], str], str]]:
    """Per size, a graph whose top claim reaches every node, with texts: its top claim
    (active: one certificate), its first evidence (what depends on it), and the top claim of
    a copy with two thirds of its evidence audited (why it is out)."""
    db = new_memory(tmp_path_factory.mktemp("legible") / "m.db")
    focus: dict[tuple[int, str], str] = {}
    with Memory.open(db) as memory:
        for size in SIZES:
            for copy in ("a", "b"):
                graph, evidence, top = layered_graph(f"{copy}{size}", size, size)
                for node in graph["nodes"]:
                    node["text"] = f"finding {node['id']} about the assay series"
                memory.import_graph(graph)
                if copy == "a":
                    focus[size, "certificate"], focus[size, "dependents"] = top, evidence[0]
                else:
                    memory.audit([e for k, e in enumerate(evidence) if k % 3], reason="legible")
                    focus[size, "why inactive"] = top
    with http_server(db) as (url, _):
        yield url.removesuffix("/mcp"), focus, db


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("question", ["certificate", "why inactive", "dependents"])
def test_the_default_drawing_is_legible(size, question, legible_memory, browser):
    """At the default zoom: at most about 40 boxes, each with its text, every label at 10 px
    or more; what is not drawn sits behind "+N" counts, and a click on one draws it."""
    base, focus, db = legible_memory
    node_id = focus[size, question]
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.set_default_timeout(20_000)
        page.goto(f"{base}/node?id={node_id}")
        page.wait_for_selector("div.drawing[data-ready=true] svg.drawing[data-layout=elk]")
        seen = page.locator("svg.drawing").evaluate(LEGIBLE)
        assert 2 <= seen["boxes"] <= 40, seen  # the bound, not the constant
        assert seen["texts"] == seen["boxes"], seen  # every box shows its text
        assert seen["smallest"] >= 10, seen
        with Memory.open(db) as memory:
            expected = drawing.focused_drawing(memory, node_id)
        assert expected.question == question
        assert seen["boxes"] == len(expected.nodes)
        hidden = sum(n.collapsed for n in expected.nodes.values())
        assert sorted(seen["counts"]) == sorted(
            f"+{n.collapsed}" for n in expected.nodes.values() if n.collapsed
        )
        if question == "why inactive":
            assert page.locator("svg.drawing g.node.invalidated").count() >= 1
        if question == "dependents":
            assert page.locator("svg.drawing g.node.retired").count() >= 1
        shots = os.environ.get("JTMS_EXPLORER_SCREENSHOTS")
        if shots and question == "why inactive":
            page.locator("div.drawing").screenshot(path=os.path.join(shots, f"explorer-{size}.png"))
        if hidden:
            before = seen["boxes"]
            page.click("div.drawing-tools button.drawing-fit")  # every count in view
            page.click("svg.drawing a.expand >> nth=0")
            page.wait_for_selector("div.drawing[data-ready=true] svg.drawing[data-layout=elk]")
            assert "expand=" in page.url
            after = page.locator("svg.drawing").evaluate(LEGIBLE)
            assert after["boxes"] > before
    finally:
        page.close()
