"""The hypothesis strategy the solver-core tests share: a support structure with support
loops, and one of its claims."""

from hypothesis import strategies as st

from theory.testing import strategies as jst


@st.composite
def structure_and_claim(draw, max_evidence=8, max_claims=8):
    structure = draw(
        jst.support_structures(max_evidence=max_evidence, max_claims=max_claims, cycles=True)
    )
    return structure, draw(st.sampled_from(sorted(structure.claims)))
