"""Independent peers used by the benchmarks: clingo and sympy, on the same structures."""

from __future__ import annotations

import json

from theory.model.structure import SupportStructure


def _atom(node_id: str) -> str:
    return json.dumps(node_id)  # a quoted clingo string term


def clingo_program(structure: SupportStructure, claim: str) -> str:
    """Minimal justifications of ``claim`` as subset-minimal answer sets over in/1.

    Stable-model semantics gives the least fixpoint, so support loops never hold by
    themselves. Run with ``--heuristic=Domain --enum-mode=domRec`` for subset minimality.
    """
    lines = [f"ev({_atom(e)})." for e in sorted(structure.evidence)]
    lines.append("{ in(X) } :- ev(X).")
    lines.append("#heuristic in(X) : ev(X). [1, false]")
    lines.append("holds(X) :- in(X).")
    for j in structure.justifications:
        body = ", ".join(f"holds({_atom(a)})" for a in sorted(j.antecedents))
        lines.append(f"holds({_atom(j.claim)})" + (f" :- {body}." if body else "."))
    lines.append(f":- not holds({_atom(claim)}).")
    lines.append("#show in/1.")
    return "\n".join(lines)


def clingo_minimal_justifications(
    structure: SupportStructure, claim: str
) -> frozenset[frozenset[str]]:
    import clingo

    control = clingo.Control(["0", "--heuristic=Domain", "--enum-mode=domRec"])
    control.add("base", [], clingo_program(structure, claim))
    control.ground([("base", [])])
    found: list[frozenset[str]] = []
    control.solve(
        on_model=lambda m: found.append(
            frozenset(str(s.arguments[0].string) for s in m.symbols(shown=True))
        )
    )
    return frozenset(found)


def sympy_minimal_justifications(
    structure: SupportStructure, claim: str
) -> frozenset[frozenset[str]]:
    """Minimal DNF of the support formula via sympy (exponential; small cases only)."""
    import sympy

    from theory.solver.formula import compile_support, to_sympy

    compiled = compile_support(structure, [claim])
    expression = sympy.simplify_logic(
        to_sympy(compiled.circuit, compiled.root(claim)), form="dnf", force=True
    )
    if expression is sympy.true:
        return frozenset([frozenset()])
    if expression is sympy.false:
        return frozenset()
    terms = expression.args if isinstance(expression, sympy.Or) else (expression,)
    return frozenset(
        frozenset(str(x) for x in (t.args if isinstance(t, sympy.And) else (t,))) for t in terms
    )
