"""Plain graph algorithms over an index (:class:`theory.model.index.IndexView`): ancestors and
strongly connected components of the antecedent -> claim graph (iterative, so deep graphs do
not recurse)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, MutableMapping, MutableSequence
from typing import TypeVar

from theory.model.index import IndexView

V = TypeVar("V")


def ancestor_numbers(index: IndexView, roots: Iterable[int]) -> set[int]:
    """``roots`` and every node from which one of them is reachable (its support cone)."""
    seen = set(roots)
    stack = list(seen)
    justs_of = index.justs_of
    just_antecedents = index.just_antecedents
    while stack:
        n = stack.pop()
        for j in justs_of[n]:
            for a in just_antecedents[j]:
                if a not in seen:
                    seen.add(a)
                    stack.append(a)
    return seen


def strongly_connected_components(
    index: IndexView, nodes: Iterable[int], intact_only: bytes | bytearray | None = None
) -> list[list[int]]:
    """SCCs of the subgraph on ``nodes`` (edges antecedent -> claim), in topological order:
    every component comes after the components it depends on.

    With ``intact_only`` (active flags), only justifications whose antecedents are all
    active contribute edges.
    """
    nodes = list(nodes)
    member = set(nodes)
    justs_of = index.justs_of
    just_antecedents = index.just_antecedents

    def predecessors(n: int) -> list[int]:
        if intact_only is None:
            return [a for j in justs_of[n] for a in just_antecedents[j] if a in member]
        result: list[int] = []
        for j in justs_of[n]:
            antecedents = just_antecedents[j]
            if intact_only is not None and not all(intact_only[a] for a in antecedents):
                continue
            result.extend(a for a in antecedents if a in member)
        return result

    return tarjan(nodes, predecessors)


def tarjan(nodes: Iterable[int], predecessors: Callable[[int], Iterable[int]]) -> list[list[int]]:
    """Strongly connected components of the graph on ``nodes`` whose edges into a node n come
    from ``predecessors(n)`` (Tarjan's algorithm, iterative). Over predecessor edges a
    component is emitted after every component it depends on (topological order).

    >>> tarjan([1, 2, 3], {1: [], 2: [1, 3], 3: [2]}.__getitem__)
    [[1], [3, 2]]
    """
    counter = 0
    number: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    components: list[list[int]] = []
    for start in nodes:
        if start in number:
            continue
        work = [(start, iter(predecessors(start)))]
        number[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in number:
                    number[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(predecessors(succ))))
                    advanced = True
                    break
                if succ in on_stack and number[succ] < low[node]:
                    low[node] = number[succ]
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                if low[node] < low[parent]:
                    low[parent] = low[node]
            if low[node] == number[node]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == node:
                        break
                components.append(component)
    return components


def component_watchers(
    component: list[int], inside: Callable[[int], Iterable[int]]
) -> dict[int, set[int]]:
    """Member -> the members with a justification through it, given ``inside(m)``: the
    antecedents of m's justifications that are members. A fixpoint round over a cyclic
    component recomputes only the watchers of what changed (on a long cycle a round changes
    a few members; recomputing all of them made the rounds cost the square of its length)."""
    watchers: dict[int, set[int]] = {m: set() for m in component}
    for m in component:
        for a in inside(m):
            watchers[a].add(m)
    return watchers


def is_cyclic_component(index: IndexView, component: list[int]) -> bool:
    if len(component) > 1:
        return True
    n = component[0]
    return any(n in index.just_antecedents[j] for j in index.justs_of[n])


def solve_component(
    index: IndexView,
    component: list[int],
    values: MutableSequence[V] | MutableMapping[int, V],
    initial: V,
    update: Callable[[int], V],
) -> None:
    """Fixpoint of ``values[m] = update(m)`` over one strongly connected component.

    An acyclic component is one evaluation. A cyclic one starts every member at ``initial``
    (the bottom of the lattice for a least fixpoint, the top for a greatest one) and
    re-evaluates with a worklist: a member is evaluated again only when one of its
    antecedents in the component changed. ``update`` must be monotone, so chaotic iteration
    reaches the same fixpoint as round-robin rounds, but a loop of k claims costs about k
    evaluations per change instead of k rounds of k.
    """
    if not is_cyclic_component(index, component):
        values[component[0]] = update(component[0])
        return
    members = set(component)
    dependents: dict[int, list[int]] = {m: [] for m in component}
    for m in component:
        for j in index.justs_of[m]:
            for a in index.just_antecedents[j]:
                if a in members:
                    dependents[a].append(m)
    for m in component:
        values[m] = initial
    queue = deque(component)
    queued = set(component)
    while queue:
        m = queue.popleft()
        queued.discard(m)
        value = update(m)
        if value != values[m]:
            values[m] = value
            for d in dependents[m]:
                if d not in queued:
                    queued.add(d)
                    queue.append(d)
