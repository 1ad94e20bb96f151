"""Drawings of a memory's support graph: a certificate down to evidence, or the whole graph,
rendered as SVG (laid out here, by derivation rank), Graphviz dot, Mermaid, or a JSON
description that the explorer page lays out in the browser with ELK (:func:`description`;
the SVG here is that page's fallback without JavaScript).

A drawing is read from a :class:`Memory` (statuses, support pointers and derivation ranks come
from the engine's state; nothing is recomputed) and holds at most ``cap`` nodes; the rest are
counted in ``left_out`` so a page can offer "show more".

```python
from jtms.views.drawing import certificate_drawing, to_dot

with Memory.open("jtms.db") as memory:
    print(to_dot(certificate_drawing(memory, "c1")))
```

Each justification is drawn as a small junction: its antecedents point into it and it points
to its claim (an AND); several junctions into one claim are alternatives (OR). Solid lines:
the justification is intact (every antecedent active); dashed: broken.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from html import escape
from typing import IO, Any

from jtms.engine.incremental import SupportState
from jtms.memory.memory import Memory

CAP = 200  # nodes drawn before "show more"
TEXT_SHOWN = 60  # characters of a node's text in its box (the whole text is its tooltip)
BOX_BUDGET = 40  # boxes the explorer draws by default: each readable at the default zoom
NO_RANK_LIMIT = 1 << 40


@dataclass(frozen=True)
class DrawnNode:
    id: str
    kind: str  # "evidence" or "claim"
    active: bool
    rank: int  # derivation rank: 0 for evidence, 1 + the ranks below for claims
    text: str = ""
    collapsed: int = 0  # neighbours in the walk's direction that are not drawn (expandable)
    flag: str = ""  # "invalidated" (an audit's root), "retired" (by an audit of the focus), ""


@dataclass(frozen=True)
class DrawnJustification:
    claim: str
    antecedents: tuple[str, ...]
    intact: bool  # every antecedent active
    support: bool  # the one the engine's support pointer uses (the certificate's step)


@dataclass
class Drawing:
    nodes: dict[str, DrawnNode] = field(default_factory=dict)
    justifications: list[DrawnJustification] = field(default_factory=list)
    left_out: int = 0  # nodes reachable but not drawn (over the cap)
    focus: str | None = None
    question: str = "certificate"  # what the drawing answers: see focused_drawing
    certificates: int = 0  # intact justifications of an active focus (one drawn at a time)
    certificate: int = 0  # which of them is drawn
    invalidated: tuple[str, ...] = ()  # audited nodes the walk reached (whole walk, sorted)
    retired: frozenset[str] = frozenset()  # for active evidence: what an audit of it retires


def _ranks(state: SupportState, drawing_ids: Iterable[str]) -> dict[str, int]:
    """The engine's derivation ranks of the active nodes (evidence 0)."""
    index = state.index
    ranks: dict[str, int] = {}
    for node_id in drawing_ids:
        n = index.number[node_id]
        if index.is_evidence[n]:
            ranks[node_id] = 0
        elif state.active[n] and state.rank[n] < NO_RANK_LIMIT:
            ranks[node_id] = state.rank[n]
    return ranks


def _node(state: SupportState, node_id: str, texts: dict[str, str]) -> DrawnNode:
    n = state.index.number[node_id]
    return DrawnNode(
        node_id,
        "evidence" if state.index.is_evidence[n] else "claim",
        bool(state.active[n]),
        0,
        texts.get(node_id, ""),
    )


def justifications_of(memory: Memory, node_id: str) -> list[DrawnJustification]:
    """Every justification of ``node_id`` as the memory stands: intact or broken, and which
    one the engine's support pointer uses."""
    return _justifications_of(memory.state, node_id)


def _justifications_of(state: SupportState, node_id: str) -> list[DrawnJustification]:
    index = state.index
    n = index.number[node_id]
    out = []
    for j in index.justs_of[n]:
        ants = tuple(sorted(index.ids[a] for a in index.just_antecedents[j]))
        intact = all(state.active[a] for a in index.just_antecedents[j])
        out.append(
            DrawnJustification(
                node_id, ants, intact, bool(state.active[n]) and state.support[n] == j
            )
        )
    return out


