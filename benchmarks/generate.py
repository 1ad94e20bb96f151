"""Deterministic graph generators for the benchmarks (seeded; no files needed).

- ``layered``: claims in layers, each with a few alternative justifications over the layer
  below; the number of minimal justifications of the top claim grows multiplicatively,
  which is the shape that stresses minimal-justification enumeration.
- ``memory``: an agent-memory-like graph for the checker and the engine: N claims, 2
  evidence per 10 claims, 1-3 justifications of 1-3 antecedents drawn from evidence or
  earlier claims, preferring recent ones (conclusions build on recent work), optionally
  with a fraction of back-edges (support cycles).
"""

from __future__ import annotations

import argparse
import random

from theory.io.graphfile import save_graph
from theory.model.structure import SupportStructure


def layered(
    evidence: int,
    layers: int,
    width: int,
    seed: int = 0,
    justifications: tuple[int, int] = (2, 3),
    antecedents: tuple[int, int] = (1, 2),
) -> SupportStructure:
    """Evidence at the bottom, ``layers`` layers of ``width`` claims, one top claim ``root``."""
    rng = random.Random(seed)
    ev = [f"e{i}" for i in range(evidence)]
    below = list(ev)
    claims: list[str] = []
    pairs: list[tuple[str, list[str]]] = []
    for layer in range(layers):
        current = [f"L{layer}_{i}" for i in range(width)]
        for claim in current:
            for _ in range(rng.randint(*justifications)):
                pairs.append((claim, rng.sample(below, min(len(below), rng.randint(*antecedents)))))
        claims += current
        below = current
    claims.append("root")
    for _ in range(rng.randint(*justifications)):
        pairs.append(("root", rng.sample(below, min(len(below), rng.randint(*antecedents)))))
    return SupportStructure.build(ev, claims, pairs)


def layered_cyclic(
    evidence: int,
    layers: int,
    width: int,
    seed: int = 0,
    justifications: tuple[int, int] = (1, 3),
    antecedents: tuple[int, int] = (1, 3),
    back_edges: float = 0.1,
) -> SupportStructure:
    """:func:`layered` with support loops: each antecedent is, with probability
    ``back_edges``, a claim of the same layer or the layer above instead of one below."""
    rng = random.Random(seed)
    ev = [f"e{i}" for i in range(evidence)]
    names = [[f"L{layer}_{i}" for i in range(width)] for layer in range(layers)]
    pairs: list[tuple[str, list[str]]] = []
    for layer, current in enumerate(names):
        below = ev if layer == 0 else names[layer - 1]
        above = current + (names[layer + 1] if layer + 1 < layers else [])
        for claim in current:
            for _ in range(rng.randint(*justifications)):
                chosen = set()
                for _ in range(rng.randint(*antecedents)):
                    pool = [c for c in above if c != claim] if rng.random() < back_edges else below
                    chosen.add(rng.choice(pool))
                pairs.append((claim, sorted(chosen)))
    for _ in range(rng.randint(*justifications)):
        pairs.append(("root", rng.sample(names[-1], min(width, rng.randint(*antecedents)))))
    return SupportStructure.build(ev, [c for layer in names for c in layer] + ["root"], pairs)


