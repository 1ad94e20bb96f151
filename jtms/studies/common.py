"""Shared pieces of the studies: rules, the deterministic embedding, contexts, the answerer.

Rules
-----
A *rule* is a callable ``(structure, audit) -> retired ids`` (the protocol of
:mod:`theory.revision`). The default ``exact`` rule is the production engine: a
:class:`jtms.reconsolidation.Memory` (SQLite, ``:memory:``) imports the world and runs the
audit; the retired set is the engine's. ``none`` and ``influence`` are
:func:`theory.revision.none` and :func:`theory.revision.influence`. Any rule can be
replaced (``rules={"exact": my_rule}``), so a wrong rule is caught by the studies.

Ground truth is computed independently of every rule: the least fixpoint of the world with
the audited nodes forced inactive (:func:`theory.fixpoint.active_state`).

Contexts
--------
After a rule has run, the working context is what a memory revised by that rule would show.
For the engine's exact rule it is the engine's own compilation
(:meth:`Memory.context`). For any other rule (a plain function), the memory keeps the
support it recorded before the audit (it does not re-evaluate justifications): every claim
the rule leaves active is rendered with its pre-audit certificate (taken from the engine
before the audit), in the engine's line format, and the nodes the rule retired are listed
as withdrawn.

The answerer
------------
:func:`answer` reads only the text of a compiled context. For a question about node ``t``:

1. a line ``- [claim] t...`` or ``- [evidence] t...`` in the working-memory part: verdict
   ``supported``; the citations are ``t``'s support read off the context: the ids in its
   ``because`` list, recursively through the claim lines they name, down to evidence;
2. otherwise ``t`` listed under "Withdrawn": verdict ``withdrawn``, no citation;
3. otherwise: verdict ``unknown`` (abstain).

An answer is *grounded* when its verdict equals the ground truth (``supported`` iff ``t``
is active after the exact revision) and none of its citations is a node that is inactive
in the ground truth. A language model may be plugged in instead (any callable
``(context_text, question) -> Answer``); nothing requires one.
"""

from __future__ import annotations

import hashlib
import math
import re
import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from theory.fixpoint import active_state
from theory import revision
from theory.structure import SupportStructure

from jtms.context import HEADER, WITHDRAWN_HEADER, _claim_line, _evidence_line
from jtms.reconsolidation import Memory

RuleFn = Callable[[SupportStructure, frozenset], frozenset]
RULE_NAMES = ("exact", "none", "influence")


# --- rules ------------------------------------------------------------------------------------
def new_memory() -> Memory:
    """A production memory in SQLite ``:memory:`` (no file, no fsync)."""
    return Memory.create(":memory:", durability="off")


def engine_exact(structure: SupportStructure, audit: frozenset) -> frozenset:
    """The production engine's exact revision (import the world, audit, read what retired)."""
    with new_memory() as memory:
        memory.import_graph(structure, source="study")
        return frozenset(memory.audit(sorted(audit), reason="study audit").retired)


engine_exact.__name__ = "exact"

DEFAULT_RULES: dict[str, RuleFn] = {
    "exact": engine_exact,
    "none": revision.none,
    "influence": revision.influence,
}


def resolve_rules(rules: Mapping[str, RuleFn] | None) -> dict[str, RuleFn]:
    """The default rules with any given ones replacing or adding to them."""
    result = dict(DEFAULT_RULES)
    result.update(rules or {})
    return result


def truth_active(structure: SupportStructure, audit: Iterable[str]) -> frozenset[str]:
    """Ground truth after an audit: the least fixpoint with the audited nodes forced inactive."""
    return active_state(structure, blocked=audit)


# --- deterministic local embedding ------------------------------------------------------------
EMBEDDING_DIM = 64
_WORD = re.compile(r"\w+")


def embed(text: str, dim: int = EMBEDDING_DIM) -> tuple[float, ...]:
    """Feature-hashed bag of words and bigrams (blake2b), L2-normalised; no model, no state."""
    words = [w.lower() for w in _WORD.findall(text)]
    features = words + [f"{a} {b}" for a, b in zip(words, words[1:])]
    vector = [0.0] * dim
    for feature in features:
        digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
        slot = int.from_bytes(digest[:4], "little") % dim
        vector[slot] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return tuple(round(v / norm, 6) for v in vector)


def embedding_bytes(vector: Sequence[float]) -> bytes:
    return struct.pack(f"<{len(vector)}d", *vector)


# --- contexts ---------------------------------------------------------------------------------
@dataclass
class RuleOutcome:
    """What one rule did to one world: retired nodes, the state after, the context text."""

    rule: str
    retired: frozenset[str]
    active: frozenset[str]
    context: str = ""
    seconds: float = 0.0


