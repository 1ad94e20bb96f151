"""Public hypothesis strategies for support structures, memory graphs and audits.

Use them to fuzz your own revision rule against :func:`theory.revision.exact`::

    from hypothesis import given
    from theory import strategies as jst

    @given(jst.graphs_with_audits(cycles=True))
    def test_my_rule(case):
        structure, audit = case
        assert my_rule(structure, audit) == exact(structure, audit)

Every strategy shrinks towards fewer nodes, fewer justifications and smaller audits.
"""

from __future__ import annotations

from hypothesis import strategies as st

from theory.structure import SupportStructure

__all__ = ["audits", "evidence_audits", "graphs_with_audits", "support_structures"]


@st.composite
def support_structures(
    draw,
    min_evidence: int = 1,
    max_evidence: int = 5,
    min_claims: int = 1,
    max_claims: int = 6,
    max_justifications: int = 3,
    max_antecedents: int = 3,
    cycles: bool = True,
    premises: bool = True,
) -> SupportStructure:
    """A random memory graph.

    Claims are ``c0..``, evidence ``e0..``. With ``cycles=False`` a claim's antecedents
    are evidence or earlier claims (a DAG); with ``cycles=True`` any claim may be used, so
    support loops occur. ``premises`` allows empty justifications.
    """
    n_evidence = draw(st.integers(min_evidence, max_evidence))
    n_claims = draw(st.integers(min_claims, max_claims))
    evidence = [f"e{i}" for i in range(n_evidence)]
    claims = [f"c{i}" for i in range(n_claims)]
    justifications = []
    for position, claim in enumerate(claims):
        pool = evidence + (claims if cycles else claims[:position])
        count = draw(st.integers(0, max_justifications), label=f"justifications of {claim}")
        for _ in range(count):
            low = 0 if premises else 1
            antecedents = draw(
                st.lists(st.sampled_from(pool), min_size=low, max_size=max_antecedents, unique=True)
                if pool
                else st.just([])
            )
            if not antecedents and not premises:
                continue
            justifications.append((claim, antecedents))
    return SupportStructure.build(evidence, claims, justifications)


def audits(structure: SupportStructure, evidence_only: bool = False, min_size: int = 0):
    """Audits of ``structure``: sets of node ids (evidence only if asked)."""
    pool = sorted(structure.evidence if evidence_only else structure.nodes)
    if not pool:
        return st.just(frozenset())
    return st.frozensets(st.sampled_from(pool), min_size=min_size, max_size=len(pool))


def evidence_audits(structure: SupportStructure, min_size: int = 0):
    return audits(structure, evidence_only=True, min_size=min_size)


@st.composite
def graphs_with_audits(draw, evidence_only: bool = False, **graph_options):
    """A pair (structure, audit)."""
    structure = draw(support_structures(**graph_options))
    return structure, draw(audits(structure, evidence_only=evidence_only))