def _finish(
    memory: Memory, state: SupportState, drawing: Drawing, texts: dict[str, str] | None = None
) -> Drawing:
    """Give every drawn node its rank and text; inactive claims (no rank) go one above their
    drawn antecedents, where they would sit if their support came back."""
    ranks = _ranks(state, drawing.nodes)
    below: dict[str, list[str]] = {}
    for j in drawing.justifications:
        below.setdefault(j.claim, []).extend(a for a in j.antecedents if a in drawing.nodes)
    pending = [i for i in drawing.nodes if i not in ranks]
    for _ in range(len(pending) + 1):  # relax: an unranked claim sits above what it uses
        changed = False
        for node_id in pending:
            level = 1 + max((ranks.get(a, 0) for a in below.get(node_id, [])), default=0)
            if ranks.get(node_id) != level:
                ranks[node_id], changed = level, True
        if not changed:
            break
    for node_id, node in list(drawing.nodes.items()):
        text = texts[node_id] if texts is not None else memory.node(node_id)["text"] or ""
        drawing.nodes[node_id] = DrawnNode(
            node.id,
            node.kind,
            node.active,
            min(ranks.get(node_id, 1), 10_000),
            text,
            node.collapsed,
            node.flag,
        )
    return drawing


def certificate_drawing(memory: Memory, node_id: str, cap: int = CAP) -> Drawing:
    """The node, every justification of it, and (breadth first, down to evidence) the support
    of each active antecedent (its certificate step) and every justification of each inactive
    one: the certificate of an active node; for an inactive claim, its broken justifications
    down to the invalidated nodes that broke them. Past ``cap`` nodes, the rest of the walk
    is counted in ``left_out``."""
    memory.explain(node_id)  # raises InputError("unknown id") for a stranger
    state = memory.state
    index = state.index
    walk: list[DrawnJustification] = []
    reached = {node_id}
    seen_claims: set[str] = set()
    queue = deque([node_id])
    while queue:
        current = queue.popleft()
        if current in seen_claims or index.is_evidence[index.number[current]]:
            continue
        seen_claims.add(current)
        justs = _justifications_of(state, current)
        if current != node_id and state.active[index.number[current]]:
            justs = [j for j in justs if j.support]  # an active claim below: its certificate step
        # (an inactive one: every justification, down to what broke it)
        for j in justs:
            walk.append(j)
            reached.update(j.antecedents)
            queue.extend(j.antecedents)
    drawing = Drawing(focus=node_id)
    drawing.nodes[node_id] = _node(state, node_id, {})
    for j in walk:
        new = [a for a in j.antecedents if a not in drawing.nodes]
        if len(drawing.nodes) + len(new) > cap:
            continue
        drawing.justifications.append(j)
        for a in new:
            drawing.nodes[a] = _node(state, a, {})
    drawing.justifications = [
        j for j in drawing.justifications if all(a in drawing.nodes for a in j.antecedents)
    ]
    drawing.left_out = len(reached) - len(drawing.nodes)
    return _finish(memory, state, drawing)


