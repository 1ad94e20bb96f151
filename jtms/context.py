"""Working-context compilation: the active memory rendered under a token budget.

Each active claim enters together with its certificate: the support-pointer derivation of
:meth:`theory.incremental.SupportState.certificate`, a surviving justification for it and,
recursively, for every claim that justification uses, down to active evidence. So every
line of support in the context is active; withdrawn items never appear as support. A short
list at the end says what was withdrawn and why.

Ranking: claims matching more of the query's words come first, then the most recently
added. Claims are taken greedily in that order while their lines (those not already in the
context) fit in the budget.

Token count (no model is downloaded): :func:`count_tokens` counts words and punctuation
marks (regex ``\\w+|[^\\w\\s]``) and takes the larger of that and ``ceil(characters / 4)``.
For English prose, BPE tokenizers of current models give about 1.3 tokens per word, i.e.
close to ``characters / 4``; ids such as ``c123`` count as one word but may cost a BPE
tokenizer 2-3 tokens, which the character bound covers. Treat the budget as approximate
(leave a margin of ~15% when a hard model limit matters).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from jtms.reconsolidation import Memory

_TOKEN = re.compile(r"\w+|[^\w\s]")
_WORD = re.compile(r"\w+")
WITHDRAWN_LIMIT = 10


def count_tokens(text: str) -> int:
    """Approximate model tokens of ``text`` (see the module docstring)."""
    return max(len(_TOKEN.findall(text)), math.ceil(len(text) / 4))


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


@dataclass(frozen=True)
class ContextClaim:
    id: str
    text: str
    justification: tuple[str, ...]
    score: float


@dataclass
class Context:
    budget: int
    query: str | None
    tokens: int = 0
    evidence: list[tuple[str, str]] = field(default_factory=list)
    claims: list[ContextClaim] = field(default_factory=list)        # support before use
    requested: list[str] = field(default_factory=list)              # ranked claims taken
    withdrawn: list[dict[str, Any]] = field(default_factory=list)
    omitted: int = 0                                                # ranked claims left out
    text: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "budget": self.budget,
            "tokens": self.tokens,
            "query": self.query,
            "claims": [{"id": c.id, "text": c.text, "justification": list(c.justification),
                        "score": c.score} for c in self.claims],
            "evidence": [{"id": i, "text": t} for i, t in self.evidence],
            "selected": self.requested,
            "withdrawn": self.withdrawn,
            "omitted": self.omitted,
            "text": self.text,
        }


def _evidence_line(node_id: str, text: str) -> str:
    return f"- [evidence] {node_id}: {text}".rstrip(": ") if text else f"- [evidence] {node_id}"


def _claim_line(node_id: str, text: str, justification: tuple[str, ...]) -> str:
    because = " and ".join(justification) if justification else "premise"
    body = f"{node_id}: {text}" if text else node_id
    return f"- [claim] {body} (because {because})"


def _withdrawn_line(item: dict[str, Any]) -> str:
    reason = f": {item['reason']}" if item.get("reason") else ""
    return f"- {item['id']} (audit {item['audit']}{reason})"


HEADER = "Working memory (each claim follows from lines above it)"
WITHDRAWN_HEADER = "Withdrawn (do not rely on these)"


def compile_context(memory: "Memory", budget: int, query: str | None = None) -> Context:
    """The context for ``memory`` within ``budget`` tokens (see the module docstring)."""
    state = memory.state  # Memory.context runs this inside one snapshot
    index = state.index
    ids = index.ids
    created = memory.creation_events()
    texts: dict[str, tuple[str, int]] = {
        node_id: (text, created[node_id]) for node_id, text in memory.texts().items()}
    result = Context(budget, query)
    used = 0

    header_cost = count_tokens(HEADER)
    withdrawn = memory.withdrawn()[:WITHDRAWN_LIMIT]
    withdrawn_lines: list[str] = []
    if withdrawn and header_cost + count_tokens(WITHDRAWN_HEADER) <= budget // 4:
        used = header_cost + count_tokens(WITHDRAWN_HEADER)
        for item in withdrawn:
            line = _withdrawn_line(item)
            if used + count_tokens(line) > budget // 4:
                break
            withdrawn_lines.append(line)
            result.withdrawn.append(item)
            used += count_tokens(line)
        if not withdrawn_lines:
            used = 0
    if not used:
        if header_cost > budget:
            return result  # not even the header fits: an empty context
        used = header_cost

    query_words = _words(query) if query else set()
    ranked = []
    for n, flag in enumerate(state.active):
        if flag and not index.is_evidence[n]:
            node_id = ids[n]
            text, event = texts[node_id]
            score = (len(query_words & (_words(text) | _words(node_id))) / len(query_words)
                     if query_words else 0.0)
            ranked.append((-score, -event, node_id, n, score))
    ranked.sort()

    included: set[int] = set()
    lines: list[str] = []
    misses = 0
    for _, _, node_id, n, score in ranked:
        if n in included:
            result.requested.append(node_id)
            continue
        if misses >= 200:  # budget exhausted: stop scanning the long tail
            result.omitted += 1
            continue
        steps = state.certificate(n)
        new_lines: list[str] = []
        new_nodes: list[int] = []
        new_claims: list[ContextClaim] = []
        new_evidence: list[tuple[str, str]] = []
        for claim, j in steps:
            if claim in included or claim in new_nodes:
                continue
            for a in index.just_antecedents[j]:
                if index.is_evidence[a] and a not in included and a not in new_nodes:
                    new_nodes.append(a)
                    new_lines.append(_evidence_line(ids[a], texts[ids[a]][0]))
                    new_evidence.append((ids[a], texts[ids[a]][0]))
            justification = tuple(sorted(ids[a] for a in index.just_antecedents[j]))
            new_nodes.append(claim)
            text = texts[ids[claim]][0]
            new_lines.append(_claim_line(ids[claim], text, justification))
            new_claims.append(ContextClaim(ids[claim], text, justification,
                                           score if claim == n else 0.0))
        cost = sum(count_tokens(line) for line in new_lines)
        if used + cost > budget:
            result.omitted += 1
            misses += 1
            continue
        misses = 0
        used += cost
        included.update(new_nodes)
        lines.extend(new_lines)
        result.claims.extend(new_claims)
        result.evidence.extend(new_evidence)
        result.requested.append(node_id)

    parts = []
    if used:
        parts.append(HEADER)
        parts.extend(lines)
    if withdrawn_lines:
        parts.append(WITHDRAWN_HEADER)
        parts.extend(withdrawn_lines)
    result.text = "\n".join(parts)
    result.tokens = sum(count_tokens(p) for p in parts)
    return result


def render_text(context: Context) -> str:
    footer = f"[{context.tokens} of {context.budget} tokens; {len(context.requested)} claim(s)"
    footer += f", {context.omitted} left out]" if context.omitted else "]"
    return (context.text + "\n" if context.text else "") + footer
