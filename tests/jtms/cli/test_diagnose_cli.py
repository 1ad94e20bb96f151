"""`jtms diagnose GRAPH`: the JSON contract, exit codes, table output and bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jtms.cli import main

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "contradiction.json"


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def write(tmp_path: Path, document: dict[str, Any]) -> Path:
    path = tmp_path / "g.json"
    path.write_text(json.dumps(document))
    return path


def test_example_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "diagnose", EXAMPLE, "--json")
    assert code == 1
    payload = json.loads(out)
    assert set(payload) >= {"contradictions", "diagnoses"}
    (c,) = payload["contradictions"]
    assert set(c) >= {"nogood", "nodes", "active", "conflicts"}
    assert c["nogood"] == "verdict" and c["nodes"] == ["effective", "inert"] and c["active"] is True
    assert c["conflicts"] == [["assay", "model", "trial1"], ["assay", "model", "trial2"]]
    assert [d["invalidate"] for d in payload["diagnoses"]] == [
        ["assay"],
        ["model"],
        ["trial1", "trial2"],
    ]
    first = payload["diagnoses"][0]
    assert set(first) >= {"invalidate", "retires", "keeps"}
    assert first["retires"] == ["assay", "inert"] and first["keeps"] == ["screen"]
    assert payload["diagnoses"][2]["retires"] == ["dosing", "effective", "trial1", "trial2"]


def test_max_diagnoses_bounds_the_listing(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "diagnose", EXAMPLE, "--json", "--max-diagnoses", "2")
    assert code == 1
    assert [d["invalidate"] for d in json.loads(out)["diagnoses"]] == [["assay"], ["model"]]
    code, out, _ = run(capsys, "diagnose", EXAMPLE, "--json", "--max-diagnoses", "0")
    assert len(json.loads(out)["diagnoses"]) == 3


def test_table_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "diagnose", EXAMPLE)
    assert code == 1
    assert "ACTIVE" in out and "{assay}" in out and "cheapest first" in out


def test_no_active_nogood_exits_zero(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    document = json.loads(EXAMPLE.read_text())
    document["nogoods"] = [
        {"id": "n", "nodes": ["inert", "screen", "dosing"]},
        {"id": "loop", "nodes": ["l"]},
    ]
    document["nodes"].append({"id": "l", "kind": "claim"})
    document["justifications"].append({"claim": "l", "antecedents": ["l"]})
    code, out, _ = run(capsys, "diagnose", write(tmp_path, document), "--json")
    assert code == 1  # {inert, screen, dosing} are all active
    document["nogoods"] = [{"id": "loop", "nodes": ["l", "inert"]}]
    code, out, _ = run(capsys, "diagnose", write(tmp_path, document), "--json")
    assert code == 0
    payload = json.loads(out)
    assert payload["contradictions"] == [
        {
            "nogood": "loop",
            "nodes": ["inert", "l"],
            "text": "",
            "active": False,
            "conflicts": [],
            "conflicts_complete": True,
            "diagnosable": True,
        }
    ]
    assert payload["diagnoses"] == []
    code, out, _ = run(capsys, "diagnose", write(tmp_path, document))
    assert code == 0 and "none active" in out


def test_premise_contradiction_is_reported_as_undiagnosable(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    document = {
        "nodes": [{"id": "p", "kind": "claim"}, {"id": "q", "kind": "claim"}],
        "justifications": [{"claim": "p", "antecedents": []}, {"claim": "q", "antecedents": []}],
        "nogoods": [{"id": "n", "nodes": ["p", "q"]}],
    }
    code, out, _ = run(capsys, "diagnose", write(tmp_path, document), "--json")
    assert code == 1
    payload = json.loads(out)
    assert payload["contradictions"][0]["conflicts"] == [[]]
    assert payload["contradictions"][0]["diagnosable"] is False
    assert payload["undiagnosable"] == ["n"] and payload["diagnoses"] == []
    code, out, _ = run(capsys, "diagnose", write(tmp_path, document))
    assert code == 1 and "no diagnosis over evidence" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--max-diagnoses", "-1"], "must be >= 0"),
        (["--max-diagnoses", "x"], "expected a whole number"),
    ],
)
def test_bad_options_exit_two(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["diagnose", str(EXAMPLE), *argv])
    assert raised.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_bad_nogood_exits_two(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    document = json.loads(EXAMPLE.read_text())
    document["nogoods"] = [{"id": "n", "nodes": ["effective", "ghost"]}]
    path = write(tmp_path, document)
    code, out, err = run(capsys, "diagnose", path)
    assert code == 2 and out == ""
    assert err == f"jtms: error: {path}: node 'ghost': unknown node 'ghost' in nogood 'n'\n"


def test_help_has_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["diagnose", "--help"])
    assert "jtms diagnose examples/contradiction.json" in capsys.readouterr().out


def test_every_memory_command_defaults_to_jtms_db(tmp_path, monkeypatch, capsys):
    """One ``--db`` default for every command: ``$JTMS_DB`` (add-nogood once ignored it, and
    ``diagnose --db`` / ``check --db`` had none)."""
    from jtms.cli import main

    location = str(tmp_path / "elsewhere.db")
    monkeypatch.setenv("JTMS_DB", location)
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert main(["add-evidence", "e1"]) == 0
    assert main(["add-nogood", "n1", "--nodes", "e1"]) == 0
    assert main(["diagnose", "--db", "--json"]) == 1  # the nogood is active
    assert main(["check", "--db", "--json"]) == 0
    assert not (tmp_path / "jtms.db").exists()
    capsys.readouterr()
    assert main(["memories", "--json"]) == 0
    assert location in capsys.readouterr().out
