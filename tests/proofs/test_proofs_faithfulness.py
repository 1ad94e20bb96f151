"""Every part of every bounded encoding (body, negated assertion, lex-leader constraints),
each on its own, at every n up to the certified bound; planted bugs that the model counts
miss (an over-restricted assertion, anything that only acts from n = 6 on, a strict
lex-leader) are caught."""

from __future__ import annotations

import pytest
import z3

import proofs.bounded as bounded
import proofs.cnf_encoding as cnf_encoding
import proofs.counting as counting
import proofs.faithfulness as faithfulness
import proofs.symmetry as symmetry
import proofs.symmetry_check as symmetry_check
import proofs.z3_bounded as z3_bounded
from proofs.faithfulness import CERTIFIED_MAX_N, EXHAUSTIVE_SIDES_N, check_parts, check_sides
from proofs.records import load, table
from proofs.statements import PROVED, STATEMENTS
from proofs.symmetry_check import check_emitted

NAMES = list(STATEMENTS)


def test_the_certified_bound_is_the_records_bound():
    """The checks below run up to the n the stored record certifies (docs/proofs.md)."""
    headline = table(load())
    assert f"for every n ≤ {CERTIFIED_MAX_N} without" in headline


@pytest.mark.parametrize(
    "n",
    [
        n if n < 3 else pytest.param(n, marks=pytest.mark.slow)
        for n in range(1, CERTIFIED_MAX_N + 1)
    ],
)
def test_every_part_of_every_encoding(n):
    bad = [
        c for name in NAMES for c in check_parts(name, n, count=24 if n <= 6 else 12) if not c.ok
    ]
    assert not bad, bad


@pytest.mark.parametrize(
    "n",
    [
        n if n < 6 else pytest.param(n, marks=pytest.mark.slow)
        for n in range(2, CERTIFIED_MAX_N + 1)
    ],
)
def test_emitted_lex_leader_keeps_every_sampled_orbit(n):
    # the lex-leader clauses are emitted after the body by the same call for every statement:
    # all of them at n = 6, Theorem 1 at every n
    names = [s.name for s in PROVED] if n == 6 else ["boundary"]
    bad = [
        c
        for name in names
        for c in [check_emitted(name, n, count=12 if name == "boundary" else 6)]
        if not c.ok
    ]
    assert not bad, bad


@pytest.mark.parametrize("n", range(1, 5))
def test_every_negated_assertion_is_the_statement_on_both_sides(n):
    # every active monotone function, each side of each statement (mutants too) set free;
    # z3 (milliseconds a check) up to n = 3 here, n = 4 in the slow test below
    bad = [c for name in NAMES for c in [check_sides(name, n)] if not c.ok]
    if n <= 3:
        bad += [c for name in NAMES for c in [check_sides(name, n, encoding="z3")] if not c.ok]
    assert not bad, bad


@pytest.mark.slow
@pytest.mark.parametrize("n", range(EXHAUSTIVE_SIDES_N - 1, CERTIFIED_MAX_N + 1))
def test_every_certified_negated_assertion_on_both_sides_up_to_the_bound(n):
    # CNF: all 7,581 monotone functions at n = 5 (about 25 s for the four statements),
    # sampled orbits above; z3: every function at n = 4, sampled orbits above
    names = [s.name for s in PROVED]
    checks = [check_sides(name, n, count=60) for name in names if n >= EXHAUSTIVE_SIDES_N]
    checks += [check_sides(name, n, count=20, encoding="z3") for name in names]
    bad = [c for c in checks if not c.ok]
    assert not bad, bad


# --- planted bugs -------------------------------------------------------------------------


def _wrap_encode(monkeypatch, change):
    """Plant ``change(encoding)`` into every CNF the proofs build (every module that holds
    ``encode``)."""
    original = cnf_encoding.encode

    def planted(name, n, symmetry=False):
        encoding = original(name, n, symmetry)
        change(encoding)
        return encoding

    for module in (cnf_encoding, faithfulness, bounded, counting):
        monkeypatch.setattr(module, "encode", planted)


def _failing(name, n, encoding, part):
    return [
        c
        for c in check_parts(name, n, count=24, encodings=[encoding])
        if c.part == part and not c.ok
    ]


@pytest.mark.slow
def test_planted_over_restriction_of_the_negated_assertion_is_caught(monkeypatch):
    # the assertion also demands f({e1}) = 1 (variable 2): Theorem 1 is still "proved" UNSAT
    # and every model count still matches (the assertion's count is 0 either way) ...
    _wrap_encode(monkeypatch, lambda e: e.assertion.append([2]))
    assert bounded.solve("boundary", 4, "cadical").result == "UNSAT"
    assert all(c.ok for c in counting.check_counts(4, ["boundary"]) if c.encoding == "cnf")
    # ... but the assertion now rejects tables its definition accepts
    assert _failing("boundary", 4, "cnf", "assertion")


@pytest.mark.slow
def test_planted_z3_assertion_restriction_from_n_6_on_is_caught(monkeypatch):
    original = z3_bounded.Z3Encoding.__init__

    def planted(self, name, n, symmetry=False):
        original(self, name, n, symmetry)
        if n >= 6:
            self.assertion = self.assertion + [z3.Not(self.bits[1])]

    monkeypatch.setattr(z3_bounded.Z3Encoding, "__init__", planted)
    assert all(c.ok for n in range(1, 6) for c in check_parts("one_item", n, encodings=["z3"]))
    assert bounded.solve("one_item", 6, "z3").result == "UNSAT"
    assert _failing("one_item", 6, "z3", "assertion")


