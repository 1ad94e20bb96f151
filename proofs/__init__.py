"""Proofs of the justification-boundary theorem (docs/design.md section 1, issue 4): its
support-function form (``boundary``), its graph form (``refined``, with the recorded ancestors),
and the claim-audit criterion (``audit_criterion``), bounded and general; the Coq development
(``proofs/coq``) names the theorem of each form (``boundary``, ``graph_influence_safe``,
``graph_audit_safe``); and of Theorem 2, the counting boundary, over graphs (Coq
``graph_counting_safe``).

- :mod:`proofs.statements`  the bounded statements and their mutants, by name
- :mod:`proofs.cnf_encoding` CNF (Tseitin + sequential counter) for CaDiCaL via python-sat
- :mod:`proofs.z3_bounded`   an independent z3 encoding of the same bounded statements
- :mod:`proofs.symmetry`     lex-leader symmetry breaking on the truth table
- :mod:`proofs.bounded`      solve one statement for one n with one solver, time it
- :mod:`proofs.certificate`  DRUP proofs from CaDiCaL, checked by independent checkers
- :mod:`proofs.general`      first-order z3 proofs for every finite universe
- :mod:`proofs.countermodel` decode a SAT answer into a readable support structure
- :mod:`proofs.results`      typed results (:class:`ProofResult`, :class:`Countermodel`)
- :mod:`proofs.graph_bounded` Theorem 2 (the counting boundary) bounded over every graph on
  n nodes, certified like the others
- :mod:`proofs.graph_general` Theorem 2 in first-order z3 over graphs (Node, Just, Set)

Imports :mod:`theory` only (never :mod:`jtms`).
"""

import importlib
from typing import Any

# The functions and results a user calls first; loaded on first use (z3 and the SAT
# solvers are heavy imports).
_EXPORTS = {
    "Countermodel": "proofs.results",
    "Disagreement": "proofs.results",
    "disagreement": "proofs.results",
    "ProofResult": "proofs.results",
    "certify": "proofs.certificate",
    "prove_general": "proofs.general",
    "solve": "proofs.bounded",
    "statement": "proofs.statements",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'proofs' has no attribute {name!r}")
