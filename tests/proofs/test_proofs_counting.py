"""Counted encodings: the formula that is solved, with only its final assertion removed, has
exactly the expected number of models (brute force over all monotone functions), for both
bounded encodings, every statement and n <= 5; planted over-restrictions are caught."""

from __future__ import annotations

import pytest
import z3

import proofs.cnf_encoding as cnf_encoding
import proofs.z3_bounded as z3_bounded
from proofs.bounded import solve
from proofs.counting import check_counts, cnf_counts, expected_counts, monotone_tables, z3_counts
from proofs.statements import PROVED

pytestmark = pytest.mark.slow

DEDEKIND = {1: 3, 2: 6, 3: 20, 4: 168, 5: 7581}
NAMES = [s.name for s in PROVED]


@pytest.mark.parametrize("n", range(1, 6))
def test_brute_force_expectations(n):
    assert sum(1 for _ in monotone_tables(n)) == DEDEKIND[n]
    for name in NAMES:
        counts = expected_counts(name, n)
        assert counts["agree"] == 2**n and counts["negation"] == 0
        if name == "refined":  # pairs (f, A ⊇ U): every A ⊇ S for the 2^n conjunctions S
            assert counts["unique"] == 3**n and counts["body"] > DEDEKIND[n] - 1
        else:
            assert counts["body"] == DEDEKIND[n] - 1 and counts["unique"] == 2**n


@pytest.mark.parametrize("n", range(1, 6))
@pytest.mark.parametrize("name", NAMES)
def test_both_encodings_have_the_expected_model_counts(name, n):
    for check in check_counts(n, [name]):
        assert check.ok, (check.encoding, check.counted, check.expected)


def _restrict_cnf(monkeypatch, restriction):
    """Plant a bug in the CNF: every statement's shared definitions get an extra constraint."""
    original = cnf_encoding._Support.__init__

    def planted(self, b, n):
        original(self, b, n)
        restriction(self, b, n)

    monkeypatch.setattr(cnf_encoding._Support, "__init__", planted)


def _restrict_z3(monkeypatch, restriction):
    original = z3_bounded.Z3Encoding.__init__

    def planted(self, name, n, symmetry=False):
        original(self, name, n, symmetry)
        self.body = self.body + restriction(self, n)

    monkeypatch.setattr(z3_bounded.Z3Encoding, "__init__", planted)


def _mismatches(encoding: str, n: int) -> list[str]:
    bad = []
    for name in NAMES:
        counted = (
            cnf_counts(cnf_encoding.encode(name, n))
            if encoding == "cnf"
            else z3_counts(z3_bounded.Z3Encoding(name, n))
        )
        if counted != expected_counts(name, n):
            bad.append(name)
    return bad


def test_planted_at_most_two_minimal_points_in_the_cnf_is_caught(monkeypatch):
    _restrict_cnf(monkeypatch, lambda s, b, n: b.add([-s.counter(3)[2]]))
    # the over-restricted encoding still "proves" Theorem 1 (UNSAT), for the wrong reason ...
    assert solve("boundary", 4, "cadical").result == "UNSAT"
    # ... but it has lost models, and every statement's count says so
    assert _mismatches("cnf", 4) == NAMES


def test_planted_exclusion_of_the_constant_true_function_in_z3_is_caught(monkeypatch):
    _restrict_z3(monkeypatch, lambda e, n: [z3.Not(e.bits[0])])  # f({}) = 1 excluded
    assert solve("boundary", 4, "z3").result == "UNSAT"
    assert _mismatches("z3", 4) == NAMES


@pytest.mark.parametrize("encoding", ["cnf", "z3"])
def test_planted_exclusion_of_one_item_justifications_is_caught(monkeypatch, encoding):
    if encoding == "cnf":
        _restrict_cnf(monkeypatch, lambda s, b, n: [b.add([-s.m[1 << i]]) for i in range(n)])
    else:
        _restrict_z3(monkeypatch, lambda e, n: [z3.Not(e.minimal[1 << i]) for i in range(n)])
    assert solve("one_item", 3, "cadical" if encoding == "cnf" else "z3").result == "UNSAT"
    assert _mismatches(encoding, 3) == NAMES


def test_an_undetermined_auxiliary_is_reported(monkeypatch):
    """A Tseitin gate written in one direction only leaves the auxiliary free on some
    tables: the full count then exceeds the projected one, which the counter refuses."""

    def one_sided_or(self, lits):
        if len(lits) < 2:
            return lits[0] if lits else -self.true()
        v = self.new()
        self.add([-v] + lits)  # v -> OR(lits) only
        return v

    monkeypatch.setattr(cnf_encoding.Builder, "or_", one_sided_or)
    with pytest.raises(AssertionError, match="undetermined"):
        cnf_counts(cnf_encoding.encode("boundary", 3))
