"""Working contexts of a revised memory, under a token budget, the same way for every rule.

After a rule has run, a :class:`MemoryView` says what a memory revised by that rule shows:
its active evidence, each active claim with a certificate (the support it renders), and the
nodes it withdrew. For the engine's exact rule the view is read back from the engine through
public :class:`~jtms.memory.memory.Memory` methods after the audit (:func:`engine_view`):
certificates are the engine's well-founded ones. A memory that applied another rule does not
re-evaluate justifications: it keeps the support it recorded before the audit
(:func:`rule_view`), so a stale claim is shown with its pre-audit certificate.

:func:`render` turns any view into text with one selection, so a budget binds every rule
alike. The selection is support-aware: a *unit* is a withdrawn line, an evidence line, or an
active claim together with every line of its certificate (a claim never enters without its
support); units are taken greedily by the number of nodes they newly show per token (ties:
cheaper, then by id), as long as they fit. Showing a node costs one withdrawn line when it is
withdrawn and a certificate when it is active, so under a tight budget the selection spends
the budget where it resolves the most questions, whatever the rule.

A delayed question is about one stored item; its context is compiled with that item in
*focus* (``render(view, budget, focus=item)``): the focus unit enters first, then the greedy
fills the rest. That makes a tight budget fair to the exact rule by construction, for a reader
that follows support (:func:`jtms.studies.readers.careful`): a withdrawn focus costs the exact
memory one withdrawn line, never more than the stale line, its chain and the root's withdrawn
line that a non-propagating memory needs before a careful reader can see it is withdrawn; an
active focus whose stale certificate is still valid lies outside the audit's support region,
so the engine kept that very certificate. So wherever ``none``'s context lets the careful
reader ground an answer, the exact context's focus unit fits too. The line format is the
engine's (:mod:`jtms.memory.context`).

>>> view = MemoryView({"e": "an assay", "c": "a claim"}, ("e",), {"c": (("c", ("e",)),)}, ())
>>> print(render(view, budget=None))
Working memory (each claim follows from lines above it)
- [evidence] e: an assay
- [claim] c: a claim (because e)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from jtms.memory.context import HEADER, WITHDRAWN_HEADER, count_tokens
from jtms.memory.memory import Memory
from theory.model.structure import SupportStructure

Step = tuple[str, tuple[str, ...]]  # (claim, the antecedents of its justification)


@dataclass(frozen=True)
class MemoryView:
    """What a memory revised by one rule shows (input of :func:`render`)."""

    texts: Mapping[str, str]
    evidence: tuple[str, ...]  # active evidence
    certificates: Mapping[str, tuple[Step, ...]]  # active claim -> its certificate
    withdrawn: tuple[str, ...]  # nodes the rule retired
    reason: str = "study audit"


def evidence_line(node_id: str, text: str) -> str:
    return f"- [evidence] {node_id}: {text}" if text else f"- [evidence] {node_id}"


def claim_line(node_id: str, text: str, antecedents: Iterable[str]) -> str:
    names = sorted(antecedents)
    because = " and ".join(names) if names else "premise"
    body = f"{node_id}: {text}" if text else node_id
    return f"- [claim] {body} (because {because})"


def withdrawn_line(node_id: str, reason: str) -> str:
    return f"- {node_id} (audit 1: {reason})"


def certificates_of(memory: Memory, claims: Iterable[str]) -> dict[str, tuple[Step, ...]]:
    """Active claim -> its certificate in the memory as it is now (``Memory.explain``)."""
    result: dict[str, tuple[Step, ...]] = {}
    for claim in claims:
        explanation = memory.explain(claim)
        if explanation.active:
            result[claim] = tuple((s.claim, tuple(s.antecedents)) for s in explanation.certificate)
    return result


def engine_view(memory: Memory, structure: SupportStructure, reason: str) -> MemoryView:
    """The engine's revised state, read back through public ``Memory`` methods."""
    active = memory.active_ids()
    return MemoryView(
        {n: structure.nodes[n].text for n in structure.nodes},
        tuple(sorted(e for e in structure.evidence if e in active)),
        certificates_of(memory, sorted(c for c in structure.claims if c in active)),
        tuple(sorted(item["id"] for item in memory.withdrawn())),
        reason,
    )