def focused_drawing(
    memory: Memory,
    node_id: str,
    *,
    budget: int = BOX_BUDGET,
    expand: Iterable[str] = (),
    certificate: int = 0,
) -> Drawing:
    """The drawing that answers a node page's question, in about ``budget`` boxes.

    - An active claim (``question`` "certificate"): one certificate at a time, the
      ``certificate``-th of its intact justifications (the engine's support first) and below
      it, down to evidence, the support step of each active claim.
    - An inactive claim ("why inactive"): its broken justifications down to what broke them;
      the audited nodes reached are flagged ``invalidated`` (inactive antecedents first).
    - Evidence ("dependents"): what depends on it, breadth first upwards; for active evidence,
      the nodes an audit of it would retire are flagged ``retired``.

    Boxes are added breadth first until ``budget``; a drawn node whose next neighbours did
    not fit counts them in ``collapsed``, and naming it in ``expand`` draws them as well.
    ``left_out`` counts the nodes of the walk not drawn.

    >>> from jtms import Memory
    >>> with Memory.create(":memory:") as memory:  # doctest: +SKIP
    ...     memory.add_evidence("a"); memory.add_claim("c", [["a"]])
    ...     sorted(focused_drawing(memory, "c").nodes)
    ['a', 'c']
    """
    memory.explain(node_id)  # raises InputError("unknown id") for a stranger
    state = memory.state
    index = state.index
    number = index.number
    focus_active = bool(state.active[number[node_id]])
    drawing = Drawing(focus=node_id)
    blocked = memory.blocked_ids()
    retired: frozenset[str] = frozenset()
    upward = bool(index.is_evidence[number[node_id]])
    if upward:
        drawing.question = "dependents"
        if focus_active:
            retired = frozenset(memory.preview([node_id]).retired)
            drawing.retired = retired
    else:
        drawing.question = "certificate" if focus_active else "why inactive"

    def steps(current: str) -> list[DrawnJustification]:
        """The justifications drawn below the claim ``current``, in the walk's order."""
        justs = _justifications_of(state, current)
        if current == node_id and focus_active:
            intact = sorted(
                (j for j in justs if j.intact), key=lambda j: (not j.support, j.antecedents)
            )
            drawing.certificates = len(intact)
            drawing.certificate = min(max(certificate, 0), max(len(intact) - 1, 0))
            chosen = intact[drawing.certificate : drawing.certificate + 1]
            return [DrawnJustification(j.claim, j.antecedents, True, True) for j in chosen]
        if state.active[number[current]]:
            return [j for j in justs if j.support]
        if current in blocked and current != node_id:
            return []  # an audited claim: the audit, not its justifications, keeps it out
        return justs

    def neighbours(current: str) -> list[str]:
        if upward:
            found = []
            for c in sorted({index.ids[c] for c in index.consumers[number[current]]}):
                for j in _justifications_of(state, c):
                    if current in j.antecedents:
                        steps_seen.append(DrawnJustification(c, (current,), j.intact, j.support))
                found.append(c)
            return found
        if index.is_evidence[number[current]]:
            return []
        if current != node_id and not focus_active and state.active[number[current]]:
            return []  # an intact antecedent of a broken justification: not why it is out
        found = []
        for j in steps(current):
            steps_seen.append(j)
            found.extend(sorted(j.antecedents, key=lambda a: (bool(state.active[number[a]]), a)))
        return found

    steps_seen: list[DrawnJustification] = []
    children: dict[str, list[str]] = {}
    parent: dict[str, str] = {}
    order = [node_id]
    queue = deque([node_id])
    while queue:  # the whole walk, breadth first
        current = queue.popleft()
        children[current] = neighbours(current)
        for other in children[current]:
            if other not in parent and other != node_id:
                parent[other] = current
                order.append(other)
                queue.append(other)
    # what is drawn: first the shortest path down to each audited node (why it is out), then
    # the walk breadth first, up to ``budget`` boxes
    drawn = {node_id}
    limit = max(1, budget)
    if drawing.question == "why inactive":
        for culprit in order:
            if culprit not in blocked or culprit in drawn:
                continue
            path = []
            step = culprit
            while step not in drawn:
                path.append(step)
                step = parent[step]
            if len(drawn) + len(path) > limit and len(drawn) > 1:
                break
            drawn.update(path)
    for i in order:
        if len(drawn) >= limit:
            break
        drawn.add(i)
    wanted = set(expand)
    for i in order:  # an expanded node's neighbours are drawn whatever the budget
        if i in drawn and i in wanted:
            drawn.update(children.get(i, ()))
    shown = [i for i in order if i in drawn]  # breadth-first order
    texts = {i: memory.node(i)["text"] or "" for i in shown}
    for i in shown:
        node = _node(state, i, texts)
        hidden = len({c for c in children.get(i, ()) if c not in drawn})
        flag = "invalidated" if i in blocked else "retired" if i in retired else ""
        drawing.nodes[i] = DrawnNode(node.id, node.kind, node.active, 0, node.text, hidden, flag)
    kept: dict[tuple[str, tuple[str, ...]], DrawnJustification] = {}
    for j in steps_seen:
        ants = tuple(a for a in j.antecedents if a in drawn)
        if j.claim in drawn and (ants or not j.antecedents):
            kept.setdefault((j.claim, ants), DrawnJustification(j.claim, ants, j.intact, j.support))
    drawing.justifications = list(kept.values())
    drawing.left_out = len(order) - len(shown)
    drawing.invalidated = tuple(sorted(i for i in order if i in blocked and i != node_id))
    return _finish(memory, state, drawing, texts)


