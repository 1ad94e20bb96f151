"""The MCP ``check`` carries Theorem 2's keys as ``jtms check --db --json`` does:
``counting_safe`` and ``counts.counting_unsafe``/``counting_undecided`` over every claim, and
per listed claim ``counting_safe`` and ``counting_witness``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from jtms.memory.memory import Memory
from jtms.views.payloads import check_payload

LOOP = json.loads(Path(__file__).parents[3].joinpath("examples", "counting_loop.json").read_text())


def test_check_payload_names_the_loop_counting_keeps(tmp_path):
    db = str(tmp_path / "m.db")
    with Memory.create(db) as memory:
        memory.import_graph(LOOP)
        first = check_payload(memory, limit=1)
        second = check_payload(memory, limit=1, offset=1)
    assert first["counting_safe"] is False
    assert first["counts"]["counting_unsafe"] == 2
    assert first["counts"]["counting_undecided"] == 0
    (c,) = first["claims"]
    (m,) = second["claims"]
    assert (c["id"], m["id"]) == ("c", "m")
    for claim in (c, m):
        assert claim["counting_safe"] is False
        assert claim["counting_witness"]["audit"] == ["e"]
        assert sorted(claim["counting_witness"]["loop"]) == ["c", "m"]
    cli = subprocess.run(
        [sys.executable, "-m", "jtms", "check", "--db", db, "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    by_cli = {claim["id"]: claim for claim in json.loads(cli.stdout)["claims"]}
    for claim in (c, m):
        assert claim["counting_witness"] == by_cli[claim["id"]]["counting_witness"]


def test_check_payload_is_counting_safe_without_loops(tmp_path):
    db = str(tmp_path / "m.db")
    graph = {
        "nodes": [{"id": i, "kind": "evidence"} for i in ("a", "b")]
        + [{"id": "c", "kind": "claim"}],
        "justifications": [
            {"claim": "c", "antecedents": ["a"]},
            {"claim": "c", "antecedents": ["b"]},
        ],
    }
    with Memory.create(db) as memory:
        memory.import_graph(graph)
        checked = check_payload(memory)
    assert checked["counting_safe"] is True and checked["influence_safe"] is False
    assert checked["claims"][0]["counting_witness"] is None
