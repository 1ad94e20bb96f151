"""The tables of docs/enumerations.md a test can afford, pinned (issue 60): the doc is what
benchmarks/enumerations_doc.py makes of the stored JSON, and the stored JSON is what
`jtms enumerate` gives now (timings and provenance aside)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from benchmarks import enumerations_doc
from jtms.cli import main


def _pinned(value: Any) -> Any:
    """``value`` without its timings and provenance (what may differ between runs)."""
    if isinstance(value, dict):
        return {
            k: _pinned(v)
            for k, v in value.items()
            if k not in enumerations_doc.TIMINGS and k not in ("provenance", "engine")
        }
    if isinstance(value, list):
        return [_pinned(v) for v in value]
    return value


def _fresh(capsys, *argv: str) -> dict[str, Any]:
    assert main(["enumerate", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_doc_is_generated_from_the_stored_outputs():
    doc = enumerations_doc.DOC.read_text()
    assert enumerations_doc.spliced(doc, enumerations_doc.generated()) == doc, (
        "docs/enumerations.md is stale: run python benchmarks/enumerations_doc.py"
    )
    assert enumerations_doc.main(["--check"]) == 0
    for path in [enumerations_doc.FLAT, *enumerations_doc.GRAPHS, *enumerations_doc.COUNTING]:
        manifest = json.loads(path.with_suffix(".manifest.json").read_text())
        data = path.read_bytes()
        assert manifest["stdout"]["sha256"] == hashlib.sha256(data).hexdigest(), path
        assert manifest["exit_code"] == 0


def test_stored_flat_universes_are_what_the_command_gives(capsys):
    stored = json.loads(enumerations_doc.FLAT.read_text())
    fresh = _fresh(capsys, "--max-n", "6")
    assert _pinned(fresh) == _pinned(stored)
    assert [r["monotone_functions"] for r in stored["results"]] == [
        2,
        3,
        6,
        20,
        168,
        7581,
        7828354,
    ]


@pytest.mark.slow
@pytest.mark.parametrize("path", enumerations_doc.RECOMPUTED, ids=lambda p: p.stem)
def test_stored_graph_families_are_what_the_command_gives(capsys, path):
    # (3, 3, 3): about 3 s; (2, 2, 16): about 9 s
    stored = json.loads(path.read_text())
    f = stored["graphs"]["family"]
    fresh = _fresh(
        capsys,
        "--max-n",
        "0",
        "--graphs",
        "--graph-evidence",
        str(f["evidence"]),
        "--graph-claims",
        str(f["claims"]),
        "--graph-justifications",
        str(f["max_justifications"]),
    )
    assert _pinned(fresh) == _pinned(stored)
