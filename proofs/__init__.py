"""Proofs of the justification-boundary theorem (DESIGN.md section 1, issue 4).

- :mod:`proofs.statements`  the bounded statements and their mutants, by name
- :mod:`proofs.cnf_encoding` CNF (Tseitin + sequential counter) for CaDiCaL via python-sat
- :mod:`proofs.z3_bounded`   an independent z3 encoding of the same bounded statements
- :mod:`proofs.symmetry`     lex-leader symmetry breaking on the truth table
- :mod:`proofs.bounded`      solve one statement for one n with one solver, time it
- :mod:`proofs.certificate`  DRUP proofs from CaDiCaL, checked by independent checkers
- :mod:`proofs.general`      first-order z3 proofs for every finite universe
- :mod:`proofs.countermodel` decode a SAT answer into a readable support structure
- :mod:`proofs.results`      typed results (:class:`ProofResult`, :class:`Countermodel`)

Imports :mod:`theory` only (never :mod:`jtms`).
"""
