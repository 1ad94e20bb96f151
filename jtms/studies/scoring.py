"""Scoring answers and contexts against the ground truth (the exactly revised state).

An answer is *grounded* when its verdict is the truth (``supported`` iff the target is
active after the exact revision) and none of its citations is inactive in the truth.
*Contaminated citations in answers* (the paper's count) are the citations of withdrawn
descendants: nodes the exact revision retires besides the audited roots. *Contaminated
context lines* (a second figure) are the occurrences, in the working-memory part of a
context, of a node inactive in the truth: as an active line or inside a ``because`` list.

>>> truth = frozenset({"e"})
>>> grounded(Answer("supported", ("e",)), Question("q", "e", ""), truth)
True
>>> grounded(Answer("supported", ("x",)), Question("q", "e", ""), truth)
False
"""

from __future__ import annotations

from collections.abc import Iterable

from jtms.studies.readers import Answer, Question, parse_context


def grounded(answer: Answer, question: Question, truth: frozenset[str]) -> bool:
    expected = "supported" if question.target in truth else "withdrawn"
    return answer.verdict == expected and all(c in truth for c in answer.citations)


def cited_descendants(answers: Iterable[Answer], descendants: frozenset[str]) -> int:
    """Citations, over all ``answers``, of withdrawn descendants (the paper's contamination)."""
    return sum(1 for a in answers for c in a.citations if c in descendants)


def contaminated_lines(text: str, truth: frozenset[str]) -> int:
    """Occurrences, in the working-memory part, of nodes inactive in the ground truth."""
    parsed = parse_context(text)
    count = sum(1 for c in parsed.claims if c not in truth)
    count += sum(1 for e in parsed.evidence if e not in truth)
    count += sum(1 for ants in parsed.claims.values() for a in ants if a not in truth)
    return count
