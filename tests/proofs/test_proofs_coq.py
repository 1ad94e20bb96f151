"""The Coq development (proofs/coq) compiles with coqc and every main theorem's assumptions
are audited with Print Assumptions; planted cheats are caught."""

from __future__ import annotations

import os
import shutil
import warnings
from pathlib import Path

import pytest

from proofs import coq_check

pytestmark = pytest.mark.coq

COQ_MISSING = (
    "coqc is not installed: the Coq proofs (proofs/coq) were NOT checked "
    "(apt-get install -y coq, then python3 -m pytest tests/proofs/test_proofs_coq.py)"
)

if shutil.which("coqc") is None:
    if os.environ.get("CI"):  # .ci/run installs Debian's coq: missing there is a failure
        pytest.fail(COQ_MISSING, pytrace=False)
    # visible, not silent: a warning in the warnings summary, the skip reason under -ra (the
    # project's default addopts) and a closing line from conftest's terminal summary
    warnings.warn(COQ_MISSING, pytest.PytestWarning, stacklevel=1)
    pytest.skip(COQ_MISSING, allow_module_level=True)


def test_every_main_theorem_is_checked_with_only_allowed_axioms():
    checks = coq_check.check()
    assert {c.name for c in checks} == set(coq_check.THEOREMS)
    bad = [(c.name, sorted(c.axioms)) for c in checks if not c.ok]
    assert not bad
    # all but the graph link are axiom-free
    assert {c.name for c in checks if c.axioms} == {
        "minimal_justifications_are_ancestors",
        "graph_influence_safe",
        "graph_audit_safe",
        "graph_audit_safe_union",
        "graph_counting_safe",
        "witness_loop",
        "counting_safe_acyclic",
    }
    assert all(c.type_ok for c in checks)


def _planted(monkeypatch, tmp_path: Path, stem: str, old: str, new: str) -> None:
    for source in coq_check.COQ_DIR.glob("*.v"):
        shutil.copy(source, tmp_path / source.name)
    path = tmp_path / f"{stem}.v"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    monkeypatch.setattr(coq_check, "COQ_DIR", tmp_path)


def test_planted_admitted_is_refused(monkeypatch, tmp_path):
    _planted(
        monkeypatch,
        tmp_path,
        "Symmetry",
        "  exact (Hind (rank t) t eq_refl (orbit_refl t) Ht).\nQed.",
        "Admitted.",
    )
    with pytest.raises(RuntimeError, match="Admitted"):
        coq_check.check()


def test_planted_classical_step_in_an_axiom_free_theorem_is_caught(monkeypatch, tmp_path):
    _planted(
        monkeypatch,
        tmp_path,
        "Graph",
        "Proof. intros X Y c HXY. apply active_mono.",
        "Proof. pose proof (classic True) as Hc. intros X Y c HXY. apply active_mono.",
    )
    checks = {c.name: c for c in coq_check.check()}
    assert not checks["support_monotone"].ok and checks["support_monotone"].axioms == {"classic"}


def test_a_broken_proof_fails_to_compile(monkeypatch, tmp_path):
    _planted(monkeypatch, tmp_path, "Boundary", "apply HMR, minus_spec in HxM. tauto.", "tauto.")
    with pytest.raises(RuntimeError, match="coqc"):
        coq_check.check()


def test_parse_assumptions():
    output = (
        "==== a\nClosed under the global context\n==== b\nAxioms:\n"
        "Coq.Logic.Classical_Prop.classic : forall P : Prop, P \\/ ~ P\n"
    )
    assert coq_check.parse_assumptions(output) == {"a": frozenset(), "b": frozenset({"classic"})}


def test_planted_classical_step_in_graph_boundary_is_caught(monkeypatch, tmp_path):
    _planted(
        monkeypatch,
        tmp_path,
        "GraphBoundary",
        "Proof. intros E c. apply boundary.",
        "Proof. pose proof (Coq.Logic.Classical_Prop.classic True) as Hc. intros E c. apply boundary.",
    )
    checks = {c.name: c for c in coq_check.check()}
    assert not checks["graph_boundary"].ok and checks["graph_boundary"].axioms == {"classic"}