def cycle(k: int, entries: int = 3) -> SupportStructure:
    """A support loop of k claims, ``c_i <- c_(i-1)``, with evidence ``e_m`` entering at
    ``entries`` evenly spaced claims (each claim's minimal justifications: one per entry)."""
    ev = [f"e{m}" for m in range(entries)]
    cl = [f"c{i}" for i in range(k)]
    pairs = [(cl[i], [cl[i - 1]]) for i in range(k)]
    pairs += [(cl[m * k // entries], [ev[m]]) for m in range(entries)]
    return SupportStructure.build(ev, cl, pairs)


def nested_loops(levels: int, size: int, seed: int = 0) -> SupportStructure:
    """Strongly connected components inside components: ``size`` loops of ``size`` claims
    each closed into a loop of loops, ``levels`` times (``size ** levels`` claims). Each
    innermost loop has its own evidence entry and each link between loops needs one more
    evidence item, so the loops are founded in several nested ways."""
    rng = random.Random(seed)
    evidence: list[str] = []
    pairs: list[tuple[str, list[str]]] = []
    counter = [0]

    def fresh_evidence() -> str:
        evidence.append(f"e{len(evidence)}")
        return evidence[-1]

    def build(level: int) -> list[str]:
        """Claims of one loop at this level; returns them (first = entry, last = exit)."""
        if level == 0:
            claims = [f"c{counter[0] + i}" for i in range(size)]
            counter[0] += size
            for i, c in enumerate(claims):
                pairs.append((c, [claims[i - 1]]))
            pairs.append((claims[rng.randrange(size)], [fresh_evidence()]))
            return claims
        parts = [build(level - 1) for _ in range(size)]
        for i, part in enumerate(parts):
            previous = parts[i - 1]
            pairs.append((part[0], [previous[-1], fresh_evidence()]))
        return [c for part in parts for c in part]

    claims = build(levels - 1)
    return SupportStructure.build(evidence, claims, pairs)


def memory(
    claims: int,
    seed: int = 0,
    evidence_per_claim: float = 0.2,
    back_edges: float = 0.0,
    window: int = 200,
    evidence_share: float = 0.5,
    max_depth: int | None = 4,
) -> SupportStructure:
    """An agent-memory graph: ``claims`` claims and ``evidence_per_claim * claims`` evidence.

    Each claim gets 1-3 justifications of 1-3 antecedents; each antecedent is evidence with
    probability ``evidence_share`` (else an earlier claim), drawn from the ``window`` most
    recent items of its kind. With probability ``back_edges`` an antecedent is a *later*
    claim instead, which creates support cycles.
    """
    rng = random.Random(seed)
    n_evidence = max(1, int(claims * evidence_per_claim))
    ev = [f"e{i}" for i in range(n_evidence)]
    cl = [f"c{i}" for i in range(claims)]
    pairs: list[tuple[str, list[str]]] = []
    depth = [0] * claims
    for position, claim in enumerate(cl):
        # evidence arrives along with the claims built on it
        newest_evidence = max(1, int(position * evidence_per_claim) + 1)
        for _ in range(rng.randint(1, 3)):
            chosen = set()
            for _ in range(rng.randint(1, 3)):
                roll = rng.random()
                if roll < back_edges and position + 1 < claims:
                    chosen.add(cl[rng.randint(position + 1, min(claims - 1, position + window))])
                elif position == 0 or rng.random() < evidence_share:
                    low = max(0, newest_evidence - window)
                    chosen.add(ev[rng.randint(low, min(newest_evidence, n_evidence) - 1)])
                else:
                    other = rng.randint(max(0, position - window), position - 1)
                    if max_depth is not None and depth[other] + 1 >= max_depth:
                        low = max(0, newest_evidence - window)
                        chosen.add(ev[rng.randint(low, min(newest_evidence, n_evidence) - 1)])
                    else:
                        chosen.add(cl[other])
                        depth[position] = max(depth[position], depth[other] + 1)
            pairs.append((claim, sorted(chosen)))
    return SupportStructure.build(ev, cl, pairs)


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Write a generated benchmark graph as a graph file."
    )
    parser.add_argument("shape", choices=["layered", "memory"])
    parser.add_argument("out", help="output graph file")
    parser.add_argument("--claims", type=int, default=1000, help="memory: number of claims")
    parser.add_argument(
        "--back-edges", type=float, default=0.0, help="memory: fraction of back-edges"
    )
    parser.add_argument("--evidence", type=int, default=40, help="layered: evidence items")
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--width", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.shape == "layered":
        structure = layered(args.evidence, args.layers, args.width, args.seed)
    else:
        structure = memory(args.claims, args.seed, back_edges=args.back_edges)
    save_graph(structure, args.out)
    print(f"wrote {args.out}: {structure!r}")


if __name__ == "__main__":
    main()
