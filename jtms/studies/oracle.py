"""An independent oracle: the active state as clingo's stable model.

The memory is written as a logic program: active evidence ``act(E) :- ev(E), not blocked(E).``
and one rule per justification ``act(C) :- not blocked(C), act(A1), ..., act(Ak).`` (a premise
has no ``act`` literal). ``blocked`` facts are the audited nodes. The program is stratified,
so it has exactly one stable model (checked: clingo is asked for all models), whose ``act``
atoms are the well-founded active state, loops without outside support excluded.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

import clingo

from theory.structure import SupportStructure


def _atom(node_id: str) -> str:
    return json.dumps(node_id)  # a clingo string constant with escapes


def program(structure: SupportStructure, blocked: Iterable[str] = ()) -> str:
    lines = ["act(X) :- ev(X), not blocked(X)."]
    lines += [f"ev({_atom(e)})." for e in sorted(structure.evidence)]
    lines += [f"blocked({_atom(b)})." for b in sorted(blocked)]
    for j in sorted(structure.justifications, key=lambda j: (j.claim, sorted(j.antecedents))):
        body = [f"not blocked({_atom(j.claim)})"] + [f"act({_atom(a)})" for a in sorted(j.antecedents)]
        lines.append(f"act({_atom(j.claim)}) :- {', '.join(body)}.")
    lines.append("#show act/1.")
    return "\n".join(lines)


def stable_active(structure: SupportStructure, blocked: Iterable[str] = ()) -> frozenset[str]:
    """The ``act`` atoms of the unique stable model (raises if it is not unique)."""
    control = clingo.Control(["0", "--warn=none"])
    control.add("base", [], program(structure, blocked))
    control.ground([("base", [])])
    models: list[frozenset[str]] = []
    with control.solve(yield_=True) as handle:
        for model in handle:
            models.append(frozenset(s.arguments[0].string for s in model.symbols(shown=True)))
    if len(models) != 1:
        raise RuntimeError(f"expected one stable model, clingo found {len(models)}")
    return models[0]