def graph_drawing(memory: Memory, cap: int | None = None) -> Drawing:
    """The whole stored graph (every node and justification), at most ``cap`` nodes (lowest
    ranks first, so what is drawn is closed under support)."""
    texts = memory.texts()
    state = memory.state
    index = state.index
    order = sorted(
        range(index.size),
        key=lambda n: (
            0 if index.is_evidence[n] else (state.rank[n] if state.active[n] else NO_RANK_LIMIT),
            n,
        ),
    )
    chosen = order if cap is None else order[:cap]
    drawing = Drawing(left_out=index.size - len(chosen))
    for n in chosen:
        drawing.nodes[index.ids[n]] = _node(state, index.ids[n], texts)
    for n in chosen:
        if not index.is_evidence[n]:
            for j in _justifications_of(state, index.ids[n]):
                if all(a in drawing.nodes for a in j.antecedents):
                    drawing.justifications.append(j)
    return _finish(memory, state, drawing, texts)


# --- dot and mermaid -----------------------------------------------------------------------------


def _dot_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(drawing: Drawing) -> str:
    """Graphviz dot: nodes named n0, n1, ... (ids and texts only in quoted labels), one rank
    row per derivation rank, evidence at the bottom."""
    names = {node_id: f"n{k}" for k, node_id in enumerate(sorted(drawing.nodes))}
    lines = ["digraph memory {", "  rankdir=BT;", '  node [fontname="Helvetica"];']
    by_rank: dict[int, list[str]] = {}
    for node_id in sorted(drawing.nodes):
        node = drawing.nodes[node_id]
        label = node.id + (f"\n{node.text[:60]}" if node.text else "")
        shape = "box" if node.kind == "evidence" else "ellipse"
        style = "solid" if node.active else "dashed"
        color = "black" if node.active else "gray50"
        width = ", penwidth=2" if node_id == drawing.focus else ""
        lines.append(
            f"  {names[node_id]} [label={_dot_string(label)}, shape={shape}, "
            f"style={style}, color={color}{width}];"
        )
        by_rank.setdefault(node.rank, []).append(names[node_id])
    for rank in sorted(by_rank):
        lines.append(f"  {{ rank=same; {'; '.join(by_rank[rank])}; }}")
    for k, j in enumerate(drawing.justifications):
        junction = f"j{k}"
        style = "solid" if j.intact else "dashed"
        lines.append(f"  {junction} [shape=point, width=0.08];")
        for a in j.antecedents:
            lines.append(f"  {names[a]} -> {junction} [arrowhead=none, style={style}];")
        lines.append(f"  {junction} -> {names[j.claim]} [style={style}];")
    if drawing.left_out:
        lines.append(f"  // {drawing.left_out} more node(s) not drawn")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _mermaid_label(text: str) -> str:
    return '"' + escape(text, quote=True).replace("\n", "<br>") + '"'