def test_planted_weaker_graph_statement_is_caught(monkeypatch, tmp_path):
    """Theorem 1 for graphs weakened to one direction still compiles; its statement check fails."""
    _planted(
        monkeypatch,
        tmp_path,
        "GraphBoundary",
        "  (agree E (support_b c) (inU E (support_b c)) <-> unique E (support_b c)).\n"
        "Proof. intros E c. apply boundary. apply graph_support_monotone. Qed.",
        "  (unique E (support_b c) -> agree E (support_b c) (inU E (support_b c))).\n"
        "Proof. intros E c H. apply boundary; [apply graph_support_monotone|exact H]. Qed.",
    )
    checks = {c.name: c for c in coq_check.check()}
    assert not checks["graph_boundary"].ok and not checks["graph_boundary"].type_ok
    assert checks["graph_boundary"].axioms == frozenset()


def test_planted_broken_saturation_fails_to_compile(monkeypatch, tmp_path):
    """A saturation that stops after one round is no longer the least fixpoint: the link
    support_b_spec no longer compiles."""
    _planted(
        monkeypatch,
        tmp_path,
        "GraphBoundary",
        "Definition closure (X : list nat) : list nat := saturate (length js) (filter ev X) js.",
        "Definition closure (X : list nat) : list nat := saturate 1 (filter ev X) js.",
    )
    with pytest.raises(RuntimeError, match="coqc"):
        coq_check.check()


def test_planted_classical_step_in_a_claim_audit_lemma_is_caught(monkeypatch, tmp_path):
    _planted(
        monkeypatch,
        tmp_path,
        "GraphBoundary",
        "  intros R R' HRR' n H. induction H as [e He HnR|c ants Hin HnR Hants IH].",
        "  pose proof (classic True) as Hc.\n"
        "  intros R R' HRR' n H. induction H as [e He HnR|c ants Hin HnR Hants IH].",
    )
    checks = {c.name: c for c in coq_check.check()}
    assert not checks["alive_antimono"].ok and checks["alive_antimono"].axioms == {"classic"}
    assert checks["graph_audit_safe"].axioms == {"classic"}


def test_planted_witness_without_the_exact_condition_fails_to_compile(monkeypatch, tmp_path):
    """A witness whose members need not be retired by exact revision makes Theorem 2 false
    (an alive claim with its evidence is such an L): its proof no longer compiles."""
    _planted(
        monkeypatch,
        tmp_path,
        "Counting",
        "  forall n, L n -> alive [] n /\\ ~ In n R /\\ ~ alive R n /\\",
        "  forall n, L n -> alive [] n /\\ ~ In n R /\\ True /\\",
    )
    with pytest.raises(RuntimeError, match="coqc"):
        coq_check.check()


def test_planted_weaker_counting_statement_is_caught(monkeypatch, tmp_path):
    """Theorem 2 cut to one direction (the one its corollary uses) still compiles; its
    statement check fails."""
    _planted(
        monkeypatch,
        tmp_path,
        "Counting",
        "  (counting_safe D c <-> ~ exists R L, incl R D /\\ witness R L /\\ L c).\nProof.\n"
        "  intros D c _. split.",
        "  ((~ exists R L, incl R D /\\ witness R L /\\ L c) -> counting_safe D c).\nProof.\n"
        "  intros D c _. assert (H : counting_safe D c <-> ~ exists R L, incl R D /\\ "
        "witness R L /\\ L c); [|exact (proj2 H)]. split.",
    )
    checks = {c.name: c for c in coq_check.check()}
    assert not checks["graph_counting_safe"].ok and not checks["graph_counting_safe"].type_ok
    assert checks["counting_safe_acyclic"].ok


def test_planted_corollary_for_c_alone_fails_to_compile(monkeypatch, tmp_path):
    """The corollary with only c off cycles (its ancestors' loops allowed) is false
    (c <- m; m <- n; n <- m; m <- e, audit {e}): its proof no longer compiles."""
    _planted(
        monkeypatch,
        tmp_path,
        "Counting",
        "  (forall x, (x = c \\/ ancestor js x c) -> ~ ancestor js x x) -> counting_safe D c.",
        "  (forall x, x = c -> ~ ancestor js x x) -> counting_safe D c.",
    )
    with pytest.raises(RuntimeError, match="coqc"):
        coq_check.check()