@pytest.mark.slow
def test_planted_body_restriction_from_n_6_on_is_caught(monkeypatch):
    # no one-item justification from n = 6 on: the counts (n <= 5) cannot see it
    original = cnf_encoding._Support.__init__

    def planted(self, b, n):
        original(self, b, n)
        if n >= 6:
            for i in range(n):
                b.add([-self.m[1 << i]])

    monkeypatch.setattr(cnf_encoding._Support, "__init__", planted)
    assert counting.cnf_counts(cnf_encoding.encode("inclusion", 5)) == counting.expected_counts(
        "inclusion", 5
    )
    assert _failing("inclusion", 6, "cnf", "body")


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ["cnf", "z3"])
def test_planted_strict_lex_leader_from_n_6_on_is_caught(monkeypatch, encoding):
    """t <lex t∘(i j) strictly, from n = 6 on: the exhaustive orbit check (n = 4, 5) passes,
    the orbit leaders of functions invariant under a renaming are lost at n = 6."""
    if encoding == "cnf":
        original = symmetry.lex_leader

        def strict(builder, n, t, adjacent_only=False, variant="sound"):
            original(builder, n, t, adjacent_only, variant)
            if n >= 6:  # and the two tables differ on some swapped pair
                for i, j in symmetry.transpositions(n):
                    pairs = [
                        (t[x], t[symmetry._swap(x, i, j)])
                        for x in range(1 << n)
                        if x < symmetry._swap(x, i, j)
                    ]
                    diffs = [builder.new() for _ in pairs]
                    for d, (a, c) in zip(diffs, pairs):
                        builder.add([-d, a, c])
                        builder.add([-d, -a, -c])
                    builder.add(diffs)

        monkeypatch.setattr(symmetry, "lex_leader", strict)
    else:
        original_z3 = z3_bounded.lex_leader

        def strict_z3(bit, n, variant="sound"):
            facts = original_z3(bit, n, variant)
            if n >= 6:
                facts = [
                    z3.And(
                        f, z3.Or(*[b != bit[symmetry._swap(x, 0, 1)] for x, b in enumerate(bit)])
                    )
                    for f in facts
                ]
            return facts

        monkeypatch.setattr(z3_bounded, "lex_leader", strict_z3)
    assert symmetry_check.check_symmetry(5).ok
    assert (
        bounded.solve("boundary", 6, "cadical" if encoding == "cnf" else "z3", symmetry=True).result
        == "UNSAT"
    )
    result = check_emitted("boundary", 6)
    assert not result.ok and result.leaders_rejected


def _plant_at_most_two(monkeypatch, where):
    """The issue's planted proof bug: "at most two minimal points" (``[-s3]``, s3 the
    counter's "at least three") appended to the negated assertion or to the body of every
    boundary encoding, Theorem 1 and its mutant alike."""
    counters = []
    original_counter = cnf_encoding._Support.counter

    def counter(self, upto):
        made = original_counter(self, upto)
        counters.append(made)
        return made

    monkeypatch.setattr(cnf_encoding._Support, "counter", counter)

    def change(encoding):
        if encoding.statement.startswith("boundary"):
            s3 = counters[-1][2]
            (encoding.assertion if where == "assertion" else encoding.body).append([-s3])

    _wrap_encode(monkeypatch, change)


@pytest.mark.parametrize("where", ["assertion", "body"])
def test_planted_at_most_two_minimal_points_is_caught_in_assertion_and_body(monkeypatch, where):
    _plant_at_most_two(monkeypatch, where)
    # Theorem 1 is still proved UNSAT, its mutant still refuted SAT ...
    assert bounded.solve("boundary", 4, "cadical").result == "UNSAT"
    assert bounded.solve("boundary~at_most_two", 4, "cadical").result == "SAT"
    if where == "assertion":  # ... and the checks by table pass: no table meets it
        assert all(c.ok for c in check_parts("boundary", 4, encodings=["cnf"]))
    # ... but with a side set free the assertion rejects a function the statement accepts
    for n in (3, 4, 7):
        check = check_sides("boundary", n, count=40)
        assert not check.ok and check.mismatches[0][2:] == (True, False), n


def test_planted_at_most_two_minimal_points_in_the_z3_assertion_is_caught(monkeypatch):
    original = z3_bounded.Z3Encoding.__init__

    def planted(self, name, n, symmetry=False):
        original(self, name, n, symmetry)
        if name.startswith("boundary"):
            self.assertion = self.assertion + [z3.PbLe([(m, 1) for m in self.minimal], 2)]

    monkeypatch.setattr(z3_bounded.Z3Encoding, "__init__", planted)
    monkeypatch.setattr(faithfulness, "Z3Encoding", z3_bounded.Z3Encoding)
    assert bounded.solve("boundary", 4, "z3").result == "UNSAT"
    assert all(c.ok for c in check_parts("boundary", 4, encodings=["z3"]))
    for n in (3, 6):
        check = check_sides("boundary", n, count=20, encoding="z3")
        assert not check.ok and check.mismatches[0][2:] == (True, False), n