def to_mermaid(drawing: Drawing) -> str:
    """A Mermaid flowchart (bottom to top: evidence below what it supports)."""
    names = {node_id: f"n{k}" for k, node_id in enumerate(sorted(drawing.nodes))}
    lines = ["flowchart BT"]
    for node_id in sorted(drawing.nodes):
        node = drawing.nodes[node_id]
        label = _mermaid_label(node.id + (f"\n{node.text[:60]}" if node.text else ""))
        lines.append(
            f"  {names[node_id]}[{label}]"
            if node.kind == "evidence"
            else f"  {names[node_id]}({label})"
        )
        if not node.active:
            lines.append(f"  class {names[node_id]} inactive")
    for k, j in enumerate(drawing.justifications):
        junction = f"j{k}"
        arrow = "-->" if j.intact else "-.->"
        line = "---" if j.intact else "-.-"
        lines.append(f"  {junction}(( ))")
        for a in j.antecedents:
            lines.append(f"  {names[a]} {line} {junction}")
        lines.append(f"  {junction} {arrow} {names[j.claim]}")
    lines.append("  classDef inactive stroke-dasharray: 5 5,color:#888")
    if drawing.left_out:
        lines.append(f"  %% {drawing.left_out} more node(s) not drawn")
    return "\n".join(lines) + "\n"


# --- SVG ---------------------------------------------------------------------------------------

NODE_W, NODE_H, GAP_X, GAP_Y, MARGIN = 150, 34, 24, 70, 20


def layout(drawing: Drawing) -> dict[str, tuple[float, float]]:
    """Top-left corners: one row per derivation rank (highest at the top, evidence at the
    bottom); within a row, nodes ordered by the mean position of what they use (one
    barycentre sweep upwards), so edges cross less."""
    rows: dict[int, list[str]] = {}
    for node_id, node in drawing.nodes.items():
        rows.setdefault(node.rank, []).append(node_id)
    uses: dict[str, list[str]] = {}
    for j in drawing.justifications:
        uses.setdefault(j.claim, []).extend(j.antecedents)
    ranks = sorted(rows)
    top = ranks[-1] if ranks else 0
    position: dict[str, float] = {}
    for rank in ranks:
        row = rows[rank]
        row.sort(
            key=lambda i: (
                sum(position.get(a, 0.0) for a in uses.get(i, [])) / max(1, len(uses.get(i, []))),
                i,
            )
        )
        for k, node_id in enumerate(row):
            position[node_id] = float(k)
    width = max((len(r) for r in rows.values()), default=1)
    corners: dict[str, tuple[float, float]] = {}
    for rank in ranks:
        row = rows[rank]
        offset = (width - len(row)) * (NODE_W + GAP_X) / 2
        for k, node_id in enumerate(row):
            corners[node_id] = (
                MARGIN + offset + k * (NODE_W + GAP_X),
                MARGIN + (top - rank) * (NODE_H + GAP_Y),
            )
    return corners


