"""Working-context compilation: the active memory rendered under a token budget.

Each active claim enters together with its certificate: the support-pointer derivation of
:meth:`jtms.engine.incremental.SupportState.certificate`, a surviving justification for it and,
recursively, for every claim that justification uses, down to active evidence. So every
``because`` in the context refers to lines above it, and withdrawn items never appear as
support. Every other intact justification of a rendered claim (every antecedent active)
follows its certificate on the same line, ``also supported by ...``: a claim's line is
priced with all of them when the claim is taken, so a claim is shown with every intact
support or not at all, however large the memory (the budget never runs out between a claim
and its alternatives). A short list at the end says what was withdrawn and why.

:func:`compile_context` runs in named phases:

1. :func:`_withdrawn_section`: at most :data:`WITHDRAWN_LIMIT` lines, at most
   1/:data:`WITHDRAWN_SHARE` of the budget, most recent audit first;
2. :func:`_ranked`: active claims ranked by the memory's full-text search for the query
   (:meth:`jtms.memory.memory.Memory.search`'s score), then the most recently added;
3. :func:`_select`: claims taken greedily in that order, each with the part of its
   certificate not yet in the context (every claim line with all its intact justifications,
   :func:`_alternatives`), while the lines fit. The certificate walk never enters
   the context already built and stops once it has more claims than the remaining budget can
   render (:data:`MIN_CLAIM_LINE_TOKENS` each), so each try costs at most what it could
   render; after :data:`MISSES_BEFORE_STOP` consecutive claims that do not fit, the rest are
   counted as left out without being tried;
4. :func:`_render`: the text and its token count.

The time is linear in what is rendered plus the ranking (one pass over the active claims):
see benchmarks/bench_context.py.

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
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from jtms.engine.incremental import GrowingIndex, SupportState
    from jtms.memory.memory import Memory

_TOKEN = re.compile(r"\w+|[^\w\s]")

WITHDRAWN_LIMIT = 10  # lines of the withdrawn list, at most
WITHDRAWN_SHARE = 4  # the withdrawn list takes at most 1/WITHDRAWN_SHARE of the budget
MISSES_BEFORE_STOP = 200  # consecutive ranked claims that do not fit before the scan stops
HEADER = "Working memory (each claim follows from lines above it)"
WITHDRAWN_HEADER = "Withdrawn (do not rely on these)"


def count_tokens(text: str) -> int:
    """Approximate model tokens of ``text`` (see the module docstring).

    >>> count_tokens("c1 <- e0")
    4
    """
    return _cost(len(_TOKEN.findall(text)), len(text))


def _cost(words: int, characters: int) -> int:
    """Tokens of a text of ``words`` words and marks and ``characters`` characters."""
    return max(words, math.ceil(characters / 4))


# the fewest tokens a certificate line can cost (one-character ids, no text)
MIN_CLAIM_LINE_TOKENS = count_tokens("- [claim] x (because y)")


@dataclass(frozen=True)
class ContextClaim:
    """One claim line: the certificate's justification and the other intact ones shown."""

    id: str
    text: str
    justification: tuple[str, ...]
    score: float
    also: tuple[tuple[str, ...], ...] = ()


@dataclass
class Context:
    budget: int
    query: str | None
    tokens: int = 0
    evidence: list[tuple[str, str]] = field(default_factory=list)
    claims: list[ContextClaim] = field(default_factory=list)  # support before use
    requested: list[str] = field(default_factory=list)  # ranked claims taken
    withdrawn: list[dict[str, Any]] = field(default_factory=list)
    omitted: int = 0  # ranked claims left out
    text: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "budget": self.budget,
            "tokens": self.tokens,
            "query": self.query,
            "claims": [
                {
                    "id": c.id,
                    "text": c.text,
                    "justification": list(c.justification),
                    "also_supported_by": [list(a) for a in c.also],
                    "score": c.score,
                }
                for c in self.claims
            ],
            "evidence": [{"id": i, "text": t} for i, t in self.evidence],
            "selected": self.requested,
            "withdrawn": self.withdrawn,
            "omitted": self.omitted,
            "text": self.text,
        }