def pre_audit_certificates(memory: Memory, claims: Iterable[str]) -> dict[str, tuple]:
    """claim -> its certificate (steps ``(claim, antecedents)``) in the memory as it is now."""
    result = {}
    for claim in claims:
        explanation = memory.explain(claim)
        if explanation.active:
            result[claim] = tuple((s.claim, tuple(s.antecedents)) for s in explanation.certificate)
    return result


def render_rule_context(structure: SupportStructure, active: frozenset[str],
                        retired: Iterable[str], certificates: Mapping[str, tuple],
                        reason: str = "study audit") -> str:
    """The context of a memory that applied a rule without re-evaluating justifications.

    Every claim the rule leaves active appears with its recorded (pre-audit) certificate;
    evidence lines only for active evidence; retired nodes are listed as withdrawn.
    """
    lines: list[str] = []
    seen: set[str] = set()
    for claim in sorted(c for c in structure.claims if c in active):
        for step_claim, antecedents in certificates.get(claim, ()):
            if step_claim in seen:
                continue
            for a in antecedents:
                if a in structure.evidence and a in active and a not in seen:
                    seen.add(a)
                    lines.append(_evidence_line(a, structure.nodes[a].text))
            seen.add(step_claim)
            lines.append(_claim_line(step_claim, structure.nodes[step_claim].text, antecedents))
    parts = [HEADER] + lines
    withdrawn = sorted(retired)
    if withdrawn:
        parts.append(WITHDRAWN_HEADER)
        parts.extend(f"- {node} (audit 1: {reason})" for node in withdrawn)
    return "\n".join(parts)


_CLAIM = re.compile(r"^- \[claim\] (\S+?)(?::.*)? \(because (.*)\)$")
_EVIDENCE = re.compile(r"^- \[evidence\] (\S+?)(?::.*)?$")
_WITHDRAWN = re.compile(r"^- (\S+) \(audit ")


@dataclass(frozen=True)
class ParsedContext:
    claims: dict[str, tuple[str, ...]]       # claim id -> the ids in its because list
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
            continue
        if line == WITHDRAWN_HEADER:
            section = "withdrawn"
            continue
        if section == "memory":
            m = _CLAIM.match(line)
            if m:
                because = m.group(2)
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


def contaminated_citations(text: str, truth: frozenset[str]) -> int:
    """Occurrences, in the working-memory part, of nodes inactive in the ground truth: as an
    active claim line, as an evidence line, or in a ``because`` list."""
    parsed = parse_context(text)
    count = sum(1 for c in parsed.claims if c not in truth)
    count += sum(1 for e in parsed.evidence if e not in truth)
    count += sum(1 for ants in parsed.claims.values() for a in ants if a not in truth)
    return count


@dataclass(frozen=True)
class Question:
    id: str
    target: str
    text: str


@dataclass(frozen=True)
class Answer:
    verdict: str                      # supported | withdrawn | unknown
    citations: tuple[str, ...] = ()


Answerer = Callable[[str, Question], Answer]


def answer(context_text: str, question: Question) -> Answer:
    """The deterministic answerer (rule in the module docstring): only the context text."""
    parsed = parse_context(context_text)
    target = question.target
    if target in parsed.claims or target in parsed.evidence:
        cited: list[str] = []
        stack = list(parsed.claims.get(target, ()))
        while stack:
            node = stack.pop()
            if node in cited:
                continue
            cited.append(node)
            stack.extend(parsed.claims.get(node, ()))
        return Answer("supported", tuple(sorted(cited)))
    if target in parsed.withdrawn:
        return Answer("withdrawn")
    return Answer("unknown")


def grounded(ans: Answer, question: Question, truth: frozenset[str]) -> bool:
    expected = "supported" if question.target in truth else "withdrawn"
    return ans.verdict == expected and all(c in truth for c in ans.citations)


@dataclass
class Endpoint:
    """One reported endpoint: a value per rule and, where one is stated, the expected value."""

    key: str
    label: str
    values: dict[str, object]
    total: int | None = None
    expected: dict[str, object] = field(default_factory=dict)

    def ok(self, rule: str) -> bool:
        return rule not in self.expected or self.values.get(rule) == self.expected[rule]

    def as_dict(self) -> dict:
        return {"key": self.key, "label": self.label, "total": self.total,
                "values": self.values, "expected": self.expected,
                "ok": {r: self.ok(r) for r in self.values}}


@dataclass
class StudyResult:
    name: str
    rules: list[str]
    endpoints: list[Endpoint]
    details: dict = field(default_factory=dict)
    seconds: float = 0.0

    def failures(self, rule: str = "exact") -> list[str]:
        return [e.key for e in self.endpoints if rule in e.values and not e.ok(rule)]

    def as_dict(self) -> dict:
        return {"study": self.name, "rules": self.rules,
                "endpoints": [e.as_dict() for e in self.endpoints],
                "failures": self.failures(), "details": self.details,
                "seconds": round(self.seconds, 4)}
