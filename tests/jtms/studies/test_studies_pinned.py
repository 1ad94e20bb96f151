"""Every figure of the studies pinned (issue 60): every column of every study at its default
seeds, the stored outputs in benchmarks/results/ and the generated docs/studies.md.

A change to any rule's figure (``exact``, ``none`` or ``influence``, every reader) fails
:func:`test_every_column_of_every_study_at_its_default_seeds`; the stored JSON must be what
the command gives (timings aside), and the doc what benchmarks/studies_doc.py makes of the
stored JSON. To change a figure on purpose: rerun the commands in benchmarks/studies_doc.py,
regenerate the doc, update PINNED below and say why in the CHANGELOG.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks import studies_doc
from jtms.cli import main
from jtms.studies import STUDIES, run_study

ROOT = Path(__file__).resolve().parents[3]

# `jtms study all --json --scale none` at each study's own seed, every column; the repair
# latencies are timings and are not pinned
PINNED: dict[str, dict[str, dict[str, int]]] = {
    "revisionpair": {
        "worlds_repaired_exactly": {"exact": 80, "none": 40, "influence": 40},
        "and_worlds_repaired": {"exact": 40, "none": 0, "influence": 40},
        "or_worlds_repaired": {"exact": 40, "none": 40, "influence": 0},
        "agrees_with_clingo": {"exact": 80, "none": 40, "influence": 40},
        "decisions_grounded.literal": {"exact": 80, "none": 17, "influence": 40},
        "decisions_grounded.careful": {"exact": 80, "none": 57, "influence": 40},
        "pairs_identical_but_grouping": {"exact": 40},
        "influence_cannot_distinguish": {"exact": 40},
    },
    "scimap": {
        "propagated_repaired": {"exact": 40, "none": 0, "influence": 40},
        "branches_preserved": {"exact": 20, "none": 20, "influence": 12},
        "agrees_with_clingo": {"exact": 20, "none": 0, "influence": 12},
        "grounded_answers.literal": {"exact": 140, "none": 84, "influence": 116},
        "answered_withdrawn.literal": {"exact": 40, "none": 0, "influence": 40},
        "cited_descendants.literal": {"exact": 0, "none": 41, "influence": 0},
        "grounded_answers.careful": {"exact": 140, "none": 124, "influence": 116},
        "answered_withdrawn.careful": {"exact": 40, "none": 40, "influence": 40},
        "cited_descendants.careful": {"exact": 0, "none": 0, "influence": 0},
        "contaminated_lines": {"exact": 0, "none": 88, "influence": 0},
    },
    "diagnosis": {
        "premise_identified": {"exact": 20},
        "repaired": {"exact": 20, "none": 0, "influence": 1},
        "agrees_with_clingo": {"exact": 20, "none": 0, "influence": 1},
        "grounded.literal": {"exact": 20, "none": 0, "influence": 1},
        "grounded.careful": {"exact": 20, "none": 11, "influence": 1},
    },
    "heterogeneous": {
        "cases_repaired_exactly": {"exact": 20, "none": 5, "influence": 7},
        "agrees_with_theory": {"exact": 20, "none": 5, "influence": 7},
        "agrees_with_clingo": {"exact": 20, "none": 5, "influence": 7},
        "engine_state_checked": {"exact": 20},
        "decisions_grounded.literal": {"exact": 20, "none": 3, "influence": 7},
        "decisions_grounded.careful": {"exact": 20, "none": 15, "influence": 7},
    },
}


def _figures(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """study -> endpoint -> values, timings left out (and the --scale rows, which only a run
    with --scale has)."""
    return {
        study["study"]: {
            e["key"]: e["values"]
            for e in study["endpoints"]
            if not studies_doc.is_timing(e["key"]) and not e["key"].startswith("scale_")
        }
        for study in document["studies"]
    }


def _without_timings(document: dict[str, Any]) -> Any:
    """The document with its provenance, seconds and latencies removed."""
    text = json.dumps({k: v for k, v in document.items() if k != "provenance"})
    value = json.loads(text)
    for study in value.get("studies", []) + value.get("sweep", []):
        study.pop("seconds", None)
        study.get("details", {}).pop("latencies_ms", None)
        study.get("details", {}).pop("scales", None)
        study["endpoints"] = [
            e
            for e in study.get("endpoints", [])
            if not studies_doc.is_timing(e["key"]) and not e["key"].startswith("scale_")
        ]
    return value


@pytest.mark.slow
def test_every_column_of_every_study_at_its_default_seeds():
    # about 4 s: the four studies at their own seeds, without the --scale memories
    figures = {
        name: {
            e.key: e.values for e in run_study(name).endpoints if not studies_doc.is_timing(e.key)
        }
        for name in STUDIES
    }
    assert figures == PINNED


def test_stored_outputs_are_the_pinned_figures_with_their_manifests():
    stored = json.loads(studies_doc.SINGLE.read_text())
    assert stored["ok"] and _figures(stored) == PINNED
    for name in ("studies", "studies_seeds10", "studies_sweep"):
        data = (studies_doc.RESULTS / f"{name}.json").read_bytes()
        manifest = json.loads((studies_doc.RESULTS / f"{name}.manifest.json").read_text())
        assert manifest["exit_code"] == 0
        assert manifest["stdout"] == {
            "sha256": hashlib.sha256(data).hexdigest(),
            "bytes": len(data),
        }, name
        assert manifest["provenance"] == json.loads(data)["provenance"]


def test_doc_is_generated_from_the_stored_outputs():
    doc = studies_doc.DOC.read_text()
    assert studies_doc.spliced(doc, studies_doc.generated()) == doc, (
        "docs/studies.md is not what benchmarks/studies_doc.py makes of "
        "benchmarks/results/studies*.json: run python benchmarks/studies_doc.py"
    )
    assert studies_doc.main(["--check"]) == 0
    # the table rows come from the JSON: a figure changed there shows in the doc
    stored = json.loads(studies_doc.SINGLE.read_text())
    stored["studies"][1]["endpoints"][3]["values"]["none"] += 1
    part = studies_doc.render(
        stored,
        json.loads(studies_doc.SEEDS.read_text()),
        json.loads(studies_doc.SWEEP.read_text()),
    )
    assert part != studies_doc.generated()


@pytest.mark.slow
def test_stored_seed_summary_is_what_the_command_gives(capsys):
    # about 40 s: `jtms study all --seeds 10 --scale none --json`, as stored
    assert main(["study", "all", "--seeds", "10", "--scale", "none", "--json"]) == 0
    fresh = json.loads(capsys.readouterr().out)
    stored = json.loads(studies_doc.SEEDS.read_text())
    assert _without_timings(fresh) == _without_timings(stored)