def _evidence_line(node_id: str, text: str) -> str:
    return f"- [evidence] {node_id}: {text}" if text else f"- [evidence] {node_id}"


def _claim_line(
    node_id: str, text: str, justification: Sequence[str], also: Sequence[Sequence[str]] = ()
) -> str:
    """One claim line (also used by jtms.studies to render other rules' contexts)."""
    because = " and ".join(justification) if justification else "premise"
    body = f"{node_id}: {text}" if text else node_id
    shown = "; ".join(" and ".join(a) if a else "premise" for a in also)
    return f"- [claim] {body} (because {because}" + (
        f"; also supported by {shown})" if shown else ")"
    )


def _line(claim: ContextClaim) -> str:
    return _claim_line(claim.id, claim.text, claim.justification, claim.also)


def _withdrawn_line(item: dict[str, Any]) -> str:
    reason = f": {item['reason']}" if item.get("reason") else ""
    erased = "; content erased" if item.get("erased") else ""
    return f"- {item['id']} (audit {item['audit']}{reason}{erased})"


@dataclass
class _Draft:
    """The context being built: its lines (evidence ids or claim positions) and tokens used."""

    budget: int
    used: int = 0
    lines: list[str] = field(default_factory=list)
    costs: list[int] = field(default_factory=list)  # tokens of each line
    included: set[int] = field(default_factory=set)

    @property
    def left(self) -> int:
        return self.budget - self.used


def compile_context(memory: "Memory", budget: int, query: str | None = None) -> Context:
    """The context for ``memory`` within ``budget`` tokens (see the module docstring)."""
    state = memory.state  # Memory.context runs this inside one snapshot
    index = state.index
    created = memory.creation_events()
    texts: dict[str, tuple[str, int]] = {
        node_id: (text, created[node_id]) for node_id, text in memory.texts().items()
    }
    result = Context(budget, query)
    withdrawn = memory.withdrawn()
    erased = memory.erasures()
    for item in withdrawn:
        item["erased"] = item["id"] in erased
    withdrawn_lines = _withdrawn_section(withdrawn, budget, result)
    draft = _Draft(
        budget,
        used=count_tokens(HEADER)
        + sum(
            count_tokens(line)
            for line in ([WITHDRAWN_HEADER, *withdrawn_lines] if withdrawn_lines else [])
        ),
    )
    if draft.left < 0:  # not even the header fits: an empty context
        result.withdrawn = []
        return result
    scores = memory.search_scores(query) if query else {}
    ranked = _ranked(index, state, texts, scores)
    _select(index, state, texts, ranked, draft, result)
    _render(draft, withdrawn_lines, result)
    return result


def _withdrawn_section(items: list[dict[str, Any]], budget: int, result: Context) -> list[str]:
    """Phase 1: the withdrawn lines that fit in their share of the budget."""
    share = budget // WITHDRAWN_SHARE
    used = count_tokens(HEADER) + count_tokens(WITHDRAWN_HEADER)
    lines: list[str] = []
    for item in sorted(items, key=lambda i: (-int(i["audit"]), str(i["id"])))[:WITHDRAWN_LIMIT]:
        line = _withdrawn_line(item)
        if used + count_tokens(line) > share:
            break
        lines.append(line)
        result.withdrawn.append(item)
        used += count_tokens(line)
    return lines


def _ranked(
    index: "GrowingIndex",
    state: "SupportState",
    texts: dict[str, tuple[str, int]],
    scores: dict[str, float],
) -> list[tuple[float, int]]:
    """Phase 2: (score, claim) for the active claims, best first: by the score of the
    memory's search for the query (:meth:`Memory.search_scores`; 0 for a claim it does not
    find), then the most recently added."""
    ids = index.ids
    ranked = []
    for n, flag in enumerate(state.active):
        if flag and not index.is_evidence[n]:
            node_id = ids[n]
            _, event = texts[node_id]
            ranked.append((-scores.get(node_id, 0.0), -event, node_id, n))
    ranked.sort()
    return [(-negative, n) for negative, _, _, n in ranked]


