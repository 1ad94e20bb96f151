"""Both bounded encodings agree with theory (minimal justifications, exact and influence
revision) on every quantity they define: every active monotone function for n <= 4, samples
up to the certified n; a planted z3 bug (influence over one minimal justification instead of
their union), which still proves Theorem 1, is caught."""

from __future__ import annotations

import pytest
import z3

import proofs.z3_bounded as z3_bounded
from proofs.bounded import solve
from proofs.faithfulness import CERTIFIED_MAX_N
from proofs.quantities import by_theory, check_quantities
from proofs.statements import PROVED

NAMES = [s.name for s in PROVED]


@pytest.mark.parametrize(
    "n",
    [
        n if n < 4 else pytest.param(n, marks=pytest.mark.slow)
        for n in range(1, CERTIFIED_MAX_N + 1)
    ],
)
def test_quantities_agree_with_theory(n):
    bad = [
        c
        for name in NAMES
        for c in check_quantities(name, n, exhaustive=n <= 4, count=6)
        if not c.ok
    ]
    assert not bad, bad


def test_theory_side_on_a_two_point_function():
    # f = e1 OR e2 on two items: U = {e1, e2}; the audit {e1} retires c by influence only
    values = by_theory((False, True, True, True), 2)
    assert values.union == 0b11 and not values.unique and not values.agree
    assert values.influence[0b01] and not values.exact[0b01] and values.exact[0b11]


@pytest.mark.slow
def test_planted_influence_over_one_minimal_justification_is_caught(monkeypatch):
    """z3's influence taken over the first minimal justification (lowest mask) instead of
    the union: Theorem 1 still comes back UNSAT (with two or more minimal justifications
    both sides of the equivalence are false), so only the quantity check sees it."""
    original = z3_bounded.Z3Encoding.__init__

    def planted(self, name, n, symmetry=False):
        original(self, name, n, symmetry)
        size = 1 << n
        first = [
            z3.And(self.minimal[x], *[z3.Not(self.minimal[y]) for y in range(x)])
            for x in range(size)
        ]
        member = [z3.Or(*[first[x] for x in range(size) if x >> i & 1]) for i in range(n)]
        self.influence = [
            z3.Or(*[member[i] for i in range(n) if r >> i & 1]) if r else z3.BoolVal(False)
            for r in range(size)
        ]
        self.agree = z3.And(*[e == m for e, m in zip(self.exact, self.influence)])
        self.assertion = [self.agree != self.unique]

    monkeypatch.setattr(z3_bounded.Z3Encoding, "__init__", planted)
    assert solve("boundary", 4, "z3").result == "UNSAT"
    (check,) = check_quantities("boundary", 4, exhaustive=True, encodings=["z3"])
    assert not check.ok and any("influence" in m[2] for m in check.mismatches)
