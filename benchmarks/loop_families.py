"""Families of graphs with support loops, each with its own generator and parameters drawn
at random per seed, for the benchmark (``python -m benchmarks.bench_justifications
--families``) and the property test (tests/theory/test_loop_families.py) of the exact core.

One family of one generator measures the tuning to it; the exact core must answer any
graph, so these differ in the shape of their loops:

- ``back_edges``: layers of claims over the layer below, with back-edges in both
  directions (a claim supported by one of the layer above, and skips over a layer);
- ``dense``: every claim 1-3 alternatives of 1-2 antecedents, each a claim (any) with a
  probability near 0.6: one big strongly connected component;
- ``pairs``: chains of mutually supporting pairs (``a_i <- b_i``, ``b_i <- a_i``), each pair
  entered from the pair before and by evidence;
- ``nested``: loops of loops of loops (:func:`benchmarks.generate.nested_loops`) with
  random cross links between the innermost loops;
- ``cycles``: a few long cycles that share claims, entered at random points by evidence
  and by pairs of claims;
- ``grid``: a grid whose cells are supported by neighbours (one, or two together) and a
  few by evidence, plus random long-range links (small world);

plus the two regression files of ``tests/cases`` (:func:`case_files`), graphs on which the
core once stalled.

:data:`HELD_OUT` holds thirteen more shapes that no constant of the core was chosen on: the
check that the core holds beyond the families above (``python -m
benchmarks.bench_loop_families --families held-out [--scale 3]``). Their generators take a
``scale`` that multiplies their sizes:

- ``hubs``: a few hub claims that support each other, and many claims each supported by a
  hub with another claim or evidence (every loop runs through the hubs);
- ``bipartite``: two sides of claims, each supported only by claims of the other side, a
  quarter of them also by evidence (every loop alternates sides);
- ``wide``: every claim 3-6 alternatives of 1-3 antecedents (many justifications per claim);
- ``preferential``: claims supported by earlier claims drawn by preferential attachment (a
  few claims in most cones), with back-edges from later claims;
- ``necklace``: rings of mutually supporting claims, each ring joined both ways to the next
  (loops in series);
- ``deep_chain``: one chain of a few hundred claims, with short back-edges and a few long ones
  (deep cones, small loops all along);
- ``triples``: bodies of three antecedents, two claims and evidence or any three (conjunctive
  loops);
- ``clique``: claims each supported by most others alone, half of them also by evidence (one
  complete component);
- ``conjunctive``: bodies of two claims, a quarter of them evidence alone (every loop
  conjunctive, many sets per claim);
- ``ladder``: two chains supported both ways along and across their rungs, a few rungs
  entered by evidence;
- ``loop_tree``: a tree of rings (``scale`` times longer), each ring entered from two claims
  of its children, evidence only at the leaves (goals at the root cross every level);
- ``wheel``: a hub supported by every claim of a rim, each rim claim by the hub with its
  neighbour, by its other neighbour, and a few by evidence;
- ``threshold``: a claim ``t`` supported by every k of n claims ``s_i`` (hundreds of wide
  bodies), each ``s_i`` by evidence, by ``t`` with the next ``s``, and by a ring that it
  feeds; ``u`` by ``t`` with ``w``, ``w`` by ``u`` or evidence (found by a stress test of
  shapes the core had not seen, 2026-12-05: hundreds of wide bodies in one loop).

Every member is a :class:`~theory.model.structure.SupportStructure` with the goal claims to ask.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import combinations
from math import comb
from pathlib import Path

from benchmarks.generate import nested_loops
from theory.model.structure import SupportStructure

Member = tuple[SupportStructure, list[str], str]
"""A graph, the claims to ask, and a description of its drawn parameters."""
CASES = Path(__file__).resolve().parent.parent / "tests" / "cases"


def back_edges(seed: int) -> Member:
    rng = random.Random(seed)
    layers, width, entry, back = (
        rng.randint(4, 8),
        rng.randint(8, 18),
        rng.randint(2, 4),
        rng.randint(2, 6),
    )
    evidence = [f"e{i}" for i in range(rng.randint(10, 30))]
    names = [[f"c{layer}_{i}" for i in range(width)] for layer in range(layers)]
    pairs: list[tuple[str, list[str]]] = []
    for layer, current in enumerate(names):
        below = evidence if layer == 0 else names[layer - 1]
        for claim in current:
            for _ in range(rng.randint(1, 3)):
                pool = below + (rng.sample(evidence, entry) if layer else [])
                if layer >= 2 and rng.random() < 0.1:  # a skip over a layer
                    pool = pool + names[layer - 2]
                pairs.append((claim, sorted(set(rng.sample(pool, rng.randint(1, 2))))))
        if layer + 1 < layers:  # back-edges: a claim of this layer supported by one above
            for _ in range(back):
                pairs.append((rng.choice(current), [rng.choice(names[layer + 1])]))
    goals = rng.sample(names[-1], 3)
    return (
        SupportStructure.build(evidence, [c for layer in names for c in layer], pairs),
        goals,
        f"layers={layers} width={width} back={back}",
    )


def dense(seed: int) -> Member:
    rng = random.Random(seed)
    n, e, p = rng.randint(40, 120), rng.randint(12, 30), rng.choice([0.5, 0.55, 0.6])
    evidence = [f"e{i}" for i in range(e)]
    claims = [f"c{i}" for i in range(n)]
    pairs = []
    for c in claims:
        for _ in range(rng.randint(1, 3)):
            body = {
                rng.choice(claims) if rng.random() < p else rng.choice(evidence)
                for _ in range(rng.randint(1, 2))
            }
            pairs.append((c, sorted(body)))
    return (
        SupportStructure.build(evidence, claims, pairs),
        claims[:3],
        f"claims={n} evidence={e} p={p}",
    )


def mutual_pairs(seed: int) -> Member:
    rng = random.Random(seed)
    length, e = rng.randint(6, 14), rng.randint(6, 16)
    evidence = [f"e{i}" for i in range(e)]
    claims: list[str] = []
    pairs: list[tuple[str, list[str]]] = []
    for i in range(length):
        a, b = f"a{i}", f"b{i}"
        claims += [a, b]
        pairs += [(a, [b]), (b, [a])]
        if i == 0:
            pairs += [(a, [rng.choice(evidence)]), (b, [rng.choice(evidence)])]
            continue
        pa, pb = f"a{i - 1}", f"b{i - 1}"
        for _ in range(rng.randint(1, 2)):  # entered from the pair before, with evidence
            pairs.append((rng.choice([a, b]), sorted({rng.choice([pa, pb]), rng.choice(evidence)})))
        if rng.random() < 0.3:
            pairs.append((b, [rng.choice(evidence)]))
        if rng.random() < 0.3 and i >= 2:  # a pair supported back by a later one
            j = rng.randrange(i - 1)
            pairs.append((f"a{j}", [b]))
    goals = [f"a{length - 1}", f"b{length - 1}", f"a{length // 2}"]
    return SupportStructure.build(evidence, claims, pairs), goals, f"pairs={length} evidence={e}"


def nested(seed: int) -> Member:
    rng = random.Random(seed)
    levels, size, links = rng.choice([2, 3]), rng.randint(3, 5), rng.randint(0, 6)
    g = nested_loops(levels, size, seed)
    claims = sorted(g.claims, key=lambda c: int(c[1:]))
    pairs = [(j.claim, sorted(j.antecedents)) for j in g.justifications]
    evidence = sorted(g.evidence)
    for _ in range(links):  # cross links between the innermost loops, some with evidence
        body = [rng.choice(claims)] + ([rng.choice(evidence)] if rng.random() < 0.5 else [])
        pairs.append((rng.choice(claims), sorted(set(body))))
    goals = [claims[0], claims[len(claims) // 2], claims[-1]]
    return (
        SupportStructure.build(evidence, claims, pairs),
        goals,
        f"levels={levels} size={size} links={links}",
    )


def cycles(seed: int) -> Member:
    rng = random.Random(seed)
    n, count, entries = rng.randint(60, 400), rng.randint(2, 4), rng.randint(3, 8)
    evidence = [f"e{i}" for i in range(rng.randint(4, 12))]
    claims = [f"c{i}" for i in range(n)]
    pairs: list[tuple[str, list[str]]] = []
    for _ in range(count):  # each cycle runs through a random order of a random part
        members = rng.sample(claims, rng.randint(n // 3, n))
        pairs += [(members[i], [members[i - 1]]) for i in range(len(members))]
    for _ in range(entries):
        pairs.append((rng.choice(claims), [rng.choice(evidence)]))
        pairs.append((rng.choice(claims), sorted({rng.choice(claims), rng.choice(evidence)})))
    return (
        SupportStructure.build(evidence, claims, pairs),
        claims[:3],
        f"claims={n} cycles={count} entries={entries}",
    )


def grid(seed: int) -> Member:
    rng = random.Random(seed)
    w, h, links = rng.randint(4, 8), rng.randint(4, 8), rng.randint(0, 8)
    evidence = [f"e{i}" for i in range(rng.randint(6, 14))]
    cell = {(x, y): f"g{x}_{y}" for x in range(w) for y in range(h)}
    pairs: list[tuple[str, list[str]]] = []
    for (x, y), c in cell.items():
        near = [cell[p] for p in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)) if p in cell]
        for _ in range(rng.randint(1, 3)):
            body = {rng.choice(near)}
            if rng.random() < 0.4:  # two neighbours together, or a neighbour and evidence
                body.add(rng.choice(near) if rng.random() < 0.5 else rng.choice(evidence))
            pairs.append((c, sorted(body)))
        if rng.random() < 0.2:
            pairs.append((c, [rng.choice(evidence)]))
    names = sorted(cell.values())
    for _ in range(links):  # small world: long-range links
        pairs.append((rng.choice(names), [rng.choice(names)]))
    goals = [cell[(0, 0)], cell[(w - 1, h - 1)], cell[(w // 2, h // 2)]]
    return SupportStructure.build(evidence, names, pairs), goals, f"grid={w}x{h} links={links}"


FAMILIES: dict[str, Callable[[int], Member]] = {
    "back_edges": back_edges,
    "dense": dense,
    "pairs": mutual_pairs,
    "nested": nested,
    "cycles": cycles,
    "grid": grid,
}


def _sample_goals(rng: random.Random, claims: list[str], k: int = 3) -> list[str]:
    return rng.sample(claims, min(k, len(claims)))


def _ids(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(count)]


def hubs(seed: int, scale: int = 1) -> Member:
    rng = random.Random(seed)
    h, n, e = rng.randint(3, 8) * scale, rng.randint(40, 110) * scale, rng.randint(8, 25)
    evidence = _ids("e", e)
    hub = [f"h{i}" for i in range(h)]
    claims = _ids("c", n)
    pairs: list[tuple[str, list[str]]] = []
    for x in hub:
        for _ in range(rng.randint(2, 4)):
            body = {rng.choice(hub + claims) for _ in range(rng.randint(1, 2))} - {x}
            pairs.append((x, sorted(body) or [rng.choice(evidence)]))
        pairs.append((x, [rng.choice(evidence)]))
    for c in claims:
        for _ in range(rng.randint(1, 3)):
            body = {rng.choice(hub)}
            if rng.random() < 0.6:
                body.add(rng.choice(claims))
            if rng.random() < 0.3:
                body.add(rng.choice(evidence))
            body.discard(c)
            pairs.append((c, sorted(body)))
    return (
        SupportStructure.build(evidence, hub + claims, pairs),
        _sample_goals(rng, claims),
        f"hubs={h} claims={n}",
    )


def bipartite(seed: int, scale: int = 1) -> Member:
    rng = random.Random(seed)
    a, b, e = rng.randint(20, 60) * scale, rng.randint(20, 60) * scale, rng.randint(8, 20)
    evidence = _ids("e", e)
    left, right = [f"a{i}" for i in range(a)], [f"b{i}" for i in range(b)]
    pairs: list[tuple[str, list[str]]] = []
    for side, other in ((left, right), (right, left)):
        for c in side:
            for _ in range(rng.randint(1, 4)):
                pairs.append((c, sorted(set(rng.sample(other, rng.randint(1, 2))))))
            if rng.random() < 0.25:
                pairs.append((c, sorted(set(rng.sample(evidence, rng.randint(1, 2))))))
    return (
        SupportStructure.build(evidence, left + right, pairs),
        _sample_goals(rng, left + right),
        f"sides={a}+{b}",
    )


def wide(seed: int, scale: int = 1) -> Member:
    rng = random.Random(seed)
    n, e, p = rng.randint(30, 80) * scale, rng.randint(10, 25), rng.choice([0.3, 0.4, 0.5])
    evidence = _ids("e", e)
    claims = _ids("c", n)
    pairs: list[tuple[str, list[str]]] = []
    for c in claims:
        for _ in range(rng.randint(3, 6)):
            body = {
                rng.choice(claims) if rng.random() < p else rng.choice(evidence)
                for _ in range(rng.randint(1, 3))
            }
            body.discard(c)
            if body:
                pairs.append((c, sorted(body)))
    return (
        SupportStructure.build(evidence, claims, pairs),
        _sample_goals(rng, claims),
        f"claims={n} p={p}",
    )


def preferential(seed: int, scale: int = 1) -> Member:
    rng = random.Random(seed)
    n, e = rng.randint(60, 200) * scale, rng.randint(10, 30)
    evidence = _ids("e", e)
    claims = _ids("c", n)
    weights = [1.0] * n
    pairs: list[tuple[str, list[str]]] = []
    for i, c in enumerate(claims):
        for _ in range(rng.randint(1, 3)):
            if i and rng.random() < 0.8:
                chosen = set(
                    rng.choices(range(i), weights=weights[:i], k=rng.randint(1, min(2, i)))
                )
                for j in chosen:
                    weights[j] += 1
                body = {claims[j] for j in chosen}
            else:
                body = set(rng.sample(evidence, rng.randint(1, 2)))
            pairs.append((c, sorted(body)))
        if i > 5 and rng.random() < 0.3:  # a back-edge: an earlier claim supported by this one
            pairs.append((claims[rng.randrange(i)], [c]))
    return (
        SupportStructure.build(evidence, claims, pairs),
        _sample_goals(rng, claims[-20:]),
        f"claims={n}",
    )


def necklace(seed: int, scale: int = 1) -> Member:
    rng = random.Random(seed)
    beads, size, e = rng.randint(4, 14) * scale, rng.randint(3, 7), rng.randint(6, 15)
    evidence = _ids("e", e)
    claims: list[str] = []
    pairs: list[tuple[str, list[str]]] = []
    previous: list[str] = []
    for bead in range(beads):
        ring = [f"n{bead}_{i}" for i in range(size)]
        claims += ring
        for i, x in enumerate(ring):
            pairs += [(x, [ring[i - 1]]), (ring[i - 1], [x])]
        if previous:
            pairs += [(ring[0], [previous[-1]]), (previous[-1], [ring[0]])]
        else:
            pairs.append((ring[0], [rng.choice(evidence)]))
        for _ in range(rng.randint(0, 2)):
            pairs.append((rng.choice(ring), sorted(set(rng.sample(evidence, rng.randint(1, 2))))))
        previous = ring
    goals = [claims[-1], claims[len(claims) // 2], rng.choice(claims)]
    return SupportStructure.build(evidence, claims, pairs), goals, f"beads={beads} size={size}"


def deep_chain(seed: int, scale: int = 1) -> Member:
    rng = random.Random(seed)
    n, e = rng.randint(100, 300) * scale, rng.randint(5, 15)
    evidence = _ids("e", e)
    claims = _ids("c", n)
    pairs: list[tuple[str, list[str]]] = [(claims[0], [evidence[0]])]
    for i in range(1, n):
        pairs.append((claims[i], [claims[i - 1]]))
        if rng.random() < 0.3:  # a short loop
            pairs.append((claims[i - 1], [claims[i]]))
        if rng.random() < 0.1:  # another way in, with evidence
            pairs.append((claims[i], sorted({claims[rng.randrange(i)], rng.choice(evidence)})))
        if rng.random() < 0.05:  # a long back-edge
            pairs.append((claims[rng.randrange(i)], [claims[i]]))
    goals = [claims[-1], claims[n // 2], claims[rng.randrange(n)]]
    return SupportStructure.build(evidence, claims, pairs), goals, f"claims={n}"


def triples(seed: int, scale: int = 1) -> Member:
    rng = random.Random(seed)
    n, e = rng.randint(40, 120) * scale, rng.randint(10, 30)
    evidence = _ids("e", e)
    claims = _ids("c", n)
    pairs: list[tuple[str, list[str]]] = []
    for c in claims:
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.5:
                body = set(rng.sample(claims, 2)) | {rng.choice(evidence)}
            else:
                body = set(rng.sample(claims + evidence, 3))
            body.discard(c)
            pairs.append((c, sorted(body)))
        if rng.random() < 0.15:
            pairs.append((c, [rng.choice(evidence)]))
    return (
        SupportStructure.build(evidence, claims, pairs),
        _sample_goals(rng, claims),
        f"claims={n}",
    )


def clique(seed: int, scale: int = 1) -> Member:
    rng = random.Random(seed)
    k, e, p = rng.randint(10, 30) * scale, rng.randint(3, 10), rng.choice([0.5, 0.7, 0.9])
    evidence = _ids("e", e)
    claims = _ids("c", k)
    pairs: list[tuple[str, list[str]]] = []
    for c in claims:
        pairs += [(c, [d]) for d in claims if d != c and rng.random() < p]
        if rng.random() < 0.5:
            pairs.append((c, sorted(set(rng.sample(evidence, rng.randint(1, 2))))))
    return (
        SupportStructure.build(evidence, claims, pairs),
        _sample_goals(rng, claims),
        f"claims={k} p={p}",
    )


def conjunctive(seed: int, scale: int = 1) -> Member:
    rng = random.Random(seed)
    n, e = rng.randint(20, 60) * scale, rng.randint(5, 15)
    evidence = _ids("e", e)
    claims = _ids("c", n)
    pairs: list[tuple[str, list[str]]] = []
    for c in claims:
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.25:
                body = set(rng.sample(evidence, rng.randint(1, 2)))
            else:
                body = set(rng.sample(claims, 2))
            pairs.append((c, sorted(body)))
    return (
        SupportStructure.build(evidence, claims, pairs),
        _sample_goals(rng, claims),
        f"claims={n} evidence={e}",
    )


def ladder(seed: int, scale: int = 1) -> Member:
    rng = random.Random(seed)
    length, e = rng.randint(10, 40) * scale, rng.randint(4, 12)
    evidence = _ids("e", e)
    left, right = _ids("a", length), _ids("b", length)
    pairs: list[tuple[str, list[str]]] = []
    for i in range(length):
        for side in (left, right):
            if i:
                pairs.append((side[i], [side[i - 1]]))
            if i + 1 < length:
                pairs.append((side[i], [side[i + 1]]))
        pairs += [(left[i], [right[i]]), (right[i], [left[i]])]
        if rng.random() < 0.15:
            pairs.append((rng.choice((left[i], right[i])), [rng.choice(evidence)]))
        if rng.random() < 0.1:
            pairs.append((left[i], sorted({right[i], rng.choice(evidence)})))
    if not any(body[0].startswith("e") for _, body in pairs):
        pairs.append((left[0], [evidence[0]]))
    return (
        SupportStructure.build(evidence, left + right, pairs),
        [left[-1], right[length // 2], rng.choice(left + right)],
        f"rungs={length}",
    )


def loop_tree(seed: int, scale: int = 1) -> Member:
    rng = random.Random(seed)
    depth, width, e = rng.randint(3, 4), rng.randint(2, 3), rng.randint(4, 10)
    evidence = _ids("e", e)
    claims: list[str] = []
    pairs: list[tuple[str, list[str]]] = []

    def component(level: int, name: str) -> list[str]:
        size = rng.randint(3, 6) * scale
        ring = [f"{name}_{i}" for i in range(size)]
        claims.extend(ring)
        for i, x in enumerate(ring):
            pairs.append((x, [ring[(i + 1) % size]]))
            if rng.random() < 0.3:
                pairs.append((x, [ring[(i + 2) % size]]))
        if level == depth:
            pairs.extend((x, [rng.choice(evidence)]) for x in rng.sample(ring, 2))
        else:
            for j in range(width):
                child = component(level + 1, f"{name}.{j}")
                pairs.append((rng.choice(ring), sorted({rng.choice(child), rng.choice(child)})))
        return ring

    top = component(1, "r")
    return (
        SupportStructure.build(evidence, claims, pairs),
        [top[0], *_sample_goals(rng, claims[1:], 2)],  # claims[0] is top[0]
        f"depth={depth} width={width} claims={len(claims)}",
    )


def wheel(seed: int, scale: int = 1) -> Member:
    rng = random.Random(seed)
    n, e = rng.randint(15, 50) * scale, rng.randint(3, 8)
    evidence = _ids("e", e)
    rim = _ids("c", n)
    pairs: list[tuple[str, list[str]]] = [("hub", [c]) for c in rim]
    for i, c in enumerate(rim):
        pairs += [(c, sorted({"hub", rim[(i + 1) % n]})), (c, [rim[i - 1]])]
        if rng.random() < 0.2:
            pairs.append((c, [rng.choice(evidence)]))
    return (
        SupportStructure.build(evidence, ["hub", *rim], pairs),
        ["hub", *_sample_goals(rng, rim, 2)],
        f"rim={n}",
    )


def threshold(seed: int, scale: int = 1) -> Member:
    rng = random.Random(seed)
    n = rng.randint(6, 9) + 2 * (scale - 1)
    k = rng.randint(2, min(n - 2, 6))
    while comb(n, k) > 150 * scale:
        k -= 1
    evidence = _ids("e", rng.randint(n, 2 * n))
    s = _ids("s", n)
    claims = ["t", "u", "w", *s]
    pairs: list[tuple[str, list[str]]] = [("t", list(b)) for b in combinations(s, k)]
    for i, c in enumerate(s):
        pairs += [(c, [e]) for e in rng.sample(evidence, rng.randint(1, 2))]
        pairs.append((c, ["t", s[(i + 1) % n]]))
        ring = [f"a{i}_{j}" for j in range(rng.randint(2, 8))]  # a ring that feeds s_i
        claims += ring
        pairs += [(ring[0], [rng.choice(evidence)]), (ring[0], [c])]
        pairs += [(ring[j], [ring[j - 1]]) for j in range(1, len(ring))]
        pairs.append((c, [ring[-1], rng.choice(evidence)]))
    pairs += [("u", ["t", "w"]), ("w", ["u"]), ("w", [rng.choice(evidence)])]
    return (
        SupportStructure.build(evidence, claims, pairs),
        ["t", "u", rng.choice(s)],
        f"n={n} k={k} bodies of t={comb(n, k)}",
    )


HELD_OUT: dict[str, Callable[..., Member]] = {
    "hubs": hubs,
    "bipartite": bipartite,
    "wide": wide,
    "preferential": preferential,
    "necklace": necklace,
    "deep_chain": deep_chain,
    "triples": triples,
    "clique": clique,
    "conjunctive": conjunctive,
    "ladder": ladder,
    "loop_tree": loop_tree,
    "wheel": wheel,
    "threshold": threshold,
}
"""Shapes no constant of the core was chosen on (see the module docstring); each generator
takes ``(seed, scale=1)``."""


def case_files(directory: Path = CASES) -> list[Member]:
    """The regression files with the claims that stalled the core on them."""
    from theory.io.graphfile import load_graph

    wanted = {"loops_back_edges.json": ["c7_0"], "loops_dense_random.json": ["c0", "c1", "c2"]}
    found = []
    for name, goals in wanted.items():
        path = directory / name
        if path.exists():
            found.append((load_graph(path), goals, name))
    return found


def members(family: str, count: int, seed: int = 0, scale: int = 1) -> list[Member]:
    """``count`` members of ``family`` (of :data:`FAMILIES` or :data:`HELD_OUT`), seeds
    ``seed * 1000 + i``; ``scale`` multiplies the sizes of a held-out family."""
    if family in HELD_OUT:
        return [HELD_OUT[family](seed * 1000 + i, scale) for i in range(count)]
    if scale != 1:
        raise ValueError(f"scale applies to the held-out families, not to {family!r}")
    return [FAMILIES[family](seed * 1000 + i) for i in range(count)]


__all__ = ["CASES", "FAMILIES", "HELD_OUT", "Member", "case_files", "members"]
