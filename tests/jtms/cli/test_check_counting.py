"""``jtms check`` reports the counting boundary (Theorem 2) beside influence-safety: per claim
``counting_safe`` and ``counting_witness`` with --json, a column and a witness table without,
counting totals with --summary, for a graph file and a stored memory alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jtms.cli import main
from jtms.memory.memory import Memory

LOOP = str(Path(__file__).resolve().parents[3] / "examples" / "counting_loop.json")
WITNESS_C = {"audit": ["e"], "loop": ["c", "m"], "kept": ["c", "m"]}


def _json(capsys, *argv: str) -> tuple[int, dict]:
    code = main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_json_gains_the_counting_verdict_and_witness_per_claim(capsys):
    code, payload = _json(capsys, "check", LOOP)
    assert code == 0  # the exit code is the influence verdict's: both claims influence-safe
    assert payload["influence_safe"] is True and payload["counting_safe"] is False
    claims = {entry["id"]: entry for entry in payload["claims"]}
    assert claims["c"]["counting_safe"] is False
    assert claims["c"]["counting_witness"] == WITNESS_C
    assert claims["m"]["counting_witness"]["loop"] == ["m", "c"]
    assert payload["counts"]["counting_unsafe"] == 2
    assert payload["counts"]["counting_undecided"] == 0
    # or_world: influence-unsafe, counting-safe (the incomparability's other side)
    code, payload = _json(capsys, "check", str(Path(LOOP).with_name("or_world.json")))
    assert code == 1 and payload["counting_safe"] is True
    assert payload["claims"][0]["counting_witness"] is None


def test_the_table_shows_both_verdicts_and_the_witnesses(capsys):
    assert main(["check", LOOP]) == 0
    out = capsys.readouterr().out
    assert "counting" in out and "UNSAFE" in out
    assert "c <- m <- c" in out
    assert "NOT counting-safe: 2 unsafe claim(s)" in out


@pytest.mark.parametrize("audits", ["evidence", "claims", "all"])
def test_summary_counts_the_counting_verdicts(capsys, audits):
    code, payload = _json(capsys, "check", LOOP, "--summary", "--audits", audits)
    unsafe = 0 if audits == "claims" else 2  # with claims audited, e stays: m stays derived
    assert payload["summary"]["counting_unsafe"] == unsafe
    assert payload["counting_safe"] is (unsafe == 0)
    assert {entry["counting_safe"] for entry in payload["claims"]} == {unsafe == 0}
    _, full = _json(capsys, "check", LOOP, "--audits", audits)
    assert [e["counting_safe"] for e in full["claims"]] == [
        e["counting_safe"] for e in payload["claims"]
    ]


def test_a_stored_memory_is_checked_as_it_stands(tmp_path, capsys):
    db = str(tmp_path / "m.db")
    with Memory.create(db) as memory:
        memory.add_evidence("e")
        memory.add_evidence("f")
        memory.add_claim("m", [["e"]])
        memory.add_claim("c", [["m"]])
        memory.add_claim("d", [["f"]])
        memory.add_justification("m", ["c"])
    _, payload = _json(capsys, "check", "--db", db)
    claims = {entry["id"]: entry for entry in payload["claims"]}
    assert claims["c"]["counting_witness"] == WITNESS_C and claims["d"]["counting_safe"]
    _, summary = _json(capsys, "check", "--db", db, "--summary")
    assert summary["summary"]["counting_unsafe"] == 2
    with Memory.open(db) as memory:  # with e audited the loop is gone from the state
        memory.audit(["e"], reason="wrong")
    _, payload = _json(capsys, "check", "--db", db)
    assert payload["counting_safe"] is True
    _, summary = _json(capsys, "check", "--db", db, "--summary")
    assert summary["counting_safe"] is True and summary["summary"]["counting_unsafe"] == 0


def test_a_time_limit_leaves_the_counting_verdicts_undecided(capsys):
    code, payload = _json(capsys, "check", LOOP, "--time-limit", "0.000001")
    assert code == 0
    assert payload["counting_safe"] is None
    assert [e["counting_safe"] for e in payload["claims"]] == [None, None]
    assert [e["counting_witness"] for e in payload["claims"]] == [None, None]
    assert payload["complete"] is False and payload["counting_undecided_claims"] == 2
    assert main(["check", LOOP, "--time-limit", "0.000001"]) == 0
    assert "counting verdicts of 2 claim(s) are undecided" in capsys.readouterr().out


def test_undecided_claims_are_not_called_counting_safe():
    from jtms.cli.commands.theorycmds import _counting_line

    assert _counting_line(0, 0) == "counting-safe"
    assert "counting-safe" not in _counting_line(0, 3).replace("counting-safety", "")
    assert "3 undecided" in _counting_line(2, 3) and "NOT" in _counting_line(2, 3)
