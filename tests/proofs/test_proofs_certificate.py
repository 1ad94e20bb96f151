"""DRUP certificates from CaDiCaL, replayed by independent checkers (dratify, drup)."""

from __future__ import annotations

import pytest
from pysat.solvers import Solver

from proofs.certificate import certify, check, dimacs
from proofs.cnf_encoding import encode

dratify = pytest.importorskip("dratify")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["boundary", "refined", "inclusion", "one_item"])
@pytest.mark.parametrize("symmetry", [False, True])
def test_certificate_checked_by_dratify(name, symmetry, tmp_path):
    result = certify(name, 5, "dratify", symmetry=symmetry, directory=tmp_path)
    assert result.result == "UNSAT" and result.ok
    assert result.certificate == "DRUP checked by dratify"
    stem = f"{name}-n5{'-sym' if symmetry else ''}"
    assert (tmp_path / f"{stem}.cnf").read_text().startswith("p cnf ")
    assert (tmp_path / f"{stem}.drup").read_text().rstrip().endswith("0")


def test_certificate_checked_by_the_verified_drup_checker():
    pytest.importorskip("drup")
    assert certify("boundary", 3, "drup").result == "UNSAT"


def _proof(name: str, n: int) -> tuple[str, list[str]]:
    e = encode(name, n)
    with Solver(name="cadical195", bootstrap_with=e.clauses, with_proof=True) as solver:
        assert not solver.solve()
        return dimacs(e.nvars, e.clauses), solver.get_proof()


@pytest.mark.parametrize("checker", ["dratify", pytest.param("drup", marks=pytest.mark.slow)])
def test_checkers_reject_broken_certificates(checker):
    pytest.importorskip(checker)
    e = encode("boundary", 4)
    with Solver(name="cadical195", bootstrap_with=e.clauses, with_proof=True) as solver:
        assert not solver.solve()
        proof = "\n".join(solver.get_proof()) + "\n"
    assert check(dimacs(e.nvars, e.clauses), proof, checker).valid
    # without its lemmas the empty clause does not follow by unit propagation
    assert not check(dimacs(e.nvars, e.clauses), "0\n", checker).valid
    # the same proof against a satisfiable weakening (monotonicity of f(0) dropped) must fail
    weaker = [c for c in e.clauses if c != [-1, 2]]
    assert len(weaker) == len(e.clauses) - 1
    with Solver(name="cadical195", bootstrap_with=weaker) as solver:
        assert solver.solve()
    assert not check(dimacs(e.nvars, weaker), proof, checker).valid


@pytest.mark.parametrize("checker", ["dratify", "drup"])
def test_a_satisfiable_formula_has_no_valid_refutation(checker):
    pytest.importorskip(checker)
    e = encode("boundary~at_most_two", 3)
    formula = dimacs(e.nvars, e.clauses)
    assert not check(formula, "0\n", checker).valid
