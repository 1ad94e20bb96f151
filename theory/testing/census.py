"""What a stream of generated (graph, audit) pairs contains: the census behind the stated
distribution of :mod:`theory.testing.strategies` (docs/fuzzing.md).

A rule that is wrong only on some shape (a support loop of two or more claims whose outside
support an audit cuts) is found only if the generator draws that shape often enough; the
census counts, per pair:

- ``self_loop``: a claim with a justification naming itself (``c <- c, ...``);
- ``loop``: a support loop of two or more claims (a strongly connected component of at
  least two claims along antecedent -> claim edges);
- ``empty_audit``: the audit is empty;
- ``retires_nothing``: exact revision of the audit retires no node;
- ``retires_claim``: it retires at least one claim;
- ``retires_loop``: it retires a claim of a loop of two or more claims (the case where
  a rule that lets a loop keep itself goes wrong).

>>> from theory import SupportStructure
>>> g = SupportStructure.build(["e"], ["a", "b"], [("a", ["e"]), ("a", ["b"]), ("b", ["a"])])
>>> sorted(k for k, v in case_features(g, frozenset({"e"})).items() if v)
['loop', 'retires_claim', 'retires_loop']
"""

from __future__ import annotations

from dataclasses import dataclass, field

from theory.model.graphalgo import strongly_connected_components
from theory.model.index import index_of
from theory.model.structure import SupportStructure
from theory.semantics.revision import exact

FEATURES = (
    "self_loop",
    "loop",
    "empty_audit",
    "retires_nothing",
    "retires_claim",
    "retires_loop",
)
"""The features a census counts, in report order."""


def loop_claims(structure: SupportStructure, *, self_loops: bool = False) -> frozenset[str]:
    """The claims on a support loop of two or more claims (with ``self_loops``, also the
    claims that name themselves in a justification)."""
    index = index_of(structure)
    claims = [n for n in range(index.size) if not index.is_evidence[n]]
    members: set[str] = set()
    for component in strongly_connected_components(index, claims):
        if len(component) > 1:
            members.update(index.ids[n] for n in component)
    if self_loops:
        members.update(j.claim for j in structure.justifications if j.claim in j.antecedents)
    return frozenset(members)


def case_features(structure: SupportStructure, audit: frozenset[str]) -> dict[str, bool]:
    """Which of :data:`FEATURES` the pair (``structure``, ``audit``) has."""
    looped = loop_claims(structure)
    retired = exact(structure, audit)
    return {
        "self_loop": any(j.claim in j.antecedents for j in structure.justifications),
        "loop": bool(looped),
        "empty_audit": not audit,
        "retires_nothing": not retired,
        "retires_claim": bool(retired & structure.claims),
        "retires_loop": bool(retired & looped),
    }


@dataclass
class Census:
    """Counts of :data:`FEATURES` over the pairs :meth:`add` was given."""

    examples: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FEATURES, 0))

    def add(self, structure: SupportStructure, audit: frozenset[str]) -> None:
        self.examples += 1
        for name, present in case_features(structure, audit).items():
            self.counts[name] += present

    def shares(self) -> dict[str, float]:
        """Each feature's share of the examples (0 to 1, three decimals)."""
        return {
            k: round(v / self.examples, 3) if self.examples else 0.0 for k, v in self.counts.items()
        }

    def to_dict(self) -> dict[str, object]:
        return {"examples": self.examples, "counts": dict(self.counts), "shares": self.shares()}


__all__ = ["FEATURES", "Census", "case_features", "loop_claims"]
