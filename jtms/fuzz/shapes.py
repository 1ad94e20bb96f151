"""Distinct shapes: an isomorphism-invariant fingerprint of a (graph, audit) pair.

Node ids are arbitrary labels, so the fuzz report counts *shapes*: graphs up to renaming,
with the audit marked. The fingerprint is a Weisfeiler-Lehman colour refinement over nodes
and justifications (hyperedges). Isomorphic pairs always get the same fingerprint; two
non-isomorphic ones almost always differ (WL cannot separate some regular graphs, so the
count is a lower bound).
"""

from __future__ import annotations

from collections.abc import Iterable

from theory.model.structure import Kind, SupportStructure


def shape(structure: SupportStructure, audit: Iterable[str] = (), rounds: int = 3) -> int:
    audit = frozenset(audit)
    colour = {
        n.id: hash((n.kind is Kind.EVIDENCE, n.id in audit)) for n in structure.nodes.values()
    }
    justifications = structure.justifications
    for _ in range(rounds):
        signature_of_just = [
            hash((colour[j.claim], tuple(sorted(colour[a] for a in j.antecedents))))
            for j in justifications
        ]
        incoming: dict[str, list[int]] = {n: [] for n in colour}
        outgoing: dict[str, list[int]] = {n: [] for n in colour}
        for j, signature in zip(justifications, signature_of_just):
            incoming[j.claim].append(signature)
            for a in j.antecedents:
                outgoing[a].append(signature)
        colour = {
            n: hash((c, tuple(sorted(incoming[n])), tuple(sorted(outgoing[n]))))
            for n, c in colour.items()
        }
    return hash(
        (
            tuple(sorted(colour.values())),
            tuple(
                sorted(
                    hash((colour[j.claim], tuple(sorted(colour[a] for a in j.antecedents))))
                    for j in justifications
                )
            ),
        )
    )
