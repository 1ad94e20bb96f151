"""The checker lists a claim's minimal justifications up to its cap and no further: a claim
with millions of them costs what its first ones cost, with kinds and survivors still exact."""

import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theory import SupportStructure
from theory.model.index import index_of
from theory.safety.check import ALTERNATIVE_SUPPORT, REDUNDANT_INFLUENCE, check_structure
from theory.solver import justifications as justifications_module
from theory.solver.justifications import listing
from theory.solver.options import SolverOptions
from theory.testing import strategies as jst
from theory.testing.reference import brute_force_minimal_justifications


def chain(length: int) -> SupportStructure:
    """c1 <- e1 | f1; c(i) <- c(i-1), e(i) | c(i-1), f(i): 2**length minimal justifications
    of the last claim; r lies only in a justification that another one contains, so it is an
    ancestor of the last claim in no minimal justification (a redundant influence)."""
    evidence = [f"{k}{i}" for i in range(1, length + 1) for k in "ef"] + ["r"]
    claims = [f"c{i}" for i in range(1, length + 1)]
    pairs = [("c1", ["e1"]), ("c1", ["f1"])]
    for i in range(2, length + 1):
        pairs += [(f"c{i}", [f"c{i - 1}", f"e{i}"]), (f"c{i}", [f"c{i - 1}", f"f{i}"])]
    pairs.append((f"c{length}", [f"c{length - 1}", f"e{length}", "r"]))
    return SupportStructure.build(evidence, claims, pairs)