def _select(
    index: "GrowingIndex",
    state: "SupportState",
    texts: dict[str, tuple[str, int]],
    ranked: list[tuple[float, int]],
    draft: _Draft,
    result: Context,
) -> None:
    """Phase 3: each ranked claim with the rest of its certificate, while the lines fit."""
    ids = index.ids
    misses = 0
    for score, n in ranked:
        if n in draft.included:
            result.requested.append(ids[n])
            continue
        if misses >= MISSES_BEFORE_STOP:
            result.omitted += 1
            continue
        steps = state.certificate_beyond(
            n, draft.included, limit=max(0, draft.left) // MIN_CLAIM_LINE_TOKENS
        )
        if steps is None:
            result.omitted += 1
            misses += 1
            continue
        new_lines: list[str] = []
        new_costs: list[int] = []
        new_evidence: list[int] = []
        new_claims: list[ContextClaim] = []
        cost = 0
        for claim, j in steps:
            for a in index.just_antecedents[j]:
                if index.is_evidence[a] and a not in draft.included and a not in new_evidence:
                    new_evidence.append(a)
                    new_lines.append(_evidence_line(ids[a], texts[ids[a]][0]))
                    new_costs.append(count_tokens(new_lines[-1]))
                    cost += new_costs[-1]
            entry = ContextClaim(
                ids[claim],
                texts[ids[claim]][0],
                tuple(sorted(ids[a] for a in index.just_antecedents[j])),
                score if claim == n else 0.0,
                _alternatives(index, state, claim, j),
            )
            new_claims.append(entry)
            new_lines.append(_line(entry))
            new_costs.append(count_tokens(new_lines[-1]))
            cost += new_costs[-1]
            if cost > draft.left:
                break
        if cost > draft.left:
            result.omitted += 1
            misses += 1
            continue
        misses = 0
        draft.used += cost
        draft.included.update(new_evidence)
        draft.included.update(claim for claim, _ in steps)
        draft.lines.extend(new_lines)
        draft.costs.extend(new_costs)
        result.claims.extend(new_claims)
        result.evidence.extend((ids[a], texts[ids[a]][0]) for a in new_evidence)
        result.requested.append(ids[n])


def _alternatives(
    index: "GrowingIndex", state: "SupportState", claim: int, used: int
) -> tuple[tuple[str, ...], ...]:
    """Every intact justification of ``claim`` (all antecedents active) but ``used`` (the
    certificate's), as sorted antecedent ids, shortest first: all of them, always (docs/design.md:
    a rendered claim shows every intact support)."""
    active, ids, antecedents = state.active, index.ids, index.just_antecedents
    return tuple(
        sorted(
            (
                tuple(sorted(ids[a] for a in antecedents[j]))
                for j in index.justs_of[claim]
                if j != used and all(active[a] for a in antecedents[j])
            ),
            key=lambda ants: (len(ants), ants),
        )
    )


def _render(draft: _Draft, withdrawn_lines: list[str], result: Context) -> None:
    """Phase 5: the text, and its token count (the sum over its lines)."""
    parts = [HEADER, *draft.lines]
    tokens = count_tokens(HEADER) + sum(draft.costs)
    if withdrawn_lines:
        parts += [WITHDRAWN_HEADER, *withdrawn_lines]
        tokens += sum(count_tokens(p) for p in (WITHDRAWN_HEADER, *withdrawn_lines))
    result.text = "\n".join(parts)
    result.tokens = tokens


def render_text(context: Context) -> str:
    footer = f"[{context.tokens} of {context.budget} tokens; {len(context.requested)} claim(s)"
    footer += f", {context.omitted} left out]" if context.omitted else "]"
    return (context.text + "\n" if context.text else "") + footer