def _short(text: str, limit: int = 20) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def to_svg(drawing: Drawing, link: str | None = None, suffix: str = "") -> str:
    """A standalone SVG (every id and text escaped). ``link``: a URL prefix; each node links to
    ``link + quoted id + suffix``."""
    from urllib.parse import quote

    corners = layout(drawing)
    width = max((x for x, _ in corners.values()), default=0) + NODE_W + MARGIN
    height = max((y for _, y in corners.values()), default=0) + NODE_H + MARGIN
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="drawing" width="{width:.0f}" '
        f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" role="img">'
    ]
    for k, j in enumerate(drawing.justifications):
        cx, cy = corners[j.claim]
        tx, ty = cx + NODE_W / 2, cy + NODE_H
        xs = [corners[a][0] + NODE_W / 2 for a in j.antecedents]
        # the junction sits just below its claim, shifted a little per alternative
        siblings = [i for i in drawing.justifications if i.claim == j.claim]
        shift = (siblings.index(j) - (len(siblings) - 1) / 2) * 18
        jx, jy = tx + shift, ty + GAP_Y * 0.45
        dash = "" if j.intact else ' stroke-dasharray="5,4"'
        css = "edge intact" if j.intact else "edge broken"
        parts.append(
            f'<g class="{css}"><line x1="{jx:.1f}" y1="{jy:.1f}" x2="{tx:.1f}" '
            f'y2="{ty:.1f}"{dash} marker-end="url(#arrow)"/>'
        )
        for a, ax in zip(j.antecedents, xs):
            ay = corners[a][1]
            span = (ay - jy) / (NODE_H + GAP_Y)
            # an edge that skips rows bends aside, around the boxes between
            bend = 0.0 if span < 1 else (NODE_W * 0.6 + 10 * (k % 3))
            parts.append(
                f'<path d="M {ax:.1f} {ay:.1f} C {ax + bend:.1f} {ay - GAP_Y:.1f} '
                f'{jx + bend:.1f} {jy + GAP_Y / 2:.1f} {jx:.1f} {jy:.1f}" fill="none"{dash}/>'
            )
        parts.append(f'<circle cx="{jx:.1f}" cy="{jy:.1f}" r="3"/></g>')
    for node_id, (x, y) in sorted(corners.items()):
        node = drawing.nodes[node_id]
        css = f"node {node.kind} {'active' if node.active else 'inactive'}"
        if node.flag:
            css += f" {node.flag}"
        if node_id == drawing.focus:
            css += " focus"
        rx = 4 if node.kind == "evidence" else 16
        title = escape(node.id + (f": {node.text}" if node.text else ""))
        body = (
            f'<g class="{css}" data-id="{escape(node_id, quote=True)}"><title>{title}</title>'
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{NODE_W}" height="{NODE_H}" rx="{rx}"/>'
            f'<text x="{x + NODE_W / 2:.1f}" y="{y + NODE_H / 2 + 4:.1f}" '
            f'text-anchor="middle">{escape(_short(node.id))}</text></g>'
        )
        if link is not None:
            body = f'<a href="{escape(link + quote(node_id, safe="") + suffix, quote=True)}">{body}</a>'
        parts.append(body)
    parts.insert(
        1,
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" '
        'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
        '<path d="M 0 0 L 10 5 L 0 10 z"/></marker></defs>',
    )
    parts.append("</svg>")
    return "\n".join(parts)


def description(drawing: Drawing, link: str | None = None, suffix: str = "") -> dict[str, Any]:
    """The drawing as JSON for a layout in the browser (the explorer's ``explorer.js``):
    ``focus``, ``left_out``, ``nodes`` (``id``, ``kind``, ``active``, ``rank``, ``label``,
    ``title``, and ``href`` when ``link`` is given: ``link + quoted id + suffix``) and
    ``justifications`` (``claim``, ``antecedents``, ``intact``, ``support``), in the order
    the SVG draws them. Ids and texts are data here; the page escapes the JSON for HTML."""
    from urllib.parse import quote

    nodes = []
    for node_id in sorted(drawing.nodes):
        node = drawing.nodes[node_id]
        entry: dict[str, Any] = {
            "id": node.id,
            "kind": node.kind,
            "active": node.active,
            "rank": node.rank,
            "label": node.id,
            "text": node.text[:TEXT_SHOWN],
            "title": node.id + (f": {node.text}" if node.text else ""),
            "collapsed": node.collapsed,
            "flag": node.flag,
        }
        if link is not None:
            entry["href"] = link + quote(node_id, safe="") + suffix
        nodes.append(entry)
    return {
        "focus": drawing.focus,
        "question": drawing.question,
        "left_out": drawing.left_out,
        "nodes": nodes,
        "justifications": [
            {
                "claim": j.claim,
                "antecedents": list(j.antecedents),
                "intact": j.intact,
                "support": j.support,
            }
            for j in drawing.justifications
        ],
    }


FORMATS = {"dot": to_dot, "mermaid": to_mermaid}


def export_drawing(location: str, fmt: str, out: IO[str]) -> int:
    """Write the whole memory at ``location`` as a ``fmt`` ("dot" or "mermaid") drawing to
    ``out`` (``jtms export --format``); returns the number of nodes drawn."""
    with Memory.open(location) as memory:
        drawn = graph_drawing(memory)
    out.write(FORMATS[fmt](drawn))
    return len(drawn.nodes)
