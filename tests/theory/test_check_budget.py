"""Issue 59, the checker: ``jtms check --time-limit`` gives every verdict and says what it
left undecided, a long check shows its progress, and a violation whose item reaches the
claim only through a support loop is of kind ``loop_influence``. The graphs are transitive
closures grounded by clingo (benchmarks/bench_karate.py), a slice of karate here."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings

from benchmarks.bench_karate import edges, ground_closure
from jtms.cli import main
from jtms.cli.progress import progress_bar
from tests.cli_helpers import refused
from theory import SupportStructure, check_structure
from theory.safety.check import (
    ALTERNATIVE_SUPPORT,
    LOOP_INFLUENCE,
    REDUNDANT_INFLUENCE,
    UNDECIDED,
    stream_check,
)
from theory.testing import strategies as jst
from theory.testing.reference import brute_force_minimal_justifications


@pytest.fixture(scope="module")
def karate_slice(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("karate") / "closure.json"
    path.write_text(json.dumps(ground_closure(edges("karate", nodes=10))))
    return path


@pytest.mark.slow
def test_the_slice_is_the_grounded_closure(karate_slice):
    document = json.loads(karate_slice.read_text())
    pairs = edges("karate", nodes=10)
    kinds = [n["kind"] for n in document["nodes"]]
    assert kinds.count("evidence") == len(pairs) == 36
    assert kinds.count("claim") == 100  # path(X,Y) for every pair of the 10 connected members
    # one justification per edge fact and one per (path(X,Z), edge(Z,Y)) rule instance
    assert len(document["justifications"]) == len(pairs) + 10 * len(pairs)


def check_json(capsys, *argv: str) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["check", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_time_limit_gives_every_verdict_and_marks_what_it_left(karate_slice, capsys):
    code, full = check_json(capsys, str(karate_slice))
    assert code == 1 and "complete" not in full  # no limit: the payload as before
    code, cut = check_json(capsys, str(karate_slice), "--time-limit", "1e-9")
    assert code == 1 and cut["complete"] is False and cut["time_limit"] == 1e-9
    assert cut["undecided_claims"] == cut["counts"]["unsafe"] == 100
    verdicts = [
        (c["id"], c["influence_safe"], [v["audit"] for v in c["violations"]]) for c in cut["claims"]
    ]
    assert verdicts == [
        (c["id"], c["influence_safe"], [v["audit"] for v in c["violations"]])
        for c in full["claims"]
    ]
    for claim in cut["claims"]:
        assert claim["kinds_complete"] is False
        assert {v["kind"] for v in claim["violations"]} == {UNDECIDED}
    code, ample = check_json(capsys, str(karate_slice), "--time-limit", "600")
    assert ample["complete"] is True and ample["undecided_claims"] == 0
    assert ample["claims"] == full["claims"]


def test_time_limit_in_the_table_and_its_refusals(karate_slice, capsys):
    capsys.readouterr()
    assert main(["check", str(karate_slice), "--time-limit", "1e-9"]) == 1
    assert "--time-limit 1e-09 s reached: the kinds of 100 unsafe claim(s)" in " ".join(
        capsys.readouterr().out.split()
    )
    for bad in ("0", "-1", "soon", "inf"):
        refused(capsys, ["check", str(karate_slice), "--time-limit", bad], "--time-limit")
    refused(capsys, ["check", str(karate_slice), "--summary", "--time-limit", "5"], "--summary")


def test_the_stream_counts_the_claims_the_deadline_cut():
    g = SupportStructure.build(["a", "b"], ["c", "d"], [("c", ["a"]), ("c", ["b"]), ("d", ["c"])])
    run = stream_check(g, deadline=0.0)  # long past
    reports = list(run)
    assert [r.influence_safe for r in reports] == [False, False]
    assert run.undecided == [2]
    assert all(
        v.kind == UNDECIDED and v.surviving_justification is None
        for r in reports
        for v in r.violations
    )


def test_loop_influence_names_an_item_that_only_a_loop_carries():
    looped = SupportStructure.build(
        ["a", "b"], ["c", "d"], [("c", ["a"]), ("c", ["d"]), ("d", ["c", "b"])]
    )
    (violation,) = check_structure(looped, ["c"]).claims[0].violations
    assert violation.kind == LOOP_INFLUENCE and violation.audit == {"b"}
    redundant = SupportStructure.build(["a", "b"], ["c"], [("c", ["a"]), ("c", ["a", "b"])])
    (violation,) = check_structure(redundant).claims[0].violations
    assert violation.kind == REDUNDANT_INFLUENCE
    self_loop = SupportStructure.build(["a", "b"], ["c"], [("c", ["a"]), ("c", ["c", "b"])])
    (violation,) = check_structure(self_loop).claims[0].violations
    assert violation.kind == LOOP_INFLUENCE


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(jst.support_structures(cycles=True, max_evidence=4, max_claims=6, redundant=True))
def test_every_kind_agrees_with_the_minimal_justifications(structure):
    # loop_influence and redundant_influence: in no minimal justification; alternative: in one
    for claim in check_structure(structure, max_listed=None).claims:
        if not claim.violations:
            continue
        relevant = frozenset().union(*brute_force_minimal_justifications(structure, claim.id))
        for violation in claim.violations:
            (item,) = violation.audit
            assert (violation.kind == ALTERNATIVE_SUPPORT) == (item in relevant), violation
            assert violation.kind in (ALTERNATIVE_SUPPORT, REDUNDANT_INFLUENCE, LOOP_INFLUENCE)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("delay, shown", [(0.0, True), (60.0, False)])
def test_progress_appears_only_after_its_delay(monkeypatch, delay, shown):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with progress_bar("checking", 3, delay=delay) as update:
        for k in range(1, 4):
            update(k)
    assert ("checking" in terminal.getvalue()) == shown


def test_each_unsafe_claim_gets_an_even_share_of_the_time_left():
    import time

    from theory.safety.check import _share

    now = time.monotonic()
    assert _share(now + 10.0, 5) - now == pytest.approx(2.0, abs=0.5)
    assert _share(now + 10.0, 0) - now == pytest.approx(10.0, abs=0.5)
    assert _share(now - 5.0, 3) <= time.monotonic()  # past the deadline: nothing left


def test_loop_routes_are_solved_only_when_a_kind_is_no_label_lookup(monkeypatch):
    from theory.safety import check

    solved: list[int] = []
    real = check.strongly_connected_components

    def counted(*args, **kwargs):
        solved.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(check, "strongly_connected_components", counted)
    either = SupportStructure.build(["a", "b"], ["c"], [("c", ["a"]), ("c", ["b"])])
    kinds = [v.kind for v in check_structure(either).claims[0].violations]
    assert kinds == [ALTERNATIVE_SUPPORT, ALTERNATIVE_SUPPORT] and solved == []
    looped = SupportStructure.build(
        ["a", "b"], ["c", "d"], [("c", ["a"]), ("c", ["d"]), ("d", ["c", "b"])]
    )
    (violation,) = check_structure(looped, ["c"]).claims[0].violations
    assert violation.kind == LOOP_INFLUENCE and solved == [1]
