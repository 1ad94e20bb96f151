"""The support-formula compiler (theory/solver/formula.py): its Kleene rounds visit only the members
whose inputs changed, and give the circuit of k full rounds gate for gate."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings

from benchmarks.generate import cycle
from theory.model.graphalgo import (
    ancestor_numbers,
    is_cyclic_component,
    strongly_connected_components,
)
from theory.model.index import index_of
from theory.solver.formula import Circuit, compile_support
from theory.testing import strategies as jst


def _k_full_rounds(structure):
    """The compiler as first written: k rounds over every member of a k-claim component."""
    index = index_of(structure)
    cone = ancestor_numbers(index, [index.number[c] for c in sorted(structure.claims)])
    circuit = Circuit()
    gate = {}
    for n in cone:
        if index.is_evidence[n]:
            gate[n] = circuit.var(index.ids[n])
    claims = [n for n in cone if not index.is_evidence[n]]
    for component in strongly_connected_components(index, claims):
        if not is_cyclic_component(index, component):
            n = component[0]
            gate[n] = circuit.or_(
                circuit.and_(gate[a] for a in index.just_antecedents[j]) for j in index.justs_of[n]
            )
            continue
        members = set(component)
        current = {m: circuit.FALSE for m in component}
        for _ in range(len(component)):
            current = {
                m: circuit.or_(
                    circuit.and_(
                        current[a] if a in members else gate[a] for a in index.just_antecedents[j]
                    )
                    for j in index.justs_of[m]
                )
                for m in component
            }
        gate.update(current)
    return circuit, {index.ids[n]: g for n, g in gate.items() if not index.is_evidence[n]}


@pytest.mark.slow
@settings(max_examples=300)
@given(jst.support_structures(max_evidence=6, max_claims=9, cycles=True))
def test_the_rounds_give_the_circuit_of_k_full_rounds(structure):
    compiled = compile_support(structure)
    circuit, roots = _k_full_rounds(structure)
    assert compiled.circuit.kinds == circuit.kinds
    assert compiled.circuit.children == circuit.children
    assert compiled.circuit.names == circuit.names
    assert dict(compiled.roots) == roots


def test_a_long_cycle_compiles_in_time_linear_in_it():
    """A 4,000-claim cycle entered at three points: a round changes a few members (k full
    rounds took about 20 s here, the square of the cycle)."""
    structure = cycle(4000)
    started = time.process_time()
    compiled = compile_support(structure, ["c0"])
    seconds = time.process_time() - started
    root = compiled.root("c0")
    assert compiled.circuit.variables(root) == {"e0", "e1", "e2"}
    assert seconds < 2.0, seconds
