"""Readers: answer a delayed question from the text of a working context, and nothing else.

Two deterministic readers stand in for the paper's language model; any callable
``(context_text, question) -> Answer`` can replace or join them (``--answerer``).

*literal* (:func:`literal`): a claim or evidence line for the target means ``supported``,
citing the ids of its ``because`` list, recursively through the claim lines they name;
otherwise the target listed under "Withdrawn" means ``withdrawn``; otherwise ``unknown``.
It cannot use a correction it sees unless the correction names the target itself.

*careful* (:func:`careful`): what the paper's model did with the same rendering. It uses the
withdrawn list and follows the ``because`` chain: the target withdrawn, or any id on its
chain withdrawn, means ``withdrawn``; a chain that names an id with no line (support not
shown) means ``unknown``; otherwise ``supported`` with the chain as citations.

>>> text = "\\n".join([HEADER, "- [evidence] e: x", "- [claim] c: y (because e and z)",
...                    WITHDRAWN_HEADER, "- z (audit 1: bad)"])
>>> literal(text, Question("q", "c", "")).verdict, careful(text, Question("q", "c", "")).verdict
('supported', 'withdrawn')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from jtms.memory.context import HEADER, WITHDRAWN_HEADER

_CLAIM = re.compile(r"^- \[claim\] (\S+?)(?::.*)? \(because (.*)\)$")
_EVIDENCE = re.compile(r"^- \[evidence\] (\S+?)(?::.*)?$")
_WITHDRAWN = re.compile(r"^- (\S+) \(audit ")


@dataclass(frozen=True)
class Question:
    id: str
    target: str  # the node the question is about (kept for scoring, not shown)
    text: str


@dataclass(frozen=True)
class Answer:
    verdict: str  # supported | withdrawn | unknown
    citations: tuple[str, ...] = ()


Answerer = Callable[[str, Question], Answer]


@dataclass(frozen=True)
class ParsedContext:
    claims: dict[str, tuple[str, ...]]  # claim id -> the ids in its because list
    evidence: frozenset[str]
    withdrawn: frozenset[str]


def parse_context(text: str) -> ParsedContext:
    """The claims (with their because lists), evidence and withdrawn ids of a context text."""
    claims: dict[str, tuple[str, ...]] = {}
    evidence: set[str] = set()
    withdrawn: set[str] = set()
    section = None
    for line in text.splitlines():
        if line == HEADER:
            section = "memory"
        elif line == WITHDRAWN_HEADER:
            section = "withdrawn"
        elif section == "memory":
            m = _CLAIM.match(line)
            if m:
                because = m.group(2).split(";")[0]  # first support; later ones: alternatives
                claims[m.group(1)] = () if because == "premise" else tuple(because.split(" and "))
                continue
            m = _EVIDENCE.match(line)
            if m:
                evidence.add(m.group(1))
        elif section == "withdrawn":
            m = _WITHDRAWN.match(line)
            if m:
                withdrawn.add(m.group(1))
    return ParsedContext(claims, frozenset(evidence), frozenset(withdrawn))


def _chain(parsed: ParsedContext, target: str) -> list[str]:
    cited: list[str] = []
    stack = list(parsed.claims.get(target, ()))
    while stack:
        node = stack.pop()
        if node in cited:
            continue
        cited.append(node)
        stack.extend(parsed.claims.get(node, ()))
    return sorted(cited)


def literal(context_text: str, question: Question) -> Answer:
    """The literal reader (module docstring)."""
    parsed = parse_context(context_text)
    target = question.target
    if target in parsed.claims or target in parsed.evidence:
        return Answer("supported", tuple(_chain(parsed, target)))
    if target in parsed.withdrawn:
        return Answer("withdrawn")
    return Answer("unknown")


def careful(context_text: str, question: Question) -> Answer:
    """The careful reader (module docstring)."""
    parsed = parse_context(context_text)
    target = question.target
    if target in parsed.withdrawn:
        return Answer("withdrawn")
    if target not in parsed.claims and target not in parsed.evidence:
        return Answer("unknown")
    chain = _chain(parsed, target)
    if any(node in parsed.withdrawn for node in chain):
        return Answer("withdrawn")
    if any(node not in parsed.claims and node not in parsed.evidence for node in chain):
        return Answer("unknown")
    return Answer("supported", tuple(chain))


READERS: dict[str, Answerer] = {"literal": literal, "careful": careful}


def resolve_readers(
    answerer: Answerer | None = None, readers: Mapping[str, Answerer] | None = None
) -> dict[str, Answerer]:
    """The two deterministic readers (or ``readers``), plus ``answerer`` as "answerer"."""
    result = dict(READERS if readers is None else readers)
    if answerer is not None:
        result["answerer"] = answerer
    return result