@contextmanager
def _sat_listing() -> Iterator[None]:
    """The checker's listing by the SAT search (no label answer within its work budget)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(justifications_module, "DEFAULTS", SolverOptions(label_work=0))
        yield


@pytest.mark.timeout(60)  # listing all of them would run for hours
def test_a_claim_with_a_million_minimal_justifications_is_checked_at_once():
    structure = chain(20)  # 2**20 minimal justifications of c20
    with _sat_listing():
        started = time.perf_counter()
        (report,) = check_structure(structure, ["c20"], label_budget=0).claims
        seconds = time.perf_counter() - started
    assert seconds < 10, seconds  # about 0.05 s listing the first 65; all of them: hours
    assert not report.minimal_justifications_complete
    assert len(report.minimal_justifications) == 64
    for found in report.minimal_justifications:  # each one minimal: one of e(i), f(i) each
        assert len(found) == 20
        assert all(len(found & {f"e{i}", f"f{i}"}) == 1 for i in range(1, 21))
    kinds = {next(iter(v.audit)): v.kind for v in report.violations}
    assert kinds == {
        **{f"{k}{i}": ALTERNATIVE_SUPPORT for i in range(1, 21) for k in "ef"},
        "r": REDUNDANT_INFLUENCE,
    }
    for violation in report.violations:
        survivor = violation.surviving_justification
        assert survivor is not None and not survivor & violation.audit and len(survivor) == 20


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(
    jst.support_structures(cycles=True, max_evidence=6, max_claims=7),
    st.integers(min_value=1, max_value=5),
)
def test_the_listing_stops_at_its_limit_with_minimal_sets(structure, limit):
    index = index_of(structure)
    with _sat_listing():
        for claim in sorted(structure.claims):
            minimal = brute_force_minimal_justifications(structure, claim)
            found, complete = listing(index, index.number[claim], limit)
            assert found <= minimal
            # complete: every set (a claim with the empty set, always); else exactly limit
            assert found == minimal if complete else len(found) == limit
            assert complete or len(minimal) >= limit
            assert listing(index, index.number[claim], None) == (minimal, True)


@settings(max_examples=100, deadline=None)
@given(
    jst.support_structures(cycles=True, max_evidence=6, max_claims=7),
    st.integers(min_value=1, max_value=3),
)
def test_capped_listing_keeps_kinds_and_survivors_exact(structure, cap):
    full = check_structure(structure)
    with _sat_listing():
        capped = check_structure(structure, max_listed=cap, label_budget=0)
    for a, b in zip(full.claims, capped.claims):
        assert (a.id, a.influence_safe) == (b.id, b.influence_safe)
        assert [(v.kind, v.audit) for v in a.violations] == [
            (v.kind, v.audit) for v in b.violations
        ]
        for v in b.violations:
            assert v.surviving_justification in a.minimal_justifications
            assert not v.surviving_justification & v.audit
        if b.active and not b.influence_safe:
            assert b.minimal_justifications <= a.minimal_justifications
            assert len(b.minimal_justifications) == min(cap, len(a.minimal_justifications))
            assert b.minimal_justifications_complete == (len(a.minimal_justifications) <= cap)


def test_items_past_the_listed_sets_get_their_kind_by_a_query():
    # c <- a | b | d | g, and c <- a, r (r redundant): four minimal justifications; a cap of 1
    # finds two, so two relevant items lie only in sets the listing never found
    structure = SupportStructure.build(
        ["a", "b", "d", "g", "r"],
        ["c"],
        [("c", ["a"]), ("c", ["b"]), ("c", ["d"]), ("c", ["g"]), ("c", ["a", "r"])],
    )
    with _sat_listing():
        (report,) = check_structure(structure, max_listed=1, label_budget=0).claims
    assert not report.minimal_justifications_complete
    assert len(report.minimal_justifications) == 1
    kinds = {next(iter(v.audit)): v.kind for v in report.violations}
    assert kinds == {
        "a": ALTERNATIVE_SUPPORT,
        "b": ALTERNATIVE_SUPPORT,
        "d": ALTERNATIVE_SUPPORT,
        "g": ALTERNATIVE_SUPPORT,
        "r": REDUNDANT_INFLUENCE,
    }


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(
    # two alternatives or more a claim: unsafe claims with more sets than the cap are common
    jst.support_structures(
        cycles=True, max_evidence=6, max_claims=7, min_alternatives=2, premises=False
    ),
    st.integers(min_value=1, max_value=2),
    st.integers(min_value=0, max_value=8),
)
def test_classify_gives_the_first_violations_their_kinds_and_the_rest_their_witnesses(
    structure, cap, quota
):
    """check_structure(classify=N): the reports equal the full check's until N violations
    are classified; after that a claim whose listing stops at the cap keeps its listing and
    its witness audits, with no kind and no survivor; nothing else changes."""
    with _sat_listing():
        full = check_structure(structure, max_listed=cap, label_budget=0)
        quick = check_structure(structure, max_listed=cap, label_budget=0, classify=quota)
    seen = 0
    for a, b in zip(full.claims, quick.claims, strict=True):
        assert (a.id, a.active, a.influence_safe) == (b.id, b.active, b.influence_safe)
        assert a.minimal_justifications == b.minimal_justifications
        assert a.minimal_justifications_complete == b.minimal_justifications_complete
        assert [v.audit for v in a.violations] == [v.audit for v in b.violations]
        if seen < quota or a.minimal_justifications_complete:
            assert a == b
        else:
            assert all(v.kind is None and v.surviving_justification is None for v in b.violations)
            assert not b.kinds_complete
        seen += len(a.violations)


@pytest.mark.slow
def test_the_check_table_classifies_only_what_it_shows(tmp_path):
    """``jtms check FILE`` (tables) prints the same text whether or not the violations past
    the first table's rows are classified; on the regression file (a 288-claim agent memory
    whose claims have thousands of minimal justifications; found by a stress test) the
    relevance queries of the claims it never shows took 38-46 s, the tables now take a few."""
    import io
    import subprocess
    import sys
    from contextlib import redirect_stdout
    from pathlib import Path

    from jtms.cli.commands.theorycmds import SUMMARY_ROWS, print_report
    from theory.io.graphfile import load_graph

    path = Path(__file__).parents[1] / "cases" / "check_many_justifications.json"
    structure = load_graph(path)
    claims = sorted(structure.claims)[:40]  # the first forty by id: enough violations
    texts = []
    for classify in (None, SUMMARY_ROWS):
        report = check_structure(structure, claims, classify=classify)
        out = io.StringIO()
        with redirect_stdout(out):
            print_report(report, "t")
        texts.append(out.getvalue())
    assert texts[0] == texts[1]
    assert sum(len(c.violations) for c in report.claims) > SUMMARY_ROWS
    assert any(not c.kinds_complete for c in report.claims)  # something was left unclassified
    import resource

    def children_cpu() -> float:  # CPU seconds of waited children: a loaded machine's wall
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # time is not the command's
        return usage.ru_utime + usage.ru_stime

    started = children_cpu()
    done = subprocess.run(
        [sys.executable, "-m", "jtms", "check", str(path)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 1, done.stderr
    assert children_cpu() - started < 20
