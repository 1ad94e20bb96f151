"""Monotone support formulas: a hash-consed AND/OR circuit over evidence variables.

The support function of claim c, f_c(X) = "c is active when exactly the evidence X is
active", is compiled bottom-up along the strongly connected components of its support
cone. An acyclic claim is OR over its justifications of AND over their antecedents. A
cyclic component of k claims is unrolled by k rounds of Kleene iteration from FALSE, which
reaches the least fixpoint for every evidence set, so a support loop never justifies
itself. Hash-consing shares every repeated sub-formula, keeping the circuit polynomial.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from theory.model.graphalgo import (
    ancestor_numbers,
    component_watchers,
    is_cyclic_component,
    strongly_connected_components,
)
from theory.model.index import SupportIndex, index_of
from theory.model.structure import SupportStructure

TRUE, FALSE, VAR, AND, OR = "true", "false", "var", "and", "or"


@dataclass
class Circuit:
    """A hash-consed monotone circuit; gates are numbers, 0 is TRUE and 1 is FALSE."""

    kinds: list[str] = field(default_factory=lambda: [TRUE, FALSE])
    children: list[tuple[int, ...]] = field(default_factory=lambda: [(), ()])
    names: list[str | None] = field(default_factory=lambda: [None, None])
    _table: dict = field(default_factory=dict, repr=False)

    TRUE: ClassVar[int] = 0
    FALSE: ClassVar[int] = 1

    def __len__(self) -> int:
        return len(self.kinds)

    def name(self, gate: int) -> str:
        """The evidence id of a VAR gate."""
        name = self.names[gate]
        if name is None:
            raise ValueError(f"gate {gate} is a {self.kinds[gate]} gate, not a variable")
        return name

    def _make(self, kind: str, children: tuple[int, ...], name: str | None = None) -> int:
        key = (kind, children, name)
        gate = self._table.get(key)
        if gate is None:
            gate = len(self.kinds)
            self.kinds.append(kind)
            self.children.append(children)
            self.names.append(name)
            self._table[key] = gate
        return gate

    def var(self, name: str) -> int:
        return self._make(VAR, (), name)

    def and_(self, inputs: Iterable[int]) -> int:
        return self._gate(AND, inputs, absorbing=self.FALSE, neutral=self.TRUE)

    def or_(self, inputs: Iterable[int]) -> int:
        return self._gate(OR, inputs, absorbing=self.TRUE, neutral=self.FALSE)

    def _gate(self, kind: str, inputs: Iterable[int], absorbing: int, neutral: int) -> int:
        """A flattened, constant-folded, hash-consed AND or OR gate."""
        parts: set[int] = set()
        for gate in inputs:
            if gate == absorbing:
                return absorbing
            if gate != neutral:
                parts.update(self.children[gate] if self.kinds[gate] == kind else (gate,))
        if not parts:
            return neutral
        if len(parts) == 1:
            return parts.pop()
        return self._make(kind, tuple(sorted(parts)))

    def cone(self, root: int) -> list[int]:
        """Gates reachable from ``root``, children before parents."""
        order: list[int] = []
        done: set[int] = set()
        stack = [(root, False)]
        while stack:
            gate, expanded = stack.pop()
            if expanded:
                if gate not in done:
                    done.add(gate)
                    order.append(gate)
                continue
            if gate in done:
                continue
            stack.append((gate, True))
            for child in self.children[gate]:
                if child not in done:
                    stack.append((child, False))
        return order

    def variables(self, root: int) -> frozenset[str]:
        return frozenset(self.name(g) for g in self.cone(root) if self.kinds[g] == VAR)

    def evaluate(self, root: int, true_vars: Iterable[str] | frozenset[str]) -> bool:
        """Value of the formula at ``root`` when exactly ``true_vars`` are true."""
        true_vars = true_vars if isinstance(true_vars, (set, frozenset)) else frozenset(true_vars)
        value: dict[int, bool] = {}
        for gate in self.cone(root):
            kind = self.kinds[gate]
            if kind == VAR:
                value[gate] = self.names[gate] in true_vars
            elif kind == AND:
                value[gate] = all(value[c] for c in self.children[gate])
            elif kind == OR:
                value[gate] = any(value[c] for c in self.children[gate])
            else:
                value[gate] = kind == TRUE
        return value[root]


@dataclass
class SupportCircuit:
    """The support formulas of a set of claims, sharing one circuit."""

    circuit: Circuit
    roots: Mapping[str, int]

    def root(self, claim: str) -> int:
        return self.roots[claim]


def compile_support(
    structure: SupportStructure, claims: Iterable[str] | None = None
) -> SupportCircuit:
    """Compile f_c for ``claims`` (default: every claim) and everything in their cones."""
    index = index_of(structure)
    if claims is None:
        wanted = [index.number[c] for c in sorted(structure.claims)]
    else:
        wanted = [index.number[structure.require_claim(c)] for c in claims]
    cone = ancestor_numbers(index, wanted)
    return _compile(index, cone)


def _compile(index: SupportIndex, cone: set[int]) -> SupportCircuit:
    circuit = Circuit()
    gate: dict[int, int] = {}
    is_evidence = index.is_evidence
    for n in cone:
        if is_evidence[n]:
            gate[n] = circuit.var(index.ids[n])
    claims = [n for n in cone if not is_evidence[n]]
    justs_of = index.justs_of
    just_antecedents = index.just_antecedents
    for component in strongly_connected_components(index, claims):
        if not is_cyclic_component(index, component):
            n = component[0]
            gate[n] = circuit.or_(
                circuit.and_(gate[a] for a in just_antecedents[j]) for j in justs_of[n]
            )
            continue
        members = set(component)
        position = {m: k for k, m in enumerate(component)}
        watchers = component_watchers(
            component,
            lambda m: (a for j in justs_of[m] for a in just_antecedents[j] if a in members),
        )
        current = {m: circuit.FALSE for m in component}
        # Kleene rounds; a round recomputes only the members with an antecedent whose gate
        # the round before changed (the others would get the same gate back from the table),
        # and the rounds stop once none changed: the same circuit, gate for gate, as k full
        # rounds, without the k * k gate lookups that made a long cycle quadratic
        dirty = list(component)
        for _ in range(len(component)):
            if not dirty:
                break
            changed: dict[int, int] = {}
            for m in dirty:
                value = circuit.or_(
                    circuit.and_(
                        current[a] if a in members else gate[a] for a in just_antecedents[j]
                    )
                    for j in justs_of[m]
                )
                if value != current[m]:
                    changed[m] = value
            current.update(changed)
            dirty = sorted({w for m in changed for w in watchers[m]}, key=position.__getitem__)
        gate.update(current)
    ids = index.ids
    return SupportCircuit(circuit, {ids[n]: g for n, g in gate.items() if not is_evidence[n]})


def to_sympy(circuit: Circuit, root: int, symbols: Mapping[str, object] | None = None) -> Any:
    """The formula at ``root`` as a sympy Boolean expression (display and cross-checks)."""
    import sympy

    symbols = dict(symbols or {})
    value: dict[int, object] = {}
    for gate in circuit.cone(root):
        kind = circuit.kinds[gate]
        if kind == VAR:
            name = circuit.name(gate)
            if name not in symbols:
                symbols[name] = sympy.Symbol(name)
            value[gate] = symbols[name]
        elif kind == AND:
            value[gate] = sympy.And(*(value[c] for c in circuit.children[gate]))
        elif kind == OR:
            value[gate] = sympy.Or(*(value[c] for c in circuit.children[gate]))
        else:
            value[gate] = sympy.true if kind == TRUE else sympy.false
    return value[root]
