"""The explorer in a real browser: Playwright driving Debian's chromium (installed by .ci/run;
no browser is downloaded) clicks through search, a node, an impact preview, the audit and a
reinstate, and the event timeline to the memory as of an earlier event, checking what the
page shows against the memory. Screenshots are kept as test
artefacts in pytest's tmp directory (printed at the end), never committed."""

from __future__ import annotations

import os
import shutil

import pytest

from jtms.memory.memory import Memory
from tests.serve_helpers import http_server, new_memory

pytestmark = pytest.mark.timeout(240)


def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed (.ci/run installs Debian's chromium package)")
    pytest.skip("chromium is not installed")


def test_click_through_search_node_preview_audit_reinstate(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    db = new_memory(tmp_path / "m.db")
    with Memory.open(db) as memory:
        memory.add_evidence("assay", text="assay A shows X")
        memory.add_evidence("paper", text="Smith 2021 reports X")
        memory.add_claim("x", [["assay"], ["paper"]], text="X holds")
        memory.add_claim("plan", [["x", "assay"]], text="order reagent R")
        memory.add_claim("later", [["plan"]], text="then ship it")
    shots = tmp_path / "screenshots"
    shots.mkdir()
    with http_server(db) as (url, _), sync_api.sync_playwright() as playwright:
        base = url.removesuffix("/mcp")
        browser = playwright.chromium.launch(executable_path=chromium(),
                                             args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.set_default_timeout(30_000)
            page.goto(base + "/")
            page.fill("input[name=q]", "reagent")
            page.click("form.search button")
            page.screenshot(path=str(shots / "1-search.png"), full_page=True)
            assert page.locator("table.hits a").all_inner_texts() == ["plan"]

            page.click("table.hits a")
            assert page.locator("h1").inner_text() == "node plan"
            assert page.locator(".badge").first.inner_text() == "active"
            drawn = set(page.locator("svg.drawing g.node").evaluate_all(
                "nodes => nodes.map(n => n.dataset.id)"))
            with Memory.open(db) as memory:
                steps = memory.explain("plan").certificate
            assert drawn == {"plan"} | {s.claim for s in steps} | {a for s in steps for a in s.antecedents}
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
                "rows => rows.map(r => r.id)") == [f"event-{e['id']}" for e in reversed(events)]
            page.screenshot(path=str(shots / "6-events.png"), full_page=True)
            before = audit_id - 1
            page.click(f"#event-{before} a.as-of")
            page.wait_for_url(f"**/?as_of={before}")
            banner = page.locator("p.asof").inner_text()
            assert banner.startswith(f"as of event {before} ({events[before - 1]['time']})")
            assert "read-only" in banner
            with Memory.open(db) as memory:
                past = memory.as_of(before)
                counts = (f"{len(past.texts())} nodes, {len(past.active_ids())} active, "
                          f"{len(past.open_audits())} audit(s) in force.")
                steps = past.explain("later").certificate
            assert page.locator("p.counts").inner_text() == counts
            assert page.locator("nav >> text=impact preview").count() == 0
            page.fill("input[name=q]", "ship")
            page.click("form.search button")
            page.click("table.hits a")
            assert page.locator("h1").inner_text() == "node later"
            assert page.locator("p.asof").count() == 1
            assert page.locator(".badge").first.inner_text() == "active"  # inactive now
            drawn = set(page.locator("svg.drawing g.node").evaluate_all(
                "nodes => nodes.map(n => n.dataset.id)"))
            assert drawn == {"later"} | {s.claim for s in steps} | {a for s in steps for a in s.antecedents}
            assert [a.strip() for a in page.locator("ol.certificate li").all_inner_texts()] == [
                f"{s.claim} ⇐ {' ∧ '.join(s.antecedents)}" for s in steps]
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
            with Memory.open(db) as memory:
                assert memory.is_active("later") and not memory.open_audits()
            page.screenshot(path=str(shots / "8-reinstated.png"), full_page=True)
        finally:
            browser.close()
    assert len(list(shots.glob("*.png"))) == 8
    print(f"screenshots: {shots}")