def rule_view(
    structure: SupportStructure,
    active: frozenset[str],
    retired: Iterable[str],
    certificates: Mapping[str, tuple[Step, ...]],
    reason: str,
) -> MemoryView:
    """A memory that applied a rule without re-evaluating justifications: every claim the rule
    leaves active keeps its pre-audit certificate (``certificates``)."""
    return MemoryView(
        {n: structure.nodes[n].text for n in structure.nodes},
        tuple(sorted(e for e in structure.evidence if e in active)),
        {c: certificates[c] for c in sorted(structure.claims) if c in active and c in certificates},
        tuple(sorted(retired)),
        reason,
    )


@dataclass(frozen=True)
class _Line:
    key: tuple[str, str]  # (section, node id): a node appears once per section
    text: str
    cost: int


def _units(view: MemoryView) -> list[tuple[str, list[_Line]]]:
    def line(section: str, node: str, text: str) -> _Line:
        return _Line((section, node), text, count_tokens(text))

    evidence = set(view.evidence)
    units: list[tuple[str, list[_Line]]] = []
    for node in view.withdrawn:
        units.append((node, [line("withdrawn", node, withdrawn_line(node, view.reason))]))
    for node in view.evidence:
        units.append((node, [line("memory", node, evidence_line(node, view.texts.get(node, "")))]))
    for claim, steps in view.certificates.items():
        lines = []
        for step_claim, antecedents in steps:
            for a in sorted(antecedents):
                if a in evidence:
                    lines.append(line("memory", a, evidence_line(a, view.texts.get(a, ""))))
            lines.append(
                line(
                    "memory",
                    step_claim,
                    claim_line(step_claim, view.texts.get(step_claim, ""), antecedents),
                )
            )
        units.append((claim, lines))
    return units


def render(view: MemoryView, budget: int | None, focus: str | None = None) -> str:
    """The context text of ``view`` within ``budget`` tokens (None: everything; see above).

    ``focus`` is the stored item a delayed question is about: its unit (its withdrawn line,
    or its line with its whole certificate) enters first when it fits, then the greedy fills
    the rest of the budget.
    """
    units = _units(view)
    if focus is not None:
        units.sort(key=lambda unit: unit[0] != focus)  # stable: the focus unit first
    headers = {"memory": count_tokens(HEADER), "withdrawn": count_tokens(WITHDRAWN_HEADER)}
    taken: dict[tuple[str, str], str] = {}  # insertion order = support before use
    used = 0
    remaining = list(range(len(units)))
    first = focus is not None and bool(units) and units[0][0] == focus
    while remaining:
        best: tuple[float, int, str, int] | None = None
        for u in remaining[:1] if first else remaining:
            name, lines = units[u]
            new = [ln for ln in lines if ln.key not in taken]
            sections = {ln.key[0] for ln in new} - {k[0] for k in taken}
            cost = sum(ln.cost for ln in {ln.key: ln for ln in new}.values())
            cost += sum(headers[s] for s in sections)
            if not new or (budget is not None and used + cost > budget):
                continue
            shown = len({ln.key for ln in new})
            candidate = (-shown / max(cost, 1), cost, name, u)
            if best is None or candidate < best:
                best = candidate
        if best is None and first:
            first = False  # the focus does not fit: fill the budget without it
            continue
        if best is None:
            break
        first = False
        u = best[3]
        remaining.remove(u)
        used += best[1]
        for ln in units[u][1]:
            taken.setdefault(ln.key, ln.text)
    memory_lines = [text for (section, _), text in taken.items() if section == "memory"]
    withdrawn = [text for (section, _), text in taken.items() if section == "withdrawn"]
    parts = [HEADER] + memory_lines if memory_lines else []
    parts += [WITHDRAWN_HEADER] + withdrawn if withdrawn else []
    return "\n".join(parts)
